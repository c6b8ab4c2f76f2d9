//! The one error type of the builder: what went wrong ([`ErrorKind`]), in which input,
//! where in it (a [`Location`] and a section), and the error of the library that found
//! it.
//!
//! A caller matches on [`Error::kind`] and reads the place through [`Error::input`],
//! [`Error::location`] and [`Error::section`]; [`std::error::Error::source`] gives the
//! underlying error (the operating system's, `object`'s, `gimli`'s, the reader's). The
//! `Display` text is one line naming the input and the place, as the command line
//! prints it.

use std::borrow::Cow;
use std::fmt;
use std::io;
use std::path::{Path, PathBuf};

use crate::input::FileRole;

/// Result of a builder operation.
pub type Result<T, E = Error> = std::result::Result<T, E>;

/// The underlying error an [`Error`] carries (see [`std::error::Error::source`]).
pub type BoxedSource = Box<dyn std::error::Error + Send + Sync + 'static>;

/// What kind of problem an [`Error`] is: what a caller can act on.
///
/// More kinds may join; match with a wildcard arm.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum ErrorKind {
    /// Reading or writing a file failed; the source is the [`io::Error`] and the input
    /// the file's path.
    Io,
    /// An input breaks the rules of its format: a truncated or corrupt ELF file or DWARF
    /// section, a bad line of text, a malformed blob.
    Malformed,
    /// A well-formed input uses something the builder does not read: an object format
    /// other than ELF, an architecture, a compression type, a blob version.
    Unsupported,
    /// An input lacks what the operation needs: a section, a `.text` section for Go's
    /// table, the addresses of a restricted `/proc/kallsyms`.
    Missing,
    /// A value exceeds what an output format (or a buffer) can hold; see
    /// [`Error::limit`].
    Limit,
    /// A file given or found for another does not belong to it: a debug file or a
    /// supplementary file of another build.
    Mismatch,
    /// An output is a file the build reads; nothing was written. See [`Error::refusal`].
    OutputIsInput,
    /// A value the caller gave is not acceptable: an option, a FileID, records out of the
    /// order a writer needs, bytes of the wrong length for a section.
    InvalidArgument,
    /// A remote service refused a request or could not be reached.
    Remote,
}

/// The kind of a problem the reader found: a version or field size it does not know is
/// unsupported, a buffer too small a limit, anything else malformed.
impl From<symblob::ErrorKind> for ErrorKind {
    fn from(kind: symblob::ErrorKind) -> Self {
        match kind {
            symblob::ErrorKind::UnsupportedVersion(_) | symblob::ErrorKind::BadFieldSize(_) => {
                ErrorKind::Unsupported
            }
            symblob::ErrorKind::BufferTooSmall { .. } => ErrorKind::Limit,
            _ => ErrorKind::Malformed,
        }
    }
}

/// Where in an input a problem was found.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Location {
    /// Nowhere more precise than the input as a whole.
    Whole,
    /// A 1-based line number of a text input.
    Line(u64),
    /// A byte offset in a binary input.
    Offset(u64),
    /// An index into a table (a symbol, a range, an image).
    Index(u64),
}

impl fmt::Display for Location {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Location::Whole => Ok(()),
            Location::Line(n) => write!(f, ":{n}"),
            Location::Offset(o) => write!(f, " at offset {o:#x}"),
            Location::Index(i) => write!(f, " at entry {i}"),
        }
    }
}

/// A value beyond what an output format allows ([`ErrorKind::Limit`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct LimitExceeded {
    /// What overflowed (`"symbol count"`, `"blob size"`, …).
    pub what: &'static str,
    /// The value that was needed.
    pub value: u64,
    /// The largest value the format allows.
    pub limit: u64,
}

/// An output refused because it is a file the build reads ([`ErrorKind::OutputIsInput`]);
/// the file read is [`Error::input`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Refusal {
    /// The output path as given.
    pub output: PathBuf,
    /// For a file the build found and read by itself (a separate debug file, a split
    /// DWARF package or object, a supplementary file): what it is to the build and the
    /// ELF file it was read for. `None` for an input the caller named.
    pub found: Option<(FileRole, PathBuf)>,
}

/// Everything that can go wrong while building or writing a blob: a kind, the input, the
/// place in it and the underlying error.
///
/// ```
/// use symblob_build::ksym::InputOptions;
/// use symblob_build::text::parse_nm;
/// use symblob_build::{ErrorKind, Location};
///
/// let e = parse_nm(b"1000 T a\nzz T b\n", "in.map", &InputOptions::default()).unwrap_err();
/// assert_eq!(e.kind(), ErrorKind::Malformed);
/// assert_eq!(e.input(), Some(std::path::Path::new("in.map")));
/// assert_eq!(e.location(), Location::Line(2));
/// assert_eq!(e.to_string(), "in.map:2: bad address \"zz\"");
/// ```
pub struct Error(Box<Inner>);

/// The fields of an [`Error`], boxed so that a `Result` stays two words wide.
#[derive(Debug)]
struct Inner {
    kind: ErrorKind,
    /// The input's path or name; `None` until a caller names it.
    input: Option<PathBuf>,
    at: Location,
    section: Option<Cow<'static, str>>,
    /// What was wrong; empty when the source says it all.
    message: String,
    source: Option<BoxedSource>,
    detail: Detail,
}

/// The structured facts of the kinds that have some.
#[derive(Debug)]
enum Detail {
    None,
    Limit(LimitExceeded),
    Refusal(Refusal),
}

impl Error {
    /// An error of `kind` in `input` (a path, `<stdin>`, or a name the caller gave) at
    /// `at`; `message` says what was wrong.
    pub fn new(
        kind: ErrorKind,
        input: impl Into<PathBuf>,
        at: Location,
        message: impl Into<String>,
    ) -> Self {
        let mut e = Error::unnamed(kind, message);
        e.0.input = Some(input.into());
        e.0.at = at;
        e
    }

    /// An [`ErrorKind::Malformed`] error in `input` at `at`.
    pub fn malformed(input: impl Into<PathBuf>, at: Location, message: impl Into<String>) -> Self {
        Error::new(ErrorKind::Malformed, input, at, message)
    }

    /// An [`ErrorKind::Io`] error for the file at `path`.
    pub fn io(path: impl Into<PathBuf>, source: io::Error) -> Self {
        Error::new(ErrorKind::Io, path, Location::Whole, "").with_source(source)
    }

    /// An [`ErrorKind::Limit`] error: `what` needs `value`, more than `limit`.
    pub fn limit(what: &'static str, value: u64, limit: u64) -> Self {
        let mut e = Error::unnamed(
            ErrorKind::Limit,
            format!("{what} is {value}, more than the format's limit of {limit}"),
        );
        e.0.detail = Detail::Limit(LimitExceeded { what, value, limit });
        e
    }

    /// An [`ErrorKind::OutputIsInput`] error: `output` is the same file as the input
    /// `input` the caller named.
    pub fn same_file(output: impl Into<PathBuf>, input: impl Into<PathBuf>) -> Self {
        Error::refused(output.into(), input.into(), None)
    }

    /// An [`ErrorKind::OutputIsInput`] error: `output` is `input`, which the build found
    /// and read by itself as `role` for the ELF file `elf`.
    pub fn found_input(
        output: impl Into<PathBuf>,
        input: impl Into<PathBuf>,
        role: FileRole,
        elf: impl Into<PathBuf>,
    ) -> Self {
        Error::refused(output.into(), input.into(), Some((role, elf.into())))
    }

    fn refused(output: PathBuf, input: PathBuf, found: Option<(FileRole, PathBuf)>) -> Self {
        let mut e = Error::new(ErrorKind::OutputIsInput, input, Location::Whole, "");
        e.0.detail = Detail::Refusal(Refusal { output, found });
        e
    }

    /// An error found before the caller names the input (inside a parser that sees bytes
    /// only): [`Error::with_input`] names it.
    pub(crate) fn unnamed(kind: ErrorKind, message: impl Into<String>) -> Self {
        Error(Box::new(Inner {
            kind,
            input: None,
            at: Location::Whole,
            section: None,
            message: message.into(),
            source: None,
            detail: Detail::None,
        }))
    }

    /// The same error caused by `source`, the error of the library that found it; its
    /// text follows the message (or stands alone when the message is empty).
    pub fn with_source(mut self, source: impl Into<BoxedSource>) -> Self {
        self.0.source = Some(source.into());
        self
    }

    /// The same error with the facts of a limit its message states: `what` needs `value`,
    /// more than `limit` (see [`Error::limit_exceeded`]).
    pub(crate) fn with_limit_exceeded(
        mut self,
        what: &'static str,
        value: u64,
        limit: u64,
    ) -> Self {
        self.0.detail = Detail::Limit(LimitExceeded { what, value, limit });
        self
    }

    /// The same error placed in the section `section` of an object file.
    pub fn with_section(mut self, section: impl Into<Cow<'static, str>>) -> Self {
        self.0.section = Some(section.into());
        self
    }

    /// The same error placed at `at`.
    pub fn with_location(mut self, at: Location) -> Self {
        self.0.at = at;
        self
    }

    /// The same error about the input named `input`: for callers that gave the library
    /// bytes under a name of their own choosing. An error about a file the library opened
    /// by its path ([`ErrorKind::Io`], [`ErrorKind::OutputIsInput`]) keeps that path.
    pub fn with_input(mut self, input: impl Into<PathBuf>) -> Self {
        if !matches!(self.0.kind, ErrorKind::Io | ErrorKind::OutputIsInput) {
            self.0.input = Some(input.into());
        }
        self
    }

    /// What kind of problem this is.
    pub fn kind(&self) -> ErrorKind {
        self.0.kind
    }

    /// The input the error is about: a path, `<stdin>`, or the name the caller gave the
    /// bytes (`None` for an error of no input, such as a [`ErrorKind::Limit`] of an
    /// output).
    pub fn input(&self) -> Option<&Path> {
        self.0.input.as_deref()
    }

    /// Where in the input the problem is ([`Location::Whole`] when nowhere more precise).
    pub fn location(&self) -> Location {
        self.0.at
    }

    /// The section of an object file (ELF section, DWARF section) or of a blob the
    /// problem is in, when known.
    pub fn section(&self) -> Option<&str> {
        self.0.section.as_deref()
    }

    /// The value and the limit of an [`ErrorKind::Limit`] error.
    pub fn limit_exceeded(&self) -> Option<&LimitExceeded> {
        match &self.0.detail {
            Detail::Limit(l) => Some(l),
            _ => None,
        }
    }

    /// The refused output of an [`ErrorKind::OutputIsInput`] error.
    pub fn refusal(&self) -> Option<&Refusal> {
        match &self.0.detail {
            Detail::Refusal(r) => Some(r),
            _ => None,
        }
    }

    /// The operating system's error of an [`ErrorKind::Io`] error.
    pub fn io_error(&self) -> Option<&io::Error> {
        self.0.source.as_ref()?.downcast_ref()
    }

    /// The reader's error, when a blob read back or given as input is malformed.
    pub fn reader_error(&self) -> Option<&symblob::Error> {
        self.0.source.as_ref()?.downcast_ref()
    }
}

impl fmt::Debug for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.0.fmt(f)
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let e = &*self.0;
        if let Detail::Refusal(r) = &e.detail {
            return refusal_text(r, e.input.as_deref().unwrap_or(Path::new("")), f);
        }
        // Without an input the message (or the reader's error) places itself.
        if let Some(input) = &e.input {
            write!(f, "{}{}: ", input.display(), e.at)?;
        }
        match &e.source {
            Some(source) if e.message.is_empty() => source.fmt(f),
            Some(source) => write!(f, "{}: {source}", e.message),
            None => f.write_str(&e.message),
        }
    }
}

fn refusal_text(r: &Refusal, input: &Path, f: &mut fmt::Formatter<'_>) -> fmt::Result {
    match &r.found {
        None => write!(
            f,
            "output `{}` is the same file as input `{}`: refusing to overwrite an input",
            r.output.display(),
            input.display()
        ),
        Some((role, elf)) => write!(
            f,
            "output `{}` is `{}`, {role} read for `{}`: refusing to replace a file the \
             build read",
            r.output.display(),
            input.display(),
            elf.display()
        ),
    }
}

impl std::error::Error for Error {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match &self.0.source {
            Some(source) => Some(source.as_ref()),
            None => None,
        }
    }
}

/// A malformed blob, placed at its offset in its section; the reader's error is the
/// source and says it all. Unnamed: [`Error::with_input`] names the blob.
impl From<symblob::Error> for Error {
    fn from(e: symblob::Error) -> Self {
        Error::unnamed(e.kind.into(), "")
            .with_location(Location::Offset(e.offset))
            .with_section(e.section)
            .with_source(e)
    }
}

// The kinds are checked against real bad inputs of the ksym and Lidia builders.
#[cfg(all(test, feature = "ksym", feature = "lidia"))]
mod tests;
