//! Generated model functions with inlined calls, for the GSYM round trip: `arbitrary`
//! turns fuzz bytes into [`Group`]s that keep the model's invariant (each group's spans
//! laminar, sorted by (start, depth), inside its depth-0 span), and [`frames`] answers an
//! address the obvious way from the spans.

use arbitrary::Arbitrary;
use symblob_build::model::{sort_spans, Bytes, Group, Row, SharedBytes, Span, ThinVec};

/// Function and inlined-call names: few, so that names repeat.
const NAMES: [&str; 6] = ["f", "g", "inl", "très_long_name", "_ZN3foo3barE", "h"];

/// One generated inlined call (or a piece of one).
#[derive(Arbitrary, Clone, Debug)]
pub struct GenInline {
    /// Which span of the function it lies in (modulo the spans so far).
    pub parent: u8,
    /// Start offset inside the parent (modulo its length).
    pub offset: u16,
    /// Length (cut to the parent's end and the next sibling's start).
    pub length: u16,
    /// Name choice.
    pub name: u8,
    /// Source file choice.
    pub file: u8,
    /// Call file choice.
    pub call_file: u8,
    /// Call line.
    pub call_line: u16,
    /// Continue the call of the parent's previous child (another piece of it).
    pub continues: bool,
    /// Rows: (offset modulo the span's length, line).
    pub rows: Vec<(u16, u16)>,
}

/// One generated function.
#[derive(Arbitrary, Clone, Debug)]
pub struct GenFunction {
    /// Distance from the previous function's end.
    pub gap: u16,
    /// Length minus one.
    pub length: u16,
    /// Name choice.
    pub name: u8,
    /// Source file choice.
    pub file: u8,
    /// Rows: (offset modulo the length, line).
    pub rows: Vec<(u16, u16)>,
    /// Inlined calls, each inside an earlier span.
    pub inlines: Vec<GenInline>,
}

/// A path, shared as the sources share them.
fn path(prefix: &str, choice: u8) -> SharedBytes {
    format!("{prefix}/f{}.c", choice % 4).into()
}

/// Rows inside `start..end`, ascending, one per address.
fn rows(start: u64, end: u64, gen: &[(u16, u16)]) -> ThinVec<Row> {
    let len = end - start;
    let mut rows: ThinVec<Row> = gen
        .iter()
        .take(8)
        .map(|&(offset, line)| Row {
            addr: start + u64::from(offset) % len,
            line: u32::from(line),
        })
        .collect();
    rows.sort_by_key(|r| r.addr);
    rows.dedup_by_key(|r| r.addr);
    rows
}

/// The functions as model groups, starting at `base` (at most 64 functions of at most 24
/// inlined spans each).
pub fn groups(base: u32, functions: &[GenFunction]) -> Vec<Group<'static>> {
    let mut out = Vec::new();
    let mut at = u64::from(base);
    for f in functions.iter().take(64) {
        let start = at + u64::from(f.gap);
        let end = start + 1 + u64::from(f.length);
        at = end;
        let mut spans = vec![Span {
            start,
            end,
            depth: 0,
            name: Bytes::Borrowed(NAMES[usize::from(f.name) % NAMES.len()].as_bytes()),
            file: Some(path("src", f.file)),
            call_file: None,
            call_line: 0,
            instance: 0,
            rows: rows(start, end, &f.rows),
        }];
        // For each span, its children's indexes.
        let mut children: Vec<Vec<usize>> = vec![Vec::new()];
        let mut instances = 0;
        for g in f.inlines.iter().take(24) {
            let p = usize::from(g.parent) % spans.len();
            let (ps, pe) = (spans[p].start, spans[p].end);
            let s = ps + u64::from(g.offset) % (pe - ps);
            let mut e = (s + 1 + u64::from(g.length)).min(pe);
            // Not inside a sibling; up to the next sibling's start.
            let siblings = &children[p];
            if siblings
                .iter()
                .any(|&c| spans[c].start <= s && s < spans[c].end)
            {
                continue;
            }
            for &c in siblings {
                if spans[c].start > s {
                    e = e.min(spans[c].start);
                }
            }
            let previous = siblings.last().map(|&c| &spans[c]);
            let (name, call_file, call_line, instance) = match previous {
                Some(prev) if g.continues => (
                    prev.name.clone(),
                    prev.call_file.clone(),
                    prev.call_line,
                    prev.instance,
                ),
                _ => {
                    instances += 1;
                    (
                        Bytes::Borrowed(NAMES[usize::from(g.name) % NAMES.len()].as_bytes()),
                        Some(path("inc", g.call_file)),
                        u32::from(g.call_line),
                        instances,
                    )
                }
            };
            spans.push(Span {
                start: s,
                end: e,
                depth: spans[p].depth + 1,
                name,
                file: Some(path("inc", g.file)),
                call_file,
                call_line,
                instance,
                rows: rows(s, e, &g.rows),
            });
            children[p].push(spans.len() - 1);
            children.push(Vec::new());
        }
        sort_spans(&mut spans);
        out.push(Group { spans });
    }
    out
}

/// One frame: function, file, line.
pub type Frame = (Vec<u8>, Vec<u8>, u32);

/// The frames the model answers at `addr`, innermost first: the spans that cover it,
/// deepest first, the innermost with its file and the line of its row in force (0 before
/// its first row), each outer one with the call site of the frame inside it. Empty where
/// no function covers `addr`.
pub fn frames(groups: &[Group<'_>], addr: u64) -> Vec<Frame> {
    let Some(group) = groups.iter().find(|g| g.start() <= addr && addr < g.end()) else {
        return Vec::new();
    };
    let mut chain: Vec<&Span<'_>> = group
        .spans
        .iter()
        .filter(|s| s.start <= addr && addr < s.end)
        .collect();
    chain.sort_by_key(|s| std::cmp::Reverse(s.depth));
    let mut out = Vec::new();
    let mut inner: Option<&Span<'_>> = None;
    for span in chain {
        let (file, line) = match inner {
            Some(i) => (i.call_file.as_deref().unwrap_or_default(), i.call_line),
            None => {
                let k = span.rows.partition_point(|r| r.addr <= addr);
                let line = k.checked_sub(1).map_or(0, |k| span.rows[k].line);
                (span.file.as_deref().unwrap_or_default(), line)
            }
        };
        out.push((span.name.to_vec(), file.to_vec(), line));
        inner = Some(span);
    }
    out
}
