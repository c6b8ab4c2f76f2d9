//! Bad requests: each gets the API's JSON error with a 4xx status, nothing of it is
//! stored, and the service keeps answering.

use serde_json::{json, Value};

use super::harness::{assert_refused, scratch, Server};
use super::parts;
use super::symbolize::walk;
use crate::common::{s, testdata};

const ES: &str = "3CcCZDci-njF5HbfglbHDA";

fn part_headers<'a>(
    key: &'a str,
    id: &'a str,
    part: &'a str,
    parts: &'a str,
) -> Vec<(&'a str, String)> {
    vec![
        ("Authorization", format!("APIKey {key}")),
        ("FileID", id.to_owned()),
        ("FilePart", part.to_owned()),
        ("FileParts", parts.to_owned()),
    ]
}

fn post_part(
    server: &Server,
    path: &str,
    headers: &[(&str, String)],
    body: &[u8],
) -> (u16, serde_json::Value) {
    let h: Vec<(&str, &str)> = headers.iter().map(|(k, v)| (*k, v.as_str())).collect();
    server.post(path, &h, body)
}

#[test]
fn bad_requests_get_json_errors_and_leave_nothing_stored() {
    let (dir, keys) = scratch("refusals");
    let store = dir.path().join("store");
    let mut server = Server::start(
        &[
            "--store",
            s(&store),
            "--keys",
            s(&keys),
            "--max-body",
            "200000",
            "--max-addresses",
            "5000",
        ],
        &[],
    );
    let elf = testdata("lidia/elf/inl");
    let built = parts::build(&elf, dir.path(), None);
    let good = std::fs::read(&built.whole).unwrap();
    let pad_file = std::fs::read(&built.whole_pads).unwrap();
    let up = "/api/symbols-ranges";

    // Keys and roles.
    assert_refused(
        &server.post(
            up,
            &[("FileID", ES), ("FilePart", "0"), ("FileParts", "1")],
            &good,
        ),
        401,
    );
    assert_refused(
        &post_part(&server, up, &part_headers("wrong", ES, "0", "1"), &good),
        401,
    );
    assert_refused(
        &post_part(&server, up, &part_headers("see-key", ES, "0", "1"), &good),
        403,
    );
    let ask = json!({ "fileID": ES, "addresses": ["0x1139"] });
    assert_refused(&server.symbolize("up-key", &ask), 403);
    assert_refused(&server.symbolize("wrong", &ask), 401);

    // Headers.
    for (id, part, parts) in [
        ("not-a-file-id", "0", "1"),
        ("3c27026438be8f8e45e476df8252c30c", "0", "1"), // hex: the API takes the ES form
        (ES, "1", "1"),
        (ES, "0", "0"),
        (ES, "-1", "2"),
        (ES, "0", "x"),
        (ES, "0", "10001"),
    ] {
        assert_refused(
            &post_part(&server, up, &part_headers("up-key", id, part, parts), &good),
            400,
        );
    }
    // Bodies: empty, not a symbfile, cut short, corrupt, the wrong kind, too large.
    let mut corrupt = good.clone();
    let middle = corrupt.len() / 2;
    corrupt[middle..middle + 8].fill(0xff);
    for body in [
        &[][..],
        b"hello",
        &good[..good.len() - 3],
        &corrupt[..],
        &pad_file[..],
    ] {
        assert_refused(
            &post_part(&server, up, &part_headers("up-key", ES, "0", "1"), body),
            400,
        );
    }
    assert_refused(
        &post_part(
            &server,
            "/api/symbols-returnpads",
            &part_headers("up-key", ES, "0", "1"),
            &good,
        ),
        400,
    );
    assert_refused(
        &post_part(
            &server,
            up,
            &part_headers("up-key", ES, "0", "1"),
            &vec![0; 300_000],
        ),
        413,
    );
    assert!(
        walk(&store).is_empty(),
        "a refused part was kept: {:?}",
        walk(&store)
    );

    // Parts of one file that disagree on the count.
    let (status, _) = post_part(&server, up, &part_headers("up-key", ES, "0", "2"), &good);
    assert_eq!(status, 200);
    assert_refused(
        &post_part(&server, up, &part_headers("up-key", ES, "1", "3"), &good),
        409,
    );

    // Symbolize requests.
    assert_refused(
        &server.symbolize("see-key", &json!({ "fileID": ES, "addresses": ["0x1"] })),
        404,
    );
    let garbage: Vec<String> = (0..10_000).map(|i| format!("garbage-{i}")).collect();
    assert_refused(
        &server.symbolize(
            "see-key",
            &json!({ "fileID": ES, "addresses": garbage[..4000] }),
        ),
        400,
    );
    assert_refused(
        &server.symbolize("see-key", &json!({ "fileID": ES, "addresses": garbage })),
        413,
    );
    for bad in [
        json!({ "addresses": ["0x1"] }),
        json!({ "fileID": "nope", "addresses": ["0x1"] }),
        json!({ "fileID": ES, "addresses": "0x1" }),
        json!({ "fileID": ES, "addresses": ["0x1"], "returnAddress": "yes" }),
    ] {
        assert_refused(&server.symbolize("see-key", &bad), 400);
    }
    assert_refused(
        &server.post(
            "/api/symbolize",
            &[("Authorization", "APIKey see-key")],
            b"{not json",
        ),
        400,
    );
    assert_refused(&server.post("/api/nothing", &[], b""), 404);

    // Batches: refused whole when an element is not well formed or the whole is over
    // the limits; the message names the element.
    let batch = |key: &str, body: Value| {
        server.post(
            "/api/symbolize-batch",
            &[("Authorization", &format!("APIKey {key}"))],
            body.to_string().as_bytes(),
        )
    };
    let one = json!({ "fileID": ES, "addresses": ["0x1"] });
    assert_refused(&batch("up-key", json!({ "requests": [one] })), 403);
    let bad = batch(
        "see-key",
        json!({ "requests": [one, { "fileID": ES, "addresses": ["0x1", "x"] }] }),
    );
    assert_refused(&bad, 400);
    let text = bad.1["error"]["Text"].as_str().unwrap();
    assert!(text.contains("`requests[1].addresses[1]`"), "{text}");
    assert_refused(&batch("see-key", json!({ "files": [one] })), 400);
    let many = vec!["0x1"; 3000];
    let over = json!({ "fileID": ES, "addresses": many });
    assert_refused(&batch("see-key", json!({ "requests": [over, over] })), 413);
    let elements = vec![json!({ "fileID": ES, "addresses": [] }); 1001];
    assert_refused(&batch("see-key", json!({ "requests": elements })), 413);

    // Still serving.
    assert!(server.running());
    assert_eq!(server.get("/health").0, 200);
    let log = server.log.lock().unwrap().clone();
    for key in ["up-key", "see-key", "both-key"] {
        assert!(!log.contains(key), "a key was logged");
    }
}

#[test]
fn without_keys_uploads_are_refused_and_symbolize_answers_this_machine() {
    let (dir, _) = scratch("nokeys");
    let store = dir.path().join("store");
    let server = Server::start(&["--store", s(&store)], &[]);
    let body = std::fs::read(testdata("symbfile/symblib/inl.ranges.symbfile")).unwrap();
    assert_refused(
        &post_part(
            &server,
            "/api/symbols-ranges",
            &part_headers("any", ES, "0", "1"),
            &body,
        ),
        403,
    );
    // From 127.0.0.1: open (no symbols here, hence 404 rather than 401).
    assert_refused(
        &server.symbolize("", &json!({ "fileID": ES, "addresses": [] })),
        404,
    );
}
