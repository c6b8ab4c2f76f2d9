//! `symblob ksym …` subcommands.

use clap::Subcommand;
use symblob_build::Result;

/// `symblob ksym` subcommands.
#[derive(Subcommand)]
pub enum Command {}

/// Runs one `symblob ksym` subcommand.
pub fn run(command: Command) -> Result<()> {
    match command {}
}
