//! LLVM GSYM v1: address → function → inline frames, file and line.
//!
//! GSYM is LLVM's symbolization format (`llvm-gsymutil --convert` writes it from DWARF
//! and symbol tables). [`GsymFile::parse`] checks the header and that every table lies
//! inside the buffer, in O(1) and without copying; [`GsymFile::lookup`] then answers an
//! address with the frames `llvm-gsymutil --address` prints, innermost first, each with
//! its function name, offset, file and line. The layout, byte by byte, is in
//! `docs/formats/gsym.md`.
//!
//! # Layout
//!
//! ```text
//! 0x00  header (48 bytes): magic 'GSYM', version 1, address size A (1|2|4|8), UUID size,
//!       base address, N, string table offset and size, UUID (20 bytes)
//! 0x30  address table         N × A-byte offsets from the base address, sorted
//!       (pad to 4)
//!       address info offsets  N × u32: file offset of each function's FunctionInfo
//!       file table            u32 count F, then F × (u32 dir, u32 base) string offsets
//!       string table          NUL-terminated strings, where the header says
//!       FunctionInfo          per function: u32 size, u32 name, typed chunks
//!                             (line table, inline tree, …), end-of-list chunk
//! ```
//!
//! Integers are in the byte order the magic reads right in; this reader reads both
//! orders on every host, at any alignment.
//!
//! # Validation and cost
//!
//! [`parse`](GsymFile::parse) is O(1): it reads the header and checks the table bounds.
//! A lookup costs a binary search of the address table, O(log N), plus one pass over the
//! function's own chunks: its line table up to the address, and its inline tree up to
//! the covering nodes (the subtrees of calls that do not cover the address are read but
//! not kept). Nothing is decoded ahead and nothing is cached. [`LookupIndex`], built
//! once into memory the caller provides, takes a lookup to the line-table rows and the
//! inline calls near the address, with the same answers; its
//! [`lookup_each`](LookupIndex::lookup_each) answers a batch of addresses in address
//! order, reading each function's record once for the addresses it covers. Damage that a lookup meets is
//! an [`Error`] with the offset; damage elsewhere is found by [`validate`](GsymFile::validate), which
//! decodes every function in O(file size). [`GsymFile::line_rows`] and
//! [`GsymFile::inline_nodes`] give a function's whole line table and inline tree, decoded
//! as they are iterated.
//!
//! # Example
//!
//! ```
//! use symblob::gsym::GsymFile;
//!
//! // Bad bytes are an error naming the format, the section and the offset.
//! let err = GsymFile::parse(b"MYSG\0\x01").unwrap_err();
//! assert_eq!(err.format, symblob::Format::Gsym);
//! assert_eq!(err.section, "header");
//! ```
//! A lookup on a file `llvm-gsymutil` wrote:
//! ```no_run
//! # fn main() -> Result<(), Box<dyn std::error::Error>> {
//! use symblob::gsym::GsymFile;
//!
//! let bytes = std::fs::read("a.out.gsym")?;
//! let gsym = GsymFile::parse(&bytes)?;
//! if let Some(found) = gsym.lookup(0x1160)? {
//!     for frame in found.frames() {
//!         // sq @ /src/a.c:2, f2 @ /src/a.c:3, g @ /src/a.c:4
//!         println!("{} @ {}/{}:{}", frame.name, frame.dir, frame.base, frame.line);
//!     }
//! }
//! # Ok(())
//! # }
//! ```

mod batch;
mod function;
mod inline;
mod line_table;
mod lookup;
mod lookup_index;
mod nodes;
pub mod raw;
mod validate;
mod words;

use crate::slice::to_u64;
use zerocopy::byteorder::{BigEndian, LittleEndian};
use zerocopy::FromBytes;

use crate::{Error, ErrorKind, Format};
use raw::{field, FILE_ENTRY_SIZE, HEADER_SIZE, INFO_OFFSET_ALIGN, MAGIC_BE, MAGIC_LE};
use words::Words;

pub use crate::lidia::Str;
pub use function::{Function, Functions};
pub use inline::MAX_INLINE_DEPTH;
pub use line_table::{LineRow, LineRows};
pub use lookup::{Frame, Frames, Lookup};
pub use lookup_index::LookupIndex;
pub use nodes::{InlineNode, InlineNodes, InlineRange, InlineRanges};
pub use words::Endian;

/// The section names that [`Error::section`] carries for GSYM errors.
pub mod section {
    /// The 48-byte header.
    pub const HEADER: &str = "header";
    /// The address table.
    pub const ADDRESSES: &str = "address table";
    /// The address info offsets table.
    pub const INFO_OFFSETS: &str = "address info offsets";
    /// The file table.
    pub const FILES: &str = "file table";
    /// The string table.
    pub const STRINGS: &str = "string table";
    /// A FunctionInfo: its size, name and chunk list.
    pub const FUNCTION: &str = "function info";
    /// A line-table chunk.
    pub const LINE_TABLE: &str = "line table";
    /// An inline-info chunk.
    pub const INLINE: &str = "inline info";
}

/// A source file of the file table: a directory and a base name, both borrowed.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct FileEntry<'a> {
    /// The directory (empty when not recorded).
    pub dir: Str<'a>,
    /// The file name.
    pub base: Str<'a>,
}

/// The header fields, read in the file's byte order.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Header<'a> {
    /// The version (always 1 for a parsed file).
    pub version: u16,
    /// Size of an address-table entry: 1, 2, 4 or 8.
    pub addr_off_size: u8,
    /// Address every address-table entry is an offset from.
    pub base_address: u64,
    /// Number of functions (entries of the address table).
    pub num_addresses: u32,
    /// File offset of the string table.
    pub strtab_offset: u32,
    /// Size of the string table in bytes.
    pub strtab_size: u32,
    /// The UUID (build ID) bytes in use.
    pub uuid: &'a [u8],
}

/// A parsed GSYM v1 file, borrowing the bytes. Cheap to copy.
#[derive(Clone, Copy)]
pub struct GsymFile<'a> {
    bytes: &'a [u8],
    endian: Endian,
    header: Header<'a>,
    addresses: Words<'a>,
    info_offsets: Words<'a>,
    /// Offset of the info-offsets table, for error offsets.
    info_offsets_at: u64,
    files: Words<'a>,
    files_at: u64,
    strings: &'a [u8],
}

impl core::fmt::Debug for GsymFile<'_> {
    // The tables are views of the whole file: show what they hold, not their bytes.
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("GsymFile")
            .field("endian", &self.endian)
            .field("header", &self.header)
            .field("files", &self.file_count())
            .field("size", &self.bytes.len())
            .finish()
    }
}

fn error(section: &'static str, offset: u64, kind: ErrorKind) -> Error {
    Error::new(Format::Gsym, section, offset, kind)
}

/// `bytes[offset .. offset + size]`, or a truncation error of `name`.
fn slice_at<'a>(
    bytes: &'a [u8],
    name: &'static str,
    offset: u64,
    size: u64,
) -> Result<&'a [u8], Error> {
    crate::slice::checked_slice(bytes, Format::Gsym, name, offset, size)
}

/// `value` rounded up to a multiple of `align` (a power of two).
fn align_up(value: u64, align: u64) -> Option<u64> {
    let mask = align.checked_sub(1)?;
    value.checked_add(mask).map(|v| v & !mask)
}

/// Reads the header in byte order `O`.
fn read_header<O: zerocopy::ByteOrder + 'static>(bytes: &[u8]) -> Option<Header<'_>> {
    let (h, _) = raw::Header::<O>::ref_from_prefix(bytes).ok()?;
    Some(Header {
        version: h.version.get(),
        addr_off_size: h.addr_off_size,
        base_address: h.base_address.get(),
        num_addresses: h.num_addresses.get(),
        strtab_offset: h.strtab_offset.get(),
        strtab_size: h.strtab_size.get(),
        uuid: h.uuid.get(..usize::from(h.uuid_size))?,
    })
}

impl<'a> GsymFile<'a> {
    /// Parses the header of a GSYM v1 file and checks that every table lies inside it.
    ///
    /// Accepts both byte orders (told by the magic) and any alignment of `bytes`. Rejects,
    /// with the offset of the field: a buffer shorter than the header, a wrong magic, a
    /// version other than 1, an address size other than 1, 2, 4 or 8, a UUID size above
    /// 20, and an address table, address-info-offsets table, file table or string table
    /// that overflows or leaves the buffer. O(1): nothing past the tables' bounds is read.
    pub fn parse(bytes: &'a [u8]) -> Result<Self, Error> {
        let available = to_u64(bytes.len());
        let magic = bytes.get(..4);
        let endian = if magic == Some(&MAGIC_LE[..]) {
            Endian::Little
        } else if magic == Some(&MAGIC_BE[..]) {
            Endian::Big
        } else if bytes.len() < 4 {
            let needed = to_u64(HEADER_SIZE);
            return Err(error(
                section::HEADER,
                0,
                ErrorKind::Truncated { needed, available },
            ));
        } else {
            return Err(error(section::HEADER, 0, ErrorKind::BadMagic));
        };
        let header = match endian {
            Endian::Little => read_header::<LittleEndian>(bytes),
            Endian::Big => read_header::<BigEndian>(bytes),
        };
        let Some(header) = header else {
            // Either too short, or a UUID size beyond the field.
            if bytes.len() < HEADER_SIZE {
                let needed = to_u64(HEADER_SIZE);
                return Err(error(
                    section::HEADER,
                    0,
                    ErrorKind::Truncated { needed, available },
                ));
            }
            let size = bytes.get(7).copied().unwrap_or(0);
            return Err(error(
                section::HEADER,
                field::UUID_SIZE,
                ErrorKind::OutOfRange {
                    value: u64::from(size),
                    limit: to_u64(raw::MAX_UUID_SIZE),
                },
            ));
        };
        if header.version != raw::VERSION {
            return Err(error(
                section::HEADER,
                field::VERSION,
                ErrorKind::UnsupportedVersion(u64::from(header.version)),
            ));
        }
        let size = header.addr_off_size;
        if !matches!(size, 1 | 2 | 4 | 8) {
            return Err(error(
                section::HEADER,
                field::ADDR_OFF_SIZE,
                ErrorKind::BadFieldSize(u64::from(size)),
            ));
        }
        let count = u64::from(header.num_addresses);
        let header_size = to_u64(HEADER_SIZE);

        // The address table is aligned to its entry size and the info offsets to 4,
        // both counted from the start of the header.
        let at = align_up(header_size, u64::from(size)).unwrap_or(header_size);
        let table_size = count.saturating_mul(u64::from(size));
        let table = slice_at(bytes, section::ADDRESSES, at, table_size)?;
        let addresses = Words::new(table, size, endian).ok_or_else(|| {
            error(
                section::ADDRESSES,
                at,
                ErrorKind::BadFieldSize(u64::from(size)),
            )
        })?;

        let end = at.saturating_add(table_size);
        let info_offsets_at = align_up(end, INFO_OFFSET_ALIGN)
            .ok_or_else(|| error(section::INFO_OFFSETS, end, ErrorKind::Overflow))?;
        let table = slice_at(
            bytes,
            section::INFO_OFFSETS,
            info_offsets_at,
            count.saturating_mul(4),
        )?;
        let info_offsets = Words::new(table, 4, endian)
            .ok_or_else(|| error(section::INFO_OFFSETS, info_offsets_at, ErrorKind::Overflow))?;

        let count_at = info_offsets_at.saturating_add(count.saturating_mul(4));
        let count_bytes = slice_at(bytes, section::FILES, count_at, 4)?;
        let file_count = endian.u32(count_bytes.try_into().unwrap_or([0; 4]));
        let files_at = count_at.saturating_add(4);
        let table = slice_at(
            bytes,
            section::FILES,
            files_at,
            u64::from(file_count).saturating_mul(FILE_ENTRY_SIZE),
        )?;
        let files = Words::new(table, 4, endian)
            .ok_or_else(|| error(section::FILES, files_at, ErrorKind::Overflow))?;

        let strings = slice_at(
            bytes,
            section::STRINGS,
            u64::from(header.strtab_offset),
            u64::from(header.strtab_size),
        )
        .map_err(|e| Error {
            offset: field::STRTAB_OFFSET,
            ..e
        })?;

        Ok(GsymFile {
            bytes,
            endian,
            header,
            addresses,
            info_offsets,
            info_offsets_at,
            files,
            files_at,
            strings,
        })
    }

    /// The header fields.
    pub fn header(&self) -> Header<'a> {
        self.header
    }

    /// The byte order of the file.
    pub fn endian(&self) -> Endian {
        self.endian
    }

    /// The bytes the file was parsed from.
    pub fn bytes(&self) -> &'a [u8] {
        self.bytes
    }

    /// The number of functions (address-table entries).
    pub fn len(&self) -> usize {
        self.addresses.len()
    }

    /// True when the file holds no function.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The start address of function `index` (base address + table entry, wrapping
    /// like LLVM's 64-bit sum).
    pub fn address(&self, index: usize) -> Option<u64> {
        let offset = self.addresses.get(index)?;
        Some(self.header.base_address.wrapping_add(offset))
    }

    /// The file offset of function `index`'s FunctionInfo, as stored.
    pub fn info_offset(&self, index: usize) -> Option<u32> {
        let offset = self.info_offsets.get(index)?;
        u32::try_from(offset).ok()
    }

    /// The number of file-table entries (entry 0 is the empty file).
    pub fn file_count(&self) -> usize {
        self.files.len() / 2
    }

    /// File-table entry `index`, or `None` past the end. A string offset outside the
    /// string table reads as empty, as in LLVM.
    pub fn file(&self, index: u32) -> Option<FileEntry<'a>> {
        let (dir, base) = self.file_offsets(index)?;
        Some(FileEntry {
            dir: self.string_or_empty(dir),
            base: self.string_or_empty(base),
        })
    }

    /// The string offsets (directory, base name) of file-table entry `index`, as stored,
    /// or `None` past the end. An entry of two zero offsets names no file: a lookup adds
    /// no frame for an inlined call whose call file is such an entry, as LLVM.
    pub fn file_offsets(&self, index: u32) -> Option<(u32, u32)> {
        let i = usize::try_from(index).ok()?.checked_mul(2)?;
        let dir = u32::try_from(self.files.get(i)?).ok()?;
        let base = u32::try_from(self.files.get(i.checked_add(1)?)?).ok()?;
        Some((dir, base))
    }

    /// The string at `offset` of the string table: the bytes up to the next NUL or the
    /// end of the table; `None` when `offset` lies outside the table.
    pub fn string(&self, offset: u32) -> Option<Str<'a>> {
        let rest = self.strings.get(usize::try_from(offset).ok()?..)?;
        if rest.is_empty() {
            return None;
        }
        let end = crate::slice::nul_terminated_len(rest);
        rest.get(..end).map(Str)
    }

    /// [`string`](Self::string), with LLVM's empty string for an offset outside the table.
    fn string_or_empty(&self, offset: u32) -> Str<'a> {
        self.string(offset).unwrap_or_default()
    }

    /// The index of the function LLVM 14 selects for `addr`: the first entry equal to
    /// `addr - base`, else the last one below it (`std::lower_bound`, then one back);
    /// `None` below the base address or the first entry.
    fn select(&self, addr: u64) -> Option<usize> {
        let key = addr.checked_sub(self.header.base_address)?;
        self.selected(self.addresses.lower_bound(key), key)
    }

    /// LLVM 14's choice given the number of entries below `key`: the entry equal to it
    /// (the first of equal ones), else the last one below.
    fn selected(&self, below: usize, key: u64) -> Option<usize> {
        if self.addresses.get(below) == Some(key) {
            return Some(below);
        }
        below.checked_sub(1)
    }

    /// [`select`](Self::select) on a sorted address table, searched from entry `from`
    /// on when it lies below `addr` (by galloping: cheap when the answer is near), else
    /// from the start.
    fn select_after(&self, from: usize, addr: u64) -> Option<usize> {
        let key = addr.checked_sub(self.header.base_address)?;
        if self.addresses.get(from).is_none_or(|at| at >= key) {
            return self.select(addr);
        }
        self.selected(self.addresses.lower_bound_after(from, key), key)
    }

    /// The position of the first address-table entry below the one before it, if any
    /// (O(N)).
    fn first_unsorted_address(&self) -> Option<usize> {
        let mut previous = 0;
        (0..self.len()).find(|&index| {
            let offset = self.addresses.get(index).unwrap_or(u64::MAX);
            let unsorted = offset < previous;
            previous = offset;
            unsorted
        })
    }
}

#[cfg(test)]
mod tests;
