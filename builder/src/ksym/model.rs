//! ksym-bin symbols from the [model](crate::model).

use std::collections::BTreeSet;

use crate::model::{Model, Symbol};

/// The symbols a ksym-bin blob of `model` stores: its typed symbols (every alias and
/// type kept), and one global text symbol (`T`) at the start of each named function
/// piece where no typed symbol starts, named as the piece (bytes that are not UTF-8
/// become U+FFFD): a model without symbols gives one per piece, a Breakpad file's
/// `FUNC` records join its `PUBLIC` symbols. Pieces without a name have no ksym-bin form
/// and are left out. ksym-bin keeps no sizes: each symbol then ends where the next one
/// starts.
pub fn symbols_of(model: &Model<'_>) -> Vec<Symbol> {
    let typed: BTreeSet<u64> = model.symbols.iter().map(|s| s.address).collect();
    let mut out = model.symbols.clone();
    out.extend(
        model
            .function_spans()
            .filter(|s| !s.name.is_empty() && !typed.contains(&s.start))
            .map(|s| Symbol {
                address: s.start,
                kind: b'T',
                name: String::from_utf8_lossy(&s.name).into_owned(),
            }),
    );
    out
}
