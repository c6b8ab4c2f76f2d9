//! What a capture needs from an ELF file: build ID, load addresses, text end, class.

use std::fs::File;
use std::path::Path;

use object::elf::{FileHeader32, FileHeader64, NT_GNU_BUILD_ID, PF_X, PT_LOAD};
use object::read::elf::{FileHeader, ProgramHeader};
use object::{Endianness, ReadCache};

/// Facts about one ELF image file, read from its program headers.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ElfImage {
    /// 64-bit (`ELFCLASS64`) rather than 32-bit.
    pub is_64: bool,
    /// The `NT_GNU_BUILD_ID` note (name `GNU`) found through a `PT_NOTE` segment.
    pub build_id: Option<Vec<u8>>,
    /// Lowest `p_vaddr` of the `PT_LOAD` segments.
    pub lowest_load: Option<u64>,
    /// Highest `p_vaddr + p_memsz` of the executable `PT_LOAD` segments.
    pub text_end: Option<u64>,
}

/// Reads the program headers of the ELF file at `path`, fetching only the bytes needed
/// (large shared libraries are not read whole). `None` if it is not a readable ELF file.
pub fn inspect_elf(path: &Path) -> Option<ElfImage> {
    let file = File::open(path).ok()?;
    let cache = ReadCache::new(file);
    let ident = object::ReadRef::read_bytes_at(&cache, 0, 16).ok()?;
    if !ident.starts_with(b"\x7fELF") {
        return None;
    }
    match ident.get(4) {
        Some(1) => inspect::<FileHeader32<Endianness>>(&cache),
        Some(2) => inspect::<FileHeader64<Endianness>>(&cache),
        _ => None,
    }
}

fn inspect<Elf: FileHeader<Endian = Endianness>>(cache: &ReadCache<File>) -> Option<ElfImage> {
    let header = Elf::parse(cache).ok()?;
    let endian = header.endian().ok()?;
    let segments = header.program_headers(endian, cache).ok()?;
    let mut image = ElfImage {
        is_64: header.is_class_64(),
        build_id: None,
        lowest_load: None,
        text_end: None,
    };
    for segment in segments {
        if segment.p_type(endian) == PT_LOAD {
            let vaddr: u64 = segment.p_vaddr(endian).into();
            let memsz: u64 = segment.p_memsz(endian).into();
            image.lowest_load = Some(image.lowest_load.map_or(vaddr, |l| l.min(vaddr)));
            if segment.p_flags(endian).contains(PF_X) {
                let end = vaddr.saturating_add(memsz);
                image.text_end = Some(image.text_end.map_or(end, |e| e.max(end)));
            }
        }
        if image.build_id.is_some() {
            continue;
        }
        // `notes` returns None for segments that are not PT_NOTE.
        if let Ok(Some(mut notes)) = segment.notes(endian, cache) {
            while let Ok(Some(note)) = notes.next() {
                if note.name() == b"GNU" && note.n_type(endian) == NT_GNU_BUILD_ID {
                    image.build_id = Some(note.desc().to_vec());
                    break;
                }
            }
        }
    }
    Some(image)
}
