//! `symblob convert`: the summary says what the target cannot hold, a source with nothing
//! the target holds is refused without writing, and the output answers lookups as the
//! input does (the pairs themselves are tested end to end in `tests/it/convert`).

use crate::common::{failed, ok, run, s, stderr_text, testdata};

#[test]
fn the_summary_names_what_the_target_cannot_hold() {
    let dir = tempfile::tempdir().unwrap();
    let lidia = dir.path().join("inl.lidia");
    let ksym = dir.path().join("inl.ksym");
    let elf = testdata("lidia/elf/inl");
    let built = run(&["convert", s(&elf), "-o", s(&lidia), "--to", "lidia"], b"");
    ok(&built);
    assert!(
        stderr_text(&built)
            .contains("ELF (functions, inlined calls, source files, line numbers) to Lidia"),
        "{}",
        stderr_text(&built)
    );
    let out = run(&["convert", s(&lidia), "-o", s(&ksym), "--to", "ksym"], b"");
    ok(&out);
    let err = stderr_text(&out);
    assert!(
        err.contains("not kept (a ksym-bin file cannot hold them): inlined calls, source files, line numbers"),
        "{err}"
    );
    // The blob answers with the function the Lidia file names outermost.
    let from_lidia = ok(&run(&["lidia", "lookup", s(&lidia)], b"0x1131\n"));
    let from_ksym = ok(&run(&["ksym", "lookup", s(&ksym)], b"0x1131\n"));
    let outermost = from_lidia
        .trim_end()
        .split('\t')
        .rev()
        .nth(2)
        .unwrap()
        .to_string();
    assert!(
        from_ksym.contains(&format!(" {outermost}+")),
        "lidia: {from_lidia} ksym: {from_ksym}"
    );
}

#[test]
fn a_source_without_anything_the_target_holds_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("pads.lidia");
    let pads = testdata("symbfile/symblib/inl.retpads.symbfile");
    let err = failed(&run(
        &["convert", s(&pads), "-o", s(&out), "--to", "lidia"],
        b"",
    ));
    assert!(
        err.contains(
            "inl.retpads.symbfile: holds nothing a Lidia file can hold (it holds return pads)"
        ),
        "{err}"
    );
    assert!(
        !out.exists(),
        "a refused conversion wrote {}",
        out.display()
    );
    // symbfile keeps them: the same records (symblib orders its string table its own way).
    let kept = dir.path().join("pads.symbfile");
    ok(&run(
        &["convert", s(&pads), "-o", s(&kept), "--to", "symbfile"],
        b"",
    ));
    let dump = |p: &std::path::Path| ok(&run(&["symbfile", "dump", s(p), "--json"], b""));
    assert_eq!(dump(&kept), dump(&pads));
}

#[test]
fn an_input_in_no_format_is_named() {
    let dir = tempfile::tempdir().unwrap();
    let text = dir.path().join("notes.txt");
    std::fs::write(&text, b"hello\n").unwrap();
    let out = dir.path().join("out");
    let err = failed(&run(
        &["convert", s(&text), "-o", s(&out), "--to", "symbfile"],
        b"",
    ));
    assert!(
        err.contains("notes.txt")
            && err.contains("not a ksym-bin, Lidia, symbfile, GSYM or ELF file"),
        "{err}"
    );
    assert!(!out.exists());
}
