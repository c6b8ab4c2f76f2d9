//! SuperSize loader on arbitrary bytes (`.size` gzipped or plain, `.sizediff`): an error
//! is fine, a panic is not. A loaded archive is written back and loaded again.

#![no_main]

use libfuzzer_sys::fuzz_target;
use symblob_build::size::{loader, writer, Loaded};

fuzz_target!(|data: &[u8]| {
    let Ok(loaded) = loader::load(data, "input") else {
        return;
    };
    let infos = match loaded {
        Loaded::Size { info, sparse } => vec![(info, sparse)],
        Loaded::Diff { before, after } => vec![(before, true), (after, true)],
    };
    for (info, sparse) in infos {
        let text = writer::size_text(&info, sparse);
        let _ = loader::parse_size_text(&text, "rewritten");
        let _ = writer::size_file(&info);
    }
});
