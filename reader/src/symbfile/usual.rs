//! Fast paths of the record decoders for bodies of the usual shape (what symblib and
//! symblob write): one-byte keys, each known field with its own wire type, line tables
//! as one packed field per column. Each returns `None` on anything else, including every
//! malformed body, and the general field walk in [`records`](super::records) then
//! decodes or reports it; where a fast path answers, it answers as that walk would (the
//! tests below compare the two on generated bodies).

use super::line_table::{packed_count_u32, packed_small, packed_sum_u32};
use super::raw::{self, line_table, range, wire_type};
use super::records::{RangeFields, StrField, VaField};
use crate::varint::uleb128_prefix;

/// The one-byte key of `field` (below 16) with `wire_type`.
// Fields below 16 have keys below 0x80 (checked below), so the cast keeps every bit.
#[allow(clippy::cast_possible_truncation)]
const fn key(field: u32, wire_type: u8) -> u8 {
    raw::key(field, wire_type) as u8
}

const _: () = assert!(raw::key(15, wire_type::I32) < 0x80);

// The keys of the fields the fast paths read, as they appear on the wire.
const DELTA_ELF_VA: u8 = key(range::DELTA_ELF_VA, wire_type::VARINT);
const SET_ELF_VA: u8 = key(range::SET_ELF_VA, wire_type::VARINT);
const LENGTH: u8 = key(range::LENGTH, wire_type::VARINT);
const FUNC_STR: u8 = key(range::FUNC_STR, wire_type::LEN);
const FUNC_REF: u8 = key(range::FUNC_REF, wire_type::VARINT);
const FILE_STR: u8 = key(range::FILE_STR, wire_type::LEN);
const FILE_REF: u8 = key(range::FILE_REF, wire_type::VARINT);
const CALL_LINE: u8 = key(range::CALL_LINE, wire_type::VARINT);
const CALL_FILE_STR: u8 = key(range::CALL_FILE_STR, wire_type::LEN);
const CALL_FILE_REF: u8 = key(range::CALL_FILE_REF, wire_type::VARINT);
const DEPTH: u8 = key(range::DEPTH, wire_type::VARINT);
const LINE_TABLE: u8 = key(range::LINE_TABLE, wire_type::LEN);
const OFFSETS: u8 = key(line_table::OFFSET, wire_type::LEN);
const LINE_NUMBERS: u8 = key(line_table::LINE_NUMBER, wire_type::LEN);
// Fields 13 to 15, unknown to `RangeV1`, of either wire type the fast path skips.
const VARINT_13: u8 = key(13, wire_type::VARINT);
const VARINT_14: u8 = key(14, wire_type::VARINT);
const VARINT_15: u8 = key(15, wire_type::VARINT);
const LEN_13: u8 = key(13, wire_type::LEN);
const LEN_14: u8 = key(14, wire_type::LEN);
const LEN_15: u8 = key(15, wire_type::LEN);

/// [`peek`](super::records::peek) for bodies of the usual shape: one-byte keys (field
/// numbers below 16), varint and length-delimited fields only. A range record in the
/// writers' field order is taken field by field (see [`range_usual`]); any other body has
/// each field skipped by its key without building a field value. `None` on anything else
/// (including every malformed body), which the general field walk then reads or reports.
/// Where it answers, it answers as that walk would.
#[inline(always)]
pub(super) fn peek_usual(body: &[u8], set_field: u32) -> Option<(Option<VaField>, u64)> {
    if set_field == range::SET_ELF_VA {
        let mut c = InOrder(body);
        let va = match c.varint(DELTA_ELF_VA) {
            Some(v) => Some(VaField::Delta(v)),
            None => c.varint(SET_ELF_VA).map(VaField::Set),
        };
        let length = c.varint(LENGTH).unwrap_or(0);
        c.string(FUNC_STR, FUNC_REF);
        c.string(FILE_STR, FILE_REF);
        c.varint(CALL_LINE);
        c.string(CALL_FILE_STR, CALL_FILE_REF);
        c.varint(DEPTH);
        c.bytes(LINE_TABLE);
        if c.0.is_empty() {
            return Some((va, length));
        }
    }
    peek_any_order(body, set_field)
}

/// [`peek_usual`] for fields in any order.
#[inline(never)]
fn peek_any_order(body: &[u8], set_field: u32) -> Option<(Option<VaField>, u64)> {
    let mut va = None;
    let mut length = 0;
    let mut rest = body;
    while let Some((&key, tail)) = rest.split_first() {
        let number = u32::from(key >> 3);
        if key >= 0x80 || number == 0 {
            return None;
        }
        let (value, n) = uleb128_prefix(tail).ok()?;
        let tail = tail.get(n..)?;
        match key & 7 {
            wire_type::VARINT => {
                rest = tail;
                // `deltaElfVA` has the same number in both kinds.
                if number == range::DELTA_ELF_VA {
                    va = Some(VaField::Delta(value));
                } else if number == set_field {
                    va = Some(VaField::Set(value));
                } else if number == range::LENGTH && set_field == range::SET_ELF_VA {
                    length = value;
                }
            }
            wire_type::LEN => rest = tail.get(usize::try_from(value).ok()?..)?,
            _ => return None,
        }
    }
    Some((va, length))
}

/// [`range_fields`](super::records::range_fields) for bodies of the usual shape: one-byte
/// keys, each known field with its own wire type, at most one line table made of one
/// packed field per column whose values fit `u32` and whose counts agree; `None` on
/// anything else (including every malformed body), which `range_fields` then reads or
/// reports. Where it answers, it answers as `range_fields` would.
///
/// The fields are first taken in the order the writers emit them, each test a branch the
/// processor predicts well; a body in any other order is read again by one dispatch per
/// field on its key byte.
#[inline(always)]
pub(super) fn range_usual(body: &[u8]) -> Option<RangeFields<'_>> {
    let mut c = InOrder(body);
    let mut f = RangeFields::default();
    if let Some(v) = c.varint(DELTA_ELF_VA) {
        f.va = Some(VaField::Delta(v));
    } else if let Some(v) = c.varint(SET_ELF_VA) {
        f.va = Some(VaField::Set(v));
    }
    if let Some(v) = c.varint(LENGTH) {
        f.length = v;
    }
    f.func = c.string(FUNC_STR, FUNC_REF);
    f.file = c.string(FILE_STR, FILE_REF);
    if let Some(v) = c.varint(CALL_LINE) {
        f.call_line = u32::try_from(v).ok()?;
    }
    f.call_file = c.string(CALL_FILE_STR, CALL_FILE_REF);
    if let Some(v) = c.varint(DEPTH) {
        f.depth = u32::try_from(v).ok()?;
    }
    if let Some(table) = c.bytes(LINE_TABLE) {
        let (offsets, lines, rows) = line_table_usual(table)?;
        f.packed = Some((offsets, lines));
        f.rows = rows;
    }
    if c.0.is_empty() {
        Some(f)
    } else {
        range_any_order(body)
    }
}

/// Reads the fields of a body in the writers' order: each call takes the next field when
/// it has the given key (and is well formed), else leaves it.
struct InOrder<'a>(&'a [u8]);

impl<'a> InOrder<'a> {
    #[inline(always)]
    fn varint(&mut self, key: u8) -> Option<u64> {
        let (&first, tail) = self.0.split_first()?;
        if first != key {
            return None;
        }
        let (v, n) = uleb128_prefix(tail).ok()?;
        self.0 = tail.get(n..)?;
        Some(v)
    }

    #[inline(always)]
    fn bytes(&mut self, key: u8) -> Option<&'a [u8]> {
        let (&first, tail) = self.0.split_first()?;
        if first != key {
            return None;
        }
        let (len, n) = uleb128_prefix(tail).ok()?;
        let (bytes, rest) = tail
            .get(n..)?
            .split_at_checked(usize::try_from(len).ok()?)?;
        self.0 = rest;
        Some(bytes)
    }

    /// A string field: inline under `inline_key`, or a table index under `ref_key`.
    #[inline(always)]
    fn string(&mut self, inline_key: u8, ref_key: u8) -> Option<StrField<'a>> {
        if let Some(b) = self.bytes(inline_key) {
            return Some(StrField::Inline(b));
        }
        self.varint(ref_key).map(StrField::Ref)
    }
}

/// [`range_usual`] for fields in any order: one dispatch per field on its key byte.
#[inline(never)]
fn range_any_order(body: &[u8]) -> Option<RangeFields<'_>> {
    let mut f = RangeFields::default();
    let mut tables = 0u32;
    let mut rest = body;
    while let Some((&key, tail)) = rest.split_first() {
        if key >= 0x80 {
            return None;
        }
        let (value, n) = uleb128_prefix(tail).ok()?;
        let tail = tail.get(n..)?;
        rest = tail;
        // One dispatch on the whole key (field number and wire type).
        match key {
            DELTA_ELF_VA => f.va = Some(VaField::Delta(value)),
            SET_ELF_VA => f.va = Some(VaField::Set(value)),
            LENGTH => f.length = value,
            FUNC_REF => f.func = Some(StrField::Ref(value)),
            FILE_REF => f.file = Some(StrField::Ref(value)),
            CALL_FILE_REF => f.call_file = Some(StrField::Ref(value)),
            CALL_LINE => f.call_line = u32::try_from(value).ok()?,
            DEPTH => f.depth = u32::try_from(value).ok()?,
            VARINT_13 | VARINT_14 | VARINT_15 => {}
            _ => {
                let (bytes, after) = tail.split_at_checked(usize::try_from(value).ok()?)?;
                rest = after;
                match key {
                    FUNC_STR => f.func = Some(StrField::Inline(bytes)),
                    FILE_STR => f.file = Some(StrField::Inline(bytes)),
                    CALL_FILE_STR => f.call_file = Some(StrField::Inline(bytes)),
                    LINE_TABLE => {
                        tables = tables.wrapping_add(1);
                        let (offsets, lines, rows) = line_table_usual(bytes)?;
                        f.packed = Some((offsets, lines));
                        f.rows = rows;
                    }
                    LEN_13 | LEN_14 | LEN_15 => {}
                    _ => return None,
                }
            }
        }
    }
    (tables <= 1).then_some(f)
}

/// A line table of one packed offsets field and one packed lines field (each at most
/// once), counted without decoding: (offsets, lines, rows); `None` otherwise.
#[inline(always)]
fn line_table_usual(table: &[u8]) -> Option<(&[u8], &[u8], u32)> {
    let (mut offsets, mut lines) = (None, None);
    let mut rest = table;
    while let Some((&key, tail)) = rest.split_first() {
        let (len, n) = uleb128_prefix(tail).ok()?;
        let tail = tail.get(n..)?;
        let (bytes, after) = tail.split_at_checked(usize::try_from(len).ok()?)?;
        rest = after;
        let column = match key {
            OFFSETS => &mut offsets,
            LINE_NUMBERS => &mut lines,
            _ => return None,
        };
        if column.replace(bytes).is_some() {
            return None;
        }
    }
    let (offsets, lines) = (offsets.unwrap_or(&[]), lines.unwrap_or(&[]));
    let (rows, _) = packed_small(offsets).or_else(|| packed_sum_u32(offsets))?;
    (packed_count_u32(lines)? == rows).then_some((offsets, lines, rows))
}

#[cfg(test)]
pub(super) mod tests {
    use super::super::records::{peek, peek_fields, range_fields};
    use super::*;

    /// SplitMix64: the same bodies on every run.
    pub(in super::super) struct Rng(pub u64);

    impl Rng {
        pub(in super::super) fn next(&mut self) -> u64 {
            self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
            let mut z = self.0;
            z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
            z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
            z ^ (z >> 31)
        }

        pub(in super::super) fn below(&mut self, n: u64) -> u64 {
            self.next() % n
        }
    }

    /// A body under construction in a fixed buffer (the crate is `no_std`).
    struct Body {
        bytes: [u8; 256],
        len: usize,
    }

    impl Body {
        fn push(&mut self, b: u8) {
            if let Some(slot) = self.bytes.get_mut(self.len) {
                *slot = b;
                self.len += 1;
            }
        }

        fn varint(&mut self, mut v: u64) {
            while v >= 0x80 {
                self.push(v as u8 | 0x80);
                v >>= 7;
            }
            self.push(v as u8);
        }

        fn as_slice(&self) -> &[u8] {
            &self.bytes[..self.len]
        }
    }

    /// A value of a column or field: mostly small, sometimes large or overlong.
    fn value(rng: &mut Rng, body: &mut Body) {
        match rng.below(10) {
            0 => body.varint(rng.next()),
            1 => (0..11).for_each(|_| body.push(0xff)),
            2 => body.varint(rng.below(1 << 30)),
            _ => body.varint(rng.below(300)),
        }
    }

    /// A line table: columns of the usual shape, or repeated, unpacked, unknown or with
    /// values too large for the fast path.
    fn line_table(rng: &mut Rng) -> Body {
        let mut t = Body {
            bytes: [0; 256],
            len: 0,
        };
        let rows = rng.below(6);
        for _ in 0..1 + rng.below(3) {
            let key = [0x0a, 0x12, 0x0a, 0x12, 0x08, 0x10, 0x1a][rng.below(7) as usize];
            t.push(key);
            if key & 7 == 0 {
                value(rng, &mut t);
                continue;
            }
            let mut col = Body {
                bytes: [0; 256],
                len: 0,
            };
            for _ in 0..rows + u64::from(rng.below(8) == 0) {
                match (key, rng.below(12)) {
                    (_, 0) => value(rng, &mut col),
                    (0x0a, _) => col.varint(rng.below(128)),
                    _ => col.varint(rng.below(100_000)),
                }
            }
            t.varint(col.len as u64);
            col.as_slice().iter().for_each(|&b| t.push(b));
        }
        t
    }

    fn body(rng: &mut Rng) -> Body {
        let mut body = Body {
            bytes: [0; 256],
            len: 0,
        };
        // Keys of every known field with its own and a wrong wire type, unknown fields,
        // fixed-size wire types, field 0, a two-byte key and invalid wire types.
        const KEYS: [u8; 24] = [
            0x08, 0x10, 0x1a, 0x22, 0x28, 0x32, 0x38, 0x42, 0x48, 0x50, 0x58, 0x60, 0x08, 0x10,
            0x42, 0x48, 0x18, 0x40, 0x0a, 0x6a, 0x68, 0x09, 0x0d, 0x00,
        ];
        for _ in 0..rng.below(10) {
            let key = match rng.below(40) {
                0 => 0x80 | rng.below(128) as u8,
                1 => rng.below(128) as u8,
                _ => KEYS[rng.below(KEYS.len() as u64) as usize],
            };
            if key >= 0x80 {
                body.push(key);
                body.push(0x01);
                continue;
            }
            body.push(key);
            match key & 7 {
                0 => value(rng, &mut body),
                1 => (0..8).for_each(|_| body.push(0x11)),
                5 => (0..4).for_each(|_| body.push(0x22)),
                2 if key >> 3 == 8 => {
                    let t = line_table(rng);
                    body.varint(t.len as u64);
                    t.as_slice().iter().for_each(|&b| body.push(b));
                }
                2 => {
                    let n = rng.below(5);
                    body.varint(n);
                    (0..n).for_each(|_| body.push(b'a' + rng.below(26) as u8));
                }
                _ => {}
            }
        }
        // Sometimes cut short.
        if rng.below(8) == 0 {
            body.len = rng.below(body.len as u64 + 1) as usize;
        }
        body
    }

    #[test]
    fn fast_paths_answer_as_the_general_walk() {
        let mut rng = Rng(16);
        let (mut fast_ranges, mut fast_peeks) = (0u32, 0u32);
        for _ in 0..200_000 {
            let body = body(&mut rng);
            let b = body.as_slice();
            if let Some(fields) = range_usual(b) {
                fast_ranges += 1;
                assert_eq!(range_fields(b), Ok(fields), "range body {b:02x?}");
            }
            for set in [12, 5] {
                if peek_usual(b, set).is_some() {
                    fast_peeks += 1;
                }
                for prev in [None, Some(0x1000)] {
                    assert_eq!(
                        peek(b, set, "range", prev),
                        peek_fields(b, set, "range", prev),
                        "peek of {b:02x?}"
                    );
                }
            }
        }
        // The generator reaches both paths often.
        assert!(
            fast_ranges > 20_000,
            "{fast_ranges} range bodies took the fast path"
        );
        assert!(
            fast_peeks > 100_000,
            "{fast_peeks} peeks took the fast path"
        );
    }

    #[test]
    fn usual_bodies_take_the_fast_path() {
        // va delta 5, length 0x20, function ref 3, file "a.c", call line 7, depth 1, one
        // line table of offsets [0, 4] and lines [10, 300].
        let body = [
            0x08, 0x0a, 0x10, 0x20, 0x48, 0x03, 0x22, 0x03, b'a', b'.', b'c', 0x28, 0x07, 0x38,
            0x01, 0x42, 0x09, 0x0a, 0x02, 0x00, 0x04, 0x12, 0x03, 0x0a, 0xac, 0x02,
        ];
        let f = range_usual(&body).unwrap();
        assert_eq!(f.va, Some(VaField::Delta(10)));
        assert_eq!((f.length, f.call_line, f.depth, f.rows), (0x20, 7, 1, 2));
        assert_eq!(f.func, Some(StrField::Ref(3)));
        assert_eq!(f.file, Some(StrField::Inline(b"a.c")));
        assert_eq!(Ok(f), range_fields(&body));
        assert_eq!(
            peek_usual(&body, 12),
            Some((Some(VaField::Delta(10)), 0x20))
        );
    }
}
