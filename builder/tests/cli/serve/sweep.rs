//! Parts of uploads that never complete leave the store once stale: an upload given up
//! after its first part, and a part sent again after its file was published. The
//! published file stays, and no empty folder of parts is left under `uploads/`. Files
//! and folders a user kept in an `uploads` folder of the store's directory, however
//! old, stay too.

use std::time::{Duration, Instant};

use super::harness::{scratch, Server};
use super::parts::{self, Kind};
use super::symbolize::walk;
use crate::common::testdata;

#[test]
fn stale_parts_are_swept_and_published_files_stay() {
    let (dir, keys) = scratch("sweep");
    let store = dir.path().join("store");
    // What was there before the store: old files, one at a part's depth, and an empty
    // folder, none of them in the parts layout.
    let uploads = store.join("uploads");
    let theirs = [
        uploads.join("notes.txt"),
        uploads.join("AAAAAAAAAAAAAAAAAAAAAA/ranges/2/notes"),
        uploads.join("mine/ranges/2/0"),
    ];
    let empty = uploads.join("AAAAAAAAAAAAAAAAAAAAAA/ranges/empty");
    std::fs::create_dir_all(&empty).unwrap();
    let long_ago = std::time::SystemTime::now() - Duration::from_secs(3 * 86_400);
    for file in &theirs {
        std::fs::create_dir_all(file.parent().unwrap()).unwrap();
        std::fs::write(file, b"a user's file").unwrap();
        let f = std::fs::File::options().write(true).open(file).unwrap();
        f.set_modified(long_ago).unwrap();
    }
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
    assert_eq!(
        walk(&uploads).len(),
        theirs.len() + 2,
        "{:?}",
        walk(&uploads)
    );

    // Left at the end: the user's files and the folders that hold them or were theirs
    // (uploads/AAAA…/ranges/{2,empty}, uploads/mine/ranges/2).
    let (their_folders, started) = (7, Instant::now());
    while walk(&uploads).len() > theirs.len() || folders(&uploads) > their_folders {
        assert!(
            started.elapsed() < Duration::from_secs(30),
            "still in the store after 30 s: {:?}, {} folders",
            walk(&uploads),
            folders(&uploads)
        );
        std::thread::sleep(Duration::from_millis(200));
    }
    assert_eq!(server.metric("symblob_swept_parts_total"), 2.0);
    for file in &theirs {
        assert!(file.exists(), "{} was removed", file.display());
    }
    assert!(empty.is_dir(), "a user's empty folder was removed");
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
