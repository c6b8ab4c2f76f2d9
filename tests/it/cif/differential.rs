//! Differential tests against the reference model (`cif_ref.py`): byte-identical encoding
//! in both modes and at several prefix-table capacities, identical decoding of our bytes,
//! of every truncation and of random corruptions. Skipped when the model is absent.

use serde_json::{json, Value};
use symblob::cif::{EncodeMode, EncodeOptions, Encoder, Header, Image, WordSize};

use super::random_maps::{random_map, Rng};
use super::support::{
    decode, encode, encode_cap, reference_model, run_python, to_hex, DecodedMap, OwnedImage,
};

/// Encodes every job with the model and decodes the bytes we produced with it.
const BATCH_PROGRAM: &str = r#"
import json, sys, cif_ref
out = []
for job in json.load(sys.stdin):
    result = {}
    if "images" in job:
        enc = cif_ref.encode(job["images"], job["platform"], job["word_size"],
                             swift=job["swift"], capacity=job["capacity"])
        result["encoded"] = enc.hex()
    try:
        result["decoded"] = cif_ref.decode(bytes.fromhex(job["ours"]))
    except cif_ref.CifError as exc:
        result["error"] = str(exc)
    out.append(result)
json.dump(out, sys.stdout)
"#;

/// The model's result for each job of `payload` through [`BATCH_PROGRAM`]; `None` when
/// the model or python3 is missing (reported as a missing oracle).
fn model_results(payload: &[Value]) -> Option<Vec<Value>> {
    let model = reference_model()?;
    let stdout = run_python(&model, BATCH_PROGRAM, &serde_json::to_vec(payload).unwrap());
    Some(serde_json::from_slice(&stdout).unwrap())
}

fn image_json(image: &OwnedImage) -> Value {
    let mut v = json!({
        "path": image.path,
        "build_id": image.build_id.as_deref().map(to_hex),
        "base": image.base,
        "end_of_text": image.end_of_text,
    });
    if let Some(name) = &image.name {
        v["name"] = json!(name);
    }
    v
}

/// Our decoding in the model's JSON shape (path failures are nil, as in Swift).
fn decoded_json(map: &DecodedMap) -> Value {
    json!({
        "version": 0,
        "word_size": map.word_bits,
        "platform": map.platform,
        "images": map.images.iter().map(|i| json!({
            "base": i.base,
            "end_of_text": i.end_of_text,
            "build_id": i.build_id.as_deref().map(to_hex),
            "path": i.path_or_nil(),
            "name": i.path_or_nil().map(|_| i.name.clone()).unwrap_or(None),
        })).collect::<Vec<_>>(),
        "trailing_bytes": map.trailing,
    })
}

fn check_decode_matches(ours: &[u8], model: &Value, what: &str) {
    match (decode(ours), model.get("decoded")) {
        (Ok(map), Some(expected)) => assert_eq!(&decoded_json(&map), expected, "{what}"),
        (Err(_), None) => {}
        (Ok(_), None) => panic!("{what}: we decode, the model rejects: {}", model["error"]),
        (Err(e), Some(_)) => panic!("{what}: the model decodes, we reject: {e}"),
    }
}

struct Job {
    bits: u32,
    platform: String,
    images: Vec<OwnedImage>,
    mode: EncodeMode,
    capacity: Option<usize>,
}

#[test]
fn random_maps_encode_and_decode_exactly_like_the_reference_model() {
    let mut rng = Rng::new(0x5eed_c1f0);
    let mut jobs = Vec::new();
    for n in 0..60 {
        let bits = *rng.pick(&[16, 32, 64, 64]);
        let count = if n < 2 { 1500 } else { rng.below(120) as usize };
        let images = random_map(&mut rng, bits, count);
        for mode in [EncodeMode::Canonical, EncodeMode::Swift] {
            let capacity = match rng.below(4) {
                0 => Some(0),
                1 => Some(1 + rng.below(8) as usize),
                2 => Some(300 + rng.below(400) as usize),
                _ => None,
            };
            jobs.push(Job {
                bits,
                platform: format!("Linux (test {n}) é"),
                images: images.clone(),
                mode,
                capacity,
            });
        }
    }
    let mut payload = Vec::new();
    let mut ours_all = Vec::new();
    for job in &jobs {
        let ours = match job.capacity {
            Some(cap) => encode_cap(job.bits, &job.platform, &job.images, job.mode, cap),
            None => encode(job.bits, &job.platform, &job.images, job.mode),
        }
        .expect("random maps are encodable");
        payload.push(json!({
            "images": job.images.iter().map(image_json).collect::<Vec<_>>(),
            "platform": job.platform,
            "word_size": job.bits,
            "swift": job.mode == EncodeMode::Swift,
            "capacity": job.capacity,
            "ours": to_hex(&ours),
        }));
        ours_all.push(ours);
    }
    let total_images: usize = jobs.iter().map(|j| j.images.len()).sum();
    assert!(total_images > 5000, "{total_images}");
    let Some(results) = model_results(&payload) else {
        return;
    };
    assert_eq!(results.len(), jobs.len());
    let mut big_codes = 0;
    for (i, ((job, ours), model)) in jobs.iter().zip(&ours_all).zip(&results).enumerate() {
        let what = format!(
            "job {i} ({} images, {:?}, capacity {:?})",
            job.images.len(),
            job.mode,
            job.capacity
        );
        assert_eq!(to_hex(ours), model["encoded"].as_str().unwrap(), "{what}");
        check_decode_matches(ours, model, &what);
        // Round trip: every image comes back (empty paths and IDs read as absent).
        let map = decode(ours).unwrap();
        for (got, want) in map.images.iter().zip(&job.images) {
            assert_eq!(
                (got.base, got.end_of_text),
                (want.base, want.end_of_text),
                "{what}"
            );
            assert_eq!(
                got.path_or_nil(),
                want.path.as_deref().filter(|p| !p.is_empty()),
                "{what}"
            );
            assert_eq!(
                got.build_id.as_deref(),
                want.build_id.as_deref().filter(|b| !b.is_empty())
            );
        }
        if job.capacity.is_none() && uses_codes_from_320(ours) {
            big_codes += 1;
        }
    }
    assert!(
        big_codes > 0,
        "some map must use two-byte expand codes (code >= 320)"
    );
}

/// Whether a path of `stream` expands a code ≥ 320: with reference slots for codes
/// 32..=319 only, such a path fails with "prefix table full".
fn uses_codes_from_320(stream: &[u8]) -> bool {
    let mut refs = vec![symblob::cif::PrefixRef::EMPTY; 320 - 32];
    let mut decoder = symblob::cif::Decoder::new(stream, Default::default(), &mut refs).unwrap();
    let mut buf = vec![0u8; 1 << 16];
    let mut found = false;
    while let Some(img) = decoder.next_image(&mut buf).unwrap() {
        found |= matches!(img.path, Err(e) if e.kind == symblob::ErrorKind::Malformed("prefix table full"));
    }
    found
}

#[test]
fn const_generic_encoder_matches_the_slice_table() {
    let mut rng = Rng::new(42);
    let images = random_map(&mut rng, 64, 400);
    let borrowed: Vec<Image<'_>> = images.iter().map(OwnedImage::borrow).collect();
    let header = Header::new(WordSize::Bits64, "p");
    let options = EncodeOptions::new(EncodeMode::Swift);
    let mut out = vec![0u8; 1 << 20];
    let mut small = Encoder::<16>::new();
    let n = small.encode(&header, &borrowed, &mut out, options).unwrap();
    assert_eq!(small.encoded_len(&header, &borrowed, options), Ok(n));
    assert_eq!(
        out[..n],
        encode_cap(64, "p", &images, EncodeMode::Swift, 16).unwrap()[..]
    );
    let mut large = Box::new(Encoder::<4096>::new());
    let m = large.encode(&header, &borrowed, &mut out, options).unwrap();
    assert_eq!(
        out[..m],
        encode(64, "p", &images, EncodeMode::Swift).unwrap()[..]
    );
    assert!(m < n, "a larger table compresses better ({m} vs {n})");
}

#[test]
fn truncations_and_corruptions_decode_exactly_like_the_reference_model() {
    let mut rng = Rng::new(7);
    let mut streams = Vec::new();
    for bits in [16, 32, 64] {
        let images = random_map(&mut rng, bits, 12);
        streams.push(encode(bits, "plat", &images, EncodeMode::Swift).unwrap());
    }
    let mut inputs: Vec<Vec<u8>> = Vec::new();
    for s in &streams {
        inputs.extend((0..s.len()).map(|n| s[..n].to_vec()));
    }
    for _ in 0..3000 {
        let mut s = rng.pick(&streams).clone();
        for _ in 0..1 + rng.below(4) {
            let at = rng.below(s.len() as u64) as usize;
            match rng.below(4) {
                0 => s[at] ^= 1 << rng.below(8),
                1 => s[at] = rng.next_u64() as u8,
                2 => {
                    s.remove(at);
                }
                _ => s.insert(
                    at,
                    *rng.pick(&[0x00, 0x80, 0xa0, 0xc0, 0xc1, 0x2f, 0x45, 0xff]),
                ),
            }
            if s.is_empty() {
                break;
            }
        }
        inputs.push(s);
    }
    let payload: Vec<Value> = inputs
        .iter()
        .map(|i| json!({ "ours": to_hex(i) }))
        .collect();
    let Some(results) = model_results(&payload) else {
        return;
    };
    let mut decoded = 0;
    for (input, model) in inputs.iter().zip(&results) {
        check_decode_matches(input, model, &format!("input {}", to_hex(input)));
        decoded += usize::from(model.get("decoded").is_some());
    }
    assert!(
        decoded > 300 && decoded < inputs.len(),
        "{decoded} of {} decoded",
        inputs.len()
    );
}
