//! `STACK CFI` records: the model's unwind rows as Breakpad text.

use super::fields::push_hex;
use crate::model::CfiRecord;

/// Writes `records` as `STACK CFI INIT` / `STACK CFI` lines (each ending in "\n"),
/// addresses minus `base`, lower-case hex like dump_syms.
///
/// A record with an empty `init` has its rows written without an INIT line (dump_syms's
/// output when the first row's rules cannot be expressed).
pub fn write(out: &mut String, records: &[CfiRecord], base: u64) {
    for record in records {
        if !record.init.is_empty() {
            out.push_str("STACK CFI INIT ");
            push_hex(out, record.start.wrapping_sub(base));
            out.push(' ');
            push_hex(out, record.size);
            out.push(' ');
            out.push_str(&record.init);
            out.push('\n');
        }
        for row in &record.rows {
            out.push_str("STACK CFI ");
            push_hex(out, row.address.wrapping_sub(base));
            out.push(' ');
            out.push_str(&row.rules);
            out.push('\n');
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::CfiRow;

    fn row(address: u64, rules: &'static str) -> CfiRow<'static> {
        CfiRow {
            address,
            rules: rules.into(),
        }
    }

    #[test]
    fn write_subtracts_the_base_in_lower_case_hex() {
        let records = [CfiRecord {
            start: 0x40_1abc,
            size: 0x2f,
            init: ".cfa: $rsp 8 + .ra: .cfa -8 + ^".into(),
            rows: vec![row(0x40_1abd, ".cfa: $rsp 16 +")],
        }];
        let mut text = String::new();
        super::write(&mut text, &records, 0x40_0000);
        assert_eq!(
            text,
            "STACK CFI INIT 1abc 2f .cfa: $rsp 8 + .ra: .cfa -8 + ^\nSTACK CFI 1abd .cfa: $rsp 16 +\n"
        );
    }

    /// A record whose first row's rules could not be written (an empty `init`, as the
    /// source gives it) has its rows without an INIT line, as dump_syms writes them.
    #[test]
    fn a_record_without_init_writes_its_rows_alone() {
        let records = [CfiRecord {
            start: 0x1000,
            size: 0x20,
            init: "".into(),
            rows: vec![row(0x1002, ".cfa: $rsp 16 +")],
        }];
        let mut text = String::new();
        write(&mut text, &records, 0x1000);
        assert_eq!(text, "STACK CFI 2 .cfa: $rsp 16 +\n");
    }
}
