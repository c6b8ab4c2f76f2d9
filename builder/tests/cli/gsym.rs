//! `symblob gsym` command-line tests on a file `llvm-gsymutil-14 --convert` wrote (the
//! fuzz seed, in both byte orders), against `llvm-gsymutil-14 --address`.

use std::process::Command;

use crate::common::{ok, root, run, s, tool};

fn seed(name: &str) -> std::path::PathBuf {
    root().join("fuzz/seeds/gsym_parse").join(name)
}

/// `llvm-gsymutil`'s frames for `addr` as (function, path, line), innermost first.
fn oracle(gsymutil: &std::path::Path, file: &str, addr: u64) -> Vec<(String, String, String)> {
    let out = Command::new(gsymutil)
        .args([file, "--address", &format!("{addr:#x}")])
        .output()
        .expect("run llvm-gsymutil");
    let text = String::from_utf8(out.stdout).unwrap();
    text.lines()
        .skip_while(|l| !l.starts_with("0x"))
        .filter(|l| !l.contains("error: "))
        .map(|l| {
            let frame = l.split_once(": ").map_or(l.trim(), |(_, f)| f);
            let frame = frame.trim().trim_end_matches(" [inlined]");
            let (head, location) = frame.split_once(" @ ").unwrap_or((frame, ":0"));
            let name = head.split(" + ").next().unwrap().to_owned();
            let (path, line) = location.rsplit_once(':').unwrap();
            (name, path.to_owned(), line.to_owned())
        })
        .collect()
}

#[test]
fn gsym_lookup_matches_llvm_gsymutil_in_both_byte_orders() {
    let Some(gsymutil) = tool("llvm-gsymutil-14") else {
        return;
    };
    let (le, be) = (seed("inline.gsym"), seed("inline.be.gsym"));
    let dump = ok(&run(&["gsym", "dump", s(&le)], b""));
    // Every function start and the bytes after it, from the dump's `[start, end)` lines.
    let mut addrs = Vec::new();
    for line in dump.lines().filter(|l| l.trim_start().starts_with("[0x")) {
        let start = line.trim_start()[1..].split(',').next().unwrap();
        let start = u64::from_str_radix(start.trim_start_matches("0x"), 16).unwrap();
        addrs.extend(start..start + 6);
    }
    assert!(addrs.len() > 30);
    let args: Vec<String> = addrs.iter().map(|a| format!("{a:#x}")).collect();
    let answers = |command: &[&str], file: &std::path::Path| {
        let mut argv = command.to_vec();
        argv.push(s(file));
        argv.extend(args.iter().map(String::as_str));
        ok(&run(&argv, b""))
    };
    let ours = answers(&["gsym", "lookup"], &le);
    assert_eq!(
        ours,
        answers(&["gsym", "lookup"], &be),
        "the big-endian copy answers the same"
    );
    // Read from standard input, the addresses are looked up through a lookup index: the
    // same answers.
    let lines: String = args.iter().map(|a| format!("{a}\n")).collect();
    let streamed = ok(&run(&["gsym", "lookup", s(&le)], lines.as_bytes()));
    assert_eq!(ours, streamed, "through the lookup index");
    // `symblob lookup` recognises both byte orders from the magic and answers alike.
    assert_eq!(ours, answers(&["lookup"], &le), "symblob lookup");
    assert_eq!(
        ours,
        answers(&["lookup"], &be),
        "symblob lookup, big-endian"
    );
    let mut inlined = 0;
    for (line, &addr) in ours.lines().zip(&addrs) {
        let fields: Vec<&str> = line.split('\t').collect();
        let frames: Vec<(String, String, String)> = fields[2..]
            .chunks(3)
            .map(|f| (f[0].to_owned(), f[1].to_owned(), f[2].to_owned()))
            .collect();
        assert_eq!(frames.len().to_string(), fields[1]);
        inlined += frames.len().saturating_sub(1);
        assert_eq!(frames, oracle(&gsymutil, s(&le), addr), "{addr:#x}");
    }
    assert!(inlined > 0, "the seed has inlined calls");
}

#[test]
fn gsym_verify_names_the_damage() {
    let le = seed("inline.gsym");
    assert!(ok(&run(&["gsym", "verify", s(&le)], b"")).contains(": ok ("));
    let dir = tempfile::tempdir().unwrap();
    let cut = dir.path().join("cut.gsym");
    std::fs::write(&cut, &std::fs::read(&le).unwrap()[..100]).unwrap();
    let out = run(&["gsym", "verify", s(&cut)], b"");
    assert_eq!(out.status.code(), Some(1));
    let err = String::from_utf8(out.stderr).unwrap();
    assert!(
        err.contains("gsym: address info offsets at offset 0x"),
        "{err}"
    );
}
