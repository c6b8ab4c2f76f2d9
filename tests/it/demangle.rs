//! The builders' demangling policy against binutils: every distinct C++ name exported by
//! `libLLVM-14.so.1` (the `llvm-14` package) demangled by us and by `nm -C`.

use std::collections::BTreeMap;
use std::path::Path;
use std::process::Command;

use symblob_build::demangle::demangle;

use crate::common::{missing_oracle, tool};

/// `nm [-D] --defined-only --no-sort [-C] lib`: (type, name) of every symbol, in symbol
/// table order, from the dynamic or the full symbol table.
fn nm_symbols(nm: &Path, lib: &Path, dynamic: bool, demangled: bool) -> Vec<(char, String)> {
    let mut cmd = Command::new(nm);
    cmd.args(["--defined-only", "--no-sort"]);
    if dynamic {
        cmd.arg("-D");
    }
    if demangled {
        cmd.arg("-C");
    }
    let out = cmd.arg(lib).output().expect("run nm");
    assert!(out.status.success(), "nm failed on {}", lib.display());
    String::from_utf8(out.stdout)
        .expect("nm prints UTF-8")
        .lines()
        // `ADDRESS TYPE NAME`; the name may contain spaces once demangled.
        .map(|line| {
            let mut fields = line.splitn(3, ' ').skip(1);
            let kind = fields.next().and_then(|t| t.chars().next()).unwrap_or(' ');
            (kind, fields.next().unwrap_or_default().to_owned())
        })
        .collect()
}

/// Mangled name → `nm -C`'s demangling, for the `_Z` names of `lib`. Dynamic symbols carry
/// their version (`name@@LLVM_14`) in both listings; it is cut off both.
fn cpp_names(nm: &Path, lib: &Path) -> BTreeMap<String, String> {
    let raw = nm_symbols(nm, lib, true, false);
    let demangled = nm_symbols(nm, lib, true, true);
    assert_eq!(
        raw.len(),
        demangled.len(),
        "both listings have every symbol"
    );
    raw.into_iter()
        .zip(demangled)
        .map(|((_, r), (_, d))| (r, d))
        .filter(|(r, _)| r.starts_with("_Z"))
        .map(|(r, d)| match r.find('@') {
            Some(at) => {
                let version = &r[at..];
                let d = d.strip_suffix(version).expect("same version suffix");
                (r[..at].to_owned(), d.to_owned())
            }
            None => (r, d),
        })
        .collect()
}

#[test]
fn cpp_names_of_libllvm_equal_nm_c() {
    let (Some(nm), Some(config)) = (tool("nm"), tool("llvm-config-14")) else {
        return;
    };
    let libdir = Command::new(config)
        .arg("--libdir")
        .output()
        .expect("run llvm-config-14");
    let libdir = String::from_utf8(libdir.stdout).expect("UTF-8 path");
    let lib = Path::new(libdir.trim()).join("libLLVM-14.so.1");
    if !lib.is_file() {
        missing_oracle(&format!("{} (package llvm-14)", lib.display()));
        return;
    }
    let names = cpp_names(&nm, &lib);
    assert!(names.len() > 30_000, "only {} C++ names", names.len());
    let differ: Vec<_> = names
        .iter()
        .filter_map(|(raw, want)| {
            // nm prints a name it cannot demangle as it is.
            let got = demangle(raw, None).unwrap_or_else(|| raw.clone());
            (&got != want).then_some((raw, want, got))
        })
        .collect();
    for (raw, want, got) in &differ {
        eprintln!("{raw}\n  nm -C: {want}\n  ours:  {got}");
    }
    let equal = names.len() - differ.len();
    let share = equal as f64 / names.len() as f64;
    eprintln!(
        "{equal} of {} distinct C++ names equal nm -C ({:.3} %)",
        names.len(),
        share * 100.0
    );
    assert!(
        share >= 0.999,
        "{} names differ from nm -C (libiberty linked: {})",
        differ.len(),
        symblob_build::demangle::GNU_COMPATIBLE
    );
}

/// What no fully demangled Rust name contains: the legacy escapes (`$LT$`, `$u20$`, `..`
/// for `::`), a hash element (`17h…E`) or a `::h<hash>` suffix, or a mangled prefix.
fn partly_mangled(name: &str) -> bool {
    let hash_suffix = name.match_indices("::h").any(|(at, _)| {
        let hex = name.get(at + 3..at + 19).unwrap_or_default();
        hex.len() == 16 && hex.bytes().all(|b| b.is_ascii_hexdigit())
    });
    ["$LT$", "$GT$", "$u20$", "$RF$", "..", "17h"]
        .iter()
        .any(|bad| name.contains(bad))
        || name.starts_with("_ZN")
        || name.starts_with("_R")
        || hash_suffix
}

/// `nm -C`'s Rust demangling (libiberty's, which keeps the hash) without the
/// `::h<16 hex digits>` element: what rustc-demangle's alternate form documents.
fn without_hash(nm_c: &str) -> String {
    let mut out = nm_c.to_owned();
    if let Some(at) = out.rfind("::h") {
        let hex = out.get(at + 3..at + 19).unwrap_or_default();
        if hex.len() == 16 && hex.bytes().all(|b| b.is_ascii_hexdigit()) {
            out.replace_range(at..at + 19, "");
        }
    }
    out
}

/// Every Rust function symbol of a real Rust program (this test binary: std, the builder,
/// their generics) comes out whole: nothing of the mangling left, and equal to binutils'
/// demangling without the hash.
#[test]
fn rust_names_of_a_real_binary_are_fully_demangled() {
    let Some(nm) = tool("nm") else {
        return;
    };
    let exe = std::env::current_exe().expect("test binary path");
    let raw = nm_symbols(&nm, &exe, false, false);
    let nm_c = nm_symbols(&nm, &exe, false, true);
    assert_eq!(raw.len(), nm_c.len());
    let mut rust = BTreeMap::new();
    for ((kind, r), (_, d)) in raw.into_iter().zip(nm_c) {
        let text = matches!(kind, 'T' | 't' | 'W' | 'w');
        if text && (r.starts_with("_R") || symblob_build::demangle::is_legacy_rust(&r)) {
            rust.insert(r, d);
        }
    }
    let escaped = rust.keys().filter(|r| r.contains("$LT$")).count();
    assert!(
        rust.len() > 10_000 && escaped > 1_000,
        "{} Rust names, {escaped} with escapes",
        rust.len()
    );
    let mut partly = Vec::new();
    let mut differ = Vec::new();
    for (raw, nm_c) in &rust {
        let ours = demangle(raw, None).unwrap_or_else(|| raw.clone());
        if partly_mangled(&ours) {
            partly.push((raw, ours));
        } else if ours != without_hash(nm_c) {
            differ.push((raw, nm_c, ours));
        }
    }
    for (raw, ours) in &partly {
        eprintln!("partly mangled: {raw} -> {ours}");
    }
    for (raw, nm_c, ours) in &differ {
        eprintln!("{raw}\n  nm -C: {nm_c}\n  ours:  {ours}");
    }
    eprintln!(
        "{} Rust names: {} partly mangled, {} differ from nm -C",
        rust.len(),
        partly.len(),
        differ.len()
    );
    assert!(partly.is_empty() && differ.is_empty());
}
