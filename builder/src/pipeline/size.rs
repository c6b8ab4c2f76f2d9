//! SuperSize archives of ELF files: the ELF source's listing of the file (and of its
//! shipped copy) and the DWARF source's source paths, given to the archive writer.

use crate::dwarf::load::SectionStore;
use crate::elf::listing::list_elf;
use crate::model::{DeclPaths, SourceMapper};
use crate::size::archive::{archive, ArchiveOptions, ListedElf};
use crate::size::SizeInfo;
use crate::Result;

/// The input name of errors in the stripped copy ([`ElfArchiveInput::stripped`]); errors
/// of the unstripped ELF name its `file_name`. A caller that knows the paths renames them
/// ([`Error::with_input`](crate::Error::with_input)).
pub const STRIPPED_INPUT: &str = "stripped ELF";

/// An ELF file to archive.
pub struct ElfArchiveInput<'a> {
    /// The unstripped ELF (symbols and DWARF).
    pub data: &'a [u8],
    /// Its file name as recorded in `elf_file_name` and `metrics_by_file`.
    pub file_name: String,
    /// Its modification time in UTC seconds (`elf_mtime`), if known.
    pub mtime: Option<i64>,
    /// The shipped (stripped) copy, whose section sizes and file size are recorded; without
    /// it, those of the file `strip` would write (see [`crate::size::strip`]).
    pub stripped: Option<&'a [u8]>,
}

/// Archives one ELF file as SuperSize's ELF-only mode does (`crate::size::archive`).
pub fn archive_elf(input: &ElfArchiveInput<'_>, options: &ArchiveOptions) -> Result<SizeInfo> {
    let stripped = match input.stripped {
        Some(bytes) => Some((list_elf(bytes, STRIPPED_INPUT)?, bytes.len() as u64)),
        None => None,
    };
    let listed = ListedElf {
        listing: list_elf(input.data, &input.file_name)?,
        file_name: input.file_name.clone(),
        mtime: input.mtime,
        file_size: input.data.len() as u64,
        stripped,
    };
    archive(&listed, options, |decls| {
        // Missing or unreadable DWARF gives no paths: they are best-effort, as in
        // SuperSize. The sections are loaded once for both kinds of paths.
        let Some(sections) = SectionStore::load_optional(input.data) else {
            return (SourceMapper::default(), None);
        };
        let decls = decls.then(|| DeclPaths::from_sections(&sections));
        (SourceMapper::from_sections(&sections), decls)
    })
}
