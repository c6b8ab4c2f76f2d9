//! Helpers shared by the subcommands: inputs, numbers as users write them, standard output.

use std::io::{self, Read, Write};
use std::path::Path;

use serde::Serialize;
use symblob_build::input::InputBytes;
use symblob_build::Error;

/// Why a command failed: an error of the library, or a message of the command line's own.
#[derive(Debug)]
pub enum Failure {
    /// An error of the builder library (it names the file and the place).
    Build(Error),
    /// A complete one-line message.
    Message(String),
}

impl From<Error> for Failure {
    fn from(e: Error) -> Self {
        Failure::Build(e)
    }
}

impl std::fmt::Display for Failure {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Failure::Build(e) => e.fmt(f),
            Failure::Message(m) => f.write_str(m),
        }
    }
}

/// The result of a command-line step.
pub type Result<T, E = Failure> = std::result::Result<T, E>;

/// How a command ended when it did not fail outright.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Outcome {
    /// Everything was done.
    Success,
    /// Some inputs (lookup lines) were bad; each was reported and answered with a
    /// placeholder, and the run went on. The exit status is 1.
    SomeInputsBad,
}

/// How a path is named in messages: `<stdin>` for `-`.
pub fn display_name(path: &Path) -> String {
    if path == Path::new("-") {
        "<stdin>".into()
    } else {
        path.display().to_string()
    }
}

/// How an output path is named in messages: `<stdout>` for `-`.
pub fn output_name(path: &Path) -> String {
    if path == Path::new("-") {
        "<stdout>".into()
    } else {
        path.display().to_string()
    }
}

/// Reads a whole file, or standard input for `-`.
pub fn read_input(path: &Path) -> Result<Vec<u8>, Error> {
    if path == Path::new("-") {
        let mut buf = Vec::new();
        io::stdin()
            .read_to_end(&mut buf)
            .map_err(|e| Error::io("<stdin>", e))?;
        Ok(buf)
    } else {
        std::fs::read(path).map_err(|e| Error::io(path, e))
    }
}

/// Maps a file (or reads it when it cannot be mapped), or reads standard input for `-`.
pub fn map_input(path: &Path) -> Result<InputBytes, Error> {
    if path == Path::new("-") {
        return read_input(path).map(InputBytes::Read);
    }
    symblob_build::input::open(path)
}

/// Parses an address as `addr2line` takes it: hexadecimal, with or without `0x`.
pub fn parse_address(text: &str) -> std::result::Result<u64, String> {
    let t = text.trim();
    let digits = t
        .strip_prefix("0x")
        .or_else(|| t.strip_prefix("0X"))
        .unwrap_or(t);
    if t.is_empty() {
        return Err("empty, expected a hexadecimal address".into());
    }
    if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_hexdigit()) {
        return Err(format!("not a hexadecimal address: {t:?}"));
    }
    u64::from_str_radix(digits, 16).map_err(|_| format!("address {t:?} does not fit in 64 bits"))
}

/// [`parse_address`] of the usual line, read as bytes (ASCII blanks around up to 16 hex
/// digits, `0x` or not): `None` for anything else, which `parse_address` then judges.
/// A million lines piped in spent a tenth of their reading in the general path's UTF-8
/// check, trimming and digit scan.
pub fn plain_address(line: &[u8]) -> Option<u64> {
    let t = line.trim_ascii();
    let digits = t
        .strip_prefix(b"0x")
        .or_else(|| t.strip_prefix(b"0X"))
        .unwrap_or(t);
    if digits.is_empty() || digits.len() > 16 {
        return None;
    }
    digits.iter().try_fold(0u64, |value, &b| {
        let digit = char::from(b).to_digit(16)?;
        Some(value << 4 | u64::from(digit))
    })
}

/// Parses a load bias: a hexadecimal address, optionally negative (`-0x1000`); the
/// subtraction it stands for wraps modulo 2^64.
pub fn parse_bias(text: &str) -> std::result::Result<u64, String> {
    match text.trim().strip_prefix('-') {
        Some(rest) => parse_address(rest).map(u64::wrapping_neg),
        None => parse_address(text),
    }
}

/// Parses a size in bytes: decimal, or hexadecimal with `0x`.
pub fn parse_size(text: &str) -> std::result::Result<u64, String> {
    let t = text.trim();
    let parsed = match t.strip_prefix("0x").or_else(|| t.strip_prefix("0X")) {
        Some(hex) => u64::from_str_radix(hex, 16),
        None => t.parse(),
    };
    parsed.map_err(|_| format!("not a size: {t:?} (decimal or 0x hex)"))
}

/// An address or a size in JSON: a `"0x…"` string, which no JSON reader rounds.
pub fn hex(value: u64) -> String {
    format!("{value:#x}")
}

/// Standard output, buffered; errors are named `<stdout>`.
pub fn stdout() -> io::BufWriter<io::StdoutLock<'static>> {
    io::BufWriter::with_capacity(64 * 1024, io::stdout().lock())
}

/// An error writing standard output.
pub fn stdout_error(e: io::Error) -> Error {
    Error::io("<stdout>", e)
}

/// Writes `text` to standard output.
pub fn print(text: &str) -> Result<()> {
    let mut out = stdout();
    out.write_all(text.as_bytes())
        .and_then(|()| out.flush())
        .map_err(stdout_error)?;
    Ok(())
}

/// Prints `value` as indented JSON (for one-object outputs).
pub fn print_json(value: &impl Serialize) -> Result<()> {
    let mut text = serde_json::to_string_pretty(value)
        .map_err(|e| stdout_error(io::Error::new(io::ErrorKind::InvalidData, e)))?;
    text.push('\n');
    print(&text)
}

/// Writes `value` as one line of JSON Lines.
pub fn write_json_line(out: &mut dyn Write, value: &impl Serialize) -> io::Result<()> {
    serde_json::to_writer(&mut *out, value)?;
    out.write_all(b"\n")
}

/// Whether `e` is a write to a pipe whose reader has gone (`… | head -1`): the reader has
/// all it wanted, so the command ends quietly and successfully, as ripgrep does.
pub fn is_closed_pipe(e: &Failure) -> bool {
    matches!(e, Failure::Build(e) if e.io_error().is_some_and(|io| io.kind() == io::ErrorKind::BrokenPipe))
}

#[cfg(test)]
mod tests {
    use super::{parse_address, plain_address};

    #[test]
    fn plain_address_agrees_with_parse_address_where_it_answers() {
        let lines = [
            "0x1234\n",
            "1234",
            "  0XABCdef \r\n",
            "0xffffffffffffffff",
            "0x10000000000000000",
            "00000000000000001",
            "0x",
            "",
            "\n",
            "0x12 34",
            "g12",
            "0x-1",
            "\u{b}12\n",
            "\u{a0}0x12",
            "+12",
        ];
        let mut answered = 0;
        for line in lines {
            if let Some(addr) = plain_address(line.as_bytes()) {
                assert_eq!(parse_address(line), Ok(addr), "{line:?}");
                answered += 1;
            }
        }
        assert_eq!(answered, 4);
    }
}
