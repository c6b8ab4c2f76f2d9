//! `symblob lookup FILE ADDR…`: one lookup for every blob format, chosen from the file's
//! first bytes.

use std::path::PathBuf;

use clap::Args;

use crate::common::{display_name, read_input, Failure, Outcome, Result};
use crate::lookups::LookupFlags;
use crate::sniff::{sniff, Kind};
use crate::{ksym_query, lidia};

/// Arguments of `symblob lookup`.
#[derive(Args)]
pub struct LookupArgs {
    /// A ksym blob or a Lidia file (the format is recognised from its bytes), or `-` for
    /// standard input (then the addresses must be arguments).
    file: PathBuf,
    #[command(flatten)]
    flags: LookupFlags,
    /// Hexadecimal addresses (with or without 0x); read from standard input, one per
    /// line, when none are given.
    #[arg(allow_negative_numbers = true)]
    addresses: Vec<String>,
}

/// Answers with the lookup of the file's format, exactly as `symblob <format> lookup`
/// does (ksym blobs with their default text ranges).
pub fn run(args: LookupArgs) -> Result<Outcome> {
    let name = display_name(&args.file);
    let bytes = read_input(&args.file)?;
    match sniff(&bytes) {
        Kind::Lidia => {
            let file = lidia::parse(&args.file, &bytes)?;
            lidia::answer_all(&file, args.flags, &args.addresses)
        }
        // A ksym blob has no magic number: whatever is not recognised may be one, and
        // its parser decides.
        Kind::Unknown => {
            let blob = ksym_query::parse(&name, &bytes)?;
            ksym_query::answer_all(blob, &[], args.flags, &args.addresses)
        }
        Kind::Elf => Err(Failure::Message(format!(
            "`{name}` is an ELF file, not a symbol blob: build one with \
             `symblob lidia build {name} -o {name}.lidia` or `symblob ksym build {name} -o {name}.ksym`"
        ))),
        Kind::SymbolText => Err(Failure::Message(format!(
            "`{name}` is nm or kallsyms text, not a symbol blob: build one with \
             `symblob ksym build {name} -o {name}.ksym`"
        ))),
        Kind::Empty => Err(Failure::Message(format!("`{name}` is empty, not a symbol blob"))),
        Kind::Symbfile => Err(Failure::Message(format!(
            "`{name}` is a symbfile, which `symblob lookup` does not read yet"
        ))),
        Kind::Gzip => Err(Failure::Message(format!(
            "`{name}` is gzip-compressed data, not a symbol blob"
        ))),
    }
}
