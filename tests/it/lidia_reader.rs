//! Tests: the Lidia reader against the Go reference implementation's golden files.
//!
//! Every golden `.lidia` (project `lidia/` and `synth/`, and the shared `upstream/` files
//! when present) is parsed and compared with its `dump.txt` (written by an independent raw
//! parser) and its `lookups.tsv` (the Go reader's results). Corruption and the model test
//! live in the submodules.

mod corruption;
mod model;

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use symblob::lidia::{crc32c, LidiaFile, RangeEntry};

use crate::common::{files_ending_in, shared_testdata, testdata};

/// One golden file with its dump and lookups.
pub struct Golden {
    pub name: String,
    pub lidia: PathBuf,
    pub dump: PathBuf,
    pub lookups: PathBuf,
}

impl Golden {
    pub fn bytes(&self) -> Vec<u8> {
        std::fs::read(&self.lidia).unwrap()
    }
}

fn goldens_in(lidia_dir: &Path, dump_dir: &Path) -> Vec<Golden> {
    let mut out: Vec<Golden> = files_ending_in(lidia_dir, ".lidia")
        .into_iter()
        .map(|(lidia, stem)| Golden {
            dump: dump_dir.join(format!("{stem}.dump.txt")),
            lookups: dump_dir.join(format!("{stem}.lookups.tsv")),
            lidia,
            name: format!("{stem}.lidia"),
        })
        .collect();
    out.sort_by(|a, b| a.name.cmp(&b.name));
    out
}

/// Every golden file: project `lidia/` and `synth/`, then `upstream/` when present.
pub fn goldens() -> Vec<Golden> {
    let mut all = goldens_in(&testdata("lidia/lidia"), &testdata("lidia/dumps"));
    all.extend(goldens_in(
        &testdata("lidia/synth"),
        &testdata("lidia/synth"),
    ));
    // 27 ELF-derived files and 5 synthetic ones: fail loudly if the test data moved.
    assert!(all.len() >= 32, "golden files missing: {}", all.len());
    if let (Some(l), Some(d)) = (
        shared_testdata("lidia/upstream/lidia"),
        shared_testdata("lidia/upstream/dumps"),
    ) {
        all.extend(goldens_in(&l, &d));
    }
    all
}

pub fn golden(rel: &str) -> Vec<u8> {
    std::fs::read(testdata(rel)).unwrap()
}

fn num(s: &str) -> u64 {
    match s.strip_prefix("0x") {
        Some(hex) => u64::from_str_radix(hex, 16).unwrap(),
        None => s.parse().unwrap(),
    }
}

/// Undoes Go's `%q` quoting (the escapes `strconv.Quote` produces).
fn unquote(q: &str) -> Vec<u8> {
    let inner = q.strip_prefix('"').unwrap().strip_suffix('"').unwrap();
    let mut out = Vec::new();
    let mut chars = inner.chars();
    while let Some(c) = chars.next() {
        if c != '\\' {
            let mut buf = [0; 4];
            out.extend_from_slice(c.encode_utf8(&mut buf).as_bytes());
            continue;
        }
        let esc = chars.next().unwrap();
        let mut hex = |n: usize| {
            let digits: String = chars.by_ref().take(n).collect();
            u32::from_str_radix(&digits, 16).unwrap()
        };
        match esc {
            'n' => out.push(b'\n'),
            't' => out.push(b'\t'),
            'r' => out.push(b'\r'),
            'a' => out.push(7),
            'b' => out.push(8),
            'f' => out.push(12),
            'v' => out.push(11),
            '\\' => out.push(b'\\'),
            '"' => out.push(b'"'),
            'x' => out.push(hex(2) as u8),
            'u' | 'U' => {
                let c = char::from_u32(hex(if esc == 'u' { 4 } else { 8 })).unwrap();
                let mut buf = [0; 4];
                out.extend_from_slice(c.encode_utf8(&mut buf).as_bytes());
            }
            other => panic!("unknown escape \\{other} in {q}"),
        }
    }
    out
}

/// Checks a header line of a dump (`<name> key=value … crc=0x… (computed 0x…) …`) against
/// the section values read by the reader.
fn check_section_line(line: &str, expect: &[(&str, u64)], stored_crc: u32, bytes: &[u8]) {
    let mut fields = HashMap::new();
    let mut tokens = line.split_whitespace().skip(1).peekable();
    while let Some(t) = tokens.next() {
        if t == "(computed" {
            let v = tokens.next().unwrap().trim_end_matches(')');
            fields.insert("computed", num(v));
        } else if let Some((k, v)) = t.split_once('=') {
            fields.insert(k, num(v));
        }
    }
    for (key, value) in expect {
        assert_eq!(fields[key], *value, "{key} in `{line}`");
    }
    assert_eq!(fields["crc"], u64::from(stored_crc), "{line}");
    assert_eq!(fields["computed"], u64::from(crc32c(bytes)), "{line}");
}

fn check_dump(g: &Golden, bytes: &[u8], f: &LidiaFile) {
    let text = std::fs::read_to_string(&g.dump).unwrap();
    let h = f.header();
    enum Part {
        Header,
        Entries,
        Strings,
        Lines,
    }
    let mut part = Part::Header;
    let (mut entries, mut strings, mut lines) = (0, 0, 0);
    for line in text.lines() {
        if line.starts_with("# entries") {
            part = Part::Entries;
            continue;
        } else if line.starts_with("# strings") {
            part = Part::Strings;
            continue;
        } else if line.starts_with("# line table") {
            part = Part::Lines;
            continue;
        }
        match part {
            Part::Header => {
                let key = line.split_whitespace().next().unwrap();
                let t = |th: &symblob::lidia::raw::TableHeader, size_key| {
                    [
                        (size_key, th.entry_size.get()),
                        ("count", th.count.get()),
                        ("offset", th.offset.get()),
                        ("reserved", u64::from(th.reserved.get())),
                    ]
                };
                match key {
                    "file_size" => assert_eq!(num(&line[10..]), bytes.len() as u64),
                    "magic" => assert!(line.ends_with("version 1"), "{line}"),
                    "va_table" => {
                        let mut e = t(&h.va, "entry_size").to_vec();
                        e.push(("entry_size", u64::from(f.va_size())));
                        e.push(("count", f.len() as u64));
                        check_section_line(line, &e, h.va.crc.get(), f.va_bytes());
                    }
                    "range_table" => {
                        let mut e = t(&h.ranges, "field_size").to_vec();
                        e.push(("field_size", u64::from(f.field_size())));
                        check_section_line(line, &e, h.ranges.crc.get(), f.range_bytes());
                    }
                    "strings_table" => {
                        let s = &h.strings;
                        let e = [
                            ("size", s.size.get()),
                            ("size", f.strings_table().len() as u64),
                            ("offset", s.offset.get()),
                            ("reserved", u64::from(s.reserved.get())),
                        ];
                        check_section_line(line, &e, s.crc.get(), f.strings_table());
                    }
                    "line_tables" => {
                        let mut e = t(&h.lines, "field_size").to_vec();
                        e.push(("field_size", u64::from(f.line_size())));
                        e.push(("count", f.lines().len() as u64));
                        check_section_line(line, &e, h.lines.crc.get(), f.line_bytes());
                    }
                    _ if key.starts_with("end_of_line_tables=") => {
                        let end = num(&key["end_of_line_tables=".len()..]);
                        let ls = u64::from(f.line_size());
                        assert_eq!(end, h.lines.offset.get() + h.lines.count.get() * 2 * ls);
                    }
                    _ => panic!("unexpected dump line `{line}`"),
                }
            }
            Part::Entries => {
                let parts: Vec<&str> = line.split(" | ").collect();
                assert_eq!(parts.len(), 4, "{line}");
                let n: Vec<u64> = parts[0].split(' ').map(num).collect();
                let i = n[0] as usize;
                assert_eq!(i, entries);
                assert_eq!(n.len(), 10, "{line}");
                let dumped = RangeEntry {
                    length: n[2],
                    depth: n[3],
                    func: n[4],
                    file: n[5],
                    line_index: n[6],
                    line_count: n[7],
                    call_file: n[8],
                    call_line: n[9],
                };
                assert_eq!(f.va(i), Some(n[1]), "{line}");
                assert_eq!(f.entry(i), Some(dumped), "{line}");
                let r = f.range(i).unwrap();
                assert_eq!((r.index, r.va, r.length, r.depth), (i, n[1], n[2], n[3]));
                assert_eq!(r.function, parts[1], "{line}");
                assert_eq!(r.file, parts[2], "{line}");
                assert_eq!(r.call_file, parts[3].trim_end_matches(' '), "{line}");
                assert_eq!(r.call_line, n[9]);
                assert_eq!(r.lines.len() as u64, n[7]);
                let global = f.lines();
                for (k, entry) in r.lines.iter().enumerate() {
                    assert_eq!(Some(entry), global.get(n[6] as usize + k));
                }
                entries += 1;
            }
            Part::Strings => {
                let mut it = line.splitn(3, ' ');
                let (offset, len) = (num(it.next().unwrap()), num(it.next().unwrap()));
                let value = unquote(it.next().unwrap());
                assert_eq!(value.len() as u64, len, "{line}");
                assert_eq!(f.string(offset).unwrap().as_bytes(), &value[..], "{line}");
                strings += 1;
            }
            Part::Lines => {
                let n: Vec<u64> = line.split(' ').map(num).collect();
                let entry = f.lines().get(n[0] as usize).unwrap();
                assert_eq!((entry.offset, entry.line), (n[1], n[2]), "{line}");
                lines += 1;
            }
        }
    }
    assert_eq!(entries, f.len(), "{}", g.name);
    assert_eq!(lines, f.lines().len(), "{}", g.name);
    assert!(strings >= 2, "{}", g.name);
    assert_eq!(f.ranges().len(), f.len());
    assert!(f.ranges().enumerate().all(|(i, r)| r.index == i));
}

/// The `lookups.tsv` lines of a golden: address, then (function, file) per frame.
pub fn expected_lookups(g: &Golden) -> Vec<(u64, Vec<(String, String)>)> {
    let text = std::fs::read_to_string(&g.lookups).unwrap();
    let mut out = Vec::new();
    for line in text.lines().filter(|l| !l.starts_with('#')) {
        let cells: Vec<&str> = line.split('\t').collect();
        let n = num(cells[1]) as usize;
        assert_eq!(cells.len(), 2 + 3 * n, "{line}");
        let frames = cells[2..]
            .chunks(3)
            .map(|c| {
                assert_eq!(c[2], "0", "the Go reader reports no lines");
                (c[0].to_owned(), c[1].to_owned())
            })
            .collect();
        out.push((num(cells[0]), frames));
    }
    assert!(out.len() >= 4, "{}", g.name);
    out
}

/// Compares every lookup of the golden with the Go reader's result.
pub fn check_lookups(g: &Golden, f: &LidiaFile) {
    for (addr, expected) in expected_lookups(g) {
        let frames: Vec<_> = f.lookup(addr).collect();
        let ctx = || format!("{} at {addr:#x}", g.name);
        assert_eq!(frames.len(), expected.len(), "{}", ctx());
        for (frame, (function, file)) in frames.iter().zip(&expected) {
            assert_eq!(frame.function, function.as_str(), "{}", ctx());
            // Go reports each range's own file; on these files the call-site-adjusted file
            // of section 7.3 is the same string.
            let own = f.range(frame.range_index).unwrap();
            assert_eq!(own.file, file.as_str(), "{}", ctx());
            assert_eq!(frame.file, file.as_str(), "{}", ctx());
            assert_eq!(own.function, frame.function);
            assert_eq!(own.depth, frame.depth);
        }
        let fast = f.lookup_function(addr).map(|s| s.as_bytes().to_vec());
        let first = expected.first().map(|(func, _)| func.as_bytes().to_vec());
        assert_eq!(fast, first, "{}", ctx());
    }
    // The batched lookups give the same answers for the same addresses.
    let addrs: Vec<u64> = expected_lookups(g).into_iter().map(|(a, _)| a).collect();
    let mut seen = 0;
    f.lookup_each(&addrs, |i, frames| {
        assert!(
            frames.eq(f.lookup(addrs[i])),
            "{} at {:#x}",
            g.name,
            addrs[i]
        );
        seen += 1;
    });
    f.lookup_function_each(&addrs, |i, function| {
        assert_eq!(
            function,
            f.lookup_function(addrs[i]),
            "{} at {:#x}",
            g.name,
            addrs[i]
        );
        seen += 1;
    });
    assert_eq!(seen, 2 * addrs.len());
}

#[test]
fn goldens_match_dumps_and_go_lookups() {
    for g in goldens() {
        let bytes = g.bytes();
        let f = LidiaFile::parse(&bytes).unwrap_or_else(|e| panic!("{}: {e}", g.name));
        f.verify_checksums()
            .unwrap_or_else(|e| panic!("{}: {e}", g.name));
        f.validate().unwrap_or_else(|e| panic!("{}: {e}", g.name));
        check_dump(&g, &bytes, &f);
        check_lookups(&g, &f);
    }
}

#[test]
fn upstream_expectations_when_present() {
    let Some(lib) = shared_testdata("lidia/upstream/lidia/libfib.so.none.lidia") else {
        return;
    };
    let bytes = std::fs::read(lib).unwrap();
    let f = LidiaFile::parse(&bytes).unwrap();
    assert_eq!(f.header().lines.offset.get(), 0xf3); // odd: unaligned line table
    assert_eq!(f.lookup_function(0x330).unwrap(), "fib");
    let debug = shared_testdata("lidia/upstream/lidia/symbols.debug.none.lidia").unwrap();
    let bytes = std::fs::read(debug).unwrap();
    let f = LidiaFile::parse(&bytes).unwrap();
    assert_eq!(f.lookup(0x1500).next().unwrap().function, "main");
}

#[test]
fn worked_example_of_files_and_lines() {
    let bytes = golden("lidia/synth/inline.files_lines.lidia");
    let f = LidiaFile::parse(&bytes).unwrap();
    let frames = |addr| {
        f.lookup(addr)
            .map(|fr| (fr.function.to_string(), fr.file.to_string(), fr.line))
            .collect::<Vec<_>>()
    };
    let owned = |v: &[(&str, &str, u64)]| {
        v.iter()
            .map(|&(a, b, c)| (a.to_owned(), b.to_owned(), c))
            .collect::<Vec<_>>()
    };
    assert_eq!(
        frames(0x1080),
        owned(&[
            ("inner", "file3.h", 101),
            ("middle", "file2.h", 33),
            ("outer", "file1.c", 17)
        ])
    );
    assert_eq!(
        frames(0x3403),
        owned(&[("func_with_lines", "file_with_lines.c", 9)])
    );
    assert_eq!(
        frames(0x4015),
        owned(&[("sib_b", "s.h", 0), ("siblings", "s.c", 7)])
    );
    // Boundaries of inner's table (0,100) (5,101) (16,105) at VA 0x1075.
    let inner_line = |addr| f.lookup(addr).next().unwrap().line;
    assert_eq!(inner_line(0x1075), 100);
    assert_eq!(inner_line(0x1079), 100);
    assert_eq!(inner_line(0x107a), 101);
    assert_eq!(inner_line(0x1085), 105);
    // Each frame also carries its own call site.
    let inner = f.lookup(0x1080).next().unwrap();
    assert_eq!(
        (inner.call_file, inner.call_line),
        (symblob::lidia::Str(b"file2.h"), 33)
    );
    assert_eq!(inner.depth, 2);
}

#[test]
fn strings_by_offset() {
    let bytes = golden("lidia/synth/inline.files_lines.lidia");
    let f = LidiaFile::parse(&bytes).unwrap();
    assert_eq!(f.string(0).unwrap(), "");
    assert_eq!(f.string(4).unwrap(), "[overflow]");
    assert_eq!(f.string(18).unwrap(), "outer");
    let size = f.strings_table().len() as u64;
    for bad in [size, size - 1, size - 3, u64::MAX, 1 << 40] {
        assert!(f.string(bad).is_none(), "{bad}");
    }
    // 19 points into "outer"'s bytes: its "length" runs past the table.
    assert!(f.string(19).is_none());
    assert_eq!(format!("{}", symblob::lidia::Str(b"a\xffb")), "a\u{fffd}b");
    assert_eq!(
        format!("{:?}", symblob::lidia::Str(b"a\"\xff")),
        r#""a\"\xff""#
    );
}

/// CRC-32C bit by bit, straight from its definition: reflected polynomial 0x82F63B78,
/// initial value and final XOR 0xFFFFFFFF.
fn crc32c_bitwise(bytes: &[u8]) -> u32 {
    let mut crc = !0u32;
    for &b in bytes {
        crc ^= u32::from(b);
        for _ in 0..8 {
            crc = if crc & 1 != 0 {
                (crc >> 1) ^ 0x82F6_3B78
            } else {
                crc >> 1
            };
        }
    }
    !crc
}

proptest::proptest! {
    /// Every length around the 16-byte blocks, at every alignment.
    #[test]
    fn crc32c_equals_the_bitwise_definition(
        bytes in proptest::collection::vec(proptest::prelude::any::<u8>(), 0..100),
        skip in 0usize..16,
    ) {
        let tail = &bytes[skip.min(bytes.len())..];
        proptest::prop_assert_eq!(crc32c(tail), crc32c_bitwise(tail));
    }
}

#[test]
fn crc32c_check_values() {
    assert_eq!(crc32c_bitwise(b"123456789"), 0xE3069283);
    assert_eq!(crc32c(b"123456789"), 0xE3069283);
    assert_eq!(crc32c(b""), 0);
    assert_eq!(crc32c(&symblob::lidia::raw::STRINGS_PREFIX), 0x16d712e8);
}
