//! The test programs of `testdata/dwarf/`, compiled once per test run into a temporary
//! directory, in every variant the tests need. A variant whose toolchain is missing (or
//! that the toolchain cannot produce, like zstd-compressed sections) is absent: the tests
//! that need it report a missing oracle (a failure under `SYMBLOB_REQUIRE_ORACLES=1`).

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::OnceLock;

use crate::common::{missing_oracle, testdata};

/// Every compiled variant, by name.
pub struct Fixtures {
    _dir: tempfile::TempDir,
    bins: BTreeMap<&'static str, PathBuf>,
}

impl Fixtures {
    /// The binary of variant `name`, if it could be built.
    pub fn get(&self, name: &str) -> Option<&Path> {
        let p = self.bins.get(name).map(PathBuf::as_path);
        if p.is_none() {
            missing_oracle(&format!(
                "test program {name} (this toolchain could not build it)"
            ));
        }
        p
    }
}

/// The fixtures, built on first use.
pub fn fixtures() -> &'static Fixtures {
    static CELL: OnceLock<Fixtures> = OnceLock::new();
    CELL.get_or_init(build_all)
}

/// Runs `cmd`; true when it succeeded.
fn run(cmd: &mut Command) -> bool {
    match cmd.output() {
        Ok(o) if o.status.success() => true,
        Ok(o) => {
            eprintln!(
                "fixture command {cmd:?} failed: {}",
                String::from_utf8_lossy(&o.stderr)
            );
            false
        }
        Err(e) => {
            eprintln!("fixture command {cmd:?} not runnable: {e}");
            false
        }
    }
}

fn src(name: &str) -> PathBuf {
    testdata(&format!("dwarf/{name}"))
}

fn build_all() -> Fixtures {
    let dir = tempfile::tempdir().expect("temporary directory");
    let d = dir.path();
    let mut bins = BTreeMap::new();
    let add = |bins: &mut BTreeMap<&'static str, PathBuf>, name: &'static str, ok: bool| {
        if ok {
            bins.insert(name, d.join(name));
        }
    };

    // The assembly function has no DWARF: it must come from the symbol table.
    let asm = d.join("asm_double.o");
    let asm_ok = run(Command::new("gcc")
        .arg("-c")
        .arg(src("asm_double.S"))
        .arg("-o")
        .arg(&asm));
    let c_sources = [src("main.c"), src("other.c")];
    let gcc = |out: &str, flags: &[&str]| {
        asm_ok
            && run(Command::new("gcc")
                .args(["-O2", "-g"])
                .args(flags)
                .args(&c_sources)
                .arg(&asm)
                .arg("-o")
                .arg(d.join(out)))
    };
    add(&mut bins, "c-dwarf5", gcc("c-dwarf5", &["-gdwarf-5"]));
    add(&mut bins, "c-dwarf4", gcc("c-dwarf4", &["-gdwarf-4"]));
    add(&mut bins, "c-gz-zlib", gcc("c-gz-zlib", &["-gz=zlib"]));
    add(
        &mut bins,
        "c-clang",
        asm_ok
            && run(Command::new("clang-14")
                .args(["-O2", "-g"])
                .args(&c_sources)
                .arg(&asm)
                .arg("-o")
                .arg(d.join("c-clang"))),
    );
    if bins.contains_key("c-dwarf5") {
        let base = d.join("c-dwarf5");
        add(
            &mut bins,
            "c-objcopy-zlib",
            run(Command::new("objcopy")
                .arg("--compress-debug-sections=zlib")
                .arg(&base)
                .arg(d.join("c-objcopy-zlib"))),
        );
        add(
            &mut bins,
            "c-objcopy-zstd",
            run(Command::new("objcopy")
                .arg("--compress-debug-sections=zstd")
                .arg(&base)
                .arg(d.join("c-objcopy-zstd"))),
        );
        add(
            &mut bins,
            "c-zdebug",
            run(Command::new("objcopy")
                .arg("--compress-debug-sections=zlib-gnu")
                .arg(&base)
                .arg(d.join("c-zdebug"))),
        );
        // A stripped program with a .gnu_debuglink to its debug file next to it.
        let debug = d.join("c-stripped.debug");
        let ok = run(Command::new("objcopy")
            .arg("--only-keep-debug")
            .arg(&base)
            .arg(&debug))
            && run(Command::new("objcopy")
                .arg("--strip-debug")
                .arg(format!("--add-gnu-debuglink={}", debug.display()))
                .arg(&base)
                .arg(d.join("c-stripped")));
        add(&mut bins, "c-stripped", ok);
        add(&mut bins, "c-stripped.debug", ok);
    }
    add(
        &mut bins,
        "cpp-gxx",
        run(Command::new("g++")
            .args(["-O2", "-g"])
            .arg(src("shapes.cpp"))
            .arg("-o")
            .arg(d.join("cpp-gxx"))),
    );
    add(
        &mut bins,
        "rust",
        run(Command::new("rustc")
            .args(["-C", "opt-level=2", "-g", "--edition", "2021"])
            .arg(src("iters.rs"))
            .arg("-o")
            .arg(d.join("rust"))),
    );
    // Overlapping functions in hand-written DWARF; without symbols, so that the DWARF
    // names show (llvm-symbolizer names outermost frames after symbols otherwise).
    let nested_ok = run(Command::new("gcc")
        .arg(src("nested.S"))
        .arg("-o")
        .arg(d.join("nested")));
    add(&mut bins, "nested", nested_ok);
    add(
        &mut bins,
        "nested-nosym",
        nested_ok
            && run(Command::new("objcopy")
                .args(["--strip-all", "--keep-section=.debug_*"])
                .arg(d.join("nested"))
                .arg(d.join("nested-nosym"))),
    );
    // Go writes DWARF 4 with `comp_dir` "." and `<autogenerated>` files in directory 0.
    let go_home = d.join("go-home");
    add(
        &mut bins,
        "go",
        run(Command::new("go")
            .arg("build")
            .arg("-o")
            .arg(d.join("go"))
            .arg(src("go/main.go"))
            .env("HOME", &go_home)
            .env("GOPATH", go_home.join("path"))
            .env("GOCACHE", go_home.join("cache"))
            .env("GOFLAGS", "")
            .env("GO111MODULE", "off")),
    );
    Fixtures { _dir: dir, bins }
}
