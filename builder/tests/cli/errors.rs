//! The exact messages people read when something is wrong: one line, naming the file and
//! what it really is, the user's own numbers, and what to do.

use std::fs;

use crate::common::{run, s, stderr_text, success, testdata};

/// Runs `args` and checks that it fails with status 1, prints nothing on standard output
/// and exactly `message` (one line) on standard error.
fn fails_with(args: &[&str], stdin: &[u8], message: &str) {
    let o = run(args, stdin);
    assert_eq!(o.status.code(), Some(1), "{args:?}: {}", stderr_text(&o));
    assert!(o.stdout.is_empty(), "{args:?} printed output");
    assert_eq!(stderr_text(&o), format!("symblob: {message}\n"), "{args:?}");
}

#[test]
fn a_wrong_kind_of_file_is_named_for_what_it_is() {
    let elf = testdata("lidia/elf/simple");
    let e = s(&elf);
    let nm = testdata("ksym/input/seed-3.nm");
    let n = s(&nm);
    let lidia = testdata("lidia/lidia/simple.none.lidia");
    let l = s(&lidia);
    let dir = tempfile::tempdir().unwrap();
    let empty = dir.path().join("empty");
    fs::write(&empty, b"").unwrap();
    let z = s(&empty);
    let corrupt = testdata("ksym/corrupt/num-syms-huge.bin");
    let ksym_build = |p: &str| format!("build one with `symblob ksym build {p} -o {p}.ksym`");
    let cases: Vec<(Vec<&str>, String)> = vec![
        (
            vec!["ksym", "lookup", e, "0x1000"],
            format!("`{e}` is an ELF file, not a ksym blob: {}", ksym_build(e)),
        ),
        (
            vec!["ksym", "dump", n],
            format!(
                "`{n}` is nm or kallsyms text, not a ksym blob: {}",
                ksym_build(n)
            ),
        ),
        (
            vec!["ksym", "info", l],
            format!(
                "`{l}` is a Lidia file, not a ksym blob: read it with `symblob lidia` or \
                 `symblob lookup {l}`"
            ),
        ),
        (
            vec!["ksym", "name", z, "x"],
            format!("`{z}` is empty, not a ksym blob"),
        ),
        (
            vec!["lidia", "dump", e],
            format!(
                "`{e}` is an ELF file, not a Lidia file: build one with \
                 `symblob lidia build {e} -o {e}.lidia`"
            ),
        ),
        (
            vec!["lookup", e, "0x1000"],
            format!(
                "`{e}` is an ELF file, not a ksym blob, a Lidia file, a symbfile, a GSYM file or a Breakpad file: build one with \
                 `symblob lidia build {e} -o {e}.lidia` or `symblob ksym build {e} -o {e}.ksym`"
            ),
        ),
        (
            vec!["lookup", z, "0x1000"],
            format!("`{z}` is empty, not a ksym blob, a Lidia file, a symbfile, a GSYM file or a Breakpad file"),
        ),
        (
            vec!["lookup", n, "0x1000"],
            format!(
                "`{n}` is nm or kallsyms text, not a ksym blob, a Lidia file, a symbfile, a GSYM file or a Breakpad file: {}",
                ksym_build(n)
            ),
        ),
        (
            vec!["lookup", s(&corrupt), "0x1000"],
            format!(
                "`{}` is not a ksym blob, a Lidia file, a symbfile, a GSYM file or a Breakpad file (read as a ksym blob: {})",
                corrupt.display(),
                symblob::ksym::KsymBlob::parse(&fs::read(&corrupt).unwrap()).unwrap_err()
            ),
        ),
        (
            vec!["symbfile", "lookup", e, "0x1000"],
            format!(
                "`{e}` is an ELF file, not a symbfile: build one with \
                 `symblob symbfile build {e} -o {e}.symbfile`"
            ),
        ),
        (
            vec!["cif", "decode", e],
            format!("`{e}` is an ELF file, not a CIF stream"),
        ),
    ];
    for (args, message) in cases {
        fails_with(&args, b"", &message);
    }
}

/// The formats without a magic number (ksym-bin, CIF) are named too when they are given
/// where another format is needed.
#[test]
fn blobs_without_a_magic_number_are_named_for_what_they_are() {
    // A blob the origin generator wrote and a stream in Swift's byte form.
    let ksym = testdata("ksym/origin/seed-3.bin");
    let k = s(&ksym);
    let cif = testdata("golden/outputs/cif-encode-swift/images.cif");
    let c = s(&cif);
    let cases: Vec<(Vec<&str>, String)> = vec![
        (
            vec!["lidia", "dump", k],
            format!(
                "`{k}` is a ksym blob, not a Lidia file: read it with `symblob ksym` or \
                 `symblob lookup {k}`"
            ),
        ),
        (
            vec!["cif", "decode", k],
            format!(
                "`{k}` is a ksym blob, not a CIF stream: read it with `symblob ksym` or \
                 `symblob lookup {k}`"
            ),
        ),
        (
            vec!["ksym", "info", c],
            format!("`{c}` is a CIF stream, not a ksym blob: read it with `symblob cif decode`"),
        ),
        (
            vec!["lookup", c, "0x1000"],
            format!(
                "`{c}` is a CIF stream, not a ksym blob, a Lidia file, a symbfile, a GSYM \
                 file or a Breakpad file: read it with `symblob cif decode`"
            ),
        ),
    ];
    for (args, message) in cases {
        fails_with(&args, b"", &message);
    }
}

#[test]
fn sizes_and_limits_are_the_users_numbers() {
    let dir = tempfile::tempdir().unwrap();
    let nm = testdata("ksym/input/seed-3.nm");
    let out = dir.path().join("small.ksym");
    let plain = dir.path().join("plain.ksym");
    success(run(
        &["ksym", "build", s(&nm), "-o", s(&plain), "--quiet"],
        b"",
    ));
    let size = fs::metadata(&plain).unwrap().len();
    let one_less = (size - 1).to_string();
    for given in ["16", "0x10", one_less.as_str()] {
        fails_with(
            &["ksym", "build", s(&nm), "-o", s(&out), "--pad-to", given],
            b"",
            &format!(
                "{}: the blob is {size} bytes, more than --pad-to {given}",
                nm.display()
            ),
        );
        assert!(!out.exists());
    }
    let exact = size.to_string();
    success(run(
        &[
            "ksym",
            "build",
            s(&nm),
            "-o",
            s(&out),
            "--pad-to",
            &exact,
            "--quiet",
        ],
        b"",
    ));
}

#[test]
fn a_build_without_symbols_fails_unless_allowed() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("out");
    let nm = testdata("ksym/input/seed-3.nm");
    let stripped = testdata("lidia/elf/gohello-stripped");
    let c_elf = testdata("lidia/elf/simple");
    let allow = "pass --allow-empty to write an empty";
    fails_with(
        &["ksym", "build", "-", "-o", s(&out)],
        b"",
        &format!("<stdin>: no symbols to write: kept types Tt (the kernel's rule for text input; --types to change); 0 undefined; {allow} blob"),
    );
    fails_with(
        &["ksym", "build", s(&nm), "--types", "", "-o", s(&out)],
        b"",
        &format!(
            "{}: no symbols to write: kept no type (--types ''), dropped 3 of other types (3 T); 0 undefined; {allow} blob",
            nm.display()
        ),
    );
    fails_with(
        &["ksym", "build", s(&stripped), "-o", s(&out)],
        b"",
        &format!(
            "{}: no symbols to write: kept every function symbol (STT_FUNC, STT_GNU_IFUNC and untyped symbols in code, any binding); 0 undefined; {allow} blob",
            stripped.display()
        ),
    );
    fails_with(
        &["lidia", "build", s(&c_elf), "--no-symtab", "-o", s(&out)],
        b"",
        &format!(
            "{}: no functions found in its .gopclntab; {allow} Lidia file",
            c_elf.display()
        ),
    );
    assert!(!out.exists());
    // Allowed: the empty file Pyroscope's writer makes for an ELF without functions.
    success(run(
        &[
            "lidia",
            "build",
            s(&c_elf),
            "--no-symtab",
            "--allow-empty",
            "-o",
            s(&out),
            "--quiet",
        ],
        b"",
    ));
    assert_eq!(
        fs::read(&out).unwrap(),
        fs::read(testdata("lidia/lidia/empty.lidia")).unwrap()
    );
    // And an empty ksym blob that the reader opens with zero symbols.
    success(run(
        &[
            "ksym",
            "build",
            "-",
            "--allow-empty",
            "-o",
            s(&out),
            "--quiet",
        ],
        b"",
    ));
    let info = success(run(&["ksym", "info", s(&out)], b""));
    assert!(String::from_utf8(info)
        .unwrap()
        .starts_with("layout           sized\nsymbols          0\n"));
}

#[test]
fn options_without_effect_are_usage_errors() {
    let elf = testdata("lidia/elf/simple");
    for flag in [
        &["--files"][..],
        &["--lines"],
        &["--demangle"],
        &["--debug-file", "x"],
    ] {
        let mut args = vec!["lidia", "build", s(&elf), "-o", "unused.lidia"];
        args.extend_from_slice(flag);
        let o = run(&args, b"");
        assert_eq!(o.status.code(), Some(2), "{args:?}");
        let err = stderr_text(&o);
        assert!(
            err.starts_with(
                "error: the following required arguments were not provided:\n  --dwarf\n"
            ),
            "{err}"
        );
    }
    // (Nothing is written to standard input: the command refuses before reading it.)
    for command in [
        &["lookup", "-"][..],
        &["lidia", "lookup", "-"],
        &["ksym", "lookup", "-"],
    ] {
        fails_with(
            command,
            b"",
            "the file is read from standard input, so the addresses must be arguments",
        );
    }
    let nm = testdata("ksym/input/seed-3.nm");
    fails_with(
        &["ksym", "build", s(&nm), "-o", "-", "--json"],
        b"",
        "--json prints the summary on standard output, which `-o -` already uses",
    );
}

#[test]
fn a_build_prints_one_summary_line_unless_quiet() {
    let dir = tempfile::tempdir().unwrap();
    let elf = testdata("lidia/elf/simple");
    let out = dir.path().join("simple.lidia");
    let o = run(&["lidia", "build", s(&elf), "-o", s(&out)], b"");
    let err = stderr_text(&success_output(o));
    assert_eq!(err.lines().count(), 1, "{err}");
    // The golden file's figures (spec section 18's counting): ranges and bytes.
    let golden = fs::read(testdata("lidia/lidia/simple.none.lidia")).unwrap();
    // The C program's functions all come from its symbol tables.
    let ranges = golden_ranges(&golden);
    let prefix = format!(
        "lidia: read {} (symbol tables: {ranges}), wrote {}: {ranges} ranges, ",
        elf.display(),
        out.display()
    );
    assert!(err.starts_with(&prefix), "{err}");
    assert!(
        err.contains(&format!(", {} bytes (", golden.len())),
        "{err}"
    );
    assert!(err.trim_end().ends_with(" s"), "{err}");
    let o = run(&["lidia", "build", s(&elf), "-o", s(&out), "--quiet"], b"");
    assert_eq!(stderr_text(&success_output(o)), "");
}

/// The number of ranges of a Lidia file, as the reader counts them.
fn golden_ranges(lidia: &[u8]) -> u64 {
    symblob::lidia::LidiaFile::parse(lidia).unwrap().len() as u64
}

fn success_output(o: std::process::Output) -> std::process::Output {
    assert!(o.status.success(), "{}", stderr_text(&o));
    o
}

/// Runs `args` with standard error a pipe whose reader is already gone, and returns the
/// exit status code.
fn status_with_broken_stderr(args: &[&str]) -> Option<i32> {
    let (reader, writer) = std::io::pipe().unwrap();
    drop(reader);
    crate::common::symblob()
        .args(args)
        .stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::null())
        .stderr(writer)
        .status()
        .unwrap()
        .code()
}

/// A reader of standard error that went away loses the messages, not the exit status:
/// no panic (status 101) for an error or a warning.
#[test]
fn a_broken_standard_error_keeps_the_exit_status() {
    assert_eq!(
        status_with_broken_stderr(&["lidia", "dump", "/nonexistent/input"]),
        Some(1)
    );
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("out.lidia");
    // A stripped library has no DWARF: the build warns, then succeeds.
    let elf = testdata("lidia/elf/libdemo-stripped.so");
    assert_eq!(
        status_with_broken_stderr(&["lidia", "build", "--dwarf", s(&elf), "-o", s(&out)]),
        Some(0)
    );
    assert!(out.exists());
}
