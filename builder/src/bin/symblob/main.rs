//! `symblob`: build, inspect and query symbol blobs from the command line.

use std::process::ExitCode;

use clap::{Parser, Subcommand};

/// `eprintln!` that never panics: a closed or broken standard error (a reader that went
/// away) loses the message instead of turning the exit status into a panic's 101.
macro_rules! note {
    ($($arg:tt)*) => {{
        use std::io::Write as _;
        let _ = writeln!(std::io::stderr(), $($arg)*);
    }};
}

mod answer_pool;
mod arriving;
mod breakpad;
mod cif;
mod common;
mod convert;
mod dwarf_args;
mod frames;
mod gsym;
mod huge_pages;
mod ksym;
mod ksym_query;
mod lidia;
mod lookup;
mod lookups;
mod progress;
mod serve;
mod size;
mod sniff;
mod sources;
mod symbfile;
mod symbfile_build;
mod symbfile_query;

use common::{is_closed_pipe, Outcome};

/// Build, inspect and query symbol blobs (ksym-bin, Lidia, CIF, symbfile, GSYM), Breakpad
/// symbol files and size reports (SuperSize).
///
/// Exit status: 0 on success (also when standard output is a pipe closed early, as by
/// `| head`), 1 on an error or when a lookup was given a line that is not an address
/// (the other lines are still answered), 2 on a usage error.
#[derive(Parser)]
#[command(name = "symblob", version, about, long_about)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Resolve addresses with any symbol blob (ksym-bin, Lidia, symbfile or GSYM, recognised
    /// from its bytes), as `symblob ksym lookup`, `symblob lidia lookup`, `symblob symbfile
    /// lookup` or `symblob gsym lookup` would, or with a Breakpad `.sym` file.
    Lookup(lookup::LookupArgs),
    /// Rewrite a ksym-bin, Lidia, symbfile, GSYM, Breakpad or ELF file as ksym-bin, Lidia,
    /// symbfile or GSYM, saying what the target format cannot hold.
    Convert(convert::ConvertArgs),
    /// ksym-bin v1: kallsyms-style symbol blobs for kernels and bootloaders.
    #[command(subcommand)]
    Ksym(ksym::Command),
    /// Lidia v1: Pyroscope's address-to-symbol archives, with inline frames and lines.
    #[command(subcommand)]
    Lidia(lidia::Command),
    /// CIF (Compact ImageMap Format): the list of a process's loaded images.
    #[command(subcommand)]
    Cif(cif::Command),
    /// symbfile: the OpenTelemetry eBPF profiler's symbol files (ranges, return pads).
    #[command(subcommand)]
    Symbfile(symbfile::Command),
    /// SuperSize: Chromium's binary-size archives (.size, .sizediff) and size reports.
    #[command(subcommand)]
    Size(size::Command),
    /// GSYM v1: LLVM's symbolization files (`llvm-gsymutil --convert`), with inline frames.
    #[command(subcommand)]
    Gsym(gsym::Command),
    /// Breakpad: crash reporting's `.sym` symbol files (functions, lines, inlined calls and
    /// unwind rules), as Mozilla's `dump_syms` writes them.
    #[command(subcommand)]
    Breakpad(breakpad::Command),
    /// Run the symbolization service: symbfile uploads (`symbfile push`), symbolize
    /// requests and the download layout, on a directory or an S3 bucket.
    Serve(serve::ServeArgs),
}

#[global_allocator]
static ALLOCATOR: huge_pages::HugePages = huge_pages::HugePages;

fn main() -> ExitCode {
    let cli = Cli::parse();
    // Every command but the service exits once its output is written, and touches its
    // large blocks once.
    if !matches!(cli.command, Command::Serve(_)) {
        symblob_build::model::leave_models_to_exit();
        huge_pages::enable();
    }
    let result = match cli.command {
        Command::Lookup(args) => lookup::run(args),
        Command::Convert(args) => convert::run(args),
        Command::Ksym(c) => ksym::run(c),
        Command::Lidia(c) => lidia::run(c),
        Command::Cif(c) => cif::run(c),
        Command::Symbfile(c) => symbfile::run(c),
        Command::Gsym(c) => gsym::run(c),
        Command::Breakpad(c) => breakpad::run(c),
        Command::Serve(args) => serve::run(args).map(|()| Outcome::Success),
        Command::Size(c) => size::run(c)
            .map(|()| Outcome::Success)
            .map_err(common::Failure::from),
    };
    match result {
        Ok(Outcome::Success) => ExitCode::SUCCESS,
        Ok(Outcome::SomeInputsBad) => ExitCode::FAILURE,
        Err(e) if is_closed_pipe(&e) => ExitCode::SUCCESS,
        Err(e) => {
            note!("symblob: {e}");
            ExitCode::FAILURE
        }
    }
}
