//! Byte edits for the structure-aware targets: a valid blob damaged in a few places
//! reaches the deep checks of the reader that random bytes never get past.

use arbitrary::Arbitrary;

/// One edit. Positions are taken modulo the blob length, so every edit applies.
#[derive(Arbitrary, Clone, Debug)]
pub enum Edit {
    /// Flip the bits of `mask` in one byte.
    Xor {
        /// Position (modulo the length).
        at: u32,
        /// Bits to flip.
        mask: u8,
    },
    /// Overwrite four bytes with a little-endian u32 (a count, offset or index field).
    SetU32 {
        /// Position (modulo the length).
        at: u32,
        /// The value.
        value: u32,
    },
    /// Overwrite eight bytes with a little-endian u64 (a count, size or address field).
    SetU64 {
        /// Position (modulo the length).
        at: u32,
        /// The value.
        value: u64,
    },
    /// Overwrite a field with a boundary value: 0, 1, all ones, a sign bit, ...
    SetSpecial {
        /// Position (modulo the length).
        at: u32,
        /// Which value and width.
        which: u8,
    },
    /// Cut the blob to `len` bytes (modulo the length).
    Truncate {
        /// New length (modulo the length).
        len: u32,
    },
    /// Insert a byte, shifting everything after it.
    Insert {
        /// Position (modulo the length + 1).
        at: u32,
        /// The byte.
        value: u8,
    },
    /// Remove a byte.
    Remove {
        /// Position (modulo the length).
        at: u32,
    },
}

/// Boundary values that field checks get wrong most often.
const SPECIAL: [u64; 8] = [0, 1, 0x7f, 0xff, 0xffff, 0x7fff_ffff, 0xffff_ffff, u64::MAX];

/// Applies `edits` in order to `bytes`.
pub fn apply(bytes: &mut Vec<u8>, edits: &[Edit]) {
    for edit in edits {
        if bytes.is_empty() {
            return;
        }
        let len = bytes.len();
        let pos = |at: u32| at as usize % len;
        match *edit {
            Edit::Xor { at, mask } => bytes[pos(at)] ^= mask,
            Edit::SetU32 { at, value } => write(bytes, pos(at), &value.to_le_bytes()),
            Edit::SetU64 { at, value } => write(bytes, pos(at), &value.to_le_bytes()),
            Edit::SetSpecial { at, which } => {
                let value = SPECIAL[usize::from(which) % SPECIAL.len()];
                let width = [1, 2, 4, 8][usize::from(which >> 3) % 4];
                write(bytes, pos(at), &value.to_le_bytes()[..width]);
            }
            Edit::Truncate { len: new } => bytes.truncate(new as usize % len),
            Edit::Insert { at, value } => bytes.insert(at as usize % (len + 1), value),
            Edit::Remove { at } => {
                bytes.remove(pos(at));
            }
        }
    }
}

/// Writes `value` at `at`, clipped to the end of `bytes`.
fn write(bytes: &mut [u8], at: usize, value: &[u8]) {
    for (dst, src) in bytes[at..].iter_mut().zip(value) {
        *dst = *src;
    }
}
