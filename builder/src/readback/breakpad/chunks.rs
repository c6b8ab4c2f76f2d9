//! Reading a large `.sym` file on the rayon pool: its head (`MODULE`, `INFO`, `FILE`,
//! `INLINE_ORIGIN`, everything before the first `FUNC`, `PUBLIC` or `STACK CFI INIT`
//! record) is read first, then the rest in chunks that start at such records, in
//! parallel, and the chunks' records are joined in file order.
//!
//! A record that starts a chunk ends whatever record was open before it, so each chunk
//! reads as the whole file would read it, given the head's tables. dump_syms writes every
//! `FILE` and `INLINE_ORIGIN` record before the first `FUNC`; a file that defines one in
//! a chunk (where the other chunks could not see it), or that has any error past its
//! head, is read again in one piece, so errors name the same first bad line and every
//! file reads exactly as the sequential reader reads it.

use std::collections::btree_map::Entry;

use rayon::prelude::*;

use super::record::Reader;
use super::{BreakpadSource, ReadOptions};
use crate::Result;

/// Below this size a file is read in one piece: the threads would cost more than they
/// save.
const MIN_PARALLEL: usize = 4 << 20;
/// The smallest chunk worth a task of its own.
const MIN_CHUNK: usize = 1 << 20;
/// Chunks per thread: `FUNC` chunks cost more per byte than `STACK CFI` ones, so more
/// chunks than threads keep every thread busy to the end.
const CHUNKS_PER_THREAD: usize = 8;

/// `bytes` read in parallel, or `None` when it must be read in one piece (too small, one
/// thread, no record to split at, a head-only record or an error past the head). An
/// error in the head is the sequential reader's own first error.
pub(super) fn read<'a>(
    bytes: &'a [u8],
    input: &str,
    options: ReadOptions,
) -> Option<Result<BreakpadSource<'a>>> {
    read_sized(bytes, input, options, MIN_PARALLEL, MIN_CHUNK)
}

/// [`read`] with the sizes given (the tests split small files).
fn read_sized<'a>(
    bytes: &'a [u8],
    input: &str,
    options: ReadOptions,
    min_parallel: usize,
    min_chunk: usize,
) -> Option<Result<BreakpadSource<'a>>> {
    let threads = rayon::current_num_threads();
    if bytes.len() < min_parallel || threads < 2 {
        return None;
    }
    let head_end = next_split(bytes, 0)?;
    let mut head = Reader::new(input, options);
    // The head is read exactly as the sequential reader reads it: its first error is the
    // file's first error.
    if let Err(e) = head.lines(&bytes[..head_end]).and_then(|()| head.close()) {
        return Some(Err(e));
    }
    let bounds = boundaries(bytes, head_end, threads * CHUNKS_PER_THREAD, min_chunk);
    let tables = &head.tables;
    let chunks: Vec<Result<Reader<'_, 'a>>> = bounds
        .par_windows(2)
        .map(|w| {
            let mut reader = Reader::chunk(input, tables.clone(), options);
            reader.lines(&bytes[w[0]..w[1]])?;
            reader.close()?;
            Ok(reader)
        })
        .collect();
    let mut chunks: Vec<Reader<'_, 'a>> = chunks.into_iter().collect::<Result<_>>().ok()?;
    // The depth-0 instance is the FUNC record's number in the whole file: each chunk
    // numbered its own from 1.
    let mut before = head.func.number;
    let firsts: Vec<u32> = chunks
        .iter()
        .map(|chunk| {
            let first = before;
            before = before.saturating_add(chunk.func.number);
            first
        })
        .collect();
    head.func.number = before;
    chunks
        .par_iter_mut()
        .zip(firsts)
        .for_each(|(chunk, before)| renumber(chunk, before));
    // Every vector the chunks are appended to is made once, at its size.
    head.funcs
        .reserve(chunks.iter().map(|c| c.funcs.len()).sum());
    head.groups
        .reserve(chunks.iter().map(|c| c.groups.len()).sum());
    head.publics
        .reserve(chunks.iter().map(|c| c.publics.len()).sum());
    let out = &mut head.out.model;
    out.symbols
        .reserve(chunks.iter().map(|c| c.out.model.symbols.len()).sum());
    out.unwind
        .reserve(chunks.iter().map(|c| c.out.model.unwind.len()).sum());
    for chunk in &mut chunks {
        join(&mut head, chunk);
    }
    drop(chunks);
    Some(head.finish())
}

/// Numbers the depth-0 spans of `chunk` as in the whole file, where `before` `FUNC`
/// records come before it.
fn renumber(chunk: &mut Reader<'_, '_>, before: u32) {
    for group in &mut chunk.groups {
        if let Some(span) = group.spans.first_mut() {
            span.instance = before.saturating_add(span.instance);
        }
    }
}

/// Appends what `chunk` read to `head` (everything before it in the file; the chunk is
/// [`renumber`]ed).
fn join<'a>(head: &mut Reader<'_, 'a>, chunk: &mut Reader<'_, 'a>) {
    head.funcs.append(&mut chunk.funcs);
    head.groups.append(&mut chunk.groups);
    head.publics.append(&mut chunk.publics);
    let (to, from) = (&mut head.out, &mut chunk.out);
    to.model.symbols.append(&mut from.model.symbols);
    to.model.unwind.append(&mut from.model.unwind);
    to.multiple.append(&mut from.multiple);
    for (kind, n) in std::mem::take(&mut from.skipped) {
        match to.skipped.entry(kind) {
            Entry::Vacant(v) => {
                v.insert(n);
            }
            Entry::Occupied(mut o) => *o.get_mut() += n,
        }
    }
    // The last INFO CODE_ID wins, as in one piece.
    if from.module.code_id.is_some() {
        to.module.code_id = from.module.code_id.take();
    }
}

/// The chunk boundaries of `bytes[from..]` (`from` starts a split record): about `count`
/// chunks, each starting at a split record, the last ending at the end of the file.
/// No chunk is smaller than `min_chunk` bytes, but the last.
fn boundaries(bytes: &[u8], from: usize, count: usize, min_chunk: usize) -> Vec<usize> {
    let size = ((bytes.len() - from) / count.max(1)).max(min_chunk).max(1);
    let mut bounds = vec![from];
    let mut last = from;
    while let Some(at) = next_split(bytes, line_start(bytes, last + size)) {
        if at <= last {
            break;
        }
        bounds.push(at);
        last = at;
    }
    bounds.push(bytes.len());
    bounds
}

/// The start of the first line that begins at or after `at`.
fn line_start(bytes: &[u8], at: usize) -> usize {
    if at == 0 {
        return 0;
    }
    if at > bytes.len() {
        return bytes.len();
    }
    memchr::memchr(b'\n', &bytes[at - 1..]).map_or(bytes.len(), |i| at + i)
}

/// The start of the first line at or after the line start `from` that is a `FUNC`,
/// `PUBLIC` or `STACK CFI INIT` record (written as dump_syms writes them, the fields
/// one space apart): records that end the record open before them.
fn next_split(bytes: &[u8], mut from: usize) -> Option<usize> {
    while from < bytes.len() {
        let line = &bytes[from..];
        if line.starts_with(b"FUNC ")
            || line.starts_with(b"PUBLIC ")
            || line.starts_with(b"STACK CFI INIT ")
        {
            return Some(from);
        }
        from += memchr::memchr(b'\n', line)? + 1;
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A file of every record kind, with overlapping and empty functions, touching
    /// functions of one name and unknown records between them.
    fn sample() -> String {
        let mut text = String::from(
            "MODULE Linux x86_64 0123ABCD0 lib.so\nINFO CODE_ID 1234\nFILE 0 a.c\nFILE 1 b.h\n\
             FILE 2 a.c\nINLINE_ORIGIN 0 inl\nINLINE_ORIGIN 1 deep\n",
        );
        for i in 0..200u64 {
            let at = 0x1000 + i * 0x40;
            let m = if i % 7 == 0 { "m " } else { "" };
            text.push_str(&format!("FUNC {m}{at:x} 40 0 f{}\n", i % 3));
            text.push_str(&format!("INLINE 0 {i} 1 0 {:x} 10\n", at + 4));
            text.push_str(&format!("INLINE 1 3 0 1 {:x} 4\n", at + 6));
            for j in 0..4u64 {
                text.push_str(&format!("{:x} 10 {} {}\n", at + j * 0x10, i + j, j % 3));
            }
            if i % 11 == 0 {
                text.push_str(&format!("PUBLIC {:x} 0 p{i}\nNEWTHING {i}\n", at + 0x20));
            }
            if i % 13 == 0 {
                text.push_str(&format!(
                    "FUNC {at:x} 0 0 empty\nFUNC {:x} 8 0 over\n",
                    at + 8
                ));
            }
        }
        for i in 0..100u64 {
            let at = 0x1000 + i * 0x20;
            text.push_str(&format!("STACK CFI INIT {at:x} 20 .cfa: $rsp 8 +\n"));
            text.push_str(&format!(
                "STACK CFI {:x} .cfa: $rsp {i} +\nSTACK WIN 4\n",
                at + 1
            ));
        }
        text
    }

    fn two_threads<T: Send>(f: impl FnOnce() -> T + Send) -> T {
        let pool = rayon::ThreadPoolBuilder::new().num_threads(2).build();
        pool.expect("a thread pool").install(f)
    }

    #[test]
    fn chunks_read_as_one_piece() {
        let text = sample();
        let whole = Reader::new("t.sym", ReadOptions::default())
            .read(text.as_bytes())
            .expect("one piece");
        let split =
            two_threads(|| read_sized(text.as_bytes(), "t.sym", ReadOptions::default(), 0, 1))
                .expect("read in chunks")
                .expect("no error");
        // The model has no equality: its debug form holds every field.
        assert_eq!(format!("{whole:?}"), format!("{split:?}"));
        assert!(whole.skipped.contains_key("FUNC (overlapping)"));
        assert!(whole.skipped.contains_key("NEWTHING"));
    }

    #[test]
    fn head_only_records_and_errors_read_in_one_piece() {
        let text = sample();
        let late_file = format!("{text}FILE 9 z.c\n");
        let bad = format!("{text}FUNC 10\n");
        for text in [late_file, bad] {
            assert!(two_threads(|| read_sized(
                text.as_bytes(),
                "t.sym",
                ReadOptions::default(),
                0,
                1
            ))
            .is_none());
        }
        let bad_head = "MODULE a b 0 c\nFILE x y\nFUNC 1 1 0 f\n".repeat(2);
        let e =
            two_threads(|| read_sized(bad_head.as_bytes(), "t.sym", ReadOptions::default(), 0, 1));
        let e = e.expect("an error in the head").expect_err("an error");
        assert!(e.to_string().contains("t.sym:2:"), "{e}");
    }

    #[test]
    fn chunks_start_at_split_records() {
        let text = b"MODULE a b 0 c\nFILE 0 x\nFUNC 1 1 0 f\n1 1 1 0\nPUBLIC 2 0 g\nSTACK CFI INIT 3 1 r\nSTACK CFI 3 r\n";
        let head = next_split(text, 0).unwrap();
        assert_eq!(&text[head..head + 5], b"FUNC ");
        let bounds = boundaries(text, head, 100, 1);
        assert!(bounds.len() > 3, "{bounds:?}");
        assert_eq!(bounds.first(), Some(&head));
        assert_eq!(bounds.last(), Some(&text.len()));
        assert_eq!(line_start(text, 1), 15);
        assert_eq!(line_start(text, 15), 15);
        assert_eq!(next_split(b"1 1 1 0\n", 0), None);
    }
}
