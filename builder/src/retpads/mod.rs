//! Return pads from range records and the executable's code (spec §6 of symbfile): a
//! source that reads the machine code (x86-64 through iced-x86, AArch64 by its fixed
//! encoding) and gives the model's [`ReturnPadRecord`]s.
//!
//! Records are grouped by function: a group starts at each depth-0 record, except that a
//! depth-0 record continuing the previous piece of the same function (a split at a change
//! of source file, spec §5.4) stays in its group. Every depth-0 record of a group is
//! disassembled; each call gets the inline chain of the group's records containing the
//! call instruction, and a pad at the address after the call minus one.

mod decode;

use std::path::Path;

use object::{Object, ObjectSegment};

pub use self::decode::{calls, Arch, Call};
use crate::model::{PadEntry, RangeRecord, ReturnPadRecord};
use crate::{Error, ErrorKind, Location, Result};

/// The return pads of the ELF file at `path` for its range records `ranges` (in the order
/// extraction gives them: each depth-0 record followed by its inline records).
pub fn return_pads(path: &Path, ranges: &[RangeRecord]) -> Result<Vec<ReturnPadRecord>> {
    let bytes = crate::input::open(path)?;
    return_pads_from_bytes(&bytes, &path.display().to_string(), ranges)
}

/// As [`return_pads`], for an ELF image in memory; `name` names it in errors.
pub fn return_pads_from_bytes(
    elf: &[u8],
    name: &str,
    ranges: &[RangeRecord],
) -> Result<Vec<ReturnPadRecord>> {
    let maker = PadMaker::new(elf, name)?;
    let mut out = Vec::new();
    for group in groups(ranges) {
        group_pads(maker.arch, &maker.memory, group, &mut |p| out.push(p));
    }
    Ok(out)
}

/// Return pads made while the range records stream past: each function group is
/// disassembled as soon as the next group starts, so memory holds one group. The pads
/// come in the order [`return_pads`] gives them.
pub struct PadMaker<'a> {
    arch: Arch,
    memory: Memory<'a>,
    group: Vec<RangeRecord>,
}

impl<'a> PadMaker<'a> {
    /// A maker for the ELF image `elf` (`name` names it in errors); fails for an
    /// architecture other than x86-64 and little-endian aarch64.
    pub fn new(elf: &'a [u8], name: &str) -> Result<Self> {
        let obj = object::File::parse(elf).map_err(|e| {
            Error::malformed(name, Location::Whole, "not an ELF file").with_source(e)
        })?;
        let arch = match obj.architecture() {
            object::Architecture::X86_64 => Arch::X86_64,
            object::Architecture::Aarch64 if obj.is_little_endian() => Arch::Aarch64,
            other => {
                return Err(Error::new(
                    ErrorKind::Unsupported,
                    name,
                    Location::Whole,
                    format!("return pads are made for x86-64 and aarch64 only, not {other:?}"),
                ))
            }
        };
        Ok(PadMaker {
            arch,
            memory: Memory::new(&obj),
            group: Vec::new(),
        })
    }

    /// Takes the next range record (in extraction order); hands the pads of a group it
    /// completes to `out`.
    pub fn push(&mut self, record: RangeRecord, out: &mut dyn FnMut(ReturnPadRecord)) {
        let last_top = self.group.iter().rev().find(|r| r.depth == 0);
        if record.depth == 0 && !self.group.is_empty() && !continues(last_top, &record) {
            group_pads(self.arch, &self.memory, &self.group, out);
            self.group.clear();
        }
        self.group.push(record);
    }

    /// Hands the pads of the last group to `out`.
    pub fn finish(self, out: &mut dyn FnMut(ReturnPadRecord)) {
        group_pads(self.arch, &self.memory, &self.group, out);
    }
}

/// Whether the depth-0 record `r` continues the function of `last_top` (a piece split at a
/// change of source file).
fn continues(last_top: Option<&RangeRecord>, r: &RangeRecord) -> bool {
    last_top.is_some_and(|p| p.func == r.func && p.end() == r.va)
}

/// The file bytes of the `PT_LOAD` segments, by address.
struct Memory<'a> {
    segments: Vec<(u64, &'a [u8])>,
}

impl<'a> Memory<'a> {
    fn new(obj: &object::File<'a>) -> Self {
        let mut segments: Vec<(u64, &[u8])> = obj
            .segments()
            .filter_map(|s| Some((s.address(), s.data().ok()?)))
            .collect();
        segments.sort_by_key(|s| s.0);
        Memory { segments }
    }

    /// The `len` bytes at `va`, if one segment's file bytes hold them all.
    fn slice(&self, va: u64, len: u64) -> Option<&'a [u8]> {
        let i = self
            .segments
            .partition_point(|s| s.0 <= va)
            .checked_sub(1)?;
        let (start, data) = self.segments[i];
        let from = usize::try_from(va - start).ok()?;
        let to = from.checked_add(usize::try_from(len).ok()?)?;
        data.get(from..to)
    }
}

/// Splits `ranges` into function groups (see the module documentation).
fn groups(ranges: &[RangeRecord]) -> Vec<&[RangeRecord]> {
    let mut out = Vec::new();
    let mut begin = 0;
    let mut last_top: Option<&RangeRecord> = None;
    for (i, r) in ranges.iter().enumerate() {
        if r.depth != 0 {
            continue;
        }
        if i > begin && !continues(last_top, r) {
            out.push(&ranges[begin..i]);
            begin = i;
        }
        last_top = Some(r);
    }
    if begin < ranges.len() {
        out.push(&ranges[begin..]);
    }
    out
}

fn group_pads(
    arch: Arch,
    memory: &Memory<'_>,
    group: &[RangeRecord],
    out: &mut dyn FnMut(ReturnPadRecord),
) {
    goexit_pad(arch, memory, group, out);
    for top in group.iter().filter(|r| r.depth == 0) {
        let Some(code) = memory.slice(top.va, top.length) else {
            continue;
        };
        for call in calls(arch, top.va, code) {
            if let Some(entries) = inline_chain(group, call.va) {
                out(ReturnPadRecord {
                    va: call.va + call.len - 1,
                    entries,
                });
            }
        }
    }
}

/// Go's `runtime.goexit` is "returned to" at its second instruction, pushed by hand.
fn goexit_pad(
    arch: Arch,
    memory: &Memory<'_>,
    group: &[RangeRecord],
    out: &mut dyn FnMut(ReturnPadRecord),
) {
    let Some(first) = group.first() else { return };
    if first.func != "runtime.goexit" {
        return;
    }
    let Some(len) = memory
        .slice(first.va, first.length)
        .and_then(|code| decode::first_len(arch, first.va, code))
    else {
        return;
    };
    out(ReturnPadRecord {
        va: first.va + len - 1,
        entries: vec![PadEntry {
            func: first.func.clone(),
            file: first.file.clone(),
            line: None,
        }],
    });
}

/// The inline chain at `va`: the group's records containing it by depth, each level with
/// the call file and line of the next, the last with its own file and line. `None` when a
/// level is missing or nothing contains `va`.
fn inline_chain(group: &[RangeRecord], va: u64) -> Option<Vec<PadEntry>> {
    let mut hits: Vec<&RangeRecord> = group.iter().filter(|r| r.contains(va)).collect();
    hits.sort_by_key(|r| r.depth);
    let mut entries = Vec::with_capacity(hits.len());
    for (k, cur) in hits.iter().enumerate() {
        let (file, line) = match hits.get(k + 1) {
            Some(next) => {
                if cur.depth + 1 != next.depth {
                    return None;
                }
                (next.call_file.clone(), next.call_line)
            }
            None => (cur.file.clone(), cur.line_for(va)),
        };
        entries.push(PadEntry {
            func: cur.func.clone(),
            file,
            line,
        });
    }
    (!entries.is_empty()).then_some(entries)
}
