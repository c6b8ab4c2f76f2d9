//! Unwind rules from `.eh_frame` and `.debug_frame` (a source): the model's unwind rows
//! ([`CfiRecord`]), whose rules are Breakpad's postfix `STACK CFI` rules, exactly as Mozilla's `dump_syms` (2.3.9, through symbolic-cfi 13.9's
//! `AsciiCfiWriter`) writes them for an ELF file. gimli parses the CIEs and FDEs and runs
//! each FDE's instructions into an unwind table; the translation of the table into
//! Breakpad's postfix rules is here.
//!
//! The observable rules this module reproduces (`docs/formats/breakpad.md`, section
//! "STACK CFI", has the record syntax):
//!
//! * **Sections.** `.debug_frame` first, then `.eh_frame`; each is the first section
//!   header named so (or `.z`-prefixed, GNU-compressed) that is not `SHT_NOBITS` and has
//!   a non-zero file offset, decompressed when compressed. Both are written when both
//!   are there, even where they describe the same functions. No sorting: records follow
//!   the FDEs in section order.
//! * **Address size** of the sections is the CPU family's pointer size (4 or 8);
//!   gimli's default for a family dump_syms does not know. The `.eh_frame` base for
//!   PC-relative pointers is the section's address; no text or data base is given, so
//!   an FDE whose pointers are relative to those does not parse.
//! * **Entries.** A CIE gives no record of its own; an FDE that does not parse (its CIE
//!   unreadable, an unsupported pointer encoding) is skipped; an error in the entry list
//!   itself (a CIE that does not parse where the list meets it, a length past the end)
//!   ends the section, and here is an [`Error`]. FDEs whose initial
//!   address is all ones are skipped.
//! * **Rows.** gimli's unwind table rows, every one walked, even where the FDE is then
//!   skipped; an unknown call-frame instruction or a register-rule overflow leaves the
//!   row as it is and the walk goes on, any other error ends the section (an `Error`
//!   here, the first in section order). An FDE with no row is skipped, and so is one
//!   whose first row starts below the module's load address (the first `PT_LOAD`
//!   segment's `p_vaddr`).
//! * **Records.** The row starting at the FDE's first address is `STACK CFI INIT
//!   <start> <size>`, where size runs to the last row's end; every later row is `STACK
//!   CFI <address>`. Each line lists only the rules that changed since the previous row
//!   of the FDE: the CFA first, then the registers in gimli's order. A register's rule
//!   counts as written once it changed, whether or not it could be printed. A line with
//!   nothing to print is left out: that can leave an FDE's rows without their INIT line
//!   (an empty [`CfiRecord::init`](crate::model::CfiRecord::init) here).
//! * **Rules.** CFA `reg+off` is `.cfa: <reg> <off> +`; a register saved at CFA+n is
//!   `<reg>: .cfa <n> + ^`, one whose value is CFA+n `<reg>: .cfa <n> +`, one kept in
//!   another register (or the same one) `<reg>: <other>`; the CIE's return-address
//!   column is named `.ra`. Offsets are signed decimal. DWARF expressions, undefined,
//!   architectural and constant rules, and registers without a name in the family's
//!   table are left out.
//! * **Return address in a register.** On ARM, AArch64, MIPS and PowerPC an INIT line
//!   that gives no rule for the return-address column ends with `.ra: <that register>`
//!   (`.ra: x30` on AArch64).
//! * **Addresses** are written in lower-case hex, minus the module's load address.

mod registers;
mod rules;
mod walk;

use std::borrow::Cow;

use gimli::{DebugFrame, EhFrame, RunTimeEndian};
use object::read::elf::{ElfFile, FileHeader, ProgramHeader, SectionHeader};
use object::{Endianness, FileKind, Object, ObjectSection};

use crate::error::{Error, ErrorKind, Location};
use crate::model::CfiRecord;
use registers::Family;

/// Decompression refuses claims beyond what deflate can expand to (1032:1) before
/// allocating them.
const MAX_EXPANSION: u64 = 1032;

/// Unwind rules of the ELF file `bytes` (named `input` in errors) from `.debug_frame` and
/// `.eh_frame`, as dump_syms writes them; link-time addresses; in dump_syms's order.
///
/// A malformed or undecompressible section is an [`Error`] naming `input`, the section
/// and the offset of the entry in it. A file of an architecture without register names
/// still gives the records of its return-address rules, as dump_syms does.
///
/// The FDEs are translated on the rayon pool; the records and errors do not depend on
/// its size.
pub fn from_elf(bytes: &[u8], input: &str) -> crate::Result<Vec<CfiRecord<'static>>> {
    let elf = match FileKind::parse(bytes) {
        Ok(FileKind::Elf32) => {
            ElfSections::parse::<object::elf::FileHeader32<Endianness>>(bytes, input)?
        }
        Ok(FileKind::Elf64) => {
            ElfSections::parse::<object::elf::FileHeader64<Endianness>>(bytes, input)?
        }
        Ok(other) => {
            return Err(Error::new(
                ErrorKind::Unsupported,
                input,
                Location::Whole,
                format!("not an ELF file ({other:?})"),
            ))
        }
        Err(e) => {
            return Err(Error::malformed(input, Location::Whole, "not an ELF file").with_source(e))
        }
    };
    let endian = if elf.big_endian {
        RunTimeEndian::Big
    } else {
        RunTimeEndian::Little
    };
    let mut records = Vec::new();
    if let Some(found) = &elf.debug_frame {
        let mut section = DebugFrame::new(&found.data, endian);
        if let Some(size) = elf.family.address_size() {
            section.set_address_size(size);
        }
        records = walk::read_section(&section, found, &elf, input)?;
    }
    if let Some(found) = &elf.eh_frame {
        let mut section = EhFrame::new(&found.data, endian);
        if let Some(size) = elf.family.address_size() {
            section.set_address_size(size);
        }
        records.append(&mut walk::read_section(&section, found, &elf, input)?);
    }
    Ok(records)
}

/// What the walk needs of the ELF file.
struct ElfSections<'a> {
    big_endian: bool,
    family: Family,
    /// The first `PT_LOAD` segment's `p_vaddr` (0 without one).
    load_address: u64,
    debug_frame: Option<FoundSection<'a>>,
    eh_frame: Option<FoundSection<'a>>,
}

/// One unwind section's bytes.
struct FoundSection<'a> {
    /// The section header's name (`.eh_frame`, `.zdebug_frame`, …), for errors.
    name: String,
    /// `sh_addr`: the base of `.eh_frame`'s PC-relative pointers.
    address: u64,
    data: Cow<'a, [u8]>,
}

impl<'a> ElfSections<'a> {
    fn parse<Elf: FileHeader<Endian = Endianness>>(
        bytes: &'a [u8],
        input: &str,
    ) -> crate::Result<Self> {
        let file = ElfFile::<Elf>::parse(bytes)
            .map_err(|e| Error::malformed(input, Location::Whole, "bad ELF file").with_source(e))?;
        let endian = file.endian();
        let header = file.elf_header();
        let load_address = file
            .elf_program_headers()
            .iter()
            .find(|p| p.p_type(endian) == object::elf::PT_LOAD)
            .map_or(0, |p| p.p_vaddr(endian).into());
        let mut found = ElfSections {
            big_endian: !file.is_little_endian(),
            family: Family::from_elf(header.e_machine(endian), header.e_flags(endian).0),
            load_address,
            debug_frame: None,
            eh_frame: None,
        };
        for section in file.sections() {
            let sh = section.elf_section_header();
            // Sections without bytes in the file (a debug file's `.eh_frame`, phantom
            // headers of stripped files) are not the section.
            if sh.sh_type(endian) == object::elf::SHT_NOBITS || sh.sh_offset(endian).into() == 0 {
                continue;
            }
            let Ok(name) = section.name_bytes() else {
                continue;
            };
            let bare = name.strip_prefix(b".z").or_else(|| name.strip_prefix(b"."));
            let slot = match bare {
                Some(b"debug_frame") => &mut found.debug_frame,
                Some(b"eh_frame") => &mut found.eh_frame,
                _ => continue,
            };
            if slot.is_some() {
                continue;
            }
            let name = String::from_utf8_lossy(name).into_owned();
            let at = Location::Offset(sh.sh_offset(endian).into());
            let fail =
                |message: String| Error::malformed(input, at, message).with_section(name.clone());
            let compressed = section
                .compressed_data()
                .map_err(|e| fail(format!("cannot read section {name}")).with_source(e))?;
            let limit = (compressed.data.len() as u64).saturating_mul(MAX_EXPANSION);
            if compressed.format != object::CompressionFormat::None
                && compressed.uncompressed_size > limit
            {
                return Err(fail(format!(
                    "compressed section {name} claims {} bytes from {} compressed bytes, more \
                     than {MAX_EXPANSION} times as many",
                    compressed.uncompressed_size,
                    compressed.data.len()
                )));
            }
            let data = compressed
                .decompress()
                .map_err(|e| fail(format!("cannot decompress section {name}")).with_source(e))?;
            *slot = Some(FoundSection {
                name,
                address: section.address(),
                data,
            });
        }
        Ok(found)
    }
}

#[cfg(test)]
mod tests;
