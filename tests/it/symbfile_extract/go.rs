//! Go functions from `.gopclntab` against Go's own `debug/gosym`: on the stripped Go test
//! ELF (no DWARF, no symbols, so every record comes from the Go table) each record spans
//! the PCs its line table maps, as symblib's Go extractor makes it, and names the file of
//! its entry PC. The spans are computed by `testdata/symbfile/gospans`, a Go program.
//! A Go 1.2 table (Go 1.2–1.15 binaries) is checked function by function, for Lidia and
//! symbfile, against the function list `debug/gosym` gives.

use std::ffi::OsStr;
use std::path::{Path, PathBuf};
use std::process::Command;

use symblob::lidia::LidiaFile;
use symblob_build::extract::{ranges, ExtractOptions};
use symblob_build::pipeline::lidia::{build_from_elf, ElfOptions, SymbolSources};

use crate::common::{missing_oracle, shared_testdata, testdata, tool};

/// A Go toolchain with its own caches in a temporary directory, and
/// `testdata/symbfile/gospans` built by it (so that tables are read by that release's
/// `debug/gosym`).
pub(super) struct Gosym {
    go: PathBuf,
    home: tempfile::TempDir,
    gospans: PathBuf,
}

impl Gosym {
    /// Builds `gospans` with the toolchain `go`.
    pub(super) fn build(go: &Path) -> Gosym {
        let home = tempfile::tempdir().expect("temporary directory");
        let gospans = home.path().join("gospans");
        let gosym = Gosym {
            go: go.to_path_buf(),
            home,
            gospans,
        };
        let out = gosym
            .go_command()
            .args(["build", "-o"])
            .arg(&gosym.gospans)
            .arg(testdata("symbfile/gospans/main.go"))
            .output()
            .expect("go build");
        assert!(out.status.success(), "go build gospans: {}", stderr(&out));
        gosym
    }

    /// A `go` command whose caches live in the temporary directory and that reads no
    /// user settings.
    pub(super) fn go_command(&self) -> Command {
        let home = self.home.path();
        let mut cmd = Command::new(&self.go);
        cmd.env("HOME", home)
            .env("GOPATH", home.join("path"))
            .env("GOCACHE", home.join("cache"))
            .env("GOFLAGS", "")
            .env("GO111MODULE", "off")
            .env("CGO_ENABLED", "0");
        cmd
    }

    /// Builds `testdata/symbfile/gocross` for Linux on `arch`, stripped.
    pub(super) fn build_hello(&self, arch: &str) -> PathBuf {
        let elf = self.home.path().join(format!("hello-{arch}"));
        let out = self
            .go_command()
            .env("GOOS", "linux")
            .env("GOARCH", arch)
            .args(["build", "-trimpath", "-ldflags=-s -w", "-o"])
            .arg(&elf)
            .arg(testdata("symbfile/gocross/main.go"))
            .output()
            .expect("go build");
        assert!(
            out.status.success(),
            "go build for {arch}: {}",
            stderr(&out)
        );
        elf
    }

    /// What `gospans ARGS…` prints.
    fn run(&self, args: &[&OsStr]) -> String {
        let out = Command::new(&self.gospans)
            .args(args)
            .output()
            .expect("gospans");
        assert!(out.status.success(), "gospans: {}", stderr(&out));
        String::from_utf8(out.stdout).expect("UTF-8 output")
    }

    /// `gospans`' lines for `elf`: entry, end, name and file per function.
    fn spans(&self, elf: &Path) -> Vec<(u64, u64, String, String)> {
        self.run(&[elf.as_os_str()])
            .lines()
            .map(|l| {
                let (entry, end, rest) = entry_end_rest(l);
                let (name, file) = rest.split_once('\t').expect("tab");
                (entry, end, name.to_string(), file.to_string())
            })
            .collect()
    }

    /// `gospans -funcs`' lines for `elf`: entry, end (the next entry) and name of every
    /// function of its table.
    pub(super) fn funcs(&self, elf: &Path) -> Vec<(u64, u64, String)> {
        self.run(&[OsStr::new("-funcs"), elf.as_os_str()])
            .lines()
            .map(|l| {
                let (entry, end, name) = entry_end_rest(l);
                (entry, end, name.to_string())
            })
            .collect()
    }
}

fn stderr(out: &std::process::Output) -> std::borrow::Cow<'_, str> {
    String::from_utf8_lossy(&out.stderr)
}

/// A `gospans` line: its entry and end (hex) and what follows them.
fn entry_end_rest(line: &str) -> (u64, u64, &str) {
    let mut f = line.splitn(3, ' ');
    let mut hex = || u64::from_str_radix(f.next().expect("field"), 16).expect("hex");
    let (entry, end) = (hex(), hex());
    (entry, end, f.next().expect("name"))
}

#[test]
fn symbfile_go_records_span_their_line_tables_as_symblib_and_gosym_say() {
    let (Some(go), Some(elf)) = (tool("go"), shared_testdata("lidia/elf/gohello-stripped")) else {
        return;
    };
    assert_records_match_gosym(&Gosym::build(&go), &elf, 100);
}

/// Tables of other byte orders, pointer sizes and instruction quanta, which symblib does
/// not read: a small program built stripped for each, compared with `debug/gosym` the same
/// way as the x86-64 binary above.
#[test]
fn symbfile_go_records_of_big_endian_and_32_bit_tables_match_gosym() {
    let Some(go) = tool("go") else {
        return;
    };
    let gosym = Gosym::build(&go);
    // (GOARCH, its table's layout, functions that end before the next entry at least:
    // s390x functions have no padding after them, so only names and files are checked there)
    for (arch, what, padded) in [
        ("s390x", "64-bit big-endian, quantum 2", 0),
        ("mips", "32-bit big-endian, quantum 4", 20),
        ("386", "32-bit little-endian, quantum 1", 100),
    ] {
        eprintln!("{arch} ({what})");
        assert_records_match_gosym(&gosym, &gosym.build_hello(arch), padded);
    }
}

/// Every record extracted from `elf` (which has no DWARF and no symbols) is a Go record
/// with the span and file `gospans` computes; at least `min_padded` of them end before the
/// next function's entry, so the line-table rule is visible.
pub(super) fn assert_records_match_gosym(gosym: &Gosym, elf: &Path, min_padded: usize) {
    let expected = gosym.spans(elf);
    // The difference from `[entry, next entry)` must be visible in this input.
    let padded = expected.windows(2).filter(|w| w[0].1 < w[1].0).count();
    assert!(
        padded >= min_padded,
        "{padded} functions end before the next entry"
    );

    let got = ranges(elf, &ExtractOptions::default()).expect("extraction");
    let go = got.stats.sources.iter().find(|(s, _)| *s == "go");
    let accepted = go.map(|(_, s)| s.accepted);
    let records: Vec<_> = got
        .records
        .iter()
        .map(|r| {
            assert_eq!((r.depth, r.call_file.as_ref(), r.lines.len()), (0, None, 0));
            (
                r.va,
                r.va + r.length,
                r.func.clone(),
                r.file.clone().unwrap_or_default(),
            )
        })
        .collect();
    if records != expected {
        // The lists are long: name the functions that differ first.
        for e in expected.iter().filter(|e| !records.contains(e)) {
            eprintln!("missing {e:x?}");
        }
        for r in records.iter().filter(|r| !expected.contains(r)) {
            eprintln!("extra {r:x?}");
        }
    }
    assert_eq!(accepted, Some(expected.len()), "Go records accepted");
    assert_eq!(records, expected);
}

/// A Go 1.2 table (the layout of Go 1.2 to 1.15, which the Go 1.19 toolchain here cannot
/// write): the 1.15 table Go ships as `debug/gosym` test data (`pcln115.gz`, a macOS
/// program whose text starts at 0x1001000), put into an ELF file as `.gopclntab` with a
/// `.text` there. Lidia's ranges and symbfile's records are the functions `debug/gosym`
/// lists, each to the next one's entry (symbfile reads line spans from 1.16 tables only).
#[test]
fn go_1_2_table_functions_match_gosym() {
    let (Some(go), Some(objcopy)) = (tool("go"), tool("objcopy")) else {
        return;
    };
    let gosym = Gosym::build(&go);
    let home = tempfile::tempdir().expect("temporary directory");
    let goroot = gosym
        .go_command()
        .args(["env", "GOROOT"])
        .output()
        .expect("go env");
    let goroot = String::from_utf8(goroot.stdout).expect("UTF-8");
    let gz = Path::new(goroot.trim()).join("src/debug/gosym/testdata/pcln115.gz");
    let Ok(gz) = std::fs::read(&gz) else {
        missing_oracle(&format!("Go's 1.15 table {}", gz.display()));
        return;
    };
    let mut table = Vec::new();
    std::io::Read::read_to_end(&mut flate2::read::GzDecoder::new(&gz[..]), &mut table)
        .expect("gunzip pcln115.gz");
    let d = home.path();
    std::fs::write(d.join("pcln115"), &table).unwrap();
    std::fs::write(d.join("text"), vec![0u8; 0x10_0000]).unwrap();
    let made = Command::new(&objcopy)
        .current_dir(d)
        .args(["-I", "binary", "-O", "elf64-x86-64", "-B", "i386:x86-64"])
        .args([
            "--rename-section",
            ".data=.gopclntab,alloc,load,readonly,data,contents",
        ])
        .args(["pcln115", "table.o"])
        .status()
        .is_ok_and(|s| s.success())
        && Command::new(&objcopy)
            .current_dir(d)
            .args(["--add-section", ".text=text"])
            .args(["--set-section-flags", ".text=alloc,code,readonly"])
            .args(["--change-section-address", ".text=0x1001000"])
            .args(["table.o", "go115"])
            .status()
            .is_ok_and(|s| s.success());
    assert!(made, "objcopy wraps the table in an ELF file");
    let elf = d.join("go115");

    let expected = gosym.funcs(&elf);
    assert!(expected.len() > 1000, "{} functions", expected.len());
    assert!(expected.iter().any(|f| f.2 == "main.main"));

    assert_lidia_ranges_are(&elf, &expected);

    let extracted = ranges(&elf, &ExtractOptions::default()).expect("extraction");
    let got: Vec<_> = extracted
        .records
        .iter()
        .map(|r| {
            assert_eq!((r.depth, r.file.as_ref()), (0, None));
            (r.va, r.va + r.length, r.func.clone())
        })
        .collect();
    assert_eq!(got, expected, "symbfile");
}

/// A Lidia file built from `elf`'s Go table alone (its symbol table ignored) has one
/// range per function of `expected`: entry, end and name.
pub(super) fn assert_lidia_ranges_are(elf: &Path, expected: &[(u64, u64, String)]) {
    let options = ElfOptions {
        symbols: SymbolSources {
            symtab: false,
            ..SymbolSources::default()
        },
        ..ElfOptions::default()
    };
    let lidia = build_from_elf(elf, &options).expect("Lidia build");
    let file = LidiaFile::parse(&lidia).expect("Lidia file");
    let got: Vec<_> = file
        .ranges()
        .map(|r| (r.va, r.va + r.length, r.function.to_string()))
        .collect();
    assert_eq!(got, expected, "Lidia");
}
