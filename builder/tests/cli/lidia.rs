//! `symblob lidia` command-line tests, against files written and read by Pyroscope's Go
//! implementation.

use std::path::{Path, PathBuf};

use crate::common::{run, testdata};

fn read(path: &Path) -> Vec<u8> {
    std::fs::read(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

fn stdout(args: &[&str], stdin: &[u8]) -> String {
    let out = run(args, stdin);
    assert!(
        out.status.success(),
        "symblob {args:?} failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).unwrap()
}

/// `symblob ARGS` must fail with exit code 1, print nothing on standard output and one
/// line on standard error; returns that line.
fn failure(args: &[&str], stdin: &[u8]) -> String {
    let out = run(args, stdin);
    assert_eq!(out.status.code(), Some(1), "symblob {args:?}");
    assert!(out.stdout.is_empty(), "symblob {args:?} printed output");
    let err = String::from_utf8(out.stderr).unwrap();
    assert_eq!(err.lines().count(), 1, "{err}");
    err
}

/// Every golden `lidia/<elf>.<opts>.lidia` with the `symblob lidia build` flags that
/// stand for `<opts>`.
fn golden_builds() -> Vec<(PathBuf, Vec<&'static str>, PathBuf)> {
    let mut out = Vec::new();
    for entry in std::fs::read_dir(testdata("lidia/lidia")).unwrap() {
        let golden = entry.unwrap().path();
        let name = golden.file_name().unwrap().to_str().unwrap().to_owned();
        let Some((elf, opts)) = name.strip_suffix(".lidia").and_then(|s| s.rsplit_once('.')) else {
            continue;
        };
        // Go's WithFiles()/WithLines() change nothing in a build from symbols (the golden
        // `crc_lines_files` files equal the `crc` ones byte for byte), and `--files` and
        // `--lines` are for DWARF builds only.
        let flags = match opts {
            "none" | "crc" | "crc_lines_files" => vec![],
            "symtab_only" => vec!["--no-gopclntab"],
            "pclntab_only" => vec!["--no-symtab"],
            other => panic!("unknown option set {other}"),
        };
        out.push((testdata(&format!("lidia/elf/{elf}")), flags, golden));
    }
    out.sort();
    out
}

#[test]
fn build_writes_the_go_bytes() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("out.lidia");
    let builds = golden_builds();
    assert!(builds.len() >= 20);
    for (elf, flags, golden) in builds {
        // Some option sets find no function (a stripped Go binary without .gopclntab),
        // and Go writes an empty file for them.
        let mut args = vec![
            "lidia",
            "build",
            "--allow-empty",
            elf.to_str().unwrap(),
            "-o",
        ];
        args.push(out.to_str().unwrap());
        args.extend(flags.iter().copied());
        assert_eq!(stdout(&args, b""), "");
        assert!(
            read(&out) == read(&golden),
            "{args:?} vs {}",
            golden.display()
        );
    }
}

/// The golden lookups of a file: its addresses and the expected lines.
fn golden_lookups(tsv: &Path) -> (Vec<String>, Vec<String>) {
    let text = String::from_utf8(read(tsv)).unwrap();
    let lines: Vec<String> = text
        .lines()
        .filter(|l| !l.starts_with('#'))
        .map(str::to_owned)
        .collect();
    let addresses = lines
        .iter()
        .map(|l| l.split('\t').next().unwrap().to_owned())
        .collect();
    (addresses, lines)
}

#[test]
fn lookup_prints_the_go_readers_frames() {
    // Files built from ELF symbols have no files and no lines, so our lines (with real
    // line numbers) equal the Go reader's (which always says 0) cell for cell.
    let mut checked = 0;
    for entry in std::fs::read_dir(testdata("lidia/dumps")).unwrap() {
        let tsv = entry.unwrap().path();
        let name = tsv.file_name().unwrap().to_str().unwrap().to_owned();
        let Some(stem) = name.strip_suffix(".lookups.tsv") else {
            continue;
        };
        let lidia = testdata(&format!("lidia/lidia/{stem}.lidia"));
        let (addresses, want) = golden_lookups(&tsv);
        let stdin = addresses.join("\n");
        let got = stdout(
            &["lidia", "lookup", lidia.to_str().unwrap()],
            stdin.as_bytes(),
        );
        let got: Vec<&str> = got.lines().collect();
        assert_eq!(got, want, "{name}");
        checked += 1;
    }
    assert!(checked >= 27);
}

#[test]
fn lookup_of_synthetic_files_matches_go_frames_and_adds_lines() {
    for stem in [
        "inline.none",
        "inline.files",
        "inline.files_lines",
        "u64va.files_lines",
    ] {
        let lidia = testdata(&format!("lidia/synth/{stem}.lidia"));
        let (addresses, want) =
            golden_lookups(&testdata(&format!("lidia/synth/{stem}.lookups.tsv")));
        let refs: Vec<&str> = addresses.iter().map(String::as_str).collect();
        let mut args = vec!["lidia", "lookup", lidia.to_str().unwrap()];
        args.extend(refs);
        let got = stdout(&args, b"");
        assert_eq!(got.lines().count(), want.len(), "{stem}");
        for (got, want) in got.lines().zip(&want) {
            // Frame count and function names equal Go's; files and lines are ours.
            let cells = |l: &str| -> Vec<String> {
                let c: Vec<&str> = l.split('\t').collect();
                let mut out = vec![c[0].to_owned(), c[1].to_owned()];
                out.extend(c[2..].chunks(3).map(|f| f[0].to_owned()));
                out
            };
            assert_eq!(cells(got), cells(want), "{stem}");
        }
    }
    // The worked example of the spec (section 7.3).
    let lidia = testdata("lidia/synth/inline.files_lines.lidia");
    let got = stdout(
        &[
            "lidia",
            "lookup",
            lidia.to_str().unwrap(),
            "1080",
            "0x3403",
            "0x4015",
        ],
        b"",
    );
    assert_eq!(
        got,
        "0x1080\t3\tinner\tfile3.h\t101\tmiddle\tfile2.h\t33\touter\tfile1.c\t17\n\
         0x3403\t1\tfunc_with_lines\tfile_with_lines.c\t9\n\
         0x4015\t2\tsib_b\ts.h\t0\tsiblings\ts.c\t7\n"
    );
}

#[test]
fn lookup_json() {
    let lidia = testdata("lidia/synth/inline.files_lines.lidia");
    let got = stdout(
        &[
            "lidia",
            "lookup",
            "--json",
            lidia.to_str().unwrap(),
            "0x4015",
            "0x10",
        ],
        b"",
    );
    // JSON Lines: one object per address.
    let json: Vec<serde_json::Value> = got
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(json.len(), 2);
    let frames = &json[0]["frames"];
    assert_eq!(json[0]["address"], "0x4015");
    assert_eq!(frames[0]["function"], "sib_b");
    assert_eq!(frames[0]["call_file"], "s.c");
    assert_eq!(frames[0]["call_line"], 7);
    assert_eq!(frames[0]["depth"], 1);
    assert_eq!(frames[1]["function"], "siblings");
    assert_eq!(frames[1]["line"], 7);
    assert_eq!(json[1]["frames"].as_array().unwrap().len(), 0);
}

#[test]
fn dump_equals_the_golden_dumps() {
    let mut pairs = Vec::new();
    for entry in std::fs::read_dir(testdata("lidia/dumps")).unwrap() {
        let dump = entry.unwrap().path();
        let name = dump.file_name().unwrap().to_str().unwrap().to_owned();
        if let Some(stem) = name.strip_suffix(".dump.txt") {
            pairs.push((testdata(&format!("lidia/lidia/{stem}.lidia")), dump));
        }
    }
    for entry in std::fs::read_dir(testdata("lidia/synth")).unwrap() {
        let dump = entry.unwrap().path();
        let name = dump.file_name().unwrap().to_str().unwrap().to_owned();
        if let Some(stem) = name.strip_suffix(".dump.txt") {
            pairs.push((testdata(&format!("lidia/synth/{stem}.lidia")), dump));
        }
    }
    assert!(pairs.len() >= 32);
    for (lidia, dump) in pairs {
        let got = stdout(&["lidia", "dump", lidia.to_str().unwrap()], b"");
        assert!(
            got.as_bytes() == read(&dump),
            "{} differs from {}",
            lidia.display(),
            dump.display()
        );
    }
}

#[test]
fn verify_accepts_goldens_and_names_the_corrupted_section() {
    let golden = testdata("lidia/synth/inline.files_lines.lidia");
    let ok = stdout(&["lidia", "verify", golden.to_str().unwrap()], b"");
    assert!(ok.contains("ok"), "{ok}");

    // inline.files_lines: VA table at 0x80, ranges at 0xb4, strings at 0x254, lines at
    // 0x354 (its dump.txt).
    let bytes = read(&golden);
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("flipped.lidia");
    for (at, section) in [
        (0x80, "va table"),
        (0xb4 + 5, "range table"),
        (0x254 + 20, "strings table"),
        (0x354 + 1, "line table"),
    ] {
        let mut b = bytes.clone();
        b[at] ^= 0x10;
        std::fs::write(&path, &b).unwrap();
        let err = failure(&["lidia", "verify", path.to_str().unwrap()], b"");
        assert!(err.contains(section), "byte {at:#x}: {err}");
        assert!(err.contains("flipped.lidia"), "{err}");
    }
}

#[test]
fn info_reports_counts_and_sizes() {
    let golden = testdata("lidia/lidia/libdemo-stripped.so.none.lidia");
    let got = stdout(&["lidia", "info", golden.to_str().unwrap()], b"");
    // Spec section 18's annotated file: 242 bytes, 2 ranges, a 42-byte strings table.
    assert!(got.contains("file size       242 bytes"), "{got}");
    assert!(got.contains("ranges          2\n"), "{got}");
    assert!(got.contains("strings table   42 bytes"), "{got}");
}

#[test]
fn errors_exit_1_with_one_line_and_no_output() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("out.lidia");
    let out_s = out.to_str().unwrap();

    let err = failure(&["lidia", "build", "/nonexistent/elf", "-o", out_s], b"");
    assert!(err.contains("/nonexistent/elf"), "{err}");

    // A Lidia file is not an ELF file.
    let not_elf = testdata("lidia/lidia/simple.none.lidia");
    let err = failure(
        &["lidia", "build", not_elf.to_str().unwrap(), "-o", out_s],
        b"",
    );
    assert!(err.contains("simple.none.lidia"), "{err}");
    assert!(!out.exists());

    // An ELF file is not a Lidia file.
    let elf = testdata("lidia/elf/simple");
    let err = failure(&["lidia", "lookup", elf.to_str().unwrap(), "0x1000"], b"");
    assert!(err.contains("is an ELF file, not a Lidia file"), "{err}");
    failure(&["lidia", "dump", elf.to_str().unwrap()], b"");
    failure(&["lidia", "info", elf.to_str().unwrap()], b"");

    let golden = testdata("lidia/lidia/simple.none.lidia");

    // A truncated file.
    let bytes = read(&golden);
    let cut = dir.path().join("cut.lidia");
    std::fs::write(&cut, &bytes[..bytes.len() - 1]).unwrap();
    let err = failure(&["lidia", "verify", cut.to_str().unwrap()], b"");
    assert!(err.contains("cut.lidia"), "{err}");
}
