//! 1,000 stored executables asked about in turn, with a cache far smaller than their
//! files: the cache stays within its bound (from `/metrics`), every answer is right, and
//! the process's memory is printed (BENCHMARKS.md has the figures).

use serde_json::{json, Value};
use symblob_build::symbfile::fileid::FileId;

use super::harness::{scratch, Server};
use super::parts::{self, Kind};
use crate::common::{ok, s, symblob, testdata};

const EXECUTABLES: u32 = 1_000;
const CACHE: usize = 4 << 20;

fn rss_kib(pid: u32) -> Option<u64> {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).ok()?;
    status
        .lines()
        .find_map(|l| l.strip_prefix("VmRSS:"))
        .and_then(|v| v.split_whitespace().next()?.parse().ok())
}

#[test]
fn a_thousand_executables_stay_within_the_cache_bound() {
    let (dir, keys) = scratch("memory");
    let store = dir.path().join("store");
    let server = Server::on_dir_with(&store, &keys, &["--cache-size", &CACHE.to_string()]);
    let elf = testdata("golden/inputs/cpp-gxx");
    let ranges = dir.path().join("ranges");
    ok(&symblob()
        .args(["symbfile", "build", s(&elf), "-o", s(&ranges), "-q"])
        .output()
        .unwrap());
    let body = std::fs::read(&ranges).unwrap();
    let id = |n: u32| {
        let mut bytes = [0x5a; 16];
        bytes[..4].copy_from_slice(&n.to_be_bytes());
        FileId(bytes).es()
    };
    for n in 0..EXECUTABLES {
        let (status, answer) =
            parts::post(&server, "both-key", Kind::Ranges, &id(n), (0, 1), &body);
        assert_eq!(status, 200, "{answer}");
    }
    let addrs: Vec<String> = (0..100)
        .map(|i| format!("{:#x}", 0x2000 + i * 16))
        .collect();
    let ask = |es: &str| -> Value {
        let (status, answer) =
            server.symbolize("both-key", &json!({ "fileID": es, "addresses": addrs }));
        assert_eq!(status, 200, "{answer}");
        answer["results"].clone()
    };
    let expected = ask(&id(0));
    let mut largest = 0.0f64;
    for n in 0..EXECUTABLES {
        assert!(ask(&id(n)) == expected, "executable {n}");
        if n % 100 == 99 {
            largest = largest.max(server.metric("symblob_cache_bytes"));
        }
    }
    let one = server.metric("symblob_cache_bytes") / server.metric("symblob_cache_entries");
    assert!(largest <= CACHE as f64, "the cache held {largest} bytes");
    assert!(server.metric("symblob_cache_misses_total") >= f64::from(EXECUTABLES));
    eprintln!(
        "memory: {EXECUTABLES} executables of {} bytes of range file ({one:.0} bytes in memory each), cache bound {CACHE}: at most {largest} bytes cached; the process's RSS {} KiB",
        body.len(),
        rss_kib(server.pid()).map_or("unknown".into(), |k| k.to_string()),
    );
}
