//! Tests: ksym-bin v2. Every symbol list is built as v1 and as v2 from the same symbols,
//! and the v2 reader must answer exactly what the v1 reader answers (itself tested against
//! the origin generator, the `ksym` crate and `nm`): the same symbols in both orders, the
//! same name lookups, the same address lookups on a dense sweep. Sizes are compared with
//! v1 and with Linux's own kallsyms tables.

// Lists of one text range (or one dense window) are what these tests pass on purpose.
#![allow(clippy::single_range_in_vec_init)]

use symblob::ksym::{v2, KsymBlob, Ksyms, TextRanges, Version};
use symblob_build::ksym::{build, BuildOptions, Built, FormatVersion, NameHash, Symbol};

mod c_reader;
mod kallsyms;
mod kallsyms_oracle;
mod properties;
mod round_trip;
mod sizes;

/// The kernel's text symbols, as `symblob ksym build` keeps them by default from a
/// System.map.
pub(super) fn kernel_symbols() -> Vec<Symbol> {
    let rel = "ksym/linux-6.1-cloud-amd64.System.map";
    let text = std::fs::read(crate::common::testdata(rel)).unwrap();
    let options = symblob_build::ksym::InputOptions {
        types: symblob_build::ksym::TypeFilter::new("Tt"),
        ..Default::default()
    };
    symblob_build::text::parse_nm(&text, rel, &options)
        .unwrap()
        .symbols
}

/// Both builds of `symbols` (v2 with the name hash index where the builder chooses it).
pub(super) fn both(symbols: &[Symbol]) -> (Built, Built) {
    both_with(symbols, NameHash::Auto)
}

/// Both builds of `symbols`, v2 with or without the name hash index as `name_hash` says.
pub(super) fn both_with(symbols: &[Symbol], name_hash: NameHash) -> (Built, Built) {
    let v1 = build(symbols, &BuildOptions::default()).expect("v1 build");
    let v2 = build(symbols, &v2_options_with(name_hash)).expect("v2 build");
    (v1, v2)
}

pub(super) fn v2_options() -> BuildOptions {
    v2_options_with(NameHash::Auto)
}

pub(super) fn v2_options_with(name_hash: NameHash) -> BuildOptions {
    BuildOptions {
        format_version: FormatVersion::V2,
        name_hash,
        ..BuildOptions::default()
    }
}

/// (index, address, kind, name) of every symbol in address order and in name order.
type Listed = Vec<(usize, u64, u8, String)>;

fn listed_v1(blob: &KsymBlob<'_>) -> (Listed, Listed) {
    let row = |e: symblob::ksym::Entry<'_>| (e.index, e.address, e.kind, e.name.to_string());
    (
        blob.symbols().map(row).collect(),
        blob.symbols_by_name().map(row).collect(),
    )
}

fn listed_v2(blob: &v2::Blob<'_>) -> (Listed, Listed) {
    let row = |e: v2::Entry<'_>| (e.index, e.address, e.kind, e.name.to_string());
    (
        blob.symbols().map(row).collect(),
        blob.symbols_by_name().map(row).collect(),
    )
}

/// What an address lookup answers, comparable across versions.
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

/// Checks that the v2 blob answers as the v1 blob on everything: both iterations, the
/// dump, every name (and near misses), and address lookups at `addresses` over `ranges`
/// with `bias`, one at a time, batched and as return addresses.
pub(super) fn same_answers(
    label: &str,
    v1_bytes: &[u8],
    v2_bytes: &[u8],
    ranges: &[std::ops::Range<u64>],
    bias: u64,
    addresses: &[u64],
) {
    assert_eq!(Version::detect(v2_bytes), Version::V2, "{label}");
    assert!(
        matches!(Version::detect(v1_bytes), Version::V1(_)),
        "{label}"
    );
    let a = KsymBlob::parse(v1_bytes).unwrap_or_else(|e| panic!("{label}: v1: {e}"));
    let b = v2::Blob::parse(v2_bytes).unwrap_or_else(|e| panic!("{label}: v2: {e}"));
    assert_eq!(b.used_size(), v2_bytes.len(), "{label}");
    let (a_addr, a_name) = listed_v1(&a);
    let (b_addr, b_name) = listed_v2(&b);
    assert_eq!(a_addr.len(), b_addr.len(), "{label}: symbol count");
    for (x, y) in a_addr.iter().zip(&b_addr) {
        assert_eq!(x, y, "{label}: address order");
    }
    for (x, y) in a_name.iter().zip(&b_name) {
        assert_eq!(x, y, "{label}: name order");
    }
    let (mut dump_a, mut dump_b) = (String::new(), String::new());
    a.dump(&mut dump_a).unwrap();
    b.dump(&mut dump_b).unwrap();
    assert!(dump_a == dump_b, "{label}: dumps differ");

    // Every name, and names that are not stored: one byte more, one byte less, a byte
    // changed at the end (these fall between stored names, where searches go wrong).
    let mut queries: Vec<Vec<u8>> = Vec::new();
    // Near misses for a sample of the names on large blobs (debug-build test time).
    let stride = (a_name.len() / 4000).max(1);
    for (k, (_, _, _, name)) in a_name.iter().enumerate() {
        let bytes = name.as_bytes();
        queries.push(bytes.to_vec());
        if k % stride == 0 {
            queries.push([bytes, b"~"].concat());
            queries.push([bytes, b"\x01"].concat());
            queries.push(bytes[..bytes.len() - 1].to_vec());
        }
    }
    queries.extend([b"".to_vec(), b"\x01".to_vec(), b"\xff\xff".to_vec()]);
    for q in &queries {
        assert_eq!(
            a.lookup_name(q),
            b.lookup_name(q),
            "{label}: lookup_name({:?})",
            String::from_utf8_lossy(q)
        );
        let all_a: Vec<(u64, u8)> = a.lookup_name_all(q).map(|e| (e.address, e.kind)).collect();
        let all_b: Vec<(u64, u8)> = b.lookup_name_all(q).map(|e| (e.address, e.kind)).collect();
        assert_eq!(
            all_a,
            all_b,
            "{label}: lookup_name_all({:?})",
            String::from_utf8_lossy(q)
        );
    }

    let ranges = TextRanges::new(ranges).unwrap();
    let ka = Ksyms::new(a, ranges).with_bias(bias);
    let kb = v2::Ksyms::new(b, ranges).with_bias(bias);
    let mut batch_a = Vec::new();
    let mut batch_b = Vec::new();
    ka.lookup_address_each(addresses, |_, s| batch_a.push(answer_v1(s)));
    kb.lookup_address_each(addresses, |_, s| batch_b.push(answer_v2(s)));
    for (k, &addr) in addresses.iter().enumerate() {
        let single = answer_v1(ka.lookup_address(addr));
        assert_eq!(
            single,
            answer_v2(kb.lookup_address(addr)),
            "{label}: {addr:#x}"
        );
        assert_eq!(single, batch_b[k], "{label}: batched {addr:#x}");
        assert_eq!(batch_a[k], batch_b[k], "{label}: batched v1 {addr:#x}");
        assert_eq!(
            answer_v1(ka.lookup_return_address(addr)),
            answer_v2(kb.lookup_return_address(addr)),
            "{label}: return address {addr:#x}"
        );
    }
}

/// Addresses around every stored address (start, one before, one after, the middle to
/// the next) and every byte of `dense` windows.
pub(super) fn sweep(stored: &[u64], bias: u64, dense: &[std::ops::Range<u64>]) -> Vec<u64> {
    let mut out = Vec::new();
    for w in stored.windows(2) {
        let (a, b) = (w[0], w[1]);
        for x in [a.wrapping_sub(1), a, a.wrapping_add(1), a + (b - a) / 2] {
            out.push(x.wrapping_add(bias));
        }
    }
    if let Some(&last) = stored.last() {
        out.extend([last, last + 1, last + 4096].map(|x| x.wrapping_add(bias)));
    }
    for window in dense {
        out.extend(window.clone().map(|x| x.wrapping_add(bias)));
    }
    out.extend([0, 1, u64::MAX]);
    out
}
