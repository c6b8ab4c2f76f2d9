//! Uploads through `symblob symbfile push`, answers through `/api/symbolize`: on the C,
//! C++, Rust and Go test programs, the service answers every sampled address as
//! `symblob lookup` answers it on the files that were uploaded, and the download layout
//! gives the range file back. One `/api/symbolize-batch` request over every program
//! answers each as `symblob lookup` does, and an executable without symbols in it as
//! `/api/symbolize` refuses it, without voiding the others.

use std::path::Path;

use serde_json::{json, Value};
use symblob_build::symbfile::fileid::FileId;

use super::expect::{self, Frame};
use super::harness::{scratch, Server};
use super::parts;
use crate::common::{ok, s, symblob, testdata};

/// The committed programs: C, C++ and Rust (DWARF), Go (pclntab and DWARF).
const PROGRAMS: [&str; 4] = [
    "golden/inputs/c-gcc-dwarf5",
    "golden/inputs/cpp-gxx",
    "golden/inputs/rust",
    "lidia/elf/gohello",
];

/// At most `limit` of `all`, spread over them.
fn spread(all: Vec<u64>, limit: usize) -> Vec<u64> {
    let step = all.len().div_ceil(limit).max(1);
    all.into_iter().step_by(step).collect()
}

fn symbolize(server: &Server, es: &str, addrs: &[u64], return_address: bool) -> Vec<Vec<Frame>> {
    let (status, answer) = server.symbolize("see-key", &expect::request(es, addrs, return_address));
    assert_eq!(status, 200, "{answer}");
    assert_eq!(answer["fileID"], es);
    expect::answered(&answer, addrs)
}

#[test]
fn symbolize_answers_as_lookup_does_on_the_pushed_files() {
    let (dir, keys) = scratch("symbolize");
    let store = dir.path().join("store");
    let server = Server::on_dir(&store, &keys);
    // Each program's FileID, addresses and `lookup`'s frames, for the batch.
    let mut asked = Vec::new();
    for program in PROGRAMS {
        let elf = testdata(program);
        let name = elf.file_name().unwrap().to_str().unwrap().to_owned();
        let built = parts::build(&elf, dir.path(), None);
        let (ranges, pads) = (built.whole, built.whole_pads);
        let range_bytes = std::fs::read(&ranges).unwrap();
        // Parts of about a third of the file: the service joins several.
        let part = (range_bytes.len() / 3).max(4096).to_string();
        ok(&symblob()
            .args(["symbfile", "push", s(&elf), "--endpoint", &server.url])
            .args(["--ranges", s(&ranges), "--return-pads", s(&pads)])
            .args(["--max-part-size", &part])
            .env("SYMBLOB_API_KEY", "up-key")
            .output()
            .unwrap());
        let es = FileId::of_path(&elf).unwrap().es();

        let addrs = spread(expect::range_addresses(&ranges), 400);
        assert!(addrs.len() > 20, "{name}: {} addresses", addrs.len());
        let got = symbolize(&server, &es, &addrs, false);
        let expected = expect::lookup(&ranges, &addrs, false);
        for ((a, g), e) in addrs.iter().zip(&got).zip(&expected) {
            assert_eq!(g, e, "{name} at {a:#x}");
        }
        assert!(
            got.iter().filter(|f| !f.is_empty()).count() * 2 > addrs.len(),
            "{name}: too few answers"
        );
        asked.push((es.clone(), addrs.clone(), expected));

        // Return addresses: the pads first, the ranges where there is no pad.
        let pad_returns = expect::pad_addresses(&pads).iter().map(|a| a + 1).collect();
        let mut returns = spread(pad_returns, 200);
        returns.extend(addrs.iter().step_by(7).copied());
        returns.push(0); // no call before it
        returns.insert(returns.len() / 2, 0);
        let got = symbolize(&server, &es, &returns, true);
        let from_pads = expect::lookup(&pads, &returns, true);
        let from_ranges = expect::lookup(&ranges, &returns, true);
        for (i, a) in returns.iter().enumerate() {
            let expected = if from_pads[i].is_empty() {
                &from_ranges[i]
            } else {
                &from_pads[i]
            };
            assert_eq!(&got[i], expected, "{name}: return address {a:#x}");
        }

        // The download layout: metadata naming the file, and the range file joined from
        // the parts, which is the file pushed.
        let dir = format!("/{}/{}/{es}", &es[0..2], &es[2..4]);
        let (status, metadata) = server.get(&format!("{dir}/metadata.json"));
        assert_eq!(status, 200);
        let metadata: Value = serde_json::from_slice(&metadata).unwrap();
        assert_eq!(metadata["symbolFileReferences"]["dwarfFileID"], es.as_str());
        let (status, compressed) = server.get(&format!("{dir}/ranges"));
        assert_eq!(status, 200);
        let joined = zstd::decode_all(&compressed[..]).unwrap();
        assert!(
            joined == range_bytes,
            "{name}: the joined range file is not the file pushed"
        );
    }
    batch_answers_every_program(&server, &asked);
    // The parts are gone once joined.
    let left: Vec<_> = walk(&store.join("uploads"));
    assert!(left.is_empty(), "parts left: {left:?}");
}

/// A program asked about: its FileID, the addresses and `lookup`'s frames of each.
type Asked = (String, Vec<u64>, Vec<Vec<Frame>>);

/// One batch over every program, with an executable never uploaded in the middle.
fn batch_answers_every_program(server: &Server, asked: &[Asked]) {
    let unknown = "AAAAAAAAAAAAAAAAAAAAAA";
    let mut requests: Vec<_> = asked
        .iter()
        .map(|(es, addrs, _)| expect::request(es, addrs, false))
        .collect();
    requests.insert(1, expect::request(unknown, &[0x1000], false));
    let (status, answer) = server.post(
        "/api/symbolize-batch",
        &[("Authorization", "APIKey see-key")],
        json!({ "requests": requests }).to_string().as_bytes(),
    );
    assert_eq!(status, 200, "{answer}");
    let mut results = answer["results"].as_array().expect("results").clone();
    assert_eq!(results.len(), asked.len() + 1);
    let refused = results.remove(1);
    let (single_status, single) = server.symbolize("see-key", &requests[1]);
    assert_eq!(refused["fileID"], unknown);
    assert_eq!(refused["status"], single_status);
    assert_eq!(refused["error"], single["error"], "{refused}");
    for (result, (es, addrs, expected)) in results.iter().zip(asked) {
        assert_eq!(result["fileID"], es.as_str());
        assert_eq!(
            &expect::answered(result, addrs),
            expected,
            "{es} in the batch"
        );
    }
}

/// The files under `dir`.
pub fn walk(dir: &Path) -> Vec<std::path::PathBuf> {
    let mut out = Vec::new();
    for entry in std::fs::read_dir(dir).into_iter().flatten().flatten() {
        let path = entry.path();
        if path.is_dir() {
            out.extend(walk(&path));
        } else {
            out.push(path);
        }
    }
    out
}
