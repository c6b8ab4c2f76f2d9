//! Lidia DWARF builder on an ELF file and a companion file, both arbitrary: a split DWARF
//! package (`--dwp`), whose split units the skeleton units lead to, or a supplementary
//! file (`--sup`), whose DIEs and strings `dwz` references lead to. Input: one mode byte
//! (bit 0: package or supplementary file; bit 1: mismatched files accepted), the ELF
//! file's length (4 bytes, little-endian), the ELF file, the companion. An error is fine;
//! an accepted pair must give a Lidia file that parses, passes its checksums and
//! validates.

#![no_main]

use libfuzzer_sys::fuzz_target;
use symblob_build::dwarf::{DebugFiles, DwarfOptions};
use symblob_build::pipeline::lidia::{collect_from_elf, ElfOptions, SymbolSources};

fuzz_target!(|data: &[u8]| {
    let Some((&mode, rest)) = data.split_first() else {
        return;
    };
    let Some((len, rest)) = rest.split_first_chunk::<4>() else {
        return;
    };
    let Some((elf, companion)) = rest.split_at_checked(u32::from_le_bytes(*len) as usize) else {
        return;
    };
    // The builder takes the companion by path: a directory of this process holds it for
    // one run and is removed afterwards, so that runs leave nothing behind.
    let dir = std::env::temp_dir().join(format!("symblob-fuzz-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("scratch directory");
    let companion_path = dir.join("companion");
    std::fs::write(&companion_path, companion).expect("write the companion file");
    let package = mode & 1 == 0;
    let options = ElfOptions {
        symbols: SymbolSources {
            gopclntab: false,
            ..SymbolSources::default()
        },
        ..ElfOptions::dwarf_with_files_and_lines(DwarfOptions {
            debug_files: DebugFiles {
                dwp: package.then(|| companion_path.clone()),
                sup: (!package).then(|| companion_path.clone()),
                debug_file_mismatch_ok: mode & 2 != 0,
                ..DebugFiles::default()
            },
            ..DwarfOptions::default()
        })
    };
    // The ELF file's own path is never written: no `.dwo` file or debug link beside it.
    let built = collect_from_elf(&dir.join("input.elf"), elf, &options);
    std::fs::remove_dir_all(&dir).expect("remove the scratch directory");
    if let Ok(writer) = built {
        symblob_fuzz::check_built_lidia(writer);
    }
});
