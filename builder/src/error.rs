//! The one error type of the builder.

use std::fmt;
use std::io;
use std::path::PathBuf;

use crate::input::FileRole;

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
        /// What was wrong; empty when `source` says it all (a typed error of this
        /// crate, such as [`NameError`](crate::model::NameError) or
        /// [`LineError`](crate::text::LineError)).
        message: String,
        /// The error of the library that found it (object, gimli), also shown after the
        /// message.
        source: Option<BoxedSource>,
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
    /// An output is a file the build found and read by itself (a separate debug file, a
    /// split DWARF package or object, a supplementary file); nothing was written.
    FoundInput {
        /// The output path as given.
        output: PathBuf,
        /// The file read, by the path the build opened it by.
        input: PathBuf,
        /// What the file is to the build.
        role: FileRole,
        /// The ELF file it was read for.
        elf: PathBuf,
    },
}

/// The underlying error an [`Error::Input`] carries.
pub type BoxedSource = Box<dyn std::error::Error + Send + Sync + 'static>;

impl Error {
    /// An [`Error::Input`] for `input` at `at`.
    pub fn input(input: impl Into<String>, at: Location, message: impl Into<String>) -> Self {
        Error::Input {
            input: input.into(),
            at,
            message: message.into(),
            source: None,
        }
    }

    /// An [`Error::Input`] for `input` at `at` caused by `source`.
    pub fn input_caused(
        input: impl Into<String>,
        at: Location,
        message: impl Into<String>,
        source: impl Into<BoxedSource>,
    ) -> Self {
        Error::Input {
            input: input.into(),
            at,
            message: message.into(),
            source: Some(source.into()),
        }
    }

    /// An [`Error::Input`] for `input` at `at` that `source` (a typed error that says
    /// what was wrong) describes on its own.
    pub fn input_from(
        input: impl Into<String>,
        at: Location,
        source: impl Into<BoxedSource>,
    ) -> Self {
        Error::Input {
            input: input.into(),
            at,
            message: String::new(),
            source: Some(source.into()),
        }
    }

    /// The same error with the input of an [`Error::Input`] named `input` (other errors
    /// unchanged): for callers that gave the library a name of their own choosing.
    pub fn with_input(self, input: impl Into<String>) -> Self {
        match self {
            Error::Input {
                at,
                message,
                source,
                ..
            } => Error::Input {
                input: input.into(),
                at,
                message,
                source,
            },
            other => other,
        }
    }

    /// The input the error is about (a path, `<stdin>`, or what was given directly), if
    /// any.
    pub fn input_name(&self) -> Option<String> {
        match self {
            Error::Io { path, .. } => Some(path.display().to_string()),
            Error::Input { input, .. } => Some(input.clone()),
            _ => None,
        }
    }

    /// Where in the input the problem is ([`Location::Whole`] when nowhere more precise).
    pub fn location(&self) -> Location {
        match self {
            Error::Input { at, .. } => *at,
            Error::Blob(e) => Location::Offset(e.offset),
            _ => Location::Whole,
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
            Error::Input {
                input,
                at,
                message,
                source: None,
            } => write!(f, "{input}{at}: {message}"),
            Error::Input {
                input,
                at,
                message,
                source: Some(source),
            } if message.is_empty() => write!(f, "{input}{at}: {source}"),
            Error::Input {
                input,
                at,
                message,
                source: Some(source),
            } => write!(f, "{input}{at}: {message}: {source}"),
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
            Error::FoundInput {
                output,
                input,
                role,
                elf,
            } => write!(
                f,
                "output `{}` is `{}`, {role} read for `{}`: refusing to replace a file \
                 the build read",
                output.display(),
                input.display(),
                elf.display()
            ),
        }
    }
}

impl std::error::Error for Error {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            Error::Io { source, .. } => Some(source),
            Error::Blob(e) => Some(e),
            Error::Input {
                source: Some(source),
                ..
            } => Some(source.as_ref()),
            _ => None,
        }
    }
}

/// A problem found inside an input before the caller names the input: what was wrong
/// and the underlying error, if any. [`Problem::at`] makes it an [`Error::Input`].
#[derive(Debug)]
pub(crate) struct Problem {
    message: String,
    source: Option<BoxedSource>,
}

impl Problem {
    /// A problem described by `message` alone.
    pub(crate) fn new(message: impl Into<String>) -> Self {
        Problem {
            message: message.into(),
            source: None,
        }
    }

    /// A problem found by another library: `message` says what was being read.
    pub(crate) fn caused(message: impl Into<String>, source: impl Into<BoxedSource>) -> Self {
        Problem {
            message: message.into(),
            source: Some(source.into()),
        }
    }

    /// The [`Error::Input`] of this problem in `input` at `at`.
    pub(crate) fn at(self, input: impl Into<String>, at: Location) -> Error {
        Error::Input {
            input: input.into(),
            at,
            message: self.message,
            source: self.source,
        }
    }
}

impl From<String> for Problem {
    fn from(message: String) -> Self {
        Problem::new(message)
    }
}

impl From<&str> for Problem {
    fn from(message: &str) -> Self {
        Problem::new(message)
    }
}

impl fmt::Display for Problem {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.source {
            Some(source) if self.message.is_empty() => source.fmt(f),
            Some(source) => write!(f, "{}: {source}", self.message),
            None => f.write_str(&self.message),
        }
    }
}

impl std::error::Error for Problem {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match &self.source {
            Some(source) => Some(source.as_ref()),
            None => None,
        }
    }
}

impl From<symblob::Error> for Error {
    fn from(e: symblob::Error) -> Self {
        Error::Blob(e)
    }
}
