//! `STACK CFI` records from `.eh_frame` and `.debug_frame` against Mozilla's
//! `dump_syms` 2.3.9 (`SYMBLOB_CARGO_ORACLES`): the C, C++, Rust and Go test programs,
//! AArch64, programs whose own code has only `.debug_frame`, i386 and 32-bit ARM, the
//! system's C and C++ libraries of x86-64 and AArch64, compressed sections, copies
//! relabelled as other machines (each family's register names), and damaged sections.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::OnceLock;

use object::{Object, ObjectSection};
use symblob_build::cfi;

use crate::common::{missing_oracle, run_scratch_dir, testdata};
use crate::lidia_dwarf::fixtures::fixtures;

/// The `STACK CFI` lines dump_syms writes for `elf`, or `None` after `missing_oracle`.
fn oracle_lines(elf: &Path) -> Option<Vec<String>> {
    let text = super::writer::dump_syms(elf)?;
    Some(
        text.lines()
            .filter(|l| l.starts_with("STACK CFI"))
            .map(str::to_owned)
            .collect(),
    )
}

/// Our lines for `elf`.
fn our_lines(elf: &Path) -> Vec<String> {
    let bytes = std::fs::read(elf).expect("read fixture");
    let records = cfi::from_elf(&bytes, &elf.display().to_string()).expect("from_elf");
    let mut text = String::new();
    symblob_build::breakpad::writer::write_cfi(&mut text, &records, super::load_address(&bytes));
    text.lines().map(str::to_owned).collect()
}

/// The rules in force at each line's address: an INIT line starts a new set, a row
/// changes the rules it names. Keyed by address and occurrence (an address can have
/// records from both sections).
type States = BTreeMap<(u64, usize), BTreeMap<String, String>>;

fn states(lines: &[String]) -> (States, Vec<(u64, u64)>) {
    let mut out = States::new();
    let mut inits = Vec::new();
    let mut current = BTreeMap::new();
    let mut seen: BTreeMap<u64, usize> = BTreeMap::new();
    for line in lines {
        let rest = line.strip_prefix("STACK CFI ").expect("STACK CFI line");
        let (addr, rules) = if let Some(init) = rest.strip_prefix("INIT ") {
            let mut it = init.splitn(3, ' ');
            let addr = u64::from_str_radix(it.next().unwrap(), 16).unwrap();
            let size = u64::from_str_radix(it.next().unwrap(), 16).unwrap();
            inits.push((addr, size));
            current = BTreeMap::new();
            (addr, it.next().unwrap_or(""))
        } else {
            let (addr, rules) = rest.split_once(' ').unwrap();
            (u64::from_str_radix(addr, 16).unwrap(), rules)
        };
        let mut name: Option<String> = None;
        for token in rules.split(' ') {
            if let Some(n) = token.strip_suffix(':') {
                current.insert(n.to_owned(), String::new());
                name = Some(n.to_owned());
            } else if let Some(n) = &name {
                let expr = current.get_mut(n).unwrap();
                if !expr.is_empty() {
                    expr.push(' ');
                }
                expr.push_str(token);
            }
        }
        let n = seen.entry(addr).or_default();
        out.insert((addr, *n), current.clone());
        *n += 1;
    }
    inits.sort_unstable();
    (out, inits)
}

/// Agreement of our lines with dump_syms's: identical lines (in order), equal rule sets
/// per address; prints the figures and the first differences; returns the text
/// differences `(ours, theirs)` for the caller to classify.
fn compare(name: &str, elf: &Path) -> Option<Vec<(String, String)>> {
    let theirs = oracle_lines(elf)?;
    let ours = our_lines(elf);
    let identical = ours.iter().zip(&theirs).filter(|(a, b)| a == b).count();
    let (our_states, our_inits) = states(&ours);
    let (their_states, their_inits) = states(&theirs);
    let equal = their_states
        .iter()
        .filter(|(k, v)| our_states.get(k) == Some(v))
        .count();
    eprintln!(
        "{name}: {} lines from dump_syms, {} ours, {identical} identical in place; {equal} of \
         {} addresses with equal rules; {} INIT records",
        theirs.len(),
        ours.len(),
        their_states.len(),
        their_inits.len()
    );
    assert!(!theirs.is_empty(), "{name}: dump_syms wrote no STACK CFI");
    assert_eq!(our_inits, their_inits, "{name}: INIT (address, size) sets");
    assert!(
        equal * 1000 >= their_states.len() * 995 && our_states.len() == their_states.len(),
        "{name}: {equal} of {} addresses agree",
        their_states.len()
    );
    let diffs: Vec<(String, String)> = ours
        .iter()
        .zip(&theirs)
        .filter(|(a, b)| a != b)
        .map(|(a, b)| (a.clone(), b.clone()))
        .collect();
    for (a, b) in diffs.iter().take(5) {
        eprintln!("  ours:   {a}\n  theirs: {b}");
    }
    assert_eq!(ours.len(), theirs.len(), "{name}: line counts");
    Some(diffs)
}

/// Fixtures whose lines must be identical to dump_syms's, line by line.
fn identical(name: &str, elf: &Path) {
    if let Some(diffs) = compare(name, elf) {
        assert!(diffs.is_empty(), "{name}: {} lines differ", diffs.len());
    }
}

#[test]
fn shared_fixtures_match_dump_syms() {
    for name in [
        "c-dwarf5",
        "c-clang",
        "cpp-gxx",
        "rust",
        "go",
        "go-1.27",
        "c-aarch64",
    ] {
        if let Some(elf) = fixtures().get(name) {
            identical(name, elf);
        }
    }
}

#[test]
fn compressed_and_debug_files_match_dump_syms() {
    // A debug file's `.eh_frame` is SHT_NOBITS: dump_syms writes nothing for it, and
    // neither do we (the oracle check would fail on no lines, so compare directly).
    if let Some(debug) = fixtures().get("c-stripped.debug") {
        if let Some(theirs) = oracle_lines(debug) {
            assert_eq!(our_lines(debug), theirs, "c-stripped.debug");
        }
    }
    for name in ["c-stripped", "c-objcopy-zstd"] {
        if let Some(elf) = fixtures().get(name) {
            identical(name, elf);
        }
    }
    for (name, elf) in own_programs() {
        if name.contains("debug-frame") {
            for method in ["zlib", "zstd", "zlib-gnu"] {
                let out = elf.with_extension(format!("z-{method}"));
                let objcopy = if name.starts_with("aarch64") {
                    "aarch64-linux-gnu-objcopy"
                } else {
                    "objcopy"
                };
                let ok = Command::new(objcopy)
                    .arg(format!("--compress-debug-sections={method}"))
                    .arg(elf)
                    .arg(&out)
                    .status()
                    .is_ok_and(|s| s.success());
                if ok {
                    identical(&format!("{name} ({method})"), &out);
                } else {
                    missing_oracle(&format!("objcopy --compress-debug-sections={method}"));
                }
            }
        }
    }
}

/// A C file without includes, for targets without a C library here: a leaf, a function
/// with a big frame, one with floating point, and an entry point.
const FREESTANDING_C: &str = "\
struct big { int v[32]; };
__attribute__((noinline)) int leaf(int *p, int n) { int s = 0; for (int i = 0; i < n; i++) s += p[i] * i; return s; }
__attribute__((noinline)) int mid(int n) { struct big b; for (int i = 0; i < 32; i++) b.v[i] = i ^ n; return leaf(b.v, n & 31) + leaf(b.v, 3); }
__attribute__((noinline)) double fp(double a, int n) { double r = a; for (int i = 0; i < n; i++) r = r * 1.5 + mid(i); return r; }
int entry(void) { return (int)fp(2.0, mid(7)); }
";

/// The test programs this file compiles itself, by name:
/// * `*-debug-frame`: C whose own code has `.debug_frame` only (no asynchronous unwind
///   tables), for x86-64 (gcc, clang) and AArch64;
/// * `i386`, `i386-debug-frame`: 32-bit x86, static and without a C library;
/// * `arm.o`, `thumb.o`: 32-bit ARM objects (clang's `.debug_frame`; no ARM linker here),
///   the second with the Thumb frame pointer `r7`;
/// * `aarch64-pac`: AArch64 with return-address signing (`DW_CFA_AARCH64_negate_ra_state`,
///   an instruction gimli does not know without the AArch64 vendor, which ends the table).
fn own_programs() -> &'static [(&'static str, PathBuf)] {
    static CELL: OnceLock<Vec<(&'static str, PathBuf)>> = OnceLock::new();
    CELL.get_or_init(|| {
        let dir = run_scratch_dir("breakpad-cfi");
        let free = dir.join("freestanding.c");
        std::fs::write(&free, FREESTANDING_C).unwrap();
        let program = [testdata("dwarf/other.c"), testdata("dwarf/main.c")];
        let no_eh = "-fno-asynchronous-unwind-tables -fno-unwind-tables";
        let static_free = "-nostdlib -static -Wl,-e,entry";
        let builds: [(&str, &str, String, Vec<PathBuf>); 8] = [
            (
                "x86_64-debug-frame",
                "gcc",
                format!("-O2 -g {no_eh}"),
                vec![testdata("dwarf/asm_double.S")],
            ),
            (
                "x86_64-clang-debug-frame",
                "clang-14",
                format!("-O2 -g {no_eh}"),
                vec![testdata("dwarf/asm_double.S")],
            ),
            (
                "aarch64-debug-frame",
                "aarch64-linux-gnu-gcc",
                format!("-O2 -g {no_eh}"),
                vec![testdata("dwarf/asm_double_aarch64.S")],
            ),
            (
                "aarch64-pac",
                "aarch64-linux-gnu-gcc",
                format!("-O2 -g -mbranch-protection=standard {static_free}"),
                vec![free.clone()],
            ),
            (
                "i386",
                "gcc",
                format!("-m32 -O2 -g -fno-pic {static_free}"),
                vec![free.clone()],
            ),
            (
                "i386-debug-frame",
                "gcc",
                format!("-m32 -O2 -g -fno-pic {no_eh} {static_free}"),
                vec![free.clone()],
            ),
            (
                "arm.o",
                "clang-14",
                "--target=armv7a-linux-gnueabihf -O2 -g -c".into(),
                vec![free.clone()],
            ),
            (
                "thumb.o",
                "clang-14",
                "--target=armv7a-linux-gnueabihf -mthumb -fno-omit-frame-pointer -O2 -g -c".into(),
                vec![free.clone()],
            ),
        ];
        let mut out = Vec::new();
        for (name, cc, flags, extra) in builds {
            let bin = dir.join(name);
            // The C program's own sources for the `*-debug-frame` programs of a libc.
            let sources: &[PathBuf] = if extra.first() == Some(&free) {
                &[]
            } else {
                &program
            };
            let ok = Command::new(cc)
                .args(flags.split(' '))
                .args(sources)
                .args(&extra)
                .arg("-o")
                .arg(&bin)
                .output()
                .is_ok_and(|o| o.status.success());
            if ok {
                out.push((name, bin));
            } else {
                eprintln!("could not build {name} with {cc}");
            }
        }
        out
    })
}

#[test]
fn own_programs_match_dump_syms() {
    let programs = own_programs();
    let names = [
        "x86_64-debug-frame",
        "x86_64-clang-debug-frame",
        "aarch64-debug-frame",
        "aarch64-pac",
        "i386",
        "i386-debug-frame",
        "arm.o",
        "thumb.o",
    ];
    for wanted in names {
        let Some((name, elf)) = programs.iter().find(|(n, _)| *n == wanted) else {
            missing_oracle(&format!("test program {wanted} (its compiler)"));
            continue;
        };
        if name.contains("debug-frame") || name.ends_with(".o") {
            let bytes = std::fs::read(elf).unwrap();
            let file = object::File::parse(&*bytes).unwrap();
            let size = file.section_by_name(".debug_frame").map_or(0, |s| s.size());
            assert!(size > 0, "{name} has a .debug_frame");
        }
        identical(name, elf);
    }
}

/// A copy of `elf` whose `e_machine` says `machine`: the same unwind tables read with
/// another family's register names, to check each family's table against dump_syms.
fn relabelled(elf: &Path, machine: u16, tag: &str) -> PathBuf {
    let mut bytes = std::fs::read(elf).unwrap();
    // e_machine is at offset 18 in both classes; the fixtures are little-endian.
    bytes[18..20].copy_from_slice(&machine.to_le_bytes());
    let out = run_scratch_dir("breakpad-cfi").join(format!("relabelled-{tag}"));
    std::fs::write(&out, bytes).unwrap();
    out
}

#[test]
fn register_names_of_every_family_match_dump_syms() {
    // EM_386, EM_ARM, EM_AARCH64, EM_PPC, EM_PPC64, EM_MIPS, and EM_RISCV (a machine
    // dump_syms has no names for: only return-address rules are written).
    let machines = [
        (3u16, "i386"),
        (40, "arm"),
        (183, "aarch64"),
        (20, "ppc"),
        (21, "ppc64"),
        (8, "mips"),
        (243, "riscv"),
    ];
    let Some(elf) = fixtures().get("c-dwarf5") else {
        return;
    };
    for (machine, tag) in machines {
        identical(
            &format!("c-dwarf5 as {tag}"),
            &relabelled(elf, machine, tag),
        );
    }
    if let Some(elf) = fixtures().get("c-aarch64") {
        identical("c-aarch64 as arm", &relabelled(elf, 40, "a64-arm"));
    }
}

/// The `.eh_frame` section of `bytes`: file offset and size.
fn eh_frame(bytes: &[u8]) -> (usize, usize) {
    let file = object::File::parse(bytes).unwrap();
    let (off, size) = file
        .section_by_name(".eh_frame")
        .and_then(|s| s.file_range())
        .unwrap();
    (off as usize, size as usize)
}

#[test]
fn damaged_eh_frame_is_an_error_naming_section_and_offset() {
    let Some(elf) = fixtures().get("c-dwarf5") else {
        return;
    };
    let good = std::fs::read(elf).unwrap();
    let (off, size) = eh_frame(&good);
    // The first entry is a CIE (length, CIE id 0, version 1): version 99 is unknown.
    let mut bad = good.clone();
    assert_eq!(
        &bad[off + 4..off + 8],
        &[0, 0, 0, 0],
        "first entry is a CIE"
    );
    bad[off + 8] = 99;
    let e = cfi::from_elf(&bad, "damaged").unwrap_err();
    assert_eq!(e.kind(), symblob_build::ErrorKind::Malformed);
    assert_eq!(e.section(), Some(".eh_frame"));
    assert_eq!(e.location(), symblob_build::Location::Offset(0));
    assert_eq!(e.input(), Some(Path::new("damaged")));

    // The second entry's length running past the section's end: truncated.
    let first_len = u32::from_le_bytes(good[off..off + 4].try_into().unwrap()) as usize;
    let second = 4 + first_len;
    let mut bad = good.clone();
    bad[off + second..off + second + 4].copy_from_slice(&0x7fff_fff0u32.to_le_bytes());
    let e = cfi::from_elf(&bad, "damaged").unwrap_err();
    assert_eq!(e.section(), Some(".eh_frame"));
    assert_eq!(
        e.location(),
        symblob_build::Location::Offset(second as u64),
        "{e}"
    );
    assert!(e.to_string().contains(".eh_frame"), "{e}");

    // Bytes of the section changed one at a time (each of the first CIE and FDE, then
    // random ones), and the file cut short: an error or records, never a panic.
    let mut rng = crate::common::splitmix::Rng::new(0x05ee_dcf1);
    let head = size.min(96);
    let positions: Vec<usize> = (0..head)
        .chain((0..400).map(|_| rng.below(size as u64) as usize))
        .collect();
    let mut bad = good.clone();
    for i in positions {
        let byte = bad[off + i];
        bad[off + i] ^= (rng.next_u64() as u8) | 1;
        let _ = cfi::from_elf(&bad, "damaged");
        bad[off + i] = byte;
    }
    let _ = cfi::from_elf(&good[..off + size / 2], "cut");
}

/// The file `compiler -print-file-name=<name>` names (a library of that toolchain), or
/// `None` after [`missing_oracle`].
fn toolchain_library(compiler: &str, name: &str) -> Option<PathBuf> {
    let out = Command::new(compiler)
        .arg(format!("-print-file-name={name}"))
        .output()
        .ok();
    // Without the file, the compiler prints the name it was given.
    let path = out.map(|o| PathBuf::from(String::from_utf8_lossy(&o.stdout).trim()));
    match path {
        Some(p) if p.is_absolute() && p.is_file() => Some(p),
        _ => {
            missing_oracle(&format!("{name} of {compiler}"));
            None
        }
    }
}

#[test]
fn system_libraries_match_dump_syms() {
    // The C and C++ libraries of x86-64 and AArch64: thousands of FDEs, hand-written
    // assembly, signal trampolines whose rules are DWARF expressions, and (AArch64)
    // return-address signing.
    for compiler in ["gcc", "aarch64-linux-gnu-gcc"] {
        for name in ["libc.so.6", "libstdc++.so.6"] {
            if let Some(lib) = toolchain_library(compiler, name) {
                identical(&format!("{name} ({compiler})"), &lib);
            }
        }
    }
}
