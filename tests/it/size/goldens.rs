//! Against the files Chromium's SuperSize wrote: the same ELFs give the same archive
//! text, the same `.sizediff` halves, and our loader reads what Chromium's loader reads.

use std::path::{Path, PathBuf};

use symblob_build::size::{self, loader, writer, ArchiveOptions, Loaded, SizeInfo};

use super::support::{archive, assert_strict, eu_strip, gunzip, prepare_elf};
use crate::common::testdata;

/// (golden file, its ELF).
fn goldens() -> Vec<(&'static str, PathBuf)> {
    vec![
        ("sizedemo-v1.size", testdata("supersize/sizedemo-v1")),
        ("sizedemo-v2.size", testdata("supersize/sizedemo-v2")),
        ("inl.size", testdata("lidia/elf/inl")),
        ("simple.size", testdata("lidia/elf/simple")),
        ("libdemo.so.size", testdata("lidia/elf/libdemo.so")),
    ]
}

fn golden(name: &str) -> Vec<u8> {
    std::fs::read(testdata(&format!("supersize/{name}"))).expect("golden file")
}

/// Archives a golden's ELF as Chromium did (mtime set, `eu-strip` for the shipped copy).
fn archive_like_chromium(elf: &Path, dir: &Path) -> Option<SizeInfo> {
    let elf = prepare_elf(elf, dir);
    let stripped = eu_strip(&elf)?;
    Some(archive(&elf, Some(&stripped), &ArchiveOptions::default()))
}

#[test]
fn size_archives_equal_chromium_goldens() {
    let dir = tempfile::tempdir().unwrap();
    for (name, elf) in goldens() {
        let Some(info) = archive_like_chromium(&elf, dir.path()) else {
            return;
        };
        let ours = writer::size_file(&info);
        assert_eq!(&ours[..10], b"\x1f\x8b\x08\x00\x00\x00\x00\x00\x02\xff");
        assert_eq!(gunzip(&ours), gunzip(&golden(name)), "{name}");
        assert_strict(dir.path(), name, &ours);
    }
}

/// Given only the unstripped ELF, symblob computes the file `strip` writes: the same
/// archive as from the stripped copy.
#[test]
fn size_archives_without_a_stripped_copy_equal_chromium_goldens() {
    let dir = tempfile::tempdir().unwrap();
    for (name, elf) in goldens() {
        let elf = prepare_elf(&elf, dir.path());
        let info = archive(&elf, None, &ArchiveOptions::default());
        assert_eq!(
            gunzip(&writer::size_file(&info)),
            gunzip(&golden(name)),
            "{name}"
        );
    }
}

#[test]
fn size_sizediff_equals_chromium_golden() {
    let dir = tempfile::tempdir().unwrap();
    let sides: Vec<SizeInfo> = ["supersize/sizedemo-v1", "supersize/sizedemo-v2"]
        .iter()
        .filter_map(|p| archive_like_chromium(&testdata(p), dir.path()))
        .collect();
    let [before, after] = &sides[..] else {
        return;
    };
    // The halves are built from loaded archives, as `save_diff` loads its inputs.
    let load = |info: &SizeInfo| match loader::load(&writer::size_file(info), "x").unwrap() {
        Loaded::Size { info, .. } => info,
        Loaded::Diff { .. } => unreachable!(),
    };
    let ours = size::sizediff_bytes(&load(before), &load(after));
    assert_strict(dir.path(), "sizedemo.sizediff", &ours);
    assert_eq!(halves(&ours), halves(&golden("sizedemo.sizediff")));
}

/// The JSON header and the decompressed halves of a `.sizediff`.
fn halves(data: &[u8]) -> (String, String, String) {
    let json_end = data.windows(2).position(|w| w == b"}\n").unwrap() + 2;
    let header = String::from_utf8(data[..json_end].to_vec()).unwrap();
    let json_start = header.find('{').unwrap();
    let fields: serde_json::Value = serde_json::from_str(&header[json_start..]).unwrap();
    let n = fields["before_length"].as_u64().unwrap() as usize;
    (
        fields["version"].to_string(),
        gunzip(&data[json_end..json_end + n]),
        gunzip(&data[json_end + n..]),
    )
}

/// One row of a `.dump.tsv` symbol line, as Chromium's loader read the file.
fn dump_rows(name: &str) -> Vec<Vec<String>> {
    let text = std::fs::read_to_string(testdata(&format!("supersize/{name}.dump.tsv"))).unwrap();
    text.lines()
        .map(|l| l.split('\t').map(str::to_string).collect::<Vec<_>>())
        .filter(|f| f.len() == 10 && f[0].starts_with('.'))
        .collect()
}

fn our_rows(info: &SizeInfo) -> Vec<Vec<String>> {
    info.symbols
        .iter()
        .map(|s| {
            vec![
                s.section.clone(),
                s.address.to_string(),
                s.size.to_string(),
                s.padding.to_string(),
                s.full_name.clone(),
                s.num_aliases.to_string(),
                s.flags.to_string(),
                s.source_path.clone(),
                s.object_path.clone(),
                s.component.clone(),
            ]
        })
        .collect()
}

#[test]
fn size_loader_reads_what_chromium_reads() {
    for (name, _) in goldens() {
        let Loaded::Size { info, sparse } = loader::load(&golden(name), name).unwrap() else {
            panic!("{name} is not a .size");
        };
        assert!(!sparse);
        assert_eq!(our_rows(&info), dump_rows(name), "{name}");
    }
    let Loaded::Diff { before, after } =
        loader::load(&golden("sizedemo.sizediff"), "sizediff").unwrap()
    else {
        panic!("not a diff");
    };
    let mut rows = our_rows(&before);
    rows.extend(our_rows(&after));
    assert_eq!(rows, dump_rows("sizedemo.sizediff"));
}

#[test]
fn size_round_trip_gives_the_same_text() {
    for (name, _) in goldens() {
        let text = gunzip(&golden(name));
        let (info, sparse) = loader::parse_size_text(&text, name).unwrap();
        assert_eq!(writer::size_text(&info, sparse), text, "{name}");
    }
}
