//! `symblob cif …` subcommands: capture, decode and encode CIF image maps.

use std::path::PathBuf;

use clap::Subcommand;
use serde_json::Value;
use symblob::cif::{base64_decode, base64_decoded_len_max, base64_encode, base64_encoded_len};
use symblob_build::capture::capture;
use symblob_build::cif::{DecodedMap, EncodeMode, ImageMap};
use symblob_build::output::{refuse_same_file, write_atomic};
use symblob_build::{Error, Location};

use crate::common::{display_name, hex, print, print_json, read_input, Outcome, Result};
use crate::sniff::{self, Want};

/// `symblob cif` subcommands.
#[derive(Subcommand)]
pub enum Command {
    /// Captures the images loaded in a process: CIF bytes to FILE, or base64 (the form
    /// crash logs carry) to standard output.
    Capture {
        /// Process ID (default: this process).
        pid: Option<u32>,
        /// Write the raw CIF bytes to this file (replaced atomically), a FIFO or device
        /// (written directly), or `-` for standard output.
        #[arg(short, long)]
        output: Option<PathBuf>,
        /// Write the bytes Swift's encoder writes.
        #[arg(long)]
        swift: bool,
    },
    /// Decodes a CIF stream (raw bytes or base64 text, detected) into a table or JSON.
    Decode {
        /// CIF file, or `-` for standard input.
        input: PathBuf,
        /// Print JSON in the reference model's shape instead of a table.
        #[arg(long)]
        json: bool,
        /// Read the older layout, which has no platform field.
        #[arg(long)]
        legacy_no_platform: bool,
    },
    /// Encodes an image map in JSON (as `decode --json` prints it) as CIF.
    Encode {
        /// JSON file, or `-` for standard input (the default).
        #[arg(default_value = "-")]
        input: PathBuf,
        /// Write to this file (replaced atomically), a FIFO or device (written directly),
        /// or `-` for standard output (the default).
        #[arg(short, long)]
        output: Option<PathBuf>,
        /// Write the bytes Swift's encoder writes.
        #[arg(long)]
        swift: bool,
        /// Write base64 text instead of raw bytes.
        #[arg(long)]
        base64: bool,
    },
}

/// Runs one `symblob cif` subcommand.
pub fn run(command: Command) -> Result<Outcome> {
    match command {
        Command::Capture { pid, output, swift } => {
            let bytes = capture(pid)?.encode(mode(swift))?;
            match output {
                Some(path) => write_atomic(&path, &bytes)?,
                None => print(&format!("{}\n", to_base64(&bytes)?))?,
            }
        }
        Command::Decode {
            input,
            json,
            legacy_no_platform,
        } => {
            let name = display_name(&input);
            let data = read_input(&input)?;
            sniff::expect(&data, &name, Want::Cif)?;
            let bytes = raw_cif(&data, &name)?;
            let map = ImageMap::decode(&bytes, legacy_no_platform).map_err(|e| {
                match e.reader_error().copied() {
                    Some(b) => Error::new(
                        e.kind(),
                        name.clone(),
                        Location::Offset(b.offset),
                        format!("{}: {}", b.section, b.kind),
                    )
                    .with_section(b.section),
                    None => e,
                }
            })?;
            if json {
                print_json(&hex_addresses(&map))?;
            } else {
                print(&table(&map))?;
            }
        }
        Command::Encode {
            input,
            output,
            swift,
            base64,
        } => {
            if let Some(path) = &output {
                refuse_same_file(path, &[&input])?;
            }
            let name = display_name(&input);
            let raw = read_input(&input)?;
            let text = std::str::from_utf8(&raw).map_err(|e| {
                Error::malformed(
                    name.clone(),
                    Location::Offset(e.valid_up_to() as u64),
                    "not UTF-8",
                )
            })?;
            let map = ImageMap::from_json(text, &name)?;
            let bytes = map
                .encode(mode(swift))
                .map_err(|e| e.with_input(name.clone()))?;
            let data = if base64 {
                format!("{}\n", to_base64(&bytes)?).into_bytes()
            } else {
                bytes
            };
            let path = output.unwrap_or_else(|| PathBuf::from("-"));
            write_atomic(&path, &data)?;
        }
    }
    Ok(Outcome::Success)
}

/// The decoded map as JSON, with addresses as `"0x…"` strings (which `encode` reads back):
/// integers above 2^53 do not survive JSON readers such as `jq` and JavaScript.
fn hex_addresses(map: &DecodedMap) -> Value {
    let mut value = serde_json::to_value(map).unwrap_or(Value::Null);
    let images = value.get_mut("images").and_then(Value::as_array_mut);
    for image in images.into_iter().flatten() {
        for key in ["base", "end_of_text"] {
            if let Some(field) = image.get_mut(key) {
                if let Some(n) = field.as_u64() {
                    *field = Value::String(hex(n));
                }
            }
        }
    }
    value
}

fn mode(swift: bool) -> EncodeMode {
    if swift {
        EncodeMode::Swift
    } else {
        EncodeMode::Canonical
    }
}

fn to_base64(bytes: &[u8]) -> Result<String, Error> {
    let mut text = vec![0u8; base64_encoded_len(bytes.len())];
    let n = base64_encode(bytes, &mut text)?;
    text.truncate(n);
    Ok(String::from_utf8(text).unwrap_or_default())
}

/// The CIF bytes of an input: raw streams start with the info byte (0x00..=0x02), which
/// is never a base64 character; anything else is read as base64 text.
fn raw_cif(data: &[u8], name: &str) -> Result<Vec<u8>, Error> {
    let first = data.iter().find(|b| !b.is_ascii_whitespace());
    if !first.is_some_and(|&b| symblob::cif::is_base64_char(b)) {
        return Ok(data.to_vec());
    }
    let mut out = vec![0u8; base64_decoded_len_max(data.len())];
    let n = base64_decode(data, &mut out).map_err(|e| {
        Error::malformed(
            name,
            Location::Offset(e.offset),
            format!("base64 text: {}", e.kind),
        )
    })?;
    out.truncate(n);
    Ok(out)
}

/// The table `symblob cif decode` prints: one line per image.
fn table(map: &DecodedMap) -> String {
    use std::fmt::Write as _;
    let digits = (map.word_size / 4) as usize;
    let mut s = String::new();
    let _ = writeln!(
        s,
        "platform: {}",
        map.platform.as_deref().unwrap_or("(none: older layout)")
    );
    let _ = writeln!(s, "word size: {} bits", map.word_size);
    let _ = writeln!(s, "images: {}", map.images.len());
    let _ = writeln!(
        s,
        "{:<w$}  {:<w$}  {:<40}  path",
        "base",
        "end of text",
        "build id",
        w = digits + 2
    );
    for img in &map.images {
        let id = img.build_id.as_deref().map_or_else(
            || "-".to_owned(),
            |b| b.iter().map(|x| format!("{x:02x}")).collect(),
        );
        let path = match (&img.path, &img.path_error) {
            (Some(p), _) => p.clone(),
            (None, Some(e)) => format!("(unreadable path: {e})"),
            (None, None) => "-".to_owned(),
        };
        let _ = writeln!(
            s,
            "{:#0w$x}  {:#0w$x}  {id:<40}  {path}",
            img.base,
            img.end_of_text,
            w = digits + 2
        );
    }
    if map.trailing_bytes > 0 {
        let _ = writeln!(s, "({} trailing bytes ignored)", map.trailing_bytes);
    }
    s
}
