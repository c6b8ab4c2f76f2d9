//! `symblob lookup FILE ADDR…`: one lookup for every blob format, chosen from the file's
//! first bytes.

use std::path::PathBuf;

use clap::Args;

use symblob_build::lidia::model::write_model;
use symblob_build::readback::breakpad::{self, looks_like_breakpad};
use symblob_build::readback::ksym::AnyKsym;

use crate::common::{display_name, read_input, Failure, Outcome, Result};
use crate::lookups::{self, LookupFlags};
use symblob::{Detected, Format};

use crate::sniff::{self, mismatch, Want};
use crate::{gsym, ksym_query, lidia, symbfile, symbfile_query};

/// Arguments of `symblob lookup`.
#[derive(Args)]
pub struct LookupArgs {
    /// A ksym blob, a Lidia file, a symbfile, a GSYM file or a Breakpad `.sym` file (the
    /// format is recognised from its bytes), or `-` for standard input (then the addresses
    /// must be arguments).
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
    lookups::check_sources(&args.file, &args.addresses)?;
    let name = display_name(&args.file);
    let bytes = read_input(&args.file)?;
    // A `.sym` file is text the reader does not know: read into the model once and
    // indexed as an in-memory Lidia file, which answers as breakpad-symbols does.
    if looks_like_breakpad(&bytes) {
        let source = breakpad::read(&bytes, &name)?;
        let lidia_bytes = write_model(&source.model);
        let file = lidia::parse(&args.file, &lidia_bytes)?;
        return lidia::answer_all(&file, args.flags, &args.addresses);
    }
    match sniff::detect(&bytes) {
        Detected::Blob(Format::Lidia) => {
            let file = lidia::parse(&args.file, &bytes)?;
            lidia::answer_all(&file, args.flags, &args.addresses)
        }
        Detected::Blob(Format::Symbfile) => {
            let file = symbfile::parse(&args.file, &bytes)?;
            symbfile_query::answer_all(&args.file, file, args.flags, &args.addresses)
        }
        Detected::Blob(Format::Gsym) => {
            let file = gsym::parse(&args.file, &bytes)?;
            gsym::answer_all(&file, args.flags, &args.addresses)
        }
        // A ksym blob has no magic number: bytes whose layout is not a ksym blob's may
        // still be one broken, and its parser says what is wrong.
        Detected::Blob(Format::Ksym) | Detected::Unknown => {
            // A v2 blob has a magic number: its own errors say what is wrong.
            if symblob::ksym::Version::detect(&bytes) == symblob::ksym::Version::V2 {
                let blob = ksym_query::parse(&name, &bytes)?;
                return ksym_query::answer_all(blob, &[], args.flags, &args.addresses);
            }
            let blob = AnyKsym::parse(&bytes).map_err(|e| {
                Failure::Message(format!(
                    "`{name}` is not a ksym blob, a Lidia file, a symbfile, a GSYM file or a Breakpad file (read as a ksym blob: {e})"
                ))
            })?;
            ksym_query::answer_all(blob, &[], args.flags, &args.addresses)
        }
        // A new format is one arm here: its parser and its `answer_all`.
        other => Err(mismatch(other, &name, Want::Lookup)),
    }
}
