//! Reference models for the round-trip targets: the answers the reader must give for a
//! blob the builder wrote from known input, computed the obvious way from that input.

use std::collections::BTreeMap;

use symblob_build::ksym::Symbol;

use crate::gen::OwnedRange;

/// ksym-bin: address order with the alias preference of the builder, and the lowest
/// address of every name (spec D8, D11, D13).
#[derive(Debug, Default)]
pub struct KsymModel {
    /// Stored address → the symbols at it, preferred alias first: (type, name).
    pub by_address: BTreeMap<u64, Vec<(u8, String)>>,
    /// Name → lowest address.
    pub by_name: BTreeMap<String, u64>,
    /// Stored address → address-order index of its first alias.
    pub first_index: BTreeMap<u64, usize>,
    /// Number of symbols after removing exact duplicates.
    pub len: usize,
}

/// What a lookup by address must report.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ModelSymbol {
    /// Address-order index of the first alias.
    pub index: usize,
    /// Start address.
    pub address: u64,
    /// Distance to the next symbol or the end of the range, whichever is first.
    pub size: u64,
    /// Distance from the start to the queried address.
    pub offset: u64,
    /// Type byte.
    pub kind: u8,
    /// Name.
    pub name: String,
}

impl KsymModel {
    /// The model of a blob built from `symbols`.
    pub fn new(symbols: &[Symbol]) -> Self {
        let mut sorted: Vec<&Symbol> = symbols.iter().collect();
        // Stable, so equal keys keep input order (the builder's last tie-breaker).
        sorted.sort_by(|a, b| {
            (a.address, underscores(&a.name), a.name.as_bytes()).cmp(&(
                b.address,
                underscores(&b.name),
                b.name.as_bytes(),
            ))
        });
        let mut model = KsymModel::default();
        for sym in sorted {
            let aliases = model.by_address.entry(sym.address).or_default();
            if aliases
                .iter()
                .any(|(k, n)| *k == sym.kind && *n == sym.name)
            {
                continue; // an exact duplicate is stored once
            }
            aliases.push((sym.kind, sym.name.clone()));
            let lowest = model.by_name.entry(sym.name.clone()).or_insert(sym.address);
            *lowest = (*lowest).min(sym.address);
        }
        let mut index = 0;
        for (&address, aliases) in &model.by_address {
            model.first_index.insert(address, index);
            index += aliases.len();
        }
        model.len = index;
        model
    }

    /// Spec D11: the lowest address of the symbols named exactly `name`.
    pub fn lookup_name(&self, name: &str) -> Option<u64> {
        self.by_name.get(name).copied()
    }

    /// Spec D8 with the single text range `[start, end)`.
    pub fn lookup_address(&self, addr: u64, start: u64, end: u64) -> Option<ModelSymbol> {
        if !(start <= addr && addr < end) {
            return None;
        }
        let (&s, aliases) = self.by_address.range(..=addr).next_back()?;
        if s < start {
            return None;
        }
        let next = self
            .by_address
            .range(s.checked_add(1)?..)
            .next()
            .map(|(&a, _)| a);
        let stop = next.map_or(end, |n| n.min(end));
        let (kind, name) = aliases.first()?;
        Some(ModelSymbol {
            index: self.first_index[&s],
            address: s,
            size: stop - s,
            offset: addr - s,
            kind: *kind,
            name: name.clone(),
        })
    }
}

fn underscores(name: &str) -> usize {
    name.bytes().take_while(|&b| b == b'_').count()
}

/// One frame as spec 11.2 selects it and 7.3 positions it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ModelFrame {
    /// Function name.
    pub function: Vec<u8>,
    /// File of the position.
    pub file: Vec<u8>,
    /// Line of the position.
    pub line: u64,
    /// Inline depth.
    pub depth: u64,
}

/// Lidia: the ranges in stored order and the lookup of spec 11.2 with the positions of
/// spec 7.3, for a file written with the given flags.
#[derive(Debug)]
pub struct LidiaModel {
    ranges: Vec<OwnedRange>,
    files: bool,
    lines: bool,
}

impl LidiaModel {
    /// The model of a file written from `ranges` (insertion order) with these flags.
    pub fn new(ranges: &[OwnedRange], files: bool, lines: bool) -> Self {
        let mut ranges = ranges.to_vec();
        // Spec 10: a stable sort by (VA, depth).
        ranges.sort_by_key(|r| (r.va, r.depth));
        LidiaModel {
            ranges,
            files,
            lines,
        }
    }

    /// The ranges in stored order.
    pub fn ranges(&self) -> &[OwnedRange] {
        &self.ranges
    }

    /// The frames covering `addr`, innermost first.
    pub fn lookup(&self, addr: u64) -> Vec<ModelFrame> {
        let mut frames: Vec<ModelFrame> = Vec::new();
        // The last range whose VA is at or below addr.
        let count = self.ranges.partition_point(|r| r.va <= addr);
        let mut inner: Option<&OwnedRange> = None;
        for r in self.ranges[..count].iter().rev() {
            if r.va <= addr && addr < r.va.wrapping_add(r.length) {
                let own_file = self.file(&r.file);
                let (file, line) = match inner {
                    None => (own_file, if self.lines { line_for(r, addr) } else { 0 }),
                    Some(i) => {
                        let call_file = self.file(&i.call_file);
                        let file = if call_file.is_empty() {
                            own_file
                        } else {
                            call_file
                        };
                        (file, i.call_line)
                    }
                };
                frames.push(ModelFrame {
                    function: r.function.clone(),
                    file,
                    line,
                    depth: r.depth,
                });
                inner = Some(r);
            }
            if r.depth == 0 {
                break;
            }
        }
        frames
    }

    fn file(&self, name: &[u8]) -> Vec<u8> {
        if self.files {
            name.to_vec()
        } else {
            Vec::new()
        }
    }
}

/// Spec 7.3 step 1: the line of the last entry starting at or before `addr`.
fn line_for(range: &OwnedRange, addr: u64) -> u64 {
    let mut prev = 0;
    for entry in &range.lines {
        if addr < range.va.wrapping_add(entry.offset) {
            break;
        }
        prev = entry.line;
    }
    prev
}
