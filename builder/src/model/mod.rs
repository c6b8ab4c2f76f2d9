//! The model: what sources produce and writers consume.
//!
//! Sources ([`crate::dwarf`], [`crate::elf`], [`crate::gopclntab`], [`crate::text`]) fill
//! these types and know nothing of any output format; writers ([`crate::ksym`],
//! [`crate::lidia`]) read them and know nothing of where they came from.
//!
//! * [`Group`] / [`Span`] / [`Row`] (`function`): one function piece with its inline
//!   spans (depth, name, call file and line) and the line rows each owns; the invariants
//!   are in the `function` module's documentation.

mod function;

pub(crate) use function::{sort_spans, Bytes, Group, Row, Span};
