//! Small GSYM files put together byte by byte, for the shapes `llvm-gsymutil --convert`
//! never writes (deep inline trees, unknown chunk types, odd line programs). They follow
//! the layout of `docs/formats/gsym.md`, little-endian, with a fixed string table.

/// The string table: "", "main", "inl", "/src", "a.c".
pub const STRINGS: &[u8] = b"\0main\0inl\0/src\0a.c\0";
/// String offsets in [`STRINGS`].
pub const MAIN: u32 = 1;
pub const INL: u32 = 6;
const DIR: u32 = 10;
const BASE: u32 = 15;
/// File-table index of `/src/a.c` (index 0 is the empty file).
const FILE: u64 = 1;

/// A function: start, size, name offset and its chunks (type, bytes) before the
/// end-of-list chunk.
pub struct Func {
    pub start: u64,
    pub size: u32,
    pub name: u32,
    pub chunks: Vec<(u32, Vec<u8>)>,
}

pub fn uleb(mut v: u64) -> Vec<u8> {
    let mut out = Vec::new();
    loop {
        let b = (v & 0x7f) as u8;
        v >>= 7;
        if v == 0 {
            out.push(b);
            return out;
        }
        out.push(b | 0x80);
    }
}

pub fn sleb(mut v: i64) -> Vec<u8> {
    let mut out = Vec::new();
    loop {
        let b = (v & 0x7f) as u8;
        v >>= 7;
        let done = (v == 0 && b & 0x40 == 0) || (v == -1 && b & 0x40 != 0);
        out.push(if done { b } else { b | 0x80 });
        if done {
            return out;
        }
    }
}

/// A line-table chunk: min and max line delta, first line, then `ops` as given.
pub fn line_table(min: i64, max: i64, first: u64, ops: &[u8]) -> (u32, Vec<u8>) {
    let mut out = sleb(min);
    out.extend(sleb(max));
    out.extend(uleb(first));
    out.extend_from_slice(ops);
    (1, out)
}

/// An inline node with one range `[offset, offset + size)` from its parent's start,
/// calling file [`FILE`] at `call_line`, with `children` (already encoded) if any.
pub fn node(
    offset: u64,
    size: u64,
    name: u32,
    call_line: u64,
    children: Option<Vec<u8>>,
) -> Vec<u8> {
    let mut out = uleb(1);
    out.extend(uleb(offset));
    out.extend(uleb(size));
    out.push(children.is_some() as u8);
    out.extend(name.to_le_bytes());
    out.extend(uleb(if call_line == 0 { 0 } else { FILE }));
    out.extend(uleb(call_line));
    if let Some(children) = children {
        out.extend(children);
        out.push(0); // ends the list of children
    }
    out
}

/// The inline tree of a function at 0x1000 of size 0x100: `main` as the root, then a
/// chain of nested calls down to `depth` nodes in all.
pub fn nested_calls(depth: usize) -> Vec<u8> {
    let mut inner = None;
    for level in (1..depth).rev() {
        inner = Some(node(1, 0x100 - level as u64, INL, level as u64, inner));
    }
    node(0, 0x100, MAIN, 0, inner)
}

/// The file: header, 8-byte address table, info offsets, file table, strings, records.
pub fn gsym(funcs: &[Func]) -> Vec<u8> {
    let n = funcs.len();
    let mut out = Vec::new();
    out.extend(0x4753_594du32.to_le_bytes());
    out.extend(1u16.to_le_bytes());
    out.extend([8, 0]); // address size, UUID size
    out.extend(0u64.to_le_bytes()); // base address
    out.extend((n as u32).to_le_bytes());
    let strtab_at = 48 + 12 * n + 4 + 16;
    out.extend((strtab_at as u32).to_le_bytes());
    out.extend((STRINGS.len() as u32).to_le_bytes());
    out.extend([0; 20]);
    for f in funcs {
        out.extend(f.start.to_le_bytes());
    }
    let infos_at = out.len();
    out.extend(vec![0; 4 * n]);
    out.extend(2u32.to_le_bytes());
    for word in [0, 0, DIR, BASE] {
        out.extend(word.to_le_bytes());
    }
    assert_eq!(out.len(), strtab_at);
    out.extend_from_slice(STRINGS);
    for (i, f) in funcs.iter().enumerate() {
        out.resize(out.len().next_multiple_of(4), 0);
        let at = out.len() as u32;
        out[infos_at + 4 * i..infos_at + 4 * i + 4].copy_from_slice(&at.to_le_bytes());
        out.extend(f.size.to_le_bytes());
        out.extend(f.name.to_le_bytes());
        for (kind, bytes) in &f.chunks {
            out.extend(kind.to_le_bytes());
            out.extend((bytes.len() as u32).to_le_bytes());
            out.extend(bytes);
        }
        out.extend([0; 8]);
    }
    out
}
