//! `POST /api/symbolize`: the frames of addresses in one executable.
//!
//! Request `{"fileID": "<ES form>", "addresses": ["0x…", …], "returnAddress": false}`;
//! answer `{"fileID": …, "results": [{"address": "0x…", "frames": [{"function", "file",
//! "line"}, …]}, …]}`, innermost frame first, in the order asked. With `returnAddress`
//! each address is a return address: the call before it is looked up (the address minus
//! one), in the return pads first and in the ranges when there is no pad there.
//!
//! `"buildID": "<hex>"`, optional, is the executable's GNU build ID: with it, symbols
//! never uploaded are fetched from debuginfod servers when the service has some
//! ([`super::debuginfod`]).

use std::sync::Arc;

use serde::de::{self, Deserializer, SeqAccess, Visitor};
use serde::Deserialize;
use serde_json::Value;
use symblob::lidia::LidiaFile;

use super::cache::Entry;
use super::debuginfod::BuildId;
use super::reply::{bad_request, Failure, Refused};
use super::store::published_dir;
use super::upload::unavailable;
use super::State;
use crate::model::ReturnPad;
use crate::readback;
use crate::symbfile::fileid::FileId;

/// A parsed request.
pub struct Request {
    /// The executable.
    pub id: FileId,
    /// The addresses, as asked.
    pub addresses: Vec<u64>,
    /// Whether they are return addresses.
    pub return_address: bool,
    /// The executable's build ID, when the request gives it.
    pub build_id: Option<BuildId>,
}

impl Request {
    /// Parses a request body, refusing more than `max_addresses` addresses.
    pub fn parse(body: &[u8], max_addresses: usize) -> Result<Request, Refused> {
        let raw: Raw = serde_json::from_slice(body)
            .map_err(|e| bad_request(format!("the body is not a symbolize request's JSON: {e}")))?;
        check_count(raw.count(), max_addresses)?;
        Request::from_raw(raw, "")
    }

    /// The request `raw` holds; `at` is where it is in the body (`""`, or
    /// `"requests[3]."` in a batch), for the messages.
    pub(super) fn from_raw(raw: Raw, at: &str) -> Result<Request, Refused> {
        let text = raw
            .file_id
            .as_str()
            .ok_or_else(|| bad_request(format!("`{at}fileID` is missing or not a string")))?;
        let id = FileId::parse(text)
            .map_err(|_| bad_request(format!("`{at}fileID` {text:?} is not a FileID")))?;
        let list = raw
            .addresses
            .ok_or_else(|| bad_request(format!("`{at}addresses` is missing or not an array")))?;
        if let Some((i, what)) = list.first_bad {
            return Err(bad_request(format!(
                "`{at}addresses[{i}]` is {what}, not an address (\"0x…\" or a number)"
            )));
        }
        let return_address = match raw.return_address {
            Value::Null => false,
            Value::Bool(b) => b,
            other => {
                return Err(bad_request(format!(
                    "`{at}returnAddress` is {other}, not true or false"
                )))
            }
        };
        let build_id = match &raw.build_id {
            Value::Null => None,
            Value::String(text) => Some(BuildId::parse(text).ok_or_else(|| {
                bad_request(format!(
                    "`{at}buildID` {text:?} is not a build ID (an even number of hex digits, \
                     at most {})",
                    BuildId::MAX_DIGITS
                ))
            })?),
            other => {
                return Err(bad_request(format!(
                    "`{at}buildID` is {other}, not a string"
                )))
            }
        };
        Ok(Request {
            id,
            addresses: list.values,
            return_address,
            build_id,
        })
    }
}

/// Refuses `count` addresses over `max_addresses`.
pub(super) fn check_count(count: usize, max_addresses: usize) -> Result<(), Refused> {
    if count > max_addresses {
        return Err(Refused::new(
            Failure::TooLarge,
            format!("{count} addresses asked; a request takes at most {max_addresses}"),
        ));
    }
    Ok(())
}

/// A request as it is in JSON; the addresses are read straight into numbers (no text
/// kept per address: a request may hold 100,000), the small fields kept as values to
/// check afterwards with messages of our own.
#[derive(Deserialize)]
pub(super) struct Raw {
    #[serde(rename = "fileID", default)]
    file_id: Value,
    #[serde(default)]
    addresses: Option<Addresses>,
    #[serde(rename = "returnAddress", default)]
    return_address: Value,
    #[serde(rename = "buildID", default)]
    build_id: Value,
}

impl Raw {
    /// How many addresses it asks about.
    pub(super) fn count(&self) -> usize {
        self.addresses.as_ref().map_or(0, |a| a.count)
    }
}

/// The `addresses` array: the values, how many there were, and the first one that is not
/// an address (its index and JSON text).
#[derive(Default)]
struct Addresses {
    values: Vec<u64>,
    count: usize,
    first_bad: Option<(usize, String)>,
}

impl<'de> Deserialize<'de> for Addresses {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct List;
        impl<'de> Visitor<'de> for List {
            type Value = Addresses;
            fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str("an array of addresses")
            }
            fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Addresses, A::Error> {
                let mut list = Addresses::default();
                while let Some(item) = seq.next_element::<Item>()? {
                    match item {
                        Item::Address(a) => list.values.push(a),
                        Item::Not(what) => {
                            if list.first_bad.is_none() {
                                list.first_bad = Some((list.count, what));
                            }
                        }
                    }
                    list.count += 1;
                }
                Ok(list)
            }
        }
        d.deserialize_seq(List)
    }
}

/// One element of `addresses`.
enum Item {
    Address(u64),
    /// Not an address: what it was.
    Not(String),
}

impl<'de> Deserialize<'de> for Item {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct One;
        impl<'de> Visitor<'de> for One {
            type Value = Item;
            fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str("an address")
            }
            fn visit_str<E: de::Error>(self, s: &str) -> Result<Item, E> {
                let hex = s.strip_prefix("0x").or_else(|| s.strip_prefix("0X"));
                Ok(match hex.and_then(|h| u64::from_str_radix(h, 16).ok()) {
                    Some(a) => Item::Address(a),
                    None => Item::Not(Value::from(s).to_string()),
                })
            }
            fn visit_u64<E: de::Error>(self, n: u64) -> Result<Item, E> {
                Ok(Item::Address(n))
            }
            fn visit_i64<E: de::Error>(self, n: i64) -> Result<Item, E> {
                Ok(Item::Not(n.to_string()))
            }
            fn visit_f64<E: de::Error>(self, n: f64) -> Result<Item, E> {
                Ok(Item::Not(n.to_string()))
            }
            fn visit_bool<E: de::Error>(self, b: bool) -> Result<Item, E> {
                Ok(Item::Not(b.to_string()))
            }
            fn visit_unit<E: de::Error>(self) -> Result<Item, E> {
                Ok(Item::Not("null".into()))
            }
            fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Item, A::Error> {
                while seq.next_element::<de::IgnoredAny>()?.is_some() {}
                Ok(Item::Not("an array".into()))
            }
            fn visit_map<A: de::MapAccess<'de>>(self, mut map: A) -> Result<Item, A::Error> {
                while map
                    .next_entry::<de::IgnoredAny, de::IgnoredAny>()?
                    .is_some()
                {}
                Ok(Item::Not("an object".into()))
            }
        }
        d.deserialize_any(One)
    }
}

/// The 404 of a FileID without symbols.
pub fn no_symbols(id: FileId) -> Refused {
    Refused::new(
        Failure::NotFound,
        format!("no symbols for FileID {}", id.es()),
    )
}

/// The symbols `request` is answered from: uploaded ones ([`entry`]), or else fetched
/// from debuginfod when it names a build ID ([`super::debuginfod::fallback`]).
pub async fn symbols(state: &Arc<State>, request: &Request) -> Result<Arc<Entry>, Refused> {
    match entry(state, request.id).await? {
        Some(entry) => Ok(entry),
        None => super::debuginfod::fallback(state, request).await,
    }
}

/// The symbols of `id`: from the cache, or read from the store. `None` when nothing was
/// uploaded for it.
pub async fn entry(state: &State, id: FileId) -> Result<Option<Arc<Entry>>, Refused> {
    if let Some(entry) = state.cache.get(id) {
        state.metrics.cache_hit();
        return Ok(Some(entry));
    }
    state.metrics.cache_miss();
    let dir = published_dir(id);
    let (lidia_key, pads_key) = (format!("{dir}/ranges.lidia"), format!("{dir}/returnpads"));
    let (lidia, pads) = futures::try_join!(state.store.get(&lidia_key), state.store.get(&pads_key))
        .map_err(unavailable)?;
    if lidia.is_none() && pads.is_none() {
        return Ok(None);
    }
    let entry = tokio::task::spawn_blocking(move || load(lidia, pads))
        .await
        .map_err(|e| Refused::new(Failure::Internal, e.to_string()))??;
    let entry = Arc::new(entry);
    state.cache.insert(id, entry.clone());
    Ok(Some(entry))
}

fn load(lidia: Option<bytes::Bytes>, pads: Option<bytes::Bytes>) -> Result<Entry, Refused> {
    let broken = |what: &str, e: &dyn std::fmt::Display| {
        Refused::new(
            Failure::Internal,
            format!("the stored {what} does not read: {e}"),
        )
    };
    if let Some(bytes) = &lidia {
        LidiaFile::parse(bytes)
            .and_then(|l| l.validate())
            .map_err(|e| broken("Lidia file", &e))?;
    }
    let pads = match pads {
        None => Vec::new(),
        Some(compressed) => {
            let bytes = zstd::decode_all(&compressed[..]).map_err(|e| broken("return pads", &e))?;
            let mut pads = readback::symbfile::read(&bytes, "returnpads")
                .map_err(|e| broken("return pads", &e))?
                .return_pads;
            // Stable: of pads at one address the first uploaded answers.
            pads.sort_by_key(|p| p.address);
            pads
        }
    };
    Ok(Entry { lidia, pads })
}

/// The answer to `request` from `entry`, as JSON text, written as the lookups go (no
/// per-address allocation: a request of 1,000 addresses is a few hundred kilobytes of
/// names and paths copied once).
pub fn answer(entry: &Entry, request: &Request) -> Vec<u8> {
    let mut out = Vec::with_capacity(256 * request.addresses.len() + 64);
    write_answer(&mut out, entry, request);
    out
}

/// Appends the answer to `request` from `entry` to `out`.
pub(super) fn write_answer(out: &mut Vec<u8>, entry: &Entry, request: &Request) {
    let lidia = entry.lidia.as_ref().and_then(|b| LidiaFile::parse(b).ok());
    let mut out = Json(out);
    out.raw("{\"fileID\":\"");
    out.raw(&request.id.es());
    out.raw("\",\"results\":[");
    // What each address is looked up as; the return pads answer first.
    let looked_up = |a: u64| {
        if request.return_address {
            a.checked_sub(1)
        } else {
            Some(a)
        }
    };
    let pad = |a: u64| {
        let at = looked_up(a)?;
        request
            .return_address
            .then(|| pad_at(&entry.pads, at))
            .flatten()
    };
    // The addresses the ranges answer: no pad, and something to look up.
    let by_ranges = |a: u64| pad(a).is_none() && looked_up(a).is_some();
    let in_ranges: Vec<u64> = request
        .addresses
        .iter()
        .filter(|&&a| by_ranges(a))
        .filter_map(|&a| looked_up(a))
        .collect();
    let mut asked = request.addresses.iter().copied().enumerate().peekable();
    if let Some(lidia) = lidia {
        lidia.lookup_each(&in_ranges, |_, frames| {
            write_others(&mut out, &mut asked, &pad, Some(&by_ranges));
            if let Some((i, a)) = asked.next() {
                out.start_answer(i, a);
                for f in frames {
                    out.frame(f.function.as_bytes(), f.file.as_bytes(), f.line);
                }
                out.raw("]}");
            }
        });
    }
    // The rest: pads, and no frames where there are no ranges to answer from.
    write_others(&mut out, &mut asked, &pad, None);
    out.raw("]}");
}

/// Writes the answers of the next addresses that the ranges do not answer (their return
/// pads, or no frames), up to the next one they answer (`by_ranges`) or to the end.
fn write_others<'e>(
    out: &mut Json,
    asked: &mut std::iter::Peekable<impl Iterator<Item = (usize, u64)>>,
    pad: &impl Fn(u64) -> Option<&'e ReturnPad>,
    by_ranges: Option<&dyn Fn(u64) -> bool>,
) {
    while let Some(&(i, a)) = asked.peek() {
        if by_ranges.is_some_and(|f| f(a)) {
            return;
        }
        let found = pad(a);
        out.start_answer(i, a);
        for f in found.map_or(&[][..], |p| &p.frames[..]).iter().rev() {
            out.frame(
                f.function.as_bytes(),
                f.file.as_deref().unwrap_or("").as_bytes(),
                u64::from(f.line),
            );
        }
        out.raw("]}");
        asked.next();
    }
}

/// The answer's JSON text, appended to a buffer.
struct Json<'o>(&'o mut Vec<u8>);

impl Json<'_> {
    fn raw(&mut self, s: &str) {
        self.0.extend_from_slice(s.as_bytes());
    }

    /// A JSON string of a name or path, escaped as serde_json escapes it; bytes that are
    /// not UTF-8 become U+FFFD.
    fn string(&mut self, bytes: &[u8]) {
        // Names and paths are nearly always ASCII without a byte JSON escapes: one pass
        // without branches (which the compiler vectorises) finds that out, and the bytes
        // are then copied whole, with no UTF-8 check and no per-byte escaping.
        let plain = !bytes.iter().fold(false, |any, &b| {
            any | (b < 0x20) | (b == b'"') | (b == b'\\') | (b >= 0x80)
        });
        if plain {
            self.0.push(b'"');
            self.0.extend_from_slice(bytes);
            self.0.push(b'"');
        } else {
            // Writing to a Vec cannot fail.
            let _ = serde_json::to_writer(&mut *self.0, &String::from_utf8_lossy(bytes));
        }
    }

    /// `"0x…"`: an address in lower-case hex, as `{:#x}` writes it (formatting through
    /// `core::fmt` costs more than the lookup of a frame).
    fn hex_string(&mut self, value: u64) {
        self.raw("\"0x");
        self.raw(crate::hex::LowerHex::new(value).as_str());
        self.0.push(b'"');
    }

    /// `{"address":"0x…","frames":[`, after a comma unless it is the first answer.
    fn start_answer(&mut self, i: usize, address: u64) {
        if i > 0 {
            self.0.push(b',');
        }
        self.raw("{\"address\":");
        self.hex_string(address);
        self.raw(",\"frames\":[");
    }

    fn frame(&mut self, function: &[u8], file: &[u8], line: u64) {
        if self.0.last() != Some(&b'[') {
            self.0.push(b',');
        }
        self.raw("{\"function\":");
        self.string(function);
        self.raw(",\"file\":");
        self.string(file);
        self.raw(",\"line\":");
        self.raw(itoa::Buffer::new().format(line));
        self.0.push(b'}');
    }
}

fn pad_at(pads: &[ReturnPad], at: u64) -> Option<&ReturnPad> {
    let i = pads.partition_point(|p| p.address < at);
    pads.get(i).filter(|p| p.address == at)
}

#[cfg(test)]
mod tests {
    use super::Json;

    /// The hand-written writers give what `{:#x}` and serde_json give.
    #[test]
    fn json_writers_match_std_and_serde_json() {
        let mut state = 0x9e37_79b9_7f4a_7c15_u64;
        let mut values = vec![0, 1, 0xf, 0x10, u64::MAX, 1 << 63];
        for _ in 0..1000 {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            values.push(state >> (state % 64));
        }
        for v in values {
            let mut out = Vec::new();
            Json(&mut out).hex_string(v);
            assert_eq!(out, format!("\"{v:#x}\"").into_bytes());
        }
        let texts: [&[u8]; 7] = [
            b"",
            b"main",
            b"std::vector<int>::push_back(int&&)",
            b"a\"b\\c\n\x01",
            "f\u{e9}e/\u{1f600}.rs".as_bytes(),
            b"bad \xff\xfe utf-8",
            b"/usr/src/x.c",
        ];
        for text in texts {
            let mut out = Vec::new();
            Json(&mut out).string(text);
            let expected = serde_json::to_vec(&String::from_utf8_lossy(text)).unwrap();
            assert_eq!(out, expected, "{:?}", String::from_utf8_lossy(text));
        }
    }
}
