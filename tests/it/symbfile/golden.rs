//! Upstream's golden file, the reference model's writer and reader, FileID known answers.

use symblob::symbfile::{Record as View, SymbFile};
use symblob_build::symbfile::json::{from_json, to_json};
use symblob_build::symbfile::{
    decode, FileId, LineRow, PadEntry, RangeRecord, Record, ReturnPadRecord, SymbfileWriter,
    WriterOptions,
};

use super::{model_dump, run_model, temp_file};
use crate::common::shared_testdata;

fn golden() -> Option<Vec<u8>> {
    shared_testdata("symbfile/upstream/inl.symbfile").map(|p| std::fs::read(p).unwrap())
}

#[test]
fn symbfile_golden_decodes_to_the_spec_walkthrough() {
    let Some(bytes) = golden() else { return };
    let records = decode(&bytes).unwrap();
    assert_eq!(records.len(), 9);
    // Spec §11, written from the bytes by hand.
    let expect = [
        (
            0x640,
            36,
            "main",
            0,
            Some(0),
            vec![(0, 38), (8, 39), (24, 41)],
        ),
        (0x64c, 12, "a_inline", 1, None, vec![]),
        (0x64c, 12, "b_inline", 2, None, vec![]),
        (0x64c, 12, "c_inline", 3, None, vec![]),
        (0x64c, 12, "d_inline", 4, Some(0), vec![(0, 23)]),
        (0x7f0, 20, "a", 0, Some(0), vec![(0, 18), (8, 19), (12, 20)]),
        (0x7d4, 0, "b", 0, Some(0), vec![]),
        (0x7c0, 0, "c", 0, Some(0), vec![]),
        (
            0x7a0,
            28,
            "d",
            0,
            Some(0),
            vec![(0, 6), (4, 7), (12, 6), (16, 7), (20, 8)],
        ),
    ];
    let path = "/media/share/Development/prodfiler/libpf-rs/testdata/inline.c";
    for (record, (va, len, func, depth, file, lines)) in records.iter().zip(expect) {
        let Record::Range(r) = record else {
            panic!("{record:?}")
        };
        assert_eq!((r.va, r.func.as_str(), r.depth), (va, func, depth));
        if len != 0 {
            assert_eq!(r.length, len, "{func}");
        }
        assert_eq!(r.file.is_some(), file.is_some(), "{func}");
        if !lines.is_empty() {
            let rows: Vec<(u32, u32)> = r.lines.iter().map(|l| (l.offset, l.line)).collect();
            assert_eq!(rows, lines, "{func}");
        }
        if depth > 0 {
            assert_eq!(r.call_file.as_deref(), Some(path));
        }
    }
    let Record::Range(a_inline) = &records[1] else {
        unreachable!()
    };
    assert_eq!(a_inline.call_line, Some(40));
}

#[test]
fn symbfile_golden_reencodes_byte_for_byte() {
    let Some(bytes) = golden() else { return };
    let records = decode(&bytes).unwrap();
    let mut writer = SymbfileWriter::new();
    writer.extend(&records).unwrap();
    assert_eq!(writer.finish().unwrap(), bytes);
}

#[test]
fn symbfile_golden_decodes_as_the_model_does() {
    let Some(bytes) = golden() else { return };
    let Some(model) = model_dump(&bytes) else {
        return;
    };
    assert_eq!(to_json(&decode(&bytes).unwrap()), model.unwrap());
}

/// Records that exercise every encoding rule: duplicated and unique strings, absent
/// files, call sites, depths, line tables, VA deltas both ways and a jump that needs an
/// absolute VA, return pads with absent files and lines, empty strings, non-ASCII text.
pub fn sample_records() -> Vec<Record> {
    let range = |va,
                 length,
                 func: &str,
                 file: Option<&str>,
                 depth,
                 call: Option<(&str, u32)>,
                 lines: &[(u32, u32)]| {
        Record::Range(RangeRecord {
            va,
            length,
            func: func.into(),
            file: file.map(Into::into),
            call_file: call.map(|c| c.0.into()),
            call_line: call.map(|c| c.1),
            depth,
            lines: lines
                .iter()
                .map(|&(offset, line)| LineRow { offset, line })
                .collect(),
        })
    };
    let pad = |va, entries: &[(&str, Option<&str>, Option<u32>)]| {
        Record::ReturnPad(ReturnPadRecord {
            va,
            entries: entries
                .iter()
                .map(|&(f, file, line)| PadEntry {
                    func: f.into(),
                    file: file.map(Into::into),
                    line,
                })
                .collect(),
        })
    };
    vec![
        range(
            0x1000,
            0x40,
            "main",
            Some("src/main.c"),
            0,
            None,
            &[(0, 10), (8, 11), (0x20, 14)],
        ),
        range(
            0x1008,
            0x10,
            "helper",
            None,
            1,
            Some(("src/main.c", 11)),
            &[],
        ),
        range(
            0x1008,
            8,
            "leaf",
            Some("include/leaf.h"),
            2,
            Some(("include/h.h", 3)),
            &[(0, 5)],
        ),
        range(
            0x900,
            0x20,
            "f",
            Some("src/main.c"),
            0,
            None,
            &[(0, 1), (0, 2), (4, 3)],
        ),
        range(0, 4, "", None, 0, None, &[]),
        range(
            u64::MAX - 3,
            4,
            "top",
            Some("héllo/wörld.rs"),
            0,
            None,
            &[(0, 0x7fff_ffff)],
        ),
        pad(
            0x100b,
            &[
                ("main", Some("src/main.c"), Some(11)),
                ("helper", None, None),
            ],
        ),
        pad(0x90f, &[("f", Some("src/main.c"), Some(2))]),
        pad(
            0x5,
            &[
                ("unique_pad_func", Some("unique/file.c"), None),
                ("main", None, Some(7)),
            ],
        ),
        range(
            0x2000,
            0x100,
            "main",
            Some("src/main.c"),
            0,
            None,
            &[(0, 99)],
        ),
    ]
}

#[test]
fn symbfile_writer_equals_the_model_writer_and_reader() {
    let records = sample_records();
    for window in [None, Some(1), Some(2), Some(3), Some(7)] {
        let mut options = WriterOptions::default();
        if let Some(w) = window {
            options.window_records = w;
        }
        let mut writer = SymbfileWriter::with_options(options);
        writer.extend(&records).unwrap();
        let ours = writer.finish().unwrap();
        assert_eq!(decode(&ours).unwrap(), records, "window {window:?}");

        let json = serde_json::to_vec(&to_json(&records)).unwrap();
        let input = temp_file(&json);
        let mut args = vec!["write", input.path().to_str().unwrap()];
        let w = window.map(|w| w.to_string());
        if let Some(w) = &w {
            args.extend(["--window", w]);
        }
        let Some(theirs) = run_model(&args, b"") else {
            return;
        };
        assert_eq!(ours, theirs.unwrap(), "window {window:?}");
        let dumped = model_dump(&ours).unwrap().unwrap();
        assert_eq!(
            from_json(&dumped, "model").unwrap(),
            records,
            "window {window:?}"
        );
    }
}

#[test]
fn symbfile_empty_file_is_twelve_bytes() {
    let bytes = SymbfileWriter::new().finish().unwrap();
    assert_eq!(bytes, b"symbfile\x00\x01\x00\x04");
    let file = SymbFile::parse(&bytes).unwrap();
    assert_eq!(file.validate(&mut []).unwrap().string_tables, 1);
}

#[test]
fn symbfile_scratch_sizes_give_the_same_records() {
    // Many duplicated strings in one table, read with no, a short and a full scratch.
    let records: Vec<Record> = (0..300u64)
        .map(|i| {
            Record::Range(RangeRecord {
                va: 0x1000 + i * 16,
                length: 16,
                func: format!("f{}", i % 100),
                file: Some(format!("file{}.c", i % 37)),
                ..RangeRecord::default()
            })
        })
        .collect();
    let bytes = symblob_build::symbfile::writer::encode(&records).unwrap();
    let file = SymbFile::parse(&bytes).unwrap();
    for slots in [0usize, 1, 10, 1000] {
        let mut scratch = vec![""; slots];
        let mut it = file.records(&mut scratch);
        let mut n = 0;
        while let Some(View::Range(r)) = it.next().unwrap() {
            assert_eq!(
                RangeRecord::from(&r),
                *match &records[n] {
                    Record::Range(x) => x,
                    _ => unreachable!(),
                }
            );
            n += 1;
        }
        assert_eq!(n, records.len(), "scratch {slots}");
    }
}

#[test]
fn symbfile_lookups_find_ranges_in_depth_order_and_pads() {
    let records = sample_records();
    let bytes = symblob_build::symbfile::writer::encode(&records).unwrap();
    let file = SymbFile::parse(&bytes).unwrap();
    let mut scratch = [""; 64];
    let mut out = [symblob::symbfile::Range::EMPTY; 8];
    let n = file.lookup_ranges(0x100a, &mut scratch, &mut out).unwrap();
    let names: Vec<&str> = out[..n].iter().map(|r| r.func).collect();
    assert_eq!(names, ["main", "helper", "leaf"]);
    assert_eq!(out[2].line_at(0x100a), Some(5));
    // A short output buffer keeps the count.
    let mut one = [symblob::symbfile::Range::EMPTY; 1];
    assert_eq!(
        file.lookup_ranges(0x100a, &mut scratch, &mut one).unwrap(),
        3
    );
    assert_eq!(
        file.lookup_ranges(0x3000, &mut scratch, &mut out).unwrap(),
        0
    );

    let pad = file.lookup_return_pad(0x5, &mut scratch).unwrap().unwrap();
    let entries: Vec<_> = pad.entries().map(|e| (e.func, e.file, e.line)).collect();
    assert_eq!(
        entries,
        [
            ("unique_pad_func", Some("unique/file.c"), None),
            ("main", None, Some(7))
        ]
    );
    assert!(file.lookup_return_pad(0x6, &mut []).unwrap().is_none());
}

#[test]
fn symbfile_fileid_known_answers() {
    // Spec §7 (two from upstream's tests, the rest computed with two implementations).
    let mut cycle = Vec::new();
    for _ in 0..40 {
        cycle.extend(0..=255u8);
    }
    let cases: Vec<(Vec<u8>, &str, &str)> = vec![
        (
            vec![0; 123],
            "f4c1e5fe2f28034fcceb0776ec00b125",
            "9MHl_i8oA0_M6wd27ACxJQ",
        ),
        (
            vec![],
            "af5570f5a1810b7af78caf4bc70a660f",
            "r1Vw9aGBC3r3jK9LxwpmDw",
        ),
        (
            cycle,
            "43a0e5b6c86a422f0e8c654be08b31f5",
            "Q6DltshqQi8OjGVL4Isx9Q",
        ),
    ];
    for (data, hex, es) in cases {
        let id = FileId::of_bytes(&data);
        assert_eq!(
            (id.hex().as_str(), id.es().as_str()),
            (hex, es),
            "{} bytes",
            data.len()
        );
        assert_eq!(FileId::parse(hex).unwrap(), id);
        assert_eq!(FileId::parse(es).unwrap(), id);
        assert_eq!(FileId::parse(&format!("{es}==")).unwrap(), id);
    }
    for (rel, hex, es) in [
        (
            "symbfile/upstream/inline",
            "c34f3585fca1b579fb458e827851a599",
            "w081hfyhtXn7RY6CeFGlmQ",
        ),
        (
            "symbfile/upstream/inline-no-tco",
            "136e8f69d518059e4437b4d5488878fd",
            "E26PadUYBZ5EN7TVSIh4_Q",
        ),
        (
            "symbfile/upstream/inl.symbfile",
            "4ed5fc3335b5b410cb4813d75e653e1d",
            "TtX8MzW1tBDLSBPXXmU-HQ",
        ),
    ] {
        let Some(path) = shared_testdata(rel) else {
            return;
        };
        let id = FileId::of_path(&path).unwrap();
        assert_eq!((id.hex().as_str(), id.es().as_str()), (hex, es), "{rel}");
        assert_eq!(FileId::of_bytes(&std::fs::read(&path).unwrap()), id);
    }
}

#[test]
fn symbfile_fileid_at_the_head_tail_boundary_matches_the_model() {
    // 8 KiB exactly: head and tail touch; one byte less and more overlap and part.
    for size in [8191usize, 8192, 8193, 4096, 1] {
        let data: Vec<u8> = (0..size).map(|i| (i * 7 + i / 251) as u8).collect();
        let f = temp_file(&data);
        let Some(out) = run_model(&["fileid", f.path().to_str().unwrap()], b"") else {
            return;
        };
        let out = String::from_utf8(out.unwrap()).unwrap();
        let mut words = out.split_whitespace();
        let id = FileId::of_bytes(&data);
        assert_eq!(words.next(), Some(id.hex().as_str()), "{size} bytes");
        assert_eq!(words.next(), Some(id.es().as_str()), "{size} bytes");
        assert_eq!(FileId::of_path(f.path()).unwrap(), id);
    }
}
