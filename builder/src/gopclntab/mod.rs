//! Go functions from `.gopclntab`, as Pyroscope's trimmed copy of Go's `debug/gosym`
//! finds them (spec 12.3): Go 1.2, 1.16, 1.18 and 1.20+ table layouts.
//!
//! The Go code indexes slices freely and recovers from the panic of any out-of-range
//! access by returning no functions at all; here every access is checked and any failure
//! gives the same "no functions".

mod groups;
mod pcvalue;

use crate::elf::file::{ElfFile, SectionData};
use crate::error::{Error, ErrorKind};

pub(crate) use groups::with_go_lines;
pub(crate) use pcvalue::{LineSpan, PcTables, Position};

/// One function of the table: `[entry, end)` and its name.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct GoFunc<'a> {
    /// Entry PC.
    pub entry: u64,
    /// Entry PC of the next function (the end of this one, padding included).
    pub end: u64,
    /// Name as stored in the function-name table.
    pub name: &'a [u8],
    /// The function's `_func` record from its `nameOff` field on (Go 1.16+ tables only;
    /// read on demand by [`GoFunc::line_span`], never needed to list the functions).
    record: &'a [u8],
    /// The pc-value, compilation-unit and file tables (Go 1.16+ tables only).
    tables: Option<PcTables<'a>>,
}

/// Why the build must fail (the errors Pyroscope returns rather than recovers from).
#[derive(Debug)]
pub(crate) enum PclntabError {
    /// No section named `.text` (Go's `empty text`), checked even for non-Go files.
    NoText,
    /// Anything else, described.
    Other(Error),
}

const GO12_MAGIC: u32 = 0xFFFF_FFFB;
const GO116_MAGIC: u32 = 0xFFFF_FFFA;
const GO118_MAGIC: u32 = 0xFFFF_FFF0;
const GO120_MAGIC: u32 = 0xFFFF_FFF1;
const HEADER_SIZE: usize = 64;

/// Calls `visit` for each function of the ELF's `.gopclntab`, in functab order; for none
/// when there is no such section, the table is not one of the known layouts, or any part
/// of it is out of range (the whole table is parsed before the first call).
pub(crate) fn for_each_function(
    elf: &ElfFile<'_>,
    mut visit: impl FnMut(&GoFunc<'_>),
) -> Result<(), PclntabError> {
    let text = elf.section_by_name(b".text").ok_or(PclntabError::NoText)?;
    let Some(section) = elf.section_by_name(b".gopclntab") else {
        return Ok(());
    };
    let data = match elf.data(section).map_err(PclntabError::Other)? {
        SectionData::Bytes(b) => b,
        // Go 1.19 reads an SHT_NOBITS table as zeros: no valid magic, so no functions,
        // after the same size and .text checks as a real one.
        SectionData::Zeros(n) => {
            if n < HEADER_SIZE as u64 {
                return Err(invalid_header());
            }
            text_start(&[0; HEADER_SIZE], text.addr, text.size)?;
            return Ok(());
        }
    };
    if data.len() < HEADER_SIZE {
        return Err(invalid_header());
    }
    let text_start = text_start(&data, text.addr, text.size)?;
    for f in parse(&data, text_start).unwrap_or_default() {
        visit(&f);
    }
    Ok(())
}

fn invalid_header() -> PclntabError {
    PclntabError::Other(
        Error::unnamed(
            ErrorKind::Malformed,
            "invalid .gopclntab header (shorter than 64 bytes)",
        )
        .with_section(".gopclntab"),
    )
}

/// The base PC of Go 1.18+ function offsets, checked against `.text` like Pyroscope does.
///
/// Pyroscope reads the little-endian u64 at bytes 24..32 whatever the pointer size. That is
/// the header's `textStart` for 64-bit tables; for 32-bit (pointer size 4) Go 1.18+ tables
/// it is two unrelated words, which makes every such build fail upstream. We read the
/// pointer-sized `textStart` word (at 8 + 2·4) for those instead, so 32-bit Go binaries
/// get the functions the Go code would give with the right value.
fn text_start(data: &[u8], text_addr: u64, text_size: u64) -> Result<u64, PclntabError> {
    let le32 = |at: usize| {
        data.get(at..at + 4)
            .and_then(|b| b.try_into().ok())
            .map(u32::from_le_bytes)
    };
    let le64 = |at: usize| {
        data.get(at..at + 8)
            .and_then(|b| b.try_into().ok())
            .map(u64::from_le_bytes)
    };
    let magic = le32(0).unwrap_or(0);
    let mut start = 0;
    if magic == GO118_MAGIC || magic == GO120_MAGIC {
        start = if data.get(7) == Some(&4) {
            le32(16).map_or(0, u64::from)
        } else {
            le64(24).unwrap_or(0)
        };
    }
    if start == 0 {
        start = text_addr;
    }
    if start < text_addr || start >= text_addr.wrapping_add(text_size) {
        return Err(PclntabError::Other(
            Error::unnamed(
                ErrorKind::Malformed,
                format!(
                    "runtime.text out of .text bounds: textStart {start:#x}, .text at \
                     {text_addr:#x} with size {text_size:#x}"
                ),
            )
            .with_section(".gopclntab"),
        ));
    }
    Ok(start)
}

/// A table layout: where its pieces are and how wide its fields are.
struct Table<'a> {
    big_endian: bool,
    ptr_size: usize,
    /// Go 1.18 or later: functab fields are 4 bytes and PCs are offsets from textStart.
    relative_pcs: bool,
    count: usize,
    names: &'a [u8],
    func_data: &'a [u8],
    functab: &'a [u8],
    text_start: u64,
    tables: Option<PcTables<'a>>,
}

/// The `size`-byte (at most 8) unsigned integer at the start of `b`.
fn uint(big_endian: bool, b: &[u8], size: usize) -> Option<u64> {
    let b = b.get(..size)?;
    Some(b.iter().enumerate().fold(0u64, |v, (i, &byte)| {
        let shift = if big_endian {
            (size - 1 - i) * 8
        } else {
            i * 8
        };
        v | u64::from(byte) << shift
    }))
}

/// Parses the table; `None` for an unknown layout or any out-of-range access.
fn parse(data: &[u8], text_start: u64) -> Option<Vec<GoFunc<'_>>> {
    let table = Table::new(data, text_start)?;
    let mut funcs = Vec::with_capacity(table.count.min(data.len() / 8));
    for i in 0..table.count {
        funcs.push(table.function(i)?);
    }
    Some(funcs)
}

impl<'a> Table<'a> {
    fn new(data: &'a [u8], text_start: u64) -> Option<Self> {
        let header = data.get(..16)?;
        if header[4] != 0 || header[5] != 0 || !matches!(header[6], 1 | 2 | 4) {
            return None;
        }
        let ptr_size = match header[7] {
            4 => 4,
            8 => 8,
            _ => return None,
        };
        let magic4: [u8; 4] = header[..4].try_into().ok()?;
        let (le, be) = (u32::from_le_bytes(magic4), u32::from_be_bytes(magic4));
        // Go tries each magic little-endian first, then big-endian, in version order.
        let (big_endian, magic) = [GO12_MAGIC, GO116_MAGIC, GO118_MAGIC, GO120_MAGIC]
            .into_iter()
            .find_map(|m| {
                if le == m {
                    Some((false, m))
                } else if be == m {
                    Some((true, m))
                } else {
                    None
                }
            })?;
        let mut t = Table {
            big_endian,
            ptr_size,
            relative_pcs: magic == GO118_MAGIC || magic == GO120_MAGIC,
            count: 0,
            names: &[],
            func_data: &[],
            functab: &[],
            text_start,
            tables: None,
        };
        let word = |k: usize| uint(big_endian, data.get(8 + k * ptr_size..)?, ptr_size);
        let from_word = |k: usize| data.get(usize::try_from(word(k)?).ok()?..);
        // nfunctab is a uint32 in Go: the word is truncated.
        t.count = word(0)? as u32 as usize;
        let tables = |cu: usize| {
            Some(PcTables {
                cutab: from_word(cu)?,
                filetab: from_word(cu + 1)?,
                pctab: from_word(cu + 2)?,
                quantum: header[6],
                big_endian,
            })
        };
        let (names, func_data) = match magic {
            GO118_MAGIC | GO120_MAGIC => {
                // Every table Go slices must be in range, even those not used here.
                for k in 4..=6 {
                    from_word(k)?;
                }
                t.tables = tables(4);
                (from_word(3)?, from_word(7)?)
            }
            GO116_MAGIC => {
                for k in 3..=5 {
                    from_word(k)?;
                }
                t.tables = tables(3);
                (from_word(2)?, from_word(6)?)
            }
            // Go 1.2: names and func data are relative to the table start, functab follows
            // the header; the file table Go also parses does not affect the functions.
            _ => (data, data),
        };
        let functab = if magic == GO12_MAGIC {
            data.get(8 + ptr_size..)?
        } else {
            func_data
        };
        let functab_size = t
            .count
            .checked_mul(2)?
            .checked_add(1)?
            .checked_mul(t.field_size())?;
        t.names = names;
        t.func_data = func_data;
        t.functab = functab.get(..functab_size)?;
        Some(t)
    }

    /// Size of a functab field: 4 from Go 1.18 on, the pointer size before.
    fn field_size(&self) -> usize {
        if self.relative_pcs {
            4
        } else {
            self.ptr_size
        }
    }

    /// The `size`-byte unsigned integer at the start of `b`, in the table's byte order.
    fn uint(&self, b: &[u8], size: usize) -> Option<u64> {
        uint(self.big_endian, b, size)
    }

    /// Functab field `k`.
    fn functab_field(&self, k: usize) -> Option<u64> {
        let sz = self.field_size();
        self.uint(self.functab.get(k.checked_mul(sz)?..)?, sz)
    }

    /// PC of function `i` (`i == count` gives the end of the last function).
    fn pc(&self, i: usize) -> Option<u64> {
        let pc = self.functab_field(i.checked_mul(2)?)?;
        Some(if self.relative_pcs {
            pc.wrapping_add(self.text_start)
        } else {
            pc
        })
    }

    /// Function `i`, with exactly the reads Go's `go12Funcs` makes (including the
    /// `deferreturn` field it reads and discards, whose absence also fails the table).
    fn function(&self, i: usize) -> Option<GoFunc<'a>> {
        let entry = self.pc(i)?;
        let end = self.pc(i + 1)?;
        let func_offset =
            usize::try_from(self.functab_field(i.checked_mul(2)?.checked_add(1)?)?).ok()?;
        let record = self.func_data.get(func_offset..)?;
        let first_field = if self.relative_pcs { 4 } else { self.ptr_size };
        // deferreturn is field 3: 4 bytes at first_field + 8.
        self.uint(record.get(first_field + 8..)?, 4)?;
        let name_offset = self.uint(record.get(first_field..)?, 4)? as usize;
        let tail = self.names.get(name_offset..)?;
        let len = tail.iter().position(|&b| b == 0)?;
        Some(GoFunc {
            entry,
            end,
            name: tail.get(..len)?,
            record: record.get(first_field..)?,
            tables: self.tables,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A Go 1.18-layout table, 64-bit little-endian, with the given functions.
    fn table118(funcs: &[(u32, &str)], end: u32) -> Vec<u8> {
        let n = funcs.len();
        let names_off = 72usize;
        let mut names = Vec::new();
        let mut name_offs = Vec::new();
        for (_, name) in funcs {
            name_offs.push(names.len() as u32);
            names.extend_from_slice(name.as_bytes());
            names.push(0);
        }
        let functab_off = names_off + names.len();
        let records_off = (n * 2 + 1) * 4;
        let mut functab = Vec::new();
        for (i, (pc, _)) in funcs.iter().enumerate() {
            functab.extend_from_slice(&pc.to_le_bytes());
            functab.extend_from_slice(&((records_off + i * 16) as u32).to_le_bytes());
        }
        functab.extend_from_slice(&end.to_le_bytes());
        for (i, (pc, _)) in funcs.iter().enumerate() {
            functab.extend_from_slice(&pc.to_le_bytes());
            functab.extend_from_slice(&name_offs[i].to_le_bytes());
            functab.extend_from_slice(&[0; 8]);
        }
        let mut data = vec![0u8; names_off];
        data[..4].copy_from_slice(&GO118_MAGIC.to_le_bytes());
        data[6] = 1;
        data[7] = 8;
        let mut put =
            |k: usize, v: u64| data[8 + 8 * k..16 + 8 * k].copy_from_slice(&v.to_le_bytes());
        put(0, n as u64);
        put(3, names_off as u64);
        for k in 4..=7 {
            put(k, functab_off as u64);
        }
        data.extend_from_slice(&names);
        data.extend_from_slice(&functab);
        data
    }

    #[test]
    fn reads_a_go118_table() {
        let data = table118(&[(0, "main.a"), (0x20, "main.b")], 0x48);
        let funcs = parse(&data, 0x1000).unwrap();
        let funcs: Vec<_> = funcs.iter().map(|f| (f.entry, f.end, f.name)).collect();
        assert_eq!(
            funcs,
            vec![
                (0x1000, 0x1020, b"main.a".as_slice()),
                (0x1020, 0x1048, b"main.b".as_slice())
            ]
        );
    }

    #[test]
    fn any_truncation_discards_every_function() {
        let data = table118(&[(0, "main.a"), (0x20, "main.b")], 0x48);
        for len in 16..data.len() {
            assert_eq!(parse(&data[..len], 0x1000), None, "length {len}");
        }
    }

    #[test]
    fn text_start_must_lie_in_text() {
        let data = table118(&[], 0);
        assert_eq!(text_start(&data, 0x1000, 0x10).ok(), Some(0x1000));
        assert!(text_start(&data, 0x1000, 0).is_err());
    }
}
