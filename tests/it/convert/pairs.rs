//! Every pair of formats: the output answers as the input does, for what both hold.

use symblob_build::convert::Target;

use super::frames::{answers, gsym_failures};
use super::{built, converted, programs, TARGETS};
use crate::lidia_dwarf::oracle::{self, Frame};

/// What a ksym-bin answer can be compared with: the outermost frame's function, where
/// the input has a named function at the address (ksym-bin has no sizes, so its symbols
/// also answer for the gaps after functions and for nameless ones, which it cannot hold).
fn outermost(frames: &[Frame]) -> Option<&str> {
    frames
        .last()
        .map(|f| f.0.as_str())
        .filter(|n| !n.is_empty())
}

/// Compares the answers of `input` (format `from`) and `output` (format `to`) at `addrs`;
/// returns the disagreements.
fn disagreements(
    from: Target,
    input: &[u8],
    to: Target,
    output: &[u8],
    addrs: &[u64],
) -> Vec<String> {
    let expected = answers(from, input, addrs);
    let got = answers(to, output, addrs);
    // Where a GSYM lookup fails (before a function's first line row) the model, which
    // holds no failures, gives the other formats an answer: nothing to compare.
    let failed = match from {
        Target::Gsym => gsym_failures(input, addrs),
        _ => vec![false; addrs.len()],
    };
    // ksym-bin holds no sizes: its last symbol covers only its first byte.
    let ksym_end = (to == Target::Ksym).then(|| {
        let blob = symblob::ksym::KsymBlob::parse(output).expect("ksym parses");
        blob.symbols().map(|s| s.address).max().unwrap_or(0)
    });
    let mut bad = Vec::new();
    for (((a, exp), got), failed) in addrs.iter().zip(&expected).zip(&got).zip(failed) {
        let agree = match (from, to) {
            _ if failed => true,
            (Target::Ksym, _) => {
                // Every fact of a ksym-bin answer is a name; the output holds it as a
                // function of the symbol's extent.
                exp == got
            }
            (_, Target::Ksym) => match outermost(exp) {
                Some(_) if ksym_end.is_some_and(|end| *a > end) => got.is_empty(),
                Some(name) => outermost(got) == Some(name),
                None => true,
            },
            (Target::Gsym, Target::Gsym) => exp == got,
            // GSYM keeps no line table for functions whose rows all say line 0 (as
            // llvm-gsymutil): a line 0 is compared without its file.
            (_, Target::Gsym) | (Target::Gsym, _) => {
                exp.len() == got.len()
                    && exp.iter().zip(got).all(|(e, g)| {
                        e.0 == g.0 && (e.2 == 0 && g.2 == 0 || (e.1 == g.1 && e.2 == g.2))
                    })
            }
            // Breakpad has no file without a line: where the other side knows only the
            // file around an address (line 0), its line record is missing and
            // `breakpad-symbols` answers no file.
            (_, Target::Breakpad) | (Target::Breakpad, _) => {
                exp.len() == got.len()
                    && exp.iter().zip(got).all(|(e, g)| {
                        e.0 == g.0
                            && e.2 == g.2
                            && (e.1 == g.1 || e.2 == 0 && (e.1.is_empty() || g.1.is_empty()))
                    })
            }
            _ => exp == got,
        };
        if !agree {
            bad.push(format!("{a:#x}\n  input:  {exp:?}\n  output: {got:?}"));
        }
    }
    bad
}

#[test]
fn every_pair_answers_as_its_input_on_every_program() {
    // `nm` lists the functions whose addresses are sampled.
    if crate::common::tool("nm").is_none() {
        return;
    }
    let mut checked = 0;
    for (name, bin) in programs() {
        let funcs = oracle::functions(&bin);
        assert!(!funcs.is_empty(), "{name}: nm lists functions");
        let addrs = oracle::sample(&funcs, 600);
        for from in TARGETS {
            let input = built(&bin, from);
            // A Breakpad file's addresses are relative to the program's load address, and
            // so are those of the files converted from it.
            let shift = if from == Target::Breakpad {
                crate::breakpad::load_address(&std::fs::read(&bin).expect("read program"))
            } else {
                0
            };
            let addrs: Vec<u64> = addrs.iter().map(|a| a - shift).collect();
            for to in TARGETS {
                let output = converted(name, &input, to);
                let bad = disagreements(from, &input, to, &output, &addrs);
                assert!(
                    bad.is_empty(),
                    "{name}: {from:?} to {to:?}: {} of {} addresses answer differently:\n{}",
                    bad.len(),
                    addrs.len(),
                    bad.iter().take(20).cloned().collect::<Vec<_>>().join("\n")
                );
                checked += addrs.len();
            }
        }
    }
    eprintln!("{checked} answers compared");
}

/// The Lidia file built from DWARF, converted to symbfile and back to Lidia, answers as
/// `llvm-symbolizer-14` does on the program (the disagreements the Lidia DWARF tests name
/// aside).
#[test]
fn conversions_of_dwarf_answer_as_llvm_symbolizer() {
    let (Some(tool), Some(_)) = (oracle::symbolizer(), crate::common::tool("nm")) else {
        return;
    };
    for (name, bin) in programs() {
        if name.starts_with("go") {
            continue; // Go's DWARF is compared with the Go reader's model elsewhere
        }
        let funcs = oracle::functions(&bin);
        let addrs = oracle::sample(&funcs, 600);
        let expected = oracle::symbolize(&tool, &bin, &addrs);
        let lidia = built(&bin, Target::Lidia);
        let symbfile = converted(name, &lidia, Target::Symbfile);
        let back = converted(name, &symbfile, Target::Lidia);
        for (to, bytes) in [(Target::Symbfile, &symbfile), (Target::Lidia, &back)] {
            let got = answers(to, bytes, &addrs);
            let bad: Vec<String> = addrs
                .iter()
                .zip(&expected)
                .zip(&got)
                .filter(|((_, e), g)| e != g && !crate::lidia_dwarf::known_disagreement(name, g, e))
                .map(|((a, e), g)| format!("{a:#x}\n  ours: {g:?}\n  llvm: {e:?}"))
                .collect();
            oracle::assert_agreement(&format!("{name} via {to:?}"), addrs.len(), &bad);
        }
    }
}
