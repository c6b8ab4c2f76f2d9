//! Each loader check of spec §3 has a failing file: a Chromium golden with one thing
//! broken. Our loader must name the check and the line; SuperSize's loader model
//! (`size_ref.py`, without `--strict`) must reject the same file.

use symblob_build::size::loader;

use super::support::{gunzip, size_ref};
use crate::common::testdata;

fn golden_text() -> String {
    gunzip(&std::fs::read(testdata("supersize/sizedemo-v1.size")).unwrap())
}

/// 1-based number of the first line of `text` that starts with `prefix`.
fn line_of(text: &str, prefix: &str) -> usize {
    text.lines()
        .position(|l| l.starts_with(prefix))
        .expect("line")
        + 1
}

/// (check, text to replace, replacement, start of the line the error must name).
const CASES: &[(&str, &str, &str, &str)] = &[
    ("vanity line", "# Created by //tools/binary_size\n", "# Created by hand\n", "# Created"),
    ("version line", "Size File Format v1\n", "Size File Format v2\n", "Size File"),
    ("JSON fields", "Size File Format v1\n", "Size File Format v1.1\n", "{"),
    ("JSON header", "\n1784\n{", "\n1783\n{", "}"),
    ("path line", "\n\tsizedemo.c\n", "\nsizedemo.c\n", "sizedemo.c"),
    ("path index", "\n1 0 0 -1 0 0 0 0 1 0 0\n", "\n5 0 0 -1 0 0 0 0 1 0 0\n", "report_error"),
    ("component index", "\n0 0 0 0 0 0 0 0 0 0 0\n0 0 0\n0 0 0\n0 0 0\n0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0\nreport", "\n3 0 0 0 0 0 0 0 0 0 0\n0 0 0\n0 0 0\n0 0 0\n0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0\nreport", "report_error"),
    ("addresses", "\n4208 24 24 256 48 48 64 64 16 16 0\n", "\n4208 24 24 256 48 48 64 64 16 16\n", "4208"),
    ("alias group", "checksum_alias\t20\n", "checksum_alias\t02\t20\n", "checksum_alias"),
    ("padding", "checksum\t02\t20\n", "checksum\t20\n", "checksum_alias"),
    ("padding", "\n24 22 254 34", "\n100 22 254 34", "main.cold"),
    ("padding", ".text\t.rodata\t.data\t.bss\t.other\n", ".text\t.rodata\t.data\t.rodata\t.other\n", "stderr@"),
];

#[test]
fn size_each_loader_check_has_a_failing_file() {
    let text = golden_text();
    let dir = tempfile::tempdir().unwrap();
    for (i, (check, old, new, line_start)) in CASES.iter().enumerate() {
        assert!(text.contains(old), "case {i}: golden lacks {old:?}");
        let broken = text.replacen(old, new, 1);
        let line = line_of(&broken, line_start);
        let err = loader::parse_size_text(&broken, "broken.size")
            .expect_err(&format!("case {i} ({check}) loads"))
            .to_string();
        assert!(
            err.contains(&format!("broken.size:{line}: {check}")),
            "case {i}: expected {check} at line {line}, got: {err}"
        );
        let path = dir.path().join(format!("case{i}.txt"));
        std::fs::write(&path, &broken).unwrap();
        if let Some(result) = size_ref(&path, false) {
            let (code, _) = result.expect_err(&format!("size_ref.py accepts case {i} ({check})"));
            assert_eq!(code, 1, "case {i}");
        }
    }
}

#[test]
fn size_disassembly_and_trailing_data_checks() {
    let text = golden_text();
    assert!(text.ends_with("Overhead: ELF file\n\n"));
    let bad_index = format!("{}\n99\n3\nabc", text.strip_suffix("\n\n").unwrap());
    let err = loader::parse_size_text(&bad_index, "d.size")
        .unwrap_err()
        .to_string();
    assert!(err.contains("disassembly: index 99 out of range"), "{err}");
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("d.txt");
    std::fs::write(&path, &bad_index).unwrap();
    if let Some(r) = size_ref(&path, false) {
        assert_eq!(r.unwrap_err().0, 1);
    }
    // A valid body loads and is kept.
    let good = format!("{}\n0\n3\nabc", text.strip_suffix("\n\n").unwrap());
    let (info, _) = loader::parse_size_text(&good, "d.size").unwrap();
    assert_eq!(info.symbols[0].disassembly.as_deref(), Some("abc"));

    // Caspian rejects non-empty lines after the last section; SuperSize's writer never
    // leaves any (size_ref.py --strict exits 2).
    let trailing = format!("{text}junk\n");
    let err = loader::parse_size_text(&trailing, "t.size")
        .unwrap_err()
        .to_string();
    assert!(err.contains("trailing data"), "{err}");
    std::fs::write(&path, &trailing).unwrap();
    if let Some(r) = size_ref(&path, true) {
        assert_eq!(r.unwrap_err().0, 2);
    }

    let mut gz = std::fs::read(testdata("supersize/sizedemo-v1.size")).unwrap();
    let n = gz.len();
    gz.truncate(n / 2);
    let err = loader::load(&gz, "cut.size").unwrap_err().to_string();
    assert!(err.starts_with("cut.size: gzip:"), "{err}");
}
