//! What `symblob`'s own readers answer for the files a test uploaded, to hold the
//! service's answers against: `symblob lookup --json` frames, `symbfile dump --json`
//! records, and addresses taken from those records.
#![allow(dead_code)]

use std::path::Path;

use serde_json::{json, Value};

use crate::common::{ok, run, s};

/// One frame as the service answers it: function, file, line.
pub type Frame = (String, String, u64);

/// The records of a symbfile, as `symblob symbfile dump --json` prints them.
pub fn records(file: &Path) -> Vec<Value> {
    let out = ok(&run(&["symbfile", "dump", "--json", s(file)], b""));
    let v: Value = serde_json::from_str(&out).expect("dump --json");
    v["records"].as_array().expect("records").clone()
}

/// Addresses to ask about: the first, middle and last byte of every range record, and
/// an address below the executable that no range covers.
pub fn range_addresses(ranges: &Path) -> Vec<u64> {
    let mut addresses = vec![0x10];
    for r in records(ranges) {
        let start = hex(&r["elf_va"]);
        let length = r["length"].as_u64().expect("length");
        addresses.extend([start, start + length / 2, start + length.saturating_sub(1)]);
    }
    addresses
}

/// The address of every return pad.
pub fn pad_addresses(pads: &Path) -> Vec<u64> {
    records(pads).iter().map(|r| hex(&r["elf_va"])).collect()
}

/// `symblob lookup FILE --json [--return-address] ADDRESSES`: the frames of each
/// address, innermost first.
pub fn lookup(file: &Path, addresses: &[u64], return_address: bool) -> Vec<Vec<Frame>> {
    let mut args = vec!["lookup".to_owned(), s(file).to_owned(), "--json".to_owned()];
    if return_address {
        args.push("--return-address".to_owned());
    }
    args.extend(addresses.iter().map(|a| format!("{a:#x}")));
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    let out = ok(&run(&args, b""));
    let lines: Vec<Vec<Frame>> = out
        .lines()
        .map(|l| frames(&serde_json::from_str::<Value>(l).expect("lookup --json")))
        .collect();
    assert_eq!(lines.len(), addresses.len(), "one answer per address");
    lines
}

/// A symbolize request for `addresses` of `es`.
pub fn request(es: &str, addresses: &[u64], return_address: bool) -> Value {
    let hex: Vec<String> = addresses.iter().map(|a| format!("{a:#x}")).collect();
    json!({ "fileID": es, "addresses": hex, "returnAddress": return_address })
}

/// The frames of each result of a symbolize answer, checking that the results are the
/// addresses asked, in order.
pub fn answered(answer: &Value, addresses: &[u64]) -> Vec<Vec<Frame>> {
    let results = answer["results"].as_array().expect("results");
    assert_eq!(results.len(), addresses.len(), "{answer}");
    results
        .iter()
        .zip(addresses)
        .map(|(r, a)| {
            assert_eq!(r["address"], format!("{a:#x}"), "{r}");
            frames(r)
        })
        .collect()
}

/// The `frames` of one answer (the service's or `lookup --json`'s).
pub fn frames(v: &Value) -> Vec<Frame> {
    v["frames"]
        .as_array()
        .unwrap_or_else(|| panic!("no frames in {v}"))
        .iter()
        .map(|f| {
            (
                f["function"].as_str().expect("function").to_owned(),
                f["file"].as_str().expect("file").to_owned(),
                f["line"].as_u64().expect("line"),
            )
        })
        .collect()
}

fn hex(v: &Value) -> u64 {
    let text = v.as_str().expect("a \"0x…\" address");
    u64::from_str_radix(text.trim_start_matches("0x"), 16).expect("hex address")
}
