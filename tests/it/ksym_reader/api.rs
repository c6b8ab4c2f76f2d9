//! The API's own contracts: the README's named edge cases, the `Name` helpers, `Symbol`
//! formatting, text ranges and the load bias.

use std::cmp::Ordering;

use symblob::ksym::{KsymBlob, Ksyms, Name, TextRanges};
use symblob::ErrorKind;

use super::support::{dump_lines, origin, read, read_lookups, Expected};

fn blob(stem: &str) -> Vec<u8> {
    read(origin(&format!("{stem}.bin")))
}

#[test]
fn alias_dup_6_names_the_first_alias_everywhere_in_the_group() {
    let bytes = blob("alias-dup-6");
    let k = Ksyms::from_blob(&bytes, 0x1000, 0x1500).unwrap();
    for addr in [0x1300, 0x1301, 0x1380, 0x13ff] {
        let s = k.lookup_address(addr).unwrap();
        assert_eq!(s.name, "alias_do_fork", "{addr:#x}");
        assert_eq!(
            (s.address, s.size, s.offset),
            (0x1300, 0x100, addr - 0x1300)
        );
    }
    // The three aliases share an address; all three names resolve to it.
    for name in ["alias_do_fork", "do_fork", "do_fork_2"] {
        assert_eq!(k.blob().lookup_name(name), Some(0x1300));
    }
    // A duplicated name: lowest address, and both entries.
    assert_eq!(k.blob().lookup_name("cpu_startup_entry"), Some(0x1200));
    assert_eq!(k.blob().lookup_name_all("cpu_startup_entry").count(), 2);
    // End of text: the last symbol's size stops at etext; etext itself is outside.
    let last = k.lookup_address(0x14ff).unwrap();
    assert_eq!(
        (last.address, last.size, last.offset),
        (0x1400, 0x100, 0xff)
    );
    assert_eq!(k.lookup_address(0x1500), None);
    assert_eq!(k.lookup_address(0xfff), None);
}

#[test]
fn edge_order_queries_that_sort_first_or_last() {
    let bytes = blob("edge-order");
    let k = Ksyms::from_blob(&bytes, 0x400000, 0x4010a0).unwrap();
    let b = k.blob();
    assert_eq!(b.lookup_name("dup_name"), Some(0x401048));
    let all: Vec<u64> = b.lookup_name_all("dup_name").map(|e| e.address).collect();
    assert_eq!(
        all,
        [0x401070, 0x401048],
        "name-table order, as stored by the origin"
    );
    for q in [
        " ", "!", "", "\u{1}", "~~~~", "\u{ff}", "zzz_las", "foo_", "foo.col",
    ] {
        assert_eq!(b.lookup_name(q), None, "{q:?}");
    }
    assert_eq!(b.lookup_name("!early_bang"), Some(0x401000));
    assert_eq!(b.lookup_name("~tilde_sorts_last"), Some(0x401090));
    assert_eq!(b.lookup_name("grüße"), Some(0x401068));
    // In [stext, first symbol): no symbol, no underflow.
    assert_eq!(k.lookup_address(0x400800), None);
    assert_eq!(k.lookup_return_address(0x401000), None);
    let ret = k.lookup_return_address(0x401010).unwrap();
    assert_eq!(
        (ret.name.to_string(), ret.offset, ret.size),
        ("!early_bang".into(), 0x10, 0x10)
    );
    assert_eq!(k.lookup_return_address(0), None);
}

#[test]
fn empty_name_record_decodes_as_the_empty_name() {
    let bytes = blob("empty-name");
    let k = Ksyms::from_blob(&bytes, 0x3000, 0x3100).unwrap();
    let s = k.lookup_address(0x3010).unwrap();
    assert!(s.name.is_empty());
    assert_eq!(s.name.len(), 0);
    assert_eq!(s.to_string(), "+0x0/0x10");
    assert_eq!(k.blob().lookup_name(""), Some(0x3010));
    assert_eq!(
        k.blob().dump_line(1).unwrap().to_string(),
        "0000000000003010 T \n"
    );
}

#[test]
fn name_helpers_agree_with_the_contiguous_bytes() {
    let bytes = blob("tokens-300");
    let b = KsymBlob::parse(&bytes).unwrap();
    let mut with_token = 0;
    for e in b.symbols().step_by(7) {
        let s = e.name.to_string();
        let raw = s.as_bytes();
        with_token += usize::from(!e.name.token.is_empty());
        assert_eq!(e.name.len(), raw.len());
        assert_eq!(e.name.bytes().collect::<Vec<u8>>(), raw);
        assert!(e.name == *raw && e.name == raw && e.name == *s.as_str() && e.name == s.as_str());
        assert_eq!(e.name.cmp_bytes(raw), Ordering::Equal);
        assert_eq!(Name::from_bytes(raw), e.name, "equality ignores the split");
        // Comparisons against neighbours of the name.
        let mut longer = raw.to_vec();
        longer.push(b'!');
        assert_eq!(e.name.cmp_bytes(&longer), Ordering::Less);
        assert_eq!(e.name.cmp_bytes(&raw[..raw.len() - 1]), Ordering::Greater);
        assert_eq!(e.name.cmp_bytes(b"zzzz"), raw.cmp(&b"zzzz"[..]));
        assert_eq!(
            e.name.cmp_bytes(b"modtest_0100"),
            raw.cmp(&b"modtest_0100"[..])
        );
        assert!(e.name != longer.as_slice());
        // starts_with across the token/rest boundary.
        for cut in 0..=raw.len() {
            assert!(e.name.starts_with(&raw[..cut]));
        }
        assert!(!e.name.starts_with(&longer));
        assert!(!e.name.starts_with(b"modtest_X"));
        // copy_to: exact fit, larger buffer, too small.
        let mut buf = vec![0u8; raw.len() + 4];
        assert_eq!(e.name.copy_to(&mut buf).unwrap(), raw.len());
        assert_eq!(&buf[..raw.len()], raw);
        let mut exact = vec![0u8; raw.len()];
        assert_eq!(e.name.copy_to(&mut exact).unwrap(), raw.len());
        let mut small = vec![0xAAu8; raw.len() - 1];
        let err = e.name.copy_to(&mut small).unwrap_err();
        assert_eq!(
            err.kind,
            ErrorKind::BufferTooSmall {
                needed: raw.len() as u64
            }
        );
        assert!(small.iter().all(|&x| x == 0xAA), "buffer left unchanged");
    }
    assert!(with_token > 100, "tokens-300 names mostly use tokens");
}

#[test]
fn name_display_replaces_invalid_utf8() {
    let n = Name {
        token: b"ab\xffc",
        rest: "ü\u{20ac}".as_bytes(),
    };
    assert_eq!(n.to_string(), "ab\u{fffd}cü\u{20ac}");
    assert_eq!(format!("{n:?}"), "\"ab\\xffcü\u{20ac}\"");
    let cut = Name {
        token: &"ü".as_bytes()[..1],
        rest: &"ü".as_bytes()[1..],
    };
    assert_eq!(
        cut.to_string(),
        "\u{fffd}\u{fffd}",
        "pieces are displayed separately"
    );
}

#[test]
fn symbol_display_is_name_plus_offset_slash_size() {
    let bytes = blob("seed-3");
    let k = Ksyms::from_blob(&bytes, 0x1000, 0x1300).unwrap();
    assert_eq!(
        k.lookup_address(0x1112).unwrap().to_string(),
        "do_fork+0x12/0x100"
    );
    assert_eq!(
        k.lookup_address(0x1000).unwrap().to_string(),
        "_start+0x0/0x100"
    );
    assert_eq!(
        k.lookup_return_address(0x1200).unwrap().to_string(),
        "do_fork+0x100/0x100"
    );
    assert_eq!(
        k.blob().dump_line(2).unwrap().to_string(),
        "0000000000001200 T cpu_startup_entry\n"
    );
}

#[test]
fn text_ranges_are_validated() {
    use ErrorKind::*;
    assert!(matches!(
        TextRanges::single(5, 5).unwrap_err().kind,
        Malformed(_)
    ));
    assert!(matches!(
        TextRanges::single(6, 5).unwrap_err().kind,
        Malformed(_)
    ));
    assert!(matches!(
        TextRanges::new(&[]).unwrap_err().kind,
        Malformed(_)
    ));
    let overlapping = [0..10, 9..20];
    let e = TextRanges::new(&overlapping).unwrap_err();
    assert_eq!((e.kind, e.offset), (Unsorted, 1));
    let unsorted = [10..20, 0..5];
    assert_eq!(TextRanges::new(&unsorted).unwrap_err().kind, Unsorted);
    let empty_second = [0..10, 10..10];
    assert!(matches!(
        TextRanges::new(&empty_second).unwrap_err().kind,
        Malformed(_)
    ));
    let adjacent = [0..10, 10..20];
    assert_eq!(TextRanges::new(&adjacent).unwrap().len(), 2);
    assert!(Ksyms::from_blob(&blob("seed-3"), 0x1300, 0x1000).is_err());
}

/// The `addr` lines of a lookups file whose query lies in `range`.
fn address_lines(stem: &str, range: std::ops::Range<u64>) -> Vec<(u64, Option<String>)> {
    read_lookups(stem)
        .unwrap()
        .expected
        .into_iter()
        .filter_map(|e| match e {
            Expected::Address {
                ret: false,
                query,
                result,
            } if range.contains(&query) => Some((query, result.map(|r| r.1))),
            _ => None,
        })
        .collect()
}

#[test]
fn init_text_resolves_only_when_its_range_is_given() {
    let stext = 0xffffffff81000000..0xffffffff81e01ef2;
    let init = 0xffffffff8304e000..0xffffffff830b1850;
    for stem in ["proc-kallsyms-sample", "linux-6.1-cloud-amd64-tt"] {
        let bytes = blob(stem);
        let b = KsymBlob::parse(&bytes).unwrap();
        let main_only = Ksyms::new(b, TextRanges::single(stext.start, stext.end).unwrap());
        let both_ranges = [stext.clone(), init.clone()];
        let both = Ksyms::new(b, TextRanges::new(&both_ranges).unwrap());
        let lines = address_lines(stem, init.clone());
        let resolved = lines.iter().filter(|l| l.1.is_some()).count();
        assert!(
            resolved > 0,
            "{stem}: no init-text lookups in the expectations"
        );
        for (query, name) in lines {
            assert_eq!(main_only.lookup_address(query), None, "{stem}: {query:#x}");
            let got = both.lookup_address(query).map(|s| s.name.to_string());
            assert_eq!(got, name, "{stem}: {query:#x}");
        }
        // Stored symbols outside every range (_etext, _einittext) are never reported.
        let text = String::from_utf8(read(origin(&format!("{stem}.dump.txt")))).unwrap();
        for (addr, _, name) in dump_lines(&text) {
            if !stext.contains(&addr) && !init.contains(&addr) {
                assert_eq!(both.lookup_address(addr), None, "{stem}: {name}");
            }
        }
    }
}

#[test]
fn bias_shifts_queries_ranges_and_results() {
    let stem = "linux-6.1-cloud-amd64-tt";
    let bytes = blob(stem);
    let lookups = read_lookups(stem).unwrap();
    let b = KsymBlob::parse(&bytes).unwrap();
    for bias in [0x2a00000u64, 0u64.wrapping_sub(0x1000000)] {
        let shifted: Vec<_> = lookups
            .ranges
            .iter()
            .map(|r| r.start.wrapping_add(bias)..r.end.wrapping_add(bias))
            .collect();
        let k = Ksyms::new(b, TextRanges::new(&shifted).unwrap()).with_bias(bias);
        assert_eq!(k.bias(), bias);
        let mut checked = 0;
        for e in &lookups.expected {
            let Expected::Address { ret, query, result } = e else {
                continue;
            };
            let q = query.wrapping_add(bias);
            let got = if *ret {
                k.lookup_return_address(q)
            } else {
                k.lookup_address(q)
            };
            let got = got.map(|s| {
                // The reported start is a runtime address: query − offset (a return
                // address's offset is already counted from the query itself).
                let start = q.wrapping_sub(s.offset);
                assert_eq!(s.address, start, "{e:?}");
                (s.kind, s.name.to_string(), s.offset, s.size)
            });
            assert_eq!(got.as_ref(), result.as_ref(), "bias {bias:#x}: {e:?}");
            checked += 1;
        }
        assert!(checked > 1000);
    }
}

#[test]
fn entry_index_and_layout_describe_the_blob() {
    let bytes = blob("seed-3");
    let b = KsymBlob::parse(&bytes).unwrap();
    let l = b.layout();
    // README section 4: the segment offsets of seed-3.bin.
    assert_eq!(
        [
            l.addresses.offset,
            l.offsets.offset,
            l.seqs.offset,
            l.names_len.offset
        ],
        [8, 32, 44, 56]
    );
    assert_eq!((l.names.offset, l.names.size), (64, 32));
    assert_eq!((l.token_table_len.offset, l.token_table.offset), (96, 104));
    assert_eq!(
        (l.token_table_padding.offset, l.token_table_padding.size),
        (127, 1)
    );
    assert_eq!(
        (l.token_index_len.offset, l.token_index.offset, l.used_size),
        (128, 136, 148)
    );
    assert_eq!(b.token_count(), 3);
    let e = b.symbol(2).unwrap();
    assert_eq!((e.index, e.address, e.kind), (2, 0x1200, b'T'));
    assert_eq!(e.name.token, b"cpu_startu");
    assert_eq!(e.name.rest, b"p_entry");
}
