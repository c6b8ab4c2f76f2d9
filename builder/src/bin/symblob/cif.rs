//! `symblob cif …` subcommands.

use clap::Subcommand;
use symblob_build::Result;

/// `symblob cif` subcommands.
#[derive(Subcommand)]
pub enum Command {}

/// Runs one `symblob cif` subcommand.
pub fn run(command: Command) -> Result<()> {
    match command {}
}
