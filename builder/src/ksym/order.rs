//! The two orders of a blob (D13): address order with a fixed alias preference, and the
//! name table (`seqs`).

use super::Symbol;

/// Symbols in address order, exact duplicates removed, with the name-order permutation.
pub(crate) struct Ordered<'a> {
    /// Symbols in stored (address) order.
    pub symbols: Vec<&'a Symbol>,
    /// `seqs[r]`: the address-order index of the symbol at rank `r` in name order.
    pub seqs: Vec<u32>,
    /// How many input records were exact duplicates (address, type and name).
    pub duplicates_removed: u64,
}

/// Orders `symbols`: by (address, leading-underscore count, name bytes, input position),
/// keeping one of each (address, type, name); then the name table by (name bytes,
/// address, address-order index), so the first entry of an equal-name run has the lowest
/// address. The caller has checked that the count fits in a u32.
pub(crate) fn order(symbols: &[Symbol]) -> Ordered<'_> {
    let mut by_address: Vec<(usize, &Symbol)> = symbols.iter().enumerate().collect();
    by_address.sort_by(|(ia, a), (ib, b)| {
        (
            a.address,
            leading_underscores(&a.name),
            a.name.as_bytes(),
            ia,
        )
            .cmp(&(
                b.address,
                leading_underscores(&b.name),
                b.name.as_bytes(),
                ib,
            ))
    });

    // Records equal in address and name are adjacent now; within such a run keep the
    // first record of each type.
    let mut kept: Vec<&Symbol> = Vec::with_capacity(by_address.len());
    let mut run_start = 0usize;
    for (_, sym) in by_address {
        let same_run = kept
            .get(run_start)
            .is_some_and(|first| first.address == sym.address && first.name == sym.name);
        if !same_run {
            run_start = kept.len();
        }
        if !kept[run_start..].iter().any(|k| k.kind == sym.kind) {
            kept.push(sym);
        }
    }
    let duplicates_removed = (symbols.len() - kept.len()) as u64;

    let mut seqs: Vec<u32> = (0..kept.len() as u32).collect();
    seqs.sort_by(|&a, &b| {
        let (sa, sb) = (kept[a as usize], kept[b as usize]);
        (sa.name.as_bytes(), sa.address, a).cmp(&(sb.name.as_bytes(), sb.address, b))
    });
    Ordered {
        symbols: kept,
        seqs,
        duplicates_removed,
    }
}

/// Number of leading `_` bytes: among aliases, fewer underscores is preferred
/// (`startup_64` before `_stext`, `do_fork` before `__do_fork`), as in Linux.
fn leading_underscores(name: &str) -> usize {
    name.bytes().take_while(|&b| b == b'_').count()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sym(address: u64, kind: u8, name: &str) -> Symbol {
        Symbol {
            address,
            kind,
            name: name.into(),
        }
    }

    #[test]
    fn orders_aliases_and_names() {
        let input = vec![
            sym(0x20, b'T', "_stext"),
            sym(0x20, b'T', "startup_64"),
            sym(0x10, b't', "dup"),
            sym(0x20, b'T', "_stext"),
            sym(0x20, b't', "_stext"),
            sym(0x08, b't', "dup"),
        ];
        let o = order(&input);
        let names: Vec<_> = o
            .symbols
            .iter()
            .map(|s| (s.address, s.kind, s.name.as_str()))
            .collect();
        assert_eq!(
            names,
            vec![
                (0x08, b't', "dup"),
                (0x10, b't', "dup"),
                (0x20, b'T', "startup_64"),
                (0x20, b'T', "_stext"),
                (0x20, b't', "_stext"),
            ]
        );
        assert_eq!(o.duplicates_removed, 1);
        // "_stext" (3, 4) < "dup" (0, 1) < "startup_64" (2)
        assert_eq!(o.seqs, vec![3, 4, 0, 1, 2]);
    }
}
