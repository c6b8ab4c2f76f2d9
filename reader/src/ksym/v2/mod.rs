//! ksym-bin v2: a kernel symbol table smaller than Linux's kallsyms (spec
//! `ksym-bin-v2.md`).
//!
//! Names are stored once, in name order, front coded in runs of 32 with byte codes for
//! common strings; addresses in blocks of 32 with the fewest bits each block needs; two
//! bit-packed links join the orders. The reader works in place on a borrowed slice, at
//! any alignment, with no allocation and a bounded stack:
//!
//! * [`Blob::open`] checks the layout in O(1); [`Blob::parse`] also [`validates`]
//!   (O(N)) every rule of the spec.
//! * [`Ksyms`] adds text ranges and a load bias: address → `name+0xoff/0xsize`, one at a
//!   time, in batches, or for return addresses, as v1's [`crate::ksym::Ksyms`].
//! * [`Blob::lookup_name`] and [`Blob::lookup_name_all`]: name → address through the
//!   blob's name hash index when it has one (builders add it where names share long
//!   prefixes), else the restart keys and a scan that skips names without decoding them.
//! * [`Blob::symbols`], [`Blob::symbols_by_name`] and [`Blob::dump`] list the symbols.
//!
//! [`crate::ksym::Version::detect`] tells a v2 blob from the two v1 framings.
//!
//! [`validates`]: Blob::validate

mod addresses;
mod blob;
mod entries;
mod hash;
mod header;
mod iter;
mod lookup;
mod name;
mod packed;
mod search;
mod validate;

pub use blob::Blob;
pub use hash::name_hash;
pub use header::{HEADER_SIZE, MAGIC};
pub use iter::{Entry, Symbols};
pub use lookup::{Ksyms, Symbol};
pub use name::{Name, NameBytes};
