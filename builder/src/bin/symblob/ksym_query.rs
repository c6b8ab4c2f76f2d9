//! `symblob ksym lookup|name|dump|info`: the commands that read a ksym blob.

use std::fmt::Write as _;
use std::io::{self, Write};
use std::ops::Range;
use std::path::{Path, PathBuf};

use clap::Args;
use serde_json::{json, Value};
use symblob::ksym::{LayoutKind, TextRanges};
use symblob_build::ksym::SegmentSizes;
use symblob_build::readback::ksym::{AnyKsym, AnyKsyms};
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

/// Parses (and validates) a ksym blob of either version, naming the file in errors.
pub fn parse<'a>(name: &str, bytes: &'a [u8]) -> Result<AnyKsym<'a>> {
    AnyKsym::parse(bytes).map_err(|e| reader_error(name, e))
}

/// The reader's error `e` about the blob `name`, with its section and offset.
pub fn reader_error(name: &str, e: symblob::Error) -> crate::common::Failure {
    Error::new(e.kind.into(), name, Location::Whole, "")
        .with_section(e.section)
        .with_source(e)
        .into()
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
    blob: AnyKsym<'_>,
    text: &[Range<u64>],
    flags: LookupFlags,
    addresses: &[String],
) -> Result<Outcome> {
    let mut ranges = if text.is_empty() {
        blob.text_ranges()
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
        Some(blob.ksyms(text_ranges, flags.bias))
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
    ksyms: Option<&AnyKsyms<'_>>,
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
                "name": sym.name,
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
    write: impl FnOnce(&AnyKsym<'_>, &mut dyn Write) -> io::Result<()>,
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
                    .into_iter()
                    .map(|(address, kind)| json!({ "address": hex(address), "type": char::from(kind).to_string() }))
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
        if !args.json {
            // The /proc/kallsyms lines of the reader's `dump`.
            return blob.write_dump(out);
        }
        for entry in blob.rows() {
            let row = json!({
                "address": hex(entry.address),
                "type": char::from(entry.kind).to_string(),
                "name": entry.name,
            });
            write_json_line(out, &row)?;
        }
        Ok(())
    })
}

/// `symblob ksym info`.
pub fn run_info(args: BlobArgs) -> Result<()> {
    let (name, bytes) = load(&args.blob)?;
    let blob = match AnyKsym::open(&bytes).map_err(|e| reader_error(&name, e))? {
        AnyKsym::V1(blob) => blob,
        AnyKsym::V2(_) => return run_info_v2(&args, &name, &bytes),
    };
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
            "format_version": 1,
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

/// `symblob ksym info` of a v2 blob: the v1 keys that mean the same, and the segments of
/// spec section 4 (they add up to `used_size`).
fn run_info_v2(args: &BlobArgs, name: &str, bytes: &[u8]) -> Result<()> {
    let blob = parse_v2(name, bytes)?;
    let sizes = SegmentSizes::from_header(bytes).unwrap_or_default();
    let n = blob.len() as u64;
    let used = blob.used_size() as u64;
    let validation = blob.validate().map_err(|e| e.to_string());
    // Names are only read from a blob that validates.
    let raw_name_bytes: Option<u64> = validation
        .is_ok()
        .then(|| blob.symbols().map(|e| e.name.len() as u64).sum());
    let ratio = match raw_name_bytes {
        Some(raw) if raw > 0 => sizes.names as f64 / raw as f64,
        _ => 0.0,
    };
    let mut offset = 0;
    let segments: Vec<(&str, u64, u64)> = sizes
        .named()
        .into_iter()
        .map(|(segment, size)| {
            offset += size;
            (segment, offset - size, size)
        })
        .collect();
    if args.json {
        let segs: Vec<Value> = segments
            .iter()
            .map(|(name, offset, size)| json!({ "segment": name, "offset": offset, "size": size }))
            .collect();
        return print_json(&json!({
            "format_version": 2,
            "symbols": n,
            "multi_byte_codes": blob.multi_byte_codes(),
            "base": hex(blob.base()),
            "used_size": used,
            "file_size": bytes.len(),
            "bytes_per_symbol": per_symbol(used, n),
            "raw_name_bytes": raw_name_bytes,
            "names_bytes": sizes.names,
            "names_ratio": ratio,
            "segments": segs,
            "valid": validation.is_ok(),
            "validation_error": validation.err(),
        }));
    }
    let mut text = String::new();
    let _ = writeln!(text, "format version   2");
    let _ = writeln!(text, "symbols          {n}");
    let _ = writeln!(
        text,
        "codes            {} multi-byte",
        blob.multi_byte_codes()
    );
    let _ = writeln!(text, "base             {:#x}", blob.base());
    let _ = writeln!(
        text,
        "used size        {used} bytes (file {} bytes)",
        bytes.len()
    );
    let _ = writeln!(text, "bytes/symbol     {:.2}", per_symbol(used, n));
    if let Some(raw) = raw_name_bytes {
        let _ = writeln!(
            text,
            "names ratio      {ratio:.3} ({} names bytes / {raw} raw name bytes)",
            sizes.names
        );
    }
    let _ = writeln!(
        text,
        "validation       {}",
        match &validation {
            Ok(()) => "ok".to_string(),
            Err(e) => e.clone(),
        }
    );
    for (name, offset, size) in segments {
        let _ = writeln!(text, "  {name:<20} @{offset:#010x} {size:>10} bytes");
    }
    print(&text)
}

/// Opens a v2 blob (layout checks only: `info` reports what validation finds).
fn parse_v2<'a>(name: &str, bytes: &'a [u8]) -> Result<symblob::ksym::v2::Blob<'a>> {
    symblob::ksym::v2::Blob::open(bytes).map_err(|e| reader_error(name, e))
}
