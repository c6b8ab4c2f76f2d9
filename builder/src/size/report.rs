//! Reports people read: sizes per section, the largest symbols, sizes per source
//! directory and file (like bloaty's default view), and what grew and shrank between two
//! archives (like SuperSize's console diff). Also as CSV and JSON for tools.

use std::collections::BTreeMap;
use std::fmt::Write;

use super::diff::{Delta, DiffStatus};
use super::json::{object, Json};
use super::model::{SizeInfo, Symbol};

/// Output format of a report.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Format {
    /// Aligned tables.
    Text,
    /// Comma-separated rows with a header line.
    Csv,
    /// One JSON document (addresses as `"0x…"` strings).
    Json,
}

/// Sizes in bloaty's units: bytes below 1 KiB, then `Ki`, `Mi`, `Gi` with three digits.
pub fn human(bytes: i64) -> String {
    let sign = if bytes < 0 { "-" } else { "" };
    let b = bytes.unsigned_abs() as f64;
    if b < 1024.0 {
        return format!("{bytes}");
    }
    let (v, unit) = if b < 1024.0 * 1024.0 {
        (b / 1024.0, "Ki")
    } else if b < 1024.0 * 1024.0 * 1024.0 {
        (b / (1024.0 * 1024.0), "Mi")
    } else {
        (b / (1024.0 * 1024.0 * 1024.0), "Gi")
    };
    if v < 10.0 {
        format!("{sign}{v:.2}{unit}")
    } else if v < 100.0 {
        format!("{sign}{v:.1}{unit}")
    } else {
        format!("{sign}{v:.0}{unit}")
    }
}

fn percent(part: i64, total: i64) -> f64 {
    if total == 0 {
        0.0
    } else {
        part as f64 * 100.0 / total as f64
    }
}

/// Rows of one table: (label, size).
type Rows = Vec<(String, i64)>;

fn directory(path: &str) -> String {
    match path.rfind('/') {
        Some(i) => path[..i].to_string(),
        None if path.is_empty() => "(no path)".to_string(),
        None => ".".to_string(),
    }
}

fn grouped(symbols: &[Symbol], key: impl Fn(&Symbol) -> String) -> Rows {
    let mut map: BTreeMap<String, f64> = BTreeMap::new();
    for s in symbols
        .iter()
        .filter(|s| !super::model::not_in_file(&s.section))
    {
        *map.entry(key(s)).or_default() += s.pss();
    }
    let mut rows: Rows = map
        .into_iter()
        .map(|(k, v)| (k, v.round() as i64))
        .collect();
    rows.sort_by(|a, b| {
        b.1.unsigned_abs()
            .cmp(&a.1.unsigned_abs())
            .then_with(|| a.0.cmp(&b.0))
    });
    rows
}

fn file_key(s: &Symbol) -> String {
    if s.source_path.is_empty() {
        "(no path)".to_string()
    } else {
        s.source_path.clone()
    }
}

/// Sections by size as the file holds them: every section except the `.other` total,
/// plus the ELF overhead (headers, alignment); sections not in the file (bss-like ones and
/// `.tbss`) are marked. These are the `sections` rows of [`show`], largest first.
pub fn file_rows(info: &SizeInfo) -> Vec<(String, i64)> {
    let mut rows: BTreeMap<String, i64> = BTreeMap::new();
    for c in &info.containers {
        for (k, v) in &c.section_sizes {
            if k != super::model::SECTION_OTHER {
                let label = if super::model::not_in_file(k) {
                    format!("{k} (not in file)")
                } else {
                    k.clone()
                };
                let e = rows.entry(label).or_default();
                *e = e.saturating_add(*v);
            }
        }
    }
    // SuperSize's overhead is the file size less every section but the bss-like ones, so
    // it is short by the thread-local bss (`.tbss`), which takes no file space either:
    // given back here, so that the rows in the file add up to its length.
    let uncounted: i64 = info
        .containers
        .iter()
        .flat_map(|c| &c.section_sizes)
        .filter(|(k, _)| super::model::NOBITS_NOT_BSS.contains(&k.as_str()))
        .fold(0i64, |acc, (_, v)| acc.saturating_add(*v));
    let overhead: i64 = info
        .symbols
        .iter()
        .filter(|s| s.full_name == "Overhead: ELF file")
        .fold(uncounted, |acc, s| acc.saturating_add(s.size));
    if overhead != 0 {
        rows.insert("[ELF headers and padding]".into(), overhead);
    }
    let mut rows: Rows = rows.into_iter().collect();
    rows.sort_by(|a, b| b.1.cmp(&a.1).then_with(|| a.0.cmp(&b.0)));
    rows
}

/// The file size: all rows of [`file_rows`] but those not in the file.
pub fn file_size(rows: &[(String, i64)]) -> i64 {
    rows.iter()
        .filter(|(k, _)| !k.ends_with("(not in file)"))
        .fold(0i64, |acc, (_, v)| acc.saturating_add(*v))
}

/// The tables of `show`: sections, the `top` largest symbols, directories, files.
pub fn show(info: &SizeInfo, top: usize, format: Format) -> String {
    let sections = file_rows(info);
    let total = file_size(&sections);
    let mut largest: Vec<&Symbol> = info.symbols.iter().collect();
    largest.sort_by(|a, b| {
        b.size
            .cmp(&a.size)
            .then_with(|| a.full_name.cmp(&b.full_name))
    });
    largest.truncate(top);
    let dirs = grouped(&info.symbols, |s| directory(&s.source_path));
    let files = grouped(&info.symbols, file_key);
    match format {
        Format::Json => {
            let table = |rows: &Rows| {
                Json::List(
                    rows.iter()
                        .map(|(k, v)| {
                            object([
                                ("name".into(), Json::Str(k.clone())),
                                ("size".into(), Json::Int(*v)),
                            ])
                        })
                        .collect(),
                )
            };
            let symbols = Json::List(largest.iter().map(|s| symbol_json(s)).collect());
            let mut doc = object([
                ("file_size".into(), Json::Int(total)),
                ("sections".into(), table(&sections)),
                ("symbols".into(), symbols),
                ("directories".into(), table(&dirs)),
                ("files".into(), table(&files)),
            ])
            .dumps();
            doc.push('\n');
            doc
        }
        Format::Csv => {
            let mut rows = Vec::new();
            for (k, v) in &sections {
                rows.push(vec![
                    "section".into(),
                    k.clone(),
                    k.clone(),
                    String::new(),
                    v.to_string(),
                    format!("{:.2}", percent(*v, total)),
                ]);
            }
            for s in &largest {
                rows.push(vec![
                    "symbol".into(),
                    s.full_name.clone(),
                    s.section.clone(),
                    format!("0x{:x}", s.address),
                    s.size.to_string(),
                    format!("{:.2}", percent(s.size, total)),
                ]);
            }
            for (table, table_rows) in [("directory", &dirs), ("file", &files)] {
                for (k, v) in table_rows {
                    rows.push(vec![
                        table.into(),
                        k.clone(),
                        String::new(),
                        String::new(),
                        v.to_string(),
                        format!("{:.2}", percent(*v, total)),
                    ]);
                }
            }
            csv_text(
                &["table", "name", "section", "address", "size", "percent"],
                rows,
            )
        }
        Format::Text => {
            let mut out = String::new();
            text_table(&mut out, "SECTION", &sections, total);
            let rows: Rows = largest
                .iter()
                .map(|s| (format!("{} [{}]", s.full_name, s.section), s.size))
                .collect();
            text_table(
                &mut out,
                &format!("LARGEST {} SYMBOLS", rows.len()),
                &rows,
                total,
            );
            text_table(&mut out, "SOURCE DIRECTORY", &dirs, total);
            text_table(&mut out, "SOURCE FILE", &files, total);
            let _ = writeln!(
                out,
                "{:>7}  {:>8}    TOTAL (file size)",
                "100.0%",
                human(total)
            );
            out
        }
    }
}

fn text_table(out: &mut String, title: &str, rows: &Rows, total: i64) {
    let _ = writeln!(out, "{:>7}  {:>8}    {title}", "PERCENT", "SIZE");
    for (k, v) in rows {
        let _ = writeln!(out, "{:>6.1}%  {:>8}    {k}", percent(*v, total), human(*v));
    }
    out.push('\n');
}

/// `rows` under `header` as CSV (RFC 4180 quoting of any field that needs it, `\n` line
/// ends).
fn csv_text(header: &[&str], rows: Vec<Vec<String>>) -> String {
    let mut writer = csv::WriterBuilder::new()
        .terminator(csv::Terminator::Any(b'\n'))
        .from_writer(Vec::new());
    // Writing into a Vec cannot fail.
    let _ = writer.write_record(header);
    for row in rows {
        let _ = writer.write_record(&row);
    }
    let bytes = writer.into_inner().unwrap_or_default();
    String::from_utf8_lossy(&bytes).into_owned()
}

fn symbol_json(s: &Symbol) -> Json {
    object([
        ("name".into(), Json::Str(s.full_name.clone())),
        ("section".into(), Json::Str(s.section.clone())),
        ("address".into(), Json::Str(format!("0x{:x}", s.address))),
        ("size".into(), Json::Int(s.size)),
        ("padding".into(), Json::Int(s.padding)),
        ("source_path".into(), Json::Str(s.source_path.clone())),
    ])
}

/// One changed symbol of a diff report.
pub struct Change<'a> {
    /// Added, removed or changed.
    pub status: DiffStatus,
    /// The after side's symbol, or the before side's for a removed one.
    pub symbol: &'a Symbol,
    /// Size before (0 when added): without padding, `Overhead: …` symbols in full.
    pub before: i64,
    /// Size after (0 when removed), measured as `before` is.
    pub after: i64,
}

/// The symbols of `delta` that were added, removed or changed in size, largest change
/// first, then by name: the `symbols` rows of [`diff`].
pub fn changes<'a>(before: &'a SizeInfo, after: &'a SizeInfo, delta: &Delta) -> Vec<Change<'a>> {
    let mut changes: Vec<Change<'a>> = delta
        .symbols
        .iter()
        .filter(|d| d.status != DiffStatus::Unchanged)
        .filter_map(|d| {
            let b = d.before.map(|i| &before.symbols[i]);
            let a = d.after.map(|i| &after.symbols[i]);
            let size = |s: Option<&Symbol>| {
                s.map_or(0, |s| {
                    if s.is_overhead() {
                        s.size
                    } else {
                        s.size_without_padding()
                    }
                })
            };
            Some(Change {
                status: d.status,
                symbol: a.or(b)?,
                before: size(b),
                after: size(a),
            })
        })
        .filter(|c| c.before != c.after || c.status != DiffStatus::Changed)
        .collect();
    changes.sort_by(|x, y| {
        y.after
            .wrapping_sub(y.before)
            .unsigned_abs()
            .cmp(&x.after.wrapping_sub(x.before).unsigned_abs())
            .then_with(|| x.symbol.full_name.cmp(&y.symbol.full_name))
    });
    changes
}

/// What grew and shrank: sections, symbols added/removed/changed, per source file.
pub fn diff(before: &SizeInfo, after: &SizeInfo, delta: &Delta, format: Format) -> String {
    let sizes =
        |info: &SizeInfo| -> BTreeMap<String, i64> { file_rows(info).into_iter().collect() };
    let (sb, sa) = (sizes(before), sizes(after));
    let mut sections: Vec<(String, i64, i64)> = sb
        .keys()
        .chain(sa.keys())
        .collect::<std::collections::BTreeSet<_>>()
        .into_iter()
        .map(|k| {
            (
                k.clone(),
                sb.get(k).copied().unwrap_or(0),
                sa.get(k).copied().unwrap_or(0),
            )
        })
        .filter(|(_, b, a)| a != b)
        .collect();
    sections.sort_by(|x, y| {
        y.2.wrapping_sub(y.1)
            .unsigned_abs()
            .cmp(&x.2.wrapping_sub(x.1).unsigned_abs())
            .then_with(|| x.0.cmp(&y.0))
    });
    let changes = changes(before, after, delta);
    let mut files: BTreeMap<String, i64> = BTreeMap::new();
    for c in &changes {
        let e = files.entry(file_key(c.symbol)).or_default();
        *e = e.saturating_add(c.after.saturating_sub(c.before));
    }
    let mut files: Vec<(String, i64)> = files.into_iter().filter(|(_, v)| *v != 0).collect();
    files.sort_by(|x, y| {
        y.1.unsigned_abs()
            .cmp(&x.1.unsigned_abs())
            .then_with(|| x.0.cmp(&y.0))
    });
    let status_name = |s: DiffStatus| match s {
        DiffStatus::Added => "added",
        DiffStatus::Removed => "removed",
        DiffStatus::Changed => "changed",
        DiffStatus::Unchanged => "unchanged",
    };
    let total = |m: &BTreeMap<String, i64>| {
        file_size(&m.iter().map(|(k, v)| (k.clone(), *v)).collect::<Rows>())
    };
    let (tb, ta) = (total(&sb), total(&sa));
    match format {
        Format::Json => {
            let list = changes
                .iter()
                .map(|c| {
                    object([
                        ("status".into(), Json::Str(status_name(c.status).into())),
                        ("name".into(), Json::Str(c.symbol.full_name.clone())),
                        ("section".into(), Json::Str(c.symbol.section.clone())),
                        (
                            "address".into(),
                            Json::Str(format!("0x{:x}", c.symbol.address)),
                        ),
                        ("before".into(), Json::Int(c.before)),
                        ("after".into(), Json::Int(c.after)),
                        ("delta".into(), Json::Int(c.after.wrapping_sub(c.before))),
                        (
                            "source_path".into(),
                            Json::Str(c.symbol.source_path.clone()),
                        ),
                    ])
                })
                .collect();
            let secs = sections
                .iter()
                .map(|(k, b, a)| {
                    object([
                        ("name".into(), Json::Str(k.clone())),
                        ("before".into(), Json::Int(*b)),
                        ("after".into(), Json::Int(*a)),
                        ("delta".into(), Json::Int(a.wrapping_sub(*b))),
                    ])
                })
                .collect();
            let fl = files
                .iter()
                .map(|(k, v)| {
                    object([
                        ("name".into(), Json::Str(k.clone())),
                        ("delta".into(), Json::Int(*v)),
                    ])
                })
                .collect();
            let mut doc = object([
                (
                    "file_size".into(),
                    object([
                        ("before".into(), Json::Int(tb)),
                        ("after".into(), Json::Int(ta)),
                        ("delta".into(), Json::Int(ta.wrapping_sub(tb))),
                    ]),
                ),
                ("sections".into(), Json::List(secs)),
                ("symbols".into(), Json::List(list)),
                ("files".into(), Json::List(fl)),
            ])
            .dumps();
            doc.push('\n');
            doc
        }
        Format::Csv => {
            let mut rows = Vec::new();
            for (k, b, a) in &sections {
                rows.push(vec![
                    "section".into(),
                    String::new(),
                    k.clone(),
                    k.clone(),
                    String::new(),
                    b.to_string(),
                    a.to_string(),
                    a.wrapping_sub(*b).to_string(),
                ]);
            }
            for c in &changes {
                rows.push(vec![
                    "symbol".into(),
                    status_name(c.status).into(),
                    c.symbol.full_name.clone(),
                    c.symbol.section.clone(),
                    format!("0x{:x}", c.symbol.address),
                    c.before.to_string(),
                    c.after.to_string(),
                    c.after.wrapping_sub(c.before).to_string(),
                ]);
            }
            for (k, v) in &files {
                let mut row = vec![String::new(); 8];
                row[0] = "file".into();
                row[2] = k.clone();
                row[7] = v.to_string();
                rows.push(row);
            }
            csv_text(
                &[
                    "table", "status", "name", "section", "address", "before", "after", "delta",
                ],
                rows,
            )
        }
        Format::Text => {
            let mut out = String::new();
            let _ = writeln!(
                out,
                "File size: {} -> {} ({:+})\n",
                human(tb),
                human(ta),
                ta.wrapping_sub(tb)
            );
            let _ = writeln!(out, "Section sizes:");
            for (k, b, a) in &sections {
                let _ = writeln!(
                    out,
                    "  {:+9}  {k}  ({} -> {})",
                    a.wrapping_sub(*b),
                    human(*b),
                    human(*a)
                );
            }
            let count = |s: DiffStatus| changes.iter().filter(|c| c.status == s).count();
            let _ = writeln!(
                out,
                "\nSymbols: {} added, {} removed, {} changed",
                count(DiffStatus::Added),
                count(DiffStatus::Removed),
                count(DiffStatus::Changed)
            );
            for c in &changes {
                let mark = match c.status {
                    DiffStatus::Added => '+',
                    DiffStatus::Removed => '-',
                    _ => '~',
                };
                let _ = writeln!(
                    out,
                    "  {mark} {:+9}  {} [{}]  ({} -> {})",
                    c.after.wrapping_sub(c.before),
                    c.symbol.full_name,
                    c.symbol.section,
                    c.before,
                    c.after
                );
            }
            let _ = writeln!(out, "\nSource files:");
            for (k, v) in &files {
                let _ = writeln!(out, "  {v:+9}  {k}");
            }
            out
        }
    }
}
