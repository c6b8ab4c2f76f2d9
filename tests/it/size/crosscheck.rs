//! Cross-checks on programs built here (C, C++, Rust, a PIE shared library, a stripped
//! copy, a Go binary): section sizes against `readelf -SW` of the stripped copy, symbols
//! against GNU `nm -S --defined-only` (names through `llvm-cxxfilt-14`), source paths
//! against `llvm-dwarfdump-14 --debug-info`, every file against `size_ref.py --strict`.

use std::collections::{BTreeMap, BTreeSet};
use std::ffi::OsStr;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::OnceLock;

use symblob_build::size::diff;
use symblob_build::size::json::Json;
use symblob_build::size::model::{is_native, SizeInfo, FLAG_GENERATED_SOURCE};
use symblob_build::size::report::{self, Format};
use symblob_build::size::{writer, ArchiveOptions};

use super::support::{archive, assert_strict, compile, eu_strip, output, prepare_elf, src};
use crate::common::{run_scratch_dir, testdata, tool};

struct Programs {
    bins: BTreeMap<&'static str, PathBuf>,
}

/// The test programs, compiled once.
fn programs() -> &'static Programs {
    static CELL: OnceLock<Programs> = OnceLock::new();
    CELL.get_or_init(|| {
        let dir = run_scratch_dir("size-fixtures");
        let d = dir.as_path();
        let mut bins = BTreeMap::new();
        let mut add = |name: &'static str, cmd: &mut Command| {
            compile(cmd.arg("-o").arg(d.join(name)));
            bins.insert(name, d.join(name));
        };
        if tool("gcc").is_some() {
            let c = src("diffdemo.c");
            add(
                "diffdemo-v1",
                Command::new("gcc").args(["-O2", "-g"]).arg(&c),
            );
            add(
                "diffdemo-v2",
                Command::new("gcc").args(["-O2", "-g", "-DV2"]).arg(&c),
            );
            // Relative relocations packed into a `SHT_RELR` section.
            add(
                "diffdemo-relr",
                Command::new("gcc")
                    .args(["-O2", "-g", "-fPIE", "-pie", "-Wl,-z,pack-relative-relocs"])
                    .arg(&c),
            );
            add(
                "libdiff.so",
                Command::new("gcc")
                    .args(["-O2", "-g", "-shared", "-fPIC"])
                    .arg(&c),
            );
        }
        if tool("g++").is_some() {
            add(
                "cppdemo",
                Command::new("g++")
                    .args(["-O2", "-g"])
                    .arg(src("cppdemo.cpp")),
            );
        }
        if tool("rustc").is_some() {
            add(
                "rustdemo",
                Command::new("rustc")
                    .args(["-g", "-C", "opt-level=1"])
                    .arg(testdata("dwarf/iters.rs")),
            );
        }
        Programs { bins }
    })
}

/// A compiled test program, or `None` (after `missing_oracle`) without its compiler.
pub fn program(name: &str) -> Option<&'static Path> {
    let p = programs().bins.get(name).map(PathBuf::as_path);
    if p.is_none() {
        crate::common::missing_oracle(&format!("compiler for test program {name}"));
    }
    p
}

/// `readelf -SW`: section name → (address, size).
fn readelf_sections(elf: &Path) -> BTreeMap<String, (u64, u64)> {
    let readelf = tool("readelf").expect("readelf");
    let text = output(&readelf, &[OsStr::new("-SW"), elf.as_os_str()]);
    let mut out = BTreeMap::new();
    for line in text.lines() {
        let Some(rest) = line.trim_start().strip_prefix('[') else {
            continue;
        };
        let Some((_, fields)) = rest.split_once(']') else {
            continue;
        };
        let f: Vec<&str> = fields.split_whitespace().collect();
        if f.len() >= 5 && f[0].starts_with('.') {
            let hex = |t: &str| u64::from_str_radix(t, 16).unwrap();
            out.insert(f[0].to_string(), (hex(f[2]), hex(f[4])));
        }
    }
    out
}

/// Address → (size, type letter, demangled name) of every symbol there.
type NmTable = BTreeMap<u64, Vec<(u64, char, String)>>;

/// GNU `nm -S --defined-only` (`-D` for the dynamic table): address → (size, type, name
/// demangled by `llvm-cxxfilt-14`).
fn nm_symbols(elf: &Path, dynamic: bool) -> Option<NmTable> {
    let nm = tool("nm")?;
    let cxxfilt = tool("llvm-cxxfilt-14")?;
    let mut args = vec![OsStr::new("-S"), OsStr::new("--defined-only")];
    if dynamic {
        args.push(OsStr::new("-D"));
    }
    args.push(elf.as_os_str());
    let text = output(&nm, &args);
    let mut rows = Vec::new();
    for line in text.lines() {
        let f: Vec<&str> = line.splitn(4, ' ').collect();
        let (addr, size, ty, name) = match f.len() {
            4 => (f[0], f[1], f[2], f[3]),
            3 => (f[0], "0", f[1], f[2]),
            _ => continue,
        };
        let name = name.split("@@").next().unwrap().to_string();
        rows.push((
            u64::from_str_radix(addr, 16).unwrap(),
            u64::from_str_radix(size, 16).unwrap(),
            ty.chars().next().unwrap(),
            name,
        ));
    }
    let mut child = Command::new(cxxfilt)
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    // SuperSize demangles C++ `_Z` and Rust v0 `_R` names.
    let input: String = rows
        .iter()
        .map(|r| {
            if r.3.starts_with("_Z") || r.3.starts_with("_R") {
                format!("{}\n", r.3)
            } else {
                "_\n".to_string()
            }
        })
        .collect();
    std::io::Write::write_all(&mut child.stdin.take().unwrap(), input.as_bytes()).unwrap();
    let demangled = String::from_utf8(child.wait_with_output().unwrap().stdout).unwrap();
    let mut out = NmTable::new();
    for (row, name) in rows.into_iter().zip(demangled.lines()) {
        // SuperSize's StripLlvmPromotedGlobalNames on what llvm-cxxfilt wrote.
        let name = if row.3.starts_with("_Z") || row.3.starts_with("_R") {
            strip_promoted(name)
        } else {
            row.3.clone()
        };
        out.entry(row.0).or_default().push((row.1, row.2, name));
    }
    Some(out)
}

/// Removes a trailing ` (.llvm.123)` or ` (.1.llvm.123)` from a demangled name.
fn strip_promoted(name: &str) -> String {
    if let Some(open) = name.rfind(" (") {
        let inner = name[open + 2..].strip_suffix(')').unwrap_or("");
        let parts: Vec<&str> = inner.trim_start_matches('.').split('.').collect();
        let numeric = |p: &str| !p.is_empty() && p.bytes().all(|b| b.is_ascii_digit());
        let promoted = match parts[..] {
            ["llvm", n] => numeric(n),
            [m, "llvm", n] => numeric(m) && numeric(n),
            _ => false,
        };
        if promoted {
            return name[..open].to_string();
        }
    }
    name.to_string()
}

/// `llvm-dwarfdump-14 --debug-info`: compile unit ranges with their names.
fn dwarfdump_units(elf: &Path) -> Option<Vec<(u64, u64, String)>> {
    let dd = tool("llvm-dwarfdump-14")?;
    let text = output(
        &dd,
        &[
            OsStr::new("--debug-info"),
            OsStr::new("--recurse-depth=0"),
            elf.as_os_str(),
        ],
    );
    let mut out = Vec::new();
    for unit in text.split("DW_TAG_compile_unit").skip(1) {
        let unit = unit.split("DW_TAG_").next().unwrap();
        let value = |attr: &str| {
            unit.lines()
                .find(|l| l.trim_start().starts_with(attr))
                .map(|l| {
                    let v = &l[l.rfind('(').unwrap() + 1..l.rfind(')').unwrap()];
                    v.trim_matches('"').to_string()
                })
        };
        let Some(name) = value("DW_AT_name") else {
            continue;
        };
        let hex = |t: &str| u64::from_str_radix(t.trim().trim_start_matches("0x"), 16).unwrap();
        if unit.contains("DW_AT_ranges") {
            for l in unit.lines().filter(|l| l.trim_start().starts_with('[')) {
                let (a, b) = l
                    .trim()
                    .trim_matches(|c| "[]()".contains(c))
                    .split_once(',')
                    .unwrap();
                out.push((hex(a), hex(b), name.clone()));
            }
        } else if let (Some(lo), Some(hi)) = (value("DW_AT_low_pc"), value("DW_AT_high_pc")) {
            out.push((hex(&lo), hex(&hi), name.clone()));
        }
    }
    Some(out)
}

/// Archives `elf` with its eu-stripped copy and checks it against the tools.
fn crosscheck(elf_src: &Path, expect_paths: bool) -> Option<SizeInfo> {
    let dir = tempfile::tempdir().unwrap();
    let elf = prepare_elf(elf_src, dir.path());
    let stripped = eu_strip(&elf)?;
    // Names as the symbol table and the demangler give them, without SuperSize's
    // clean-up (which the Chromium goldens check).
    let options = ArchiveOptions {
        rich_names: true,
        ..Default::default()
    };
    let info = archive(&elf, Some(&stripped), &options);
    assert_strict(dir.path(), "out.size", &writer::size_file(&info));
    check_sections(&info, &stripped);
    // Without the stripped copy symblob computes the file `eu-strip` writes: the same
    // sections, `.shstrtab` and overhead (`.other` holds it).
    let computed = archive(&elf, None, &options);
    assert_eq!(
        computed.containers[0].section_sizes,
        info.containers[0].section_sizes,
        "computed strip of {}",
        elf.display()
    );
    check_symbols(&info, &elf, false)?;
    if expect_paths {
        check_paths(&info, &elf)?;
    }
    Some(info)
}

fn check_sections(info: &SizeInfo, stripped: &Path) {
    let mut ours = info.containers[0].section_sizes.clone();
    ours.remove(".other");
    let theirs: BTreeMap<String, i64> = readelf_sections(stripped)
        .into_iter()
        .map(|(k, v)| (k, v.1 as i64))
        .collect();
    assert_eq!(ours, theirs, "section sizes of {}", stripped.display());
}

fn check_symbols(info: &SizeInfo, elf: &Path, dynamic: bool) -> Option<()> {
    let nm = nm_symbols(elf, dynamic)?;
    let native: Vec<_> = info
        .symbols
        .iter()
        .filter(|s| is_native(&s.section) && !s.full_name.starts_with("**"))
        .collect();
    assert!(!native.is_empty());
    for (i, s) in native.iter().enumerate() {
        let entries = nm
            .get(&s.address)
            .unwrap_or_else(|| panic!("{} at {:#x} not in nm", s.full_name, s.address));
        assert!(
            entries
                .iter()
                .any(|e| e.2 == s.full_name || s.full_name == "string literal"),
            "{:?} at {:#x}: nm has {entries:?}",
            s.full_name,
            s.address
        );
        let nm_size = entries.iter().map(|e| e.0).max().unwrap();
        let next = native[i + 1..]
            .iter()
            .find(|n| n.address != s.address && n.section == s.section)
            .map(|n| n.address);
        let clipped = next.is_some_and(|n| n < s.address + nm_size);
        if nm_size > 0 && !clipped && s.size_without_padding() != nm_size as i64 {
            // Only a section end may clip it further.
            assert!(
                s.size_without_padding() < nm_size as i64,
                "{} grew",
                s.full_name
            );
        }
        if nm_size > 0 && !clipped && next.is_some() {
            assert_eq!(
                s.size_without_padding(),
                nm_size as i64,
                "size of {} at {:#x}",
                s.full_name,
                s.address
            );
        }
    }
    // Every sized nm symbol of a native section is in the archive.
    let ours: BTreeSet<u64> = native.iter().map(|s| s.address).collect();
    let ranges: Vec<(u64, u64)> = readelf_sections(elf)
        .into_iter()
        .filter(|(k, _)| is_native(k))
        .map(|(_, v)| v)
        .collect();
    for (addr, entries) in &nm {
        let in_native = ranges.iter().any(|(a, n)| a <= addr && *addr < a + n);
        if *addr != 0
            && in_native
            && entries
                .iter()
                .any(|e| e.0 > 0 && "TtRrDdBbW".contains(e.1) && !e.2.starts_with('$'))
        {
            assert!(
                ours.contains(addr),
                "nm symbol {entries:?} at {addr:#x} missing"
            );
        }
    }
    Some(())
}

fn check_paths(info: &SizeInfo, elf: &Path) -> Option<()> {
    let units = dwarfdump_units(elf)?;
    let mut with_path = 0;
    for s in info
        .symbols
        .iter()
        .filter(|s| s.section == ".text" && !s.full_name.starts_with("**"))
    {
        let raw = units
            .iter()
            .filter(|u| u.0 <= s.address && s.address < u.1)
            .map(|u| u.2.as_str())
            .next_back()
            .unwrap_or("");
        let expected = if let Some(rest) = raw.strip_prefix("../../") {
            rest.to_string()
        } else if raw.starts_with('/') {
            format!("$SYSTEM/{}", raw.rsplit('/').next().unwrap())
        } else {
            raw.to_string()
        };
        assert_eq!(
            s.source_path, expected,
            "source path of {} at {:#x}",
            s.full_name, s.address
        );
        let generated = !raw.is_empty() && !raw.starts_with("../../");
        assert_eq!(
            s.flags & FLAG_GENERATED_SOURCE != 0,
            generated,
            "{}",
            s.full_name
        );
        with_path += usize::from(!expected.is_empty());
    }
    assert!(with_path > 0, "no .text symbol has a source path");
    Some(())
}

#[test]
fn size_c_program_matches_readelf_nm_and_dwarfdump() {
    if let Some(p) = program("diffdemo-v1") {
        crosscheck(p, true);
    }
}

#[test]
fn size_cpp_program_matches_readelf_nm_and_dwarfdump() {
    let Some(p) = program("cppdemo") else { return };
    let Some(info) = crosscheck(p, true) else {
        return;
    };
    let group: Vec<_> = info
        .symbols
        .iter()
        .filter(|s| s.num_aliases == 2)
        .map(|s| s.full_name.as_str())
        .collect();
    assert_eq!(group, ["demo::same_a(int)", "same_b"]);
    assert!(info
        .symbols
        .iter()
        .any(|s| s.full_name == "(anonymous namespace)::hidden(int)"));
}

#[test]
fn size_rust_program_matches_readelf_nm_and_dwarfdump() {
    if let Some(p) = program("rustdemo") {
        crosscheck(p, true);
    }
}

#[test]
fn size_pie_shared_library_matches_readelf_nm_and_dwarfdump() {
    if let Some(p) = program("libdiff.so") {
        crosscheck(p, true);
    }
}

/// Relocations as `readelf -rW` counts them: the entries of each REL/RELA section, and
/// the offsets a RELR section's words encode; `None` (after `missing_oracle`) without
/// readelf.
fn readelf_relocations(elf: &Path) -> Option<i64> {
    let readelf = tool("readelf")?;
    let text = output(&readelf, &[OsStr::new("-rW"), elf.as_os_str()]);
    let mut count = 0;
    let mut in_relr = false;
    for line in text.lines() {
        if let Some(rest) = line.strip_prefix("Relocation section '") {
            in_relr = rest.starts_with(".relr");
            if !in_relr {
                let entries = rest
                    .split("contains ")
                    .nth(1)
                    .and_then(|r| r.split(' ').next());
                count += entries
                    .and_then(|n| n.parse::<i64>().ok())
                    .unwrap_or_else(|| panic!("readelf -rW: {line}"));
            }
        } else if in_relr {
            if let Some(n) = line.trim().strip_suffix(" offsets") {
                count += n
                    .parse::<i64>()
                    .unwrap_or_else(|_| panic!("readelf -rW: {line}"));
            }
        }
    }
    Some(count)
}

#[test]
fn size_relocation_count_matches_readelf_with_relr() {
    let Some(p) = program("diffdemo-relr") else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let elf = prepare_elf(p, dir.path());
    let Some(want) = readelf_relocations(&elf) else {
        return;
    };
    let relr = output(
        &tool("readelf").unwrap(),
        &[OsStr::new("-SW"), elf.as_os_str()],
    );
    assert!(relr.contains(" RELR "), "no RELR section: {relr}");
    let info = archive(&elf, None, &ArchiveOptions::default());
    let metrics = info.containers[0].metrics_by_file.values().next();
    let Some(Json::Object(metrics)) = metrics else {
        panic!("no metrics: {metrics:?}");
    };
    assert_eq!(metrics.get("COUNT/Relocations"), Some(&Json::Int(want)));
}

#[test]
fn size_go_binary_matches_readelf_and_nm() {
    crosscheck(&testdata("lidia/elf/gohello"), false);
}

#[test]
fn size_stripped_library_uses_the_dynamic_symbols() {
    let Some(p) = program("libdiff.so") else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let elf = prepare_elf(p, dir.path());
    let Some(stripped) = eu_strip(&elf) else {
        return;
    };
    let info = archive(&stripped, None, &ArchiveOptions::default());
    assert_strict(dir.path(), "stripped.size", &writer::size_file(&info));
    check_sections(&info, &stripped);
    check_symbols(&info, &stripped, true);
    assert!(info.symbols.iter().any(|s| s.full_name == "grow_me"));
}

#[test]
fn size_diff_report_lists_exactly_the_changed_functions() {
    let (Some(v1), Some(v2)) = (program("diffdemo-v1"), program("diffdemo-v2")) else {
        return;
    };
    let before = archive(v1, None, &ArchiveOptions::default());
    let after = archive(v2, None, &ArchiveOptions::default());
    let delta = diff::diff(&before, &after);
    let doc: serde_json::Value =
        serde_json::from_str(&report::diff(&before, &after, &delta, Format::Json)).unwrap();
    let text_symbols: BTreeSet<(String, String)> = doc["symbols"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|s| s["section"] == ".text" && !s["name"].as_str().unwrap().starts_with("**"))
        .map(|s| {
            (
                s["status"].as_str().unwrap().to_string(),
                s["name"].as_str().unwrap().to_string(),
            )
        })
        .collect();
    let expected: BTreeSet<(String, String)> = [
        ("changed", "grow_me"),
        ("removed", "drop_me"),
        ("added", "new_one"),
    ]
    .iter()
    .map(|(a, b)| (a.to_string(), b.to_string()))
    .collect();
    assert_eq!(text_symbols, expected);
    let dir = tempfile::tempdir().unwrap();
    let (b, a) = diff::sparse_halves(&before, &after, &delta);
    assert_strict(dir.path(), "d.sizediff", &writer::sizediff_file(&b, &a));
}
