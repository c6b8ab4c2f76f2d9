//! A local store on a full file system: the upload gets a 503 naming the failure, the
//! file is not visible, and the service goes on answering.

use std::path::Path;
use std::process::Command;

use serde_json::json;
use symblob_build::symbfile::fileid::FileId;

use super::harness::{assert_refused, scratch, Server};
use super::parts::{self, Kind};
use crate::common::{missing_oracle, ok, s, symblob, testdata};

/// A small tmpfs at `dir`, unmounted when dropped.
struct Mounted<'a>(&'a Path);

impl Drop for Mounted<'_> {
    fn drop(&mut self) {
        let _ = Command::new("umount").arg(self.0).status();
    }
}

#[test]
fn a_full_disk_is_a_clear_error_and_the_service_goes_on() {
    let (dir, keys) = scratch("full");
    let store = dir.path().join("store");
    std::fs::create_dir_all(&store).unwrap();
    let mounted = Command::new("mount")
        .args(["-t", "tmpfs", "-o", "size=16k", "tmpfs", s(&store)])
        .output()
        .is_ok_and(|o| o.status.success());
    if !mounted {
        missing_oracle("a small tmpfs to fill (mount -t tmpfs needs root)");
        return;
    }
    let _unmount = Mounted(&store);
    let server = Server::on_dir(&store, &keys);

    // A range file bigger than the file system.
    let elf = testdata("golden/inputs/cpp-gxx");
    let ranges = dir.path().join("big.ranges");
    ok(&symblob()
        .args(["symbfile", "build", s(&elf), "-o", s(&ranges), "-q"])
        .output()
        .unwrap());
    let body = std::fs::read(&ranges).unwrap();
    assert!(body.len() > 16 << 10, "{} bytes fit", body.len());
    let es = FileId::of_path(&elf).unwrap().es();
    let answer = parts::post(&server, "up-key", Kind::Ranges, &es, (0, 1), &body);
    assert_refused(&answer, 503);
    let text = answer.1["error"]["Text"].as_str().unwrap().to_owned();
    assert!(text.contains("No space left"), "{text}");

    // Nothing of it is visible, and the service answers.
    let ask = json!({ "fileID": es, "addresses": ["0x1000"] });
    assert_refused(&server.symbolize("see-key", &ask), 404);
    assert_eq!(server.get("/health").0, 200);
    // A small file still fits.
    let small = std::fs::read(testdata("symbfile/symblib/inl.ranges.symbfile")).unwrap();
    let es = FileId::of_path(&testdata("lidia/elf/inl")).unwrap().es();
    let (status, answer) = parts::post(&server, "up-key", Kind::Ranges, &es, (0, 1), &small);
    assert_eq!(status, 200, "{answer}");
}
