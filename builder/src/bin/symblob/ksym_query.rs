//! `symblob ksym lookup|name|dump|info`: the commands that read a ksym blob.

use std::fmt::Write as _;
use std::io::{self, Write};
use std::ops::Range;
use std::path::{Path, PathBuf};

use clap::Args;
use serde_json::{json, Value};
use symblob::ksym::{KsymBlob, Ksyms, LayoutKind, TextRanges};
use symblob_build::{Error, ErrorKind, Location};

use crate::common::{
    display_name, hex, parse_address, print, print_json, read_input, stdout, stdout_error,
    write_json_line, Outcome, Result,
};
use crate::ksym::per_symbol;
use crate::lookups::{self, LookupFlags, Placeholder};
use crate::sniff::{self, Want};

/// Arguments of `symblob ksym lookup`.
#[derive(Args)]
pub struct LookupArgs {
    /// The blob.
    blob: PathBuf,
    /// A text range START..END (hex, end exclusive, runtime addresses); repeat for
    /// several ranges.
    #[arg(long = "text", value_name = "START..END", value_parser = parse_range)]
    text: Vec<Range<u64>>,
    #[command(flatten)]
    flags: LookupFlags,
    /// Addresses to resolve; read from standard input when none are given.
    #[arg(allow_negative_numbers = true)]
    addresses: Vec<String>,
}

/// Arguments of `symblob ksym name`.
#[derive(Args)]
pub struct NameArgs {
    /// The blob.
    blob: PathBuf,
    /// Print one JSON object per name (JSON Lines).
    #[arg(long)]
    json: bool,
    /// Names to look up.
    #[arg(required = true)]
    names: Vec<String>,
}

/// What `--json` does for `ksym dump`.
pub const DUMP_JSON_HELP: &str =
    "Print one JSON object per symbol (JSON Lines): address, type, name";
/// What `--json` does for `ksym info`.
pub const INFO_JSON_HELP: &str =
    "Print one JSON object: layout, counts, sizes, segments and whether the blob is valid";

/// Arguments of the commands that only read a blob (`dump`, `info`: each says what its
/// `--json` prints).
#[derive(Args)]
pub struct BlobArgs {
    /// The blob.
    blob: PathBuf,
    /// Print JSON on stdout.
    #[arg(long)]
    json: bool,
}

fn parse_range(text: &str) -> std::result::Result<Range<u64>, String> {
    let (start, end) = text
        .split_once("..")
        .ok_or_else(|| format!("not a range START..END: {text:?}"))?;
    Ok(parse_address(start)?..parse_address(end)?)
}

/// Reads the blob file `path` (or standard input for `-`) after checking what it is.
pub fn load(path: &Path) -> Result<(String, Vec<u8>)> {
    let name = display_name(path);
    let bytes = read_input(path)?;
    sniff::expect(&bytes, &name, Want::Ksym)?;
    Ok((name, bytes))
}

/// Parses a ksym blob, naming the file in errors.
pub fn parse<'a>(name: &str, bytes: &'a [u8]) -> Result<KsymBlob<'a>> {
    Ok(KsymBlob::parse(bytes).map_err(|e| {
        Error::new(e.kind.into(), name, Location::Whole, "")
            .with_section(e.section)
            .with_source(e)
    })?)
}

/// `symblob ksym lookup`.
pub fn run_lookup(args: LookupArgs) -> Result<Outcome> {
    lookups::check_sources(&args.blob, &args.addresses)?;
    let (name, bytes) = load(&args.blob)?;
    let blob = parse(&name, &bytes)?;
    answer_all(blob, &args.text, args.flags, &args.addresses)
}

/// Answers `addresses` (or standard input) from `blob`, with `text` ranges (runtime
/// addresses; the blob's own by default, moved by the bias).
pub fn answer_all(
    blob: KsymBlob<'_>,
    text: &[Range<u64>],
    flags: LookupFlags,
    addresses: &[String],
) -> Result<Outcome> {
    let mut ranges = if text.is_empty() {
        symblob_build::readback::ksym::text_ranges(&blob)
            .into_iter()
            .map(|r| r.start.wrapping_add(flags.bias)..r.end.wrapping_add(flags.bias))
            .collect()
    } else {
        text.to_vec()
    };
    ranges.sort_by_key(|r| (r.start, r.end));
    // An empty blob has no ranges: every answer is "not found".
    let ksyms = if ranges.is_empty() {
        None
    } else {
        let text_ranges = TextRanges::new(&ranges).map_err(|e| {
            Error::new(ErrorKind::InvalidArgument, "--text", Location::Whole, "").with_source(e)
        })?;
        Some(Ksyms::new(blob, text_ranges).with_bias(flags.bias))
    };
    lookups::run(addresses, flags, &NOT_FOUND, |addr, out| {
        answer(ksyms.as_ref(), flags, addr, out)
    })
}

/// What a bad line gets: `?? ??`, or `"found": false`.
const NOT_FOUND: Placeholder = Placeholder {
    text: b"?? ??\n",
    key: "found",
    empty: Value::Bool(false),
};

/// Writes the answer to the address `addr`: text or one JSON line.
fn answer(
    ksyms: Option<&Ksyms<'_>>,
    flags: LookupFlags,
    addr: u64,
    out: &mut dyn Write,
) -> io::Result<()> {
    let found = ksyms.and_then(|k| {
        if flags.return_address {
            k.lookup_return_address(addr)
        } else {
            k.lookup_address(addr)
        }
    });
    match (found, flags.json) {
        (Some(sym), false) => writeln!(out, "{addr:#x} {sym}"),
        (None, false) => writeln!(out, "{addr:#x} ??"),
        (Some(sym), true) => write_json_line(
            out,
            &json!({
                "address": hex(addr),
                "found": true,
                "name": sym.name.to_string(),
                "type": char::from(sym.kind).to_string(),
                "symbol_address": hex(sym.address),
                "offset": hex(sym.offset),
                "size": hex(sym.size),
                "index": sym.index,
            }),
        ),
        (None, true) => write_json_line(out, &json!({ "address": hex(addr), "found": false })),
    }
}

/// Writes what `write` writes about the blob at `path` to standard output.
fn write_out(
    path: &Path,
    write: impl FnOnce(&KsymBlob<'_>, &mut dyn Write) -> io::Result<()>,
) -> Result<()> {
    let (name, bytes) = load(path)?;
    let blob = parse(&name, &bytes)?;
    let mut out = stdout();
    write(&blob, &mut out)
        .and_then(|()| out.flush())
        .map_err(stdout_error)?;
    Ok(())
}

/// `symblob ksym name`.
pub fn run_name(args: NameArgs) -> Result<()> {
    write_out(&args.blob, |blob, out| {
        for query in &args.names {
            let found = blob.lookup_name(query);
            if args.json {
                let all: Vec<Value> = blob
                    .lookup_name_all(query)
                    .map(|e| json!({ "address": hex(e.address), "type": char::from(e.kind).to_string() }))
                    .collect();
                let row = json!({ "name": query, "address": found.map(hex), "all": all });
                write_json_line(out, &row)?;
            } else {
                match found {
                    Some(addr) => writeln!(out, "{query} {addr:#x}")?,
                    None => writeln!(out, "{query} ??")?,
                }
            }
        }
        Ok(())
    })
}

/// `symblob ksym dump`: streamed, so that `| head` stops it early and memory stays flat.
pub fn run_dump(args: BlobArgs) -> Result<()> {
    write_out(&args.blob, |blob, out| {
        for index in 0..blob.len() {
            if args.json {
                let Some(entry) = blob.symbol(index) else {
                    continue;
                };
                let row = json!({
                    "address": hex(entry.address),
                    "type": char::from(entry.kind).to_string(),
                    "name": entry.name.to_string(),
                });
                write_json_line(out, &row)?;
            } else if let Some(line) = blob.dump_line(index) {
                // The /proc/kallsyms line of the reader's `dump`, newline included.
                write!(out, "{line}")?;
            }
        }
        Ok(())
    })
}

/// `symblob ksym info`.
pub fn run_info(args: BlobArgs) -> Result<()> {
    let (name, bytes) = load(&args.blob)?;
    let blob = parse(&name, &bytes)?;
    let layout = blob.layout();
    let n = blob.len() as u64;
    let raw_name_bytes: u64 = blob.symbols().map(|e| e.name.len() as u64).sum();
    let names_bytes = layout.names.size as u64;
    let ratio = if raw_name_bytes == 0 {
        0.0
    } else {
        names_bytes as f64 / raw_name_bytes as f64
    };
    let validation = blob.validate().map_err(|e| e.to_string());
    let total_bytes =
        (layout.kind == LayoutKind::Sized).then_some(("total_bytes", layout.total_bytes));
    let segments: Vec<_> = total_bytes
        .into_iter()
        .chain([
            ("num_syms", layout.num_syms),
            ("addresses", layout.addresses),
            ("offsets", layout.offsets),
            ("seqs", layout.seqs),
            ("names_len", layout.names_len),
            ("names", layout.names),
            ("names_padding", layout.names_padding),
            ("token_table_len", layout.token_table_len),
            ("token_table", layout.token_table),
            ("token_table_padding", layout.token_table_padding),
            ("token_index_len", layout.token_index_len),
            ("token_index", layout.token_index),
        ])
        .collect();
    if args.json {
        let segs: Vec<Value> = segments
            .iter()
            .map(|(name, s)| json!({ "segment": name, "offset": s.offset, "size": s.size }))
            .collect();
        return print_json(&json!({
            "layout": layout.kind.name(),
            "symbols": n,
            "tokens": blob.token_count(),
            "used_size": layout.used_size,
            "file_size": bytes.len(),
            "bytes_per_symbol": per_symbol(layout.used_size as u64, n),
            "raw_name_bytes": raw_name_bytes,
            "names_bytes": names_bytes,
            "names_ratio": ratio,
            "segments": segs,
            "valid": validation.is_ok(),
            "validation_error": validation.err(),
        }));
    }
    let mut text = String::new();
    let _ = writeln!(text, "layout           {}", layout.kind);
    let _ = writeln!(text, "symbols          {n}");
    let _ = writeln!(text, "tokens           {}", blob.token_count());
    let _ = writeln!(
        text,
        "used size        {} bytes (file {} bytes)",
        layout.used_size,
        bytes.len()
    );
    let _ = writeln!(
        text,
        "bytes/symbol     {:.2}",
        per_symbol(layout.used_size as u64, n)
    );
    let _ = writeln!(
        text,
        "names ratio      {ratio:.3} ({names_bytes} names bytes / {raw_name_bytes} raw name bytes)"
    );
    let _ = writeln!(
        text,
        "validation       {}",
        match &validation {
            Ok(()) => "ok".to_string(),
            Err(e) => e.clone(),
        }
    );
    for (name, s) in segments {
        let _ = writeln!(
            text,
            "  {name:<20} @{:#010x} {:>10} bytes",
            s.offset, s.size
        );
    }
    print(&text)
}
