//! Builds ksym-bin v1 blobs from nm, /proc/kallsyms, System.map text and ELF files.
//!
//! A ksym-bin v1 blob is a kallsyms-style table of text symbols (address, one type
//! character, name) that the `no_std` reader [`symblob::ksym`] turns back into
//! `name+0xoff/0xsize` and answers name lookups from. This module reads symbol lists,
//! orders them, picks name-prefix tokens and writes the exact v1 layout, sized (the `ksym`
//! crate 0.6's framing, the default) or plain (0.3–0.5), see [`LayoutKind`].
//!
//! # Pipeline
//!
//! 1. **Input**, from the sources ([`parse_nm`](crate::text::parse_nm),
//!    [`parse_kallsyms`](crate::text::parse_kallsyms), [`read_elf`](crate::elf::read_elf),
//!    or [`parse_input`](crate::text::parse_input) with
//!    [`detect_format`](crate::text::detect_format)): each gives a [`SymbolList`] of the
//!    symbols whose type passes the [`TypeFilter`] (by default the input's rule: `T` and
//!    `t` from text, every function symbol from an ELF file), with names validated and, if
//!    asked, demangled.
//! 2. **Build** ([`build`]): sorts, removes exact duplicates, selects tokens, encodes the
//!    records and lays out the segments. The result is a [`Built`] blob with [`BuildStats`].
//!
//! [`build_from_elf`](crate::pipeline::ksym::build_from_elf) (in the pipeline layer) does
//! both for an ELF file and also returns the ELF's text ranges, which a caller passes to
//! the reader.
//!
//! With [`BuildOptions::format_version`] set to [`FormatVersion::V2`], the build writes
//! ksym-bin v2 instead (`docs/formats/ksym-bin-v2.md`, module [`v2`]): the same input
//! rules and orders, names of any length, about a third of the bytes; the tokens, whole
//! search names and framing below are v1's.
//!
//! Nothing here prints or exits, so it can run in a `build.rs`. Every failure is an
//! [`Error`](crate::Error) naming the input and the line (text), the symbol index (lists
//! given directly) or the limit that was exceeded.
//!
//! # Input rules
//!
//! * **nm / System.map** (`nm -n`, with or without `-C`): `<hex address> <type> <name>`.
//!   The name is everything after the single space that follows the type, kept byte for
//!   byte (interior spaces included). Lines without an address (`U`, `w`, `v` undefined
//!   symbols, printed with a blank address column) are skipped, as are blank lines. A line
//!   ending in CR LF is read without its CR.
//! * **/proc/kallsyms**: the same, but a name ends at a TAB; `\t[module]` marks a module
//!   symbol, which v1 cannot represent: such lines are skipped and counted
//!   ([`SymbolList::skipped_module`]). An input whose addresses are all zero (the view an
//!   unprivileged reader gets) is refused.
//! * **ELF** (`.symtab`, else `.dynsym`): `STT_FUNC`, `STT_GNU_IFUNC` and named
//!   `STT_NOTYPE` symbols defined in an executable (`SHF_EXECINSTR`) section; type `i`
//!   (ifunc), else `T` (global), `t` (local), `W` (weak) or `u` (unique), as binutils `nm`
//!   assigns them. Undefined, absolute, section and file symbols and `.L` locals are
//!   skipped. The default [`TypeFilter`] keeps all of them, so that lookups answer as `nm`
//!   and `addr2line -f` do (a weak `malloc_stats` is not answered as the function before
//!   it); given types (`"Tt"`, the kernel's rule) apply to ELF input too.
//! * Everywhere: mapping symbols (`$x`, `$a`, `$t`, `$d`, alone or followed by `.` and
//!   anything) are dropped by that exact rule, and only types the [`TypeFilter`] keeps
//!   are kept; [`SymbolList`] counts what each rule dropped, by type.
//! * A kept name must be non-empty, valid UTF-8, free of NUL and CR, and at most 65,535
//!   bytes long (after demangling). Anything else is an error; names are never truncated
//!   or repaired.
//!
//! # Name normalisation (what `lookup_name` matches)
//!
//! By default names are stored **exactly as given**. With [`Demangle::Rust`], a name that
//! starts with `_ZN` (Rust legacy) or `_R` (Rust v0) and that `rustc-demangle` accepts is
//! replaced by its alternate form `{:#}`: the path without the `::h<hash>` suffix or crate
//! disambiguators, with a `.llvm.<n>` suffix dropped and other suffixes such as `.cold`
//! kept (`std::rt::lang_start.cold`). Names that do not parse, C++ `_ZN…` names among them,
//! are kept as they are. [`Demangle::RustAndCpp`] (what `symblob ksym build --demangle`
//! uses) applies the builders' common policy ([`crate::demangle`]): Rust names as above,
//! other `_Z…` names as binutils' `nm -C` writes them. A name lookup must then use the
//! demangled form.
//!
//! # Orders and tokens
//!
//! Symbols are sorted by (address, number of leading underscores, name bytes, input
//! position), so among aliases `startup_64` comes before `_stext`. Records equal in
//! address, type and name are kept once. The name table (`seqs`) is sorted by (name,
//! address, index), so the first of equal names has the lowest address.
//!
//! A name may start with one token from a table of at most 511 (ids 0..=510; id 511 is
//! never written, because the original reader misreads it). Tokens are chosen by their
//! real byte savings over a prefix trie of all names: any shared prefix that ends on a
//! UTF-8 character boundary is a candidate, not only the fixed lengths the original
//! generator tries, and every name uses the longest token that is a prefix of it. Tokens
//! that do not pay for their table entry are dropped, and the most used tokens get the
//! one-byte ids. The names that every name lookup compares first, those of the search's
//! first rounds, are then stored without a token ([`WholeSearchNames`]; by default as many
//! rounds as 1 % of the blob pays for). The output is byte-for-byte reproducible.
//!
//! # Example
//!
//! ```
//! use symblob_build::ksym::{build, BuildOptions, InputOptions};
//! use symblob_build::text::parse_nm;
//!
//! let text = b"0000000000001000 T _start\n0000000000001100 T do_fork\n";
//! let symbols = parse_nm(text, "example.map", &InputOptions::default())?;
//! let built = build(&symbols.symbols, &BuildOptions::default())?;
//! assert_eq!(built.stats.symbols, 2);
//! assert_eq!(built.bytes.len() as u64, built.stats.blob_bytes);
//! # Ok::<(), symblob_build::Error>(())
//! ```

mod build;
mod encode;
pub mod model;
mod order;
mod tokens;
pub mod v2;
mod whole;

pub use crate::model::{Demangle, InputOptions, Symbol, SymbolList, TypeFilter};
pub use build::{build, BuildOptions, BuildStats, Built, FormatVersion, LongName};
pub use symblob::ksym::{LayoutKind, KSYM_NAME_LEN, MAX_PROBE_ROUNDS};
pub use tokens::MAX_TOKENS;
pub use v2::{NameHash, SegmentSizes};
pub use whole::{WholeSearchNames, AUTO_BUDGET_PERCENT};

/// The token id the builder never writes: its long form `FF 01 FF FF` is misread by the
/// original reader.
pub(crate) const RESERVED_TOKEN_ID: u16 = 511;

/// `align(x, a)`: the smallest multiple of `a` (a power of two) that is ≥ `x`, or `None`
/// on overflow (spec section 3.1 pads segments to it).
pub(crate) const fn align_up(x: u64, a: u64) -> Option<u64> {
    match x.checked_add(a.wrapping_sub(1)) {
        Some(v) => Some(v & !(a.wrapping_sub(1))),
        None => None,
    }
}
