//! Our reader on the files symblib itself wrote: the same records as symblib's own reader
//! printed (`../shared/testdata/symbfile/symblib/*.txt`, format in that folder's README).

use symblob_build::symbfile::decode;
use symblob_build::symbfile::text::line;

use super::{model_dump, run_model, temp_file};
use crate::common::shared_testdata;

const ELFS: [&str; 4] = ["inl", "simple", "libdemo.so", "gohello"];

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
