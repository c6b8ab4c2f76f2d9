//! Sections that take no space in the file (`.bss`, and `.tbss`, the thread-local bss
//! SuperSize's list of bss-like sections leaves out): the report's `file_size` is the
//! file's length, and its section rows are `readelf -SW`'s, those of `NOBITS` sections
//! marked `(not in file)`. On a program with `__thread` variables built here, and on the
//! system's C library.

use std::collections::BTreeMap;
use std::ffi::OsStr;
use std::path::{Path, PathBuf};
use std::process::Command;

use symblob_build::size::report::{self, Format};
use symblob_build::size::ArchiveOptions;

use super::support::{archive, compile, eu_strip, output, src};
use crate::common::tool;

/// `readelf -SW`'s sections as the report shows them: name → size, a section whose name
/// does not start with `.` merged into the one before it (spec §6.1: SuperSize's
/// `SectionInfoFromElf`; their address spans joined when both have one), `NOBITS`
/// sections named `NAME (not in file)`.
fn readelf_rows(elf: &Path) -> Option<BTreeMap<String, u64>> {
    let readelf = tool("readelf")?;
    let text = output(&readelf, &[OsStr::new("-SW"), elf.as_os_str()]);
    // (name, NOBITS, address, size) in header order.
    let mut sections: Vec<(String, bool, u64, u64)> = Vec::new();
    for line in text.lines() {
        let Some((_, fields)) = line
            .trim_start()
            .strip_prefix('[')
            .and_then(|r| r.split_once(']'))
        else {
            continue;
        };
        let f: Vec<&str> = fields.split_whitespace().collect();
        // Section 0 (type NULL) has no name; the header line is "Name Type …".
        if f.len() < 5 || f[0] == "NULL" || f[0] == "Name" {
            continue;
        }
        let hex = |t: &str| u64::from_str_radix(t, 16).unwrap();
        let (nobits, address, size) = (f[1] == "NOBITS", hex(f[2]), hex(f[4]));
        match sections.last_mut() {
            Some(prev) if !f[0].starts_with('.') => {
                prev.3 = if prev.2 != 0 && address != 0 {
                    (prev.2 + prev.3).max(address + size) - prev.2
                } else {
                    prev.3 + size
                };
            }
            _ => sections.push((f[0].to_string(), nobits, address, size)),
        }
    }
    let rows = sections
        .into_iter()
        .map(|(name, nobits, _, size)| match nobits {
            true => (format!("{name} (not in file)"), size),
            false => (name, size),
        });
    Some(rows.collect())
}

/// Checks `size show --json`'s report of the stripped ELF `elf` against its length and
/// `readelf -SW`.
fn check_file(elf: &Path) {
    let info = archive(elf, None, &ArchiveOptions::default());
    let json: serde_json::Value =
        serde_json::from_str(&report::show(&info, 20, Format::Json)).unwrap();
    let length = std::fs::metadata(elf).unwrap().len();
    assert_eq!(json["file_size"], length, "file_size of {}", elf.display());

    let Some(theirs) = readelf_rows(elf) else {
        return;
    };
    assert!(
        theirs.contains_key(".tbss (not in file)"),
        "{} has no NOBITS .tbss",
        elf.display()
    );
    let ours: BTreeMap<String, u64> = json["sections"]
        .as_array()
        .unwrap()
        .iter()
        .map(|row| {
            (
                row["name"].as_str().unwrap().to_string(),
                row["size"].as_u64().unwrap(),
            )
        })
        .filter(|(name, _)| name != "[ELF headers and padding]")
        .collect();
    assert_eq!(ours, theirs, "section rows of {}", elf.display());
}

/// `tlsdemo.c` built by gcc and stripped by `eu-strip`: a file whose every byte the
/// report accounts for (nothing left for `strip` to remove).
fn tls_program(dir: &Path) -> Option<PathBuf> {
    let gcc = tool("gcc")?;
    let elf = dir.join("tlsdemo");
    compile(
        Command::new(gcc)
            .args(["-O2", "-g"])
            .arg(src("tlsdemo.c"))
            .arg("-o")
            .arg(&elf),
    );
    eu_strip(&elf)
}

#[test]
fn size_file_size_leaves_out_the_thread_local_bss() {
    let dir = tempfile::tempdir().unwrap();
    if let Some(stripped) = tls_program(dir.path()) {
        check_file(&stripped);
    }
}

/// The C library the compiler links against (it has `.tbss`: `errno` and friends).
#[test]
fn size_file_size_of_the_c_library_is_its_length() {
    if let Some(libc) = crate::common::c_library() {
        check_file(&libc);
    }
}
