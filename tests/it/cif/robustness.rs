//! Decoder robustness (truncations, corruptions, tiny buffers, nesting), encoder limits,
//! and encode → decode round trips.

use proptest::prelude::*;
use symblob::cif::{
    encode_with_table, encoded_len, DecodeOptions, Decoder, EncodeMode, EncodeOptions, Header,
    Image, PrefixRef, WordSize, MAX_EXPANSION_DEPTH, MAX_IMAGES,
};
use symblob::ErrorKind;

use super::random_maps::{random_map, Rng};
use super::support::{decode, decode_with, encode, hex, to_hex, OwnedImage};

/// Decodes with caller-chosen buffer sizes and checks the invariants every yielded image
/// keeps, whatever the input: the text range is non-empty and within the word size.
fn decode_checked(data: &[u8], slots: usize, path_cap: usize) -> Result<usize, symblob::Error> {
    let mut refs = vec![PrefixRef::EMPTY; slots];
    let mut decoder = Decoder::new(data, DecodeOptions::default(), &mut refs)?;
    let mask = decoder.word_size().mask();
    let mut buf = vec![0u8; path_cap];
    let mut n = 0;
    while let Some(img) = decoder.next_image(&mut buf)? {
        assert!(img.base < img.end_of_text && img.end_of_text <= mask);
        assert!(img.offset < data.len() as u64);
        if let Ok(Some(p)) = img.path {
            assert!(!p.is_empty() && p.len() <= path_cap);
        }
        n += 1;
    }
    assert!(n <= decoder.image_count() as usize);
    Ok(n)
}

fn sample_streams() -> Vec<Vec<u8>> {
    let mut rng = Rng::new(99);
    let mut out = Vec::new();
    for (i, bits) in [16, 32, 64, 64, 64].into_iter().enumerate() {
        let images = random_map(&mut rng, bits, 10 + i * 5);
        let mode = if i % 2 == 0 {
            EncodeMode::Swift
        } else {
            EncodeMode::Canonical
        };
        out.push(encode(bits, "platform", &images, mode).unwrap());
    }
    out
}

#[test]
fn every_truncation_fails_or_only_loses_the_last_path() {
    for stream in sample_streams() {
        let full = decode(&stream).unwrap();
        for cut in 0..stream.len() {
            let Ok(map) = decode(&stream[..cut]) else {
                continue;
            };
            // Only a cut inside the last path can still decode: that path is lost.
            let (last, rest) = map
                .images
                .split_last()
                .expect("a decoded prefix has images");
            assert_eq!(rest, &full.images[..rest.len()], "cut {cut}");
            assert_eq!(map.images.len(), full.images.len(), "cut {cut}");
            let want = full.images.last().unwrap();
            assert_eq!(
                (last.base, last.end_of_text, &last.build_id),
                (want.base, want.end_of_text, &want.build_id)
            );
            let err = last
                .path
                .as_ref()
                .expect_err("the cut path cannot be complete");
            assert!(
                matches!(err.kind, ErrorKind::Truncated { .. }),
                "cut {cut}: {err}"
            );
            // Tiny buffers and tables give errors, never panics.
            let _ = decode_checked(&stream[..cut], 3, 5);
        }
    }
}

#[test]
fn small_path_buffers_and_prefix_tables_fail_per_path() {
    let images = [
        OwnedImage::new("/usr/lib/swift/linux/libswiftCore.so", 0x1000, 0x2000),
        OwnedImage::new("/usr/lib/swift/linux/libFoundation.so", 0x3000, 0x4000),
        OwnedImage::new("/opt/x", 0x5000, 0x6000),
    ];
    let bytes = encode(64, "", &images, EncodeMode::Canonical).unwrap();
    // The second path uses code 33 (/swift/linux); one slot stores only code 32.
    let mut refs = [PrefixRef::EMPTY; 1];
    let mut decoder = Decoder::new(&bytes, DecodeOptions::default(), &mut refs).unwrap();
    let mut buf = [0u8; 64];
    let first = decoder.next_image(&mut buf).unwrap().unwrap();
    assert_eq!(first.path, Ok(Some("/usr/lib/swift/linux/libswiftCore.so")));
    let second = decoder.next_image(&mut buf).unwrap().unwrap();
    assert_eq!(
        second.path.unwrap_err().kind,
        ErrorKind::Malformed("prefix table full")
    );
    let third = decoder.next_image(&mut buf).unwrap().unwrap();
    assert_eq!(
        third.path,
        Ok(Some("/opt/x")),
        "decoding resumes at the next image"
    );
    // A 10-byte path buffer: the long paths report the size they need.
    let map = decode_with(&bytes, false, 10).unwrap();
    for (got, want) in map.images.iter().zip(&images) {
        let len = want.path.as_ref().unwrap().len();
        if len > 10 {
            assert_eq!(
                got.path.as_ref().unwrap_err().kind,
                ErrorKind::BufferTooSmall { needed: len as u64 }
            );
        } else {
            assert_eq!(got.path_or_nil(), want.path.as_deref());
        }
    }
}

/// A chain of prefixes, each defined by `str c` + expand(previous) + `str /`, so code
/// 32 + k needs k + 1 nested walks. Returns the stream and the expected path of each use.
fn nested_chain(links: usize) -> (Vec<u8>, Vec<String>) {
    let count = 2 + links;
    let mut s = hex(&format!("02 00 {:02x}", count));
    let record =
        |s: &mut Vec<u8>, i: usize| s.extend(hex(&format!("09 {:02x} 00 01 00 00", 0x10 + i)));
    record(&mut s, 0);
    s.extend(hex("03 2f 61 2f 00")); // "/a/" defines 32 = "/a"
    let mut prefix = String::from("/a");
    let mut expected = vec!["/a/".to_owned()];
    for k in 0..links {
        record(&mut s, k + 1);
        let c = b'b' + (k % 20) as u8;
        // str c, expand (32 + k), str "/", end: defines 33 + k = c + prefix.
        s.extend([0x01, c, 0x80 | (32 + k) as u8, 0x01, b'/', 0x00]);
        prefix = format!("{}{prefix}", c as char);
        expected.push(format!("{prefix}/"));
    }
    record(&mut s, links + 1);
    s.extend([0x80 | (32 + links) as u8, 0x01, b'!', 0x00]);
    expected.push(format!("{prefix}!"));
    (s, expected)
}

#[test]
fn nested_prefixes_expand_up_to_the_depth_limit() {
    // Code 32 + k is k + 1 levels deep: the last use needs `links + 1` levels.
    let (ok, expected) = nested_chain(MAX_EXPANSION_DEPTH - 1);
    let map = decode(&ok).unwrap();
    let paths: Vec<_> = map
        .images
        .iter()
        .map(|i| i.path_or_nil().unwrap().to_owned())
        .collect();
    assert_eq!(paths, expected);
    let (deep, expected) = nested_chain(MAX_EXPANSION_DEPTH);
    let map = decode(&deep).unwrap();
    let last = map.images.last().unwrap();
    assert_eq!(
        last.path.as_ref().unwrap_err().kind,
        ErrorKind::Malformed("prefix expansion nested too deeply")
    );
    let before: Vec<_> = map.images[..map.images.len() - 1]
        .iter()
        .map(|i| i.path_or_nil().unwrap().to_owned())
        .collect();
    assert_eq!(before, expected[..expected.len() - 1]);
}

#[test]
fn encoder_limits_are_errors() {
    let img = [Image::new("/x", 0x1000, 0x2000)];
    let options = EncodeOptions::default();
    let long = "p".repeat(256);
    let e = encoded_len(&Header::new(WordSize::Bits64, &long), &img, options).unwrap_err();
    assert_eq!(
        (e.section, e.kind),
        (
            "platform",
            ErrorKind::OutOfRange {
                value: 256,
                limit: 255
            }
        )
    );
    let h = Header::new(WordSize::Bits32, "");
    let id = [7u8; 1025];
    for (bad, section) in [
        (Image::new("/x", 0x2000, 0x2000), "image end of text"),
        (Image::new("/x", 0x2000, 0x1000), "image end of text"),
        (
            Image::new("/x", 0x1_0000_0000, 0x1_0000_1000),
            "image address",
        ),
        (
            Image::new("/x", 0x1000, 0x2000).with_build_id(&id),
            "image build ID",
        ),
    ] {
        let e = encoded_len(&h, &[img[0], bad], options).unwrap_err();
        assert_eq!(e.section, section);
        // Header (3 bytes) + the first record (1 + 2 + 2 + 1 + 4 for "/x").
        assert_eq!(e.offset, 3 + 10, "offset of the bad image's record");
    }
    let too_many = vec![Image::default(); MAX_IMAGES as usize + 1];
    assert_eq!(
        encoded_len(&h, &too_many, options).unwrap_err().section,
        "image count"
    );
    // A present but empty build ID is written as absent (Swift would trap).
    let empty_id = [Image::new("/x", 0x1000, 0x2000).with_build_id(&[])];
    let bytes = encode(
        32,
        "",
        &[OwnedImage {
            build_id: Some(vec![]),
            ..OwnedImage::new("/x", 0x1000, 0x2000)
        }],
        EncodeMode::Swift,
    )
    .unwrap();
    assert_eq!(encoded_len(&h, &empty_id, options), Ok(bytes.len()));
    assert_eq!(decode(&bytes).unwrap().images[0].build_id, None);
}

#[test]
fn short_output_buffers_report_the_length_needed() {
    let images = [Image::new(
        "/usr/lib/libc.so.6",
        0x7f00_0000_0000,
        0x7f00_0001_0000,
    )];
    let h = Header::new(WordSize::Bits64, "Linux");
    let need = encoded_len(&h, &images, EncodeOptions::default()).unwrap();
    let mut full = vec![0u8; need];
    assert_eq!(
        symblob::cif::encode(&h, &images, &mut full, EncodeOptions::default()),
        Ok(need)
    );
    for cap in 0..need {
        let mut out = vec![0u8; cap];
        let mut table = [symblob::cif::PrefixEntry::EMPTY; 4];
        let e = encode_with_table(&h, &images, &mut out, EncodeOptions::default(), &mut table)
            .unwrap_err();
        assert_eq!(
            e.kind,
            ErrorKind::BufferTooSmall {
                needed: need as u64
            }
        );
        assert_eq!(e.offset, cap as u64);
        assert_eq!(out[..], full[..cap], "what fits is written");
    }
}

#[test]
fn framework_names_longer_than_64_bytes_use_str() {
    for len in [64usize, 65, 129] {
        let name = "K".repeat(len);
        let path = format!("/System/Library/Frameworks/{name}.framework/Versions/A/{name}");
        let bytes = encode(
            64,
            "",
            &[OwnedImage::new(&path, 0x1000, 0x2000)],
            EncodeMode::Swift,
        )
        .unwrap();
        let framewk = bytes[9..].starts_with(&[0x84, 0x40 | (len - 1) as u8]);
        assert_eq!(framewk, len <= 64, "{len}: {}", to_hex(&bytes));
        assert_eq!(
            decode(&bytes).unwrap().images[0].path_or_nil(),
            Some(path.as_str())
        );
    }
}

fn arb_image(bits: u32) -> impl Strategy<Value = OwnedImage> {
    let top = if bits == 64 {
        u64::MAX
    } else {
        (1u64 << bits) - 1
    };
    let segment = prop::sample::select(vec![
        "usr",
        "lib",
        "x86_64-linux-gnu",
        "a",
        "é",
        "C:",
        "Program Files",
        "",
        "libfoo.so.1",
    ]);
    let sep = prop::sample::select(vec!["/", "\\"]);
    let path = prop::collection::vec((sep, segment), 0..12).prop_map(|parts| {
        parts
            .into_iter()
            .map(|(s, p)| format!("{s}{p}"))
            .collect::<String>()
    });
    (
        prop::option::weighted(0.9, path),
        prop::option::of(prop::collection::vec(any::<u8>(), 0..40)),
        0..top,
        1..=top,
    )
        .prop_map(move |(path, build_id, base, span)| {
            let base = base.min(top - 1);
            OwnedImage {
                path,
                name: None,
                build_id,
                base,
                end_of_text: base + span.min(top - base),
            }
        })
}

fn arb_map() -> impl Strategy<Value = (u32, Vec<OwnedImage>)> {
    prop::sample::select(vec![16u32, 32, 64])
        .prop_flat_map(|bits| (Just(bits), prop::collection::vec(arb_image(bits), 0..40)))
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(300))]

    #[test]
    fn encode_then_decode_round_trips((bits, images) in arb_map(), swift in any::<bool>()) {
        let mode = if swift { EncodeMode::Swift } else { EncodeMode::Canonical };
        let bytes = encode(bits, "plat", &images, mode).unwrap();
        let map = decode(&bytes).unwrap();
        prop_assert_eq!(map.word_bits, bits);
        prop_assert_eq!(map.trailing, 0);
        prop_assert_eq!(map.images.len(), images.len());
        for (got, want) in map.images.iter().zip(&images) {
            prop_assert_eq!((got.base, got.end_of_text), (want.base, want.end_of_text));
            prop_assert_eq!(got.path_or_nil(), want.path.as_deref().filter(|p| !p.is_empty()));
            prop_assert_eq!(got.build_id.as_deref(), want.build_id.as_deref().filter(|b| !b.is_empty()));
        }
    }

    #[test]
    fn arbitrary_bytes_never_panic(data in prop::collection::vec(any::<u8>(), 0..300), slots in 0usize..8, cap in 0usize..64) {
        let _ = decode_checked(&data, slots, cap);
        let mut legacy_refs = vec![PrefixRef::EMPTY; data.len()];
        if let Ok(mut d) = Decoder::new(&data, DecodeOptions { legacy_no_platform: true }, &mut legacy_refs) {
            let mut buf = [0u8; 32];
            while let Ok(Some(_)) = d.next_image(&mut buf) {}
        }
    }

    #[test]
    fn corrupted_streams_never_panic(index in 0usize..5, edits in prop::collection::vec((any::<prop::sample::Index>(), any::<u8>()), 1..6)) {
        let mut stream = sample_streams().swap_remove(index);
        for (at, value) in edits {
            let i = at.index(stream.len());
            stream[i] = value;
        }
        let _ = decode_checked(&stream, stream.len(), 4096);
        let _ = decode_checked(&stream, 2, 16);
    }
}
