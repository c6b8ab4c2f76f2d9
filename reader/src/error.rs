//! The one error type of the reader.

use core::fmt;

/// The blob format an [`Error`] belongs to.
///
/// More formats will join; match with a wildcard arm.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Format {
    /// ksym-bin v1 ([`crate::ksym`]).
    Ksym,
    /// Lidia v1 ([`crate::lidia`]).
    Lidia,
    /// Compact ImageMap Format ([`crate::cif`]).
    Cif,
    /// OpenTelemetry symbfile ([`crate::symbfile`]).
    Symbfile,
    /// LLVM GSYM v1 ([`crate::gsym`]).
    Gsym,
}

impl fmt::Display for Format {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Format::Ksym => "ksym-bin",
            Format::Lidia => "lidia",
            Format::Cif => "cif",
            Format::Symbfile => "symbfile",
            Format::Gsym => "gsym",
        })
    }
}

/// What went wrong. Small and `Copy`, so it can be matched on and passed around freely.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum ErrorKind {
    /// The section needs `needed` bytes from its offset but only `available` remain.
    Truncated {
        /// Bytes the section needs.
        needed: u64,
        /// Bytes left in the buffer at the section's offset.
        available: u64,
    },
    /// A count, size or offset overflows when it is turned into a byte position.
    Overflow,
    /// A value lies outside the range it must stay in: `value` was found, and it must be
    /// below `limit` (or at most `limit`, for end positions).
    OutOfRange {
        /// The value found.
        value: u64,
        /// The bound it breaks.
        limit: u64,
    },
    /// A table that must be sorted is not; the offset points at the first entry out of order.
    Unsorted,
    /// The magic number is wrong.
    BadMagic,
    /// The version is not one this reader knows.
    UnsupportedVersion(u64),
    /// A field or entry size is not one of the permitted sizes.
    BadFieldSize(u64),
    /// Two values that must agree do not.
    Mismatch {
        /// The value the other field demands.
        expected: u64,
        /// The value found.
        found: u64,
    },
    /// A checksum does not match the bytes it covers.
    ChecksumMismatch {
        /// The checksum stored in the blob.
        stored: u32,
        /// The checksum computed from the bytes.
        computed: u32,
    },
    /// Bytes that must be UTF-8 are not.
    InvalidUtf8,
    /// A caller-supplied buffer is too small for the result.
    BufferTooSmall {
        /// Bytes the result needs (a lower bound where the full size is unknown).
        needed: u64,
    },
    /// A structural rule of the format is broken; the text says which.
    Malformed(&'static str),
}

/// A malformed or unsupported blob: what was wrong, in which section, at which offset.
///
/// `offset` is a byte offset from the start of the blob (for CIF: of the stream), so a
/// hex dump of the blob shows the bad bytes at that position.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub struct Error {
    /// The format being read.
    pub format: Format,
    /// The section (segment, table, field) in which the problem was found.
    pub section: &'static str,
    /// Byte offset from the start of the blob.
    pub offset: u64,
    /// What was wrong.
    pub kind: ErrorKind,
}

impl Error {
    /// Builds an error; `offset` is a byte offset from the start of the blob.
    pub const fn new(format: Format, section: &'static str, offset: u64, kind: ErrorKind) -> Self {
        Error {
            format,
            section,
            offset,
            kind,
        }
    }
}

impl fmt::Display for ErrorKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match *self {
            ErrorKind::Truncated { needed, available } => {
                write!(f, "truncated: needs {needed} bytes, {available} available")
            }
            ErrorKind::Overflow => f.write_str("size or offset overflows"),
            ErrorKind::OutOfRange { value, limit } => {
                write!(f, "value {value:#x} out of range (limit {limit:#x})")
            }
            ErrorKind::Unsorted => f.write_str("not sorted"),
            ErrorKind::BadMagic => f.write_str("bad magic number"),
            ErrorKind::UnsupportedVersion(v) => write!(f, "unsupported version {v}"),
            ErrorKind::BadFieldSize(s) => write!(f, "unsupported field size {s}"),
            ErrorKind::Mismatch { expected, found } => {
                write!(f, "expected {expected}, found {found}")
            }
            ErrorKind::ChecksumMismatch { stored, computed } => {
                write!(
                    f,
                    "checksum mismatch: stored {stored:#010x}, computed {computed:#010x}"
                )
            }
            ErrorKind::InvalidUtf8 => f.write_str("invalid UTF-8"),
            ErrorKind::BufferTooSmall { needed } => {
                write!(f, "buffer too small: {needed} bytes needed")
            }
            ErrorKind::Malformed(what) => f.write_str(what),
        }
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{}: {} at offset {:#x}: {}",
            self.format, self.section, self.offset, self.kind
        )
    }
}

impl core::error::Error for Error {}
