//! The `FILE` and `INLINE_ORIGIN` tables of a `.sym` file: numbers to paths and names.
//! They are one value so that the chunks of a file read in parallel can share the tables
//! the file's head defined (see `chunks`).

use std::collections::HashMap;

use crate::model::SharedBytes;

/// Numbers below this are kept in a vector, larger ones in a map (a file may use any
/// 32-bit number; dump_syms numbers from 0).
const DENSE: u32 = 1 << 20;

/// `FILE` or `INLINE_ORIGIN` numbers to what they define.
#[derive(Clone, Debug)]
struct Table<T> {
    dense: Vec<Option<T>>,
    sparse: HashMap<u32, T>,
}

impl<T: Copy + PartialEq> Table<T> {
    fn new() -> Self {
        Table {
            dense: Vec::new(),
            sparse: HashMap::new(),
        }
    }

    fn get(&self, number: u32) -> Option<T> {
        if number < DENSE {
            self.dense.get(number as usize).copied().flatten()
        } else {
            self.sparse.get(&number).copied()
        }
    }

    /// Defines `number`; false when it is defined already as something else.
    fn define(&mut self, number: u32, value: T) -> bool {
        if let Some(old) = self.get(number) {
            return old == value;
        }
        if number < DENSE {
            let i = number as usize;
            if self.dense.len() <= i {
                self.dense.resize(i + 1, None);
            }
            self.dense[i] = Some(value);
        } else {
            self.sparse.insert(number, value);
        }
        true
    }
}

/// Why a `FILE` or `INLINE_ORIGIN` record cannot be taken.
#[derive(Debug)]
pub(super) enum Refused {
    /// The number is defined already, as something else.
    Twice,
    /// More than 2³² distinct paths.
    TooMany,
}

/// The files and inline origins defined so far.
#[derive(Clone, Debug)]
pub(super) struct Tables<'a> {
    /// `FILE` numbers to dense numbers (from 1, the index in `paths` plus one).
    files: Table<u32>,
    paths: Vec<SharedBytes>,
    /// Paths by content, so that numbers naming one path share it.
    by_path: HashMap<&'a [u8], u32>,
    origins: Table<&'a [u8]>,
}

impl<'a> Tables<'a> {
    /// Empty tables.
    pub(super) fn new() -> Self {
        Tables {
            files: Table::new(),
            paths: Vec::new(),
            by_path: HashMap::new(),
            origins: Table::new(),
        }
    }

    /// The dense number of `FILE number`, if defined.
    pub(super) fn file(&self, number: u32) -> Option<u32> {
        self.files.get(number)
    }

    /// The path of a dense file number (0: none).
    pub(super) fn path(&self, dense: u32) -> Option<SharedBytes> {
        dense
            .checked_sub(1)
            .and_then(|i| self.paths.get(i as usize))
            .cloned()
    }

    /// The name of `INLINE_ORIGIN number`, if defined.
    pub(super) fn origin(&self, number: u32) -> Option<&'a [u8]> {
        self.origins.get(number)
    }

    /// `FILE number name`: numbers that name one path share its dense number.
    pub(super) fn define_file(&mut self, number: u32, name: &'a [u8]) -> Result<(), Refused> {
        let dense = match self.by_path.get(name) {
            Some(&dense) => dense,
            None => {
                self.paths.push(name.into());
                let dense = u32::try_from(self.paths.len()).map_err(|_| Refused::TooMany)?;
                self.by_path.insert(name, dense);
                dense
            }
        };
        if self.files.define(number, dense) {
            Ok(())
        } else {
            Err(Refused::Twice)
        }
    }

    /// `INLINE_ORIGIN number name`.
    pub(super) fn define_origin(&mut self, number: u32, name: &'a [u8]) -> Result<(), Refused> {
        if self.origins.define(number, name) {
            Ok(())
        } else {
            Err(Refused::Twice)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbers_that_name_one_path_share_it() {
        let mut t = Tables::new();
        t.define_file(0, b"a.c").expect("new");
        t.define_file(7, b"b.h").expect("new");
        t.define_file(3, b"a.c").expect("a second number for a.c");
        assert_eq!(t.file(0), t.file(3));
        assert_ne!(t.file(0), t.file(7));
        assert_eq!(t.file(1), None);
        assert_eq!(
            t.path(t.file(7).expect("defined")).as_deref(),
            Some(&b"b.h"[..])
        );
        assert_eq!(t.path(0), None);
        // Defined again alike: taken; differently: refused.
        t.define_file(7, b"b.h").expect("the same again");
        assert!(matches!(t.define_file(7, b"c.h"), Err(Refused::Twice)));
    }

    #[test]
    fn large_numbers_go_to_the_map() {
        let mut t = Tables::new();
        t.define_origin(u32::MAX, b"far").expect("new");
        t.define_origin(5, b"near").expect("new");
        assert_eq!(t.origin(u32::MAX), Some(&b"far"[..]));
        assert_eq!(t.origin(5), Some(&b"near"[..]));
        assert_eq!(t.origin(DENSE), None);
        assert!(t.origins.sparse.contains_key(&u32::MAX));
        assert!(matches!(
            t.define_origin(u32::MAX, b"other"),
            Err(Refused::Twice)
        ));
        // Shared by the chunks of a parallel read: a clone keeps every definition.
        let copy = t.clone();
        assert_eq!(copy.origin(u32::MAX), Some(&b"far"[..]));
    }
}
