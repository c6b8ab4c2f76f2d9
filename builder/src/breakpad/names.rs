//! dump_syms's names and paths on the model: which name a function's record gives, and
//! the lexical form of its files.

use std::sync::Arc;

use rayon::prelude::*;

use crate::fast_hash::{fast_map, FastMap};
use crate::model::{Bytes, Group, Span, Symbol};

/// Gives the model's spans dump_syms's names. A function is named by the symbol-table
/// function at its start (symbolic looks the symbol table up first, as DWARF names can be
/// less complete: GCC gives no linkage name to functions of local types), else by its
/// DWARF name; the pieces the DWARF source cut from one function (touching, with the same
/// DWARF name) keep the first piece's name. Inlined calls keep their DWARF names. Every
/// name takes dump_syms's form ([`crate::demangle::breakpad_name`]).
pub(crate) fn name_functions<'a>(functions: &mut [Group<'a>], symbols: &[Symbol]) {
    let mut by_address: Vec<(u64, &str)> = symbols
        .iter()
        .map(|s| (s.address, s.name.as_str()))
        .collect();
    // Stable: of several symbols at one address, the first in table order names it.
    by_address.sort_by_key(|&(address, _)| address);
    let symbol_at = |address: u64| {
        let i = by_address.partition_point(|&(a, _)| a < address);
        by_address
            .get(i)
            .filter(|(a, _)| *a == address)
            .map(|(_, n)| *n)
    };
    // Names repeat (inlined calls above all, and the pieces of one function): each
    // distinct DWARF name that is not a symbol's is converted once, in parallel. The
    // first pass lists, per span in order, the number of its distinct name (`None`: a
    // name the function gets otherwise).
    let mut distinct: FastMap<&[u8], usize> = fast_map();
    let mut sources: Vec<&[u8]> = Vec::new();
    let mut wanted: Vec<Option<usize>> = Vec::new();
    let mut number = |name| -> usize {
        *distinct.entry(name).or_insert_with(|| {
            sources.push(name);
            sources.len() - 1
        })
    };
    let mut previous: Option<&Span<'a>> = None;
    for group in functions.iter() {
        let Some((head, inlined)) = group.spans.split_first() else {
            continue;
        };
        let continues = previous.is_some_and(|p| p.end == head.start && *p.name == *head.name);
        let converted = !continues && symbol_at(head.start).is_none();
        wanted.push(converted.then(|| number(&head.name)));
        previous = Some(head);
        for span in inlined {
            wanted.push(Some(number(&span.name)));
        }
    }
    let forms: Vec<Arc<[u8]>> = sources
        .par_iter()
        .map(|name| breakpad_form(name).into())
        .collect();
    let mut wanted = wanted.into_iter();
    let mut convert = || wanted.next().flatten().and_then(|n| forms.get(n).cloned());
    // (end, DWARF name, name given) of the previous function piece.
    let mut previous: Option<(u64, Bytes<'a>, Arc<[u8]>)> = None;
    for group in functions.iter_mut() {
        let Some((head, inlined)) = group.spans.split_first_mut() else {
            continue;
        };
        let form = convert();
        let given: Arc<[u8]> = match &previous {
            Some((end, name, given)) if *end == head.start && **name == *head.name => given.clone(),
            _ => match (symbol_at(head.start), form) {
                (Some(symbol), _) => symbol.as_bytes().into(),
                (None, Some(form)) => form,
                (None, None) => breakpad_form(&head.name).into(),
            },
        };
        let dwarf_name = std::mem::replace(&mut head.name, Bytes::Shared(given.clone()));
        previous = Some((head.end, dwarf_name, given));
        for span in inlined {
            if let Some(form) = convert() {
                span.name = Bytes::Shared(form);
            }
        }
    }
}

/// Gives every file path dump_syms's lexical form: `.` components and repeated `/`
/// dropped, `..` removing the component before it. (dump_syms first tries the path on the
/// machine it runs on and resolves symbolic links when the file exists there; symblob's
/// output does not depend on the machine, so it stops at the lexical form.)
pub(crate) fn normalise_paths(functions: &mut [Group<'_>]) {
    let mut done: FastMap<Arc<[u8]>, Arc<[u8]>> = fast_map();
    let mut normalise = |path: &mut Option<Arc<[u8]>>| {
        if let Some(p) = path {
            let normal = done
                .entry(p.clone())
                .or_insert_with(|| lexical_path(p).into())
                .clone();
            *p = normal;
        }
    };
    for span in functions.iter_mut().flat_map(|g| &mut g.spans) {
        normalise(&mut span.file);
        normalise(&mut span.call_file);
    }
}

/// The lexical normal form of a Unix path (see [`normalise_paths`]).
fn lexical_path(path: &[u8]) -> Vec<u8> {
    let absolute = path.first() == Some(&b'/');
    let mut parts: Vec<&[u8]> = Vec::new();
    for part in path.split(|&b| b == b'/') {
        match part {
            b"" | b"." => {}
            b".." => {
                parts.pop();
            }
            _ => parts.push(part),
        }
    }
    let mut out = Vec::with_capacity(path.len());
    if absolute {
        out.push(b'/');
    }
    out.extend_from_slice(&parts.join(&b'/'));
    out
}

/// The Breakpad form of a name read as bytes.
fn breakpad_form(name: &[u8]) -> Vec<u8> {
    crate::demangle::breakpad_name(&String::from_utf8_lossy(name)).into_bytes()
}

#[cfg(test)]
mod tests {
    use super::lexical_path;

    /// Cargo's `normalize_path`, which dump_syms uses, on the same inputs.
    #[test]
    fn paths_lose_dot_components() {
        let cases: [(&str, &str); 5] = [
            (
                "/rustc/x/library/std/src/../../backtrace/src/lib.rs",
                "/rustc/x/library/backtrace/src/lib.rs",
            ),
            ("/a/./b//c.h", "/a/b/c.h"),
            ("rel/../x.c", "x.c"),
            ("/../x.c", "/x.c"),
            ("/usr/include/stdio.h", "/usr/include/stdio.h"),
        ];
        for (path, want) in cases {
            assert_eq!(lexical_path(path.as_bytes()), want.as_bytes(), "{path}");
        }
    }
}
