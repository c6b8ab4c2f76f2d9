//! `symblob symbfile …` subcommands: OpenTelemetry eBPF profiler symbol files.

use std::io::Write as _;
use std::path::{Path, PathBuf};

use clap::{Subcommand, ValueEnum};
use symblob::symbfile::{Range, SymbFile};
use symblob_build::output::write_atomic;
use symblob_build::symbfile::upload::{self, ApiKey, FileKind, PushEvent, PushOptions};
use symblob_build::symbfile::{convert, decode, json, parts, text, FileId, WriterOptions};
use symblob_build::{Error, Location, Result};

use crate::common;

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
    /// Decode a symbfile: one line per record (`R va=… len=… depth=… func=… file=…
    /// call_file=… call_line=… lines=[…]`, `P va=… [func|file|line;…]`), or the reference
    /// model's JSON shape with --json.
    Dump {
        /// The symbfile (`-` for standard input).
        file: PathBuf,
        /// Print `{"records": [...]}` as `symbfile_ref.py dump --json` does.
        #[arg(long)]
        json: bool,
    },
    /// Print the frames of each address (arguments, or standard input one per line), one
    /// line per address as `symblob lidia lookup` prints them: `0x<addr> TAB <count>` then
    /// `TAB function TAB file TAB line` per frame, innermost first. Range records are searched by one sweep of the file; an address no range
    /// covers is looked up among the return pads.
    Lookup {
        /// The symbfile.
        file: PathBuf,
        /// Hexadecimal addresses (with or without 0x).
        addresses: Vec<String>,
    },
    /// Print the FileID of each file: hex, ES form (base64url), path.
    Fileid {
        /// Files to identify.
        #[arg(required = true)]
        files: Vec<PathBuf>,
    },
    /// Convert a symbfile's ranges into a Lidia file (with files and lines), or a Lidia
    /// file into a range symbfile; the input's magic decides.
    Convert {
        /// The input file.
        input: PathBuf,
        /// The output file (written atomically).
        #[arg(short, long)]
        output: PathBuf,
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
        /// The range symbfile to upload.
        #[arg(long, value_name = "FILE")]
        ranges: PathBuf,
        /// The return-pad symbfile to upload.
        #[arg(long, value_name = "FILE")]
        return_pads: Option<PathBuf>,
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
    /// the debug file's FileID, and the zstd-compressed `ranges` under that one.
    Publish {
        /// The executable.
        elf: PathBuf,
        /// The root of the layout.
        dir: PathBuf,
        /// The range symbfile to publish.
        #[arg(long, value_name = "FILE")]
        ranges: PathBuf,
        /// The file the ranges were extracted from, if not the executable itself.
        #[arg(long, value_name = "PATH")]
        debug_file: Option<PathBuf>,
    },
}

/// Runs one `symblob symbfile` subcommand.
pub fn run(command: Command) -> Result<()> {
    match command {
        Command::Dump { file, json } => {
            let records = decode_file(&file)?;
            let out = if json {
                let mut s = serde_json::to_string_pretty(&json::to_json(&records))
                    .expect("JSON value serializes");
                s.push('\n');
                s
            } else {
                records.iter().map(|r| text::line(r) + "\n").collect()
            };
            print(&out)
        }
        Command::Lookup { file, addresses } => {
            let bytes = common::read_input(&file)?;
            let symbfile = SymbFile::parse(&bytes).map_err(|e| blob_error(&file, e))?;
            let mut out = String::new();
            for text in &addresses {
                let addr = common::parse_address(text)
                    .map_err(|e| Error::input(text.as_str(), Location::Whole, e))?;
                lookup(&symbfile, addr, &mut out).map_err(|e| blob_error(&file, e))?;
            }
            print(&out)
        }
        Command::Fileid { files } => {
            let mut out = String::new();
            for f in files {
                let id = FileId::of_path(&f)?;
                out.push_str(&format!("{}  {}  {}\n", id.hex(), id.es(), f.display()));
            }
            print(&out)
        }
        Command::Convert { input, output } => {
            let bytes = common::read_input(&input)?;
            if bytes.starts_with(symblob::symbfile::MAGIC) {
                let converted = convert::symbfile_to_lidia(&bytes).map_err(|e| named(&input, e))?;
                write_atomic(&output, &converted.bytes)?;
                eprintln!(
                    "{}: {} ranges to Lidia ({} return pads have no Lidia form)",
                    output.display(),
                    converted.ranges,
                    converted.return_pads
                );
            } else {
                let out = convert::lidia_to_symbfile(&bytes).map_err(|e| named(&input, e))?;
                write_atomic(&output, &out)?;
            }
            Ok(())
        }
        Command::Write {
            input,
            output,
            window,
        } => {
            let bytes = common::read_input(&input)?;
            let name = input.display().to_string();
            let doc: serde_json::Value = serde_json::from_slice(&bytes)
                .map_err(|e| Error::input(&name, Location::Line(e.line() as u64), e.to_string()))?;
            let records = json::from_json(&doc, &name)?;
            let mut options = WriterOptions::default();
            if let Some(w) = window {
                options.window_records = w;
            }
            let mut writer = symblob_build::symbfile::SymbfileWriter::with_options(options);
            writer.extend(&records)?;
            write_atomic(&output, &writer.finish()?)
        }
        Command::Push {
            elf,
            endpoint,
            ranges,
            return_pads,
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
            let files = [
                (FileKind::Ranges, Some(ranges)),
                (FileKind::ReturnPads, return_pads),
            ];
            for (kind, path) in files {
                let Some(path) = path else { continue };
                let bytes = common::read_input(&path)?;
                let parts = cut(&path, &bytes, max_part_size, part_mode)?;
                eprintln!(
                    "{}: {} part(s) to {}{} for FileID {}",
                    path.display(),
                    parts.len(),
                    options.endpoint,
                    kind.path(),
                    id.es()
                );
                upload::push(&options, kind, id, &parts, |event| match event {
                    PushEvent::Accepted { part, attempts } => {
                        eprintln!("  part {part}: accepted (attempt {attempts})")
                    }
                    PushEvent::Retry { part, reason, wait } => {
                        eprintln!(
                            "  part {part}: {reason}; retrying in {} ms",
                            wait.as_millis()
                        )
                    }
                })?;
            }
            Ok(())
        }
        Command::Publish {
            elf,
            dir,
            ranges,
            debug_file,
        } => {
            let exe = FileId::of_path(&elf)?;
            let debug = match &debug_file {
                Some(d) => FileId::of_path(d)?,
                None => exe,
            };
            let bytes = common::read_input(&ranges)?;
            SymbFile::parse(&bytes)
                .and_then(|f| f.validate(&mut vec![0; 1 << 16]))
                .map_err(|e| blob_error(&ranges, e))?;
            let (meta, data) = upload::publish(&dir, exe, debug, &bytes)?;
            print(&format!("{}\n{}\n", meta.display(), data.display()))
        }
    }
}

/// Reads and decodes a symbfile, naming it in errors.
fn decode_file(path: &Path) -> Result<Vec<symblob_build::symbfile::Record>> {
    let bytes = common::read_input(path)?;
    decode(&bytes).map_err(|e| named(path, e))
}

fn named(path: &Path, e: Error) -> Error {
    match e {
        Error::Blob(b) => blob_error(path, b),
        other => other,
    }
}

fn blob_error(path: &Path, e: symblob::Error) -> Error {
    Error::input(
        path.display().to_string(),
        Location::Offset(e.offset),
        e.to_string(),
    )
}

/// The parts of one file for upload.
fn cut(path: &Path, bytes: &[u8], max: Option<u64>, mode: PartMode) -> Result<Vec<Vec<u8>>> {
    match (max, mode) {
        (None, _) => Ok(vec![bytes.to_vec()]),
        (Some(n), PartMode::Bytes) => Ok(bytes
            .chunks(usize::try_from(n.max(1)).unwrap_or(usize::MAX))
            .map(<[u8]>::to_vec)
            .collect()),
        (Some(n), PartMode::Files) => {
            let records = decode(bytes).map_err(|e| named(path, e))?;
            parts::split(&records, Some(n), WriterOptions::default())
        }
    }
}

/// The API key from a file or the environment; never from the command line.
fn api_key(env: &str, file: Option<&Path>) -> Result<ApiKey> {
    let key = match file {
        Some(f) => std::fs::read_to_string(f).map_err(|e| Error::io(f, e))?,
        None => std::env::var(env).map_err(|_| {
            Error::input(
                "push",
                Location::Whole,
                format!("no API key: set the environment variable {env} or pass --api-key-file"),
            )
        })?,
    };
    if key.trim().is_empty() {
        return Err(Error::input(
            "push",
            Location::Whole,
            "the API key is empty",
        ));
    }
    Ok(ApiKey::new(&key))
}

/// Frames of `addr`, innermost first, in `symblob lidia lookup`'s format.
fn lookup(
    file: &SymbFile<'_>,
    addr: u64,
    out: &mut String,
) -> std::result::Result<(), symblob::Error> {
    let mut scratch = vec![0u32; 1 << 16];
    let mut ranges = [Range::EMPTY; 256];
    let n = file.lookup_ranges(addr, &mut scratch, &mut ranges)?;
    let kept = &ranges[..n.min(ranges.len())];
    let mut frames: Vec<(String, String, u32)> = Vec::new();
    if !kept.is_empty() {
        for (i, r) in kept.iter().enumerate() {
            // The position inside each frame: the call site of the next inner frame, or
            // for the innermost the address's own line.
            let (file, line) = match kept.get(i + 1) {
                Some(inner) => (inner.call_file.or(r.file), inner.call_line.unwrap_or(0)),
                None => (r.file, r.line_at(addr).unwrap_or(0)),
            };
            frames.push((r.func.to_owned(), file.unwrap_or("").to_owned(), line));
        }
    } else if let Some(pad) = file.lookup_return_pad(addr, &mut scratch)? {
        for e in pad.entries() {
            frames.push((
                e.func.to_owned(),
                e.file.unwrap_or("").to_owned(),
                e.line.unwrap_or(0),
            ));
        }
    }
    out.push_str(&format!("{addr:#x}\t{}", frames.len()));
    for (func, file, line) in frames.iter().rev() {
        out.push_str(&format!("\t{func}\t{file}\t{line}"));
    }
    out.push('\n');
    Ok(())
}

fn print(text: &str) -> Result<()> {
    let mut stdout = std::io::stdout().lock();
    stdout
        .write_all(text.as_bytes())
        .and_then(|()| stdout.flush())
        .map_err(|e| Error::io("<stdout>", e))
}
