//! What `readelf -h -S -r -n` and `llvm-nm --no-sort --defined-only` list for an ELF file
//! (the model's [`ImageListing`]): the section headers, the relocation count, the build ID
//! and every defined symbol with `llvm-nm`'s type letter.
//!
//! The type letter follows the binding rule nm and `llvm-nm` share
//! ([`binding_letter`]); on top of it, `llvm-nm` (unlike the text-only rule ksym uses)
//! types every kind of symbol: `C` common, `a`/`A` absolute, `i` indirect function, and a
//! section class (`t` code, `b` no bits, `d`/`r` writable or read-only allocated data,
//! `N` debug, `n` other read-only) under that binding rule. SuperSize's symbol filters
//! select by these letters, so they must be `llvm-nm`'s.

use object::elf;
use object::read::elf::{FileHeader, RelrIterator, Sym};
use object::{Endianness, Object, SymbolIndex};

use super::file::{ElfFile, Section, SectionData};
use super::symbols_nm::binding_letter;
use crate::model::{ImageListing, NmSymbol};
use crate::{Error, Location, Result};

/// Lists `data` (the file `input`).
///
/// # Errors
///
/// An [`ErrorKind::Malformed`](crate::ErrorKind::Malformed) error naming `input` when `data` is not an ELF file or its section headers
/// or symbol tables cannot be read.
pub(crate) fn list_elf<'a>(data: &'a [u8], input: &str) -> Result<ImageListing<'a>> {
    let file = ElfFile::parse(data).map_err(|e| e.with_input(input))?;
    let relocations = relocation_count(&file);
    let typed = if file.is_64 {
        symbols::<elf::FileHeader64<Endianness>>(data, &file)
    } else {
        symbols::<elf::FileHeader32<Endianness>>(data, &file)
    };
    let (symbols, build_id) =
        typed.map_err(|(m, e)| Error::malformed(input, Location::Whole, m).with_source(e))?;
    Ok(ImageListing {
        is_64: file.is_64,
        machine: file.machine,
        sections: file.sections,
        relocations,
        build_id,
        symbols,
    })
}

/// The symbols and the build ID, or what could not be read.
type Symbols<'a> =
    std::result::Result<(Vec<NmSymbol<'a>>, Option<&'a [u8]>), (&'static str, object::Error)>;

fn symbols<'a, H: FileHeader<Endian = Endianness>>(
    data: &'a [u8],
    file: &ElfFile<'a>,
) -> Symbols<'a> {
    let parsed = object::read::elf::ElfFile::<H>::parse(data).map_err(|e| ("bad ELF", e))?;
    let endian = parsed.endian();
    let table = parsed.elf_section_table();
    let mut symtab = table
        .symbols(endian, data, elf::SHT_SYMTAB)
        .map_err(|e| ("bad .symtab", e))?;
    if symtab.is_empty() {
        symtab = table
            .symbols(endian, data, elf::SHT_DYNSYM)
            .map_err(|e| ("bad .dynsym", e))?;
    }
    let mut out = Vec::with_capacity(symtab.len());
    for (index, sym) in symtab.iter().enumerate().skip(1) {
        let st_type = sym.st_type();
        if matches!(st_type, elf::STT_SECTION | elf::STT_FILE) {
            continue; // llvm-nm lists these only with --debug-syms
        }
        let shndx = sym.st_shndx(endian);
        if shndx == elf::SHN_UNDEF {
            continue;
        }
        let section = symtab
            .symbol_section(endian, sym, SymbolIndex(index))
            .ok()
            .flatten()
            .and_then(|i| file.sections.get(i.0));
        let letter = llvm_nm_letter(sym.st_bind(), st_type, shndx, section);
        let mut address: u64 = sym.st_value(endian).into();
        if file.machine == elf::EM_ARM && st_type == elf::STT_FUNC {
            address &= !1; // Thumb bit
        }
        out.push(NmSymbol {
            name: String::from_utf8_lossy(symtab.symbol_name(endian, sym).unwrap_or(&[])),
            address,
            size: sym.st_size(endian).into(),
            letter: char::from(letter),
        });
    }
    let build_id = parsed.build_id().ok().flatten();
    Ok((out, build_id))
}

/// The letter `llvm-nm` prints for a defined symbol (see the module rule).
fn llvm_nm_letter(
    bind: elf::SymbolBind,
    st_type: elf::SymbolType,
    shndx: elf::SymbolSection,
    section: Option<&Section<'_>>,
) -> u8 {
    // A weak symbol is `W`/`V` whatever else it is.
    if bind != elf::STB_WEAK {
        if shndx == elf::SHN_COMMON || st_type == elf::STT_COMMON {
            return b'C';
        }
        if shndx == elf::SHN_ABS {
            return if bind == elf::STB_LOCAL { b'a' } else { b'A' };
        }
        if st_type == elf::STT_GNU_IFUNC {
            return b'i';
        }
    }
    binding_letter(bind, st_type == elf::STT_OBJECT, section_class(section))
}

/// `llvm-nm`'s lower-case letter for what a section holds.
fn section_class(section: Option<&Section<'_>>) -> u8 {
    let Some(s) = section else {
        return b'?';
    };
    let has = |flag: elf::SectionFlags| s.flags & flag.0 != 0;
    if has(elf::SHF_EXECINSTR) {
        b't'
    } else if s.kind == elf::SHT_NOBITS.0 {
        b'b'
    } else if has(elf::SHF_ALLOC) {
        if has(elf::SHF_WRITE) {
            b'd'
        } else {
            b'r'
        }
    } else if s.name.starts_with(b".debug") {
        b'N'
    } else if !has(elf::SHF_WRITE) {
        b'n'
    } else {
        b'?'
    }
}

/// The number of relocation entries: `SHT_REL`/`SHT_RELA` sections by their entry size,
/// `SHT_RELR` sections by the addresses their words encode.
fn relocation_count(file: &ElfFile<'_>) -> u64 {
    let mut count = 0u64;
    for s in file.sections.iter().skip(1) {
        if s.kind == elf::SHT_REL.0 || s.kind == elf::SHT_RELA.0 {
            count += s.size.checked_div(s.entsize).unwrap_or(0);
        } else if s.kind == elf::SHT_RELR.0 {
            if let Ok(SectionData::Bytes(words)) = file.data(s) {
                count += relr_count(&words, file.is_64, file.big_endian);
            }
        }
    }
    count
}

/// Number of relocations a `SHT_RELR` section encodes, decoded by `object` in the file's
/// byte order and class.
fn relr_count(data: &[u8], is_64: bool, big_endian: bool) -> u64 {
    let endian = if big_endian {
        Endianness::Big
    } else {
        Endianness::Little
    };
    // `Relr32`/`Relr64` are byte arrays, so any alignment of `data` will do; a partial
    // word at the end is ignored.
    let width = if is_64 { 8 } else { 4 };
    let data = data.get(..data.len() / width * width).unwrap_or_default();
    if is_64 {
        let words = object::pod::slice_from_all_bytes::<elf::Relr64<Endianness>>(data);
        words.map_or(0, |w| {
            RelrIterator::<elf::FileHeader64<Endianness>>::new(endian, w).count() as u64
        })
    } else {
        let words = object::pod::slice_from_all_bytes::<elf::Relr32<Endianness>>(data);
        words.map_or(0, |w| {
            RelrIterator::<elf::FileHeader32<Endianness>>::new(endian, w).count() as u64
        })
    }
}
