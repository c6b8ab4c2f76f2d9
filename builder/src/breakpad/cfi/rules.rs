//! One FDE's unwind table as `STACK CFI` records: which rows are written, which rules in
//! each, and their postfix text (the rules are listed in the [module docs](super)).

use std::collections::HashMap;

use gimli::{
    BaseAddresses, CfaRule, FrameDescriptionEntry, Reader, ReaderOffset, Register, RegisterRule,
    UnwindContext, UnwindSection, UnwindTableRow,
};

use super::registers::Family;
use crate::model::{CfiRecord, CfiRow};

/// The records of `fde`: usually one; none when nothing is written for it; more when a
/// later (zero-length) row starts at the FDE's first address too, which dump_syms writes
/// as another `INIT` line. A gimli error is one dump_syms stops the section at.
pub(super) fn fde_records<R, S>(
    section: &S,
    bases: &BaseAddresses,
    ctx: &mut UnwindContext<R::Offset>,
    fde: &FrameDescriptionEntry<R>,
    family: Family,
    load_address: u64,
) -> gimli::Result<Vec<CfiRecord>>
where
    R: Reader,
    S: UnwindSection<R>,
{
    // An initial address of all ones cannot be a function (gimli would overflow on its
    // end): skipped, like dump_syms does, instead of failing the section.
    if fde.initial_address() == u64::MAX {
        return Ok(Vec::new());
    }
    let ra = fde.cie().return_address_register();
    let mut table = fde.rows(section, bases, ctx)?;
    // All rows first: the INIT record's size runs to the last row's end.
    let mut rows = Vec::new();
    loop {
        match table.next_row() {
            Ok(None) => break,
            Ok(Some(row)) => rows.push(row.clone()),
            // The row is kept without the rule gimli could not apply, as dump_syms does
            // (each error consumes the instruction, so this ends).
            Err(gimli::Error::UnknownCallFrameInstruction(_))
            | Err(gimli::Error::TooManyRegisterRules) => continue,
            Err(e) => return Err(e),
        }
    }
    let (Some(first), Some(last)) = (rows.first(), rows.last()) else {
        return Ok(Vec::new());
    };
    let start = first.start_address();
    // Wrapping like dump_syms's (release-built) subtraction when a row runs backwards.
    let size = last.end_address().wrapping_sub(start);
    // Below the module's first segment: a stale entry (often address 0 of a discarded
    // function); the rest of the section still counts.
    if start < load_address {
        return Ok(Vec::new());
    }
    Ok(Translator::new(family, ra).records(&rows, start, size))
}

/// The state of one FDE's walk: the rules written so far, to write only changes.
struct Translator<T: ReaderOffset> {
    family: Family,
    ra: Register,
    cfa: Option<CfaRule<T>>,
    registers: HashMap<Register, RegisterRule<T>>,
}

impl<T: ReaderOffset> Translator<T> {
    fn new(family: Family, ra: Register) -> Self {
        Translator {
            family,
            ra,
            cfa: None,
            registers: HashMap::new(),
        }
    }

    fn records<S>(mut self, rows: &[UnwindTableRow<T, S>], start: u64, size: u64) -> Vec<CfiRecord>
    where
        S: gimli::UnwindContextStorage<T>,
    {
        let mut records: Vec<CfiRecord> = Vec::new();
        for row in rows {
            let init = row.start_address() == start;
            let rules = self.row_rules(row, init);
            if init {
                // An INIT row whose rules are all unwritable leaves the INIT line out but
                // not the rows after it: an empty `init` stands for that.
                records.push(CfiRecord {
                    start,
                    size,
                    init: rules.unwrap_or_default(),
                    rows: Vec::new(),
                });
            } else if let (Some(rules), Some(record)) = (rules, records.last_mut()) {
                record.rows.push(CfiRow {
                    address: row.start_address(),
                    rules,
                });
            }
        }
        records.retain(|r| !r.init.is_empty() || !r.rows.is_empty());
        records
    }

    /// The rules of `row` that changed since the previous row, or `None` when none of
    /// them can be written.
    fn row_rules<S>(&mut self, row: &UnwindTableRow<T, S>, init: bool) -> Option<String>
    where
        S: gimli::UnwindContextStorage<T>,
    {
        let mut parts: Vec<String> = Vec::new();
        if self.cfa.as_ref() != Some(row.cfa()) {
            self.cfa = Some(row.cfa().clone());
            parts.extend(cfa_rule(self.family, row.cfa()));
        }
        let mut ra_changed = false;
        for (register, rule) in row.registers() {
            if self.registers.get(register) == Some(rule) {
                continue;
            }
            self.registers.insert(*register, rule.clone());
            // A changed return-address rule counts even when it cannot be written: no
            // default `.ra` then.
            ra_changed |= *register == self.ra;
            parts.extend(register_rule(self.family, *register, rule, self.ra));
        }
        if parts.is_empty() {
            return None;
        }
        if init && !ra_changed && self.family.return_address_in_register() {
            if let Some(name) = self.family.name(self.ra.0) {
                parts.push(format!(".ra: {name}"));
            }
        }
        Some(parts.join(" "))
    }
}

/// `.cfa: <register> <offset> +`, or `None` for an expression or an unnamed register.
pub(super) fn cfa_rule<T: ReaderOffset>(family: Family, rule: &CfaRule<T>) -> Option<String> {
    match rule {
        CfaRule::RegisterAndOffset { register, offset } => {
            let name = family.name(register.0)?;
            Some(format!(".cfa: {name} {offset} +"))
        }
        CfaRule::Expression(_) => None,
    }
}

/// `<name>: <rule>` for `register` (`.ra` when it is the CIE's return-address column), or
/// `None` when the rule or a register it names has no Breakpad form.
pub(super) fn register_rule<T: ReaderOffset>(
    family: Family,
    register: Register,
    rule: &RegisterRule<T>,
    ra: Register,
) -> Option<String> {
    let value = match rule {
        // Unchanged from the callee: the register itself.
        RegisterRule::SameValue => family.name(register.0)?.to_owned(),
        // Saved at CFA + offset: load it.
        RegisterRule::Offset(offset) => format!(".cfa {offset} + ^"),
        // The value is CFA + offset itself.
        RegisterRule::ValOffset(offset) => format!(".cfa {offset} +"),
        // Saved in another register.
        RegisterRule::Register(other) => family.name(other.0)?.to_owned(),
        // Undefined, DWARF expressions, architectural and constant rules: Breakpad's
        // postfix has no form for them in dump_syms.
        _ => return None,
    };
    let name = if register == ra {
        ".ra"
    } else {
        family.name(register.0)?
    };
    Some(format!("{name}: {value}"))
}

#[cfg(test)]
mod tests {
    use super::*;
    use gimli::UnwindExpression;

    type Rule = RegisterRule<usize>;

    // DWARF numbers from the psABIs: x86-64 rsp 7, rbp 6, rbx 3, return address 16;
    // AArch64 x29 29, x30 30, sp 31.
    const RSP: Register = Register(7);
    const RBP: Register = Register(6);
    const RBX: Register = Register(3);
    const RA64: Register = Register(16);

    #[test]
    fn cfa_is_register_plus_offset() {
        let at_entry = CfaRule::<usize>::RegisterAndOffset {
            register: RSP,
            offset: 8,
        };
        assert_eq!(
            cfa_rule(Family::X86_64, &at_entry).as_deref(),
            Some(".cfa: $rsp 8 +")
        );
        let frame = CfaRule::<usize>::RegisterAndOffset {
            register: Register(29),
            offset: 16,
        };
        assert_eq!(
            cfa_rule(Family::Arm64, &frame).as_deref(),
            Some(".cfa: x29 16 +")
        );
        // A negative offset stays a signed decimal before `+`.
        let below = CfaRule::<usize>::RegisterAndOffset {
            register: RBP,
            offset: -8,
        };
        assert_eq!(
            cfa_rule(Family::X86_64, &below).as_deref(),
            Some(".cfa: $rbp -8 +")
        );
        let expr = CfaRule::Expression(UnwindExpression {
            offset: 0usize,
            length: 3,
        });
        assert_eq!(cfa_rule(Family::X86_64, &expr), None);
        // Register 200 has no x86-64 name.
        let unnamed = CfaRule::<usize>::RegisterAndOffset {
            register: Register(200),
            offset: 8,
        };
        assert_eq!(cfa_rule(Family::X86_64, &unnamed), None);
    }

    #[test]
    fn register_rules() {
        let text = |family, reg, rule: Rule, ra| register_rule(family, reg, &rule, ra);
        // DW_CFA_offset: saved at CFA + n (n = factored offset × data alignment, -8).
        assert_eq!(
            text(Family::X86_64, RA64, Rule::Offset(-8), RA64).as_deref(),
            Some(".ra: .cfa -8 + ^")
        );
        assert_eq!(
            text(Family::X86_64, RBP, Rule::Offset(-16), RA64).as_deref(),
            Some("$rbp: .cfa -16 + ^")
        );
        assert_eq!(
            text(Family::X86_64, RBX, Rule::ValOffset(24), RA64).as_deref(),
            Some("$rbx: .cfa 24 +")
        );
        assert_eq!(
            text(Family::X86_64, RBX, Rule::SameValue, RA64).as_deref(),
            Some("$rbx: $rbx")
        );
        assert_eq!(
            text(
                Family::Arm64,
                Register(30),
                Rule::Register(Register(19)),
                Register(30)
            )
            .as_deref(),
            Some(".ra: x19")
        );
        assert_eq!(
            text(Family::Arm64, Register(29), Rule::Offset(-16), Register(30)).as_deref(),
            Some("x29: .cfa -16 + ^")
        );
        assert_eq!(text(Family::X86_64, RBX, Rule::Undefined, RA64), None);
        let expr = Rule::Expression(UnwindExpression {
            offset: 0,
            length: 2,
        });
        assert_eq!(text(Family::X86_64, RBX, expr, RA64), None);
        assert_eq!(text(Family::X86_64, RBX, Rule::Constant(1), RA64), None);
        // The return-address column is `.ra` even where the family names no register.
        assert_eq!(
            text(Family::Unknown, Register(1), Rule::Offset(-8), Register(1)).as_deref(),
            Some(".ra: .cfa -8 + ^")
        );
        assert_eq!(
            text(Family::Unknown, Register(2), Rule::Offset(-8), Register(1)),
            None
        );
    }
}
