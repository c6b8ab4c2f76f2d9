//! No build replaces a file it read, even one it found by itself: `<ELF>.dwp`, a `.dwo`
//! file a skeleton unit names, the debug file `.gnu_debuglink` names, the supplementary
//! file `dwz` links to. An output that is one of them, by any spelling (a symbolic link,
//! `dir/..`, a hard link), is refused with a message naming the file and what it is, the
//! file keeps its bytes and its directory gains no file. The fixtures are made by the
//! compilers and tools that make such files (clang `-gsplit-dwarf` and `llvm-dwp-14`,
//! `objcopy --only-keep-debug` and `--add-gnu-debuglink`, `dwz -m`).

use std::fs;
use std::path::{Path, PathBuf};
use std::process::Command;

use symblob_build::symbfile::FileId;

use crate::common::{failed, run, s, success, tool};
use crate::lidia_debug::{compile_c, run_in};

/// A program built in its own folder and a file its DWARF build finds by itself.
pub(crate) struct Fixture {
    /// Removed on drop.
    _dir: tempfile::TempDir,
    /// The folder, canonical (the compilers record it as the compilation directory).
    pub(crate) dir: PathBuf,
    /// The program.
    pub(crate) elf: PathBuf,
    /// The file found, by the path the build opens it by.
    pub(crate) found: PathBuf,
    /// What the build calls it in messages.
    role: &'static str,
}

/// A new folder, canonical, for the tools `names`; `None` when one is missing (reported
/// by [`tool`]).
fn folder_with(names: &[&str]) -> Option<(tempfile::TempDir, PathBuf, Vec<PathBuf>)> {
    let tools: Option<Vec<PathBuf>> = names.iter().map(|n| tool(n)).collect();
    let dir = tempfile::tempdir().unwrap();
    let canonical = dir.path().canonicalize().unwrap();
    Some((dir, canonical, tools?))
}

/// The split DWARF program `prog` and its package `prog.dwp`, made from its `.dwo` files
/// (which are then removed: only the package holds the split units).
fn split_package() -> Option<Fixture> {
    let (dir, d, tools) = folder_with(&["clang-14", "llvm-dwp-14"])?;
    let made = compile_c(&d, &tools[0], &["-gsplit-dwarf", "-gdwarf-5"], "prog")
        && run_in(
            &d,
            Command::new(&tools[1]).args(["-e", "prog", "-o", "prog.dwp"]),
        );
    assert!(made, "the split program and its package build");
    for f in ["main.dwo", "other.dwo"] {
        fs::remove_file(d.join(f)).unwrap();
    }
    Some(Fixture {
        _dir: dir,
        elf: d.join("prog"),
        found: d.join("prog.dwp"),
        dir: d,
        role: "the split DWARF package",
    })
}

/// The split DWARF program `prog` with its `.dwo` files and no package.
fn split_objects() -> Option<Fixture> {
    let (dir, d, tools) = folder_with(&["clang-14"])?;
    let made = compile_c(&d, &tools[0], &["-gsplit-dwarf", "-gdwarf-5"], "prog");
    assert!(made, "the split program builds");
    Some(Fixture {
        _dir: dir,
        elf: d.join("prog"),
        found: d.join("main.dwo"),
        dir: d,
        role: "a split DWARF object (.dwo)",
    })
}

/// The stripped program `prog` whose `.gnu_debuglink` names its debug file `prog.sym.0`
/// beside it: the name of the first part of `-o prog.sym --max-part-size N` too.
fn debug_link() -> Option<Fixture> {
    debug_link_named("prog.sym.0")
}

/// The stripped program `prog` whose `.gnu_debuglink` names its debug file `name` beside
/// it.
pub(crate) fn debug_link_named(name: &str) -> Option<Fixture> {
    let (dir, d, tools) = folder_with(&["gcc", "objcopy"])?;
    let (gcc, objcopy) = (&tools[0], &tools[1]);
    let link = format!("--add-gnu-debuglink={name}");
    let made = compile_c(&d, gcc, &[], "full")
        && run_in(
            &d,
            Command::new(objcopy).args(["--only-keep-debug", "full", name]),
        )
        && run_in(
            &d,
            Command::new(objcopy).args(["--strip-debug", &link, "full", "prog"]),
        );
    assert!(made, "the stripped program and its debug file build");
    fs::remove_file(d.join("full")).unwrap();
    Some(Fixture {
        _dir: dir,
        elf: d.join("prog"),
        found: d.join(name),
        dir: d,
        role: "the separate debug file",
    })
}

/// The program `o2` whose DWARF `dwz -m` shares with `o1` in `common.debug`, linked by
/// `.gnu_debugaltlink`.
fn dwz_supplementary() -> Option<Fixture> {
    let (dir, d, tools) = folder_with(&["gcc", "dwz"])?;
    let made = compile_c(&d, &tools[0], &["-gdwarf-5"], "o2")
        && compile_c(&d, &tools[0], &["-gdwarf-5", "-O1"], "o1")
        && run_in(
            &d,
            Command::new(&tools[1]).args(["-m", "common.debug", "-r", "o2", "o1"]),
        );
    assert!(made, "the dwz programs build");
    Some(Fixture {
        _dir: dir,
        elf: d.join("o2"),
        found: d.join("common.debug"),
        dir: d,
        role: "the supplementary debug file (dwz)",
    })
}

/// The names in `dir`, sorted.
fn listing(dir: &Path) -> Vec<String> {
    let mut names: Vec<String> = fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    names
}

/// Other spellings of `fx.found`: a symbolic link to it, `sub/../<name>`, a hard link.
/// Each is made in the fixture's folder before any build.
fn spellings(fx: &Fixture) -> [PathBuf; 3] {
    let name = fx.found.file_name().unwrap();
    let link = fx.dir.join("alias");
    std::os::unix::fs::symlink(&fx.found, &link).unwrap();
    fs::create_dir(fx.dir.join("sub")).unwrap();
    let dotdot = fx.dir.join("sub/..").join(name);
    let hard = fx.dir.join("hard");
    fs::hard_link(&fx.found, &hard).unwrap();
    [link, dotdot, hard]
}

impl Fixture {
    /// Runs `symblob ARGS` and checks that it is refused because `output` (as given) is the
    /// file found, and that nothing changed in the folder.
    fn refuses(&self, args: &[&str], output: &Path) {
        let before = fs::read(&self.found).unwrap();
        let names = listing(&self.dir);
        let err = failed(&run(args, b""));
        let want = format!(
            "output `{}` is `{}`, {} read for `{}`: refusing to replace a file the build read",
            output.display(),
            self.found.display(),
            self.role,
            self.elf.display()
        );
        assert_eq!(err, format!("symblob: {want}\n"), "{args:?}");
        assert!(
            fs::read(&self.found).unwrap() == before,
            "{args:?} changed {}",
            self.found.display()
        );
        assert_eq!(listing(&self.dir), names, "{args:?} left a file behind");
    }

    /// The builds that write a file, each refused with its spelling in `spelled` as an
    /// output: the range file, the return-pad file, and the Lidia or GSYM file of a DWARF
    /// build (`lidia build`, `gsym build`, `convert --to gsym`, `breakpad build`,
    /// `convert --to breakpad`).
    fn refuses_every_output(&self, spelled: [&Path; 3]) {
        let elf = s(&self.elf);
        let fresh = self.dir.join("fresh.sym");
        let [ranges, pads, lidia] = spelled;
        self.refuses(
            &["symbfile", "build", elf, "-o", s(ranges), "--quiet"],
            ranges,
        );
        self.refuses(
            &[
                "symbfile",
                "build",
                elf,
                "-o",
                s(&fresh),
                "--return-pads",
                s(pads),
                "--quiet",
            ],
            pads,
        );
        self.refuses(
            &["lidia", "build", "--dwarf", elf, "-o", s(lidia), "--quiet"],
            lidia,
        );
        self.refuses(&["gsym", "build", elf, "-o", s(lidia), "--quiet"], lidia);
        self.refuses(
            &["convert", elf, "-o", s(lidia), "--to", "gsym", "--quiet"],
            lidia,
        );
        self.refuses(
            &["breakpad", "build", elf, "-o", s(lidia), "--quiet"],
            lidia,
        );
        self.refuses(
            &[
                "convert",
                elf,
                "-o",
                s(lidia),
                "--to",
                "breakpad",
                "--quiet",
            ],
            lidia,
        );
    }
}

#[test]
fn a_split_dwarf_package_found_beside_the_program_is_never_an_output() {
    let Some(fx) = split_package() else { return };
    let [link, dotdot, hard] = spellings(&fx);
    fx.refuses_every_output([&fx.found, &link, &dotdot]);
    fx.refuses_every_output([&hard, &dotdot, &link]);
}

#[test]
fn a_dwo_file_a_skeleton_unit_names_is_never_an_output() {
    let Some(fx) = split_objects() else { return };
    let [link, dotdot, hard] = spellings(&fx);
    fx.refuses_every_output([&dotdot, &hard, &fx.found]);
    fx.refuses_every_output([&link, &fx.found, &hard]);
}

#[test]
fn a_debug_file_found_by_its_debuglink_is_never_an_output_nor_a_part() {
    let Some(fx) = debug_link() else { return };
    let [link, dotdot, hard] = spellings(&fx);
    fx.refuses_every_output([&link, &hard, &fx.found]);
    fx.refuses_every_output([&fx.found, &dotdot, &hard]);
    // `-o prog.sym --max-part-size N` writes `prog.sym.0`, the debug file.
    let base = fx.dir.join("prog.sym");
    let part = fx.dir.join("prog.sym.0");
    fx.refuses(
        &[
            "symbfile",
            "build",
            s(&fx.elf),
            "-o",
            s(&base),
            "--max-part-size",
            "1000000",
            "--quiet",
        ],
        &part,
    );
}

#[test]
fn a_supplementary_file_dwz_links_to_is_never_an_output() {
    let Some(fx) = dwz_supplementary() else {
        return;
    };
    let [link, dotdot, hard] = spellings(&fx);
    fx.refuses_every_output([&hard, &link, &dotdot]);
    fx.refuses_every_output([&dotdot, &fx.found, &link]);
}

/// `symbfile publish` writes `<root>/<FileID path>/ranges`: not over a debug file of that
/// name that the extraction read, nor over the range file `--ranges` names.
#[test]
fn publish_never_writes_over_a_file_it_read() {
    let Some(mut fx) = debug_link_named("ranges") else {
        return;
    };
    // The program and its debug file moved where publish writes the range file: the
    // folder of the debug file's FileID, as the DWARF is read from it.
    let es = FileId::of_path(&fx.found).unwrap().es();
    let root = fx.dir.join("root");
    let layout = root.join(&es[0..2]).join(&es[2..4]).join(&es);
    fs::create_dir_all(&layout).unwrap();
    let (elf, debug) = (layout.join("prog"), layout.join("ranges"));
    fs::rename(&fx.elf, &elf).unwrap();
    fs::rename(&fx.found, &debug).unwrap();
    (fx.elf, fx.found, fx.dir) = (elf.clone(), debug.clone(), layout);
    fx.refuses(&["symbfile", "publish", s(&elf), s(&root)], &debug);

    // A range file named on the command line, at the path publish writes (that of the
    // debug file named).
    let ranges = debug;
    let before = fs::read(&ranges).unwrap();
    let err = failed(&run(
        &[
            "symbfile",
            "publish",
            s(&elf),
            s(&root),
            "--ranges",
            s(&ranges),
            "--debug-file",
            s(&ranges),
        ],
        b"",
    ));
    assert!(err.contains("is the same file as input"), "{err}");
    assert!(fs::read(&ranges).unwrap() == before);
}

/// Builds beside the files found write their outputs and leave those files as they were.
#[test]
fn builds_beside_the_files_found_still_write() {
    let fixtures = [
        split_package(),
        split_objects(),
        debug_link(),
        dwz_supplementary(),
    ];
    for fx in fixtures.into_iter().flatten() {
        let before = fs::read(&fx.found).unwrap();
        let (elf, d) = (s(&fx.elf), &fx.dir);
        let (ranges, pads, lidia) = (d.join("out.sym"), d.join("out.pads"), d.join("out.lidia"));
        let args = [
            "symbfile",
            "build",
            elf,
            "-o",
            s(&ranges),
            "--return-pads",
            s(&pads),
            "--quiet",
        ];
        success(run(&args, b""));
        let args = [&args[..], &["--max-part-size", "1000000"]].concat();
        success(run(&args, b""));
        success(run(
            &["lidia", "build", "--dwarf", elf, "-o", s(&lidia), "--quiet"],
            b"",
        ));
        let gsym = d.join("out.gsym");
        success(run(&["gsym", "build", elf, "-o", s(&gsym), "--quiet"], b""));
        let breakpad = d.join("out.bp.sym");
        success(run(
            &["breakpad", "build", elf, "-o", s(&breakpad), "--quiet"],
            b"",
        ));
        for out in [
            &ranges,
            &pads,
            &lidia,
            &gsym,
            &breakpad,
            &d.join("out.sym.0"),
        ] {
            assert!(fs::metadata(out).unwrap().len() > 0, "{}", out.display());
        }
        assert!(
            fs::read(&fx.found).unwrap() == before,
            "{}",
            fx.found.display()
        );
    }
}
