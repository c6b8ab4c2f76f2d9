//! The small view of an ELF file that the Lidia builder and SuperSize's listing need:
//! class, byte order, machine and the section headers, with section contents read as Go's
//! `debug/elf` reads them.
//!
//! `object` parses the ELF and section headers (32/64-bit, either byte order); everything
//! after that is done by hand, because Go's choices (which section, which fallback, what
//! counts as malformed) decide the output bytes and `object`'s higher-level symbol API
//! makes different ones.

use std::borrow::Cow;

use object::elf::{ELFCOMPRESS_ZLIB, SHF_COMPRESSED, SHT_NOBITS};
use object::read::elf::{CompressionHeader, FileHeader, SectionHeader};
use object::read::{CompressedData, CompressionFormat};
use object::{Endianness, FileKind};

use crate::error::{Error, ErrorKind, Location};

pub(crate) use crate::model::SectionHeader as Section;

/// What reading a section gives.
#[derive(Debug)]
pub(crate) enum SectionData<'a> {
    /// The section's bytes (decompressed if it was compressed).
    Bytes(Cow<'a, [u8]>),
    /// An `SHT_NOBITS` section, which Go 1.19 reads as this many zero bytes.
    Zeros(u64),
}

/// A parsed ELF file: byte order, class and sections.
pub(crate) struct ElfFile<'a> {
    data: &'a [u8],
    /// Whether the file (and so its symbol entries) is big-endian.
    pub big_endian: bool,
    /// Whether the file is ELFCLASS64.
    pub is_64: bool,
    /// `e_machine`.
    #[cfg_attr(not(feature = "size"), allow(dead_code))] // read by SuperSize's listing only
    pub machine: object::elf::Machine,
    /// The section headers in table order (index 0 included).
    pub sections: Vec<Section<'a>>,
}

impl<'a> ElfFile<'a> {
    /// Parses the ELF header and the section headers of `data`.
    pub(crate) fn parse(data: &'a [u8]) -> Result<Self, Error> {
        match FileKind::parse(data) {
            Ok(FileKind::Elf32) => parse_generic::<object::elf::FileHeader32<Endianness>>(data),
            Ok(FileKind::Elf64) => parse_generic::<object::elf::FileHeader64<Endianness>>(data),
            Ok(other) => Err(Error::unnamed(
                ErrorKind::Unsupported,
                format!("not an ELF file ({other:?})"),
            )),
            Err(e) => Err(Error::unnamed(ErrorKind::Malformed, "not an ELF file").with_source(e)),
        }
    }

    /// The first section named exactly `name` (Go's `File.Section`).
    pub(crate) fn section_by_name(&self, name: &[u8]) -> Option<&Section<'a>> {
        self.sections.iter().find(|s| s.name == name)
    }

    /// The first section of type `kind` (Go's `File.SectionByType`), with its index.
    pub(crate) fn section_by_type(&self, kind: u32) -> Option<(usize, &Section<'a>)> {
        self.sections
            .iter()
            .enumerate()
            .find(|(_, s)| s.kind == kind)
    }

    /// The contents of `section` as Go's `Section.Data` returns them: zeros for
    /// `SHT_NOBITS`, decompressed for `SHF_COMPRESSED` (zlib), else the file bytes, which
    /// must lie inside the file.
    pub(crate) fn data(&self, section: &Section<'a>) -> Result<SectionData<'a>, Error> {
        if section.kind == SHT_NOBITS.0 {
            return Ok(SectionData::Zeros(section.size));
        }
        let raw = usize::try_from(section.offset)
            .ok()
            .zip(usize::try_from(section.size).ok())
            .and_then(|(start, len)| self.data.get(start..start.checked_add(len)?))
            .ok_or_else(|| {
                let name = String::from_utf8_lossy(section.name).into_owned();
                Error::unnamed(
                    ErrorKind::Malformed,
                    format!(
                        "section {name} (size {:#x}) lies outside the file",
                        section.size
                    ),
                )
                .with_location(Location::Offset(section.offset))
                .with_section(name)
            })?;
        if section.flags & SHF_COMPRESSED.0 == 0 {
            return Ok(SectionData::Bytes(Cow::Borrowed(raw)));
        }
        self.decompress(section, raw).map(SectionData::Bytes)
    }

    /// The file's byte order.
    pub(crate) fn endian(&self) -> Endianness {
        if self.big_endian {
            Endianness::Big
        } else {
            Endianness::Little
        }
    }

    /// Decompresses an `SHF_COMPRESSED` section (`Elf32_Chdr`/`Elf64_Chdr` then zlib).
    fn decompress(&self, section: &Section<'a>, raw: &'a [u8]) -> Result<Cow<'a, [u8]>, Error> {
        let endian = self.endian();
        let name = String::from_utf8_lossy(section.name);
        // Every problem of a compressed section is placed at the section's bytes.
        let fail = |kind, message: String| {
            Error::unnamed(kind, message)
                .with_location(Location::Offset(section.offset))
                .with_section(name.clone().into_owned())
        };
        let truncated = |()| fail(ErrorKind::Malformed, "truncated compression header".into());
        let (kind, size, header_len) = if self.is_64 {
            let h = object::pod::from_bytes::<object::elf::CompressionHeader64<Endianness>>(raw)
                .map_err(truncated)?
                .0;
            (h.ch_type(endian), h.ch_size(endian), 24)
        } else {
            let h = object::pod::from_bytes::<object::elf::CompressionHeader32<Endianness>>(raw)
                .map_err(truncated)?
                .0;
            (h.ch_type(endian), u64::from(h.ch_size(endian)), 12)
        };
        if kind != ELFCOMPRESS_ZLIB {
            return Err(fail(
                ErrorKind::Unsupported,
                format!("section {name}: unsupported compression type {kind}"),
            ));
        }
        let data = raw.get(header_len..).unwrap_or_default();
        // Deflate expands at most 1032:1. A larger claim is corrupt, and is refused before
        // the claimed size is allocated.
        if size > (data.len() as u64).saturating_mul(1032) {
            return Err(fail(
                ErrorKind::Malformed,
                format!(
                    "section {name}: compression header claims {size} bytes from {} \
                     compressed bytes, more than 1032 times as many",
                    data.len()
                ),
            ));
        }
        let compressed = CompressedData {
            format: CompressionFormat::Zlib,
            data,
            uncompressed_size: size,
        };
        compressed
            .decompress()
            .map_err(|e| fail(ErrorKind::Malformed, format!("section {name}")).with_source(e))
    }
}

fn parse_generic<'a, Elf: FileHeader<Endian = Endianness>>(
    data: &'a [u8],
) -> Result<ElfFile<'a>, Error> {
    let malformed = |message: &str| Error::unnamed(ErrorKind::Malformed, message);
    let header = Elf::parse(data).map_err(|e| malformed("bad ELF header").with_source(e))?;
    let endian = header
        .endian()
        .map_err(|e| malformed("bad ELF header").with_source(e))?;
    // A truncated file loses its section header table first: place the problem there.
    let table = header.sections(endian, data).map_err(|e| {
        let table_offset = header.e_shoff(endian).into();
        malformed("bad section headers")
            .with_location(Location::Offset(table_offset))
            .with_source(e)
    })?;
    let mut sections = Vec::with_capacity(table.len());
    for (index, s) in table.enumerate() {
        let name = table.section_name(endian, s).map_err(|e| {
            Error::unnamed(ErrorKind::Malformed, format!("section {}", index.0)).with_source(e)
        })?;
        sections.push(Section {
            name,
            kind: s.sh_type(endian).0,
            flags: s.sh_flags(endian).0,
            addr: s.sh_addr(endian).into(),
            offset: s.sh_offset(endian).into(),
            size: s.sh_size(endian).into(),
            link: s.sh_link(endian),
            entsize: s.sh_entsize(endian).into(),
            align: s.sh_addralign(endian).into(),
        });
    }
    Ok(ElfFile {
        data,
        big_endian: header.is_big_endian(),
        is_64: header.is_type_64(),
        machine: header.e_machine(endian),
        sections,
    })
}
