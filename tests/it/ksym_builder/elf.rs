//! ELF input: the builder's symbols and text ranges against `nm -n` of the same file.

use super::*;

#[test]
fn elf_symbols_match_nm() {
    let dir = tempfile::tempdir().unwrap();
    let src = dir.path().join("prog.c");
    std::fs::write(
        &src,
        "__attribute__((noinline)) static int helper(int x) { return x * 3; }\n\
         __attribute__((weak)) int weak_fn(int x) { return x + 1; }\n\
         __attribute__((noinline)) int global_fn(int x) { return helper(x) + weak_fn(x); }\n\
         int main(int argc, char **argv) { (void)argv; return global_fn(argc); }\n",
    )
    .unwrap();
    let exe = dir.path().join("prog");
    let status = std::process::Command::new("cc")
        .args(["-O0", "-o"])
        .arg(&exe)
        .arg(&src)
        .status();
    let Ok(status) = status else {
        crate::common::missing_oracle("C compiler `cc`");
        return;
    };
    assert!(status.success());
    let data = std::fs::read(&exe).unwrap();
    let options = InputOptions::default();
    let elf = read_elf(&data, "prog", &options).unwrap();
    let Some(nm) = crate::common::tool("nm") else {
        return;
    };
    let nm = std::process::Command::new(nm)
        .arg("-n")
        .arg(&exe)
        .output()
        .unwrap();
    assert!(nm.status.success());
    let nm_text = String::from_utf8(nm.stdout).unwrap();
    // By default every function symbol is kept: the text letters nm gives (`W` is also a
    // weak untyped symbol in data, `data_start`, which is not a function).
    let in_text = |l: &Line| {
        b"Tt".contains(&l.1)
            || (b"Wiu".contains(&l.1) && elf.text_ranges.iter().any(|r| r.contains(&l.0)))
    };
    let mut want: Vec<Line> = nm_text
        .lines()
        .filter(|l| !l.starts_with(' '))
        .map(|l| parse_dump(&format!("{l}\n"))[0].clone())
        .filter(|l| in_text(l))
        .collect();
    want.sort();
    let sorted_lines = |symbols: &[Symbol]| {
        let mut lines: Vec<Line> = symbols
            .iter()
            .map(|s| (s.address, s.kind, s.name.clone()))
            .collect();
        lines.sort();
        lines
    };
    let got = sorted_lines(&elf.symbols.symbols);
    assert_eq!(got, want);
    assert!(got
        .iter()
        .any(|l| l.2 == "helper" || l.2.starts_with("helper.")));
    // Weak text symbols are typed `W`, as nm types them, and kept by default; given types
    // decide (`Tt`, the kernel's rule, drops them).
    let strong_only = InputOptions {
        types: symblob_build::ksym::TypeFilter::new("Tt"),
        ..InputOptions::default()
    };
    let strong = read_elf(&data, "prog", &strong_only).unwrap();
    let strong_want: Vec<Line> = want
        .iter()
        .filter(|l| b"Tt".contains(&l.1))
        .cloned()
        .collect();
    assert_eq!(sorted_lines(&strong.symbols.symbols), strong_want);
    assert_eq!(
        strong.symbols.skipped_type,
        (want.len() - strong_want.len()) as u64
    );
    let nm_weak: Vec<&str> = nm_text
        .lines()
        .filter(|l| l.get(17..19) == Some("W "))
        .map(|l| &l[19..])
        .collect();
    assert!(nm_weak.contains(&"weak_fn"));
    assert!(elf
        .symbols
        .symbols
        .iter()
        .any(|s| s.name == "weak_fn" && s.kind == b'W'));

    // Every symbol lies in one of the ELF's text ranges, which the reader accepts.
    assert!(!elf.text_ranges.is_empty());
    for l in &got {
        assert!(elf.text_ranges.iter().any(|r| r.contains(&l.0)), "{l:?}");
    }
    let both = build_from_elf(&data, "prog", &options, &BuildOptions::default()).unwrap();
    let direct = build(&elf.symbols.symbols, &BuildOptions::default()).unwrap();
    assert_eq!(both.blob.bytes, direct.bytes);
    let blob = check_blob(&both.blob.bytes);
    let ksyms = Ksyms::new(blob, TextRanges::new(&both.text_ranges).unwrap());
    let main = got.iter().find(|l| l.2 == "main").unwrap();
    assert_eq!(
        ksyms.lookup_address(main.0 + 1).unwrap().name.to_string(),
        "main"
    );
}
