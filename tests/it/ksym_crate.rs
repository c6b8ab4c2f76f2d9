//! ksym-bin as kernels link it: the published `ksym` crate is the oracle.
//!
//! * Blobs symblob writes, in each layout, are read by the crate version that reads that
//!   layout (0.5.1: plain, 0.6.0: sized): every answer equals symblob's and a `BTreeMap`
//!   model ([`ours`]).
//! * Blobs the crate's own generator (`gen_ksym` 0.5.1 and 0.6.0) writes are read by
//!   symblob: every answer equals the crate reader's, except where the crate has a
//!   documented defect, which the check names ([`theirs`]).
//! * [`KallsymsMapped`](symblob::ksym::KallsymsMapped), the drop-in type, answers exactly
//!   like the crate on all of them.

mod ours;
mod theirs;

use std::collections::BTreeMap;
use std::path::PathBuf;

use symblob::ksym::{KallsymsMapped, LayoutKind, KSYM_NAME_LEN};
use zerocopy::IntoBytes;

use crate::common::{missing_oracle, root};

/// What the crate's `lookup_address` returns, with the name owned.
pub(super) type AddrAnswer = Option<(String, u64, u64, char)>;

/// The crate's reader API, the same in 0.5.1 and 0.6.0 (and in symblob's drop-in type).
pub(super) trait Reader {
    fn dump(&self) -> String;
    fn address(&self, addr: u64) -> AddrAnswer;
    fn name(&self, name: &str) -> Option<u64>;
    fn names(&self, name: &str) -> Option<(usize, usize)>;
}

/// Implements [`Reader`] for a `KallsymsMapped` type; `|r| dump` says how `r` dumps its
/// symbols (the crate returns a `String`, the drop-in type writes into one).
macro_rules! reader {
    ($t:ty, |$r:ident| $dump:expr) => {
        impl Reader for $t {
            fn dump(&self) -> String {
                let $r = self;
                $dump
            }
            fn address(&self, addr: u64) -> AddrAnswer {
                let mut buf = [0u8; KSYM_NAME_LEN];
                self.lookup_address(addr, &mut buf)
                    .map(|(n, size, off, ty)| (n.to_string(), size, off, ty))
            }
            fn name(&self, name: &str) -> Option<u64> {
                self.lookup_name(name)
            }
            fn names(&self, name: &str) -> Option<(usize, usize)> {
                self.lookup_names(name, true)
            }
        }
    };
}
reader!(ksym05::KallsymsMapped<'_>, |r| r.dump_all_symbols());
reader!(ksym06::KallsymsMapped<'_>, |r| r.dump_all_symbols());
reader!(KallsymsMapped<'_>, |r| {
    let mut out = String::new();
    r.dump_all_symbols(&mut out).unwrap();
    out
});

/// The `gen_ksym` input files of `testdata/ksym/input/` that both directions read.
/// `utf8-boundary.nm` is not among them: the crate's generator panics on it (a prefix
/// split inside a character, see the folder's README), so only symblob's blobs of it are
/// compared.
pub(super) const INPUT_FILES: &[&str] = &[
    "seed-3.nm",
    "alias-dup-6.nm",
    "edge-order.nm",
    "tokens-300.nm",
    "tokens-600.nm",
    "rust-mangled.nm",
];

/// An 8-byte-aligned copy of a blob: the crate's `from_blob` reinterprets the tables in
/// place with `from_raw_parts` and needs that alignment.
pub(super) struct Aligned {
    words: Vec<u64>,
    len: usize,
}

impl Aligned {
    pub(super) fn new(bytes: &[u8]) -> Self {
        let mut words = vec![0u64; bytes.len().div_ceil(8)];
        words.as_mut_slice().as_mut_bytes()[..bytes.len()].copy_from_slice(bytes);
        Aligned {
            words,
            len: bytes.len(),
        }
    }

    pub(super) fn bytes(&self) -> &[u8] {
        &self.words.as_slice().as_bytes()[..self.len]
    }
}

/// The crate version that reads `kind`, opened on an aligned blob.
pub(super) fn open_crate(
    kind: LayoutKind,
    blob: &Aligned,
    stext: u64,
    etext: u64,
) -> Box<dyn Reader + '_> {
    match kind {
        LayoutKind::Plain => Box::new(
            ksym05::KallsymsMapped::from_blob(blob.bytes(), stext, etext).expect("0.5.1 reads"),
        ),
        LayoutKind::Sized => Box::new(
            ksym06::KallsymsMapped::from_blob(blob.bytes(), stext, etext).expect("0.6.0 reads"),
        ),
    }
}

/// The queries every comparison runs: each symbol start, and inside each gap between
/// distinct addresses its middle and its last byte (the last symbol's gap ends at `etext`).
pub(super) fn probe_addresses(starts: &BTreeMap<u64, Vec<(String, char)>>, etext: u64) -> Vec<u64> {
    let keys: Vec<u64> = starts.keys().copied().collect();
    let mut out = Vec::new();
    for (i, &a) in keys.iter().enumerate() {
        let end = keys.get(i + 1).copied().unwrap_or(etext);
        out.push(a);
        if end > a + 1 {
            out.push(a + (end - a) / 2);
            out.push(end - 1);
        }
    }
    out
}

/// Where `gen_ksym` of `version` is installed: `$SYMBLOB_GEN_KSYM_DIR/<version>/bin`, by
/// default `target/ksym-gen/<version>/bin` (`.ci/run` installs it there).
fn gen_ksym_path(version: &str) -> PathBuf {
    let dir = std::env::var_os("SYMBLOB_GEN_KSYM_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| root().join("target/ksym-gen"));
    dir.join(version).join("bin/gen_ksym")
}

/// Runs the crate's generator of `version` on `input` (`address type name` lines); `None`
/// after [`missing_oracle`] when it is not installed.
pub(super) fn gen_ksym(version: &str, input: &[u8]) -> Option<Vec<u8>> {
    let path = gen_ksym_path(version);
    if !path.is_file() {
        missing_oracle(&format!(
            "gen_ksym {version} (cargo install ksym@{version} --bin gen_ksym --root {})",
            path.parent().unwrap().parent().unwrap().display()
        ));
        return None;
    }
    let mut child = std::process::Command::new(&path)
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    let input = input.to_vec();
    let writer = std::thread::spawn(move || std::io::Write::write_all(&mut stdin, &input));
    let out = child.wait_with_output().unwrap();
    writer.join().unwrap().unwrap();
    assert!(out.status.success(), "gen_ksym {version} failed");
    Some(out.stdout)
}
