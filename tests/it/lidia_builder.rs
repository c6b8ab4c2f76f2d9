//! Tests: the Lidia builder against files written by Pyroscope's Go implementation.

use std::path::{Path, PathBuf};

use proptest::prelude::*;
use serde_json::Value;
use symblob::lidia::LidiaFile;
use symblob_build::lidia::{Flags, LidiaWriter, LineEntry, RangeSpec};
use symblob_build::pipeline::lidia::{
    build_from_elf, collect_from_elf, write_from_elf, ElfOptions, SymbolSources,
};

use crate::common::{files_ending_in, shared_testdata, testdata};

/// One range of a `synth/*.json` file, owning its strings.
#[derive(Clone, Debug)]
struct SynthRange {
    va: u64,
    length: u64,
    depth: u64,
    function: String,
    file: String,
    call_file: String,
    call_line: u64,
    lines: Vec<LineEntry>,
}

impl SynthRange {
    fn spec(&self) -> RangeSpec<'_> {
        RangeSpec {
            va: self.va,
            length: self.length,
            depth: self.depth,
            function: self.function.as_bytes(),
            file: self.file.as_bytes(),
            call_file: self.call_file.as_bytes(),
            call_line: self.call_line,
            lines: &self.lines,
        }
    }
}

/// Reads a synth range list: `inline.json` / `u64va.json` (Go `Range` fields) and
/// `u64fields.raw.json` (VA, 64-bit Length and Depth, Function, File) share field names;
/// absent fields are zero or empty.
fn load_synth(path: &Path) -> Vec<SynthRange> {
    let text = std::fs::read_to_string(path).unwrap();
    let json: Value = serde_json::from_str(&text).unwrap();
    let num = |v: &Value, k: &str| v.get(k).map_or(0, |x| x.as_u64().unwrap());
    let text = |v: &Value, k: &str| {
        v.get(k)
            .map_or(String::new(), |x| x.as_str().unwrap().to_owned())
    };
    json.as_array()
        .unwrap()
        .iter()
        .map(|r| SynthRange {
            va: num(r, "VA"),
            length: num(r, "Length"),
            depth: num(r, "Depth"),
            function: text(r, "Function"),
            file: text(r, "File"),
            call_file: text(r, "CallFile"),
            call_line: num(r, "CallLine"),
            lines: r.get("LineTable").map_or(Vec::new(), |t| {
                t.as_array()
                    .unwrap()
                    .iter()
                    .map(|e| LineEntry {
                        offset: e[0].as_u64().unwrap(),
                        line: e[1].as_u64().unwrap(),
                    })
                    .collect()
            }),
        })
        .collect()
}

fn write_synth(ranges: &[SynthRange], flags: Flags) -> Vec<u8> {
    let mut w = LidiaWriter::new(flags);
    for r in ranges {
        w.add(&r.spec());
    }
    w.finish()
}

fn read(path: &Path) -> Vec<u8> {
    std::fs::read(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

#[test]
fn synth_ranges_give_the_go_writers_bytes() {
    let none = Flags::default();
    let files = Flags {
        files: true,
        lines: false,
    };
    let files_lines = Flags {
        files: true,
        lines: true,
    };
    // The flags each golden was written with (spec section 13); u64fields has no call
    // site and no lines, and its file strings are stored, which is the `files` flag.
    let cases = [
        ("inline.json", none, "inline.none.lidia"),
        ("inline.json", files, "inline.files.lidia"),
        ("inline.json", files_lines, "inline.files_lines.lidia"),
        ("u64va.json", files_lines, "u64va.files_lines.lidia"),
        ("u64fields.raw.json", files, "u64fields.lidia"),
    ];
    for (json, flags, golden) in cases {
        let ranges = load_synth(&testdata(&format!("lidia/synth/{json}")));
        let got = write_synth(&ranges, flags);
        let want = read(&testdata(&format!("lidia/synth/{golden}")));
        assert_eq!(got, want, "{json} with {flags:?} differs from {golden}");
    }
}

#[test]
fn streaming_and_finish_agree() {
    let ranges = load_synth(&testdata("lidia/synth/inline.json"));
    let flags = Flags {
        files: true,
        lines: true,
    };
    let mut w = LidiaWriter::new(flags);
    for r in &ranges {
        w.add(&r.spec());
    }
    let layout = w.layout();
    let mut streamed = Vec::new();
    w.write_to(&mut streamed).unwrap();
    assert_eq!(streamed, write_synth(&ranges, flags));
    assert_eq!(layout.file_size, streamed.len() as u64);
}

#[test]
fn no_ranges_gives_the_empty_golden() {
    let got = LidiaWriter::new(Flags::default()).finish();
    assert_eq!(got, read(&testdata("lidia/lidia/empty.lidia")));
}

fn upstream(rel: &str) -> Option<PathBuf> {
    shared_testdata(&format!("lidia/upstream/{rel}"))
}

/// The options a golden's `<opts>` name stands for (testdata README); `crc` changes
/// nothing in the written bytes, and `lines`/`files` nothing from an ELF.
fn options_for(opts: &str) -> ElfOptions {
    let mut o = ElfOptions::default();
    match opts {
        "none" | "crc" => {}
        "crc_lines_files" => {
            o.lidia.lines = true;
            o.lidia.files = true;
        }
        "symtab_only" => o.symbols.gopclntab = false,
        "pclntab_only" => o.symbols.symtab = false,
        other => panic!("unknown option set {other}"),
    }
    o
}

/// Every `(elf, opts, golden)` triple of a `lidia/` folder whose ELF is in `elf_dir`.
fn golden_builds(elf_dir: &Path, lidia_dir: &Path) -> Vec<(PathBuf, String, PathBuf)> {
    let mut out = Vec::new();
    for (golden, stem) in files_ending_in(lidia_dir, ".lidia") {
        let Some((elf, opts)) = stem.rsplit_once('.') else {
            continue;
        };
        let elf = elf_dir.join(elf);
        if elf.exists() {
            out.push((elf, opts.to_owned(), golden));
        }
    }
    out.sort();
    out
}

fn check_golden_builds(elf_dir: &Path, lidia_dir: &Path) -> usize {
    let builds = golden_builds(elf_dir, lidia_dir);
    for (elf, opts, golden) in &builds {
        let got = build_from_elf(elf, &options_for(opts))
            .unwrap_or_else(|e| panic!("{} ({opts}): {e}", elf.display()));
        assert!(
            got == read(golden),
            "{} with {opts} differs from {}",
            elf.display(),
            golden.display()
        );
    }
    builds.len()
}

#[test]
fn elf_builds_equal_the_go_goldens() {
    let n = check_golden_builds(&testdata("lidia/elf"), &testdata("lidia/lidia"));
    // 8 ELFs: none + crc_lines_files each, crc for the 6 C ones, 2 × 2 Go-only sets.
    assert_eq!(n, 8 * 2 + 6 + 4);
}

#[test]
fn upstream_elf_builds_equal_the_go_goldens() {
    let (Some(elf), Some(lidia)) = (upstream("elf"), upstream("lidia")) else {
        eprintln!("upstream Lidia test data absent: skipped");
        return;
    };
    assert!(check_golden_builds(&elf, &lidia) > 0);
}

#[test]
fn builds_are_deterministic() {
    for elf in ["gohello", "simple", "libdemo-stripped.so"] {
        let path = testdata(&format!("lidia/elf/{elf}"));
        let options = ElfOptions::default();
        let a = build_from_elf(&path, &options).unwrap();
        let b = build_from_elf(&path, &options).unwrap();
        assert_eq!(a, b, "{elf}");
    }
}

/// A copy of a 64-bit little-endian ELF whose `.text` section is renamed `.tixt` in the
/// section-name string table (nothing else changes).
fn without_text_section(elf: &[u8]) -> Vec<u8> {
    let u16_at = |at: usize| u16::from_le_bytes(elf[at..at + 2].try_into().unwrap()) as usize;
    let u64_at = |at: usize| u64::from_le_bytes(elf[at..at + 8].try_into().unwrap()) as usize;
    assert_eq!(
        &elf[..6],
        b"\x7fELF\x02\x01",
        "test helper reads ELF64 LE only"
    );
    let (shoff, shentsize, shstrndx) = (u64_at(0x28), u16_at(0x3a), u16_at(0x3e));
    let names = shoff + shstrndx * shentsize;
    let (start, size) = (u64_at(names + 0x18), u64_at(names + 0x20));
    let table = &elf[start..start + size];
    let at = table
        .windows(7)
        .position(|w| w == b"\0.text\0")
        .expect(".text in the section names")
        + start;
    let mut out = elf.to_vec();
    out[at + 3] = b'i';
    out
}

/// Writes `lidia/elf/libdemo.so` without its `.text` section as `name` into `dir`.
fn libdemo_without_text(dir: &Path, name: &str) -> PathBuf {
    let elf = dir.join(name);
    std::fs::write(
        &elf,
        without_text_section(&read(&testdata("lidia/elf/libdemo.so"))),
    )
    .unwrap();
    elf
}

#[test]
fn missing_text_fails_like_pyroscope_unless_gopclntab_is_off() {
    let dir = tempfile::tempdir().unwrap();
    let elf = libdemo_without_text(dir.path(), "libdemo-notext.so");

    let err = build_from_elf(&elf, &ElfOptions::default())
        .unwrap_err()
        .to_string();
    assert!(err.contains("libdemo-notext.so"), "{err}");
    assert!(err.contains(".text"), "{err}");

    // Without .gopclntab nothing needs .text: the symbols are those of the original.
    let options = ElfOptions {
        symbols: SymbolSources {
            gopclntab: false,
            ..SymbolSources::default()
        },
        ..ElfOptions::default()
    };
    let got = build_from_elf(&elf, &options).unwrap();
    assert_eq!(got, read(&testdata("lidia/lidia/libdemo.so.none.lidia")));
}

#[test]
fn failed_build_leaves_no_output() {
    let dir = tempfile::tempdir().unwrap();
    let elf = libdemo_without_text(dir.path(), "notext.so");

    let fresh = dir.path().join("fresh.lidia");
    assert!(write_from_elf(&elf, &fresh, &ElfOptions::default()).is_err());
    assert!(!fresh.exists());

    let existing = dir.path().join("existing.lidia");
    std::fs::write(&existing, b"previous contents").unwrap();
    assert!(write_from_elf(&elf, &existing, &ElfOptions::default()).is_err());
    assert_eq!(read(&existing), b"previous contents");
    // Only the two inputs remain: no temporary file is left behind either.
    assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 2);

    let stats = write_from_elf(
        &testdata("lidia/elf/simple"),
        &fresh,
        &ElfOptions::default(),
    )
    .unwrap();
    assert_eq!(
        read(&fresh),
        read(&testdata("lidia/lidia/simple.none.lidia"))
    );
    assert_eq!(stats.layout.file_size, read(&fresh).len() as u64);
}

#[test]
fn truncated_or_garbage_elf_is_an_error_naming_the_file() {
    let name = Path::new("cut.elf");
    let options = ElfOptions::default();
    // gcc and ld put the section headers at the end of the file, so every cut loses them.
    for elf in ["simple", "libdemo-stripped.so", "simple-highva"] {
        let bytes = read(&testdata(&format!("lidia/elf/{elf}")));
        let lengths = [
            0,
            1,
            4,
            16,
            63,
            64,
            200,
            4096,
            bytes.len() / 2,
            bytes.len() - 1,
        ];
        for len in lengths {
            match collect_from_elf(name, &bytes[..len], &options) {
                Ok(_) => panic!("{elf} cut at {len} was accepted"),
                Err(e) => assert!(e.to_string().contains("cut.elf"), "{elf} at {len}: {e}"),
            }
        }
    }
    let err = collect_from_elf(name, b"#!/bin/sh\necho not an ELF file\n", &options).err();
    assert!(err.is_some_and(|e| e.to_string().contains("cut.elf")));

    let dir = tempfile::tempdir().unwrap();
    let missing = dir.path().join("missing.elf");
    let err = build_from_elf(&missing, &options).unwrap_err();
    assert!(err.to_string().contains("missing.elf"), "{err}");
}

#[test]
fn cut_or_corrupted_go_binaries_never_panic() {
    // The Go linker puts the section headers near the start, so a cut Go binary may still
    // parse; its symbol table or .gopclntab is then cut, which must give fewer functions
    // or an error, never a panic. Flipped bytes cover headers, symbols and .gopclntab.
    let name = Path::new("go.elf");
    let options = ElfOptions::default();
    for elf in ["gohello", "gohello-stripped"] {
        let bytes = read(&testdata(&format!("lidia/elf/{elf}")));
        for len in (0..bytes.len()).step_by(bytes.len() / 97) {
            let _ = collect_from_elf(name, &bytes[..len], &options);
        }
        for at in (0..bytes.len()).step_by(2003) {
            let mut b = bytes.clone();
            b[at] ^= 0xa5;
            let _ = collect_from_elf(name, &b, &options);
        }
    }
}

/// The frames a lookup must give, from the ranges alone: the walk of spec 11.2 over the
/// stable (VA, depth) order, with the files and lines of spec 7.3.
fn model_lookup(sorted: &[&SynthRange], flags: Flags, addr: u64) -> Vec<(String, String, u64)> {
    let file = |s: &str| {
        if flags.files {
            s.to_owned()
        } else {
            String::new()
        }
    };
    let mut covering: Vec<&SynthRange> = Vec::new();
    let mut idx = sorted.iter().rposition(|r| r.va <= addr);
    while let Some(i) = idx {
        let r = sorted[i];
        if r.va <= addr && addr < r.va.wrapping_add(r.length) {
            covering.push(r);
        }
        if r.depth == 0 {
            break;
        }
        idx = i.checked_sub(1);
    }
    let mut frames = Vec::new();
    for (k, r) in covering.iter().enumerate() {
        let (f, line) = match k.checked_sub(1).map(|j| covering[j]) {
            None => {
                let mut line = 0;
                if flags.lines {
                    for e in &r.lines {
                        if addr < r.va.wrapping_add(e.offset) {
                            break;
                        }
                        line = e.line;
                    }
                }
                (file(&r.file), line)
            }
            Some(inner) => {
                let call_file = file(&inner.call_file);
                let f = if call_file.is_empty() {
                    file(&r.file)
                } else {
                    call_file
                };
                (f, inner.call_line)
            }
        };
        frames.push((r.function.clone(), f, line));
    }
    frames
}

fn arb_range() -> impl Strategy<Value = SynthRange> {
    let names = prop::sample::select(vec!["", "a", "b", "main", "[overflow]", "f\u{e9}"]);
    let files = prop::sample::select(vec!["", "a.c", "b.h", "main"]);
    (
        (
            prop::sample::select(vec![0u64, 0xffff_ff00]),
            0u64..0x200,
            0u64..0x80,
            0u64..4,
        ),
        (names, files.clone(), files, 0u64..70_000),
        prop::collection::vec((0u64..0x30, 0u64..70_000), 0..4),
    )
        .prop_map(
            |((base, va, length, depth), (f, file, cf, call_line), lines)| {
                let mut lines: Vec<LineEntry> = lines
                    .into_iter()
                    .map(|(offset, line)| LineEntry { offset, line })
                    .collect();
                lines.sort_by_key(|l| l.offset);
                SynthRange {
                    va: base + va,
                    length,
                    depth,
                    function: f.to_owned(),
                    file: file.to_owned(),
                    call_file: cf.to_owned(),
                    call_line,
                    lines,
                }
            },
        )
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(200))]

    #[test]
    fn written_files_read_back_as_the_model_says(
        ranges in prop::collection::vec(arb_range(), 0..40),
        files in any::<bool>(),
        lines in any::<bool>(),
        probes in prop::collection::vec(0u64..0x240, 0..40),
    ) {
        let flags = Flags { files, lines };
        let blob = write_synth(&ranges, flags);
        let lidia = LidiaFile::parse(&blob).unwrap();
        lidia.verify_checksums().unwrap();
        lidia.validate().unwrap();
        prop_assert_eq!(lidia.len(), ranges.len());

        let mut sorted: Vec<&SynthRange> = ranges.iter().collect();
        sorted.sort_by_key(|r| (r.va, r.depth));
        let bases = [0u64, 0xffff_ff00];
        for addr in bases.iter().flat_map(|b| probes.iter().map(move |p| b + p)) {
            let got: Vec<_> = lidia
                .lookup(addr)
                .map(|f| (f.function.to_string(), f.file.to_string(), f.line))
                .collect();
            prop_assert_eq!(got, model_lookup(&sorted, flags, addr), "address {:#x}", addr);
        }
    }
}
