//! `symblob size html`: the viewer page opened in a real browser. Debian's `chromium`
//! runs headless on the `file://` page; the URL hash expands groups and sets filters as a
//! user's shared link would; the DOM it renders is read back and compared with what
//! `symblob size show --json` prints for the same file. Screenshots go to
//! `target/test-artefacts/`.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use serde_json::Value;

use crate::common::{failed, ok, root, run, s, testdata, tool};

/// How long one headless page load may take on a busy machine.
const BROWSER_TIMEOUT: Duration = Duration::from_secs(180);

/// `symblob size show --json FILE`.
fn show_json(file: &Path) -> Value {
    let out = run(&["size", "show", "--json", s(file)], b"");
    ok(&out);
    serde_json::from_slice(&out.stdout).unwrap()
}

/// `symblob size html FILE -o DIR/NAME.html`.
fn html_page(file: &Path, dir: &Path, name: &str) -> PathBuf {
    let page = dir.join(format!("{name}.html"));
    ok(&run(&["size", "html", s(file), "-o", s(&page)], b""));
    page
}

/// Runs headless chromium on `page#hash` with `mode` (`--dump-dom` or a screenshot
/// flag) and a profile of its own; returns standard output.
fn chromium(browser: &Path, page: &Path, hash: &str, mode: &[String]) -> String {
    let profile = tempfile::tempdir().unwrap();
    let out_path = profile.path().join("stdout");
    let mut child = Command::new(browser)
        .args(["--headless=new", "--disable-gpu", "--no-sandbox"])
        .args([
            "--no-first-run",
            "--no-default-browser-check",
            "--hide-scrollbars",
        ])
        .arg(format!(
            "--user-data-dir={}",
            profile.path().join("p").display()
        ))
        .args(mode)
        .arg(format!("file://{}#{hash}", page.display()))
        .stdin(Stdio::null())
        .stdout(std::fs::File::create(&out_path).unwrap())
        .stderr(Stdio::null())
        .spawn()
        .expect("start chromium");
    let start = Instant::now();
    let status = loop {
        if let Some(status) = child.try_wait().unwrap() {
            break status;
        }
        if start.elapsed() > BROWSER_TIMEOUT {
            let _ = child.kill();
            let _ = child.wait();
            panic!(
                "chromium did not finish {} within {BROWSER_TIMEOUT:?}",
                page.display()
            );
        }
        std::thread::sleep(Duration::from_millis(50));
    };
    assert!(status.success(), "chromium failed on {}", page.display());
    std::fs::read_to_string(out_path).unwrap()
}

/// The DOM of `page#hash` after its scripts ran.
fn rendered(browser: &Path, page: &Path, hash: &str) -> String {
    let dom = chromium(browser, page, hash, &["--dump-dom".to_string()]);
    assert!(
        dom.contains("data-ready=\"1\""),
        "the page did not finish drawing:\n{dom}"
    );
    dom
}

/// A screenshot of `page#hash`, kept as `target/test-artefacts/NAME.png`.
fn screenshot(browser: &Path, page: &Path, hash: &str, name: &str) {
    let dir = root().join("target/test-artefacts");
    std::fs::create_dir_all(&dir).unwrap();
    let png = dir.join(format!("{name}.png"));
    let _ = std::fs::remove_file(&png);
    chromium(
        browser,
        page,
        hash,
        &[
            format!("--screenshot={}", png.display()),
            "--window-size=1200,900".into(),
        ],
    );
    let bytes = std::fs::read(&png).expect("screenshot written");
    assert!(
        bytes.starts_with(b"\x89PNG"),
        "{} is not a PNG",
        png.display()
    );
}

fn unescape(text: &str) -> String {
    text.replace("&quot;", "\"")
        .replace("&lt;", "<")
        .replace("&gt;", ">")
        .replace("&#39;", "'")
        .replace("&nbsp;", "\u{a0}")
        .replace("&amp;", "&")
}

/// The attributes of the start tag at the beginning of `tag` (values unescaped), and
/// the text after it.
fn attributes(tag: &str) -> (BTreeMap<String, String>, &str) {
    let mut attrs = BTreeMap::new();
    let mut rest = &tag[tag.find(' ').unwrap()..];
    loop {
        rest = rest.trim_start();
        if let Some(after) = rest.strip_prefix('>') {
            return (attrs, after);
        }
        let eq = rest.find(['=', ' ', '>']).unwrap();
        let name = rest[..eq].to_string();
        if !rest[eq..].starts_with("=\"") {
            attrs.insert(name, String::new());
            rest = &rest[eq..];
            continue;
        }
        let value_start = eq + 2;
        let value_end = value_start + rest[value_start..].find('"').unwrap();
        attrs.insert(name, unescape(&rest[value_start..value_end]));
        rest = &rest[value_end + 1..];
    }
}

/// One drawn row of the tree.
#[derive(Debug)]
struct Row {
    attrs: BTreeMap<String, String>,
    label: String,
}

impl Row {
    fn get(&self, name: &str) -> &str {
        self.attrs.get(name).map_or("", String::as_str)
    }

    fn int(&self, name: &str) -> i64 {
        self.get(name)
            .parse()
            .unwrap_or_else(|_| panic!("{name} of {self:?}"))
    }
}

/// Every row the page drew, in document order.
fn rows(dom: &str) -> Vec<Row> {
    dom.match_indices("<div class=\"row\"")
        .map(|(at, _)| {
            let (attrs, after) = attributes(&dom[at..]);
            let label_at = after.find("<span class=\"label").unwrap();
            let text = &after[label_at..];
            let text = &text[text.find('>').unwrap() + 1..];
            let label = unescape(&text[..text.find("</span>").unwrap()]);
            Row { attrs, label }
        })
        .collect()
}

fn group<'a>(rows: &'a [Row], id: &str) -> &'a Row {
    rows.iter()
        .find(|r| r.get("data-kind") != "symbol" && r.get("data-id") == id)
        .unwrap_or_else(|| panic!("no group {id:?} drawn"))
}

/// The attributes of the element with `id`.
fn element(dom: &str, id: &str) -> BTreeMap<String, String> {
    let at = dom.find(&format!(" id=\"{id}\"")).unwrap();
    let start = dom[..at].rfind('<').unwrap();
    attributes(&dom[start..]).0
}

/// The treemap's rectangles of groups: (group id, area in pixels).
fn treemap_cells(dom: &str) -> Vec<(String, f64)> {
    dom.match_indices("<div class=\"cell")
        .filter_map(|(at, _)| {
            let (attrs, _) = attributes(&dom[at..]);
            let style = attrs.get("style")?;
            let px = |key: &str| -> Option<f64> {
                let v = &style[style.find(&format!("{key}: "))? + key.len() + 2..];
                v[..v.find("px")?].parse().ok()
            };
            let area = px("width").unwrap_or(0.0) * px("height").unwrap_or(0.0);
            Some((attrs.get("data-id")?.clone(), area))
        })
        .collect()
}

/// `#expand=…` of every path (and its `.text` section) of a table of `size show`.
fn expand_all(table: &Value) -> String {
    let mut hash = url_params();
    for row in table.as_array().unwrap() {
        let name = row["name"].as_str().unwrap();
        hash.append_pair("expand", &format!("{name}/.text"));
    }
    hash.finish()
}

/// A URL hash of `key=value` pairs, as the page's `URLSearchParams` reads it.
#[derive(Default)]
struct Hash(String);

impl Hash {
    fn append_pair(&mut self, key: &str, value: &str) {
        if !self.0.is_empty() {
            self.0.push('&');
        }
        self.0.push_str(key);
        self.0.push('=');
        for b in value.bytes() {
            match b {
                b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'.' | b'_' | b'/' => {
                    self.0.push(char::from(b))
                }
                _ => self.0.push_str(&format!("%{b:02X}")),
            }
        }
    }

    fn finish(self) -> String {
        self.0
    }
}

fn url_params() -> Hash {
    Hash::default()
}

fn browser() -> Option<PathBuf> {
    tool("chromium")
}

#[test]
fn size_html_shows_the_totals_of_size_show_in_a_browser() {
    let Some(browser) = browser() else { return };
    let dir = tempfile::tempdir().unwrap();
    let archive = testdata("supersize/sizedemo-v1.size");
    let show = show_json(&archive);
    let page = html_page(&archive, dir.path(), "sizedemo-v1");

    let hash = expand_all(&show["files"]);
    let dom = rendered(&browser, &page, &hash);
    assert_eq!(
        element(&dom, "summary")["data-file-size"],
        show["file_size"].to_string()
    );
    let drawn = rows(&dom);
    let files = show["files"].as_array().unwrap();
    let total: i64 = files.iter().map(|f| f["size"].as_i64().unwrap()).sum();
    assert_eq!(group(&drawn, "").int("data-size"), total);
    for file in files {
        let name = file["name"].as_str().unwrap();
        let row = group(&drawn, name);
        assert_eq!(row.get("data-kind"), "file", "{row:?}");
        assert_eq!(
            row.int("data-size"),
            file["size"].as_i64().unwrap(),
            "{name}"
        );
    }
    // An expanded group shows its children, whose sizes and counts add up to its own.
    let text = group(&drawn, "sizedemo.c/.text");
    let children: Vec<&Row> = drawn
        .iter()
        .skip_while(|r| r.get("data-id") != "sizedemo.c/.text")
        .skip(1)
        .take_while(|r| r.get("data-kind") == "symbol")
        .collect();
    assert_eq!(children.len() as i64, text.int("data-count"));
    let sum: i64 = children.iter().map(|r| r.int("data-size")).sum();
    assert!(
        (sum - text.int("data-size")).abs() <= 1,
        "{sum} vs {text:?}"
    );
    let main = children
        .iter()
        .find(|r| r.label == "main")
        .expect("main drawn");
    let listed = show["symbols"].as_array().unwrap().iter();
    let main_size = listed
        .clone()
        .find(|s| s["name"] == "main")
        .map(|s| s["size"].as_i64().unwrap())
        .unwrap();
    assert_eq!(main.int("data-size"), main_size);
    // The treemap shows the top groups, the largest as the largest rectangle.
    let cells = treemap_cells(&dom);
    let top: Vec<&Row> = drawn
        .iter()
        .filter(|r| r.get("data-kind") == "file")
        .collect();
    assert_eq!(cells.len(), top.len(), "{cells:?}");
    let largest = top.iter().max_by_key(|r| r.int("data-size")).unwrap();
    let widest = cells.iter().max_by(|a, b| a.1.total_cmp(&b.1)).unwrap();
    assert_eq!(widest.0, largest.get("data-id"));
    screenshot(&browser, &page, &hash, "size-html-sizedemo-v1");

    // A filter narrows the rows to what it matches.
    let mut hash = url_params();
    hash.append_pair("filter", "^main$");
    let filtered = rows(&rendered(&browser, &page, &hash.finish()));
    let root = group(&filtered, "");
    assert_eq!(root.int("data-count"), 1);
    assert_eq!(root.int("data-size"), main_size);
    assert!(filtered.len() < drawn.len());

    // Section checkboxes: one section's symbols add up to its row of `size show`.
    for section in [".text", ".bss"] {
        let mut hash = url_params();
        hash.append_pair("section", section);
        let drawn = rows(&rendered(&browser, &page, &hash.finish()));
        let row = show["sections"]
            .as_array()
            .unwrap()
            .iter()
            .find(|r| r["name"].as_str().unwrap().split(' ').next() == Some(section))
            .unwrap();
        assert_eq!(
            group(&drawn, "").int("data-size"),
            row["size"].as_i64().unwrap(),
            "{section}"
        );
    }
}

#[test]
fn size_html_colours_a_sizediff_as_size_show_reports_it() {
    let Some(browser) = browser() else { return };
    let dir = tempfile::tempdir().unwrap();
    let diff = testdata("supersize/sizedemo.sizediff");
    let show = show_json(&diff);
    let page = html_page(&diff, dir.path(), "sizedemo");

    let hash = expand_all(&show["files"]);
    let dom = rendered(&browser, &page, &hash);
    let summary = element(&dom, "summary");
    for (attr, key) in [
        ("data-file-size-before", "before"),
        ("data-file-size-after", "after"),
        ("data-file-size-delta", "delta"),
    ] {
        assert_eq!(summary[attr], show["file_size"][key].to_string(), "{attr}");
    }
    let symbols = show["symbols"].as_array().unwrap();
    for status in ["added", "removed", "changed"] {
        let n = symbols.iter().filter(|s| s["status"] == status).count();
        assert_eq!(
            summary[&format!("data-{status}")],
            n.to_string(),
            "{status}"
        );
    }
    let drawn = rows(&dom);
    let total: i64 = symbols.iter().map(|s| s["delta"].as_i64().unwrap()).sum();
    assert_eq!(group(&drawn, "").int("data-size"), total);
    for file in show["files"].as_array().unwrap() {
        let name = file["name"].as_str().unwrap();
        assert_eq!(
            group(&drawn, name).int("data-size"),
            file["delta"].as_i64().unwrap()
        );
    }
    // Every changed symbol of sizedemo.c's .text is drawn with its delta and status, and
    // the growth is coloured as growth.
    for sym in symbols.iter().filter(|s| s["source_path"] == "sizedemo.c") {
        let row = drawn
            .iter()
            .find(|r| r.get("data-kind") == "symbol" && r.label == sym["name"].as_str().unwrap())
            .unwrap_or_else(|| panic!("{} not drawn", sym["name"]));
        assert_eq!(row.int("data-size"), sym["delta"].as_i64().unwrap());
        assert_eq!(row.get("data-status"), sym["status"].as_str().unwrap());
    }
    let grow = dom.matches("class=\"size grow\"").count();
    let growing = drawn.iter().filter(|r| r.int("data-size") > 0).count();
    assert_eq!(grow, growing);
    screenshot(&browser, &page, &hash, "size-html-sizedemo-sizediff");

    // Only the added symbols.
    let mut hash = url_params();
    hash.append_pair("status", "added");
    let added = rows(&rendered(&browser, &page, &hash.finish()));
    let root = group(&added, "");
    let expected = symbols.iter().filter(|s| s["status"] == "added");
    assert_eq!(root.int("data-count"), expected.clone().count() as i64);
    assert_eq!(
        root.int("data-size"),
        expected.map(|s| s["delta"].as_i64().unwrap()).sum::<i64>()
    );
}

#[test]
fn size_html_is_one_self_contained_file_with_the_same_bytes_each_run() {
    let dir = tempfile::tempdir().unwrap();
    let diff = testdata("supersize/sizedemo.sizediff");
    let a = std::fs::read(html_page(&diff, dir.path(), "a")).unwrap();
    let b = std::fs::read(html_page(&diff, dir.path(), "b")).unwrap();
    assert_eq!(a, b);
    let text = String::from_utf8(a).unwrap();
    for needle in ["http:", "https:", " src=", " href=", "@import", "url("] {
        assert!(
            !text.contains(needle),
            "the page refers outside itself: {needle}"
        );
    }
    // The input is refused as the output, and a bad input is named.
    let out = run(&["size", "html", s(&diff), "-o", s(&diff)], b"");
    failed(&out);
    let bad = dir.path().join("bad.size");
    std::fs::write(
        &bad,
        b"# Created by //tools/binary_size\nSize File Format v9\n",
    )
    .unwrap();
    let out = run(
        &["size", "html", s(&bad), "-o", s(&dir.path().join("x.html"))],
        b"",
    );
    failed(&out);
    assert!(String::from_utf8_lossy(&out.stderr).contains("bad.size"));
    assert!(!dir.path().join("x.html").exists());
}
