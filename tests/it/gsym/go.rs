//! GSYM of a Go program without DWARF: functions and lines from `.gopclntab`. The Go
//! linker writes the DWARF line program from the same per-PC tables, so the expectation
//! is `llvm-symbolizer-14` on the program before its debug sections were removed
//! (`objcopy --strip-debug`): our one frame has its outermost function's name and its
//! innermost frame's file and line. The Go toolchain's DWARF names files relative to a
//! compilation directory of `.`, which llvm-symbolizer prints as a `./` prefix the Go
//! table has for some files and not for others (compared without it); addresses without a line in DWARF (symbols past the Go table's
//! functions, such as `runtime.end`) are not compared.

use std::process::Command;

use symblob::gsym::GsymFile;

use super::sample_addresses;
use super::writer::ours;
use crate::common::{run_scratch_dir, testdata, tool};
use crate::lidia_dwarf::oracle::{symbolize, symbolizer};

/// `path` without a leading `./`.
fn without_dot(path: &str) -> &str {
    path.strip_prefix("./").unwrap_or(path)
}

/// Whether `ours` (the Go table's name) is `dwarf`'s name as the Go table spells it:
/// assembly functions without their linker ABI suffix (`internal/cpu.cpuid` for
/// `internal/cpu.cpuid.abi0`), and bracketed parts elided as `[...]`
/// (`type..eq.[...]internal/cpu.option` for `type..eq.[5]internal/cpu.option`).
fn go_table_spelling(ours: &str, dwarf: &str) -> bool {
    if dwarf.strip_suffix(".abi0") == Some(ours) {
        return true;
    }
    let Some((before, after)) = ours.split_once("[...]") else {
        return false;
    };
    dwarf.strip_prefix(before).is_some_and(|rest| {
        rest.strip_prefix('[')
            .and_then(|r| r.split_once(']'))
            .is_some_and(|(_, tail)| tail == after)
    })
}

#[test]
fn gsym_of_a_go_program_without_dwarf_has_the_lines_of_its_go_table() {
    let (Some(objcopy), Some(symbolizer)) = (tool("objcopy"), symbolizer()) else {
        return;
    };
    let dir = run_scratch_dir("gsym-go-lines");
    let with_dwarf = testdata("lidia/elf/gohello");
    let stripped = dir.join("gohello-nodwarf");
    let status = Command::new(objcopy)
        .arg("--strip-debug")
        .arg(&with_dwarf)
        .arg(&stripped)
        .status()
        .expect("objcopy runs");
    assert!(status.success());
    let gsym = std::fs::read(ours("gohello-nodwarf", &stripped, &dir)).unwrap();
    let file = GsymFile::parse(&gsym).unwrap();
    file.validate().expect("our file validates");
    let addrs = sample_addresses(&file, 16, 0x676f_6c6e);
    let expected = symbolize(&symbolizer, &with_dwarf, &addrs);
    let mut compared = 0;
    let mut bad = Vec::new();
    for (addr, frames) in addrs.iter().zip(&expected) {
        let (Some(innermost), Some(outermost)) = (frames.first(), frames.last()) else {
            continue;
        };
        if outermost.0 == "??" || innermost.2 == 0 {
            continue;
        }
        let ours = file.lookup(*addr).ok().flatten();
        let ours = ours.as_ref().and_then(|l| l.frames().next()).map(|f| {
            let path = if f.dir.is_empty() {
                f.base.to_string()
            } else {
                format!("{}/{}", f.dir, f.base)
            };
            (
                f.name.to_string(),
                without_dot(&path).to_owned(),
                u64::from(f.line),
            )
        });
        let want = (
            outermost.0.clone(),
            without_dot(&innermost.1).to_owned(),
            innermost.2,
        );
        compared += 1;
        let same_place = ours
            .as_ref()
            .is_some_and(|o| (&o.1, o.2) == (&want.1, want.2));
        if same_place
            && ours
                .as_ref()
                .is_some_and(|o| go_table_spelling(&o.0, &want.0))
        {
            continue;
        }
        if ours.as_ref() != Some(&want) {
            bad.push(format!(
                "{addr:#x}: ours {ours:?}, llvm-symbolizer {want:?}"
            ));
        }
    }
    assert!(compared > 1000, "{compared} addresses compared");
    assert!(
        bad.is_empty(),
        "{} of {compared} differ:\n{}",
        bad.len(),
        bad.iter().take(10).cloned().collect::<Vec<_>>().join("\n")
    );
}
