//! `symblob lookup` and `symblob symbfile lookup` on symbfiles, which answer from an index
//! built when the file is opened: every answer is the one the reader's sweep gives,
//! printed as the command prints frames.

use std::fmt::Write as _;
use std::path::Path;

use symblob::symbfile::{Range, SymbFile};
use symblob_build::symbfile::{decode, Record};

use crate::common::{failed, ok, run, s, testdata};
use crate::symbfile::symblib;

/// Every address each record covers and the one on each side.
fn dense_addresses(bytes: &[u8]) -> Vec<u64> {
    let mut addrs = Vec::new();
    for r in decode(bytes).unwrap() {
        let (va, end) = match r {
            Record::Range(r) => (r.va, r.va + r.length),
            Record::ReturnPad(p) => (p.va, p.va + 1),
        };
        addrs.extend(va.saturating_sub(1)..=end);
    }
    addrs.sort_unstable();
    addrs.dedup();
    addrs
}

/// The text answer for `addr` from the reader's sweep: ranges covering it (innermost
/// first; each frame's position is the inner frame's call site, the innermost's is the
/// address's line), else the return pad at it, else none.
fn swept_answer(file: &SymbFile<'_>, addr: u64, out: &mut String) {
    let mut scratch = vec![""; 1 << 12];
    let mut ranges = vec![Range::EMPTY; 256];
    let n = file.lookup_ranges(addr, &mut scratch, &mut ranges).unwrap();
    let kept = &ranges[..n.min(ranges.len())];
    let mut frames = Vec::new();
    for (i, r) in kept.iter().enumerate() {
        frames.push(match kept.get(i + 1) {
            Some(inner) => (r.func, inner.call_file.or(r.file), inner.call_line),
            None => (r.func, r.file, r.line_at(addr)),
        });
    }
    if kept.is_empty() {
        if let Some(pad) = file.lookup_return_pad(addr, &mut scratch).unwrap() {
            frames.extend(pad.entries().map(|e| (e.func, e.file, e.line)));
        }
    }
    write!(out, "{addr:#x}\t{}", frames.len()).unwrap();
    for (func, file, line) in frames.iter().rev() {
        write!(
            out,
            "\t{func}\t{}\t{}",
            file.unwrap_or(""),
            line.unwrap_or(0)
        )
        .unwrap();
    }
    out.push('\n');
}

/// Both lookup commands on `path` answer every dense address (from standard input, and
/// some as arguments) as the sweep does.
fn assert_lookups_are_the_sweeps(path: &Path) {
    let bytes = std::fs::read(path).unwrap();
    let file = SymbFile::parse(&bytes).unwrap();
    let addrs = dense_addresses(&bytes);
    let (mut questions, mut expected) = (String::new(), String::new());
    for &a in &addrs {
        writeln!(questions, "{a:#x}").unwrap();
        swept_answer(&file, a, &mut expected);
    }
    assert!(
        expected.lines().any(|l| !l.ends_with("\t0")),
        "{}",
        path.display()
    );
    for command in [&["lookup"][..], &["symbfile", "lookup"]] {
        let args = [command, &[s(path)]].concat();
        let answers = ok(&run(&args, questions.as_bytes()));
        assert_eq!(answers, expected, "{command:?} {}", path.display());
        let some: Vec<String> = addrs
            .iter()
            .step_by(97)
            .map(|a| format!("{a:#x}"))
            .collect();
        let args = [
            &args[..],
            &some.iter().map(String::as_str).collect::<Vec<_>>(),
        ]
        .concat();
        let answers = ok(&run(&args, b""));
        let wanted: String = expected
            .lines()
            .step_by(97)
            .map(|l| format!("{l}\n"))
            .collect();
        assert_eq!(
            answers,
            wanted,
            "{command:?} {} (arguments)",
            path.display()
        );
    }
}

#[test]
fn symbfile_lookups_answer_symblib_files_as_the_sweep() {
    for elf in crate::symbfile::ELFS {
        for kind in ["ranges", "retpads"] {
            assert_lookups_are_the_sweeps(&symblib(&format!("{elf}.{kind}.symbfile")));
        }
    }
}

#[test]
fn symbfile_lookups_answer_built_files_as_the_sweep() {
    let dir = tempfile::tempdir().unwrap();
    for elf in ["inl", "libdemo.so"] {
        let ranges = dir.path().join(format!("{elf}.ranges"));
        let pads = dir.path().join(format!("{elf}.retpads"));
        let input = testdata(&format!("lidia/elf/{elf}"));
        ok(&run(
            &["symbfile", "build", s(&input), "-o", s(&ranges)],
            b"",
        ));
        ok(&run(
            &[
                "symbfile",
                "build",
                s(&input),
                "-o",
                s(&dir.path().join("x")),
                "--return-pads",
                s(&pads),
            ],
            b"",
        ));
        assert_lookups_are_the_sweeps(&ranges);
        assert_lookups_are_the_sweeps(&pads);
    }
}

#[test]
fn symbfile_lookup_of_a_corrupt_record_names_the_file_and_offset() {
    // A string table ["f.c"], then at offset 0x11 a range at 0x1000 whose funcRef 5 is
    // past the table, then a good range "ok" at 0x2000.
    let mut bytes = b"symbfile\x00\x01\x05\x04\x0a\x03f.c".to_vec();
    bytes.extend(b"\x07\x02\x60\x80\x20\x10\x20\x48\x05");
    bytes.extend(b"\x09\x02\x60\x80\x40\x10\x10\x1a\x02ok");
    let dir = tempfile::tempdir().unwrap();
    let bad = dir.path().join("bad.symbfile");
    std::fs::write(&bad, &bytes).unwrap();
    for command in [&["lookup"][..], &["symbfile", "lookup"]] {
        let good = ok(&run(&[command, &[s(&bad), "0x2004"]].concat(), b""));
        assert_eq!(good, "0x2004\t1\tok\t\t0\n");
        let err = failed(&run(&[command, &[s(&bad), "0x1004"]].concat(), b""));
        assert!(
            err.contains("bad.symbfile at offset 0x11") && !err.contains("<stdout>"),
            "{err}"
        );
    }
}

/// The range file symblib wrote of the first test program: its path and bytes.
fn first_symblib_ranges() -> (std::path::PathBuf, Vec<u8>) {
    let path = symblib(&format!("{}.ranges.symbfile", crate::symbfile::ELFS[0]));
    let bytes = std::fs::read(&path).unwrap();
    (path, bytes)
}

/// Answers come as questions arrive, not when a batch is full or the input ends: one
/// address, a bad line and another address, each answered before the next is written.
#[test]
fn symbfile_lookup_answers_each_address_as_it_arrives() {
    use std::io::{BufRead, BufReader, Write};
    use std::process::{Command, Stdio};
    use std::sync::mpsc;
    use std::time::Duration;

    let (path, bytes) = first_symblib_ranges();
    let file = SymbFile::parse(&bytes).unwrap();
    let addrs = dense_addresses(&bytes);
    let mut child = Command::new(env!("CARGO_BIN_EXE_symblob"))
        .args(["lookup", s(&path)])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    let (lines, answers) = mpsc::channel();
    let stdout = BufReader::new(child.stdout.take().unwrap());
    let reader = std::thread::spawn(move || {
        for line in stdout.lines() {
            if lines.send(line.unwrap()).is_err() {
                break;
            }
        }
    });
    let next = || {
        answers
            .recv_timeout(Duration::from_secs(60))
            .map(|l| l + "\n")
    };
    let (first, second) = (addrs[addrs.len() / 3], addrs[addrs.len() / 2]);
    for (question, addr) in [
        ("{first}", Some(first)),
        ("nonsense", None),
        ("", Some(second)),
    ] {
        let question = match addr {
            Some(a) => format!("{a:#x}\n"),
            None => format!("{question}\n"),
        };
        stdin.write_all(question.as_bytes()).unwrap();
        stdin.flush().unwrap();
        let answer = next().expect("an answer before the next question");
        match addr {
            Some(a) => {
                let mut expected = String::new();
                swept_answer(&file, a, &mut expected);
                assert_eq!(answer, expected);
            }
            None => assert_eq!(answer, "??\t0\n"),
        }
    }
    drop(stdin);
    assert!(
        !child.wait().unwrap().success(),
        "a bad line makes the exit status 1"
    );
    reader.join().unwrap();
}

/// A batch of many thousand questions, answered on several threads a chunk of 4,096 at
/// a time: every answer in its place, bad lines (at the edges of chunks and inside them)
/// answered with the placeholder and reported with their line numbers, and `--json`
/// answering the same questions with the same frames.
#[test]
fn symbfile_lookup_answers_many_chunks_in_order() {
    let (path, bytes) = first_symblib_ranges();
    let file = SymbFile::parse(&bytes).unwrap();
    let addrs = dense_addresses(&bytes);
    let bad_at = [0, 4095, 4096, 4097, 8191, 12_000, 12_001, 20_479];
    let (mut questions, mut expected) = (String::new(), String::new());
    let (mut wanted_errors, mut answers) = (Vec::new(), 0);
    for line in 0..30_000 {
        if bad_at.contains(&line) {
            questions.push_str("not an address\n");
            expected.push_str("??\t0\n");
            wanted_errors.push(format!("<stdin>:{}: not a hexadecimal address", line + 1));
        } else {
            // Spread over the file, so that neighbours are not the same answer.
            let a = addrs[(line * 7919) % addrs.len()];
            writeln!(questions, "{a:#x}").unwrap();
            swept_answer(&file, a, &mut expected);
            answers += 1;
        }
    }
    assert!(answers > 5 * 4096);
    let out = run(&["lookup", s(&path)], questions.as_bytes());
    let errors = failed(&out);
    assert_eq!(String::from_utf8(out.stdout).unwrap(), expected);
    for wanted in &wanted_errors {
        assert!(errors.contains(wanted), "{wanted} missing from {errors}");
    }
    // The JSON answers: one line per question, the same frames in the same places.
    let out = run(&["lookup", "--json", s(&path)], questions.as_bytes());
    failed(&out);
    let json = String::from_utf8(out.stdout).unwrap();
    assert_eq!(json.lines().count(), expected.lines().count());
    for (text, line) in expected.lines().zip(json.lines()) {
        let answer: serde_json::Value = serde_json::from_str(line).unwrap();
        let frames = answer["frames"].as_array().unwrap();
        let mut fields = text.split('\t');
        match fields.next().unwrap() {
            "??" => assert!(answer["address"].is_null() && frames.is_empty(), "{line}"),
            address => {
                assert_eq!(answer["address"], address, "{line}");
                let count: usize = fields.next().unwrap().parse().unwrap();
                assert_eq!(frames.len(), count, "{line}");
                let functions: Vec<&str> = fields.step_by(3).collect();
                for (frame, function) in frames.iter().zip(functions) {
                    assert_eq!(frame["function"], function, "{line}");
                }
            }
        }
    }
}
