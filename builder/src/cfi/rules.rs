//! FDEs' unwind tables as `STACK CFI` records: which rows are written, which rules in
//! each, and their postfix text (the rules are listed in the [module docs](super)).
//!
//! The rows are translated as gimli yields them, without copying them: a row of gimli's
//! default storage has room for every register rule it may get, and the translation
//! needs only each rule's last written form. The buffers of one FDE's walk are kept for
//! the next: a line is written once into a reused `String` and copied at its exact size.

use gimli::{
    BaseAddresses, CfaRule, FrameDescriptionEntry, Reader, ReaderOffset, Register, RegisterRule,
    UnwindContext, UnwindSection, UnwindTableRow,
};

use super::registers::Family;
use crate::model::{CfiRecord, CfiRow};

/// Turns the FDEs of one section, one after another, into records.
pub(super) struct Translator<T: ReaderOffset> {
    /// The first `PT_LOAD` segment's `p_vaddr`.
    load_address: u64,
    ctx: UnwindContext<T>,
    lines: Lines<T>,
}

impl<T: ReaderOffset> Translator<T> {
    /// A translator for the FDEs of a `family` ELF file whose first segment starts at
    /// `load_address`.
    pub(super) fn new(family: Family, load_address: u64) -> Self {
        Translator {
            load_address,
            ctx: UnwindContext::new(),
            lines: Lines::new(family),
        }
    }

    /// Appends the records of `fde` to `out`: usually one; none when nothing is written
    /// for it; more when a later (zero-length) row starts at the FDE's first address too,
    /// which dump_syms writes as another `INIT` line. A gimli error is one dump_syms stops
    /// the section at (`out` may then hold part of the FDE's records).
    pub(super) fn fde_records<R, S>(
        &mut self,
        section: &S,
        bases: &BaseAddresses,
        fde: &FrameDescriptionEntry<R>,
        out: &mut Vec<CfiRecord<'static>>,
    ) -> gimli::Result<()>
    where
        R: Reader<Offset = T>,
        S: UnwindSection<R>,
    {
        // An initial address of all ones cannot be a function (gimli would overflow on
        // its end): skipped, like dump_syms does, instead of failing the section.
        if fde.initial_address() == u64::MAX {
            return Ok(());
        }
        let lines = &mut self.lines;
        lines.begin(fde.cie().return_address_register());
        let mut table = fde.rows(section, bases, &mut self.ctx)?;
        // The first row's start and the last row's end.
        let mut span: Option<(u64, u64)> = None;
        loop {
            let row = match table.next_row() {
                Ok(None) => break,
                Ok(Some(row)) => row,
                // The row is kept without the rule gimli could not apply, as dump_syms
                // does (each error consumes the instruction, so this ends).
                Err(gimli::Error::UnknownCallFrameInstruction(_))
                | Err(gimli::Error::TooManyRegisterRules) => continue,
                Err(e) => return Err(e),
            };
            let start = span.map_or(row.start_address(), |(start, _)| start);
            span = Some((start, row.end_address()));
            // Below the module's first segment: a stale entry (often address 0 of a
            // discarded function), given no record; its rows are still walked, as an
            // error in them still ends the section.
            if start >= self.load_address {
                lines.row(row, start);
            }
        }
        if let Some((start, end)) = span.filter(|&(start, _)| start >= self.load_address) {
            // Wrapping like dump_syms's (release-built) subtraction when a row runs
            // backwards.
            lines.finish(start, end.wrapping_sub(start), out);
        }
        Ok(())
    }
}

/// The state of one FDE's walk: the rules written so far, to write only changes, and the
/// lines made so far.
struct Lines<T: ReaderOffset> {
    family: Family,
    ra: Register,
    cfa: Option<CfaRule<T>>,
    /// The last rule seen for each register that had one, in any earlier row: a rule
    /// that left the table and comes back unchanged is not written again. A handful of
    /// registers per FDE: a list beats a hash map.
    registers: Vec<(Register, RegisterRule<T>)>,
    /// The line being written.
    line: String,
    /// Each INIT line (empty when it has nothing to print) with how many of `rows`
    /// follow it.
    inits: Vec<(String, usize)>,
    rows: Vec<CfiRow<'static>>,
}

impl<T: ReaderOffset> Lines<T> {
    fn new(family: Family) -> Self {
        Lines {
            family,
            ra: Register(0),
            cfa: None,
            registers: Vec::new(),
            line: String::new(),
            inits: Vec::new(),
            rows: Vec::new(),
        }
    }

    /// Starts the walk of an FDE whose return address is in column `ra`.
    fn begin(&mut self, ra: Register) {
        self.ra = ra;
        self.cfa = None;
        self.registers.clear();
        self.inits.clear();
        self.rows.clear();
    }

    /// Adds the line of `row`, the next row of an FDE whose first row starts at `start`.
    fn row<S>(&mut self, row: &UnwindTableRow<T, S>, start: u64)
    where
        S: gimli::UnwindContextStorage<T>,
    {
        let init = row.start_address() == start;
        let written = self.row_rules(row, init);
        if init {
            // An INIT row whose rules are all unwritable leaves the INIT line out but not
            // the rows after it: an empty `init` stands for that.
            let text = if written {
                self.line.as_str().into()
            } else {
                String::new()
            };
            self.inits.push((text, 0));
        } else if let (true, Some((_, count))) = (written, self.inits.last_mut()) {
            *count += 1;
            self.rows.push(CfiRow {
                address: row.start_address(),
                rules: self.line.clone().into(),
            });
        }
    }

    /// Appends the records of the lines added to `out`, each covering `size` bytes from
    /// `start`.
    fn finish(&mut self, start: u64, size: u64, out: &mut Vec<CfiRecord<'static>>) {
        let mut rows = self.rows.drain(..);
        for (init, count) in self.inits.drain(..) {
            // Collected at their exact size: the buffer keeps its room for the next FDE.
            let rows: Vec<CfiRow> = rows.by_ref().take(count).collect();
            if !init.is_empty() || !rows.is_empty() {
                out.push(CfiRecord {
                    start,
                    size,
                    init: init.into(),
                    rows,
                });
            }
        }
    }

    /// Writes to `self.line` the rules of `row` that changed since the previous row;
    /// false when none of them can be written.
    fn row_rules<S>(&mut self, row: &UnwindTableRow<T, S>, init: bool) -> bool
    where
        S: gimli::UnwindContextStorage<T>,
    {
        let line = &mut self.line;
        line.clear();
        if self.cfa.as_ref() != Some(row.cfa()) {
            self.cfa = Some(row.cfa().clone());
            cfa_rule(line, self.family, row.cfa());
        }
        let mut ra_changed = false;
        for (i, (register, rule)) in row.registers().enumerate() {
            match last_rule(&mut self.registers, i, *register) {
                Some(last) if last == rule => continue,
                Some(last) => *last = rule.clone(),
                None => self.registers.push((*register, rule.clone())),
            }
            // A changed return-address rule counts even when it cannot be written: no
            // default `.ra` then.
            ra_changed |= *register == self.ra;
            register_rule(line, self.family, *register, rule, self.ra);
        }
        if line.is_empty() {
            return false;
        }
        if init && !ra_changed && self.family.return_address_in_register() {
            if let Some(name) = self.family.name(self.ra.0) {
                line.push_str(" .ra: ");
                line.push_str(name);
            }
        }
        true
    }
}

/// The rule last seen for `register`, the `i`th register of the row, in `seen`. Looked for
/// at `i` first: gimli keeps a row's registers in place from row to row and appends new
/// ones, as `seen` does, so they usually line up.
fn last_rule<T: ReaderOffset>(
    seen: &mut [(Register, RegisterRule<T>)],
    i: usize,
    register: Register,
) -> Option<&mut RegisterRule<T>> {
    let at = match seen.get(i) {
        Some((r, _)) if *r == register => i,
        _ => seen.iter().position(|(r, _)| *r == register)?,
    };
    seen.get_mut(at).map(|(_, rule)| rule)
}

/// Appends `.cfa: <register> <offset> +` to `line`; nothing for an expression or an
/// unnamed register.
fn cfa_rule<T: ReaderOffset>(line: &mut String, family: Family, rule: &CfaRule<T>) {
    let CfaRule::RegisterAndOffset { register, offset } = rule else {
        return;
    };
    let Some(name) = family.name(register.0) else {
        return;
    };
    separate(line);
    line.push_str(".cfa: ");
    line.push_str(name);
    line.push(' ');
    push_offset(line, *offset);
    line.push_str(" +");
}

/// The right-hand side of a register rule.
enum Value {
    /// Another register (or the same one).
    Register(&'static str),
    /// CFA + offset, loaded from (`" + ^"`) or as it is (`" +"`).
    Cfa(i64, &'static str),
}

/// Appends `<name>: <rule>` for `register` (`.ra` when it is the CIE's return-address
/// column) to `line`; nothing when the rule or a register it names has no Breakpad form.
fn register_rule<T: ReaderOffset>(
    line: &mut String,
    family: Family,
    register: Register,
    rule: &RegisterRule<T>,
    ra: Register,
) {
    let value = match rule {
        // Unchanged from the callee: the register itself.
        RegisterRule::SameValue => family.name(register.0).map(Value::Register),
        // Saved at CFA + offset: load it.
        RegisterRule::Offset(offset) => Some(Value::Cfa(*offset, " + ^")),
        // The value is CFA + offset itself.
        RegisterRule::ValOffset(offset) => Some(Value::Cfa(*offset, " +")),
        // Saved in another register.
        RegisterRule::Register(other) => family.name(other.0).map(Value::Register),
        // Undefined, DWARF expressions, architectural and constant rules: Breakpad's
        // postfix has no form for them in dump_syms.
        _ => None,
    };
    let name = if register == ra {
        Some(".ra")
    } else {
        family.name(register.0)
    };
    let (Some(name), Some(value)) = (name, value) else {
        return;
    };
    separate(line);
    line.push_str(name);
    line.push_str(": ");
    match value {
        Value::Register(other) => line.push_str(other),
        Value::Cfa(offset, op) => {
            line.push_str(".cfa ");
            push_offset(line, offset);
            line.push_str(op);
        }
    }
}

/// Starts the next rule of `line`: a space after the ones before it.
fn separate(line: &mut String) {
    if !line.is_empty() {
        line.push(' ');
    }
}

/// Appends `offset` in signed decimal (without `fmt`'s machinery: a kernel has millions).
fn push_offset(line: &mut String, offset: i64) {
    line.push_str(itoa::Buffer::new().format(offset));
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

    /// What `cfa_rule` appends to an empty line; `None` for nothing.
    fn cfa(family: Family, rule: &CfaRule<usize>) -> Option<String> {
        let mut line = String::new();
        cfa_rule(&mut line, family, rule);
        (!line.is_empty()).then_some(line)
    }

    #[test]
    fn cfa_is_register_plus_offset() {
        let at_entry = CfaRule::<usize>::RegisterAndOffset {
            register: RSP,
            offset: 8,
        };
        assert_eq!(
            cfa(Family::X86_64, &at_entry).as_deref(),
            Some(".cfa: $rsp 8 +")
        );
        let frame = CfaRule::<usize>::RegisterAndOffset {
            register: Register(29),
            offset: 16,
        };
        assert_eq!(
            cfa(Family::Arm64, &frame).as_deref(),
            Some(".cfa: x29 16 +")
        );
        // A negative offset stays a signed decimal before `+`.
        let below = CfaRule::<usize>::RegisterAndOffset {
            register: RBP,
            offset: -8,
        };
        assert_eq!(
            cfa(Family::X86_64, &below).as_deref(),
            Some(".cfa: $rbp -8 +")
        );
        let expr = CfaRule::Expression(UnwindExpression {
            offset: 0usize,
            length: 3,
        });
        assert_eq!(cfa(Family::X86_64, &expr), None);
        // Register 200 has no x86-64 name.
        let unnamed = CfaRule::<usize>::RegisterAndOffset {
            register: Register(200),
            offset: 8,
        };
        assert_eq!(cfa(Family::X86_64, &unnamed), None);
    }

    #[test]
    fn register_rules() {
        let text = |family, reg, rule: Rule, ra| {
            let mut line = String::new();
            register_rule(&mut line, family, reg, &rule, ra);
            (!line.is_empty()).then_some(line)
        };
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

    #[test]
    fn rules_after_the_first_are_separated_by_one_space() {
        let mut line = String::new();
        let rsp8 = CfaRule::<usize>::RegisterAndOffset {
            register: RSP,
            offset: 8,
        };
        cfa_rule(&mut line, Family::X86_64, &rsp8);
        // Nothing written: no stray space either.
        register_rule(&mut line, Family::X86_64, RBX, &Rule::Undefined, RA64);
        register_rule(&mut line, Family::X86_64, RA64, &Rule::Offset(-8), RA64);
        register_rule(&mut line, Family::X86_64, RBX, &Rule::SameValue, RA64);
        assert_eq!(line, ".cfa: $rsp 8 + .ra: .cfa -8 + ^ $rbx: $rbx");
    }
}
