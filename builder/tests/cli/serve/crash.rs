//! The service killed (SIGKILL) in the middle of an upload and started again on the same
//! store: the file is absent until every part is in again, retried parts complete it,
//! and nothing half-written is ever answered.

use serde_json::json;
use symblob_build::symbfile::fileid::FileId;

use super::harness::{scratch, Server};
use crate::common::{ok, s, symblob, testdata};

#[test]
fn a_killed_service_loses_no_upload_and_shows_no_half_file() {
    let (dir, keys) = scratch("crash");
    let store = dir.path().join("store");
    let elf = testdata("golden/inputs/rust");
    let ranges = dir.path().join("rust.ranges");
    ok(&symblob()
        .args(["symbfile", "build", s(&elf), "-o", s(&ranges), "-q"])
        .output()
        .unwrap());
    let bytes = std::fs::read(&ranges).unwrap();
    let size = (bytes.len() / 12).max(4096).to_string();
    let parts_out = dir.path().join("parts");
    ok(&symblob()
        .args([
            "symbfile",
            "build",
            s(&elf),
            "-o",
            s(&parts_out),
            "-q",
            "--max-part-size",
            &size,
        ])
        .output()
        .unwrap());
    let parts: Vec<Vec<u8>> = (0..)
        .map_while(|i| std::fs::read(dir.path().join(format!("parts.{i}"))).ok())
        .collect();
    assert!(parts.len() >= 4, "{} parts", parts.len());
    let es = FileId::of_path(&elf).unwrap().es();
    let count = parts.len().to_string();

    let mut server = Server::on_dir(&store, &keys);
    let send = |server: &Server, i: usize| {
        let part = i.to_string();
        let headers = [
            ("Authorization", "APIKey up-key"),
            ("FileID", es.as_str()),
            ("FilePart", part.as_str()),
            ("FileParts", count.as_str()),
        ];
        server.post("/api/symbols-ranges", &headers, &parts[i]).0
    };
    // Half the parts, then a kill while the next ones are on their way.
    for i in 0..parts.len() / 2 {
        assert_eq!(send(&server, i), 200);
    }
    let url = server.url.clone();
    let in_flight = {
        let (es, count, rest) = (es.clone(), count.clone(), parts[parts.len() / 2..].to_vec());
        std::thread::spawn(move || {
            for (k, body) in rest.iter().enumerate() {
                let part = (k + parts_len_half(&count)).to_string();
                let _ = ureq::post(&format!("{url}/api/symbols-ranges"))
                    .set("Authorization", "APIKey up-key")
                    .set("FileID", &es)
                    .set("FilePart", &part)
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

/// The number of the first part the background thread sends.
fn parts_len_half(count: &str) -> usize {
    count.parse::<usize>().unwrap() / 2
}
