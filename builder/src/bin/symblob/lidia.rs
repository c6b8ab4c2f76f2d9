//! `symblob lidia …` subcommands.

use std::fmt::Write as _;
use std::io::Write as _;
use std::path::{Path, PathBuf};

use clap::Subcommand;
use symblob::lidia::LidiaFile;
use symblob_build::lidia::{self, ElfOptions};
use symblob_build::{Error, Location, Result};

use crate::common;

/// `symblob lidia` subcommands.
#[derive(Subcommand)]
pub enum Command {
    /// Build a Lidia file from an ELF file, byte-identical to Pyroscope's `CreateLidia`
    /// (or from its DWARF with --dwarf).
    Build {
        /// The ELF file to read.
        elf: PathBuf,
        /// The Lidia file to write (atomically: nothing is written on error).
        #[arg(short, long)]
        output: PathBuf,
        /// Do not read .symtab/.dynsym functions (Go's WithSymtab(false)).
        #[arg(long)]
        no_symtab: bool,
        /// Do not read Go .gopclntab functions (Go's WithParseGoPclntab(false)).
        #[arg(long)]
        no_gopclntab: bool,
        /// Store source files and call files.
        #[arg(long)]
        files: bool,
        /// Store line tables.
        #[arg(long)]
        lines: bool,
        /// Build from DWARF: inline frames, files and lines.
        #[arg(long)]
        dwarf: bool,
        /// Demangle Rust and C++ names (DWARF builds).
        #[arg(long)]
        demangle: bool,
        /// A separate debug file to read DWARF from.
        #[arg(long, value_name = "PATH")]
        debug_file: Option<PathBuf>,
        /// Read a debug file whose build ID (or .gnu_debuglink CRC) is not the binary's.
        #[arg(long)]
        debug_file_mismatch_ok: bool,
    },
    /// Print the frames covering each address (arguments, or standard input one per line):
    /// `0x<addr> TAB <count>` then `TAB function TAB file TAB line` per frame, innermost
    /// first.
    Lookup {
        /// The Lidia file.
        file: PathBuf,
        /// Hexadecimal addresses (with or without 0x).
        addresses: Vec<String>,
        /// Print JSON instead of tab-separated lines.
        #[arg(long)]
        json: bool,
    },
    /// Print the header, every range with its strings, every string and line entry.
    Dump {
        /// The Lidia file.
        file: PathBuf,
    },
    /// Check the structure and the four CRC32C checksums; exit 1 naming the failed section.
    Verify {
        /// The Lidia file.
        file: PathBuf,
    },
    /// Print sizes, counts, field sizes and bytes per range.
    Info {
        /// The Lidia file.
        file: PathBuf,
    },
}

/// Runs one `symblob lidia` subcommand.
pub fn run(command: Command) -> Result<()> {
    match command {
        Command::Build {
            elf,
            output,
            no_symtab,
            no_gopclntab,
            files,
            lines,
            dwarf,
            demangle,
            debug_file,
            debug_file_mismatch_ok,
        } => {
            let options = ElfOptions {
                symtab: !no_symtab,
                gopclntab: !no_gopclntab,
                files,
                lines,
                dwarf,
                demangle,
                debug_file,
                debug_file_mismatch_ok,
            };
            let stats = lidia::write_from_elf(&elf, &output, &options)?;
            for warning in &stats.warnings {
                eprintln!("warning: {warning}");
            }
            Ok(())
        }
        Command::Lookup {
            file,
            addresses,
            json,
        } => {
            let blob = common::read_input(&file)?;
            let lidia = parse(&file, &blob)?;
            let addresses = common::addresses(&addresses)?;
            let text = if json {
                lookup_json(&lidia, &addresses)
            } else {
                lookup_tsv(&lidia, &addresses)
            };
            print(&text)
        }
        Command::Dump { file } => {
            let blob = common::read_input(&file)?;
            let lidia = parse(&file, &blob)?;
            print(&lidia::dump(&lidia, &blob))
        }
        Command::Verify { file } => {
            let blob = common::read_input(&file)?;
            let lidia = parse(&file, &blob)?;
            lidia.verify_checksums().map_err(|e| blob_error(&file, e))?;
            lidia.validate().map_err(|e| blob_error(&file, e))?;
            print(&format!(
                "{}: ok ({} ranges; checksums and references valid)\n",
                file.display(),
                lidia.len()
            ))
        }
        Command::Info { file } => {
            let blob = common::read_input(&file)?;
            let lidia = parse(&file, &blob)?;
            print(&lidia::info(&lidia, &blob))
        }
    }
}

fn parse<'a>(path: &Path, blob: &'a [u8]) -> Result<LidiaFile<'a>> {
    LidiaFile::parse(blob).map_err(|e| blob_error(path, e))
}

/// A reader error, prefixed with the file it came from.
fn blob_error(path: &Path, e: symblob::Error) -> Error {
    Error::input(path.display().to_string(), Location::Whole, e.to_string())
}

/// One line per address, in the golden `lookups.tsv` format (plus real line numbers).
fn lookup_tsv(lidia: &LidiaFile<'_>, addresses: &[u64]) -> String {
    let mut out = String::new();
    for &addr in addresses {
        let frames: Vec<_> = lidia.lookup(addr).collect();
        let _ = write!(out, "{addr:#x}\t{}", frames.len());
        for f in &frames {
            let _ = write!(out, "\t{}\t{}\t{}", f.function, f.file, f.line);
        }
        out.push('\n');
    }
    out
}

/// The lookups as a JSON array of `{address, frames: [{function, file, line, depth,
/// call_file, call_line}]}`.
fn lookup_json(lidia: &LidiaFile<'_>, addresses: &[u64]) -> String {
    let text = |s: &[u8]| String::from_utf8_lossy(s).into_owned();
    let results: Vec<_> = addresses
        .iter()
        .map(|&addr| {
            let frames: Vec<_> = lidia
                .lookup(addr)
                .map(|f| {
                    serde_json::json!({
                        "function": text(&f.function),
                        "file": text(&f.file),
                        "line": f.line,
                        "depth": f.depth,
                        "call_file": text(&f.call_file),
                        "call_line": f.call_line,
                    })
                })
                .collect();
            serde_json::json!({ "address": format!("{addr:#x}"), "frames": frames })
        })
        .collect();
    let mut out = serde_json::Value::Array(results).to_string();
    out.push('\n');
    out
}

/// Writes the whole output at once, so an error never leaves partial output behind.
fn print(text: &str) -> Result<()> {
    let mut stdout = std::io::stdout().lock();
    stdout
        .write_all(text.as_bytes())
        .and_then(|()| stdout.flush())
        .map_err(|e| Error::io("<stdout>", e))
}
