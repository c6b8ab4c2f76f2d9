//! Lidia builder on arbitrary ELF bytes: ELF symbols and Go `.gopclntab`, under several
//! option sets. An error is fine; an accepted file must give a Lidia file that parses,
//! passes its checksums and validates.

#![no_main]

use std::path::Path;

use libfuzzer_sys::fuzz_target;
use symblob_build::lidia::Flags;
use symblob_build::pipeline::lidia::{collect_from_elf, ElfOptions, SymbolSources};

fuzz_target!(|data: &[u8]| {
    let path = Path::new("fuzz-input.elf");
    let default = ElfOptions::default();
    let everything = ElfOptions {
        lidia: Flags {
            files: true,
            lines: true,
        },
        ..ElfOptions::default()
    };
    let symbols_only = ElfOptions {
        symbols: SymbolSources {
            gopclntab: false,
            ..SymbolSources::default()
        },
        ..ElfOptions::default()
    };
    let pclntab_only = ElfOptions {
        symbols: SymbolSources {
            symtab: false,
            ..SymbolSources::default()
        },
        ..ElfOptions::default()
    };
    for options in [&default, &everything, &symbols_only, &pclntab_only] {
        let Ok(writer) = collect_from_elf(path, data, options) else {
            continue;
        };
        symblob_fuzz::check_built_lidia(writer);
    }
});
