//! ksym-bin round trip: a generated symbol set is built (either layout), and the reader's
//! iteration, dump, name lookups and address lookups, and the drop-in `KallsymsMapped`'s,
//! must match a BTreeMap model of the input (spec D8, D11, D13). With [`V2_BIT`] of
//! `max_tokens` set the same symbols are built as ksym-bin v2 as well, and the v2 reader
//! must answer as the model, and its address lookups as v1's.

#![no_main]

use std::fmt::Write as _;

use arbitrary::Arbitrary;
use libfuzzer_sys::fuzz_target;
use symblob::ksym::{v2, KallsymsMapped, KsymBlob, Ksyms, TextRanges, KSYM_NAME_LEN};
use symblob_fuzz::gen::{build_blob, GenSymbols, HASH_BIT, V2_BIT};
use symblob_fuzz::model::KsymModel;

#[derive(Arbitrary, Debug)]
struct Input {
    symbols: GenSymbols,
    max_tokens: u16,
    offset: u8,
    range_slack: u16,
    probes: Vec<u64>,
}

fuzz_target!(|input: Input| {
    let symbols = input.symbols.symbols();
    let built = build_blob(&symbols, input.max_tokens & !(V2_BIT | HASH_BIT));
    let built_v2 = (input.max_tokens & V2_BIT != 0)
        .then(|| build_blob(&symbols, V2_BIT | (input.max_tokens & HASH_BIT)));
    let offset = usize::from(input.offset % 8);
    let buf_v2 = built_v2.map(|b| symblob_fuzz::at_offset(&b, offset));
    let buf = symblob_fuzz::at_offset(&built, offset);
    let blob = KsymBlob::parse(&buf[offset..]).expect("a built blob parses");
    blob.validate().expect("a built blob validates");
    let model = KsymModel::new(&symbols);
    assert_eq!(blob.len(), model.len);

    // Address order, aliases in the preferred order, and the dump text.
    let expected: Vec<(u64, u8, &str)> = model
        .by_address
        .iter()
        .flat_map(|(&a, aliases)| aliases.iter().map(move |(k, n)| (a, *k, n.as_str())))
        .collect();
    let mut dump = String::new();
    blob.dump(&mut dump).unwrap();
    let mut expected_dump = String::new();
    for (i, (entry, (a, k, n))) in blob.symbols().zip(&expected).enumerate() {
        assert_eq!(entry.index, i);
        assert_eq!((entry.address, entry.kind), (*a, *k));
        assert_eq!(entry.name.to_string(), *n);
        writeln!(expected_dump, "{a:016x} {} {n}", char::from(*k)).unwrap();
    }
    assert_eq!(dump, expected_dump);

    // Name order is (name, address) ascending, and every name finds its lowest address.
    let by_name: Vec<(String, u64)> = blob
        .symbols_by_name()
        .map(|e| (e.name.to_string(), e.address))
        .collect();
    assert!(by_name.windows(2).all(|w| w[0] <= w[1]));
    for (name, &lowest) in &model.by_name {
        assert_eq!(blob.lookup_name(name), Some(lowest), "{name}");
        let all = blob.lookup_name_all(name).count();
        let count = expected.iter().filter(|(_, _, n)| n == name).count();
        assert_eq!(all, count);
    }
    assert_eq!(blob.lookup_name("not a stored name\u{1}"), None);

    // The v2 blob of the same symbols: the same orders, dump and name answers.
    let blob_v2 = buf_v2.as_ref().map(|buf| {
        let blob = v2::Blob::parse(&buf[offset..]).expect("a built v2 blob parses");
        assert_eq!(blob.len(), model.len);
        let mut dump_v2 = String::new();
        blob.dump(&mut dump_v2).unwrap();
        assert_eq!(dump_v2, expected_dump);
        for (i, (entry, (a, k, n))) in blob.symbols().zip(&expected).enumerate() {
            assert_eq!((entry.index, entry.address, entry.kind), (i, *a, *k));
            assert!(entry.name == *n);
            assert_eq!(blob.symbol_by_rank(blob.rank_of(i).unwrap()), Some(entry));
        }
        let by_name_v2: Vec<(String, u64)> = blob
            .symbols_by_name()
            .map(|e| (e.name.to_string(), e.address))
            .collect();
        assert_eq!(by_name_v2, by_name);
        for (name, &lowest) in &model.by_name {
            assert_eq!(blob.lookup_name(name), Some(lowest), "{name}");
            let all: Vec<_> = blob.lookup_name_all(name).map(|e| e.address).collect();
            let v1_all: Vec<_> = blob_lookup_all(&by_name, name);
            assert_eq!(all, v1_all, "{name}");
        }
        assert_eq!(blob.lookup_name("not a stored name\u{1}"), None);
        blob
    });

    // Address lookups over one text range around the symbols.
    let (Some(&first), Some(&last)) = (
        model.by_address.keys().next(),
        model.by_address.keys().last(),
    ) else {
        return;
    };
    let start = first.saturating_sub(u64::from(input.range_slack));
    let end = last
        .saturating_add(u64::from(input.range_slack))
        .max(start.saturating_add(1));
    if end <= start {
        return;
    }
    let ksyms = Ksyms::new(blob, TextRanges::single(start, end).unwrap());
    let mut queries = input.probes.clone();
    for &a in model.by_address.keys().take(512) {
        queries.extend([a.wrapping_sub(1), a, a.wrapping_add(1), a.wrapping_add(7)]);
    }
    queries.extend([start, end - 1, end]);
    for &q in &queries {
        let got = answer_v1(ksyms.lookup_address(q));
        let want = model
            .lookup_address(q, start, end)
            .map(|m| (m.index, m.address, m.size, m.offset, m.kind, m.name));
        assert_eq!(got, want, "lookup_address({q:#x})");
    }
    // v2 answers every address as v1 does, one at a time, batched and as return
    // addresses.
    if let Some(blob_v2) = blob_v2 {
        let ranges = TextRanges::single(start, end).unwrap();
        let bias = input.probes.first().copied().unwrap_or(0);
        for bias in [0, bias] {
            let one = Ksyms::new(blob, ranges).with_bias(bias);
            let two = v2::Ksyms::new(blob_v2, ranges).with_bias(bias);
            for &q in &queries {
                let q = q.wrapping_add(bias);
                let got_v1 = answer_v1(one.lookup_address(q));
                let got_v2 = answer_v2(two.lookup_address(q));
                assert_eq!(got_v2, got_v1, "v2 lookup_address({q:#x}) bias {bias:#x}");
                let r1 = one.lookup_return_address(q).map(|s| (s.index, s.offset));
                let r2 = two.lookup_return_address(q).map(|s| (s.index, s.offset));
                assert_eq!(r2, r1, "v2 lookup_return_address({q:#x})");
            }
            two.lookup_address_each(&queries, |i, s| {
                assert_eq!(s, two.lookup_address(queries[i]));
            });
        }
    }

    // The drop-in type, with the crate's rules: every name finds its lowest address (the
    // first in name order), a symbol start names its first alias, a point inside a group
    // of aliases the last one.
    let mapped = KallsymsMapped::from_blob(&buf[offset..], start, end).expect("parses");
    for (name, &lowest) in &model.by_name {
        assert_eq!(mapped.lookup_name(name), Some(lowest), "{name}");
    }
    let mut name_buf = [0u8; KSYM_NAME_LEN];
    for (&a, aliases) in model.by_address.range(start..end).take(512) {
        let got = mapped
            .lookup_address(a, &mut name_buf)
            .map(|(n, _, o, k)| (n.to_owned(), o, k));
        let (kind, name) = &aliases[0];
        let (got_name, got_offset, got_kind) = got.expect("a stored start inside the range");
        assert_eq!((got_offset, got_kind), (0, char::from(*kind)), "{a:#x}");
        // Names longer than the buffer are cut at a character boundary.
        assert!(name.starts_with(&got_name) && (got_name == *name || got_name.len() > 4092));
        let inside = a.wrapping_add(1);
        if inside < end && !model.by_address.contains_key(&inside) {
            let got = mapped
                .lookup_address(inside, &mut name_buf)
                .map(|(n, ..)| n.to_owned());
            let last = &aliases[aliases.len() - 1].1;
            if name.len() <= KSYM_NAME_LEN && last.len() <= KSYM_NAME_LEN {
                assert_eq!(got.as_ref(), Some(last), "{inside:#x}");
            }
        }
    }
});

/// The addresses of every symbol named `name`, in name order, from the (name, address)
/// list of the v1 blob.
/// What an address lookup answers: index, address, size, offset, type and name.
type Answer = Option<(usize, u64, u64, u64, u8, String)>;

fn answer_v1(s: Option<symblob::ksym::Symbol<'_>>) -> Answer {
    s.map(|s| {
        (
            s.index,
            s.address,
            s.size,
            s.offset,
            s.kind,
            s.name.to_string(),
        )
    })
}

fn answer_v2(s: Option<v2::Symbol<'_>>) -> Answer {
    s.map(|s| {
        (
            s.index,
            s.address,
            s.size,
            s.offset,
            s.kind,
            s.name.to_string(),
        )
    })
}

fn blob_lookup_all(by_name: &[(String, u64)], name: &str) -> Vec<u64> {
    by_name
        .iter()
        .filter(|(n, _)| n == name)
        .map(|&(_, a)| a)
        .collect()
}
