//! The test programs of `testdata/dwarf/`, compiled once per test run into a temporary
//! directory, in every variant the tests need. A variant whose toolchain is missing (or
//! that the toolchain cannot produce, like zstd-compressed sections) is absent: the tests
//! that need it report a missing oracle (a failure under `SYMBLOB_REQUIRE_ORACLES=1`).

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::OnceLock;

use crate::common::{go_release, missing_oracle, run_scratch_dir, testdata};

/// The Go release whose DWARF 5 the `go-1.27` program has.
pub const GO_DWARF5: &str = "1.27.3";

/// Every compiled variant, by name.
pub struct Fixtures {
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
    let dir = run_scratch_dir("dwarf-fixtures");
    let d = dir.as_path();
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
    let mut c_sources = vec![src("main.c"), src("other.c")];
    c_sources.extend(many_functions(d));
    // The C program, by `compiler` with `flags`, as `out`.
    let c_program = |compiler: &str, out: &str, flags: &[&str]| {
        asm_ok
            && run(Command::new(compiler)
                .args(["-O2", "-g"])
                .args(flags)
                .args(&c_sources)
                .arg(&asm)
                .arg("-o")
                .arg(d.join(out)))
    };
    add(
        &mut bins,
        "c-dwarf5",
        c_program("gcc", "c-dwarf5", &["-gdwarf-5"]),
    );
    add(
        &mut bins,
        "c-dwarf4",
        c_program("gcc", "c-dwarf4", &["-gdwarf-4"]),
    );
    add(
        &mut bins,
        "c-gz-zlib",
        c_program("gcc", "c-gz-zlib", &["-gz=zlib"]),
    );
    add(&mut bins, "c-clang", c_program("clang-14", "c-clang", &[]));
    if bins.contains_key("c-dwarf5") {
        let base = d.join("c-dwarf5");
        // Debug sections compressed after the link, by each method objcopy knows.
        for (name, method) in [
            ("c-objcopy-zlib", "zlib"),
            ("c-objcopy-zstd", "zstd"),
            ("c-zdebug", "zlib-gnu"),
        ] {
            let ok = run(Command::new("objcopy")
                .arg(format!("--compress-debug-sections={method}"))
                .arg(&base)
                .arg(d.join(name)));
            add(&mut bins, name, ok);
        }
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
    // The C program for AArch64 (its assembly function rewritten for it), for its PLT.
    add(
        &mut bins,
        "c-aarch64",
        run(Command::new("aarch64-linux-gnu-gcc")
            .args(["-O2", "-g"])
            .args(&c_sources)
            .arg(src("asm_double_aarch64.S"))
            .arg("-o")
            .arg(d.join("c-aarch64"))),
    );
    add(
        &mut bins,
        "cpp-gxx",
        run(Command::new("g++")
            .args(["-O2", "-g"])
            .arg(src("shapes.cpp"))
            .arg("-o")
            .arg(d.join("cpp-gxx"))),
    );
    // Type units: DWARF 4 puts them in `.debug_types`, DWARF 5 in `.debug_info`. The
    // compilation unit keeps a declaration of each class (`DW_AT_signature`, a
    // `DW_FORM_ref_sig8` into its type unit) and, in it, a declaration of each member
    // function that a definition's `DW_AT_specification` refers to: GCC 12 and Clang 14
    // never make a function's name go through a type unit.
    let type_units = [
        ("cpp-gxx-types", "g++", "4"),
        ("cpp-gxx5-types", "g++", "5"),
        ("cpp-clang4-types", "clang++-14", "4"),
        ("cpp-clang5-types", "clang++-14", "5"),
    ];
    for (name, compiler, version) in type_units {
        let ok = run(Command::new(compiler)
            .args(["-O2", "-g", "-fdebug-types-section"])
            .arg(format!("-gdwarf-{version}"))
            .arg(src("shapes.cpp"))
            .arg("-o")
            .arg(d.join(name)));
        add(&mut bins, name, ok);
    }
    add(
        &mut bins,
        "rust",
        run(Command::new("rustc")
            .args(["-C", "opt-level=2", "-g", "--edition", "2021"])
            .arg(src("iters.rs"))
            .arg("-o")
            .arg(d.join("rust"))),
    );
    // Cargo's `split-debuginfo = "unpacked"`: rustc leaves one `.dwo` file per codegen
    // unit of the crate next to the program (DWARF 4, GNU split units); the standard
    // library's units stay whole in the program.
    let rust_split = d.join("rust-split");
    add(
        &mut bins,
        "rust-split/prog",
        std::fs::create_dir_all(&rust_split).is_ok()
            && run(Command::new("rustc")
                .current_dir(&rust_split)
                .args([
                    "-C",
                    "opt-level=2",
                    "-C",
                    "debuginfo=2",
                    "--edition",
                    "2021",
                ])
                .args(["-C", "split-debuginfo=unpacked"])
                .arg(src("iters.rs"))
                .arg("-o")
                .arg(rust_split.join("prog"))),
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
    add(&mut bins, "go", go_build(Path::new("go"), d, "go"));
    // Go 1.27 writes DWARF 5 (location and range lists, `.debug_addr`), zlib-compressed.
    if let Some(go) = go_release(GO_DWARF5) {
        add(&mut bins, "go-1.27", go_build(&go, d, "go-1.27"));
    }
    split_type_units(d, &mut bins);
    // The C program's variants need its assembly function.
    if asm_ok {
        split_dwarf(d, &c_sources, &asm, &mut bins);
        dwz_multifile(d, &c_sources, &asm, &mut bins);
    }
    Fixtures { bins }
}

/// Builds `go/main.go` with the toolchain `go` into `dir/name`, with the toolchain's
/// caches in a directory of its own; true when it succeeded.
fn go_build(go: &Path, dir: &Path, name: &str) -> bool {
    let home = dir.join(format!("{name}-home"));
    run(Command::new(go)
        .arg("build")
        .arg("-o")
        .arg(dir.join(name))
        .arg(src("go/main.go"))
        .env("HOME", &home)
        .env("GOPATH", home.join("path"))
        .env("GOCACHE", home.join("cache"))
        .env("GOFLAGS", "")
        .env("GO111MODULE", "off"))
}

/// Writes `many_0.c` … `many_3.c` into `dir`: 160 functions of a few shapes (loops,
/// branches, inlined helper chains of `helpers.h`, each on its own lines), so that the C
/// program has enough code for the differential tests to sample a few thousand
/// addresses. Four units, not one, so that they share DIEs for `dwz` to move (with one,
/// `dwz` finds compression "not beneficial" and leaves the programs alone). Returns
/// their paths.
fn many_functions(dir: &Path) -> Vec<PathBuf> {
    use std::fmt::Write;
    let header = format!(
        "/* Generated by the test fixtures. */\n#include \"{}\"\n\n",
        src("helpers.h").display()
    );
    let mut files = vec![header; 4];
    for i in 0..160u32 {
        let k = i.wrapping_mul(2_654_435_761) | 1;
        let n = i % 7 + 4;
        let body = match i % 4 {
            0 => format!(
                "\tfor (unsigned i = 0; i < (x & {}); i++)\n\t\tacc = clamp_add(acc, mix1(acc ^ i), {k}u);\n",
                i % 13 + 3
            ),
            1 => format!(
                "\tif (acc & {})\n\t\tacc = mix2(acc, {k}u);\n\telse\n\t\tacc = mix3(acc + {i});\n",
                1u32 << (i % 31)
            ),
            2 => format!(
                "\tint t[{n}];\n\tfor (int i = 0; i < {n}; i++)\n\t\tt[i] = (int)mix3(acc + (unsigned)i);\n\tacc += (unsigned)table_sum(t, {n});\n"
            ),
            _ => format!("\twhile (acc > {k}u)\n\t\tacc = (acc >> 1) ^ mix1(acc);\n"),
        };
        let file = &mut files[(i / 40) as usize];
        let _ = write!(
            file,
            "unsigned many_{i}(unsigned x)\n{{\n\tunsigned acc = x * {k}u;\n{body}\treturn acc;\n}}\n\n"
        );
    }
    files
        .into_iter()
        .enumerate()
        .map(|(i, text)| {
            let path = dir.join(format!("many_{i}.c"));
            std::fs::write(&path, text).expect("write a generated source");
            path
        })
        .collect()
}

/// The C program with `-gsplit-dwarf`, one directory per variant (the `.dwo` files of
/// two variants would have the same names): `split-<compiler><version>/prog` with its
/// loose `.dwo` files, and `dwp-clang<version>/prog` with a `prog.dwp` from `llvm-dwp-14`
/// and no `.dwo` files left. GCC 12's DWARF 5 `.dwo` files make `llvm-dwp-14` hang, so
/// only Clang's are packaged (and every tool runs under a time limit).
fn split_dwarf(
    d: &Path,
    c_sources: &[PathBuf],
    asm: &Path,
    bins: &mut BTreeMap<&'static str, PathBuf>,
) {
    let compile_as = |dir: &Path, compiler: &str, version: &str, split: bool, out: &str| {
        std::fs::create_dir_all(dir).is_ok()
            && run(Command::new(compiler)
                .current_dir(dir)
                .args(["-O2", "-g"])
                .args(split.then_some("-gsplit-dwarf"))
                .arg(format!("-gdwarf-{version}"))
                .args(c_sources)
                .arg(asm)
                .args(["-o", out]))
    };
    let compile = |dir: &Path, compiler: &str, version: &str| {
        compile_as(dir, compiler, version, true, "prog")
    };
    // Each split program, and in its directory its twin: the same program without split
    // DWARF, where llvm-symbolizer-14 loses split inline frames (GCC's; Clang's with
    // `DW_AT_ranges`); it reads the twins correctly.
    let variants: [(&'static str, &'static str, &str, &str); 4] = [
        ("split-gcc4/prog", "split-gcc4/twin", "gcc", "4"),
        ("split-gcc5/prog", "split-gcc5/twin", "gcc", "5"),
        ("split-clang4/prog", "split-clang4/twin", "clang-14", "4"),
        ("split-clang5/prog", "split-clang5/twin", "clang-14", "5"),
    ];
    for (prog, twin, compiler, version) in variants {
        let dir = d.join(prog).with_file_name("");
        if compile_as(&dir, compiler, version, false, "twin") {
            bins.insert(twin, d.join(twin));
        }
        if compile(&dir, compiler, version) {
            bins.insert(prog, d.join(prog));
        }
    }
    let Some(dwp) = crate::common::tool("llvm-dwp-14") else {
        return;
    };
    let packaged: [(&'static str, &str); 2] = [("dwp-clang4/prog", "4"), ("dwp-clang5/prog", "5")];
    for (name, version) in packaged {
        let dir = d.join(name).with_file_name("");
        let ok = compile(&dir, "clang-14", version) && make_package(&dwp, &dir);
        if ok {
            bins.insert(name, d.join(name));
        }
    }
}

/// The C++ program split by Clang with type units, which then live in the `.dwo` files
/// (`.debug_types.dwo` for DWARF 4, `.debug_info.dwo` for DWARF 5):
/// `split-types<version>/prog` with loose `.dwo` files, `dwp-types5/prog` with a package.
fn split_type_units(d: &Path, bins: &mut BTreeMap<&'static str, PathBuf>) {
    let variants: [(&'static str, &str, bool); 3] = [
        ("split-types4/prog", "4", false),
        ("split-types5/prog", "5", false),
        ("dwp-types5/prog", "5", true),
    ];
    for (name, version, package) in variants {
        let dir = d.join(name).with_file_name("");
        let mut ok = std::fs::create_dir_all(&dir).is_ok()
            && run(Command::new("clang++-14")
                .current_dir(&dir)
                .args(["-O2", "-g", "-gsplit-dwarf", "-fdebug-types-section"])
                .arg(format!("-gdwarf-{version}"))
                .arg(src("shapes.cpp"))
                .args(["-o", "prog"]));
        if package {
            let Some(dwp) = crate::common::tool("llvm-dwp-14") else {
                continue;
            };
            ok = ok && make_package(&dwp, &dir);
        }
        if ok {
            bins.insert(name, d.join(name));
        }
    }
}

/// The `dwz -m` programs of [`dwz_multifile`], each with `<name>-whole` (before `dwz`).
pub const DWZ_PROGRAMS: [&str; 6] = [
    "dwz4/o2",
    "dwz4/o1",
    "dwz5/o2",
    "dwz5/o1",
    "dwz5sup/o2",
    "dwz5sup/o1",
];

/// Two programs from the same sources (GCC `-O2` and `-O1`, DWARF `version`) whose
/// shared DIEs and strings `dwz -m common.debug` moved into a supplementary file, named
/// relative to them by `.gnu_debugaltlink` (`dwz4`, `dwz5`) or, with `dwz --dwarf-5`,
/// by `.debug_sup` (`dwz5sup`): `<dir>/o2` and `<dir>/o1`, with `<dir>/o2-whole` and
/// `<dir>/o1-whole`, the same programs before `dwz`.
fn dwz_multifile(
    d: &Path,
    c_sources: &[PathBuf],
    asm: &Path,
    bins: &mut BTreeMap<&'static str, PathBuf>,
) {
    let Some(dwz) = crate::common::tool("dwz") else {
        return;
    };
    // dwz links by `.gnu_debugaltlink`, or with `--dwarf-5` by a DWARF 5 `.debug_sup`.
    let variants: [(&'static str, &str, &[&str], [&'static str; 4]); 3] = [
        (
            "dwz4",
            "4",
            &[],
            ["dwz4/o2", "dwz4/o1", "dwz4/o2-whole", "dwz4/o1-whole"],
        ),
        (
            "dwz5",
            "5",
            &[],
            ["dwz5/o2", "dwz5/o1", "dwz5/o2-whole", "dwz5/o1-whole"],
        ),
        (
            "dwz5sup",
            "5",
            &["--dwarf-5"],
            [
                "dwz5sup/o2",
                "dwz5sup/o1",
                "dwz5sup/o2-whole",
                "dwz5sup/o1-whole",
            ],
        ),
    ];
    for (dir, version, dwz_flags, names) in variants {
        let dir = d.join(dir);
        let compile = |opt: &str, out: &str| {
            run(Command::new("gcc")
                .current_dir(&dir)
                .args([opt, "-g"])
                .arg(format!("-gdwarf-{version}"))
                .args(c_sources)
                .arg(asm)
                .args(["-o", out]))
        };
        let ok = std::fs::create_dir_all(&dir).is_ok()
            && compile("-O2", "o2")
            && compile("-O1", "o1")
            && std::fs::copy(dir.join("o2"), dir.join("o2-whole")).is_ok()
            && std::fs::copy(dir.join("o1"), dir.join("o1-whole")).is_ok()
            && run(Command::new("timeout")
                .current_dir(&dir)
                .arg("120")
                .arg(&dwz)
                .args(dwz_flags)
                .args(["-m", "common.debug", "-r", "o2", "o1"]));
        if ok {
            for name in names {
                bins.insert(name, d.join(name));
            }
        }
    }
}

/// Packages the `.dwo` files of `dir/prog` into `dir/prog.dwp` with `llvm-dwp-14` (under a
/// time limit: it hangs on some inputs) and deletes them, so that only the package can
/// answer.
fn make_package(dwp: &Path, dir: &Path) -> bool {
    run(Command::new("timeout")
        .current_dir(dir)
        .arg("120")
        .arg(dwp)
        .args(["-e", "prog", "-o", "prog.dwp"]))
        && remove_dwo_files(dir)
}

/// Deletes the `.dwo` files of `dir` (so that only the package can answer).
fn remove_dwo_files(dir: &Path) -> bool {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return false;
    };
    entries.flatten().all(|e| {
        e.path().extension().is_none_or(|x| x != "dwo") || std::fs::remove_file(e.path()).is_ok()
    })
}
