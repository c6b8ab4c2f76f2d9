//! blazesym's GSYM reader (the `blazesym` crate, a second implementation of the format)
//! on the files symblob writes: at the sampled addresses its frames must be the ones
//! `llvm-gsymutil-14 --address` prints for the same file — function names, and the file
//! and line of each frame. blazesym reports no offsets of inlined frames, so offsets are
//! not compared.

use std::path::Path;

use blazesym::symbolize::source::{GsymFile, Source};
use blazesym::symbolize::{CodeInfo, Input, Symbolized, Symbolizer};
use symblob::gsym::GsymFile as OurGsym;

use super::oracle::{lookups, Answer, GSYMUTIL};
use super::sample_addresses;
use super::writer::{ours, programs};
use crate::common::{run_scratch_dir, tool};

/// A frame as both tools give it: name and `path:line` (none without a location).
type NamedFrame = (String, Option<(String, u32)>);

/// `dir/file` as `llvm-gsymutil` joins them.
fn path_of(info: &CodeInfo<'_>) -> (String, u32) {
    let file = info.file.to_string_lossy();
    let path = match info.dir.as_deref().map(Path::to_string_lossy) {
        Some(dir) if !dir.is_empty() => format!("{dir}/{file}"),
        _ => file.into_owned(),
    };
    (path, info.line.unwrap_or(0))
}

/// blazesym's answers, innermost frame first (its `inlined` list is outermost first and
/// each entry carries the position inside it; the symbol's own position is the outermost
/// frame's).
fn blazesym_frames(path: &Path, addrs: &[u64]) -> Vec<Option<Vec<NamedFrame>>> {
    let symbolizer = Symbolizer::builder()
        .enable_demangling(false)
        .enable_code_info(true)
        .enable_inlined_fns(true)
        .build();
    let source = Source::Gsym(blazesym::symbolize::source::Gsym::File(GsymFile::new(path)));
    let answers = symbolizer
        .symbolize(&source, Input::VirtOffset(addrs))
        .expect("blazesym reads the file");
    answers
        .iter()
        .map(|answer| {
            let Symbolized::Sym(sym) = answer else {
                return None;
            };
            let mut frames: Vec<NamedFrame> = sym
                .inlined
                .iter()
                .rev()
                .map(|f| (f.name.to_string(), f.code_info.as_ref().map(path_of)))
                .collect();
            frames.push((sym.name.to_string(), sym.code_info.as_deref().map(path_of)));
            Some(frames)
        })
        .collect()
}

/// `llvm-gsymutil`'s answer in the same terms.
fn named(answer: &Answer) -> Option<Vec<NamedFrame>> {
    let frames = answer.as_ref().ok()?;
    Some(
        frames
            .iter()
            .map(|f| (f.name.clone(), f.location.clone()))
            .collect(),
    )
}

#[test]
fn blazesym_reads_our_gsym_files_as_llvm_gsymutil_does() {
    if tool(GSYMUTIL).is_none() {
        return;
    }
    let dir = run_scratch_dir("gsym-blazesym");
    let mut compared = 0;
    for (name, elf) in programs() {
        let path = ours(&name, &elf, &dir);
        let bytes = std::fs::read(&path).unwrap();
        let addrs = sample_addresses(&OurGsym::parse(&bytes).unwrap(), 64, 0x626c_617a);
        let theirs = blazesym_frames(&path, &addrs);
        let llvm = lookups(&path, &addrs);
        let bad: Vec<String> = addrs
            .iter()
            .zip(theirs.iter().zip(&llvm))
            .filter(|(_, (b, l))| **b != named(l))
            .map(|(a, (b, l))| format!("{a:#x}:\n  blazesym {b:?}\n  llvm     {l:?}"))
            .collect();
        assert!(
            bad.is_empty(),
            "{name}: {} of {} addresses differ:\n{}",
            bad.len(),
            addrs.len(),
            bad.iter().take(8).cloned().collect::<Vec<_>>().join("\n")
        );
        compared += addrs.len();
    }
    eprintln!("{compared} addresses answered alike");
}
