//! CRC32C of the four sections.

use zerocopy::IntoBytes;

use super::tables::{LineSlice, RangeTable, VaTable};
use super::{error, section, LidiaFile};
use crate::{Error, ErrorKind};

/// The CRC-32C (Castagnoli) polynomial, bit-reversed.
const POLYNOMIAL: u32 = 0x82F6_3B78;

/// Slice-by-16 tables, built at compile time (16 KiB): `TABLES[0]` is the byte-wise
/// table, and `TABLES[k][b]` advances the CRC of byte `b` by `k` further zero bytes.
///
/// The checksum is computed here rather than with the `crc` crate, whose 16-byte loop
/// indexes with sums the optimiser cannot prove in bounds: that left panic calls in
/// `verify_checksums` (found by the freestanding no-panic link check).
static TABLES: [[u32; 256]; 16] = tables();

// Evaluated at compile time: an out-of-bounds index or overflow would fail the build, not
// panic at run time.
#[allow(
    clippy::indexing_slicing,
    clippy::arithmetic_side_effects,
    clippy::cast_possible_truncation
)]
const fn tables() -> [[u32; 256]; 16] {
    let mut tables = [[0u32; 256]; 16];
    let mut byte = 0;
    while byte < 256 {
        let mut crc = byte as u32;
        let mut bit = 0;
        while bit < 8 {
            crc = if crc & 1 != 0 {
                (crc >> 1) ^ POLYNOMIAL
            } else {
                crc >> 1
            };
            bit += 1;
        }
        tables[0][byte] = crc;
        byte += 1;
    }
    let mut byte = 0;
    while byte < 256 {
        let mut k = 1;
        while k < 16 {
            let previous = tables[k - 1][byte];
            tables[k][byte] = (previous >> 8) ^ tables[0][(previous & 0xFF) as usize];
            k += 1;
        }
        byte += 1;
    }
    tables
}

/// `TABLES[K][byte]`. `K` is checked against 16 at compile time and a `u8` is below 256,
/// so this indexing cannot fail and compiles to a plain load.
#[inline(always)]
#[allow(clippy::indexing_slicing)]
fn table<const K: usize>(byte: u8) -> u32 {
    const { assert!(K < 16) };
    TABLES[K][usize::from(byte)]
}

/// CRC-32C (Castagnoli polynomial, reflected, initial value and final XOR `0xFFFFFFFF`) of
/// `bytes`: the checksum Lidia stores for each section. `crc32c(b"") == 0`,
/// `crc32c(b"123456789") == 0xE3069283`.
pub fn crc32c(bytes: &[u8]) -> u32 {
    let mut crc = !0u32;
    let mut blocks = bytes.chunks_exact(16);
    for block in &mut blocks {
        let Ok(&[b0, b1, b2, b3, b4, b5, b6, b7, b8, b9, b10, b11, b12, b13, b14, b15]) =
            <&[u8; 16]>::try_from(block)
        else {
            continue;
        };
        let [c0, c1, c2, c3] = crc.to_le_bytes();
        // The terms that do not depend on the running CRC come first, so they are
        // combined while the previous block's CRC is still being computed; only the last
        // four lookups wait for it.
        crc = table::<0>(b15)
            ^ table::<1>(b14)
            ^ table::<2>(b13)
            ^ table::<3>(b12)
            ^ table::<4>(b11)
            ^ table::<5>(b10)
            ^ table::<6>(b9)
            ^ table::<7>(b8)
            ^ table::<8>(b7)
            ^ table::<9>(b6)
            ^ table::<10>(b5)
            ^ table::<11>(b4)
            ^ table::<12>(b3 ^ c3)
            ^ table::<13>(b2 ^ c2)
            ^ table::<14>(b1 ^ c1)
            ^ table::<15>(b0 ^ c0);
    }
    for &byte in blocks.remainder() {
        let [low, ..] = crc.to_le_bytes();
        crc = (crc >> 8) ^ table::<0>(low ^ byte);
    }
    !crc
}

impl<'a> LidiaFile<'a> {
    /// Checks the CRC32C of each section against the header, in the Go reader's order
    /// (VA, strings, range, line table). The first mismatch is returned as
    /// [`ErrorKind::ChecksumMismatch`] whose [`Error::section`] names the section (see
    /// [`section`]) and whose offset is the section's start.
    pub fn verify_checksums(&self) -> Result<(), Error> {
        let h = self.header;
        let checks = [
            (section::VA, h.va.offset, h.va.crc, self.va_bytes()),
            (
                section::STRINGS,
                h.strings.offset,
                h.strings.crc,
                self.strings,
            ),
            (
                section::RANGES,
                h.ranges.offset,
                h.ranges.crc,
                self.range_bytes(),
            ),
            (
                section::LINES,
                h.lines.offset,
                h.lines.crc,
                self.line_bytes(),
            ),
        ];
        for (name, offset, stored, bytes) in checks {
            let stored = stored.get();
            let computed = crc32c(bytes);
            if stored != computed {
                return Err(error(
                    name,
                    offset.get(),
                    ErrorKind::ChecksumMismatch { stored, computed },
                ));
            }
        }
        Ok(())
    }

    /// The bytes of the VA table.
    pub fn va_bytes(&self) -> &'a [u8] {
        match self.vas {
            VaTable::Narrow(v) => v.as_bytes(),
            VaTable::Wide(v) => v.as_bytes(),
        }
    }

    /// The bytes of the range table.
    pub fn range_bytes(&self) -> &'a [u8] {
        match self.ranges {
            RangeTable::Narrow(v) => v.as_bytes(),
            RangeTable::Wide(v) => v.as_bytes(),
        }
    }

    /// The bytes of the line table.
    pub fn line_bytes(&self) -> &'a [u8] {
        match self.lines {
            LineSlice::Narrow(v) => v.as_bytes(),
            LineSlice::Wide(v) => v.as_bytes(),
        }
    }
}
