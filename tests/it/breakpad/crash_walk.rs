//! The real crash, walked: a program built without frame pointers
//! (`testdata/breakpad/crash_walk.c`, `-O2 -g -fomit-frame-pointer`) runs here until it is
//! inside its deepest frame, a minidump of it is written with the `minidump-writer`
//! crate, and `minidump-stackwalk` walks its stack with our `.sym` file and with
//! `dump_syms`'s. The two walks must agree frame for frame (function, file, line, inlined
//! calls, trust, address), must find the program's chain of calls down from `main`, and
//! must have recovered every caller with the `STACK CFI` rules. Two walks without those
//! rules (no symbol file; a symbol file with its `STACK` records removed) must not find
//! that chain: the program hides its frames from frame-pointer walks and plants decoy
//! return addresses for stack scans, so only the rules give the right answer.

use std::fs::{self, File};
use std::io::Read;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::Duration;

use serde_json::Value;
use symblob_build::dwarf::DebugFiles;
use symblob_build::pipeline::breakpad;
use symblob_build::Progress;

use crate::common::{cargo_oracle, missing_oracle, run_scratch_dir, testdata, tool};

/// The program's file name, which is also the module name in its `.sym` files.
const PROGRAM: &str = "crash_walk";

/// The frames of the program the walk must find, innermost first: each out-of-line
/// function with the call inlined into it at the point of the frame.
const EXPECTED: &[(&str, &[&str])] = &[
    ("spin_forever", &["wait_for_kill"]),
    ("compute_checksum", &["mix"]),
    ("handle_request", &["validate"]),
    ("main", &[]),
];

/// A call inlined into a frame, as `minidump-stackwalk` reports it.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Inline {
    function: Option<String>,
    file: Option<String>,
    line: Option<u64>,
}

/// One frame of the program as `minidump-stackwalk --json` reports it.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Frame {
    /// The frame's address in the module (for a caller, its return address).
    module_offset: String,
    /// How the walker found the frame: `context` (the thread's registers), `cfi`,
    /// `frame_pointer` or `scan`.
    trust: String,
    function: Option<String>,
    file: Option<String>,
    line: Option<u64>,
    /// The calls inlined at this point, as minidump-stackwalk lists them (the program
    /// has at most one a frame, so their order is never in question).
    inlines: Vec<Inline>,
}

impl Frame {
    /// The frame's names as [`EXPECTED`] lists them (a missing name is `?`).
    fn names(&self) -> (String, Vec<String>) {
        let name = |n: &Option<String>| n.clone().unwrap_or_else(|| "?".into());
        (
            name(&self.function),
            self.inlines.iter().map(|i| name(&i.function)).collect(),
        )
    }
}

/// A walk, a line a frame: address, trust, the function at its line, then the calls
/// inlined into it, each at its line.
fn show(walk: &[Frame]) -> String {
    let place = |function: &Option<String>, file: &Option<String>, line: Option<u64>| {
        let file = file
            .as_deref()
            .map_or("?", |f| f.rsplit('/').next().unwrap_or(f));
        let line = line.map_or_else(|| "?".into(), |l| l.to_string());
        format!("{} ({file}:{line})", function.as_deref().unwrap_or("?"))
    };
    let mut out = String::new();
    for f in walk {
        out.push_str(&format!(
            "\n  {} {:<7} {}",
            f.module_offset,
            f.trust,
            place(&f.function, &f.file, f.line)
        ));
        for i in &f.inlines {
            out.push_str(&format!(" > {}", place(&i.function, &i.file, i.line)));
        }
    }
    out
}

/// The program, running, killed when dropped (also when a check panics).
struct Running(Child);

impl Drop for Running {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

#[test]
fn crash_walk_uses_cfi_and_matches_dump_syms() {
    if !cfg!(target_arch = "x86_64") {
        missing_oracle("an x86-64 host (the checks know the program's x86-64 frames)");
        return;
    }
    let (Some(gcc), Some(stackwalk)) = (tool("gcc"), cargo_oracle("minidump-stackwalk")) else {
        return;
    };
    let dir = run_scratch_dir("breakpad-crash-walk");
    let exe = compile(&gcc, &dir);
    let Some(dump) = dump_while_spinning(&exe, &dir) else {
        return;
    };

    // (a) dump_syms's file, with its inlined calls (`--inlines`) as ours has them. Its
    // walk must be the program's chain of calls, its callers found by CFI: the program
    // and the walker do what the test needs.
    let Some(theirs) = super::writer::dump_syms(&exe) else {
        return;
    };
    let store_theirs = store(&dir, "store-dump_syms", &theirs, None);
    let Some(walk_theirs) = walk(&stackwalk, &dump, Some(&store_theirs)) else {
        return;
    };
    eprintln!("walk with dump_syms's .sym:{}", show(&walk_theirs));
    assert!(
        !walk_theirs.is_empty(),
        "the dump caught the program outside its own code (not yet back from `write`?)"
    );
    let expected: Vec<_> = EXPECTED
        .iter()
        .map(|(f, inl)| (f.to_string(), inl.iter().map(|s| s.to_string()).collect()))
        .collect();
    let names: Vec<_> = walk_theirs.iter().map(Frame::names).collect();
    assert_eq!(
        names,
        expected,
        "the walk did not find the program's calls:{}",
        show(&walk_theirs)
    );
    check_lines(&walk_theirs);
    assert_eq!(walk_theirs[0].trust, "context", "{}", show(&walk_theirs));
    for f in &walk_theirs[1..] {
        assert_eq!(
            f.trust,
            "cfi",
            "a caller was not recovered with the STACK CFI rules:{}",
            show(&walk_theirs)
        );
    }

    // Without the rules the walk goes wrong, so the walk above needed them: with no symbol
    // file at all (compared by address, there are no names), and with dump_syms's file
    // without its `STACK` records (compared by name).
    let addresses =
        |w: &[Frame]| -> Vec<String> { w.iter().map(|f| f.module_offset.clone()).collect() };
    let bare = walk(&stackwalk, &dump, None).expect("the walk with symbols had the thread");
    assert_ne!(
        addresses(&bare),
        addresses(&walk_theirs),
        "without symbols the walk still found the program's frames, so CFI was not needed:{}",
        show(&bare)
    );
    let no_cfi: String = theirs
        .lines()
        .filter(|l| !l.starts_with("STACK "))
        .flat_map(|l| [l, "\n"])
        .collect();
    let store_no_cfi = store(&dir, "store-no-cfi", &no_cfi, None);
    let blind =
        walk(&stackwalk, &dump, Some(&store_no_cfi)).expect("the walk with symbols had the thread");
    let blind_names: Vec<_> = blind.iter().map(Frame::names).collect();
    assert_ne!(
        blind_names,
        expected,
        "without STACK CFI the walk still found the program's calls, so CFI was not \
         needed:{}",
        show(&blind)
    );

    // (b) Ours, in the store where `symblob breakpad build --store` puts it: the same walk,
    // frame for frame.
    let (ours, ours_at) = our_sym_file(&exe);
    let store_ours = store(&dir, "store-ours", &ours, Some(&ours_at));
    let walk_ours =
        walk(&stackwalk, &dump, Some(&store_ours)).expect("the walk with symbols had the thread");
    let cfi_records = ours
        .lines()
        .filter(|l| l.starts_with("STACK CFI INIT "))
        .count();
    // `assert!`, not `assert_eq!`: the two walks, a line a frame, say it all.
    assert!(
        walk_ours == walk_theirs,
        "minidump-stackwalk walks the program differently with our .sym ({cfi_records} \
         STACK CFI INIT records) than with dump_syms's.\nOurs:{}\ndump_syms's:{}",
        show(&walk_ours),
        show(&walk_theirs)
    );
}

/// Compiles the test program into `dir`: optimised, with DWARF, without frame pointers,
/// with the unwind tables every x86-64 program has (`.eh_frame`, the rules' source).
fn compile(gcc: &Path, dir: &Path) -> PathBuf {
    let exe = dir.join(PROGRAM);
    let out = Command::new(gcc)
        .args([
            "-O2",
            "-g",
            "-fomit-frame-pointer",
            "-fasynchronous-unwind-tables",
        ])
        .arg(testdata("breakpad/crash_walk.c"))
        .arg("-o")
        .arg(&exe)
        .output()
        .expect("run gcc");
    assert!(
        out.status.success(),
        "gcc failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    exe
}

/// Runs `exe` until it reports that it spins in its deepest frame, and writes a minidump
/// of it into `dir`. `None` after [`missing_oracle`] when ptrace is not permitted.
fn dump_while_spinning(exe: &Path, dir: &Path) -> Option<PathBuf> {
    let child = Command::new(exe)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .spawn()
        .expect("start the test program");
    let mut running = Running(child);
    let mut ready = [0u8; 1];
    running
        .0
        .stdout
        .take()
        .unwrap()
        .read_exact(&mut ready)
        .expect("the test program's ready byte");
    assert_eq!(&ready, b"R");
    // The byte is written just before the loop: give the program a moment to return from
    // `write` into it, so that the dump catches it in its own frame, not in the C library.
    std::thread::sleep(Duration::from_millis(100));

    let pid = i32::try_from(running.0.id()).unwrap();
    let path = dir.join(format!("{PROGRAM}.dmp"));
    let mut file = File::create(&path).unwrap();
    // The program has one thread, whose id is the process id.
    let written =
        minidump_writer::minidump_writer::MinidumpWriterConfig::new(pid, pid).write(&mut file);
    drop(running);
    let yama = || {
        fs::read_to_string("/proc/sys/kernel/yama/ptrace_scope")
            .map_or_else(|_| "absent".into(), |s| s.trim().to_owned())
    };
    match written {
        Err(e) if format!("{e:?}").contains("EPERM") => {
            missing_oracle(&format!(
                "ptrace of a child process (writing its minidump: {e}; Yama ptrace_scope: {})",
                yama()
            ));
            return None;
        }
        Err(e) => panic!("writing the minidump of the test program: {e:?}"),
        Ok(_) => {}
    }
    // A thread that cannot be attached is left out of the dump, not an error.
    if thread_count(&path) == 0 {
        missing_oracle(&format!(
            "ptrace of a child process (the minidump of pid {pid} holds no thread; Yama \
             ptrace_scope: {})",
            yama()
        ));
        return None;
    }
    Some(path)
}

/// The number of threads in the minidump's thread list (stream type 3), read from the
/// file's directory: how the test tells a refused ptrace from a walk that went wrong.
fn thread_count(dump: &Path) -> u32 {
    let bytes = fs::read(dump).unwrap();
    let u32_at = |at: usize| u32::from_le_bytes(bytes[at..at + 4].try_into().unwrap());
    assert_eq!(&bytes[..4], b"MDMP", "not a minidump");
    let (streams, directory) = (u32_at(8) as usize, u32_at(12) as usize);
    (0..streams)
        .map(|i| directory + 12 * i)
        .find(|&entry| u32_at(entry) == 3)
        .map_or(0, |entry| u32_at(u32_at(entry + 8) as usize))
}

/// Our `.sym` file for `exe` (what `symblob breakpad build` writes), and where in a
/// symbol store it goes (what `--store` makes of the module).
fn our_sym_file(exe: &Path) -> (String, PathBuf) {
    let bytes = fs::read(exe).unwrap();
    let (built, text) =
        breakpad::from_elf(exe, &bytes, &DebugFiles::default(), &Progress::default())
            .expect("our Breakpad build of the test program");
    (text.into_string(), built.module.store_path())
}

/// A symbol store under `dir/name` holding `sym` at `at`, or if `None`, where its
/// `MODULE` line puts it in the layout `minidump-stackwalk` reads:
/// `<debug name>/<module id>/<debug name>.sym`.
fn store(dir: &Path, name: &str, sym: &str, at: Option<&Path>) -> PathBuf {
    let from_module_line = || {
        let module = sym.lines().next().expect("an empty .sym file");
        let fields: Vec<&str> = module.split(' ').collect();
        let ["MODULE", _os, _arch, id, debug_name] = fields[..] else {
            panic!("not a MODULE line: {module:?}");
        };
        [debug_name, id, &format!("{debug_name}.sym")]
            .iter()
            .collect()
    };
    let at = at.map_or_else(from_module_line, Path::to_path_buf);
    let root = dir.join(name);
    let _ = fs::remove_dir_all(&root);
    let file = root.join(at);
    fs::create_dir_all(file.parent().unwrap()).unwrap();
    fs::write(file, sym).unwrap();
    root
}

/// The frames of the program (the module [`PROGRAM`]) on the dumped thread, innermost
/// first, up to the first frame outside it, as `minidump-stackwalk --json` walks them with
/// the symbol store `symbols` (or with none). `None` after [`missing_oracle`] when the
/// walk has no thread.
fn walk(stackwalk: &Path, dump: &Path, symbols: Option<&Path>) -> Option<Vec<Frame>> {
    let mut cmd = Command::new(stackwalk);
    cmd.arg("--json");
    if let Some(store) = symbols {
        cmd.arg("--symbols-path").arg(store);
    }
    let out = cmd.arg(dump).output().expect("run minidump-stackwalk");
    assert!(
        out.status.success(),
        "minidump-stackwalk failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let json: Value = serde_json::from_slice(&out.stdout).expect("minidump-stackwalk's JSON");
    // The dump names the program's thread as the one that asked for it.
    let thread = &json["crashing_thread"];
    let Some(frames) = thread["frames"].as_array() else {
        missing_oracle(&format!(
            "a walked thread in minidump-stackwalk's output (crash_info: {})",
            json["crash_info"]
        ));
        return None;
    };
    let text = |v: &Value| v.as_str().map(str::to_owned);
    let frames: Vec<Frame> = frames
        .iter()
        // Past `main` the walk is in the C library, which has no symbols here, and scans:
        // what it finds there is no frame of the program even where it points into it.
        .take_while(|f| f["module"].as_str() == Some(PROGRAM))
        .map(|f| Frame {
            module_offset: text(&f["module_offset"]).unwrap_or_default(),
            trust: text(&f["trust"]).unwrap_or_default(),
            function: text(&f["function"]),
            file: text(&f["file"]),
            line: f["line"].as_u64(),
            inlines: f["inlines"]
                .as_array()
                .into_iter()
                .flatten()
                .map(|i| Inline {
                    function: text(&i["function"]),
                    file: text(&i["file"]),
                    line: i["line"].as_u64(),
                })
                .collect(),
        })
        .collect();
    Some(frames)
}

/// Checks the file and line of every function of the walk (which has [`EXPECTED`]'s
/// names): the test program, at the line of the source where the function makes its
/// call, or spins.
fn check_lines(walk: &[Frame]) {
    let source = fs::read_to_string(testdata("breakpad/crash_walk.c")).unwrap();
    let line_of = |text: &str| -> u64 {
        let found: Vec<usize> = source
            .lines()
            .enumerate()
            .filter(|(_, l)| l.contains(text))
            .map(|(i, _)| i + 1)
            .collect();
        assert_eq!(
            found.len(),
            1,
            "`{text}` is not on one line of crash_walk.c"
        );
        found[0] as u64
    };
    // Where each function of the chain is, innermost first.
    let at = [
        ("wait_for_kill", line_of("while (keep_spinning)")),
        ("spin_forever", line_of("wait_for_kill();")),
        ("mix", line_of("spin_forever(x ^ 0x5a)")),
        ("compute_checksum", line_of("mix(x + 11)")),
        ("validate", line_of("compute_checksum(x * 5)")),
        ("handle_request", line_of("validate(x + 2)")),
        ("main", line_of("handle_request(argc)")),
    ];
    let seen: Vec<(Option<&str>, Option<&str>, Option<u64>)> = walk
        .iter()
        .flat_map(|f| {
            f.inlines
                .iter()
                .map(|i| (i.function.as_deref(), i.file.as_deref(), i.line))
                .chain([(f.function.as_deref(), f.file.as_deref(), f.line)])
        })
        .collect();
    assert_eq!(seen.len(), at.len(), "{}", show(walk));
    for ((function, file, line), (name, want)) in seen.into_iter().zip(at) {
        assert_eq!(function, Some(name));
        assert!(
            file.is_some_and(|f| f.ends_with("crash_walk.c")),
            "{name} is in {file:?}, not crash_walk.c"
        );
        assert_eq!(line, Some(want), "the line of {name}");
    }
}
