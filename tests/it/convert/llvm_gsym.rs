//! LLVM's GSYM files as convert's source: for every test program, the file
//! `llvm-gsymutil-14 --convert` writes of it, converted to Lidia, symbfile and GSYM,
//! answers at the sampled addresses as `llvm-gsymutil-14 --address` answers on the
//! original (function names, inline chains, files and lines); the GSYM output, looked up
//! by the tool itself, answers frame for frame as the original, offsets included.

use std::path::{Path, PathBuf};
use std::process::Command;

use symblob::gsym::GsymFile;
use symblob_build::convert::Target;

use super::frames::answers;
use super::{converted, programs};
use crate::common::{run_scratch_dir, tool};
use crate::gsym::oracle::{lookups, Answer, GSYMUTIL};
use crate::gsym::sample_addresses;
use crate::lidia_dwarf::oracle::{self, Frame};

/// The GSYM file the tool writes of the program `bin`, in the scratch directory `dir`
/// (one per test: the tests run at once).
fn llvm_gsym(dir: &str, name: &str, bin: &Path) -> PathBuf {
    let out = run_scratch_dir(dir).join(format!("{name}.gsym"));
    let status = Command::new(GSYMUTIL)
        .arg("--quiet")
        .arg(format!("--convert={}", bin.display()))
        .arg(format!("--out-file={}", out.display()))
        .status()
        .expect("run llvm-gsymutil");
    assert!(status.success(), "{GSYMUTIL} --convert {name} failed");
    out
}

/// The tool's answer in convert's frame shape (function, path, line; no location is an
/// empty path and line 0), `Some(vec![])` where no function covers the address, `None`
/// where the lookup fails otherwise (the model holds no failures: nothing to compare).
fn expected(answer: &Answer) -> Option<Vec<Frame>> {
    match answer {
        Ok(frames) => Some(
            frames
                .iter()
                .map(|f| {
                    let (path, line) = f.location.clone().unwrap_or_default();
                    (f.name.clone(), path, u64::from(line))
                })
                .collect(),
        ),
        Err(e) if e.ends_with("is not in GSYM") => Some(Vec::new()),
        Err(_) => None,
    }
}

/// The addresses: about 600 over the functions `nm` lists, and every GSYM function's
/// edges and some of its bytes.
fn addresses(bin: &Path, file: &GsymFile<'_>) -> Vec<u64> {
    let mut addrs = oracle::sample(&oracle::functions(bin), 600);
    addrs.extend(sample_addresses(file, 8, 0x6c6c_766d));
    addrs
}

#[test]
fn llvm_gsym_converted_answers_as_llvm_gsymutil_on_the_original() {
    if tool(GSYMUTIL).is_none() || tool("nm").is_none() {
        return;
    }
    let mut compared = 0;
    for (name, bin) in programs() {
        let path = llvm_gsym("convert-llvm-gsym", name, &bin);
        let bytes = std::fs::read(&path).expect("read gsym");
        let file = GsymFile::parse(&bytes).expect("LLVM's file parses");
        let addrs = addresses(&bin, &file);
        let theirs = lookups(&path, &addrs);
        let failures = theirs.iter().filter(|t| expected(t).is_none()).count();
        let inlined = theirs.iter().flatten().filter(|f| f.len() > 1).count();
        assert!(
            inlined > 0 || name.starts_with("go"),
            "{name}: the sample meets inlined calls"
        );
        assert!(
            failures * 10 < addrs.len(),
            "{name}: the tool fails on {failures} of {} addresses",
            addrs.len()
        );
        for to in [Target::Lidia, Target::Symbfile, Target::Gsym] {
            let output = converted(name, &bytes, to);
            let got = answers(to, &output, &addrs);
            let bad: Vec<String> = addrs
                .iter()
                .zip(&theirs)
                .zip(&got)
                .filter_map(|((a, t), g)| {
                    let want = expected(t)?;
                    (want != *g).then(|| format!("{a:#x}\n  tool:   {want:?}\n  output: {g:?}"))
                })
                .collect();
            assert!(
                bad.is_empty(),
                "{name}: LLVM's GSYM to {to:?}: {} of {} addresses answer differently:\n{}",
                bad.len(),
                addrs.len(),
                bad.iter().take(20).cloned().collect::<Vec<_>>().join("\n")
            );
            compared += addrs.len() - failures;
        }
    }
    eprintln!("{compared} answers compared with {GSYMUTIL}");
}

/// GSYM → GSYM through our writer: the tool answers on our file as on its own, frame for
/// frame with offsets, wherever it answers on its own (its failures before a function's
/// first line row are answers in the model).
#[test]
fn llvm_gsym_rewritten_answers_frame_for_frame_in_llvm_gsymutil() {
    if tool(GSYMUTIL).is_none() || tool("nm").is_none() {
        return;
    }
    let dir = run_scratch_dir("convert-llvm-gsym-rewritten");
    for (name, bin) in programs() {
        let path = llvm_gsym("convert-llvm-gsym-original", name, &bin);
        let bytes = std::fs::read(&path).expect("read gsym");
        let file = GsymFile::parse(&bytes).expect("LLVM's file parses");
        let addrs = addresses(&bin, &file);
        let ours_path = dir.join(format!("{name}.gsym"));
        let ours = converted(name, &bytes, Target::Gsym);
        GsymFile::parse(&ours).unwrap().validate().unwrap();
        std::fs::write(&ours_path, &ours).expect("write");
        let theirs = lookups(&path, &addrs);
        let again = lookups(&ours_path, &addrs);
        let bad: Vec<String> = addrs
            .iter()
            .zip(&theirs)
            .zip(&again)
            .filter(|((_, t), o)| expected(t).is_some() && t != o)
            .map(|((a, t), o)| format!("{a:#x}\n  original:  {t:?}\n  rewritten: {o:?}"))
            .collect();
        assert!(
            bad.is_empty(),
            "{name}: {} of {} addresses answer differently:\n{}",
            bad.len(),
            addrs.len(),
            bad.iter().take(20).cloned().collect::<Vec<_>>().join("\n")
        );
        // And rewriting our own file changes nothing.
        assert!(
            converted(name, &ours, Target::Gsym) == ours,
            "{name}: our GSYM rewritten changed"
        );
    }
}
