//! ksym-bin v2 blobs through every command that reads a ksym blob: what a v2 blob answers
//! must be what the v1 blob of the same input answers, byte for byte.

use std::path::{Path, PathBuf};

use crate::common::{failed, ok, run, s, success, testdata};

/// Builds the ksym input `rel` (under testdata) as v1 and v2 blobs of the same file name
/// in `dir/v1` and `dir/v2` (a Breakpad conversion names the module after the file).
fn build_both(dir: &Path, rel: &str) -> (PathBuf, PathBuf) {
    let input = testdata(rel);
    let mut blobs = Vec::new();
    for version in ["1", "2"] {
        let sub = dir.join(format!("v{version}"));
        std::fs::create_dir_all(&sub).unwrap();
        let blob = sub.join("symbols.bin");
        let args = [
            "ksym",
            "build",
            s(&input),
            "-o",
            s(&blob),
            "--format-version",
            version,
            "--quiet",
        ];
        ok(&run(&args, b""));
        blobs.push(blob);
    }
    let v2 = blobs.pop().unwrap();
    let v1 = blobs.pop().unwrap();
    assert!(std::fs::read(&v2).unwrap().starts_with(b"KSYMBIN2"));
    (v1, v2)
}

/// Runs `args` with `blob` in place of `{}` and returns standard output.
fn out(args: &[&str], blob: &Path, stdin: &[u8]) -> Vec<u8> {
    let args: Vec<&str> = args
        .iter()
        .map(|&a| if a == "{}" { s(blob) } else { a })
        .collect();
    success(run(&args, stdin))
}

/// Every read-only command gives the same output for both blobs, and `convert` writes
/// the same bytes from both, for every target format.
fn same_answers(rel: &str, every: usize) {
    let dir = tempfile::tempdir().unwrap();
    let (v1, v2) = build_both(dir.path(), rel);

    let dump = out(&["ksym", "dump", "{}"], &v1, b"");
    assert!(!dump.is_empty());
    assert_eq!(dump, out(&["ksym", "dump", "{}"], &v2, b""), "{rel}: dump");
    let json = ["ksym", "dump", "--json", "{}"];
    assert_eq!(
        out(&json, &v1, b""),
        out(&json, &v2, b""),
        "{rel}: dump --json"
    );

    // Queries: every `every`-th symbol's address, one byte on either side, and addresses
    // outside the table.
    let text = String::from_utf8(dump).unwrap();
    let rows: Vec<(u64, &str)> = text
        .lines()
        .step_by(every)
        .map(|l| {
            let (addr, rest) = l.split_once(' ').unwrap();
            (u64::from_str_radix(addr, 16).unwrap(), &rest[2..])
        })
        .collect();
    let mut queries = String::from("0\n1\nffffffffffffffff\n");
    for &(a, _) in &rows {
        for q in [a.wrapping_sub(1), a, a.wrapping_add(1)] {
            queries.push_str(&format!("{q:#x}\n"));
        }
    }
    for args in [
        &["ksym", "lookup", "{}"][..],
        &["ksym", "lookup", "--json", "{}"],
        &["ksym", "lookup", "--return-address", "{}"],
        &["ksym", "lookup", "--bias", "0x1000", "{}"],
        &["lookup", "{}"],
        &["lookup", "--json", "{}"],
    ] {
        let one = out(args, &v1, queries.as_bytes());
        assert_eq!(one, out(args, &v2, queries.as_bytes()), "{rel}: {args:?}");
    }
    // By name: each queried symbol's name, and a name no blob holds.
    let mut names = vec!["ksym", "name", "--json", "{}", "no_such_symbol_anywhere"];
    names.extend(
        rows.iter()
            .map(|&(_, n)| n)
            .filter(|n| !n.is_empty())
            .take(200),
    );
    assert_eq!(out(&names, &v1, b""), out(&names, &v2, b""), "{rel}: name");
    names.remove(2);
    assert_eq!(out(&names, &v1, b""), out(&names, &v2, b""), "{rel}: name");

    for to in ["lidia", "symbfile", "gsym", "breakpad", "ksym"] {
        let mut written = Vec::new();
        for blob in [&v1, &v2] {
            let output = blob.with_extension(to);
            let args = ["convert", s(blob), "--to", to, "-o", s(&output), "--quiet"];
            ok(&run(&args, b""));
            written.push(std::fs::read(&output).unwrap());
        }
        assert_eq!(written[0], written[1], "{rel}: convert to {to}");
    }
}

#[test]
fn ksym_v2_answers_as_v1_edge_order() {
    same_answers("ksym/input/edge-order.nm", 1);
}

#[test]
fn ksym_v2_answers_as_v1_small_inputs() {
    for name in [
        "alias-dup-6.nm",
        "seed-3.nm",
        "utf8-boundary.nm",
        "tokens-300.nm",
    ] {
        same_answers(&format!("ksym/input/{name}"), 1);
    }
}

#[test]
fn ksym_v2_answers_as_v1_kernel_system_map() {
    same_answers("ksym/linux-6.1-cloud-amd64.System.map", 101);
}

#[test]
fn ksym_v2_info_gives_version_and_segments_that_add_up() {
    let dir = tempfile::tempdir().unwrap();
    let (v1, v2) = build_both(dir.path(), "ksym/input/edge-order.nm");
    let info = |blob: &Path| -> serde_json::Value {
        serde_json::from_slice(&out(&["ksym", "info", "--json", "{}"], blob, b"")).unwrap()
    };
    let (one, two) = (info(&v1), info(&v2));
    let size = std::fs::metadata(&v2).unwrap().len();
    assert_eq!(one["format_version"], 1);
    assert_eq!(two["format_version"], 2);
    assert_eq!(two["valid"], true);
    assert_eq!(two["validation_error"], serde_json::Value::Null);
    assert_eq!(two["used_size"], size);
    assert_eq!(two["file_size"], size);
    for key in ["symbols", "raw_name_bytes"] {
        assert_eq!(one[key], two[key], "{key}");
    }
    let mut at = 0;
    for seg in two["segments"].as_array().unwrap() {
        assert_eq!(seg["offset"], at, "{seg}");
        at += seg["size"].as_u64().unwrap();
    }
    assert_eq!(at, size);
    let names = two["segments"]
        .as_array()
        .unwrap()
        .iter()
        .find(|seg| seg["segment"] == "names")
        .unwrap();
    assert_eq!(two["names_bytes"], names["size"]);

    let text = String::from_utf8(out(&["ksym", "info", "{}"], &v2, b"")).unwrap();
    assert!(text.starts_with("format version   2\n"), "{text}");
    assert!(text.contains("validation       ok\n"), "{text}");
}

/// A v2 blob cut short fails every command with the file, the section and its offset
/// named, and no panic.
#[test]
fn ksym_v2_truncated_blob_is_a_clear_error() {
    let dir = tempfile::tempdir().unwrap();
    let (_, v2) = build_both(dir.path(), "ksym/input/edge-order.nm");
    let bytes = std::fs::read(&v2).unwrap();
    let cut = dir.path().join("cut.ksym");
    let output = dir.path().join("out.lidia");
    for (len, section) in [
        (8, "header"),
        (47, "header"),
        (60, "token_ends"),
        (bytes.len() - 1, "n2a"),
    ] {
        std::fs::write(&cut, &bytes[..len]).unwrap();
        for args in [
            &["ksym", "dump", s(&cut)][..],
            &["ksym", "info", s(&cut)],
            &["ksym", "lookup", s(&cut), "0x401000"],
            &["ksym", "name", s(&cut), "AAA_upper"],
            &["lookup", s(&cut), "0x401000"],
            &["convert", s(&cut), "--to", "lidia", "-o", s(&output)],
        ] {
            let o = run(args, b"");
            let err = failed(&o);
            assert_ne!(o.status.code(), Some(101), "{args:?} panicked: {err}");
            for part in [s(&cut), "ksym-bin", section, "offset 0x", "truncated"] {
                assert!(
                    err.contains(part),
                    "{args:?} at {len}: {part:?} not in {err}"
                );
            }
            assert_eq!(err.lines().count(), 1, "{err}");
        }
    }
    assert!(!output.exists());
}

/// A v2 blob whose layout opens but whose names break a rule: `info` says it does not
/// validate; the commands that answer refuse it.
#[test]
fn ksym_v2_invalid_blob_is_reported() {
    let dir = tempfile::tempdir().unwrap();
    let (_, v2) = build_both(dir.path(), "ksym/input/edge-order.nm");
    let info: serde_json::Value =
        serde_json::from_slice(&out(&["ksym", "info", "--json", "{}"], &v2, b"")).unwrap();
    let names = info["segments"]
        .as_array()
        .unwrap()
        .iter()
        .find(|seg| seg["segment"] == "names")
        .unwrap()["offset"]
        .as_u64()
        .unwrap() as usize;
    let mut bytes = std::fs::read(&v2).unwrap();
    // The first entry's header: an invalid shape index.
    bytes[names] = 0xfe;
    let bad = dir.path().join("bad.ksym");
    std::fs::write(&bad, &bytes).unwrap();
    let info: serde_json::Value =
        serde_json::from_slice(&out(&["ksym", "info", "--json", "{}"], &bad, b"")).unwrap();
    assert_eq!(info["format_version"], 2);
    assert_eq!(info["valid"], false);
    assert!(info["validation_error"].as_str().unwrap().contains("names"));
    for args in [
        &["ksym", "dump", s(&bad)][..],
        &["lookup", s(&bad), "0x401000"],
    ] {
        let o = run(args, b"");
        let err = failed(&o);
        assert_ne!(o.status.code(), Some(101), "{args:?} panicked: {err}");
        assert!(err.contains(s(&bad)) && err.contains("names"), "{err}");
    }
}
