//! Helpers: loading blobs, placing them at a chosen alignment, reading `.lookups.tsv`.

use std::fs;
use std::path::PathBuf;

use crate::common::testdata;

/// The origin blobs, by stem, sorted.
pub fn origin_stems() -> Vec<String> {
    let mut stems: Vec<String> = fs::read_dir(testdata("ksym/origin"))
        .expect("testdata/ksym/origin")
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|x| x == "bin"))
        .map(|p| p.file_stem().unwrap().to_string_lossy().into_owned())
        .collect();
    stems.sort();
    assert!(stems.len() >= 12, "origin blobs missing: {stems:?}");
    stems
}

pub fn origin(file: &str) -> PathBuf {
    testdata(&format!("ksym/origin/{file}"))
}

pub fn read(path: PathBuf) -> Vec<u8> {
    fs::read(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// A buffer holding `bytes` at an address ≡ `misalign` (mod 8); `place` slices it out.
pub struct Placed {
    buf: Vec<u8>,
    start: usize,
    len: usize,
}

impl Placed {
    pub fn new(bytes: &[u8], misalign: usize) -> Self {
        let mut buf = vec![0u8; bytes.len() + 16];
        let start = buf.as_ptr().align_offset(8) + misalign;
        buf[start..start + bytes.len()].copy_from_slice(bytes);
        let placed = Placed {
            buf,
            start,
            len: bytes.len(),
        };
        assert_eq!(placed.bytes().as_ptr() as usize % 8, misalign);
        placed
    }

    pub fn bytes(&self) -> &[u8] {
        &self.buf[self.start..self.start + self.len]
    }
}

/// One expected lookup from a `.lookups.tsv` file.
#[derive(Debug)]
pub enum Expected {
    /// `addr` or `ret` (`ret == true`): `None` or (type, name, offset, size).
    Address {
        ret: bool,
        query: u64,
        result: Option<(u8, String, u64, u64)>,
    },
    /// `name`: `None` or (lowest address, all addresses in name-table order).
    Name {
        query: String,
        result: Option<(u64, Vec<u64>)>,
    },
}

/// A parsed `.lookups.tsv`: the text ranges from its header and every expectation.
pub struct Lookups {
    pub ranges: Vec<std::ops::Range<u64>>,
    pub expected: Vec<Expected>,
}

pub fn hex(s: &str) -> u64 {
    u64::from_str_radix(s.strip_prefix("0x").unwrap_or(s), 16)
        .unwrap_or_else(|e| panic!("bad hex {s:?}: {e}"))
}

pub fn read_lookups(stem: &str) -> Option<Lookups> {
    let path = origin(&format!("{stem}.lookups.tsv"));
    let text = fs::read_to_string(&path).ok()?;
    let mut ranges = Vec::new();
    let mut expected = Vec::new();
    for line in text.lines() {
        if let Some(header) = line.strip_prefix("# text ranges") {
            let list = header.split_once(": ").unwrap().1;
            for r in list.split("), ") {
                let r = r.trim_start_matches('[').trim_end_matches(')');
                let (s, e) = r.split_once(", ").unwrap();
                ranges.push(hex(s)..hex(e));
            }
            continue;
        }
        if line.starts_with('#') || line.is_empty() {
            continue;
        }
        let f: Vec<&str> = line.split('\t').collect();
        let e = match f[0] {
            "addr" | "ret" => Expected::Address {
                ret: f[0] == "ret",
                query: hex(f[1]),
                result: (f[2] != "none").then(|| {
                    assert_eq!(f[2].len(), 1, "{line}");
                    (f[2].as_bytes()[0], f[3].to_string(), hex(f[4]), hex(f[5]))
                }),
            },
            "name" => Expected::Name {
                query: f[1].to_string(),
                result: (f[2] != "none").then(|| (hex(f[2]), f[3].split(',').map(hex).collect())),
            },
            other => panic!("{stem}: unknown line kind {other:?}"),
        };
        expected.push(e);
    }
    assert!(!ranges.is_empty(), "{stem}: no text ranges in header");
    Some(Lookups { ranges, expected })
}

/// Every origin blob that has a `.lookups.tsv`: its stem, its expectations and its bytes.
pub fn origin_blobs_with_lookups() -> Vec<(String, Lookups, Vec<u8>)> {
    origin_stems()
        .into_iter()
        .filter_map(|stem| {
            let lookups = read_lookups(&stem)?;
            let bytes = read(origin(&format!("{stem}.bin")));
            Some((stem, lookups, bytes))
        })
        .collect()
}

/// The dump of a blob as a `String`.
pub fn dump(blob: &symblob::ksym::KsymBlob<'_>) -> String {
    let mut s = String::new();
    blob.dump(&mut s).unwrap();
    s
}

/// (address, type, name) of every line of an expected dump.
pub fn dump_lines(text: &str) -> Vec<(u64, u8, &str)> {
    text.lines()
        .map(|l| {
            let (addr, rest) = l.split_at(16);
            let kind = rest.as_bytes()[1];
            // The name is the rest of the line after "<type> ", spaces included.
            (hex(addr), kind, &rest[3..])
        })
        .collect()
}
