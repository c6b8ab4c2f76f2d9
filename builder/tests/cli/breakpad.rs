//! `symblob breakpad build`: `-o` and `--store` write the same bytes, the store path is
//! the one the `MODULE` line names (`<name>/<id>/<name>.sym`, where minidump-stackwalk
//! looks), and the two outputs exclude each other.

use crate::common::{ok, run, s, testdata};

#[test]
fn store_writes_the_module_line_s_path_with_the_same_bytes() {
    let elf = testdata("lidia/elf/inl");
    let dir = tempfile::tempdir().unwrap();
    let single = dir.path().join("inl.sym");
    let store = dir.path().join("store");
    ok(&run(
        &["breakpad", "build", "--quiet", s(&elf), "-o", s(&single)],
        b"",
    ));
    ok(&run(
        &[
            "breakpad",
            "build",
            "--quiet",
            s(&elf),
            "--store",
            s(&store),
        ],
        b"",
    ));
    let text = std::fs::read_to_string(&single).unwrap();
    // `MODULE Linux x86_64 <id> <name>`, read from the file itself.
    let module: Vec<&str> = text.lines().next().unwrap().split(' ').collect();
    assert_eq!(module[0], "MODULE");
    let (id, name) = (module[3], module[4]);
    let stored = store.join(name).join(id).join(format!("{name}.sym"));
    assert_eq!(std::fs::read_to_string(&stored).unwrap(), text);
}

#[test]
fn output_and_store_exclude_each_other() {
    let elf = testdata("lidia/elf/inl");
    let dir = tempfile::tempdir().unwrap();
    let out = run(
        &[
            "breakpad",
            "build",
            s(&elf),
            "-o",
            "x.sym",
            "--store",
            s(dir.path()),
        ],
        b"",
    );
    assert_eq!(out.status.code(), Some(2), "a usage error");
    let none = run(&["breakpad", "build", s(&elf)], b"");
    assert_eq!(none.status.code(), Some(2), "one of them is required");
}
