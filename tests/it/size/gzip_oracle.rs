//! The chunked, parallel gzip writer read back by Python's zlib (the C library SuperSize's
//! loader uses): one member, nothing after it, the exact text, over several chunks.

use std::process::Command;

use symblob_build::size::writer;

use crate::common::tool;

/// Gunzips `path` as `size_ref.py --strict` does, failing unless it is exactly one member.
const PYTHON: &str = "import sys, zlib
data = open(sys.argv[1], 'rb').read()
d = zlib.decompressobj(wbits=31)
out = d.decompress(data) + d.flush()
assert d.eof and d.unused_data == b'', 'not exactly one gzip member'
sys.stdout.buffer.write(out)";

#[test]
fn size_gzip_is_one_member_zlib_reads() {
    let Some(python) = tool("python3") else {
        return;
    };
    // Several 1 MiB chunks of archive-like lines, repeats reaching across the cuts.
    let mut text = String::new();
    let mut i = 0u64;
    while text.len() < 3_500_000 {
        text.push_str(&format!(
            "core::ptr::drop_in_place<alloc::vec::Vec<u{}>>\t{:x}\n",
            i % 977,
            i * 7919
        ));
        i += 1;
    }
    let dir = tempfile::tempdir().unwrap();
    for level in [1, 6, 9] {
        let path = dir.path().join(format!("t{level}.gz"));
        std::fs::write(&path, writer::gzip_level(text.as_bytes(), level)).unwrap();
        let out = Command::new(&python)
            .args(["-c", PYTHON])
            .arg(&path)
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "level {level}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        assert!(out.stdout == text.as_bytes(), "level {level}: text differs");
    }
}
