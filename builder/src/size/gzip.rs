//! Deterministic single-member gzip, compressed on every core.
//!
//! The text is cut into fixed-size chunks that are deflated in parallel, each primed
//! with the 32 KiB before it as its dictionary (so matches reach back across the cut as
//! in one serial stream) and ended with a sync flush, which leaves the stream
//! byte-aligned; the last chunk finishes the stream. The chunks' bytes concatenate into
//! one valid deflate stream inside one gzip member, as SuperSize's loaders require (spec
//! §1: Caspian sizes its buffer from the single trailer). The chunk size is fixed, not
//! derived from the number of cores, so the bytes are the same on every machine.

use flate2::{Compress, Compression, Crc, FlushCompress, Status};
use rayon::prelude::*;

/// Bytes of text per independently deflated chunk.
const CHUNK: usize = 1 << 20;
/// Deflate's window: how far back a match can reach, so how much dictionary helps.
const WINDOW: usize = 32 * 1024;

/// The gzip header Python's `GzipFile(filename='', mtime=0)` writes at its default level:
/// no flags, mtime 0, XFL 2, OS 255 (spec §1). Kept at every level so the header is one
/// constant; XFL is advisory and no reader looks at it.
const HEADER: [u8; 10] = [0x1f, 0x8b, 0x08, 0x00, 0, 0, 0, 0, 0x02, 0xff];

/// `text` gzipped at `level` (0-9) as one member with the header above.
pub fn gzip(text: &[u8], level: u32) -> Vec<u8> {
    let level = Compression::new(level.min(9));
    let chunk_count = text.len().div_ceil(CHUNK).max(1);
    let pieces: Vec<(Vec<u8>, Crc)> = (0..chunk_count)
        .into_par_iter()
        .map(|i| {
            let start = i * CHUNK;
            let end = (start + CHUNK).min(text.len());
            let dictionary = &text[start.saturating_sub(WINDOW)..start];
            let last = i + 1 == chunk_count;
            let mut crc = Crc::new();
            crc.update(&text[start..end]);
            (
                deflate_chunk(&text[start..end], dictionary, last, level),
                crc,
            )
        })
        .collect();

    let body: usize = pieces.iter().map(|(p, _)| p.len()).sum();
    let mut out = Vec::with_capacity(HEADER.len() + body + 8);
    out.extend_from_slice(&HEADER);
    let mut crc = Crc::new();
    for (piece, piece_crc) in &pieces {
        out.extend_from_slice(piece);
        crc.combine(piece_crc);
    }
    out.extend_from_slice(&crc.sum().to_le_bytes());
    // ISIZE is the length modulo 2^32 (RFC 1952).
    out.extend_from_slice(&(text.len() as u32).to_le_bytes());
    out
}

/// Raw deflate of `chunk` primed with `dictionary`; sync-flushed unless `last`.
fn deflate_chunk(chunk: &[u8], dictionary: &[u8], last: bool, level: Compression) -> Vec<u8> {
    let mut compress = Compress::new(level, false);
    if !dictionary.is_empty() {
        // Setting a dictionary on a fresh raw stream cannot fail.
        let _ = compress.set_dictionary(dictionary);
    }
    let flush = if last {
        FlushCompress::Finish
    } else {
        FlushCompress::Sync
    };
    let mut out = Vec::with_capacity(chunk.len() / 2 + 1024);
    loop {
        // zlib's rule: call again while the output filled up, with the same flush.
        out.reserve(64 * 1024);
        let consumed = (compress.total_in() as usize).min(chunk.len());
        let status = compress.compress_vec(&chunk[consumed..], &mut out, flush);
        let done = match status {
            Ok(Status::StreamEnd) => true,
            Ok(_) => {
                !last && compress.total_in() as usize >= chunk.len() && out.len() < out.capacity()
            }
            // Only an inconsistent stream state errs, which these calls never create.
            Err(_) => true,
        };
        if done {
            break;
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Read;

    fn gunzip(data: &[u8]) -> Vec<u8> {
        // `bufread` reads the slice itself, so what is left of it after the first member
        // is exactly what follows that member's trailer.
        let mut d = flate2::bufread::GzDecoder::new(data);
        let mut out = Vec::new();
        d.read_to_end(&mut out).expect("valid gzip");
        assert!(d.into_inner().is_empty(), "exactly one member");
        out
    }

    fn sample(len: usize) -> Vec<u8> {
        // Text with long-range repeats across chunk boundaries and some noise.
        let mut x = 0x2545_f491_u32;
        (0..len)
            .map(|i| {
                x ^= x << 13;
                x ^= x >> 17;
                x ^= x << 5;
                if i % 7 == 0 {
                    b'a' + (x % 26) as u8
                } else {
                    b"symbol_name_\n"[i % 13]
                }
            })
            .collect()
    }

    #[test]
    fn round_trips_as_one_member_at_every_size_and_level() {
        for len in [0, 1, WINDOW, CHUNK - 1, CHUNK, CHUNK + 1, 3 * CHUNK + 12345] {
            let text = sample(len);
            // Every level on small inputs; two on large ones (unoptimised test builds).
            let levels: &[u32] = if len > CHUNK { &[1, 6] } else { &[0, 1, 6, 9] };
            for &level in levels {
                let gz = gzip(&text, level);
                assert_eq!(&gz[..10], &HEADER);
                assert_eq!(gunzip(&gz), text, "len {len} level {level}");
            }
        }
    }

    #[test]
    fn deterministic() {
        let text = sample(2 * CHUNK + 99);
        assert_eq!(gzip(&text, 6), gzip(&text, 6));
    }
}
