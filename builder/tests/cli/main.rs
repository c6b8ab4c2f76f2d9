//! Golden tests of the `symblob` command line: a module per subcommand group, plus the
//! conventions every command shares (outputs, streaming lookups, errors, JSON).

mod cif;
mod common;
mod errors;
mod json;
mod ksym;
mod ksym_elf;
mod lidia;
mod lidia_debug;
mod output;
mod output_discovered;
mod size;
mod size_chromium;
mod streaming;
mod symbfile;
mod symbfile_build;
mod symbfile_server;
