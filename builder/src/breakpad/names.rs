//! dump_syms's names and paths on the model: which name a function's record gives, and
//! the lexical form of its files.

use rayon::prelude::*;

use crate::fast_hash::{fast_map, FastMap};
use crate::model::{Bytes, Group, SharedBytes, Span, Symbol};

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
    // first pass lists the distinct names by their place ([`place`]), so that the second
    // pass can find them again while it renames the spans (a list of numbers per span
    // instead cost ripgrep's build 1.5 MB at its peak). `sources` keeps every listed
    // name alive to the end, so that no place is reused for another name meanwhile.
    let mut distinct: FastMap<(usize, usize), usize> = fast_map();
    let mut sources: Vec<Bytes<'a>> = Vec::new();
    let mut note = |name: &Bytes<'a>| {
        distinct.entry(place(name)).or_insert_with(|| {
            sources.push(name.clone());
            sources.len() - 1
        });
    };
    let mut previous: Option<&Span<'a>> = None;
    for group in functions.iter() {
        let Some((head, inlined)) = group.spans.split_first() else {
            continue;
        };
        let continues = previous.is_some_and(|p| p.end == head.start && *p.name == *head.name);
        if !continues && symbol_at(head.start).is_none() {
            note(&head.name);
        }
        previous = Some(head);
        for span in inlined {
            note(&span.name);
        }
    }
    let forms: Vec<SharedBytes> = sources
        .par_iter()
        .map(|name| breakpad_form(name).into())
        .collect();
    let form_of = |name: &[u8]| {
        distinct
            .get(&place(name))
            .and_then(|&n| forms.get(n))
            .cloned()
    };
    // (end, DWARF name, name given) of the previous function piece.
    let mut previous: Option<(u64, Bytes<'a>, SharedBytes)> = None;
    for group in functions.iter_mut() {
        let Some(head) = group.spans.first_mut() else {
            continue;
        };
        let given: SharedBytes = match &previous {
            Some((end, name, given)) if *end == head.start && **name == *head.name => given.clone(),
            _ => match symbol_at(head.start) {
                Some(symbol) => symbol.as_bytes().into(),
                None => form_of(&head.name).unwrap_or_else(|| breakpad_form(&head.name).into()),
            },
        };
        let dwarf_name = std::mem::replace(&mut head.name, Bytes::Shared(given.clone()));
        previous = Some((head.end, dwarf_name, given));
    }
    // The inlined calls depend on no other span: renamed in parallel.
    functions.par_iter_mut().for_each(|group| {
        for span in group.spans.iter_mut().skip(1) {
            if let Some(form) = form_of(&span.name) {
                span.name = Bytes::Shared(form);
            }
        }
    });
}

/// Where `bytes` are: the sources share a name's or a path's bytes between the spans
/// that use it (one `.debug_str` string, one shared allocation), so bytes are converted
/// once per place rather than once per content, and finding them again needs no hashing
/// of the bytes. (Two places with the same bytes get the same form, converted twice.)
fn place(bytes: &[u8]) -> (usize, usize) {
    (bytes.as_ptr() as usize, bytes.len())
}

/// Gives every file path dump_syms's lexical form: `.` components and repeated `/`
/// dropped, `..` removing the component before it. (dump_syms first tries the path on the
/// machine it runs on and resolves symbolic links when the file exists there; symblob's
/// output does not depend on the machine, so it stops at the lexical form.)
pub(crate) fn normalise_paths(functions: &mut [Group<'_>]) {
    // In parallel, each task with its own map of the paths it has normalised, by place
    // ([`place`]); each entry keeps the path it was made from alive, so that no place
    // is reused for another path meanwhile.
    functions
        .par_iter_mut()
        .for_each_init(fast_map, |done, group| {
            for span in group.spans.iter_mut() {
                normalise(done, &mut span.file);
                normalise(done, &mut span.call_file);
            }
        });
}

/// Replaces `path` with its lexical form, made once per place in `done`.
fn normalise(
    done: &mut FastMap<(usize, usize), (SharedBytes, SharedBytes)>,
    path: &mut Option<SharedBytes>,
) {
    if let Some(p) = path {
        let (_, normal) = done
            .entry(place(p))
            .or_insert_with(|| (p.clone(), lexical_path(p).into()));
        *p = normal.clone();
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
