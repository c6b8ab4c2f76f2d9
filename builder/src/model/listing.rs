//! An image as `readelf -h -S -r -n` and `llvm-nm --no-sort --defined-only` list it: the
//! section headers, the relocation count, the build ID and every defined symbol with
//! `llvm-nm`'s type letter. The ELF source fills it (`elf::listing`); SuperSize archives
//! are made from it.

use std::borrow::Cow;

/// One section header, with its name resolved.
#[derive(Clone, Copy, Debug)]
pub(crate) struct SectionHeader<'a> {
    /// Name from the section-name string table.
    pub name: &'a [u8],
    /// `sh_type`.
    pub kind: u32,
    /// `sh_flags`.
    pub flags: u64,
    /// `sh_addr`.
    pub addr: u64,
    /// `sh_offset`.
    pub offset: u64,
    /// `sh_size` (for a compressed section: the compressed size in the file).
    pub size: u64,
    /// `sh_link`.
    pub link: u32,
    /// `sh_entsize`.
    #[cfg_attr(not(feature = "size"), allow(dead_code))] // read by SuperSize's listing only
    pub entsize: u64,
    /// `sh_addralign`.
    #[cfg_attr(not(feature = "size"), allow(dead_code))] // read by SuperSize's listing only
    pub align: u64,
}

/// A defined symbol as `llvm-nm` lists it.
#[derive(Clone, Debug)]
pub(crate) struct NmSymbol<'a> {
    /// Raw (mangled) name, invalid UTF-8 replaced.
    pub name: Cow<'a, str>,
    /// `st_value` (without the Thumb bit of an ARM function).
    pub address: u64,
    /// `st_size`.
    pub size: u64,
    /// `llvm-nm`'s type letter (`T`, `t`, `W`, `r`, `B`, …).
    pub letter: char,
}

/// The listing of one ELF file.
pub(crate) struct ImageListing<'a> {
    /// Whether the file is ELFCLASS64.
    pub is_64: bool,
    /// `e_machine`.
    pub machine: object::elf::Machine,
    /// The section headers in table order (index 0 included).
    pub sections: Vec<SectionHeader<'a>>,
    /// Number of relocation entries, as `readelf -r` counts them.
    pub relocations: u64,
    /// The `NT_GNU_BUILD_ID` note of a `SHT_NOTE` section.
    pub build_id: Option<&'a [u8]>,
    /// Defined symbols of `.symtab` in table order (`.dynsym` when there is no `.symtab`).
    pub symbols: Vec<NmSymbol<'a>>,
}
