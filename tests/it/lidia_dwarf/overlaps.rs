//! Functions whose ranges overlap inside one unit resolve as LLVM resolves them: a
//! subprogram nested in another's range wins there (with its inlined calls), and of two
//! with the same range (identical code folding) the later DIE wins, except from where an
//! inlined call of the earlier one starts (LLVM's address map keeps that entry). Compared
//! with `llvm-symbolizer-14 --inlining` at every byte of the hand-written fixture.

use symblob::lidia::LidiaFile;

use super::fixtures::fixtures;
use super::{build, frames, oracle};
use crate::common::missing_oracle;

#[test]
fn nested_and_folded_functions_agree_with_llvm_symbolizer() {
    let Some(tool) = oracle::symbolizer() else {
        return;
    };
    let (Some(with_symbols), Some(bin)) =
        (fixtures().get("nested"), fixtures().get("nested-nosym"))
    else {
        missing_oracle("fixtures nested and nested-nosym (gcc, objcopy)");
        return;
    };
    // Every byte of `main` (start, size), which the fixture's functions share.
    let main = oracle::functions(with_symbols)
        .into_iter()
        .find(|f| f.2 == "main")
        .expect("main in the symbol table");
    let addrs: Vec<u64> = (main.0..main.0 + main.1).collect();
    let expected = oracle::symbolize(&tool, bin, &addrs);
    let blob = build(bin, None).expect("DWARF build");
    let file = LidiaFile::parse(&blob).expect("parse");
    let mut bad = Vec::new();
    for (a, exp) in addrs.iter().zip(&expected) {
        let got = frames(&file, *a);
        if &got != exp {
            bad.push(format!("{a:#x}\n  ours: {got:?}\n  llvm: {exp:?}"));
        }
    }
    // The fixture's shapes all appear in LLVM's answers.
    let names: Vec<&str> = expected.iter().flatten().map(|f| f.0.as_str()).collect();
    for name in ["outer_fn", "nested_fn", "inlined_fn", "twin_a", "twin_b"] {
        assert!(names.contains(&name), "llvm-symbolizer never says {name}");
    }
    assert!(bad.is_empty(), "{}", bad.join("\n"));
}
