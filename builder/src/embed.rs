//! The post-link step of a kernel-style build: fill a program's reserved symbol section
//! with the ksym-bin blob of its own text symbols.
//!
//! A kernel or bootloader that wants to name its own addresses reserves a fixed-size,
//! zero-filled section (an immutable `#[used] #[link_section = ".ksyms"] static`), is
//! linked once, and then gets the blob written into that section. The section keeps its
//! size, so nothing moves and the stored addresses stay those of the running code. At run
//! time the program reads the section, and [`symblob::ksym::KsymBlob::used_size`] tells
//! where the blob ends inside the zero padding.
//!
//! * [`find_section`] locates the placeholder in the file and refuses a section without
//!   file contents (NOBITS), which no tool can fill;
//! * [`build_for_section`] builds the blob of the ELF's text symbols and pads it to the
//!   section's size, failing with both sizes when it does not fit;
//! * [`patch_section`] writes the bytes over the section in a file image (what
//!   `objcopy --update-section` does for a section of unchanged size);
//! * [`embed_ksyms`] does all of it for a file on disk.
//!
//! # Example: a post-link step
//!
//! ```no_run
//! use std::path::Path;
//! use symblob_build::embed::{embed_ksyms, EmbedOptions};
//! use symblob_build::ksym::Demangle;
//!
//! let mut options = EmbedOptions::default();
//! options.input.demangle = Demangle::Rust;
//! let kernel = Path::new("target/release/kernel");
//! let report = embed_ksyms(kernel, kernel, ".ksyms", &options)?;
//! eprintln!(
//!     "{} symbols, {} of {} bytes",
//!     report.stats.symbols, report.stats.blob_bytes, report.section.size
//! );
//! # Ok::<(), symblob_build::Error>(())
//! ```

use std::fs;
use std::ops::Range;
use std::path::Path;

use object::{BinaryFormat, Object, ObjectSection};

use crate::ksym::{
    BuildOptions, BuildStats, FormatVersion, InputOptions, LayoutKind, LongName, NameHash,
    WholeSearchNames,
};
use crate::output::write_atomic;
use crate::pipeline::ksym::build_from_elf;
use crate::{Error, ErrorKind, Location, Result};

/// Where a section lies in an ELF file and in memory.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SectionPlace {
    /// The section's name, e.g. `.ksyms`.
    pub name: String,
    /// Offset of the section's contents in the file.
    pub file_offset: u64,
    /// Size of the section in bytes (in the file and in memory).
    pub size: u64,
    /// The section's link-time address (`sh_addr`).
    pub address: u64,
}

impl SectionPlace {
    /// The section's bytes as a range of file offsets.
    pub fn file_range(&self) -> Range<u64> {
        self.file_offset..self.file_offset.saturating_add(self.size)
    }
}

/// How the blob is built: which symbols are kept, how names are stored, how many tokens.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct EmbedOptions {
    /// Symbol types and name demangling (default: every function symbol, as
    /// `symblob ksym build` keeps from an ELF file, names as in the ELF).
    pub input: InputOptions,
    /// Most name-prefix tokens (default: the format's maximum).
    pub max_tokens: usize,
    /// Names stored without a token because every name lookup compares them (see
    /// [`BuildOptions::whole_search_names`]).
    pub whole_search_names: WholeSearchNames,
    /// The framing (default sized, what the `ksym` crate 0.6 reads). In the sized layout
    /// `total_bytes` is the blob's length without the section's zero padding.
    pub layout: LayoutKind,
    /// The format (default v1; see [`BuildOptions::format_version`]). A v2 blob's
    /// `total_bytes` is likewise its length without the padding.
    pub format_version: FormatVersion,
}

impl Default for EmbedOptions {
    fn default() -> Self {
        EmbedOptions {
            input: InputOptions::default(),
            max_tokens: BuildOptions::default().max_tokens,
            whole_search_names: BuildOptions::default().whole_search_names,
            layout: BuildOptions::default().layout,
            format_version: FormatVersion::default(),
        }
    }
}

/// A blob sized for one section.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SectionBlob {
    /// The section it is meant for.
    pub section: SectionPlace,
    /// The blob followed by zeros, exactly `section.size` bytes long.
    pub bytes: Vec<u8>,
    /// Figures about the blob (`blob_bytes` is its used size).
    pub stats: BuildStats,
    /// The text ranges the reader should be given (see
    /// [`ElfSymbols::text_ranges`](crate::elf::ElfSymbols::text_ranges)).
    pub text_ranges: Vec<Range<u64>>,
    /// Names longer than the `ksym` crate's readers take ([`LongName::warning`]).
    pub long_names: Vec<LongName>,
}

/// What [`embed_ksyms`] did.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct EmbedReport {
    /// The section that was filled.
    pub section: SectionPlace,
    /// Figures about the blob.
    pub stats: BuildStats,
    /// The text ranges the reader should be given.
    pub text_ranges: Vec<Range<u64>>,
    /// Names longer than the `ksym` crate's readers take ([`LongName::warning`]).
    pub long_names: Vec<LongName>,
}

/// Finds the section `name` in the ELF image `elf`; `input` names the file in errors.
///
/// # Errors
///
/// [`ErrorKind::Malformed`] when `elf` is not an ELF file or the section's contents lie
/// outside the file, [`ErrorKind::Unsupported`] for another object format,
/// [`ErrorKind::Missing`] (with the section) when it has no section of that name or the
/// section has no contents in the file (NOBITS: a zero-initialised `static mut` or a
/// `.bss…` name).
pub fn find_section(elf: &[u8], input: &str, name: &str) -> Result<SectionPlace> {
    let missing = |message: String| {
        Error::new(ErrorKind::Missing, input, Location::Whole, message)
            .with_section(name.to_owned())
    };
    let file = object::File::parse(elf)
        .map_err(|e| Error::malformed(input, Location::Whole, "bad ELF file").with_source(e))?;
    if file.format() != BinaryFormat::Elf {
        return Err(Error::new(
            ErrorKind::Unsupported,
            input,
            Location::Whole,
            format!("not an ELF file ({:?})", file.format()),
        ));
    }
    let section = file
        .section_by_name(name)
        .ok_or_else(|| missing(format!("no section {name}")))?;
    let Some((file_offset, size)) = section.file_range() else {
        return Err(missing(format!(
            "section {name} has no contents in the file (NOBITS); reserve it with an \
             immutable static whose section name does not start with .bss"
        )));
    };
    let place = SectionPlace {
        name: name.to_owned(),
        file_offset,
        size,
        address: section.address(),
    };
    if place.file_range().end > elf.len() as u64 || size != section.size() {
        return Err(Error::malformed(
            input,
            Location::Offset(file_offset),
            format!(
                "section {name} ({size} bytes at file offset {file_offset:#x}) does not fit \
                 in the file of {} bytes",
                elf.len()
            ),
        )
        .with_section(name.to_owned()));
    }
    Ok(place)
}

/// Builds the ksym-bin blob of the text symbols of the ELF image `elf`, padded with zeros
/// to the size of its section `section`; `input` names the file in errors.
///
/// The blob is built from the file as it is, so the section may be empty or already filled
/// (filling it again gives the same bytes).
///
/// # Errors
///
/// The errors of [`find_section`] and [`build_from_elf`], and [`ErrorKind::Limit`] naming
/// the section and both sizes when the blob is larger than the section.
pub fn build_for_section(
    elf: &[u8],
    input: &str,
    section: &str,
    options: &EmbedOptions,
) -> Result<SectionBlob> {
    let place = find_section(elf, input, section)?;
    let build_options = BuildOptions {
        max_tokens: options.max_tokens,
        whole_search_names: options.whole_search_names,
        pad_to: None,
        layout: options.layout,
        format_version: options.format_version,
        name_hash: NameHash::default(),
    };
    let built = build_from_elf(elf, input, &options.input, &build_options)?;
    let mut bytes = built.blob.bytes;
    let needed = bytes.len() as u64;
    if needed > place.size {
        return Err(Error::new(
            ErrorKind::Limit,
            input,
            Location::Whole,
            format!(
                "the ksym blob of {} symbols needs {needed} bytes, but section {} holds only \
                 {} bytes; enlarge the placeholder",
                built.blob.stats.symbols, place.name, place.size
            ),
        )
        .with_limit_exceeded("ksym blob size", needed, place.size)
        .with_section(place.name));
    }
    // `place.size` is bounded by the file length, so it fits in usize.
    bytes.resize(place.size as usize, 0);
    let mut stats = built.blob.stats;
    stats.output_bytes = place.size;
    Ok(SectionBlob {
        section: place,
        bytes,
        stats,
        text_ranges: built.text_ranges,
        long_names: built.blob.long_names,
    })
}

/// Overwrites the contents of the section at `place` in the file image `elf` with `bytes`,
/// which must be exactly as long as the section.
///
/// # Errors
///
/// [`ErrorKind::InvalidArgument`] (input and section `section`) when the lengths differ or
/// the section lies outside `elf`.
pub fn patch_section(elf: &mut [u8], place: &SectionPlace, bytes: &[u8]) -> Result<()> {
    let fail = |message: String| {
        Error::new(
            ErrorKind::InvalidArgument,
            &place.name,
            Location::Whole,
            message,
        )
        .with_section(place.name.clone())
    };
    if bytes.len() as u64 != place.size {
        return Err(fail(format!(
            "{} bytes given for a section of {} bytes",
            bytes.len(),
            place.size
        )));
    }
    let range = place.file_range();
    let file_len = elf.len();
    let target = usize::try_from(range.start)
        .ok()
        .zip(usize::try_from(range.end).ok())
        .and_then(|(start, end)| elf.get_mut(start..end))
        .ok_or_else(|| {
            fail(format!(
                "file offsets {:#x}..{:#x} are outside the file of {} bytes",
                range.start, range.end, file_len
            ))
        })?;
    target.copy_from_slice(bytes);
    Ok(())
}

/// The whole post-link step: reads the ELF file `input`, builds the blob of its text
/// symbols for its section `section`, and writes the file with the section filled to
/// `output` (which may be `input`), atomically and with `input`'s permissions.
///
/// # Errors
///
/// [`ErrorKind::Io`] for the files, and the errors of [`build_for_section`]. On error
/// `output` is left as it was.
pub fn embed_ksyms(
    input: &Path,
    output: &Path,
    section: &str,
    options: &EmbedOptions,
) -> Result<EmbedReport> {
    let mut elf = fs::read(input).map_err(|e| Error::io(input, e))?;
    let permissions = fs::metadata(input)
        .map_err(|e| Error::io(input, e))?
        .permissions();
    let built = build_for_section(&elf, &input.display().to_string(), section, options)?;
    patch_section(&mut elf, &built.section, &built.bytes)?;
    write_atomic(output, &elf)?;
    // Give the result the input's mode (an executable stays executable), whatever the
    // output's own mode was; a pipe, a device or standard output keeps its own.
    if fs::metadata(output).is_ok_and(|m| m.is_file()) {
        fs::set_permissions(output, permissions).map_err(|e| Error::io(output, e))?;
    }
    Ok(EmbedReport {
        section: built.section,
        stats: built.stats,
        text_ranges: built.text_ranges,
        long_names: built.long_names,
    })
}
