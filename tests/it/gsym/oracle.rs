//! The oracle side of the GSYM tests: programs compiled here, converted by
//! `llvm-gsymutil-14 --convert`, and looked up by `llvm-gsymutil-14
//! --addresses-from-stdin`, whose text answers are parsed into frames.

use std::collections::BTreeMap;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::OnceLock;

use crate::common::{missing_oracle, run_scratch_dir, testdata, tool};

/// The GSYM tool whose answers are the expectation.
pub const GSYMUTIL: &str = "llvm-gsymutil-14";

/// One frame as `llvm-gsymutil` prints it: `name[ + offset][ @ path:line][ [inlined]]`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Frame {
    pub name: String,
    pub offset: u64,
    /// `None` when the frame has no `@ path:line`.
    pub location: Option<(String, u32)>,
    pub inlined: bool,
}

/// The answer for one address: frames, or the error message after `error: `.
pub type Answer = Result<Vec<Frame>, String>;

/// The GSYM files of the test programs, by name, converted on first use.
pub fn gsym_fixtures() -> &'static BTreeMap<&'static str, PathBuf> {
    static CELL: OnceLock<BTreeMap<&'static str, PathBuf>> = OnceLock::new();
    CELL.get_or_init(build_all)
}

/// The GSYM file of test program `name`, or `None` after reporting the missing oracle.
pub fn gsym_fixture(name: &str) -> Option<&'static Path> {
    tool(GSYMUTIL)?;
    let found = gsym_fixtures().get(name).map(PathBuf::as_path);
    if found.is_none() {
        missing_oracle(&format!(
            "GSYM fixture {name} (compiler or converter failed)"
        ));
    }
    found
}

fn run(cmd: &mut Command) -> bool {
    match cmd.output() {
        Ok(o) if o.status.success() => true,
        Ok(o) => {
            eprintln!("{cmd:?} failed: {}", String::from_utf8_lossy(&o.stderr));
            false
        }
        Err(e) => {
            eprintln!("{cmd:?} not runnable: {e}");
            false
        }
    }
}

/// A function far from the others, with an inlined call.
const FAR_SOURCE: &str = "static inline unsigned twice(unsigned x) { return 2 * x + 1; }\n\
    __attribute__((used, noinline, aligned(0x20000))) unsigned far_away(unsigned x)\n\
    { return twice(x) * twice(x + 1); }\n";

/// Compiles the DWARF test programs with `-g -O2` (inlining on) and converts each.
fn build_all() -> BTreeMap<&'static str, PathBuf> {
    let dir = run_scratch_dir("gsym-fixtures");
    let src = |name: &str| testdata(&format!("dwarf/{name}"));
    let c_sources = [src("main.c"), src("other.c"), src("asm_double.S")];
    let cpp_sources = [src("shapes.cpp")];
    // A function aligned to 128 KiB puts offsets past 16 bits: 4-byte address entries.
    let far = dir.join("far.c");
    std::fs::write(&far, FAR_SOURCE).expect("write far.c");
    let far_sources = [src("main.c"), src("other.c"), src("asm_double.S"), far];
    let programs: [(&'static str, &str, &[PathBuf]); 5] = [
        ("c-gcc", "gcc", &c_sources),
        ("c-clang", "clang-14", &c_sources),
        ("cpp-gxx", "g++", &cpp_sources),
        ("cpp-clang", "clang++-14", &cpp_sources),
        ("c-far", "gcc", &far_sources),
    ];
    let mut out = BTreeMap::new();
    for (name, compiler, sources) in programs {
        let bin = dir.join(name);
        let gsym = dir.join(format!("{name}.gsym"));
        let ok = run(Command::new(compiler)
            .args(["-g", "-O2"])
            .args(sources)
            .arg("-o")
            .arg(&bin))
            && run(Command::new(GSYMUTIL)
                .arg("--quiet")
                .arg(format!("--convert={}", bin.display()))
                .arg(format!("--out-file={}", gsym.display())));
        if ok {
            out.insert(name, gsym);
        }
    }
    out
}

/// `llvm-gsymutil`'s answers for `addrs` in the GSYM file `path`, in order.
pub fn lookups(path: &Path, addrs: &[u64]) -> Vec<Answer> {
    let mut child = Command::new(GSYMUTIL)
        .arg("--addresses-from-stdin")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .expect("run llvm-gsymutil");
    let mut input = String::new();
    for addr in addrs {
        input.push_str(&format!("{addr:#x} {}\n", path.display()));
    }
    let mut stdin = child.stdin.take().expect("stdin");
    let writer = std::thread::spawn(move || stdin.write_all(input.as_bytes()));
    let output = child.wait_with_output().expect("llvm-gsymutil output");
    writer.join().expect("writer").expect("write addresses");
    assert!(output.status.success(), "llvm-gsymutil failed");
    let answers = parse_answers(&String::from_utf8_lossy(&output.stdout));
    assert_eq!(answers.len(), addrs.len(), "one answer per address");
    for ((addr, _), want) in answers.iter().zip(addrs) {
        assert_eq!(addr, want, "answers in address order");
    }
    answers.into_iter().map(|(_, a)| a).collect()
}

/// Splits the output into (address, answer) blocks: a block starts with
/// `0x%016x: ` and continues with lines indented by 20 spaces.
fn parse_answers(text: &str) -> Vec<(u64, Answer)> {
    let mut out: Vec<(u64, Answer)> = Vec::new();
    for line in text.lines() {
        if line.is_empty() {
            continue;
        }
        if let Some(rest) = line.strip_prefix(&" ".repeat(20)) {
            let (_, Ok(frames)) = out.last_mut().expect("a continuation follows a block") else {
                panic!("continuation after an error: {line}");
            };
            frames.push(parse_frame(rest));
            continue;
        }
        let (addr, rest) = line.split_once(": ").expect("address: answer");
        let addr = u64::from_str_radix(addr.trim_start_matches("0x"), 16).expect("hex address");
        let answer = match rest.strip_prefix("error: ") {
            Some(message) => Err(message.to_owned()),
            None => Ok(vec![parse_frame(rest)]),
        };
        out.push((addr, answer));
    }
    out
}

fn parse_frame(text: &str) -> Frame {
    let (text, inlined) = match text.strip_suffix(" [inlined]") {
        Some(t) => (t, true),
        None => (text, false),
    };
    let (head, location) = match text.rsplit_once(" @ ") {
        Some((head, loc)) => {
            let (path, line) = loc.rsplit_once(':').expect("path:line");
            (
                head,
                Some((path.to_owned(), line.parse().expect("line number"))),
            )
        }
        None => (text, None),
    };
    let (name, offset) = match head.rsplit_once(" + ") {
        Some((name, off)) if off.bytes().all(|b| b.is_ascii_digit()) => {
            (name, off.parse().expect("offset"))
        }
        _ => (head, 0),
    };
    Frame {
        name: name.to_owned(),
        offset,
        location,
        inlined,
    }
}

#[test]
fn parses_the_tools_output() {
    let text = "0x0000000000001160: sq @ /src/a.c:2 [inlined]\n                    g + 4 @ /src/a.c:4\n\n0x0000000000002000: error: address 0x2000 is not in GSYM\n\n0x0000000000001000: _init + 1\n";
    let answers = parse_answers(text);
    assert_eq!(answers.len(), 3);
    let (addr, Ok(frames)) = &answers[0] else {
        panic!("frames")
    };
    assert_eq!(*addr, 0x1160);
    assert_eq!(frames[0].location, Some(("/src/a.c".into(), 2)));
    assert!(frames[0].inlined && !frames[1].inlined);
    assert_eq!((frames[1].name.as_str(), frames[1].offset), ("g", 4));
    assert_eq!(answers[1].1, Err("address 0x2000 is not in GSYM".into()));
    let (_, Ok(frames)) = &answers[2] else {
        panic!("frames")
    };
    assert_eq!(
        (
            frames[0].name.as_str(),
            frames[0].offset,
            &frames[0].location
        ),
        ("_init", 1, &None)
    );
}
