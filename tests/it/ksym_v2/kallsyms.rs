//! Checks of the kallsyms oracle: on the Linux 6.1 System.map and on the Rust toolchain's
//! own binaries, the tables it measures hold exactly the symbols the kernel's rules keep
//! (decoded back from the measured bytes), and the Linux figures agree with the tables of
//! the kernel's own vmlinux (docs/formats/ksym-bin.md, section 9.1).

use std::path::PathBuf;
use std::process::Command;

use super::kallsyms_oracle::{kallsyms_size, kallsyms_size_with, KallsymsOptions, KallsymsSize};
use crate::common::{missing_oracle, testdata, tool};

/// One `nm -n` line: address, type, name (the rest of the line).
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub(super) struct Sym {
    addr: u64,
    ty: u8,
    name: String,
}

/// The T and t lines of `nm -n` output, and those lines joined again.
pub(super) fn text_symbols(nm: &str) -> (Vec<Sym>, String) {
    let mut syms = Vec::new();
    let mut text = String::new();
    for line in nm.lines() {
        let mut parts = line.splitn(3, ' ');
        let (Some(addr), Some(ty), Some(name)) = (parts.next(), parts.next(), parts.next()) else {
            continue;
        };
        if ty != "T" && ty != "t" {
            continue;
        }
        syms.push(Sym {
            addr: u64::from_str_radix(addr, 16).unwrap(),
            ty: ty.as_bytes()[0],
            name: name.to_owned(),
        });
        text.push_str(line);
        text.push('\n');
    }
    (syms, text)
}

/// Linux 6.1's `is_ignored_symbol` for a text symbol (its rules by type concern other
/// types): linker-generated and architecture stub names.
fn ignored(name: &str) -> bool {
    const EXACT: [&str; 11] = [
        "kallsyms_addresses",
        "kallsyms_offsets",
        "kallsyms_relative_base",
        "kallsyms_num_syms",
        "kallsyms_names",
        "kallsyms_markers",
        "kallsyms_token_table",
        "kallsyms_token_index",
        "kallsyms_seqs_of_names",
        "_SDA_BASE_",
        "_SDA2_BASE_",
    ];
    const PREFIXES: [&str; 10] = [
        "__efistub_",
        "__kvm_nvhe_$",
        "__kvm_nvhe_.L",
        "__AArch64ADRPThunk_",
        "__ARMV5PILongThunk_",
        "__ARMV7PILongThunk_",
        "__ThumbV7PILongThunk_",
        "__LA25Thunk_",
        "__microLA25Thunk_",
        "__kcfi_typeid_",
    ];
    const SUFFIXES: [&str; 3] = ["_from_arm", "_from_thumb", "_veneer"];
    const INFIXES: [&str; 2] = [".long_branch.", ".plt_branch."];
    EXACT.contains(&name)
        || PREFIXES.iter().any(|p| name.starts_with(p))
        || SUFFIXES.iter().any(|s| name.ends_with(s))
        || INFIXES.iter().any(|m| name.contains(m))
}

/// The symbols the generator keeps by its own rules: names shorter than `name_len`, not
/// ignored, and without `--all-symbols` only those in `[_stext, _etext]` or
/// `[_sinittext, _einittext]`, less those at `_etext` or `_einittext` that are not that
/// marker itself.
fn expected_kept(syms: &[Sym], name_len: usize, all_symbols: bool) -> Vec<Sym> {
    let at = |name: &str| syms.iter().find(|s| s.name == name).map(|s| s.addr);
    let ranges = [("_stext", "_etext"), ("_sinittext", "_einittext")].map(|(start, end)| {
        (
            at(start).unwrap_or(u64::MAX),
            at(end).unwrap_or(0),
            end.to_owned(),
        )
    });
    syms.iter()
        .filter(|s| s.name.len() < name_len && !ignored(&s.name))
        .filter(|s| {
            all_symbols
                || (ranges
                    .iter()
                    .any(|(lo, hi, _)| (*lo..=*hi).contains(&s.addr))
                    && !ranges
                        .iter()
                        .any(|(_, hi, end)| s.addr == *hi && s.name != *end))
        })
        .cloned()
        .collect()
}

/// Decodes every measured table as the kernel reads it and checks it against the
/// symbols that must be kept: sizes per symbol, markers, `(address, type, name)` of every
/// entry, address order, and the name order of `kallsyms_seqs_of_names`.
fn check_tables(size: &KallsymsSize, kept: &[Sym], options: &KallsymsOptions) {
    let n = kept.len();
    assert_eq!(size.num_syms, n, "kallsyms_num_syms");
    assert!(
        options.base_relative,
        "the checks decode base-relative tables"
    );
    assert_eq!(size.bytes("kallsyms_offsets"), 4 * n, "4-byte offsets");
    assert_eq!(size.bytes("kallsyms_relative_base"), 8);
    assert_eq!(size.bytes("kallsyms_num_syms"), 4);
    assert_eq!(size.bytes("kallsyms_markers"), 4 * n.div_ceil(256));
    assert_eq!(size.bytes("kallsyms_seqs_of_names"), 3 * n, "3-byte seqs");
    assert_eq!(size.bytes("kallsyms_token_index"), 2 * 256);

    // Tokens: 256 NUL-terminated strings, found through their u16 offsets.
    let table = size.data("kallsyms_token_table");
    let index = size.data("kallsyms_token_index");
    let tokens: Vec<&[u8]> = index
        .chunks(2)
        .map(|c| {
            let at = u16::from_le_bytes([c[0], c[1]]) as usize;
            let len = table[at..].iter().position(|&b| b == 0).unwrap();
            &table[at..at + len]
        })
        .collect();
    assert_eq!(
        table.len(),
        tokens.iter().map(|t| t.len() + 1).sum::<usize>(),
        "the token table holds the 256 tokens and nothing else"
    );

    // Names: a ULEB128 length of one or two bytes, then that many token bytes; a marker
    // every 256 entries.
    let names = size.data("kallsyms_names");
    let markers: Vec<u32> = size
        .data("kallsyms_markers")
        .chunks(4)
        .map(|c| u32::from_le_bytes(c.try_into().unwrap()))
        .collect();
    let mut pos = 0;
    let mut decoded = Vec::with_capacity(n);
    for i in 0..n {
        if i % 256 == 0 {
            assert_eq!(markers[i / 256] as usize, pos, "marker {}", i / 256);
        }
        let mut len = names[pos] as usize;
        pos += 1;
        if len & 0x80 != 0 {
            len = (len & 0x7f) | (names[pos] as usize) << 7;
            pos += 1;
        }
        let mut full = Vec::new();
        for &b in &names[pos..pos + len] {
            full.extend_from_slice(tokens[b as usize]);
        }
        pos += len;
        decoded.push(full);
    }
    assert_eq!(
        pos,
        names.len(),
        "the names table holds {n} entries exactly"
    );

    // Addresses: with --absolute-percpu a negative offset is `base - 1 - offset`.
    let base = size.relative_base;
    let addrs: Vec<u64> = size
        .data("kallsyms_offsets")
        .chunks(4)
        .map(|c| {
            let off = i32::from_le_bytes(c.try_into().unwrap());
            match (options.absolute_percpu, off >= 0) {
                (false, _) => base + off as u32 as u64,
                (true, true) => off as u64,
                (true, false) => base.wrapping_sub(1).wrapping_sub(off as i64 as u64),
            }
        })
        .collect();
    assert!(addrs.windows(2).all(|w| w[0] <= w[1]), "address order");
    assert_eq!(Some(&base), kept.iter().map(|s| &s.addr).min(), "base");

    let mut got: Vec<Sym> = decoded
        .iter()
        .zip(&addrs)
        .map(|(full, &addr)| Sym {
            addr,
            ty: full[0],
            name: String::from_utf8(full[1..].to_vec()).unwrap(),
        })
        .collect();
    // The name order before `got` is sorted: seqs index the address-ordered entries.
    let seqs: Vec<usize> = size
        .data("kallsyms_seqs_of_names")
        .chunks(3)
        .map(|c| (c[0] as usize) << 16 | (c[1] as usize) << 8 | c[2] as usize)
        .collect();
    let mut seen = vec![false; n];
    for &s in &seqs {
        assert!(!std::mem::replace(&mut seen[s], true), "seq {s} twice");
    }
    assert!(
        seqs.windows(2).all(|w| {
            let (a, b) = (&got[w[0]], &got[w[1]]);
            (a.name.as_bytes(), a.addr) <= (b.name.as_bytes(), b.addr)
        }),
        "kallsyms_seqs_of_names in name order"
    );
    got.sort();
    let mut want = kept.to_vec();
    want.sort();
    assert!(got == want, "the tables hold exactly the symbols kept");
}

#[test]
fn kallsyms_oracle_measures_the_linux_set() {
    let map = std::fs::read_to_string(testdata("ksym/linux-6.1-cloud-amd64.System.map")).unwrap();
    let (syms, text) = text_symbols(&map);
    let Ok(size) = kallsyms_size(&text) else {
        return;
    };
    eprintln!("{}", size.report("Linux 6.1 T/t"));
    assert!(
        size.adaptations.is_empty(),
        "the kernel's tool, unchanged: {:?}",
        size.adaptations
    );
    assert_eq!(size.input_symbols, syms.len());
    let options = KallsymsOptions::default();
    let kept = expected_kept(&syms, size.ksym_name_len, true);
    check_tables(&size, &kept, &options);

    // Section 9.1: the kernel's own tables (every type, 87,347 symbols) take 19.98 B per
    // symbol, their names 0.573 of the raw type + name bytes. The same tool on the text
    // symbols lands close to both.
    let raw: usize = kept.iter().map(|s| 1 + s.name.len()).sum();
    let ratio = size.bytes("kallsyms_names") as f64 / raw as f64;
    assert!((ratio - 0.573).abs() < 0.05, "names / raw bytes {ratio:.3}");
    assert!(
        (size.per_symbol() - 19.98).abs() < 0.1 * 19.98,
        "{:.2} B/symbol",
        size.per_symbol()
    );
    // Each table 8-byte aligned, as in the kernel.
    let aligned = size
        .tables
        .iter()
        .fold(0usize, |at, t| at.next_multiple_of(8) + t.bytes.len());
    assert_eq!(size.rodata, aligned, ".rodata");

    // Without CONFIG_KALLSYMS_ALL: text and init text only.
    let text_only = KallsymsOptions {
        all_symbols: false,
        ..KallsymsOptions::default()
    };
    let Ok(ranged) = kallsyms_size_with(&text, &text_only) else {
        return;
    };
    eprintln!("{}", ranged.report("Linux 6.1 T/t, without --all-symbols"));
    let kept = expected_kept(&syms, ranged.ksym_name_len, false);
    assert!(kept.len() < syms.len());
    check_tables(&ranged, &kept, &text_only);
}

/// The Rust toolchain that runs the tests: its sysroot (`rustc --print sysroot`).
pub(super) fn sysroot() -> Option<PathBuf> {
    let rustc = tool("rustc")?;
    let out = Command::new(rustc)
        .args(["--print", "sysroot"])
        .output()
        .ok()?;
    let root = PathBuf::from(String::from_utf8_lossy(&out.stdout).trim());
    if !out.status.success() || !root.is_dir() {
        missing_oracle("rustc --print sysroot");
        return None;
    }
    Some(root)
}

/// The two large Rust binaries of the toolchain: rustc's driver library and cargo.
pub(super) fn rust_binaries(root: &std::path::Path) -> [(&'static str, Option<PathBuf>); 2] {
    let driver = std::fs::read_dir(root.join("lib"))
        .into_iter()
        .flatten()
        .flatten()
        .map(|e| e.path())
        .find(|p| {
            p.file_name()
                .and_then(|n| n.to_str())
                .is_some_and(|n| n.starts_with("librustc_driver-") && n.ends_with(".so"))
        });
    let cargo = Some(root.join("bin/cargo")).filter(|p| p.is_file());
    [("librustc_driver", driver), ("cargo", cargo)]
}

/// `nm -n -C` of `path`.
pub(super) fn nm_demangled(nm: &std::path::Path, path: &std::path::Path) -> String {
    let out = Command::new(nm)
        .args(["-n", "-C"])
        .arg(path)
        .output()
        .expect("run nm");
    assert!(out.status.success(), "nm -n -C {}", path.display());
    String::from_utf8(out.stdout).expect("nm prints UTF-8")
}

#[test]
fn kallsyms_oracle_measures_the_rust_sets() {
    let (Some(root), Some(nm)) = (sysroot(), tool("nm")) else {
        return;
    };
    for (what, path) in rust_binaries(&root) {
        let Some(path) = path else {
            missing_oracle(&format!("{what} in the Rust toolchain's sysroot"));
            continue;
        };
        let (syms, text) = text_symbols(&nm_demangled(&nm, &path));
        assert!(!syms.is_empty(), "{what} has text symbols");
        // The kernel's KSYM_NAME_LEN, then one that takes every name (lengths are written
        // as ULEB128 of at most two bytes: up to 0x3fff with the type).
        for name_len in [None, Some(0x3fff)] {
            let options = KallsymsOptions {
                ksym_name_len: name_len,
                ..KallsymsOptions::default()
            };
            let Ok(size) = kallsyms_size_with(&text, &options) else {
                return;
            };
            eprintln!("{}", size.report(&format!("{what} T/t (nm -n -C)")));
            let long = syms
                .iter()
                .filter(|s| s.name.len() >= size.ksym_name_len)
                .count();
            assert_eq!(size.too_long, long);
            let kept = expected_kept(&syms, size.ksym_name_len, true);
            check_tables(&size, &kept, &options);
        }
    }
}
