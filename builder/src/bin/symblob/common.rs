//! Helpers shared by the subcommands: reading files and address arguments.

use std::io::{BufRead, Read};

use std::path::Path;

use symblob_build::input::InputBytes;
use symblob_build::{Error, Location, Result};

/// Reads a whole file, or standard input for `-`.
pub fn read_input(path: &Path) -> Result<Vec<u8>> {
    if path == Path::new("-") {
        let mut buf = Vec::new();
        std::io::stdin()
            .read_to_end(&mut buf)
            .map_err(|e| Error::io("<stdin>", e))?;
        Ok(buf)
    } else {
        std::fs::read(path).map_err(|e| Error::io(path, e))
    }
}

/// Maps a file (or reads it when it cannot be mapped), or reads standard input for `-`.
pub fn map_input(path: &Path) -> Result<InputBytes> {
    if path == Path::new("-") {
        return read_input(path).map(InputBytes::Read);
    }
    symblob_build::input::open(path)
}

/// Parses an address as `addr2line` takes it: hexadecimal, with or without `0x`.
pub fn parse_address(text: &str, input: &str, at: Location) -> Result<u64> {
    let t = text.trim();
    let digits = t
        .strip_prefix("0x")
        .or_else(|| t.strip_prefix("0X"))
        .unwrap_or(t);
    u64::from_str_radix(digits, 16)
        .map_err(|_| Error::input(input, at, format!("not a hexadecimal address: {t:?}")))
}

/// The addresses given on the command line, or, if there are none, those on standard
/// input, one per line (blank lines skipped), as `addr2line` reads them.
pub fn addresses(args: &[String]) -> Result<Vec<u64>> {
    if !args.is_empty() {
        return args
            .iter()
            .enumerate()
            .map(|(i, a)| parse_address(a, "argument", Location::Index(i as u64 + 1)))
            .collect();
    }
    let stdin = std::io::stdin();
    let mut out = Vec::new();
    for (n, line) in stdin.lock().lines().enumerate() {
        let line = line.map_err(|e| Error::io("<stdin>", e))?;
        if line.trim().is_empty() {
            continue;
        }
        out.push(parse_address(
            &line,
            "<stdin>",
            Location::Line(n as u64 + 1),
        )?);
    }
    Ok(out)
}
