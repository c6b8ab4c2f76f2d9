//! Go 1.20+ tables (magic 0xFFFFFFF1), which the Debian toolchain (Go 1.19) cannot write:
//! programs built by the oldest and the newest Go release the tests install, each
//! compared with the `debug/gosym` of the release that built it. Lidia lists every
//! function of the table; symbfile records span their line tables and name their files
//! (see `go.rs`, whose checks these are).

use std::path::Path;

use object::{Object, ObjectSection};

use super::go::{assert_lidia_ranges_are, assert_records_match_gosym, Gosym};
use crate::common::go_release;

/// The releases: Go 1.21, the oldest with a 1.20 table that is installable, and the
/// newest (see [`go_release`]).
const RELEASES: [&str; 2] = ["1.21.13", "1.27.3"];

/// The 1.20+ table's magic, as its first four bytes in a little-endian file.
const GO120_MAGIC: [u8; 4] = [0xF1, 0xFF, 0xFF, 0xFF];

/// The first four bytes of `elf`'s `.gopclntab`.
fn table_magic(elf: &Path) -> [u8; 4] {
    let bytes = std::fs::read(elf).expect("read the program");
    let file = object::File::parse(&*bytes).expect("an ELF file");
    let table = file.section_by_name(".gopclntab").expect(".gopclntab");
    let data = table.data().expect("section data");
    data.get(..4)
        .and_then(|m| m.try_into().ok())
        .expect("magic")
}

#[test]
fn go_1_20_tables_of_newer_releases_match_their_gosym() {
    for release in RELEASES {
        let Some(go) = go_release(release) else {
            continue;
        };
        let gosym = Gosym::build(&go);
        // (GOARCH, functions that end before the next entry at least: arm64 line tables
        // cover the padding after a function, as s390x ones do)
        for (arch, padded) in [("amd64", 100), ("arm64", 0), ("386", 100)] {
            eprintln!("Go {release}, {arch}");
            let elf = gosym.build_hello(arch);
            assert_eq!(table_magic(&elf), GO120_MAGIC, "Go {release} {arch}");
            let expected = gosym.funcs(&elf);
            assert!(expected.iter().any(|f| f.2 == "main.greet"));
            assert_lidia_ranges_are(&elf, &expected);
            assert_records_match_gosym(&gosym, &elf, padded);
        }
    }
}
