//! `symblob symbfile …` subcommands: OpenTelemetry eBPF profiler symbol files.

use std::io::Write as _;
use std::path::{Path, PathBuf};

use clap::{Subcommand, ValueEnum};
use symblob::symbfile::{Record as View, SymbFile};
use symblob_build::input::FilesRead;
use symblob_build::output::{refuse_files_read, refuse_same_file, write_atomic};
use symblob_build::symbfile::upload::{self, ApiKey, FileKind, PushEvent, PushOptions};
use symblob_build::symbfile::{decode, json, parts, text, FileId, Record, WriterOptions};
use symblob_build::{Error, ErrorKind, Location};

use crate::common::{self, display_name, hex, print, Failure, Outcome, Result};
use crate::lookups::{FileLookup, LookupFormat};
use crate::sniff::{self, Want};
use crate::symbfile_build::{self, BuildArgs, ExtractArgs};
use crate::symbfile_query;

/// Environment variable read for the API key unless `--api-key-env` names another.
const DEFAULT_KEY_ENV: &str = "SYMBLOB_API_KEY";

/// How `push` cuts a file into parts.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum PartMode {
    /// Every part is a complete symbfile (own header and string tables); range files are
    /// cut only before a top-level function. For services that read each part alone.
    Files,
    /// Plain byte chunks of the file; the service must concatenate them in part order.
    Bytes,
}

/// `symblob symbfile` subcommands.
#[derive(Subcommand)]
pub enum Command {
    /// Extract the range symbfile of an ELF file (DWARF by symblib's algorithm, then Go
    /// .gopclntab, .symtab, .dynsym) and optionally its return-pad symbfile; records are
    /// streamed to the outputs as they are made. Prints a one-line summary to stderr.
    Build(BuildArgs),
    /// Decode a symbfile: one line per record (`R va=… len=… depth=… func=… file=…
    /// call_file=… call_line=… lines=[…]`, `P va=… [func|file|line;…]`), or the reference
    /// model's JSON shape with --json.
    Dump {
        /// The symbfile (`-` for standard input).
        file: PathBuf,
        /// Print `{"records": [...]}` as `symbfile_ref.py dump --json` does, except that
        /// `elf_va` is a "0x…" string.
        #[arg(long)]
        json: bool,
    },
    /// Print the frames of each address (arguments, or standard input one per line,
    /// answered as they arrive) as `symblob lidia lookup` prints them: `0x<addr> TAB
    /// <count>` then `TAB function TAB file TAB line` per frame, innermost first. The file
    /// is indexed once when it is opened (one pass; then each address costs O(log n));
    /// an address no range covers is looked up among the return pads. A line that is not
    /// an address is reported on stderr and answered `?? TAB 0`; the exit status is then 1.
    Lookup(FileLookup<SymbfileFormat>),
    /// Print the FileID of each file: hex, ES form (base64url), path.
    Fileid {
        /// Files to identify.
        #[arg(required = true)]
        files: Vec<PathBuf>,
        /// Print one JSON object per file: {"path", "hex", "es"}.
        #[arg(long)]
        json: bool,
    },
    /// Write a symbfile from records in the reference model's JSON shape.
    Write {
        /// JSON input (`-` for standard input).
        input: PathBuf,
        /// The symbfile to write (written atomically).
        #[arg(short, long)]
        output: PathBuf,
        /// Records per string table.
        #[arg(long, value_name = "N")]
        window: Option<usize>,
    },
    /// Upload the symbol files of an executable: `POST <endpoint>/api/symbols-ranges` and
    /// `/api/symbols-returnpads` with headers FileID (the executable's, ES form), FilePart,
    /// FileParts and `Authorization: APIKey <key>`. The key is read from the environment
    /// variable named by --api-key-env (default SYMBLOB_API_KEY) or from --api-key-file,
    /// never from the command line, and is never printed. 5xx answers and connection
    /// errors are retried with exponential backoff; 4xx answers fail at once.
    Push {
        /// The executable the files describe (its FileID goes in the FileID header).
        elf: PathBuf,
        /// Base URL of the symbolization service.
        #[arg(long)]
        endpoint: String,
        /// Upload this range symbfile instead of extracting one from the executable.
        #[arg(long, value_name = "FILE")]
        ranges: Option<PathBuf>,
        /// Upload this return-pad symbfile (with --ranges; without it, the return pads
        /// are extracted too).
        #[arg(long, value_name = "FILE", requires = "ranges")]
        return_pads: Option<PathBuf>,
        #[command(flatten)]
        extract: ExtractArgs,
        /// Cut each file into parts of at most N bytes (see --part-mode).
        #[arg(long, value_name = "N")]
        max_part_size: Option<u64>,
        /// `files`: every part is a complete symbfile (an assumption: the format's
        /// documentation does not say what a part is); `bytes`: plain byte chunks that the
        /// service concatenates.
        #[arg(long, value_enum, default_value = "files")]
        part_mode: PartMode,
        /// Environment variable holding the API key.
        #[arg(long, value_name = "NAME", default_value = DEFAULT_KEY_ENV)]
        api_key_env: String,
        /// File holding the API key (instead of the environment).
        #[arg(long, value_name = "PATH")]
        api_key_file: Option<PathBuf>,
        /// Attempts per part on 5xx answers and connection errors.
        #[arg(long, default_value_t = 5)]
        attempts: u32,
        /// Wait before the first retry, in milliseconds (doubled each time).
        #[arg(long, value_name = "MS", default_value_t = 500)]
        retry_delay: u64,
    },
    /// Write the download layout a static web server can serve (devfiler's):
    /// `DIR/<es[0:2]>/<es[2:4]>/<es>/metadata.json` under the executable's FileID, naming
    /// the FileID of the file the DWARF was read from (--debug-file, or the debug file
    /// found by build ID or .gnu_debuglink, else the executable), and the zstd-compressed
    /// `ranges` under that one.
    Publish {
        /// The executable.
        elf: PathBuf,
        /// The root of the layout.
        dir: PathBuf,
        /// Publish this range symbfile instead of extracting one from the executable.
        #[arg(long, value_name = "FILE")]
        ranges: Option<PathBuf>,
        #[command(flatten)]
        extract: ExtractArgs,
    },
}

/// The format `lookup` reads.
pub struct SymbfileFormat;

impl LookupFormat for SymbfileFormat {
    const FILE_HELP: &'static str = "The symbfile";
}

/// Runs one `symblob symbfile` subcommand.
pub fn run(command: Command) -> Result<Outcome> {
    match command {
        Command::Build(args) => symbfile_build::build(args).map(|()| Outcome::Success),
        Command::Dump { file, json } => {
            let bytes = load(&file)?;
            dump(&file, &parse(&file, &bytes)?, json)?;
            Ok(Outcome::Success)
        }
        Command::Lookup(lookup) => lookup.run(load, |file, bytes, flags, addresses| {
            symbfile_query::answer_all(file, parse(file, bytes)?, flags, addresses)
        }),
        Command::Fileid { files, json } => {
            let mut out = std::io::BufWriter::new(Vec::new());
            for f in files {
                let id = FileId::of_path(&f)?;
                if json {
                    let value = serde_json::json!({
                        "path": f.display().to_string(),
                        "hex": id.hex(),
                        "es": id.es(),
                    });
                    common::write_json_line(&mut out, &value).map_err(common::stdout_error)?;
                } else {
                    writeln!(out, "{}  {}  {}", id.hex(), id.es(), f.display())
                        .map_err(common::stdout_error)?;
                }
            }
            let bytes = out
                .into_inner()
                .map_err(|e| common::stdout_error(e.into_error()))?;
            print(&String::from_utf8_lossy(&bytes))?;
            Ok(Outcome::Success)
        }
        Command::Write {
            input,
            output,
            window,
        } => {
            refuse_same_file(&output, &[&input])?;
            let bytes = common::read_input(&input)?;
            let name = display_name(&input);
            let doc: serde_json::Value = serde_json::from_slice(&bytes).map_err(|e| {
                Error::malformed(&name, Location::Line(e.line() as u64), "").with_source(e)
            })?;
            let records = json::from_json(&doc, &name)?;
            let mut options = WriterOptions::default();
            if let Some(w) = window {
                options.window_records = w;
            }
            let mut writer = symblob_build::symbfile::SymbfileWriter::with_options(options);
            writer.extend(&records).map_err(|e| named(&input, e))?;
            let bytes = writer.finish().map_err(|e| named(&input, e))?;
            write_atomic(&output, &bytes)?;
            Ok(Outcome::Success)
        }
        Command::Push {
            elf,
            endpoint,
            ranges,
            return_pads,
            extract,
            max_part_size,
            part_mode,
            api_key_env,
            api_key_file,
            attempts,
            retry_delay,
        } => {
            let key = api_key(&api_key_env, api_key_file.as_deref())?;
            let mut options = PushOptions::new(&endpoint, key);
            options.attempts = attempts;
            options.backoff = std::time::Duration::from_millis(retry_delay);
            let id = FileId::of_path(&elf)?;
            let files = match ranges {
                Some(ranges) => {
                    let mut files = Vec::new();
                    for (kind, path) in [
                        (FileKind::Ranges, Some(ranges)),
                        (FileKind::ReturnPads, return_pads),
                    ] {
                        let Some(path) = path else { continue };
                        let bytes = common::read_input(&path)?;
                        let parts = cut(&path, &bytes, max_part_size, part_mode)?;
                        files.push((kind, display_name(&path), parts));
                    }
                    files
                }
                None => {
                    let limit = match part_mode {
                        PartMode::Files => max_part_size,
                        PartMode::Bytes => None,
                    };
                    let extracted = symbfile_build::extract_parts(&elf, &extract, limit)?;
                    let (ranges, pads) = (extracted.ranges, extracted.pads);
                    let chunk = |parts: Vec<Vec<u8>>| match (part_mode, max_part_size) {
                        (PartMode::Bytes, Some(n)) => byte_chunks(&parts.concat(), n),
                        _ => parts,
                    };
                    let name = elf.display();
                    vec![
                        (FileKind::Ranges, format!("{name} ranges"), chunk(ranges)),
                        (
                            FileKind::ReturnPads,
                            format!("{name} return pads"),
                            chunk(pads),
                        ),
                    ]
                }
            };
            for (kind, what, parts) in files {
                note!(
                    "{what}: {} part(s) to {}{} for FileID {}",
                    parts.len(),
                    options.endpoint,
                    kind.path(),
                    id.es()
                );
                upload::push(&options, kind, id, &parts, |event| match event {
                    PushEvent::Accepted { part, attempts } => {
                        note!("  part {part}: accepted (attempt {attempts})")
                    }
                    PushEvent::Retry { part, reason, wait } => {
                        note!(
                            "  part {part}: {reason}; retrying in {} ms",
                            wait.as_millis()
                        )
                    }
                })?;
            }
            Ok(Outcome::Success)
        }
        Command::Publish {
            elf,
            dir,
            ranges,
            extract,
        } => {
            let exe = FileId::of_path(&elf)?;
            let mut inputs = vec![elf.as_path()];
            inputs.extend(ranges.as_deref());
            let debug_files = extract.dwarf.debug_files();
            inputs.extend(debug_files.paths());
            let extracted = match ranges {
                Some(_) => None,
                None => Some(symbfile_build::extract_parts(&elf, &extract, None)?),
            };
            let read = extracted.as_ref().map(|e| &e.files_read);
            // The range file is filed under the file its DWARF was read from: the debug
            // file the extraction read (named or found by itself), else the one named
            // with --ranges, else the executable.
            let dwarf_file = read.and_then(FilesRead::debug_file);
            let dwarf_file = dwarf_file.or(extract.dwarf.debug_file()).unwrap_or(&elf);
            let debug = FileId::of_path(dwarf_file)?;
            let outputs = upload::publish_paths(&dir, exe, debug);
            for out in [&outputs.0, &outputs.1] {
                refuse_same_file(out, &inputs)?;
                if let Some(read) = read {
                    refuse_files_read(out, read)?;
                }
            }
            let bytes = match &ranges {
                Some(path) => {
                    let bytes = load(path)?;
                    SymbFile::parse(&bytes)
                        .and_then(|f| f.validate(&mut vec![""; 1 << 16]))
                        .map_err(|e| blob_error(path, e))?;
                    bytes
                }
                None => extracted.map(|e| e.ranges.concat()).unwrap_or_default(),
            };
            let (meta, data) = upload::publish(&dir, exe, debug, &bytes)?;
            print(&format!("{}\n{}\n", meta.display(), data.display()))?;
            Ok(Outcome::Success)
        }
    }
}

/// Prints the records of `file` one by one as they are decoded (memory does not grow
/// with the file): text lines, or `{"records": [...]}` with one record a line and each
/// `elf_va` a "0x…" string.
fn dump(path: &Path, file: &SymbFile<'_>, as_json: bool) -> Result<()> {
    // One slot per string of the largest table; each string takes at least two bytes of
    // the file (its field key and length), which bounds the slots a small file needs.
    let mut scratch = vec![""; (file.bytes().len() / 2).clamp(16, 1 << 20)];
    let mut records = file.records(&mut scratch);
    let mut out = common::stdout();
    let mut first = true;
    let io = common::stdout_error;
    if as_json {
        out.write_all(b"{\"records\": [").map_err(io)?;
    }
    while let Some(view) = records.next().map_err(|e| blob_error(path, e))? {
        let record = match view {
            View::Range(r) => Record::Range((&r).into()),
            View::ReturnPad(p) => Record::ReturnPad((&p).into()),
        };
        if as_json {
            let mut value = json::record_json(&record);
            value["elf_va"] = hex(record.va()).into();
            let sep: &[u8] = if first { b"\n" } else { b",\n" };
            out.write_all(sep).map_err(io)?;
            serde_json::to_writer(&mut out, &value).map_err(|e| io(e.into()))?;
        } else {
            writeln!(out, "{}", text::line(&record)).map_err(io)?;
        }
        first = false;
    }
    if as_json {
        out.write_all(b"\n]}\n").map_err(io)?;
    }
    out.flush().map_err(io)?;
    Ok(())
}

/// Reads a symbfile after checking what it is.
fn load(path: &Path) -> Result<Vec<u8>> {
    let bytes = common::read_input(path)?;
    sniff::expect(&bytes, &display_name(path), Want::Symbfile)?;
    Ok(bytes)
}

/// Parses a symbfile, naming it in errors.
pub fn parse<'a>(path: &Path, bytes: &'a [u8]) -> Result<SymbFile<'a>> {
    Ok(SymbFile::parse(bytes).map_err(|e| blob_error(path, e))?)
}

/// An error of the library reading, converting or cutting the bytes of `path`, named
/// after it: the reader's at its offset, a record the writer refused (numbered as the
/// input's ranges are), and a value beyond the output format's limits.
pub fn named(path: &Path, e: Error) -> Failure {
    e.with_input(display_name(path)).into()
}

/// A reader error, named after the file it came from and placed at its offset.
pub fn blob_error(path: &Path, e: symblob::Error) -> Error {
    Error::from(e).with_input(display_name(path))
}

/// The parts of one file for upload.
fn cut(path: &Path, bytes: &[u8], max: Option<u64>, mode: PartMode) -> Result<Vec<Vec<u8>>> {
    match (max, mode) {
        (None, _) => Ok(vec![bytes.to_vec()]),
        (Some(n), PartMode::Bytes) => Ok(byte_chunks(bytes, n)),
        (Some(n), PartMode::Files) => {
            let records = decode(bytes).map_err(|e| named(path, e))?;
            Ok(parts::split(&records, Some(n), WriterOptions::default())?)
        }
    }
}

/// Plain byte chunks of at most `n` bytes.
fn byte_chunks(bytes: &[u8], n: u64) -> Vec<Vec<u8>> {
    bytes
        .chunks(usize::try_from(n.max(1)).unwrap_or(usize::MAX))
        .map(<[u8]>::to_vec)
        .collect()
}

/// The API key from a file or the environment; never from the command line.
fn api_key(env: &str, file: Option<&Path>) -> Result<ApiKey> {
    let key = match file {
        Some(f) => std::fs::read_to_string(f).map_err(|e| Error::io(f, e))?,
        None => std::env::var(env).map_err(|_| {
            Error::new(
                ErrorKind::InvalidArgument,
                "push",
                Location::Whole,
                format!("no API key: set the environment variable {env} or pass --api-key-file"),
            )
        })?,
    };
    if key.trim().is_empty() {
        return Err(Failure::Message("push: the API key is empty".into()));
    }
    Ok(ApiKey::new(&key))
}
