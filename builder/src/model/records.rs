//! symblob's flat records, as symblib's rules and the symbfile format hold functions:
//! one record per address range of a function at one inline depth, with its own line
//! rows, and return pads (a return address's inline trace). The `extract` source fills
//! them by symblib's rules, the `retpads` source makes pads from them and the machine
//! code, and the symbfile writer writes them.

/// One line-table row: from `offset` bytes past the record's VA on, the line is `line`.
pub use symblob::symbfile::LineRow;

/// A range record (spec §2.2, §3.3): an address range of a function or of one inline
/// instance, with its line rows.
///
/// Producers emit the records of one function in pre-order: the depth-0 record, then its
/// inline descendants, each after its parent (return-pad generation and part splitting rely
/// on it).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct RangeRecord {
    /// Start address (ELF virtual address).
    pub va: u64,
    /// Bytes covered, `[va, va + length)`.
    pub length: u64,
    /// Function name, demangled as the producer decides.
    pub func: String,
    /// File of this record's own line rows (`None` when it has none).
    pub file: Option<String>,
    /// File of the call site in the parent (inline records).
    pub call_file: Option<String>,
    /// Line of the call site in the parent (`None` = 0 on the wire).
    pub call_line: Option<u32>,
    /// Inline depth: 0 for the function, `d` for a call inlined into depth `d − 1`.
    pub depth: u32,
    /// Line rows, sorted by offset (the writer rejects unsorted rows).
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

/// One return-pad entry (spec §2.4).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct PadEntry {
    /// Function at this inline level.
    pub func: String,
    /// Call-site file inside `func` (the pad's own file for the last entry).
    pub file: Option<String>,
    /// Call-site line (the pad's own line for the last entry); `None` = 0.
    pub line: Option<u32>,
}

/// A return-pad record: the inline trace of a return address, outermost first.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ReturnPadRecord {
    /// Return address minus one (what the profiler looks up).
    pub va: u64,
    /// Entries, outermost first.
    pub entries: Vec<PadEntry>,
}

impl From<&symblob::symbfile::Range<'_>> for RangeRecord {
    fn from(r: &symblob::symbfile::Range<'_>) -> Self {
        RangeRecord {
            va: r.va,
            length: r.length,
            func: r.func.to_owned(),
            file: r.file.map(str::to_owned),
            call_file: r.call_file.map(str::to_owned),
            call_line: r.call_line,
            depth: r.depth,
            lines: r.line_table.iter().collect(),
        }
    }
}

impl From<&symblob::symbfile::ReturnPad<'_, '_>> for ReturnPadRecord {
    fn from(p: &symblob::symbfile::ReturnPad<'_, '_>) -> Self {
        ReturnPadRecord {
            va: p.va,
            entries: p
                .entries()
                .map(|e| PadEntry {
                    func: e.func.to_owned(),
                    file: e.file.map(str::to_owned),
                    line: e.line,
                })
                .collect(),
        }
    }
}

/// Scratch slots for the reader's string-table index while a symbfile is decoded (tables larger than this are
/// still read, by scanning past the scratch).
pub(crate) const SCRATCH_SLOTS: usize = 1 << 20;
