//! Our reader on the files symblib itself wrote: the same records as symblib's own reader
//! printed (`../shared/testdata/symbfile/symblib/*.txt`, format in that folder's README).

use std::fmt::Write;

use symblob_build::symbfile::{decode, Record};

use super::{model_dump, run_model, temp_file};
use crate::common::shared_testdata;

const ELFS: [&str; 4] = ["inl", "simple", "libdemo.so", "gohello"];

fn quote(s: &str) -> String {
    let mut out = String::from("\"");
    for c in s.chars() {
        match c {
            '\\' => out.push_str("\\\\"),
            '"' => out.push_str("\\\""),
            '\n' => out.push_str("\\n"),
            '\t' => out.push_str("\\t"),
            c if (c as u32) < 0x20 || c as u32 == 0x7f => {
                let _ = write!(out, "\\x{:02x}", c as u32);
            }
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

fn opt(s: &Option<String>) -> String {
    s.as_deref().map_or("-".into(), quote)
}

/// One record as a line of the README's format.
fn line(record: &Record) -> String {
    match record {
        Record::Range(r) => format!(
            "R va={:#x} len={} depth={} func={} file={} call_file={} call_line={} lines=[{}]",
            r.va,
            r.length,
            r.depth,
            quote(&r.func),
            opt(&r.file),
            opt(&r.call_file),
            r.call_line.map_or("-".into(), |l| l.to_string()),
            r.lines
                .iter()
                .map(|l| format!("{}:{}", l.offset, l.line))
                .collect::<Vec<_>>()
                .join(",")
        ),
        Record::ReturnPad(p) => format!(
            "P va={:#x} [{}]",
            p.va,
            p.entries
                .iter()
                .map(|e| format!(
                    "{}|{}|{}",
                    quote(&e.func),
                    opt(&e.file),
                    e.line.map_or("-".into(), |l| l.to_string())
                ))
                .collect::<Vec<_>>()
                .join(";")
        ),
    }
}

#[test]
fn symbfile_reader_decodes_symblib_files_to_symblib_records() {
    for elf in ELFS {
        for kind in ["ranges", "retpads"] {
            let Some(bin) = shared_testdata(&format!("symbfile/symblib/{elf}.{kind}.symbfile"))
            else {
                return;
            };
            let txt = shared_testdata(&format!("symbfile/symblib/{elf}.{kind}.txt")).unwrap();
            let bytes = std::fs::read(&bin).unwrap();
            let mut ours: Vec<String> = decode(&bytes).unwrap().iter().map(line).collect();
            let mut theirs: Vec<String> = std::fs::read_to_string(&txt)
                .unwrap()
                .lines()
                .map(str::to_owned)
                .collect();
            ours.sort();
            theirs.sort();
            assert_eq!(ours.len(), theirs.len(), "{elf}.{kind}");
            for (a, b) in ours.iter().zip(&theirs) {
                assert_eq!(a, b, "{elf}.{kind}");
            }
        }
    }
}

#[test]
fn symbfile_symblib_files_reencode_to_what_the_model_reads_back() {
    // symblib's bytes are not reproducible (hash-map table order); our re-encoding of its
    // records must decode, under the model, to the same records, and the model's writer
    // must give our bytes.
    for elf in ELFS {
        let Some(bin) = shared_testdata(&format!("symbfile/symblib/{elf}.ranges.symbfile")) else {
            return;
        };
        let records = decode(&std::fs::read(bin).unwrap()).unwrap();
        let ours = symblob_build::symbfile::writer::encode(&records).unwrap();
        let Some(model) = model_dump(&ours) else {
            return;
        };
        let model = model.unwrap();
        let back = symblob_build::symbfile::json::from_json(&model, "model").unwrap();
        assert_eq!(back, records, "{elf}");
        // The model's writer gives the same bytes from those records.
        let json = temp_file(&serde_json::to_vec(&model).unwrap());
        let theirs = run_model(&["write", json.path().to_str().unwrap()], b"").unwrap();
        assert_eq!(theirs.unwrap(), ours, "{elf}");
    }
}
