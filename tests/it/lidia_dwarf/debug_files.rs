//! Separate debug files are checked against their binary (build ID, else the
//! `.gnu_debuglink` CRC) and a DWARF build without DWARF says so.

use std::path::{Path, PathBuf};
use std::process::Command;

use symblob_build::dwarf::{DebugFiles, DwarfOptions};
use symblob_build::lidia::{Flags, LidiaWriter};
use symblob_build::pipeline::lidia::collect_dwarf;
use symblob_build::pipeline::lidia::ElfOptions;
use symblob_build::{Warning, WarningKind};

use super::fixtures::fixtures;
use crate::common::{missing_oracle, tool};

/// A DWARF build of `bin` with `debug_file`: its warnings, or the error message.
fn build(bin: &Path, debug_file: Option<&Path>, mismatch_ok: bool) -> Result<Vec<Warning>, String> {
    let data = std::fs::read(bin).expect("read binary");
    let options = ElfOptions {
        lidia: Flags {
            lines: true,
            ..Flags::default()
        },
        dwarf: Some(DwarfOptions {
            debug_files: DebugFiles {
                debug_file: debug_file.map(Path::to_path_buf),
                debug_file_mismatch_ok: mismatch_ok,
                ..DebugFiles::default()
            },
            ..DwarfOptions::default()
        }),
        ..ElfOptions::default()
    };
    let mut writer = LidiaWriter::new(options.lidia);
    collect_dwarf(bin, &data, &options, &mut writer)
        .map(|stats| stats.warnings)
        .map_err(|e| e.to_string())
}

/// Runs `objcopy` with `args`; panics when it fails.
fn objcopy(objcopy: &Path, args: &[&std::ffi::OsStr]) {
    let out = Command::new(objcopy)
        .args(args)
        .output()
        .expect("run objcopy");
    assert!(out.status.success(), "objcopy {args:?}: {out:?}");
}

/// `bin` without its build ID note, split into a stripped binary with a
/// `.gnu_debuglink` (whose CRC objcopy computes) and its debug file.
fn split_without_build_id(oc: &Path, bin: &Path, dir: &Path, stem: &str) -> (PathBuf, PathBuf) {
    let plain = dir.join(format!("{stem}.nobid"));
    let debug = dir.join(format!("{stem}.debug"));
    let stripped = dir.join(stem);
    objcopy(
        oc,
        &[
            "--remove-section=.note.gnu.build-id".as_ref(),
            bin.as_os_str(),
            plain.as_os_str(),
        ],
    );
    objcopy(
        oc,
        &[
            "--only-keep-debug".as_ref(),
            plain.as_os_str(),
            debug.as_os_str(),
        ],
    );
    let link = format!("--add-gnu-debuglink={}", debug.display());
    objcopy(
        oc,
        &[
            "--strip-debug".as_ref(),
            link.as_ref(),
            plain.as_os_str(),
            stripped.as_os_str(),
        ],
    );
    (stripped, debug)
}

#[test]
fn a_debug_file_of_another_build_id_is_refused() {
    let (Some(stripped), Some(other)) = (fixtures().get("c-stripped"), fixtures().get("cpp-gxx"))
    else {
        missing_oracle("fixtures c-stripped and cpp-gxx");
        return;
    };
    let own = stripped.with_extension("debug");
    assert!(build(stripped, Some(&own), false).is_ok());
    let err = build(stripped, Some(other), false).expect_err("another program's debug file");
    assert!(err.contains(&other.display().to_string()), "{err}");
    assert!(err.contains(&stripped.display().to_string()), "{err}");
    assert!(err.contains("build ID"), "{err}");
    let warnings = build(stripped, Some(other), true).expect("read anyway when asked");
    let read_anyway = warnings.iter().find(|w| {
        w.input == other
            && matches!(&w.kind, WarningKind::DebugFileMismatchRead { binary, reason }
                if binary == stripped && reason.contains("build ID"))
    });
    let text = read_anyway.map(ToString::to_string).unwrap_or_default();
    assert!(text.contains("not the debug file"), "{warnings:?}");
}

#[test]
fn without_build_ids_the_debuglink_crc_decides() {
    let (Some(oc), Some(c), Some(cpp)) = (
        tool("objcopy"),
        fixtures().get("c-dwarf5"),
        fixtures().get("cpp-gxx"),
    ) else {
        return;
    };
    let dir = tempfile::tempdir().expect("temporary directory");
    let (stripped, own) = split_without_build_id(&oc, c, dir.path(), "c");
    let (_, other) = split_without_build_id(&oc, cpp, dir.path(), "cpp");
    let warnings = build(&stripped, Some(&own), false).expect("its own debug file");
    assert!(warnings.is_empty(), "{warnings:?}");
    // Found through .gnu_debuglink, the same file.
    assert!(build(&stripped, None, false).expect("debuglink").is_empty());
    let err = build(&stripped, Some(&other), false).expect_err("another debug file");
    assert!(err.contains("CRC"), "{err}");
    assert!(err.contains(&other.display().to_string()), "{err}");
    assert!(err.contains(&stripped.display().to_string()), "{err}");
}

#[test]
fn a_build_without_dwarf_warns() {
    let (Some(oc), Some(c)) = (tool("objcopy"), fixtures().get("c-dwarf5")) else {
        return;
    };
    let dir = tempfile::tempdir().expect("temporary directory");
    let bare = dir.path().join("bare");
    objcopy(
        &oc,
        &["--strip-debug".as_ref(), c.as_os_str(), bare.as_os_str()],
    );
    let warnings = build(&bare, None, false).expect("builds from symbols");
    let no_dwarf = warnings
        .iter()
        .find(|w| w.input == bare && w.kind == WarningKind::NoDwarf);
    let text = no_dwarf.map(ToString::to_string).unwrap_or_default();
    assert!(text.contains("no DWARF"), "{warnings:?}");
    assert!(build(c, None, false).expect("with DWARF").is_empty());
}

/// The ELF file Debian's `libc6` installs and the build ID note `readelf -n` shows in it.
const LIBC: &str = "/lib/x86_64-linux-gnu/libc.so.6";

/// The build ID of `bin` as `readelf -n` prints it (lower-case hex).
fn readelf_build_id(readelf: &Path, bin: &Path) -> Option<String> {
    let out = Command::new(readelf)
        .arg("-n")
        .arg(bin)
        .output()
        .expect("run readelf");
    let text = String::from_utf8_lossy(&out.stdout);
    let line = text
        .lines()
        .find(|l| l.trim_start().starts_with("Build ID:"))?;
    Some(line.split(':').nth(1)?.trim().to_owned())
}

/// Debian's stripped libc, whose DWARF `libc6-dbg` installs as
/// `/usr/lib/debug/.build-id/xx/yyyy.debug`: built with no `--debug-file`, the builder
/// finds that file by build ID, as `llvm-symbolizer` does, and every sampled address
/// agrees with `llvm-symbolizer --inlining`.
#[test]
fn debian_dbg_package_debug_file_is_found_by_build_id() {
    let (Some(readelf), Some(symbolizer)) = (tool("readelf"), super::oracle::symbolizer()) else {
        return;
    };
    let libc = Path::new(LIBC);
    let Some(id) = libc
        .is_file()
        .then(|| readelf_build_id(&readelf, libc))
        .flatten()
    else {
        missing_oracle(&format!("{LIBC} with a build ID"));
        return;
    };
    let debug = PathBuf::from(format!(
        "/usr/lib/debug/.build-id/{}/{}.debug",
        &id[..2],
        &id[2..]
    ));
    if !debug.is_file() {
        missing_oracle(&format!("{} (package libc6-dbg)", debug.display()));
        return;
    }
    let warnings = build(libc, None, false).expect("libc builds");
    assert!(warnings.is_empty(), "{warnings:?}");
    // The stripped library keeps only dynamic symbols: sample the functions the debug
    // file's symbol table lists.
    let funcs = super::oracle::functions(&debug);
    let (addrs, _) = super::compare_with_symbolizer(&symbolizer, "libc", libc, libc, &funcs);
    assert!(addrs >= 3000, "{addrs} addresses sampled");
}
