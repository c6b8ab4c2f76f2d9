//! Tests: the Lidia builder against files written by Pyroscope's Go implementation.

use std::path::{Path, PathBuf};

use serde_json::Value;
use symblob_build::lidia::{build_from_elf, ElfOptions, Flags, LidiaWriter, LineEntry, RangeSpec};

use crate::common::{shared_testdata, testdata};

/// One range of a `synth/*.json` file, owning its strings.
struct SynthRange {
    va: u64,
    length: u64,
    depth: u64,
    function: String,
    file: String,
    call_file: String,
    call_line: u64,
    lines: Vec<LineEntry>,
}

impl SynthRange {
    fn spec(&self) -> RangeSpec<'_> {
        RangeSpec {
            va: self.va,
            length: self.length,
            depth: self.depth,
            function: self.function.as_bytes(),
            file: self.file.as_bytes(),
            call_file: self.call_file.as_bytes(),
            call_line: self.call_line,
            lines: &self.lines,
        }
    }
}

/// Reads a synth range list: `inline.json` / `u64va.json` (Go `Range` fields) and
/// `u64fields.raw.json` (VA, 64-bit Length and Depth, Function, File) share field names;
/// absent fields are zero or empty.
fn load_synth(path: &Path) -> Vec<SynthRange> {
    let text = std::fs::read_to_string(path).unwrap();
    let json: Value = serde_json::from_str(&text).unwrap();
    let num = |v: &Value, k: &str| v.get(k).map_or(0, |x| x.as_u64().unwrap());
    let text = |v: &Value, k: &str| {
        v.get(k)
            .map_or(String::new(), |x| x.as_str().unwrap().to_owned())
    };
    json.as_array()
        .unwrap()
        .iter()
        .map(|r| SynthRange {
            va: num(r, "VA"),
            length: num(r, "Length"),
            depth: num(r, "Depth"),
            function: text(r, "Function"),
            file: text(r, "File"),
            call_file: text(r, "CallFile"),
            call_line: num(r, "CallLine"),
            lines: r.get("LineTable").map_or(Vec::new(), |t| {
                t.as_array()
                    .unwrap()
                    .iter()
                    .map(|e| LineEntry {
                        offset: e[0].as_u64().unwrap(),
                        line: e[1].as_u64().unwrap(),
                    })
                    .collect()
            }),
        })
        .collect()
}

fn write_synth(ranges: &[SynthRange], flags: Flags) -> Vec<u8> {
    let mut w = LidiaWriter::new(flags);
    for r in ranges {
        w.add(&r.spec());
    }
    w.finish()
}

fn read(path: &Path) -> Vec<u8> {
    std::fs::read(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

#[test]
fn synth_ranges_give_the_go_writers_bytes() {
    let none = Flags::default();
    let files = Flags {
        files: true,
        lines: false,
    };
    let files_lines = Flags {
        files: true,
        lines: true,
    };
    // The flags each golden was written with (spec section 13); u64fields has no call
    // site and no lines, and its file strings are stored, which is the `files` flag.
    let cases = [
        ("inline.json", none, "inline.none.lidia"),
        ("inline.json", files, "inline.files.lidia"),
        ("inline.json", files_lines, "inline.files_lines.lidia"),
        ("u64va.json", files_lines, "u64va.files_lines.lidia"),
        ("u64fields.raw.json", files, "u64fields.lidia"),
    ];
    for (json, flags, golden) in cases {
        let ranges = load_synth(&testdata(&format!("lidia/synth/{json}")));
        let got = write_synth(&ranges, flags);
        let want = read(&testdata(&format!("lidia/synth/{golden}")));
        assert_eq!(got, want, "{json} with {flags:?} differs from {golden}");
    }
}

#[test]
fn streaming_and_finish_agree() {
    let ranges = load_synth(&testdata("lidia/synth/inline.json"));
    let flags = Flags {
        files: true,
        lines: true,
    };
    let mut w = LidiaWriter::new(flags);
    for r in &ranges {
        w.add(&r.spec());
    }
    let layout = w.layout();
    let mut streamed = Vec::new();
    w.write_to(&mut streamed).unwrap();
    assert_eq!(streamed, write_synth(&ranges, flags));
    assert_eq!(layout.file_size, streamed.len() as u64);
}

#[test]
fn no_ranges_gives_the_empty_golden() {
    let got = LidiaWriter::new(Flags::default()).finish();
    assert_eq!(got, read(&testdata("lidia/lidia/empty.lidia")));
}

fn upstream(rel: &str) -> Option<PathBuf> {
    shared_testdata(&format!("lidia/upstream/{rel}"))
}

/// The options a golden's `<opts>` name stands for (testdata README); `crc` changes
/// nothing in the written bytes, and `lines`/`files` nothing from an ELF.
fn options_for(opts: &str) -> ElfOptions {
    let mut o = ElfOptions::default();
    match opts {
        "none" | "crc" => {}
        "crc_lines_files" => {
            o.lines = true;
            o.files = true;
        }
        "symtab_only" => o.gopclntab = false,
        "pclntab_only" => o.symtab = false,
        other => panic!("unknown option set {other}"),
    }
    o
}

/// Every `(elf, opts, golden)` triple of a `lidia/` folder whose ELF is in `elf_dir`.
fn golden_builds(elf_dir: &Path, lidia_dir: &Path) -> Vec<(PathBuf, String, PathBuf)> {
    let mut out = Vec::new();
    for entry in std::fs::read_dir(lidia_dir).unwrap() {
        let golden = entry.unwrap().path();
        let name = golden.file_name().unwrap().to_str().unwrap().to_owned();
        let Some(stem) = name.strip_suffix(".lidia") else {
            continue;
        };
        let Some((elf, opts)) = stem.rsplit_once('.') else {
            continue;
        };
        let elf = elf_dir.join(elf);
        if elf.exists() {
            out.push((elf, opts.to_owned(), golden));
        }
    }
    out.sort();
    out
}

fn check_golden_builds(elf_dir: &Path, lidia_dir: &Path) -> usize {
    let builds = golden_builds(elf_dir, lidia_dir);
    for (elf, opts, golden) in &builds {
        let got = build_from_elf(elf, &options_for(opts))
            .unwrap_or_else(|e| panic!("{} ({opts}): {e}", elf.display()));
        assert!(
            got == read(golden),
            "{} with {opts} differs from {}",
            elf.display(),
            golden.display()
        );
    }
    builds.len()
}

#[test]
fn elf_builds_equal_the_go_goldens() {
    let n = check_golden_builds(&testdata("lidia/elf"), &testdata("lidia/lidia"));
    // 8 ELFs: none + crc_lines_files each, crc for the 6 C ones, 2 × 2 Go-only sets.
    assert_eq!(n, 8 * 2 + 6 + 4);
}

#[test]
fn upstream_elf_builds_equal_the_go_goldens() {
    let (Some(elf), Some(lidia)) = (upstream("elf"), upstream("lidia")) else {
        eprintln!("upstream Lidia test data absent: skipped");
        return;
    };
    assert!(check_golden_builds(&elf, &lidia) > 0);
}
