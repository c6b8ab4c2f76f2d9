//! Lidia round trip: generated ranges are written with the Lidia writer; the file must
//! parse, pass its checksums and validation, list the ranges in (VA, depth) order, and
//! answer every lookup as the model of spec 11.2 (selection) and 7.3 (files and lines)
//! says.

#![no_main]

use arbitrary::Arbitrary;
use libfuzzer_sys::fuzz_target;
use symblob::lidia::LidiaFile;
use symblob_build::lidia::{Flags, LidiaWriter};
use symblob_fuzz::gen::GenRanges;
use symblob_fuzz::model::{LidiaModel, ModelFrame};

#[derive(Arbitrary, Debug)]
struct Input {
    ranges: GenRanges,
    offset: u8,
    probes: Vec<u64>,
}

fuzz_target!(|input: Input| {
    let ranges = input.ranges.ranges();
    let (files, lines) = (input.ranges.files, input.ranges.lines);
    let mut writer = LidiaWriter::new(Flags { files, lines });
    for range in &ranges {
        writer.add(&range.spec());
    }
    let layout = writer.layout();
    let bytes = writer.finish();
    assert_eq!(bytes.len() as u64, layout.file_size);
    let offset = usize::from(input.offset % 8);
    let buf = symblob_fuzz::at_offset(&bytes, offset);
    let file = LidiaFile::parse(&buf[offset..]).expect("a written file parses");
    file.verify_checksums()
        .expect("a written file has correct checksums");
    file.validate().expect("a written file validates");

    let model = LidiaModel::new(&ranges, files, lines);
    assert_eq!(file.len(), model.ranges().len());
    for (got, want) in file.ranges().zip(model.ranges()) {
        assert_eq!(
            (got.va, got.length, got.depth),
            (want.va, want.length, want.depth)
        );
        assert_eq!(got.function.as_bytes(), &want.function[..]);
        assert_eq!(got.call_line, want.call_line);
        let file_of = |s: &[u8]| if files { s.to_vec() } else { Vec::new() };
        assert_eq!(got.file.to_vec(), file_of(&want.file));
        assert_eq!(got.call_file.to_vec(), file_of(&want.call_file));
        let want_lines = if lines { want.lines.len() } else { 0 };
        assert_eq!(got.lines.len(), want_lines);
        for (g, w) in got.lines.iter().zip(&want.lines) {
            assert_eq!((g.offset, g.line), (w.offset, w.line));
        }
    }

    let mut queries = input.probes.clone();
    for r in model.ranges().iter().take(512) {
        let end = r.va.wrapping_add(r.length);
        queries.extend([r.va, r.va.wrapping_sub(1), end.wrapping_sub(1), end]);
        for l in r.lines.iter().take(4) {
            queries.push(r.va.wrapping_add(l.offset));
        }
    }
    for q in queries {
        let got: Vec<ModelFrame> = file
            .lookup(q)
            .map(|f| ModelFrame {
                function: f.function.to_vec(),
                file: f.file.to_vec(),
                line: f.line,
                depth: f.depth,
            })
            .collect();
        assert_eq!(got, model.lookup(q), "lookup({q:#x})");
        assert_eq!(
            file.lookup_function(q).map(|s| s.to_vec()),
            got.first().map(|f| f.function.clone())
        );
    }
});
