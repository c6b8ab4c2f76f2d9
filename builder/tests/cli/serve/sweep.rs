//! Parts of uploads that never complete leave the store once stale: an upload given up
//! after its first part, and a part sent again after its file was published. The
//! published file stays, and no empty folder is left under `uploads/`.

use std::time::{Duration, Instant};

use super::harness::{scratch, Server};
use super::parts::{self, Kind};
use super::symbolize::walk;
use crate::common::testdata;

#[test]
fn stale_parts_are_swept_and_published_files_stay() {
    let (dir, keys) = scratch("sweep");
    let store = dir.path().join("store");
    let server = Server::on_dir_with(&store, &keys, &["--stale-parts", "5"]);
    let built = parts::build(&testdata("lidia/elf/inl"), dir.path(), None);
    let whole = std::fs::read(&built.whole).unwrap();
    // Any complete symbfile is a part: the same bytes serve as every part here.
    let upload = |es: &str, part| {
        let (status, answer) = parts::post(&server, "up-key", Kind::Ranges, es, part, &whole);
        assert_eq!(status, 200, "{answer}");
    };
    let (given_up, published) = ("AAAAAAAAAAAAAAAAAAAAAA", "AQEBAQEBAQEBAQEBAQEBAQ");
    upload(given_up, (0, 2));
    upload(published, (0, 2));
    upload(published, (1, 2));
    let metadata = format!("/AQ/EB/{published}/metadata.json");
    assert_eq!(server.get(&metadata).0, 200, "the file was not published");
    upload(published, (1, 2)); // sent again: waits for a part 0 that never comes
    let uploads = store.join("uploads");
    assert_eq!(walk(&uploads).len(), 2, "{:?}", walk(&uploads));

    let started = Instant::now();
    while !walk(&uploads).is_empty() || folders(&uploads) > 0 {
        assert!(
            started.elapsed() < Duration::from_secs(30),
            "still in the store after 30 s: {:?}, {} folders",
            walk(&uploads),
            folders(&uploads)
        );
        std::thread::sleep(Duration::from_millis(200));
    }
    assert_eq!(server.metric("symblob_swept_parts_total"), 2.0);
    assert_eq!(server.get(&metadata).0, 200, "the published file was swept");
    let log = server.log.lock().unwrap().clone();
    assert!(log.contains("\"swept\":"), "no sweep in the log:\n{log}");
}

/// Folders anywhere below `dir`.
fn folders(dir: &std::path::Path) -> usize {
    std::fs::read_dir(dir)
        .into_iter()
        .flatten()
        .flatten()
        .filter(|e| e.path().is_dir())
        .map(|e| 1 + folders(&e.path()))
        .sum()
}
