//! PLT entries are named `name@plt` as `objdump -d` names them, demangled as
//! `objdump -d -C` demangles them.

use std::path::Path;
use std::process::Command;

use symblob::lidia::LidiaFile;
use symblob_build::dwarf::DwarfOptions;
use symblob_build::lidia::LidiaWriter;
use symblob_build::pipeline::lidia::collect_dwarf;
use symblob_build::pipeline::lidia::ElfOptions;

use super::fixtures::fixtures;
use crate::common::{missing_oracle, tool};

/// (instruction address, label) of every instruction of the PLT sections that `objdump`
/// disassembles under a `<name@plt>` label; `.plt`'s first entry, labelled relative to
/// another one (`<printf@plt-0x10>`), is left out.
fn objdump_plt(objdump: &Path, bin: &Path, demangle: bool) -> Vec<(u64, String)> {
    let mut cmd = Command::new(objdump);
    cmd.args(["-d", "-j", ".plt", "-j", ".plt.sec", "-j", ".plt.got"]);
    if demangle {
        cmd.arg("-C");
    }
    let out = cmd.arg(bin).output().expect("run objdump");
    assert!(out.status.success(), "objdump failed: {out:?}");
    let text = String::from_utf8(out.stdout).expect("UTF-8");
    let mut label: Option<String> = None;
    let mut insns = Vec::new();
    for line in text.lines() {
        if let Some(l) = line.strip_suffix(">:") {
            let name = l.split_once(" <").map(|(_, n)| n.to_owned());
            label = name.filter(|n| n.ends_with("@plt"));
        } else if let (Some(name), Some((addr, _))) = (&label, line.split_once(":\t")) {
            if let Ok(a) = u64::from_str_radix(addr.trim(), 16) {
                insns.push((a, name.clone()));
            }
        }
    }
    insns
}

/// Compares the PLT names of test program `fixture` with those `objdump` (the binutils
/// of the program's architecture) gives.
fn plt_names_like_objdump(fixture: &str, objdump: &str, demangle: bool) {
    let Some(objdump) = tool(objdump) else {
        return;
    };
    let Some(bin) = fixtures().get(fixture) else {
        missing_oracle(&format!("fixture {fixture}"));
        return;
    };
    let expected = objdump_plt(&objdump, bin, demangle);
    assert!(expected.len() > 10, "{fixture}: {expected:?}");
    let data = std::fs::read(bin).expect("read fixture");
    let options = ElfOptions {
        dwarf: Some(DwarfOptions {
            demangle,
            ..DwarfOptions::default()
        }),
        ..ElfOptions::default()
    };
    let mut writer = LidiaWriter::new(options.lidia);
    collect_dwarf(bin, &data, &options, &mut writer).expect("DWARF build");
    let blob = writer.finish();
    let file = LidiaFile::parse(&blob).expect("parse");
    let mut differ = Vec::new();
    for (addr, want) in &expected {
        let got: Vec<String> = file
            .lookup(*addr)
            .map(|f| String::from_utf8_lossy(f.function.0).into_owned())
            .collect();
        if got != [want.clone()] {
            differ.push(format!("{addr:#x}: objdump {want:?}, ours {got:?}"));
        }
    }
    assert!(differ.is_empty(), "{fixture}:\n{}", differ.join("\n"));
}

#[test]
fn plt_entries_of_c_are_named_like_objdump() {
    plt_names_like_objdump("c-dwarf5", "objdump", false);
}

#[test]
fn plt_entries_of_cpp_are_named_like_objdump() {
    plt_names_like_objdump("cpp-gxx", "objdump", false);
    plt_names_like_objdump("cpp-gxx", "objdump", true);
}

#[test]
fn plt_entries_of_aarch64_are_named_like_its_objdump() {
    plt_names_like_objdump("c-aarch64", "aarch64-linux-gnu-objdump", false);
}
