//! ELF input, read directly with `object`: text symbols classified as binutils `nm` does,
//! and the text ranges a reader of the blob needs.

use std::ops::Range;

use object::elf;
use object::read::elf::{ElfFile, FileHeader, SectionHeader, Sym};
use object::{FileKind, SymbolIndex};

use super::code_ranges;
use crate::model::{accept, InputOptions, SymbolList};
use crate::{Error, ErrorKind, Location, Result};

/// The text symbols of an ELF file and its text ranges.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ElfSymbols {
    /// The kept symbols, in symbol-table order.
    pub symbols: SymbolList,
    /// Sorted, non-overlapping, non-empty `[start, end)` ranges of text, ready to pass
    /// to the reader: `[_stext, _etext)` and `[_sinittext, _einittext)` when the ELF
    /// defines those symbols (a kernel), otherwise the merged address ranges of its
    /// allocated executable sections.
    pub text_ranges: Vec<Range<u64>>,
}

/// Reads the text symbols of an ELF file (32- or 64-bit, either byte order) from its
/// `.symtab`, or from `.dynsym` if it has no `.symtab` (a stripped file).
///
/// Read: `STT_FUNC`, `STT_GNU_IFUNC` and named `STT_NOTYPE` symbols defined in a
/// `SHF_EXECINSTR` section, typed as binutils `nm` types them: `i` for an ifunc, else by
/// binding `t` local, `T` global, `W` weak, `u` unique. Undefined, absolute, common,
/// section and file symbols, symbols outside code, `.L` locals and mapping symbols are
/// skipped; then the type filter (by default every type: all function symbols are kept)
/// and name rules of `options` apply.
///
/// # Errors
///
/// [`ErrorKind::Malformed`] naming the input and the symbol index (or file offset) when
/// the file is not a readable ELF file or a kept name breaks the name rules;
/// [`ErrorKind::Unsupported`] for another object format.
pub fn read_elf(data: &[u8], input: &str, options: &InputOptions) -> Result<ElfSymbols> {
    let malformed =
        |e: object::Error| Error::malformed(input, Location::Whole, "bad ELF file").with_source(e);
    match FileKind::parse(data).map_err(malformed)? {
        FileKind::Elf32 => {
            read_typed::<elf::FileHeader32<object::Endianness>>(data, input, options)
        }
        FileKind::Elf64 => {
            read_typed::<elf::FileHeader64<object::Endianness>>(data, input, options)
        }
        other => Err(Error::new(
            ErrorKind::Unsupported,
            input,
            Location::Whole,
            format!("not an ELF file (detected {other:?})"),
        )),
    }
}

fn read_typed<Elf: FileHeader<Endian = object::Endianness>>(
    data: &[u8],
    input: &str,
    options: &InputOptions,
) -> Result<ElfSymbols> {
    let malformed =
        |e: object::Error| Error::malformed(input, Location::Whole, "bad ELF file").with_source(e);
    let file = ElfFile::<Elf>::parse(data).map_err(malformed)?;
    let endian = file.endian();
    let sections = file.elf_section_table();
    let mut table = file.elf_symbol_table();
    if table.is_empty() {
        table = file.elf_dynamic_symbol_table();
    }

    let mut list = SymbolList::default();
    let mut markers = TextMarkers::default();
    for (index, sym) in table.symbols().iter().enumerate().skip(1) {
        let at = Location::Index(index as u64);
        let name = table
            .symbol_name(endian, sym)
            .map_err(|e| Error::malformed(input, at, "bad symbol name").with_source(e))?;
        let section = table
            .symbol_section(endian, sym, SymbolIndex(index))
            .map_err(|e| Error::malformed(input, at, "bad symbol section").with_source(e))?;
        let value: u64 = sym.st_value(endian).into();
        let defined = section.is_some() || sym.st_shndx(endian) == elf::SHN_ABS;
        if defined {
            markers.note(name, value);
        }
        let st_type = sym.st_type();
        let wanted_type = match st_type {
            elf::STT_FUNC | elf::STT_GNU_IFUNC => true,
            elf::STT_NOTYPE => !name.is_empty(),
            _ => false,
        };
        let Some(section_index) = section else {
            if wanted_type {
                list.skipped_undefined += 1;
            } else if defined {
                list.skipped_not_function += 1;
            }
            continue;
        };
        let in_code = wanted_type && {
            let header = sections
                .section(section_index)
                .map_err(|e| Error::malformed(input, at, "bad symbol section").with_source(e))?;
            header.sh_flags(endian).contains(elf::SHF_EXECINSTR)
        };
        if !in_code {
            list.skipped_not_function += 1;
            continue;
        }
        if name.starts_with(b".L") {
            list.skipped_mapping += 1;
            continue;
        }
        // Only functions and untyped symbols are kept here, never objects. binutils `nm`
        // types an ifunc `i` whatever its binding.
        let kind = if st_type == elf::STT_GNU_IFUNC {
            b'i'
        } else {
            binding_letter(sym.st_bind(), false, b't')
        };
        let kept = options.types.keeps_from_elf(kind);
        accept(&mut list, options, kept, value, kind, name)
            .map_err(|e| Error::malformed(input, at, "").with_source(e))?;
    }

    let text_ranges = match markers.ranges() {
        Some(ranges) => ranges,
        None => code_ranges(&file),
    };
    Ok(ElfSymbols {
        symbols: list,
        text_ranges,
    })
}

/// The type letter of a defined symbol by its binding, given the lower-case letter of
/// what it is (`t` text, `d` data, …): weak `W` (`V` for an object), GNU unique `u`, local
/// as given, global in upper case, any other binding `?`. binutils `nm` and `llvm-nm`
/// agree on it; `llvm-nm`'s further rules for common, absolute and indirect symbols are
/// in `listing.rs`.
pub(crate) fn binding_letter(bind: elf::SymbolBind, is_object: bool, class: u8) -> u8 {
    match bind {
        elf::STB_WEAK if is_object => b'V',
        elf::STB_WEAK => b'W',
        elf::STB_GNU_UNIQUE => b'u',
        elf::STB_LOCAL => class,
        elf::STB_GLOBAL => class.to_ascii_uppercase(),
        _ => b'?',
    }
}

/// The kernel's text-boundary symbols, when present.
#[derive(Default)]
struct TextMarkers {
    stext: Option<u64>,
    etext: Option<u64>,
    sinittext: Option<u64>,
    einittext: Option<u64>,
}

impl TextMarkers {
    fn note(&mut self, name: &[u8], value: u64) {
        let slot = match name {
            b"_stext" => &mut self.stext,
            b"_etext" => &mut self.etext,
            b"_sinittext" => &mut self.sinittext,
            b"_einittext" => &mut self.einittext,
            _ => return,
        };
        slot.get_or_insert(value);
    }

    /// `[_stext, _etext)` and `[_sinittext, _einittext)`, or `None` without a valid main
    /// range.
    fn ranges(&self) -> Option<Vec<Range<u64>>> {
        let main = self.stext?..self.etext?;
        if main.is_empty() {
            return None;
        }
        let mut ranges = vec![main];
        if let (Some(start), Some(end)) = (self.sinittext, self.einittext) {
            ranges.push(start..end);
        }
        Some(normalise_ranges(ranges))
    }
}

/// Sorts ranges, drops empty ones and merges overlapping or touching ones, so that the
/// result satisfies the reader's rules for text ranges.
pub(crate) fn normalise_ranges(mut ranges: Vec<Range<u64>>) -> Vec<Range<u64>> {
    ranges.retain(|r| !r.is_empty());
    ranges.sort_by_key(|r| (r.start, r.end));
    let mut merged: Vec<Range<u64>> = Vec::with_capacity(ranges.len());
    for r in ranges {
        match merged.last_mut() {
            Some(last) if r.start <= last.end => last.end = last.end.max(r.end),
            _ => merged.push(r),
        }
    }
    merged
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn merges_ranges() {
        assert_eq!(
            normalise_ranges(vec![10..20, 0..5, 5..7, 15..30, 40..40]),
            vec![0..7, 10..30]
        );
    }

    #[test]
    fn rejects_non_elf() {
        let err = read_elf(b"not an elf", "x", &InputOptions::default()).unwrap_err();
        assert!(err.to_string().starts_with("x: "), "{err}");
    }
}
