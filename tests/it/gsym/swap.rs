//! Turns a little-endian GSYM file into the big-endian file with the same content, by
//! reversing every fixed-width integer in place: header fields, table entries, each
//! FunctionInfo's size, name and chunk headers, and the names inside inline trees (line
//! tables and the rest of inline trees are bytes and LEB128, which have no byte order).

fn le_u32(bytes: &[u8], at: usize) -> u32 {
    u32::from_le_bytes(bytes[at..at + 4].try_into().unwrap())
}

fn uleb(bytes: &[u8], at: &mut usize) -> u64 {
    let (mut value, mut shift) = (0u64, 0);
    loop {
        let b = bytes[*at];
        *at += 1;
        value |= u64::from(b & 0x7f) << shift;
        shift += 7;
        if b & 0x80 == 0 {
            return value;
        }
    }
}

pub fn to_big_endian(le: &[u8]) -> Vec<u8> {
    let mut out = le.to_vec();
    let mut flip = |at: usize, n: usize| out[at..at + n].reverse();
    // magic, version, base address, count, string table offset and size
    for (at, n) in [(0, 4), (4, 2), (8, 8), (16, 4), (20, 4), (24, 4)] {
        flip(at, n);
    }
    let addr_size = usize::from(le[6]);
    let count = le_u32(le, 16) as usize;
    let mut at = 48;
    if addr_size > 1 {
        for i in 0..count {
            flip(at + i * addr_size, addr_size);
        }
    }
    at = (at + count * addr_size).next_multiple_of(4);
    let infos: Vec<usize> = (0..count)
        .map(|i| le_u32(le, at + 4 * i) as usize)
        .collect();
    for i in 0..count {
        flip(at + 4 * i, 4);
    }
    at += 4 * count;
    let files = le_u32(le, at) as usize;
    for i in 0..=2 * files {
        flip(at + 4 * i, 4);
    }
    let mut done = std::collections::BTreeSet::new();
    for info in infos {
        // Functions may share a record; swap each once.
        if !done.insert(info) {
            continue;
        }
        flip(info, 4);
        flip(info + 4, 4);
        let mut chunk = info + 8;
        loop {
            let (kind, len) = (le_u32(le, chunk), le_u32(le, chunk + 4) as usize);
            flip(chunk, 4);
            flip(chunk + 4, 4);
            if kind == 2 {
                let mut p = chunk + 8;
                swap_inline(le, &mut p, &mut flip);
            }
            if kind == 0 {
                break;
            }
            chunk += 8 + len;
        }
    }
    out
}

/// Swaps the names of the inline node at `p` and its descendants; false at the 0 that
/// ends a list of children.
fn swap_inline(le: &[u8], p: &mut usize, flip: &mut impl FnMut(usize, usize)) -> bool {
    let ranges = uleb(le, p);
    if ranges == 0 {
        return false;
    }
    for _ in 0..2 * ranges {
        uleb(le, p);
    }
    let has_children = le[*p] != 0;
    flip(*p + 1, 4);
    *p += 5;
    uleb(le, p);
    uleb(le, p);
    if has_children {
        while swap_inline(le, p, flip) {}
    }
    true
}
