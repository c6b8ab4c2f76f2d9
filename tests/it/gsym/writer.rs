//! The GSYM writer against LLVM 14: each test program is converted by `symblob convert
//! --to gsym` and by `llvm-gsymutil-14 --convert`, and `llvm-gsymutil-14` looks up the
//! same addresses (every byte of small functions, a sample of large ones) in both files;
//! the answers must be equal, frame for frame with offsets, files and lines, except where
//! [`KNOWN_DIFFERENCES`] names the reason. Our file also passes our reader's `validate`.

use std::path::{Path, PathBuf};

use symblob::gsym::GsymFile;
use symblob_build::convert::{convert, ConvertOptions, Target};

use super::oracle::{gsym_fixtures, lookups, Answer, GSYMUTIL};
use super::{agree, sample_addresses};
use crate::common::{run_scratch_dir, testdata, tool};

/// Differences accepted: (program, reason); each is checked by [`known_difference`].
const KNOWN_DIFFERENCES: &[(&str, &str)] = &[(
    "cpp-gxx",
    "GCC's line program has no row for the first bytes of some inlined calls: symblob's \
     model gives them line 0 in the inlined function's file (as llvm-symbolizer answers \
     `??:0`), while LLVM's converter takes the row in force from the line program, a line \
     of the caller; every frame's function and offset agree.",
)];

/// Symbols without a size (`_init` and `_start` of the C runtime, assembly without
/// `.size`): LLVM stores size 0, which its lookup lets cover every address up to the next
/// function; symblob's model ends such a symbol where its section or the next symbol
/// starts (as llvm-symbolizer answers), so in the gap after it LLVM answers the symbol
/// with no location and symblob's file nothing.
fn sizeless_symbol_gap(ours: &Answer, theirs: &Answer) -> bool {
    matches!((ours, theirs), (Err(e), Ok(frames))
        if e.ends_with("not in GSYM") && frames.len() == 1 && frames[0].location.is_none())
}

/// Whether `ours` and `theirs` differ only as [`KNOWN_DIFFERENCES`] allows for `program`.
fn known_difference(program: &str, ours: &Answer, theirs: &Answer) -> bool {
    if sizeless_symbol_gap(ours, theirs) {
        return true;
    }
    let (Ok(ours), Ok(theirs)) = (ours, theirs) else {
        return false;
    };
    KNOWN_DIFFERENCES.iter().any(|(p, _)| *p == program)
        && ours.len() == theirs.len()
        && ours.iter().zip(theirs).all(|(o, t)| {
            o.name == t.name
                && o.offset == t.offset
                && o.inlined == t.inlined
                && (o.location == t.location || o.location.as_ref().is_some_and(|l| l.1 == 0))
        })
}

/// `theirs` with each function name that is ours qualified by namespaces or classes
/// (`std::__sort<…>` for our `__sort<…>`) replaced by ours: for a C++ function without a
/// linkage name (an inlined template instance), LLVM's converter prefixes `DW_AT_name`
/// with the names of the enclosing namespaces and classes, while symblob's model keeps
/// `DW_AT_name`, as `llvm-symbolizer-14 --functions=linkage` prints it.
fn unqualified(ours: &Answer, theirs: Answer) -> Answer {
    let (Ok(ours), Ok(mut theirs)) = (ours, theirs.clone()) else {
        return theirs;
    };
    for (o, t) in ours.iter().zip(theirs.iter_mut()) {
        let qualified = t
            .name
            .strip_suffix(o.name.as_str())
            .is_some_and(|scope| scope.ends_with("::"));
        if qualified {
            t.name = o.name.clone();
        }
    }
    Ok(theirs)
}

/// Of `differing` answers, the addresses where only the innermost position differs and
/// ours is `llvm-symbolizer-14`'s: where the line program starts several rows at one address,
/// LLVM 14's GSYM lookup answers the first of them (later LLVM versions the last), while
/// symblob's model keeps the row in force, the last, as llvm-symbolizer answers.
fn first_row_differences(elf: &Path, differing: &[(u64, &Answer, &Answer)]) -> Vec<u64> {
    let line_only: Vec<(u64, (String, u32))> = differing
        .iter()
        .filter_map(|(addr, o, t)| {
            let (Ok(o), Ok(t)) = (o, t) else { return None };
            let (first_o, first_t) = (o.first()?, t.first()?);
            let (lo, lt) = (first_o.location.as_ref()?, first_t.location.as_ref()?);
            let same_rest = o.len() == t.len()
                && o[1..] == t[1..]
                && first_o.name == first_t.name
                && first_o.offset == first_t.offset;
            (same_rest && lo != lt).then(|| (*addr, lo.clone()))
        })
        .collect();
    if line_only.is_empty() {
        return Vec::new();
    }
    let Some(symbolizer) = crate::lidia_dwarf::oracle::symbolizer() else {
        return Vec::new();
    };
    let addrs: Vec<u64> = line_only.iter().map(|&(a, _)| a).collect();
    let answers = crate::lidia_dwarf::oracle::symbolize(&symbolizer, elf, &addrs);
    line_only
        .iter()
        .zip(answers)
        .filter(|((_, (file, line)), frames)| {
            frames
                .first()
                .is_some_and(|f| f.1 == *file && f.2 == u64::from(*line))
        })
        .map(|((addr, _), _)| *addr)
        .collect()
}

/// The programs: the committed ELF files, those the GSYM reader tests compile, and a
/// Rust program of the DWARF tests (whose symbol table has aliases of identical-code-folded
/// functions without DWARF: LLVM keeps the first in table order, which symblob's
/// `symtab_gsym` rule follows).
pub(super) fn programs() -> Vec<(String, PathBuf)> {
    let mut out: Vec<(String, PathBuf)> = ["inl", "simple", "libdemo.so", "gohello"]
        .iter()
        .map(|n| (n.to_string(), testdata(&format!("lidia/elf/{n}"))))
        .collect();
    for (name, gsym) in gsym_fixtures() {
        out.push((name.to_string(), gsym.with_extension("")));
    }
    if let Some(rust) = crate::lidia_dwarf::fixtures::fixtures().get("rust") {
        out.push(("rust".to_owned(), rust.to_path_buf()));
    }
    out
}

/// Converts `elf` with both tools into `dir`; (ours, theirs).
fn both(name: &str, elf: &Path, dir: &Path) -> (PathBuf, PathBuf) {
    (ours(name, elf, dir), llvm_convert(name, elf, dir))
}

/// Converts `elf` (its debug files found as the builder finds them) with `symblob
/// convert --to gsym` into `dir`.
pub(super) fn ours(name: &str, elf: &Path, dir: &Path) -> PathBuf {
    let bytes = std::fs::read(elf).expect("read program");
    let ours = convert(elf, &bytes, Target::Gsym, &ConvertOptions::default())
        .unwrap_or_else(|e| panic!("{name}: {e}"))
        .bytes;
    let ours_path = dir.join(format!("{}.ours.gsym", name.replace('/', "-")));
    std::fs::write(&ours_path, &ours).expect("write ours");
    ours_path
}

/// Converts `elf` with `llvm-gsymutil-14 --convert` into `dir`.
pub(super) fn llvm_convert(name: &str, elf: &Path, dir: &Path) -> PathBuf {
    let theirs = dir.join(format!("{}.llvm.gsym", name.replace('/', "-")));
    let status = std::process::Command::new(GSYMUTIL)
        .arg("--quiet")
        .arg(format!("--convert={}", elf.display()))
        .arg(format!("--out-file={}", theirs.display()))
        .output()
        .expect("run llvm-gsymutil");
    assert!(
        status.status.success(),
        "{name}: llvm-gsymutil --convert failed"
    );
    theirs
}

#[test]
fn gsym_written_from_dwarf_answers_as_llvm_gsymutil_s_own() {
    if tool(GSYMUTIL).is_none() {
        return;
    }
    let dir = run_scratch_dir("gsym-writer");
    let mut compared = 0;
    for (name, elf) in programs() {
        let (ours, theirs) = both(&name, &elf, &dir);
        compared += compare_with_llvm(&name, &elf, &ours, &theirs, 200);
    }
    eprintln!("{compared} addresses answered alike");
}

/// Looks up the sampled addresses of `theirs` (a file `llvm-gsymutil-14 --convert` wrote
/// from `elf`, or from a twin with the same code) in both files with `llvm-gsymutil-14`
/// and asserts that every answer agrees, but for the differences this module names;
/// `ours` must also pass our reader's `validate`. Returns the number of addresses.
pub(super) fn compare_with_llvm(
    name: &str,
    elf: &Path,
    ours: &Path,
    theirs: &Path,
    per_function: u64,
) -> usize {
    let ours_bytes = std::fs::read(ours).unwrap();
    let file = GsymFile::parse(&ours_bytes).expect("our reader opens our file");
    file.validate().expect("our file validates");
    let theirs_bytes = std::fs::read(theirs).unwrap();
    let reference = GsymFile::parse(&theirs_bytes).expect("LLVM's file parses");
    let addrs = sample_addresses(&reference, per_function, 0x5752_4954);
    let a = lookups(ours, &addrs);
    let b = lookups(theirs, &addrs);
    let b: Vec<Answer> = a.iter().zip(b).map(|(o, t)| unqualified(o, t)).collect();
    let differing: Vec<(u64, &Answer, &Answer)> = addrs
        .iter()
        .zip(a.iter().zip(&b))
        .filter(|(_, (o, t))| !agree(o, t) && !known_difference(name, o, t))
        .map(|(&addr, (o, t))| (addr, o, t))
        .collect();
    let first_row = first_row_differences(elf, &differing);
    let bad: Vec<String> = differing
        .iter()
        .filter(|(addr, _, _)| !first_row.contains(addr))
        .map(|(addr, o, t)| format!("{addr:#x}:\n  ours   {o:?}\n  theirs {t:?}"))
        .collect();
    assert!(
        bad.is_empty(),
        "{name}: {} of {} addresses answer differently:\n{}",
        bad.len(),
        addrs.len(),
        bad.iter().take(10).cloned().collect::<Vec<_>>().join("\n")
    );
    addrs.len()
}

#[test]
fn gsym_output_is_deterministic_and_carries_the_build_id() {
    let elf = testdata("lidia/elf/inl");
    let bytes = std::fs::read(&elf).unwrap();
    let one = convert(&elf, &bytes, Target::Gsym, &ConvertOptions::default()).unwrap();
    let two = convert(&elf, &bytes, Target::Gsym, &ConvertOptions::default()).unwrap();
    assert!(one.bytes == two.bytes, "two conversions differ");
    let file = GsymFile::parse(&one.bytes).unwrap();
    let id = object::read::File::parse(&*bytes)
        .ok()
        .and_then(|f| object::Object::build_id(&f).ok().flatten())
        .expect("the fixture has a build ID");
    assert_eq!(file.header().uuid, id);
}
