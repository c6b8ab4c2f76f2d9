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
            && err.contains("not a ksym-bin, Lidia, symbfile, GSYM, Breakpad or ELF file"),
        "{err}"
    );
    assert!(!out.exists());
}

/// The GSYM file `llvm-gsymutil` wrote of the `inl` test program (a fuzzing seed).
fn llvm_gsym() -> std::path::PathBuf {
    crate::common::root().join("fuzz/seeds/gsym_parse/inline.gsym")
}

#[test]
fn a_gsym_input_converts_and_the_summary_names_it() {
    let dir = tempfile::tempdir().unwrap();
    // Addresses of both programs (LLVM's file was made of an older `inl`), with inlined
    // calls in each.
    let addrs = b"0x1000\n0x1041\n0x1090\n0x10c5\n0x1140\n0x1141\n0x1144\n0x1150\n0x1225\n";
    // LLVM's file and ours (`gsym build`) as the input.
    let ours = dir.path().join("ours.gsym");
    ok(&run(
        &[
            "gsym",
            "build",
            s(&testdata("lidia/elf/inl")),
            "-o",
            s(&ours),
        ],
        b"",
    ));
    for gsym in [llvm_gsym(), ours] {
        let lidia = dir.path().join("inl.lidia");
        let out = run(
            &["convert", s(&gsym), "-o", s(&lidia), "--to", "lidia"],
            b"",
        );
        ok(&out);
        let err = stderr_text(&out);
        assert!(
            err.contains("GSYM (functions, inlined calls, source files, line numbers) to Lidia"),
            "{err}"
        );
        // `gsym lookup` answers in the Lidia format: the two files answer alike.
        let from_gsym = ok(&run(&["gsym", "lookup", s(&gsym)], addrs));
        let from_lidia = ok(&run(&["lidia", "lookup", s(&lidia)], addrs));
        assert_eq!(from_lidia, from_gsym);
        let inlined = from_gsym.lines().any(|l| {
            l.split('\t')
                .nth(1)
                .is_some_and(|n| n.parse::<u32>().unwrap() > 1)
        });
        assert!(inlined, "{from_gsym}");
    }
}

#[test]
fn a_damaged_gsym_input_is_named_with_its_offset_and_nothing_is_written() {
    let dir = tempfile::tempdir().unwrap();
    let mut bytes = std::fs::read(llvm_gsym()).unwrap();
    // The first record's name offset, zeroed: LLVM refuses such a record.
    let u32_at = |b: &[u8], at: usize| u32::from_le_bytes(b[at..at + 4].try_into().unwrap());
    let count = u32_at(&bytes, 16) as usize;
    let infos = (48 + count * usize::from(bytes[6])).next_multiple_of(4);
    let record = u32_at(&bytes, infos) as usize;
    bytes[record + 4..record + 8].fill(0);
    let damaged = dir.path().join("damaged.gsym");
    std::fs::write(&damaged, &bytes).unwrap();
    let out = dir.path().join("out.lidia");
    let err = failed(&run(
        &["convert", s(&damaged), "-o", s(&out), "--to", "lidia"],
        b"",
    ));
    let at = format!("offset {:#x}", record + 4);
    assert!(
        err.contains("damaged.gsym") && err.contains(&at) && err.contains("name offset 0"),
        "{err}"
    );
    assert!(!out.exists(), "a failed conversion wrote {}", out.display());
}

/// A Breakpad `.sym` file converts and answers `symblob lookup` as the Lidia file made of
/// it; a broken one is refused with its line number, and nothing is written.
#[test]
fn a_breakpad_input_converts_and_a_broken_one_writes_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let good = dir.path().join("good.sym");
    std::fs::write(
        &good,
        b"MODULE Linux x86_64 0A0B prog\nFILE 0 a.c\nFUNC 1000 10 0 f\n1000 10 7 0\n\
          PUBLIC 1010 0 g\nPUBLIC 1020 0 h\n",
    )
    .unwrap();
    let out = dir.path().join("good.lidia");
    let done = run(&["convert", s(&good), "-o", s(&out), "--to", "lidia"], b"");
    ok(&done);
    let note = stderr_text(&done);
    assert!(note.contains("Breakpad"), "{note}");
    assert!(out.exists());
    let via_sym = ok(&run(&["lookup", s(&good), "1004", "1014"], b""));
    let via_lidia = ok(&run(&["lookup", s(&out), "1004", "1014"], b""));
    assert_eq!(via_sym, via_lidia);
    assert!(
        via_sym.contains("a.c") && via_sym.contains('g'),
        "{via_sym}"
    );

    let bad = dir.path().join("bad.sym");
    std::fs::write(
        &bad,
        b"MODULE Linux x86_64 0A0B prog\nFUNC 1000 10 0 f\n1000 10 7 3\n",
    )
    .unwrap();
    let out = dir.path().join("out");
    let err = failed(&run(
        &["convert", s(&bad), "-o", s(&out), "--to", "lidia"],
        b"",
    ));
    assert!(err.contains("bad.sym:3") && err.contains("FILE 3"), "{err}");
    assert!(!out.exists(), "a failed conversion wrote {}", out.display());
    let err = failed(&run(&["lookup", s(&bad), "1000"], b""));
    assert!(err.contains("bad.sym:3"), "{err}");
}
