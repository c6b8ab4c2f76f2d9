//! A `.sym` file as sets of records whose numbering is resolved (file and origin numbers
//! replaced by what they name), so that two writers' files compare record by record
//! whatever order and numbering each chose.

use std::collections::{BTreeMap, BTreeSet};

/// An inlined call's site in one function: (function address, depth, call line, call
/// file, origin name).
pub type Site = (u64, u32, u32, String, String);

/// The comparable records of one `.sym` file, by kind.
#[derive(Debug, Default)]
pub struct Records {
    /// `MODULE` and `INFO CODE_ID` lines as written.
    pub header: BTreeSet<String>,
    /// `FUNC`: (address, size, name).
    pub funcs: BTreeSet<(u64, u64, String)>,
    /// `PUBLIC`: (address, name).
    pub publics: BTreeSet<(u64, String)>,
    /// Line records: (address, size, line, file path).
    pub lines: BTreeSet<(u64, u64, u32, String)>,
    /// `INLINE`: (function address, depth, call line, call file, origin name, ranges),
    /// one per site: the ranges of records with the same site are joined (dump_syms
    /// numbers origins by mangled name, so instances with one demangled name get records
    /// of their own).
    pub inlines: BTreeSet<(Site, Vec<(u64, u64)>)>,
    /// `STACK CFI` lines as written.
    pub cfi: BTreeSet<String>,
    /// Every path the `FILE` records name.
    pub files: BTreeSet<String>,
}

fn hex(s: &str) -> u64 {
    u64::from_str_radix(s, 16).unwrap_or_else(|_| panic!("not hex: {s}"))
}

impl Records {
    /// Parses `text`, with `path_map` applied to every file path.
    pub fn parse(text: &str, path_map: &BTreeMap<String, String>) -> Records {
        let mut files = BTreeMap::new();
        let mut origins = BTreeMap::new();
        for line in text.lines() {
            if let Some(rest) = line.strip_prefix("FILE ") {
                let (n, path) = rest.split_once(' ').unwrap();
                let path = path_map.get(path).map_or(path, String::as_str);
                files.insert(n.to_owned(), path.to_owned());
            } else if let Some(rest) = line.strip_prefix("INLINE_ORIGIN ") {
                let (n, name) = rest.split_once(' ').unwrap();
                origins.insert(n.to_owned(), name.to_owned());
            }
        }
        let mut out = Records {
            files: files.values().cloned().collect(),
            ..Records::default()
        };
        let mut sites: BTreeMap<Site, Vec<(u64, u64)>> = BTreeMap::new();
        let mut func = 0;
        for line in text.lines() {
            let mut t: Vec<&str> = line.split(' ').collect();
            match t[0] {
                "MODULE" | "INFO" => {
                    out.header.insert(line.to_owned());
                }
                "FILE" | "INLINE_ORIGIN" => {}
                "STACK" => {
                    out.cfi.insert(line.to_owned());
                }
                "FUNC" => {
                    if t[1] == "m" {
                        t.remove(1);
                    }
                    func = hex(t[1]);
                    out.funcs.insert((func, hex(t[2]), t[4..].join(" ")));
                }
                "PUBLIC" => {
                    if t[1] == "m" {
                        t.remove(1);
                    }
                    out.publics.insert((hex(t[1]), t[3..].join(" ")));
                }
                "INLINE" => {
                    let key = (
                        func,
                        t[1].parse().unwrap(),
                        t[2].parse().unwrap(),
                        files[t[3]].clone(),
                        origins[t[4]].clone(),
                    );
                    let ranges = sites.entry(key).or_default();
                    for pair in t[5..].chunks(2) {
                        let start = hex(pair[0]);
                        ranges.push((start, start + hex(pair[1])));
                    }
                }
                _ => {
                    out.lines.insert((
                        hex(t[0]),
                        hex(t[1]),
                        t[2].parse().unwrap(),
                        files[t[3]].clone(),
                    ));
                }
            }
        }
        for (site, mut ranges) in sites {
            ranges.sort_unstable();
            let mut merged: Vec<(u64, u64)> = Vec::new();
            for (s, e) in ranges {
                match merged.last_mut() {
                    Some(last) if last.1 == s => last.1 = e,
                    _ => merged.push((s, e)),
                }
            }
            out.inlines.insert((site, merged));
        }
        out
    }
}

/// How far two record sets agree: (common, ours, theirs).
pub fn agreement<T: Ord>(ours: &BTreeSet<T>, theirs: &BTreeSet<T>) -> (usize, usize, usize) {
    (ours.intersection(theirs).count(), ours.len(), theirs.len())
}
