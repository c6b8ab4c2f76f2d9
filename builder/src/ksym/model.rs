//! ksym-bin symbols from the [model](crate::model).

use crate::model::{Model, Symbol};

/// The symbols a ksym-bin blob of `model` stores: its typed symbols when it has them
/// (every alias and type kept), otherwise one global text symbol (`T`) at the start of
/// each named function piece, named as the piece (bytes that are not UTF-8 become
/// U+FFFD); pieces without a name have no ksym-bin form and are left out.
/// ksym-bin keeps no sizes: each symbol then ends where the next one starts.
pub fn symbols_of(model: &Model<'_>) -> Vec<Symbol> {
    if !model.symbols.is_empty() {
        return model.symbols.clone();
    }
    model
        .function_spans()
        .filter(|s| !s.name.is_empty())
        .map(|s| Symbol {
            address: s.start,
            kind: b'T',
            name: String::from_utf8_lossy(&s.name).into_owned(),
        })
        .collect()
}
