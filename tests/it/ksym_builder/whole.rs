//! Names stored whole for the name search (`--whole-search-names`), against the Python
//! model `tools/ksym_whole_ref.py`: it rewrites the blob built without them, with its own
//! walk of the search, token renumbering and budget rule. Both must give the same bytes.

use std::process::Command;

use symblob_build::ksym::{WholeSearchNames, MAX_PROBE_ROUNDS};

use super::*;
use crate::common::{root, run_scratch_dir, tool};

/// The model's blob and rounds for `base` (built with no whole names).
fn model(base: &[u8], choice: WholeSearchNames, layout: LayoutKind, tag: &str) -> (Vec<u8>, u64) {
    let dir = run_scratch_dir("ksym-whole");
    let (input, output) = (
        dir.join(format!("{tag}.in")),
        dir.join(format!("{tag}.out")),
    );
    std::fs::write(&input, base).unwrap();
    let rounds = match choice {
        WholeSearchNames::Auto => "auto".to_string(),
        WholeSearchNames::Rounds(r) => r.to_string(),
    };
    let out = Command::new("python3")
        .arg(root().join("tools/ksym_whole_ref.py"))
        .args([&input, &output])
        .args([rounds.as_str(), layout.name()])
        .output()
        .expect("run python3");
    assert!(
        out.status.success(),
        "model failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let used = String::from_utf8(out.stdout)
        .unwrap()
        .trim()
        .parse()
        .unwrap();
    let bytes = std::fs::read(&output).unwrap();
    let _ = std::fs::remove_file(input);
    let _ = std::fs::remove_file(output);
    (bytes, used)
}

fn build_with(symbols: &[Symbol], layout: LayoutKind, choice: WholeSearchNames) -> Built {
    let options = BuildOptions {
        layout,
        whole_search_names: choice,
        ..BuildOptions::default()
    };
    build(symbols, &options).unwrap()
}

/// Builds `symbols` with every choice in `choices` and compares with the model; checks
/// that the blob answers every name lookup as the blob without whole names does, and that
/// `auto` stays within its budget.
fn check(label: &str, symbols: &[Symbol], layouts: &[LayoutKind], choices: &[WholeSearchNames]) {
    if tool("python3").is_none() {
        return;
    }
    for &layout in layouts {
        let base = build_with(symbols, layout, WholeSearchNames::Rounds(0));
        assert_eq!(base.stats.whole_search_rounds, 0);
        let base_blob = KsymBlob::parse(&base.bytes).unwrap();
        for &choice in choices {
            let ours = build_with(symbols, layout, choice);
            let tag = format!("{label}-{layout}-{choice:?}");
            let (expected, rounds) = model(&base.bytes, choice, layout, &tag);
            assert!(ours.bytes == expected, "{tag}: bytes differ from the model");
            assert_eq!(ours.stats.whole_search_rounds, rounds, "{tag}");
            let blob = check_blob(&ours.bytes);
            for entry in base_blob.symbols() {
                let name = entry.name.to_string();
                assert_eq!(
                    blob.lookup_name(&name),
                    base_blob.lookup_name(&name),
                    "{tag}: {name}"
                );
            }
            if choice == WholeSearchNames::Auto {
                let grown = ours.stats.blob_bytes - base.stats.blob_bytes;
                assert!(
                    grown * 100 <= base.stats.blob_bytes,
                    "{tag}: {grown} bytes more than {}",
                    base.stats.blob_bytes
                );
            }
        }
    }
}

const CHOICES: [WholeSearchNames; 5] = [
    WholeSearchNames::Auto,
    WholeSearchNames::Rounds(1),
    WholeSearchNames::Rounds(3),
    WholeSearchNames::Rounds(6),
    WholeSearchNames::Rounds(MAX_PROBE_ROUNDS),
];

#[test]
fn kernel_system_map_matches_the_model() {
    let bytes = read("ksym/linux-6.1-cloud-amd64.System.map");
    let list = parse_input(
        &bytes,
        detect_format(&bytes),
        "System.map",
        &InputOptions::default(),
    )
    .unwrap();
    check("linux", &list.symbols, &[LayoutKind::Sized], &CHOICES);
    check(
        "linux",
        &list.symbols,
        &[LayoutKind::Plain],
        &[WholeSearchNames::Auto],
    );
    // The kernel's text symbols afford six rounds (4,095 names) within 1 %; recorded in
    // the format document, so a change of the rule shows here.
    let auto = build_with(&list.symbols, LayoutKind::Sized, WholeSearchNames::Auto);
    assert_eq!(auto.stats.whole_search_rounds, 6);
}

#[test]
fn input_files_match_the_model() {
    for rel in [
        "tokens-300.nm",
        "tokens-600.nm",
        "alias-dup-6.nm",
        "rust-mangled.nm",
    ] {
        let bytes = read(&format!("ksym/input/{rel}"));
        let list =
            parse_input(&bytes, detect_format(&bytes), rel, &InputOptions::default()).unwrap();
        check(
            rel,
            &list.symbols,
            &[LayoutKind::Sized, LayoutKind::Plain],
            &CHOICES,
        );
    }
}
