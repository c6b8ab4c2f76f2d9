//! The one error type of the builder.

use std::fmt;
use std::io;
use std::path::PathBuf;

/// Result of a builder operation.
pub type Result<T, E = Error> = std::result::Result<T, E>;

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

/// Everything that can go wrong while building or writing a blob.
#[derive(Debug)]
#[non_exhaustive]
pub enum Error {
    /// Reading or writing a file failed.
    Io {
        /// The file concerned.
        path: PathBuf,
        /// The underlying error.
        source: io::Error,
    },
    /// An input is malformed: `input` names it (a path, or `<stdin>`), `at` the place.
    Input {
        /// Name of the input (a path or `<stdin>`).
        input: String,
        /// Where in the input.
        at: Location,
        /// What was wrong.
        message: String,
    },
    /// A value exceeds what the output format can hold.
    Limit {
        /// What overflowed.
        what: &'static str,
        /// The value that was needed.
        value: u64,
        /// The largest value the format allows.
        limit: u64,
    },
    /// A blob read back (or given as input) is malformed.
    Blob(symblob::Error),
    /// An output is the same file as an input; nothing was written.
    SameFile {
        /// The output path as given.
        output: PathBuf,
        /// The input path as given.
        input: PathBuf,
    },
}

impl Error {
    /// An [`Error::Input`] for `input` at `at`.
    pub fn input(input: impl Into<String>, at: Location, message: impl Into<String>) -> Self {
        Error::Input {
            input: input.into(),
            at,
            message: message.into(),
        }
    }

    /// An [`Error::Io`] for `path`.
    pub fn io(path: impl Into<PathBuf>, source: io::Error) -> Self {
        Error::Io {
            path: path.into(),
            source,
        }
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Error::Io { path, source } => write!(f, "{}: {source}", path.display()),
            Error::Input { input, at, message } => write!(f, "{input}{at}: {message}"),
            Error::Limit { what, value, limit } => {
                write!(
                    f,
                    "{what} is {value}, more than the format's limit of {limit}"
                )
            }
            Error::Blob(e) => e.fmt(f),
            Error::SameFile { output, input } => write!(
                f,
                "output `{}` is the same file as input `{}`: refusing to overwrite an input",
                output.display(),
                input.display()
            ),
        }
    }
}

impl std::error::Error for Error {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            Error::Io { source, .. } => Some(source),
            Error::Blob(e) => Some(e),
            _ => None,
        }
    }
}

impl From<symblob::Error> for Error {
    fn from(e: symblob::Error) -> Self {
        Error::Blob(e)
    }
}
