//! End-to-end tests of symblob: one test binary, a module per area.

mod breakpad;
mod cif;
mod common;
mod convert;
mod demangle;
mod freestanding;
mod fuzz_regressions;
mod gsym;
mod ksym_builder;
mod ksym_crate;
mod ksym_reader;
mod ksym_v2;
mod lidia_builder;
mod lidia_dwarf;
mod lidia_reader;
mod output;
mod size;
mod symbfile;
mod symbfile_extract;
