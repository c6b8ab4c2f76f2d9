//! Benchmarks of `symblob serve`'s symbolize path, with full frames and the JSON answer:
//!
//! * `symbolize_1000`: one request of 1,000 addresses parsed from its JSON body and
//!   answered (Lidia lookups of every frame, the JSON written), on one thread: what a
//!   request costs the service beyond HTTP.
//! * `lidia_lookups_1000`, `gsym_lookups_1000`: the lookups alone (every frame walked,
//!   nothing written) in the two indexed forms the service could answer from, both made
//!   from the same model: why it keeps Lidia.
//! * `http_1000`: the same request over HTTP on loopback to the service running in this
//!   process (a directory store, the file uploaded through the API first, answers from
//!   the warm cache), one client with a kept-alive connection. After the criterion run,
//!   the p50 and p99 latency of 2,000 such requests is printed.
//!
//! Input: the range symbfile `SYMBLOB_BENCH_SYMBFILE` (e.g. a kernel's or a large
//! program's), or else the symbfile this benchmark's own binary gives (DWARF, bench
//! profile). Addresses are uniform over the bytes of its top-level functions.

use std::hint::black_box;
use std::time::{Duration, Instant};

use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use symblob::symbfile::{Record, SymbFile};
use symblob_build::convert::{convert, ConvertOptions, Target};
use symblob_build::serve::cache::Entry;
use symblob_build::serve::keys::Keys;
use symblob_build::serve::store::Store;
use symblob_build::serve::symbolize::{answer, Request};
use symblob_build::serve::{serve, Limits, ServeOptions};
use symblob_build::symbfile::fileid::FileId;

#[path = "../tests/support/splitmix.rs"]
mod splitmix;
use splitmix::Rng;

const BATCH: usize = 1_000;

/// The range symbfile to serve.
fn ranges() -> Vec<u8> {
    if let Ok(path) = std::env::var("SYMBLOB_BENCH_SYMBFILE") {
        return std::fs::read(&path).expect("read SYMBLOB_BENCH_SYMBFILE");
    }
    let exe = std::env::current_exe().expect("the benchmark's path");
    let bytes = std::fs::read(&exe).expect("read the benchmark");
    convert(&exe, &bytes, Target::Symbfile, &ConvertOptions::default())
        .expect("the benchmark's own symbfile")
        .bytes
}

/// `count` addresses uniform over the top-level ranges' bytes.
fn addresses(file: &[u8], count: usize) -> Vec<u64> {
    let parsed = SymbFile::parse(file).expect("symbfile");
    let mut scratch = vec![""; 1 << 20];
    let mut records = parsed.records(&mut scratch);
    let mut spans = Vec::new();
    while let Some(r) = records.next().expect("record") {
        if let Record::Range(r) = r {
            if r.depth == 0 && r.length > 0 {
                spans.push((r.va, r.length));
            }
        }
    }
    let total: u64 = spans.iter().map(|s| s.1).sum();
    let mut starts = Vec::with_capacity(spans.len());
    let mut sum = 0;
    for s in &spans {
        starts.push(sum);
        sum += s.1;
    }
    let mut rng = Rng::new(7);
    (0..count)
        .map(|_| {
            let at = rng.below(total);
            let i = starts.partition_point(|&s| s <= at) - 1;
            spans[i].0 + (at - starts[i])
        })
        .collect()
}

fn body(id: FileId, addrs: &[u64]) -> Vec<u8> {
    let hex: Vec<String> = addrs.iter().map(|a| format!("{a:#x}")).collect();
    serde_json::to_vec(&serde_json::json!({ "fileID": id.es(), "addresses": hex })).unwrap()
}

fn bench(c: &mut Criterion) {
    let file = ranges();
    let id = FileId::of_bytes(&file);
    let model = symblob_build::readback::symbfile::read(&file, "ranges").expect("model");
    let lidia = symblob_build::lidia::model::write_model(&model);
    let entry = Entry {
        lidia: Some(bytes::Bytes::from(lidia)),
        pads: Vec::new(),
    };
    let addrs = addresses(&file, 64 * BATCH);
    let bodies: Vec<Vec<u8>> = addrs.chunks(BATCH).map(|a| body(id, a)).collect();

    let sample = answer(&entry, &Request::parse(&bodies[0], BATCH).unwrap());
    let frames = sample.windows(11).filter(|w| w == b"{\"function\"").count();
    eprintln!(
        "serve: {} bytes of range file; an answer to {BATCH} addresses: {} frames, {} bytes of JSON",
        file.len(),
        frames,
        sample.len()
    );
    let mut group = c.benchmark_group("serve");
    group.throughput(Throughput::Elements(BATCH as u64));
    let mut next = 0;
    group.bench_function("symbolize_1000", |b| {
        b.iter(|| {
            next = (next + 1) % bodies.len();
            let request = Request::parse(&bodies[next], BATCH).unwrap();
            black_box(answer(&entry, &request))
        })
    });

    let lidia_file = symblob::lidia::LidiaFile::parse(entry.lidia.as_ref().unwrap()).unwrap();
    group.bench_function("lidia_lookups_1000", |b| {
        b.iter(|| {
            next = (next + 1) % 64;
            let mut frames = 0;
            lidia_file.lookup_each(&addrs[next * BATCH..][..BATCH], |_, f| frames += f.count());
            black_box(frames)
        })
    });
    let gsym = symblob_build::gsym::write_model(&model, &Default::default())
        .expect("GSYM")
        .bytes;
    let gsym_file = symblob::gsym::GsymFile::parse(&gsym).unwrap();
    group.bench_function("gsym_lookups_1000", |b| {
        b.iter(|| {
            next = (next + 1) % 64;
            let mut frames = 0;
            for &a in &addrs[next * BATCH..][..BATCH] {
                if let Ok(Some(found)) = gsym_file.lookup(a) {
                    frames += found.frames().count();
                }
            }
            black_box(frames)
        })
    });
    eprintln!(
        "serve: indexed forms of the range file: Lidia {} bytes, GSYM {} bytes",
        entry.lidia.as_ref().unwrap().len(),
        gsym.len()
    );

    let server = Service::start(&file, id);
    let agent = ureq::AgentBuilder::new().build();
    let url = format!("{}/api/symbolize", server.url);
    let ask = |body: &[u8]| {
        let r = agent
            .post(&url)
            .set("Authorization", "APIKey bench")
            .send_bytes(body)
            .expect("symbolize");
        let mut out = Vec::new();
        std::io::Read::read_to_end(&mut r.into_reader(), &mut out).unwrap();
        out
    };
    group.bench_function("http_1000", |b| {
        b.iter(|| {
            next = (next + 1) % bodies.len();
            black_box(ask(&bodies[next]))
        })
    });
    group.finish();

    let mut took: Vec<Duration> = (0..2_000)
        .map(|i| {
            let started = Instant::now();
            black_box(ask(&bodies[i % bodies.len()]));
            started.elapsed()
        })
        .collect();
    took.sort();
    eprintln!(
        "serve/http_1000 latency over {} requests: p50 {:?}, p99 {:?}",
        took.len(),
        took[took.len() / 2],
        took[took.len() * 99 / 100]
    );
}

/// The service in this process, on loopback, with `file` uploaded.
struct Service {
    url: String,
    _store: tempfile::TempDir,
    _runtime: tokio::runtime::Runtime,
}

impl Service {
    fn start(file: &[u8], id: FileId) -> Service {
        let store = tempfile::tempdir().unwrap();
        let keys_text = "bench upload,symbolize\n";
        let runtime = tokio::runtime::Runtime::new().unwrap();
        let listener = runtime
            .block_on(tokio::net::TcpListener::bind("127.0.0.1:0"))
            .unwrap();
        let url = format!("http://{}", listener.local_addr().unwrap());
        let options = ServeOptions {
            store: Store::open(store.path().to_str().unwrap()).unwrap(),
            keys: Keys::parse(keys_text, std::path::Path::new("keys")).unwrap(),
            cache_size: 1 << 30,
            limits: Limits::default(),
            debuginfod: Default::default(),
        };
        runtime.spawn(serve(listener, options, std::future::pending()));
        let answer = ureq::post(&format!("{url}/api/symbols-ranges"))
            .set("Authorization", "APIKey bench")
            .set("FileID", &id.es())
            .set("FilePart", "0")
            .set("FileParts", "1")
            .send_bytes(file)
            .expect("upload");
        assert_eq!(answer.status(), 200);
        Service {
            url,
            _store: store,
            _runtime: runtime,
        }
    }
}

criterion_group!(benches, bench);
criterion_main!(benches);
