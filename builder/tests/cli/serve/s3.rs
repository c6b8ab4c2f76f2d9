//! `symblob serve --store s3://…` on a real S3 server (a single-node Garage): instances
//! sharing one bucket, the store going away or stalling and coming back, parts that
//! disagree.

use std::path::Path;
use std::time::{Duration, Instant};

use serde_json::Value;

use super::expect::{self, answered, lookup, request};
use super::garage::Garage;
use super::harness::{assert_refused, scratch, Server};
use super::parts::{self, post, Kind};
use crate::common::{s, testdata};

/// The bucket every test creates in its own Garage.
const BUCKET: &str = "symbols";
/// Where in the bucket the services keep their files.
const PREFIX: &str = "some/prefix";
/// A C executable with DWARF 5, inlined functions and return pads.
const ELF: &str = "golden/inputs/c-gcc-dwarf5";
/// Small enough to cut its range file in 7 parts and its return pads in 5.
const PART_SIZE: u64 = 400;
/// A key with both roles ([`super::harness::KEYS`]).
const KEY: &str = "both-key";
/// How long a request may take to be refused while the store is unreachable (the
/// store's own limits make it seconds; this leaves room for a loaded machine).
const REFUSED_WITHIN: Duration = Duration::from_secs(30);

/// Starts `symblob serve` on the bucket's prefix with Garage's credentials.
pub(super) fn serve_on(garage: &Garage, keys: &Path) -> Server {
    let env = garage.env();
    let env: Vec<(&str, &str)> = env.iter().map(|(k, v)| (*k, v.as_str())).collect();
    let store = format!("s3://{}/{PREFIX}", garage.bucket);
    Server::start(&["--store", &store, "--keys", s(keys)], &env)
}

/// Starts Garage, reporting how long its start and setup took; `None` when the `garage`
/// oracle is missing (after `missing_oracle`).
pub(super) fn garage() -> Option<Garage> {
    let garage = Garage::start(BUCKET)?;
    eprintln!("Garage start and setup: {:?}", garage.setup_took);
    Some(garage)
}

/// `request()`'s answer and how long it took.
fn timed(request: impl FnOnce() -> (u16, Value)) -> ((u16, Value), Duration) {
    let started = Instant::now();
    let answer = request();
    (answer, started.elapsed())
}

/// Uploads every part of `bodies`, part `i` to `servers[(i + first) % 2]`.
fn upload_alternately(
    servers: &[Server; 2],
    first: usize,
    kind: Kind,
    es: &str,
    bodies: &[Vec<u8>],
) {
    for (i, body) in bodies.iter().enumerate() {
        let server = &servers[(i + first) % 2];
        let (status, answer) = post(server, KEY, kind, es, (i, bodies.len()), body);
        assert_eq!(status, 200, "{kind:?} part {i}: {answer}");
    }
}

#[test]
fn two_instances_on_one_bucket_serve_what_either_received() {
    let Some(garage) = garage() else { return };
    let (dir, keys) = scratch("s3-two");
    let parts = parts::build(&testdata(ELF), dir.path(), Some(PART_SIZE));
    assert!(
        parts.ranges.len() >= 3 && parts.pads.len() >= 2,
        "several parts: {} range parts, {} return-pad parts",
        parts.ranges.len(),
        parts.pads.len()
    );
    let servers = [serve_on(&garage, &keys), serve_on(&garage, &keys)];
    let pads = expect::pad_addresses(&parts.whole_pads);
    let expected_pads = lookup(&parts.whole_pads, &pads, false);
    assert!(expected_pads.iter().all(|f| !f.is_empty()));
    let returns: Vec<u64> = pads.iter().map(|a| a + 1).collect();

    // The return pads first: a third instance answers return addresses from them alone
    // (a pad and the ranges agree on its address, so only without the ranges does the
    // answer show the pads were joined). It is dropped before the ranges come, which
    // it would not see until its cached entry expires.
    upload_alternately(&servers, 1, Kind::ReturnPads, &parts.es, &parts.pads);
    {
        let third = serve_on(&garage, &keys);
        let (status, answer) = third.symbolize(KEY, &request(&parts.es, &returns, true));
        assert_eq!(status, 200, "{answer}");
        assert_eq!(answered(&answer, &returns), expected_pads);
    }
    upload_alternately(&servers, 0, Kind::Ranges, &parts.es, &parts.ranges);

    // Either instance answers from the joined files, as the files built whole do.
    let addresses = expect::range_addresses(&parts.whole);
    let expected = lookup(&parts.whole, &addresses, false);
    assert!(expected.iter().filter(|f| !f.is_empty()).count() > 100);
    for server in &servers {
        let (status, answer) = server.symbolize(KEY, &request(&parts.es, &addresses, false));
        assert_eq!(status, 200, "{answer}");
        assert_eq!(answered(&answer, &addresses), expected, "{}", server.url);
        let (status, answer) = server.symbolize(KEY, &request(&parts.es, &returns, true));
        assert_eq!(status, 200, "{answer}");
        assert_eq!(answered(&answer, &returns), expected_pads, "{}", server.url);
    }

    // The download layout, the same bytes through both.
    let es = &parts.es;
    let folder = format!("{}/{}/{es}", &es[0..2], &es[2..4]);
    let fetch = |name: &str| -> Vec<u8> {
        let [a, b] = servers
            .each_ref()
            .map(|srv| srv.get(&format!("/{folder}/{name}")));
        assert_eq!(a.0, 200, "{name}: {}", String::from_utf8_lossy(&a.1));
        assert_eq!(a, b, "{name} differs between the instances");
        a.1
    };
    let metadata: Value = serde_json::from_slice(&fetch("metadata.json")).expect("JSON");
    assert_eq!(metadata["symbolFileReferences"]["dwarfFileID"], *es);
    for (name, whole) in [("ranges", &parts.whole), ("returnpads", &parts.whole_pads)] {
        let joined = zstd::decode_all(&fetch(name)[..]).expect("zstd");
        let path = dir.path().join(format!("downloaded.{name}"));
        std::fs::write(&path, joined).unwrap();
        assert_eq!(expect::records(&path), expect::records(whole), "{name}");
    }

    // In the bucket: the published files under the prefix, no parts left.
    let published: Vec<String> = ["metadata.json", "ranges", "ranges.lidia", "returnpads"]
        .iter()
        .map(|name| format!("{PREFIX}/{folder}/{name}"))
        .collect();
    assert_eq!(garage.objects(), published);
}

#[test]
fn an_unreachable_store_is_503_and_the_service_recovers() {
    let Some(mut garage) = garage() else { return };
    let (dir, keys) = scratch("s3-outage");
    let parts = parts::build(&testdata(ELF), dir.path(), None);
    let mut server = serve_on(&garage, &keys);
    let addresses = expect::range_addresses(&parts.whole);
    let ask = request(&parts.es, &addresses, false);
    let upload = |server: &Server| {
        post(
            server,
            KEY,
            Kind::Ranges,
            &parts.es,
            (0, 1),
            &parts.ranges[0],
        )
    };

    garage.stop();
    let symbolize = timed(|| server.symbolize(KEY, &ask));
    let upload_answer = timed(|| upload(&server));
    eprintln!(
        "refused while Garage is down: symbolize in {:?}, upload in {:?}",
        symbolize.1, upload_answer.1
    );
    for (answer, took) in [&symbolize, &upload_answer] {
        assert_refused(answer, 503);
        assert!(*took < REFUSED_WITHIN, "refused after {took:?}");
    }
    assert_eq!(server.get("/health").0, 200);
    assert!(server.running());

    garage.restart();
    let (status, answer) = upload(&server);
    assert_eq!(status, 200, "{answer}");
    let (status, answer) = server.symbolize(KEY, &ask);
    assert_eq!(status, 200, "{answer}");
    assert_eq!(
        answered(&answer, &addresses),
        lookup(&parts.whole, &addresses, false)
    );
}

#[test]
fn parts_split_two_ways_on_two_instances_conflict() {
    let Some(garage) = garage() else { return };
    let (dir, keys) = scratch("s3-conflict");
    let parts = parts::build(&testdata(ELF), dir.path(), Some(PART_SIZE));
    let n = parts.ranges.len();
    let servers = [serve_on(&garage, &keys), serve_on(&garage, &keys)];
    let send = |server: &Server, part: usize, of: usize| {
        post(
            server,
            KEY,
            Kind::Ranges,
            &parts.es,
            (part, of),
            &parts.ranges[part],
        )
    };
    let (status, answer) = send(&servers[0], 0, n);
    assert_eq!(status, 200, "{answer}");
    let refused = send(&servers[1], 1, n + 1);
    assert_refused(&refused, 409);
    assert!(
        refused.1["error"]["Text"]
            .as_str()
            .unwrap()
            .contains("FileParts"),
        "{}",
        refused.1
    );
    // The split received first goes on.
    let (status, answer) = send(&servers[1], 1, n);
    assert_eq!(status, 200, "{answer}");
}

#[test]
fn a_stalled_store_is_503_within_seconds_and_the_service_recovers() {
    let Some(garage) = garage() else { return };
    let (dir, keys) = scratch("s3-stalled");
    let parts = parts::build(&testdata(ELF), dir.path(), None);
    let server = serve_on(&garage, &keys);
    // The service has talked to Garage: its connections to it are open when it stalls.
    let (status, answer) = post(
        &server,
        KEY,
        Kind::Ranges,
        &parts.es,
        (0, 1),
        &parts.ranges[0],
    );
    assert_eq!(status, 200, "{answer}");
    let addresses = expect::range_addresses(&parts.whole);
    let ask = request(&parts.es, &addresses, false);
    let upload_pads = || {
        post(
            &server,
            KEY,
            Kind::ReturnPads,
            &parts.es,
            (0, 1),
            &parts.pads[0],
        )
    };

    garage.pause();
    // Both at once: each waits for the store's time limit.
    let (symbolize, upload) = std::thread::scope(|scope| {
        let symbolize = scope.spawn(|| timed(|| server.symbolize(KEY, &ask)));
        let upload = scope.spawn(|| timed(upload_pads));
        (symbolize.join().unwrap(), upload.join().unwrap())
    });
    garage.resume();
    eprintln!(
        "refused while Garage is stalled: symbolize in {:?}, upload in {:?}",
        symbolize.1, upload.1
    );
    for (answer, took) in [&symbolize, &upload] {
        assert_refused(answer, 503);
        assert!(*took < REFUSED_WITHIN, "refused after {took:?}");
    }
    assert_eq!(server.get("/health").0, 200);

    let (status, answer) = upload_pads();
    assert_eq!(status, 200, "{answer}");
    let (status, answer) = server.symbolize(KEY, &ask);
    assert_eq!(status, 200, "{answer}");
    assert_eq!(
        answered(&answer, &addresses),
        lookup(&parts.whole, &addresses, false)
    );
}
