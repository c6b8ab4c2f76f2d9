//! `symblob ksym build` of ELF files: every function symbol is kept by default (weak
//! functions and ifuncs included), so that lookups answer as `nm` and `addr2line -f` do;
//! given `--types` still decide; the summary names the rule and what it dropped.

use std::collections::{BTreeMap, BTreeSet};
use std::ops::Range;
use std::path::{Path, PathBuf};
use std::process::Command;

use crate::common::{missing_oracle, ok, run, s, stderr_text, tool};

#[path = "../../../tests/support/splitmix.rs"]
mod splitmix;

/// The nm type letters of function symbols (binutils: `i` for an ifunc, else by binding).
const FUNCTION_TYPES: &str = "TtWiu";

/// A function symbol as `nm` lists it.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
struct NmSymbol {
    address: u64,
    kind: char,
    name: String,
}

fn stdout_of(cmd: &mut Command) -> String {
    let out = cmd.output().expect("oracle runs");
    assert!(out.status.success(), "{cmd:?}: {out:?}");
    String::from_utf8_lossy(&out.stdout).into_owned()
}

/// `[start, end)` of every executable section (`readelf -SW`, flag `X`).
fn code_ranges(readelf: &Path, elf: &Path) -> BTreeMap<String, Range<u64>> {
    let text = stdout_of(Command::new(readelf).arg("-SW").arg(elf));
    let mut ranges = BTreeMap::new();
    for line in text.lines() {
        let Some((_, rest)) = line.split_once(']') else {
            continue;
        };
        // name type address offset size entsize [flags] link info align
        let f: Vec<&str> = rest.split_whitespace().collect();
        if f.len() == 10 && f[6].contains('X') {
            let hex = |t: &str| u64::from_str_radix(t, 16).expect("readelf hex");
            let start = hex(f[2]);
            ranges.insert(f[0].to_owned(), start..start + hex(f[4]));
        }
    }
    ranges
}

/// The function symbols `nm` lists in code (its `.symtab`, else with `-D` its `.dynsym`,
/// as the builder reads them).
fn nm_functions(nm: &Path, readelf: &Path, elf: &Path) -> Vec<NmSymbol> {
    let code = code_ranges(readelf, elf);
    let mut text = stdout_of(Command::new(nm).arg("--defined-only").arg(elf));
    let dynamic = text.trim().is_empty();
    if dynamic {
        text = stdout_of(Command::new(nm).args(["-D", "--defined-only"]).arg(elf));
    }
    text.lines()
        .filter_map(|line| {
            let mut f = line.splitn(3, ' ');
            let address = u64::from_str_radix(f.next()?, 16).ok()?;
            let kind = f.next()?.chars().next()?;
            let name = f.next()?;
            // `nm -D` adds the version (`@GLIBC_2.2.5`); in a `.symtab` it is the name's.
            let name = if dynamic {
                name.split('@').next()?
            } else {
                name
            };
            Some(NmSymbol {
                address,
                kind,
                name: name.to_owned(),
            })
        })
        .filter(|sym| FUNCTION_TYPES.contains(sym.kind))
        .filter(|sym| code.values().any(|r| r.contains(&sym.address)))
        .collect()
}

/// Address → the names `nm` gives the functions there.
fn names_by_address(symbols: &[NmSymbol]) -> BTreeMap<u64, BTreeSet<&str>> {
    let mut names: BTreeMap<u64, BTreeSet<&str>> = BTreeMap::new();
    for sym in symbols {
        names.entry(sym.address).or_default().insert(&sym.name);
    }
    names
}

/// Builds `elf` into `blob` with `extra` arguments; returns the summary line.
fn build(elf: &Path, blob: &Path, extra: &[&str]) -> String {
    let mut args = vec!["ksym", "build", s(elf), "-o", s(blob)];
    args.extend_from_slice(extra);
    let out = run(&args, b"");
    ok(&out);
    stderr_text(&out)
}

/// A lookup's answer: the symbol's address and name, `None` for `??`.
type Answer = Option<(u64, String)>;

/// `ksym lookup` of `addrs`.
fn lookups(blob: &Path, addrs: &[u64]) -> Vec<Answer> {
    let stdin: String = addrs.iter().map(|a| format!("{a:#x}\n")).collect();
    let text = ok(&run(&["ksym", "lookup", s(blob)], stdin.as_bytes()));
    let answers: Vec<Answer> = text
        .lines()
        .zip(addrs)
        .map(|(line, &a)| {
            // `0x<addr> name+0xoff/0xsize`
            let (name, rest) = line.split_once(' ')?.1.rsplit_once('+')?;
            let off = rest.split('/').next()?.trim_start_matches("0x");
            Some((a - u64::from_str_radix(off, 16).ok()?, name.to_owned()))
        })
        .collect();
    assert_eq!(answers.len(), addrs.len(), "{text}");
    answers
}

/// `ksym dump` of `blob` as nm symbols.
fn dump(blob: &Path) -> BTreeSet<NmSymbol> {
    ok(&run(&["ksym", "dump", s(blob)], b""))
        .lines()
        .map(|line| {
            let (address, rest) = line.split_once(' ').expect("dump line");
            let (kind, name) = rest.split_once(' ').expect("dump line");
            NmSymbol {
                address: u64::from_str_radix(address, 16).expect("dump address"),
                kind: kind.chars().next().expect("type"),
                name: name.to_owned(),
            }
        })
        .collect()
}

/// A C program with a weak function and an ifunc, built by `gcc` into `dir`.
fn weak_and_ifunc_program(dir: &Path) -> Option<PathBuf> {
    let gcc = tool("gcc")?;
    let src = dir.join("prog.c");
    std::fs::write(
        &src,
        "__attribute__((noinline, weak)) int weak_fn(int x) { return x + 1; }\n\
         static int twice(int x) { return 2 * x; }\n\
         static int (*pick_twice(void))(int) { return twice; }\n\
         int ifunc_fn(int x) __attribute__((ifunc(\"pick_twice\")));\n\
         __attribute__((noinline)) int global_fn(int x) { return weak_fn(x) + ifunc_fn(x); }\n\
         int main(int argc, char **argv) { (void)argv; return global_fn(argc); }\n",
    )
    .unwrap();
    let exe = dir.join("prog");
    let status = Command::new(gcc)
        .args(["-O1", "-o"])
        .arg(&exe)
        .arg(&src)
        .status()
        .expect("gcc runs");
    assert!(status.success(), "gcc builds the weak/ifunc program");
    Some(exe)
}

/// The oracles of these tests: `nm` and `readelf`.
fn nm_and_readelf() -> Option<(PathBuf, PathBuf)> {
    Some((tool("nm")?, tool("readelf")?))
}

#[test]
fn ksym_build_of_an_elf_keeps_weak_functions_and_ifuncs_as_nm_types_them() {
    let Some((nm, readelf)) = nm_and_readelf() else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let Some(exe) = weak_and_ifunc_program(dir.path()) else {
        return;
    };
    let functions = nm_functions(&nm, &readelf, &exe);
    for kind in ['W', 'i'] {
        assert!(
            functions.iter().any(|f| f.kind == kind),
            "nm lists a function of type {kind}: {functions:?}"
        );
    }
    let blob = dir.path().join("prog.ksym");
    build(&exe, &blob, &[]);
    let want: BTreeSet<NmSymbol> = functions.iter().cloned().collect();
    assert_eq!(dump(&blob), want, "the blob holds nm's function symbols");

    // Each function's address is answered with one of the names nm gives it.
    let addrs: Vec<u64> = functions.iter().map(|f| f.address).collect();
    assert_answers_are_nm_s("prog", &functions, &addrs, &lookups(&blob, &addrs));

    // Given types decide for ELF input too: `Tt` is the kernel's rule.
    build(&exe, &blob, &["--types", "Tt"]);
    let tt: BTreeSet<NmSymbol> = want.into_iter().filter(|f| "Tt".contains(f.kind)).collect();
    assert_eq!(dump(&blob), tt);
}

#[test]
fn ksym_build_summary_names_the_rule_and_what_it_dropped() {
    let Some((nm, readelf)) = nm_and_readelf() else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let Some(exe) = weak_and_ifunc_program(dir.path()) else {
        return;
    };
    let functions = nm_functions(&nm, &readelf, &exe);
    let count = |kind: char| functions.iter().filter(|f| f.kind == kind).count();
    let blob = dir.path().join("prog.ksym");

    let summary = build(&exe, &blob, &[]);
    assert!(
        summary.contains(&format!("wrote {}: {} symbols", s(&blob), functions.len()))
            && summary.contains("; kept every function symbol (STT_FUNC, STT_GNU_IFUNC")
            && !summary.contains("dropped"),
        "{summary}"
    );
    let summary = build(&exe, &blob, &["--types", "Tt"]);
    let dropped = format!(
        "; kept types Tt (--types), dropped {} of other types ({} W, {} i)",
        count('W') + count('i'),
        count('W'),
        count('i')
    );
    assert!(summary.contains(&dropped), "{summary}\nwanted: {dropped}");
}

/// Asserts that every answer is the function `nm` places at or before its address: the
/// greatest function address at or below it, and one of the names nm gives that address.
fn assert_answers_are_nm_s(what: &str, functions: &[NmSymbol], addrs: &[u64], answers: &[Answer]) {
    let names = names_by_address(functions);
    let is_nm_s = |a: u64, got: &Answer| {
        let want = names.range(..=a).next_back();
        got.as_ref()
            .zip(want)
            .is_some_and(|((at, name), (wat, wnames))| at == wat && wnames.contains(name.as_str()))
    };
    let bad: Vec<String> = addrs
        .iter()
        .zip(answers)
        .filter(|(&a, got)| !is_nm_s(a, got))
        .map(|(a, got)| format!("{a:#x}: ksym {got:?}"))
        .collect();
    assert!(
        bad.is_empty(),
        "{what}: answers that are not nm's:\n{}",
        bad.join("\n")
    );
}

/// The C library at 300 sampled addresses of its `.text` and at 0x9a000 (the README's
/// example, in `malloc_stats`, a weak function):
/// * built from the library itself (`.dynsym`), every answer is the function `nm -D`
///   places there;
/// * built from the `.symtab` of its debug file (found by build ID, DWARF stripped),
///   every answer is the function `addr2line -f` names. One class of difference: several
///   symbols at one address (`malloc_stats` and `__malloc_stats`, `__GI_` aliases), where
///   addr2line takes the first in the table and ksym the one with the fewest leading
///   underscores: both are names nm gives that address.
#[test]
fn ksym_build_of_libc_answers_as_nm_and_addr2line() {
    let libc = Path::new("/lib/x86_64-linux-gnu/libc.so.6");
    if !libc.is_file() {
        missing_oracle("the C library at /lib/x86_64-linux-gnu/libc.so.6");
        return;
    }
    let Some((nm, readelf)) = nm_and_readelf() else {
        return;
    };
    let text = code_ranges(&readelf, libc)[".text"].clone();
    let mut rng = splitmix::Rng::new(0x9a000);
    let mut addrs: Vec<u64> = (0..300)
        .map(|_| text.start + rng.below(text.end - text.start))
        .collect();
    addrs.push(0x9a000);
    let dir = tempfile::tempdir().unwrap();
    let blob = dir.path().join("libc.ksym");
    build(libc, &blob, &[]);
    let functions = nm_functions(&nm, &readelf, libc);
    assert_answers_are_nm_s("libc.so.6", &functions, &addrs, &lookups(&blob, &addrs));

    let Some(debug) = debug_file(&readelf, libc) else {
        return;
    };
    let (Some(objcopy), Some(addr2line)) = (tool("objcopy"), tool("addr2line")) else {
        return;
    };
    // Without DWARF addr2line names a function by the symbol table, as ksym does (with
    // it, it names the innermost inlined function); without the build ID it cannot find
    // the debug file's DWARF again.
    let symtab_only = dir.path().join("libc.symtab");
    let status = Command::new(objcopy)
        .args(["--strip-debug", "--remove-section=.note.gnu.build-id"])
        .arg(&debug)
        .arg(&symtab_only)
        .status()
        .expect("objcopy runs");
    assert!(status.success(), "objcopy strips the debug file");
    let debug = symtab_only;
    build(&debug, &blob, &[]);
    let answers = lookups(&blob, &addrs);
    let functions = nm_functions(&nm, &readelf, &debug);
    assert_answers_are_nm_s("its debug file", &functions, &addrs, &answers);
    let oracle = stdout_of(
        Command::new(addr2line)
            .env("DEBUGINFOD_URLS", "")
            .arg("-f")
            .arg("-e")
            .arg(&debug)
            .args(addrs.iter().map(|a| format!("{a:#x}"))),
    );
    let oracle_names: Vec<&str> = oracle.lines().step_by(2).collect();
    assert_eq!(oracle_names.len(), addrs.len(), "{oracle}");
    let names = names_by_address(&functions);
    let mut aliases = 0;
    let mut bad = Vec::new();
    for ((a, got), want) in addrs.iter().zip(&answers).zip(&oracle_names) {
        match got {
            Some((_, name)) if name == want => {}
            Some((at, _)) if names.get(at).is_some_and(|n| n.contains(want)) => aliases += 1,
            _ => bad.push(format!("{a:#x}: ksym {got:?}, addr2line {want}")),
        }
    }
    eprintln!(
        "libc: {} addresses, {aliases} answered with another alias, {} differ",
        addrs.len(),
        bad.len()
    );
    assert!(bad.is_empty(), "{}", bad.join("\n"));
}

/// The debug file of `elf` where `addr2line` finds it by build ID, or `None` after
/// [`missing_oracle`].
fn debug_file(readelf: &Path, elf: &Path) -> Option<PathBuf> {
    let notes = stdout_of(Command::new(readelf).arg("-n").arg(elf));
    let id = notes
        .lines()
        .find_map(|l| l.trim().strip_prefix("Build ID: "))
        .filter(|id| id.len() > 2);
    let path = id.map(|id| {
        PathBuf::from(format!(
            "/usr/lib/debug/.build-id/{}/{}.debug",
            &id[..2],
            &id[2..]
        ))
    });
    let found = path.filter(|p| p.is_file());
    if found.is_none() {
        missing_oracle(&format!("the debug file of {} (libc6-dbg)", elf.display()));
    }
    found
}
