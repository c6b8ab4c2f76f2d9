//! An executable's two symbfiles, whole and cut into parts by `symblob symbfile build`,
//! and the upload of one part by hand, so that a test chooses which instance receives
//! which part (`symblob symbfile push` sends them all to one endpoint).
#![allow(dead_code)]

use std::path::{Path, PathBuf};

use serde_json::Value;

use super::harness::Server;
use crate::common::{ok, run, s};

/// The upload endpoint of each file kind.
#[derive(Clone, Copy, Debug)]
pub enum Kind {
    /// `POST /api/symbols-ranges`.
    Ranges,
    /// `POST /api/symbols-returnpads`.
    ReturnPads,
}

impl Kind {
    /// The endpoint's path.
    pub fn path(self) -> &'static str {
        match self {
            Kind::Ranges => "/api/symbols-ranges",
            Kind::ReturnPads => "/api/symbols-returnpads",
        }
    }
}

/// What the tests upload and compare with.
pub struct Parts {
    /// The executable's FileID, ES form.
    pub es: String,
    /// The range symbfile built in one piece: what the service's answers must match.
    pub whole: PathBuf,
    /// The return-pad symbfile built in one piece.
    pub whole_pads: PathBuf,
    /// The parts of the range symbfile, in order.
    pub ranges: Vec<Vec<u8>>,
    /// The parts of the return-pad symbfile, in order.
    pub pads: Vec<Vec<u8>>,
}

/// Builds `elf`'s symbfiles in `dir`: whole, and cut into parts of at most
/// `max_part_size` bytes (one part each without a limit).
pub fn build(elf: &Path, dir: &Path, max_part_size: Option<u64>) -> Parts {
    let whole = dir.join("whole.ranges");
    let whole_pads = dir.join("whole.pads");
    ok(&run(
        &[
            "symbfile",
            "build",
            s(elf),
            "-o",
            s(&whole),
            "--return-pads",
            s(&whole_pads),
            "--quiet",
        ],
        b"",
    ));
    let (ranges, pads) = match max_part_size {
        None => (
            vec![std::fs::read(&whole).unwrap()],
            vec![std::fs::read(&whole_pads).unwrap()],
        ),
        Some(limit) => {
            let (stem, pads_stem) = (dir.join("part.ranges"), dir.join("part.pads"));
            let limit = limit.to_string();
            ok(&run(
                &[
                    "symbfile",
                    "build",
                    s(elf),
                    "-o",
                    s(&stem),
                    "--return-pads",
                    s(&pads_stem),
                    "--max-part-size",
                    &limit,
                    "--quiet",
                ],
                b"",
            ));
            (numbered(&stem), numbered(&pads_stem))
        }
    };
    Parts {
        es: file_id(elf),
        whole,
        whole_pads,
        ranges,
        pads,
    }
}

/// The files `<stem>.0`, `<stem>.1`, … that exist, read in order.
fn numbered(stem: &Path) -> Vec<Vec<u8>> {
    (0..)
        .map(|i| PathBuf::from(format!("{}.{i}", s(stem))))
        .take_while(|p| p.is_file())
        .map(|p| std::fs::read(p).unwrap())
        .collect()
}

/// `elf`'s FileID in ES form, as `symblob symbfile fileid --json` prints it.
pub fn file_id(elf: &Path) -> String {
    let out = ok(&run(&["symbfile", "fileid", "--json", s(elf)], b""));
    let v: Value = serde_json::from_str(out.trim()).expect("fileid --json");
    v["es"].as_str().expect("es").to_owned()
}

/// Uploads part `part` of `parts` of `es`'s `kind` file to `server` with `key`.
pub fn post(
    server: &Server,
    key: &str,
    kind: Kind,
    es: &str,
    (part, parts): (usize, usize),
    body: &[u8],
) -> (u16, Value) {
    let (part, parts) = (part.to_string(), parts.to_string());
    server.post(
        kind.path(),
        &[
            ("Authorization", &format!("APIKey {key}")),
            ("FileID", es),
            ("FilePart", &part),
            ("FileParts", &parts),
        ],
        body,
    )
}
