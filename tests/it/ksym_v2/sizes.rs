//! Bytes per symbol: v2 against v1 and against Linux's kallsyms, on the kernel's text
//! symbols and on two large Rust symbol lists (rustc's driver library and cargo).

use std::path::PathBuf;
use std::process::Command;

use symblob_build::ksym::{parse_nm, InputOptions, Symbol, TypeFilter};

use super::both;
use crate::common::{missing_oracle, testdata};

fn text_symbols(text: &[u8], label: &str) -> Vec<Symbol> {
    let options = InputOptions {
        types: TypeFilter::new("Tt"),
        ..InputOptions::default()
    };
    parse_nm(text, label, &options).unwrap().symbols
}

#[test]
fn kernel_v2_needs_at_most_12_bytes_per_symbol() {
    let rel = "ksym/linux-6.1-cloud-amd64.System.map";
    let symbols = text_symbols(&std::fs::read(testdata(rel)).unwrap(), rel);
    let (v1, v2) = both(&symbols);
    let per_symbol = v2.bytes.len() as f64 / symbols.len() as f64;
    eprintln!(
        "kernel: v1 {} bytes, v2 {} bytes ({per_symbol:.2} B/symbol)",
        v1.bytes.len(),
        v2.bytes.len()
    );
    assert!(per_symbol <= 12.0, "{per_symbol:.2} B/symbol");
}

/// `nm -n -C` of a file of the Rust toolchain that runs these tests.
fn toolchain_list(what: &str) -> Option<Vec<u8>> {
    let sysroot = Command::new("rustc").args(["--print", "sysroot"]).output().ok()?;
    let sysroot = PathBuf::from(String::from_utf8(sysroot.stdout).ok()?.trim());
    let file = match what {
        "rustc" => std::fs::read_dir(sysroot.join("lib"))
            .ok()?
            .filter_map(Result::ok)
            .map(|e| e.path())
            .find(|p| {
                p.file_name()
                    .and_then(|n| n.to_str())
                    .is_some_and(|n| n.starts_with("librustc_driver-") && n.ends_with(".so"))
            })?,
        _ => sysroot.join("bin/cargo"),
    };
    let out = Command::new("nm").args(["-n", "-C"]).arg(&file).output().ok()?;
    out.status.success().then_some(out.stdout)
}

#[test]
fn rust_lists_v2_is_at_most_six_tenths_of_v1() {
    for what in ["rustc", "cargo"] {
        let Some(text) = toolchain_list(what) else {
            missing_oracle(&format!("`nm` and the Rust toolchain's {what}"));
            continue;
        };
        let symbols = text_symbols(&text, what);
        assert!(symbols.len() > 1000, "{what}: {} symbols", symbols.len());
        let (v1, v2) = both(&symbols);
        let ratio = v2.bytes.len() as f64 / v1.bytes.len() as f64;
        eprintln!(
            "{what}: {} symbols, v1 {} bytes, v2 {} bytes ({ratio:.3} of v1)",
            symbols.len(),
            v1.bytes.len(),
            v2.bytes.len()
        );
        assert!(ratio <= 0.6, "{what}: v2 is {ratio:.3} of v1");
    }
}
