//! ELF files: sections, executable ranges, build IDs and symbols.
//!
//! * `file`: the section-level view Go's `debug/elf` has (Pyroscope-compatible Lidia
//!   and `.gopclntab` read through it);
//! * `symbols_go`: function symbols by Go's `debug/elf` rules (Pyroscope byte
//!   compatibility);
//! * `symbols_nm`: text symbols typed as binutils `nm` types them, and text ranges
//!   ([`read_elf`]); the binding rule of nm's type letters, which `listing` shares;
//! * `symbols_llvm`: the symbol model of LLVM's symbolizer, which DWARF builds name
//!   depth-0 frames after;
//! * `plt`: x86-64 PLT entries, named `name@plt` after their GOT slot's relocation (part
//!   of that model);
//! * `debug_file`: where an ELF's DWARF is (the ELF, a named file, the build ID,
//!   `.gnu_debuglink`);
//! * `sections`: which ranges hold code (one rule, the two views ksym and DWARF builds
//!   need);
//! * `listing`: what `readelf` and `llvm-nm --defined-only` list (section headers,
//!   relocation count, build ID, every defined symbol with `llvm-nm`'s type letter), which
//!   SuperSize archives are made from;
//! * `image`: what a process-map capture needs: build ID, load and text-end addresses
//!   from the program headers ([`inspect_elf`]).

mod debug_file;
pub(crate) mod file;
mod image;
#[cfg(feature = "size")]
pub(crate) mod listing;
mod module;
mod plt;
mod sections;
pub(crate) mod symbols_go;
pub(crate) mod symbols_llvm;
mod symbols_nm;

pub(crate) use debug_file::{build_id_path, check_debug_file, find_debug_file, missing_dwarf};

pub use image::{inspect_elf, ElfImage};
pub(crate) use sections::{code_ranges, section_ranges};
use symbols_nm::normalise_ranges;
pub use symbols_nm::{read_elf, ElfSymbols};
