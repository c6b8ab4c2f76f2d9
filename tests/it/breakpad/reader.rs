//! The `.sym` reader against rust-minidump's `breakpad-symbols`: Mozilla's `dump_syms`
//! writes the `.sym` file of each test program; `breakpad-symbols` answers on it (the
//! reference), and our reader → model → Lidia (and GSYM, symbfile through `convert`)
//! must answer the same frames at every FUNC start, middle and last byte, every line
//! record and INLINE range start, and every PUBLIC address and the byte after it.

use std::collections::BTreeMap;
use std::path::Path;
use std::process::Command;

use breakpad_symbols::{FrameSymbolizer, SimpleModule, SymbolFile};
use symblob::lidia::LidiaFile;
use symblob_build::convert::{self, ConvertOptions, Target};
use symblob_build::lidia::model::write_model;
use symblob_build::readback::breakpad;

use crate::common::{cargo_oracle, missing_oracle, run_scratch_dir};
use crate::lidia_dwarf::fixtures::fixtures;
use crate::lidia_dwarf::oracle::Frame;

/// The `.sym` text `dump_syms --inlines` writes for test program `name`.
fn dump(name: &str) -> Option<Vec<u8>> {
    let Some(tool) = cargo_oracle("dump_syms") else {
        missing_oracle("dump_syms (Mozilla's, `cargo install dump_syms`)");
        return None;
    };
    let bin = fixtures().get(name)?;
    let out = run_scratch_dir("breakpad-reader").join(format!("{}.sym", name.replace('/', "_")));
    let done = Command::new(tool)
        .arg("--inlines")
        .arg(bin)
        .arg("-o")
        .arg(&out)
        .output()
        .expect("run dump_syms");
    assert!(
        done.status.success(),
        "dump_syms {name}: {}",
        String::from_utf8_lossy(&done.stderr)
    );
    Some(std::fs::read(&out).expect("read the .sym"))
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
fn reference(sym: &SymbolFile, address: u64) -> Vec<Frame> {
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
