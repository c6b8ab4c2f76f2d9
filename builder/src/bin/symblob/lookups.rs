//! The question-and-answer loop every lookup command shares: addresses from the arguments
//! or, one per line, from standard input; one answer per question, in order; answers
//! flushed before waiting for the next question when the output is read as it comes.
//!
//! Memory does not grow with the number of addresses: lines are read, answered (a chunk
//! at a time, on every core: [`answer_pool`]) and forgotten. A bad question (not an
//! address, an empty line, a line longer than [`MAX_LINE`]) is reported on standard error
//! with its line number and answered with the format's placeholder, so that answers stay
//! aligned with questions; the run goes on and ends with [`Outcome::SomeInputsBad`].

use std::io::{self, BufRead, BufReader, Read, Write};
use std::marker::PhantomData;
use std::path::{Path, PathBuf};

use clap::Args;

use symblob_build::Error;

use crate::answer_pool;
use crate::arriving::Arriving;
use crate::common::{
    parse_address, parse_bias, plain_address, stdout_error, write_json_line, Failure, Outcome,
    Result,
};

/// Longest line read as a question; anything longer cannot be an address.
pub const MAX_LINE: usize = 4096;

/// The options every lookup takes.
#[derive(Args, Clone, Copy, Debug, Default)]
pub struct LookupFlags {
    /// Load bias: the addresses given are runtime addresses, the file holds link-time
    /// ones, and each lookup uses ADDR − BIAS (hexadecimal; `-0x…` for a negative bias;
    /// modulo 2^64). For PIE and shared objects, ASLR, KASLR.
    #[arg(long, value_name = "BIAS", default_value = "0", value_parser = parse_bias, allow_hyphen_values = true)]
    pub bias: u64,
    /// Treat the addresses as return addresses, as in a backtrace: look up ADDR − 1, so
    /// that a call in the last instruction of a function is named after the caller.
    #[arg(long)]
    pub return_address: bool,
    /// Print one JSON object per address (JSON Lines), addresses as "0x…" strings.
    #[arg(long)]
    pub json: bool,
}

impl LookupFlags {
    /// The address to look up in the file for the question `addr`: bias removed, and one
    /// byte back for a return address (`None` for return address 0, which has no call
    /// before it).
    pub fn file_address(&self, addr: u64) -> Option<u64> {
        let stored = addr.wrapping_sub(self.bias);
        if self.return_address {
            stored.checked_sub(1)
        } else {
            Some(stored)
        }
    }
}

/// A format `FileLookup` reads.
pub trait LookupFormat: Send + Sync + 'static {
    /// How the help names the file.
    const FILE_HELP: &'static str;
}

/// The arguments of a lookup in one file of a known format (`lidia lookup`, `symbfile
/// lookup`).
#[derive(Args)]
pub struct FileLookup<F: LookupFormat> {
    #[arg(help = F::FILE_HELP)]
    file: PathBuf,
    /// Hexadecimal addresses (with or without 0x).
    #[arg(allow_negative_numbers = true)]
    addresses: Vec<String>,
    #[command(flatten)]
    flags: LookupFlags,
    #[arg(skip)]
    format: PhantomData<F>,
}

impl<F: LookupFormat> FileLookup<F> {
    /// Reads the file with `load` and answers the addresses with `answer_all`, which
    /// parses the bytes it is given.
    pub fn run(
        self,
        load: impl FnOnce(&Path) -> Result<Vec<u8>>,
        answer_all: impl FnOnce(&Path, &[u8], LookupFlags, &[String]) -> Result<Outcome>,
    ) -> Result<Outcome> {
        check_sources(&self.file, &self.addresses)?;
        let bytes = load(&self.file)?;
        answer_all(&self.file, &bytes, self.flags, &self.addresses)
    }
}

/// Refuses to read both the file and the addresses from standard input.
pub fn check_sources(file: &Path, addresses: &[String]) -> Result<()> {
    if file == Path::new("-") && addresses.is_empty() {
        return Err(Failure::Message(
            "the file is read from standard input, so the addresses must be arguments".into(),
        ));
    }
    Ok(())
}

/// An error of the file being queried, found while answering (a corrupt record of a file
/// decoded as it is searched), passed out of an answer as an `io::Error` so that [`run`]
/// reports it as the file's, not as a failed write to standard output.
pub fn input_error(e: Error) -> io::Error {
    io::Error::other(e)
}

/// The error of a failed answer: the file's error that [`input_error`] carries, else a
/// failed write to standard output.
fn answer_error(e: io::Error) -> Error {
    if !e.get_ref().is_some_and(|inner| inner.is::<Error>()) {
        return stdout_error(e);
    }
    let kind = e.kind();
    match e.into_inner().map(|inner| inner.downcast::<Error>()) {
        Some(Ok(input)) => *input,
        Some(Err(other)) => stdout_error(io::Error::new(kind, other)),
        None => stdout_error(kind.into()),
    }
}

/// What a format answers to a bad line, so that answers stay aligned with questions.
pub struct Placeholder {
    /// The text answer (`??` as addr2line prints it), newline included.
    pub text: &'static [u8],
    /// The JSON key that says "nothing found".
    pub key: &'static str,
    /// Its value.
    pub empty: serde_json::Value,
}

/// Answers each address of `args` (or, when there are none, of standard input) with
/// `answer`, and each bad line with `placeholder`, writing to standard output; on every
/// core ([`answer_pool`]).
pub fn run(
    args: &[String],
    flags: LookupFlags,
    placeholder: &Placeholder,
    answer: impl Fn(u64, &mut Vec<u8>) -> io::Result<()> + Sync,
) -> Result<Outcome> {
    answer_pool::run(
        args,
        flags,
        placeholder,
        || (),
        |(), addrs, text| addrs.iter().try_for_each(|&addr| answer(addr, text)),
    )
}

/// Good addresses handed to a format's answer at a time (see [`answer_pool::run`]).
pub const BATCH: usize = 64;

/// Reads the questions (the arguments, or when there are none the lines of standard
/// input) and hands each to `ask`, reporting bad ones on standard error; `ask(None)`
/// means "answer what is pending": it comes before waiting for input that has not
/// arrived (and the output is flushed then when somebody reads it as it comes) and at
/// the end. Standard output is flushed at the end.
pub fn drive(args: &[String], out: &mut dyn Write, ask: &mut Ask<'_>) -> Result<()> {
    if args.is_empty() {
        from_stdin(out, ask)?;
    } else {
        for (i, arg) in args.iter().enumerate() {
            let question = Question::parse(Line::Text(arg), Place::Argument(i + 1));
            ask(out, Some(question)).map_err(answer_error)?;
        }
    }
    ask(out, None).map_err(answer_error)?;
    out.flush().map_err(stdout_error)?;
    Ok(())
}

/// A question as [`drive`] hands it over.
pub enum Question<'a> {
    /// An address.
    Good(u64),
    /// A line that is not an address, already reported on standard error.
    Bad {
        /// The line (trimmed), or the start of a line too long.
        input: &'a str,
        /// What is wrong with it.
        error: String,
    },
}

impl<'a> Question<'a> {
    /// The question of `line`, reporting a bad one on standard error as from `place`.
    fn parse(line: Line<'a>, place: Place) -> Self {
        let (input, parsed) = match line {
            Line::Text(text) => (text.trim(), parse_address(text)),
            Line::TooLong(start) => (start, Err(format!("line longer than {MAX_LINE} bytes"))),
        };
        match parsed {
            Ok(addr) => Question::Good(addr),
            Err(error) => {
                note!("symblob: {place}: {error}");
                Question::Bad { input, error }
            }
        }
    }
}

/// Where a question came from, formatted only for a bad one.
#[derive(Clone, Copy)]
enum Place {
    /// The n-th argument, from 1.
    Argument(usize),
    /// The n-th line of standard input, from 1.
    Stdin(u64),
}

impl std::fmt::Display for Place {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Place::Argument(n) => write!(f, "argument {n}"),
            Place::Stdin(n) => write!(f, "<stdin>:{n}"),
        }
    }
}

/// A question as read.
enum Line<'a> {
    /// A whole line or argument.
    Text(&'a str),
    /// The start of a line longer than [`MAX_LINE`].
    TooLong(&'a str),
}

/// What [`drive`] does with a question (`None`: answer what is pending).
pub type Ask<'a> = dyn FnMut(&mut dyn Write, Option<Question<'_>>) -> io::Result<()> + 'a;

/// The standard-input half of [`drive`].
fn from_stdin(out: &mut dyn Write, ask: &mut Ask<'_>) -> Result<()> {
    let stdin_error = |e| symblob_build::Error::io("<stdin>", e);
    // Answers go to a file: nobody waits for them one by one.
    let interactive = !symblob_build::output::stdout_is_regular_file();
    let mut reader = BufReader::new(Arriving::stdin());
    let mut line = Vec::with_capacity(64);
    let mut number = 0u64;
    loop {
        // About to wait for input that has not arrived: answer what is pending, and let
        // the reader see every answer so far. Batches piped in at once are still answered
        // together and written in large blocks.
        if !reader.buffer().contains(&b'\n') && !reader.get_mut().has_arrived() {
            ask(out, None).map_err(answer_error)?;
            if interactive {
                out.flush().map_err(stdout_error)?;
            }
        }
        line.clear();
        let limit = MAX_LINE as u64 + 1;
        let n = (&mut reader)
            .take(limit)
            .read_until(b'\n', &mut line)
            .map_err(stdin_error)?;
        if n == 0 {
            return Ok(());
        }
        number += 1;
        let place = Place::Stdin(number);
        if line.last() != Some(&b'\n') && line.len() > MAX_LINE {
            skip_line(&mut reader).map_err(stdin_error)?;
            let start = String::from_utf8_lossy(&line[..32]);
            let question = Question::parse(Line::TooLong(&start), place);
            ask(out, Some(question)).map_err(answer_error)?;
            continue;
        }
        if let Some(addr) = plain_address(&line) {
            ask(out, Some(Question::Good(addr))).map_err(answer_error)?;
            continue;
        }
        let text = String::from_utf8_lossy(&line);
        ask(out, Some(Question::parse(Line::Text(&text), place))).map_err(answer_error)?;
    }
}

/// Reads up to and including the next newline, or to the end of the input.
fn skip_line(reader: &mut impl BufRead) -> io::Result<()> {
    loop {
        let buf = reader.fill_buf()?;
        if buf.is_empty() {
            return Ok(());
        }
        match buf.iter().position(|&b| b == b'\n') {
            Some(i) => {
                reader.consume(i + 1);
                return Ok(());
            }
            None => {
                let n = buf.len();
                reader.consume(n);
            }
        }
    }
}

/// The answer to a bad line: the format's text placeholder, or one JSON line with a null
/// `address`, the line, its error, and the format's key for "nothing found".
pub fn write_placeholder(
    out: &mut dyn Write,
    flags: LookupFlags,
    (input, error): (&str, &str),
    placeholder: &Placeholder,
) -> io::Result<()> {
    if !flags.json {
        return out.write_all(placeholder.text);
    }
    let mut answer = serde_json::json!({ "address": null, "input": input, "error": error });
    answer[placeholder.key] = placeholder.empty.clone();
    write_json_line(out, &answer)
}
