//! The Lidia strings table under construction: length-prefixed strings, deduplicated, in
//! first-insertion order (spec sections 6 and 13.1).
//!
//! The dedup index is an open-addressing hash table of offsets into the table bytes
//! themselves, so a distinct string costs its bytes once plus one 8-byte slot: no
//! per-string heap allocation, which matters when a kernel's DWARF yields millions of
//! names. Output never depends on the hash (the table is in insertion order), so the hash
//! only has to be fast.

use symblob::lidia::raw::{OVERFLOW_STRING, STRINGS_PREFIX};

/// Offset of the empty string, which is never stored again.
const EMPTY_STRING: u64 = 0;
/// Marks an unused slot of the index (offset 0 is the empty string, never indexed).
const FREE: u64 = 0;
/// A slot holds a string's offset in its low 48 bits and 16 bits of the string's hash
/// above them, so most non-matching slots are rejected without touching the string.
const OFFSET_BITS: u32 = 48;
const OFFSET_MASK: u64 = (1 << OFFSET_BITS) - 1;

/// The strings table bytes plus the index that deduplicates them.
pub(crate) struct StringTable {
    /// The table exactly as written: `u32` length then bytes, per string.
    bytes: Vec<u8>,
    /// Open-addressing index (linear probing, at most half full): tag and offset of a
    /// stored string per slot, or [`FREE`].
    slots: Vec<u64>,
    /// Number of occupied slots.
    used: usize,
}

impl StringTable {
    /// A table holding `""` (offset 0) and `"[overflow]"` (offset 4), as every Lidia file
    /// starts.
    pub(crate) fn new() -> Self {
        let mut table = StringTable {
            bytes: STRINGS_PREFIX.to_vec(),
            slots: vec![FREE; 64],
            used: 0,
        };
        // "[overflow]" is pre-seeded in Go's dedup map, so a function with that name
        // shares offset 4.
        let overflow = u64::from(OVERFLOW_STRING);
        let h = hash(b"[overflow]");
        if let Err(slot) = table.find_slot(b"[overflow]", h) {
            table.slots[slot] = slot_value(h, overflow);
            table.used = 1;
        }
        table
    }

    /// The table's bytes.
    pub(crate) fn bytes(&self) -> &[u8] {
        &self.bytes
    }

    /// The offset of `s`, storing it first if it is new.
    pub(crate) fn add(&mut self, s: &[u8]) -> u64 {
        if s.is_empty() {
            return EMPTY_STRING;
        }
        self.add_hashed(s, hash(s))
    }

    /// [`Self::add`] for a string whose [`hash`] the caller already computed (on another
    /// thread, see [`ChunkStrings`]), so the serial merge never hashes it again.
    pub(crate) fn add_hashed(&mut self, s: &[u8], h: u64) -> u64 {
        if s.is_empty() {
            return EMPTY_STRING;
        }
        let Ok(len) = u32::try_from(s.len()) else {
            return u64::from(OVERFLOW_STRING);
        };
        if len == u32::MAX {
            // A length of 0xFFFFFFFF or more cannot be prefixed; Go stores "[overflow]"'s
            // offset and does not remember the string.
            return u64::from(OVERFLOW_STRING);
        }
        match self.find_slot(s, h) {
            Ok(offset) => offset,
            Err(free) => {
                let offset = self.bytes.len() as u64;
                self.bytes.extend_from_slice(&len.to_le_bytes());
                self.bytes.extend_from_slice(s);
                if offset > OFFSET_MASK {
                    // Beyond 256 TiB of strings: stored but not indexed, so later copies
                    // are stored again (no real input gets near this).
                    return offset;
                }
                self.slots[free] = slot_value(h, offset);
                self.used += 1;
                if self.used * 2 >= self.slots.len() {
                    self.grow();
                }
                offset
            }
        }
    }

    /// `Ok(offset)` of `s` (whose hash is `h`) if stored, else `Err(index of the free slot
    /// where it belongs)`.
    fn find_slot(&self, s: &[u8], h: u64) -> Result<u64, usize> {
        let mask = self.slots.len() - 1;
        let tag = h >> OFFSET_BITS;
        let mut i = (h as usize) & mask;
        loop {
            let slot = self.slots[i];
            if slot == FREE {
                return Err(i);
            }
            if slot >> OFFSET_BITS == tag && self.stored(slot & OFFSET_MASK) == s {
                return Ok(slot & OFFSET_MASK);
            }
            i = (i + 1) & mask;
        }
    }

    /// The string stored at `offset` (which the index holds, so it is in bounds).
    fn stored(&self, offset: u64) -> &[u8] {
        let at = offset as usize;
        let mut len = [0u8; 4];
        len.copy_from_slice(&self.bytes[at..at + 4]);
        let len = u32::from_le_bytes(len) as usize;
        &self.bytes[at + 4..at + 4 + len]
    }

    /// Makes room for `more` new strings of `bytes` table bytes (at most: some may be
    /// stored already), so that adding them never grows the index, which re-inserts
    /// every string each time, nor moves the table.
    pub(crate) fn reserve(&mut self, more: usize, bytes: usize) {
        self.bytes.reserve(bytes);
        let wanted = self
            .used
            .saturating_add(more)
            .saturating_mul(2)
            .saturating_add(1)
            .next_power_of_two();
        if wanted > self.slots.len() {
            self.rebuild(wanted);
        }
    }

    /// Doubles the index.
    fn grow(&mut self) {
        self.rebuild(self.slots.len() * 2);
    }

    /// An index of `len` slots (a power of two) for every string, walking the table bytes
    /// in order (sequential reads, unlike following the old slots).
    fn rebuild(&mut self, len: usize) {
        self.slots = vec![FREE; len];
        let mask = self.slots.len() - 1;
        // Offset 0 is "" (never indexed); every later string is indexed.
        let mut offset = 4u64;
        while (offset as usize) < self.bytes.len() && offset <= OFFSET_MASK {
            let s = self.stored(offset);
            let h = hash(s);
            let next = offset + 4 + s.len() as u64;
            let mut i = (h as usize) & mask;
            while self.slots[i] != FREE {
                i = (i + 1) & mask;
            }
            self.slots[i] = slot_value(h, offset);
            offset = next;
        }
    }
}

/// The [`ChunkStrings::by_slice`] slot index bits of a slice (Fx-style multiply, high
/// bits folded down).
fn slice_hash(addr: usize, len: usize) -> usize {
    let h = ((addr as u64) ^ (len as u64).rotate_left(40)).wrapping_mul(0x9E37_79B9_7F4A_7C15);
    (h ^ (h >> 29)) as usize
}

/// The slot value for a string with hash `h` stored at `offset`.
fn slot_value(h: u64, offset: u64) -> u64 {
    (h >> OFFSET_BITS) << OFFSET_BITS | offset
}

/// A fast 64-bit hash of `s`: eight bytes per multiply, then a full avalanche so that the
/// low bits (used as the slot index) depend on every input bit.
pub(crate) fn hash(s: &[u8]) -> u64 {
    const K: u64 = 0x9E37_79B9_7F4A_7C15;
    let mut h = (s.len() as u64).wrapping_mul(K);
    let mut chunks = s.chunks_exact(8);
    for c in &mut chunks {
        let mut w = [0u8; 8];
        w.copy_from_slice(c);
        h = (h.rotate_left(23) ^ u64::from_le_bytes(w)).wrapping_mul(K);
    }
    let rest = chunks.remainder();
    if !rest.is_empty() {
        let mut w = [0u8; 8];
        w[..rest.len()].copy_from_slice(rest);
        h = (h.rotate_left(23) ^ u64::from_le_bytes(w)).wrapping_mul(K);
    }
    // murmur3's fmix64.
    h ^= h >> 33;
    h = h.wrapping_mul(0xFF51_AFD7_ED55_8CCD);
    h ^= h >> 33;
    h = h.wrapping_mul(0xC4CE_B9FE_1A85_EC53);
    h ^ (h >> 33)
}

/// The distinct strings of one chunk of ranges, in first-occurrence order, each with its
/// [`hash`]: built on a worker thread so that the serial merge into the [`StringTable`]
/// only meets each chunk's distinct strings once, already hashed.
///
/// Merging the chunks in order, each chunk's strings in first-occurrence order, stores
/// every string at the offset a single in-order pass over all ranges would give it: a
/// string's first occurrence overall is its first occurrence in the first chunk that has
/// it.
pub(crate) struct ChunkStrings<'s> {
    /// Distinct strings with their hashes, in first-occurrence order.
    strings: Vec<(&'s [u8], u64)>,
    /// Open-addressing index by content (linear probing, at most half full): position in
    /// `strings` plus one per slot, or 0 for a free slot.
    slots: Vec<u32>,
    /// Open-addressing index by slice identity (address and length, at most half full):
    /// the same name or path is nearly always the same slice (one `.debug_str` entry, one
    /// shared path), so a repeat is found without reading or hashing its bytes.
    by_slice: Vec<SliceSlot>,
    /// Occupied entries of `by_slice`.
    slices: usize,
    /// The last slice looked up, which the next one very often is (a file shared by a
    /// function's spans, an inlined callee's name).
    last: SliceSlot,
}

/// One entry of [`ChunkStrings::by_slice`]: a slice's address and length, and its
/// string's id plus one (0 = free).
#[derive(Clone, Copy, Default)]
struct SliceSlot {
    addr: usize,
    len: usize,
    id_plus_one: u32,
}

impl<'s> ChunkStrings<'s> {
    /// An empty chunk table.
    pub(crate) fn new() -> Self {
        ChunkStrings {
            strings: Vec::new(),
            slots: vec![0; 256],
            by_slice: vec![SliceSlot::default(); 256],
            slices: 0,
            last: SliceSlot::default(),
        }
    }

    /// The chunk-local id of `s` (its position in first-occurrence order), storing it if
    /// it is new.
    pub(crate) fn id(&mut self, s: &'s [u8]) -> u32 {
        let addr = s.as_ptr() as usize;
        let last = self.last;
        if last.id_plus_one != 0 && last.addr == addr && last.len == s.len() {
            return last.id_plus_one - 1;
        }
        let id = self.id_of_slice(s, addr);
        self.last = SliceSlot {
            addr,
            len: s.len(),
            id_plus_one: id + 1,
        };
        id
    }

    /// [`Self::id`] through the index by slice.
    fn id_of_slice(&mut self, s: &'s [u8], addr: usize) -> u32 {
        let mask = self.by_slice.len() - 1;
        let mut i = slice_hash(addr, s.len()) & mask;
        loop {
            let slot = self.by_slice[i];
            if slot.id_plus_one == 0 {
                break;
            }
            if slot.addr == addr && slot.len == s.len() {
                return slot.id_plus_one - 1;
            }
            i = (i + 1) & mask;
        }
        let id = self.id_by_content(s);
        self.by_slice[i] = SliceSlot {
            addr,
            len: s.len(),
            id_plus_one: id + 1,
        };
        self.slices += 1;
        if self.slices * 2 >= self.by_slice.len() {
            let doubled = vec![SliceSlot::default(); self.by_slice.len() * 2];
            let old = std::mem::replace(&mut self.by_slice, doubled);
            let mask = self.by_slice.len() - 1;
            for slot in old.into_iter().filter(|s| s.id_plus_one != 0) {
                let mut i = slice_hash(slot.addr, slot.len) & mask;
                while self.by_slice[i].id_plus_one != 0 {
                    i = (i + 1) & mask;
                }
                self.by_slice[i] = slot;
            }
        }
        id
    }

    /// The id of `s` by its bytes, storing it if it is new.
    fn id_by_content(&mut self, s: &'s [u8]) -> u32 {
        let h = hash(s);
        let mask = self.slots.len() - 1;
        let mut i = (h as usize) & mask;
        loop {
            let slot = self.slots[i];
            if slot == 0 {
                break;
            }
            let (stored, stored_hash) = self.strings[slot as usize - 1];
            if stored_hash == h && stored == s {
                return slot - 1;
            }
            i = (i + 1) & mask;
        }
        let id = self.strings.len() as u32;
        self.strings.push((s, h));
        self.slots[i] = id + 1;
        if self.strings.len() * 2 >= self.slots.len() {
            self.grow();
        }
        id
    }

    /// The distinct strings and their hashes, in first-occurrence order (index = id).
    pub(crate) fn strings(&self) -> &[(&'s [u8], u64)] {
        &self.strings
    }

    /// Doubles the index and re-inserts every string by its stored hash.
    fn grow(&mut self) {
        self.slots = vec![0; self.slots.len() * 2];
        let mask = self.slots.len() - 1;
        for (id, &(_, h)) in self.strings.iter().enumerate() {
            let mut i = (h as usize) & mask;
            while self.slots[i] != 0 {
                i = (i + 1) & mask;
            }
            self.slots[i] = id as u32 + 1;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dedups_in_first_insertion_order() {
        let mut t = StringTable::new();
        assert_eq!(t.add(b""), 0);
        assert_eq!(t.add(b"[overflow]"), 4);
        assert_eq!(t.add(b"main"), 18);
        assert_eq!(t.add(b"f"), 26);
        assert_eq!(t.add(b"main"), 18);
        assert_eq!(&t.bytes()[18..], b"\x04\0\0\0main\x01\0\0\0f");
    }

    #[test]
    fn survives_growth() {
        let mut t = StringTable::new();
        let names: Vec<String> = (0..10_000).map(|i| format!("fn_{i}")).collect();
        let offsets: Vec<u64> = names.iter().map(|n| t.add(n.as_bytes())).collect();
        for (n, &o) in names.iter().zip(&offsets) {
            assert_eq!(t.add(n.as_bytes()), o);
            assert_eq!(t.stored(o), n.as_bytes());
        }
    }

    #[test]
    fn chunks_merged_in_order_match_one_pass() {
        let words: Vec<String> = (0..3_000)
            .map(|i| format!("s{}", (i * 7919) % 1_000))
            .collect();
        let mut one = StringTable::new();
        let expected: Vec<u64> = words.iter().map(|w| one.add(w.as_bytes())).collect();
        let mut merged = StringTable::new();
        let mut got = Vec::new();
        for chunk in words.chunks(700) {
            let mut local = ChunkStrings::new();
            let ids: Vec<u32> = chunk.iter().map(|w| local.id(w.as_bytes())).collect();
            let offsets: Vec<u64> = local
                .strings()
                .iter()
                .map(|&(s, h)| merged.add_hashed(s, h))
                .collect();
            got.extend(ids.iter().map(|&i| offsets[i as usize]));
        }
        assert_eq!(got, expected);
        assert_eq!(merged.bytes(), one.bytes());
    }
}
