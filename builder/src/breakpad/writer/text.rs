//! The `.sym` text as the writer makes it: in parts, formatted in parallel and written one
//! after the other, so that the text is never copied into one string on its way out.

use std::io::{self, Write};

/// A `.sym` file's text: the concatenation of its parts.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct SymText {
    parts: Vec<String>,
}

impl SymText {
    /// The text made of `parts`, in order.
    pub(crate) fn from_parts(parts: Vec<String>) -> Self {
        SymText { parts }
    }

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
