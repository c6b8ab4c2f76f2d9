//! What the symbol table adds to DWARF.
//!
//! * **Names of depth-0 frames.** `llvm-symbolizer --functions=linkage` names the
//!   outermost frame after the symbol table whenever a symbol covers the address (GCC's
//!   `foo.constprop.0`, `foo.cold`, `foo.part.0` clones keep the name `foo` in DWARF). The
//!   symbol model is LLVM's (`elf/symbols_llvm.rs`): defined `FUNC`, `GNU_IFUNC`, `NOTYPE` and `OBJECT` symbols of allocated
//!   sections, sorted by address; of several at one address the largest (then the last)
//!   wins; the symbol for an address is the last one at or below it, if its size is 0 or
//!   reaches the address. Depth-0 pieces are split where that answer changes.
//! * **Fallback ranges.** Addresses of executable sections that no DWARF function covers,
//!   but a function symbol does (assembly, units without DWARF), become depth-0 ranges
//!   named after the symbol, so coverage never drops below the symbol-only build.
//!   Zero-size function symbols reach up to the next symbol (as in LLVM's model) but never
//!   past the end of their section. A local symbol's range gets as its file the name of
//!   the `STT_FILE` symbol before it, as LLVM reports when DWARF has no file.
//! * **PLT entries** (x86-64, AArch64) count as function symbols named `name@plt` after the
//!   relocation of the GOT slot they jump through, as `objdump -d` and perf name them
//!   (LLVM 14 names them after the zero-size symbol before, usually `_init`).

use rayon::prelude::*;

use crate::demangle::demangle_bytes;
use crate::elf::symbols_llvm::{Symbol, SymbolMap};
use crate::model::{Bytes, Group, SharedBytes, Span};

/// The name a symbol gives a frame, demangled if asked.
fn symbol_name<'a>(sym: &Symbol<'a>, want_demangled: bool) -> Bytes<'a> {
    let demangled = want_demangled
        .then(|| demangle_bytes(sym.name, None))
        .flatten();
    match (demangled, sym.plt) {
        (Some(d), false) => Bytes::Shared(SharedBytes::from(d.into_bytes())),
        (Some(d), true) => Bytes::Shared(SharedBytes::from(format!("{d}@plt").into_bytes())),
        (None, true) => Bytes::Shared(SharedBytes::from([sym.name, b"@plt"].concat())),
        (None, false) => Bytes::Borrowed(sym.name),
    }
}

/// Splits each group where the symbol naming its depth-0 frame changes and renames the
/// depth-0 span after the symbol (DWARF's name stays where no symbol covers).
pub(crate) fn apply_symbol_names<'a>(
    groups: Vec<Group<'a>>,
    map: &SymbolMap<'a>,
    want_demangled: bool,
) -> Vec<Group<'a>> {
    // Each group is cut on its own, so parts of the list are handled in parallel; the
    // pieces come back in group order.
    let mut groups = groups;
    let parts: Vec<Vec<Group<'a>>> = groups
        .par_chunks_mut(1024)
        .map(|part| {
            let mut out = Vec::with_capacity(part.len());
            for g in part {
                let g = std::mem::replace(g, Group { spans: Vec::new() });
                cut_at_symbols(g, map, want_demangled, &mut out);
            }
            out
        })
        .collect();
    let mut out = Vec::with_capacity(parts.iter().map(Vec::len).sum());
    for part in parts {
        out.extend(part);
    }
    out
}

/// [`apply_symbol_names`] for one group: its pieces, in address order, go to `out`.
fn cut_at_symbols<'a>(
    mut g: Group<'a>,
    map: &SymbolMap<'a>,
    want_demangled: bool,
    out: &mut Vec<Group<'a>>,
) {
    let regions = map.regions(g.start(), g.end());
    let first = out.len();
    for &(s, _, _) in regions.iter().rev() {
        if s > g.start() {
            out.push(g.split_off(s));
        }
    }
    out.push(g);
    out[first..].reverse();
    for (piece, (_, _, sym)) in out[first..].iter_mut().zip(regions) {
        if let (Some(sym), Some(root)) = (sym, piece.spans.first_mut()) {
            root.name = symbol_name(sym, want_demangled);
        }
    }
}

/// Depth-0 groups for the parts of function symbols, inside executable sections, that no
/// DWARF group covers (PLT entries included). `dwarf` is sorted by address and
/// non-overlapping.
pub(crate) fn fallback_groups<'a>(
    map: &SymbolMap<'a>,
    exec: &[(u64, u64)],
    dwarf: &[Group<'a>],
    want_demangled: bool,
) -> Vec<Group<'a>> {
    let mut out = Vec::new();
    for &(sec_start, sec_end) in exec {
        for (s, e, sym) in map.regions(sec_start, sec_end) {
            // A zero-size symbol of an earlier section does not reach into this one.
            let Some(sym) = sym.filter(|x| x.is_func && (x.size != 0 || x.addr >= sec_start))
            else {
                continue;
            };
            let mut pos = s;
            let mut i = dwarf.partition_point(|g| g.end() <= s);
            while pos < e {
                let (gap_end, next) = match dwarf.get(i) {
                    Some(g) if g.start() < e => (g.start().max(pos), g.end()),
                    _ => (e, e),
                };
                if pos < gap_end {
                    out.push(Group {
                        spans: vec![Span {
                            file: (!sym.file.is_empty()).then(|| SharedBytes::from(sym.file)),
                            ..Span::function(pos, gap_end, symbol_name(sym, want_demangled))
                        }],
                    });
                }
                pos = next.max(pos);
                i += 1;
            }
        }
    }
    out
}
