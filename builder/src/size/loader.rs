//! Loading `.size` and `.sizediff` files (Chromium's and ours) with the consistency checks
//! of SuperSize's loader (spec §3). Errors name the file, the line and the check.

use std::collections::BTreeMap;
use std::io::Read;

use super::json::Json;
use super::model::{calculate_padding, Container, PaddingError, SizeInfo, Symbol};
use crate::{Error, Location, Result};

const VANITY: &str = "# Created by //tools/binary_size";
const DIFF_HEADER: &[u8] = b"# Created by //tools/binary_size\nDIFF\n";
const BUILD_CONFIG_KEYS: &[&str] = &["git_revision", "gn_args", "out_directory"];

/// A loaded file.
#[derive(Clone, Debug)]
pub enum Loaded {
    /// A `.size` file; `sparse` when it has written paddings.
    Size {
        /// The archive.
        info: SizeInfo,
        /// Whether paddings were read from the file (`has_padding`).
        sparse: bool,
    },
    /// A `.sizediff` file's two halves.
    Diff {
        /// The before half.
        before: SizeInfo,
        /// The after half.
        after: SizeInfo,
    },
}

/// Whether `data` starts like a `.size` or `.sizediff` file (gzip or the vanity line).
pub fn looks_like_size_file(data: &[u8]) -> bool {
    data.starts_with(&[0x1f, 0x8b]) || data.starts_with(VANITY.as_bytes())
}

/// Loads a `.size` (gzipped or plain text) or a `.sizediff`.
pub fn load(data: &[u8], name: &str) -> Result<Loaded> {
    if data.starts_with(DIFF_HEADER) {
        let (before, after) = load_sizediff(data, name)?;
        return Ok(Loaded::Diff { before, after });
    }
    let (info, sparse) = load_size(data, name)?;
    Ok(Loaded::Size { info, sparse })
}

/// Loads a `.size` file; returns the archive and whether it was sparse.
pub fn load_size(data: &[u8], name: &str) -> Result<(SizeInfo, bool)> {
    let text = if data.starts_with(&[0x1f, 0x8b]) {
        let mut out = Vec::new();
        flate2::read::MultiGzDecoder::new(data)
            .read_to_end(&mut out)
            .map_err(|e| Error::malformed(name, Location::Whole, "gzip").with_source(e))?;
        out
    } else {
        data.to_vec()
    };
    let text = String::from_utf8(text).map_err(|e| {
        fail(
            name,
            0,
            "text",
            &format!("not UTF-8 at byte {}", e.utf8_error().valid_up_to()),
        )
    })?;
    parse_size_text(&text, name)
}

fn load_sizediff(data: &[u8], name: &str) -> Result<(SizeInfo, SizeInfo)> {
    let mut pos = DIFF_HEADER.len();
    let end = data[pos..]
        .iter()
        .position(|b| *b == b'\n')
        .ok_or_else(|| fail(name, 3, "sizediff header", "missing JSON length"))?;
    let len: usize = std::str::from_utf8(&data[pos..pos + end])
        .ok()
        .and_then(|t| t.trim().parse().ok())
        .ok_or_else(|| fail(name, 3, "sizediff header", "JSON length is not a number"))?;
    pos += end + 1;
    let json_bytes = data
        .get(pos..pos + len)
        .ok_or_else(|| fail(name, 4, "sizediff header", "file ends inside the JSON"))?;
    let fields: serde_json::Value = serde_json::from_slice(json_bytes).map_err(|e| {
        Error::malformed(name, Location::Line(4), "sizediff header: bad JSON").with_source(e)
    })?;
    if fields.get("version").and_then(|v| v.as_i64()) != Some(1) {
        return Err(fail(name, 4, "sizediff header", "version is not 1"));
    }
    pos += len + 1;
    for key in ["removed_sources_length", "added_sources_length"] {
        pos += fields.get(key).and_then(|v| v.as_u64()).unwrap_or(0) as usize;
    }
    let before_len = fields
        .get("before_length")
        .and_then(|v| v.as_u64())
        .ok_or_else(|| fail(name, 4, "sizediff header", "no before_length"))?
        as usize;
    let before = data
        .get(pos..pos.saturating_add(before_len))
        .ok_or_else(|| fail(name, 0, "sizediff framing", "before half runs past the end"))?;
    let after = &data[pos + before_len..];
    let (before, _) = load_size(before, &format!("{name} (before)"))?;
    let (after, _) = load_size(after, &format!("{name} (after)"))?;
    Ok((before, after))
}

fn fail(name: &str, line: usize, check: &str, detail: &str) -> Error {
    let at = if line == 0 {
        Location::Whole
    } else {
        Location::Line(line as u64)
    };
    Error::malformed(name, at, format!("{check}: {detail}"))
}

/// Lines of the text with 1-based numbers.
struct Lines<'a> {
    text: &'a str,
    pos: usize,
    line: usize,
    name: &'a str,
}

impl<'a> Lines<'a> {
    fn next(&mut self, what: &str) -> Result<&'a str> {
        if self.pos >= self.text.len() {
            return Err(fail(
                self.name,
                self.line + 1,
                what,
                "unexpected end of file",
            ));
        }
        let rest = &self.text[self.pos..];
        let end = rest.find('\n').unwrap_or(rest.len());
        self.pos += (end + 1).min(rest.len());
        self.line += 1;
        Ok(&rest[..end])
    }

    fn int(&mut self, what: &str) -> Result<i64> {
        let t = self.next(what)?;
        t.parse().map_err(|_| {
            fail(
                self.name,
                self.line,
                what,
                &format!("{t:?} is not an integer"),
            )
        })
    }

    fn err(&self, check: &str, detail: &str) -> Error {
        fail(self.name, self.line, check, detail)
    }
}

/// Parses decompressed `.size` text; returns the archive and whether it was sparse.
pub fn parse_size_text(text: &str, name: &str) -> Result<(SizeInfo, bool)> {
    let mut r = Lines {
        text,
        pos: 0,
        line: 0,
        name,
    };
    if r.next("vanity line")? != VANITY {
        return Err(r.err("vanity line", &format!("not {VANITY:?}")));
    }
    let multi = match r.next("version line")? {
        "Size File Format v1" => false,
        "Size File Format v1.1" => true,
        other => return Err(r.err("version line", &format!("unknown version {other:?}"))),
    };
    let json_len = r.int("JSON length")?;
    let json_line = r.line + 1;
    let rest = &text[r.pos..];
    let json_end = rest
        .char_indices()
        .nth(json_len.max(0) as usize)
        .map_or(rest.len(), |(i, _)| i);
    if json_len < 0 || rest[..json_end].chars().count() != json_len as usize {
        return Err(fail(
            name,
            json_line,
            "JSON header",
            "file ends inside the JSON header",
        ));
    }
    let json_text = &rest[..json_end];
    let fields: serde_json::Value = serde_json::from_str(json_text).map_err(|e| {
        let line = json_line + e.line().saturating_sub(1);
        Error::malformed(name, Location::Line(line as u64), "JSON header").with_source(e)
    })?;
    r.line += json_text.matches('\n').count();
    r.pos += json_end;
    r.next("end of JSON header")?;
    let fields = match Json::from_serde(&fields) {
        Json::Object(o) => o,
        _ => return Err(fail(name, json_line, "JSON header", "not an object")),
    };
    let (build_config, containers) = header_fields(&fields, multi, &|detail| {
        fail(name, json_line, "JSON fields", &detail)
    })?;
    let flag = |k: &str| matches!(fields.get(k), Some(Json::Bool(true)));
    let (has_components, has_padding, has_disassembly) = (
        flag("has_components"),
        flag("has_padding"),
        flag("has_disassembly"),
    );
    let mut info = SizeInfo {
        build_config,
        containers,
        symbols: Vec::new(),
    };

    let num_paths = r.int("path count")?;
    let mut paths = Vec::new();
    for _ in 0..num_paths.max(0) {
        let line = r.next("path line")?;
        let mut parts = line.split('\t');
        match (parts.next(), parts.next(), parts.next()) {
            (Some(o), Some(s), None) => paths.push((o.to_string(), s.to_string())),
            _ => return Err(r.err("path line", "does not split into object and source path")),
        }
    }
    if num_paths <= 0 {
        return Ok((info, has_padding)); // SuperSize's loader stops here
    }
    let mut components = Vec::new();
    if has_components {
        let n = r.int("component count")?;
        for _ in 0..n.max(0) {
            components.push(r.next("component")?.to_string());
        }
    }
    let segments_line = r.line + 1;
    let segment_names: Vec<&str> = r.next("segment names")?.split('\t').collect();
    let counts_text = r.next("symbol counts")?;
    let mut counts = Vec::new();
    for c in counts_text.split('\t') {
        let n: usize = c
            .parse()
            .map_err(|_| r.err("symbol counts", &format!("{c:?} is not a count")))?;
        counts.push(n);
    }
    let mut segments = Vec::new();
    for (i, seg) in segment_names.iter().enumerate().take(counts.len()) {
        let (container, section) = if multi {
            let parsed = seg
                .strip_prefix('<')
                .and_then(|s| s.split_once('>'))
                .and_then(|(c, s)| Some((c.parse::<usize>().ok()?, s)));
            match parsed {
                Some((c, s)) if c < info.containers.len() => (c, s.to_string()),
                _ => {
                    return Err(fail(
                        name,
                        segments_line,
                        "segment names",
                        &format!("segment {i} ({seg:?}) lacks a valid <container index>"),
                    ))
                }
            }
        } else {
            (0, seg.to_string())
        };
        segments.push((container, section, counts[i]));
    }
    let block = |r: &mut Lines<'_>, what: &str, delta: bool| -> Result<Vec<Vec<i64>>> {
        let mut rows = Vec::new();
        for &n in &counts {
            let line = r.next(what)?;
            let mut values = Vec::new();
            let mut acc = 0i64;
            for f in line.split(' ') {
                let v: i64 = f
                    .parse()
                    .map_err(|_| r.err(what, &format!("{f:?} is not an integer")))?;
                acc = if delta { acc.wrapping_add(v) } else { v };
                values.push(acc);
            }
            if values.len() < n {
                return Err(r.err(what, &format!("{} values for {n} symbols", values.len())));
            }
            rows.push(values);
        }
        Ok(rows)
    };
    let addresses = block(&mut r, "addresses", true)?;
    let sizes = block(&mut r, "sizes", false)?;
    let paddings = if has_padding {
        Some(block(&mut r, "paddings", false)?)
    } else {
        None
    };
    let path_idx = block(&mut r, "path indices", true)?;
    let comp_idx = if has_components {
        Some(block(&mut r, "component indices", true)?)
    } else {
        None
    };

    let mut symbol_lines = Vec::new();
    for (seg, (container, section, count)) in segments.iter().enumerate() {
        let mut remaining_in_group = 0u32;
        for i in 0..*count {
            let line = r.next("symbol line")?;
            let mut parts = line.split('\t');
            let full_name = parts.next().unwrap_or("");
            let (aliases_part, flags_part) = match (parts.next(), parts.next()) {
                (Some(a), Some(f)) => (Some(a), Some(f)),
                (Some(x), None) if x.starts_with('0') => (Some(x), None),
                (Some(x), None) => (None, Some(x)),
                _ => (None, None),
            };
            let hex = |t: Option<&str>| -> Result<u32> {
                match t {
                    Some(t) if !t.is_empty() => u32::from_str_radix(t, 16)
                        .map_err(|_| r.err("symbol line", &format!("bad alias/flags field {t:?}"))),
                    _ => Ok(0),
                }
            };
            let flags = hex(flags_part)?;
            let num_aliases = hex(aliases_part)?;
            let pidx = path_idx[seg][i];
            let (object_path, source_path) = usize::try_from(pidx)
                .ok()
                .and_then(|p| paths.get(p))
                .cloned()
                .ok_or_else(|| r.err("path index", &format!("{pidx} out of range")))?;
            let component = match &comp_idx {
                Some(c) => {
                    let ci = c[seg][i];
                    usize::try_from(ci)
                        .ok()
                        .and_then(|p| components.get(p))
                        .cloned()
                        .ok_or_else(|| r.err("component index", &format!("{ci} out of range")))?
                }
                None => String::new(),
            };
            let mut sym = Symbol::new(
                section,
                addresses[seg][i] as u64,
                sizes[seg][i],
                full_name.to_string(),
            );
            sym.container = *container;
            sym.flags = flags;
            sym.object_path = object_path;
            sym.source_path = source_path;
            sym.component = component;
            if let Some(p) = &paddings {
                sym.padding = p[seg][i];
                if !sym.is_overhead() {
                    sym.size = sym.size.wrapping_add(sym.padding);
                }
            }
            let index = info.symbols.len();
            if num_aliases != 0 {
                if remaining_in_group != 0 {
                    return Err(r.err("alias group", "a new group starts inside an unfinished one"));
                }
                sym.alias_group = Some(index);
                remaining_in_group = num_aliases.saturating_sub(1);
            } else if remaining_in_group > 0 {
                sym.alias_group = info.symbols.last().and_then(|s| s.alias_group);
                remaining_in_group -= 1;
            }
            info.symbols.push(sym);
            symbol_lines.push(r.line);
        }
    }
    let mut group_sizes: BTreeMap<usize, u32> = BTreeMap::new();
    for s in &info.symbols {
        if let Some(g) = s.alias_group {
            *group_sizes.entry(g).or_default() += 1;
        }
    }
    for s in &mut info.symbols {
        if let Some(g) = s.alias_group {
            s.num_aliases = group_sizes[&g];
        }
    }
    if !has_padding {
        calculate_padding(&mut info.symbols).map_err(|e| {
            let (i, what) = match e {
                PaddingError::SegmentRepeats(i) => {
                    (i, "symbols not sorted: the segment appeared before")
                }
                PaddingError::DuplicateSymbols(i) => {
                    (i, "duplicate symbols at one address outside an alias group")
                }
                PaddingError::NegativeSize(i) => {
                    (i, "negative size (symbols overlap or are out of order)")
                }
            };
            fail(name, symbol_lines[i], "padding", what)
        })?;
    }
    if has_disassembly {
        let index_line = r.next("disassembly index line")?;
        if !index_line.is_empty() {
            for token in index_line.split(' ') {
                let idx: usize = token
                    .parse()
                    .map_err(|_| r.err("disassembly", &format!("bad index {token:?}")))?;
                let len: usize = r
                    .int("disassembly length")?
                    .try_into()
                    .unwrap_or(usize::MAX);
                let body = r
                    .text
                    .get(r.pos..r.pos.saturating_add(len))
                    .ok_or_else(|| r.err("disassembly", "body runs past the end"))?;
                r.line += body.matches('\n').count();
                r.pos += len;
                let sym = info.symbols.get_mut(idx).ok_or_else(|| {
                    fail(
                        name,
                        r.line,
                        "disassembly",
                        &format!("index {idx} out of range"),
                    )
                })?;
                sym.disassembly = Some(body.to_string());
            }
        }
    }
    if r.text
        .get(r.pos..)
        .is_some_and(|rest| rest.split('\n').any(|l| !l.is_empty()))
    {
        return Err(fail(
            name,
            r.line + 1,
            "trailing data",
            "non-empty lines after the last section",
        ));
    }
    Ok((info, has_padding))
}

/// The build config and containers of a header, with SuperSize's presence rules; `fail`
/// makes the error of the header (named and placed) from what is wrong.
fn header_fields(
    fields: &BTreeMap<String, Json>,
    multi: bool,
    fail: &dyn Fn(String) -> Error,
) -> Result<(BTreeMap<String, Json>, Vec<Container>)> {
    for key in ["containers", "build_config"] {
        if fields.contains_key(key) != multi {
            return Err(fail(format!("{key:?} must be present exactly in v1.1")));
        }
    }
    for key in ["metadata", "section_sizes"] {
        if fields.contains_key(key) == multi {
            return Err(fail(format!("{key:?} must be present exactly in v1")));
        }
    }
    let object = |v: Option<&Json>, what: &str| -> Result<BTreeMap<String, Json>> {
        match v {
            Some(Json::Object(o)) => Ok(o.clone()),
            None | Some(Json::Null) => Ok(BTreeMap::new()),
            _ => Err(fail(format!("{what} is not an object"))),
        }
    };
    let sizes = |v: Option<&Json>| -> Result<BTreeMap<String, i64>> {
        object(v, "section_sizes")?
            .into_iter()
            .map(|(k, v)| {
                v.as_i64()
                    .map(|n| (k.clone(), n))
                    .ok_or_else(|| fail(format!("section size of {k} is not an integer")))
            })
            .collect()
    };
    if multi {
        let build_config = object(fields.get("build_config"), "build_config")?;
        let Some(Json::List(list)) = fields.get("containers") else {
            return Err(fail("containers is not a list".into()));
        };
        let mut containers = Vec::new();
        for c in list {
            let Json::Object(c) = c else {
                return Err(fail("a container is not an object".into()));
            };
            containers.push(Container {
                name: c
                    .get("name")
                    .and_then(Json::as_str)
                    .unwrap_or("")
                    .to_string(),
                metadata: object(c.get("metadata"), "metadata")?,
                section_sizes: sizes(c.get("section_sizes"))?,
                metrics_by_file: object(c.get("metrics_by_file"), "metrics_by_file")?,
            });
        }
        Ok((build_config, containers))
    } else {
        let mut metadata = object(fields.get("metadata"), "metadata")?;
        let mut build_config = BTreeMap::new();
        for key in BUILD_CONFIG_KEYS {
            if let Some(v) = metadata.remove(*key) {
                build_config.insert(key.to_string(), v);
            }
        }
        let container = Container {
            name: String::new(),
            metadata,
            section_sizes: sizes(fields.get("section_sizes"))?,
            metrics_by_file: object(fields.get("metrics_by_file"), "metrics_by_file")?,
        };
        Ok((build_config, vec![container]))
    }
}
