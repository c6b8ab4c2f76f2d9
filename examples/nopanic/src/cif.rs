//! Every CIF entry point: the decoder on the input bytes, the encoder on images made from
//! them, base64 and VLQ both ways.

use core::fmt::Write;
use core::hint::black_box;

use symblob::cif::{
    self, DecodeOptions, Decoder, EncodeMode, EncodeOptions, Encoder, Header, Image, PrefixRef,
    WordSize,
};

use crate::digest::Digest;
use crate::rt::Console;

pub fn check(input: &[u8], out: &mut Console) {
    let mut digest = Digest::new();
    let mut prefixes = [PrefixRef::EMPTY; 64];
    let mut path = [0u8; 1024];
    for legacy_no_platform in [false, true] {
        let options = DecodeOptions { legacy_no_platform };
        match Decoder::new(input, options, &mut prefixes) {
            Ok(mut decoder) => {
                let header = decoder.header();
                digest.bytes(header.platform.as_bytes());
                digest.number(u64::from(decoder.image_count()) ^ decoder.word_size() as u64);
                digest.number(u64::from(decoder.version()) ^ decoder.offset() as u64);
                digest.number(decoder.platform().map_or(0, |p| p.len() as u64));
                loop {
                    match decoder.next_image(&mut path) {
                        Ok(Some(image)) => {
                            digest.number(image.offset ^ image.base ^ image.end_of_text);
                            digest.bytes(image.build_id.unwrap_or(&[]));
                            digest.bytes(image.name().unwrap_or("").as_bytes());
                            match image.path {
                                Ok(p) => digest.bytes(p.unwrap_or("").as_bytes()),
                                Err(e) => {
                                    let _ = write!(digest, "{e}");
                                }
                            }
                        }
                        Ok(None) => break,
                        Err(e) => {
                            let _ = write!(digest, "{e}");
                            break;
                        }
                    }
                }
                digest.number(decoder.trailing_bytes().unwrap_or(0) as u64);
            }
            Err(e) => {
                let _ = write!(digest, "{e}");
            }
        }
    }

    // Encoding: images whose paths, build IDs and addresses come from the input.
    let piece = |at: usize, len: usize| input.get(at..at.saturating_add(len));
    let number = |at: usize| {
        input
            .get(at..)
            .and_then(|rest| rest.first_chunk::<8>())
            .map_or(0, |bytes| u64::from_le_bytes(*bytes))
    };
    let images = [
        Image {
            path: piece(0, 40),
            name: piece(8, 8),
            build_id: piece(16, 20),
            base: number(0),
            end_of_text: number(8),
        },
        Image {
            path: piece(40, 64),
            name: None,
            build_id: None,
            base: number(40),
            end_of_text: number(48),
        },
    ];
    let platform = piece(0, 16)
        .and_then(|p| core::str::from_utf8(p).ok())
        .unwrap_or("Linux");
    let word_size = match input.first().map(|b| b & 3) {
        Some(0) => WordSize::Bits16,
        Some(1) => WordSize::Bits32,
        _ => WordSize::Bits64,
    };
    let header = Header::new(word_size, platform);
    let mut encoded = [0u8; 1024];
    for mode in [EncodeMode::Canonical, EncodeMode::Swift] {
        let options = EncodeOptions { mode };
        for image in &images {
            if let Err(e) = cif::check_image(&header, image) {
                let _ = write!(digest, "{e}");
            }
        }
        digest.number(cif::encoded_len(&header, &images, options).unwrap_or(0) as u64);
        let small = Encoder::<4>::new().encode(&header, &images, &mut encoded, options);
        digest.number(small.unwrap_or(0) as u64);
        match cif::encode(&header, &images, &mut encoded, options) {
            Ok(len) => {
                let bytes = encoded.get(..len).unwrap_or(&[]);
                digest.bytes(bytes);
                let mut text = [0u8; 1400];
                if let Ok(n) = cif::base64_encode(bytes, &mut text) {
                    let mut back = [0u8; 1024];
                    let text = text.get(..n).unwrap_or(&[]);
                    digest.number(cif::base64_decode(text, &mut back).unwrap_or(0) as u64);
                }
            }
            Err(e) => {
                let _ = write!(digest, "{e}");
            }
        }
        let mut vlq = [0u8; cif::MAX_VLQ7_LEN];
        if let Ok(n) = cif::encode_vlq7(black_box(number(0)), mode, &mut vlq) {
            digest.number(n as u64);
        }
    }
    // The text form and VLQ decoding of the raw input.
    let mut decoded = [0u8; 4096];
    digest.number(
        cif::base64_decode(piece(0, 4096).unwrap_or(input), &mut decoded).unwrap_or(0) as u64,
    );
    digest.number(cif::base64_decoded_len_max(input.len()) as u64);
    digest.number(cif::base64_encoded_len(input.len().min(1 << 20)) as u64);
    digest.number(u64::from(cif::is_base64_char(
        input.first().copied().unwrap_or(0),
    )));
    if let Ok((value, n)) = cif::decode_vlq7(input, u64::MAX) {
        digest.number(value ^ n as u64);
    }
    let _ = writeln!(out, "cif: digest {:016x}", digest.value());
}
