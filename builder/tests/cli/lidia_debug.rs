//! `symblob lidia build --dwarf`: separate debug files are checked against the binary,
//! `--dwp` and `--sup` name split DWARF packages and supplementary files, and the
//! library's warnings reach standard error.

use std::path::{Path, PathBuf};
use std::process::Command;

use crate::common::{run, s, testdata, tool};

/// A temporary folder and the path of the Lidia file to build in it.
fn scratch_output() -> (tempfile::TempDir, PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("out.lidia");
    (dir, out)
}

#[test]
fn a_debug_file_of_another_binary_is_an_error_naming_both() {
    let (_dir, out) = scratch_output();
    let binary = testdata("lidia/elf/inl");
    let other = testdata("lidia/elf/simple");
    let debug_file = ["--debug-file", s(&other)];
    let (status, err, _) = build_dwarf(&binary, &out, &debug_file);
    assert_eq!(status, Some(1));
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(err.contains(s(&binary)), "{err}");
    assert!(err.contains(s(&other)), "{err}");
    assert!(err.contains("build ID"), "{err}");
    assert!(!out.exists());

    let forced = [&debug_file[..], &["--debug-file-mismatch-ok"]].concat();
    let (status, err, _) = build_dwarf(&binary, &out, &forced);
    assert_eq!(status, Some(0));
    assert!(err.starts_with("warning: "), "{err}");
    assert!(out.exists());
}

#[test]
fn no_dwarf_is_a_warning() {
    let (_dir, out) = scratch_output();
    // Stripped, with no .gnu_debuglink; its build ID names no installed debug file.
    let stripped = testdata("lidia/elf/libdemo-stripped.so");
    let (status, err, _) = build_dwarf(&stripped, &out, &[]);
    assert_eq!(status, Some(0));
    assert!(err.starts_with("warning: "), "{err}");
    assert!(err.contains("no DWARF"), "{err}");
    assert!(err.contains("libdemo-stripped.so"), "{err}");
}

/// Runs `cmd` in `dir`; true when it succeeded (its stderr is shown otherwise).
pub(crate) fn run_in(dir: &Path, cmd: &mut Command) -> bool {
    let out = cmd.current_dir(dir).output().expect("spawn a build tool");
    if !out.status.success() {
        eprintln!("{cmd:?}: {}", String::from_utf8_lossy(&out.stderr));
    }
    out.status.success()
}

/// Compiles the C test program (with its assembly function) in `dir` as `out`.
pub(crate) fn compile_c(dir: &Path, compiler: &Path, flags: &[&str], out: &str) -> bool {
    let src = |f: &str| testdata(&format!("dwarf/{f}"));
    run_in(
        dir,
        Command::new(compiler)
            .args(["-O2", "-g"])
            .args(flags)
            .args([src("main.c"), src("other.c"), src("asm_double.S")])
            .args(["-o", out]),
    )
}

/// `symblob lidia build --dwarf BIN -o OUT EXTRA…`: (exit status, stderr, output bytes).
fn build_dwarf(bin: &Path, out: &Path, extra: &[&str]) -> (Option<i32>, String, Vec<u8>) {
    let _ = std::fs::remove_file(out);
    let args = [&["lidia", "build", "--dwarf", s(bin), "-o", s(out)], extra].concat();
    let done = run(&args, b"");
    let bytes = std::fs::read(out).unwrap_or_default();
    (
        done.status.code(),
        String::from_utf8(done.stderr).unwrap(),
        bytes,
    )
}

/// `tool(a)` and `tool(b)` (each reported when missing), and a temporary folder to build
/// in.
fn tools_and_folder(a: &str, b: &str) -> Option<(PathBuf, PathBuf, tempfile::TempDir)> {
    let (a, b) = (tool(a), tool(b));
    Some((a?, b?, tempfile::tempdir().unwrap()))
}

/// Builds `bin` three times: without `option` (`[flag, file]`), with it, and without it
/// once `file` is copied to `default`, where the build looks by itself. Each build
/// succeeds, the one with the option without a warning. Returns the standard error of the
/// first build and the three outputs.
fn kept_elsewhere(
    bin: &Path,
    out: &Path,
    option: [&str; 2],
    default: &Path,
) -> (String, [Vec<u8>; 3]) {
    let (status, first_err, without) = build_dwarf(bin, out, &[]);
    assert_eq!(status, Some(0), "{first_err}");
    let (status, err, with) = build_dwarf(bin, out, &option);
    assert_eq!(status, Some(0), "{err}");
    assert!(!err.contains("warning"), "{err}");
    std::fs::copy(option[1], default).unwrap();
    let (status, err, found) = build_dwarf(bin, out, &[]);
    assert_eq!(status, Some(0), "{err}");
    (first_err, [without, with, found])
}

/// `--dwp` names a package that is not at `<ELF>.dwp`: the build reads it, as it reads
/// one at the default place; without it, each split unit is a warning naming its `.dwo`
/// file. A package of another program leaves the units missing; an ELF file that is no
/// package is an error.
#[test]
fn dwp_names_a_package_kept_elsewhere() {
    let Some((clang, dwp, dir)) = tools_and_folder("clang-14", "llvm-dwp-14") else {
        return;
    };
    let d = dir.path();
    let packaged = compile_c(d, &clang, &["-gsplit-dwarf", "-gdwarf-5"], "prog")
        && run_in(d, Command::new(&dwp).args(["-e", "prog", "-o", "kept.dwp"]))
        && compile_c(d, &clang, &["-gdwarf-5"], "plain");
    assert!(packaged, "the split program and its package build");
    for f in ["main.dwo", "other.dwo"] {
        std::fs::remove_file(d.join(f)).unwrap();
    }
    let out = d.join("out.lidia");
    let package = d.join("kept.dwp");

    let (err, [without, with, default]) = kept_elsewhere(
        &d.join("prog"),
        &out,
        ["--dwp", s(&package)],
        &d.join("prog.dwp"),
    );
    for unit in ["main.dwo", "other.dwo"] {
        assert!(
            err.lines()
                .any(|l| l.starts_with("warning: ") && l.contains(&format!("split unit {unit} "))),
            "{err}"
        );
    }
    assert_ne!(with, without, "the package adds the split units' functions");
    assert_eq!(
        with, default,
        "--dwp reads the package as <ELF>.dwp is read"
    );
    std::fs::remove_file(d.join("prog.dwp")).unwrap();

    // A package of other units (the same sources at -O1).
    std::fs::create_dir(d.join("twin")).unwrap();
    let other = compile_c(
        &d.join("twin"),
        &clang,
        &["-gsplit-dwarf", "-gdwarf-5", "-O1"],
        "prog",
    ) && run_in(
        &d.join("twin"),
        Command::new(&dwp).args(["-e", "prog", "-o", "prog.dwp"]),
    );
    assert!(other, "another package builds");
    let foreign = d.join("twin/prog.dwp");
    let (status, err, _) = build_dwarf(&d.join("prog"), &out, &["--dwp", s(&foreign)]);
    assert_eq!(status, Some(0), "{err}");
    assert!(
        err.lines().any(|l| l.contains("split unit main.dwo ")
            && l.contains(&format!("looked for {}", foreign.display()))),
        "{err}"
    );

    let (status, err, _) = build_dwarf(&d.join("prog"), &out, &["--dwp", s(&d.join("plain"))]);
    assert_eq!(status, Some(1), "{err}");
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(err.contains(s(&d.join("plain"))), "{err}");
    assert!(err.contains("not a DWARF package"), "{err}");
    assert!(!out.exists());
}

/// `--sup` names the supplementary file of a `dwz -m` program that is not where its
/// `.gnu_debugaltlink` says: the build reads it as it reads one found there; without it,
/// a warning names where it was looked for. The supplementary file of other programs
/// (another build ID) is an error naming both, read with a warning under
/// `--debug-file-mismatch-ok`.
#[test]
fn sup_names_a_supplementary_file_kept_elsewhere() {
    let Some((gcc, dwz, dir)) = tools_and_folder("gcc", "dwz") else {
        return;
    };
    let d = dir.path();
    let dwz_pair = |sub: &str, version: &str| {
        let w = d.join(sub);
        std::fs::create_dir(&w).unwrap();
        let flag = format!("-gdwarf-{version}");
        compile_c(&w, &gcc, &[&flag], "o2")
            && compile_c(&w, &gcc, &[&flag, "-O1"], "o1")
            && run_in(
                &w,
                Command::new(&dwz).args(["-m", "common.debug", "-r", "o2", "o1"]),
            )
    };
    assert!(
        dwz_pair("a", "5") && dwz_pair("b", "4"),
        "dwz programs build"
    );
    let bin = d.join("a/o2");
    let kept = d.join("kept.debug");
    std::fs::rename(d.join("a/common.debug"), &kept).unwrap();
    let out = d.join("out.lidia");

    let linked = d.join("a/common.debug");
    let (err, [without, with, found]) = kept_elsewhere(&bin, &out, ["--sup", s(&kept)], &linked);
    assert!(
        err.lines().any(|l| l.starts_with("warning: ")
            && l.contains("supplementary debug file not found")
            && l.contains(s(&linked))),
        "{err}"
    );
    assert_ne!(
        with, without,
        "the supplementary file gives the names kept there"
    );
    assert_eq!(
        with, found,
        "--sup reads the file as the linked one is read"
    );

    wrong_sup_is_refused(&bin, &out, &d.join("b/common.debug"), "build ID");
}

/// `--sup wrong` for `bin`: an error naming both and `reason`, nothing written; read with
/// a warning naming `reason` under `--debug-file-mismatch-ok`.
fn wrong_sup_is_refused(bin: &Path, out: &Path, wrong: &Path, reason: &str) {
    let (status, err, _) = build_dwarf(bin, out, &["--sup", s(wrong)]);
    assert_eq!(status, Some(1), "{err}");
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(err.contains(s(wrong)) && err.contains(s(bin)), "{err}");
    assert!(err.contains(reason), "{err}");
    assert!(!out.exists());
    let (status, err, _) = build_dwarf(bin, out, &["--sup", s(wrong), "--debug-file-mismatch-ok"]);
    assert_eq!(status, Some(0), "{err}");
    assert!(
        err.lines()
            .any(|l| l.starts_with("warning: ") && l.contains(s(wrong)) && l.contains(reason)),
        "{err}"
    );
}

/// `dwz --dwarf-5` links by a DWARF 5 `.debug_sup` section: a file name and a checksum
/// that the supplementary file's own `.debug_sup` repeats. The file found there is read;
/// one with another checksum is passed over where the link points (a warning lists where
/// the right one was looked for), and named by `--sup` it is an error, read with a warning
/// under `--debug-file-mismatch-ok`.
#[test]
fn debug_sup_links_are_checked_by_their_checksum() {
    let Some((gcc, dwz, dir)) = tools_and_folder("gcc", "dwz") else {
        return;
    };
    let d = dir.path();
    let dwz_pair = |sub: &str, extra: &[&str]| {
        let w = d.join(sub);
        std::fs::create_dir(&w).unwrap();
        let flags = [&["-gdwarf-5"], extra].concat();
        compile_c(&w, &gcc, &flags, "o2")
            && compile_c(&w, &gcc, &[&flags[..], &["-O1"]].concat(), "o1")
            && run_in(
                &w,
                Command::new(&dwz).args(["--dwarf-5", "-m", "common.debug", "-r", "o2", "o1"]),
            )
    };
    assert!(
        dwz_pair("a", &[]) && dwz_pair("b", &["-fno-inline"]),
        "dwz programs build"
    );
    let bin = d.join("a/o2");
    let program = std::fs::read(&bin).unwrap();
    let has = |name: &[u8]| program.windows(name.len()).any(|w| w == name);
    assert!(
        has(b".debug_sup\0") && !has(b".gnu_debugaltlink\0"),
        "dwz --dwarf-5 links by .debug_sup"
    );
    let out = d.join("out.lidia");
    let (status, err, found) = build_dwarf(&bin, &out, &[]);
    assert_eq!(status, Some(0), "{err}");
    assert!(!err.contains("warning"), "{err}");

    // The other pair's file where the link points is not this program's.
    let linked = d.join("a/common.debug");
    let kept = d.join("kept.debug");
    std::fs::rename(&linked, &kept).unwrap();
    let wrong = d.join("b/common.debug");
    std::fs::copy(&wrong, &linked).unwrap();
    let (status, err, passed_over) = build_dwarf(&bin, &out, &[]);
    assert_eq!(status, Some(0), "{err}");
    assert!(
        err.lines().any(|l| l.starts_with("warning: ")
            && l.contains("supplementary debug file not found")
            && l.contains(s(&linked))),
        "{err}"
    );
    assert_ne!(passed_over, found, "names kept in the supplementary file");

    let (status, err, named) = build_dwarf(&bin, &out, &["--sup", s(&kept)]);
    assert_eq!(status, Some(0), "{err}");
    assert!(!err.contains("warning"), "{err}");
    assert_eq!(
        named, found,
        "--sup reads the file as the linked one is read"
    );

    wrong_sup_is_refused(&bin, &out, &wrong, ".debug_sup checksum");
}
