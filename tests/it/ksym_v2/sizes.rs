//! Bytes per symbol: v2 against v1 and against Linux's own kallsyms tables (measured by
//! the kernel's `scripts/kallsyms.c`, see `kallsyms_oracle`), on the kernel's text symbols
//! and on two large Rust symbol lists (rustc's driver library and cargo, `nm -n -C`).

use symblob_build::ksym::{InputOptions, Symbol, TypeFilter};

use symblob_build::text::parse_nm;

use super::both;
use super::kallsyms::{nm_demangled, rust_binaries, sysroot, text_symbols};
use super::kallsyms_oracle::{kallsyms_size_with, KallsymsOptions};
use crate::common::{missing_oracle, testdata, tool};

fn parsed(text: &[u8], label: &str) -> Vec<Symbol> {
    let options = InputOptions {
        types: TypeFilter::new("Tt"),
        ..InputOptions::default()
    };
    parse_nm(text, label, &options).unwrap().symbols
}

/// v1 and v2 sizes of `text` (T/t lines), and kallsyms's when its oracle is there, with
/// every name kept (KSYM_NAME_LEN as large as its two-byte lengths allow).
fn sizes(label: &str, text: &str) -> (usize, usize, Option<usize>) {
    let symbols = parsed(text.as_bytes(), label);
    let (v1, v2) = both(&symbols);
    let options = KallsymsOptions {
        ksym_name_len: Some(0x3fff),
        ..KallsymsOptions::default()
    };
    let kallsyms = kallsyms_size_with(text, &options).ok().map(|size| {
        assert_eq!(
            size.num_syms,
            symbols.len(),
            "{label}: kallsyms kept every symbol"
        );
        size.total()
    });
    let n = symbols.len() as f64;
    eprintln!(
        "{label}: {} symbols; v1 {} B ({:.2}/symbol), v2 {} B ({:.2}/symbol, {:.3} of v1){}",
        symbols.len(),
        v1.bytes.len(),
        v1.bytes.len() as f64 / n,
        v2.bytes.len(),
        v2.bytes.len() as f64 / n,
        v2.bytes.len() as f64 / v1.bytes.len() as f64,
        kallsyms.map_or(String::new(), |k| format!(
            ", kallsyms {k} B ({:.2}/symbol; v2 is {:.3} of it)",
            k as f64 / n,
            v2.bytes.len() as f64 / k as f64
        )),
    );
    (v1.bytes.len(), v2.bytes.len(), kallsyms)
}

#[test]
fn kernel_v2_needs_at_most_12_bytes_per_symbol_and_less_than_kallsyms() {
    let rel = "ksym/linux-6.1-cloud-amd64.System.map";
    let map = std::fs::read_to_string(testdata(rel)).unwrap();
    let (syms, text) = text_symbols(&map);
    let (_, v2, kallsyms) = sizes("Linux 6.1 T/t", &text);
    let per_symbol = v2 as f64 / syms.len() as f64;
    assert!(per_symbol <= 12.0, "{per_symbol:.2} B/symbol");
    if let Some(kallsyms) = kallsyms {
        assert!(v2 < kallsyms, "v2 {v2} B, kallsyms {kallsyms} B");
    }
}

#[test]
fn rust_lists_v2_is_at_most_six_tenths_of_v1_and_less_than_kallsyms() {
    let (Some(root), Some(nm)) = (sysroot(), tool("nm")) else {
        return;
    };
    for (what, path) in rust_binaries(&root) {
        let Some(path) = path else {
            missing_oracle(&format!("{what} in the Rust toolchain's sysroot"));
            continue;
        };
        let (syms, text) = text_symbols(&nm_demangled(&nm, &path));
        assert!(syms.len() > 1000, "{what}: {} symbols", syms.len());
        let (v1, v2, kallsyms) = sizes(what, &text);
        let ratio = v2 as f64 / v1 as f64;
        assert!(ratio <= 0.6, "{what}: v2 is {ratio:.3} of v1");
        if let Some(kallsyms) = kallsyms {
            assert!(v2 < kallsyms, "{what}: v2 {v2} B, kallsyms {kallsyms} B");
        }
    }
}
