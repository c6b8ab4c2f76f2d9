//! `symblob serve --debuginfod`: symbols never uploaded, fetched by build ID from
//! elfutils' own `debuginfod`, started by the tests on a loopback port over a folder of
//! debug files, and answered as `symblob lookup` answers the range file `symblob symbfile
//! build` makes of the same debug file.

mod server;

use std::path::Path;

use object::{Object, ObjectSection, ObjectSymbol};
use serde_json::{json, Value};
use symblob_build::symbfile::FileId;

use self::server::Debuginfod;
use super::expect::{self, Frame};
use super::harness::{assert_refused, scratch, Server};
use crate::common::{ok, run, s, testdata};

/// The build ID of `c-stripped`, `c-stripped.debug` (and `c-gcc-dwarf5`).
const C_BUILD_ID: &str = "cd8b79e6cbad5cde0d1b65aea44219c1b342d49f";
/// The build ID of `cpp-gxx`, which holds its own DWARF.
const CPP_BUILD_ID: &str = "37fc5893c15f5b408cf204d72ef04ae2dd507b03";
/// A build ID no file has.
const UNKNOWN_BUILD_ID: &str = "00112233445566778899aabbccddeeff00112233";

/// `symblob serve` on a fresh store with `debuginfod` as its server.
fn serve(name: &str, debuginfod: &str) -> (Server, tempfile::TempDir) {
    let (dir, keys) = scratch(name);
    let store = dir.path().join("store");
    let more = ["--debuginfod", debuginfod, "--debuginfod-miss-ttl", "3600"];
    let server = Server::on_dir_with(&store, &keys, &more);
    (server, dir)
}

/// Addresses to ask about `elf`: through `.text` in steps, each function's first and
/// second byte, and a few outside any function.
fn sample(elf: &Path) -> Vec<u64> {
    let bytes = std::fs::read(elf).unwrap();
    let file = object::File::parse(&*bytes).unwrap();
    let text = file.section_by_name(".text").expect(".text");
    let (start, size) = (text.address(), text.size());
    let mut addresses: Vec<u64> = (start..start + size).step_by(7).collect();
    for symbol in file.symbols() {
        if symbol.kind() == object::SymbolKind::Text && symbol.address() != 0 {
            addresses.extend([symbol.address(), symbol.address() + 1]);
        }
    }
    addresses.extend([0, 1, start.saturating_sub(1), start + size, u64::MAX]);
    addresses.sort_unstable();
    addresses.dedup();
    addresses
}

/// `symblob lookup <ranges> --json` at `addresses`, where `<ranges>` is the range file
/// `symblob symbfile build` makes of `debug`.
fn lookup_of_built_ranges(debug: &Path, addresses: &[u64], work: &Path) -> Vec<Vec<Frame>> {
    let ranges = work.join("built.ranges");
    ok(&run(
        &["symbfile", "build", s(debug), "-o", s(&ranges), "-q"],
        b"",
    ));
    expect::lookup(&ranges, addresses, false)
}

/// The service's answer to `addresses` of `exe` with `build_id`.
fn symbolize(server: &Server, exe: &Path, build_id: &str, addresses: &[u64]) -> (u16, Value) {
    let request = json!({
        "fileID": FileId::of_path(exe).unwrap().es(),
        "buildID": build_id,
        "addresses": addresses.iter().map(|a| format!("{a:#x}")).collect::<Vec<_>>(),
    });
    server.symbolize("see-key", &request)
}

/// A counter of the service's `/metrics`.
fn metric(server: &Server, name: &str) -> u64 {
    server.metric(name) as u64
}

#[test]
fn symbols_fetched_by_build_id_answer_as_a_lookup_of_the_built_ranges() {
    let Some(debuginfod) = Debuginfod::start(
        &["c-stripped.debug", "cpp-gxx"],
        &[C_BUILD_ID, CPP_BUILD_ID],
    ) else {
        return;
    };
    let (server, dir) = serve("debuginfod-hit", &debuginfod.url);
    let inputs = |name: &str| testdata(&format!("golden/inputs/{name}"));
    // A stripped executable and its separate debug file; an executable with its own DWARF.
    let cases = [
        ("c-stripped", "c-stripped.debug", C_BUILD_ID),
        ("cpp-gxx", "cpp-gxx", CPP_BUILD_ID),
    ];
    for (exe, debug, build_id) in cases {
        let (exe, debug) = (inputs(exe), inputs(debug));
        let addresses = sample(&debug);
        let want = lookup_of_built_ranges(&debug, &addresses, dir.path());
        assert!(want.iter().any(|f| !f.is_empty()), "{want:?}");
        let before = debuginfod.asked(build_id);

        // Several clients at once: one fetch.
        let replies: Vec<(u16, Value)> = std::thread::scope(|scope| {
            let asks: Vec<_> = (0..4)
                .map(|_| scope.spawn(|| symbolize(&server, &exe, build_id, &addresses)))
                .collect();
            asks.into_iter().map(|a| a.join().unwrap()).collect()
        });
        for (status, body) in &replies {
            assert_eq!(*status, 200, "{body}");
            assert_eq!(
                expect::answered(body, &addresses),
                want,
                "{}",
                exe.display()
            );
        }
        assert_eq!(debuginfod.asked_settled(build_id), before + 1);

        // Published in the download layout, as an upload is.
        let es = FileId::of_path(&exe).unwrap().es();
        let published = dir
            .path()
            .join("store")
            .join(&es[0..2])
            .join(&es[2..4])
            .join(&es);
        for name in ["metadata.json", "ranges", "ranges.lidia"] {
            assert!(
                published.join(name).is_file(),
                "{name} in {}",
                published.display()
            );
        }
        let (status, ranges) = server.get(&format!("/{}/{}/{es}/ranges", &es[0..2], &es[2..4]));
        assert_eq!(status, 200);
        let downloaded = dir.path().join("downloaded.ranges");
        std::fs::write(&downloaded, zstd::decode_all(&ranges[..]).unwrap()).unwrap();
        let stdin: String = addresses.iter().map(|a| format!("{a:#x}\n")).collect();
        let again = ok(&run(
            &["lookup", s(&downloaded), "--json"],
            stdin.as_bytes(),
        ));
        assert_eq!(again.lines().count(), addresses.len());
    }
    assert_eq!(metric(&server, "symblob_debuginfod_fetches_total"), 2);
    assert_eq!(metric(&server, "symblob_debuginfod_hits_total"), 2);
    assert_eq!(metric(&server, "symblob_debuginfod_misses_total"), 0);
}

#[test]
fn an_unknown_build_id_is_a_404_that_is_remembered() {
    let Some(debuginfod) = Debuginfod::start(&["cpp-gxx"], &[CPP_BUILD_ID]) else {
        return;
    };
    let (server, _dir) = serve("debuginfod-miss", &debuginfod.url);
    let exe = testdata("golden/inputs/c-clang");
    for _ in 0..2 {
        let answer = symbolize(&server, &exe, UNKNOWN_BUILD_ID, &[0x1000]);
        assert_refused(&answer, 404);
        let text = answer.1["error"]["Text"].as_str().unwrap();
        assert!(
            text.contains("debuginfod") && text.contains(UNKNOWN_BUILD_ID),
            "{text}"
        );
    }
    // Several clients at once, for another unknown build ID: asked once too.
    let other = "ffeeddccbbaa99887766554433221100ffeeddcc";
    std::thread::scope(|scope| {
        let asks: Vec<_> = (0..4)
            .map(|_| scope.spawn(|| symbolize(&server, &exe, other, &[0x1000])))
            .collect();
        for ask in asks {
            assert_refused(&ask.join().unwrap(), 404);
        }
    });
    assert_eq!(debuginfod.asked_settled(UNKNOWN_BUILD_ID), 1);
    assert_eq!(debuginfod.asked_settled(other), 1);
    assert_eq!(metric(&server, "symblob_debuginfod_fetches_total"), 2);
    assert_eq!(metric(&server, "symblob_debuginfod_misses_total"), 2);
    assert_eq!(
        metric(&server, "symblob_debuginfod_remembered_misses_total"),
        4
    );

    // Without a build ID nothing is asked: the FileID has no symbols.
    let request = json!({"fileID": FileId::of_path(&exe).unwrap().es(), "addresses": ["0x1000"]});
    let answer = server.symbolize("see-key", &request);
    assert_refused(&answer, 404);
    assert!(!answer.1["error"]["Text"]
        .as_str()
        .unwrap()
        .contains("debuginfod"));
    assert_eq!(metric(&server, "symblob_debuginfod_fetches_total"), 2);
}

#[test]
fn a_stopped_debuginfod_is_a_503_that_is_not_remembered() {
    let Some(mut debuginfod) = Debuginfod::start(&["cpp-gxx"], &[CPP_BUILD_ID]) else {
        return;
    };
    let (server, _dir) = serve("debuginfod-down", &debuginfod.url);
    let exe = testdata("golden/inputs/cpp-gxx");
    debuginfod.stop();
    let answer = symbolize(&server, &exe, CPP_BUILD_ID, &[0x1000]);
    assert_refused(&answer, 503);
    let text = answer.1["error"]["Text"].as_str().unwrap();
    assert!(text.contains(&debuginfod.url), "{text}");
    assert_eq!(metric(&server, "symblob_debuginfod_failures_total"), 1);
    // The service goes on, and asks again once the server is back.
    assert_eq!(server.get("/health").0, 200);
    debuginfod.restart(CPP_BUILD_ID);
    let (status, body) = symbolize(&server, &exe, CPP_BUILD_ID, &[0x1000]);
    assert_eq!(status, 200, "{body}");
    assert_eq!(metric(&server, "symblob_debuginfod_hits_total"), 1);
}

#[test]
fn a_build_id_that_is_not_hex_is_a_400() {
    // Refused before any server is asked: this one listens nowhere.
    let (server, _dir) = serve("debuginfod-bad", "http://127.0.0.1:9");
    let exe = testdata("golden/inputs/cpp-gxx");
    let es = FileId::of_path(&exe).unwrap().es();
    for bad in [
        json!("xyz"),
        json!("abc"),
        json!("0x1234"),
        json!(""),
        json!(1234),
    ] {
        let request = json!({"fileID": es, "buildID": bad, "addresses": ["0x1000"]});
        let answer = server.symbolize("see-key", &request);
        assert_refused(&answer, 400);
        let text = answer.1["error"]["Text"].as_str().unwrap();
        assert!(text.contains("buildID"), "{text}");
    }
    assert_eq!(metric(&server, "symblob_debuginfod_fetches_total"), 0);
}
