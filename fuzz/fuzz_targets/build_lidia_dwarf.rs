//! Lidia DWARF builder on arbitrary ELF bytes: units, names, inline nesting, line
//! programs and the symbol-table fallback. An error is fine; an accepted file must give a
//! Lidia file that parses, passes its checksums and validates.

#![no_main]

use std::path::Path;

use libfuzzer_sys::fuzz_target;
use symblob_build::dwarf::DwarfOptions;
use symblob_build::pipeline::lidia::{collect_from_elf, ElfOptions, SymbolSources};

fuzz_target!(|data: &[u8]| {
    // A directory that does not exist, so no debug-link or build-ID lookup can find a
    // file beside the input.
    let path = Path::new("fuzz-no-such-dir/input.elf");
    let options = ElfOptions {
        symbols: SymbolSources {
            gopclntab: false,
            ..SymbolSources::default()
        },
        ..ElfOptions::dwarf_with_files_and_lines(DwarfOptions {
            demangle: data.len().is_multiple_of(2),
            ..DwarfOptions::default()
        })
    };
    let Ok(writer) = collect_from_elf(path, data, &options) else {
        return;
    };
    symblob_fuzz::check_built_lidia(writer);
});
