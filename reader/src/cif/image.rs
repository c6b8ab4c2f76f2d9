//! The encoder's inputs: an image and the encoding mode, shared by the encoder, its
//! prefix table and the `vlq7` writer.

/// Which bytes the encoder writes. Both modes decode to the same image map.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq, Hash)]
pub enum EncodeMode {
    /// Shortest counts, addresses computed modulo the word size.
    #[default]
    Canonical,
    /// The exact bytes Swift's encoder writes where its output is correct: redundant
    /// `0x80` count groups, 16/32-bit addresses sign-extended to 64 bits before
    /// subtracting. Expand codes ≥ 320 are still written correctly.
    Swift,
}

/// Encoder options.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq, Hash)]
pub struct EncodeOptions {
    /// Canonical or Swift-compatible output.
    pub mode: EncodeMode,
}

impl EncodeOptions {
    /// Options for `mode`.
    pub const fn new(mode: EncodeMode) -> Self {
        EncodeOptions { mode }
    }
}

/// One loaded image, borrowed from the caller.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq, Hash)]
pub struct Image<'a> {
    /// Path bytes (UTF-8 for decoders to accept them); `None` or empty for no path.
    pub path: Option<&'a [u8]>,
    /// Image name; `None` derives it from the path (the text after its last `/` or `\`).
    /// It only decides whether a macOS framework path can use the short `framewk` form.
    pub name: Option<&'a [u8]>,
    /// Build ID; `None` or empty for none (at most 1024 bytes).
    pub build_id: Option<&'a [u8]>,
    /// Lowest address of the image.
    pub base: u64,
    /// End of its text, above `base`.
    pub end_of_text: u64,
}

impl<'a> Image<'a> {
    /// An image with a path and no build ID.
    pub const fn new(path: &'a str, base: u64, end_of_text: u64) -> Self {
        Image {
            path: Some(path.as_bytes()),
            name: None,
            build_id: None,
            base,
            end_of_text,
        }
    }

    /// The same image with `build_id`.
    pub const fn with_build_id(mut self, build_id: &'a [u8]) -> Self {
        self.build_id = Some(build_id);
        self
    }
}

/// Whether `b` separates path components (`/` or `\`).
pub(crate) fn is_separator(b: u8) -> bool {
    b == b'/' || b == b'\\'
}

/// The text after the last `/` or `\` of `path` (all of it if there is none).
pub(crate) fn derived_name(path: &[u8]) -> &[u8] {
    match path.iter().rposition(|&b| is_separator(b)) {
        Some(cut) => path.get(cut.saturating_add(1)..).unwrap_or(&[]),
        None => path,
    }
}
