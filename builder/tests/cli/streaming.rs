//! Lookups as profilers drive them: one address in, its answer out before the next
//! address is written; bad lines answered with a placeholder; a closed standard output
//! ending the program quietly. Expected answers come from the reference implementations'
//! lookups (the Go Lidia reader, the ksym crate's origin).

use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, Stdio};
use std::sync::mpsc;
use std::time::Duration;

use crate::common::{run, s, spawn, stderr_text, success, symblob, testdata};
use crate::ksym::expected_addr_lines;

/// How long an answer may take before the test fails instead of hanging.
const ANSWER_TIMEOUT: Duration = Duration::from_secs(30);

/// A running lookup: its standard input, and its output lines arriving on a channel.
struct Session {
    child: Child,
    input: Option<std::process::ChildStdin>,
    lines: mpsc::Receiver<String>,
}

impl Session {
    fn start(args: &[&str]) -> Session {
        let mut child = spawn(args);
        let stdout = child.stdout.take().unwrap();
        let (send, lines) = mpsc::channel();
        std::thread::spawn(move || {
            for line in BufReader::new(stdout).lines() {
                let Ok(line) = line else { break };
                if send.send(line).is_err() {
                    break;
                }
            }
        });
        let input = child.stdin.take();
        Session {
            child,
            input,
            lines,
        }
    }

    /// Writes one line (flushed) and waits for one answer line.
    fn ask(&mut self, question: &str) -> String {
        let input = self.input.as_mut().unwrap();
        writeln!(input, "{question}").unwrap();
        input.flush().unwrap();
        self.lines
            .recv_timeout(ANSWER_TIMEOUT)
            .unwrap_or_else(|_| panic!("no answer to {question:?} while its input stays open"))
    }

    /// Closes standard input and returns the exit code and standard error.
    fn finish(mut self) -> (Option<i32>, String) {
        drop(self.input.take());
        let out = self.child.wait_with_output().unwrap();
        (out.status.code(), stderr_text(&out))
    }
}

/// Questions with their expected answer lines.
type Lookups = Vec<(String, String)>;

/// Golden Lidia lookups of the Go reader: (address, expected line).
fn go_lookups(stem: &str) -> Lookups {
    let tsv =
        std::fs::read_to_string(testdata(&format!("lidia/dumps/{stem}.lookups.tsv"))).unwrap();
    tsv.lines()
        .filter(|l| !l.starts_with('#'))
        .map(|l| (l.split('\t').next().unwrap().to_owned(), l.to_owned()))
        .collect()
}

/// The origin's ksym lookups of `edge-order.nm` in the text range 0x400000..0x4010a0,
/// where no alias changes the name: (address, expected line).
fn origin_ksym_lookups() -> Lookups {
    let tsv = std::fs::read_to_string(testdata("ksym/origin/edge-order.lookups.tsv")).unwrap();
    let kept: String = tsv
        .lines()
        .filter(|l| !l.contains("tilde"))
        .map(|l| format!("{l}\n"))
        .collect();
    expected_addr_lines(&kept, "addr")
}

fn ksym_blob(dir: &Path) -> PathBuf {
    let blob = dir.join("edge-order.ksym");
    let nm = testdata("ksym/input/edge-order.nm");
    success(run(
        &["ksym", "build", s(&nm), "-o", s(&blob), "--quiet"],
        b"",
    ));
    blob
}

/// A ksym blob and a Lidia file with the reference implementations' answers.
struct Asked {
    /// Holds `blob`.
    _dir: tempfile::TempDir,
    /// `edge-order.nm` built, with [`origin_ksym_lookups`].
    blob: PathBuf,
    ksym: Lookups,
    /// `simple.none.lidia`, with the Go reader's lookups.
    lidia: PathBuf,
    lidia_answers: Lookups,
}

/// The files of [`Asked`], the blob built in a new temporary folder.
fn asked() -> Asked {
    let dir = tempfile::tempdir().unwrap();
    Asked {
        blob: ksym_blob(dir.path()),
        _dir: dir,
        ksym: origin_ksym_lookups(),
        lidia: testdata("lidia/lidia/simple.none.lidia"),
        lidia_answers: go_lookups("simple.none"),
    }
}

#[test]
fn each_answer_arrives_before_the_next_address_is_written() {
    let a = asked();
    assert!(a.ksym.len() >= 5 && a.lidia_answers.len() >= 5);
    let text = ["--text", "0x400000..0x4010a0"];
    let sessions: Vec<(Vec<&str>, &Lookups)> = vec![
        (
            [&["ksym", "lookup", s(&a.blob)][..], &text].concat(),
            &a.ksym,
        ),
        (vec!["lidia", "lookup", s(&a.lidia)], &a.lidia_answers),
        (vec!["lookup", s(&a.lidia)], &a.lidia_answers),
    ];
    for (args, expected) in sessions {
        let mut session = Session::start(&args);
        for (question, answer) in expected.iter().take(5) {
            assert_eq!(&session.ask(question), answer, "{args:?}");
        }
        assert_eq!(session.finish(), (Some(0), String::new()), "{args:?}");
    }
    // JSON Lines stream the same way.
    let mut session = Session::start(&["lidia", "lookup", "--json", s(&a.lidia)]);
    for (question, answer) in a.lidia_answers.iter().take(3) {
        let got: serde_json::Value = serde_json::from_str(&session.ask(question)).unwrap();
        let count: usize = answer.split('\t').nth(1).unwrap().parse().unwrap();
        assert_eq!(got["frames"].as_array().unwrap().len(), count);
    }
    assert_eq!(session.finish().0, Some(0));
}

#[test]
fn bad_lines_get_a_placeholder_and_the_run_goes_on() {
    let a = asked();
    let (blob, lidia, k, l) = (&a.blob, &a.lidia, &a.ksym, &a.lidia_answers);
    let long = "1".repeat(5000);
    let stderr_want = "symblob: <stdin>:2: empty, expected a hexadecimal address\n\
                       symblob: <stdin>:3: not a hexadecimal address: \"zz\"\n\
                       symblob: <stdin>:5: not a hexadecimal address: \"-1\"\n\
                       symblob: <stdin>:6: address \"0x1ffffffffffffffff\" does not fit in 64 bits\n\
                       symblob: <stdin>:7: line longer than 4096 bytes\n";
    let input = |a: &str, b: &str| format!("{a}\n\nzz\n{b}\n-1\n0x1ffffffffffffffff\n{long}\n{a}");
    let cases = [
        (
            vec!["ksym", "lookup", s(blob), "--text", "0x400000..0x4010a0"],
            input(&k[0].0, &k[1].0),
            [
                &k[0].1, "?? ??", "?? ??", &k[1].1, "?? ??", "?? ??", "?? ??", &k[0].1,
            ],
        ),
        (
            vec!["lidia", "lookup", s(lidia)],
            input(&l[0].0, &l[1].0),
            [
                &l[0].1, "??\t0", "??\t0", &l[1].1, "??\t0", "??\t0", "??\t0", &l[0].1,
            ],
        ),
    ];
    for (args, stdin, want) in cases {
        let o = run(&args, stdin.as_bytes());
        assert_eq!(o.status.code(), Some(1), "{args:?}");
        let out = String::from_utf8(o.stdout.clone()).unwrap();
        assert_eq!(out.lines().collect::<Vec<_>>(), want, "{args:?}");
        assert_eq!(stderr_text(&o), stderr_want, "{args:?}");
    }
    // Arguments too: `-1` is an address that is wrong, not an option.
    let o = run(&["lidia", "lookup", s(lidia), &l[0].0, "-1"], b"");
    assert_eq!(o.status.code(), Some(1));
    assert_eq!(
        String::from_utf8(o.stdout.clone()).unwrap(),
        format!("{}\n??\t0\n", l[0].1)
    );
    assert_eq!(
        stderr_text(&o),
        "symblob: argument 2: not a hexadecimal address: \"-1\"\n"
    );
}

#[test]
fn bias_and_return_address_shift_the_lookup() {
    let lidia = testdata("lidia/lidia/simple.none.lidia");
    for (question, answer) in go_lookups("simple.none") {
        let addr = u64::from_str_radix(question.trim_start_matches("0x"), 16).unwrap();
        let rest = answer.split_once('\t').unwrap().1;
        // Runtime address = file address + bias.
        // Additions wrap, in the lookup as here.
        let moved = format!("{:#x}", addr.wrapping_add(0x7f00_0000_0000));
        let got = success(run(
            &[
                "lidia",
                "lookup",
                s(&lidia),
                "--bias",
                "0x7f0000000000",
                &moved,
            ],
            b"",
        ));
        assert_eq!(
            String::from_utf8(got).unwrap(),
            format!("{moved}\t{rest}\n")
        );
        // A return address names the byte before it.
        let Some(ret) = addr.checked_add(1).map(|r| format!("{r:#x}")) else {
            continue;
        };
        let got = success(run(&["lookup", s(&lidia), "--return-address", &ret], b""));
        assert_eq!(String::from_utf8(got).unwrap(), format!("{ret}\t{rest}\n"));
    }
    // ksym: the origin's return-address answers, with a KASLR-style bias.
    let dir = tempfile::tempdir().unwrap();
    let blob = ksym_blob(dir.path());
    let tsv = std::fs::read_to_string(testdata("ksym/origin/edge-order.lookups.tsv")).unwrap();
    let bias = 0x1000_0000u64;
    let mut checked = 0;
    for l in tsv
        .lines()
        .filter(|l| l.starts_with("ret\t") && !l.contains("tilde"))
    {
        let f: Vec<&str> = l.split('\t').collect();
        let q = u64::from_str_radix(&f[1][2..], 16).unwrap();
        // Queries in and around the text range (the others wrap when moved).
        if !(0x3f0000..0x410000).contains(&q) {
            continue;
        }
        let q = q + bias;
        let want = if f[2] == "none" {
            format!("{q:#x} ??\n")
        } else {
            format!("{q:#x} {}+{}/{}\n", f[3], f[4], f[5])
        };
        let got = success(run(
            &[
                "ksym",
                "lookup",
                s(&blob),
                "--return-address",
                "--bias",
                &format!("{bias:#x}"),
                "--text",
                &format!("{:#x}..{:#x}", 0x400000 + bias, 0x4010a0 + bias),
                &format!("{q:#x}"),
            ],
            b"",
        ));
        assert_eq!(String::from_utf8(got).unwrap(), want);
        checked += 1;
    }
    assert!(checked >= 3);
}

#[test]
fn a_closed_standard_output_ends_quietly() {
    let dir = tempfile::tempdir().unwrap();
    let blob = dir.path().join("linux.ksym");
    let map = testdata("ksym/linux-6.1-cloud-amd64.System.map");
    success(run(
        &["ksym", "build", s(&map), "-o", s(&blob), "--quiet"],
        b"",
    ));
    for args in [
        vec!["ksym", "dump", s(&blob)],
        vec!["ksym", "dump", "--json", s(&blob)],
        vec!["ksym", "build", s(&map), "-o", "-", "--quiet"],
    ] {
        // Read one line, then close the pipe while the program still has megabytes to
        // write.
        let mut child = symblob()
            .args(&args)
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        let mut first = Vec::new();
        BufReader::new(child.stdout.take().unwrap())
            .read_until(b'\n', &mut first)
            .unwrap();
        assert!(!first.is_empty());
        let out = child.wait_with_output().unwrap();
        assert_eq!(out.status.code(), Some(0), "{args:?}");
        assert_eq!(stderr_text(&out), "", "{args:?}");
    }
    // The same in a shell pipeline with pipefail, where it matters.
    let Some(bash) = crate::common::tool("bash") else {
        return;
    };
    let o = std::process::Command::new(bash)
        .arg("-c")
        .arg("set -o pipefail; \"$0\" ksym dump \"$1\" | head -1")
        .arg(env!("CARGO_BIN_EXE_symblob"))
        .arg(&blob)
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(0));
    assert_eq!(stderr_text(&o), "");
    let full = success(run(&["ksym", "dump", s(&blob)], b""));
    let first = full.split_inclusive(|&b| b == b'\n').next().unwrap();
    assert_eq!(o.stdout, first);
}
