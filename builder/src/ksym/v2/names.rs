//! The names in name order (spec 4.4): front coding with restarts, the code table, the
//! shapes table, and the restart index.

use super::codes::{self, Codes};
use super::pack::push_uleb128;
use super::shapes::{Shapes, ESCAPE};
use crate::{Error, Result};

/// Everything that encodes the names.
pub(crate) struct Names {
    /// The code table and the encoded rests.
    pub codes: Codes,
    /// The shapes table.
    pub shapes: Shapes,
    /// The `names` stream (L bytes).
    pub stream: Vec<u8>,
    /// Per restart: the offset of its entry in `stream`.
    pub restart_pos: Vec<u64>,
    /// Per restart: the first 8 bytes of its name, zero-filled (8 bytes each).
    pub restart_keys: Vec<u8>,
    /// Entries whose header byte is [`ESCAPE`].
    pub escaped: u64,
}

/// Encodes `names` (in name order) with a restart every `restart` names.
pub(crate) fn encode(names: &[&[u8]], restart: usize) -> Result<Names> {
    // Exact LCP with the previous name (the search relies on it), 0 at a restart.
    let lcps: Vec<usize> = (0..names.len())
        .map(|k| {
            if k % restart == 0 {
                0
            } else {
                common_prefix(names[k - 1], names[k])
            }
        })
        .collect();
    let rests: Vec<&[u8]> = names.iter().zip(&lcps).map(|(n, &l)| &n[l..]).collect();
    let codes = codes::choose(&rests);
    let shapes = Shapes::choose(
        lcps.iter()
            .zip(&codes.encoded)
            .map(|(&l, e)| (l as u64, e.len() as u64)),
    );

    let mut stream = Vec::new();
    let mut restart_pos = Vec::with_capacity(names.len().div_ceil(restart));
    let mut restart_keys = Vec::with_capacity(8 * restart_pos.capacity());
    let mut escaped = 0;
    for (k, ((name, &lcp), enc)) in names.iter().zip(&lcps).zip(&codes.encoded).enumerate() {
        if k % restart == 0 {
            restart_pos.push(stream.len() as u64);
            let mut key = [0u8; 8];
            let head = name.len().min(8);
            key[..head].copy_from_slice(&name[..head]);
            restart_keys.extend_from_slice(&key);
        }
        let (lcp, count) = (lcp as u64, enc.len() as u64);
        match shapes.index(lcp, count) {
            Some(h) => stream.push(h),
            None => {
                // The escape's numbers are at most 5 ULEB128 bytes: below 2^32.
                for (what, v) in [("shared prefix length", lcp), ("codes of a name", count)] {
                    if v >= 1 << 32 {
                        return Err(Error::limit(what, v, u64::from(u32::MAX)));
                    }
                }
                stream.push(ESCAPE);
                push_uleb128(&mut stream, lcp);
                push_uleb128(&mut stream, count);
                escaped += 1;
            }
        }
        stream.extend_from_slice(enc);
    }
    Ok(Names {
        codes,
        shapes,
        stream,
        restart_pos,
        restart_keys,
        escaped,
    })
}

/// Length of the longest common prefix of `a` and `b`.
fn common_prefix(a: &[u8], b: &[u8]) -> usize {
    a.iter().zip(b).take_while(|(x, y)| x == y).count()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn front_codes_with_restarts_and_exact_lcp() {
        let names: Vec<&[u8]> = vec![b"abc", b"abd", b"abd", b"b", b"bcdefghijkl"];
        let n = encode(&names, 2).unwrap();
        assert_eq!(n.restart_pos.len(), 3);
        assert_eq!(n.restart_pos[0], 0);
        assert_eq!(&n.restart_keys[..8], b"abc\0\0\0\0\0");
        assert_eq!(&n.restart_keys[8..16], b"abd\0\0\0\0\0");
        assert_eq!(&n.restart_keys[16..], b"bcdefghi");
        // Entry 1 shares "ab"; entry 3 shares nothing with "abd"; equal names (rank 2 is
        // a restart here) would otherwise share all.
        let entries: Vec<(u64, usize)> = vec![(0, 3), (2, 3), (0, 3), (0, 1), (0, 11)];
        let mut pos = 0usize;
        for (k, (lcp, len)) in entries.into_iter().enumerate() {
            if k % 2 == 0 {
                assert_eq!(n.restart_pos[k / 2], pos as u64);
            }
            let h = n.stream[pos];
            let (l, count) = n.shapes.pairs[usize::from(h)];
            assert_eq!(u64::from(l), lcp);
            let expanded: usize = n.stream[pos + 1..pos + 1 + usize::from(count)]
                .iter()
                .map(|&c| n.codes.strings[usize::from(c)].len())
                .sum();
            assert_eq!(expanded, len - lcp as usize, "entry {k}");
            pos += 1 + usize::from(count);
        }
        assert_eq!(pos, n.stream.len());
    }

    #[test]
    fn equal_names_share_everything() {
        let names: Vec<&[u8]> = vec![b"x", b"dup", b"dup"];
        let n = encode(&names, 32).unwrap();
        // The last entry: lcp 3, no codes.
        let last = *n.stream.last().unwrap();
        assert_eq!(n.shapes.pairs[usize::from(last)], (3, 0));
    }
}
