//! symbfile: reader, writer and conversions against upstream's golden file, the files
//! symblib writes, and the Python reference model.

mod corrupt;
mod golden;
mod index;
mod lidia;
mod symblib;

use std::io::Write;
use std::path::PathBuf;
use std::process::{Command, Stdio};

use crate::common::{shared_model, tool};

/// `python3 symbfile_ref.py` from the shared tools, or `None` (after `missing_oracle`).
pub fn model() -> Option<(PathBuf, PathBuf)> {
    let script = shared_model("symbfile_ref.py")?;
    Some((tool("python3")?, script))
}

/// Runs the model with `args`, feeding `stdin`; returns stdout, or the error text on a
/// non-zero exit.
pub fn run_model(args: &[&str], stdin: &[u8]) -> Option<Result<Vec<u8>, String>> {
    let (python, script) = model()?;
    let mut child = Command::new(python)
        .arg(script)
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("python3 runs");
    child.stdin.take().unwrap().write_all(stdin).unwrap();
    let out = child.wait_with_output().unwrap();
    Some(if out.status.success() {
        Ok(out.stdout)
    } else {
        Err(String::from_utf8_lossy(&out.stderr).into_owned())
    })
}

/// Writes `bytes` to a temporary file for the model to read.
pub fn temp_file(bytes: &[u8]) -> tempfile::NamedTempFile {
    let mut f = tempfile::NamedTempFile::new().unwrap();
    f.write_all(bytes).unwrap();
    f
}

/// The model's `dump --json` of `bytes`.
pub fn model_dump(bytes: &[u8]) -> Option<Result<serde_json::Value, String>> {
    let f = temp_file(bytes);
    let out = run_model(&["dump", "--json", f.path().to_str().unwrap()], b"")?;
    Some(out.map(|o| serde_json::from_slice(&o).unwrap()))
}
