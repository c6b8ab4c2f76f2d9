//! The service killed (SIGKILL) in the middle of an upload and started again on the same
//! store: the file is absent until every part is in again, retried parts complete it,
//! and nothing half-written is ever answered.

use serde_json::json;

use super::harness::{scratch, Server};
use super::parts::{self, Kind};
use crate::common::testdata;

#[test]
fn a_killed_service_loses_no_upload_and_shows_no_half_file() {
    let (dir, keys) = scratch("crash");
    let store = dir.path().join("store");
    let elf = testdata("golden/inputs/rust");
    // About a dozen parts of the 77 kB range file.
    let built = parts::build(&elf, dir.path(), Some(8192));
    let (parts, es) = (&built.ranges, &built.es);
    assert!(parts.len() >= 4, "{} parts", parts.len());
    let bytes = std::fs::read(&built.whole).unwrap();
    let count = parts.len().to_string();

    let mut server = Server::on_dir(&store, &keys);
    let send = |server: &Server, i: usize| {
        parts::post(
            server,
            "up-key",
            Kind::Ranges,
            es,
            (i, parts.len()),
            &parts[i],
        )
        .0
    };
    // Half the parts, then a kill while the next ones are on their way.
    let half = parts.len() / 2;
    for i in 0..half {
        assert_eq!(send(&server, i), 200);
    }
    // Sent straight from a thread of its own (the server is killed under it, so its
    // requests may fail in any way).
    let url = server.url.clone();
    let in_flight = {
        let (es, count, rest) = (es.clone(), count.clone(), parts[half..].to_vec());
        std::thread::spawn(move || {
            for (k, body) in rest.iter().enumerate() {
                let _ = ureq::post(&format!("{url}/api/symbols-ranges"))
                    .set("Authorization", "APIKey up-key")
                    .set("FileID", &es)
                    .set("FilePart", &(half + k).to_string())
                    .set("FileParts", &count)
                    .send_bytes(body);
            }
        })
    };
    std::thread::sleep(std::time::Duration::from_millis(15));
    server.kill();
    let _ = in_flight.join();

    // Started again: whatever the kill interrupted, the file is either whole or absent.
    let server = Server::on_dir(&store, &keys);
    let addrs = ["0x1000", "0x2000", "0x3000"];
    let (status, answer) =
        server.symbolize("see-key", &json!({ "fileID": es, "addresses": addrs }));
    if status == 200 {
        // Every part had arrived before the kill: the file must then be complete.
        let (status, compressed) = server.get(&format!("/{}/{}/{es}/ranges", &es[0..2], &es[2..4]));
        assert_eq!(status, 200);
        assert!(zstd::decode_all(&compressed[..]).unwrap() == bytes);
    } else {
        assert_eq!(status, 404, "{answer}");
    }
    // The client's retry: every part again, some of them twice.
    for i in (0..parts.len()).rev() {
        assert_eq!(send(&server, i), 200, "part {i}");
    }
    let (status, compressed) = server.get(&format!("/{}/{}/{es}/ranges", &es[0..2], &es[2..4]));
    assert_eq!(status, 200);
    assert!(
        zstd::decode_all(&compressed[..]).unwrap() == bytes,
        "the joined file is not the file uploaded"
    );
    let (status, answer) =
        server.symbolize("see-key", &json!({ "fileID": es, "addresses": addrs }));
    assert_eq!(status, 200, "{answer}");
}
