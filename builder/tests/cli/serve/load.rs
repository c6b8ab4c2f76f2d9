//! 64 clients at once for a bounded time (10 s, or `SYMBLOB_LOAD_SECONDS`), on loopback:
//! half upload files (each under a FileID of its own, in two parts) and then ask about
//! them, half symbolize batches of a shared file. No request may fail for good (a 503,
//! the service's "too many uploads at once", is retried as `symbfile push` retries it),
//! no upload may be lost, every answer must be the expected one. The latency of the
//! symbolize requests is printed (BENCHMARKS.md has the figures).

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use serde_json::{json, Value};
use symblob_build::symbfile::fileid::FileId;

use super::harness::{scratch, Server};
use super::parts::{self, Kind};
use crate::common::testdata;

const CLIENTS: usize = 64;

/// `send()`, again while it is answered 503, a few times with a growing wait.
fn retrying(send: impl Fn() -> (u16, Value)) -> (u16, Value) {
    let mut wait = Duration::from_millis(20);
    for _ in 0..8 {
        let answer = send();
        if answer.0 != 503 {
            return answer;
        }
        std::thread::sleep(wait);
        wait *= 2;
    }
    send()
}

#[test]
fn sixty_four_clients_upload_and_symbolize_without_an_error() {
    let seconds: u64 = std::env::var("SYMBLOB_LOAD_SECONDS")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(10);
    let (dir, keys) = scratch("load");
    let store = dir.path().join("store");
    let server = Arc::new(Server::on_dir(&store, &keys));

    let elf = testdata("golden/inputs/c-gcc-dwarf5");
    let bodies = parts::build(&elf, dir.path(), Some(4096)).ranges;
    assert!(bodies.len() >= 2, "{} parts", bodies.len());

    // The shared file, and the answer every copy of it must give.
    let upload = |server: &Server, es: &str| {
        for (i, body) in bodies.iter().enumerate().rev() {
            let (status, answer) = retrying(|| {
                parts::post(
                    server,
                    "both-key",
                    Kind::Ranges,
                    es,
                    (i, bodies.len()),
                    body,
                )
            });
            assert_eq!(status, 200, "{answer}");
        }
    };
    let shared = FileId::of_path(&elf).unwrap().es();
    upload(&server, &shared);
    let addrs: Vec<String> = (0..1000)
        .map(|i| format!("{:#x}", 0x1000 + i * 7))
        .collect();
    let ask = |server: &Server, es: &str| {
        let request = json!({ "fileID": es, "addresses": addrs });
        let body = request.to_string();
        let started = Instant::now();
        let (status, answer) = retrying(|| {
            server.post(
                "/api/symbolize",
                &[("Authorization", "APIKey both-key")],
                body.as_bytes(),
            )
        });
        assert_eq!(status, 200, "{answer}");
        (started.elapsed(), answer["results"].clone())
    };
    let expected = ask(&server, &shared).1;
    assert!(
        expected
            .as_array()
            .unwrap()
            .iter()
            .any(|r| !r["frames"].as_array().unwrap().is_empty()),
        "the shared answers have no frames"
    );

    let stop = Arc::new(AtomicBool::new(false));
    let latencies = Arc::new(Mutex::new(Vec::new()));
    let uploaded = Arc::new(Mutex::new(Vec::new()));
    let started = Instant::now();
    std::thread::scope(|scope| {
        for client in 0..CLIENTS {
            let (server, stop, latencies, uploaded) = (&server, &stop, &latencies, &uploaded);
            let (upload, ask, expected, shared) = (&upload, &ask, &expected, &shared);
            scope.spawn(move || {
                let mut round = 0u32;
                while !stop.load(Ordering::Relaxed) {
                    let es = if client % 2 == 0 {
                        // A FileID of this client's and round's own.
                        let mut id = [0u8; 16];
                        id[..4].copy_from_slice(&(client as u32).to_be_bytes());
                        id[4..8].copy_from_slice(&round.to_be_bytes());
                        let es = FileId(id).es();
                        upload(server, &es);
                        uploaded.lock().unwrap().push(es.clone());
                        es
                    } else {
                        shared.clone()
                    };
                    let (took, results) = ask(server, &es);
                    assert!(&results == expected, "client {client}: a different answer");
                    latencies.lock().unwrap().push(took);
                    round += 1;
                }
            });
        }
        std::thread::sleep(Duration::from_secs(seconds));
        stop.store(true, Ordering::Relaxed);
    });
    let elapsed = started.elapsed();

    // No upload lost: every file uploaded is answered.
    let uploaded = uploaded.lock().unwrap();
    assert!(!uploaded.is_empty());
    for es in uploaded.iter() {
        assert!(ask(&server, es).1 == expected, "{es} was lost");
    }
    let mut took = latencies.lock().unwrap().clone();
    took.sort();
    eprintln!(
        "load: {CLIENTS} clients, {:.1} s: {} uploads of {} parts, {} symbolize requests of 1,000 addresses ({:.0} addresses/s); symbolize latency p50 {:?}, p99 {:?}",
        elapsed.as_secs_f64(),
        uploaded.len(),
        bodies.len(),
        took.len(),
        took.len() as f64 * 1000.0 / elapsed.as_secs_f64(),
        took[took.len() / 2],
        took[took.len() * 99 / 100],
    );
}
