//! ELF symbol tables read as Pyroscope reads them through Go's `debug/elf` (spec 12.2):
//! the first `SHT_SYMTAB`, or the first `SHT_DYNSYM` only when that fails.

use std::borrow::Cow;
use std::fmt;

use object::elf::{SHT_DYNSYM, SHT_SYMTAB, STT_FUNC};
use object::{Endian, Endianness};

use super::file::{ElfFile, SectionData};
use crate::error::{Error, ErrorKind};

/// Why a symbol table could not be read.
#[derive(Debug)]
pub(crate) enum SymbolsError {
    /// There is no section of the requested type (Go's `ErrNoSymbols`).
    Missing,
    /// The section exists but cannot be read.
    Malformed(Error),
}

impl fmt::Display for SymbolsError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            SymbolsError::Missing => f.write_str("no such section"),
            SymbolsError::Malformed(p) => p.fmt(f),
        }
    }
}

/// Neither symbol table could be read, and at least one exists.
#[derive(Debug)]
pub(crate) struct SymbolTablesError {
    /// Why `.symtab` could not be read.
    pub symtab: SymbolsError,
    /// Why `.dynsym` could not be read.
    pub dynsym: SymbolsError,
}

impl fmt::Display for SymbolTablesError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "cannot read symbols: .symtab: {}; .dynsym: {}",
            self.symtab, self.dynsym
        )
    }
}

impl std::error::Error for SymbolTablesError {
    /// The problem of the first table that exists.
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match (&self.symtab, &self.dynsym) {
            (SymbolsError::Malformed(p), _) | (_, SymbolsError::Malformed(p)) => Some(p),
            _ => None,
        }
    }
}

/// A readable symbol table: its entries and the string table its names come from.
pub(crate) struct SymbolTable<'a> {
    /// The entries, the null entry 0 included; `None` for an `SHT_NOBITS` table, whose
    /// entries Go reads as zeros (all names empty, so nothing is kept).
    entries: Option<Cow<'a, [u8]>>,
    /// The names; `None` for an `SHT_NOBITS` string table (all names empty).
    names: Option<Cow<'a, [u8]>>,
    entry_size: usize,
    is_64: bool,
    endian: Endianness,
}

/// A symbol kept for Lidia: a named `STT_FUNC`.
#[derive(Clone, Copy, Debug)]
pub(crate) struct FuncSymbol<'n> {
    /// `st_value`.
    pub value: u64,
    /// `st_size`.
    pub size: u64,
    /// Name bytes up to the NUL, exactly as stored.
    pub name: &'n [u8],
}

/// The symbols Pyroscope uses: `.symtab`, or `.dynsym` if that fails; `Ok(None)` when
/// neither section exists (pyroscope #4895), an error when both fail otherwise.
pub(crate) fn read<'a>(elf: &ElfFile<'a>) -> Result<Option<SymbolTable<'a>>, SymbolTablesError> {
    let symtab_error = match SymbolTable::open(elf, SHT_SYMTAB.0) {
        Ok(t) => return Ok(Some(t)),
        Err(e) => e,
    };
    match (symtab_error, SymbolTable::open(elf, SHT_DYNSYM.0)) {
        (_, Ok(t)) => Ok(Some(t)),
        (SymbolsError::Missing, Err(SymbolsError::Missing)) => Ok(None),
        (symtab, Err(dynsym)) => Err(SymbolTablesError { symtab, dynsym }),
    }
}

impl<'a> SymbolTable<'a> {
    /// Opens the first section of type `kind`, with the checks of Go's `getSymbols`.
    fn open(elf: &ElfFile<'a>, kind: u32) -> Result<Self, SymbolsError> {
        let (_, section) = elf.section_by_type(kind).ok_or(SymbolsError::Missing)?;
        let entry_size = if elf.is_64 { 24 } else { 16 };
        let entries = match elf.data(section).map_err(SymbolsError::Malformed)? {
            SectionData::Bytes(b) => {
                check_multiple(b.len() as u64, entry_size)?;
                Some(b)
            }
            SectionData::Zeros(n) => {
                check_multiple(n, entry_size)?;
                None
            }
        };
        let link = section.link as usize;
        let strings = (link != 0)
            .then(|| elf.sections.get(link))
            .flatten()
            .ok_or_else(|| {
                let message = format!("invalid string table link {}", section.link);
                SymbolsError::Malformed(Error::unnamed(ErrorKind::Malformed, message))
            })?;
        let names = match elf.data(strings).map_err(SymbolsError::Malformed)? {
            SectionData::Bytes(b) => Some(b),
            SectionData::Zeros(_) => None,
        };
        Ok(SymbolTable {
            entries,
            names,
            entry_size: entry_size as usize,
            is_64: elf.is_64,
            endian: elf.endian(),
        })
    }

    /// The named `STT_FUNC` symbols, in table order, entry 0 skipped.
    pub(crate) fn functions(&self) -> impl Iterator<Item = FuncSymbol<'_>> + '_ {
        let entries: &[u8] = self.entries.as_deref().unwrap_or_default();
        entries
            .chunks_exact(self.entry_size)
            .skip(1)
            .filter_map(move |e| self.decode(e))
    }

    /// Decodes one entry, keeping it only if it is a `STT_FUNC` with a non-empty name.
    fn decode(&self, e: &[u8]) -> Option<FuncSymbol<'_>> {
        let endian = self.endian;
        let u32_at = |at: usize| Some(endian.read_u32(e.get(at..at + 4)?.try_into().ok()?));
        let u64_at = |at: usize| Some(endian.read_u64(e.get(at..at + 8)?.try_into().ok()?));
        let (info, value, size) = if self.is_64 {
            (*e.get(4)?, u64_at(8)?, u64_at(16)?)
        } else {
            (*e.get(12)?, u64::from(u32_at(4)?), u64::from(u32_at(8)?))
        };
        if info & 0xf != STT_FUNC.0 {
            return None;
        }
        let name = self.name(u32_at(0)?);
        (!name.is_empty()).then_some(FuncSymbol { value, size, name })
    }

    /// The NUL-terminated name at `offset`, or empty when the offset is outside the table
    /// or no NUL follows it (Go's `getString`).
    fn name(&self, offset: u32) -> &[u8] {
        let names: &[u8] = self.names.as_deref().unwrap_or_default();
        let tail = names.get(offset as usize..).unwrap_or_default();
        match tail.iter().position(|&b| b == 0) {
            Some(end) => &tail[..end],
            None => &[],
        }
    }
}

fn check_multiple(len: u64, entry_size: u64) -> Result<(), SymbolsError> {
    if len.is_multiple_of(entry_size) {
        Ok(())
    } else {
        Err(SymbolsError::Malformed(Error::unnamed(
            ErrorKind::Malformed,
            format!("size {len} is not a multiple of the entry size {entry_size}"),
        )))
    }
}

#[cfg(test)]
mod tests {
    use std::error::Error as _;

    use object::{Object, ObjectSection};

    use super::*;

    /// A program whose `.symtab` and `.dynsym` sizes are cut by one byte, and the sizes
    /// they had (read by the `object` crate).
    fn cut_tables() -> (Vec<u8>, u64, u64) {
        let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../testdata/lidia/elf/simple");
        let mut data = std::fs::read(path).expect("test program");
        let (shoff, shentsize, sizes) = {
            let obj = object::File::parse(&*data).expect("ELF");
            let header = |at: usize, n: usize| {
                let b: [u8; 8] = data[at..at + 8].try_into().unwrap();
                u64::from_le_bytes(b) & (u64::MAX >> (64 - 8 * n))
            };
            let size = |name: &str| {
                let s = obj.section_by_name(name).expect(name);
                (s.index().0, s.size())
            };
            (
                header(0x28, 8),
                header(0x3a, 2),
                [size(".symtab"), size(".dynsym")],
            )
        };
        for (index, size) in sizes {
            let at = (shoff + index as u64 * shentsize + 32) as usize;
            data[at..at + 8].copy_from_slice(&(size - 1).to_le_bytes());
        }
        (data, sizes[0].1, sizes[1].1)
    }

    #[test]
    fn both_tables_unreadable_is_a_typed_error_naming_each() {
        let (data, symtab, dynsym) = cut_tables();
        let elf = ElfFile::parse(&data).expect("still an ELF");
        let Err(e) = read(&elf) else {
            panic!("cut tables were read");
        };
        assert!(matches!(e.symtab, SymbolsError::Malformed(_)), "{e:?}");
        assert!(matches!(e.dynsym, SymbolsError::Malformed(_)), "{e:?}");
        assert_eq!(
            e.to_string(),
            format!(
                "cannot read symbols: .symtab: size {} is not a multiple of the entry size 24; \
                 .dynsym: size {} is not a multiple of the entry size 24",
                symtab - 1,
                dynsym - 1
            )
        );
        assert!(e.source().is_some());
    }
}
