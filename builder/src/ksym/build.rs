//! The build step: symbols in, blob bytes and statistics out.

use symblob::ksym::{LayoutKind, KSYM_NAME_LEN};

use super::encode::encode;
use super::order::{order, Ordered};
use super::tokens::{select, MAX_TOKENS};
use super::v2::{self, NameHash, SegmentSizes};
use super::whole::{whole_ranks, WholeSearchNames};
use super::Symbol;
use crate::model::{check_name_bytes, check_name_length};
use crate::{Error, ErrorKind, Location, Result};

/// Which ksym-bin format a build writes.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum FormatVersion {
    /// ksym-bin v1 (`docs/formats/ksym-bin.md`): what the `ksym` crate reads, in the
    /// framing [`BuildOptions::layout`] chooses. The default.
    #[default]
    V1,
    /// ksym-bin v2 (`docs/formats/ksym-bin-v2.md`): front-coded names, block-packed
    /// addresses, bit-packed links; read by symblob's reader only.
    V2,
}

impl FormatVersion {
    /// The version number: 1 or 2.
    pub fn number(self) -> u8 {
        match self {
            FormatVersion::V1 => 1,
            FormatVersion::V2 => 2,
        }
    }
}

impl std::fmt::Display for FormatVersion {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "v{}", self.number())
    }
}

/// Options of the build step.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BuildOptions {
    /// The format to write (default [`FormatVersion::V1`]).
    pub format_version: FormatVersion,
    /// Most tokens to use (at most 511, the default; 0 writes every name raw). v1 only:
    /// a v2 build ignores it.
    pub max_tokens: usize,
    /// Append zeros up to this many bytes (a fixed-size section to fill with
    /// `objcopy --update-section`); the build fails if the blob is larger. In the sized
    /// layout `total_bytes` holds the blob's length without these zeros, which is what the
    /// `ksym` crate's `check_total_bytes` reports to cut them off.
    pub pad_to: Option<u64>,
    /// The framing: [`LayoutKind::Sized`] (default; what the `ksym` crate 0.6 reads) or
    /// [`LayoutKind::Plain`] (crate 0.3–0.5). v1 only: a v2 blob has one framing, and a
    /// v2 build ignores it.
    pub layout: LayoutKind,
    /// Which names are stored without a token because every name lookup compares them
    /// (default: as many search rounds as 1 % of the blob pays for). v1 only: a v2 build
    /// ignores it.
    pub whole_search_names: WholeSearchNames,
    /// Whether a v2 blob carries the name hash index (default [`NameHash::Auto`]: where
    /// names share long prefixes). v2 only: a v1 build ignores it.
    pub name_hash: NameHash,
}

impl Default for BuildOptions {
    fn default() -> Self {
        BuildOptions {
            format_version: FormatVersion::V1,
            max_tokens: MAX_TOKENS,
            pad_to: None,
            layout: LayoutKind::Sized,
            whole_search_names: WholeSearchNames::Auto,
            name_hash: NameHash::Auto,
        }
    }
}

/// Figures about a built blob. Where v1 and v2 differ, each field says what it counts in
/// v2; [`BuildStats::segments_v2`] has every v2 segment.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct BuildStats {
    /// The format written.
    pub format_version: FormatVersion,
    /// Symbols stored (N).
    pub symbols: u64,
    /// Input records dropped because they repeated another's address, type and name.
    pub duplicates_removed: u64,
    /// Tokens stored (K); in v2 the codes that stand for two bytes or more.
    pub tokens: u64,
    /// Sum of the stored names' lengths in bytes (without type or length bytes).
    pub raw_name_bytes: u64,
    /// Bytes before `num_syms`: 8 for `total_bytes` in the sized layout, 0 in the plain;
    /// in v2 the 48-byte header.
    pub header_bytes: u64,
    /// Bytes of the addresses, offsets and seqs tables (16 per symbol); in v2 those of
    /// `addr_blocks`, `addr_data`, `a2n`, `n2a` and the name hash index.
    pub table_bytes: u64,
    /// Bytes of the names segment (L), record headers included; in v2 the `names` stream.
    pub names_bytes: u64,
    /// Bytes of the token table (T); in v2 `token_bytes`, the code strings.
    pub token_table_bytes: u64,
    /// Bytes of the token index (4 per token); in v2 `token_ends` (512).
    pub token_index_bytes: u64,
    /// Records that start with a token with a one-byte id; in v2 name entries whose
    /// header is a shape index.
    pub short_refs: u64,
    /// Records that start with a token with a two-byte id; in v2 name entries with the
    /// escaped header.
    pub long_refs: u64,
    /// Search rounds whose names are stored without a token (see
    /// [`BuildOptions::whole_search_names`]).
    pub whole_search_rounds: u64,
    /// The blob's used size `E` (without `pad_to` padding).
    pub blob_bytes: u64,
    /// Length of the output, `pad_to` padding included.
    pub output_bytes: u64,
    /// The size of every segment of a v2 blob (`None` for v1).
    pub segments_v2: Option<SegmentSizes>,
}

impl BuildStats {
    /// Names segment bytes per raw name byte (the original generator reaches 1.053 on
    /// Linux text symbols); 0 when there are no names.
    pub fn names_ratio(&self) -> f64 {
        if self.raw_name_bytes == 0 {
            0.0
        } else {
            self.names_bytes as f64 / self.raw_name_bytes as f64
        }
    }
}

/// A built blob.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Built {
    /// The blob, followed by the `pad_to` zeros if asked for.
    pub bytes: Vec<u8>,
    /// Figures about it.
    pub stats: BuildStats,
    /// The layout it was written in.
    pub layout: LayoutKind,
    /// Stored names longer than the `ksym` crate's name buffer, in address order.
    pub long_names: Vec<LongName>,
}

/// A stored name longer than [`KSYM_NAME_LEN`] (4096) bytes: the `ksym` crate's readers
/// cut it there (so their `lookup_name` cannot find it); symblob's reader has no limit.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LongName {
    /// The symbol's address.
    pub address: u64,
    /// The name.
    pub name: String,
}

impl LongName {
    /// The warning to show: the symbol (its first 64 characters and its address) and its
    /// length.
    pub fn warning(&self) -> String {
        let shown: String = self.name.chars().take(64).collect();
        format!(
            "symbol {shown}… at {:#x} has a name of {} bytes; the ksym crate's readers cut \
             names at {KSYM_NAME_LEN} bytes (symblob reads it whole)",
            self.address,
            self.name.len()
        )
    }
}

/// Builds a ksym-bin blob in the format [`BuildOptions::format_version`] names from
/// `symbols` (any order; they are sorted per the [module docs](super), in both formats).
///
/// # Errors
///
/// * [`ErrorKind::InvalidArgument`] with input `symbols` and the symbol's index for a
///   name that is empty, not UTF-8, contains NUL or CR, or (v1 only: v2 has no such
///   limit) is longer than 65,535 bytes;
/// * [`ErrorKind::Limit`] when a count or segment exceeds the format's u32 fields, or the
///   blob is larger than `pad_to` ([`Error::limit_exceeded`] says which).
pub fn build(symbols: &[Symbol], options: &BuildOptions) -> Result<Built> {
    let v1 = options.format_version == FormatVersion::V1;
    for (i, sym) in symbols.iter().enumerate() {
        let at = Location::Index(i as u64);
        check_name_bytes(sym.name.as_bytes())
            .and_then(|name| if v1 { check_name_length(name) } else { Ok(()) })
            .map_err(|e| {
                Error::new(ErrorKind::InvalidArgument, "symbols", at, "").with_source(e)
            })?;
    }
    if symbols.len() as u64 >= 1 << 32 {
        return Err(Error::limit(
            "symbol count",
            symbols.len() as u64,
            u64::from(u32::MAX),
        ));
    }

    let ordered = order(symbols);
    let (bytes, stats, long_names) = match options.format_version {
        FormatVersion::V1 => build_v1(&ordered, options)?,
        FormatVersion::V2 => build_v2(&ordered, options.name_hash)?,
    };
    let (bytes, stats) = pad(bytes, stats, options.pad_to)?;
    Ok(Built {
        bytes,
        stats,
        layout: options.layout,
        long_names,
    })
}

/// Appends the `pad_to` zeros, failing when the blob is larger.
fn pad(
    mut bytes: Vec<u8>,
    mut stats: BuildStats,
    pad_to: Option<u64>,
) -> Result<(Vec<u8>, BuildStats)> {
    if let Some(size) = pad_to {
        if stats.blob_bytes > size {
            return Err(Error::limit("blob size", stats.blob_bytes, size));
        }
        let size = usize::try_from(size)
            .map_err(|_| Error::limit("pad-to size", size, usize::MAX as u64))?;
        bytes.resize(size, 0);
    }
    stats.output_bytes = bytes.len() as u64;
    Ok((bytes, stats))
}

/// Writes the v2 blob of `ordered`.
fn build_v2(
    ordered: &Ordered<'_>,
    name_hash: NameHash,
) -> Result<(Vec<u8>, BuildStats, Vec<LongName>)> {
    let encoded = v2::encode(&ordered.symbols, &ordered.seqs, name_hash)?;
    let z = encoded.sizes;
    let n = ordered.symbols.len() as u64;
    let stats = BuildStats {
        format_version: FormatVersion::V2,
        symbols: n,
        duplicates_removed: ordered.duplicates_removed,
        tokens: encoded.merged_codes,
        raw_name_bytes: ordered.symbols.iter().map(|s| s.name.len() as u64).sum(),
        header_bytes: z.header,
        table_bytes: z.addr_blocks + z.addr_data + z.a2n + z.n2a + z.hash_starts + z.hash_entries,
        names_bytes: z.names,
        token_table_bytes: z.token_bytes,
        token_index_bytes: z.token_ends,
        short_refs: n - encoded.escaped_entries,
        long_refs: encoded.escaped_entries,
        whole_search_rounds: 0,
        blob_bytes: encoded.bytes.len() as u64,
        output_bytes: encoded.bytes.len() as u64,
        segments_v2: Some(z),
    };
    // The `ksym` crate does not read v2, so its name-length limit does not concern it.
    Ok((encoded.bytes, stats, Vec::new()))
}

/// Writes the v1 blob of `ordered`, in the framing and with the tokens `options` ask for.
fn build_v1(
    ordered: &Ordered<'_>,
    options: &BuildOptions,
) -> Result<(Vec<u8>, BuildStats, Vec<LongName>)> {
    let names: Vec<&str> = ordered.symbols.iter().map(|s| s.name.as_str()).collect();
    let mut tokens = select(&names, &ordered.seqs, options.max_tokens);
    let mut whole_search_rounds = 0;
    if !tokens.table.is_empty() {
        let (whole, rounds) =
            whole_ranks(options.whole_search_names, &names, &ordered.seqs, &tokens);
        if rounds > 0 {
            tokens.store_whole(&ordered.seqs, &whole);
            whole_search_rounds = rounds;
        }
    }
    let encoded = encode(&ordered.symbols, &ordered.seqs, &tokens, options.layout)?;
    let long_names = ordered
        .symbols
        .iter()
        .filter(|s| s.name.len() > KSYM_NAME_LEN)
        .map(|s| LongName {
            address: s.address,
            name: s.name.clone(),
        })
        .collect();

    let n = ordered.symbols.len() as u64;
    let blob_bytes = encoded.bytes.len() as u64;
    let stats = BuildStats {
        format_version: FormatVersion::V1,
        symbols: n,
        duplicates_removed: ordered.duplicates_removed,
        tokens: tokens.table.len() as u64,
        raw_name_bytes: names.iter().map(|s| s.len() as u64).sum(),
        table_bytes: 16 * n,
        header_bytes: options.layout.header_size() as u64,
        names_bytes: encoded.names_bytes,
        token_table_bytes: encoded.token_table_bytes,
        token_index_bytes: 4 * tokens.table.len() as u64,
        short_refs: encoded.short_refs,
        long_refs: encoded.long_refs,
        whole_search_rounds: whole_search_rounds as u64,
        blob_bytes,
        output_bytes: blob_bytes,
        segments_v2: None,
    };
    Ok((encoded.bytes, stats, long_names))
}
