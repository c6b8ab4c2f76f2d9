//! SuperSize's names come from `llvm-cxxfilt`; symblob follows `llvm-cxxfilt-14`'s
//! spelling with `cpp_demangle` and `rustc-demangle`. Checked here against the tool on
//! every Rust v0 name of the Chromium golden's Rust program (all equal) and on the
//! exported C++ names of `libLLVM-14.so.1` (98.6 % equal; what differs is what
//! `cpp_demangle` loses or spells otherwise: the `&&`/`&` of pack elements, a space in
//! function types, `R (Args)` — see `docs/formats/supersize.md` §9).

use std::io::Write;
use std::path::Path;
use std::process::{Command, Stdio};

use symblob_build::demangle::supersize::demangle;

use crate::common::{missing_oracle, shared_testdata, tool};

/// The distinct defined symbol names of `elf` (`-D`: the dynamic table) starting `prefix`.
fn names(elf: &Path, dynamic: bool, prefix: &str) -> Option<Vec<String>> {
    let mut cmd = Command::new(tool("nm")?);
    cmd.args(["--defined-only", "--no-sort"]);
    if dynamic {
        cmd.arg("-D");
    }
    let out = cmd.arg(elf).output().expect("run nm");
    assert!(out.status.success(), "nm failed on {}", elf.display());
    let mut names: Vec<String> = String::from_utf8(out.stdout)
        .unwrap()
        .lines()
        .filter_map(|l| l.splitn(3, ' ').nth(2))
        .map(|n| n.split('@').next().unwrap().to_string())
        .filter(|n| n.starts_with(prefix))
        .collect();
    names.sort();
    names.dedup();
    Some(names)
}

/// `llvm-cxxfilt-14`'s line for each name.
fn cxxfilt(names: &[String]) -> Option<Vec<String>> {
    let mut child = Command::new(tool("llvm-cxxfilt-14")?)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .expect("run llvm-cxxfilt-14");
    let input = names.join("\n") + "\n";
    let mut stdin = child.stdin.take().unwrap();
    let writer = std::thread::spawn(move || stdin.write_all(input.as_bytes()).unwrap());
    let out = child.wait_with_output().unwrap();
    writer.join().unwrap();
    let lines: Vec<String> = String::from_utf8(out.stdout)
        .unwrap()
        .lines()
        // llvm-cxxfilt writes a trailing space after some names.
        .map(|l| l.trim_end().to_string())
        .collect();
    assert_eq!(lines.len(), names.len());
    Some(lines)
}

/// A name whose demangling differs: (mangled, llvm-cxxfilt-14's, ours).
type Difference = (String, String, String);

/// `(names, those whose demangling differs from llvm-cxxfilt-14)`.
fn compare(names: &[String]) -> Option<(usize, Vec<Difference>)> {
    let want = cxxfilt(names)?;
    let differ = names
        .iter()
        .zip(want)
        .filter_map(|(n, w)| {
            let got = demangle(n, true);
            (got != w).then(|| (n.clone(), w, got))
        })
        .collect();
    Some((names.len(), differ))
}

#[test]
fn size_rust_v0_names_are_llvm_cxxfilts() {
    let Some(dir) = shared_testdata("supersize/chromium-archive") else {
        return;
    };
    let Some(names) = names(&dir.join("rsdemo.bin"), false, "_R") else {
        return;
    };
    assert!(names.len() > 500, "only {} v0 names", names.len());
    let Some((_, differ)) = compare(&names) else {
        return;
    };
    assert!(differ.is_empty(), "{differ:#?}");
}

#[test]
fn size_cpp_names_are_nearly_all_llvm_cxxfilts() {
    let Some(config) = tool("llvm-config-14") else {
        return;
    };
    let libdir = Command::new(config).arg("--libdir").output().unwrap();
    let lib = Path::new(String::from_utf8(libdir.stdout).unwrap().trim()).join("libLLVM-14.so.1");
    if !lib.is_file() {
        missing_oracle(&format!("{} (package llvm-14)", lib.display()));
        return;
    }
    let Some(names) = names(&lib, true, "_Z") else {
        return;
    };
    let Some((total, differ)) = compare(&names) else {
        return;
    };
    for (raw, want, got) in differ.iter().take(20) {
        eprintln!("{raw}\n  llvm-cxxfilt-14: {want}\n  ours:            {got}");
    }
    let share = 1.0 - differ.len() as f64 / total as f64;
    eprintln!(
        "{} of {total} C++ names as llvm-cxxfilt-14 writes them ({:.2} %)",
        total - differ.len(),
        share * 100.0
    );
    assert!(total > 30_000, "only {total} C++ names");
    assert!(share >= 0.98, "{} names differ", differ.len());
}
