//! The JSON of every command, parsed with serde_json and checked field by field against
//! the schemas of `docs/cli.md`: exact key sets, types, addresses and sizes as `"0x…"`
//! strings, and values equal to the reference implementations' answers.

use std::path::{Path, PathBuf};

use serde_json::Value;

use crate::common::{run, s, success, testdata};

/// A JSON type of the schemas.
#[derive(Clone, Copy, Debug)]
pub(crate) enum T {
    /// A `"0x…"` string of lowercase hex digits.
    Hex,
    Str,
    /// A non-negative integer.
    Uint,
    /// An integer of either sign (size deltas).
    Int,
    Float,
    Bool,
    Null,
    Array,
    Object,
}

fn has_type(v: &Value, t: T) -> bool {
    match t {
        T::Hex => v.as_str().is_some_and(|s| {
            s.strip_prefix("0x").is_some_and(|d| {
                !d.is_empty()
                    && d.bytes()
                        .all(|b| b.is_ascii_digit() || (b'a'..=b'f').contains(&b))
            })
        }),
        T::Str => v.is_string(),
        T::Uint => v.is_u64(),
        T::Int => v.is_i64() || v.is_u64(),
        T::Float => v.is_f64() || v.is_u64(),
        T::Bool => v.is_boolean(),
        T::Null => v.is_null(),
        T::Array => v.is_array(),
        T::Object => v.is_object(),
    }
}

/// The keys of an object, each with its type.
pub(crate) type Schema = Vec<(&'static str, T)>;

/// The schema of `names`, all of type `t` (schemas of several types are joined with
/// `concat`, as the documentation lists the keys of each type together).
pub(crate) fn keys(t: T, names: &[&'static str]) -> Schema {
    names.iter().map(|&name| (name, t)).collect()
}

/// What every lookup answers to a bad line, besides its format's key for "nothing found".
fn bad_line() -> Schema {
    [
        keys(T::Null, &["address"]),
        keys(T::Str, &["input", "error"]),
    ]
    .concat()
}

/// A frame of `lidia lookup --json` and `symbfile lookup --json`.
pub(crate) fn frame() -> Schema {
    [
        keys(T::Str, &["function", "file", "call_file"]),
        keys(T::Uint, &["line", "depth", "call_line"]),
    ]
    .concat()
}

/// Checks that `v` is an object with exactly the keys of `schema`, each of its type.
pub(crate) fn check(v: &Value, schema: &[(&str, T)]) {
    let obj = v
        .as_object()
        .unwrap_or_else(|| panic!("not an object: {v}"));
    let mut keys: Vec<&str> = obj.keys().map(String::as_str).collect();
    let mut want: Vec<&str> = schema.iter().map(|(k, _)| *k).collect();
    keys.sort_unstable();
    want.sort_unstable();
    assert_eq!(keys, want, "{v}");
    for (key, t) in schema {
        assert!(has_type(&v[*key], *t), "{key} is not {t:?} in {v}");
    }
}

/// Parses JSON Lines.
fn lines(out: Vec<u8>) -> Vec<Value> {
    String::from_utf8(out)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("{e}: {l}")))
        .collect()
}

fn hex(v: u64) -> String {
    format!("{v:#x}")
}

fn ksym_blob(dir: &Path, input: &str) -> PathBuf {
    let blob = dir.join(format!("{input}.ksym"));
    let nm = testdata(&format!("ksym/input/{input}"));
    success(run(
        &["ksym", "build", s(&nm), "-o", s(&blob), "--quiet"],
        b"",
    ));
    blob
}

const KSYM_NOT_FOUND: &[(&str, T)] = &[("address", T::Hex), ("found", T::Bool)];

fn ksym_found() -> Schema {
    [
        KSYM_NOT_FOUND.to_vec(),
        keys(T::Str, &["name", "type"]),
        keys(T::Hex, &["symbol_address", "offset", "size"]),
        keys(T::Uint, &["index"]),
    ]
    .concat()
}

#[test]
fn ksym_lookup_json_lines_match_the_origin() {
    let dir = tempfile::tempdir().unwrap();
    let blob = ksym_blob(dir.path(), "seed-3.nm");
    let tsv = std::fs::read_to_string(testdata("ksym/origin/seed-3.lookups.tsv")).unwrap();
    let rows: Vec<Vec<&str>> = tsv
        .lines()
        .filter(|l| l.starts_with("addr\t"))
        .map(|l| l.split('\t').collect())
        .collect();
    let range = tsv
        .lines()
        .find_map(|l| l.strip_prefix("# text ranges (start inclusive, end exclusive): ["))
        .map(|r| r.trim_end_matches(')').replace(", ", ".."));
    let range = range.expect("the origin states its text range");
    let mut stdin: String = rows.iter().map(|r| format!("{}\n", r[1])).collect();
    stdin.push_str("zz\n");
    let o = run(
        &["ksym", "lookup", s(&blob), "--json", "--text", &range],
        stdin.as_bytes(),
    );
    assert_eq!(o.status.code(), Some(1), "the last line is bad");
    let got = lines(o.stdout);
    assert_eq!(got.len(), rows.len() + 1);
    for (v, row) in got.iter().zip(&rows) {
        let q = u64::from_str_radix(&row[1][2..], 16).unwrap();
        assert_eq!(v["address"], hex(q));
        if row[2] == "none" {
            check(v, KSYM_NOT_FOUND);
            assert_eq!(v["found"], false);
            continue;
        }
        check(v, &ksym_found());
        assert_eq!(v["found"], true);
        assert_eq!(v["type"], row[2]);
        assert_eq!(v["name"], row[3]);
        assert_eq!(v["offset"], row[4]);
        assert_eq!(v["size"], row[5]);
        let offset = u64::from_str_radix(&row[4][2..], 16).unwrap();
        assert_eq!(v["symbol_address"], hex(q - offset));
    }
    let bad = got.last().unwrap();
    check(bad, &[bad_line(), keys(T::Bool, &["found"])].concat());
    assert_eq!(bad["input"], "zz");
    // `symblob lookup` answers as `ksym lookup` does with the blob's default ranges.
    let generic = run(&["lookup", s(&blob), "--json"], stdin.as_bytes());
    let specific = run(&["ksym", "lookup", s(&blob), "--json"], stdin.as_bytes());
    assert_eq!(generic.stdout, specific.stdout);
    assert_eq!(generic.status.code(), Some(1));
}

#[test]
fn ksym_build_name_dump_and_info_json() {
    let dir = tempfile::tempdir().unwrap();
    let nm = testdata("ksym/input/seed-3.nm");
    let blob = dir.path().join("seed.ksym");
    let out = success(run(
        &["ksym", "build", s(&nm), "-o", s(&blob), "--json", "--quiet"],
        b"",
    ));
    let v: Value = serde_json::from_slice(&out).unwrap();
    let n = T::Uint;
    let counts = [
        "symbols",
        "tokens",
        "blob_bytes",
        "output_bytes",
        "names_bytes",
        "raw_name_bytes",
        "token_table_bytes",
        "short_token_refs",
        "long_token_refs",
        "whole_search_rounds",
        "duplicates_removed",
    ];
    let build = [
        keys(T::Str, &["format", "layout"]),
        keys(n, &counts),
        keys(T::Float, &["names_ratio"]),
        keys(T::Object, &["skipped"]),
        keys(T::Array, &["text_ranges"]),
        keys(T::Uint, &["format_version"]),
        // The per-segment sizes of a v2 blob; v1 has its fixed layout (`ksym info`).
        keys(T::Null, &["segments"]),
    ];
    check(&v, &build.concat());
    let skipped = [
        keys(
            n,
            &["type", "undefined", "mapping", "module", "not_function"],
        ),
        keys(T::Object, &["types"]),
    ];
    check(&v["skipped"], &skipped.concat());
    let origin_dump = std::fs::read_to_string(testdata("ksym/origin/seed-3.dump.txt")).unwrap();
    assert_eq!(v["symbols"], origin_dump.lines().count());
    assert_eq!(v["blob_bytes"], std::fs::metadata(&blob).unwrap().len());
    // Text ranges come from ELF inputs: pairs of "0x…" strings.
    let elf = testdata("lidia/elf/simple");
    let out = success(run(
        &[
            "ksym",
            "build",
            s(&elf),
            "-o",
            s(&dir.path().join("e")),
            "--json",
            "--quiet",
        ],
        b"",
    ));
    let v: Value = serde_json::from_slice(&out).unwrap();
    let ranges = v["text_ranges"].as_array().unwrap();
    assert!(!ranges.is_empty());
    for r in ranges {
        let pair = r.as_array().unwrap();
        assert_eq!(pair.len(), 2);
        assert!(pair.iter().all(|x| has_type(x, T::Hex)), "{r}");
    }

    // name: one line per name; the origin's dump gives the addresses.
    let out = success(run(
        &["ksym", "name", s(&blob), "--json", "do_fork", "nope"],
        b"",
    ));
    let got = lines(out);
    check(
        &got[0],
        &[("name", T::Str), ("address", T::Hex), ("all", T::Array)],
    );
    assert_eq!(got[0]["address"], "0x1100");
    for entry in got[0]["all"].as_array().unwrap() {
        check(entry, &[("address", T::Hex), ("type", T::Str)]);
    }
    check(
        &got[1],
        &[("name", T::Str), ("address", T::Null), ("all", T::Array)],
    );

    // dump: one line per symbol, equal to the origin's dump.
    let got = lines(success(run(&["ksym", "dump", s(&blob), "--json"], b"")));
    let want: Vec<Vec<&str>> = origin_dump
        .lines()
        .map(|l| l.split(' ').collect())
        .collect();
    assert_eq!(got.len(), want.len());
    for (v, w) in got.iter().zip(&want) {
        check(
            v,
            &[("address", T::Hex), ("type", T::Str), ("name", T::Str)],
        );
        assert_eq!(v["address"], hex(u64::from_str_radix(w[0], 16).unwrap()));
        assert_eq!(v["type"], w[1]);
        assert_eq!(v["name"], w[2]);
    }

    // info: one object.
    let v: Value =
        serde_json::from_slice(&success(run(&["ksym", "info", s(&blob), "--json"], b""))).unwrap();
    let counts = [
        "symbols",
        "tokens",
        "used_size",
        "file_size",
        "raw_name_bytes",
        "names_bytes",
        "format_version",
    ];
    let info = [
        keys(T::Str, &["layout"]),
        keys(n, &counts),
        keys(T::Float, &["bytes_per_symbol", "names_ratio"]),
        keys(T::Array, &["segments"]),
        keys(T::Bool, &["valid"]),
        keys(T::Null, &["validation_error"]),
    ];
    check(&v, &info.concat());
    for seg in v["segments"].as_array().unwrap() {
        check(seg, &[("segment", T::Str), ("offset", n), ("size", n)]);
    }
}

#[test]
fn lidia_lookup_json_lines_match_the_go_reader() {
    let lidia = testdata("lidia/synth/inline.files_lines.lidia");
    let tsv =
        std::fs::read_to_string(testdata("lidia/synth/inline.files_lines.lookups.tsv")).unwrap();
    let rows: Vec<Vec<&str>> = tsv
        .lines()
        .filter(|l| !l.starts_with('#'))
        .map(|l| l.split('\t').collect())
        .collect();
    let mut stdin: String = rows.iter().map(|r| format!("{}\n", r[0])).collect();
    stdin.push('\n');
    for via in [&["lidia", "lookup"][..], &["lookup"]] {
        let mut args = via.to_vec();
        args.extend(["--json", s(&lidia)]);
        let o = run(&args, stdin.as_bytes());
        assert_eq!(o.status.code(), Some(1), "the last line is empty");
        let got = lines(o.stdout);
        assert_eq!(got.len(), rows.len() + 1);
        for (v, row) in got.iter().zip(&rows) {
            check(v, &[("address", T::Hex), ("frames", T::Array)]);
            let q = u64::from_str_radix(row[0].trim_start_matches("0x"), 16).unwrap();
            assert_eq!(v["address"], hex(q));
            let frames = v["frames"].as_array().unwrap();
            assert_eq!(frames.len().to_string(), row[1]);
            // The Go reader's function names, innermost first.
            for (f, cells) in frames.iter().zip(row[2..].chunks(3)) {
                check(f, &frame());
                assert_eq!(f["function"], cells[0]);
            }
        }
        let bad = [bad_line(), keys(T::Array, &["frames"])].concat();
        check(got.last().unwrap(), &bad);
    }
}

#[test]
fn cif_decode_json_has_hex_addresses() {
    let map = br#"{"platform": "Linux (test)", "word_size": 64, "images": [{"base": "0xffffffff81000000", "end_of_text": "0xffffffff81e01ef2", "build_id": "0102", "path": "/boot/vmlinux"}]}"#;
    let cif = success(run(&["cif", "encode", "-"], map));
    let v: Value =
        serde_json::from_slice(&success(run(&["cif", "decode", "-", "--json"], &cif))).unwrap();
    let cif = [
        keys(T::Uint, &["version", "word_size", "trailing_bytes"]),
        keys(T::Str, &["platform"]),
        keys(T::Array, &["images"]),
    ];
    check(&v, &cif.concat());
    let image = &v["images"][0];
    let fields = [
        keys(T::Hex, &["base", "end_of_text"]),
        keys(T::Str, &["build_id", "path", "name"]),
    ];
    check(image, &fields.concat());
    // Above 2^53, where JSON numbers would have been rounded.
    assert_eq!(image["base"], "0xffffffff81000000");
    assert_eq!(image["end_of_text"], "0xffffffff81e01ef2");
}
