//! The ELF inputs of the build benchmarks, from the environment: `SYMBLOB_BENCH_VMLINUX`
//! (a kernel with DWARF) when set, and `SYMBLOB_BENCH_ELF` (default: the benchmark binary
//! itself). Included by each bench that builds from an ELF.

use std::path::PathBuf;

/// The inputs that exist, with a short name each.
pub fn elf_inputs() -> Vec<(String, PathBuf)> {
    let mut out = Vec::new();
    if let Some(p) = std::env::var_os("SYMBLOB_BENCH_VMLINUX").map(PathBuf::from) {
        if p.is_file() {
            out.push(("vmlinux".to_string(), p));
        } else {
            eprintln!("skipping vmlinux: {} does not exist", p.display());
        }
    }
    let elf = std::env::var_os("SYMBLOB_BENCH_ELF")
        .map(PathBuf::from)
        .or_else(|| std::env::current_exe().ok());
    if let Some(p) = elf.filter(|p| p.is_file()) {
        let name = p
            .file_name()
            .map_or("elf".into(), |n| n.to_string_lossy().into_owned());
        out.push((name, p));
    }
    out
}
