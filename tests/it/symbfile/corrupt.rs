//! Every corruption class of spec §12 gives its error, at the offending message, and the
//! reference model rejects the same bytes; unknown message types are skipped by length.

use symblob::symbfile::SymbFile;
use symblob::{Error, ErrorKind};
use symblob_build::symbfile::json::to_json;
use symblob_build::symbfile::{decode, Record};

use super::model_dump;

fn varint(mut v: u64) -> Vec<u8> {
    let mut out = Vec::new();
    while v >= 0x80 {
        out.push(v as u8 | 0x80);
        v >>= 7;
    }
    out.push(v as u8);
    out
}

fn msg(kind: u64, body: &[u8]) -> Vec<u8> {
    let mut out = varint(body.len() as u64);
    out.extend(varint(kind));
    out.extend_from_slice(body);
    out
}

/// Magic, empty header, then `messages`; also returns the offset of the last message.
fn file(messages: &[Vec<u8>]) -> (Vec<u8>, u64) {
    let mut out = b"symbfile\x00\x01".to_vec();
    let mut last = 0;
    for m in messages {
        last = out.len() as u64;
        out.extend(m);
    }
    (out, last)
}

fn table(strings: &[&[u8]]) -> Vec<u8> {
    let mut body = Vec::new();
    for s in strings {
        body.push(0x0a);
        body.extend(varint(s.len() as u64));
        body.extend_from_slice(s);
    }
    msg(4, &body)
}

/// A range body: set VA, length 4, inline function "f", then `extra` fields.
fn range(extra: &[u8]) -> Vec<u8> {
    let mut body = vec![0x60, 0x10, 0x10, 0x04, 0x1a, 0x01, b'f'];
    body.extend_from_slice(extra);
    msg(2, &body)
}

fn read_all(bytes: &[u8]) -> Result<(), Error> {
    let f = SymbFile::parse(bytes)?;
    f.validate(&mut [""; 8]).map(drop)?;
    // No scratch at all must give the same verdict.
    f.validate(&mut []).map(drop)
}

fn check(name: &str, bytes: &[u8], offset: u64, section: &str, kind: impl Fn(ErrorKind) -> bool) {
    let err = read_all(bytes).expect_err(name);
    assert_eq!(err.format, symblob::Format::Symbfile, "{name}");
    assert_eq!(
        (err.offset, err.section),
        (offset, section),
        "{name}: {err}"
    );
    assert!(kind(err.kind), "{name}: {err}");
    assert!(!err.to_string().is_empty());
    if let Some(model) = model_dump(bytes) {
        assert!(model.is_err(), "{name}: the model accepts it");
    }
}

#[test]
fn symbfile_corruptions_give_their_errors() {
    let malformed = |k| matches!(k, ErrorKind::Malformed(_));
    let truncated = |k| matches!(k, ErrorKind::Truncated { .. });
    let out_of_range = |k| matches!(k, ErrorKind::OutOfRange { .. });

    check("bad magic", b"symbfilX\x00\x01", 0, "magic", |k| {
        k == ErrorKind::BadMagic
    });
    check("short", b"symb", 0, "magic", |k| k == ErrorKind::BadMagic);
    check("no header", b"symbfile", 8, "header", truncated);
    check(
        "first message not a header",
        b"symbfile\x00\x04",
        8,
        "header",
        |k| {
            matches!(
                k,
                ErrorKind::Mismatch {
                    expected: 1,
                    found: 4
                }
            )
        },
    );
    let (b, _) = file(&[]);
    let mut long = b.clone();
    long.extend([0x80; 10]);
    long.push(0);
    check(
        "11-byte length varint",
        &long,
        10,
        "message length",
        malformed,
    );
    let mut big = b.clone();
    big.extend(varint((16 << 20) + 1));
    big.push(2);
    check("body over 16 MiB", &big, 10, "message length", out_of_range);
    let mut ty = b.clone();
    ty.push(0);
    ty.extend(varint(1 << 31));
    check("type 2^31", &ty, 10, "message type", out_of_range);
    let mut cut = b.clone();
    cut.push(0x05);
    check("end inside the type", &cut, 10, "message type", truncated);
    let mut body = b.clone();
    body.extend([0x05, 0x02, 0x60]);
    check("truncated body", &body, 10, "message body", truncated);
    let mut len = b.clone();
    len.push(0x80);
    check(
        "end inside the length",
        &len,
        10,
        "message length",
        truncated,
    );

    let (f, at) = file(&[msg(0, &[])]);
    check("MT_INVALID", &f, at, "message type", malformed);
    let (f, at) = file(&[msg(1, &[])]);
    check("second header", &f, at, "message type", malformed);

    let (f, at) = file(&[range(&[]), table(&[b"ok", b"\xff\xfe"])]);
    check(
        "invalid UTF-8 in a table",
        &f,
        at,
        "string table",
        malformed,
    );
    let (f, at) = file(&[msg(2, &[0x60, 0x00, 0x1a, 0x02, 0xc3, 0x28])]);
    check("invalid UTF-8 inline", &f, at, "range", |k| {
        k == ErrorKind::InvalidUtf8
    });
    let (f, at) = file(&[table(&[b"a"]), msg(2, &[0x60, 0x00, 0x48, 0x01])]);
    check("string index past the table", &f, at, "range", |k| {
        matches!(k, ErrorKind::OutOfRange { value: 1, limit: 1 })
    });
    let (f, at) = file(&[msg(2, &[0x60, 0x00, 0x48, 0x00])]);
    check("index before any table", &f, at, "range", out_of_range);
    let (f, at) = file(&[range(&[0x42, 0x06, 0x0a, 0x02, 0x00, 0x01, 0x12, 0x00])]);
    check(
        "line columns of unequal length",
        &f,
        at,
        "line table",
        |k| {
            matches!(
                k,
                ErrorKind::Mismatch {
                    expected: 2,
                    found: 0
                }
            )
        },
    );
    let (f, at) = file(&[msg(2, &[0x08, 0x02, 0x1a, 0x01, b'f'])]);
    check("delta before an absolute VA", &f, at, "range", malformed);
    let (f, at) = file(&[msg(2, &[0x10, 0x02, 0x1a, 0x01, b'f'])]);
    check("no VA", &f, at, "range", malformed);
    let (f, at) = file(&[msg(2, &[0x60, 0x00, 0x10, 0x02])]);
    check("no function", &f, at, "range", malformed);
    let (f, at) = file(&[msg(2, &[0x60, 0x00, 0x1a])]);
    check("truncated field", &f, at, "range", malformed);
    let (f, at) = file(&[msg(2, &[0x60, 0x00, 0x18, 0x00, 0x1b])]);
    check("group wire type", &f, at, "range", malformed);
    let (f, at) = file(&[msg(
        2,
        &[
            0x60, 0x00, 0x1a, 0x01, b'f', 0x38, 0x80, 0x80, 0x80, 0x80, 0x10,
        ],
    )]);
    check("depth beyond u32", &f, at, "range", out_of_range);
    let (f, at) = file(&[msg(2, &[0x62, 0x00, 0x1a, 0x01, b'f'])]);
    check(
        "setElfVA with a length wire type",
        &f,
        at,
        "range",
        malformed,
    );
    let (f, at) = file(&[msg(2, &[0x02, 0x00])]);
    check("field number 0", &f, at, "range", malformed);

    // Return pads: columns, indices.
    let (f, at) = file(&[
        table(&[b"main", b""]),
        msg(3, &[0x28, 0x10, 0x12, 0x01, 0x00, 0x1a, 0x01, 0x01]),
    ]);
    check(
        "return-pad columns of unequal length",
        &f,
        at,
        "return pad",
        |k| matches!(k, ErrorKind::Mismatch { .. }),
    );
    let (f, at) = file(&[
        table(&[b"main"]),
        msg(
            3,
            &[
                0x28, 0x10, 0x12, 0x01, 0x00, 0x1a, 0x01, 0x01, 0x22, 0x01, 0x00,
            ],
        ),
    ]);
    check(
        "return-pad file index past the table",
        &f,
        at,
        "return pad",
        |k| matches!(k, ErrorKind::OutOfRange { value: 1, limit: 1 }),
    );
}

#[test]
fn symbfile_cumulative_line_offsets_must_fit_u32() {
    // Two rows of 0xffff_ffff: each fits, their sum does not (the model has no such limit).
    let rows = [
        0x42, 0x10, 0x0a, 0x0a, 0xff, 0xff, 0xff, 0xff, 0x0f, 0xff, 0xff, 0xff, 0xff, 0x0f, 0x12,
        0x02, 0x01, 0x02,
    ];
    let (f, at) = file(&[range(&rows)]);
    let err = read_all(&f).unwrap_err();
    assert_eq!((err.offset, err.section), (at, "line table"), "{err}");
}

#[test]
fn symbfile_unknown_message_types_are_skipped_by_length() {
    // The unknown body looks like a header and a range: a reader that does not skip the
    // body (symblib, spec §8.2) would misread it.
    let fake = {
        let mut v = msg(1, &[]);
        v.extend(range(&[]));
        v
    };
    let (f, _) = file(&[
        range(&[]),
        msg(5, &fake),
        msg(0x7fff_ffff, &[]),
        msg(2, &[0x08, 0x08, 0x1a, 0x01, b'g']),
    ]);
    let records = decode(&f).unwrap();
    assert_eq!(records.len(), 2);
    let Record::Range(g) = &records[1] else {
        panic!()
    };
    assert_eq!((g.va, g.func.as_str()), (0x14, "g"));
    let counts = SymbFile::parse(&f).unwrap().validate(&mut []).unwrap();
    assert_eq!((counts.ranges, counts.unknown), (2, 2));
    if let Some(model) = model_dump(&f) {
        assert_eq!(model.unwrap(), to_json(&records));
    }
}

#[test]
fn symbfile_protobuf_leniencies_are_accepted_as_the_model_accepts_them() {
    // Unpacked repeated values, two line-table occurrences, unknown fields of every wire
    // type, a oneof given twice (last wins), fields out of order.
    let body: Vec<u8> = [
        &[0x1a, 0x01, b'x'][..],               // funcStr "x" (replaced below)
        &[0x42, 0x04, 0x08, 0x00, 0x10, 0x07], // lineTable: offset 0, line 7 (unpacked)
        &[0x78, 0x05],                         // field 15 varint: unknown
        &[0x7d, 1, 2, 3, 4],                   // field 15 fixed32
        &[0x79, 1, 2, 3, 4, 5, 6, 7, 8],       // field 15 fixed64
        &[0x7a, 0x01, 0x00],                   // field 15 bytes
        &[0x60, 0x80, 0x20, 0x10, 0x10],       // set VA 0x1000, length 16
        &[0x1a, 0x01, b'f'],                   // funcStr "f"
        &[0x42, 0x06, 0x0a, 0x01, 0x04, 0x12, 0x01, 0x08], // offset +4, line 8
    ]
    .concat();
    let (f, _) = file(&[msg(2, &body)]);
    let records = decode(&f).unwrap();
    let Record::Range(r) = &records[0] else {
        panic!()
    };
    assert_eq!((r.va, r.length, r.func.as_str()), (0x1000, 16, "f"));
    let rows: Vec<(u32, u32)> = r.lines.iter().map(|l| (l.offset, l.line)).collect();
    assert_eq!(rows, [(0, 7), (4, 8)]);
    if let Some(model) = model_dump(&f) {
        assert_eq!(model.unwrap(), to_json(&records));
    }
}
