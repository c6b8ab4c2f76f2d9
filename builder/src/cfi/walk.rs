//! The walk over one section's entries: the entry list read in order, then the FDEs
//! translated in parts on the rayon pool, their records put back in section order.
//!
//! Reading the list only parses each entry's header (and whole CIEs), so it stays serial
//! and keeps the list's errors where they were; running each FDE's instructions and
//! writing its rules is most of the work, and one FDE's records do not depend on
//! another's.

use gimli::{BaseAddresses, CieOrFde, PartialFrameDescriptionEntry};
use gimli::{EndianSlice, RunTimeEndian, UnwindSection};
use rayon::prelude::*;

use super::registers::Family;
use super::rules::Translator;
use super::{ElfSections, FoundSection};
use crate::error::{Error, Location};
use crate::model::CfiRecord;

/// FDEs per part at least: a part sets up its own unwind context and buffers, and its
/// records are moved once more when the parts are joined, so parts of a few FDEs would
/// cost more than they spread.
const MIN_PART: usize = 256;

/// The reader of both sections.
type Slice<'s> = EndianSlice<'s, RunTimeEndian>;

/// One FDE of the entry list, not parsed yet.
type Partial<'b, 's, S> = PartialFrameDescriptionEntry<'b, S, Slice<'s>>;

/// The records of every FDE of `section`, in section order.
pub(super) fn read_section<'s, S>(
    section: &S,
    found: &FoundSection<'_>,
    elf: &ElfSections<'_>,
    input: &str,
) -> crate::Result<Vec<CfiRecord<'static>>>
where
    S: UnwindSection<Slice<'s>> + Sync,
    S::Offset: Sync,
{
    let bases = BaseAddresses::default().set_eh_frame(found.address);
    let fail = |at: u64, e: gimli::Error| {
        Error::malformed(
            input,
            Location::Offset(at),
            format!("{} entry at section offset {at:#x}", found.name),
        )
        .with_section(found.name.clone())
        .with_source(e)
    };
    let (fdes, list_error) = fde_list(section, &bases, &found.data, elf.big_endian);
    let parts = rayon::current_num_threads().saturating_mul(4).max(1);
    let part_len = fdes.len().div_ceil(parts).max(MIN_PART);
    // An FDE's error comes before the list's: the list failed after every FDE in it.
    let records = translate(
        section,
        &bases,
        &fdes,
        elf.family,
        elf.load_address,
        part_len,
    )
    .map_err(|(at, e)| fail(at, e))?;
    match list_error {
        Some((at, e)) => Err(fail(at, e)),
        None => Ok(records),
    }
}

/// The FDEs of `section` up to the end or the first error in its entry list, and that
/// error with the offset of the entry it was met at.
type FdeList<'b, 's, S> = (Vec<Partial<'b, 's, S>>, Option<(u64, gimli::Error)>);

/// Reads the entry list of `section` (whose bytes are `data`).
pub(super) fn fde_list<'b, 's, S>(
    section: &S,
    bases: &'b BaseAddresses,
    data: &[u8],
    big_endian: bool,
) -> FdeList<'b, 's, S>
where
    S: UnwindSection<Slice<'s>>,
{
    let mut fdes = Vec::new();
    let mut entries = section.entries(bases);
    // The offset of the entry being read: gimli's errors carry none.
    let mut at = 0u64;
    loop {
        match entries.next() {
            Ok(Some(CieOrFde::Cie(cie))) => {
                at = next_entry(data, big_endian, cie.offset(), cie.entry_len());
            }
            Ok(Some(CieOrFde::Fde(partial))) => {
                at = next_entry(data, big_endian, partial.offset(), partial.entry_len());
                fdes.push(partial);
            }
            Ok(None) => return (fdes, None),
            Err(e) => return (fdes, Some((at, e))),
        }
    }
}

/// The records of `fdes` in order, translated in parts of `part_len` FDEs on the rayon
/// pool; or the first FDE error in order, with the FDE's offset.
pub(super) fn translate<'s, S>(
    section: &S,
    bases: &BaseAddresses,
    fdes: &[Partial<'_, 's, S>],
    family: Family,
    load_address: u64,
    part_len: usize,
) -> Result<Vec<CfiRecord<'static>>, (u64, gimli::Error)>
where
    S: UnwindSection<Slice<'s>> + Sync,
    S::Offset: Sync,
{
    // Every part runs to its end or its first error; the parts come back in order, so the
    // first error among them is the first in the section, whatever the schedule.
    let parts: Vec<Result<Vec<CfiRecord<'static>>, (u64, gimli::Error)>> = fdes
        .par_chunks(part_len.max(1))
        .map(|part| translate_part(section, bases, part, family, load_address))
        .collect();
    let mut records = Vec::with_capacity(parts.iter().flatten().map(Vec::len).sum());
    for part in parts {
        records.extend(part?);
    }
    Ok(records)
}

/// The records of `fdes` in order, on this thread.
fn translate_part<'s, S>(
    section: &S,
    bases: &BaseAddresses,
    fdes: &[Partial<'_, 's, S>],
    family: Family,
    load_address: u64,
) -> Result<Vec<CfiRecord<'static>>, (u64, gimli::Error)>
where
    S: UnwindSection<Slice<'s>>,
{
    let mut translator = Translator::new(family, load_address);
    let mut records = Vec::new();
    for partial in fdes {
        // dump_syms skips an FDE it cannot parse and goes on.
        let Ok(fde) = partial.parse(S::cie_from_offset) else {
            continue;
        };
        translator
            .fde_records(section, bases, &fde, &mut records)
            .map_err(|e| (fde.offset() as u64, e))?;
    }
    Ok(records)
}

/// The offset of the entry after the one at `offset` whose length field says `len`: the
/// length field is 4 bytes, or 12 for the 64-bit format (`0xffffffff` then 8 bytes).
fn next_entry(data: &[u8], big_endian: bool, offset: usize, len: usize) -> u64 {
    let word = data
        .get(offset..offset.saturating_add(4))
        .and_then(|b| <[u8; 4]>::try_from(b).ok())
        .map(|b| {
            if big_endian {
                u32::from_be_bytes(b)
            } else {
                u32::from_le_bytes(b)
            }
        });
    let field = if word == Some(u32::MAX) { 12 } else { 4 };
    (offset as u64)
        .saturating_add(field)
        .saturating_add(len as u64)
}
