//! Writing `.size` text (spec §2), its deterministic gzip wrapping (§1) and the
//! `.sizediff` framing (§4), as SuperSize's `file_format.py` writes them.

use std::collections::BTreeMap;
use std::fmt::Write as _;

use super::json::Json;
use super::model::{SizeInfo, Symbol};

const VANITY: &str = "# Created by //tools/binary_size";

/// Metadata keys SuperSize keeps in the build config but writes into a v1 file's metadata.
fn merged_metadata(info: &SizeInfo, container: usize) -> BTreeMap<String, Json> {
    let mut metadata = info
        .containers
        .get(container)
        .map(|c| c.metadata.clone())
        .unwrap_or_default();
    for (k, v) in &info.build_config {
        metadata.insert(k.clone(), v.clone());
    }
    metadata
}

fn sizes_json(sizes: &BTreeMap<String, i64>) -> Json {
    Json::Object(
        sizes
            .iter()
            .map(|(k, v)| (k.clone(), Json::Int(*v)))
            .collect(),
    )
}

/// The JSON header of `info`: v1 for one container, v1.1 for several.
fn header(info: &SizeInfo, sparse: bool) -> (bool, Json) {
    let mut fields = BTreeMap::new();
    fields.insert("has_components".into(), Json::Bool(true));
    fields.insert("has_disassembly".into(), Json::Bool(true));
    fields.insert("has_padding".into(), Json::Bool(sparse));
    let multi = info.containers.len() > 1;
    if multi {
        fields.insert(
            "build_config".into(),
            Json::Object(info.build_config.clone()),
        );
        let containers = info
            .containers
            .iter()
            .map(|c| {
                let mut o = BTreeMap::new();
                o.insert("name".into(), Json::Str(c.name.clone()));
                o.insert("metadata".into(), Json::Object(c.metadata.clone()));
                o.insert("section_sizes".into(), sizes_json(&c.section_sizes));
                o.insert(
                    "metrics_by_file".into(),
                    Json::Object(c.metrics_by_file.clone()),
                );
                Json::Object(o)
            })
            .collect();
        fields.insert("containers".into(), Json::List(containers));
    } else {
        let c = info.containers.first().cloned().unwrap_or_default();
        fields.insert("metadata".into(), Json::Object(merged_metadata(info, 0)));
        fields.insert("section_sizes".into(), sizes_json(&c.section_sizes));
        fields.insert("metrics_by_file".into(), Json::Object(c.metrics_by_file));
    }
    (multi, Json::Object(fields))
}

/// The decompressed text of a `.size` file. `sparse` writes paddings (`has_padding`),
/// as the halves of a `.sizediff` need. Symbols are written grouped by segment in the
/// order their segments first appear (SuperSize sorts full archives beforehand).
pub fn size_text(info: &SizeInfo, sparse: bool) -> String {
    let (multi, fields) = header(info, sparse);
    let json = fields.dumps();
    let mut out = String::with_capacity(64 * info.symbols.len() + json.len() + 256);
    let _ = write!(
        out,
        "{VANITY}\n{}\n{}\n{json}\n",
        if multi {
            "Size File Format v1.1"
        } else {
            "Size File Format v1"
        },
        json.len()
    );

    // Segments in order of first appearance; symbols grouped by segment. Symbols come
    // mostly in runs of one segment and segments are few: a look at the last segment
    // and a short scan beat a map keyed by section names.
    let mut segment_order: Vec<(usize, &str)> = Vec::new();
    let mut by_segment: Vec<Vec<&Symbol>> = Vec::new();
    let mut last = usize::MAX;
    for s in &info.symbols {
        let key = (s.container, s.section.as_str());
        if segment_order.get(last) != Some(&key) {
            last = match segment_order.iter().position(|k| *k == key) {
                Some(i) => i,
                None => {
                    segment_order.push(key);
                    by_segment.push(Vec::new());
                    segment_order.len() - 1
                }
            };
        }
        by_segment[last].push(s);
    }
    let ordered: Vec<&Symbol> = by_segment.iter().flatten().copied().collect();

    let (paths, path_ids) = sorted_table(
        ordered
            .iter()
            .map(|s| (s.object_path.as_str(), s.source_path.as_str())),
    );
    let (components, component_ids) = sorted_table(ordered.iter().map(|s| s.component.as_str()));
    let _ = writeln!(out, "{}", paths.len());
    for (o, s) in &paths {
        let _ = writeln!(out, "{o}\t{s}");
    }
    let _ = writeln!(out, "{}", components.len());
    for c in &components {
        let _ = writeln!(out, "{c}");
    }
    let names: Vec<String> = segment_order
        .iter()
        .map(|(c, s)| {
            if multi {
                format!("<{c}>{s}")
            } else {
                s.to_string()
            }
        })
        .collect();
    let _ = writeln!(out, "{}", names.join("\t"));
    let counts: Vec<String> = by_segment.iter().map(|v| v.len().to_string()).collect();
    let _ = writeln!(out, "{}", counts.join("\t"));

    // One line per segment of a value per symbol (index into `ordered`), as deltas from
    // the previous symbol of the segment or as they are.
    let mut block = |value: &dyn Fn(usize) -> i64, delta: bool| {
        let mut index = 0;
        for segment in &by_segment {
            let mut prev = 0i64;
            for i in 0..segment.len() {
                let v = value(index);
                index += 1;
                if i > 0 {
                    out.push(' ');
                }
                let _ = write!(out, "{}", if delta { v.wrapping_sub(prev) } else { v });
                prev = v;
            }
            out.push('\n');
        }
    };
    block(&|i| ordered[i].address as i64, true);
    block(
        &|i| {
            let s = ordered[i];
            if s.is_overhead() {
                s.size
            } else {
                s.size_without_padding()
            }
        },
        false,
    );
    if sparse {
        block(&|i| ordered[i].padding, false);
    }
    block(&|i| path_ids[i] as i64, true);
    block(&|i| component_ids[i] as i64, true);

    let mut group_seen: Option<usize> = None;
    let mut disassembly = Vec::new();
    for (index, s) in ordered.iter().enumerate() {
        out.push_str(&s.full_name);
        let starts_group =
            s.num_aliases > 1 && s.alias_group.is_some() && s.alias_group != group_seen;
        if starts_group {
            let _ = write!(out, "\t0{:x}", s.num_aliases);
            group_seen = s.alias_group;
        } else if s.alias_group.is_none() || s.num_aliases <= 1 {
            group_seen = None;
        }
        if s.flags != 0 {
            let _ = write!(out, "\t{:x}", s.flags);
        }
        out.push('\n');
        if let Some(d) = &s.disassembly {
            disassembly.push((index, d));
        }
    }
    let indices: Vec<String> = disassembly.iter().map(|(i, _)| i.to_string()).collect();
    let _ = writeln!(out, "{}", indices.join(" "));
    for (_, body) in disassembly {
        let _ = write!(out, "{}\n{body}", body.len());
    }
    out
}

/// The compression level written by default. SuperSize writes 9 (Python's `GzipFile`
/// default) with zlib; zlib-rs at 6 gives files within 1 % of zlib's or miniz_oxide's at
/// 9 on archive text (see BENCHMARKS.md) in a third of the time.
pub const DEFAULT_GZIP_LEVEL: u32 = 6;

/// The sorted distinct values of `values` and, for each value in turn, its index in that
/// table. Each value is hashed once (runs of equal values not at all).
fn sorted_table<K: Ord + std::hash::Hash + Copy>(
    values: impl Iterator<Item = K>,
) -> (Vec<K>, Vec<usize>) {
    let mut first_seen: std::collections::HashMap<K, usize> = std::collections::HashMap::new();
    let mut table: Vec<K> = Vec::new();
    let mut previous: Option<(K, usize)> = None;
    let provisional: Vec<usize> = values
        .map(|v| {
            let id = match previous {
                Some((p, id)) if p == v => id,
                _ => *first_seen.entry(v).or_insert_with(|| {
                    table.push(v);
                    table.len() - 1
                }),
            };
            previous = Some((v, id));
            id
        })
        .collect();
    let mut order: Vec<usize> = (0..table.len()).collect();
    order.sort_unstable_by(|&a, &b| table[a].cmp(&table[b]));
    let mut rank = vec![0; table.len()];
    for (r, &i) in order.iter().enumerate() {
        rank[i] = r;
    }
    let sorted = order.iter().map(|&i| table[i]).collect();
    (sorted, provisional.into_iter().map(|p| rank[p]).collect())
}

/// Gzips `text` at [`DEFAULT_GZIP_LEVEL`] with the header Python's
/// `GzipFile(filename='', mtime=0)` writes (`1f 8b 08 00 00 00 00 00 02 ff`), as one member.
pub fn gzip(text: &[u8]) -> Vec<u8> {
    gzip_level(text, DEFAULT_GZIP_LEVEL)
}

/// Like [`gzip`] at another level (0-9); the bytes depend only on `text` and `level`.
pub fn gzip_level(text: &[u8], level: u32) -> Vec<u8> {
    super::gzip::gzip(text, level)
}

/// A gzipped `.size` file.
pub fn size_file(info: &SizeInfo) -> Vec<u8> {
    gzip(size_text(info, false).as_bytes())
}

/// A gzipped `.size` file at gzip level `level`.
pub fn size_file_level(info: &SizeInfo, level: u32) -> Vec<u8> {
    gzip_level(size_text(info, false).as_bytes(), level)
}

/// A `.sizediff` of two sparse halves (spec §4), without source lists.
pub fn sizediff_file(before: &SizeInfo, after: &SizeInfo) -> Vec<u8> {
    let before_gz = gzip(size_text(before, true).as_bytes());
    let after_gz = gzip(size_text(after, true).as_bytes());
    let mut fields = BTreeMap::new();
    fields.insert(
        "before_length".to_string(),
        Json::Int(before_gz.len() as i64),
    );
    fields.insert("version".to_string(), Json::Int(1));
    let json = Json::Object(fields).dumps();
    let mut out = format!("{VANITY}\nDIFF\n{}\n{json}\n", json.len()).into_bytes();
    out.extend_from_slice(&before_gz);
    out.extend_from_slice(&after_gz);
    out
}
