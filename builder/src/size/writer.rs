//! Writing `.size` text (spec §2), its deterministic gzip wrapping (§1) and the
//! `.sizediff` framing (§4), as SuperSize's `file_format.py` writes them.

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::io::Write as _;

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

    // Segments in order of first appearance; symbols grouped by segment.
    let mut segment_order: Vec<(usize, &str)> = Vec::new();
    let mut by_segment: BTreeMap<(usize, &str), Vec<&Symbol>> = BTreeMap::new();
    for s in &info.symbols {
        let key = (s.container, s.section.as_str());
        by_segment
            .entry(key)
            .or_insert_with(|| {
                segment_order.push(key);
                Vec::new()
            })
            .push(s);
    }
    let ordered: Vec<&Symbol> = segment_order
        .iter()
        .flat_map(|k| by_segment[k].iter().copied())
        .collect();

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
    let counts: Vec<String> = segment_order
        .iter()
        .map(|k| by_segment[k].len().to_string())
        .collect();
    let _ = writeln!(out, "{}", counts.join("\t"));

    let path_index =
        |s: &Symbol| path_ids[&(s.object_path.as_str(), s.source_path.as_str())] as i64;
    let component_index = |s: &Symbol| component_ids[s.component.as_str()] as i64;
    let mut block = |value: &dyn Fn(&Symbol) -> i64, delta: bool| {
        for key in &segment_order {
            let mut prev = 0i64;
            let mut line = String::new();
            for (i, s) in by_segment[key].iter().enumerate() {
                let v = value(s);
                if i > 0 {
                    line.push(' ');
                }
                let _ = write!(line, "{}", if delta { v.wrapping_sub(prev) } else { v });
                prev = v;
            }
            out.push_str(&line);
            out.push('\n');
        }
    };
    block(&|s| s.address as i64, true);
    block(
        &|s| {
            if s.is_overhead() {
                s.size
            } else {
                s.size_without_padding()
            }
        },
        false,
    );
    if sparse {
        block(&|s| s.padding, false);
    }
    block(&path_index, true);
    block(&component_index, true);

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

/// The compression level SuperSize writes with (Python's `GzipFile` default).
pub const DEFAULT_GZIP_LEVEL: u32 = 9;

/// The sorted distinct values and each value's index among them.
fn sorted_table<'a, K: Ord + std::hash::Hash + Copy + 'a>(
    values: impl Iterator<Item = K>,
) -> (Vec<K>, std::collections::HashMap<K, usize>) {
    let mut ids: std::collections::HashMap<K, usize> = values.map(|v| (v, 0)).collect();
    let mut table: Vec<K> = ids.keys().copied().collect();
    table.sort_unstable();
    for (i, v) in table.iter().enumerate() {
        ids.insert(*v, i);
    }
    (table, ids)
}

/// Gzips `text` as Python's `GzipFile(filename='', mtime=0)` does at level 9: one member,
/// header `1f 8b 08 00 00 00 00 00 02 ff`.
pub fn gzip(text: &[u8]) -> Vec<u8> {
    gzip_level(text, DEFAULT_GZIP_LEVEL)
}

/// Like [`gzip`] at another level (0-9; 1 is several times faster on large archives).
/// The header's XFL byte follows the level as zlib sets it.
pub fn gzip_level(text: &[u8], level: u32) -> Vec<u8> {
    let mut encoder = flate2::GzBuilder::new()
        .mtime(0)
        .operating_system(255)
        .write(
            Vec::with_capacity(text.len() / 4 + 64),
            flate2::Compression::new(level.min(9)),
        );
    // Writing into a Vec cannot fail.
    let _ = encoder.write_all(text);
    encoder.finish().unwrap_or_default()
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
