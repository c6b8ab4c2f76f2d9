//! The options beyond SuperSize: functions attributed to their own declaration file
//! (checked against `llvm-symbolizer-14`: the file of the outermost frame at the
//! function's first instruction) and
//! data attributed through DWARF variables; the default archive stays SuperSize's.

use std::ffi::OsStr;

use symblob_build::size::model::SizeInfo;
use symblob_build::size::ArchiveOptions;

use super::crosscheck::program;
use super::support::{archive, output};
use crate::common::tool;

fn basename(p: &str) -> &str {
    p.rsplit('/').next().unwrap_or(p)
}

fn path_of<'a>(info: &'a SizeInfo, name: &str) -> &'a str {
    let s = info
        .symbols
        .iter()
        .find(|s| s.full_name == name)
        .expect(name);
    &s.source_path
}

/// The archives of `elf` with the options that `set` sets, and with the defaults.
fn with_and_without(
    elf: &std::path::Path,
    set: impl FnOnce(&mut ArchiveOptions),
) -> (SizeInfo, SizeInfo) {
    let mut options = ArchiveOptions::default();
    set(&mut options);
    let info = archive(elf, None, &options);
    (info, archive(elf, None, &ArchiveOptions::default()))
}

#[test]
fn size_decl_paths_follow_the_defining_file() {
    let Some(elf) = program("cppdemo") else {
        return;
    };
    let Some(symbolizer) = tool("llvm-symbolizer-14") else {
        return;
    };
    let (info, default) = with_and_without(elf, |o| o.decl_paths = true);
    let mut headers = 0;
    for s in info
        .symbols
        .iter()
        .filter(|s| s.section == ".text" && !s.source_path.is_empty())
    {
        let out = output(
            &symbolizer,
            &[
                OsStr::new("-e"),
                elf.as_os_str(),
                OsStr::new(&format!("{:#x}", s.address)),
            ],
        );
        // The outermost frame of the inline chain: a location in the function's own file.
        let lines: Vec<&str> = out.lines().filter(|l| !l.is_empty()).collect();
        let file = lines[lines.len() - 1].rsplitn(3, ':').nth(2).unwrap();
        if file == "??" {
            continue;
        }
        assert_eq!(
            basename(&s.source_path),
            basename(file),
            "{} at {:#x}",
            s.full_name,
            s.address
        );
        let default_path = &default
            .symbols
            .iter()
            .find(|d| d.address == s.address)
            .unwrap()
            .source_path;
        if basename(default_path) != basename(&s.source_path) {
            headers += 1;
        }
    }
    assert!(headers > 0, "no function moved from its unit to a header");
}

#[test]
fn size_data_paths_come_from_dwarf_variables() {
    let Some(elf) = program("diffdemo-v1") else {
        return;
    };
    let (info, default) = with_and_without(elf, |o| o.data_paths = true);
    for name in ["kTable", "g_state", "g_buffer"] {
        assert_eq!(basename(path_of(&info, name)), "diffdemo.c", "{name}");
    }
    assert_eq!(
        path_of(&default, "kTable"),
        "",
        "SuperSize gives data symbols no path"
    );
    // Function paths are untouched by the data option.
    assert_eq!(path_of(&default, "grow_me"), path_of(&info, "grow_me"));
}
