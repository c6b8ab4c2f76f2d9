//! The workload every tool is measured on: a deterministic random sample of addresses
//! inside the functions of an ELF file's symbol table, and of those functions' names.
//!
//! Every tool sees exactly the same addresses in the same order, so the branch predictor
//! and the caches get the same chance everywhere.

use std::path::Path;

use object::{Object, ObjectSection, ObjectSymbol, SectionFlags, SectionKind, SymbolKind};

/// A deterministic xorshift64* generator: the same sample on every run and machine.
pub struct Rng(u64);

impl Rng {
    /// A generator with a fixed, non-zero seed.
    pub fn new(seed: u64) -> Self {
        Rng(seed | 1)
    }

    /// The next pseudo-random value.
    pub fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }

    /// A value below `n` (`n > 0`).
    pub fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }
}

/// A function of the symbol table: start, size, name.
#[derive(Clone, Debug)]
pub struct Function {
    /// Start address.
    pub address: u64,
    /// Size in bytes (> 0).
    pub size: u64,
    /// The name as stored in the symbol table.
    pub name: String,
    /// Whether the symbol is global or local (not weak): the ksym blob keeps `T`/`t` only.
    pub strong: bool,
}

/// The sized functions of `elf`'s `.symtab` (or `.dynsym`) in executable sections,
/// one per start address, sorted by address.
pub fn functions(elf: &Path) -> Result<Vec<Function>, String> {
    let data = std::fs::read(elf).map_err(|e| format!("{}: {e}", elf.display()))?;
    let file = object::File::parse(&*data).map_err(|e| format!("{}: {e}", elf.display()))?;
    let mut out: Vec<Function> = Vec::new();
    let symbols: Vec<_> = if file.symbols().next().is_some() {
        file.symbols().collect()
    } else {
        file.dynamic_symbols().collect()
    };
    for sym in symbols {
        if sym.kind() != SymbolKind::Text || sym.size() == 0 || !sym.is_definition() {
            continue;
        }
        let Some(index) = sym.section_index() else {
            continue;
        };
        let Ok(section) = file.section_by_index(index) else {
            continue;
        };
        if !is_executable(&section) {
            continue;
        }
        let Ok(name) = sym.name() else { continue };
        if name.is_empty() {
            continue;
        }
        out.push(Function {
            address: sym.address(),
            size: sym.size(),
            name: name.to_owned(),
            strong: !sym.is_weak(),
        });
    }
    out.sort_by(|a, b| (a.address, &a.name).cmp(&(b.address, &b.name)));
    out.dedup_by_key(|f| f.address);
    Ok(out)
}

/// Whether a section holds code.
fn is_executable(section: &object::Section<'_, '_>) -> bool {
    match section.flags() {
        SectionFlags::Elf { sh_flags } => sh_flags & u64::from(object::elf::SHF_EXECINSTR) != 0,
        _ => section.kind() == SectionKind::Text,
    }
}

/// `count` addresses: a uniformly chosen function, then a uniformly chosen byte in it.
pub fn addresses(functions: &[Function], count: usize) -> Vec<u64> {
    let mut rng = Rng::new(0x9e37_79b9_7f4a_7c15);
    (0..count)
        .map(|_| {
            let f = &functions[rng.below(functions.len() as u64) as usize];
            f.address + rng.below(f.size)
        })
        .collect()
}

/// `count` names of strong functions, chosen uniformly (repeats allowed).
pub fn names(functions: &[Function], count: usize) -> Vec<String> {
    let strong: Vec<&Function> = functions.iter().filter(|f| f.strong).collect();
    let mut rng = Rng::new(0x2545_f491_4f6c_dd1d);
    (0..count)
        .map(|_| strong[rng.below(strong.len() as u64) as usize].name.clone())
        .collect()
}

/// The merged address ranges of the executable, allocated sections: the text ranges a
/// ksym lookup is bounded by.
pub fn text_ranges(elf: &Path) -> Result<Vec<std::ops::Range<u64>>, String> {
    let file_handle = std::fs::File::open(elf).map_err(|e| format!("{}: {e}", elf.display()))?;
    // SAFETY: the file is only read, and nothing in this process writes to it.
    let map = unsafe { memmap2::Mmap::map(&file_handle) }
        .map_err(|e| format!("{}: {e}", elf.display()))?;
    let file = object::File::parse(&*map).map_err(|e| format!("{}: {e}", elf.display()))?;
    let mut ranges: Vec<std::ops::Range<u64>> = file
        .sections()
        .filter(|s| is_executable(s) && s.address() != 0 && s.size() != 0)
        .map(|s| s.address()..s.address() + s.size())
        .collect();
    ranges.sort_by_key(|r| r.start);
    let mut merged: Vec<std::ops::Range<u64>> = Vec::new();
    for r in ranges {
        match merged.last_mut() {
            Some(last) if r.start <= last.end => last.end = last.end.max(r.end),
            _ => merged.push(r),
        }
    }
    Ok(merged)
}

/// Writes addresses as little-endian u64s.
pub fn write_addresses(path: &Path, addrs: &[u64]) -> std::io::Result<()> {
    let bytes: Vec<u8> = addrs.iter().flat_map(|a| a.to_le_bytes()).collect();
    std::fs::write(path, bytes)
}

/// Reads what [`write_addresses`] wrote.
pub fn read_addresses(path: &Path) -> std::io::Result<Vec<u64>> {
    let bytes = std::fs::read(path)?;
    Ok(bytes
        .chunks_exact(8)
        .map(|c| u64::from_le_bytes(c.try_into().unwrap_or([0; 8])))
        .collect())
}

/// Writes names one per line.
pub fn write_names(path: &Path, names: &[String]) -> std::io::Result<()> {
    let mut text = names.join("\n");
    text.push('\n');
    std::fs::write(path, text)
}

/// Reads what [`write_names`] wrote.
pub fn read_names(path: &Path) -> std::io::Result<Vec<String>> {
    Ok(std::fs::read_to_string(path)?
        .lines()
        .map(str::to_owned)
        .collect())
}
