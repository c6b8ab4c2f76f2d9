//! proptest: builder + reader against a plain model of the spec's semantics.

use super::*;

/// Names from a pool of shared prefixes (many of them, so that more than 511 tokens
/// would pay), with multi-byte characters and some very long names.
fn name_strategy(prefixes: usize) -> impl Strategy<Value = String> {
    let stems = [
        "drv_",
        "ü_net_",
        "模块_",
        "__",
        "core::ptr::drop_in_place<",
        "x",
    ];
    (
        0..prefixes,
        0..stems.len(),
        prop::collection::vec(
            prop::sample::select(vec!["a", "b", "é", "_", "z", "0"]),
            0..6,
        ),
        prop::bool::weighted(0.02),
    )
        .prop_map(move |(p, s, tail, long)| {
            let mut name = format!("{}{p:04}_shared_part_", stems[s]);
            name.extend(tail);
            if long {
                name.push_str(&"long_segment_".repeat(1 + p % 1500));
            }
            name
        })
}

fn symbols_strategy() -> impl Strategy<Value = Vec<Symbol>> {
    (1usize..700).prop_flat_map(|prefixes| {
        prop::collection::vec(
            (0u64..400, prop::bool::ANY, name_strategy(prefixes)),
            1..1500,
        )
        .prop_map(|v| {
            v.into_iter()
                .map(|(slot, global, name)| Symbol {
                    address: 0x10_0000 + slot * 0x20,
                    kind: if global { b'T' } else { b't' },
                    name,
                })
                .collect()
        })
    })
}

/// The model: unique records in D13 order.
fn model(symbols: &[Symbol]) -> Vec<Line> {
    let mut seen = std::collections::BTreeSet::new();
    let unique: Vec<Line> = symbols
        .iter()
        .filter(|s| seen.insert((s.address, s.kind, s.name.clone())))
        .map(|s| (s.address, s.kind, s.name.clone()))
        .collect();
    // Among equal (address, name) with different types, input order (stable sort).
    let mut sorted = unique;
    sorted.sort_by(|a, b| {
        (a.0, leading_underscores(&a.2), &a.2).cmp(&(b.0, leading_underscores(&b.2), &b.2))
    });
    sorted
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 24, ..ProptestConfig::default() })]

    #[test]
    fn builder_and_reader_agree_with_a_model(
        symbols in symbols_strategy(),
        cut in 0u64..400,
        probes in prop::collection::vec(0u64..(400 * 0x20 + 0x40), 40),
    ) {
        let built = build(&symbols, &BuildOptions::default()).unwrap();
        let blob = check_blob(&built.bytes);
        let stored = model(&symbols);
        prop_assert_eq!(dump_of(&blob), stored.clone());

        // Two ranges split at a symbol slot; the gap [mid, mid + 0x10) is outside both.
        let base = 0x10_0000u64;
        let mid = base + cut * 0x20;
        #[allow(clippy::single_range_in_vec_init)] // one range, in a list of ranges
        let ranges = if cut == 0 {
            vec![base..base + 400 * 0x20]
        } else {
            vec![base..mid, mid + 0x10..base + 400 * 0x20]
        };
        let ksyms = Ksyms::new(blob, TextRanges::new(&ranges).unwrap());
        let mut firsts: BTreeMap<u64, &Line> = BTreeMap::new();
        for l in &stored {
            firsts.entry(l.0).or_insert(l);
        }
        for &q in probes.iter().map(|p| base + p).collect::<Vec<_>>().iter() {
            let expect = model_lookup(&firsts, &ranges, q);
            let got = ksyms.lookup_address(q);
            match (expect, got) {
                (None, None) => {}
                (Some((l, off, size)), Some(s)) => {
                    prop_assert_eq!((s.address, s.kind, s.offset, s.size), (l.0, l.1, off, size));
                    prop_assert!(s.name == l.2.as_str());
                }
                (e, g) => prop_assert!(false, "{q:#x}: model {e:?}, reader {g:?}"),
            }
            let ret = ksyms.lookup_return_address(q);
            let expect_ret = model_lookup(&firsts, &ranges, q - 1);
            prop_assert_eq!(
                ret.map(|s| (s.address, s.offset, s.size)),
                expect_ret.map(|(l, off, size)| (l.0, off + 1, size))
            );
        }

        let mut by_name: BTreeMap<&str, Vec<(u64, u8)>> = BTreeMap::new();
        for l in &stored {
            by_name.entry(l.2.as_str()).or_default().push((l.0, l.1));
        }
        for (name, entries) in &by_name {
            let lowest = entries.iter().map(|e| e.0).min();
            prop_assert_eq!(blob.lookup_name(name), lowest);
            let mut all: Vec<(u64, u8)> = blob.lookup_name_all(name).map(|e| (e.address, e.kind)).collect();
            prop_assert!(all.windows(2).all(|w| w[0].0 <= w[1].0));
            all.sort();
            let mut want = entries.clone();
            want.sort();
            prop_assert_eq!(all, want);
            // A query one byte longer or shorter finds nothing unless it is stored.
            let longer = format!("{name}~");
            prop_assert_eq!(blob.lookup_name(&longer).is_some(), by_name.contains_key(longer.as_str()));
        }
    }
}

/// D8 on the model: the range containing `q`, the last start ≤ `q`, inside that range,
/// the first alias, size clipped to the range end.
fn model_lookup<'a>(
    firsts: &BTreeMap<u64, &'a Line>,
    ranges: &[Range<u64>],
    q: u64,
) -> Option<(&'a Line, u64, u64)> {
    let r = ranges.iter().find(|r| r.contains(&q))?;
    let (&start, &line) = firsts.range(..=q).next_back()?;
    if start < r.start {
        return None;
    }
    let next = firsts
        .range(start + 1..)
        .next()
        .map_or(r.end, |(&a, _)| a.min(r.end));
    Some((line, q - start, next - start))
}
