//! Golden tests of the `symblob` command line: a module per subcommand group, plus the
//! conventions every command shares (outputs, streaming lookups, errors, JSON).

mod breakpad;
mod cif;
mod common;
mod convert;
mod errors;
mod golden_outputs;
mod gsym;
mod help;
mod input_names;
mod json;
mod ksym;
mod ksym_elf;
mod ksym_v2;
mod lidia;
mod lidia_debug;
mod output;
mod output_discovered;
mod publish_dwarf;
mod serve;
mod size;
mod size_chromium;
mod size_html;
mod streaming;
mod summaries;
mod symbfile;
mod symbfile_build;
mod symbfile_lookup;
mod symbfile_server;
