//! The size viewer: one self-contained HTML page for a `.size` or a `.sizediff`, with the
//! archive inline as JSON and plain JavaScript (no library, nothing fetched) that draws it
//! as a tree by source path (directories, file, section, symbol) with sizes and counts,
//! a regular-expression filter, section checkboxes and, for a diff, growth and shrinkage
//! coloured with the added, removed and changed counts.
//!
//! The numbers are those of [`report`]: a `.size` page's file size is
//! `size show`'s, and its tree sums each symbol's share of its alias group as `size
//! show`'s directory and file tables do; a `.sizediff` page lists the changes of `size
//! diff` with the same sizes. The bytes depend only on the archive and the title.

use std::collections::BTreeMap;

use serde::Serialize;

use super::diff::{self, DiffStatus};
use super::model::{not_in_file, SizeInfo, Symbol};
use super::report;

/// The page around the data; `{{NAME}}` marks where a piece goes.
const PAGE: &str = include_str!("html/page.html");
/// The style sheet.
const CSS: &str = include_str!("html/viewer.css");
/// The scripts, in the order they depend on each other.
const SCRIPTS: [&str; 4] = [
    include_str!("html/tree.js"),
    include_str!("html/treemap.js"),
    include_str!("html/view.js"),
    include_str!("html/page.js"),
];

/// The version of the embedded data's layout, for tools that read it back.
const DATA_VERSION: u32 = 1;

/// The embedded data: string tables and one array per symbol column (a column layout
/// keeps a 100,000-symbol page a few megabytes and quick to parse).
#[derive(Serialize)]
struct Data<'a> {
    version: u32,
    kind: &'static str,
    title: &'a str,
    file_size: FileSize,
    /// The `sections` rows of `size show` (of the after side for a diff).
    sections: Vec<(String, i64)>,
    section_names: Vec<&'a str>,
    /// Sections of `section_names` that take no file space (unchecked at first).
    not_in_file: Vec<&'a str>,
    paths: Vec<&'a str>,
    components: Vec<&'a str>,
    symbols: Columns<'a>,
}

#[derive(Serialize)]
#[serde(untagged)]
enum FileSize {
    Size(i64),
    Diff { before: i64, after: i64 },
}

#[derive(Serialize, Default)]
struct Columns<'a> {
    name: Vec<&'a str>,
    section: Vec<u32>,
    path: Vec<u32>,
    component: Vec<u32>,
    /// `.size`: size including padding, shared among `aliases` members.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    size: Vec<i64>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    aliases: Vec<u32>,
    /// `.sizediff`: sizes as `size diff` reports them, and 0 added, 1 removed, 2 changed.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    before: Vec<i64>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    after: Vec<i64>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    status: Vec<u8>,
}

/// Strings numbered in sorted order, so that the tables do not depend on symbol order.
struct Table<'a> {
    index: BTreeMap<&'a str, u32>,
}

impl<'a> Table<'a> {
    fn new(values: impl Iterator<Item = &'a str>) -> Self {
        let mut index: BTreeMap<&'a str, u32> = values.map(|v| (v, 0)).collect();
        for (i, v) in index.values_mut().enumerate() {
            *v = i as u32;
        }
        Table { index }
    }

    fn get(&self, value: &str) -> u32 {
        self.index.get(value).copied().unwrap_or(0)
    }

    fn values(&self) -> Vec<&'a str> {
        self.index.keys().copied().collect()
    }
}

/// The string tables and the columns every symbol has.
fn tables<'a>(symbols: &[&'a Symbol]) -> (Table<'a>, Table<'a>, Table<'a>, Columns<'a>) {
    let sections = Table::new(symbols.iter().map(|s| s.section.as_str()));
    let paths = Table::new(symbols.iter().map(|s| s.source_path.as_str()));
    let components = Table::new(symbols.iter().map(|s| s.component.as_str()));
    let columns = Columns {
        name: symbols.iter().map(|s| s.full_name.as_str()).collect(),
        section: symbols.iter().map(|s| sections.get(&s.section)).collect(),
        path: symbols.iter().map(|s| paths.get(&s.source_path)).collect(),
        component: symbols
            .iter()
            .map(|s| components.get(&s.component))
            .collect(),
        ..Columns::default()
    };
    (sections, paths, components, columns)
}

fn data<'a>(
    kind: &'static str,
    title: &'a str,
    file_size: FileSize,
    sections_info: &SizeInfo,
    symbols: &[&'a Symbol],
    fill: impl FnOnce(&mut Columns<'a>),
) -> Data<'a> {
    let (sections, paths, components, mut columns) = tables(symbols);
    fill(&mut columns);
    let section_names = sections.values();
    Data {
        version: DATA_VERSION,
        kind,
        title,
        file_size,
        sections: report::file_rows(sections_info),
        not_in_file: section_names
            .iter()
            .copied()
            .filter(|s| not_in_file(s))
            .collect(),
        section_names,
        paths: paths.values(),
        components: components.values(),
        symbols: columns,
    }
}

/// The viewer page of one archive, titled `title` (the file name, say).
pub fn size_page(info: &SizeInfo, title: &str) -> String {
    let symbols: Vec<&Symbol> = info.symbols.iter().collect();
    let file_size = report::file_size(&report::file_rows(info));
    let data = data(
        "size",
        title,
        FileSize::Size(file_size),
        info,
        &symbols,
        |c| {
            c.size = symbols.iter().map(|s| s.size).collect();
            c.aliases = symbols.iter().map(|s| s.num_aliases).collect();
        },
    );
    page(title, &data)
}

/// The viewer page of what changed from `before` to `after` (the two sides of a
/// `.sizediff`, or two whole archives), titled `title`.
pub fn diff_page(before: &SizeInfo, after: &SizeInfo, title: &str) -> String {
    let delta = diff::diff(before, after);
    let changes = report::changes(before, after, &delta);
    let symbols: Vec<&Symbol> = changes.iter().map(|c| c.symbol).collect();
    let size_of = |info: &SizeInfo| report::file_size(&report::file_rows(info));
    let file_size = FileSize::Diff {
        before: size_of(before),
        after: size_of(after),
    };
    let data = data("sizediff", title, file_size, after, &symbols, |c| {
        c.before = changes.iter().map(|c| c.before).collect();
        c.after = changes.iter().map(|c| c.after).collect();
        c.status = changes
            .iter()
            .map(|c| match c.status {
                DiffStatus::Added => 0,
                DiffStatus::Removed => 1,
                DiffStatus::Changed | DiffStatus::Unchanged => 2,
            })
            .collect();
    });
    page(title, &data)
}

/// JSON that can sit inside a `<script>` element: every `<` escaped, so that no name can
/// end the element (`</script>`) or open a comment (`<!--`) that changes how it ends.
fn script_json(data: &Data<'_>) -> String {
    // Serializing plain strings and integers cannot fail.
    let json = serde_json::to_string(data).unwrap_or_default();
    json.replace('<', "\\u003c")
}

/// Text for HTML element content and attribute values.
fn escape_html(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            _ => out.push(c),
        }
    }
    out
}

/// The page with its pieces in place. Each `{{NAME}}` of the template is replaced once,
/// left to right, so that text inside a piece is never taken for a placeholder.
fn page(title: &str, data: &Data<'_>) -> String {
    let title = escape_html(title);
    let json = script_json(data);
    let js = SCRIPTS.concat();
    let mut out = String::with_capacity(PAGE.len() + CSS.len() + js.len() + json.len());
    let mut rest = PAGE;
    while let Some(start) = rest.find("{{") {
        out.push_str(&rest[..start]);
        let after = &rest[start + 2..];
        let Some(end) = after.find("}}") else {
            break;
        };
        match &after[..end] {
            "TITLE" => out.push_str(&title),
            "CSS" => out.push_str(CSS),
            "JS" => out.push_str(&js),
            "DATA" => out.push_str(&json),
            other => {
                out.push_str("{{");
                out.push_str(other);
                out.push_str("}}");
            }
        }
        rest = &after[end + 2..];
    }
    out.push_str(rest);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn archive(names: &[&str]) -> SizeInfo {
        let mut info = SizeInfo::default();
        info.containers.push(Default::default());
        for (i, name) in names.iter().enumerate() {
            let mut s = Symbol::new(".text", 0x1000 + 16 * i as u64, 16, name.to_string());
            s.source_path = format!("src/{name}.c");
            info.symbols.push(s);
        }
        info
    }

    #[test]
    fn no_name_can_end_the_data_script() {
        let page = size_page(
            &archive(&["</script><script>alert(1)</script>", "<!--<script>"]),
            "t",
        );
        let data_start = page.find("id=\"size-data\">").unwrap();
        let data_end = data_start + page[data_start..].find("</script>").unwrap();
        let json = &page[data_start + "id=\"size-data\">".len()..data_end];
        assert!(!json.contains('<'));
        let value: serde_json::Value = serde_json::from_str(json).unwrap();
        assert_eq!(
            value["symbols"]["name"][0],
            "</script><script>alert(1)</script>"
        );
        // The page's own two scripts, and nothing the data added.
        assert_eq!(page.matches("</script>").count(), 2);
    }

    #[test]
    fn the_title_is_escaped_and_placeholders_in_data_stay() {
        let page = size_page(&archive(&["{{JS}}"]), "a<b>&\"c\"");
        assert!(page.contains("<title>a&lt;b&gt;&amp;&quot;c&quot;</title>"));
        assert!(page.contains("\"{{JS}}\""));
        assert!(!page.contains("{{TITLE}}"));
    }

    #[test]
    fn the_same_archive_gives_the_same_bytes() {
        let info = archive(&["b", "a", "c"]);
        assert_eq!(size_page(&info, "x"), size_page(&info.clone(), "x"));
    }
}
