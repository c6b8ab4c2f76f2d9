//! Blobs symblob writes, read by the crate version of their layout: the crate, symblob's
//! own reader and the drop-in type agree with each other and with a `BTreeMap` model.

use proptest::prelude::*;
use symblob::ksym::{KsymBlob, Ksyms, NameIndex, TextRanges};
use symblob_build::ksym::{
    build, BuildOptions, InputOptions, Symbol, WholeSearchNames, MAX_PROBE_ROUNDS, MAX_TOKENS,
};
use symblob_build::text::{detect_format, parse_input};

use super::*;
use crate::ksym_builder::{d13_sorted, parse_dump, read, Line};

const LAYOUTS: [LayoutKind; 2] = [LayoutKind::Plain, LayoutKind::Sized];

/// The blobs `check_against_crate` writes: each layout with tokens, the default layout
/// with every name the search can compare stored whole (`--whole-search-names 12`), and
/// with no tokens at all (`--max-tokens 0`, every name stored whole).
const BUILDS: [(LayoutKind, usize, WholeSearchNames); 4] = [
    (LayoutKind::Plain, MAX_TOKENS, WholeSearchNames::Auto),
    (LayoutKind::Sized, MAX_TOKENS, WholeSearchNames::Auto),
    (
        LayoutKind::Sized,
        MAX_TOKENS,
        WholeSearchNames::Rounds(MAX_PROBE_ROUNDS),
    ),
    (LayoutKind::Sized, 0, WholeSearchNames::Auto),
];

/// The model of a symbol list: unique records in the spec's D13 address order, grouped by
/// address, and the lowest address of every name.
struct Model {
    lines: Vec<Line>,
    starts: BTreeMap<u64, Vec<(String, char)>>,
    lowest: BTreeMap<String, u64>,
}

impl Model {
    fn new(symbols: &[Symbol]) -> Self {
        let mut lines: Vec<Line> = symbols
            .iter()
            .map(|s| (s.address, s.kind, s.name.clone()))
            .collect();
        lines.sort();
        lines.dedup();
        let lines = d13_sorted(lines);
        let mut starts: BTreeMap<u64, Vec<(String, char)>> = BTreeMap::new();
        let mut lowest: BTreeMap<String, u64> = BTreeMap::new();
        for (a, k, n) in &lines {
            starts
                .entry(*a)
                .or_default()
                .push((n.clone(), char::from(*k)));
            let low = lowest.entry(n.clone()).or_insert(*a);
            *low = (*low).min(*a);
        }
        Model {
            lines,
            starts,
            lowest,
        }
    }
}

/// Builds `symbols` in both layouts (and without tokens) and checks every answer of the
/// crate version of each layout against symblob's reader, the drop-in type and the model.
fn check_against_crate(symbols: &[Symbol]) {
    let model = Model::new(symbols);
    let stext = model.starts.keys().next().copied().unwrap_or(0x1000);
    let etext = model.starts.keys().last().map_or(0x2000, |&a| a + 0x40);
    for (layout, max_tokens, whole_search_names) in BUILDS {
        let options = BuildOptions {
            layout,
            max_tokens,
            whole_search_names,
            ..BuildOptions::default()
        };
        let built = build(symbols, &options).unwrap();
        let label = format!("{layout}, at most {max_tokens} tokens, {whole_search_names:?}");
        if max_tokens == 0 {
            assert_eq!(built.stats.tokens, 0, "{label}");
        }
        let aligned = Aligned::new(&built.bytes);
        let theirs = open_crate(layout, &aligned, stext, etext);
        let blob = KsymBlob::parse(&built.bytes).unwrap();
        assert_eq!(blob.layout_kind(), layout);
        blob.validate().unwrap();
        let trusted = KsymBlob::parse_trusted(&built.bytes).unwrap();
        assert_eq!(format!("{trusted:?}"), format!("{blob:?}"));
        let mut words = vec![0u64; NameIndex::words_needed(blob.len())];
        let index = NameIndex::build(blob, &mut words).unwrap();
        let compat = KallsymsMapped::from_blob(&built.bytes, stext, etext).unwrap();
        let ranges = TextRanges::single(stext, etext).unwrap();
        let ksyms = Ksyms::new(blob, ranges);

        // The dump lists the input, and all three readers print it alike.
        let dump = theirs.dump();
        assert_eq!(parse_dump(&dump), model.lines, "{label}: dump");
        assert_eq!(compat.dump(), dump, "{label}: drop-in dump");
        let mut ours = String::new();
        blob.dump(&mut ours).unwrap();
        assert_eq!(ours, dump, "{label}: symblob dump");

        for q in probe_addresses(&model.starts, etext) {
            let (&start, aliases) = model.starts.range(..=q).next_back().unwrap();
            let end = model
                .starts
                .range(q + 1..)
                .next()
                .map_or(etext, |(&a, _)| a);
            // Crate defect: inside (not at the start of) an alias group the crate names the
            // group's last alias; symblob's reader names the first everywhere.
            let (name, kind) = if q == start {
                &aliases[0]
            } else {
                aliases.last().unwrap()
            };
            let want = Some((name.clone(), end - start, q - start, *kind));
            assert_eq!(theirs.address(q), want, "{label}: crate at {q:#x}");
            assert_eq!(compat.address(q), want, "{label}: drop-in at {q:#x}");
            let s = ksyms.lookup_address(q).unwrap();
            assert_eq!(
                s.name.to_string(),
                aliases[0].0,
                "{label}: symblob at {q:#x}"
            );
            assert_eq!(
                (s.size, s.offset),
                (end - start, q - start),
                "{label}: {q:#x}"
            );
        }
        assert_eq!(theirs.address(etext), None);
        assert_eq!(compat.address(etext), None);

        for (name, &low) in &model.lowest {
            assert_eq!(theirs.name(name), Some(low), "{label}: crate {name}");
            assert_eq!(compat.name(name), Some(low), "{label}: drop-in {name}");
            assert_eq!(blob.lookup_name(name), Some(low), "{label}: {name}");
            assert_eq!(index.lookup_name(name), Some(low), "{label}: index {name}");
            assert_eq!(compat.names(name), theirs.names(name), "{label}: {name}");
            let missing = format!("{name}\u{1}");
            assert_eq!(theirs.name(&missing), None);
            assert_eq!(compat.name(&missing), None);
        }
    }
}

fn file_symbols(rel: &str) -> Vec<Symbol> {
    let bytes = read(rel);
    parse_input(&bytes, detect_format(&bytes), rel, &InputOptions::default())
        .unwrap()
        .symbols
}

#[test]
fn kernel_system_map_read_by_the_crate() {
    let symbols = file_symbols("ksym/linux-6.1-cloud-amd64.System.map");
    assert_eq!(symbols.len(), 46_471);
    check_against_crate(&symbols);
}

#[test]
fn input_files_read_by_the_crate() {
    for rel in INPUT_FILES.iter().chain(&["utf8-boundary.nm"]) {
        check_against_crate(&file_symbols(&format!("ksym/input/{rel}")));
    }
    // More than 256 tokens, so two-byte ids are read by the crate too.
    let built = build(
        &file_symbols("ksym/input/tokens-600.nm"),
        &BuildOptions::default(),
    )
    .unwrap();
    assert!(built.stats.tokens > 256 && built.stats.long_refs > 0);
}

#[test]
fn an_empty_symbol_list_reads_as_empty() {
    check_against_crate(&[]);
    for layout in LAYOUTS {
        let options = BuildOptions {
            layout,
            ..BuildOptions::default()
        };
        let built = build(&[], &options).unwrap();
        let aligned = Aligned::new(&built.bytes);
        let theirs = open_crate(layout, &aligned, 0x1000, 0x2000);
        let compat = KallsymsMapped::from_blob(&built.bytes, 0x1000, 0x2000).unwrap();
        for r in [&*theirs, &compat as &dyn Reader] {
            assert_eq!(r.dump(), "");
            assert_eq!(r.address(0x1800), None);
            assert_eq!(r.name("x"), None);
        }
    }
}

/// Names longer than the crate's 4096-byte buffer: the crate cuts them (and so cannot
/// find them by name); the drop-in type and symblob read them whole.
#[test]
fn names_over_4096_bytes_are_where_the_crate_and_the_drop_in_differ() {
    let long = format!("long_{}", "é".repeat(3000)); // 6005 bytes; byte 4096 is inside a é
    let exact = format!("cut_{}", "y".repeat(4200));
    let symbols = [
        Symbol {
            address: 0x1000,
            kind: b'T',
            name: long.clone(),
        },
        Symbol {
            address: 0x1100,
            kind: b'T',
            name: exact.clone(),
        },
    ];
    for layout in LAYOUTS {
        let options = BuildOptions {
            layout,
            ..BuildOptions::default()
        };
        let built = build(&symbols, &options).unwrap();
        assert_eq!(built.long_names.len(), 2);
        let aligned = Aligned::new(&built.bytes);
        let theirs = open_crate(layout, &aligned, 0x1000, 0x1200);
        let compat = KallsymsMapped::from_blob(&built.bytes, 0x1000, 0x1200).unwrap();
        // Crate defect: a cut inside a character gives an empty name.
        assert_eq!(theirs.address(0x1010).unwrap().0, "");
        let cut = compat.address(0x1010).unwrap().0;
        assert_eq!(cut, long[..4095]);
        // A cut on a character boundary: both give the first 4096 bytes.
        assert_eq!(theirs.address(0x1110).unwrap().0, exact[..4096]);
        assert_eq!(compat.address(0x1110).unwrap().0, exact[..4096]);
        // Crate defect: names are compared after the cut, so neither is found.
        assert_eq!(theirs.name(&long), None);
        assert_eq!(theirs.name(&exact), None);
        assert_eq!(compat.name(&long), Some(0x1000));
        assert_eq!(compat.name(&exact), Some(0x1100));
    }
}

/// Names from a pool of shared prefixes (more than 256 of them pay for a token), with
/// aliases, repeated names at other addresses, and names up to 4095 bytes.
fn symbols_strategy() -> impl Strategy<Value = Vec<Symbol>> {
    let name = (
        0usize..700,
        prop::sample::select(vec!["", "a", "b_c", "é", "zz", "0_1"]),
        prop::option::weighted(0.03, 3000usize..4076),
    )
        .prop_map(|(p, tail, long)| {
            let mut name = format!("drv{p:03}_common_part_{tail}");
            if let Some(len) = long {
                name.push_str(&"q".repeat(len));
                name.truncate(4095);
            }
            (p, name)
        });
    prop::collection::vec((0u64..300, name), 0..1200).prop_map(|v| {
        v.into_iter()
            .map(|(slot, (p, name))| Symbol {
                address: 0xffff_ffff_8100_0000 + slot * 0x10,
                // One type per (address, name), so that the model's alias order (D13) does
                // not depend on input order.
                kind: if (slot as usize + p).is_multiple_of(2) {
                    b'T'
                } else {
                    b't'
                },
                name,
            })
            .collect()
    })
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 12, ..ProptestConfig::default() })]

    #[test]
    fn generated_sets_read_by_the_crate(symbols in symbols_strategy()) {
        check_against_crate(&symbols);
    }
}
