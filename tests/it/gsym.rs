//! The GSYM reader against LLVM 14: C and C++ programs compiled here with `-g -O2`,
//! converted by `llvm-gsymutil-14 --convert`, and looked up by both `llvm-gsymutil-14`
//! and our reader at thousands of addresses, frame by frame; the same on a big-endian
//! copy; then damaged files, each class with its error.

mod blazesym;
mod corrupt;
mod debug_files;
mod go;
mod nodes;
pub(crate) mod oracle;
mod swap;
pub(crate) mod tiny;
mod writer;

use std::path::Path;

use symblob::gsym::{GsymFile, Lookup, LookupIndex};

use crate::common::splitmix::Rng;
use oracle::{gsym_fixture, lookups, Answer, Frame};

/// Our answer in the oracle's terms: frames as `llvm-gsymutil` would print them, or an
/// error message.
fn our_answer(file: &GsymFile<'_>, addr: u64) -> Answer {
    answer_of(file.lookup(addr), addr)
}

/// A lookup's result in the oracle's terms.
fn answer_of(found: Result<Option<Lookup<'_>>, symblob::Error>, addr: u64) -> Answer {
    match found {
        Ok(Some(found)) => Ok(frames(&found)),
        Ok(None) => Err(format!("address {addr:#x} is not in GSYM")),
        Err(e) => Err(e.to_string()),
    }
}

fn frames(found: &Lookup<'_>) -> Vec<Frame> {
    found
        .frames()
        .map(|f| {
            let location = f.has_location().then(|| {
                let dir = f.dir.to_string();
                let base = if f.base.is_empty() {
                    "<invalid-file>".to_owned()
                } else {
                    f.base.to_string()
                };
                // LLVM joins with a backslash only for a directory that has no slash.
                let path = match dir.as_str() {
                    "" => base,
                    d if d.contains('\\') && !d.contains('/') => format!("{d}\\{base}"),
                    d => format!("{d}/{base}"),
                };
                (path, f.line)
            });
            Frame {
                name: f.name.to_string(),
                offset: f.offset,
                location,
                inlined: f.inlined,
            }
        })
        .collect()
}

/// The answers of [`LookupIndex::lookup_each`] on `addrs`, in the order of `addrs`, with
/// `scratch` words to sort in; every position must be answered exactly once.
pub(crate) fn batched_answers(
    index: &LookupIndex<'_, '_>,
    addrs: &[u64],
    scratch: usize,
) -> Vec<Answer> {
    let mut order = vec![0u64; scratch];
    let mut answers = vec![None; addrs.len()];
    index.lookup_each(addrs, &mut order, |i, found| {
        let answer = answer_of(found.map(|l| l.copied()), addrs[i]);
        assert!(
            answers[i].replace(answer).is_none(),
            "position {i} answered twice"
        );
    });
    answers
        .into_iter()
        .enumerate()
        .map(|(i, a)| a.unwrap_or_else(|| panic!("position {i} not answered")))
        .collect()
}

/// Whether two answers agree: equal frames, or both "not in GSYM", or both another error
/// (the messages differ in wording: ours names the section and offset).
pub(crate) fn agree(ours: &Answer, theirs: &Answer) -> bool {
    let not_found = |m: &str| m.ends_with("not in GSYM");
    match (ours, theirs) {
        (Ok(a), Ok(b)) => a == b,
        (Err(a), Err(b)) => not_found(a) == not_found(b),
        _ => false,
    }
}

/// Addresses around and inside every function, plus the edges of the address space: each
/// function's first and last bytes and the bytes just outside, then every byte of a
/// function of up to `per_function` bytes, or `per_function` random ones of a larger one
/// (a function without a size gets 64 bytes from its start).
pub(crate) fn sample_addresses(file: &GsymFile<'_>, per_function: u64, seed: u64) -> Vec<u64> {
    let mut rng = Rng::new(seed);
    let base = file.header().base_address;
    let mut addrs = vec![0, base.wrapping_sub(1), base, u64::MAX];
    for function in file.functions() {
        let function = function.expect("LLVM's functions decode");
        let (start, size) = (function.address, u64::from(function.size));
        let span = size.max(64);
        addrs.extend([
            start.wrapping_sub(1),
            start,
            start + size.saturating_sub(1),
            start + size,
        ]);
        if span <= per_function {
            addrs.extend(start..start + span);
        } else {
            addrs.extend((0..per_function).map(|_| start + rng.below(span)));
        }
    }
    addrs
}

/// Compares our lookups with the tool's on the sampled addresses of `gsym` (parsed from
/// `bytes`, which may be a byte-swapped copy the tool reads at `path`).
fn compare(path: &Path, bytes: &[u8], per_function: u64) -> usize {
    let file = GsymFile::parse(bytes).expect("parse");
    file.validate().expect("LLVM's file validates");
    let mut words = vec![0u64; LookupIndex::words_needed(&file)];
    let index = LookupIndex::build(file, &mut words).expect("the index builds");
    // The index must hold something to step over: rows past a checkpoint, inline calls.
    assert!(index.checkpoints() > 0, "no line-table checkpoints");
    assert!(index.inline_nodes() > 0, "no inline-tree nodes indexed");
    let addrs = sample_addresses(&file, per_function, 0x6759_6d00 ^ bytes.len() as u64);
    let theirs = lookups(path, &addrs);
    let mut bad = Vec::new();
    let mut inlined = 0;
    // Batched, sorted whole and in pieces of seven.
    let whole = batched_answers(&index, &addrs, addrs.len());
    let pieces = batched_answers(&index, &addrs, 7);
    for (i, (addr, theirs)) in addrs.iter().zip(&theirs).enumerate() {
        let ours = our_answer(&file, *addr);
        // Through the index: the same answer, errors included.
        let indexed = answer_of(index.lookup(*addr), *addr);
        assert_eq!(indexed, ours, "{addr:#x}: the indexed lookup differs");
        assert_eq!(whole[i], ours, "{addr:#x}: the batched lookup differs");
        assert_eq!(
            pieces[i], ours,
            "{addr:#x}: the batched lookup in pieces differs"
        );
        if let Ok(frames) = &ours {
            inlined += frames.iter().filter(|f| f.inlined).count();
        }
        if !agree(&ours, theirs) {
            bad.push(format!(
                "{addr:#x}:\n  ours   {ours:?}\n  theirs {theirs:?}"
            ));
        }
    }
    assert!(
        bad.is_empty(),
        "{} of {} addresses disagree:\n{}",
        bad.len(),
        addrs.len(),
        bad.join("\n")
    );
    assert!(inlined > 0, "the sample must meet inlined frames");
    addrs.len()
}

fn differential(name: &str) {
    let Some(path) = gsym_fixture(name) else {
        return;
    };
    let bytes = std::fs::read(path).expect("read gsym");
    let n = compare(path, &bytes, 400);
    assert!(n > 1000, "{name}: only {n} addresses sampled");
    eprintln!("{name}: {n} addresses agree with {}", oracle::GSYMUTIL);
}

#[test]
fn gsym_gcc_c_matches_llvm_gsymutil() {
    differential("c-gcc");
}

#[test]
fn gsym_clang_c_matches_llvm_gsymutil() {
    differential("c-clang");
}

#[test]
fn gsym_gxx_cpp_matches_llvm_gsymutil() {
    differential("cpp-gxx");
}

#[test]
fn gsym_clang_cpp_matches_llvm_gsymutil() {
    differential("cpp-clang");
}

/// Offsets past 16 bits: the converter writes 4-byte address entries.
#[test]
fn gsym_four_byte_offsets_match_llvm_gsymutil() {
    let Some(path) = gsym_fixture("c-far") else {
        return;
    };
    let bytes = std::fs::read(path).expect("read gsym");
    assert_eq!(GsymFile::parse(&bytes).unwrap().header().addr_off_size, 4);
    compare(path, &bytes, 400);
}

/// A big-endian copy (made by the swapper here) gives the same frames, and the tool,
/// which reads both orders, agrees on it too.
#[test]
fn gsym_big_endian_copy_matches_llvm_gsymutil() {
    let Some(path) = gsym_fixture("c-gcc") else {
        return;
    };
    let little = std::fs::read(path).expect("read gsym");
    let big = swap::to_big_endian(&little);
    assert_ne!(big, little);
    let big_path = path.with_extension("be.gsym");
    std::fs::write(&big_path, &big).expect("write swapped copy");
    let (le, be) = (
        GsymFile::parse(&little).unwrap(),
        GsymFile::parse(&big).unwrap(),
    );
    assert_eq!(le.endian(), symblob::gsym::Endian::Little);
    assert_eq!(be.endian(), symblob::gsym::Endian::Big);
    assert_eq!(le.header(), be.header());
    compare(&big_path, &big, 20);
    // And at an odd alignment.
    let mut shifted = vec![0u8; 3];
    shifted.extend_from_slice(&big);
    let moved = GsymFile::parse(&shifted[3..]).unwrap();
    for f in le.functions().take(50) {
        let f = f.unwrap();
        let ours = moved.lookup(f.address).unwrap().map(|l| frames(&l));
        let theirs = le.lookup(f.address).unwrap().map(|l| frames(&l));
        assert_eq!(ours, theirs);
    }
}
