//! The `.sym` text as the writer makes it: in parts, formatted in parallel and handed on
//! one after the other, so that a file is written as it is made and the whole text is
//! never one string on its way out.

use std::io::{self, Write};

use crate::input::FilesRead;
use crate::output::Outputs;
use crate::Result;

/// Where the writer sends the `.sym` text, part by part, in order.
pub trait SymSink {
    /// Called once before the first part, with every file the build read: a sink
    /// writing a file refuses to write over one of them.
    ///
    /// # Errors
    ///
    /// The sink refuses to go on.
    fn files_read(&mut self, read: &FilesRead) -> Result<()> {
        let _ = read;
        Ok(())
    }

    /// Takes the next part of the text.
    ///
    /// # Errors
    ///
    /// The part could not be written.
    fn part(&mut self, text: String) -> Result<()>;
}

/// A `.sym` file's text held in memory: the concatenation of its parts.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct SymText {
    parts: Vec<String>,
}

impl SymText {
    /// Length of the text in bytes.
    pub fn len(&self) -> usize {
        self.parts.iter().map(String::len).sum()
    }

    /// Whether the text is empty.
    pub fn is_empty(&self) -> bool {
        self.parts.iter().all(String::is_empty)
    }

    /// Writes the text to `out`.
    ///
    /// # Errors
    ///
    /// The first error of `out`.
    pub fn write_to(&self, out: &mut dyn Write) -> io::Result<()> {
        self.parts
            .iter()
            .try_for_each(|part| out.write_all(part.as_bytes()))
    }

    /// The text as one string.
    pub fn into_string(self) -> String {
        let mut text = String::with_capacity(self.len());
        for part in self.parts {
            text.push_str(&part);
        }
        text
    }
}

impl SymSink for SymText {
    fn part(&mut self, text: String) -> Result<()> {
        self.parts.push(text);
        Ok(())
    }
}

/// The first output of a build run by [`crate::output::build_outputs`]: the files the
/// build read are refused as it asks, and each part is written as it comes.
impl SymSink for Outputs {
    fn files_read(&mut self, read: &FilesRead) -> Result<()> {
        self.refuse_files_read(read)
    }

    fn part(&mut self, text: String) -> Result<()> {
        self.write(0, |out| out.write_all(text.as_bytes()))
    }
}
