//! One line of text per record, the format symblib's records are listed in:
//!
//! ```text
//! R va=0x<hex> len=<dec> depth=<dec> func="<s>" file="<s>"|- call_file="<s>"|- call_line=<dec>|- lines=[<offset>:<line>,...]
//! P va=0x<hex> ["<func>"|"<file>"|<line>;...]
//! ```
//!
//! Strings are quoted with `\\`, `\"`, `\n`, `\t` and `\xNN` escapes; `-` is absent.

use std::fmt::Write;

use super::record::Record;

/// A quoted string.
pub fn quote(s: &str) -> String {
    let mut out = String::with_capacity(s.len() + 2);
    out.push('"');
    for c in s.chars() {
        match c {
            '\\' => out.push_str("\\\\"),
            '"' => out.push_str("\\\""),
            '\n' => out.push_str("\\n"),
            '\t' => out.push_str("\\t"),
            c if c.is_ascii_control() => {
                let _ = write!(out, "\\x{:02x}", c as u32);
            }
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

fn opt_str(s: Option<&str>) -> String {
    s.map_or_else(|| "-".to_owned(), quote)
}

fn opt_num(n: Option<u32>) -> String {
    n.map_or_else(|| "-".to_owned(), |n| n.to_string())
}

/// The line of one record.
pub fn line(record: &Record) -> String {
    match record {
        Record::Range(r) => {
            let lines: Vec<String> = r
                .lines
                .iter()
                .map(|l| format!("{}:{}", l.offset, l.line))
                .collect();
            format!(
                "R va={:#x} len={} depth={} func={} file={} call_file={} call_line={} lines=[{}]",
                r.va,
                r.length,
                r.depth,
                quote(&r.func),
                opt_str(r.file.as_deref()),
                opt_str(r.call_file.as_deref()),
                opt_num(r.call_line),
                lines.join(",")
            )
        }
        Record::ReturnPad(p) => {
            let entries: Vec<String> = p
                .entries
                .iter()
                .map(|e| {
                    format!(
                        "{}|{}|{}",
                        quote(&e.func),
                        opt_str(e.file.as_deref()),
                        opt_num(e.line)
                    )
                })
                .collect();
            format!("P va={:#x} [{}]", p.va, entries.join(";"))
        }
    }
}
