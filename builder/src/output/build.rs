//! The whole life of a build's outputs, in one place: every command and library function
//! that writes files from inputs goes through [`build_outputs`], so the output rules hold
//! the same way everywhere.

use std::io::{self, Write};
use std::path::{Path, PathBuf};

use super::{refuse_files_read, refuse_same_file, Output, Staged, Writing};
use crate::input::FilesRead;
use crate::{Error, Result};

/// The outputs of one build, opened for writing and not yet in place; see
/// [`build_outputs`].
#[derive(Debug)]
pub struct Outputs {
    /// The inputs named to [`build_outputs`], which no output added later may replace.
    inputs: Vec<PathBuf>,
    /// Every output, in the order given or added.
    outputs: Vec<Slot>,
    /// The files the build said it read, once it said so.
    read: Option<FilesRead>,
}

/// One output of a build.
#[derive(Debug)]
enum Slot {
    /// Being written.
    Open(Writing),
    /// Complete, waiting to be put in place with the others.
    Closed(Staged),
}

/// Runs one build that writes `outputs` from `inputs`, in the order the output rules ask:
///
/// 1. an output that is the same file as one of `inputs` is refused, before anything is
///    read or written ([`refuse_same_file`]);
/// 2. every output is opened ([`Output::create`]): a missing or read-only directory is
///    reported before any work;
/// 3. `build` runs. Once it has opened the files it found by itself (a debug file, split
///    DWARF, a supplementary file), and before it writes a byte, it hands their list to
///    [`Outputs::refuse_files_read`]; then it writes through [`Outputs::write`] or
///    [`Outputs::writer`], and may [`add`](Outputs::add) outputs it names as it goes;
/// 4. when `build` succeeded, the outputs are checked once more against the files it
///    read, flushed, and put in place together (a regular file's temporary file renamed
///    over it). When `build` or any step fails, no regular file is replaced and no
///    temporary file is left.
///
/// Returns what `build` returned. An output written directly (standard output, a FIFO,
/// a device, a socket) has its bytes as they were written, whatever happens after.
///
/// # Errors
///
/// An output is an input, cannot be created, written or renamed, or `build` failed (its
/// error as it returned it).
pub fn build_outputs<T, E: From<Error>>(
    inputs: &[&Path],
    outputs: &[&Path],
    build: impl FnOnce(&mut Outputs) -> Result<T, E>,
) -> Result<T, E> {
    for output in outputs {
        refuse_same_file(output, inputs)?;
    }
    let mut opened = Outputs {
        inputs: inputs.iter().map(|p| p.to_path_buf()).collect(),
        outputs: Vec::with_capacity(outputs.len()),
        read: None,
    };
    for path in outputs {
        let writing = Output::create(path)?.open();
        opened.outputs.push(Slot::Open(writing));
    }
    let value = build(&mut opened)?;
    opened.commit()?;
    Ok(value)
}

impl Outputs {
    /// Refuses to go on when an output is one of the files the build read (`read`, as
    /// the builders return it): call it once the build has opened them and before
    /// writing. A build that reads only the inputs named to [`build_outputs`] need not.
    pub fn refuse_files_read(&mut self, read: &FilesRead) -> Result<()> {
        for path in self.paths() {
            refuse_files_read(path, read)?;
        }
        self.read = Some(read.clone());
        Ok(())
    }

    /// Adds an output whose name the build learned as it went (the parts of a file cut
    /// as it grows), checked as the first ones were: not an input, not a file the build
    /// read. Returns its index.
    pub fn add(&mut self, path: &Path) -> Result<usize> {
        let inputs: Vec<&Path> = self.inputs.iter().map(PathBuf::as_path).collect();
        refuse_same_file(path, &inputs)?;
        if let Some(read) = &self.read {
            refuse_files_read(path, read)?;
        }
        let writing = Output::create(path)?.open();
        self.outputs.push(Slot::Open(writing));
        Ok(self.outputs.len() - 1)
    }

    /// Lets `fill` write output `index` (in the order given to [`build_outputs`], then
    /// added); an error names the output as it was given.
    ///
    /// # Errors
    ///
    /// `fill` failed, or the output was closed ([`Outputs::close`]).
    pub fn write(
        &mut self,
        index: usize,
        fill: impl FnOnce(&mut dyn Write) -> io::Result<()>,
    ) -> Result<()> {
        match self.outputs.get_mut(index) {
            Some(Slot::Open(output)) => {
                fill(output.writer()).map_err(|e| Error::io(output.path(), e))
            }
            _ => Err(not_open(index)),
        }
    }

    /// The buffered writer of output `index`, for a caller that names the output in its
    /// errors itself.
    ///
    /// # Errors
    ///
    /// The output was closed ([`Outputs::close`]).
    pub fn writer(&mut self, index: usize) -> Result<&mut dyn Write> {
        match self.outputs.get_mut(index) {
            Some(Slot::Open(output)) => Ok(output.writer()),
            _ => Err(not_open(index)),
        }
    }

    /// Flushes output `index` and closes it: it is put in place with the others when the
    /// build succeeds. A build writing many outputs one after another (parts) closes
    /// each when complete, so that they do not hold as many open files.
    pub fn close(&mut self, index: usize) -> Result<()> {
        let Some(slot) = self.outputs.get_mut(index) else {
            return Err(not_open(index));
        };
        let placeholder = Slot::Closed(Staged {
            path: PathBuf::new(),
            pending: None,
        });
        *slot = match std::mem::replace(slot, placeholder) {
            Slot::Open(writing) => Slot::Closed(writing.finish()?),
            closed @ Slot::Closed(_) => closed,
        };
        Ok(())
    }

    fn paths(&self) -> impl Iterator<Item = &Path> {
        self.outputs.iter().map(|slot| match slot {
            Slot::Open(writing) => writing.path(),
            Slot::Closed(staged) => staged.path.as_path(),
        })
    }

    /// The last check, then every output flushed and put in place, in order.
    fn commit(self) -> Result<()> {
        if let Some(read) = &self.read {
            for path in self.paths() {
                refuse_files_read(path, read)?;
            }
        }
        let staged = self
            .outputs
            .into_iter()
            .map(|slot| match slot {
                Slot::Open(writing) => writing.finish(),
                Slot::Closed(staged) => Ok(staged),
            })
            .collect::<Result<Vec<Staged>>>()?;
        staged.into_iter().try_for_each(Staged::commit)
    }
}

/// The error of writing an output that is not open: a mistake of the caller.
fn not_open(index: usize) -> Error {
    Error::io(
        format!("output {index}"),
        io::Error::new(io::ErrorKind::InvalidInput, "not an open output"),
    )
}
