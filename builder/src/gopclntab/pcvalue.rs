//! A Go function's extent and source file as symblib's Go extractor finds them: the end of
//! its line table (`pcln`, not the next function's entry, so alignment padding is left
//! out) and the first file of its file table (`pcfile`), read from Go 1.16+ tables.
//!
//! Go's pc-value encoding (`runtime.pcvalue`): the value starts at −1 and the PC at the
//! entry; each step is a zigzag varint value delta (0 ends the table, except first) and a
//! varint PC delta in units of the instruction quantum, giving the value of `[pc, pc + Δ)`.

use symblob::varint::decode_uleb128;

use super::{uint, GoFunc};

/// The tables a function's pc-value offsets point into (Go 1.16+).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct PcTables<'a> {
    /// `cutab`: u32 file-table offsets per compilation unit.
    pub cutab: &'a [u8],
    /// `filetab`: NUL-terminated file names.
    pub filetab: &'a [u8],
    /// `pctab`: the pc-value tables.
    pub pctab: &'a [u8],
    /// Instruction size quantum (1 on x86, 4 on arm64).
    pub quantum: u8,
    /// Byte order of the table.
    pub big_endian: bool,
}

/// What symblib makes of one function.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum LineSpan<'a> {
    /// A record `[entry, end)` with the file of the first file-table row that names one.
    Range {
        /// End of the last line-table row.
        end: u64,
        /// First file named by the file table.
        file: Option<&'a str>,
    },
    /// Skipped: an empty line table, a line number of 0 or below −1, or a zero length.
    Skipped,
    /// Not a Go 1.16+ table (symblib reads none of those) or the record is out of range:
    /// the caller decides.
    Unknown,
}

/// `_func` field offsets after `nameOff` (which is at 0): pcfile, pcln, cuOffset.
const PCFILE: usize = 16;
const PCLN: usize = 20;
const CU_OFFSET: usize = 28;

impl<'a> GoFunc<'a> {
    /// The function's span and file by symblib's rules (see the module documentation).
    pub(crate) fn line_span(&self) -> LineSpan<'a> {
        let Some(t) = self.tables else {
            return LineSpan::Unknown;
        };
        let field = |at: usize| uint(t.big_endian, self.record.get(at..)?, 4);
        let (Some(pcfile), Some(pcln), Some(cu)) = (field(PCFILE), field(PCLN), field(CU_OFFSET))
        else {
            return LineSpan::Unknown;
        };
        let mut end = None;
        for row in PcValues::new(&t, pcln, self.entry) {
            let Some((_, row_end, line)) = row else {
                return LineSpan::Skipped; // a malformed table, as symblib's decoder error
            };
            if line == 0 || line < -1 {
                return LineSpan::Skipped;
            }
            end = Some(end.map_or(row_end, |e: u64| e.max(row_end)));
        }
        let Some(end) = end.filter(|&e| e > self.entry) else {
            return LineSpan::Skipped;
        };
        let file = PcValues::new(&t, pcfile, self.entry)
            .map_while(|row| row)
            .find_map(|(_, _, index)| file_name(&t, cu, index));
        LineSpan::Range { end, file }
    }
}

impl<'a> GoFunc<'a> {
    /// The function's source positions from its pc-file and pc-line tables: `(start,
    /// end, file, line)` pieces, one wherever the file or the line changes, in address
    /// order (a line of 0 or below is 0, "unknown"). `None` for tables older than Go 1.16,
    /// a record out of range or a malformed table.
    pub(crate) fn positions(&self) -> Option<Vec<Position<'a>>> {
        let t = self.tables?;
        let field = |at: usize| uint(t.big_endian, self.record.get(at..)?, 4);
        let (pcfile, pcln, cu) = (field(PCFILE)?, field(PCLN)?, field(CU_OFFSET)?);
        let lines: Vec<(u64, u64, i64)> =
            PcValues::new(&t, pcln, self.entry).collect::<Option<_>>()?;
        let files: Vec<(u64, u64, i64)> =
            PcValues::new(&t, pcfile, self.entry).collect::<Option<_>>()?;
        let mut out: Vec<Position<'a>> = Vec::new();
        let mut next_file = 0;
        for (start, end, line) in lines {
            let line = u32::try_from(line).unwrap_or(0);
            let mut at = start;
            while at < end {
                while files.get(next_file).is_some_and(|f| f.1 <= at) {
                    next_file += 1;
                }
                let (file, until) = match files.get(next_file) {
                    Some(&(s, e, index)) if s <= at => (file_name(&t, cu, index), e.min(end)),
                    Some(&(s, _, _)) => (None, s.min(end)),
                    None => (None, end),
                };
                out.push(Position {
                    start: at,
                    end: until,
                    file,
                    line,
                });
                at = until;
            }
        }
        Some(out)
    }
}

/// A piece of a function at one source position; see [`GoFunc::positions`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Position<'a> {
    pub start: u64,
    pub end: u64,
    pub file: Option<&'a str>,
    pub line: u32,
}

/// The name of file `index` of compilation unit `cu`; `None` for −1, an invalid entry or a
/// name that is not UTF-8.
fn file_name<'a>(t: &PcTables<'a>, cu: u64, index: i64) -> Option<&'a str> {
    let slot = usize::try_from(cu.checked_add(u64::try_from(index).ok()?)?).ok()?;
    let offset = uint(t.big_endian, t.cutab.get(slot.checked_mul(4)?..)?, 4)?;
    if offset == u64::from(u32::MAX) {
        return None;
    }
    let tail = t.filetab.get(usize::try_from(offset).ok()?..)?;
    let len = tail.iter().position(|&b| b == 0)?;
    std::str::from_utf8(tail.get(..len)?).ok()
}

/// The rows `(start, end, value)` of one pc-value table; `None` for a malformed row, after
/// which the iteration ends.
///
/// Offset 0 is an empty table, as the runtime reads it: the linker writes it for functions
/// without one (Go 1.24+ markers such as `go:textfipsstart`) and pads the start of `pctab`
/// so that no real table is there. symblib and `debug/gosym` decode that padding and the
/// tables after it instead, which gives such a function garbage lines.
struct PcValues<'a> {
    rest: &'a [u8],
    pc: u64,
    value: i64,
    quantum: u64,
    first: bool,
}

impl<'a> PcValues<'a> {
    fn new(t: &PcTables<'a>, offset: u64, entry: u64) -> Self {
        let rest = match usize::try_from(offset) {
            Ok(0) | Err(_) => &[][..],
            Ok(at) => t.pctab.get(at..).unwrap_or(&[]),
        };
        PcValues {
            rest,
            pc: entry,
            value: -1,
            quantum: u64::from(t.quantum),
            first: true,
        }
    }

    /// Go's `readvarint`: an unsigned LEB128 `u32` of at most five bytes (bits above 32
    /// dropped).
    fn varint(&mut self) -> Option<u32> {
        let (value, n) = decode_uleb128(self.rest).filter(|&(_, n)| n <= 5)?;
        self.rest = &self.rest[n..];
        Some(value as u32)
    }
}

impl Iterator for PcValues<'_> {
    type Item = Option<(u64, u64, i64)>;

    fn next(&mut self) -> Option<Self::Item> {
        if self.rest.is_empty() {
            return None;
        }
        let Some(delta) = self.varint() else {
            self.rest = &[];
            return Some(None);
        };
        if delta == 0 && !self.first {
            self.rest = &[];
            return None;
        }
        self.first = false;
        // Zigzag: Go's `int32(uvdelta>>1)` or its complement; values are int32 in Go.
        let delta = if delta & 1 != 0 {
            !(delta >> 1) as i32
        } else {
            (delta >> 1) as i32
        };
        let Some(pc_delta) = self.varint() else {
            self.rest = &[];
            return Some(None);
        };
        let start = self.pc;
        self.pc = start.wrapping_add(u64::from(pc_delta) * self.quantum);
        self.value = i64::from((self.value as i32).wrapping_add(delta));
        Some(Some((start, self.pc, self.value)))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tables<'a>(pctab: &'a [u8], cutab: &'a [u8], filetab: &'a [u8]) -> PcTables<'a> {
        PcTables {
            cutab,
            filetab,
            pctab,
            quantum: 1,
            big_endian: false,
        }
    }

    #[test]
    fn decodes_go_pcvalue_rows() {
        // Go's own example encoding: value +11 (zigzag 22) for 5 bytes, then −2 (3) for 3,
        // then the end marker; the table starts at offset 1 (0 means "no table").
        let pctab = [0xff, 22, 5, 3, 3, 0];
        let t = tables(&pctab, &[], &[]);
        let rows: Vec<_> = PcValues::new(&t, 1, 0x100).collect();
        assert_eq!(
            rows,
            vec![Some((0x100, 0x105, 10)), Some((0x105, 0x108, 8))]
        );
        assert_eq!(PcValues::new(&t, 0, 0x100).count(), 0);
    }

    #[test]
    fn file_names_go_through_the_unit_table() {
        let cutab = [0, 0, 0, 0, 5, 0, 0, 0, 0xff, 0xff, 0xff, 0xff];
        let filetab = b"a.go\0b.go\0";
        let t = tables(&[], &cutab, filetab);
        assert_eq!(file_name(&t, 0, 0), Some("a.go"));
        assert_eq!(file_name(&t, 1, 0), Some("b.go"));
        assert_eq!(file_name(&t, 0, 2), None);
        assert_eq!(file_name(&t, 0, -1), None);
    }
}
