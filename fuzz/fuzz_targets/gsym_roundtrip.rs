//! GSYM round trip: generated functions with inlined calls (the model) are written with
//! the builder's GSYM writer; the file must parse, validate, walk every inline tree, and
//! answer every lookup at the probe addresses as the model says; read back into the model
//! (`readback::gsym`), the model answers as the file, and written again it gives the same
//! bytes (where every inline tree has a line table, which LLVM's lookup needs to read
//! it).

#![no_main]

use arbitrary::Arbitrary;
use libfuzzer_sys::fuzz_target;
use symblob::gsym::GsymFile;
use symblob_build::gsym::{write_model, GsymOptions};
use symblob_build::model::{Group, Model};
use symblob_build::readback;
use symblob_fuzz::functions::{frames, groups, Frame, GenFunction};

#[derive(Arbitrary, Debug)]
struct Input {
    base: u32,
    functions: Vec<GenFunction>,
    probes: Vec<u16>,
}

/// Whether the GSYM record holding the group at `index` has a line table: the writer
/// joins groups that touch and share a name into one record, which gets a table when one
/// of its spans has a file and rows.
fn record_has_lines(groups: &[Group<'_>], index: usize) -> bool {
    let joined =
        |a: &Group<'_>, b: &Group<'_>| a.end() == b.start() && *a.spans[0].name == *b.spans[0].name;
    let mut first = index;
    while first > 0 && joined(&groups[first - 1], &groups[first]) {
        first -= 1;
    }
    let mut last = index;
    while last + 1 < groups.len() && joined(&groups[last], &groups[last + 1]) {
        last += 1;
    }
    groups[first..=last]
        .iter()
        .flat_map(|g| &g.spans)
        .any(|s| s.file.is_some() && !s.rows.is_empty())
}

/// The file's answer at `addr` in the model's frame shape, the path joined again.
fn gsym_frames(file: &GsymFile<'_>, addr: u64) -> Vec<Frame> {
    match file.lookup(addr) {
        Ok(Some(found)) => found
            .frames()
            .map(|f| {
                let mut path = f.dir.0.to_vec();
                if !path.is_empty() {
                    path.push(b'/');
                }
                path.extend_from_slice(f.base.0);
                (f.name.0.to_vec(), path, f.line)
            })
            .collect(),
        Ok(None) => Vec::new(),
        Err(e) => panic!("lookup({addr:#x}) of our own file failed: {e}"),
    }
}

fuzz_target!(|input: Input| {
    let model = Model {
        functions: groups(input.base, &input.functions),
        ..Model::default()
    };
    let written = write_model(&model, &GsymOptions::default()).expect("small models write");
    let file = GsymFile::parse(&written.bytes).expect("a written file parses");
    file.validate().expect("a written file validates");
    for function in file.functions() {
        let function = function.expect("records decode");
        if let Some(nodes) = file.inline_nodes(&function).expect("chunks decode") {
            for node in nodes {
                node.expect("a validated tree walks");
            }
        }
    }

    let mut probes: Vec<u64> = input
        .probes
        .iter()
        .take(64)
        .map(|&p| u64::from(input.base) + u64::from(p))
        .collect();
    for g in &model.functions {
        for s in &g.spans {
            probes.extend([s.start.wrapping_sub(1), s.start, s.end - 1, s.end]);
            probes.extend(s.rows.iter().map(|r| r.addr));
        }
    }

    let back = readback::gsym::read(&written.bytes, "fuzz").expect("our own file reads back");
    for &addr in &probes {
        let got = gsym_frames(&file, addr);
        let index = model
            .functions
            .iter()
            .position(|g| g.start() <= addr && addr < g.end());
        let want = match index {
            Some(i) if !record_has_lines(&model.functions, i) => {
                vec![(model.functions[i].spans[0].name.to_vec(), Vec::new(), 0)]
            }
            _ => frames(&model.functions, addr),
        };
        assert_eq!(got, want, "lookup({addr:#x}) against the model");
        assert_eq!(
            frames(&back.functions, addr),
            got,
            "lookup({addr:#x}) in the model read back"
        );
    }
    // The same bytes again, unless a record has an inline tree without a line table:
    // LLVM's lookup never reads such a tree, and the source leaves it out.
    let unread_tree = (0..model.functions.len())
        .any(|i| model.functions[i].spans.len() > 1 && !record_has_lines(&model.functions, i));
    let again = write_model(&back, &GsymOptions::default()).expect("the model read back writes");
    assert!(
        unread_tree || again.bytes == written.bytes,
        "rewritten GSYM differs"
    );
});
