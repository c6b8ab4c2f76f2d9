//! The `.sym` reader against rust-minidump's `breakpad-symbols`: Mozilla's `dump_syms`
//! writes the `.sym` file of each test program; `breakpad-symbols` answers on it (the
//! reference), and our reader → model → Lidia (and GSYM, symbfile through `convert`)
//! must answer the same frames at every FUNC start, middle and last byte, every line
//! record and INLINE range start, and every PUBLIC address and the byte after it.

use std::collections::BTreeMap;
use std::path::Path;

use breakpad_symbols::{FrameSymbolizer, SimpleModule, SymbolFile};
use symblob::lidia::LidiaFile;
use symblob_build::convert::{self, ConvertOptions, Target};
use symblob_build::lidia::model::write_model;
use symblob_build::readback::breakpad;

use crate::lidia_dwarf::fixtures::fixtures;
use crate::lidia_dwarf::oracle::Frame;

/// The `.sym` text `dump_syms --inlines` writes for test program `name`.
fn dump(name: &str) -> Option<Vec<u8>> {
    let bin = fixtures().get(name)?;
    super::writer::dump_syms(bin).map(String::into_bytes)
}

/// What `breakpad-symbols` reports for one address.
#[derive(Default)]
struct Answer {
    address: u64,
    function: Option<String>,
    file: Option<String>,
    line: u32,
    /// (name, file, line), outermost first.
    inlines: Vec<(String, Option<String>, Option<u32>)>,
}

impl FrameSymbolizer for Answer {
    fn get_instruction(&self) -> u64 {
        self.address
    }
    fn set_function(&mut self, name: &str, _base: u64, _parameter_size: u32) {
        self.function = Some(name.to_string());
    }
    fn set_source_file(&mut self, file: &str, line: u32, _base: u64) {
        self.file = Some(file.to_string());
        self.line = line;
    }
    fn add_inline_frame(&mut self, name: &str, file: Option<&str>, line: Option<u32>) {
        self.inlines
            .push((name.to_string(), file.map(String::from), line));
    }
}

/// `breakpad-symbols`' frames at `address`, innermost first, in the shape of Lidia's
/// (function, file or "", line or 0).
pub(crate) fn reference(sym: &SymbolFile, address: u64) -> Vec<Frame> {
    let module = SimpleModule {
        base_address: Some(0),
        size: Some(u64::MAX),
        ..SimpleModule::default()
    };
    let mut answer = Answer {
        address,
        ..Answer::default()
    };
    sym.fill_symbol(&module, &mut answer);
    let Some(function) = answer.function else {
        return Vec::new();
    };
    let mut frames = vec![(
        function,
        answer.file.unwrap_or_default(),
        u64::from(answer.line),
    )];
    frames.extend(
        answer.inlines.into_iter().map(|(name, file, line)| {
            (name, file.unwrap_or_default(), u64::from(line.unwrap_or(0)))
        }),
    );
    frames.reverse();
    frames
}

/// The addresses to compare: every FUNC start, middle and last byte, every line record
/// and INLINE range start, every PUBLIC address and the byte after it (read from the text
/// here, independently of the reader).
fn sample(text: &str) -> Vec<u64> {
    let hex = |t: &str| u64::from_str_radix(t, 16).ok();
    let mut out = Vec::new();
    let mut in_func = false;
    for line in text.lines() {
        let f: Vec<&str> = line.split(' ').collect();
        let rest = |f: &[&str]| -> Vec<String> {
            let f = if f.get(1) == Some(&"m") {
                &f[2..]
            } else {
                &f[1..]
            };
            f.iter().map(|s| s.to_string()).collect()
        };
        match f[0] {
            "FUNC" => {
                let r = rest(&f);
                let (Some(a), Some(s)) = (hex(&r[0]), hex(&r[1])) else {
                    continue;
                };
                out.extend([a, a + s / 2, (a + s).saturating_sub(1)]);
                in_func = true;
            }
            "PUBLIC" => {
                if let Some(a) = hex(&rest(&f)[0]) {
                    out.extend([a, a + 1]);
                }
                in_func = false;
            }
            "INLINE" => out.extend(f[5..].iter().step_by(2).filter_map(|t| hex(t))),
            "INLINE_ORIGIN" => {}
            "FILE" | "MODULE" | "INFO" | "STACK" => in_func = false,
            first if in_func => out.extend(hex(first)),
            _ => {}
        }
    }
    out.sort_unstable();
    out.dedup();
    out
}

/// Why our answer may differ from `breakpad-symbols`' at one address; `None`: it may
/// not.
fn difference_class(
    ours: &[Frame],
    theirs: &[Frame],
    above_everything: bool,
) -> Option<&'static str> {
    // The last PUBLIC covers every address above it in breakpad-symbols; the model keeps
    // it empty (as GSYM's last record of size 0), so nothing answers there.
    if ours.is_empty() && theirs.len() == 1 && above_everything {
        return Some("past the last PUBLIC");
    }
    // Where no line record covers an address, breakpad-symbols gives the innermost frame
    // no file; the model has one file per span, so the span keeps the file of its other
    // rows there and the line is 0 in both. Only that frame's file may differ.
    let (Some(o), Some(t)) = (ours.first(), theirs.first()) else {
        return None;
    };
    if ours.len() == theirs.len()
        && ours[1..] == theirs[1..]
        && (o.0 == t.0 && o.2 == 0 && t.2 == 0 && t.1.is_empty())
    {
        return Some("no line record: the span's file");
    }
    None
}

/// Compares on test program `name`; returns (addresses, agreeing, differences by class).
fn compare(name: &str) -> Option<(usize, usize, BTreeMap<&'static str, usize>)> {
    let text = dump(name)?;
    let sym = SymbolFile::from_bytes(&text).expect("breakpad-symbols parses dump_syms' file");
    let source = breakpad::read(&text, name).unwrap_or_else(|e| panic!("{e}"));
    let lidia_bytes = write_model(&source.model);
    let lidia = LidiaFile::parse(&lidia_bytes).expect("Lidia parses");
    let addrs = sample(std::str::from_utf8(&text).expect("UTF-8"));
    let last = source
        .model
        .functions
        .iter()
        .map(|g| g.end().max(g.start()))
        .max()
        .unwrap_or(0);
    let mut classes = BTreeMap::new();
    let mut agree = 0;
    let mut wrong = Vec::new();
    for &a in &addrs {
        let ours = crate::lidia_dwarf::frames(&lidia, a);
        let theirs = reference(&sym, a);
        if ours == theirs {
            agree += 1;
        } else if let Some(class) = difference_class(&ours, &theirs, a >= last) {
            *classes.entry(class).or_default() += 1;
        } else {
            wrong.push(format!(
                "{a:#x}: ours {ours:?}\n        breakpad-symbols {theirs:?}"
            ));
        }
    }
    assert!(
        wrong.is_empty(),
        "{name}: {} of {} addresses differ:\n{}",
        wrong.len(),
        addrs.len(),
        wrong[..wrong.len().min(20)].join("\n")
    );
    Some((addrs.len(), agree, classes))
}

fn check(name: &str) {
    if let Some((n, agree, classes)) = compare(name) {
        eprintln!(
            "{name}: {agree} of {n} addresses agree with breakpad-symbols; other: {classes:?}"
        );
        assert!(n > 50, "{name}: only {n} addresses sampled");
    }
}

#[test]
fn c_dwarf5_answers_as_breakpad_symbols() {
    check("c-dwarf5");
}

#[test]
fn cpp_gxx_answers_as_breakpad_symbols() {
    check("cpp-gxx");
}

#[test]
fn rust_answers_as_breakpad_symbols() {
    check("rust");
}

#[test]
fn c_aarch64_answers_as_breakpad_symbols() {
    check("c-aarch64");
}

#[test]
fn go_answers_as_breakpad_symbols() {
    check("go");
}

/// `convert --to gsym` and `--to symbfile` answer as the Lidia file does (which answers
/// as breakpad-symbols, above), and a GSYM output takes the code identifier as UUID.
#[test]
fn converted_files_answer_alike() {
    let Some(text) = dump("c-dwarf5") else {
        return;
    };
    let path = Path::new("c-dwarf5.sym");
    let options = ConvertOptions::default();
    let lidia = convert::convert(path, &text, Target::Lidia, &options).expect("to Lidia");
    let addrs = sample(std::str::from_utf8(&text).expect("UTF-8"));
    let want = crate::convert::frames::answers(Target::Lidia, &lidia.bytes, &addrs);
    let sym = SymbolFile::from_bytes(&text).expect("breakpad-symbols parses dump_syms' file");
    for to in [Target::Gsym, Target::Symbfile] {
        let out = convert::convert(path, &text, to, &options).expect("convert");
        let got = crate::convert::frames::answers(to, &out.bytes, &addrs);
        let differ: Vec<_> = addrs
            .iter()
            .zip(got.iter().zip(&want))
            .filter(|(_, (g, w))| g != w)
            // Past the last PUBLIC, GSYM's record of size 0 (the model's empty function)
            // answers, as LLVM lets it, every address above it: as breakpad-symbols does.
            .filter(|(&a, (g, w))| {
                !(to == Target::Gsym && w.is_empty() && **g == reference(&sym, a))
            })
            .map(|(a, (g, w))| format!("{a:#x}: {g:?} / Lidia {w:?}"))
            .collect();
        assert!(
            differ.is_empty(),
            "{to:?}:\n{}",
            differ[..differ.len().min(20)].join("\n")
        );
    }
    let gsym = convert::convert(path, &text, Target::Gsym, &options).expect("to GSYM");
    let file = symblob::gsym::GsymFile::parse(&gsym.bytes).expect("GSYM parses");
    let code_id = breakpad::read(&text, "x")
        .expect("reads")
        .module
        .code_id
        .expect("CODE_ID");
    let uuid: String = file
        .header()
        .uuid
        .iter()
        .map(|b| format!("{b:02X}"))
        .collect();
    assert_eq!(uuid, code_id);
}

/// A hand-made file with the corners dump_syms rarely writes: line records with gaps,
/// of size 0 and overlapping; FUNC records of size 0 and overlapping; PUBLIC records
/// inside and at a FUNC, two at one address; INLINE ranges that overlap at one depth,
/// reach past their parent or past the FUNC. Every address answers as breakpad-symbols
/// answers.
#[test]
fn corner_cases_answer_as_breakpad_symbols() {
    let text = b"MODULE Linux x86_64 0A0B prog\n\
        FILE 0 a.c\nFILE 1 b.h\nFILE 2 c.h\n\
        INLINE_ORIGIN 0 in0\nINLINE_ORIGIN 1 in1\nINLINE_ORIGIN 2 in2\n\
        PUBLIC 1000 0 before\n\
        FUNC 1010 30 0 f\n\
        INLINE 0 5 0 0 1014 8 1018 10\n\
        INLINE 1 6 1 1 1016 10\n\
        INLINE 0 7 0 2 1038 20\n\
        1010 4 1 0\n1014 0 9 0\n1014 6 2 1\n1016 4 3 2\n1020 4 0 0\n1030 8 4 0\n\
        FUNC 1020 30 0 overlapping\n1020 30 1 0\n\
        FUNC 1040 0 0 empty\n\
        PUBLIC 1044 0 inside\n\
        FUNC 1048 8 0 g\n1048 8 5 0\n\
        PUBLIC 1048 0 at g\n\
        PUBLIC 1050 0 b\nPUBLIC 1050 0 a\n\
        PUBLIC 1060 0 last\n";
    let sym = SymbolFile::from_bytes(text).expect("breakpad-symbols parses it");
    let source = breakpad::read(text, "corners.sym").unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(source.skipped.get("FUNC (size 0)"), Some(&1));
    assert_eq!(source.skipped.get("FUNC (overlapping)"), Some(&1));
    let lidia_bytes = write_model(&source.model);
    let lidia = LidiaFile::parse(&lidia_bytes).expect("Lidia parses");
    let mut wrong = Vec::new();
    for a in 0xff0..0x1070u64 {
        let ours = crate::lidia_dwarf::frames(&lidia, a);
        let theirs = reference(&sym, a);
        if ours != theirs && difference_class(&ours, &theirs, a >= 0x1060).is_none() {
            wrong.push(format!(
                "{a:#x}: ours {ours:?}\n        breakpad-symbols {theirs:?}"
            ));
        }
    }
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
}

/// Each broken record is refused with the line it is on.
#[test]
fn broken_files_name_the_line() {
    let head = "MODULE Linux x86_64 0A0B prog\n";
    let cases = [
        ("FUNC 1000 10\n", 2),
        ("FUNC 1000 1x 0 f\n", 2),
        ("FILE 0 a.c\n1000 4 1 0\n", 3),
        ("INLINE_ORIGIN 0 i\nINLINE 0 1 0 0 1000 4\n", 3),
        ("FUNC 1000 10 0 f\n1000 4 1 9\n", 3),
        ("FILE 0 a.c\nFUNC 1000 10 0 f\nINLINE 0 1 0 5 1000 4\n", 4),
        ("FUNC fffffffffffffff0 20 0 f\n", 2),
        (
            "FILE 0 a.c\nFUNC 1000 10 0 f\n1000 ffffffffffffffff 1 0\n",
            4,
        ),
        ("STACK CFI 1000 .cfa: $rsp 8 +\n", 2),
        (
            "STACK CFI INIT 1000 10 .cfa: $rsp 8 +\nSTACK CFI 2000 .cfa: $rsp 16 +\n",
            3,
        ),
        ("FILE 0 a.c\nFILE 0 b.c\n", 3),
        ("PUBLIC 1000 0 f\nFUNC 1000 10 0 cut", 3),
    ];
    for (body, line) in cases {
        let text = format!("{head}{body}");
        let err = convert::convert(
            Path::new("bad.sym"),
            text.as_bytes(),
            Target::Lidia,
            &ConvertOptions::default(),
        )
        .expect_err(body)
        .to_string();
        assert!(err.contains(&format!("bad.sym:{line}:")), "{body:?}: {err}");
    }
}

/// The records of a `.sym` text with FILE and INLINE_ORIGIN numbers replaced by what
/// they name (writers number them in their own order), without INFO, FILE, INLINE_ORIGIN
/// and STACK records, and with line records that continue the one before with the same
/// line and file joined (dump_syms writes one per DWARF row, where a column or flag
/// changes; a row of the model starts only where the line changes, and lookups answer
/// alike).
fn resolved(text: &[u8]) -> Vec<String> {
    let text = String::from_utf8_lossy(text);
    let mut files = BTreeMap::new();
    let mut origins = BTreeMap::new();
    for line in text.lines() {
        let f: Vec<&str> = line.splitn(3, ' ').collect();
        match (f[0], f.get(1), f.get(2)) {
            ("FILE", Some(n), Some(name)) => files.insert(n.to_string(), name.to_string()),
            ("INLINE_ORIGIN", Some(n), Some(name)) => {
                origins.insert(n.to_string(), name.to_string())
            }
            _ => None,
        };
    }
    let mut out = Vec::new();
    let mut in_func = false;
    for line in text.lines() {
        let mut f: Vec<String> = line.split(' ').map(String::from).collect();
        match f[0].as_str() {
            "FUNC" => in_func = true,
            "PUBLIC" | "MODULE" => in_func = false,
            "INFO" | "FILE" | "INLINE_ORIGIN" | "STACK" => {
                in_func &= f[0] == "INLINE_ORIGIN";
                continue;
            }
            "INLINE" => {
                f[3] = files[&f[3]].clone();
                f[4] = origins[&f[4]].clone();
            }
            _ if in_func && f.len() == 4 => {
                f[3] = files[&f[3]].clone();
                let hex = |t: &str| u64::from_str_radix(t, 16).unwrap_or(0);
                let prev: Option<Vec<String>> = out
                    .last()
                    .map(|p: &String| p.split(' ').map(String::from).collect());
                if let Some(p) = prev.filter(|p| p.len() == 4 && p[0] != "INLINE") {
                    if hex(&p[0]) + hex(&p[1]) == hex(&f[0]) && p[2..] == f[2..] {
                        let size = hex(&p[1]) + hex(&f[1]);
                        *out.last_mut().expect("a previous record") =
                            format!("{} {size:x} {} {}", p[0], p[2], p[3]);
                        continue;
                    }
                }
            }
            _ => {}
        }
        out.push(f.join(" "));
    }
    out
}

/// Read back and written again by symblob's `.sym` writer, dump_syms' file of a test
/// program gives the same FUNC, line, INLINE and PUBLIC records (the reader's model is
/// what the writer expects: a PUBLIC as a one-span function without rows where its
/// symbol starts, a FUNC's pieces as one function).
///
/// Not on the Rust program: there dump_syms writes several INLINE records for one call
/// site and origin under one parent (one per DWARF inlined-subroutine entry), which the
/// writer joins into one record with the ranges of all; the lookups answer alike.
#[test]
fn read_and_written_again_gives_the_same_records() {
    for name in ["c-dwarf5", "cpp-gxx", "c-aarch64", "go"] {
        round_trip(name);
    }
}

fn round_trip(name: &str) {
    let Some(text) = dump(name) else {
        return;
    };
    let source = breakpad::read(&text, name).unwrap_or_else(|e| panic!("{e}"));
    let (written, _) = symblob_build::breakpad::writer::write_model(
        &source.model,
        &source.module,
        &source.multiple,
    )
    .expect("memory takes every part");
    let (ours, theirs) = (resolved(written.into_string().as_bytes()), resolved(&text));
    let only_ours: Vec<_> = ours
        .iter()
        .filter(|r| !theirs.contains(r))
        .take(10)
        .collect();
    let only_theirs: Vec<_> = theirs
        .iter()
        .filter(|r| !ours.contains(r))
        .take(10)
        .collect();
    assert!(
        ours == theirs,
        "{name}: {} / {} records; only ours: {only_ours:#?}\nonly dump_syms': {only_theirs:#?}",
        ours.len(),
        theirs.len()
    );
}
