//! `symblob`: build, inspect and query symbol blobs from the command line.

use std::process::ExitCode;

use clap::{Parser, Subcommand};

mod cif;
mod common;
mod ksym;
mod lidia;
mod size;

/// Build, inspect and query symbol blobs (ksym-bin, Lidia, CIF).
#[derive(Parser)]
#[command(name = "symblob", version, about)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// ksym-bin v1: kallsyms-style symbol blobs for kernels and bootloaders.
    #[command(subcommand)]
    Ksym(ksym::Command),
    /// Lidia v1: Pyroscope's address-to-symbol archives, with inline frames and lines.
    #[command(subcommand)]
    Lidia(lidia::Command),
    /// Compact ImageMap Format: the list of a process's loaded images.
    #[command(subcommand)]
    Cif(cif::Command),
    /// SuperSize: Chromium's binary-size archives (.size, .sizediff) and size reports.
    #[command(subcommand)]
    Size(size::Command),
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    let result = match cli.command {
        Command::Ksym(c) => ksym::run(c),
        Command::Lidia(c) => lidia::run(c),
        Command::Cif(c) => cif::run(c),
        Command::Size(c) => size::run(c),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("symblob: {e}");
            ExitCode::FAILURE
        }
    }
}
