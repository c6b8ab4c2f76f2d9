//! Sources that read symblob's own formats back into the [model](crate::model), so that any
//! file symblob writes can be written again in another format (`symblob convert`).
//!
//! Each source reads one format through the `no_std` reader and knows nothing of any
//! writer:
//!
//! | format | gives |
//! |---|---|
//! | ksym-bin ([`ksym`]) | typed symbols with aliases, the blob's text ranges, and functions that end where the next symbol starts |
//! | Lidia ([`lidia`]) | functions with inlined calls, files and line rows, borrowed from the file |
//! | symbfile ([`symbfile`]) | the same from range records, and return pads |
//! | GSYM ([`gsym`]) | functions with inlined calls, files and line rows, that answer as LLVM 14's lookups |

#[cfg(feature = "breakpad")]
pub mod breakpad;
#[cfg(feature = "gsym")]
pub mod gsym;
#[cfg(feature = "ksym")]
pub mod ksym;
#[cfg(feature = "lidia")]
pub mod lidia;
#[cfg(any(feature = "gsym", feature = "breakpad"))]
mod rows;
#[cfg(feature = "symbfile")]
pub mod symbfile;

use crate::Error;

/// A reader error, named after the input it came from and placed at its offset.
fn reader_error(input: &str, e: symblob::Error) -> Error {
    Error::from(e).with_input(input)
}
