//! JSON values written exactly as Python's `json.dumps(value, indent=2, sort_keys=True)`
//! writes them: keys sorted, two-space indentation, `": "` and `","` separators, empty
//! containers as `{}`/`[]`, and everything outside printable ASCII escaped as `\uXXXX`.

use std::collections::BTreeMap;
use std::fmt::Write;

/// A JSON value of a SuperSize header. Objects are sorted maps, so output is ordered
/// by key as `sort_keys=True` orders it (UTF-8 byte order equals code point order).
#[derive(Clone, Debug, PartialEq)]
pub enum Json {
    /// `null`.
    Null,
    /// `true` / `false`.
    Bool(bool),
    /// An integer.
    Int(i64),
    /// Any other number, kept in the text it was read as.
    Number(String),
    /// A string.
    Str(String),
    /// A list.
    List(Vec<Json>),
    /// An object.
    Object(BTreeMap<String, Json>),
}

impl Json {
    /// The text `json.dumps(self, indent=2, sort_keys=True)` gives.
    pub fn dumps(&self) -> String {
        let mut out = String::new();
        self.write(&mut out, 0);
        out
    }

    fn write(&self, out: &mut String, depth: usize) {
        match self {
            Json::Null => out.push_str("null"),
            Json::Bool(b) => out.push_str(if *b { "true" } else { "false" }),
            Json::Int(i) => {
                let _ = write!(out, "{i}");
            }
            Json::Number(n) => out.push_str(n),
            Json::Str(s) => write_string(out, s),
            Json::List(items) if items.is_empty() => out.push_str("[]"),
            Json::Object(map) if map.is_empty() => out.push_str("{}"),
            Json::List(items) => {
                out.push('[');
                for (i, item) in items.iter().enumerate() {
                    out.push_str(if i == 0 { "\n" } else { ",\n" });
                    indent(out, depth + 1);
                    item.write(out, depth + 1);
                }
                out.push('\n');
                indent(out, depth);
                out.push(']');
            }
            Json::Object(map) => {
                out.push('{');
                for (i, (key, value)) in map.iter().enumerate() {
                    out.push_str(if i == 0 { "\n" } else { ",\n" });
                    indent(out, depth + 1);
                    write_string(out, key);
                    out.push_str(": ");
                    value.write(out, depth + 1);
                }
                out.push('\n');
                indent(out, depth);
                out.push('}');
            }
        }
    }

    /// Converts a parsed `serde_json` value.
    pub fn from_serde(value: &serde_json::Value) -> Json {
        match value {
            serde_json::Value::Null => Json::Null,
            serde_json::Value::Bool(b) => Json::Bool(*b),
            serde_json::Value::Number(n) => match n.as_i64() {
                Some(i) => Json::Int(i),
                None => Json::Number(n.to_string()),
            },
            serde_json::Value::String(s) => Json::Str(s.clone()),
            serde_json::Value::Array(a) => Json::List(a.iter().map(Json::from_serde).collect()),
            serde_json::Value::Object(o) => Json::Object(
                o.iter()
                    .map(|(k, v)| (k.clone(), Json::from_serde(v)))
                    .collect(),
            ),
        }
    }

    /// The integer, if this is one.
    pub fn as_i64(&self) -> Option<i64> {
        match self {
            Json::Int(i) => Some(*i),
            _ => None,
        }
    }

    /// The string, if this is one.
    pub fn as_str(&self) -> Option<&str> {
        match self {
            Json::Str(s) => Some(s),
            _ => None,
        }
    }
}

fn indent(out: &mut String, depth: usize) {
    for _ in 0..depth {
        out.push_str("  ");
    }
}

/// Writes `s` as Python's `ensure_ascii` encoder does.
fn write_string(out: &mut String, s: &str) {
    out.push('"');
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            '\u{8}' => out.push_str("\\b"),
            '\u{c}' => out.push_str("\\f"),
            ' '..='~' => out.push(c),
            _ => {
                let mut units = [0u16; 2];
                for unit in c.encode_utf16(&mut units) {
                    let _ = write!(out, "\\u{unit:04x}");
                }
            }
        }
    }
    out.push('"');
}

/// An object from `(key, value)` pairs.
pub fn object<I: IntoIterator<Item = (String, Json)>>(pairs: I) -> Json {
    Json::Object(pairs.into_iter().collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn python_layout() {
        let v = object([
            ("b".to_string(), Json::Int(-1)),
            ("a".to_string(), object([])),
            (
                "c".to_string(),
                Json::List(vec![Json::Str("é\"\u{7f}😀".into()), Json::Bool(true)]),
            ),
        ]);
        // json.dumps({"b": -1, "a": {}, "c": ["é\"\x7f😀", True]}, indent=2, sort_keys=True)
        let expected = "{\n  \"a\": {},\n  \"b\": -1,\n  \"c\": [\n    \"\\u00e9\\\"\\u007f\\ud83d\\ude00\",\n    true\n  ]\n}";
        assert_eq!(v.dumps(), expected);
    }
}
