//! Range and return-pad records: decoding of their message bodies and the borrowed views.

use super::line_table::{
    packed_count_u32, packed_small, LineTable, OFFSET_OVERFLOW, TOO_MANY_ROWS,
};
use super::proto::{repeated_values, Column, Fields, Value};
use super::raw::{line_table, range, return_pad};
use super::strings::Strings;
use super::usual::{peek_usual, range_usual};
use crate::ErrorKind;

/// What went wrong in a record body: the section name and the error kind (the decoder adds
/// the message offset).
pub(crate) type Fail = (&'static str, ErrorKind);

const RANGE: &str = "range";
pub(super) const LINE_TABLE: &str = "line table";
const RETURN_PAD: &str = "return pad";

fn malformed(section: &'static str) -> impl Fn(&'static str) -> Fail {
    move |what| (section, ErrorKind::Malformed(what))
}

fn to_u32(section: &'static str, value: u64) -> Result<u32, Fail> {
    u32::try_from(value).map_err(|_| {
        (
            section,
            ErrorKind::OutOfRange {
                value,
                limit: u64::from(u32::MAX),
            },
        )
    })
}

/// What a record's VA is resolved against.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub(crate) enum VaBase {
    /// The previous record's VA, in a pass over the file (spec §3.1).
    After(Option<u64>),
    /// The VA an earlier pass resolved for this record: a record read alone, through an
    /// index, cannot follow the delta chain.
    Known(u64),
}

/// The ELF VA of a record from its `deltaElfVA` / `setElfVA` field and `base`.
#[inline]
fn elf_va(section: &'static str, va: Option<VaField>, base: VaBase) -> Result<u64, Fail> {
    match (va, base) {
        (None, _) => Err((section, ErrorKind::Malformed("record without an ELF VA"))),
        // An absolute VA that is not the one given: the caller's position is wrong.
        (Some(VaField::Set(v)), VaBase::Known(known)) if v != known => Err((
            section,
            ErrorKind::Mismatch {
                expected: known,
                found: v,
            },
        )),
        (Some(_), VaBase::Known(known)) => Ok(known),
        (Some(VaField::Set(v)), VaBase::After(_)) => Ok(v),
        (Some(VaField::Delta(d)), VaBase::After(prev)) => prev
            .map(|p| p.wrapping_add_signed(crate::varint::zigzag(d)))
            .ok_or((
                section,
                ErrorKind::Malformed("delta ELF VA before any absolute VA"),
            )),
    }
}

#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub(super) enum VaField {
    Delta(u64),
    Set(u64),
}

/// Just the VA and length of a record, for lookups that decode only what covers the
/// address. `set_field` is the record's `setElfVA` field number, which tells the kind:
/// [`range::SET_ELF_VA`] or [`return_pad::SET_ELF_VA`].
#[inline(always)]
pub(crate) fn peek(
    body: &[u8],
    set_field: u32,
    section: &'static str,
    prev: Option<u64>,
) -> Result<(u64, u64), Fail> {
    match peek_usual(body, set_field) {
        Some(found) => Ok((elf_va(section, found.0, VaBase::After(prev))?, found.1)),
        None => peek_fields(body, set_field, section, prev),
    }
}

/// [`peek`] by the general field walk.
#[inline(never)]
pub(super) fn peek_fields(
    body: &[u8],
    set_field: u32,
    section: &'static str,
    prev: Option<u64>,
) -> Result<(u64, u64), Fail> {
    let mut va = None;
    let mut length = 0;
    for field in Fields::new(body) {
        let field = field.map_err(malformed(section))?;
        match (field.number, field.value) {
            // `deltaElfVA` has the same number in both kinds.
            (range::DELTA_ELF_VA, Value::Varint(v)) => va = Some(VaField::Delta(v)),
            (n, Value::Varint(v)) if n == set_field => va = Some(VaField::Set(v)),
            (range::LENGTH, Value::Varint(v)) if set_field == range::SET_ELF_VA => length = v,
            _ => {}
        }
    }
    Ok((elf_va(section, va, VaBase::After(prev))?, length))
}

/// A string field: inline bytes or a string-table index.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub(super) enum StrField<'a> {
    Inline(&'a [u8]),
    Ref(u64),
}

/// One `RangeV1` record: an address range with its function, file, inline depth, call site
/// and line table. Strings borrow from the file.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
pub struct Range<'a> {
    /// Offset of the record's message in the file.
    pub offset: u64,
    /// Start address (ELF virtual address).
    pub va: u64,
    /// Bytes covered: the range is `[va, va + length)` (u64 as on the wire).
    pub length: u64,
    /// Function name.
    pub func: &'a str,
    /// Source file of the record's own line rows, if any.
    pub file: Option<&'a str>,
    /// File of the call site in the parent (inline records).
    pub call_file: Option<&'a str>,
    /// Line of the call site in the parent; `None` for 0.
    pub call_line: Option<u32>,
    /// Inline depth: 0 for a top-level function.
    pub depth: u32,
    /// The line table.
    pub line_table: LineTable<'a>,
}

impl<'a> Range<'a> {
    /// An empty range, to initialise output buffers.
    pub const EMPTY: Range<'static> = Range {
        offset: 0,
        va: 0,
        length: 0,
        func: "",
        file: None,
        call_file: None,
        call_line: None,
        depth: 0,
        line_table: LineTable {
            body: &[],
            rows: 0,
            packed: None,
        },
    };

    /// True if `addr` lies in `[va, va + length)` (computed without overflow).
    pub fn contains(&self, addr: u64) -> bool {
        addr.checked_sub(self.va).is_some_and(|d| d < self.length)
    }

    /// The line of `addr` from this record's own line table: the last row whose offset is
    /// at most `addr − va`; `None` before the first row or outside the range.
    pub fn line_at(&self, addr: u64) -> Option<u32> {
        if !self.contains(addr) {
            return None;
        }
        let rel = addr.wrapping_sub(self.va);
        let mut found = None;
        for row in self.line_table.iter() {
            if u64::from(row.offset) > rel {
                break;
            }
            found = Some(row.line);
        }
        found
    }
}

/// A range's string-table index resolved in `strings`, for [`decode_range`].
#[inline(always)]
pub(crate) fn resolver<'a, 's>(
    strings: Strings<'a, 's>,
) -> impl Fn(u64) -> Result<&'a str, Fail> + 's
where
    'a: 's,
{
    move |i: u64| {
        u32::try_from(i).ok().and_then(|i| strings.get(i)).ok_or((
            RANGE,
            ErrorKind::OutOfRange {
                value: i,
                limit: u64::from(strings.len()),
            },
        ))
    }
}

/// The fields of a `RangeV1` body, strings not yet resolved.
#[derive(Debug, Default, PartialEq, Eq)]
pub(super) struct RangeFields<'a> {
    pub(super) va: Option<VaField>,
    pub(super) length: u64,
    pub(super) func: Option<StrField<'a>>,
    pub(super) file: Option<StrField<'a>>,
    pub(super) call_file: Option<StrField<'a>>,
    pub(super) call_line: u32,
    pub(super) depth: u32,
    pub(super) rows: u32,
    /// The two packed line-table columns when the table is written the usual way.
    pub(super) packed: Option<(&'a [u8], &'a [u8])>,
}

/// Decodes a `RangeV1` body. `resolve` turns a string-table index into its string.
#[inline(always)]
pub(crate) fn decode_range<'a>(
    offset: u64,
    body: &'a [u8],
    base: VaBase,
    mut resolve: impl FnMut(u64) -> Result<&'a str, Fail>,
) -> Result<Range<'a>, Fail> {
    // Borrowed, not moved out of the `Option`: the move reads back as one 16-byte load
    // what was just stored as two 8-byte halves, which stalls store forwarding (a tenth of
    // an indexed lookup's time).
    let usual = range_usual(body);
    let general;
    let f = match &usual {
        Some(f) => f,
        None => {
            general = range_fields(body)?;
            &general
        }
    };
    let va = elf_va(RANGE, f.va, base)?;
    let mut string = |f: Option<StrField<'a>>| -> Result<Option<&'a str>, Fail> {
        match f {
            None => Ok(None),
            Some(StrField::Inline(b)) => core::str::from_utf8(b)
                .map(Some)
                .map_err(|_| (RANGE, ErrorKind::InvalidUtf8)),
            Some(StrField::Ref(i)) => resolve(i).map(Some),
        }
    };
    let func = string(f.func)?.ok_or((RANGE, ErrorKind::Malformed("range without a function")))?;
    Ok(Range {
        offset,
        va,
        length: f.length,
        func,
        file: string(f.file)?,
        call_file: string(f.call_file)?,
        call_line: (f.call_line != 0).then_some(f.call_line),
        depth: f.depth,
        line_table: LineTable {
            body,
            rows: f.rows,
            packed: f.packed,
        },
    })
}

/// The fields of any `RangeV1` body, by the general field walk; every rule checked.
#[inline(never)]
pub(super) fn range_fields(body: &[u8]) -> Result<RangeFields<'_>, Fail> {
    let wrong_wire = (
        RANGE,
        ErrorKind::Malformed("known field with the wrong wire type"),
    );
    let mut va = None;
    let mut length = 0;
    let (mut func, mut file, mut call_file) = (None, None, None);
    let (mut call_line, mut depth) = (0, 0);
    let (mut offsets, mut lines, mut sum) = (0u32, 0u32, 0u32);
    // The usual encoding: one lineTable with one packed field per column.
    let (mut tables, mut packed_offsets, mut packed_lines, mut plain) = (0u32, None, None, true);
    for field in Fields::new(body) {
        let field = field.map_err(malformed(RANGE))?;
        match (field.number, field.value) {
            (range::DELTA_ELF_VA, Value::Varint(v)) => va = Some(VaField::Delta(v)),
            (range::SET_ELF_VA, Value::Varint(v)) => va = Some(VaField::Set(v)),
            (range::LENGTH, Value::Varint(v)) => length = v,
            (range::FUNC_STR, Value::Bytes(b)) => func = Some(StrField::Inline(b)),
            (range::FUNC_REF, Value::Varint(v)) => func = Some(StrField::Ref(v)),
            (range::FILE_STR, Value::Bytes(b)) => file = Some(StrField::Inline(b)),
            (range::FILE_REF, Value::Varint(v)) => file = Some(StrField::Ref(v)),
            (range::CALL_LINE, Value::Varint(v)) => call_line = to_u32(RANGE, v)?,
            (range::CALL_FILE_STR, Value::Bytes(b)) => call_file = Some(StrField::Inline(b)),
            (range::CALL_FILE_REF, Value::Varint(v)) => call_file = Some(StrField::Ref(v)),
            (range::DEPTH, Value::Varint(v)) => depth = to_u32(RANGE, v)?,
            (range::LINE_TABLE, Value::Bytes(table)) => {
                tables = tables.saturating_add(1);
                for inner in Fields::new(table) {
                    let inner = inner.map_err(malformed(LINE_TABLE))?;
                    let column = match inner.number {
                        line_table::OFFSET => &mut packed_offsets,
                        line_table::LINE_NUMBER => &mut packed_lines,
                        _ => &mut None,
                    };
                    let known =
                        matches!(inner.number, line_table::OFFSET | line_table::LINE_NUMBER);
                    match (inner.value, &column) {
                        (Value::Bytes(b), None) => *column = Some(b),
                        (_, _) if known => plain = false,
                        _ => {}
                    }
                    match (inner.number, inner.value) {
                        (line_table::OFFSET, Value::Bytes(b))
                            if let Some((n, s)) = packed_small(b) =>
                        {
                            offsets = offsets.checked_add(n).ok_or(TOO_MANY_ROWS)?;
                            sum = sum.checked_add(s).ok_or(OFFSET_OVERFLOW)?;
                        }
                        (line_table::LINE_NUMBER, Value::Bytes(b))
                            if let Some(n) = packed_count_u32(b) =>
                        {
                            lines = lines.checked_add(n).ok_or(TOO_MANY_ROWS)?;
                        }
                        (line_table::OFFSET, value) => repeated_values(value, |v| {
                            let v = u32::try_from(v).map_err(|_| "offset does not fit u32")?;
                            sum = sum
                                .checked_add(v)
                                .ok_or("cumulative offset overflows u32")?;
                            offsets = offsets.checked_add(1).ok_or("too many rows")?;
                            Ok(())
                        })
                        .map_err(malformed(LINE_TABLE))?,
                        (line_table::LINE_NUMBER, value) => repeated_values(value, |v| {
                            u32::try_from(v).map_err(|_| "line does not fit u32")?;
                            lines = lines.checked_add(1).ok_or("too many rows")?;
                            Ok(())
                        })
                        .map_err(malformed(LINE_TABLE))?,
                        _ => {}
                    }
                }
            }
            (
                range::DELTA_ELF_VA
                | range::SET_ELF_VA
                | range::LENGTH
                | range::FUNC_REF
                | range::FILE_REF
                | range::CALL_LINE
                | range::CALL_FILE_REF
                | range::DEPTH
                | range::FUNC_STR
                | range::FILE_STR
                | range::CALL_FILE_STR
                | range::LINE_TABLE,
                _,
            ) => return Err(wrong_wire),
            _ => {}
        }
    }
    if offsets != lines {
        return Err((
            LINE_TABLE,
            ErrorKind::Mismatch {
                expected: u64::from(offsets),
                found: u64::from(lines),
            },
        ));
    }
    Ok(RangeFields {
        va,
        length,
        func,
        file,
        call_file,
        call_line,
        depth,
        rows: offsets,
        packed: if plain && tables == 1 {
            Some((packed_offsets.unwrap_or(&[]), packed_lines.unwrap_or(&[])))
        } else {
            None
        },
    })
}

/// One `ReturnPadV1` record: the inline trace of a return address (a call's next
/// instruction minus one), outermost frame first.
#[derive(Copy, Clone, Debug)]
pub struct ReturnPad<'a, 's> {
    /// Offset of the record's message in the file.
    pub offset: u64,
    /// The return-pad address.
    pub va: u64,
    body: &'a [u8],
    entries: u32,
    strings: Strings<'a, 's>,
}

impl<'a> ReturnPad<'a, '_> {
    /// Number of entries (inline levels).
    pub fn len(&self) -> u32 {
        self.entries
    }

    /// True if the pad has no entry.
    pub fn is_empty(&self) -> bool {
        self.entries == 0
    }

    /// The entries, outermost first.
    pub fn entries(&self) -> PadEntries<'a, '_> {
        PadEntries {
            funcs: Column::new(self.body, return_pad::FUNC),
            files: Column::new(self.body, return_pad::FILE),
            lines: Column::new(self.body, return_pad::LINE),
            strings: self.strings,
            left: self.entries,
        }
    }
}

/// One return-pad entry. For every entry but the last, `file`/`line` are the call site
/// inside `func` leading to the next entry; for the last, the pad's own file and line.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct PadEntry<'a> {
    /// Function name.
    pub func: &'a str,
    /// Source file (`None` for the empty string).
    pub file: Option<&'a str>,
    /// Source line (`None` for 0).
    pub line: Option<u32>,
}

/// Iterator over a [`ReturnPad`]'s entries.
#[derive(Clone, Debug)]
pub struct PadEntries<'a, 's> {
    funcs: Column<'a>,
    files: Column<'a>,
    lines: Column<'a>,
    strings: Strings<'a, 's>,
    left: u32,
}

impl<'a> Iterator for PadEntries<'a, '_> {
    type Item = PadEntry<'a>;

    fn next(&mut self) -> Option<PadEntry<'a>> {
        self.left = self.left.checked_sub(1)?;
        let func = self.strings.get(u32::try_from(self.funcs.next()?).ok()?)?;
        let file = self.strings.get(u32::try_from(self.files.next()?).ok()?)?;
        let line = u32::try_from(self.lines.next()?).ok()?;
        Some(PadEntry {
            func,
            file: (!file.is_empty()).then_some(file),
            line: (line != 0).then_some(line),
        })
    }
}

/// Decodes a `ReturnPadV1` body against the current string table.
pub(crate) fn decode_return_pad<'a, 's>(
    offset: u64,
    body: &'a [u8],
    base: VaBase,
    strings: Strings<'a, 's>,
) -> Result<ReturnPad<'a, 's>, Fail> {
    let mut va = None;
    let mut counts = [0u32; 3];
    let table_len = u64::from(strings.len());
    for field in Fields::new(body) {
        let field = field.map_err(malformed(RETURN_PAD))?;
        match (field.number, field.value) {
            (return_pad::DELTA_ELF_VA, Value::Varint(v)) => va = Some(VaField::Delta(v)),
            (return_pad::SET_ELF_VA, Value::Varint(v)) => va = Some(VaField::Set(v)),
            (return_pad::DELTA_ELF_VA | return_pad::SET_ELF_VA, _) => {
                return Err((
                    RETURN_PAD,
                    ErrorKind::Malformed("known field with the wrong wire type"),
                ))
            }
            (n @ return_pad::FUNC..=return_pad::LINE, value) => {
                let mut bad_index = None;
                // Columns func, file, line are consecutive fields.
                let column = usize::try_from(n.wrapping_sub(return_pad::FUNC)).unwrap_or(0);
                let Some(count) = counts.get_mut(column) else {
                    continue;
                };
                repeated_values(value, |v| {
                    u32::try_from(v).map_err(|_| "value does not fit u32")?;
                    if n != return_pad::LINE && v >= table_len {
                        bad_index = Some(v);
                        return Err("string index out of range");
                    }
                    *count = count.checked_add(1).ok_or("too many entries")?;
                    Ok(())
                })
                .map_err(|e| match bad_index {
                    Some(value) => (
                        RETURN_PAD,
                        ErrorKind::OutOfRange {
                            value,
                            limit: table_len,
                        },
                    ),
                    None => (RETURN_PAD, ErrorKind::Malformed(e)),
                })?;
            }
            _ => {}
        }
    }
    let [funcs, files, lines] = counts;
    if funcs != files || funcs != lines {
        let found = if funcs != files { files } else { lines };
        return Err((
            RETURN_PAD,
            ErrorKind::Mismatch {
                expected: u64::from(funcs),
                found: u64::from(found),
            },
        ));
    }
    Ok(ReturnPad {
        offset,
        va: elf_va(RETURN_PAD, va, base)?,
        body,
        entries: funcs,
        strings,
    })
}
