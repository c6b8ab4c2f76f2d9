//! Golden tests of the `symblob` command line: a module per subcommand group.

mod cif;
mod common;
mod ksym;
mod lidia;
mod lidia_debug;
