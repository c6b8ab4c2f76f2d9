//! `--decl-paths` and `--data-paths` against `llvm-dwarfdump-14 --debug-info`: the
//! `DW_AT_decl_file` of each function with code (a header template and a header inline
//! function among them) and of each variable at a fixed address (one declared in a header
//! and defined in another file), following `DW_AT_specification` and
//! `DW_AT_abstract_origin` as DWARF says a definition inherits its declaration's file.

use std::collections::HashMap;
use std::ffi::OsStr;
use std::path::Path;
use std::process::Command;

use symblob_build::size::ArchiveOptions;

use super::support::{archive, compile, output, src};
use crate::common::tool;

/// One DIE of dwarfdump's text: its tag and attributes (name → value inside the parens).
struct Die {
    tag: String,
    attrs: HashMap<String, String>,
}

/// The DIEs of `llvm-dwarfdump-14 --debug-info ELF` by offset.
fn dwarfdump_dies(elf: &Path) -> Option<HashMap<u64, Die>> {
    let text = output(
        &tool("llvm-dwarfdump-14")?,
        &[OsStr::new("--debug-info"), elf.as_os_str()],
    );
    let mut dies = HashMap::new();
    let mut current: Option<(u64, Die)> = None;
    for line in text.lines() {
        let line = line.trim();
        if let Some((offset, rest)) = line.split_once(':') {
            if let (Some(hex), Some(tag)) = (
                offset.strip_prefix("0x"),
                rest.trim().strip_prefix("DW_TAG_"),
            ) {
                dies.extend(current.take());
                let offset = u64::from_str_radix(hex, 16).unwrap();
                let attrs = HashMap::new();
                current = Some((
                    offset,
                    Die {
                        tag: tag.into(),
                        attrs,
                    },
                ));
                continue;
            }
        }
        if let (Some((_, die)), Some((name, value))) = (current.as_mut(), line.split_once('\t')) {
            let value = value.trim().trim_start_matches('(').trim_end_matches(')');
            die.attrs.insert(name.to_string(), value.to_string());
        }
    }
    dies.extend(current);
    Some(dies)
}

fn hex(value: &str) -> u64 {
    u64::from_str_radix(value.trim_start_matches("0x"), 16).unwrap()
}

/// `DW_AT_decl_file` of `die`, else of the DIE its specification or abstract origin names.
fn decl_file<'a>(dies: &'a HashMap<u64, Die>, die: &'a Die) -> Option<&'a str> {
    let mut die = die;
    for _ in 0..3 {
        if let Some(file) = die.attrs.get("DW_AT_decl_file") {
            return Some(file.trim_matches('"'));
        }
        let target = ["DW_AT_specification", "DW_AT_abstract_origin"]
            .iter()
            .find_map(|a| die.attrs.get(*a))?;
        die = dies.get(&hex(target.split_whitespace().next()?))?;
    }
    None
}

/// Address → declaration file of functions with code and variables at a fixed address.
fn declared_files(dies: &HashMap<u64, Die>) -> (HashMap<u64, String>, HashMap<u64, String>) {
    let mut functions = HashMap::new();
    let mut variables = HashMap::new();
    for die in dies.values() {
        let (map, address) = match die.tag.as_str() {
            "subprogram" => match die.attrs.get("DW_AT_low_pc") {
                Some(pc) => (&mut functions, hex(pc)),
                None => continue,
            },
            "variable" => match die.attrs.get("DW_AT_location") {
                Some(loc) => match loc.strip_prefix("DW_OP_addr ") {
                    Some(addr) if !addr.contains(',') => (&mut variables, hex(addr)),
                    _ => continue,
                },
                None => continue,
            },
            _ => continue,
        };
        if let Some(file) = decl_file(dies, die) {
            map.insert(address, file.to_string());
        }
    }
    (functions, variables)
}

#[test]
fn size_decl_and_data_paths_are_dwarfdumps_decl_files() {
    let Some(gxx) = tool("g++") else { return };
    let dir = tempfile::tempdir().unwrap();
    let sources = src("declpaths").canonicalize().unwrap();
    let elf = dir.path().join("declprog");
    compile(
        Command::new(gxx)
            .current_dir(&sources)
            .args(["-O2", "-g", "main.cpp", "counter.cpp", "-o"])
            .arg(&elf),
    );
    let Some(dies) = dwarfdump_dies(&elf) else {
        return;
    };
    let (functions, variables) = declared_files(&dies);
    let root = sources.to_str().unwrap().to_string();
    let options = ArchiveOptions {
        source_root: Some(root.clone()),
        decl_paths: true,
        data_paths: true,
        ..Default::default()
    };
    let info = archive(&elf, None, &options);
    // Rooted paths: relative under the sources, `$SYSTEM/<name>` elsewhere.
    let expected = |file: &str| match file.strip_prefix(&format!("{root}/")) {
        Some(rel) => rel.to_string(),
        None => format!("$SYSTEM/{}", file.rsplit('/').next().unwrap()),
    };
    let path_of = |name: &str| {
        let s = info.symbols.iter().find(|s| s.full_name == name);
        s.unwrap_or_else(|| panic!("no symbol {name}"))
    };

    let mut checked = 0;
    for s in &info.symbols {
        let declared = if s.section == ".text" {
            functions.get(&s.address)
        } else {
            variables.get(&s.address)
        };
        if let Some(file) = declared {
            assert_eq!(s.source_path, expected(file), "{}", s.full_name);
            checked += 1;
        }
    }
    assert!(checked >= 6, "only {checked} symbols had a declaration");

    // The cases the options exist for, as dwarfdump reports them.
    // SuperSize's names: no return type.
    for name in ["scaled<long>(long, int)", "header_inline(int)"] {
        let s = path_of(name);
        assert_eq!(functions[&s.address], format!("{root}/shapes.h"), "{name}");
        assert_eq!(s.source_path, "shapes.h", "{name}");
    }
    let counter = path_of("g_counter");
    assert_eq!(variables[&counter.address], format!("{root}/counter.cpp"));
    assert_eq!(counter.source_path, "counter.cpp");
    assert_eq!(path_of("g_main_data").source_path, "main.cpp");
}
