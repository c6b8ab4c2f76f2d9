//! Shared pieces of the symblob fuzz targets.
//!
//! * [`reader`]: drives every public entry of the `no_std` reader over one input and
//!   checks the invariants that hold for any input (consistency between accessors), so
//!   that a wrong answer on hostile bytes is found as well as a panic.
//! * [`gsym`]: the same for the GSYM reader, and a template file for its lookup target.
//! * [`mutate`]: a few byte edits applied to a valid blob, the structure-aware targets'
//!   way to get past the header checks that random bytes rarely pass.
//! * [`gen`]: generators of symbol sets and ranges for the builder.
//! * [`functions`]: generated model functions with inlined calls, and their answers.
//! * [`model`]: the simple models that the round-trip targets compare the reader with.

pub mod compat;
pub mod functions;
pub mod gen;
pub mod gsym;
pub mod model;
pub mod mutate;
pub mod reader;
pub mod symbfile;

/// Copies `data` to `offset` bytes into a fresh buffer and returns the buffer; the
/// input then sits at `&buf[offset..]`, at an alignment the caller chose.
///
/// The reader must not care about alignment: a blob arrives in a `Vec`, a linker
/// section or an mmap.
pub fn at_offset(data: &[u8], offset: usize) -> Vec<u8> {
    let mut buf = vec![0u8; offset];
    buf.extend_from_slice(data);
    buf
}

/// Finishes a Lidia build the builder accepted and checks the file: it parses, its
/// checksums verify, it validates, and it holds every range that was added.
pub fn check_built_lidia(writer: symblob_build::lidia::LidiaWriter) {
    let ranges = writer.len();
    let bytes = writer.finish();
    let file = symblob::lidia::LidiaFile::parse(&bytes).expect("a built file parses");
    file.verify_checksums()
        .expect("a built file has correct checksums");
    file.validate().expect("a built file validates");
    assert_eq!(file.len(), ranges);
}

/// A `fmt::Write` sink that counts the bytes written and keeps nothing, so dumping a
/// large blob costs no memory.
#[derive(Default, Debug)]
pub struct CountingSink {
    /// Bytes written so far.
    pub bytes: usize,
    /// Lines (newlines) written so far.
    pub lines: usize,
}

impl core::fmt::Write for CountingSink {
    fn write_str(&mut self, s: &str) -> core::fmt::Result {
        self.bytes += s.len();
        self.lines += s.bytes().filter(|&b| b == b'\n').count();
        Ok(())
    }
}

/// Reads a little-endian u64 from up to the first 8 bytes of `bytes` (missing bytes
/// are zero): fuzz targets derive probe addresses from their input with it.
pub fn le_u64(bytes: &[u8]) -> u64 {
    let mut word = [0u8; 8];
    for (dst, src) in word.iter_mut().zip(bytes) {
        *dst = *src;
    }
    u64::from_le_bytes(word)
}

/// Probe addresses for the raw-byte targets: the last 32 bytes of the input read as
/// four u64 values, plus the boundaries that arithmetic gets wrong.
pub fn probes(data: &[u8]) -> Vec<u64> {
    let tail = &data[data.len().saturating_sub(32)..];
    let mut out: Vec<u64> = tail.chunks(8).map(le_u64).collect();
    out.extend([0, 1, u64::MAX, u64::MAX - 1, 1 << 63]);
    out
}

/// Name queries for the raw-byte targets: up to four NUL-separated pieces of the
/// input's first 256 bytes.
pub fn names(data: &[u8]) -> Vec<&[u8]> {
    let head = &data[..data.len().min(256)];
    head.split(|&b| b == 0).take(4).collect()
}

/// The alignment shift for a raw-byte target: 1 or 3, chosen by the input so both occur.
pub fn odd_offset(data: &[u8]) -> usize {
    if data.len().is_multiple_of(2) {
        1
    } else {
        3
    }
}
