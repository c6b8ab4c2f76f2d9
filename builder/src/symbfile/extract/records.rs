//! The two record kinds of a symbfile as plain owned data (spec §2.2, §2.4, §3).

/// One row of a range's line table: the line of the code from `offset` bytes after the
/// range's VA up to the next row (or the end of the range).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct LineRow {
    /// Byte offset from the range's VA (absolute, not delta-coded).
    pub offset: u32,
    /// Source line.
    pub line: u32,
}

/// A range record: one address range of a function or of one inline instance.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct RangeRecord {
    /// First address.
    pub va: u64,
    /// Bytes covered.
    pub length: u64,
    /// Function name, demangled (spec §5.5).
    pub func: String,
    /// File of the record's own line rows; `None` when it has none.
    pub file: Option<String>,
    /// File of the call in the caller (inline records).
    pub call_file: Option<String>,
    /// Line of the call in the caller (inline records); never 0.
    pub call_line: Option<u32>,
    /// Inline depth: 0 for the function itself.
    pub depth: u32,
    /// Line rows, sorted by offset.
    pub lines: Vec<LineRow>,
}

impl RangeRecord {
    /// One past the last address.
    pub fn end(&self) -> u64 {
        self.va.saturating_add(self.length)
    }

    /// Whether `va` lies in the record.
    pub fn contains(&self, va: u64) -> bool {
        va >= self.va && va < self.end()
    }

    /// The line of `va` from the line table: the last row whose offset is at most
    /// `va - self.va`; `None` before the first row or without rows.
    pub fn line_for(&self, va: u64) -> Option<u32> {
        let offset = va.checked_sub(self.va)?;
        self.lines
            .iter()
            .take_while(|row| u64::from(row.offset) <= offset)
            .last()
            .map(|row| row.line)
    }
}

/// One inline level of a return pad.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct ReturnPadEntry {
    /// Function at this level.
    pub func: String,
    /// For all levels but the last, the file of the call into the next level; for the last,
    /// the file of the return-pad address.
    pub file: Option<String>,
    /// The matching line (`None` when unknown).
    pub line: Option<u32>,
}

/// A return-pad record: the inline trace at the address after a call, minus one.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct ReturnPadRecord {
    /// Address of the instruction after the call, minus one.
    pub va: u64,
    /// The inline levels, outermost first.
    pub entries: Vec<ReturnPadEntry>,
}
