//! String tables: a `StringTableV1` message body read in place.
//!
//! A table is never copied. Without help, finding string `i` scans the body (O(table
//! size)); with a caller-provided scratch of `&str` slots, one pass validates each string
//! once (UTF-8) and stores it, and every later access is a slot read. Strings past the
//! scratch's capacity are found by scanning on from the last stored one, so a small scratch
//! still works, only slower.

use core::str;

use super::proto::{Fields, Value};

use super::raw::string_table::STRINGS;

/// One `StringTableV1` message: its body, borrowed from the file.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
pub struct StringTable<'a> {
    body: &'a [u8],
}

/// What is wrong with a table body (turned into an [`crate::Error`] by the caller, which
/// knows the message offset).
pub(crate) type TableError = &'static str;

impl<'a> StringTable<'a> {
    /// The table whose message body is `body`. Nothing is checked until it is read.
    pub const fn new(body: &'a [u8]) -> Self {
        StringTable { body }
    }

    /// The raw message body.
    pub fn body(&self) -> &'a [u8] {
        self.body
    }

    /// Iterates the strings in index order, checking the wire format and UTF-8.
    pub fn iter(&self) -> TableStrings<'a> {
        TableStrings {
            fields: Fields::new(self.body),
            base: self.body.len(),
        }
    }

    /// String `index`, by a scan of the body: O(table size). `Ok(None)` if the table has
    /// fewer strings.
    pub fn get(&self, index: u32) -> Result<Option<&'a str>, TableError> {
        self.get_from(self.iter(), index)
    }

    fn get_from(
        &self,
        strings: TableStrings<'a>,
        index: u32,
    ) -> Result<Option<&'a str>, TableError> {
        let mut strings = strings;
        let mut left = index;
        for s in &mut strings {
            let (_, s) = s?;
            if left == 0 {
                return Ok(Some(s));
            }
            left = left.saturating_sub(1);
        }
        Ok(None)
    }

    /// Checks the whole body (wire format, UTF-8) and counts the strings, storing the
    /// first `scratch.len()` of them in `scratch`: each string is validated once here and
    /// later uses of its index are a slot read.
    pub fn index(&self, scratch: &mut [&'a str]) -> Result<u32, TableError> {
        self.index_with_resume(scratch).map(|(count, _)| count)
    }

    /// [`StringTable::index`], also returning the body position just past the last string
    /// stored in the scratch (where a scan for later strings starts).
    pub(crate) fn index_with_resume(
        &self,
        scratch: &mut [&'a str],
    ) -> Result<(u32, u32), TableError> {
        let mut count = 0u32;
        let mut resume = 0u32;
        let mut slots = scratch.iter_mut();
        let mut strings = self.iter();
        while let Some(s) = strings.next() {
            let (_, s) = s?;
            if let Some(slot) = slots.next() {
                *slot = s;
                resume = strings.body_position();
            }
            count = count.checked_add(1).ok_or("string table too large")?;
        }
        Ok((count, resume))
    }

    /// String `skip + n` where string `skip` is the first one at body position `resume`.
    fn scan_from(&self, resume: u32, n: u32) -> Option<&'a str> {
        let strings = TableStrings {
            fields: Fields::new(self.body.get(usize::try_from(resume).ok()?..)?),
            base: self.body.len(),
        };
        self.get_from(strings, n).ok()?
    }
}

/// The strings of a [`StringTable`], in index order.
#[derive(Clone, Debug)]
pub struct TableStrings<'a> {
    fields: Fields<'a>,
    /// Body length, to turn the unread rest into a position.
    base: usize,
}

impl TableStrings<'_> {
    /// Byte position of the next field within the body.
    fn body_position(&self) -> u32 {
        u32::try_from(self.base.saturating_sub(self.fields.rest().len())).unwrap_or(u32::MAX)
    }
}

impl<'a> Iterator for TableStrings<'a> {
    /// A string with its position in the body, or what is wrong with the table.
    type Item = Result<(u32, &'a str), TableError>;

    fn next(&mut self) -> Option<Self::Item> {
        loop {
            let at = self.body_position();
            let field = match self.fields.next()? {
                Ok(f) => f,
                Err(e) => return Some(Err(e)),
            };
            if field.number != STRINGS {
                continue; // unknown fields are skipped, as protobuf does
            }
            let Value::Bytes(bytes) = field.value else {
                self.fields = Fields::new(&[]);
                return Some(Err("string table entry is not length-delimited"));
            };
            return Some(match str::from_utf8(bytes) {
                Ok(s) => Ok((at, s)),
                Err(_) => {
                    self.fields = Fields::new(&[]);
                    Err("string is not valid UTF-8")
                }
            });
        }
    }
}

/// The current string table as the record decoder sees it: the table, how many strings it
/// holds, the strings already validated into the caller's scratch, and where a scan for the
/// strings past the scratch starts.
#[derive(Copy, Clone, Debug, Default)]
pub struct Strings<'a, 's> {
    table: StringTable<'a>,
    count: u32,
    slots: &'s [&'a str],
    resume: u32,
}

impl<'a, 's> Strings<'a, 's> {
    pub(crate) fn new(
        table: StringTable<'a>,
        count: u32,
        slots: &'s [&'a str],
        resume: u32,
    ) -> Self {
        let used = slots
            .len()
            .min(usize::try_from(count).unwrap_or(usize::MAX));
        Strings {
            table,
            count,
            slots: slots.get(..used).unwrap_or(&[]),
            resume,
        }
    }

    /// The strings of `table` as an index keeps them: `slots` holds every string of the
    /// table in index order (as [`StringTable::index`] stores them into a scratch as long
    /// as the table), so every index is a slot read and an index past `slots` has no
    /// string.
    pub fn from_slots(table: StringTable<'a>, slots: &'s [&'a str]) -> Self {
        let count = u32::try_from(slots.len()).unwrap_or(u32::MAX);
        let resume = u32::try_from(table.body.len()).unwrap_or(u32::MAX);
        Strings::new(table, count, slots, resume)
    }

    /// The table.
    pub fn table(&self) -> StringTable<'a> {
        self.table
    }

    /// Number of strings.
    pub fn len(&self) -> u32 {
        self.count
    }

    /// True if the table holds no string.
    pub fn is_empty(&self) -> bool {
        self.count == 0
    }

    /// String `index`: a slot read within the scratch's capacity, else a scan.
    #[inline]
    pub fn get(&self, index: u32) -> Option<&'a str> {
        let i = usize::try_from(index).ok()?;
        if let Some(&s) = self.slots.get(i) {
            return Some(s);
        }
        if index >= self.count {
            return None;
        }
        let skip = u32::try_from(self.slots.len()).ok()?;
        self.table.scan_from(self.resume, index.checked_sub(skip)?)
    }
}
