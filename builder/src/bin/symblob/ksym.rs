//! `symblob ksym …` subcommands: build, lookup, name, dump, info.

use std::fmt::Write as _;
use std::io::Write as _;
use std::ops::Range;
use std::path::{Path, PathBuf};

use clap::{Args, Subcommand, ValueEnum};
use serde_json::{json, Value};
use symblob::ksym::{KsymBlob, Ksyms, TextRanges};
use symblob_build::ksym::{
    build, detect_format, parse_input, read_elf, BuildOptions, Built, Demangle, InputFormat,
    InputOptions, SymbolList, TypeFilter,
};
use symblob_build::output::write_atomic;
use symblob_build::{Error, Location, Result};

use crate::common::{addresses, map_input, parse_address, read_input};

/// `symblob ksym` subcommands.
#[derive(Subcommand)]
pub enum Command {
    /// Build a ksym-bin v1 blob from nm / System.map, /proc/kallsyms text or an ELF file.
    ///
    /// Names are stored exactly as given unless --demangle is set. Symbols are ordered by
    /// address (aliases: fewer leading underscores first, then by name); records equal in
    /// address, type and name are kept once. Prints a one-line summary to stderr.
    Build(BuildArgs),
    /// Resolve addresses to `name+0xoff/0xsize`, one output line per address.
    ///
    /// Addresses (hexadecimal, with or without 0x) come from the arguments, or from
    /// standard input one per line. Prints `0x<addr> name+0xoff/0xsize`, or `0x<addr> ??`
    /// when no symbol covers the address.
    ///
    /// Without --text, the blob's own markers are used: [_stext, _etext) and, if present,
    /// [_sinittext, _einittext), as a kernel resolves its text. A blob without `_stext` /
    /// `_etext` gets the single range [lowest address, highest address + 1), so the last
    /// symbol only covers its first byte: pass --text for exact sizes.
    Lookup(LookupArgs),
    /// Resolve names to the lowest address carrying them: `NAME 0x<addr>` or `NAME ??`.
    ///
    /// Names are matched byte for byte as stored (demangled only if the blob was built
    /// with --demangle).
    Name(NameArgs),
    /// Print every symbol as /proc/kallsyms does: `%016x %c %s` per line, in address order.
    Dump(BlobArgs),
    /// Print counts, the size of every segment and the compression of the names.
    Info(BlobArgs),
}

/// Input format names for `--format`.
#[derive(Clone, Copy, Debug, ValueEnum)]
enum FormatArg {
    /// `nm -n` / `nm -n -C` output or a System.map.
    Nm,
    /// /proc/kallsyms text (module symbols are skipped).
    Kallsyms,
    /// An ELF file (its .symtab, or .dynsym if stripped).
    Elf,
}

/// Arguments of `symblob ksym build`.
#[derive(Args)]
pub struct BuildArgs {
    /// Input file, or `-` for standard input.
    input: PathBuf,
    /// Output blob file (written atomically), or `-` for standard output.
    #[arg(short, long)]
    output: PathBuf,
    /// Input format; by default detected: ELF magic → elf, a TAB before `[` (module
    /// column) → kallsyms, else nm.
    #[arg(long, value_enum)]
    format: Option<FormatArg>,
    /// Demangle Rust and C++ names: Rust (`_R…`, and `_ZN…17h<hash>E`) in rustc-demangle's
    /// alternate form `{:#}` (no `::h<hash>`, no crate disambiguators, `.llvm.<n>` suffix
    /// dropped, other suffixes such as `.cold` kept), other `_Z…` names as `nm -C` writes
    /// them. Other names are stored as given. Name lookups must use the stored form.
    #[arg(long)]
    demangle: bool,
    /// nm type characters to keep, e.g. `TtWw`.
    #[arg(long, default_value = "Tt")]
    types: String,
    /// Pad the blob with zeros to exactly SIZE bytes (decimal or 0x hex); fail if larger.
    #[arg(long, value_name = "SIZE", value_parser = parse_size)]
    pad_to: Option<u64>,
    /// No summary on stderr.
    #[arg(short, long)]
    quiet: bool,
    /// Print the summary as JSON on stdout.
    #[arg(long)]
    json: bool,
}

/// Arguments of `symblob ksym lookup`.
#[derive(Args)]
pub struct LookupArgs {
    /// The blob.
    blob: PathBuf,
    /// A text range START..END (hex, end exclusive); repeat for several ranges.
    #[arg(long = "text", value_name = "START..END", value_parser = parse_range)]
    text: Vec<Range<u64>>,
    /// Treat the addresses as return addresses (look up ADDR-1, as backtraces need).
    #[arg(long)]
    return_address: bool,
    /// Print JSON on stdout.
    #[arg(long)]
    json: bool,
    /// Addresses to resolve; read from standard input when none are given.
    addresses: Vec<String>,
}

/// Arguments of `symblob ksym name`.
#[derive(Args)]
pub struct NameArgs {
    /// The blob.
    blob: PathBuf,
    /// Print JSON on stdout.
    #[arg(long)]
    json: bool,
    /// Names to look up.
    #[arg(required = true)]
    names: Vec<String>,
}

/// Arguments of the commands that only read a blob.
#[derive(Args)]
pub struct BlobArgs {
    /// The blob.
    blob: PathBuf,
    /// Print JSON on stdout.
    #[arg(long)]
    json: bool,
}

/// Runs one `symblob ksym` subcommand.
pub fn run(command: Command) -> Result<()> {
    match command {
        Command::Build(args) => run_build(args),
        Command::Lookup(args) => run_lookup(args),
        Command::Name(args) => run_name(args),
        Command::Dump(args) => run_dump(args),
        Command::Info(args) => run_info(args),
    }
}

/// How a path is named in messages.
fn display_name(path: &Path) -> String {
    if path == Path::new("-") {
        "<stdin>".into()
    } else {
        path.display().to_string()
    }
}

fn parse_size(text: &str) -> std::result::Result<u64, String> {
    let t = text.trim();
    let parsed = match t.strip_prefix("0x").or_else(|| t.strip_prefix("0X")) {
        Some(hex) => u64::from_str_radix(hex, 16),
        None => t.parse(),
    };
    parsed.map_err(|_| format!("not a size: {t:?} (decimal or 0x hex)"))
}

fn parse_range(text: &str) -> std::result::Result<Range<u64>, String> {
    let (start, end) = text
        .split_once("..")
        .ok_or_else(|| format!("not a range START..END: {text:?}"))?;
    let parse = |t: &str| parse_address(t, "--text", Location::Whole).map_err(|e| e.to_string());
    Ok(parse(start)?..parse(end)?)
}

fn stdout_write(text: &str) -> Result<()> {
    let mut out = std::io::stdout().lock();
    out.write_all(text.as_bytes())
        .and_then(|()| out.flush())
        .map_err(|e| Error::io("<stdout>", e))
}

fn print_json(value: &Value) -> Result<()> {
    let mut text = serde_json::to_string_pretty(value).unwrap_or_default();
    text.push('\n');
    stdout_write(&text)
}

fn run_build(args: BuildArgs) -> Result<()> {
    let input = display_name(&args.input);
    // Mapped, not read: an ELF build touches the symbol tables and headers only, a small
    // part of a kernel image with DWARF.
    let bytes = map_input(&args.input)?;
    let format = match args.format {
        Some(FormatArg::Nm) => InputFormat::Nm,
        Some(FormatArg::Kallsyms) => InputFormat::Kallsyms,
        Some(FormatArg::Elf) => InputFormat::Elf,
        None => detect_format(&bytes),
    };
    let input_options = InputOptions {
        types: TypeFilter::new(&args.types),
        demangle: if args.demangle {
            Demangle::RustAndCpp
        } else {
            Demangle::None
        },
    };
    let (list, text_ranges): (SymbolList, Vec<Range<u64>>) = match format {
        InputFormat::Elf => {
            let elf = read_elf(&bytes, &input, &input_options)?;
            (elf.symbols, elf.text_ranges)
        }
        _ => (
            parse_input(&bytes, format, &input, &input_options)?,
            Vec::new(),
        ),
    };
    let options = BuildOptions {
        pad_to: args.pad_to,
        ..BuildOptions::default()
    };
    let built = build(&list.symbols, &options)?;
    if args.output == Path::new("-") {
        let mut out = std::io::stdout().lock();
        out.write_all(&built.bytes)
            .and_then(|()| out.flush())
            .map_err(|e| Error::io("<stdout>", e))?;
    } else {
        write_atomic(&args.output, &built.bytes)?;
    }
    if args.json {
        print_json(&build_json(&built, &list, format, &text_ranges))?;
    }
    if !args.quiet {
        eprintln!("{}", build_summary(&built, &list, &text_ranges));
    }
    Ok(())
}

fn build_summary(built: &Built, list: &SymbolList, text_ranges: &[Range<u64>]) -> String {
    let s = &built.stats;
    let mut line = format!(
        "ksym: {} symbols, {} tokens, {} bytes ({:.1} B/symbol), names {:.3} x raw",
        s.symbols,
        s.tokens,
        s.blob_bytes,
        per_symbol(s.blob_bytes, s.symbols),
        s.names_ratio()
    );
    if s.output_bytes != s.blob_bytes {
        let _ = write!(line, ", padded to {}", s.output_bytes);
    }
    if list.skipped_module > 0 {
        let _ = write!(line, ", {} module symbols skipped", list.skipped_module);
    }
    if s.duplicates_removed > 0 {
        let _ = write!(line, ", {} duplicates removed", s.duplicates_removed);
    }
    if !text_ranges.is_empty() {
        let ranges: Vec<String> = text_ranges
            .iter()
            .map(|r| format!("{:#x}..{:#x}", r.start, r.end))
            .collect();
        let _ = write!(line, ", text {}", ranges.join(" "));
    }
    line
}

fn per_symbol(bytes: u64, symbols: u64) -> f64 {
    if symbols == 0 {
        0.0
    } else {
        bytes as f64 / symbols as f64
    }
}

fn build_json(
    built: &Built,
    list: &SymbolList,
    format: InputFormat,
    text_ranges: &[Range<u64>],
) -> Value {
    let s = &built.stats;
    json!({
        "format": format!("{format:?}").to_lowercase(),
        "symbols": s.symbols,
        "tokens": s.tokens,
        "blob_bytes": s.blob_bytes,
        "output_bytes": s.output_bytes,
        "names_bytes": s.names_bytes,
        "raw_name_bytes": s.raw_name_bytes,
        "names_ratio": s.names_ratio(),
        "token_table_bytes": s.token_table_bytes,
        "short_token_refs": s.short_refs,
        "long_token_refs": s.long_refs,
        "duplicates_removed": s.duplicates_removed,
        "skipped": {
            "type": list.skipped_type,
            "undefined": list.skipped_undefined,
            "mapping": list.skipped_mapping,
            "module": list.skipped_module,
        },
        "text_ranges": text_ranges.iter().map(|r| json!([r.start, r.end])).collect::<Vec<_>>(),
    })
}

/// Reads a blob file and keeps its bytes alive for the parsed view.
fn load_blob(path: &Path) -> Result<(String, Vec<u8>)> {
    let name = display_name(path);
    let bytes = read_input(path)?;
    Ok((name, bytes))
}

fn parse_blob<'a>(name: &str, bytes: &'a [u8]) -> Result<KsymBlob<'a>> {
    KsymBlob::parse(bytes).map_err(|e| Error::input(name, Location::Whole, e.to_string()))
}

/// The default text ranges of a blob: its kernel markers, else its address span.
fn default_ranges(blob: &KsymBlob<'_>) -> Vec<Range<u64>> {
    let marker = |name: &str| blob.lookup_name(name);
    let mut ranges = Vec::new();
    if let (Some(start), Some(end)) = (marker("_stext"), marker("_etext")) {
        if start < end {
            ranges.push(start..end);
            if let (Some(s), Some(e)) = (marker("_sinittext"), marker("_einittext")) {
                if s < e && (e <= start || s >= end) {
                    ranges.push(s..e);
                }
            }
            ranges.sort_by_key(|r| r.start);
            return ranges;
        }
    }
    let first = blob.symbol(0).map(|e| e.address);
    let last = blob.len().checked_sub(1).and_then(|i| blob.symbol(i));
    if let (Some(first), Some(last)) = (first, last) {
        ranges.push(first..last.address.saturating_add(1).max(first.saturating_add(1)));
    }
    ranges
}

fn run_lookup(args: LookupArgs) -> Result<()> {
    let (name, bytes) = load_blob(&args.blob)?;
    let blob = parse_blob(&name, &bytes)?;
    let mut ranges = if args.text.is_empty() {
        default_ranges(&blob)
    } else {
        args.text.clone()
    };
    ranges.sort_by_key(|r| (r.start, r.end));
    let queries = addresses(&args.addresses)?;
    let mut text = String::new();
    let mut rows = Vec::new();
    if ranges.is_empty() {
        // An empty blob: nothing can be found.
        for addr in &queries {
            let _ = writeln!(text, "{addr:#x} ??");
            rows.push(json!({ "address": addr, "found": false }));
        }
    } else {
        let text_ranges = TextRanges::new(&ranges)
            .map_err(|e| Error::input("--text", Location::Whole, e.to_string()))?;
        let ksyms = Ksyms::new(blob, text_ranges);
        for &addr in &queries {
            let found = if args.return_address {
                ksyms.lookup_return_address(addr)
            } else {
                ksyms.lookup_address(addr)
            };
            match found {
                Some(sym) => {
                    let _ = writeln!(text, "{addr:#x} {sym}");
                    rows.push(json!({
                        "address": addr,
                        "found": true,
                        "name": sym.name.to_string(),
                        "type": char::from(sym.kind).to_string(),
                        "symbol_address": sym.address,
                        "offset": sym.offset,
                        "size": sym.size,
                        "index": sym.index,
                    }));
                }
                None => {
                    let _ = writeln!(text, "{addr:#x} ??");
                    rows.push(json!({ "address": addr, "found": false }));
                }
            }
        }
    }
    if args.json {
        print_json(&Value::Array(rows))
    } else {
        stdout_write(&text)
    }
}

fn run_name(args: NameArgs) -> Result<()> {
    let (name, bytes) = load_blob(&args.blob)?;
    let blob = parse_blob(&name, &bytes)?;
    let mut text = String::new();
    let mut rows = Vec::new();
    for query in &args.names {
        let found = blob.lookup_name(query);
        match found {
            Some(addr) => {
                let _ = writeln!(text, "{query} {addr:#x}");
            }
            None => {
                let _ = writeln!(text, "{query} ??");
            }
        }
        let all: Vec<Value> = blob
            .lookup_name_all(query)
            .map(|e| json!({ "address": e.address, "type": char::from(e.kind).to_string() }))
            .collect();
        rows.push(json!({ "name": query, "address": found, "all": all }));
    }
    if args.json {
        print_json(&Value::Array(rows))
    } else {
        stdout_write(&text)
    }
}

fn run_dump(args: BlobArgs) -> Result<()> {
    let (name, bytes) = load_blob(&args.blob)?;
    let blob = parse_blob(&name, &bytes)?;
    if args.json {
        let rows: Vec<Value> = blob
            .symbols()
            .map(|e| {
                json!({
                    "address": e.address,
                    "type": char::from(e.kind).to_string(),
                    "name": e.name.to_string(),
                })
            })
            .collect();
        return print_json(&Value::Array(rows));
    }
    let mut text = String::with_capacity(bytes.len() * 2);
    let _ = blob.dump(&mut text);
    stdout_write(&text)
}

fn run_info(args: BlobArgs) -> Result<()> {
    let (name, bytes) = load_blob(&args.blob)?;
    let blob = parse_blob(&name, &bytes)?;
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
    let segments = [
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
    ];
    if args.json {
        let segs: Vec<Value> = segments
            .iter()
            .map(|(name, s)| json!({ "segment": name, "offset": s.offset, "size": s.size }))
            .collect();
        return print_json(&json!({
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
    stdout_write(&text)
}
