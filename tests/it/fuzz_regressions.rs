//! Inputs that fuzzing (fuzz/) found to break a parser, minimized, with the behaviour the
//! fix gives. Each file lives in `testdata/fuzz-regressions/<fuzz target>/`.

use std::path::PathBuf;

use symblob_build::dwarf::DwarfOptions;
use symblob_build::pipeline::lidia::{collect_from_elf, ElfOptions, SymbolSources};
use symblob_build::{ErrorKind, Location};

use crate::common::testdata;

/// The options of the `build_lidia_dwarf` fuzz target that found these inputs.
fn dwarf_build_options() -> ElfOptions {
    ElfOptions {
        symbols: SymbolSources {
            gopclntab: false,
            ..SymbolSources::default()
        },
        ..ElfOptions::dwarf_with_files_and_lines(DwarfOptions::default())
    }
}

fn regression(target: &str, name: &str) -> (PathBuf, Vec<u8>) {
    let path = testdata(&format!("fuzz-regressions/{target}/{name}"));
    let data = std::fs::read(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    (path, data)
}

/// One section header of a little-endian ELF64 file: (name, file offset, size, flags).
fn elf64_sections(data: &[u8]) -> Vec<(String, u64, u64, u64)> {
    let u16_at = |o: usize| u16::from_le_bytes(data[o..o + 2].try_into().unwrap()) as usize;
    let u32_at = |o: usize| u32::from_le_bytes(data[o..o + 4].try_into().unwrap()) as u64;
    let u64_at = |o: usize| u64::from_le_bytes(data[o..o + 8].try_into().unwrap());
    assert_eq!(&data[..6], b"\x7fELF\x02\x01", "a little-endian ELF64 file");
    let (shoff, shentsize, shnum, shstrndx) = (
        u64_at(0x28) as usize,
        u16_at(0x3a),
        u16_at(0x3c),
        u16_at(0x3e),
    );
    let header = |i: usize| shoff + i * shentsize;
    let strtab = u64_at(header(shstrndx) + 0x18) as usize;
    (0..shnum)
        .map(|i| {
            let h = header(i);
            let name_at = strtab + u32_at(h) as usize;
            let len = data[name_at..].iter().position(|&b| b == 0).unwrap();
            let name = String::from_utf8_lossy(&data[name_at..name_at + len]).into_owned();
            (name, u64_at(h + 0x18), u64_at(h + 0x20), u64_at(h + 8))
        })
        .collect()
}

/// A `.debug_*` section with `SHF_COMPRESSED` whose compression header claims
/// 0x2e00_0000_0000_014d bytes: the DWARF loader used to hand that size to the allocator
/// before decompressing. Now it is an input error at that section, naming the claim.
#[test]
fn dwarf_section_claiming_a_huge_uncompressed_size_is_refused() {
    let (path, data) = regression("build_lidia_dwarf", "compressed-section-huge-size.elf");
    // The first compressed DWARF section whose ch_size exceeds 1032 × its payload (the
    // compression header is 24 bytes: type, reserved, size, alignment).
    const SHF_COMPRESSED: u64 = 0x800;
    let (name, offset, claim) = elf64_sections(&data)
        .into_iter()
        .filter(|(n, _, _, flags)| n.starts_with(".debug_") && flags & SHF_COMPRESSED != 0)
        .map(|(n, off, size, _)| {
            let o = off as usize;
            let claim = u64::from_le_bytes(data[o + 8..o + 16].try_into().unwrap());
            (n, off, claim, size - 24)
        })
        .find(|&(_, _, claim, payload)| claim > payload * 1032)
        .map(|(n, off, claim, _)| (n, off, claim))
        .expect("the input has an over-claiming compressed section");

    let options = dwarf_build_options();
    match collect_from_elf(&path, &data, &options) {
        Err(e) if e.kind() == ErrorKind::Malformed => {
            let message = e.to_string();
            assert_eq!(e.location(), Location::Offset(offset), "{message}");
            assert_eq!(e.section(), Some(name.as_str()), "{message}");
            assert!(message.contains(&name), "{message}");
            assert!(message.contains(&claim.to_string()), "{message}");
        }
        Err(e) => panic!("unexpected error: {e}"),
        Ok(_) => panic!("a corrupt compressed section was accepted"),
    }
}

/// `(file offset, claimed size, payload bytes)` of every `SHF_COMPRESSED` section of a
/// little-endian ELF64 file, read straight from the section headers (names not needed).
fn elf64_compressed_claims(data: &[u8]) -> Vec<(u64, u64, u64)> {
    const SHF_COMPRESSED: u64 = 0x800;
    let u16_at = |o: usize| u16::from_le_bytes(data[o..o + 2].try_into().unwrap()) as usize;
    let u64_at = |o: usize| u64::from_le_bytes(data[o..o + 8].try_into().unwrap());
    let (shoff, shentsize, shnum) = (u64_at(0x28) as usize, u16_at(0x3a), u16_at(0x3c));
    (0..shnum)
        .map(|i| shoff + i * shentsize)
        .filter(|&h| u64_at(h + 8) & SHF_COMPRESSED != 0)
        .filter_map(|h| {
            let (offset, size) = (u64_at(h + 0x18), u64_at(h + 0x20));
            let claim = data.get(offset as usize + 8..offset as usize + 16)?;
            let claim = u64::from_le_bytes(claim.try_into().unwrap());
            Some((offset, claim, size.saturating_sub(24)))
        })
        .collect()
}

/// A section with `SHF_COMPRESSED` (here a corrupt `.dynsym`) whose compression header
/// claims about 4 GiB: the Lidia ELF reader allocated the claim before inflating. Now the
/// build fails with an input error that names the claim.
#[test]
fn elf_section_claiming_a_huge_uncompressed_size_is_refused() {
    let (path, data) = regression("build_lidia_elf", "compressed-dynsym-huge-size.elf");
    let claims: Vec<u64> = elf64_compressed_claims(&data)
        .into_iter()
        .filter(|&(_, claim, payload)| claim > payload.saturating_mul(1032))
        .map(|(_, claim, _)| claim)
        .collect();
    assert!(!claims.is_empty(), "the input has an over-claiming section");
    match collect_from_elf(&path, &data, &ElfOptions::default()) {
        // The symbol-table reader's typed error carries the text (the message field is
        // empty when the source says it all): check what the user reads.
        Err(e) if e.kind() == ErrorKind::Malformed => {
            let text = e.to_string();
            assert!(
                claims.iter().any(|c| text.contains(&c.to_string())),
                "{text}"
            );
        }
        Err(e) => panic!("unexpected error: {e}"),
        Ok(_) => panic!("a corrupt compressed section was accepted"),
    }
}

/// A subprogram whose `DW_AT_low_pc + DW_AT_high_pc` (a size) overflows 64 bits: gimli's
/// range helper added them unchecked, which panics in builds with overflow checks (such
/// as the debug build of this test). The DIE now simply has no range: the build succeeds
/// and gives a valid file in which no range wraps around the address space.
#[test]
fn dwarf_high_pc_size_overflow_gives_no_range() {
    let (path, data) = regression("build_lidia_dwarf", "high-pc-size-overflow.elf");
    let options = dwarf_build_options();
    let bytes = collect_from_elf(&path, &data, &options)
        .expect("the rest of the file is readable")
        .finish();
    let file = symblob::lidia::LidiaFile::parse(&bytes).expect("the output parses");
    file.validate().expect("the output validates");
    file.verify_checksums()
        .expect("the output has correct checksums");
    for range in file.ranges() {
        assert!(range.va.checked_add(range.length).is_some(), "{range:?}");
    }
}
