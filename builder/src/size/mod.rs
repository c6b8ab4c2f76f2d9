//! SuperSize: Chromium's binary-size archives (`.size`, `.sizediff`) from any ELF file,
//! a loader for them, diffs and size reports.
//!
//! [`archive`] builds what SuperSize's ELF-only mode (`supersize archive --elf-file ELF
//! --no-map-file`) builds for the same file, from the model's listing of it and its
//! source paths ([`crate::pipeline::size::archive_elf`] reads the ELF); [`writer`] writes it as
//! SuperSize does (Python-identical JSON, deterministic gzip); [`loader`] reads files
//! written by either with SuperSize's consistency checks; [`diff`] matches two archives
//! and gives the sparse halves of a `.sizediff`; [`report`] prints tables people read;
//! [`html`] writes the viewer page people open in a browser.

pub mod archive;
pub mod diff;
pub mod gzip;
pub mod html;
pub mod json;
pub mod loader;
pub mod model;
pub mod paths;
pub mod report;
pub mod signature;
pub mod strip;
pub mod writer;

pub use archive::ArchiveOptions;
pub use loader::{load, Loaded};
pub use model::{SizeInfo, Symbol};

/// A `.sizediff` of two loaded archives, as `supersize save_diff` writes it.
pub fn sizediff_bytes(before: &SizeInfo, after: &SizeInfo) -> Vec<u8> {
    let delta = diff::diff(before, after);
    let (b, a) = diff::sparse_halves(before, after, &delta);
    writer::sizediff_file(&b, &a)
}
