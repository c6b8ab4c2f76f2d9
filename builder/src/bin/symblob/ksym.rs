//! `symblob ksym …` subcommands: build here; lookup, name, dump and info in
//! [`ksym_query`](crate::ksym_query).

use std::fmt::Write as _;
use std::ops::Range;
use std::path::PathBuf;

use clap::builder::RangedU64ValueParser;
use clap::{Args, Subcommand, ValueEnum};
use serde_json::{json, Value};
use symblob_build::elf::read_elf;
use symblob_build::ksym::{
    build, BuildOptions, Built, Demangle, FormatVersion, InputOptions, LayoutKind, NameHash,
    SymbolList, TypeFilter, WholeSearchNames, MAX_PROBE_ROUNDS, MAX_TOKENS,
};
use symblob_build::output::{refuse_same_file, Output};
use symblob_build::text::{detect_format, parse_input, InputFormat};

use crate::common::{
    display_name, hex, map_input, output_name, parse_size, print_json, Failure, Outcome, Result,
};
use crate::ksym_query::{self, BlobArgs, LookupArgs, NameArgs};
use crate::progress::Progress;

/// `symblob ksym` subcommands.
#[derive(Subcommand)]
pub enum Command {
    /// Build a ksym-bin blob (v1, or v2 with --format-version 2) from nm / System.map,
    /// /proc/kallsyms text or an ELF file.
    ///
    /// Names are stored exactly as given unless --demangle is set. Symbols are ordered by
    /// address (aliases: fewer leading underscores first, then by name); records equal in
    /// address, type and name are kept once. Prints a one-line summary to stderr.
    Build(BuildArgs),
    /// Resolve addresses to `name+0xoff/0xsize`, one output line per address.
    ///
    /// Addresses (hexadecimal, with or without 0x) come from the arguments, or from
    /// standard input one per line, answered as they arrive. Prints `0x<addr>
    /// name+0xoff/0xsize`, `0x<addr> ??` when no symbol covers the address, and `?? ??`
    /// for a line that is not an address (reported on stderr; the exit status is then 1).
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
    #[command(mut_arg("json", |a| a.help(ksym_query::DUMP_JSON_HELP)))]
    Dump(BlobArgs),
    /// Print counts, the size of every segment and the compression of the names.
    #[command(mut_arg("json", |a| a.help(ksym_query::INFO_JSON_HELP)))]
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

/// Blob framings for `--layout`.
#[derive(Clone, Copy, Debug, Default, ValueEnum)]
pub(crate) enum LayoutArg {
    /// A u64 total byte count first, then the plain layout (the `ksym` crate 0.6).
    #[default]
    Sized,
    /// `num_syms` first (the `ksym` crate 0.3–0.5).
    Plain,
}

impl From<LayoutArg> for LayoutKind {
    fn from(arg: LayoutArg) -> Self {
        match arg {
            LayoutArg::Sized => LayoutKind::Sized,
            LayoutArg::Plain => LayoutKind::Plain,
        }
    }
}

/// ksym-bin format versions for `--format-version` (`ksym build`) and
/// `--ksym-format-version` (`convert`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, ValueEnum)]
pub(crate) enum FormatVersionArg {
    /// ksym-bin v1: what the `ksym` crate reads.
    #[default]
    #[value(name = "1")]
    V1,
    /// ksym-bin v2: about three times smaller; read by symblob's reader only.
    #[value(name = "2")]
    V2,
}

/// `--name-hash`: whether a v2 blob carries the name hash index.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, ValueEnum)]
pub(crate) enum NameHashArg {
    /// Where the names' first 8 bytes do not tell restarts apart (Rust symbols).
    #[default]
    Auto,
    /// Always.
    Always,
    /// Never.
    Never,
}

impl From<NameHashArg> for NameHash {
    fn from(arg: NameHashArg) -> Self {
        match arg {
            NameHashArg::Auto => NameHash::Auto,
            NameHashArg::Always => NameHash::Always,
            NameHashArg::Never => NameHash::Never,
        }
    }
}

impl From<FormatVersionArg> for FormatVersion {
    fn from(arg: FormatVersionArg) -> Self {
        match arg {
            FormatVersionArg::V1 => FormatVersion::V1,
            FormatVersionArg::V2 => FormatVersion::V2,
        }
    }
}

/// A size as the user wrote it, and its value.
#[derive(Clone, Debug)]
struct UserSize {
    value: u64,
    text: String,
}

fn parse_user_size(text: &str) -> std::result::Result<UserSize, String> {
    Ok(UserSize {
        value: parse_size(text)?,
        text: text.trim().to_owned(),
    })
}

/// Arguments of `symblob ksym build`.
#[derive(Args)]
pub struct BuildArgs {
    /// Input file, or `-` for standard input.
    input: PathBuf,
    /// Output blob: a file (replaced atomically), a FIFO or device (written directly), or
    /// `-` for standard output.
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
    /// nm type characters to keep, e.g. `TtWw`. Default: `Tt` for text input (the
    /// kernel's rule), every function symbol for an ELF file (`STT_FUNC`,
    /// `STT_GNU_IFUNC` and untyped symbols in code, any binding: types `T`, `t`, `W`, `i`,
    /// `u`), so that lookups answer as `nm` and `addr2line -f` do. Given, it applies to
    /// every input.
    #[arg(long)]
    types: Option<String>,
    /// Pad the blob with zeros to exactly SIZE bytes (decimal or 0x hex); fail if larger.
    #[arg(long, value_name = "SIZE", value_parser = parse_user_size)]
    pad_to: Option<UserSize>,
    /// The ksym-bin format: 1 (what the `ksym` crate reads) or 2 (front-coded names and
    /// packed addresses, about a third of the size; read by symblob only). --layout,
    /// --max-tokens and --whole-search-names apply to version 1 only.
    #[arg(long, value_enum, value_name = "1|2", default_value = "1")]
    format_version: FormatVersionArg,
    /// Blob framing: `sized` for the `ksym` crate 0.6 (its total_bytes excludes the
    /// --pad-to zeros), `plain` for 0.3–0.5. Version 1 only.
    #[arg(long, value_enum, default_value = "sized")]
    layout: LayoutArg,
    /// Most shared name prefixes ("tokens") to store, 0 to 511. Fewer tokens make a larger
    /// blob whose name → address lookups without an index are faster: with 0 every name
    /// is stored whole, and on the kernel's text symbols the blob grows by 8% while such
    /// a lookup takes 15% less time than with the defaults (a tokened name costs the
    /// lookup two more dependent reads per comparison).
    #[arg(long, value_name = "N", default_value_t = MAX_TOKENS,
          value_parser = RangedU64ValueParser::<usize>::new().range(0..=MAX_TOKENS as u64)
    )]
    max_tokens: usize,
    /// Store without a token the names that every name → address lookup compares first:
    /// those of the search's first N rounds (3, 15, 63, … 4^N − 1 names; 0 for none), or
    /// `auto` for as many rounds as 1% of the blob pays for. On the kernel's text
    /// symbols, `auto` keeps 4,095 names whole: lookups take 14% less time for 0.8% more
    /// bytes. Any reader reads the blob as before.
    #[arg(long, value_name = "auto|N", default_value = "auto", value_parser = parse_whole_search_names)]
    whole_search_names: WholeSearchNames,
    /// Version 2: add the name hash index, which makes name → address lookups one hash
    /// and one name comparison (about 3.5 bytes per symbol). `auto` adds it where a
    /// quarter of the restart keys (a name's first 8 bytes) repeat, as with Rust symbols,
    /// and not on the kernel's. Version 1 ignores it.
    #[arg(
        long,
        value_enum,
        value_name = "auto|always|never",
        default_value = "auto"
    )]
    name_hash: NameHashArg,
    /// Write a blob even when no symbol is kept (otherwise an error).
    #[arg(long)]
    allow_empty: bool,
    /// No summary and no progress on stderr.
    #[arg(short, long)]
    quiet: bool,
    /// Print the summary as JSON on stdout.
    #[arg(long)]
    json: bool,
}

/// Runs one `symblob ksym` subcommand.
pub fn run(command: Command) -> Result<Outcome> {
    match command {
        Command::Build(args) => run_build(args).map(|()| Outcome::Success),
        Command::Lookup(args) => ksym_query::run_lookup(args),
        Command::Name(args) => ksym_query::run_name(args).map(|()| Outcome::Success),
        Command::Dump(args) => ksym_query::run_dump(args).map(|()| Outcome::Success),
        Command::Info(args) => ksym_query::run_info(args).map(|()| Outcome::Success),
    }
}

fn run_build(args: BuildArgs) -> Result<()> {
    if args.json && args.output.as_os_str() == "-" {
        return Err(Failure::Message(
            "--json prints the summary on standard output, which `-o -` already uses".into(),
        ));
    }
    refuse_same_file(&args.output, &[&args.input])?;
    let input = display_name(&args.input);
    let output = Output::create(&args.output)?;
    let progress = Progress::start(args.quiet, true, format!("ksym: reading {input}"));
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
        types: args
            .types
            .as_deref()
            .map_or_else(TypeFilter::input_default, TypeFilter::new),
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
    let kept = kept_rule(args.types.as_deref(), format, &list);
    if list.symbols.is_empty() && !args.allow_empty {
        return Err(Failure::Message(format!(
            "{input}: no symbols to write: {kept}; {} undefined; pass --allow-empty to write \
             an empty blob",
            list.skipped_undefined,
        )));
    }
    let options = BuildOptions {
        format_version: args.format_version.into(),
        pad_to: args.pad_to.as_ref().map(|p| p.value),
        layout: args.layout.into(),
        max_tokens: args.max_tokens,
        whole_search_names: args.whole_search_names,
        name_hash: args.name_hash.into(),
    };
    let built = build(&list.symbols, &options).map_err(|e| {
        let too_big = e.limit_exceeded().filter(|l| l.what == "blob size");
        match (too_big, &args.pad_to) {
            (Some(limit), Some(pad)) => Failure::Message(format!(
                "{input}: the blob is {} bytes, more than --pad-to {}",
                limit.value, pad.text
            )),
            _ => e.into(),
        }
    })?;
    let written = output_name(&args.output);
    output.write_with(|w| w.write_all(&built.bytes))?;
    if args.json {
        print_json(&build_json(&built, &list, format, &text_ranges))?;
    }
    let warnings: Vec<String> = built
        .long_names
        .iter()
        .map(|long| format!("{input}: {}", long.warning()))
        .collect();
    let summary = build_summary(&input, format, &written, &built, &list, &text_ranges);
    progress.finish(&warnings, &format!("{summary}; {kept}"));
    Ok(())
}

fn parse_whole_search_names(text: &str) -> std::result::Result<WholeSearchNames, String> {
    if text == "auto" {
        return Ok(WholeSearchNames::Auto);
    }
    match text.parse::<usize>() {
        Ok(rounds) if rounds <= MAX_PROBE_ROUNDS => Ok(WholeSearchNames::Rounds(rounds)),
        _ => Err(format!(
            "expected `auto` or a number of rounds from 0 to {MAX_PROBE_ROUNDS}"
        )),
    }
}

/// Which symbols were kept, by which rule, and what was dropped: `kept every function
/// symbol (…), 203 symbols that are not functions in code (…) left out` or `kept types Tt
/// (--types), dropped 769 of other types (711 W, 58 i), …`.
fn kept_rule(types: Option<&str>, format: InputFormat, list: &SymbolList) -> String {
    let rule = match (types, format) {
        (Some(""), _) => "kept no type (--types '')".to_owned(),
        (Some(t), _) => format!("kept types {t} (--types)"),
        (None, InputFormat::Elf) => "kept every function symbol (STT_FUNC, STT_GNU_IFUNC and \
                                     untyped symbols in code, any binding)"
            .to_owned(),
        (None, _) => {
            "kept types Tt (the kernel's rule for text input; --types to change)".to_owned()
        }
    };
    let mut line = rule;
    if list.skipped_type > 0 {
        let by_type: Vec<String> = list
            .skipped_types
            .iter()
            .map(|(&kind, n)| format!("{n} {}", char::from(kind).escape_default()))
            .collect();
        let _ = write!(
            line,
            ", dropped {} of other types ({})",
            list.skipped_type,
            by_type.join(", ")
        );
    }
    if list.skipped_not_function > 0 {
        let _ = write!(
            line,
            ", {} symbols that are not functions in code (data, sections, files) left out",
            list.skipped_not_function
        );
    }
    line
}

fn format_name(format: InputFormat) -> String {
    format!("{format:?}").to_lowercase()
}

fn build_summary(
    input: &str,
    format: InputFormat,
    output: &str,
    built: &Built,
    list: &SymbolList,
    text_ranges: &[Range<u64>],
) -> String {
    let s = &built.stats;
    let mut line = match s.format_version {
        FormatVersion::V1 => format!(
            "ksym: read {input} ({}), wrote {output}: {} symbols, {} tokens, {} bytes \
             ({:.1} B/symbol), names {:.3} x raw, {} layout",
            format_name(format),
            s.symbols,
            s.tokens,
            s.blob_bytes,
            per_symbol(s.blob_bytes, s.symbols),
            s.names_ratio(),
            built.layout
        ),
        FormatVersion::V2 => format!(
            "ksym: read {input} ({}), wrote {output}: ksym-bin v2, {} symbols, {} bytes \
             ({:.2} B/symbol), {} multi-byte codes, names {:.3} x raw",
            format_name(format),
            s.symbols,
            s.blob_bytes,
            per_symbol(s.blob_bytes, s.symbols),
            s.tokens,
            s.names_ratio(),
        ),
    };
    if s.whole_search_rounds > 0 {
        let _ = write!(
            line,
            ", names of {} search rounds whole",
            s.whole_search_rounds
        );
    }
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

/// Bytes per symbol, 0 for an empty blob.
pub fn per_symbol(bytes: u64, symbols: u64) -> f64 {
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
    let segments = s.segments_v2.map(|z| {
        z.named()
            .iter()
            .map(|&(name, bytes)| (name.to_owned(), json!(bytes)))
            .collect::<serde_json::Map<String, Value>>()
    });
    json!({
        "format": format_name(format),
        "format_version": s.format_version.number(),
        "layout": built.layout.name(),
        "segments": segments,
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
        "whole_search_rounds": s.whole_search_rounds,
        "duplicates_removed": s.duplicates_removed,
        "skipped": {
            "type": list.skipped_type,
            "types": list
                .skipped_types
                .iter()
                .map(|(&kind, &n)| (char::from(kind).to_string(), json!(n)))
                .collect::<serde_json::Map<String, Value>>(),
            "not_function": list.skipped_not_function,
            "undefined": list.skipped_undefined,
            "mapping": list.skipped_mapping,
            "module": list.skipped_module,
        },
        "text_ranges": text_ranges
            .iter()
            .map(|r| json!([hex(r.start), hex(r.end)]))
            .collect::<Vec<_>>(),
    })
}
