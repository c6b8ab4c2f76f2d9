//! Links GNU libiberty, whose C++ demangler is the one binutils (`c++filt`, `nm -C`,
//! `objdump -C`, `addr2line -C`) and perf use, so that C++ names come out exactly as those
//! tools print them. Without it (no `libiberty.a` found) the builder falls back to the
//! `cpp_demangle` crate, whose output differs on template-heavy names, and says so.

use std::path::{Path, PathBuf};

fn main() {
    println!("cargo::rustc-check-cfg=cfg(symblob_libiberty)");
    println!("cargo::rerun-if-env-changed=SYMBLOB_LIBIBERTY_DIR");
    match find_libiberty() {
        Some(dir) => {
            println!(
                "cargo::rerun-if-changed={}",
                dir.join("libiberty.a").display()
            );
            println!("cargo::rustc-link-search=native={}", dir.display());
            println!("cargo::rustc-link-lib=static=iberty");
            println!("cargo::rustc-cfg=symblob_libiberty");
        }
        None => println!(
            "cargo::warning=libiberty.a not found (Debian/Ubuntu: libiberty-dev; or set \
             SYMBLOB_LIBIBERTY_DIR): C++ names are demangled by the cpp_demangle crate, \
             which differs from c++filt on some template names"
        ),
    }
}

/// The directory holding `libiberty.a`: `SYMBLOB_LIBIBERTY_DIR`, else the usual library
/// directories of the target.
fn find_libiberty() -> Option<PathBuf> {
    if let Some(dir) = std::env::var_os("SYMBLOB_LIBIBERTY_DIR") {
        return Some(PathBuf::from(dir));
    }
    let target = std::env::var("TARGET").unwrap_or_default();
    let host = std::env::var("HOST").unwrap_or_default();
    if target != host {
        return None;
    }
    // Debian's multiarch directory is named like the GNU triple: x86_64-linux-gnu.
    let multiarch = target.replace("-unknown-", "-");
    [
        format!("/usr/lib/{multiarch}"),
        "/usr/lib64".into(),
        "/usr/lib".into(),
        "/usr/local/lib".into(),
    ]
    .into_iter()
    .map(PathBuf::from)
    .find(|dir| Path::new(dir).join("libiberty.a").is_file())
}
