//! Output files, written the way users expect of a Unix tool, and never at the cost of an
//! existing file.
//!
//! [`Output::create`] looks at what the path names and picks how to write it:
//!
//! * a regular file, or a path that does not exist: a temporary file in the same
//!   directory is written, flushed and renamed over the path, so readers never see a
//!   partial file and a failure leaves the old file as it was. The new file keeps an
//!   existing file's permission bits (and, where allowed, its owner and group); a new file
//!   gets `0666 & !umask`;
//! * a symbolic link: the link is resolved and its target written as above; the link
//!   stays a link;
//! * anything else (a FIFO, a character device, a socket), or the file that is standard
//!   output (`/dev/stdout`, even when the shell redirected it to a file): the bytes are
//!   written to it directly as they are produced; it is never replaced;
//! * `-`: standard output.
//!
//! [`build_outputs`] runs a build between the checks below and the moment its outputs
//! are put in place; every builder that writes files goes through it.
//!
//! [`refuse_same_file`] refuses an output that is the same file as an input (same device
//! and inode, whatever the path or link), before anything is written;
//! [`refuse_files_read`] does the same for the files a build found by itself (a debug
//! file, a split DWARF package or object, a supplementary file), once the build has opened
//! them and before its output is committed. Errors name the path the caller gave, never a
//! temporary name.

use std::fs::{self, File, Metadata, OpenOptions};
use std::io::{self, Write};
use std::os::fd::AsFd;
use std::os::unix::fs::{FileTypeExt, MetadataExt, PermissionsExt};
use std::os::unix::net::UnixStream;
use std::path::{Path, PathBuf};

use tempfile::{NamedTempFile, TempPath};

mod build;

pub use self::build::{build_outputs, Outputs};

use crate::input::{FileRole, FilesRead};
use crate::{Error, Result};

/// The path that stands for standard input or standard output.
const DASH: &str = "-";

/// Most symbolic links followed when resolving an output path (Linux's own limit).
const MAX_LINKS: usize = 40;

/// Writes `bytes` to `path` as [`Output::create`] describes: atomically for a regular file
/// (or a new one), directly for a FIFO, device or socket, to standard output for `-`.
pub fn write_atomic(path: &Path, bytes: &[u8]) -> Result<()> {
    Output::create(path)?.write_with(|w| w.write_all(bytes))
}

/// Like [`write_atomic`], but lets `fill` stream the contents.
pub fn write_atomic_with(
    path: &Path,
    fill: impl FnOnce(&mut dyn Write) -> io::Result<()>,
) -> Result<()> {
    Output::create(path)?.write_with(fill)
}

/// An output opened for writing: nothing the user can see changes until
/// [`write_with`](Output::write_with) succeeds for a regular file; dropping it unwritten
/// removes its temporary file.
#[derive(Debug)]
pub struct Output {
    /// The path as the caller gave it, for messages.
    path: PathBuf,
    sink: Sink,
}

#[derive(Debug)]
enum Sink {
    /// Standard output: `-`, or a path naming the same open file (`/dev/stdout`).
    Stdout,
    /// A temporary file renamed over `target` when complete.
    Replace {
        temp: NamedTempFile,
        target: PathBuf,
    },
    /// A FIFO or a device, opened for writing.
    Direct(File),
    /// A Unix stream socket, connected.
    Socket(UnixStream),
}

impl Output {
    /// Opens `path` for writing (see the [module docs](self)). A regular file's temporary
    /// file is created now, so that a missing directory or a read-only one is reported
    /// before any work; opening a FIFO waits for its reader, as any writer does.
    pub fn create(path: &Path) -> Result<Output> {
        let sink = open_sink(path).map_err(|e| Error::io(path, e))?;
        Ok(Output {
            path: path.to_path_buf(),
            sink,
        })
    }

    /// Lets `fill` write the contents, flushes them and, for a regular file, renames the
    /// temporary file over the target.
    pub fn write_with(self, fill: impl FnOnce(&mut dyn Write) -> io::Result<()>) -> Result<()> {
        self.stage(fill)?.commit()
    }

    /// Lets `fill` write the contents and flushes them, but leaves a regular file's
    /// temporary file where it is: [`Staged::commit`] renames it over the target, and
    /// dropping the [`Staged`] removes it. So several outputs can be written first and
    /// put in place together, only once all of them succeeded. Outputs written directly
    /// (standard output, a FIFO, a device, a socket) are complete when this returns.
    pub fn stage(self, fill: impl FnOnce(&mut dyn Write) -> io::Result<()>) -> Result<Staged> {
        let mut open = self.open();
        fill(open.writer()).map_err(|e| Error::io(&open.path, e))?;
        open.finish()
    }

    /// Starts writing: the writer stays open until [`Writing::finish`], so that several
    /// outputs can be written at once as their bytes are made.
    pub(crate) fn open(self) -> Writing {
        let sink = match self.sink {
            Sink::Stdout => WritingSink::Stdout(io::BufWriter::new(io::stdout().lock())),
            Sink::Direct(file) => WritingSink::Direct(io::BufWriter::new(file)),
            Sink::Socket(socket) => WritingSink::Socket(io::BufWriter::new(socket)),
            Sink::Replace { temp, target } => {
                WritingSink::Replace(io::BufWriter::new(temp), target)
            }
        };
        Writing {
            path: self.path,
            sink,
        }
    }
}

/// An output being written; see [`Output::open`].
#[derive(Debug)]
pub(crate) struct Writing {
    /// The path as the caller gave it, for messages.
    path: PathBuf,
    sink: WritingSink,
}

#[derive(Debug)]
enum WritingSink {
    Stdout(io::BufWriter<io::StdoutLock<'static>>),
    Direct(io::BufWriter<File>),
    Socket(io::BufWriter<UnixStream>),
    /// The temporary file and the file it replaces.
    Replace(io::BufWriter<NamedTempFile>, PathBuf),
}

impl Writing {
    /// The path as the caller gave it.
    pub(crate) fn path(&self) -> &Path {
        &self.path
    }

    /// Where the bytes go (buffered).
    pub(crate) fn writer(&mut self) -> &mut dyn Write {
        match &mut self.sink {
            WritingSink::Stdout(w) => w,
            WritingSink::Direct(w) => w,
            WritingSink::Socket(w) => w,
            WritingSink::Replace(w, _) => w,
        }
    }

    /// Flushes what is written; a regular file's temporary file stays where it is until
    /// [`Staged::commit`] (see [`Output::stage`]).
    pub(crate) fn finish(self) -> Result<Staged> {
        let path = self.path;
        let err = |e| Error::io(&path, e);
        let pending = match self.sink {
            WritingSink::Stdout(mut w) => w.flush().map(|()| None),
            WritingSink::Direct(mut w) => w.flush().map(|()| None),
            WritingSink::Socket(mut w) => w.flush().map(|()| None),
            // Closed now (the path alone removes it when dropped), so that many staged
            // outputs do not hold as many open files.
            WritingSink::Replace(w, target) => w
                .into_inner()
                .map_err(io::IntoInnerError::into_error)
                .map(|temp| Some((temp.into_temp_path(), target))),
        }
        .map_err(err)?;
        Ok(Staged { path, pending })
    }
}

/// An output written but not yet in place; see [`Output::stage`].
#[derive(Debug)]
pub struct Staged {
    /// The path as the caller gave it, for messages.
    pub(crate) path: PathBuf,
    /// The temporary file and the file it replaces; `None` when already written.
    pub(crate) pending: Option<(TempPath, PathBuf)>,
}

impl Staged {
    /// Renames the temporary file over the target (nothing to do for an output written
    /// directly).
    pub fn commit(self) -> Result<()> {
        match self.pending {
            Some((temp, target)) => temp
                .persist(&target)
                .map_err(|e| Error::io(&self.path, e.error)),
            None => Ok(()),
        }
    }
}

/// Decides how to write `path`.
fn open_sink(path: &Path) -> io::Result<Sink> {
    if path == Path::new(DASH) {
        return Ok(Sink::Stdout);
    }
    match fs::metadata(path) {
        // A new file, or a dangling link: create the file the link points to.
        Err(e) if e.kind() == io::ErrorKind::NotFound => replace(&resolve_links(path)?, None),
        Err(e) => Err(e),
        Ok(meta) if meta.is_dir() => Err(io::Error::new(
            io::ErrorKind::InvalidInput,
            "is a directory",
        )),
        // `/dev/stdout`, `/proc/self/fd/1`: the open file the shell set up, appending or
        // not, whatever it is.
        Ok(meta) if stdout_metadata().is_some_and(|out| same_file(&out, &meta)) => Ok(Sink::Stdout),
        Ok(meta) if meta.is_file() => {
            let target = resolve_links(path)?;
            match fs::metadata(&target) {
                Ok(resolved) if same_file(&resolved, &meta) => replace(&target, Some(&meta)),
                // The link names an open file rather than a path (`/proc/self/fd/N` of a
                // deleted or unreachable file): write through it.
                _ => open_direct(path, true),
            }
        }
        Ok(meta) => {
            if meta.file_type().is_socket() {
                UnixStream::connect(path).map(Sink::Socket)
            } else {
                open_direct(path, false)
            }
        }
    }
}

fn open_direct(path: &Path, truncate: bool) -> io::Result<Sink> {
    OpenOptions::new()
        .write(true)
        .truncate(truncate)
        .open(path)
        .map(Sink::Direct)
}

/// A temporary file beside `target`, with `existing`'s mode and owner, or `0666 & !umask`
/// (the kernel applies the umask to the mode asked for at creation).
fn replace(target: &Path, existing: Option<&Metadata>) -> io::Result<Sink> {
    let dir = match target.parent() {
        Some(d) if !d.as_os_str().is_empty() => d,
        _ => Path::new("."),
    };
    let temp = tempfile::Builder::new()
        .prefix(".symblob-")
        .permissions(fs::Permissions::from_mode(0o666))
        .tempfile_in(dir)
        .map_err(|e| {
            // tempfile names its temporary path in the message; the user never gave it.
            // The directory's own error is the clearest when it has one.
            fs::metadata(dir)
                .err()
                .unwrap_or_else(|| io::Error::from(e.kind()))
        })?;
    if let Some(meta) = existing {
        // Owner first: changing it may clear set-id bits, which the mode then restores.
        // Only root may give a file away; anyone else keeps the file as their own, as
        // editors and `sed -i` do.
        let _ = std::os::unix::fs::fchown(temp.as_file(), Some(meta.uid()), Some(meta.gid()));
        let mode = fs::Permissions::from_mode(meta.mode() & 0o7777);
        temp.as_file().set_permissions(mode)?;
    }
    Ok(Sink::Replace {
        temp,
        target: target.to_path_buf(),
    })
}

/// Follows the symbolic links of `path` (the last component only; directories in between
/// are resolved by the kernel) to the path they end at, which may not exist.
fn resolve_links(path: &Path) -> io::Result<PathBuf> {
    let mut current = path.to_path_buf();
    for _ in 0..MAX_LINKS {
        match fs::symlink_metadata(&current) {
            Ok(meta) if meta.file_type().is_symlink() => {
                let target = fs::read_link(&current)?;
                // A relative target is relative to the link's directory; `join` keeps an
                // absolute one as it is.
                current = match current.parent() {
                    Some(dir) => dir.join(target),
                    None => target,
                };
            }
            Ok(_) => return Ok(current),
            Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(current),
            Err(e) => return Err(e),
        }
    }
    Err(io::Error::new(
        io::ErrorKind::InvalidInput,
        "too many levels of symbolic links",
    ))
}

/// Refuses to go on when `output` is the same file as one of `inputs` (compared by device
/// and inode, so any path or link to it counts). `-` stands for standard output among the
/// outputs and for standard input among the inputs. Paths that do not exist yet cannot be
/// an input and pass.
pub fn refuse_same_file(output: &Path, inputs: &[&Path]) -> Result<()> {
    let Some(out) = identity(output, stdout_metadata) else {
        return Ok(());
    };
    for &input in inputs {
        if identity(input, stdin_metadata).is_some_and(|meta| same_file(&meta, &out)) {
            return Err(Error::same_file(output, input));
        }
    }
    Ok(())
}

/// Refuses to go on when `output` is one of the files a build read (`read`, as the
/// builders return it: the ELF and the files its DWARF build found by itself), compared
/// as [`refuse_same_file`] compares. Call it before the output is committed: a regular
/// file's [`Output`] dropped unwritten leaves nothing behind.
pub fn refuse_files_read(output: &Path, read: &FilesRead) -> Result<()> {
    let Some(out) = identity(output, stdout_metadata) else {
        return Ok(());
    };
    let read_file = read
        .as_slice()
        .iter()
        .find(|f| fs::metadata(&f.path).is_ok_and(|meta| same_file(&meta, &out)));
    match read_file {
        None => Ok(()),
        Some(f) => match (f.role, read.elf()) {
            (FileRole::Elf, _) | (_, None) => Err(Error::same_file(output, &f.path)),
            (role, Some(elf)) => Err(Error::found_input(output, &f.path, role, elf)),
        },
    }
}

/// Whether two outputs are the same file: the same path, the same existing file (by device
/// and inode, `-` being standard output), or, when they do not exist yet, the same name in
/// the same directory however it is spelled (`out`, `./out`, `dir/../out`).
pub fn same_output(a: &Path, b: &Path) -> bool {
    if a == b {
        return true;
    }
    match (identity(a, stdout_metadata), identity(b, stdout_metadata)) {
        (Some(x), Some(y)) => same_file(&x, &y),
        _ => resolved_name(a).is_some_and(|x| resolved_name(b) == Some(x)),
    }
}

/// `path` with its directory resolved (links, `.` and `..`); `None` for `-` or when the
/// directory does not exist.
fn resolved_name(path: &Path) -> Option<PathBuf> {
    if path == Path::new(DASH) {
        return None;
    }
    let dir = match path.parent() {
        Some(d) if !d.as_os_str().is_empty() => d,
        _ => Path::new("."),
    };
    Some(fs::canonicalize(dir).ok()?.join(path.file_name()?))
}

/// The metadata of the file `path` names (following links), with `-` meaning the standard
/// stream `dash` gives; `None` when there is none.
fn identity(path: &Path, dash: fn() -> Option<Metadata>) -> Option<Metadata> {
    if path == Path::new(DASH) {
        dash()
    } else {
        fs::metadata(path).ok()
    }
}

fn same_file(a: &Metadata, b: &Metadata) -> bool {
    a.dev() == b.dev() && a.ino() == b.ino()
}

fn stdout_metadata() -> Option<Metadata> {
    let fd = io::stdout().as_fd().try_clone_to_owned().ok()?;
    File::from(fd).metadata().ok()
}

fn stdin_metadata() -> Option<Metadata> {
    let fd = io::stdin().as_fd().try_clone_to_owned().ok()?;
    File::from(fd).metadata().ok()
}

/// Whether standard output is a regular file: then nothing reads it while it is written,
/// and line-by-line tools need not flush after every answer.
pub fn stdout_is_regular_file() -> bool {
    stdout_metadata().is_some_and(|m| m.is_file())
}
