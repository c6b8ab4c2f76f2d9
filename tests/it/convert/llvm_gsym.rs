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

/// Shapes LLVM's converter does not write but its lookup answers, put together byte by
/// byte: an inline node with no call file (no frame) above one with a call file,
/// overlapping siblings (the first that covers an address is entered), a child in the gap
/// between its parent's ranges (never reached), two rows at one address (LLVM 14 answers
/// the first there and the last after), and records of size 0 (up to the next function;
/// the last one, above it all). Converted to Lidia, symbfile and GSYM, every address
/// answers as the tool answers on the original, offsets aside (a node's first range is
/// where the lookup reaches it), except above the last record of size 0 in the formats
/// other than GSYM.
#[test]
fn unusual_gsym_shapes_convert_as_llvm_gsymutil_answers_them() {
    use crate::gsym::tiny::{gsym, line_table, node, uleb, Func, INL, MAIN};
    if tool(GSYMUTIL).is_none() {
        return;
    }
    // 0x1000: X (no call file) over Y; then A and B overlapping.
    let y = node(2, 4, INL, 7, None);
    let x = node(4, 0x10, INL, 0, Some(y));
    let a = node(0x20, 0x10, INL, 3, None);
    let b = node(0x28, 0x10, MAIN, 4, None);
    let first = node(0, 0x40, MAIN, 0, Some([x, a, b].concat()));
    // 0x1100: A2 with two ranges and a child C in the gap between them.
    let c = node(4, 8, MAIN, 9, None);
    let mut a2 = uleb(2);
    for v in [4, 4, 0x10, 8] {
        a2.extend(uleb(v));
    }
    a2.push(1);
    a2.extend(INL.to_le_bytes());
    a2.extend([1, 5]);
    a2.extend(c);
    a2.push(0);
    let second = node(0, 0x30, MAIN, 0, Some(a2));
    let func = |start, size, chunks| Func {
        start,
        size,
        name: MAIN,
        chunks,
    };
    let bytes = gsym(&[
        // Rows at +0 (line 10) and +0x20 (line 11): LineRange 2, MinDelta 0.
        func(
            0x1000,
            0x40,
            vec![line_table(0, 1, 10, &[4, 4 + 1 + 2 * 0x20, 0]), (2, first)],
        ),
        // Rows at +0 (line 10), +0 (line 11), +8 (line 12).
        func(
            0x1100,
            0x30,
            vec![line_table(0, 1, 10, &[4, 5, 4 + 1 + 2 * 8, 0]), (2, second)],
        ),
        func(0x1200, 0, vec![]),
        func(0x1300, 0x10, vec![]),
        func(0x1400, 0, vec![]),
    ]);
    GsymFile::parse(&bytes).unwrap().validate().unwrap();
    let dir = run_scratch_dir("convert-unusual-gsym");
    let path = dir.join("unusual.gsym");
    std::fs::write(&path, &bytes).unwrap();
    let addrs: Vec<u64> = (0xff0..0x1150)
        .chain([
            0x11ff, 0x1200, 0x1250, 0x12ff, 0x1300, 0x130f, 0x1310, 0x1350, 0x13ff, 0x1400, 0x1401,
            0x5000,
        ])
        .collect();
    let theirs = lookups(&path, &addrs);
    let last_sizeless = 0x1400;
    for to in [Target::Lidia, Target::Symbfile, Target::Gsym] {
        let output = converted("unusual", &bytes, to);
        let got = answers(to, &output, &addrs);
        for ((a, t), g) in addrs.iter().zip(&theirs).zip(&got) {
            let Some(want) = expected(t) else { continue };
            if to != Target::Gsym && *a >= last_sizeless {
                assert!(g.is_empty(), "{to:?} {a:#x}: {g:?}");
                continue;
            }
            assert_eq!(*g, want, "{to:?} {a:#x}");
        }
        if to == Target::Gsym {
            // The tool on our file: the same answers (and failures), offsets aside.
            let ours = dir.join("rewritten.gsym");
            std::fs::write(&ours, &output).unwrap();
            let no_offsets = |answer: &Answer| -> Answer {
                let mut answer = answer.clone();
                if let Ok(frames) = &mut answer {
                    frames.iter_mut().for_each(|f| f.offset = 0);
                }
                answer
            };
            for ((a, t), o) in addrs.iter().zip(&theirs).zip(lookups(&ours, &addrs)) {
                if expected(t).is_some() {
                    assert_eq!(no_offsets(&o), no_offsets(t), "{a:#x}");
                }
            }
        }
    }
    // The shapes were met: Y without X, the first of two overlapping siblings, A2's
    // second range but nothing for the child in the gap, the first of two rows, the
    // record of size 0 up to the next one, and the last above it.
    let frames = |a: u64| expected(&theirs[addrs.iter().position(|&x| x == a).unwrap()]).unwrap();
    assert_eq!(frames(0x1007).len(), 2);
    assert_eq!(frames(0x102a)[1].2, 3);
    assert_eq!(frames(0x1112).len(), 2);
    assert_eq!(frames(0x110a).len(), 1);
    assert_eq!((frames(0x1100)[0].2, frames(0x1101)[0].2), (10, 11));
    assert_eq!(frames(0x1250)[0].0, "main");
    assert!(frames(0x1350).is_empty());
    assert_eq!(frames(0x5000)[0].0, "main");
}
