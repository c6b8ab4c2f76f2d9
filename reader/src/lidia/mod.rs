//! Lidia v1: Grafana Pyroscope's address-to-symbol archive.
//!
//! A Lidia file maps address ranges to functions, with inline depth, source files, call
//! sites and per-range line tables. [`LidiaFile::parse`] checks the 128-byte header and that
//! every section lies inside the buffer, in O(1) and without copying; [`LidiaFile::lookup`]
//! then returns the frames covering an address, innermost first, exactly as the Go reader
//! selects them, plus the file and line of each frame (which the Go reader never reports).
//!
//! # Layout
//!
//! ```text
//! 0x00  header (128 bytes): magic ".dia", version 1, then four section headers
//!       VA table      (entry size 4|8, count N, offset, CRC32C)
//!       range table   (field size 4|8, count N, offset, CRC32C)
//!       strings table (size, offset, CRC32C)
//!       line table    (field size 2|4, count of (offset, line) pairs, offset, CRC32C)
//!       VA table      N start addresses, sorted by (VA, depth)
//!       range table   N × 8 fields: length, depth, func, file, line index, line count,
//!                     call file, call line
//!       strings table u32 length + bytes per string; offset 0 is "" and 4 is "[overflow]"
//!       line table    (offset from the range's VA, line) pairs
//! ```
//!
//! All integers are little-endian. Sections need no alignment (the line table often starts
//! at an odd offset) and the blob itself may sit at any address.
//!
//! # Validation: what parse checks and what accessors do
//!
//! [`LidiaFile::parse`] rejects, with an [`Error`] naming the section and offset, anything
//! that could make an access go out of bounds at the structural level: a short buffer, a
//! wrong magic or version, entry sizes other than 4/8 (VA, range fields) or 2/4 (line
//! fields), differing VA and range counts, and any section whose `[offset, offset + size)`
//! overflows or leaves the buffer. That costs O(1), so opening a file of any size is
//! instant.
//!
//! The references inside range entries (string offsets, line-table slices) are **not**
//! walked at parse time; instead every accessor is total. A string reference that does not
//! lie inside the strings table reads as the empty [`Str`] (as offset 0 does), and a line
//! reference outside the line table reads as an empty [`LineTable`]. A lookup therefore
//! never fails and stays as fast as on a valid file. Callers that want to know that no
//! such substitution can happen call [`LidiaFile::validate`] once: it checks every entry in
//! O(N) and reports the first dangling reference (and an unsorted VA table, on which
//! lookups stay bounded but need not select what the Go reader selects). [`LidiaFile::string`] itself returns
//! `None` for a dangling offset, for callers that read strings by offset.
//!
//! Checksums are verified only on request, by [`LidiaFile::verify_checksums`].
//!
//! # Many addresses at once
//!
//! [`LidiaFile::lookup_each`] and [`LidiaFile::lookup_function_each`] answer a whole slice
//! of addresses with the same results as one [`lookup`](LidiaFile::lookup) per address,
//! but search [`LANES`](crate::LANES) of them at a time, so that their cache misses
//! overlap: on large files two to three times the throughput of single lookups.
//!
//! # Example
//!
//! A file with one function, `main` in `main.c`, covering `0x1000..0x1040`, whose line
//! table says line 10 from offset 0 and line 12 from offset 0x20:
//!
//! ```
//! use symblob::lidia::{crc32c, LidiaFile};
//!
//! let va: Vec<u8> = 0x1000u32.to_le_bytes().to_vec();
//! // length, depth, func, file, line index, line count, call file, call line (u32 each)
//! let ranges: Vec<u8> = [0x40u32, 0, 18, 26, 0, 2, 0, 0]
//!     .iter()
//!     .flat_map(|f| f.to_le_bytes())
//!     .collect();
//! let strings: &[u8] = b"\0\0\0\0\x0a\0\0\0[overflow]\x04\0\0\0main\x06\0\0\0main.c";
//! let lines: Vec<u8> = [0u16, 10, 0x20, 12].iter().flat_map(|f| f.to_le_bytes()).collect();
//!
//! // Header: magic, version, then per section its size field, count, offset and CRC.
//! let mut file = b".dia\x01\0\0\0".to_vec();
//! let mut offset = 128u64;
//! let mut section = |file: &mut Vec<u8>, fields: &[u64], bytes: &[u8]| {
//!     for f in fields.iter().chain([&offset]) {
//!         file.extend(f.to_le_bytes());
//!     }
//!     file.extend(crc32c(bytes).to_le_bytes());
//!     file.extend([0; 4]); // reserved
//!     offset += bytes.len() as u64;
//! };
//! section(&mut file, &[4, 1], &va); // VA: entry size 4, one entry
//! section(&mut file, &[4, 1], &ranges); // ranges: field size 4, one entry
//! section(&mut file, &[strings.len() as u64], strings); // strings: size
//! section(&mut file, &[2, 2], &lines); // lines: field size 2, two entries
//! for bytes in [&va[..], &ranges, strings, &lines] {
//!     file.extend_from_slice(bytes);
//! }
//!
//! let lidia = LidiaFile::parse(&file)?;
//! lidia.verify_checksums()?;
//! assert_eq!(lidia.len(), 1);
//!
//! let frames: Vec<_> = lidia.lookup(0x1024).collect();
//! assert_eq!(frames.len(), 1);
//! assert_eq!(frames[0].function, "main");
//! assert_eq!(frames[0].file, "main.c");
//! assert_eq!(frames[0].line, 12);
//! assert_eq!(format!("{}:{}", frames[0].file, frames[0].line), "main.c:12");
//!
//! assert_eq!(lidia.lookup_function(0x1010).unwrap(), "main");
//! assert!(lidia.lookup(0x1040).next().is_none()); // one past the end
//! # Ok::<(), symblob::Error>(())
//! ```

mod batch;
mod checksum;
mod lookup;
mod ranges;
pub mod raw;
mod str;
mod tables;

use crate::slice::to_u64;
use zerocopy::little_endian::{U16, U32, U64};
use zerocopy::FromBytes;

use crate::{Error, ErrorKind, Format};
use raw::{Header, HEADER_SIZE, MAGIC, RANGE_FIELDS, VERSION};
use tables::{LineSlice, RangeTable, VaTable};

pub use checksum::crc32c;
pub use lookup::{Frame, Frames};
pub use ranges::{Range, Ranges};
pub use str::Str;
pub use tables::{LineEntries, LineEntry, LineTable, RangeEntry};

/// The section names that [`Error::section`] carries for Lidia errors.
pub mod section {
    /// The 128-byte header.
    pub const HEADER: &str = "header";
    /// The VA table.
    pub const VA: &str = "va table";
    /// The range table.
    pub const RANGES: &str = "range table";
    /// The strings table.
    pub const STRINGS: &str = "strings table";
    /// The line table.
    pub const LINES: &str = "line table";
}

/// Byte offsets of header fields, for error offsets.
mod field {
    pub(super) const VERSION: u64 = 0x04;
    pub(super) const VA_SIZE: u64 = 0x08;
    pub(super) const RANGE_SIZE: u64 = 0x28;
    pub(super) const RANGE_COUNT: u64 = 0x30;
    pub(super) const LINE_SIZE: u64 = 0x60;
}

/// A parsed Lidia v1 file, borrowing the blob. Cheap to copy.
///
/// See the [module documentation](self) for what [`parse`](Self::parse) checks and how
/// accessors treat references that point outside their table.
#[derive(Clone, Copy, Debug)]
pub struct LidiaFile<'a> {
    header: &'a Header,
    vas: VaTable<'a>,
    ranges: RangeTable<'a>,
    strings: &'a [u8],
    lines: LineSlice<'a>,
}

fn error(section: &'static str, offset: u64, kind: ErrorKind) -> Error {
    Error::new(Format::Lidia, section, offset, kind)
}

/// The bytes of a section of `count` entries of `entry_size` bytes at `offset`, checked
/// with overflow-safe arithmetic against the buffer.
fn section_bytes<'a>(
    bytes: &'a [u8],
    name: &'static str,
    offset: u64,
    count: u64,
    entry_size: u64,
) -> Result<&'a [u8], Error> {
    let size = count
        .checked_mul(entry_size)
        .ok_or_else(|| error(name, offset, ErrorKind::Overflow))?;
    crate::slice::checked_slice(bytes, Format::Lidia, name, offset, size)
}

/// Views `bytes` as a slice of `T` (an alignment-1 type whose size divides the length).
fn view<'a, T>(bytes: &'a [u8], name: &'static str, offset: u64) -> Result<&'a [T], Error>
where
    [T]: FromBytes + zerocopy::KnownLayout + zerocopy::Immutable,
{
    <[T]>::ref_from_bytes(bytes)
        .map_err(|_| error(name, offset, ErrorKind::Malformed("section size")))
}

impl<'a> LidiaFile<'a> {
    /// Parses the header of a Lidia v1 blob and checks that every section lies inside it.
    ///
    /// Accepts every file the Go writer produces, at any alignment; accepts, like the Go
    /// reader, non-zero reserved words, sections in any order, gaps, overlaps and trailing
    /// bytes. Rejects a short buffer, a wrong magic or version, a VA entry size or range
    /// field size other than 4 or 8, a line field size other than 2 or 4, VA and range
    /// counts that differ, and any section that overflows 64 bits or leaves the buffer.
    /// An unsorted VA table is accepted, like the Go reader does; lookups on it stay
    /// bounded ([`validate`](Self::validate) reports it).
    pub fn parse(bytes: &'a [u8]) -> Result<Self, Error> {
        let available = to_u64(bytes.len());
        let (header, _) = Header::ref_from_prefix(bytes).map_err(|_| {
            error(
                section::HEADER,
                0,
                ErrorKind::Truncated {
                    needed: to_u64(HEADER_SIZE),
                    available,
                },
            )
        })?;
        if header.magic != MAGIC {
            return Err(error(section::HEADER, 0, ErrorKind::BadMagic));
        }
        let version = header.version.get();
        if version != VERSION {
            return Err(error(
                section::HEADER,
                field::VERSION,
                ErrorKind::UnsupportedVersion(u64::from(version)),
            ));
        }
        let vs = header.va.entry_size.get();
        let fs = header.ranges.entry_size.get();
        let ls = header.lines.entry_size.get();
        // Each table's entry size, checked in table order: (table, header field, size,
        // the sizes the format allows).
        let entry_sizes = [
            (section::VA, field::VA_SIZE, vs, [4, 8]),
            (section::RANGES, field::RANGE_SIZE, fs, [4, 8]),
            (section::LINES, field::LINE_SIZE, ls, [2, 4]),
        ];
        for (table, at, size, allowed) in entry_sizes {
            if !allowed.contains(&size) {
                return Err(error(table, at, ErrorKind::BadFieldSize(size)));
            }
        }
        let count = header.va.count.get();
        let range_count = header.ranges.count.get();
        if range_count != count {
            return Err(error(
                section::RANGES,
                field::RANGE_COUNT,
                ErrorKind::Mismatch {
                    expected: count,
                    found: range_count,
                },
            ));
        }

        let at = header.va.offset.get();
        let va_bytes = section_bytes(bytes, section::VA, at, count, vs)?;
        let vas = if vs == 4 {
            VaTable::Narrow(view::<U32>(va_bytes, section::VA, at)?)
        } else {
            VaTable::Wide(view::<U64>(va_bytes, section::VA, at)?)
        };

        let at = header.ranges.offset.get();
        // fs ∈ {4, 8}, so the entry size (8 fields) is 32 or 64: no overflow.
        let entry_size = fs.saturating_mul(to_u64(RANGE_FIELDS));
        let range_bytes = section_bytes(bytes, section::RANGES, at, count, entry_size)?;
        let ranges = if fs == 4 {
            RangeTable::Narrow(view::<[U32; RANGE_FIELDS]>(
                range_bytes,
                section::RANGES,
                at,
            )?)
        } else {
            RangeTable::Wide(view::<[U64; RANGE_FIELDS]>(
                range_bytes,
                section::RANGES,
                at,
            )?)
        };

        let at = header.strings.offset.get();
        let strings = section_bytes(bytes, section::STRINGS, at, header.strings.size.get(), 1)?;

        let at = header.lines.offset.get();
        let line_count = header.lines.count.get();
        let line_bytes =
            section_bytes(bytes, section::LINES, at, line_count, ls.saturating_mul(2))?;
        let lines = if ls == 2 {
            LineSlice::Narrow(view::<[U16; 2]>(line_bytes, section::LINES, at)?)
        } else {
            LineSlice::Wide(view::<[U32; 2]>(line_bytes, section::LINES, at)?)
        };

        Ok(LidiaFile {
            header,
            vas,
            ranges,
            strings,
            lines,
        })
    }

    /// The number of ranges.
    pub fn len(&self) -> usize {
        match self.vas {
            VaTable::Narrow(v) => v.len(),
            VaTable::Wide(v) => v.len(),
        }
    }

    /// True when the file has no ranges.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Size of a VA table entry in bytes: 4 or 8.
    pub fn va_size(&self) -> u8 {
        match self.vas {
            VaTable::Narrow(_) => 4,
            VaTable::Wide(_) => 8,
        }
    }

    /// Size of each range-table field in bytes: 4 or 8.
    pub fn field_size(&self) -> u8 {
        match self.ranges {
            RangeTable::Narrow(_) => 4,
            RangeTable::Wide(_) => 8,
        }
    }

    /// Size of each line-table field in bytes: 2 or 4.
    pub fn line_size(&self) -> u8 {
        match self.lines {
            LineSlice::Narrow(_) => 2,
            LineSlice::Wide(_) => 4,
        }
    }

    /// The raw header, viewed in place.
    pub fn header(&self) -> &'a Header {
        self.header
    }

    /// The bytes of the strings table.
    pub fn strings_table(&self) -> &'a [u8] {
        self.strings
    }

    /// Number of entries of the file's whole line table.
    pub fn line_entry_count(&self) -> usize {
        self.lines.len()
    }

    /// The file's whole line table (every range's entries, in stored order); a range's
    /// own entries are [`Range::lines`].
    pub fn lines(&self) -> LineTable<'a> {
        LineTable(self.lines)
    }

    /// The start address of range `index`.
    pub fn va(&self, index: usize) -> Option<u64> {
        self.vas.get(index)
    }

    /// The raw fields of range `index` (string offsets and line reference not resolved).
    pub fn entry(&self, index: usize) -> Option<RangeEntry> {
        self.ranges.get(index)
    }

    /// The string at `offset` (relative to the strings table). Offset 0 is the empty
    /// string, without reading the table; `None` when the length prefix or the bytes do
    /// not lie inside the table.
    #[inline]
    pub fn string(&self, offset: u64) -> Option<Str<'a>> {
        if offset == 0 {
            return Some(Str::EMPTY);
        }
        let start = usize::try_from(offset).ok()?;
        let body = start.checked_add(4)?;
        let prefix: [u8; 4] = self.strings.get(start..body)?.try_into().ok()?;
        let len = usize::try_from(u32::from_le_bytes(prefix)).ok()?;
        self.strings.get(body..body.checked_add(len)?).map(Str)
    }

    /// The string at `offset`, or the empty string when the offset dangles.
    #[inline]
    fn string_or_empty(&self, offset: u64) -> Str<'a> {
        self.string(offset).unwrap_or_default()
    }

    /// The global line-table slice `[index, index + count)`, or an empty table when it
    /// does not lie inside the line table.
    #[inline]
    fn line_table(&self, index: u64, count: u64) -> LineTable<'a> {
        self.lines.slice(index, count).unwrap_or(LineTable::EMPTY)
    }
}
