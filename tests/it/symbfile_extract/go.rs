//! Go functions from `.gopclntab` against Go's own `debug/gosym`: on the stripped Go test
//! ELF (no DWARF, no symbols, so every record comes from the Go table) each record spans
//! the PCs its line table maps, as symblib's Go extractor makes it, and names the file of
//! its entry PC. The spans are computed by `testdata/symbfile/gospans`, a Go program.

use std::path::Path;
use std::process::Command;

use symblob_build::symbfile::extract::{ranges, ExtractOptions};

use crate::common::{missing_oracle, shared_testdata, testdata, tool};

/// A `go` command whose caches live in `home` and that reads no user settings.
fn go_command(go: &Path, home: &Path) -> Command {
    let mut cmd = Command::new(go);
    cmd.env("HOME", home)
        .env("GOPATH", home.join("path"))
        .env("GOCACHE", home.join("cache"))
        .env("GOFLAGS", "")
        .env("GO111MODULE", "off")
        .env("CGO_ENABLED", "0");
    cmd
}

/// `gospans`' lines for `elf`: entry, end, name and file per function.
fn gosym_spans(elf: &Path) -> Option<Vec<(u64, u64, String, String)>> {
    let go = tool("go")?;
    let home = tempfile::tempdir().expect("temporary directory");
    let out = go_command(&go, home.path())
        .arg("run")
        .arg(testdata("symbfile/gospans/main.go"))
        .arg(elf)
        .output()
        .expect("go run");
    if !out.status.success() {
        missing_oracle(&format!(
            "gospans: {}",
            String::from_utf8_lossy(&out.stderr).trim()
        ));
        return None;
    }
    let text = String::from_utf8(out.stdout).expect("UTF-8 output");
    let spans = text
        .lines()
        .map(|l| {
            let (head, file) = l.split_once('\t').expect("tab");
            let mut f = head.splitn(3, ' ');
            let mut hex = || u64::from_str_radix(f.next().expect("field"), 16).expect("hex");
            let (entry, end) = (hex(), hex());
            let name = f.next().expect("name").to_string();
            (entry, end, name, file.to_string())
        })
        .collect();
    Some(spans)
}

#[test]
fn symbfile_go_records_span_their_line_tables_as_symblib_and_gosym_say() {
    let Some(elf) = shared_testdata("lidia/elf/gohello-stripped") else {
        return;
    };
    assert_records_match_gosym(&elf, 100);
}

/// Tables of other byte orders, pointer sizes and instruction quanta, which symblib does
/// not read: a small program built stripped for each, compared with `debug/gosym` the same
/// way as the x86-64 binary above.
#[test]
fn symbfile_go_records_of_big_endian_and_32_bit_tables_match_gosym() {
    let Some(go) = tool("go") else {
        return;
    };
    let home = tempfile::tempdir().expect("temporary directory");
    // (GOARCH, its table's layout, functions that end before the next entry at least:
    // s390x functions have no padding after them, so only names and files are checked there)
    for (arch, what, padded) in [
        ("s390x", "64-bit big-endian, quantum 2", 0),
        ("mips", "32-bit big-endian, quantum 4", 20),
        ("386", "32-bit little-endian, quantum 1", 100),
    ] {
        let elf = home.path().join(format!("hello-{arch}"));
        let out = go_command(&go, home.path())
            .env("GOOS", "linux")
            .env("GOARCH", arch)
            .args(["build", "-trimpath", "-ldflags=-s -w", "-o"])
            .arg(&elf)
            .arg(testdata("symbfile/gocross/main.go"))
            .output()
            .expect("go build");
        assert!(
            out.status.success(),
            "go build for {arch}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        eprintln!("{arch} ({what})");
        assert_records_match_gosym(&elf, padded);
    }
}

/// Every record extracted from `elf` (which has no DWARF and no symbols) is a Go record
/// with the span and file `gospans` computes; at least `min_padded` of them end before the
/// next function's entry, so the line-table rule is visible.
fn assert_records_match_gosym(elf: &Path, min_padded: usize) {
    let Some(expected) = gosym_spans(elf) else {
        return;
    };
    // The difference from `[entry, next entry)` must be visible in this input.
    let padded = expected.windows(2).filter(|w| w[0].1 < w[1].0).count();
    assert!(
        padded >= min_padded,
        "{padded} functions end before the next entry"
    );

    let got = ranges(elf, &ExtractOptions::default()).expect("extraction");
    let go = got.stats.sources.iter().find(|(s, _)| *s == "go");
    assert!(go.is_some_and(|(_, s)| s.accepted == expected.len()));
    let got: Vec<_> = got
        .records
        .iter()
        .map(|r| {
            assert_eq!((r.depth, r.call_file.as_ref(), r.lines.len()), (0, None, 0));
            (
                r.va,
                r.va + r.length,
                r.func.clone(),
                r.file.clone().unwrap_or_default(),
            )
        })
        .collect();
    assert_eq!(got.len(), expected.len());
    for (g, e) in got.iter().zip(&expected) {
        assert_eq!(g, e);
    }
}
