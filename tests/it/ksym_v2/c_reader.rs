//! The C reader of `examples/ksym-v2-c`, written from the format document alone, against
//! the Rust reader: the same answer to every address, return address and name query, the
//! same dump, on the kernel's list, every input of the test data, aliases and equal names
//! that cross blocks and restarts, and one symbol. Every truncation and a few hundred
//! mutations of a small blob must give the C reader errors or answers, never a crash (the
//! driver is built with AddressSanitizer and UBSan where the compiler has them).
//!
//! The C compiler is an oracle: without `cc`, `gcc` or `clang-14` the test is skipped
//! (failed under `SYMBLOB_REQUIRE_ORACLES=1`).

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::OnceLock;

use symblob::ksym::{v2, TextRanges};
use symblob_build::ksym::{build, InputOptions, NameHash, Symbol};
use symblob_build::text::{detect_format, parse_input};

use super::{kernel_symbols, v2_options, v2_options_with};
use crate::common::splitmix::Rng;
use crate::common::{files_ending_in, missing_oracle, on_path, root, run_scratch_dir, testdata};

/// The driver, built once per run.
struct Driver {
    exe: PathBuf,
    sanitized: bool,
}

fn compile(cc: &Path, args: &[&str], sources: &[PathBuf], out: &Path) -> Result<(), String> {
    let o = Command::new(cc)
        .args(["-std=c99", "-Wall", "-Wextra", "-Werror", "-O2"])
        .args(args)
        .args(sources)
        .arg("-o")
        .arg(out)
        .output()
        .map_err(|e| e.to_string())?;
    if o.status.success() {
        Ok(())
    } else {
        Err(String::from_utf8_lossy(&o.stderr).into_owned())
    }
}

fn driver() -> Option<&'static Driver> {
    static DRIVER: OnceLock<Option<Driver>> = OnceLock::new();
    DRIVER
        .get_or_init(|| {
            let Some(cc) = ["cc", "gcc", "clang-14"].iter().find_map(|n| on_path(n)) else {
                missing_oracle("a C compiler (cc, gcc or clang-14)");
                return None;
            };
            let src = root().join("examples/ksym-v2-c");
            let dir = run_scratch_dir("ksym-v2-c");
            let reader = src.join("ksym_v2.c");
            let sources = [src.join("main.c"), reader.clone()];
            // The reader alone needs no C library.
            compile(
                &cc,
                &["-ffreestanding", "-nostdlib", "-c"],
                std::slice::from_ref(&reader),
                &dir.join("ksym_v2.o"),
            )
            .unwrap_or_else(|e| panic!("ksym_v2.c, freestanding: {e}"));
            let plain = dir.join("ksym-v2-c");
            compile(&cc, &[], &sources, &plain).unwrap_or_else(|e| panic!("driver: {e}"));
            let san = dir.join("ksym-v2-c-san");
            let sanitizers = [
                "-g",
                "-fsanitize=address,undefined",
                "-fno-sanitize-recover=all",
            ];
            let sanitized = compile(&cc, &sanitizers, &sources, &san).is_ok() && {
                // Some environments build sanitized programs that cannot run.
                let empty = dir.join("empty.bins");
                std::fs::write(&empty, b"").unwrap();
                let probe = Command::new(&san)
                    .envs(sanitizer_env())
                    .arg("--each")
                    .arg(&empty)
                    .stdin(Stdio::null())
                    .output();
                probe.is_ok_and(|o| o.status.success())
            };
            if !sanitized {
                eprintln!("ksym-v2-c: sanitizers unavailable, testing the plain build");
            }
            Some(Driver {
                exe: if sanitized { san } else { plain },
                sanitized,
            })
        })
        .as_ref()
}

fn sanitizer_env() -> [(&'static str, &'static str); 2] {
    [
        ("ASAN_OPTIONS", "detect_leaks=0:exitcode=86"),
        (
            "UBSAN_OPTIONS",
            "halt_on_error=1:exitcode=86:print_stacktrace=1",
        ),
    ]
}

/// Runs the driver on `blob` (a file) with `args`, feeding `input`: its standard output.
/// Any exit but 0 or 1 (a signal, a sanitizer report) fails the test.
fn run(d: &Driver, label: &str, args: &[String], blob: &Path, input: Vec<u8>) -> Vec<u8> {
    let mut child = Command::new(&d.exe)
        .envs(sanitizer_env())
        .args(args)
        .arg(blob)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("run the C driver");
    let mut stdin = child.stdin.take().unwrap();
    let writer = std::thread::spawn(move || {
        let _ = stdin.write_all(&input);
    });
    let out = child.wait_with_output().unwrap();
    writer.join().unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        matches!(out.status.code(), Some(0 | 1))
            && !stderr.contains("Sanitizer")
            && !stderr.contains("runtime error"),
        "{label}: the C driver failed ({:?}, sanitized: {}):\n{stderr}",
        out.status,
        d.sanitized
    );
    out.stdout
}

/// One Rust answer in the driver's format.
fn symbol_line(s: Option<v2::Symbol<'_>>) -> String {
    match s {
        None => "-".into(),
        Some(s) => format!(
            "{}+{:#x}/{:#x} {}",
            s.name, s.offset, s.size, s.kind as char
        ),
    }
}

/// Compares the C driver with the Rust reader on `bytes`: address and return-address
/// lookups at `addresses`, every stored name with near misses, and the dump. Returns the
/// number of answer lines compared.
fn compare(
    d: &Driver,
    label: &str,
    bytes: &[u8],
    ranges: &[std::ops::Range<u64>],
    bias: u64,
    addresses: &[u64],
) -> usize {
    let blob = v2::Blob::parse(bytes).unwrap_or_else(|e| panic!("{label}: {e}"));
    let ksyms = v2::Ksyms::new(blob, TextRanges::new(ranges).unwrap()).with_bias(bias);
    let mut input = Vec::new();
    let mut queries: Vec<String> = Vec::new();
    let mut expected: Vec<String> = Vec::new();
    for &a in addresses {
        input.extend(format!("a {a:x}\nr {a:x}\n").bytes());
        queries.push(format!("a {a:#x}"));
        expected.push(symbol_line(ksyms.lookup_address(a)));
        queries.push(format!("r {a:#x}"));
        expected.push(symbol_line(ksyms.lookup_return_address(a)));
    }
    // Every name; near misses (between stored names, where searches go wrong) for a
    // sample of them on large blobs.
    let mut names: Vec<Vec<u8>> = Vec::new();
    let stride = (blob.len() / 4000).max(1);
    for (k, e) in blob.symbols_by_name().enumerate() {
        let name: Vec<u8> = e.name.bytes().collect();
        if k % stride == 0 {
            names.push([&name[..], b"~"].concat());
            names.push([&name[..], b"\x01"].concat());
            names.push(name[..name.len().saturating_sub(1)].to_vec());
        }
        names.push(name);
    }
    names.extend([
        b"".to_vec(),
        b"\x01".to_vec(),
        b"\xff\xff".to_vec(),
        b"zzzz".to_vec(),
    ]);
    for q in &names {
        input.extend_from_slice(b"n ");
        input.extend_from_slice(q);
        input.push(b'\n');
        queries.push(format!("n {}", String::from_utf8_lossy(q)));
        let all: Vec<String> = blob
            .lookup_name_all(q)
            .map(|e| format!("{:#x}", e.address.wrapping_add(bias)))
            .collect();
        assert_eq!(
            blob.lookup_name(q)
                .map(|a| format!("{:#x}", a.wrapping_add(bias)))
                .as_ref(),
            all.first(),
            "{label}: lookup_name is the first of lookup_name_all"
        );
        expected.push(if all.is_empty() {
            "-".into()
        } else {
            all.join(" ")
        });
    }
    input.extend_from_slice(b"dump\n");
    let mut dump = String::new();
    blob.dump(&mut dump).unwrap();
    let mut own = String::new();
    for e in blob.symbols() {
        let line = format!(
            "{:016x} {} {}\n",
            e.address.wrapping_add(bias),
            e.kind as char,
            e.name
        );
        queries.push(format!("dump, symbol {}", e.index));
        expected.push(line.trim_end_matches('\n').to_string());
        own.push_str(&line);
    }
    if bias == 0 {
        assert!(
            own == dump,
            "{label}: dump lines as the Rust dump prints them"
        );
    }

    let file = run_scratch_dir("ksym-v2-c").join(format!("{label}.bin"));
    std::fs::write(&file, bytes).unwrap();
    let mut args = vec!["-b".to_string(), format!("{bias:x}")];
    for r in ranges {
        args.push("-r".into());
        args.push(format!("{:x}:{:x}", r.start, r.end));
    }
    let out = run(d, label, &args, &file, input);
    let got: Vec<String> = out
        .split(|&b| b == b'\n')
        .map(|l| String::from_utf8_lossy(l).into_owned())
        .collect();
    // The output ends with a newline: the last piece is empty.
    assert_eq!(got.last().map(String::as_str), Some(""), "{label}");
    let got = &got[..got.len() - 1];
    for (k, (want, q)) in expected.iter().zip(&queries).enumerate() {
        let c = got.get(k).map_or("(no answer)", String::as_str);
        assert!(
            c == want,
            "{label}: query `{q}`: the C reader answers `{c}`, the Rust reader `{want}`"
        );
    }
    assert_eq!(got.len(), expected.len(), "{label}: answer lines");
    eprintln!("ksym-v2-c: {label}: {} answers equal", expected.len());
    expected.len()
}

/// Around every stored address (start, one before, one after, the middle to the next),
/// every byte of the first symbols and of a sample, below the first and above the last.
fn sweep(stored: &[u64], bias: u64, every: usize) -> Vec<u64> {
    let mut out = Vec::new();
    for (k, w) in stored.windows(2).enumerate() {
        let (a, b) = (w[0], w[1]);
        if k % every == 0 {
            out.extend([a.wrapping_sub(1), a, a + 1, a + (b - a) / 2, b - 1]);
        }
        if k < 4 || k % (every * 97) == 1 {
            out.extend(a..b.min(a + 512));
        }
    }
    if let (Some(&first), Some(&last)) = (stored.first(), stored.last()) {
        out.extend([first.wrapping_sub(1), first.wrapping_sub(4096)]);
        out.extend([last, last + 1, last + 63, last + 64, last + 4096]);
    }
    let mut out: Vec<u64> = out.into_iter().map(|x| x.wrapping_add(bias)).collect();
    out.extend([0, 1, u64::MAX]);
    out
}

fn stored_addresses(bytes: &[u8]) -> Vec<u64> {
    let mut v: Vec<u64> = v2::Blob::parse(bytes)
        .unwrap()
        .symbols()
        .map(|e| e.address)
        .collect();
    v.dedup();
    v
}

fn build_v2(symbols: &[Symbol]) -> Vec<u8> {
    build(symbols, &v2_options()).expect("v2 build").bytes
}

/// The v2 blob of `symbols` with or without the name hash index.
fn build_v2_with(symbols: &[Symbol], name_hash: NameHash) -> Vec<u8> {
    build(symbols, &v2_options_with(name_hash))
        .expect("v2 build")
        .bytes
}

/// Aliases (40 names at one address, across an address block), a run of 100 equal names
/// (across restarts and name groups) at increasing addresses, and filler.
fn alias_symbols() -> Vec<Symbol> {
    let mut out = Vec::new();
    let mut address = 0xffff_ffff_8100_0000u64;
    for k in 0..300u64 {
        let name = match k % 3 {
            0 => "__func__.0".to_string(),
            1 => format!("ext4_fn_{k}"),
            _ => format!("_{k}_tail"),
        };
        out.push(Symbol {
            address,
            kind: if k % 2 == 0 { b't' } else { b'T' },
            name,
        });
        address += 0x10 + (k % 7) * 3;
        if k == 150 {
            for a in 0..40 {
                out.push(Symbol {
                    address,
                    kind: b'T',
                    name: format!("{}alias_{a:02}", "_".repeat(a % 3)),
                });
            }
            address += 0x40;
        }
    }
    out
}

#[test]
fn c_reader_answers_as_the_rust_reader_on_the_kernel() {
    let Some(d) = driver() else {
        return;
    };
    // Two ranges with a hole and a KASLR-like bias; the blob as built (no name hash
    // index) and with the index.
    for name_hash in [NameHash::Auto, NameHash::Always] {
        let kernel = build_v2_with(&kernel_symbols(), name_hash);
        compare_kernel(d, &format!("kernel ({name_hash:?})"), &kernel);
    }
}

fn compare_kernel(d: &Driver, label: &str, kernel: &[u8]) {
    let stored = stored_addresses(kernel);
    let (first, last) = (stored[0], *stored.last().unwrap());
    let bias = 0x1a0_0000;
    let middle = first + (last - first) / 2;
    let ranges = [
        first + bias..middle + bias,
        middle + 0x100 + bias..last + 0x1000 + bias,
    ];
    compare(d, label, kernel, &ranges, bias, &sweep(&stored, bias, 8));
}

#[test]
fn c_reader_answers_as_the_rust_reader_on_every_other_list() {
    let Some(d) = driver() else {
        return;
    };
    let mut total = 0;
    // Every input of the test data the builder takes, names of any length included.
    for (path, name) in files_ending_in(&testdata("ksym/input"), "") {
        let bytes = std::fs::read(&path).unwrap();
        let format = detect_format(&bytes);
        let Ok(list) = parse_input(&bytes, format, &name, &InputOptions::default()) else {
            continue;
        };
        if list.symbols.is_empty() {
            continue;
        }
        for name_hash in [NameHash::Always, NameHash::Never] {
            let blob = build_v2_with(&list.symbols, name_hash);
            let stored = stored_addresses(&blob);
            let ranges = [stored[0]..stored.last().unwrap().saturating_add(64).max(stored[0] + 1)];
            let label = format!("{name} ({name_hash:?})");
            total += compare(d, &label, &blob, &ranges, 0, &sweep(&stored, 0, 1));
        }
    }

    // Aliases and equal names, with a small bias and three ranges, with the name hash
    // index and without.
    for name_hash in [NameHash::Always, NameHash::Never] {
        let blob = build_v2_with(&alias_symbols(), name_hash);
        total += compare_aliases(d, &format!("aliases ({name_hash:?})"), &blob);
    }

    // One symbol.
    let one = build_v2(&[Symbol {
        address: 0x1000,
        kind: b'T',
        name: "only".into(),
    }]);
    total += compare(
        d,
        "one",
        &one,
        &[0x1000..0x1010],
        0,
        &sweep(&[0x1000], 0, 1),
    );
    total += compare(
        d,
        "one-wide",
        &one,
        &[0..u64::MAX],
        0,
        &[0, 0xfff, 0x1000, 1 << 40],
    );
    // No symbol at all, if the builder writes such a blob.
    if let Ok(empty) = build(&[], &v2_options()) {
        total += compare(
            d,
            "empty",
            &empty.bytes,
            &[0..u64::MAX],
            0,
            &[0, 1, 1 << 40],
        );
    }
    eprintln!("ksym-v2-c: {total} answers compared, all equal");
}

/// The aliases blob against the Rust reader, with a small bias and three ranges.
fn compare_aliases(d: &Driver, label: &str, blob: &[u8]) -> usize {
    let stored = stored_addresses(blob);
    let (first, last) = (stored[0], *stored.last().unwrap());
    let bias = 0x1000;
    let ranges = [
        first + bias..first + 0x400 + bias,
        first + 0x800 + bias..first + 0x900 + bias,
        first + 0x1000 + bias..last + 8 + bias,
    ];
    compare(d, label, blob, &ranges, bias, &sweep(&stored, bias, 1))
}

/// The small blob the robustness test breaks: aliases, equal names, several blocks and
/// restarts, and the name hash index, in about a kilobyte.
fn small_blob() -> Vec<u8> {
    let symbols: Vec<Symbol> = alias_symbols().into_iter().take(70).collect();
    build_v2_with(&symbols, NameHash::Always)
}

#[test]
fn c_reader_survives_truncated_and_corrupt_blobs() {
    let Some(d) = driver() else {
        return;
    };
    let blob = small_blob();
    let mut cases: Vec<Vec<u8>> = (0..=blob.len()).map(|n| blob[..n].to_vec()).collect();
    let mut rng = Rng::new(0x6b73_796d_7632);
    for k in 0..400 {
        let mut b = blob.clone();
        // One to four bytes changed; a quarter of them in the header.
        for _ in 0..1 + k % 4 {
            let at = if k % 4 == 0 {
                rng.below(48) as usize
            } else {
                rng.below(b.len() as u64) as usize
            };
            b[at] = match rng.below(3) {
                0 => rng.next_u64() as u8,
                1 => b[at] ^ (1 << rng.below(8)),
                _ => 0xff,
            };
        }
        cases.push(b);
    }
    // Header fields the open checks name: hash_bits above 32 and 0 (the segments then end
    // before total_bytes), num_types against num_syms.
    for hash_bits in [33, 0] {
        let mut wrong = blob.clone();
        wrong[43] = hash_bits;
        cases.push(wrong);
    }
    let mut no_types = blob.clone();
    no_types[36..38].copy_from_slice(&[0, 0]);
    cases.push(no_types);
    let regressions = testdata("fuzz-regressions/ksym_v2");
    for (path, _) in files_ending_in(&regressions, ".bin") {
        cases.push(std::fs::read(path).unwrap());
    }
    let mut all = Vec::new();
    for c in &cases {
        all.extend((c.len() as u32).to_le_bytes());
        all.extend_from_slice(c);
    }
    let file = run_scratch_dir("ksym-v2-c").join("broken.bins");
    std::fs::write(&file, &all).unwrap();

    let stored = stored_addresses(&blob);
    let mut input = String::new();
    for a in sweep(&stored, 0, 1) {
        input.push_str(&format!("a {a:x}\nr {a:x}\n"));
    }
    for e in v2::Blob::parse(&blob).unwrap().symbols_by_name().step_by(3) {
        input.push_str(&format!("n {}\nn {}~\n", e.name, e.name));
    }
    input.push_str("n \ndump\ncount\n");
    let out = run(d, "broken", &["--each".into()], &file, input.into_bytes());
    // The open checks (O(1), section 5) agree with the Rust reader's on every case.
    let opened: Vec<bool> = out
        .split(|&b| b == b'\n')
        .filter(|l| l.starts_with(b"open "))
        .map(|l| l == b"open 0")
        .collect();
    assert_eq!(opened.len(), cases.len(), "one open per case");
    for (k, (c, &ok)) in cases.iter().zip(&opened).enumerate() {
        let rust = v2::Blob::open(c);
        assert_eq!(
            ok,
            rust.is_ok(),
            "case {k} ({} bytes): C open {ok}, Rust open {rust:?}",
            c.len()
        );
    }
    eprintln!(
        "ksym-v2-c: {} broken blobs, {} opened, none crashed",
        cases.len(),
        opened.iter().filter(|&&o| o).count()
    );
}
