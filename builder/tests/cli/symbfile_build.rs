//! `symblob symbfile build` and lookups of the files it writes: records against the
//! reference model's decoding and against the files symblib wrote for the same ELFs,
//! answers against `llvm-symbolizer`, parts, streaming and bad input.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Output;

use serde_json::Value;

use crate::common::{failed, ok, run, s, shared_model, testdata, tool};
use crate::json::{check, frame};
use crate::symbfile::{symblib, ELFS};

fn elf(name: &str) -> PathBuf {
    testdata(&format!("lidia/elf/{name}"))
}

/// Builds the range and return-pad files of `name` into `dir`.
fn build(dir: &Path, name: &str, extra: &[&str]) -> (PathBuf, PathBuf, Output) {
    let ranges = dir.join(format!("{name}.ranges"));
    let pads = dir.join(format!("{name}.retpads"));
    let input = elf(name);
    let mut args = vec![
        "symbfile",
        "build",
        s(&input),
        "-o",
        s(&ranges),
        "--return-pads",
        s(&pads),
    ];
    args.extend_from_slice(extra);
    let out = run(&args, b"");
    (ranges.clone(), pads.clone(), out)
}

fn multiset(text: &str) -> BTreeMap<String, usize> {
    let mut m = BTreeMap::new();
    for line in text.lines() {
        *m.entry(line.to_owned()).or_insert(0) += 1;
    }
    m
}

/// The records of `file` as the reference model decodes them (`None` without python3).
fn model_records(file: &Path) -> Option<Value> {
    let script = shared_model("symbfile_ref.py")?;
    let out = std::process::Command::new("python3")
        .args([s(&script), "dump", "--json", s(file)])
        .output()
        .unwrap();
    Some(serde_json::from_str::<Value>(&ok(&out)).unwrap()["records"].clone())
}

/// Our `dump --json` records with the "0x…" addresses turned back into numbers.
fn our_records(file: &Path) -> Value {
    let mut doc: Value =
        serde_json::from_str(&ok(&run(&["symbfile", "dump", "--json", s(file)], b""))).unwrap();
    for r in doc["records"].as_array_mut().unwrap() {
        let va = r["elf_va"].as_str().expect("elf_va is a \"0x…\" string");
        r["elf_va"] = u64::from_str_radix(va.strip_prefix("0x").unwrap(), 16)
            .unwrap()
            .into();
    }
    doc["records"].clone()
}

#[test]
fn symbfile_build_writes_what_the_model_decodes_and_all_symblib_wrote() {
    let dir = tempfile::tempdir().unwrap();
    for name in ELFS {
        let (ranges, pads, out) = build(dir.path(), name, &[]);
        ok(&out);
        let summary = String::from_utf8_lossy(&out.stderr);
        assert!(
            summary.starts_with("symbfile: read ") && summary.contains(" ranges, "),
            "{summary}"
        );
        for (ours, kind) in [(&ranges, "ranges"), (&pads, "retpads")] {
            if let Some(model) = model_records(ours) {
                assert_eq!(our_records(ours), model, "{name}.{kind}");
            }
            // Decoded one line a record as symblib's README shows: every record symblib
            // wrote is ours too (ours may add the inline records symblib loses).
            let dumped = ok(&run(&["symbfile", "dump", s(ours)], b""));
            let ours = multiset(&dumped);
            let theirs = std::fs::read_to_string(symblib(&format!("{name}.{kind}.txt"))).unwrap();
            for (line, n) in multiset(&theirs) {
                assert!(
                    ours.get(&line).copied().unwrap_or(0) >= n,
                    "{name}.{kind}: symblib's record missing: {line}"
                );
            }
        }
    }
}

#[test]
fn symbfile_build_parts_hold_the_same_records() {
    let dir = tempfile::tempdir().unwrap();
    let (ranges, pads, out) = build(dir.path(), "inl", &[]);
    ok(&out);
    let (_, _, out) = build(
        &dir.path().join("parts"),
        "inl",
        &["--max-part-size", "300"],
    );
    // The parts directory does not exist: the error names it and writes nothing.
    assert!(!out.status.success());
    std::fs::create_dir(dir.path().join("parts")).unwrap();
    let (part_ranges, part_pads, out) = build(
        &dir.path().join("parts"),
        "inl",
        &["--max-part-size", "300"],
    );
    ok(&out);
    for (whole, base) in [(&ranges, &part_ranges), (&pads, &part_pads)] {
        let mut joined = Vec::new();
        let mut k = 0;
        loop {
            let mut part = base.clone().into_os_string();
            part.push(format!(".{k}"));
            let part = PathBuf::from(part);
            if !part.exists() {
                break;
            }
            let records = match model_records(&part) {
                Some(v) => v,
                None => our_records(&part),
            };
            // Only a single function (or pad) too large for any part may exceed the limit.
            let groups = records
                .as_array()
                .unwrap()
                .iter()
                .filter(|r| r["type"] == "return_pad" || r["depth"] == 0)
                .count();
            let size = std::fs::metadata(&part).unwrap().len();
            assert!(
                size <= 300 || groups == 1,
                "{}: {size} bytes",
                part.display()
            );
            joined.extend(records.as_array().unwrap().iter().cloned());
            k += 1;
        }
        assert!(k > 1, "{} was not cut", base.display());
        let whole = match model_records(whole) {
            Some(v) => v,
            None => our_records(whole),
        };
        assert_eq!(Value::Array(joined), whole, "{}", base.display());
    }
}

#[test]
fn symbfile_build_streams_to_stdout_and_refuses_its_input() {
    let dir = tempfile::tempdir().unwrap();
    let (ranges, _, out) = build(dir.path(), "inl", &["--quiet"]);
    ok(&out);
    assert!(out.stderr.is_empty(), "--quiet printed something");
    let piped = run(&["symbfile", "build", s(&elf("inl")), "-o", "-", "-q"], b"");
    assert_eq!(piped.stdout, std::fs::read(&ranges).unwrap());
    // The output is the input: refused before anything is written.
    let copy = dir.path().join("inl");
    std::fs::copy(elf("inl"), &copy).unwrap();
    let before = std::fs::read(&copy).unwrap();
    let out = run(&["symbfile", "build", s(&copy), "-o", s(&copy)], b"");
    assert!(failed(&out).contains("same file"));
    assert_eq!(std::fs::read(&copy).unwrap(), before);
    // A symbfile is not an ELF file.
    let out = run(&["symbfile", "build", s(&ranges), "-o", "-"], b"");
    assert!(failed(&out).contains(s(&ranges)));
}

/// The frames llvm-symbolizer gives for `addr`, innermost first: (function, line).
fn llvm_frames(llvm: &Path, elf: &Path, addr: u64) -> Vec<(String, u32)> {
    let out = std::process::Command::new(llvm)
        .args(["--inlining", "--functions=linkage", "--obj", s(elf)])
        .arg(format!("{addr:#x}"))
        .output()
        .unwrap();
    let text = String::from_utf8(out.stdout).unwrap();
    let lines: Vec<&str> = text.lines().filter(|l| !l.is_empty()).collect();
    lines
        .chunks(2)
        .filter(|pair| pair[0] != "??")
        .map(|pair| {
            let line = pair[1].rsplit(':').nth(1).unwrap().parse().unwrap();
            (pair[0].to_owned(), line)
        })
        .collect()
}

#[test]
fn symbfile_lookup_of_a_built_file_agrees_with_llvm_and_symblob_lookup() {
    let Some(llvm) = tool("llvm-symbolizer-14") else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    for name in ["inl", "simple"] {
        let (ranges, _, out) = build(dir.path(), name, &[]);
        ok(&out);
        // Every range start and a byte inside each range.
        let records = our_records(&ranges);
        let mut addrs: Vec<u64> = Vec::new();
        for r in records.as_array().unwrap() {
            let va = r["elf_va"].as_u64().unwrap();
            addrs.push(va);
            addrs.push(va + r["length"].as_u64().unwrap() / 2);
        }
        let questions: String = addrs.iter().map(|a| format!("{a:#x}\n")).collect();
        let answers = ok(&run(
            &["symbfile", "lookup", s(&ranges)],
            questions.as_bytes(),
        ));
        let general = ok(&run(&["lookup", s(&ranges)], questions.as_bytes()));
        assert_eq!(answers, general, "{name}: symblob lookup differs");
        assert_eq!(answers.lines().count(), addrs.len());
        let mut compared = 0;
        for (addr, answer) in addrs.iter().zip(answers.lines()) {
            let want = llvm_frames(&llvm, &elf(name), *addr);
            if want.is_empty() {
                continue;
            }
            let fields: Vec<&str> = answer.split('\t').collect();
            let got: Vec<(String, u32)> = fields[2..]
                .chunks(3)
                .map(|f| (f[0].to_owned(), f[2].parse().unwrap()))
                .collect();
            assert_eq!(got, want, "{name} at {addr:#x}");
            compared += 1;
        }
        assert!(compared > 5, "{name}: only {compared} addresses compared");
    }
}

#[test]
fn symbfile_lookup_answers_bad_lines_with_a_placeholder() {
    let ranges = symblib("inl.ranges.symbfile");
    let out = run(
        &["symbfile", "lookup", s(&ranges)],
        b"0x1225\nnot-an-address\n\n0x5\n",
    );
    assert_eq!(out.status.code(), Some(1));
    let text = String::from_utf8(out.stdout).unwrap();
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines.len(), 4, "{text}");
    assert!(lines[0].starts_with("0x1225\t4\tleaf\t"));
    assert_eq!(lines[1..], ["??\t0", "??\t0", "0x5\t0"]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("<stdin>:2"), "{stderr}");
    assert!(stderr.contains("<stdin>:3"), "{stderr}");
    // --bias and --return-address move the address looked up.
    let moved = ok(&run(
        &[
            "symbfile",
            "lookup",
            s(&ranges),
            "--bias",
            "0x1000",
            "--return-address",
            "0x2226",
        ],
        b"",
    ));
    assert!(moved.starts_with("0x2226\t4\tleaf\t"), "{moved}");
}

#[test]
fn symbfile_lookup_json_follows_the_schema() {
    let ranges = symblib("inl.ranges.symbfile");
    let pads = symblib("inl.retpads.symbfile");
    let text = ok(&run(
        &["lookup", "--json", s(&ranges), "0x1225", "0x5"],
        b"",
    ));
    let lines: Vec<Value> = text
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(lines[0]["address"], "0x1225");
    assert_eq!(lines[0]["source"], "ranges");
    let frames = lines[0]["frames"].as_array().unwrap();
    // symblib's inl.ranges.txt: leaf inlined at ./inl.c:7 into middle, at :8 into outer,
    // at :12 into compute.
    let names: Vec<&str> = frames
        .iter()
        .map(|f| f["function"].as_str().unwrap())
        .collect();
    assert_eq!(names, ["leaf", "middle", "outer", "compute"]);
    assert_eq!(frames[0]["call_line"], 7);
    assert_eq!(frames[1]["line"], 7);
    assert_eq!(frames[3]["depth"], 0);
    for f in frames {
        check(f, &frame());
    }
    assert_eq!(lines[1]["source"], "none");
    assert_eq!(lines[1]["frames"], Value::Array(Vec::new()));
    // A return pad (inl.retpads.txt: main calls atoi at ./inl.c:32).
    let text = ok(&run(&["lookup", "--json", s(&pads), "0x10d4"], b""));
    let pad: Value = serde_json::from_str(text.trim()).unwrap();
    assert_eq!(pad["source"], "return_pad");
    assert_eq!(pad["frames"][0]["function"], "atoi");
    assert_eq!(pad["frames"][0]["call_line"], 32);
    assert_eq!(pad["frames"][1]["function"], "main");
    assert_eq!(pad["frames"][1]["line"], 32);
    // A bad line: null address, the input and the error.
    let out = run(&["lookup", "--json", s(&ranges), "zz"], b"");
    let bad: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(bad["address"], Value::Null);
    assert_eq!(bad["input"], "zz");
    assert!(bad["error"].is_string());
}

#[test]
fn symbfile_commands_name_the_wrong_kind_of_input() {
    let out = run(&["symbfile", "lookup", s(&elf("inl")), "0x1"], b"");
    let stderr = failed(&out);
    assert!(
        stderr.contains("is an ELF file, not a symbfile") && stderr.contains("symbfile build"),
        "{stderr}"
    );
    let lidia = testdata("lidia/lidia");
    let dia = std::fs::read_dir(&lidia)
        .ok()
        .and_then(|mut d| d.find_map(|e| Some(e.ok()?.path())))
        .filter(|p| std::fs::read(p).is_ok_and(|b| b.starts_with(b".dia")));
    if let Some(dia) = dia {
        let out = run(&["symbfile", "dump", s(&dia)], b"");
        assert!(String::from_utf8_lossy(&out.stderr).contains("is a Lidia file, not a symbfile"));
    }
}

/// The range and return-pad files must be two files, however the paths are spelled: two
/// names of one file would leave only one of them (and a link would lose the file).
#[test]
fn symbfile_build_refuses_one_file_for_ranges_and_pads() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("out");
    let input = elf("simple");
    let refused = |pads: &Path| {
        let args = [
            "symbfile",
            "build",
            s(&input),
            "-o",
            s(&out),
            "--return-pads",
            s(pads),
        ];
        let e = failed(&run(&args, b""));
        assert!(e.contains("are both"), "{}: {e}", pads.display());
    };

    // A file that does not exist yet, by another spelling.
    std::fs::create_dir(dir.path().join("sub")).unwrap();
    refused(&dir.path().join("sub/../out"));
    assert!(!out.exists());

    // An existing file, through a link.
    std::fs::write(&out, b"kept").unwrap();
    let link = dir.path().join("link");
    std::os::unix::fs::symlink(&out, &link).unwrap();
    refused(&link);
    assert_eq!(std::fs::read(&out).unwrap(), b"kept");
}
