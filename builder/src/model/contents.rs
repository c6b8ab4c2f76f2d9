//! One input's whole content in the model: what `symblob convert` carries from a source
//! to a writer, and the facts it holds, so that a conversion can say what its target
//! cannot keep.

use std::fmt;
use std::ops::Range;
use std::sync::atomic::{AtomicBool, Ordering};

use super::{Bytes, CfiRecord, Group, Span, Symbol};

/// Everything a source read from one input.
///
/// Invariants: `functions` are sorted by their start address (ties keep input order) and
/// each satisfies [`Group`]'s invariant; `symbols` keep input order (writers sort);
/// `return_pads` are sorted by address; `unwind` keeps its source's order.
#[derive(Clone, Debug, Default)]
pub struct Model<'a> {
    /// Function pieces with their inline calls and line rows.
    pub functions: Vec<Group<'a>>,
    /// Typed symbols, when the input has them (ksym-bin, ELF symbol tables, nm text).
    pub symbols: Vec<Symbol>,
    /// The address ranges the symbols describe (a ksym-bin blob's text ranges); empty
    /// when the input does not say.
    pub text_ranges: Vec<Range<u64>>,
    /// Inline chains at return addresses (symbfile return-pad records).
    pub return_pads: Vec<ReturnPad>,
    /// Unwind rules (Breakpad `STACK CFI`), in the order of their source (dump_syms's:
    /// the unwind tables' order), which a Breakpad file keeps.
    pub unwind: Vec<CfiRecord<'a>>,
}

/// The inline chain of one return address, outermost frame first.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ReturnPad {
    /// The return address minus one (what a profiler looks up).
    pub address: u64,
    /// Frames, outermost first.
    pub frames: Vec<PadFrame>,
}

/// One frame of a [`ReturnPad`].
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct PadFrame {
    /// The function at this level.
    pub function: String,
    /// The file of the call site in this function (of the return address itself for the
    /// innermost frame).
    pub file: Option<String>,
    /// The line of that place; 0 when unknown.
    pub line: u32,
}

/// Which kinds of facts a [`Model`] holds; what a conversion keeps is the intersection of
/// the source's and the target's.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Contents {
    /// Functions with address ranges.
    pub functions: bool,
    /// Inlined calls (spans deeper than 0).
    pub inline: bool,
    /// Source files.
    pub files: bool,
    /// Line rows.
    pub lines: bool,
    /// Typed symbols (nm type characters), aliases included.
    pub symbols: bool,
    /// Return pads.
    pub return_pads: bool,
    /// Unwind rules.
    pub unwind: bool,
}

impl Contents {
    /// The facts of `self` that `target` cannot hold, by name.
    pub fn lost_in(&self, target: &Contents) -> Vec<&'static str> {
        let pairs = [
            (self.inline, target.inline, "inlined calls"),
            (self.files, target.files, "source files"),
            (self.lines, target.lines, "line numbers"),
            (self.symbols, target.symbols, "symbol types and aliases"),
            (self.return_pads, target.return_pads, "return pads"),
            (self.unwind, target.unwind, "unwind rules"),
        ];
        pairs
            .iter()
            .filter(|(has, keeps, _)| *has && !*keeps)
            .map(|&(_, _, what)| what)
            .collect()
    }
}

impl fmt::Display for Contents {
    /// The facts held, as a comma-separated list (`functions, inlined calls, …`).
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let names = [
            (self.functions, "functions"),
            (self.inline, "inlined calls"),
            (self.files, "source files"),
            (self.lines, "line numbers"),
            (self.symbols, "typed symbols"),
            (self.return_pads, "return pads"),
            (self.unwind, "unwind rules"),
        ];
        let held: Vec<&str> = names.iter().filter(|(h, _)| *h).map(|&(_, n)| n).collect();
        if held.is_empty() {
            f.write_str("nothing")
        } else {
            f.write_str(&held.join(", "))
        }
    }
}

/// Whether [`Model::drop_in_parallel`] leaves models to the process's exit
/// ([`leave_models_to_exit`]).
static LEFT_TO_EXIT: AtomicBool = AtomicBool::new(false);

/// For a process that exits once its output is written (the `symblob` command line,
/// but not its service): the models that builds and conversions are done with are no
/// longer freed piece by piece but left to the process's exit, which gives back all of
/// its memory at once. A kernel's model is hundreds of thousands of allocations; freeing
/// them is a tenth of a conversion's CPU time. Compilers do the same (clang's
/// `-disable-free`). Never for a process that goes on working: their memory stays taken.
pub fn leave_models_to_exit() {
    LEFT_TO_EXIT.store(true, Ordering::Relaxed);
}

// The builds and conversions that free a large model at their end.
#[cfg(any(feature = "breakpad", feature = "gsym"))]
impl Model<'_> {
    /// Frees the model on the rayon pool: a kernel's model is hundreds of thousands of
    /// allocations (spans, their rows, unwind rows), which one thread takes tens of
    /// milliseconds to free at the end of a conversion. Left to the process's exit after
    /// [`leave_models_to_exit`].
    pub(crate) fn drop_in_parallel(self) {
        use rayon::prelude::*;
        if LEFT_TO_EXIT.load(Ordering::Relaxed) {
            std::mem::forget(self);
            return;
        }
        /// Items freed by one task.
        const PER_TASK: usize = 1 << 12;
        let Model {
            functions, unwind, ..
        } = self;
        rayon::join(
            || {
                functions
                    .into_par_iter()
                    .with_min_len(PER_TASK)
                    .for_each(drop)
            },
            || unwind.into_par_iter().with_min_len(PER_TASK).for_each(drop),
        );
    }
}

impl Model<'_> {
    /// The kinds of facts this model holds.
    pub fn contents(&self) -> Contents {
        let spans = || self.functions.iter().flat_map(|g| &g.spans);
        Contents {
            functions: !self.functions.is_empty(),
            inline: spans().any(|s| s.depth > 0),
            files: spans().any(|s| s.file.is_some() || s.call_file.is_some()),
            lines: spans().any(|s| !s.rows.is_empty()),
            symbols: !self.symbols.is_empty(),
            return_pads: !self.return_pads.is_empty(),
            unwind: !self.unwind.is_empty(),
        }
    }

    /// Whether the model holds nothing at all.
    pub fn is_empty(&self) -> bool {
        self.functions.is_empty()
            && self.symbols.is_empty()
            && self.return_pads.is_empty()
            && self.unwind.is_empty()
    }

    /// The depth-0 spans as functions: the piece of each name, in address order.
    pub fn function_spans(&self) -> impl Iterator<Item = &Span<'_>> {
        self.functions.iter().filter_map(|g| g.spans.first())
    }
}

/// Functions for symbols that have no size of their own: each covers the addresses up to
/// the next greater symbol address or the end of its text range, whichever comes first,
/// named by the first symbol stored at its address (what ksym-bin's lookups answer).
/// Symbols outside every range, and ranges before their first symbol, give nothing.
///
/// `symbols` must be sorted by address with aliases in their stored order.
pub fn functions_of_symbols(symbols: &[Symbol], text_ranges: &[Range<u64>]) -> Vec<Group<'static>> {
    let mut out = Vec::new();
    for (i, sym) in symbols.iter().enumerate() {
        if i > 0 && symbols[i - 1].address == sym.address {
            continue; // an alias: the first at this address names it
        }
        let Some(range) = text_ranges.iter().find(|r| r.contains(&sym.address)) else {
            continue;
        };
        let next = symbols[i..]
            .iter()
            .map(|s| s.address)
            .find(|&a| a > sym.address)
            .unwrap_or(u64::MAX);
        let end = next.min(range.end);
        out.push(Group {
            spans: vec![Span::function(
                sym.address,
                end,
                Bytes::Shared(sym.name.as_bytes().into()),
            )],
        });
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sym(address: u64, name: &str) -> Symbol {
        Symbol {
            address,
            kind: b'T',
            name: name.into(),
        }
    }

    #[test]
    fn symbols_end_at_the_next_address_or_the_range_end() {
        let symbols = [
            sym(0x10, "a"),
            sym(0x10, "alias"),
            sym(0x20, "b"),
            sym(0x100, "far"),
        ];
        let text = [0x10..0x30, 0x200..0x300];
        let groups = functions_of_symbols(&symbols, &text);
        let got: Vec<_> = groups
            .iter()
            .map(|g| (g.start(), g.end(), g.spans[0].name.to_vec()))
            .collect();
        assert_eq!(
            got,
            vec![(0x10, 0x20, b"a".to_vec()), (0x20, 0x30, b"b".to_vec())]
        );
    }

    #[test]
    fn lost_names_what_the_target_lacks() {
        let all = Contents {
            functions: true,
            inline: true,
            files: true,
            lines: true,
            symbols: false,
            return_pads: true,
            unwind: false,
        };
        let ksym = Contents {
            functions: true,
            symbols: true,
            ..Contents::default()
        };
        assert_eq!(
            all.lost_in(&ksym),
            [
                "inlined calls",
                "source files",
                "line numbers",
                "return pads"
            ]
        );
        assert!(ksym.lost_in(&all) == ["symbol types and aliases"]);
    }
}
