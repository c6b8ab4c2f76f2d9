//! CRC32C of the four sections.

use crc::{Crc, Table, CRC_32_ISCSI};
use zerocopy::IntoBytes;

use super::tables::{LineSlice, RangeTable, VaTable};
use super::{error, section, LidiaFile};
use crate::{Error, ErrorKind};

/// CRC-32C (Castagnoli), table-driven, 16 bytes per step (the fastest of the `crc`
/// crate's software modes here; see the `lidia` benchmark). 16 KiB of tables, built at
/// compile time.
static CASTAGNOLI: Crc<u32, Table<16>> = Crc::<u32, Table<16>>::new(&CRC_32_ISCSI);

/// CRC-32C (Castagnoli polynomial, reflected, initial value and final XOR `0xFFFFFFFF`) of
/// `bytes`: the checksum Lidia stores for each section. `crc32c(b"") == 0`,
/// `crc32c(b"123456789") == 0xE3069283`.
pub fn crc32c(bytes: &[u8]) -> u32 {
    CASTAGNOLI.checksum(bytes)
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
