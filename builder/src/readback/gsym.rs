//! GSYM files as a source: every function record becomes a function of the model, its
//! inline tree inlined spans and its line table the rows of the spans, so that each
//! address answers as LLVM 14's lookup (`llvm-gsymutil --address`) answers it; names are
//! borrowed from the file.

mod inline;

use std::collections::HashMap;

use symblob::gsym::{Function, GsymFile, LineRow};

use super::reader_error;
use super::rows::{self, Answer};
use crate::model::{Bytes, Group, Model, SharedBytes, Span};
use crate::Result;

/// Reads the GSYM file `bytes` (named `input` in errors) into the model.
///
/// The file is [validated](GsymFile::validate) first, so damage anywhere is an error
/// naming its section and offset before anything is read. Then each record gives, in
/// address-table order:
///
/// * **The function**: a depth-0 span over its range, with its name. A record of size 0
///   (a symbol without a size) covers, in LLVM's lookup, every address up to the next
///   function: its span ends where the next greater start address begins; the last one,
///   which LLVM lets cover everything above it, keeps an empty span (written back as GSYM
///   it is a record of size 0 again; other formats never answer it). A range past 2⁶⁴
///   ends at `u64::MAX`.
/// * **Inlined calls**: every node of the inline tree whose call file names a file (the
///   root, whose call file is entry 0 in what LLVM writes, stands for the function) is
///   a span one deeper than the nearest such ancestor, with its name, call file and call
///   line, over the addresses where LLVM's lookup reaches it: its ranges, inside those of
///   its parent, less those of the siblings before it (the lookup enters the first child
///   that covers an address). The pieces of one node share a [`Span::instance`], numbered
///   from 1 in each function, so a writer joins them again. The tree of a function
///   without a line table is not read: LLVM answers such a function alone.
/// * **Lines**: at every address the line-table row LLVM 14 answers (at an address where
///   several rows start, the first for that byte and the last from the next byte on) is a
///   row of the innermost span there, which takes the row's file. A span is cut where the
///   file of its rows changes (the depth-0 span into several functions of one name, as
///   the DWARF source cuts them), at an address where it is the innermost span, so the
///   cut never crosses a deeper span. Where LLVM's lookup fails (before the first row, or
///   at a row of file 0), the innermost span has line 0 in the file around it.
/// * **Files** are the directory and base name joined as `llvm-gsymutil --address`
///   prints them (`/`, or `\` for a directory with backslashes and no slash; an empty
///   base name is `<invalid-file>`), shared between the spans that use them; an entry
///   with neither is no file.
pub fn read<'a>(bytes: &'a [u8], input: &str) -> Result<Model<'a>> {
    let file = GsymFile::parse(bytes).map_err(|e| reader_error(input, e))?;
    file.validate().map_err(|e| reader_error(input, e))?;
    let mut paths = Paths::default();
    let ends = ends(&file).map_err(|e| reader_error(input, e))?;
    let mut functions = Vec::with_capacity(file.len());
    let mut scratch = rows::Scratch::default();
    for (index, end) in ends.into_iter().enumerate() {
        let function = file.function(index).map_err(|e| reader_error(input, e))?;
        groups(
            &file,
            &function,
            end,
            &mut paths,
            &mut scratch,
            &mut functions,
        )
        .map_err(|e| reader_error(input, e))?;
    }
    Ok(Model {
        functions,
        ..Model::default()
    })
}

/// Where each function's span ends (see [`read`]).
fn ends(file: &GsymFile<'_>) -> std::result::Result<Vec<u64>, symblob::Error> {
    let mut out = vec![0; file.len()];
    let mut next_greater = None;
    for index in (0..file.len()).rev() {
        let function = file.function(index)?;
        let start = function.address;
        // The least start above this one (the table is sorted).
        if let Some(next) = file.address(index + 1).filter(|&next| next > start) {
            next_greater = Some(next);
        }
        out[index] = match function.size {
            0 => next_greater.unwrap_or(start),
            size => start.saturating_add(u64::from(size)),
        };
    }
    Ok(out)
}

/// File paths by file-table index, each built once and shared by content.
#[derive(Default)]
struct Paths {
    by_index: HashMap<u32, Option<SharedBytes>>,
    by_path: HashMap<Vec<u8>, SharedBytes>,
}

impl Paths {
    /// The path of file-table entry `index`; `None` for an entry that names no file.
    fn get(&mut self, file: &GsymFile<'_>, index: u32) -> Option<SharedBytes> {
        if let Some(path) = self.by_index.get(&index) {
            return path.clone();
        }
        let path = file.file(index).and_then(|entry| {
            let (dir, base) = (entry.dir.0, entry.base.0);
            if dir.is_empty() && base.is_empty() {
                return None;
            }
            let base = if base.is_empty() {
                b"<invalid-file>"
            } else {
                base
            };
            let mut path = dir.to_vec();
            if !dir.is_empty() {
                let backslash = dir.contains(&b'\\') && !dir.contains(&b'/');
                path.push(if backslash { b'\\' } else { b'/' });
            }
            path.extend_from_slice(base);
            Some(
                self.by_path
                    .entry(path)
                    .or_insert_with_key(|p| p[..].into())
                    .clone(),
            )
        });
        self.by_index.insert(index, path.clone());
        path
    }
}

/// The answers of a line table's rows by LLVM 14's rule: of rows that start at one
/// address, the first answers that byte and the last the bytes after it.
fn answers(rows: &[LineRow]) -> Vec<Answer> {
    let answer = |r: &LineRow, addr| Answer {
        addr,
        file: r.file,
        line: r.line,
    };
    let mut out = Vec::with_capacity(rows.len());
    let mut i = 0;
    while let Some(first) = rows.get(i) {
        let same = rows[i..]
            .iter()
            .take_while(|r| r.address == first.address)
            .count();
        let last = &rows[i + same - 1];
        out.push(answer(first, first.address));
        let next = rows.get(i + same).map(|r| r.address);
        if let Some(after) = first.address.checked_add(1) {
            let differs = (last.file, last.line) != (first.file, first.line);
            if differs && next.is_none_or(|n| after < n) {
                out.push(answer(last, after));
            }
        }
        i += same;
    }
    out
}

/// The groups of one function, appended to `out`: its depth-0 span cut where its rows
/// change file, each with the inlined spans inside it.
fn groups<'a>(
    file: &GsymFile<'a>,
    function: &Function<'a>,
    end: u64,
    paths: &mut Paths,
    scratch: &mut rows::Scratch<'a>,
    out: &mut Vec<Group<'a>>,
) -> std::result::Result<(), symblob::Error> {
    let start = function.address;
    let name = Bytes::Borrowed(function.name.0);
    let rows = match file.line_rows(function)? {
        Some(rows) => Some(rows.collect::<std::result::Result<Vec<_>, _>>()?),
        None => None,
    };
    let mut spans = vec![Span::function(start, end, name)];
    if rows.is_some() {
        inline::spans(file, function, end, paths, &mut spans)?;
    }
    let answers = answers(rows.as_deref().unwrap_or_default());
    rows::groups(
        &mut spans,
        &answers,
        false,
        &mut |index| paths.get(file, index),
        scratch,
        out,
    );
    Ok(())
}
