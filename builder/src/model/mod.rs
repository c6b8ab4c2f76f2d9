//! The model: what sources produce and writers consume.
//!
//! Sources ([`crate::dwarf`], [`crate::elf`], [`crate::gopclntab`], [`crate::text`]) fill
//! these types and know nothing of any output format; writers ([`crate::ksym`],
//! [`crate::lidia`]) read them and know nothing of where they came from.
//!
//! * `Group` / `Span` / `Row` (`function`, crate-internal): one function piece with its inline
//!   spans (depth, name, call file and line) and the line rows each owns; the invariants
//!   are in the `function` module's documentation.
//! * [`Symbol`] / [`SymbolList`]: named addresses with an nm type character, kept by the
//!   one symbol rule ([`TypeFilter`], mapping symbols dropped, names checked and
//!   normalised by [`Demangle`]).

mod function;
mod names;
mod symbols;

pub(crate) use function::{sort_spans, Bytes, Group, Row, Span};
pub(crate) use names::{check_name_bytes, check_name_length, MappingSymbols};
pub use names::{Demangle, NameError};
pub(crate) use symbols::accept;
pub use symbols::{InputOptions, Symbol, SymbolList, TypeFilter};
