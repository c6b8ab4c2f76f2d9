//! What an upload in parts costs the store: the listings of the service's upload path
//! return a number of entries that grows with the parts, not with their square (each part
//! used to list every part received before it, twice), on a directory and on S3.

use super::harness::{scratch, Server};
use super::parts::{self, post, Kind};
use super::s3::{garage, serve_on};
use crate::common::testdata;

/// Entries listed per part at most: the count folder of the conflict check, and a share
/// of the last parts' listing of the folder.
const ENTRIES_PER_PART: f64 = 3.0;

/// Uploads the range parts of `built` in order and the return-pad parts in reverse to
/// `server`, and checks the entries its listings returned, and that both files were
/// published.
fn uploads_list_entries_in_proportion_to_parts(server: &Server, built: &parts::Parts) {
    let listed = || server.metric("symblob_store_listed_entries_total");
    let before = listed();
    for (kind, bodies, reverse) in [
        (Kind::Ranges, &built.ranges, false),
        (Kind::ReturnPads, &built.pads, true),
    ] {
        let n = bodies.len();
        let order: Vec<usize> = if reverse {
            (0..n).rev().collect()
        } else {
            (0..n).collect()
        };
        for i in order {
            let (status, answer) = post(server, "up-key", kind, &built.es, (i, n), &bodies[i]);
            assert_eq!(status, 200, "{kind:?} part {i} of {n}: {answer}");
        }
    }
    let parts = (built.ranges.len() + built.pads.len()) as f64;
    let entries = listed() - before;
    // In order, listing every part received would have returned about parts² entries.
    assert!(
        entries <= ENTRIES_PER_PART * parts,
        "{entries} entries listed for {parts} parts"
    );
    let es = &built.es;
    for name in ["ranges", "returnpads"] {
        let (status, _) = server.get(&format!("/{}/{}/{es}/{name}", &es[0..2], &es[2..4]));
        assert_eq!(status, 200, "{name} published");
    }
}

/// Some 70 parts of a Rust program's two files.
fn many_parts(dir: &std::path::Path) -> parts::Parts {
    let built = parts::build(&testdata("golden/inputs/rust"), dir, Some(4096));
    assert!(
        built.ranges.len() >= 20,
        "{} range parts",
        built.ranges.len()
    );
    assert!(
        built.pads.len() >= 4,
        "{} return-pad parts",
        built.pads.len()
    );
    built
}

#[test]
fn an_upload_in_parts_lists_in_proportion_to_its_parts_on_a_directory() {
    let (dir, keys) = scratch("listing-dir");
    let built = many_parts(dir.path());
    let server = Server::on_dir(&dir.path().join("store"), &keys);
    uploads_list_entries_in_proportion_to_parts(&server, &built);
}

#[test]
fn an_upload_in_parts_lists_in_proportion_to_its_parts_on_s3() {
    let Some(garage) = garage() else { return };
    let (dir, keys) = scratch("listing-s3");
    let built = many_parts(dir.path());
    let server = serve_on(&garage, &keys);
    uploads_list_entries_in_proportion_to_parts(&server, &built);
}
