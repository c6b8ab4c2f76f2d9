//! Unwind rules from `.eh_frame` and `.debug_frame` as Breakpad `STACK CFI` records.
//! (Placeholder until the translation lands.)

use crate::model::CfiRecord;

/// Unwind rules of the ELF file `bytes`.
pub fn from_elf(_bytes: &[u8], _input: &str) -> crate::Result<Vec<CfiRecord>> {
    Ok(Vec::new())
}

/// Writes `records` as `STACK CFI INIT` / `STACK CFI` lines.
pub fn write(out: &mut String, records: &[CfiRecord], base: u64) {
    use std::fmt::Write as _;
    for r in records {
        let _ = writeln!(
            out,
            "STACK CFI INIT {:x} {:x} {}",
            r.start - base,
            r.size,
            r.init
        );
        for row in &r.rows {
            let _ = writeln!(out, "STACK CFI {:x} {}", row.address - base, row.rules);
        }
    }
}
