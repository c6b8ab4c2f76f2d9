//! `symblob lidia …` subcommands.

use clap::Subcommand;
use symblob_build::Result;

/// `symblob lidia` subcommands.
#[derive(Subcommand)]
pub enum Command {}

/// Runs one `symblob lidia` subcommand.
pub fn run(command: Command) -> Result<()> {
    match command {}
}
