//! Everything the archiver reads from an ELF file, behind one small interface: section
//! headers, the symbol table as `llvm-nm --no-sort --defined-only` lists it (with nm's
//! type letters), the build ID, the machine and the relocation count.

use object::elf;
use object::read::elf::{ElfFile, FileHeader, SectionHeader, Sym};
use object::{Endianness, Object, ObjectSection};

use crate::{Error, Location, Result};

/// A section header, as `readelf -S` shows it.
#[derive(Clone, Debug)]
pub struct ElfSection {
    /// Section name.
    pub name: String,
    /// `sh_addr`.
    pub address: u64,
    /// `sh_size`.
    pub size: u64,
    /// `SHT_NOBITS` (takes no file space).
    pub nobits: bool,
    /// `SHF_ALLOC`.
    pub alloc: bool,
}

/// A defined symbol with its nm type letter.
#[derive(Clone, Debug)]
pub struct ElfSymbol {
    /// Raw (mangled) name.
    pub name: String,
    /// `st_value`.
    pub address: u64,
    /// `st_size`.
    pub size: u64,
    /// `llvm-nm`'s type letter (`T`, `t`, `W`, `r`, `B`, …).
    pub nm_type: char,
}

/// What the archiver needs from one ELF file.
#[derive(Clone, Debug)]
pub struct ElfInput {
    /// Sections in header order (index 0 excluded).
    pub sections: Vec<ElfSection>,
    /// Defined symbols of `.symtab` in table order (`.dynsym` when there is no `.symtab`).
    pub symbols: Vec<ElfSymbol>,
    /// Whether `symbols` came from `.dynsym`.
    pub symbols_from_dynsym: bool,
    /// GNU build ID as lower-case hex.
    pub build_id: Option<String>,
    /// `readelf -h`'s machine, in SuperSize's spelling (`x64`, `arm64`, …).
    pub arch: String,
    /// Number of relocation entries (`readelf -r`).
    pub relocations: u64,
    /// File size in bytes.
    pub file_size: u64,
}

/// Reads `data` (the file `name`).
pub fn read(data: &[u8], name: &str) -> Result<ElfInput> {
    let bad = |m: String| Error::input(name, Location::Whole, m);
    let caused = |m: &str, e: object::Error| Error::input_caused(name, Location::Whole, m, e);
    match object::FileKind::parse(data).map_err(|e| caused("not an ELF file", e))? {
        object::FileKind::Elf32 => read_elf::<elf::FileHeader32<Endianness>>(data, name),
        object::FileKind::Elf64 => read_elf::<elf::FileHeader64<Endianness>>(data, name),
        other => Err(bad(format!("not an ELF file ({other:?})"))),
    }
}

fn read_elf<H: FileHeader<Endian = Endianness>>(data: &[u8], name: &str) -> Result<ElfInput> {
    let caused =
        |m: &str, e: object::Error| Error::input_caused(name, Location::Whole, m.to_owned(), e);
    let file = ElfFile::<H>::parse(data).map_err(|e| caused("bad ELF", e))?;
    let endian = file.endian();
    let header = file.elf_header();
    let table = file.elf_section_table();
    let mut sections = Vec::new();
    let mut relocations = 0u64;
    for (index, sh) in table.iter().enumerate().skip(1) {
        let sec_name = table
            .section_name(endian, sh)
            .map_err(|e| caused(&format!("section {index}: bad name"), e))?;
        let sh_type = sh.sh_type(endian);
        let flags: u64 = sh.sh_flags(endian).0;
        let size: u64 = sh.sh_size(endian).into();
        match sh_type {
            elf::SHT_REL | elf::SHT_RELA => {
                let entsize: u64 = sh.sh_entsize(endian).into();
                relocations += size.checked_div(entsize).unwrap_or(0);
            }
            elf::SHT_RELR => {
                relocations +=
                    relr_count(sh.data(endian, data).unwrap_or(&[]), H::is_type_64_sized())
            }
            _ => {}
        }
        sections.push(ElfSection {
            name: String::from_utf8_lossy(sec_name).into_owned(),
            address: sh.sh_addr(endian).into(),
            size,
            nobits: sh_type == elf::SHT_NOBITS,
            alloc: flags & elf::SHF_ALLOC.0 != 0,
        });
    }
    let mut symtab = table
        .symbols(endian, data, elf::SHT_SYMTAB)
        .map_err(|e| caused("bad .symtab", e))?;
    let symbols_from_dynsym = symtab.is_empty();
    if symbols_from_dynsym {
        symtab = table
            .symbols(endian, data, elf::SHT_DYNSYM)
            .map_err(|e| caused("bad .dynsym", e))?;
    }
    let mut symbols = Vec::with_capacity(symtab.len());
    for (index, sym) in symtab.iter().enumerate().skip(1) {
        let st_type = sym.st_type();
        if matches!(st_type, elf::STT_SECTION | elf::STT_FILE) {
            continue; // llvm-nm lists these only with --debug-syms
        }
        let shndx = symtab
            .symbol_section(endian, sym, object::SymbolIndex(index))
            .ok()
            .flatten();
        let raw_shndx = sym.st_shndx(endian);
        if raw_shndx == elf::SHN_UNDEF {
            continue;
        }
        let sym_name = symtab.symbol_name(endian, sym).unwrap_or(&[]);
        let flags_of = |i: object::SectionIndex| {
            table.section(i).ok().map(|sh| {
                let name = table.section_name(endian, sh).unwrap_or(&[]);
                (
                    sh.sh_type(endian),
                    sh.sh_flags(endian).0,
                    name.starts_with(b".debug"),
                )
            })
        };
        let nm_type = nm_type_letter(sym.st_bind(), st_type, raw_shndx, shndx.and_then(flags_of));
        let mut address: u64 = sym.st_value(endian).into();
        if header.e_machine(endian) == elf::EM_ARM && st_type == elf::STT_FUNC {
            address &= !1; // Thumb bit
        }
        symbols.push(ElfSymbol {
            name: String::from_utf8_lossy(sym_name).into_owned(),
            address,
            size: sym.st_size(endian).into(),
            nm_type,
        });
    }
    let build_id = file
        .build_id()
        .ok()
        .flatten()
        .map(|id| id.iter().map(|b| format!("{b:02x}")).collect());
    Ok(ElfInput {
        sections,
        symbols,
        symbols_from_dynsym,
        build_id,
        arch: arch_name(header.e_machine(endian)),
        relocations,
        file_size: data.len() as u64,
    })
}

/// The letter `llvm-nm` prints for a defined symbol.
fn nm_type_letter(
    bind: elf::SymbolBind,
    st_type: elf::SymbolType,
    shndx: elf::SymbolSection,
    section: Option<(elf::SectionType, u64, bool)>,
) -> char {
    if bind == elf::STB_WEAK {
        return if st_type == elf::STT_OBJECT { 'V' } else { 'W' };
    }
    if shndx == elf::SHN_COMMON || st_type == elf::STT_COMMON {
        return 'C';
    }
    let letter = if shndx == elf::SHN_ABS {
        'a'
    } else {
        if st_type == elf::STT_GNU_IFUNC {
            return 'i';
        }
        let letter = match section {
            Some((_, flags, _)) if flags & elf::SHF_EXECINSTR.0 != 0 => 't',
            Some((elf::SHT_NOBITS, _, _)) => 'b',
            Some((_, flags, _)) if flags & elf::SHF_ALLOC.0 != 0 => {
                if flags & elf::SHF_WRITE.0 != 0 {
                    'd'
                } else {
                    'r'
                }
            }
            Some((_, _, true)) => 'N',
            Some((_, flags, _)) if flags & elf::SHF_WRITE.0 == 0 => 'n',
            _ => '?',
        };
        if bind == elf::STB_GNU_UNIQUE {
            return 'u';
        }
        if bind != elf::STB_GLOBAL && bind != elf::STB_LOCAL {
            return '?';
        }
        letter
    };
    if bind == elf::STB_LOCAL {
        letter
    } else {
        letter.to_ascii_uppercase()
    }
}

/// Number of relocations a `SHT_RELR` section encodes.
fn relr_count(data: &[u8], is_64: bool) -> u64 {
    let width = if is_64 { 8 } else { 4 };
    let mut count = 0u64;
    for chunk in data.chunks_exact(width) {
        let mut word = 0u64;
        for (i, b) in chunk.iter().enumerate() {
            word |= u64::from(*b) << (8 * i); // RELR is only used little-endian in practice
        }
        if word & 1 == 0 {
            count += 1;
        } else {
            count += u64::from((word >> 1).count_ones());
        }
    }
    count
}

/// `readelf -h`'s machine in SuperSize's spelling.
fn arch_name(machine: elf::Machine) -> String {
    match machine {
        elf::EM_386 => "x86".into(),
        elf::EM_X86_64 => "x64".into(),
        elf::EM_ARM => "arm".into(),
        elf::EM_AARCH64 => "arm64".into(),
        elf::EM_RISCV => "RISC-V".into(),
        elf::EM_PPC64 => "PowerPC64".into(),
        elf::EM_PPC => "PowerPC".into(),
        elf::EM_S390 => "IBM S/390".into(),
        elf::EM_MIPS => "MIPS R3000".into(),
        elf::EM_LOONGARCH => "LoongArch".into(),
        other => format!("{:#x}", other.0),
    }
}

/// The uncompressed bytes of section `name`, if present (for DWARF).
pub fn section_data<'a>(file: &object::File<'a>, name: &str) -> Option<std::borrow::Cow<'a, [u8]>> {
    file.section_by_name(name)
        .and_then(|s| s.uncompressed_data().ok())
}
