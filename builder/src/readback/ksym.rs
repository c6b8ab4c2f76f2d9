//! ksym-bin blobs as a source: every stored symbol with its type, in address order, the
//! blob's text ranges, and the functions its lookups answer with.

use std::ops::Range;

use symblob::ksym::{KsymBlob, LayoutKind};

use super::reader_error;
use crate::model::{functions_of_symbols, Model, Symbol};
use crate::Result;

/// What a ksym-bin blob holds, in the model.
#[derive(Clone, Debug)]
pub struct KsymSource {
    /// Symbols in stored (address) order, aliases in their stored order; functions that
    /// cover each symbol's addresses up to the next symbol or the end of its text range.
    pub model: Model<'static>,
    /// The blob's layout (sized or plain), so that a rewrite can keep it.
    pub layout: LayoutKind,
}

/// Reads the ksym-bin blob `bytes` (named `input` in errors) into the model.
pub fn read(bytes: &[u8], input: &str) -> Result<KsymSource> {
    let blob = KsymBlob::parse(bytes).map_err(|e| reader_error(input, e))?;
    let symbols: Vec<Symbol> = blob
        .symbols()
        .map(|entry| Symbol {
            address: entry.address,
            kind: entry.kind,
            name: String::from_utf8_lossy(&entry.name.bytes().collect::<Vec<u8>>()).into_owned(),
        })
        .collect();
    let text_ranges = text_ranges(&blob);
    let functions = functions_of_symbols(&symbols, &text_ranges);
    Ok(KsymSource {
        model: Model {
            functions,
            symbols,
            text_ranges,
            ..Model::default()
        },
        layout: blob.layout_kind(),
    })
}

/// The text ranges a blob's lookups use when the caller gives none: `_stext.._etext`
/// (and `_sinittext.._einittext` when disjoint from it) where the blob has those
/// markers, as the kernel's own kallsyms does; otherwise from the first symbol to one
/// byte past the last (the blob does not say where the last symbol ends).
pub fn text_ranges(blob: &KsymBlob<'_>) -> Vec<Range<u64>> {
    let marker = |name: &str| blob.lookup_name(name);
    let mut ranges = Vec::new();
    if let (Some(start), Some(end)) = (marker("_stext"), marker("_etext")) {
        if start < end {
            ranges.push(start..end);
            if let (Some(s), Some(e)) = (marker("_sinittext"), marker("_einittext")) {
                if s < e && (e <= start || s >= end) {
                    ranges.push(s..e);
                }
            }
            return ranges;
        }
    }
    let first = blob.symbol(0).map(|e| e.address);
    let last = blob.len().checked_sub(1).and_then(|i| blob.symbol(i));
    if let (Some(first), Some(last)) = (first, last) {
        ranges.push(first..last.address.saturating_add(1).max(first.saturating_add(1)));
    }
    ranges
}
