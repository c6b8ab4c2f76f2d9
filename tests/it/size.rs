//! SuperSize archives: Chromium's own files as goldens, `size_ref.py` as the loader
//! oracle, and binutils/LLVM tools as cross-checks on programs built here.

mod beyond;
mod crosscheck;
mod decl_oracle;
mod goldens;
mod gzip_oracle;
mod llvm_names;
mod loader_checks;
mod nobits;
mod support;
