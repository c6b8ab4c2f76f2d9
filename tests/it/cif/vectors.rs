//! Every test vector of the CIF specification (§4 table, §7.1, §10.1, §10.2).

use symblob::cif::{decode_vlq7, encode_vlq7, EncodeMode, MAX_IMAGES};
use symblob::ErrorKind;

use super::support::{decode, encode, hex, to_hex, OwnedImage};

const TEST_PREFIX: &str = "02 04 74 65 73 74";
const ONE_IMAGE: &str = "02 04 74 65 73 74 01 09 10 00 01 00 00";

fn ascii(s: &str) -> String {
    to_hex(s.as_bytes())
}

/// The 80-byte path of the "extended expand" case: `/A/B/…/Z/a/…/n`.
fn long_path() -> String {
    let parts: Vec<String> = (b'A'..=b'Z')
        .chain(b'a'..=b'n')
        .map(|c| (c as char).to_string())
        .collect();
    format!("/{}", parts.join("/"))
}

/// (name, stream, [(path, build id, base, end of text)])
#[allow(clippy::type_complexity)]
fn swift_valid() -> Vec<(
    &'static str,
    Vec<u8>,
    Vec<(Option<String>, Option<Vec<u8>>, u64, u64)>,
)> {
    let long = long_path();
    let p = |s: &str| Some(s.to_owned());
    vec![
        (
            "basic",
            hex(&format!(
                "02 06 6d 61 63 6f 73 78 01 39 00 00 55 55 00 00 10 00 20 00 04 de ad be ef 15 {} 00",
                ascii("/usr/lib/libfoo.dylib")
            )),
            vec![(p("/usr/lib/libfoo.dylib"), Some(hex("deadbeef")), 0x5555_0000_1000, 0x5555_0000_3000)],
        ),
        (
            "no path",
            hex("02 04 74 65 73 74 01 09 10 00 01 00 00 00"),
            vec![(None, None, 0x1000, 0x1100)],
        ),
        (
            "fixed expand",
            hex(&format!("{ONE_IMAGE} 80 0a {} 00", ascii("/libbar.so"))),
            vec![(p("/lib/libbar.so"), None, 0x1000, 0x1100)],
        ),
        (
            "dynamic prefix + relative",
            hex(&format!(
                "{TEST_PREFIX} 02 09 10 00 01 00 00 1d {} 00 89 01 00 01 00 00 a1 0a {} 00",
                ascii("/swift/linux/x86_64/libfoo.so"),
                ascii("/libbar.so")
            )),
            vec![
                (p("/swift/linux/x86_64/libfoo.so"), None, 0x1000, 0x1100),
                (p("/swift/linux/libbar.so"), None, 0x1100, 0x1200),
            ],
        ),
        (
            "framework",
            hex(&format!("{ONE_IMAGE} 84 45 43 {}", ascii("AppKit"))),
            vec![(
                p("/System/Library/Frameworks/AppKit.framework/Versions/C/AppKit"),
                None,
                0x1000,
                0x1100,
            )],
        ),
        (
            "shallow framework",
            hex(&format!("{ONE_IMAGE} 84 48 01 {}", ascii("IOSurface"))),
            vec![(
                p("/System/Library/Frameworks/IOSurface.framework/IOSurface"),
                None,
                0x1000,
                0x1100,
            )],
        ),
        (
            "extended expand",
            hex(&format!(
                "{TEST_PREFIX} 02 09 10 00 01 00 00 3f {} 11 {} 00 89 01 00 01 00 00 c0 00 09 {} 00",
                to_hex(&long.as_bytes()[..63]),
                to_hex(&long.as_bytes()[63..]),
                ascii("/extra.so")
            )),
            vec![
                (Some(long.clone()), None, 0x1000, 0x1100),
                (
                    p("/A/B/C/D/E/F/G/H/I/J/K/L/M/N/O/P/Q/R/S/T/U/V/W/X/Y/Z/a/b/c/d/e/f/g/extra.so"),
                    None,
                    0x1100,
                    0x1200,
                ),
            ],
        ),
    ]
}

#[test]
fn swift_test_streams_decode_to_the_expected_images() {
    let sizes = [
        ("basic", 48),
        ("no path", 14),
        ("dynamic prefix + relative", 63),
        ("framework", 22),
        ("shallow framework", 25),
        ("extended expand", 115),
    ];
    for (name, bytes, expected) in swift_valid() {
        if let Some((_, size)) = sizes.iter().find(|(n, _)| *n == name) {
            assert_eq!(bytes.len(), *size, "{name}: stream length");
        }
        let map = decode(&bytes).unwrap_or_else(|e| panic!("{name}: {e}"));
        assert_eq!(map.trailing, 0, "{name}");
        let got: Vec<_> = map
            .images
            .iter()
            .map(|i| {
                (
                    i.path_or_nil().map(str::to_owned),
                    i.build_id.clone(),
                    i.base,
                    i.end_of_text,
                )
            })
            .collect();
        assert_eq!(got, expected, "{name}");
    }
    let basic = decode(&swift_valid()[0].1).unwrap();
    assert_eq!(basic.platform.as_deref(), Some("macosx"));
    assert_eq!(basic.images[0].name.as_deref(), Some("libfoo.dylib"));
    let fw = decode(&swift_valid()[4].1).unwrap();
    assert_eq!(fw.images[0].name.as_deref(), Some("AppKit"));
}

fn reencode(bytes: &[u8], mode: EncodeMode) -> Vec<u8> {
    let map = decode(bytes).unwrap();
    let images: Vec<OwnedImage> = map
        .images
        .iter()
        .map(|i| OwnedImage {
            path: i.path_or_nil().map(str::to_owned),
            name: None,
            build_id: i.build_id.clone(),
            base: i.base,
            end_of_text: i.end_of_text,
        })
        .collect();
    encode(64, map.platform.as_deref().unwrap(), &images, mode).unwrap()
}

#[test]
fn swift_test_streams_in_minimal_form_reencode_to_the_same_bytes() {
    // Streams whose fields are already minimal come back byte for byte in Swift mode.
    for (name, bytes, _) in swift_valid() {
        if name == "no path" || name == "framework" {
            assert_eq!(
                to_hex(&reencode(&bytes, EncodeMode::Swift)),
                to_hex(&bytes),
                "{name}"
            );
        }
    }
    // The basic case (an 8-byte base field, an uncompressed path) becomes minimal.
    let minimal = hex(&format!(
        "02 06 6d 61 63 6f 73 78 01 29 55 55 00 00 10 00 20 00 04 de ad be ef 81 80 09 {} 00",
        ascii("foo.dylib")
    ));
    for mode in [EncodeMode::Canonical, EncodeMode::Swift] {
        assert_eq!(
            to_hex(&reencode(&swift_valid()[0].1, mode)),
            to_hex(&minimal)
        );
    }
}

#[test]
fn swift_failing_streams_are_rejected() {
    let cases = [
        ("empty", String::new()),
        ("version 1", "06".into()),
        ("reserved size", "03".into()),
        ("truncated after info byte", "02".into()),
        ("platform truncated", "02 05 41 42".into()),
        ("platform invalid UTF-8", "02 01 ff 00".into()),
        ("image count 1,048,577", format!("{TEST_PREFIX} c0 80 01")),
        (
            "image count vlq overflow",
            format!("{TEST_PREFIX} ff ff ff ff ff ff ff ff ff 7f"),
        ),
        (
            "build-ID length 1025",
            format!("{TEST_PREFIX} 01 00 00 00 88 01"),
        ),
        (
            "build-ID overflow",
            format!("{TEST_PREFIX} 01 00 00 00 ff ff ff ff ff ff ff ff ff 7f"),
        ),
        (
            "zero end-of-text offset",
            format!("{TEST_PREFIX} 01 08 10 00 00 00 00"),
        ),
        (
            "negative end-of-text offset",
            format!("{TEST_PREFIX} 01 08 10 00 ff 00 00"),
        ),
        ("count 5, no images", format!("{TEST_PREFIX} 05")),
        (
            "over-long str runs into the next image",
            format!("{TEST_PREFIX} 02 09 10 00 01 00 00 14 41 42 43 09 99 99 00 10 00 02 2f 5a 00"),
        ),
        // §10.2
        (
            "build-ID length 1025, valid range",
            format!("{TEST_PREFIX} 01 00 00 01 88 01"),
        ),
        (
            "build-ID overflow, valid range",
            format!("{TEST_PREFIX} 01 00 00 01 ff ff ff ff ff ff ff ff ff 7f"),
        ),
        (
            "end of text wraps below base",
            format!("{TEST_PREFIX} 01 09 10 00 f0 00 00 00"),
        ),
        (
            "vlq7 longer than 10 bytes",
            format!("{TEST_PREFIX} 80 80 80 80 80 80 80 80 80 80 00"),
        ),
        ("image too short", format!("{TEST_PREFIX} 01 00")),
    ];
    for (name, text) in cases {
        let err = decode(&hex(&text)).expect_err(name);
        assert_eq!(err.format, symblob::Format::Cif, "{name}");
    }
    // The errors name the field and the offset.
    let e = decode(&hex("06")).unwrap_err();
    assert_eq!(
        (e.section, e.offset, e.kind),
        ("info byte", 0, ErrorKind::UnsupportedVersion(1))
    );
    let e = decode(&hex(&format!("{TEST_PREFIX} c0 80 01"))).unwrap_err();
    assert_eq!((e.section, e.offset), ("image count", 6));
    assert!(
        matches!(e.kind, ErrorKind::OutOfRange { limit, .. } if limit == u64::from(MAX_IMAGES))
    );
    let e = decode(&hex(&format!("{TEST_PREFIX} 01 09 10 00 f0 00 00 00"))).unwrap_err();
    assert_eq!((e.section, e.offset), ("end-of-text offset", 10));
    let e = decode(&hex(&format!("{TEST_PREFIX} 01 00 00 01 88 01"))).unwrap_err();
    assert_eq!((e.section, e.offset), ("build ID length", 10));
    let e = decode(&hex(&format!("{TEST_PREFIX} 05"))).unwrap_err();
    assert_eq!((e.section, e.offset), ("image count", 6));
}

#[test]
fn broken_paths_decode_as_nil_and_keep_the_image() {
    let cases = [
        ("str truncated", "0a 41 42"),
        ("framewk name truncated", "53 41 78"),
        ("invalid UTF-8", "01 ff 00"),
        ("reserved code 20", "94 00"),
        ("undefined dynamic code 40", "a8 00"),
        ("e = 1 code overflow", "c7 7f ff ff ff ff ff ff c0"),
        ("e = 1 operand truncated", "c3 00 00"),
    ];
    for (name, path) in cases {
        let map =
            decode(&hex(&format!("{ONE_IMAGE} {path}"))).unwrap_or_else(|e| panic!("{name}: {e}"));
        assert_eq!(map.images.len(), 1, "{name}");
        let img = &map.images[0];
        assert_eq!((img.base, img.end_of_text), (0x1000, 0x1100), "{name}");
        assert!(img.path.is_err(), "{name}: {:?}", img.path);
        assert_eq!(img.name, None, "{name}");
    }
}

const SEED_PATHS: [&str; 7] = [
    "/System/Library/Frameworks/AppKit.framework/Versions/C/AppKit",
    "/System/Library/Frameworks/Photos.framework/Versions/A/Photos",
    "/usr/lib/libobjc.A.dylib",
    "/usr/lib/libz.1.dylib",
    "/usr/lib/swift/libswiftCore.dylib",
    "/usr/lib/libSystem.B.dylib",
    "/usr/lib/libc++.1.dylib",
];

#[test]
fn seed_example_is_108_bytes_of_paths_in_a_172_byte_stream() {
    let expected_paths = [
        format!("84 45 43 {}", ascii("AppKit")),
        format!("84 45 41 {}", ascii("Photos")),
        format!("81 80 0c {} 00", ascii("objc.A.dylib")),
        format!("81 80 09 {} 00", ascii("z.1.dylib")),
        format!("81 19 {} 00", ascii("/swift/libswiftCore.dylib")),
        format!("81 80 0e {} 00", ascii("System.B.dylib")),
        format!("81 80 0b {} 00", ascii("c++.1.dylib")),
    ];
    let path_total: usize = expected_paths.iter().map(|p| hex(p).len()).sum();
    assert_eq!(path_total, 108);
    assert_eq!(SEED_PATHS.iter().map(|p| p.len() + 1).sum::<usize>(), 256);
    let mut stream = String::from("02 05 6d 61 63 4f 53 07");
    for (i, p) in expected_paths.iter().enumerate() {
        stream += &format!(" 12 {:02x} 00 00 00 80 00 00 {p}", (i + 1) * 0x10);
    }
    let stream = hex(&stream);
    assert_eq!(stream.len(), 172);
    let images: Vec<OwnedImage> = SEED_PATHS
        .iter()
        .enumerate()
        .map(|(i, p)| {
            let base = 0x10_0000 * (i as u64 + 1);
            OwnedImage::new(p, base, base + 0x8000)
        })
        .collect();
    for mode in [EncodeMode::Canonical, EncodeMode::Swift] {
        assert_eq!(
            to_hex(&encode(64, "macOS", &images, mode).unwrap()),
            to_hex(&stream)
        );
    }
    let map = decode(&stream).unwrap();
    let paths: Vec<_> = map
        .images
        .iter()
        .map(|i| i.path_or_nil().unwrap())
        .collect();
    assert_eq!(paths, SEED_PATHS);
}

fn linux_example() -> Vec<OwnedImage> {
    let with_id = |p: &str, base: u64, len: u64, id: Option<Vec<u8>>| OwnedImage {
        build_id: id,
        ..OwnedImage::new(p, base, base + len)
    };
    vec![
        with_id(
            "/home/u/app/myapp",
            0x55d0_c7a0_0000,
            0x5000,
            Some(vec![0x11; 20]),
        ),
        with_id(
            "/usr/lib/x86_64-linux-gnu/libm.so.6",
            0x7f3a_1c00_0000,
            0x7_f000,
            Some(vec![0x22; 20]),
        ),
        with_id(
            "/usr/lib/x86_64-linux-gnu/libc.so.6",
            0x7f3a_1c20_0000,
            0x19_5000,
            None,
        ),
        with_id(
            "/usr/lib/x86_64-linux-gnu/ld-linux-x86-64.so.2",
            0x7f3a_1c5c_0000,
            0x2_6000,
            Some(hex("aabbccdd")),
        ),
    ]
}

const LINUX_BASE64: &str = "AiZMaW51eCAoRGViaWFuIEdOVS9MaW51eCAxMiAoYm9va3dvcm0pKQQpVdDHoAAAUAAUERERERERERERERERERERERERERERL2hvbWUvdS9hcHAvbXlhcHAAKn86HAAAAAfwABQiIiIiIiIiIiIiIiIiIiIiIiIiIoEbL3g4Nl82NC1saW51eC1nbnUvbGlibS5zby42AJIgAAAZUAAAgaOABmMuc28uNgCSPAAAAmAABKq7zN2BoxUvbGQtbGludXgteDg2LTY0LnNvLjIA";

#[test]
fn realistic_linux_map_is_207_bytes_in_both_modes_and_matches_its_base64() {
    let platform = "Linux (Debian GNU/Linux 12 (bookworm))";
    let expected = hex(&format!(
        "02 26 {} 04 \
         29 55 d0 c7 a0 00 00 50 00 14 {} 11 {} 00 \
         2a 7f 3a 1c 00 00 00 07 f0 00 14 {} 81 1b {} 00 \
         92 20 00 00 19 50 00 00 81 a3 80 06 {} 00 \
         92 3c 00 00 02 60 00 04 aa bb cc dd 81 a3 15 {} 00",
        ascii(platform),
        "11".repeat(20),
        ascii("/home/u/app/myapp"),
        "22".repeat(20),
        ascii("/x86_64-linux-gnu/libm.so.6"),
        ascii("c.so.6"),
        ascii("/ld-linux-x86-64.so.2"),
    ));
    assert_eq!(expected.len(), 207);
    for mode in [EncodeMode::Canonical, EncodeMode::Swift] {
        let got = encode(64, platform, &linux_example(), mode).unwrap();
        assert_eq!(to_hex(&got), to_hex(&expected), "{mode:?}");
    }
    let mut text = vec![0u8; symblob::cif::base64_encoded_len(expected.len())];
    let n = symblob::cif::base64_encode(&expected, &mut text).unwrap();
    assert_eq!(std::str::from_utf8(&text[..n]).unwrap(), LINUX_BASE64);
    let mut back = vec![0u8; symblob::cif::base64_decoded_len_max(LINUX_BASE64.len())];
    let m = symblob::cif::base64_decode(LINUX_BASE64.as_bytes(), &mut back).unwrap();
    assert_eq!(&back[..m], &expected[..]);
    let map = decode(&expected).unwrap();
    assert_eq!(map.platform.as_deref(), Some(platform));
    let got: Vec<_> = map
        .images
        .iter()
        .map(|i| {
            (
                i.path_or_nil().unwrap().to_owned(),
                i.build_id.clone(),
                i.base,
                i.end_of_text,
            )
        })
        .collect();
    let want: Vec<_> = linux_example()
        .into_iter()
        .map(|i| (i.path.unwrap(), i.build_id, i.base, i.end_of_text))
        .collect();
    assert_eq!(got, want);
}

#[test]
fn word_size_arithmetic_differs_between_modes_only_in_bytes() {
    let images = [
        OwnedImage::new("/a", 0x7ff0_0000, 0x8010_0000),
        OwnedImage::new("/b", 0xf700_0000, 0xf700_1000),
    ];
    let canonical = encode(32, "", &images, EncodeMode::Canonical).unwrap();
    let swift = encode(32, "", &images, EncodeMode::Swift).unwrap();
    assert_eq!(
        to_hex(&canonical),
        to_hex(&hex(
            "01 00 02 1a 7f f0 00 00 20 00 00 00 02 2f 61 00 19 f7 00 00 00 10 00 00 02 2f 62 00"
        ))
    );
    assert_eq!(
        to_hex(&swift),
        to_hex(&hex("01 00 02 1c 7f f0 00 00 ff 00 20 00 00 00 02 2f 61 00 19 f7 00 00 00 10 00 00 02 2f 62 00"))
    );
    for bytes in [&canonical, &swift] {
        let map = decode(bytes).unwrap();
        let ranges: Vec<_> = map.images.iter().map(|i| (i.base, i.end_of_text)).collect();
        assert_eq!(
            ranges,
            [(0x7ff0_0000, 0x8010_0000), (0xf700_0000, 0xf700_1000)]
        );
    }
}

#[test]
fn counts_of_64_to_127_get_swifts_redundant_group() {
    let mut image = OwnedImage::new("/x", 0x1000, 0x2000);
    image.build_id = Some(vec![0xab; 64]);
    let canonical = encode(64, "", &[image.clone()], EncodeMode::Canonical).unwrap();
    let swift = encode(64, "", &[image.clone()], EncodeMode::Swift).unwrap();
    // info, platform len, count, header, base (2), offset (2), then the ID length.
    assert_eq!(&canonical[8..9], &[0x40]);
    assert_eq!(&swift[8..10], &[0x80, 0x40]);
    let many: Vec<OwnedImage> = (0..127u64)
        .map(|i| OwnedImage::new("/x", 0x1000 * (i + 1), 0x1000 * (i + 1) + 0x10))
        .collect();
    assert_eq!(
        &encode(64, "", &many, EncodeMode::Canonical).unwrap()[2..3],
        &[0x7f]
    );
    assert_eq!(
        &encode(64, "", &many, EncodeMode::Swift).unwrap()[2..4],
        &[0x80, 0x7f]
    );
    for bytes in [canonical, swift] {
        assert_eq!(decode(&bytes).unwrap().images[0].build_id, image.build_id);
    }
}

#[test]
fn expand_codes_of_320_and_above_use_the_correct_byte_count() {
    let mut images: Vec<OwnedImage> = (0..300u64)
        .map(|i| {
            OwnedImage::new(
                &format!("/d{i:03}/x"),
                0x1000 * (i + 1),
                0x1000 * (i + 1) + 0x10,
            )
        })
        .collect();
    images.push(OwnedImage::new("/d290/y", 0x20_0000, 0x20_0010));
    for mode in [EncodeMode::Canonical, EncodeMode::Swift] {
        let bytes = encode(64, "", &images, mode).unwrap();
        assert!(bytes.ends_with(&hex("c1 01 02 02 2f 79 00")), "{mode:?}");
        let map = decode(&bytes).unwrap();
        assert_eq!(map.images.last().unwrap().path_or_nil(), Some("/d290/y"));
        assert_eq!(map.images[290].path_or_nil(), Some("/d290/x"));
    }
    // Swift's truncated form names a different, earlier prefix: /d034.
    let mut swift_bytes = encode(64, "", &images, EncodeMode::Swift).unwrap();
    let tail = swift_bytes.len() - 7;
    swift_bytes.splice(tail.., hex("c0 02 02 2f 79 00"));
    let map = decode(&swift_bytes).unwrap();
    assert_eq!(map.images.last().unwrap().path_or_nil(), Some("/d034/y"));
}

#[test]
fn vlq7_table_in_both_forms() {
    let table: [(u64, &str, &str); 14] = [
        (0, "00", "00"),
        (1, "01", "01"),
        (63, "3f", "3f"),
        (64, "40", "8040"),
        (127, "7f", "807f"),
        (128, "8100", "8100"),
        (129, "8101", "8101"),
        (700, "853c", "853c"),
        (1234, "8952", "8952"),
        (8192, "c000", "80c000"),
        (16383, "ff7f", "80ff7f"),
        (16384, "818000", "818000"),
        (65535, "83ff7f", "83ff7f"),
        (2097152, "81808000", "81808000"),
    ];
    for (value, canonical, swift) in table {
        for (mode, form) in [
            (EncodeMode::Canonical, canonical),
            (EncodeMode::Swift, swift),
        ] {
            let mut buf = [0u8; 10];
            let n = encode_vlq7(value, mode, &mut buf).unwrap();
            assert_eq!(to_hex(&buf[..n]), form, "{value} {mode:?}");
            assert_eq!(
                decode_vlq7(&hex(form), u64::MAX),
                Ok((value, form.len() / 2))
            );
        }
    }
    assert!(decode_vlq7(&hex("ff ff ff ff ff ff ff ff ff 7f"), u64::MAX).is_err());
    assert_eq!(decode_vlq7(&hex("81 7f"), 255), Ok((255, 2)));
    assert!(decode_vlq7(&hex("82 00"), 255).is_err());
    assert_eq!(
        decode_vlq7(&hex("80 80 80 80 80 80 80 80 80 01"), u64::MAX),
        Ok((1, 10))
    );
    assert!(decode_vlq7(&hex("81"), u64::MAX).is_err());
    assert_eq!(decode_vlq7(&encode_vlq_max(), u64::MAX), Ok((u64::MAX, 10)));
}

fn encode_vlq_max() -> Vec<u8> {
    let mut buf = [0u8; 10];
    let n = encode_vlq7(u64::MAX, EncodeMode::Canonical, &mut buf).unwrap();
    buf[..n].to_vec()
}

#[test]
fn legacy_layout_without_platform_is_an_explicit_option() {
    let modern = hex("02 04 74 65 73 74 01 09 10 00 01 00 00 00");
    let legacy = hex("02 01 09 10 00 01 00 00 00");
    let map = super::support::decode_with(&legacy, true, 64).unwrap();
    assert_eq!(map.platform, None);
    assert_eq!(
        (map.images[0].base, map.images[0].end_of_text),
        (0x1000, 0x1100)
    );
    assert_eq!(decode(&modern).unwrap().images, map.images);
    // Read as the modern layout, the same bytes mean something else entirely.
    assert_ne!(decode(&legacy).ok().map(|m| m.images), Some(map.images));
}
