//! Go functions from `.gopclntab` against Go's own `debug/gosym`: on the stripped Go test
//! ELF (no DWARF, no symbols, so every record comes from the Go table) each record spans
//! the PCs its line table maps, as symblib's Go extractor makes it, and names the file of
//! its entry PC. The spans are computed by `testdata/symbfile/gospans`, a Go program.

use std::process::Command;

use symblob_build::symbfile::extract::{ranges, ExtractOptions};

use crate::common::{missing_oracle, shared_testdata, testdata, tool};

/// `gospans`' lines for `elf`: entry, end, name and file per function.
fn gosym_spans(elf: &std::path::Path) -> Option<Vec<(u64, u64, String, String)>> {
    let go = tool("go")?;
    let home = tempfile::tempdir().expect("temporary directory");
    let out = Command::new(go)
        .arg("run")
        .arg(testdata("symbfile/gospans/main.go"))
        .arg(elf)
        .env("HOME", home.path())
        .env("GOPATH", home.path().join("path"))
        .env("GOCACHE", home.path().join("cache"))
        .env("GOFLAGS", "")
        .env("GO111MODULE", "off")
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
    let Some(expected) = gosym_spans(&elf) else {
        return;
    };
    // The difference from `[entry, next entry)` must be visible in this input.
    let padded = expected.windows(2).filter(|w| w[0].1 < w[1].0).count();
    assert!(padded > 100, "{padded} functions end before the next entry");

    let got = ranges(&elf, &ExtractOptions::default()).expect("extraction");
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
