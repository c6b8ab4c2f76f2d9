//! Diffing two archives as SuperSize's `diff.py` does, and the sparse halves its
//! `save_diff` writes (spec §4): symbols are matched in passes of looser keys; matched
//! symbols whose size did not change are left out; padding changes of matched symbols
//! are summed per segment into `Overhead: aggregate padding of diff'ed symbols`.

use std::collections::{HashMap, VecDeque};

use super::model::{SizeInfo, Symbol};

/// How a symbol changed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DiffStatus {
    /// Present only after.
    Added,
    /// Present only before.
    Removed,
    /// Present in both with a different size.
    Changed,
    /// Present in both with the same size.
    Unchanged,
}

/// One matched (or unmatched) pair: indices into the before and after symbol lists.
#[derive(Clone, Copy, Debug)]
pub struct DeltaSymbol {
    /// Index into `before.symbols`.
    pub before: Option<usize>,
    /// Index into `after.symbols`.
    pub after: Option<usize>,
    /// How it changed.
    pub status: DiffStatus,
}

/// The result of [`diff`].
#[derive(Clone, Debug)]
pub struct Delta {
    /// Every pair, in SuperSize's order: matches pass by pass, then additions, then
    /// removals.
    pub symbols: Vec<DeltaSymbol>,
    /// Aggregate padding change of matched symbols per (container name, section).
    pub padding_by_segment: Vec<((String, String), i64)>,
}

fn container_name(info: &SizeInfo, s: &Symbol) -> String {
    info.containers
        .get(s.container)
        .map(|c| c.name.clone())
        .unwrap_or_default()
}

/// Strips a trailing `.123`/`.1.2`-like number suffix and a `[clone …]`.
fn loose_name(name: &str) -> String {
    let name = name.find(" [clone ").map_or(name, |i| &name[..i]);
    name.trim_end_matches(|c: char| c.is_ascii_digit() || c == '.')
        .to_string()
}

type Key = (String, String, String, String, i64);

fn keys(info: &SizeInfo, s: &Symbol, pass: usize) -> Key {
    let c = container_name(info, s);
    match pass {
        0 => (
            c,
            s.section.clone(),
            s.full_name.clone(),
            s.object_path.clone(),
            s.size_without_padding(),
        ),
        1 => (
            c,
            s.section.clone(),
            s.full_name.clone(),
            s.object_path.clone(),
            0,
        ),
        2 => (
            c,
            s.section.clone(),
            loose_name(&s.full_name),
            s.object_path.clone(),
            0,
        ),
        _ => (
            c,
            s.section.clone(),
            loose_name(&s.full_name),
            String::new(),
            0,
        ),
    }
}

fn unchanged(b: &Symbol, a: &Symbol) -> bool {
    if b.size_without_padding() == 0 || a.size_without_padding() == 0 {
        return b.size == a.size && b.padding == a.padding;
    }
    b.size_without_padding() == a.size_without_padding() && b.num_aliases == a.num_aliases
}

/// Matches the symbols of `before` and `after` (both loaded, paddings computed).
pub fn diff(before: &SizeInfo, after: &SizeInfo) -> Delta {
    let mut out = Vec::new();
    let mut padding: Vec<((String, String), f64)> = Vec::new();
    let mut left_before: Vec<usize> = (0..before.symbols.len()).collect();
    let mut left_after: Vec<usize> = (0..after.symbols.len()).collect();
    for pass in 0..4 {
        let mut index: HashMap<Key, VecDeque<usize>> = HashMap::new();
        for &i in &left_before {
            index
                .entry(keys(before, &before.symbols[i], pass))
                .or_default()
                .push_back(i);
        }
        let mut unmatched_after = Vec::new();
        for &j in &left_after {
            let a = &after.symbols[j];
            match index
                .get_mut(&keys(after, a, pass))
                .and_then(VecDeque::pop_front)
            {
                Some(i) => {
                    let b = &before.symbols[i];
                    if b.size_without_padding() != 0 {
                        let key = (container_name(before, b), b.section.clone());
                        let delta = a.padding_pss() - b.padding_pss();
                        match padding.iter_mut().find(|(k, _)| *k == key) {
                            Some((_, v)) => *v += delta,
                            None => padding.push((key, delta)),
                        }
                    }
                    let status = if unchanged(b, a) {
                        DiffStatus::Unchanged
                    } else {
                        DiffStatus::Changed
                    };
                    out.push(DeltaSymbol {
                        before: Some(i),
                        after: Some(j),
                        status,
                    });
                }
                None => unmatched_after.push(j),
            }
        }
        let mut still_before: Vec<usize> = index.into_values().flatten().collect();
        still_before.sort_unstable();
        left_before = still_before;
        left_after = unmatched_after;
    }
    for j in left_after {
        out.push(DeltaSymbol {
            before: None,
            after: Some(j),
            status: DiffStatus::Added,
        });
    }
    for i in left_before {
        out.push(DeltaSymbol {
            before: Some(i),
            after: None,
            status: DiffStatus::Removed,
        });
    }
    Delta {
        symbols: out,
        padding_by_segment: padding
            .into_iter()
            .map(|(k, v)| (k, v.round() as i64))
            .filter(|(_, v)| *v != 0)
            .collect(),
    }
}

/// The two sparse halves `save_diff` writes: changed symbols with every member of their
/// alias groups, and the aggregate padding symbols on the after side.
pub fn sparse_halves(before: &SizeInfo, after: &SizeInfo, delta: &Delta) -> (SizeInfo, SizeInfo) {
    let changed: Vec<&DeltaSymbol> = delta
        .symbols
        .iter()
        .filter(|d| d.status != DiffStatus::Unchanged)
        .collect();
    let sparse_before = sparse(before, changed.iter().filter_map(|d| d.before));
    let mut sparse_after = sparse(after, changed.iter().filter_map(|d| d.after));
    for ((container, section), pad) in &delta.padding_by_segment {
        let index = after
            .containers
            .iter()
            .position(|c| &c.name == container)
            .unwrap_or(0);
        let mut s = Symbol::new(
            section,
            0,
            *pad,
            "Overhead: aggregate padding of diff'ed symbols".to_string(),
        );
        s.container = index;
        s.padding = *pad;
        sparse_after.symbols.push(s);
    }
    (sparse_before, sparse_after)
}

fn sparse(info: &SizeInfo, picked: impl Iterator<Item = usize>) -> SizeInfo {
    let mut taken = vec![false; info.symbols.len()];
    let mut symbols = Vec::new();
    for i in picked {
        let range = match info.symbols[i].alias_group {
            Some(g) => {
                let start = (0..=i)
                    .rev()
                    .take_while(|&k| info.symbols[k].alias_group == Some(g))
                    .last()
                    .unwrap_or(i);
                let end = (i..info.symbols.len())
                    .take_while(|&k| info.symbols[k].alias_group == Some(g))
                    .last()
                    .unwrap_or(i);
                start..end + 1
            }
            None => i..i + 1,
        };
        for k in range {
            if !taken[k] {
                taken[k] = true;
                symbols.push(info.symbols[k].clone());
            }
        }
    }
    SizeInfo {
        build_config: info.build_config.clone(),
        containers: info.containers.clone(),
        symbols,
    }
}
