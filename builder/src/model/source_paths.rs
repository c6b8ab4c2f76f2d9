//! Source paths of an image's addresses, as its DWARF gives them: each compile unit's
//! name over its address ranges ([`SourceMapper`], SuperSize's rule) and, beyond
//! SuperSize, each function's and fixed-address variable's own declaration file
//! ([`DeclPaths`]). The DWARF source fills them (`dwarf::unit_paths`,
//! `dwarf::decl_paths`); the SuperSize writer attributes symbols with them.

use std::collections::HashMap;

/// Sorted `(start, end, unit)` ranges with SuperSize's lookup rule; `units` holds each
/// unit's `(path, comp_dir)` once (a unit can have thousands of ranges).
#[derive(Clone, Debug, Default)]
pub struct SourceMapper {
    pub(crate) ranges: Vec<(u64, u64, usize)>,
    pub(crate) units: Vec<(String, String)>,
}

impl SourceMapper {
    /// The compile unit name of the range SuperSize's bisection picks for `address`: the
    /// last range (in sorted order) starting at or before it, if it contains it.
    /// Returns `(path, comp_dir)`.
    pub fn find(&self, address: u64) -> Option<(&str, &str)> {
        let i = self.ranges.partition_point(|r| r.0 <= address);
        match i.checked_sub(1).map(|j| self.ranges[j]) {
            Some((start, end, unit)) if start <= address && address < end => {
                let (path, dir) = &self.units[unit];
                Some((path, dir))
            }
            _ => None,
        }
    }

    /// Number of ranges.
    pub fn len(&self) -> usize {
        self.ranges.len()
    }

    /// Whether no range was found.
    pub fn is_empty(&self) -> bool {
        self.ranges.is_empty()
    }
}

/// Address → (declaration path, compile directory) for functions and variables.
#[derive(Clone, Debug, Default)]
pub struct DeclPaths {
    /// Functions by entry address.
    pub functions: HashMap<u64, (String, String)>,
    /// Variables by address.
    pub variables: HashMap<u64, (String, String)>,
}
