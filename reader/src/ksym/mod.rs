//! ksym-bin v1: a compressed, kallsyms-style table of text symbols.
//!
//! A blob holds, for every symbol, an absolute address, an nm type letter and a name that
//! may start with a shared token (spec: `ksym-bin.md`). This module reads it in place:
//!
//! * [`KsymBlob::parse`] locates the segments (at any memory alignment, on any host byte
//!   order) and checks the structure once, in O(N + K) without allocating. After that every
//!   accessor is infallible. [`KsymBlob::validate`] is the deeper, optional check.
//!   [`KsymBlob::parse_trusted`] opens a blob the caller built itself (a kernel's own
//!   symbol table) in O(1): it checks only the layout, and leaves every entry check to
//!   `validate`; accessors stay total and bounded on any bytes.
//! * [`Ksyms`] adds the text ranges and load bias needed to turn an address into
//!   `name+0xoff/0xsize` ([`Ksyms::lookup_address`], [`Ksyms::lookup_return_address`];
//!   [`Ksyms::lookup_address_each`] for a slice of addresses, with their searches
//!   overlapped).
//! * [`KsymBlob::lookup_name`] turns a name into the lowest address carrying it;
//!   [`NameIndex`] does the same through a hash index built once into caller memory.
//! * [`KsymBlob::symbols`], [`KsymBlob::symbols_by_name`], [`KsymBlob::dump`] and
//!   [`KsymBlob::dump_line`] list the symbols.
//!
//! Names are borrowed as two pieces ([`Name`]): the token and the rest of the record.
//! They are compared, printed and copied without an intermediate buffer, so stack use is
//! small and independent of name length.
//!
//! # Example
//!
//! The three-symbol blob of the specification's worked example (`_start`, `do_fork`, and
//! `cpu_startup_entry`, which uses token 0), placed at an odd address:
//!
//! ```
//! use symblob::ksym::{KsymBlob, Ksyms, TextRanges};
//!
//! let mut bytes = vec![0u8; 1]; // a one-byte offset: alignment does not matter
//! let le64 = |v: u64| v.to_le_bytes();
//! let le32 = |v: u32| v.to_le_bytes();
//! bytes.extend(le64(3));
//! for a in [0x1000u64, 0x1100, 0x1200] { bytes.extend(le64(a)); }
//! for o in [0u32, 9, 19] { bytes.extend(le32(o)); }       // offsets
//! for s in [0u32, 2, 1] { bytes.extend(le32(s)); }        // seqs, in name order
//! bytes.extend(le64(32));
//! bytes.extend(b"T\x06\x00_start");
//! bytes.extend(b"T\x07\x00do_fork");
//! bytes.extend(b"T\x0a\x00\xff\x00\xffp_entry");           // token 0 + "p_entry"
//! bytes.extend(le64(23));
//! bytes.extend(b"cpu_startudo_fork_start\0");              // token table + padding
//! bytes.extend(le64(3));
//! for t in [0u32, 10, 17] { bytes.extend(le32(t)); }      // token index
//!
//! let blob = KsymBlob::parse(&bytes[1..])?;
//! assert_eq!(blob.len(), 3);
//! assert_eq!(blob.used_size(), 148);
//! blob.validate()?;
//!
//! let ksyms = Ksyms::new(blob, TextRanges::single(0x1000, 0x1300)?);
//! let sym = ksyms.lookup_address(0x1234).expect("inside cpu_startup_entry");
//! assert_eq!(sym.to_string(), "cpu_startup_entry+0x34/0x100");
//! assert_eq!(ksyms.lookup_address(0x1300), None); // past the text range
//!
//! assert_eq!(blob.lookup_name("do_fork"), Some(0x1100));
//! assert_eq!(blob.lookup_name("do_for"), None);
//!
//! let mut dump = String::new();
//! blob.dump(&mut dump)?;
//! assert_eq!(dump.lines().next(), Some("0000000000001000 T _start"));
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

mod compat;
mod detect;
mod dump;
mod iter;
mod layout;
mod lookup_address;
mod lookup_name;
mod name;
mod name_index;
mod parse;
mod ranges;
pub mod raw;
mod search;
mod validate;

pub use compat::{KallsymsMapped, KSYM_NAME_LEN};
pub use dump::DumpLine;
pub use iter::{Entry, Symbols, SymbolsByName};
pub use layout::{Layout, LayoutKind, Segment};
pub use lookup_address::{Ksyms, Symbol};
pub use lookup_name::NameMatches;
pub use name::{Name, NameBytes};
pub use name_index::{NameIndex, MAX_PROBES};
pub use parse::KsymBlob;
pub use ranges::TextRanges;
pub use search::{name_probe_ranks, MAX_PROBE_ROUNDS};

pub mod v2;

/// Which ksym-bin framing a blob has (told apart from its bytes).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Version {
    /// ksym-bin v1 in one of its two framings (ksym-bin.md 3.5).
    V1(LayoutKind),
    /// ksym-bin v2 (ksym-bin-v2.md): starts with [`v2::MAGIC`].
    V2,
}

impl Version {
    /// v2 when `blob` starts with its magic, else v1 in the layout
    /// [`LayoutKind::detect`] finds. No v1 blob can start with the v2 magic (ksym-bin-v2.md
    /// section 3). O(1).
    pub fn detect(blob: &[u8]) -> Version {
        if blob.starts_with(&v2::MAGIC) {
            Version::V2
        } else {
            Version::V1(LayoutKind::detect(blob))
        }
    }
}
