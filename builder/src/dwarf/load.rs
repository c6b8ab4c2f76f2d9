//! Loading the DWARF sections of the file that holds them (the ELF itself or the debug
//! file [`crate::elf::find_debug_file`] found); compressed sections (`SHF_COMPRESSED`
//! zlib and zstd, GNU `.zdebug_*`) are decompressed here.

use std::borrow::Cow;
use std::path::Path;

use object::{CompressionFormat, Object, ObjectSection, SectionKind};

use crate::{Error, Location, Result};

/// The most a compressed section may expand: deflate cannot exceed 1032:1, and DWARF
/// compresses far less (zstd too). A header claiming more is corrupt, and is refused
/// before the claimed size is allocated.
const MAX_EXPANSION: u64 = 1032;

/// The DWARF sections of one file, decompressed where needed, indexed by [`gimli::SectionId`].
pub(crate) struct SectionStore<'a> {
    sections: Vec<(gimli::SectionId, Cow<'a, [u8]>)>,
    /// Byte order of the file.
    pub endian: gimli::RunTimeEndian,
}

/// The sections gimli reads for units, names, ranges and line programs.
const WANTED: [gimli::SectionId; 14] = [
    gimli::SectionId::DebugAbbrev,
    gimli::SectionId::DebugAddr,
    gimli::SectionId::DebugInfo,
    gimli::SectionId::DebugLine,
    gimli::SectionId::DebugLineStr,
    gimli::SectionId::DebugLoc,
    gimli::SectionId::DebugLocLists,
    gimli::SectionId::DebugRanges,
    gimli::SectionId::DebugRngLists,
    gimli::SectionId::DebugStr,
    gimli::SectionId::DebugStrOffsets,
    gimli::SectionId::DebugTypes,
    // Package indexes: only in `.dwp` files.
    gimli::SectionId::DebugCuIndex,
    gimli::SectionId::DebugTuIndex,
];

/// Which section names a file uses.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Naming {
    /// An executable, a shared object or their separate debug file: `.debug_info`…
    Main,
    /// A split DWARF object (`.dwo`) or package (`.dwp`): `.debug_info.dwo`…
    Split,
}

impl<'a> SectionStore<'a> {
    /// Reads (and decompresses) the DWARF sections of `obj`; `name` is used in errors.
    pub(crate) fn load(obj: &object::File<'a>, name: &Path) -> Result<Self> {
        Self::load_named(obj, name, Naming::Main)
    }

    /// The DWARF sections of the object file `data` for a reader to whom DWARF is
    /// optional: `None` when `data` is not an object file or a section cannot be read.
    #[cfg(feature = "size")]
    pub(crate) fn load_optional(data: &'a [u8]) -> Option<Self> {
        let obj = object::File::parse(data).ok()?;
        Self::load(&obj, Path::new("")).ok()
    }

    /// [`Self::load`] with the section names of `naming`.
    pub(crate) fn load_named(obj: &object::File<'a>, name: &Path, naming: Naming) -> Result<Self> {
        let endian = if obj.is_little_endian() {
            gimli::RunTimeEndian::Little
        } else {
            gimli::RunTimeEndian::Big
        };
        let mut sections = Vec::new();
        for id in WANTED {
            let section_name = match naming {
                Naming::Main => Some(id.name()),
                Naming::Split => id.dwo_name(),
            };
            let Some(section) = section_name.and_then(|n| obj.section_by_name(n)) else {
                continue;
            };
            if section.kind() == SectionKind::UninitializedData {
                continue;
            }
            let at = section
                .file_range()
                .map_or(Location::Whole, |(o, _)| Location::Offset(o));
            if let Ok(c) = section.compressed_data() {
                let limit = (c.data.len() as u64).saturating_mul(MAX_EXPANSION);
                if c.format != CompressionFormat::None && c.uncompressed_size > limit {
                    return Err(Error::malformed(
                        name,
                        at,
                        format!(
                            "compressed section {} claims {} bytes from {} compressed bytes, \
                             more than {MAX_EXPANSION} times as many",
                            id.name(),
                            c.uncompressed_size,
                            c.data.len()
                        ),
                    )
                    .with_section(id.name()));
                }
            }
            let data = section.uncompressed_data().map_err(|e| {
                Error::malformed(
                    name,
                    at,
                    format!("cannot read or decompress section {}", id.name()),
                )
                .with_section(id.name())
                .with_source(e)
            })?;
            sections.push((id, data));
        }
        Ok(SectionStore { sections, endian })
    }

    /// The bytes of section `id` (empty when absent).
    pub(crate) fn get(&self, id: gimli::SectionId) -> &[u8] {
        self.sections
            .iter()
            .find(|(s, _)| *s == id)
            .map_or(&[][..], |(_, d)| d)
    }

    /// A gimli view of the sections.
    pub(crate) fn dwarf(&self) -> gimli::Dwarf<super::Slice<'_>> {
        let endian = self.endian;
        gimli::Dwarf::load(|id| -> std::result::Result<_, ()> {
            Ok(gimli::EndianSlice::new(self.get(id), endian))
        })
        .unwrap_or_default()
    }
}
