//! `symblob size` command-line tests: Chromium's SuperSize files as goldens and
//! `tools/size_ref.py` as the loader oracle.

use std::io::Read;
use std::path::{Path, PathBuf};
use std::process::Command;

use serde_json::Value;

use crate::common::{failed, ok, run, s, shared_model, testdata, tool};
use crate::json::{check, keys, Schema, T};

fn gunzip(data: &[u8]) -> String {
    let mut s = String::new();
    flate2::read::GzDecoder::new(data)
        .read_to_string(&mut s)
        .unwrap();
    s
}

/// `size_ref.py load --strict FILE` must accept the file; returns its JSON.
fn strict(file: &Path) -> Option<Value> {
    let model = shared_model("size_ref.py")?;
    let out = Command::new("python3")
        .arg(model)
        .args(["load", "--strict"])
        .arg(file)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "size_ref.py rejects {}: {}",
        file.display(),
        String::from_utf8_lossy(&out.stderr)
    );
    Some(serde_json::from_slice(&out.stdout).unwrap())
}

/// The golden's ELF in `dir` with its mtime as the goldens had it, and an eu-stripped copy.
fn prepared(dir: &Path, rel: &str) -> Option<(PathBuf, PathBuf)> {
    let src = testdata(rel);
    let elf = dir.join(src.file_name().unwrap());
    std::fs::copy(&src, &elf).unwrap();
    std::fs::File::options()
        .write(true)
        .open(&elf)
        .unwrap()
        .set_modified(std::time::UNIX_EPOCH + std::time::Duration::from_secs(1_700_000_000))
        .unwrap();
    let stripped = dir.join("shipped");
    let status = Command::new(tool("eu-strip")?)
        .arg("-o")
        .arg(&stripped)
        .arg(&elf)
        .status()
        .unwrap();
    assert!(status.success());
    Some((elf, stripped))
}

#[test]
fn size_archive_writes_what_chromium_writes() {
    let dir = tempfile::tempdir().unwrap();
    let Some((elf, stripped)) = prepared(dir.path(), "supersize/sizedemo-v1") else {
        return;
    };
    let out = dir.path().join("out.size");
    ok(&run(
        &[
            "size",
            "archive",
            s(&elf),
            "--stripped",
            s(&stripped),
            "-o",
            s(&out),
        ],
        b"",
    ));
    let golden = std::fs::read(testdata("supersize/sizedemo-v1.size")).unwrap();
    assert_eq!(gunzip(&std::fs::read(&out).unwrap()), gunzip(&golden));
    strict(&out);
}

#[test]
fn size_archive_records_the_build_config() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("out.size");
    let elf = testdata("lidia/elf/simple");
    ok(&run(
        &[
            "size",
            "archive",
            s(&elf),
            "-o",
            s(&out),
            "--build-config",
            "git_revision=abc123",
            "--build-config",
            "gn_args=is_debug=false",
            "--build-config",
            "title=Simple",
        ],
        b"",
    ));
    let Some(v) = strict(&out) else { return };
    assert_eq!(v["build_config"]["git_revision"], "abc123");
    assert_eq!(
        v["build_config"]["gn_args"],
        serde_json::json!(["is_debug=false"])
    );
    assert_eq!(v["containers"][0]["metadata"]["title"], "Simple");
}

/// Chromium's archives of the two builds of `sizedemo`.
fn sizedemo_archives() -> (PathBuf, PathBuf) {
    (
        testdata("supersize/sizedemo-v1.size"),
        testdata("supersize/sizedemo-v2.size"),
    )
}

#[test]
fn size_diff_writes_the_sizediff_save_diff_writes() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("d.sizediff");
    let (v1, v2) = sizedemo_archives();
    ok(&run(&["size", "diff", s(&v1), s(&v2), "-o", s(&out)], b""));
    let Some(ours) = strict(&out) else { return };
    let golden = strict(&testdata("supersize/sizedemo.sizediff")).unwrap();
    assert_eq!(ours["before"], golden["before"]);
    assert_eq!(ours["after"], golden["after"]);
}

#[test]
fn size_diff_report_shows_what_grew_and_shrank() {
    let (v1, v2) = sizedemo_archives();
    let text = ok(&run(&["size", "diff", s(&v1), s(&v2)], b""));
    assert!(text.contains("1 added, 0 removed, 4 changed"), "{text}");
    assert!(
        text.contains("+       +69  extra_feature [.text]"),
        "{text}"
    );
    assert!(text.contains("~        +7  main [.text]"), "{text}");
    let json: Value =
        serde_json::from_str(&ok(&run(&["size", "diff", "--json", s(&v1), s(&v2)], b""))).unwrap();
    let added: Vec<&Value> = json["symbols"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|s| s["status"] == "added")
        .collect();
    assert_eq!(added.len(), 1);
    assert_eq!(added[0]["name"], "extra_feature");
    assert_eq!(added[0]["address"], "0x12e0");
    let csv = ok(&run(&["size", "diff", "--csv", s(&v1), s(&v2)], b""));
    assert!(
        csv.contains("\nsymbol,added,extra_feature,.text,0x12e0,0,69,69\n"),
        "{csv}"
    );
}

#[test]
fn size_show_prints_tables_csv_and_json() {
    let f = testdata("supersize/sizedemo-v1.size");
    let text = ok(&run(&["size", "show", s(&f), "--top", "3"], b""));
    assert!(text.contains("   4.1%       599    .text\n"), "{text}");
    assert!(text.contains("LARGEST 3 SYMBOLS"), "{text}");
    assert!(text.contains("     316    kTable [.rodata]"), "{text}");
    assert!(text.contains("SOURCE FILE"), "{text}");
    let json: Value =
        serde_json::from_str(&ok(&run(&["size", "show", "--json", s(&f)], b""))).unwrap();
    assert_eq!(json["file_size"], 14496); // the eu-stripped file's size
    let k_table = json["symbols"]
        .as_array()
        .unwrap()
        .iter()
        .find(|s| s["name"] == "kTable")
        .unwrap();
    assert_eq!(k_table["address"], "0x2040");
    let csv = ok(&run(&["size", "show", "--csv", s(&f)], b""));
    assert!(csv.starts_with("table,name,section,address,size,percent\n"));
    assert!(csv.contains("\nsymbol,kTable,.rodata,0x2040,316,"), "{csv}");
    // An ELF is archived on the fly.
    let elf = testdata("supersize/sizedemo-v1");
    assert!(ok(&run(&["size", "show", s(&elf)], b"")).contains(".text"));
}

#[test]
fn size_errors_name_the_file_and_keep_inputs() {
    let dir = tempfile::tempdir().unwrap();
    let bad = dir.path().join("notelf");
    std::fs::write(&bad, b"hello").unwrap();
    let out = run(
        &[
            "size",
            "archive",
            s(&bad),
            "-o",
            s(&dir.path().join("x.size")),
        ],
        b"",
    );
    let err = failed(&out);
    assert!(
        err.contains("notelf") && err.contains("not an ELF"),
        "{err}"
    );
    // The ELF parser's reason follows (it is the error's source, kept when the CLI names
    // the file).
    assert!(err.contains("not an ELF file: "), "{err}");
    assert!(!dir.path().join("x.size").exists());

    let elf = dir.path().join("elf");
    std::fs::copy(testdata("lidia/elf/simple"), &elf).unwrap();
    let before = std::fs::read(&elf).unwrap();
    let out = run(&["size", "archive", s(&elf), "-o", s(&elf)], b"");
    assert!(!out.status.success());
    assert_eq!(std::fs::read(&elf).unwrap(), before);

    let broken = dir.path().join("broken.size");
    let text = gunzip(&std::fs::read(testdata("supersize/simple.size")).unwrap());
    std::fs::write(&broken, text.replace("fib\t02\t20\n", "fib\t20\n")).unwrap();
    let out = run(&["size", "show", s(&broken)], b"");
    let err = failed(&out);
    assert!(
        err.contains("broken.size:") && err.contains(": padding: duplicate symbols"),
        "{err}"
    );

    let out = run(
        &[
            "size",
            "archive",
            s(&elf),
            "-o",
            "-",
            "--build-config",
            "nokey",
        ],
        b"",
    );
    assert!(String::from_utf8_lossy(&out.stderr).contains("KEY=VALUE"));
}

/// A symbol line of a `*.dump.tsv` (Chromium's loader): section, address, size with
/// padding, padding, name, source path.
struct Dumped {
    section: String,
    address: u64,
    size: i64,
    padding: i64,
    name: String,
    source_path: String,
}

fn dumped_symbols(rel: &str) -> Vec<Dumped> {
    parse_dump(&std::fs::read_to_string(testdata(rel)).unwrap())
}

fn parse_dump(text: &str) -> Vec<Dumped> {
    text.lines()
        .filter_map(|line| {
            let f: Vec<&str> = line.split('\t').collect();
            if f.len() != 10 {
                return None;
            }
            Some(Dumped {
                section: f[0].to_string(),
                address: f[1].parse().ok()?,
                size: f[2].parse().ok()?,
                padding: f[3].parse().ok()?,
                name: f[4].to_string(),
                source_path: f[7].to_string(),
            })
        })
        .collect()
}

/// Size of a symbol in a diff report: without its padding, except `Overhead:` symbols.
fn diff_size(d: &Dumped) -> i64 {
    if d.name.starts_with("Overhead: ") {
        d.size
    } else {
        d.size - d.padding
    }
}

fn json_of(args: &[&str]) -> Value {
    serde_json::from_str(&ok(&run(args, b""))).unwrap()
}

fn array(v: &Value) -> &Vec<Value> {
    let a = v.as_array().unwrap_or_else(|| panic!("not an array: {v}"));
    assert!(
        !a.is_empty(),
        "empty array: the schema check would be vacuous"
    );
    a
}

#[test]
fn size_show_json_schema_and_values_match_the_goldens_dump() {
    let named = [("name", T::Str), ("size", T::Int)];
    for golden in ["sizedemo-v1", "sizedemo-v2", "inl", "simple", "libdemo.so"] {
        let file = testdata(&format!("supersize/{golden}.size"));
        let v = json_of(&["size", "show", "--json", "--top", "1000", s(&file)]);
        let tables = ["sections", "symbols", "directories", "files"];
        check(
            &v,
            &[keys(T::Uint, &["file_size"]), keys(T::Array, &tables)].concat(),
        );
        for table in ["sections", "directories", "files"] {
            array(&v[table]).iter().for_each(|row| check(row, &named));
        }
        let dump = dumped_symbols(&format!("supersize/{golden}.size.dump.tsv"));
        assert_eq!(array(&v["symbols"]).len(), dump.len(), "{golden}");
        for s in array(&v["symbols"]) {
            check(s, &[symbol(), keys(T::Int, &["size", "padding"])].concat());
            let expected = dump.iter().any(|d| {
                s["name"] == d.name.as_str()
                    && s["section"] == d.section.as_str()
                    && s["address"] == format!("{:#x}", d.address).as_str()
                    && s["size"] == d.size
                    && s["padding"] == d.padding
                    && s["source_path"] == d.source_path.as_str()
            });
            assert!(expected, "{golden}: {s} is not in Chromium's dump");
        }
    }
}

/// What `size show` and `size diff` say of every symbol, besides its sizes.
fn symbol() -> Schema {
    [
        keys(T::Str, &["name", "section", "source_path"]),
        keys(T::Hex, &["address"]),
    ]
    .concat()
}

/// The symbols of each side of a `.sizediff` dump.
fn dumped_sides(rel: &str) -> (Vec<Dumped>, Vec<Dumped>) {
    let text = std::fs::read_to_string(testdata(rel)).unwrap();
    let (before, after) = text.split_once("side\tafter\n").unwrap();
    (parse_dump(before), parse_dump(after))
}

/// Checks a `size diff --json` report: exact keys and types of every object, and each
/// symbol's sizes and status against the two sides as Chromium's loader read them.
fn check_diff_report(v: &Value, before: &[Dumped], after: &[Dumped]) {
    let tables = ["sections", "symbols", "files"];
    check(
        v,
        &[keys(T::Object, &["file_size"]), keys(T::Array, &tables)].concat(),
    );
    let before_after = [("before", T::Uint), ("after", T::Uint), ("delta", T::Int)];
    check(&v["file_size"], &before_after);
    for row in array(&v["sections"]) {
        check(
            row,
            &[before_after.as_slice(), &[("name", T::Str)]].concat(),
        );
    }
    for row in array(&v["files"]) {
        check(row, &[("name", T::Str), ("delta", T::Int)]);
    }
    let find = |side: &[Dumped], s: &Value| {
        side.iter()
            .find(|d| s["name"] == d.name.as_str() && s["section"] == d.section.as_str())
            .map(diff_size)
    };
    for s in array(&v["symbols"]) {
        check(
            s,
            &[symbol(), before_after.to_vec(), keys(T::Str, &["status"])].concat(),
        );
        let (b, a) = (find(before, s), find(after, s));
        let status = match (b, a) {
            (None, Some(_)) => "added",
            (Some(_), None) => "removed",
            _ => "changed",
        };
        assert_eq!(s["status"], status, "{s}");
        let (b, a) = (b.unwrap_or(0), a.unwrap_or(0));
        assert_eq!(
            (s["before"].as_i64(), s["after"].as_i64()),
            (Some(b), Some(a)),
            "{s}"
        );
        assert_eq!(s["delta"].as_i64(), Some(a - b), "{s}");
    }
}

#[test]
fn size_diff_json_schema_and_values_match_the_goldens_dump() {
    let (v1, v2) = sizedemo_archives();
    let v = json_of(&["size", "diff", "--json", s(&v1), s(&v2)]);
    check_diff_report(
        &v,
        &dumped_symbols("supersize/sizedemo-v1.size.dump.tsv"),
        &dumped_symbols("supersize/sizedemo-v2.size.dump.tsv"),
    );
    // `show` on a .sizediff prints the same report, over its sparse sides.
    let sizediff = testdata("supersize/sizedemo.sizediff");
    let v = json_of(&["size", "show", "--json", s(&sizediff)]);
    let (before, after) = dumped_sides("supersize/sizedemo.sizediff.dump.tsv");
    check_diff_report(&v, &before, &after);
}

/// `simple.size` with its `.rodata` renamed to a section name holding a comma and quotes
/// (a `.size` names sections freely; SuperSize's loader and `size_ref.py` accept it).
const ODD_SECTION: &str = ".ro,\"da\"ta";

fn odd_section_file(dir: &Path) -> PathBuf {
    let text = gunzip(&std::fs::read(testdata("supersize/simple.size")).unwrap());
    let mut lines = text.splitn(4, '\n');
    let (vanity, version) = (lines.next().unwrap(), lines.next().unwrap());
    let json_len: usize = lines.next().unwrap().parse().unwrap();
    let rest = lines.next().unwrap();
    let json = rest[..json_len].replace(".rodata", &ODD_SECTION.replace('"', "\\\""));
    let body = rest[json_len..].replace(".rodata", ODD_SECTION);
    let text = format!("{vanity}\n{version}\n{}\n{json}{body}", json.len());
    let path = dir.join("odd.size");
    let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
    std::io::Write::write_all(&mut gz, text.as_bytes()).unwrap();
    std::fs::write(&path, gz.finish().unwrap()).unwrap();
    path
}

/// Rows of CSV text as Python's `csv` module reads them.
fn python_csv_rows(csv_text: &str) -> Option<Vec<Vec<String>>> {
    let python = tool("python3")?;
    let mut child = Command::new(python)
        .args([
            "-c",
            "import csv, json, sys; print(json.dumps(list(csv.reader(sys.stdin))))",
        ])
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    std::io::Write::write_all(&mut child.stdin.take().unwrap(), csv_text.as_bytes()).unwrap();
    let out = child.wait_with_output().unwrap();
    assert!(out.status.success());
    Some(serde_json::from_slice(&out.stdout).unwrap())
}

#[test]
fn size_csv_quotes_every_column() {
    let dir = tempfile::tempdir().unwrap();
    let odd = odd_section_file(dir.path());
    strict(&odd);
    let show = ok(&run(
        &["size", "show", s(&odd), "--csv", "--top", "1000"],
        b"",
    ));
    let Some(rows) = python_csv_rows(&show) else {
        return;
    };
    assert!(rows.iter().all(|r| r.len() == 6), "{show}");
    assert!(rows
        .iter()
        .any(|r| r[0] == "section" && r[1] == ODD_SECTION && r[2] == ODD_SECTION));
    let symbols_there = rows
        .iter()
        .filter(|r| r[0] == "symbol" && r[2] == ODD_SECTION)
        .count();
    assert!(symbols_there > 0, "{show}");

    let simple = testdata("supersize/simple.size");
    let diff = ok(&run(&["size", "diff", s(&simple), s(&odd), "--csv"], b""));
    let rows = python_csv_rows(&diff).unwrap();
    assert!(rows.iter().all(|r| r.len() == 8), "{diff}");
    assert!(rows
        .iter()
        .any(|r| r[0] == "section" && r[2] == ODD_SECTION && r[3] == ODD_SECTION));
    assert!(rows
        .iter()
        .any(|r| r[0] == "symbol" && r[1] == "added" && r[3] == ODD_SECTION));
}

#[test]
fn size_diff_output_refuses_report_formats() {
    let dir = tempfile::tempdir().unwrap();
    let simple = testdata("supersize/simple.size");
    let out_file = dir.path().join("out.sizediff");
    for format in ["--json", "--csv"] {
        let out = run(
            &[
                "size",
                "diff",
                s(&simple),
                s(&simple),
                "-o",
                s(&out_file),
                format,
            ],
            b"",
        );
        assert_eq!(out.status.code(), Some(2), "{format}");
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(err.contains("--output") && err.contains(format), "{err}");
        assert!(!out_file.exists());
    }
}
