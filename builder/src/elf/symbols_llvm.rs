//! Symbols by the rules of LLVM's symbolizer, which the DWARF session uses to name
//! depth-0 frames and to fill code DWARF does not describe (see `dwarf/symtab_fill.rs`).
//!
//! The model: defined `FUNC`, `GNU_IFUNC`, `NOTYPE` and `OBJECT` symbols of allocated
//! sections, sorted by address; of several at one address the largest (then the last)
//! wins; the symbol for an address is the last one at or below it, if its size is 0 or
//! reaches the address. Mapping symbols follow [`MappingSymbols::Llvm`].
//!
//! PLT entries (x86-64 and AArch64, `plt.rs`) count as function symbols named `name@plt` after the
//! relocation of the GOT slot they jump through, as `objdump -d` and perf name them
//! (LLVM 14 names them after the zero-size symbol before, usually `_init`).

use object::{Object, ObjectSection, ObjectSymbol, SectionFlags, SymbolKind, SymbolSection};

use crate::model::MappingSymbols;

/// One symbol of LLVM's symbolizer model.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Symbol<'a> {
    /// Address.
    pub addr: u64,
    /// Size (0 = up to the next symbol).
    pub size: u64,
    /// Name as stored.
    pub name: &'a [u8],
    /// A `FUNC`, `GNU_IFUNC` or `NOTYPE` symbol (not an `OBJECT`).
    pub is_func: bool,
    /// For a local symbol, the name of the `STT_FILE` symbol before it (LLVM reports it
    /// as the file when DWARF has none).
    pub file: &'a [u8],
    /// A PLT entry: `name` is its dynamic symbol, the frame is named `name@plt`.
    pub plt: bool,
}

/// The symbol table as LLVM's symbolizer sees it.
#[derive(Debug, Default)]
pub(crate) struct SymbolMap<'a> {
    syms: Vec<Symbol<'a>>,
}

impl<'a> SymbolMap<'a> {
    /// Reads `.symtab` (or `.dynsym` when there is no `.symtab`) of `obj`.
    pub fn from_elf(obj: &object::File<'a>) -> Self {
        let mut syms = Self::collect(obj, obj.symbols());
        if syms.is_empty() {
            syms = Self::collect(obj, obj.dynamic_symbols());
        }
        // PLT entries have no symbol; objdump and perf name them after their relocation.
        syms.extend(super::plt::plt_entries(obj).into_iter().map(|e| Symbol {
            addr: e.addr,
            size: e.size,
            name: e.name,
            is_func: true,
            file: &[],
            plt: true,
        }));
        Self::from_symbols(syms)
    }

    fn collect<'f>(
        obj: &'f object::File<'a>,
        iter: impl Iterator<Item = object::Symbol<'a, 'f>>,
    ) -> Vec<Symbol<'a>> {
        let mut out = Vec::new();
        let mut file: &'a [u8] = &[];
        for sym in iter {
            if sym.kind() == SymbolKind::File {
                file = sym.name_bytes().unwrap_or_default();
                continue;
            }
            // NOTYPE symbols (assembly entry code) count like functions; `$x`/`$d`
            // mapping symbols do not (LLVM drops them as format-specific).
            let is_func = match sym.kind() {
                SymbolKind::Text => true,
                SymbolKind::Unknown | SymbolKind::Label
                    if !MappingSymbols::Llvm.matches(sym.name_bytes().unwrap_or_default()) =>
                {
                    true
                }
                SymbolKind::Data => false,
                _ => continue,
            };
            let SymbolSection::Section(index) = sym.section() else {
                continue;
            };
            let allocated = obj.section_by_index(index).is_ok_and(|s| match s.flags() {
                SectionFlags::Elf { sh_flags, .. } => sh_flags.contains(object::elf::SHF_ALLOC),
                _ => true,
            });
            let Ok(name) = sym.name_bytes() else { continue };
            if !allocated || name.is_empty() {
                continue;
            }
            out.push(Symbol {
                addr: sym.address(),
                size: sym.size(),
                name,
                is_func,
                file: if sym.is_local() { file } else { &[] },
                plt: false,
            });
        }
        out
    }

    /// Builds the model from symbols in table order.
    pub fn from_symbols(mut syms: Vec<Symbol<'a>>) -> Self {
        syms.sort_by_key(|s| (s.addr, s.size));
        let mut out: Vec<Symbol<'a>> = Vec::with_capacity(syms.len());
        for s in syms {
            match out.last_mut() {
                Some(last) if last.addr == s.addr => *last = s,
                _ => out.push(s),
            }
        }
        SymbolMap { syms: out }
    }

    /// True when the table holds no usable symbol.
    pub fn is_empty(&self) -> bool {
        self.syms.is_empty()
    }

    /// The symbol LLVM names address `a` after.
    pub fn lookup(&self, a: u64) -> Option<&Symbol<'a>> {
        let i = self.syms.partition_point(|s| s.addr <= a);
        let s = self.syms.get(i.checked_sub(1)?)?;
        (s.size == 0 || a - s.addr < s.size).then_some(s)
    }

    /// `[start, end)` cut where the answer of [`Self::lookup`] changes.
    pub fn regions(&self, start: u64, end: u64) -> Vec<(u64, u64, Option<&Symbol<'a>>)> {
        let mut out = Vec::new();
        let mut pos = start;
        while pos < end {
            let i = self.syms.partition_point(|s| s.addr <= pos);
            let next = self.syms.get(i).map_or(end, |s| s.addr.min(end));
            let sym = self.lookup(pos);
            let stop = match sym {
                Some(s) if s.size != 0 => next.min(s.addr.saturating_add(s.size)),
                _ => next,
            };
            let stop = stop.max(pos.saturating_add(1)).min(end);
            match out.last_mut() {
                Some((_, e, prev)) if *prev == sym => *e = stop,
                _ => out.push((pos, stop, sym)),
            }
            pos = stop;
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sym(addr: u64, size: u64, name: &'static [u8]) -> Symbol<'static> {
        Symbol {
            addr,
            size,
            name,
            is_func: true,
            file: &[],
            plt: false,
        }
    }

    #[test]
    fn llvm_symbol_model() {
        let map = SymbolMap::from_symbols(vec![
            sym(0x100, 0x10, b"small_alias"),
            sym(0x100, 0x40, b"f"),
            sym(0x200, 0, b"asm_label"),
            sym(0x180, 0x20, b"g"),
        ]);
        assert_eq!(map.lookup(0x120).map(|s| s.name), Some(&b"f"[..]));
        assert_eq!(map.lookup(0x140), None);
        assert_eq!(map.lookup(0x250).map(|s| s.name), Some(&b"asm_label"[..]));
        assert_eq!(map.lookup(0xff), None);
        let r: Vec<_> = map
            .regions(0x100, 0x210)
            .into_iter()
            .map(|(s, e, sym)| (s, e, sym.map(|x| x.name)))
            .collect();
        assert_eq!(
            r,
            vec![
                (0x100, 0x140, Some(&b"f"[..])),
                (0x140, 0x180, None),
                (0x180, 0x1a0, Some(&b"g"[..])),
                (0x1a0, 0x200, None),
                (0x200, 0x210, Some(&b"asm_label"[..])),
            ]
        );
    }
}
