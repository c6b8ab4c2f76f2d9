//! Parsing corner cases of the `.sym` reader.

use super::*;
use crate::model::{Group, Row};

fn ok(text: &str) -> BreakpadSource<'_> {
    read(text.as_bytes(), "t.sym").unwrap_or_else(|e| panic!("{e}"))
}

fn err(text: &str) -> String {
    match read(text.as_bytes(), "t.sym") {
        Ok(_) => panic!("read {text:?}"),
        Err(e) => e.to_string(),
    }
}

fn names(groups: &[Group<'_>]) -> Vec<(u64, u64, u32, String)> {
    groups
        .iter()
        .flat_map(|g| &g.spans)
        .map(|s| {
            (
                s.start,
                s.end,
                s.depth,
                String::from_utf8_lossy(&s.name).into_owned(),
            )
        })
        .collect()
}

const HEAD: &str = "MODULE Linux x86_64 0123ABCD0 my lib.so\n";

#[test]
fn only_module() {
    let s = ok(HEAD);
    assert_eq!(s.module.os, "Linux");
    assert_eq!(s.module.arch, "x86_64");
    assert_eq!(s.module.id, "0123ABCD0");
    assert_eq!(s.module.name, "my lib.so");
    assert_eq!(s.module.code_id, None);
    assert!(s.model.is_empty());
}

#[test]
fn empty_and_cut_files() {
    assert!(err("").contains(":1:"), "{}", err(""));
    assert!(err("MODULE Linux x86 00 a").contains(":1:"));
    assert!(err("FILE 0 a\n").contains("MODULE"));
    assert!(err(&format!("{HEAD}MODULE Linux x86 00 a\n")).contains(":2:"));
    assert!(!looks_like_breakpad(b""));
    assert!(looks_like_breakpad(HEAD.as_bytes()));
}

#[test]
fn info_records_and_crlf() {
    let text =
        "MODULE Linux arm64 00AB name\r\nINFO CODE_ID 1234ABCD libx.so\r\nINFO GENERATOR x\r\n\
                INFO URL http://x\r\nSTACK WIN 4 1 2 3 4\r\nNEWTHING 1\r\n";
    let s = ok(text);
    assert_eq!(s.module.name, "name");
    assert_eq!(s.module.code_id.as_deref(), Some("1234ABCD"));
    let skipped: Vec<_> = s.skipped.iter().map(|(k, v)| (k.as_str(), *v)).collect();
    assert_eq!(
        skipped,
        [
            ("INFO GENERATOR", 1),
            ("INFO URL", 1),
            ("NEWTHING", 1),
            ("STACK WIN", 1)
        ]
    );
}

#[test]
fn functions_lines_and_multiple() {
    let text = format!(
        "{HEAD}FILE 0 a b.c\nFILE 1 /x/h.h\nINLINE_ORIGIN 0 inl fn\n\
         FUNC m 1000 20 0 f(int, char)\n1000 4 10 0\n1004 4 11 1\n1010 8 12 0\n\
         PUBLIC m 2000 0 pub name\nPUBLIC 1f00 0 before\n"
    );
    let s = ok(&text);
    assert_eq!(
        s.multiple.iter().copied().collect::<Vec<_>>(),
        [0x1000, 0x2000]
    );
    let got = names(&s.model.functions);
    assert_eq!(
        got,
        [
            (0x1000, 0x1004, 0, "f(int, char)".into()),
            (0x1004, 0x1010, 0, "f(int, char)".into()),
            (0x1010, 0x1020, 0, "f(int, char)".into()),
            (0x1f00, 0x2000, 0, "before".into()),
            (0x2000, 0x2000, 0, "pub name".into()),
        ]
    );
    let f = &s.model.functions;
    assert_eq!(f[0].spans[0].file.as_deref(), Some(&b"a b.c"[..]));
    assert_eq!(f[1].spans[0].file.as_deref(), Some(&b"/x/h.h"[..]));
    // The gap 0x1008..0x1010 has no line, in the file before it.
    assert_eq!(
        f[1].spans[0].rows,
        [
            Row {
                addr: 0x1004,
                line: 11
            },
            Row {
                addr: 0x1008,
                line: 0
            }
        ]
    );
    assert_eq!(
        f[2].spans[0].rows,
        [
            Row {
                addr: 0x1010,
                line: 12
            },
            Row {
                addr: 0x1018,
                line: 0
            }
        ]
    );
    assert_eq!(f[2].spans[0].file.as_deref(), Some(&b"a b.c"[..]));
    let symbols: Vec<_> = s
        .model
        .symbols
        .iter()
        .map(|s| (s.address, s.name.as_str()))
        .collect();
    assert_eq!(symbols, [(0x2000, "pub name"), (0x1f00, "before")]);
}

#[test]
fn inline_records_nest_by_reach() {
    let text = format!(
        "{HEAD}FILE 0 a.c\nINLINE_ORIGIN 0 outer\nINLINE_ORIGIN 1 inner\n\
         FUNC 100 40 0 f\nINLINE 0 5 0 0 100 10 120 10\nINLINE 1 7 0 1 104 20\n\
         100 40 3 0\n"
    );
    let s = ok(&text);
    let got = names(&s.model.functions);
    // The depth-1 range is cut to where depth 0 is reached.
    assert_eq!(
        got,
        [
            (0x100, 0x140, 0, "f".into()),
            (0x100, 0x110, 1, "outer".into()),
            (0x104, 0x110, 2, "inner".into()),
            (0x120, 0x130, 1, "outer".into()),
            (0x120, 0x124, 2, "inner".into()),
        ]
    );
    let spans = &s.model.functions[0].spans;
    assert_eq!((spans[1].instance, spans[3].instance), (1, 1));
    assert_eq!((spans[2].instance, spans[4].instance), (2, 2));
    assert_eq!(spans[1].call_line, 5);
    assert_eq!(
        spans[2].rows,
        [Row {
            addr: 0x104,
            line: 3
        }]
    );
}

#[test]
fn unwind_rules_are_kept_verbatim() {
    let text = format!(
        "{HEAD}STACK CFI INIT 20 10 .cfa: $rsp 8 + .ra: .cfa -8 + ^\nSTACK CFI 24  .cfa: $rsp 16 +\n\
         STACK CFI INIT 10 4 .cfa: $rsp 8 +\n"
    );
    let s = ok(&text);
    // In file order (dump_syms's, the unwind tables' order), so that the file is written
    // back as it was.
    let u = &s.model.unwind;
    assert_eq!(u.len(), 2);
    assert_eq!(u[0].start, 0x20);
    assert_eq!(u[1].start, 0x10);
    assert_eq!(u[0].init, ".cfa: $rsp 8 + .ra: .cfa -8 + ^");
    assert_eq!(u[0].rows[0].rules, ".cfa: $rsp 16 +");
    // Without their rows: the records, their INIT rules and everything else as before.
    let options = ReadOptions { unwind_rows: false };
    let without = read_with(text.as_bytes(), "t.sym", options).expect("read");
    let inits = |u: &[crate::model::CfiRecord<'_>]| -> Vec<(u64, u64, String)> {
        u.iter()
            .map(|r| (r.start, r.size, r.init.to_string()))
            .collect()
    };
    assert_eq!(inits(&without.model.unwind), inits(u));
    assert!(without.model.unwind.iter().all(|r| r.rows.is_empty()));
    assert_eq!(
        format!("{:?}", without.model.functions),
        format!("{:?}", s.model.functions)
    );
}

#[test]
fn bad_records_name_their_line() {
    let cases = [
        ("FUNC 10 10\n", 2, "cut short"),
        ("FUNC 1g 10 0 f\n", 2, "hexadecimal"),
        ("10 4 1 0\n", 2, "follows no FUNC"),
        ("FILE 0 a\nINLINE 0 1 0 0 10 4\n", 3, "follows no FUNC"),
        ("FUNC 10 10 0 f\n10 4 1 7\n", 3, "FILE 7"),
        (
            "FILE 0 a\nFUNC 10 10 0 f\nINLINE 0 1 0 3 10 4\n",
            4,
            "INLINE_ORIGIN 3",
        ),
        ("FUNC ffffffffffffffff 2 0 f\n", 2, "2^64"),
        ("FUNC 10 10 0 f\n10 4 1\n", 3, "cut short"),
        ("FILE 0 a\nFILE 0 b\n", 3, "twice"),
        ("STACK CFI 10 .cfa: x\n", 2, "STACK CFI INIT"),
        ("STACK CFI INIT 10 4 r\nSTACK CFI 20 r\n", 3, "in order"),
        ("FUNC 10 10 0 f\n\n10 4 1 0\n", 4, "follows no FUNC"),
        (
            "FILE 0 a\nINLINE_ORIGIN 0 x\nINLINE_ORIGIN 1 y\nFUNC 10 10 0 f\n\
             INLINE 0 1 0 0 10 4\nINLINE 0 1 0 1 10 8\n",
            7,
            "undefined",
        ),
    ];
    for (body, line, what) in cases {
        let text = format!("{HEAD}{body}");
        let e = err(&text);
        assert!(e.contains(&format!("t.sym:{line}:")), "{body:?}: {e}");
        assert!(e.contains(what), "{body:?}: {e}");
        // Unwind rows that are not kept are checked all the same.
        let options = ReadOptions { unwind_rows: false };
        match read_with(text.as_bytes(), "t.sym", options) {
            Ok(_) => panic!("read {body:?} without unwind rows"),
            Err(without) => assert_eq!(without.to_string(), e),
        }
    }
}

#[test]
fn touching_functions_of_one_name_stay_apart() {
    let text = format!(
        "{HEAD}FILE 0 a.c\nFILE 1 b.h\nFUNC 10 10 0 f\n10 8 1 0\n18 8 2 1\nFUNC 20 10 0 f\n"
    );
    let s = ok(&text);
    let instances: Vec<_> = s
        .model
        .functions
        .iter()
        .map(|g| (g.start(), g.spans[0].instance))
        .collect();
    assert_eq!(instances, [(0x10, 1), (0x18, 1), (0x20, 2)]);
}

/// Line and `INLINE` records as dump_syms writes them are read by a quicker path than
/// other spellings (more spaces, trailing spaces, upper-case digits): both read alike, and
/// a record the quick path refuses is read, or refused, field by field.
#[test]
fn plain_and_spaced_records_read_alike() {
    let body = |line: &str, inline: &str| {
        format!(
            "{HEAD}FILE 0 a.c\nFILE 1 b.h\nINLINE_ORIGIN 0 inl\nFUNC 1000 40 0 f\n\
             {inline}\n{line}\n1010 30 8 0\n"
        )
    };
    let plain = body("1000 10 7 1", "INLINE 0 3 1 0 1004 8 1020 4");
    let spellings = [
        body("1000  10 7 1", "INLINE  0 3 1 0 1004 8 1020 4"),
        body("1000 10 7 1 ", "INLINE 0 3 1 0 1004 8 1020 4 "),
        body("1000 0010 07 1", "INLINE 0 3 1 0 1004 8  1020 4"),
        body("1000 10 7 1", "INLINE 0 3 1 0 1004 08 1020 4"),
    ];
    let expected = format!("{:?}", ok(&plain).model);
    for text in &spellings {
        assert_eq!(format!("{:?}", ok(text).model), expected, "{text}");
    }
    let upper = body("1000 1A 7 1", "INLINE 0 3 1 0 1004 8 1020 4");
    let lower = body("1000 1a 7 1", "INLINE 0 3 1 0 1004 8 1020 4");
    assert_eq!(format!("{:?}", ok(&upper)), format!("{:?}", ok(&lower)));
    // What the quick path gives up on, the field-by-field reading refuses with its line.
    for (line, inline, wanted) in [
        (
            "1000 10 7 9",
            "INLINE 0 3 1 0 1004 8",
            "FILE 9 is not defined",
        ),
        (
            "1000 10 4294967296 1",
            "INLINE 0 3 1 0 1004 8",
            "below 2^32",
        ),
        (
            "ffffffffffffffff 10 7 1",
            "INLINE 0 3 1 0 1004 8",
            "passes 2^64",
        ),
        ("1000 10 7 1", "INLINE 0 3 1 5 1004 8", "INLINE_ORIGIN 5"),
        ("1000 10 7 1", "INLINE 0 3 1 0 1004", "INLINE"),
        ("1000 10 7 1", "INLINE 0 3 1 0", "no address range"),
    ] {
        let e = err(&body(line, inline));
        assert!(e.contains(wanted), "{line} / {inline}: {e}");
    }
}
