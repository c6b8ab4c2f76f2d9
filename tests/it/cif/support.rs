//! Helpers for the CIF tests: hex, owned decoding, encoding into vectors, the reference model.

use std::path::PathBuf;
use std::process::{Command, Stdio};

use symblob::cif::{
    encode_with_table, DecodeOptions, Decoder, EncodeMode, EncodeOptions, Header, Image,
    PrefixEntry, PrefixRef,
};
use symblob::Error;

/// Bytes from hex text; spaces are ignored.
pub fn hex(text: &str) -> Vec<u8> {
    let digits: Vec<u8> = text.bytes().filter(|b| !b.is_ascii_whitespace()).collect();
    assert_eq!(digits.len() & 1, 0, "odd hex: {text}");
    digits
        .chunks(2)
        .map(|p| u8::from_str_radix(std::str::from_utf8(p).unwrap(), 16).unwrap())
        .collect()
}

/// Lower-case hex of `bytes`.
pub fn to_hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

/// A decoded image with owned fields; `path` keeps path-level failures.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Decoded {
    pub base: u64,
    pub end_of_text: u64,
    pub build_id: Option<Vec<u8>>,
    pub path: Result<Option<String>, Error>,
    pub name: Option<String>,
}

impl Decoded {
    /// The path as Swift shows it: failures are nil.
    pub fn path_or_nil(&self) -> Option<&str> {
        self.path.as_ref().ok().and_then(|p| p.as_deref())
    }
}

/// A whole decoded stream.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DecodedMap {
    pub word_bits: u32,
    pub platform: Option<String>,
    pub images: Vec<Decoded>,
    pub trailing: usize,
}

/// Decodes a stream with a reference table of one slot per input byte and a path buffer
/// of `path_cap` bytes.
pub fn decode_with(data: &[u8], legacy: bool, path_cap: usize) -> Result<DecodedMap, Error> {
    let mut refs = vec![PrefixRef::EMPTY; data.len()];
    let options = DecodeOptions {
        legacy_no_platform: legacy,
    };
    let mut decoder = Decoder::new(data, options, &mut refs)?;
    let mut buf = vec![0u8; path_cap];
    let mut images = Vec::new();
    while let Some(img) = decoder.next_image(&mut buf)? {
        images.push(Decoded {
            base: img.base,
            end_of_text: img.end_of_text,
            build_id: img.build_id.map(<[u8]>::to_vec),
            path: img.path.map(|p| p.map(str::to_owned)),
            name: img.name().map(str::to_owned),
        });
    }
    Ok(DecodedMap {
        word_bits: decoder.word_size().bits(),
        platform: decoder.platform().map(str::to_owned),
        trailing: decoder.trailing_bytes().expect("all images decoded"),
        images,
    })
}

/// Decodes with generous buffers.
pub fn decode(data: &[u8]) -> Result<DecodedMap, Error> {
    decode_with(data, false, 1 << 16)
}

/// An owned image for building test maps.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct OwnedImage {
    pub path: Option<String>,
    pub name: Option<String>,
    pub build_id: Option<Vec<u8>>,
    pub base: u64,
    pub end_of_text: u64,
}

impl OwnedImage {
    pub fn new(path: &str, base: u64, end_of_text: u64) -> Self {
        OwnedImage {
            path: Some(path.to_owned()),
            name: None,
            build_id: None,
            base,
            end_of_text,
        }
    }

    pub fn borrow(&self) -> Image<'_> {
        Image {
            path: self.path.as_deref().map(str::as_bytes),
            name: self.name.as_deref().map(str::as_bytes),
            build_id: self.build_id.as_deref(),
            base: self.base,
            end_of_text: self.end_of_text,
        }
    }
}

/// Encodes with a prefix table of `capacity` entries into a vector sized by a dry run.
pub fn encode_cap(
    bits: u32,
    platform: &str,
    images: &[OwnedImage],
    mode: EncodeMode,
    capacity: usize,
) -> Result<Vec<u8>, Error> {
    let header = Header::new(symblob::cif::WordSize::from_bits(bits).unwrap(), platform);
    let borrowed: Vec<Image<'_>> = images.iter().map(OwnedImage::borrow).collect();
    let options = EncodeOptions::new(mode);
    let mut table = vec![PrefixEntry::EMPTY; capacity];
    let len = match encode_with_table(&header, &borrowed, &mut [], options, &mut table) {
        Ok(n) => n,
        Err(e) => match e.kind {
            symblob::ErrorKind::BufferTooSmall { needed } => needed as usize,
            _ => return Err(e),
        },
    };
    let mut out = vec![0u8; len];
    let n = encode_with_table(&header, &borrowed, &mut out, options, &mut table)?;
    assert_eq!(n, len, "dry run and real run agree");
    Ok(out)
}

/// Encodes with an unbounded table (one entry per path byte is always enough).
pub fn encode(
    bits: u32,
    platform: &str,
    images: &[OwnedImage],
    mode: EncodeMode,
) -> Result<Vec<u8>, Error> {
    let cap = images
        .iter()
        .map(|i| i.path.as_ref().map_or(0, String::len))
        .sum::<usize>();
    encode_cap(bits, platform, images, mode, cap)
}

/// The reference model's script (`shared/tools/cif_ref.py`), when it and Python are
/// available (otherwise a missing oracle: a failure under `SYMBLOB_REQUIRE_ORACLES=1`).
pub fn reference_model() -> Option<PathBuf> {
    crate::common::shared_model("cif_ref.py")
}

/// Runs a Python program with the reference model importable as `cif_ref`, feeding
/// `stdin`; returns standard output.
pub fn run_python(model: &std::path::Path, program: &str, stdin: &[u8]) -> Vec<u8> {
    use std::io::Write;
    let mut child = Command::new("python3")
        .arg("-c")
        .arg(program)
        .env("PYTHONPATH", model.parent().unwrap())
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawn python3");
    let mut input = child.stdin.take().unwrap();
    let data = stdin.to_vec();
    let writer = std::thread::spawn(move || input.write_all(&data));
    let out = child.wait_with_output().expect("python3 output");
    writer.join().unwrap().unwrap();
    assert!(
        out.status.success(),
        "python failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    out.stdout
}
