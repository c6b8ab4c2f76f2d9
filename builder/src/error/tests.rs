//! Each kind is what a real bad input gives: inputs from `testdata/`, cut or changed
//! where the test says, and expectations read from the files themselves (ELF headers,
//! build-ID notes, the format specs), not from the code under test.

use std::error::Error as _;
use std::path::{Path, PathBuf};

use object::Object;

use super::*;
use crate::dwarf::{DebugFiles, DwarfOptions};
use crate::ksym::{build, BuildOptions, InputOptions};
use crate::pipeline::lidia::{collect_from_elf, ElfOptions};
use crate::text::{parse_kallsyms, parse_nm};

fn testdata(path: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../testdata")
        .join(path)
}

/// The error of `result`, which must have failed.
fn error<T>(result: Result<T>) -> Error {
    match result {
        Ok(_) => panic!("the input was accepted"),
        Err(e) => e,
    }
}

fn read(path: &Path) -> Vec<u8> {
    std::fs::read(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// `e_shoff` of a little-endian ELF64 file, read from the header by hand (ELF gABI:
/// 8 bytes at 0x28).
fn section_header_offset(elf: &[u8]) -> u64 {
    u64::from_le_bytes(elf[0x28..0x30].try_into().unwrap())
}

#[test]
fn a_truncated_elf_is_malformed_at_its_section_header_table() {
    let path = testdata("lidia/elf/simple");
    let whole = read(&path);
    let table = section_header_offset(&whole);
    // Cut inside the section header table, which a linker writes at the end.
    let cut = &whole[..table as usize + 10];
    let e = error(collect_from_elf(&path, cut, &ElfOptions::default()));
    assert_eq!(e.kind(), ErrorKind::Malformed, "{e}");
    assert_eq!(e.input(), Some(path.as_path()));
    assert_eq!(e.location(), Location::Offset(table));
    assert!(
        e.source().is_some_and(|s| s.is::<object::Error>()),
        "object's error is the source: {e:?}"
    );
    let text = e.to_string();
    let place = format!("{} at offset {table:#x}: ", path.display());
    assert!(text.starts_with(&place), "{text}");
}

/// The file offset of the section header of `name` and the section's own file offset in a
/// little-endian ELF64 file, found by walking the section headers by hand (ELF gABI:
/// `e_shentsize` at 0x3a, `e_shnum` at 0x3c, `e_shstrndx` at 0x3e; `sh_name` at +0,
/// `sh_offset` at +0x18).
fn section_header(elf: &[u8], name: &str) -> (usize, u64) {
    let u16_at = |o: usize| u16::from_le_bytes(elf[o..o + 2].try_into().unwrap()) as usize;
    let u32_at = |o: usize| u32::from_le_bytes(elf[o..o + 4].try_into().unwrap()) as usize;
    let u64_at = |o: usize| u64::from_le_bytes(elf[o..o + 8].try_into().unwrap());
    let table = section_header_offset(elf) as usize;
    let (size, count, names) = (u16_at(0x3a), u16_at(0x3c), u16_at(0x3e));
    let strings = u64_at(table + names * size + 0x18) as usize;
    (0..count)
        .map(|i| table + i * size)
        .find(|&h| {
            let at = strings + u32_at(h);
            elf[at..].split(|&b| b == 0).next() == Some(name.as_bytes())
        })
        .map(|h| (h, u64_at(h + 0x18)))
        .unwrap_or_else(|| panic!("no section {name}"))
}

#[test]
fn a_dwarf_section_past_the_end_is_malformed_in_that_section() {
    let path = testdata("lidia/elf/inl");
    let mut elf = read(&path);
    let (header, offset) = section_header(&elf, ".debug_info");
    // `sh_size` (at +0x20) now runs far past the end of the file.
    elf[header + 0x20..header + 0x28].copy_from_slice(&(1u64 << 40).to_le_bytes());
    let dwarf = ElfOptions::with_dwarf(DwarfOptions::default());
    let e = error(collect_from_elf(&path, &elf, &dwarf));
    assert_eq!(e.kind(), ErrorKind::Malformed, "{e}");
    assert_eq!(e.input(), Some(path.as_path()));
    assert_eq!(e.section(), Some(".debug_info"));
    assert_eq!(e.location(), Location::Offset(offset));
}

#[test]
fn a_missing_file_is_an_io_error_naming_it() {
    let path = testdata("lidia/elf/no-such-file");
    let e = error(crate::input::open(&path));
    assert_eq!(e.kind(), ErrorKind::Io);
    assert_eq!(e.input(), Some(path.as_path()));
    assert_eq!(e.location(), Location::Whole);
    let io = e.io_error().expect("the operating system's error");
    assert_eq!(io.kind(), std::io::ErrorKind::NotFound);
    assert!(e.source().is_some_and(|s| s.is::<std::io::Error>()));
    assert_eq!(e.to_string(), format!("{}: {io}", path.display()));
}

#[test]
fn a_debug_file_of_another_build_is_a_mismatch() {
    let binary = testdata("supersize/sizedemo-v1");
    let other = testdata("supersize/sizedemo-v2");
    let (data, other_data) = (read(&binary), read(&other));
    let id = |bytes: &[u8]| {
        let file = object::File::parse(bytes).unwrap();
        let id = file.build_id().unwrap().expect("a build ID note");
        id.iter().map(|b| format!("{b:02x}")).collect::<String>()
    };
    let (wanted, found) = (id(&data), id(&other_data));
    assert_ne!(wanted, found, "the fixtures are two builds");

    let dwarf = DwarfOptions {
        debug_files: DebugFiles {
            debug_file: Some(other.clone()),
            ..DebugFiles::default()
        },
        ..DwarfOptions::default()
    };
    let e = error(collect_from_elf(
        &binary,
        &data,
        &ElfOptions::with_dwarf(dwarf),
    ));
    assert_eq!(e.kind(), ErrorKind::Mismatch, "{e}");
    assert_eq!(e.input(), Some(other.as_path()));
    let text = e.to_string();
    assert!(text.contains(&binary.display().to_string()), "{text}");
    assert!(text.contains(&wanted) && text.contains(&found), "{text}");
}

#[test]
fn a_restricted_kallsyms_view_is_missing_its_addresses() {
    let path = testdata("ksym/input/proc-kallsyms-restricted.txt");
    let text = read(&path);
    let e = parse_kallsyms(&text, "kallsyms", &InputOptions::default()).unwrap_err();
    assert_eq!(e.kind(), ErrorKind::Missing, "{e}");
    assert_eq!(e.input(), Some(Path::new("kallsyms")));
}

#[test]
fn a_bad_line_of_a_symbol_map_is_malformed_at_its_line() {
    let map = read(&testdata("ksym/linux-6.1-cloud-amd64.System.map"));
    // Break the address of line 1000 (1-based).
    let start: usize = map
        .split(|&b| b == b'\n')
        .take(999)
        .map(|l| l.len() + 1)
        .sum();
    let mut bad = map.clone();
    bad[start] = b'x';
    let e = parse_nm(&bad, "System.map", &InputOptions::default()).unwrap_err();
    assert_eq!(e.kind(), ErrorKind::Malformed);
    assert_eq!(e.location(), Location::Line(1000));
    assert!(e.to_string().starts_with("System.map:1000: "), "{e}");
}

#[test]
fn a_blob_larger_than_pad_to_is_a_limit_with_both_sizes() {
    let map = read(&testdata("ksym/input/edge-order.nm"));
    let list = parse_nm(&map, "edge-order.nm", &InputOptions::default()).unwrap();
    let unpadded = build(&list.symbols, &BuildOptions::default()).unwrap();
    let size = unpadded.bytes.len() as u64;
    let options = BuildOptions {
        pad_to: Some(size - 1),
        ..BuildOptions::default()
    };
    let e = build(&list.symbols, &options).unwrap_err();
    assert_eq!(e.kind(), ErrorKind::Limit);
    assert_eq!(
        e.limit_exceeded(),
        Some(&LimitExceeded {
            what: "blob size",
            value: size,
            limit: size - 1
        })
    );
    assert_eq!(e.input(), None);
    assert_eq!(
        e.with_input("edge-order.nm").to_string(),
        format!(
            "edge-order.nm: blob size is {size}, more than the format's limit of {}",
            size - 1
        )
    );
}

#[test]
fn a_lidia_file_of_another_version_is_unsupported_at_the_version_field() {
    let mut lidia = read(&testdata("lidia/lidia/empty.lidia"));
    // The version is the u32 at 0x04 (spec/lidia.md, header table).
    lidia[4..8].copy_from_slice(&2u32.to_le_bytes());
    let e = error(crate::readback::lidia::read(&lidia, "x.lidia"));
    assert_eq!(e.kind(), ErrorKind::Unsupported, "{e}");
    assert_eq!(e.input(), Some(Path::new("x.lidia")));
    assert_eq!(e.location(), Location::Offset(4));
    let reader = e.reader_error().expect("the reader's error");
    assert_eq!(e.section(), Some(reader.section));
    assert!(e.to_string().starts_with("x.lidia at offset 0x4: "), "{e}");
}

#[test]
fn an_output_that_is_its_input_is_refused_by_any_path() {
    let input = testdata("lidia/elf/simple");
    let dir = tempfile::tempdir().unwrap();
    let link = dir.path().join("link");
    std::os::unix::fs::symlink(&input, &link).unwrap();
    let e = crate::output::refuse_same_file(&link, &[&input]).unwrap_err();
    assert_eq!(e.kind(), ErrorKind::OutputIsInput);
    assert_eq!(e.input(), Some(input.as_path()));
    let refusal = e.refusal().expect("the refused output");
    assert_eq!((&refusal.output, &refusal.found), (&link, &None));
    // A file the library opened keeps its path when a caller names the input.
    assert_eq!(e.with_input("other").input(), Some(input.as_path()));
}

#[test]
fn a_section_the_build_needs_is_missing_by_name() {
    let path = testdata("lidia/elf/simple");
    let e = crate::embed::find_section(&read(&path), "simple", ".ksyms").unwrap_err();
    assert_eq!(e.kind(), ErrorKind::Missing);
    assert_eq!(e.section(), Some(".ksyms"));
    assert_eq!(e.to_string(), "simple: no section .ksyms");
}
