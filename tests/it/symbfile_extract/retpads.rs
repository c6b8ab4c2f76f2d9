//! Return pads against the call sites `objdump -d` lists (x86-64 and aarch64), with the
//! inline chain of every pad checked against `llvm-symbolizer-14 --inlining` at the call
//! instruction; and the return pads of upstream's golden aarch64 ELF (spec §6 table).

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::OnceLock;

use symblob_build::extract::{ranges, ExtractOptions, RangeRecord, ReturnPadRecord};
use symblob_build::retpads::return_pads;

use super::oracles::{agree, base_name, levels};
use crate::common::{missing_oracle, run_scratch_dir, shared_testdata, testdata, tool};
use crate::lidia_dwarf::fixtures::fixtures;
use crate::lidia_dwarf::oracle::{self, Frame};

/// (call address, length) of every call objdump disassembles (`--insn-width=16` keeps
/// every instruction's bytes on its line).
fn objdump_calls(objdump: &Path, bin: &Path, aarch64: bool) -> Vec<(u64, u64)> {
    let out = Command::new(objdump)
        .args(["-d", "--insn-width=16"])
        .arg(bin)
        .output()
        .expect("objdump runs");
    assert!(out.status.success(), "objdump failed");
    let text = String::from_utf8_lossy(&out.stdout);
    let mut calls = Vec::new();
    for line in text.lines() {
        let mut cols = line.trim_start().split('\t');
        let (Some(addr), Some(bytes), Some(asm)) = (cols.next(), cols.next(), cols.next()) else {
            continue;
        };
        let Some(Ok(addr)) = addr.strip_suffix(':').map(|a| u64::from_str_radix(a, 16)) else {
            continue;
        };
        let len = bytes.split_whitespace().map(str::len).sum::<usize>() as u64 / 2;
        let mnemonic = asm
            .split_whitespace()
            .find(|w| !matches!(*w, "notrack" | "bnd" | "data16" | "cs" | "ds"))
            .unwrap_or("");
        let is_call = if aarch64 {
            matches!(mnemonic, "bl" | "blr" | "svc")
        } else {
            matches!(mnemonic, "call" | "callq" | "syscall" | "int" | "into")
        };
        if is_call {
            calls.push((addr, len));
        }
    }
    calls
}

/// Our pad's entries as frames, innermost first.
fn pad_frames(p: &ReturnPadRecord) -> Vec<Frame> {
    p.entries
        .iter()
        .rev()
        .map(|e| {
            (
                e.func.clone(),
                base_name(e.file.as_deref().unwrap_or("")),
                u64::from(e.line.unwrap_or(0)),
            )
        })
        .collect()
}

fn check(name: &str, bin: &Path, objdump: &Path, aarch64: bool) {
    let Some(symbolizer) = tool("llvm-symbolizer-14") else {
        return;
    };
    let records = ranges(bin, &ExtractOptions::default()).unwrap().records;
    let pads = return_pads(bin, &records).unwrap();
    let tops: Vec<&RangeRecord> = records.iter().filter(|r| r.depth == 0).collect();
    let in_function = |va: u64| tops.iter().any(|r| r.contains(va));
    let calls: Vec<(u64, u64)> = objdump_calls(objdump, bin, aarch64)
        .into_iter()
        .filter(|&(a, _)| in_function(a))
        .collect();
    assert!(!calls.is_empty(), "{name}: objdump lists calls");
    let want: BTreeSet<u64> = calls.iter().map(|&(a, len)| a + len - 1).collect();
    let have: BTreeSet<u64> = pads.iter().map(|p| p.va).collect();
    assert_eq!(have.len(), pads.len(), "{name}: one pad per address");
    assert_eq!(
        have, want,
        "{name}: return pads against objdump's call sites (ours − objdump: {:x?}, objdump − ours: {:x?})",
        have.difference(&want).collect::<Vec<_>>(),
        want.difference(&have).collect::<Vec<_>>()
    );
    // The inline chain of each pad is what LLVM gives the call instruction.
    let call_of: std::collections::BTreeMap<u64, u64> =
        calls.iter().map(|&(a, len)| (a + len - 1, a)).collect();
    let addrs: Vec<u64> = pads.iter().map(|p| call_of[&p.va]).collect();
    let linkage = oracle::symbolize_names(&symbolizer, bin, &addrs, "linkage");
    let short = oracle::symbolize_names(&symbolizer, bin, &addrs, "short");
    let mut bad = Vec::new();
    for (i, p) in pads.iter().enumerate() {
        let got = pad_frames(p);
        if !agree(&got, &levels(&linkage[i], &short[i]), false) {
            bad.push(format!(
                "pad {:#x}\n  ours: {got:?}\n  llvm: {:?}",
                p.va, linkage[i]
            ));
        }
    }
    eprintln!(
        "{name}: {} pads = objdump's call sites; {} chains disagree with llvm-symbolizer",
        pads.len(),
        bad.len()
    );
    assert!(bad.is_empty(), "{name}:\n{}", bad.join("\n"));
}

/// [`check`] on the x86-64 fixture `name`.
fn check_x86_64(name: &str) {
    let Some(objdump) = tool("objdump") else {
        return;
    };
    let Some(bin) = fixtures().get(name) else {
        missing_oracle(&format!("fixture {name}"));
        return;
    };
    check(name, bin, &objdump, false);
}

#[test]
fn x86_64_pads_are_objdumps_call_sites() {
    check_x86_64("c-dwarf5");
}

#[test]
fn x86_64_cpp_pads_are_objdumps_call_sites() {
    check_x86_64("cpp-gxx");
}

/// `../dwarf/main.c` and `other.c` with `aarch64_double.c`, built once.
fn aarch64_fixture() -> Option<&'static Path> {
    static CELL: OnceLock<Option<PathBuf>> = OnceLock::new();
    let built = CELL.get_or_init(|| {
        let gcc = tool("aarch64-linux-gnu-gcc")?;
        let out = run_scratch_dir("retpad-fixtures").join("c-aarch64");
        let ok = Command::new(gcc)
            .args(["-O2", "-g"])
            .arg(testdata("dwarf/main.c"))
            .arg(testdata("dwarf/other.c"))
            .arg(testdata("symbfile/aarch64_double.c"))
            .arg("-o")
            .arg(&out)
            .status()
            .is_ok_and(|s| s.success());
        if !ok {
            missing_oracle("aarch64-linux-gnu-gcc could not build the aarch64 fixture");
            return None;
        }
        Some(out)
    });
    built.as_deref()
}

#[test]
fn aarch64_pads_are_objdumps_call_sites() {
    let Some(objdump) = tool("aarch64-linux-gnu-objdump") else {
        return;
    };
    let Some(bin) = aarch64_fixture() else { return };
    check("c-aarch64", bin, &objdump, true);
}

/// Upstream's golden range file and the aarch64 ELF it was made from: our ranges decode to
/// the same records (through the reference model), and our pads are the table of spec §6.
#[test]
fn upstream_inline_no_tco() {
    let Some(dir) = shared_testdata("symbfile/upstream") else {
        return;
    };
    let Some(python) = tool("python3") else {
        return;
    };
    let bin = dir.join("inline-no-tco");
    // Upstream made the golden file with the DWARF extractor alone.
    let options = ExtractOptions {
        dwarf_only: true,
        ..ExtractOptions::default()
    };
    let records = ranges(&bin, &options).unwrap().records;
    let Some(model) = crate::common::shared_model("symbfile_ref.py") else {
        return;
    };
    let out = Command::new(python)
        .arg(&model)
        .args(["dump", "--json"])
        .arg(dir.join("inl.symbfile"))
        .output()
        .expect("symbfile_ref.py runs");
    assert!(out.status.success());
    let json: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let want: Vec<String> = json["records"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| {
            let s = |k: &str| r[k].as_str().map_or("-".to_string(), str::to_string);
            format!(
                "{:#x} {} {} {} {} {} {} {}",
                r["elf_va"].as_u64().unwrap(),
                r["length"].as_u64().unwrap(),
                r["depth"].as_u64().unwrap(),
                s("func"),
                s("file"),
                s("call_file"),
                r["call_line"]
                    .as_u64()
                    .map_or("-".into(), |l| l.to_string()),
                r["line_table"]
            )
        })
        .collect();
    let have: Vec<String> = records
        .iter()
        .map(|r| {
            let o = |s: &Option<String>| s.clone().unwrap_or_else(|| "-".into());
            let lines: Vec<[u32; 2]> = r.lines.iter().map(|l| [l.offset, l.line]).collect();
            format!(
                "{:#x} {} {} {} {} {} {} {}",
                r.va,
                r.length,
                r.depth,
                r.func,
                o(&r.file),
                o(&r.call_file),
                r.call_line.map_or("-".into(), |l| l.to_string()),
                serde_json::to_string(&lines).unwrap()
            )
        })
        .collect();
    assert_eq!(
        have, want,
        "our ranges of inline-no-tco, in order, against inl.symbfile"
    );

    let pads = return_pads(&bin, &records).unwrap();
    let mut got: Vec<(u64, String)> = pads
        .iter()
        .map(|p| {
            let chain: Vec<String> = p
                .entries
                .iter()
                .map(|e| {
                    assert!(e.file.as_deref().is_some_and(|f| f.ends_with("/inline.c")));
                    format!("{}:{}", e.func, e.line.unwrap())
                })
                .collect();
            (p.va, chain.join(" → "))
        })
        .collect();
    got.sort();
    // Spec §6, "Expected pads for the golden file with inline-no-tco".
    let want = [
        (0x64b, "main:39"),
        (
            0x657,
            "main:40 → a_inline:35 → b_inline:31 → c_inline:27 → d_inline:23",
        ),
        (0x7b3, "d:7"),
        (0x7cb, "c:11"),
        (0x7df, "b:15"),
        (0x7fb, "a:19"),
    ];
    let want: Vec<(u64, String)> = want.iter().map(|&(a, s)| (a, s.to_string())).collect();
    assert_eq!(got, want);
}

/// Corrupt DWARF abandons units or gives an error, never a panic, in extraction and in the
/// return pads made from whatever was extracted.
#[test]
fn corrupt_dwarf_never_panics() {
    let Some(bin) = fixtures().get("c-dwarf4") else {
        missing_oracle("fixture c-dwarf4");
        return;
    };
    let data = std::fs::read(bin).unwrap();
    let options = ExtractOptions::default();
    for d in crate::lidia_dwarf::corrupt_dwarf_variants(&data, 0x2545_F491_4F6C_DD1D) {
        if let Ok(ex) = symblob_build::extract::ranges_from_bytes(&d, "corrupt", &options) {
            let _ = symblob_build::retpads::return_pads_from_bytes(&d, "corrupt", &ex.records);
        }
    }
}
