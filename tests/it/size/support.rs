//! Helpers: preparing ELF inputs as the goldens were made, running the oracles, and
//! compiling the test programs.

use std::path::{Path, PathBuf};
use std::process::Command;

use symblob_build::pipeline::size::{archive_elf, ElfArchiveInput};
use symblob_build::size::{ArchiveOptions, SizeInfo};

use crate::common::{shared_model, testdata, tool};

/// The mtime every golden's ELF had.
pub const GOLDEN_MTIME: u64 = 1_700_000_000;

/// Copies `src` into `dir` and sets its mtime as the goldens' ELFs had it.
pub fn prepare_elf(src: &Path, dir: &Path) -> PathBuf {
    let dst = dir.join(src.file_name().expect("file name"));
    std::fs::copy(src, &dst).expect("copy ELF");
    let f = std::fs::File::options()
        .write(true)
        .open(&dst)
        .expect("open ELF");
    f.set_modified(std::time::UNIX_EPOCH + std::time::Duration::from_secs(GOLDEN_MTIME))
        .expect("set mtime");
    dst
}

/// A stripped copy made with `eu-strip` (SuperSize's strip tool for the goldens).
pub fn eu_strip(elf: &Path) -> Option<PathBuf> {
    let eu = tool("eu-strip")?;
    let out = elf.with_extension("stripped");
    let status = Command::new(eu)
        .arg("-o")
        .arg(&out)
        .arg(elf)
        .status()
        .expect("run eu-strip");
    assert!(status.success(), "eu-strip failed on {}", elf.display());
    Some(out)
}

/// Archives `elf` (with the shipped copy `stripped`) as the CLI does.
pub fn archive(elf: &Path, stripped: Option<&Path>, options: &ArchiveOptions) -> SizeInfo {
    let data = std::fs::read(elf).expect("read ELF");
    let stripped_data = stripped.map(|p| std::fs::read(p).expect("read stripped ELF"));
    let mtime = std::fs::metadata(elf)
        .and_then(|m| m.modified())
        .ok()
        .and_then(|t| t.duration_since(std::time::UNIX_EPOCH).ok())
        .map(|d| d.as_secs() as i64);
    let input = ElfArchiveInput {
        data: &data,
        file_name: elf.file_name().unwrap().to_string_lossy().into_owned(),
        mtime,
        stripped: stripped_data.as_deref(),
    };
    archive_elf(&input, options).expect("archive ELF")
}

/// The decompressed text of a gzipped `.size`.
pub fn gunzip(data: &[u8]) -> String {
    use std::io::Read;
    let mut out = String::new();
    flate2::read::GzDecoder::new(data)
        .read_to_string(&mut out)
        .expect("gunzip");
    out
}

/// `size_ref.py load [--strict] FILE`: the JSON it prints, or its exit status and stderr.
pub fn size_ref(file: &Path, strict: bool) -> Option<Result<serde_json::Value, (i32, String)>> {
    let model = shared_model("size_ref.py")?;
    let mut cmd = Command::new("python3");
    cmd.arg(model).arg("load");
    if strict {
        cmd.arg("--strict");
    }
    let out = cmd.arg(file).output().expect("run size_ref.py");
    if out.status.success() {
        Some(Ok(
            serde_json::from_slice(&out.stdout).expect("size_ref JSON")
        ))
    } else {
        Some(Err((
            out.status.code().unwrap_or(-1),
            String::from_utf8_lossy(&out.stderr).into_owned(),
        )))
    }
}

/// Writes `bytes` to `dir/name` and asserts that `size_ref.py load --strict` accepts it.
pub fn assert_strict(dir: &Path, name: &str, bytes: &[u8]) -> Option<serde_json::Value> {
    let p = dir.join(name);
    std::fs::write(&p, bytes).expect("write file");
    match size_ref(&p, true)? {
        Ok(v) => Some(v),
        Err((code, err)) => panic!("size_ref.py --strict rejects {name} ({code}): {err}"),
    }
}

/// Runs a compiler; panics with its output when it fails.
pub fn compile(cmd: &mut Command) {
    let out = cmd.output().expect("run compiler");
    assert!(
        out.status.success(),
        "{cmd:?} failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
}

/// A test program source under `testdata/supersize/src/`.
pub fn src(name: &str) -> PathBuf {
    testdata(&format!("supersize/src/{name}"))
}

/// Output of `tool args…` as text.
pub fn output(tool_path: &Path, args: &[&std::ffi::OsStr]) -> String {
    let out = Command::new(tool_path)
        .args(args)
        .output()
        .expect("run tool");
    assert!(out.status.success(), "{tool_path:?} {args:?} failed");
    String::from_utf8_lossy(&out.stdout).into_owned()
}
