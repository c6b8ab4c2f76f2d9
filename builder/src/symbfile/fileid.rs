//! FileID (spec §7): the first 16 bytes of SHA-256 over the first and last 4 KiB of a file
//! and its size as a big-endian u64.

use std::fmt;
use std::io::{Read, Seek, SeekFrom};
use std::path::Path;

use base64::engine::general_purpose::{STANDARD_NO_PAD, URL_SAFE_NO_PAD};
use base64::Engine;
use sha2::{Digest, Sha256};

use crate::{Error, ErrorKind, Location, Result};

/// Bytes hashed from each end.
const CHUNK: u64 = 4096;

/// A 128-bit FileID.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct FileId(pub [u8; 16]);

impl FileId {
    /// The FileID of a file's bytes. Files under 8 KiB hash some bytes twice, by design.
    pub fn of_bytes(data: &[u8]) -> Self {
        let head = &data[..data.len().min(CHUNK as usize)];
        let tail = &data[data.len().saturating_sub(CHUNK as usize)..];
        Self::from_parts(head, tail, data.len() as u64)
    }

    /// The FileID of the file at `path`, reading only its two ends.
    pub fn of_path(path: &Path) -> Result<Self> {
        let mut f = std::fs::File::open(path).map_err(|e| Error::io(path, e))?;
        let size = f.metadata().map_err(|e| Error::io(path, e))?.len();
        let n = size.min(CHUNK) as usize;
        let mut head = vec![0; n];
        let mut tail = vec![0; n];
        let io = |e| Error::io(path, e);
        f.read_exact(&mut head).map_err(io)?;
        f.seek(SeekFrom::Start(size - n as u64)).map_err(io)?;
        f.read_exact(&mut tail).map_err(io)?;
        Ok(Self::from_parts(&head, &tail, size))
    }

    fn from_parts(head: &[u8], tail: &[u8], size: u64) -> Self {
        let mut h = Sha256::new();
        h.update(head);
        h.update(tail);
        h.update(size.to_be_bytes());
        let digest = h.finalize();
        let mut id = [0; 16];
        id.copy_from_slice(&digest[..16]);
        FileId(id)
    }

    /// 32 lowercase hex digits.
    pub fn hex(&self) -> String {
        crate::hex::hex(&self.0)
    }

    /// The "ES" form: URL-safe base64 without padding (22 characters).
    pub fn es(&self) -> String {
        URL_SAFE_NO_PAD.encode(self.0)
    }

    /// Parses the hex form, or the ES form with or without padding, in the URL-safe or the
    /// standard alphabet (as the Go agent accepts).
    pub fn parse(text: &str) -> Result<Self> {
        let bad = || {
            Error::new(
                ErrorKind::InvalidArgument,
                "FileID",
                Location::Whole,
                format!("not a FileID: {text:?}"),
            )
        };
        let bytes = if text.len() == 32 && text.bytes().all(|b| b.is_ascii_hexdigit()) {
            (0..16)
                .map(|i| u8::from_str_radix(&text[2 * i..2 * i + 2], 16))
                .collect::<std::result::Result<Vec<u8>, _>>()
                .map_err(|_| bad())?
        } else {
            let t = text.trim_end_matches('=');
            URL_SAFE_NO_PAD
                .decode(t)
                .or_else(|_| STANDARD_NO_PAD.decode(t))
                .map_err(|_| bad())?
        };
        Ok(FileId(bytes.try_into().map_err(|_| bad())?))
    }
}

impl fmt::Display for FileId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.hex())
    }
}
