//! The subset of the protobuf wire format that symbfile messages use: a field iterator
//! over a message body and an iterator over the values of a repeated varint field.

use super::raw::wire_type;
use crate::varint::{uleb128_prefix, VarintError};

/// One field's payload.
#[derive(Copy, Clone, Debug)]
pub(crate) enum Value<'a> {
    /// Wire type 0.
    Varint(u64),
    /// Wire type 2.
    Bytes(&'a [u8]),
    /// Wire type 1 or 5: skipped by every symbfile message.
    Fixed,
}

/// One decoded field.
#[derive(Copy, Clone, Debug)]
pub(crate) struct Field<'a> {
    /// Field number (saturated at `u32::MAX`, which no known field has: a key's number
    /// above 32 bits is read as an unknown field, as before numbers were `u32`).
    pub(crate) number: u32,
    /// Payload.
    pub(crate) value: Value<'a>,
}

/// Iterates the fields of a message body; an error ends the iteration.
#[derive(Clone, Debug)]
pub(crate) struct Fields<'a> {
    rest: &'a [u8],
}

impl<'a> Fields<'a> {
    pub(crate) fn new(body: &'a [u8]) -> Self {
        Fields { rest: body }
    }

    /// The bytes not read yet.
    pub(crate) fn rest(&self) -> &'a [u8] {
        self.rest
    }

    #[inline(always)]
    fn take(&mut self, n: usize) -> Result<&'a [u8], &'static str> {
        let (head, tail) = self
            .rest
            .split_at_checked(n)
            .ok_or("field runs past the end of its message")?;
        self.rest = tail;
        Ok(head)
    }

    #[inline(always)]
    fn varint(&mut self, what: &'static str) -> Result<u64, &'static str> {
        match uleb128_prefix(self.rest) {
            Ok((v, n)) => {
                self.rest = self.rest.split_at_checked(n).map_or(&[], |(_, t)| t);
                Ok(v)
            }
            Err(VarintError::TooLong) => Err("varint longer than 10 bytes"),
            Err(VarintError::Truncated) => Err(what),
        }
    }

    #[inline(always)]
    fn field(&mut self) -> Result<Field<'a>, &'static str> {
        let key = self.varint("truncated field key")?;
        let number = u32::try_from(key >> 3).unwrap_or(u32::MAX);
        if number == 0 {
            return Err("field number 0");
        }
        let value = match u8::try_from(key & 7).unwrap_or(u8::MAX) {
            wire_type::VARINT => Value::Varint(self.varint("truncated varint field")?),
            wire_type::I64 => {
                self.take(8)?;
                Value::Fixed
            }
            wire_type::LEN => {
                let len = self.varint("truncated field length")?;
                let len = usize::try_from(len).map_err(|_| "field length too large")?;
                Value::Bytes(self.take(len)?)
            }
            wire_type::I32 => {
                self.take(4)?;
                Value::Fixed
            }
            _ => return Err("unsupported wire type (groups are not allowed)"),
        };
        Ok(Field { number, value })
    }
}

impl<'a> Iterator for Fields<'a> {
    type Item = Result<Field<'a>, &'static str>;

    #[inline(always)]
    fn next(&mut self) -> Option<Self::Item> {
        if self.rest.is_empty() {
            return None;
        }
        let item = self.field();
        if item.is_err() {
            self.rest = &[];
        }
        Some(item)
    }
}

/// Reads the varints of a packed field payload.
#[derive(Clone, Debug, Default)]
pub(crate) struct Packed<'a> {
    rest: &'a [u8],
}

impl<'a> Packed<'a> {
    pub(crate) fn new(payload: &'a [u8]) -> Self {
        Packed { rest: payload }
    }
}

impl Iterator for Packed<'_> {
    type Item = Result<u64, &'static str>;

    #[inline(always)]
    fn next(&mut self) -> Option<Self::Item> {
        if self.rest.is_empty() {
            return None;
        }
        match uleb128_prefix(self.rest) {
            Ok((v, n)) => {
                self.rest = self.rest.split_at_checked(n).map_or(&[], |(_, t)| t);
                Some(Ok(v))
            }
            Err(e) => {
                self.rest = &[];
                Some(Err(match e {
                    VarintError::TooLong => "varint longer than 10 bytes",
                    VarintError::Truncated => "truncated packed varint",
                }))
            }
        }
    }
}

/// The values of every occurrence of repeated varint field `number` in a body, packed or
/// not, in wire order (protobuf concatenates them). Bodies are validated before a column is
/// read, so a malformed field simply ends the column.
#[derive(Clone, Debug)]
pub(crate) struct Column<'a> {
    fields: Fields<'a>,
    number: u32,
    packed: Packed<'a>,
}

impl<'a> Column<'a> {
    pub(crate) fn new(body: &'a [u8], number: u32) -> Self {
        Column {
            fields: Fields::new(body),
            number,
            packed: Packed::default(),
        }
    }
}

impl Iterator for Column<'_> {
    type Item = u64;

    #[inline]
    fn next(&mut self) -> Option<u64> {
        loop {
            if let Some(v) = self.packed.next() {
                return v.ok();
            }
            let field = self.fields.next()?.ok()?;
            if field.number != self.number {
                continue;
            }
            match field.value {
                Value::Varint(v) => return Some(v),
                Value::Bytes(b) => self.packed = Packed::new(b),
                Value::Fixed => return None,
            }
        }
    }
}

/// Calls `each` with every value of one occurrence of a repeated varint field (packed or
/// a single value); fails on a wrong wire type or a malformed packed payload.
pub(crate) fn repeated_values(
    value: Value<'_>,
    mut each: impl FnMut(u64) -> Result<(), &'static str>,
) -> Result<(), &'static str> {
    match value {
        Value::Varint(v) => each(v),
        Value::Bytes(b) => Packed::new(b).try_for_each(|v| each(v?)),
        Value::Fixed => Err("repeated varint field with a fixed-size wire type"),
    }
}
