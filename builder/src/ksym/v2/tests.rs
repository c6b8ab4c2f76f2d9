//! Whole-blob tests of the v2 writer: the header and the segment sizes as the spec
//! computes them from the header, reproducibility, and the size on the kernel's list.
//! The checks read the blob through the spec's formulas (section 2, 3, 4), not through
//! the writer's own structures.

use std::path::Path;
use std::time::Instant;

use crate::ksym::{build, BuildOptions, FormatVersion, InputOptions, Symbol, TypeFilter};
use crate::text::parse_nm;

fn v2() -> BuildOptions {
    BuildOptions {
        format_version: FormatVersion::V2,
        ..BuildOptions::default()
    }
}

fn sym(address: u64, kind: u8, name: &str) -> Symbol {
    Symbol {
        address,
        kind,
        name: name.into(),
    }
}

fn u16_at(b: &[u8], at: usize) -> u64 {
    u64::from(u16::from_le_bytes(b[at..at + 2].try_into().unwrap()))
}
fn u32_at(b: &[u8], at: usize) -> u64 {
    u64::from(u32::from_le_bytes(b[at..at + 4].try_into().unwrap()))
}
fn u64_at(b: &[u8], at: usize) -> u64 {
    u64::from_le_bytes(b[at..at + 8].try_into().unwrap())
}

/// Element `k` of the packed array of width `w` that starts at bit `start` of `bytes`
/// (spec section 2), read bit by bit.
fn packed(bytes: &[u8], start: u64, k: u64, w: u8) -> u64 {
    (0..u64::from(w)).fold(0, |v, j| {
        let b = start + k * u64::from(w) + j;
        v | u64::from(bytes[(b / 8) as usize] >> (b % 8) & 1) << j
    })
}

fn uleb(bytes: &[u8], at: &mut usize) -> u64 {
    let mut v = 0;
    let mut shift = 0;
    loop {
        let b = bytes[*at];
        *at += 1;
        v |= u64::from(b & 0x7f) << shift;
        shift += 7;
        if b & 0x80 == 0 {
            return v;
        }
    }
}

/// The segments of a blob, located from its header by the formulas of spec section 4.
struct Segments<'a> {
    n: u64,
    base: u64,
    header: &'a [u8],
    parts: Vec<(&'static str, &'a [u8])>,
}

impl<'a> Segments<'a> {
    fn of(blob: &'a [u8]) -> Self {
        assert_eq!(&blob[..8], b"KSYMBIN2");
        let h = &blob[..48];
        let n = u32_at(h, 24);
        let (l, d, t, s) = (
            u32_at(h, 28),
            u32_at(h, 32),
            u16_at(h, 36),
            u64::from(h[38]),
        );
        let (a, r) = (1u64 << h[39], 1u64 << h[40]);
        let (fb, tb, gb, ib, rb) = (h[42], h[44], h[45], h[46], h[47]);
        let (na, nr) = (n.div_ceil(a), n.div_ceil(r));
        let packed_len = |count: u64, w: u64| (count * w).div_ceil(8);
        let token_bytes = u16_at(blob, 48 + t as usize + 510);
        let sizes = [
            ("types", t),
            ("token_ends", 512),
            ("token_bytes", token_bytes),
            ("shapes", 2 * s),
            ("addr_blocks", na * (u64::from(fb) + 4)),
            ("addr_data", d),
            ("a2n", packed_len(n, u64::from(gb + tb))),
            ("restart_keys", 8 * nr),
            ("restart_pos", packed_len(nr, u64::from(rb))),
            ("names", l),
            ("n2a", packed_len(n, u64::from(ib))),
            // The name hash index: 2^b + 1 starts of bits(N) bits, N entries of
            // index_bits + 8 bits; none when b = 0.
            (
                "hash_starts",
                if h[43] == 0 {
                    0
                } else {
                    packed_len((1 << h[43]) + 1, u64::from(64 - n.leading_zeros()))
                },
            ),
            (
                "hash_entries",
                if h[43] == 0 {
                    0
                } else {
                    packed_len(n, u64::from(ib) + 8)
                },
            ),
        ];
        let mut at = 48usize;
        let mut parts = Vec::new();
        for (name, size) in sizes {
            parts.push((name, &blob[at..at + size as usize]));
            at += size as usize;
        }
        assert_eq!(
            u64_at(h, 8),
            at as u64,
            "total_bytes is the end of the segments"
        );
        Segments {
            n,
            base: u64_at(h, 16),
            header: h,
            parts,
        }
    }

    fn get(&self, name: &str) -> &'a [u8] {
        self.parts.iter().find(|(n, _)| *n == name).unwrap().1
    }

    /// Every symbol as (address, type, name) in address order, decoded by the spec.
    fn symbols(&self) -> Vec<(u64, u8, Vec<u8>)> {
        let h = self.header;
        let (a, r, g) = (1u64 << h[39], 1u64 << h[40], h[41]);
        let (fb, pb, tb, gb, ib, rb) = (h[42], h[43], h[44], h[45], h[46], h[47]);
        let n = self.n;
        let (blocks, data) = (self.get("addr_blocks"), self.get("addr_data"));
        assert!(fb == 4 || fb == 8, "first_bytes");
        assert!(pb <= 32, "hash_bits");
        let na = n.div_ceil(a) as usize;
        let fb = usize::from(fb);
        let addresses: Vec<u64> = (0..n)
            .map(|i| {
                let j = (i / a) as usize;
                let mut first = [0u8; 8];
                first[..fb].copy_from_slice(&blocks[j * fb..j * fb + fb]);
                let first = u64::from_le_bytes(first);
                let pos = u32_at(blocks, na * fb + 4 * j) as usize;
                let width = data[pos];
                let off = if i % a == 0 {
                    0
                } else {
                    packed(data, 8 * (pos as u64 + 1), i % a - 1, width)
                };
                self.base + first + off
            })
            .collect();
        let ends = self.get("token_ends");
        let token_bytes = self.get("token_bytes");
        let string = |c: u8| {
            let c = usize::from(c);
            let start = if c == 0 { 0 } else { u16_at(ends, 2 * c - 2) };
            &token_bytes[start as usize..u16_at(ends, 2 * c) as usize]
        };
        let shapes = self.get("shapes");
        let stream = self.get("names");
        let mut names: Vec<Vec<u8>> = Vec::new();
        let mut at = 0usize;
        for k in 0..n {
            if k % r == 0 {
                let m = k / r;
                assert_eq!(packed(self.get("restart_pos"), 0, m, rb), at as u64);
            }
            let hb = stream[at];
            at += 1;
            let (lcp, count) = if hb == 0xFF {
                (uleb(stream, &mut at), uleb(stream, &mut at))
            } else {
                let s = usize::from(hb);
                (u64::from(shapes[2 * s]), u64::from(shapes[2 * s + 1]))
            };
            let mut name = match names.last() {
                Some(prev) if k % r != 0 => prev[..lcp as usize].to_vec(),
                _ => {
                    assert_eq!(lcp, 0, "a restart shares nothing");
                    Vec::new()
                }
            };
            for &c in &stream[at..at + count as usize] {
                assert!(!string(c).is_empty(), "an unused code");
                name.extend_from_slice(string(c));
            }
            at += count as usize;
            if k % r == 0 {
                let mut key = [0u8; 8];
                let len = name.len().min(8);
                key[..len].copy_from_slice(&name[..len]);
                assert_eq!(
                    &self.get("restart_keys")[(8 * (k / r)) as usize..][..8],
                    &key
                );
            } else {
                let prev = names.last().unwrap();
                let exact = prev.iter().zip(&name).take_while(|(x, y)| x == y).count();
                assert_eq!(lcp as usize, exact, "exact lcp at rank {k}");
            }
            names.push(name);
        }
        assert_eq!(at, stream.len(), "the stream ends after N entries");
        let types = self.get("types");
        let mut seen = vec![false; n as usize];
        let mut by_index: Vec<Option<Vec<u8>>> = vec![None; n as usize];
        for (k, name) in names.into_iter().enumerate() {
            let i = packed(self.get("n2a"), 0, k as u64, ib);
            assert!(
                !std::mem::replace(&mut seen[i as usize], true),
                "a permutation"
            );
            let a2n = packed(self.get("a2n"), 0, i, gb + tb);
            assert_eq!(a2n >> tb, (k as u64) >> g, "a2n's group of index {i}");
            by_index[i as usize] = Some(name);
        }
        (0..n)
            .map(|i| {
                let t = packed(self.get("a2n"), 0, i, gb + tb) & ((1 << tb) - 1);
                let name = by_index[i as usize].take().unwrap();
                (addresses[i as usize], types[t as usize], name)
            })
            .collect()
    }
}

/// What `symbols` should decode to: the v1 orders (the builder's own, D13).
fn expected(symbols: &[Symbol]) -> Vec<(u64, u8, Vec<u8>)> {
    let o = crate::ksym::order::order(symbols);
    o.symbols
        .iter()
        .map(|s| (s.address, s.kind, s.name.as_bytes().to_vec()))
        .collect()
}

fn sample() -> Vec<Symbol> {
    let mut out = vec![
        sym(0x1000, b'T', "_stext"),
        sym(0x1000, b'T', "startup_64"),
        sym(0x2000, b't', "dup"),
        sym(0x1800, b't', "dup"),
        sym(0x2000, b'W', "dup"),
        sym(0xffff_ffff_8100_0000, b'T', "far_away"),
        sym(0x3000, b't', &"long_".repeat(20_000)),
        sym(0x3001, b't', &format!("{}x", "long_".repeat(20_000))),
        sym(0x3002, b'T', "grüße"),
    ];
    for i in 0..300u64 {
        out.push(sym(
            0x10_0000 + i * 0x40 + i % 7,
            b't',
            &format!("__x64_sys_{i}"),
        ));
        out.push(sym(
            0x20_0000 + i * 0x1234,
            b'T',
            &format!("do_work_{}", i % 13),
        ));
    }
    out
}

#[test]
fn decodes_to_the_input_in_both_orders() {
    let symbols = sample();
    let built = build(&symbols, &v2()).unwrap();
    let seg = Segments::of(&built.bytes);
    assert_eq!(seg.symbols(), expected(&symbols));
    assert_eq!(built.stats.format_version, FormatVersion::V2);
    assert_eq!(built.stats.symbols, seg.n);
    assert_eq!(built.stats.blob_bytes, built.bytes.len() as u64);
    // The long names past 255 bytes took the escaped header.
    assert!(built.stats.long_refs >= 2);
}

#[test]
fn header_fields_and_sizes_add_up() {
    let built = build(&sample(), &v2()).unwrap();
    let b = &built.bytes;
    let seg = Segments::of(b);
    let sizes = built.stats.segments_v2.unwrap();
    assert_eq!(sizes.total(), b.len() as u64);
    for (name, size) in sizes.named() {
        if name == "header" {
            assert_eq!(size, 48);
        } else {
            assert_eq!(seg.get(name).len() as u64, size, "{name}");
        }
    }
    assert_eq!(seg.base, 0x1000);
    // The sizes read back from the header are the ones written.
    assert_eq!(super::SegmentSizes::from_header(b), Some(sizes));
    for symbols in [vec![], vec![sym(0x42, b'T', "x")]] {
        let built = build(&symbols, &v2()).unwrap();
        let read = super::SegmentSizes::from_header(&built.bytes);
        assert_eq!(read, built.stats.segments_v2);
    }
    assert_eq!(super::SegmentSizes::from_header(&b[..47]), None);
    assert_eq!((b[39], b[40], b[41]), (5, 5, 6));
    assert_eq!(seg.get("types"), b"TWt");
    assert_eq!(b[44], 2, "type_bits for 3 types");
    let n = seg.n;
    assert_eq!(b[46], crate::ksym::v2::pack::bits(n - 1), "index_bits");
    assert_eq!(
        b[45],
        crate::ksym::v2::pack::bits((n - 1) >> 6),
        "group_bits"
    );
    // Codes: non-decreasing ends, strings ≤ 255 bytes, a one-byte code for every byte
    // the names use.
    let ends: Vec<u64> = (0..256)
        .map(|c| u16_at(seg.get("token_ends"), 2 * c))
        .collect();
    assert!(ends.windows(2).all(|w| w[0] <= w[1]));
    let strings: Vec<&[u8]> = (0..256)
        .map(|c| {
            let start = if c == 0 { 0 } else { ends[c - 1] } as usize;
            &seg.get("token_bytes")[start..ends[c] as usize]
        })
        .collect();
    assert!(strings.iter().all(|s| s.len() <= 255));
    for s in sample() {
        for byte in s.name.bytes() {
            assert!(strings.contains(&[byte].as_slice()), "byte {byte:#x}");
        }
    }
}

#[test]
fn reproducible_and_padded() {
    let symbols = sample();
    let a = build(&symbols, &v2()).unwrap();
    let b = build(&symbols, &v2()).unwrap();
    assert_eq!(a.bytes, b.bytes);
    // Input order matters only among records equal in address and name (the aliases'
    // writer order, D13); without such ties any order gives the same bytes.
    let mut reversed: Vec<Symbol> = symbols
        .iter()
        .filter(|s| s.name != "dup")
        .cloned()
        .collect();
    let forward = build(&reversed, &v2()).unwrap();
    reversed.reverse();
    assert_eq!(build(&reversed, &v2()).unwrap().bytes, forward.bytes);
    let size = a.bytes.len() as u64 + 100;
    let padded = build(
        &symbols,
        &BuildOptions {
            pad_to: Some(size),
            ..v2()
        },
    )
    .unwrap();
    assert_eq!(padded.bytes.len() as u64, size);
    assert_eq!(&padded.bytes[..a.bytes.len()], &a.bytes[..]);
    assert!(padded.bytes[a.bytes.len()..].iter().all(|&z| z == 0));
    assert_eq!(padded.stats.blob_bytes, a.bytes.len() as u64);
    let too_small = BuildOptions {
        pad_to: Some(10),
        ..v2()
    };
    assert!(build(&symbols, &too_small).is_err());
}

#[test]
fn long_names_are_v2_only() {
    let symbols = vec![sym(0x10, b'T', &"a".repeat(70_000))];
    assert!(build(&symbols, &BuildOptions::default()).is_err());
    let built = build(&symbols, &v2()).unwrap();
    assert_eq!(Segments::of(&built.bytes).symbols(), expected(&symbols));
    assert!(built.long_names.is_empty());
    assert!(build(&[sym(0x10, b'T', "a\rb")], &v2()).is_err());
}

/// Element `k` of a packed array of `w`-bit elements (spec section 2).
pub(super) fn packed_at(bytes: &[u8], k: u64, w: u64) -> u64 {
    (0..w)
        .map(|i| {
            let bit = k * w + i;
            u64::from(bytes[(bit / 8) as usize] >> (bit % 8) & 1) << i
        })
        .sum()
}

#[test]
fn name_hash_index_by_the_spec() {
    use super::NameHash;
    use symblob::ksym::v2::name_hash;
    // The hash itself is checked against the spec's examples by the reader's tests.
    let options = |name_hash| BuildOptions { name_hash, ..v2() };
    // `__x64_sys_…`: most restarts share their first 8 bytes, so the builder adds it.
    let auto = build(&sample(), &options(NameHash::Auto)).unwrap();
    let always = build(&sample(), &options(NameHash::Always)).unwrap();
    assert_eq!(auto.bytes, always.bytes);
    let never = build(&sample(), &options(NameHash::Never)).unwrap();
    assert_eq!(never.bytes[43], 0);
    assert_eq!(Segments::of(&never.bytes).get("hash_entries").len(), 0);

    let b = &always.bytes;
    let seg = Segments::of(b);
    let n = seg.n;
    let hb = u32::from(b[43]);
    assert_eq!(hb, u32::from(super::hash::bucket_bits(n as usize)));
    // Names by rank: name order, equal names by address-order index.
    let mut by_rank: Vec<(Vec<u8>, usize)> = seg
        .symbols()
        .into_iter()
        .enumerate()
        .map(|(i, (_, _, name))| (name, i))
        .collect();
    by_rank.sort();
    let (starts, entries) = (seg.get("hash_starts"), seg.get("hash_entries"));
    let sw = u64::from(64 - n.leading_zeros());
    let ew = u64::from(b[46]) + 8;
    let buckets = 1u64 << hb;
    assert_eq!(packed_at(starts, 0, sw), 0);
    assert_eq!(packed_at(starts, buckets, sw), n);
    let mut seen = vec![false; n as usize];
    for k in 0..buckets {
        let (s, e) = (packed_at(starts, k, sw), packed_at(starts, k + 1, sw));
        let mut previous = None;
        for x in s..e {
            let v = packed_at(entries, x, ew);
            let rank = v >> 8;
            assert!(previous < Some(rank), "ranks ascend within a bucket");
            previous = Some(rank);
            let h = name_hash(&by_rank[rank as usize].0);
            assert_eq!(h >> (64 - hb), k, "rank {rank} in its bucket");
            assert_eq!(
                v & 0xFF,
                (h >> (56 - hb)) & 0xFF,
                "rank {rank}'s fingerprint"
            );
            assert!(!seen[rank as usize]);
            seen[rank as usize] = true;
        }
    }
    assert!(seen.iter().all(|&s| s));
    symblob::ksym::v2::Blob::parse(b).unwrap();
}

#[test]
fn empty_and_single() {
    let empty = build(&[], &v2()).unwrap();
    let seg = Segments::of(&empty.bytes);
    assert_eq!(seg.n, 0);
    assert_eq!(empty.bytes.len(), 48 + 512);
    let one = build(&[sym(0x42, b'T', "x")], &v2()).unwrap();
    let seg = Segments::of(&one.bytes);
    assert_eq!(seg.symbols(), vec![(0x42, b'T', b"x".to_vec())]);
    // first_bytes 4, no name hash index, then every width 0 for one symbol.
    assert_eq!(&one.bytes[42..48], &[4, 0, 0, 0, 0, 0]);
}

#[test]
fn kernel_text_symbols_cost_at_most_12_bytes_each() {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../testdata/ksym/linux-6.1-cloud-amd64.System.map");
    let text = std::fs::read(&path).unwrap();
    let input = InputOptions {
        types: TypeFilter::new("Tt"),
        ..InputOptions::default()
    };
    let list = parse_nm(&text, "System.map", &input).unwrap();
    let start = Instant::now();
    let built = build(&list.symbols, &v2()).unwrap();
    let elapsed = start.elapsed();
    let s = built.stats;
    let per = |b: u64| b as f64 / s.symbols as f64;
    eprintln!(
        "kernel Tt: {} symbols, {} bytes, {:.2} B/symbol, {} merged codes, {} escaped, \
         built in {elapsed:?}",
        s.symbols,
        s.blob_bytes,
        per(s.blob_bytes),
        s.tokens,
        s.long_refs
    );
    for (name, bytes) in s.segments_v2.unwrap().named() {
        eprintln!("  {name:>12} {bytes:>8} {:>6.3}", per(bytes));
    }
    assert_eq!(s.symbols, 46_471);
    assert!(
        per(s.blob_bytes) <= 12.0,
        "{:.2} B/symbol",
        per(s.blob_bytes)
    );
    // Reading it back by the spec gives the symbols.
    assert_eq!(
        Segments::of(&built.bytes).symbols(),
        expected(&list.symbols)
    );
}
