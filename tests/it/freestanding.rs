//! The freestanding example (`examples/freestanding`): a no_std, no-libc x86_64 Linux
//! program with a reserved `.ksyms` section, filled after linking by
//! `symblob_build::embed`. The program prints a backtrace of itself; every frame is checked
//! against binutils (`nm -n -C`, `addr2line -f -i -C`, `readelf -S`) run on the same file.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use symblob_build::embed::{build_for_section, embed_ksyms, find_section, EmbedOptions};
use symblob_build::ksym::{BuildOptions, Demangle, InputOptions};
use symblob_build::pipeline::ksym::build_from_elf;

use crate::common::{root, tool};

/// Size of the example's placeholder (`KSYMS_SIZE` in its `main.rs`).
const SECTION_SIZE: u64 = 64 * 1024;

fn run(cmd: &mut Command) -> Output {
    // A program this test has just written can be "busy" (ETXTBSY) for a moment: a child
    // that another test thread forks while the file is open for writing inherits that
    // descriptor until it calls exec. Waiting a little and trying again is the remedy.
    const TEXT_FILE_BUSY: i32 = 26;
    let mut tries = 0;
    loop {
        match cmd.output() {
            Err(e) if e.raw_os_error() == Some(TEXT_FILE_BUSY) && tries < 50 => {
                tries += 1;
                std::thread::sleep(std::time::Duration::from_millis(20));
            }
            result => return result.unwrap_or_else(|e| panic!("cannot run {cmd:?}: {e}")),
        }
    }
}

fn stdout_of(cmd: &mut Command) -> String {
    let out = run(cmd);
    assert!(
        out.status.success(),
        "{cmd:?} failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).unwrap()
}

/// Builds the example with its own target directory and returns the linked binary, whose
/// `.ksyms` section is still all zeros; `None` (the test is skipped, saying so) but on
/// x86_64 Linux, the only system the example runs on, with binutils installed.
fn build_example() -> Option<PathBuf> {
    if !cfg!(all(target_arch = "x86_64", target_os = "linux")) {
        eprintln!("skipped: the freestanding example is an x86_64 Linux program");
        return None;
    }
    // Every check compares with binutils: without them the example is not worth building.
    for oracle in ["nm", "readelf", "addr2line"] {
        tool(oracle)?;
    }
    let dir = root().join("examples/freestanding");
    let target = Path::new(env!("CARGO_TARGET_TMPDIR")).join("freestanding");
    let cargo = std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
    let out = run(Command::new(cargo)
        .current_dir(&dir)
        // Not --locked: the example has its own Cargo.lock, which cargo brings up to date
        // when the reader's dependencies change (CI builds it with --locked).
        .args(["build", "--release"])
        .env("CARGO_TARGET_DIR", &target)
        // The example's own .cargo/config.toml carries its flags; flags meant for the
        // test build must not replace them.
        .env_remove("RUSTFLAGS")
        .env_remove("CARGO_ENCODED_RUSTFLAGS")
        .env_remove("CARGO_BUILD_TARGET"));
    assert!(
        out.status.success(),
        "building the example failed:\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    Some(target.join("x86_64-unknown-linux-gnu/release/freestanding"))
}

/// One text symbol as `nm -n -C` prints it.
struct NmSymbol {
    address: u64,
    name: String,
}

/// The function symbols of `binary` in address order, as nm types them (`T`, `t`, `W`,
/// `i`, `u`: the builder keeps every function symbol of an ELF file by default).
fn nm_text_symbols(binary: &Path) -> Vec<NmSymbol> {
    let text = stdout_of(Command::new("nm").arg("-n").arg("-C").arg(binary));
    text.lines()
        .filter_map(|line| {
            let (address, rest) = line.split_once(' ')?;
            let (kind, name) = rest.split_once(' ')?;
            matches!(kind, "T" | "t" | "W" | "i" | "u").then(|| NmSymbol {
                address: u64::from_str_radix(address, 16).unwrap(),
                name: name.to_owned(),
            })
        })
        .collect()
}

/// A section as `readelf -SW` prints it: name, type, address, size, flags.
struct ElfSection {
    name: String,
    kind: String,
    address: u64,
    size: u64,
    flags: String,
}

fn readelf_sections(binary: &Path) -> Vec<ElfSection> {
    let text = stdout_of(Command::new("readelf").arg("-SW").arg(binary));
    text.lines()
        .filter_map(|line| {
            // "  [ 3] .ksyms   PROGBITS   0000000000200b58 000b58 010000 00  Ao  0   0  8"
            let (_, rest) = line.split_once(']')?;
            let fields: Vec<&str> = rest.split_whitespace().collect();
            if fields.len() < 7 {
                return None;
            }
            Some(ElfSection {
                name: fields[0].to_owned(),
                kind: fields[1].to_owned(),
                address: u64::from_str_radix(fields[2], 16).ok()?,
                size: u64::from_str_radix(fields[4], 16).ok()?,
                // With an empty flags column the field is the link number.
                flags: fields[6].to_owned(),
            })
        })
        .collect()
}

/// The function `addr2line` places `address` in: the outermost entry of the inline chain,
/// i.e. the function whose machine code holds the address.
fn addr2line_function(binary: &Path, address: u64) -> String {
    let text = stdout_of(
        Command::new("addr2line")
            .args(["-f", "-i", "-C", "-e"])
            .arg(binary)
            .arg(format!("{address:#x}")),
    );
    let lines: Vec<&str> = text.lines().collect();
    // Pairs of (function, file:line), innermost first.
    lines[lines.len() - 2].to_owned()
}

/// A printed frame: ` [<address>] name+0xoff/0xsize`.
struct Frame {
    address: u64,
    name: String,
    offset: u64,
    size: u64,
}

fn parse_frame(line: &str) -> Frame {
    let (_, rest) = line.split_once("[<").unwrap();
    let (address, symbol) = rest.split_once(">] ").unwrap();
    let (name, off_size) = symbol
        .rsplit_once('+')
        .unwrap_or_else(|| panic!("unresolved frame: {line}"));
    let (offset, size) = off_size.split_once('/').unwrap();
    let hex = |s: &str| u64::from_str_radix(s.trim_start_matches("0x"), 16).unwrap();
    Frame {
        address: hex(address),
        name: name.to_owned(),
        offset: hex(offset),
        size: hex(size),
    }
}

/// Checks `frame` against binutils: `query` is the address the reader resolved (the
/// address itself, or return address − 1).
fn check_frame(
    binary: &Path,
    symbols: &[NmSymbol],
    text: &[ElfSection],
    frame: &Frame,
    query: u64,
) {
    let at = symbols.partition_point(|s| s.address <= query);
    assert!(at > 0, "{query:#x} lies before the first symbol");
    let start = symbols[at - 1].address;
    let aliases: Vec<&str> = symbols
        .iter()
        .filter(|s| s.address == start)
        .map(|s| s.name.as_str())
        .collect();
    assert!(
        aliases.contains(&frame.name.as_str()),
        "frame {:#x}: printed {}, nm has {aliases:?} at {start:#x}",
        frame.address,
        frame.name
    );
    assert_eq!(
        addr2line_function(binary, query),
        frame.name,
        "addr2line disagrees on {query:#x}"
    );
    assert_eq!(
        frame.offset,
        frame.address - start,
        "offset of {}",
        frame.name
    );
    // Size: distance to the next greater symbol address, clipped to the end of the text
    // section that holds the symbol (spec D8).
    let section_end = text
        .iter()
        .find(|s| s.address <= start && start < s.address + s.size)
        .map(|s| s.address + s.size)
        .expect("symbol inside an executable section");
    let next = symbols
        .iter()
        .map(|s| s.address)
        .find(|&a| a > start)
        .unwrap_or(u64::MAX);
    assert_eq!(
        frame.size,
        next.min(section_end) - start,
        "size of {}",
        frame.name
    );
}

#[test]
fn freestanding_backtrace_matches_binutils() {
    let Some(linked) = build_example() else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();

    // The placeholder is a PROGBITS section (NOBITS could not be filled) of the declared
    // size.
    let sections = readelf_sections(&linked);
    let ksyms = sections.iter().find(|s| s.name == ".ksyms").unwrap();
    assert_eq!(ksyms.kind, "PROGBITS");
    assert_eq!(ksyms.size, SECTION_SIZE);

    // Never filled: the program says so and fails.
    let out = run(&mut Command::new(&linked));
    assert_eq!(out.status.code(), Some(2));
    assert_eq!(
        String::from_utf8_lossy(&out.stdout),
        "no symbols embedded\n"
    );

    // The post-link step.
    let filled = dir.path().join("freestanding");
    let mut options = EmbedOptions::default();
    options.input.demangle = Demangle::Rust;
    let report = embed_ksyms(&linked, &filled, ".ksyms", &options).unwrap();
    assert_eq!(report.section.size, SECTION_SIZE);
    assert_eq!(report.section.address, ksyms.address);
    assert!(report.stats.blob_bytes <= SECTION_SIZE);

    let out = run(&mut Command::new(&filled));
    let stdout = String::from_utf8(out.stdout).unwrap();
    assert_eq!(out.status.code(), Some(0), "{stdout}");

    let symbols = nm_text_symbols(&filled);
    let text: Vec<ElfSection> = readelf_sections(&filled)
        .into_iter()
        .filter(|s| s.flags.contains('X'))
        .collect();
    assert!(stdout.starts_with(&format!(
        "symbols: {}, blob: {} of {SECTION_SIZE} bytes",
        symbols.len(),
        report.stats.blob_bytes
    )));

    // Every frame, against nm and addr2line.
    let mut frames = Vec::new();
    for line in stdout.lines().filter(|l| l.contains("[<")) {
        let frame = parse_frame(line);
        let query = if line.starts_with("pc:") {
            frame.address
        } else {
            frame.address - 1
        };
        check_frame(&filled, &symbols, &text, &frame, query);
        frames.push(frame.name);
    }
    // The nested calls appear innermost first, down to the entry point.
    assert_eq!(
        frames,
        [
            "freestanding::frames::level_three",
            "freestanding::frames::level_two",
            "freestanding::frames::level_one",
            "freestanding::run",
            "rust_main",
            "_start",
        ]
    );

    // Name lookups: the program compared them with its own function pointers; the
    // addresses must also be nm's.
    let lookups: Vec<&str> = stdout
        .lines()
        .filter(|l| l.starts_with("lookup_name "))
        .collect();
    assert_eq!(lookups.len(), 6, "{stdout}");
    for line in lookups {
        assert!(line.ends_with(": OK"), "{line}");
        let (name, rest) = line["lookup_name ".len()..].split_once(" = 0x").unwrap();
        let address = u64::from_str_radix(rest.split(',').next().unwrap(), 16).unwrap();
        assert!(
            symbols
                .iter()
                .any(|s| s.name == name && s.address == address),
            "nm has no {name} at {address:#x}"
        );
    }

    // Stack high-water marks: every one measured, and small.
    let marks: Vec<u64> = stdout
        .lines()
        .skip_while(|l| !l.starts_with("stack high-water marks"))
        .skip(1)
        .take_while(|l| l.starts_with("  "))
        .map(|l| l.rsplit_once(": ").unwrap().1.parse().unwrap())
        .collect();
    assert_eq!(marks.len(), 8, "{stdout}");
    assert!(marks.iter().all(|&m| m > 0 && m <= 2048), "{marks:?}");
}

#[test]
fn embed_refuses_what_it_cannot_fill() {
    let Some(linked) = build_example() else {
        return;
    };
    let elf = std::fs::read(&linked).unwrap();
    let sections = readelf_sections(&linked);
    let options = EmbedOptions::default();

    // Too small: the message names the section and both sizes.
    let comment = sections.iter().find(|s| s.name == ".comment").unwrap();
    let needed = build_from_elf(
        &elf,
        "x",
        &InputOptions::default(),
        &BuildOptions::default(),
    )
    .unwrap()
    .blob
    .stats
    .blob_bytes;
    assert!(needed > comment.size);
    let err = build_for_section(&elf, "prog", ".comment", &options)
        .unwrap_err()
        .to_string();
    assert!(err.starts_with("prog: "), "{err}");
    assert!(err.contains(".comment"), "{err}");
    assert!(err.contains(&format!("needs {needed} bytes")), "{err}");
    assert!(
        err.contains(&format!("holds only {} bytes", comment.size)),
        "{err}"
    );

    // No output file on failure.
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("out");
    assert!(embed_ksyms(&linked, &out, ".comment", &options).is_err());
    assert!(!out.exists());

    // A NOBITS section has no bytes in the file to replace.
    let bss = sections.iter().find(|s| s.name == ".bss").unwrap();
    assert_eq!(bss.kind, "NOBITS");
    let err = find_section(&elf, "prog", ".bss").unwrap_err().to_string();
    assert!(err.contains("NOBITS"), "{err}");

    let err = find_section(&elf, "prog", ".nope").unwrap_err().to_string();
    assert_eq!(err, "prog: no section .nope");

    // The blob fits the real placeholder exactly, zero padded.
    let blob = build_for_section(&elf, "prog", ".ksyms", &options).unwrap();
    assert_eq!(blob.bytes.len() as u64, SECTION_SIZE);
    let used = symblob::ksym::KsymBlob::parse(&blob.bytes)
        .unwrap()
        .used_size();
    assert_eq!(used as u64, blob.stats.blob_bytes);
    assert!(blob.bytes[used..].iter().all(|&b| b == 0));
}
