//! Independent expectations: `llvm-symbolizer-14 --inlining --functions=linkage` run on
//! the same binary, the function symbols `nm` lists (where to sample addresses), and a
//! model of the Go reader's lookup (spec 11.2) over a file's ranges.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

/// One frame: function, file, line.
pub type Frame = (String, String, u64);

/// The symbolizer binary, if installed.
pub fn symbolizer() -> Option<PathBuf> {
    crate::common::tool("llvm-symbolizer-14")
}

/// Fails, listing them, unless `bad` is empty: the addresses, of the `sampled` ones
/// compared in program `name`, where our frames and llvm-symbolizer's differ.
pub fn assert_agreement(name: &str, sampled: usize, bad: &[String]) {
    assert!(
        bad.is_empty(),
        "{name}: {} of {sampled} addresses disagree with llvm-symbolizer:\n{}",
        bad.len(),
        bad.join("\n")
    );
}

/// The frames `llvm-symbolizer` gives each address, innermost first; one process for
/// all addresses. Unknown functions and files ("??") come back empty, and an address it
/// knows nothing about comes back with no frames.
pub fn symbolize(tool: &Path, bin: &Path, addrs: &[u64]) -> Vec<Vec<Frame>> {
    symbolize_names(tool, bin, addrs, "linkage")
}

/// As [`symbolize`], with `--functions=<names>` (`linkage` or `short`).
pub fn symbolize_names(tool: &Path, bin: &Path, addrs: &[u64], names: &str) -> Vec<Vec<Frame>> {
    let mut child = Command::new(tool)
        .args(["--inlining", "--no-demangle"])
        .arg(format!("--functions={names}"))
        .arg(format!("--obj={}", bin.display()))
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .expect("llvm-symbolizer runs");
    let mut input = String::new();
    for a in addrs {
        input.push_str(&format!("{a:#x}\n"));
    }
    let mut stdin = child.stdin.take().expect("stdin");
    let writer = std::thread::spawn(move || stdin.write_all(input.as_bytes()));
    let out = child.wait_with_output().expect("llvm-symbolizer output");
    writer
        .join()
        .expect("writer thread")
        .expect("write addresses");
    assert!(out.status.success(), "llvm-symbolizer failed");
    let text = String::from_utf8_lossy(&out.stdout);
    let mut result = Vec::with_capacity(addrs.len());
    for block in text.split("\n\n").filter(|b| !b.trim().is_empty()) {
        let lines: Vec<&str> = block.lines().filter(|l| !l.is_empty()).collect();
        let mut frames = Vec::new();
        for pair in lines.chunks(2) {
            let func = pair.first().copied().unwrap_or("??");
            let loc = pair.get(1).copied().unwrap_or("??:0:0");
            // file:line:column; the file itself may contain ':'.
            let mut parts = loc.rsplitn(3, ':');
            let _column = parts.next();
            let line = parts.next().and_then(|l| l.parse().ok()).unwrap_or(0);
            let file = parts.next().unwrap_or("??");
            let unknown = |s: &str| {
                if s == "??" {
                    String::new()
                } else {
                    s.to_string()
                }
            };
            frames.push((unknown(func), unknown(file), line));
        }
        if frames.len() == 1 && frames[0].0.is_empty() && frames[0].1.is_empty() {
            frames.clear();
        }
        result.push(frames);
    }
    assert_eq!(result.len(), addrs.len(), "one answer per address");
    result
}

/// Whether `llvm-dwarfdump-14` shows type units in `bin` (in `.debug_types`, or
/// `DW_UT_type` units in `.debug_info`) and references to them (`DW_FORM_ref_sig8`).
pub fn has_type_units(bin: &Path) -> bool {
    let Some(dwarfdump) = crate::common::tool("llvm-dwarfdump-14") else {
        return true;
    };
    let out = Command::new(dwarfdump)
        .args(["--show-form", "--debug-info", "--debug-types"])
        .arg(bin)
        .output()
        .expect("llvm-dwarfdump runs");
    let text = String::from_utf8_lossy(&out.stdout);
    text.contains("Type Unit:") && text.contains("DW_FORM_ref_sig8")
}

/// Function symbols with a size, from `nm`: (address, size, name).
pub fn functions(bin: &Path) -> Vec<(u64, u64, String)> {
    let out = Command::new("nm")
        .args(["--defined-only", "-S"])
        .arg(bin)
        .output()
        .expect("nm runs");
    let text = String::from_utf8_lossy(&out.stdout);
    let mut v: Vec<(u64, u64, String)> = text
        .lines()
        .filter_map(|l| {
            let f: Vec<&str> = l.split_whitespace().collect();
            if f.len() != 4 || !matches!(f[2], "t" | "T" | "W" | "w" | "i") {
                return None;
            }
            let addr = u64::from_str_radix(f[0], 16).ok()?;
            let size = u64::from_str_radix(f[1], 16).ok()?;
            (size > 0).then(|| (addr, size, f[3].to_string()))
        })
        .collect();
    v.sort();
    v.dedup_by_key(|f| f.0);
    v
}

/// About `target` addresses spread over every function: its first and last byte and
/// every `step`-th byte in between.
pub fn sample(funcs: &[(u64, u64, String)], target: u64) -> Vec<u64> {
    let total: u64 = funcs.iter().map(|f| f.1).sum();
    let step = (total / target.max(1)).max(1);
    // target u64::MAX: every byte.
    let mut out = Vec::new();
    for &(addr, size, _) in funcs {
        let mut a = addr;
        while a < addr + size {
            out.push(a);
            a += step;
        }
        out.push(addr + size - 1);
    }
    out.sort_unstable();
    out.dedup();
    out
}

/// One range as the model sees it.
#[derive(Clone, Debug)]
pub struct ModelRange {
    pub va: u64,
    pub length: u64,
    pub depth: u64,
}

/// Spec 11.2: the last range at or below `addr`, then backwards, collecting covering
/// ranges, stopping at the first depth-0 range. Returns range indexes, innermost first.
pub fn go_lookup(ranges: &[ModelRange], addr: u64) -> Vec<usize> {
    let mut out = Vec::new();
    let n = ranges.partition_point(|r| r.va <= addr);
    let mut i = n;
    while i > 0 {
        i -= 1;
        let r = &ranges[i];
        if r.va <= addr && addr < r.va.wrapping_add(r.length) {
            out.push(i);
        }
        if r.depth == 0 {
            break;
        }
    }
    out
}
