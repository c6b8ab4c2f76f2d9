//! Source paths as SuperSize writes them (`archive_util.NormalizePaths`), and the ASCII
//! clean-up of names and paths. Names are demangled by [`crate::demangle::supersize`].

use std::borrow::Cow;

/// `(generated, normalised path)` of a DWARF source path, by SuperSize's Chromium rules:
/// `$…` kept; `../../x` → `x`; absolute → `$SYSTEM/<basename>` (generated); `gen/x` → `x`
/// (generated); anything else relative is generated.
pub fn normalize_source_path_chromium(path: &str) -> (bool, String) {
    if path.starts_with('$') {
        return (false, path.to_string());
    }
    if let Some(rest) = path.strip_prefix("../../") {
        return (false, rest.to_string());
    }
    let path = if path.starts_with('/') {
        format!("$SYSTEM/{}", basename(path))
    } else {
        path.to_string()
    };
    match path.strip_prefix("gen/") {
        Some(rest) => (true, rest.to_string()),
        None => (true, path),
    }
}

/// `(generated, normalised path)` relative to a source root (and a generated-files
/// directory): paths under `generated_dir` are generated, paths under `root` are made
/// relative to it, other absolute paths become `$SYSTEM/<basename>`.
pub fn normalize_source_path_rooted(
    path: &str,
    comp_dir_root: &str,
    root: Option<&str>,
    generated_dir: Option<&str>,
) -> (bool, String) {
    let absolute = if path.starts_with('/') || comp_dir_root.is_empty() {
        path.to_string()
    } else {
        format!("{}/{}", comp_dir_root.trim_end_matches('/'), path)
    };
    let absolute = lexical_normalize(&absolute);
    if let Some(dir) = generated_dir {
        if let Some(rest) = strip_dir(&absolute, &lexical_normalize(dir)) {
            return (true, rest.to_string());
        }
    }
    let root = root.map_or_else(|| lexical_normalize(comp_dir_root), lexical_normalize);
    if !root.is_empty() {
        if let Some(rest) = strip_dir(&absolute, &root) {
            return (false, rest.to_string());
        }
    }
    if absolute.starts_with('/') {
        (false, format!("$SYSTEM/{}", basename(&absolute)))
    } else {
        (false, absolute)
    }
}

fn strip_dir<'a>(path: &'a str, dir: &str) -> Option<&'a str> {
    let dir = dir.trim_end_matches('/');
    path.strip_prefix(dir)?.strip_prefix('/')
}

fn basename(path: &str) -> &str {
    path.rsplit('/').next().unwrap_or(path)
}

/// Removes `.` and `a/..` components without touching the file system.
fn lexical_normalize(path: &str) -> String {
    let mut parts: Vec<&str> = Vec::new();
    for part in path.split('/') {
        match part {
            "" | "." => {}
            ".." if parts.last().is_some_and(|p| *p != "..") => {
                parts.pop();
            }
            _ => parts.push(part),
        }
    }
    let joined = parts.join("/");
    if path.starts_with('/') {
        format!("/{joined}")
    } else {
        joined
    }
}

/// Makes a name or path safe for the line-based format (spec §9): tab, CR and LF become
/// a space; other control and non-ASCII characters become `\u{XXXX}`.
pub fn ascii_clean(text: &str) -> Cow<'_, str> {
    if text.bytes().all(|b| (b' '..=b'~').contains(&b)) {
        return Cow::Borrowed(text);
    }
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '\t' | '\r' | '\n' => out.push(' '),
            ' '..='~' => out.push(c),
            _ => out.push_str(&format!("\\u{{{:04X}}}", u32::from(c))),
        }
    }
    Cow::Owned(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn chromium_paths() {
        assert_eq!(
            normalize_source_path_chromium("../../base/a.cc"),
            (false, "base/a.cc".into())
        );
        assert_eq!(
            normalize_source_path_chromium("/usr/src/x.c"),
            (true, "$SYSTEM/x.c".into())
        );
        assert_eq!(
            normalize_source_path_chromium("gen/a.cc"),
            (true, "a.cc".into())
        );
        assert_eq!(normalize_source_path_chromium("a.c"), (true, "a.c".into()));
    }
}
