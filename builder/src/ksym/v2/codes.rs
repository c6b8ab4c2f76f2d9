//! The code table (spec 4.1, 7): 256 codes, each standing for a string of 1 to 255 bytes,
//! and the encoding of every stored rest as a sequence of codes.
//!
//! The table starts with one code per byte value the rests use, numbered in byte order.
//! Every byte of a name is in some rest (a restart stores its name whole, and the shared
//! prefix of any other name comes from the name before it), so these make every name
//! writable. Then, as Linux's kallsyms does over whole names, the most frequent adjacent
//! pair of codes over all rests becomes a new code (numbered in merge order) until the 256
//! codes are used or no pair occurs twice. Pair counts live in a flat 256 × 256 array, so
//! a round is two passes over the (shrinking) sequence and no hashing.
//!
//! Merging is greedy and left to right, so the merged sequence of a rest is not the
//! shortest one the final table allows. The rests are therefore written by an optimal
//! parse: a dynamic program over positions that takes the fewest codes, using a trie of
//! the final strings.

/// The longest string a code may stand for (spec 4.1).
pub(crate) const MAX_CODE_LEN: usize = 255;

/// Number of codes (spec 4.1).
pub(crate) const NUM_CODES: usize = 256;

/// Marks the end of a rest in the merge sequence; never a code.
const SEP: u16 = u16::MAX;

/// The chosen table and the rests written with it.
pub(crate) struct Codes {
    /// `strings[c]`: the string of code `c`, for all 256 codes; empty when unused.
    pub strings: Vec<Vec<u8>>,
    /// Codes that stand for one byte (codes `0 .. byte_codes`; read by the tests).
    #[cfg_attr(not(test), allow(dead_code))]
    pub byte_codes: usize,
    /// Codes made by merging (strings of two bytes or more).
    pub merged_codes: usize,
    /// Every rest, in input order, as codes chosen by the optimal parse.
    pub encoded: Vec<Vec<u8>>,
}

/// Chooses the table for `rests` and writes every rest with it.
pub(crate) fn choose(rests: &[&[u8]]) -> Codes {
    let first = merge(rests);
    let byte_codes = first.byte_codes;
    let mut strings = first.strings;
    strings.truncate(byte_codes + first.merged_codes);
    let mut encoded = parse_all(&strings, rests);
    let mut cost = cost_of(&strings, &encoded);
    // Refinement: a merged code the optimal parse uses rarely (often one that only
    // served to build a longer one) holds a slot better spent on another pair. Drop
    // those, write the rests without them, merge again into the freed slots, and keep
    // the result while it costs fewer bytes (codes written plus code strings).
    for _ in 0..REFINE_ROUNDS {
        let mut uses = vec![0u64; strings.len()];
        for &c in encoded.iter().flatten() {
            uses[usize::from(c)] += 1;
        }
        let keep: Vec<Vec<u8>> = strings
            .iter()
            .zip(&uses)
            .enumerate()
            .filter(|&(c, (_, &u))| c < byte_codes || u >= MIN_USES)
            .map(|(_, (s, _))| s.clone())
            .collect();
        if keep.len() == strings.len() {
            break;
        }
        let mut candidate = keep;
        let mut seq = Vec::new();
        for codes in parse_all(&candidate, rests) {
            seq.extend(codes.iter().map(|&c| u16::from(c)));
            seq.push(SEP);
        }
        merge_loop(&mut candidate, &mut seq);
        let candidate_encoded = parse_all(&candidate, rests);
        let candidate_cost = cost_of(&candidate, &candidate_encoded);
        if candidate_cost >= cost {
            break;
        }
        (strings, encoded, cost) = (candidate, candidate_encoded, candidate_cost);
    }
    let merged_codes = strings.len() - byte_codes;
    strings.resize(NUM_CODES, Vec::new());
    Codes {
        strings,
        byte_codes,
        merged_codes,
        encoded,
    }
}

/// Most refinement rounds (each merges and parses everything again).
const REFINE_ROUNDS: usize = 4;

/// A merged code used fewer times than this by the optimal parse is dropped in a
/// refinement round.
const MIN_USES: u64 = 2;

/// Every rest in the fewest codes of `strings`.
fn parse_all(strings: &[Vec<u8>], rests: &[&[u8]]) -> Vec<Vec<u8>> {
    let trie = Trie::new(strings);
    rests.iter().map(|r| trie.optimal_parse(r)).collect()
}

/// What a table costs in the blob, apart from fixed sizes: the codes written and the
/// bytes of the code strings.
fn cost_of(strings: &[Vec<u8>], encoded: &[Vec<u8>]) -> u64 {
    let codes: usize = encoded.iter().map(Vec::len).sum();
    let bytes: usize = strings.iter().map(Vec::len).sum();
    (codes + bytes) as u64
}

/// The outcome of pair merging.
pub(crate) struct Merge {
    /// The strings of all 256 codes (empty when unused).
    pub strings: Vec<Vec<u8>>,
    /// Codes that stand for one byte.
    pub byte_codes: usize,
    /// Codes made by merging.
    pub merged_codes: usize,
    /// Every rest in merge order, as the merging left it (kept for the tests, which
    /// check that the optimal parse never does worse).
    #[cfg_attr(not(test), allow(dead_code))]
    pub merged: Vec<Vec<u8>>,
}

/// Greedy pair merging over `rests` (module docs).
pub(crate) fn merge(rests: &[&[u8]]) -> Merge {
    let mut used = [false; 256];
    for rest in rests {
        for &b in *rest {
            used[usize::from(b)] = true;
        }
    }
    let mut strings: Vec<Vec<u8>> = Vec::with_capacity(NUM_CODES);
    let mut code_of_byte = [0u16; 256];
    for b in 0..=255u8 {
        if used[usize::from(b)] {
            code_of_byte[usize::from(b)] = strings.len() as u16;
            strings.push(vec![b]);
        }
    }
    let byte_codes = strings.len();

    let total: usize = rests.iter().map(|r| r.len() + 1).sum();
    let mut seq: Vec<u16> = Vec::with_capacity(total);
    for rest in rests {
        seq.extend(rest.iter().map(|&b| code_of_byte[usize::from(b)]));
        seq.push(SEP);
    }

    merge_loop(&mut strings, &mut seq);
    let merged_codes = strings.len() - byte_codes;
    strings.resize(NUM_CODES, Vec::new());

    let merged = seq
        .split(|&c| c == SEP)
        .take(rests.len())
        .map(|codes| codes.iter().map(|&c| c as u8).collect())
        .collect();
    Merge {
        strings,
        byte_codes,
        merged_codes,
        merged,
    }
}

/// Merges the most frequent pair of `seq` (codes of `strings`, rests ended by [`SEP`])
/// into a new code until all 256 are used or no pair occurs twice.
fn merge_loop(strings: &mut Vec<Vec<u8>>, seq: &mut Vec<u16>) {
    let mut counts = vec![0u32; NUM_CODES * NUM_CODES];
    while strings.len() < NUM_CODES {
        count_pairs(seq, &mut counts);
        let Some((a, b)) = best_pair(&counts, strings) else {
            break;
        };
        let code = strings.len() as u16;
        let mut joined = strings[usize::from(a)].clone();
        joined.extend_from_slice(&strings[usize::from(b)]);
        strings.push(joined);
        replace_pair(seq, a, b, code);
    }
}

/// Counts the adjacent pairs of `seq` that merging could replace: not across a rest's
/// end, and in a run `x x x` only the pairs a left-to-right replacement can take.
fn count_pairs(seq: &[u16], counts: &mut [u32]) {
    counts.fill(0);
    let mut i = 0;
    while i + 1 < seq.len() {
        let (a, b) = (seq[i], seq[i + 1]);
        if a == SEP || b == SEP {
            i += 1;
            continue;
        }
        counts[usize::from(a) * NUM_CODES + usize::from(b)] += 1;
        // `x x x` holds one replaceable `x x`, not two.
        i += if a == b { 2 } else { 1 };
    }
}

/// The most frequent pair whose joined string fits in a code and that occurs at least
/// twice (one occurrence saves nothing); ties go to the smaller joined string, so the
/// table depends on the rests only.
fn best_pair(counts: &[u32], strings: &[Vec<u8>]) -> Option<(u16, u16)> {
    let mut best: Option<(u32, usize)> = None;
    for (pair, &count) in counts.iter().enumerate() {
        if count < 2 || best.is_some_and(|(c, _)| count < c) {
            continue;
        }
        let (a, b) = (pair / NUM_CODES, pair % NUM_CODES);
        if strings[a].len() + strings[b].len() > MAX_CODE_LEN {
            continue;
        }
        let better = match best {
            None => true,
            Some((c, _)) if count > c => true,
            Some((_, other)) => {
                let (oa, ob) = (other / NUM_CODES, other % NUM_CODES);
                let this = strings[a].iter().chain(&strings[b]);
                this.lt(strings[oa].iter().chain(&strings[ob]))
            }
        };
        if better {
            best = Some((count, pair));
        }
    }
    best.map(|(_, pair)| ((pair / NUM_CODES) as u16, (pair % NUM_CODES) as u16))
}

/// Replaces every `a b` of `seq` by `code`, left to right, in place.
fn replace_pair(seq: &mut Vec<u16>, a: u16, b: u16, code: u16) {
    let mut read = 0;
    let mut write = 0;
    while read < seq.len() {
        if read + 1 < seq.len() && seq[read] == a && seq[read + 1] == b {
            seq[write] = code;
            read += 2;
        } else {
            seq[write] = seq[read];
            read += 1;
        }
        write += 1;
    }
    seq.truncate(write);
}

/// A trie of the code strings, for the optimal parse.
pub(crate) struct Trie {
    /// `nodes[0]` is the root; a node's children as (byte, node) pairs.
    children: Vec<Vec<(u8, u32)>>,
    /// The code whose string ends at each node, if any.
    code: Vec<Option<u8>>,
}

impl Trie {
    /// The trie of the non-empty `strings` (code `c` is `strings[c]`).
    pub(crate) fn new(strings: &[Vec<u8>]) -> Self {
        let mut trie = Trie {
            children: vec![Vec::new()],
            code: vec![None],
        };
        for (c, s) in strings.iter().enumerate().filter(|(_, s)| !s.is_empty()) {
            let mut node = 0usize;
            for &b in s {
                node = match trie.child(node, b) {
                    Some(next) => next,
                    None => {
                        let next = trie.children.len();
                        trie.children.push(Vec::new());
                        trie.code.push(None);
                        trie.children[node].push((b, next as u32));
                        next
                    }
                };
            }
            trie.code[node] = Some(c as u8);
        }
        trie
    }

    fn child(&self, node: usize, byte: u8) -> Option<usize> {
        self.children[node]
            .iter()
            .find(|&&(b, _)| b == byte)
            .map(|&(_, n)| n as usize)
    }

    /// `rest` in the fewest codes. Every byte of `rest` must have a one-byte code (which
    /// [`merge`] guarantees for the rests it saw). Among parses of equal length the one
    /// taking the longer code first is kept, so the result is deterministic.
    pub(crate) fn optimal_parse(&self, rest: &[u8]) -> Vec<u8> {
        let n = rest.len();
        // cost[i]: fewest codes for rest[i..]; step[i]: the first code and its length.
        let mut cost = vec![u32::MAX; n + 1];
        let mut step = vec![(0u8, 0usize); n];
        cost[n] = 0;
        for i in (0..n).rev() {
            let mut node = 0usize;
            for (len, &b) in rest[i..].iter().enumerate() {
                let Some(next) = self.child(node, b) else {
                    break;
                };
                node = next;
                if let Some(c) = self.code[node] {
                    let after = cost[i + len + 1];
                    if after != u32::MAX && after < cost[i] {
                        cost[i] = after + 1;
                        step[i] = (c, len + 1);
                    }
                }
            }
            assert!(cost[i] != u32::MAX, "byte {:#04x} has no code", rest[i]);
        }
        let mut out = Vec::with_capacity(cost[0] as usize);
        let mut i = 0;
        while i < n {
            let (c, len) = step[i];
            out.push(c);
            i += len;
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Concatenates the strings of `codes`: what a name's stored codes stand for.
    fn expand(strings: &[Vec<u8>], codes: &[u8]) -> Vec<u8> {
        codes
            .iter()
            .flat_map(|&c| strings[usize::from(c)].iter().copied())
            .collect()
    }

    fn sample() -> Vec<Vec<u8>> {
        let mut rests = Vec::new();
        for i in 0..200 {
            rests.push(format!("__x64_sys_call_{i}").into_bytes());
            rests.push(format!("do_{}_work", i % 17).into_bytes());
            rests.push(b"aaaaaaa".to_vec());
        }
        rests
    }

    #[test]
    fn table_holds_every_byte_and_parse_decodes() {
        let rests = sample();
        let refs: Vec<&[u8]> = rests.iter().map(Vec::as_slice).collect();
        let codes = choose(&refs);
        assert_eq!(codes.strings.len(), NUM_CODES);
        for rest in &rests {
            for &b in rest {
                assert!(codes.strings.contains(&vec![b]), "byte {b}");
            }
        }
        for (rest, enc) in rests.iter().zip(&codes.encoded) {
            assert_eq!(&expand(&codes.strings, enc), rest);
        }
        assert!(codes.merged_codes > 0);
        assert!(codes.strings.iter().all(|s| s.len() <= MAX_CODE_LEN));
        // Used codes first, unused ones empty after them.
        let used = codes.byte_codes + codes.merged_codes;
        assert!(codes.strings[..used].iter().all(|s| !s.is_empty()));
        assert!(codes.strings[used..].iter().all(Vec::is_empty));
    }

    #[test]
    fn optimal_parse_never_longer_than_merge_order() {
        let rests = sample();
        let refs: Vec<&[u8]> = rests.iter().map(Vec::as_slice).collect();
        let merge = merge(&refs);
        let trie = Trie::new(&merge.strings);
        for (rest, merged) in rests.iter().zip(&merge.merged) {
            assert_eq!(&expand(&merge.strings, merged), rest);
            let best = trie.optimal_parse(rest);
            assert!(best.len() <= merged.len(), "{rest:?}");
            assert_eq!(&expand(&merge.strings, &best), rest);
        }
    }

    #[test]
    fn optimal_parse_beats_greedy_when_it_can() {
        // Codes a, b, c, "ab", "bc", "abc"? no: only "ab" and "bcd" make "abcd" need the
        // parse a|bcd (2) where a greedy longest-first takes ab|c|d (3).
        let mut strings: Vec<Vec<u8>> = [b"a", b"b", b"c", b"d"].map(|s| s.to_vec()).into();
        strings.push(b"ab".to_vec());
        strings.push(b"bcd".to_vec());
        let trie = Trie::new(&strings);
        assert_eq!(trie.optimal_parse(b"abcd"), vec![0, 5]);
    }

    #[test]
    fn runs_of_one_code_are_counted_once_per_replacement() {
        let rests: Vec<&[u8]> = vec![b"aaa", b"zz"];
        let m = merge(&rests);
        // "aa" occurs once replaceable in "aaa": count 1, no merge; "zz" once: no merge.
        assert_eq!(m.merged_codes, 0);
    }

    #[test]
    fn empty_input_gives_an_empty_table() {
        let m = merge(&[]);
        assert_eq!(m.byte_codes, 0);
        assert!(m.strings.iter().all(Vec::is_empty));
    }
}
