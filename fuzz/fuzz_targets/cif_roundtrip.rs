//! CIF round trip: generated image maps are encoded in both modes into exact-size and
//! short buffers; what fits must decode to the same images, and the base64 text form
//! must give the same bytes back.

#![no_main]

use arbitrary::Arbitrary;
use libfuzzer_sys::fuzz_target;
use symblob::cif::{self, check_image, EncodeMode, EncodeOptions, Header, Image, WordSize};
use symblob_fuzz::reader::{cif_decode, OwnedImage};

/// Path pieces: fixed prefixes the format has codes for, and shared directories that
/// become dynamic prefixes.
const PIECES: [&str; 12] = [
    "/usr/lib",
    "/usr/lib/x86_64-linux-gnu",
    "/System/Library/Frameworks",
    "/lib",
    "/home/u",
    "/app",
    "/swift/linux",
    "/x",
    "libc.so.6",
    "AppKit.framework/Versions/C/AppKit",
    "ld-linux-x86-64.so.2",
    "é€",
];

#[derive(Arbitrary, Debug)]
struct GenImage {
    pieces: Vec<u8>,
    tail: String,
    build_id: Vec<u8>,
    base: u64,
    length: u64,
    relative_to_previous: bool,
}

#[derive(Arbitrary, Debug)]
struct Input {
    bits: u8,
    platform: String,
    swift_mode: bool,
    images: Vec<GenImage>,
}

fuzz_target!(|input: Input| {
    let word_size =
        [WordSize::Bits16, WordSize::Bits32, WordSize::Bits64][usize::from(input.bits % 3)];
    let mask = word_size.mask();
    let mut platform = input.platform.as_str();
    while platform.len() > 255 {
        let mut cut = 255;
        while !platform.is_char_boundary(cut) {
            cut -= 1;
        }
        platform = &platform[..cut];
    }
    let header = Header::new(word_size, platform);

    let mut previous = 0u64;
    let mut paths = Vec::new();
    let mut spans = Vec::new();
    for g in input.images.iter().take(64) {
        let mut path = String::new();
        for &p in g.pieces.iter().take(8) {
            if !path.is_empty() && !path.ends_with('/') {
                path.push('/');
            }
            path.push_str(PIECES[usize::from(p) % PIECES.len()]);
        }
        path.extend(g.tail.chars().take(64));
        let base = if g.relative_to_previous {
            previous.wrapping_add(g.base & 0xffff) & mask
        } else {
            g.base & mask
        };
        previous = base;
        spans.push((base, base.wrapping_add(g.length % (1 << 32))));
        paths.push(path);
    }
    let mut images = Vec::new();
    for ((g, path), &(base, end)) in input.images.iter().zip(&paths).zip(&spans) {
        let image = Image {
            path: Some(path.as_bytes()),
            name: None,
            build_id: Some(&g.build_id[..g.build_id.len().min(1024)]),
            base,
            end_of_text: end,
        };
        if check_image(&header, &image).is_ok() {
            images.push(image);
        }
    }

    let mode = if input.swift_mode {
        EncodeMode::Swift
    } else {
        EncodeMode::Canonical
    };
    let options = EncodeOptions::new(mode);
    let len = cif::encoded_len(&header, &images, options).expect("checked images encode");
    let mut out = vec![0u8; len];
    assert_eq!(cif::encode(&header, &images, &mut out, options), Ok(len));
    let mut short = vec![0u8; len / 2];
    assert!(cif::encode(&header, &images, &mut short, options).is_err());

    let decoded = cif_decode(&out, Default::default()).expect("own output decodes");
    assert!(!decoded.failed);
    assert_eq!(decoded.platform, platform);
    assert_eq!(decoded.bits, word_size.bits());
    let expected: Vec<OwnedImage> = images
        .iter()
        .map(|i| OwnedImage {
            path: i
                .path
                .filter(|p| !p.is_empty())
                .map(|p| String::from_utf8(p.to_vec()).unwrap()),
            build_id: i.build_id.filter(|b| !b.is_empty()).map(<[u8]>::to_vec),
            base: i.base,
            end_of_text: i.end_of_text,
        })
        .collect();
    assert_eq!(decoded.images, expected);

    let mut text = vec![0u8; cif::base64_encoded_len(len)];
    let n = cif::base64_encode(&out, &mut text).expect("exact-size text buffer");
    let mut back = vec![0u8; cif::base64_decoded_len_max(n)];
    let m = cif::base64_decode(&text[..n], &mut back).expect("own base64 decodes");
    assert_eq!(&back[..m], &out[..]);
});
