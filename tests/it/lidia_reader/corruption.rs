//! Hostile and damaged files: checksums name the damaged section, truncation and bad
//! header values are typed errors, any alignment reads the same, nothing panics.

use proptest::prelude::*;
use symblob::lidia::{section, LidiaFile};
use symblob::ErrorKind;

use super::{expected_lookups, golden, goldens};

fn set_u64(bytes: &mut [u8], at: usize, value: u64) {
    bytes[at..at + 8].copy_from_slice(&value.to_le_bytes());
}

/// (section name, start, byte length) of the four sections, from the parsed header.
fn sections(f: &LidiaFile) -> [(&'static str, usize, usize); 4] {
    let h = f.header();
    [
        (section::VA, h.va.offset.get() as usize, f.va_bytes().len()),
        (
            section::RANGES,
            h.ranges.offset.get() as usize,
            f.range_bytes().len(),
        ),
        (
            section::STRINGS,
            h.strings.offset.get() as usize,
            f.strings_table().len(),
        ),
        (
            section::LINES,
            h.lines.offset.get() as usize,
            f.line_bytes().len(),
        ),
    ]
}

#[test]
fn flipping_a_byte_names_its_section() {
    for g in goldens() {
        let original = g.bytes();
        let f = LidiaFile::parse(&original).unwrap();
        for (name, start, len) in sections(&f) {
            // Every byte of small sections; about 500 evenly spread ones of large ones.
            let step = (len / 500).max(1);
            let mut positions: Vec<usize> = (0..len).step_by(step).collect();
            positions.extend(len.checked_sub(1));
            for pos in positions {
                let mut bytes = original.clone();
                bytes[start + pos] ^= 0x5a;
                let damaged = LidiaFile::parse(&bytes).unwrap();
                let err = damaged.verify_checksums().unwrap_err();
                assert_eq!(err.section, name, "{} byte {}", g.name, start + pos);
                assert_eq!(err.offset, start as u64);
                assert!(matches!(err.kind, ErrorKind::ChecksumMismatch { .. }));
            }
        }
    }
}

#[test]
fn every_truncation_is_an_error() {
    for g in goldens() {
        let bytes = g.bytes();
        for len in 0..bytes.len() {
            let err = LidiaFile::parse(&bytes[..len]).map(|_| ()).unwrap_err();
            if len < 128 {
                assert_eq!(err.section, section::HEADER);
                assert!(matches!(err.kind, ErrorKind::Truncated { needed: 128, .. }));
            } else {
                assert!(matches!(err.kind, ErrorKind::Truncated { .. }), "{err}");
            }
        }
    }
}

#[test]
fn bad_magic_version_and_sizes_are_rejected() {
    let original = golden("lidia/synth/inline.files_lines.lidia");
    let with = |at: usize, value: u64| {
        let mut b = original.clone();
        set_u64(&mut b, at, value);
        LidiaFile::parse(&b).map(|_| ()).unwrap_err()
    };
    let mut b = original.clone();
    b[0] = b'l';
    assert_eq!(LidiaFile::parse(&b).unwrap_err().kind, ErrorKind::BadMagic);
    let mut b = original.clone();
    b[4] = 2;
    let err = LidiaFile::parse(&b).unwrap_err();
    assert_eq!(
        (err.kind, err.offset),
        (ErrorKind::UnsupportedVersion(2), 4)
    );

    for size in [0, 1, 2, 3, 5, 6, 7, 16, 1 << 32, u64::MAX] {
        let e = with(0x08, size);
        assert_eq!((e.section, e.offset), (section::VA, 0x08));
        assert_eq!(e.kind, ErrorKind::BadFieldSize(size));
        let e = with(0x28, size);
        assert_eq!((e.section, e.offset), (section::RANGES, 0x28));
        assert_eq!(e.kind, ErrorKind::BadFieldSize(size));
    }
    for size in [0, 1, 3, 5, 8, u64::MAX] {
        let e = with(0x60, size);
        assert_eq!((e.section, e.offset), (section::LINES, 0x60));
        assert_eq!(e.kind, ErrorKind::BadFieldSize(size));
    }
    let e = with(0x30, 12);
    assert_eq!(
        e.kind,
        ErrorKind::Mismatch {
            expected: 13,
            found: 12
        }
    );
}

#[test]
fn overflowing_counts_and_offsets_are_rejected() {
    let original = golden("lidia/synth/inline.files_lines.lidia");
    let with = |fields: &[(usize, u64)]| {
        let mut b = original.clone();
        for &(at, value) in fields {
            set_u64(&mut b, at, value);
        }
        LidiaFile::parse(&b).map(|_| ()).unwrap_err()
    };
    let huge = [u64::MAX, u64::MAX / 2, u64::MAX / 8 + 1, 1 << 61, 1 << 40];
    for n in huge {
        let e = with(&[(0x10, n), (0x30, n)]);
        assert_eq!(e.section, section::VA, "{n:#x}: {e}");
        assert!(matches!(
            e.kind,
            ErrorKind::Overflow | ErrorKind::Truncated { .. }
        ));
        let e = with(&[(0x68, n)]);
        assert_eq!(e.section, section::LINES, "{n:#x}: {e}");
        let e = with(&[(0x48, n)]);
        assert_eq!(e.section, section::STRINGS, "{n:#x}: {e}");
        for (at, name) in [
            (0x18, section::VA),
            (0x38, section::RANGES),
            (0x50, section::STRINGS),
            (0x70, section::LINES),
        ] {
            let e = with(&[(at, n)]);
            assert_eq!((e.section, e.offset), (name, n), "{e}");
        }
    }
    assert_eq!(
        with(&[(0x10, u64::MAX), (0x30, u64::MAX)]).kind,
        ErrorKind::Overflow
    );
    assert_eq!(with(&[(0x70, u64::MAX)]).kind, ErrorKind::Overflow);
}

#[test]
fn any_alignment_reads_the_same() {
    for g in goldens() {
        let bytes = g.bytes();
        let aligned = LidiaFile::parse(&bytes).unwrap();
        let lookups = expected_lookups(&g);
        for shift in 1..8 {
            let mut buf = vec![0xee; shift];
            buf.extend_from_slice(&bytes);
            let moved = LidiaFile::parse(&buf[shift..]).unwrap();
            moved.verify_checksums().unwrap();
            assert!(aligned.ranges().zip(moved.ranges()).all(|(a, b)| {
                (a.va, a.length, a.function, a.file, a.lines.len())
                    == (b.va, b.length, b.function, b.file, b.lines.len())
            }));
            for (addr, _) in &lookups {
                assert!(aligned.lookup(*addr).eq(moved.lookup(*addr)), "{}", g.name);
            }
        }
    }
}

#[test]
fn dangling_references_read_empty_and_validate_reports_them() {
    let original = golden("lidia/synth/inline.files_lines.lidia");
    let f = LidiaFile::parse(&original).unwrap();
    let base = f.header().ranges.offset.get() as usize;
    let strings = f.strings_table().len() as u64;
    // Range 3 is func1 at 0x2000 (fs = 4: fields are u32 at base + 32·3 + 4·k).
    let patch = |field: usize, value: u32| {
        let mut b = original.clone();
        let at = base + 32 * 3 + 4 * field;
        b[at..at + 4].copy_from_slice(&value.to_le_bytes());
        (b, at as u64)
    };

    let (b, at) = patch(2, strings as u32 + 7);
    let f = LidiaFile::parse(&b).unwrap();
    let e = f.validate().unwrap_err();
    assert_eq!((e.section, e.offset), (section::RANGES, at));
    assert_eq!(
        e.kind,
        ErrorKind::OutOfRange {
            value: strings + 7,
            limit: strings
        }
    );
    assert_eq!(f.range(3).unwrap().function, "");
    let frame = f.lookup(0x2010).next().unwrap();
    assert_eq!(
        (frame.function, frame.file),
        (symblob::lidia::Str(b""), symblob::lidia::Str(b"file4.c"))
    );
    assert_eq!(f.lookup_function(0x2010).unwrap(), "");

    // Line count past the table: validate names the count field; the range reads as
    // having no lines.
    let (b, at) = patch(5, 3);
    let f = LidiaFile::parse(&b).unwrap();
    let e = f.validate().unwrap_err();
    assert_eq!((e.section, e.offset), (section::RANGES, at));
    assert_eq!(e.kind, ErrorKind::OutOfRange { value: 6, limit: 5 });
    assert!(f.range(3).unwrap().lines.is_empty());
    assert_eq!(f.lookup(0x2010).next().unwrap().line, 0);
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(512))]

    /// Random bytes written anywhere (header included) never make any entry point panic
    /// or loop; whatever parses is usable.
    #[test]
    fn damaged_files_never_panic(
        edits in prop::collection::vec((0usize..872, any::<u8>()), 1..12),
        addrs in prop::collection::vec(any::<u64>(), 8),
    ) {
        let mut bytes = golden("lidia/synth/inline.files_lines.lidia");
        for (at, value) in edits {
            bytes[at % 872] = value;
        }
        if let Ok(f) = LidiaFile::parse(&bytes) {
            let _ = f.verify_checksums();
            let _ = f.validate();
            for r in f.ranges() {
                let _ = r.lines.iter().count();
                let _ = f.lookup(r.va).count();
                let _ = f.lookup(r.va.wrapping_add(r.length / 2)).count();
            }
            let queries: Vec<u64> = addrs.iter().copied().chain([0, 0x1080, 0x4015, u64::MAX]).collect();
            for &addr in &queries {
                let n = f.lookup(addr).count();
                prop_assert!(n <= f.len());
                prop_assert_eq!(f.lookup_function(addr), f.lookup(addr).next().map(|fr| fr.function));
            }
            // Batched lookups agree with single ones on damaged files too.
            f.lookup_each(&queries, |i, frames| assert!(frames.eq(f.lookup(queries[i]))));
            f.lookup_function_each(&queries, |i, function| {
                assert_eq!(function, f.lookup_function(queries[i]));
            });
        }
    }
}
