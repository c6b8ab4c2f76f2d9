//! What a `build.rs` does to ship the ksym-bin blob of an ELF file with its crate, and
//! all it needs of this crate:
//!
//! ```toml
//! [build-dependencies]
//! symblob-build = { version = "0.1", default-features = false, features = ["ksym"] }
//! ```
//!
//! It reads the ELF file, builds the blob of its text symbols (Rust and C++ names
//! demangled) and writes it atomically, for the crate to `include_bytes!` from `OUT_DIR`:
//! the bytes `symblob ksym build ELF --format elf --demangle -o OUT` writes. In a `build.rs`
//! the two paths come from the crate (`CARGO_MANIFEST_DIR`, `OUT_DIR`); here they are the
//! arguments, so that it can be tried on any ELF file:
//!
//! ```text
//! cargo run -p symblob-build --no-default-features --features ksym \
//!     --example ksym_from_elf -- ELF OUT
//! ```
//!
//! `.ci/checks/features.sh` builds it with the `ksym` feature alone and compares its output
//! with the command line's on the test ELF files.

use std::error::Error;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use symblob_build::ksym::{BuildOptions, Demangle, InputOptions};
use symblob_build::output::write_atomic;
use symblob_build::pipeline::ksym::build_from_elf;

fn main() -> ExitCode {
    let args: Vec<PathBuf> = std::env::args_os().skip(1).map(PathBuf::from).collect();
    let [elf, out] = args.as_slice() else {
        eprintln!("usage: ksym_from_elf ELF OUT");
        return ExitCode::from(2);
    };
    match write_ksyms(elf, out) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("ksym_from_elf: {e}");
            ExitCode::FAILURE
        }
    }
}

/// The `build.rs` step: the blob of `elf`'s text symbols, written to `out`.
fn write_ksyms(elf: &Path, out: &Path) -> Result<(), Box<dyn Error>> {
    let bytes = std::fs::read(elf)?;
    let input = InputOptions {
        demangle: Demangle::RustAndCpp,
        ..InputOptions::default()
    };
    let built = build_from_elf(
        &bytes,
        &elf.display().to_string(),
        &input,
        &BuildOptions::default(),
    )?;
    write_atomic(out, &built.blob.bytes)?;
    // A `build.rs` would also print `cargo:rerun-if-changed=<elf>`.
    eprintln!(
        "{} symbols, {} bytes",
        built.blob.stats.symbols,
        built.blob.bytes.len()
    );
    Ok(())
}
