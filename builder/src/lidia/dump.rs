//! Human-readable views of a Lidia file: the raw structure dump (the format of the golden
//! `dump.txt` files) and a size summary.

use std::fmt::Write as _;

use symblob::lidia::raw::HEADER_SIZE;
use symblob::lidia::{crc32c, LidiaFile};

/// The raw structure of `file` (whose whole blob is `blob`): header fields with stored and
/// recomputed CRCs, every range entry with its strings, every string, every line entry —
/// line for line the format of the golden `dump.txt` files.
pub fn dump(file: &LidiaFile<'_>, blob: &[u8]) -> String {
    let mut out = String::new();
    let h = file.header();
    let crc = |bytes: &[u8]| crc32c(bytes);
    let _ = writeln!(out, "file_size {}", blob.len());
    let m = h.magic;
    let _ = writeln!(
        out,
        "magic {} ({:02x} {:02x} {:02x} {:02x}) version {}",
        go_quote(&m),
        m[0],
        m[1],
        m[2],
        m[3],
        h.version.get()
    );
    let table = |name: &str, size_name: &str, t: &symblob::lidia::raw::TableHeader, c: u32| {
        format!(
            "{name:<13} {size_name}={} count={} offset={:#x} crc={:#010x} (computed {c:#010x}) reserved={:#x}\n",
            t.entry_size.get(),
            t.count.get(),
            t.offset.get(),
            t.crc.get(),
            t.reserved.get()
        )
    };
    out += &table("va_table", "entry_size", &h.va, crc(file.va_bytes()));
    out += &table(
        "range_table",
        "field_size",
        &h.ranges,
        crc(file.range_bytes()),
    );
    let _ = writeln!(
        out,
        "strings_table size={} offset={:#x} crc={:#010x} (computed {:#010x}) reserved={:#x}",
        h.strings.size.get(),
        h.strings.offset.get(),
        h.strings.crc.get(),
        crc(file.strings_table()),
        h.strings.reserved.get()
    );
    out += &table(
        "line_tables",
        "field_size",
        &h.lines,
        crc(file.line_bytes()),
    );
    let line_end = h.lines.offset.get() + file.line_bytes().len() as u64;
    let _ = writeln!(out, "end_of_line_tables={line_end:#x}");

    out += "# entries: idx va length depth funcOff fileOff ltIdx ltCount callFileOff callLine | func | file | callFile\n";
    let text = |offset: u64| {
        file.string(offset).map_or_else(
            || "<invalid>".into(),
            |s| String::from_utf8_lossy(&s).into_owned(),
        )
    };
    for i in 0..file.len() {
        let (Some(va), Some(e)) = (file.va(i), file.entry(i)) else {
            break;
        };
        let _ = writeln!(
            out,
            "{i} {va:#x} {} {} {} {} {} {} {} {} | {} | {} | {}",
            e.length,
            e.depth,
            e.func,
            e.file,
            e.line_index,
            e.line_count,
            e.call_file,
            e.call_line,
            text(e.func),
            text(e.file),
            text(e.call_file)
        );
    }

    out += "# strings: offset len value\n";
    let strings = file.strings_table();
    let mut at = 0usize;
    while let Some(prefix) = strings.get(at..at + 4) {
        let len = u32::from_le_bytes([prefix[0], prefix[1], prefix[2], prefix[3]]) as usize;
        let Some(bytes) = strings.get(at + 4..(at + 4).saturating_add(len)) else {
            let _ = writeln!(out, "{at} {len} <runs past the end of the table>");
            break;
        };
        let _ = writeln!(out, "{at} {len} {}", go_quote(bytes));
        at += 4 + len;
    }

    out += "# line table: idx offset line\n";
    let size = usize::from(file.line_size());
    for (i, pair) in file.line_bytes().chunks_exact(2 * size).enumerate() {
        let (offset, line) = pair.split_at(size);
        let _ = writeln!(out, "{i} {} {}", le(offset), le(line));
    }
    out
}

/// A summary of `file`: sizes, counts, field sizes and bytes per range.
pub fn info(file: &LidiaFile<'_>, blob: &[u8]) -> String {
    let n = file.len();
    let per_range = |bytes: usize| {
        if n == 0 {
            "-".to_owned()
        } else {
            format!("{:.1}", bytes as f64 / n as f64)
        }
    };
    let mut out = String::new();
    let _ = writeln!(out, "file size       {} bytes", blob.len());
    let _ = writeln!(out, "ranges          {n}");
    let depth0 = (0..n)
        .filter_map(|i| file.entry(i))
        .filter(|e| e.depth == 0)
        .count();
    let _ = writeln!(out, "  depth 0       {depth0}");
    let _ = writeln!(out, "  inlined       {}", n - depth0);
    let _ = writeln!(out, "va size         {}", file.va_size());
    let _ = writeln!(out, "field size      {}", file.field_size());
    let _ = writeln!(out, "line field size {}", file.line_size());
    let _ = writeln!(out, "line entries    {}", file.lines().len());
    let sections = [
        ("header", HEADER_SIZE),
        ("va table", file.va_bytes().len()),
        ("range table", file.range_bytes().len()),
        ("strings table", file.strings_table().len()),
        ("line table", file.line_bytes().len()),
    ];
    for (name, size) in sections {
        let _ = writeln!(
            out,
            "{name:<15} {size} bytes ({} per range)",
            per_range(size)
        );
    }
    let _ = writeln!(out, "bytes per range {}", per_range(blob.len()));
    out
}

/// A little-endian unsigned integer of 1 to 8 bytes.
fn le(bytes: &[u8]) -> u64 {
    bytes
        .iter()
        .rev()
        .fold(0u64, |v, &b| (v << 8) | u64::from(b))
}

/// `bytes` quoted as Go's `strconv.Quote` (`%q`) quotes a string: printable characters as
/// they are, the usual backslash escapes, `\xNN` for bytes that are not UTF-8.
pub fn go_quote(bytes: &[u8]) -> String {
    let mut out = String::from("\"");
    for chunk in bytes.utf8_chunks() {
        for c in chunk.valid().chars() {
            match c {
                '"' => out += "\\\"",
                '\\' => out += "\\\\",
                '\x07' => out += "\\a",
                '\x08' => out += "\\b",
                '\x0c' => out += "\\f",
                '\n' => out += "\\n",
                '\r' => out += "\\r",
                '\t' => out += "\\t",
                '\x0b' => out += "\\v",
                c if (c as u32) < 0x20 || c == '\x7f' => {
                    let _ = write!(out, "\\x{:02x}", c as u32);
                }
                c if c.is_control() => {
                    if (c as u32) < 0x10000 {
                        let _ = write!(out, "\\u{:04x}", c as u32);
                    } else {
                        let _ = write!(out, "\\U{:08x}", c as u32);
                    }
                }
                c => out.push(c),
            }
        }
        for b in chunk.invalid() {
            let _ = write!(out, "\\x{b:02x}");
        }
    }
    out.push('"');
    out
}

#[cfg(test)]
mod tests {
    use super::go_quote;

    #[test]
    fn quotes_like_go() {
        assert_eq!(go_quote(b"main.f"), "\"main.f\"");
        assert_eq!(go_quote(b"a\"b\\c\n"), "\"a\\\"b\\\\c\\n\"");
        assert_eq!(go_quote(b"\x01\xff"), "\"\\x01\\xff\"");
        assert_eq!(go_quote("é".as_bytes()), "\"é\"");
    }
}
