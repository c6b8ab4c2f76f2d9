//! Drivers that call every public entry of the reader on one input and check the
//! invariants that must hold whatever the bytes are.
//!
//! A panic, an out-of-bounds read (caught by the sanitizer) or a hang is a bug in any
//! case; the assertions here add the consistency checks between accessors, so that a
//! reader answering nonsense on a damaged blob is caught as well.

use core::cmp::Ordering;
use core::fmt::Write as _;

use symblob::cif::{DecodeOptions, Decoder, EncodeMode, EncodeOptions, Header, Image, PrefixRef};
use symblob::ksym::{KsymBlob, Ksyms, TextRanges};
use symblob::lidia::LidiaFile;

use crate::CountingSink;

/// How many symbols or ranges get the per-entry checks (lookups by each entry's own
/// name or address); iteration always covers all of them.
const PER_ENTRY_LIMIT: usize = 256;

/// Parses `bytes` as ksym-bin and, if that succeeds, runs validation, both iterations,
/// the dump, name lookups (for `names` and for stored names) and address lookups (for
/// `probes` and stored addresses) under a few text-range and bias choices.
pub fn ksym(bytes: &[u8], probes: &[u64], names: &[&[u8]]) {
    let Ok(blob) = KsymBlob::parse(bytes) else {
        return;
    };
    let validated = blob.validate().is_ok();
    let n = blob.len();
    assert!(blob.used_size() <= bytes.len());

    // Both iterations visit every symbol, forwards and backwards.
    assert_eq!(blob.symbols().count(), n);
    assert_eq!(blob.symbols().rev().count(), n);
    assert_eq!(blob.symbols_by_name().count(), n);
    assert_eq!(blob.symbols_by_name().rev().count(), n);
    assert!(blob.symbol(n).is_none());
    assert!(blob.dump_line(n).is_none());

    let mut sink = CountingSink::default();
    blob.dump(&mut sink).expect("a counting sink never fails");
    let mut line_sink = CountingSink::default();
    for i in 0..n.min(PER_ENTRY_LIMIT) {
        let line = blob.dump_line(i).expect("index below len");
        write!(line_sink, "{line}").expect("a counting sink never fails");
    }

    let mut previous: Option<symblob::ksym::Entry<'_>> = None;
    for entry in blob.symbols().take(PER_ENTRY_LIMIT) {
        check_name(&entry.name);
        // Parse guarantees address order.
        if let Some(p) = previous {
            assert!(p.address <= entry.address);
        }
        previous = Some(entry);
        let own: Vec<u8> = entry.name.bytes().collect();
        let lowest = blob.lookup_name(&own);
        let all: Vec<_> = blob.lookup_name_all(&own).collect();
        assert!(all
            .iter()
            .all(|e| e.name.cmp_bytes(&own) == Ordering::Equal));
        assert_eq!(lowest, all.iter().map(|e| e.address).min());
        if validated {
            // A sorted name table finds every symbol by its name, and the answer is the
            // lowest address of all symbols with that name.
            assert!(all.iter().any(|e| e.index == entry.index));
            let expected = blob
                .symbols()
                .filter(|e| e.name.cmp_bytes(&own) == Ordering::Equal)
                .map(|e| e.address)
                .min();
            assert_eq!(lowest, expected);
        }
    }
    for name in names {
        let lowest = blob.lookup_name(name);
        let all = blob.lookup_name_all(name);
        assert_eq!(all.ranks().len(), all.len());
        assert_eq!(lowest, all.map(|e| e.address).min());
    }

    let stored: Vec<u64> = blob
        .symbols()
        .take(PER_ENTRY_LIMIT)
        .map(|e| e.address)
        .collect();
    let queries = address_queries(probes, &stored);
    let range_sets = text_ranges(probes, &stored);
    for ranges in &range_sets {
        let Ok(ranges) = TextRanges::new(ranges) else {
            continue;
        };
        for bias in [0, probes.first().copied().unwrap_or(0)] {
            let ksyms = Ksyms::new(blob, ranges).with_bias(bias);
            for &q in &queries {
                check_lookup(&blob, &ksyms, q);
            }
        }
    }
    if let Ok(ksyms) = Ksyms::from_blob(bytes, 0, u64::MAX) {
        for &q in &queries {
            check_lookup(&blob, &ksyms, q);
        }
        // The batched lookup answers exactly what the single one answers.
        ksyms.lookup_address_each(&queries, |i, s| {
            assert_eq!(s, ksyms.lookup_address(queries[i]));
        });
    }
}

/// Opens `bytes` with the O(1) `KsymBlob::parse_trusted`: it fails exactly when `parse`
/// fails for the layout; otherwise `validate` gives `parse`'s verdict, and every accessor
/// stays total and bounded however wrong the entries are.
pub fn ksym_trusted(bytes: &[u8], probes: &[u64], names: &[&[u8]]) {
    let full = KsymBlob::parse(bytes);
    let blob = match KsymBlob::parse_trusted(bytes) {
        Ok(blob) => blob,
        Err(e) => {
            assert_eq!(
                full.err(),
                Some(e),
                "only layout errors stop a trusted open"
            );
            return;
        }
    };
    match full {
        Ok(full) => assert_eq!(blob.validate(), full.validate()),
        Err(e) => assert_eq!(blob.validate(), Err(e)),
    }
    let n = blob.len();
    assert_eq!(blob.symbols().count(), n);
    assert_eq!(blob.symbols().rev().count(), n);
    // Name order ends early at a `seqs` entry out of range.
    assert!(blob.symbols_by_name().count() <= n);
    let mut sink = CountingSink::default();
    blob.dump(&mut sink).expect("a counting sink never fails");
    for entry in blob.symbols().take(PER_ENTRY_LIMIT) {
        check_name(&entry.name);
        let own: Vec<u8> = entry.name.bytes().collect();
        let _ = blob.lookup_name(&own);
        assert!(blob.lookup_name_all(&own).count() <= n);
    }
    for name in names {
        let _ = blob.lookup_name(name);
    }
    let ksyms = Ksyms::new(blob, TextRanges::single(0, u64::MAX).expect("one range"));
    let sorted = blob
        .symbols()
        .zip(blob.symbols().skip(1))
        .all(|(a, b)| a.address <= b.address);
    ksyms.lookup_address_each(probes, |i, s| {
        // On unsorted addresses the batched and single searches may pick differently.
        if sorted {
            assert_eq!(s, ksyms.lookup_address(probes[i]));
        }
    });
    for &q in probes {
        if let Some(sym) = ksyms.lookup_address(q) {
            assert!(sym.index < n);
            let mut sink = CountingSink::default();
            write!(sink, "{sym}").expect("a counting sink never fails");
        }
        let _ = ksyms.lookup_return_address(q);
    }
}

/// Text-range lists to try: everything, one range between two probes, and ranges
/// around the stored addresses.
fn text_ranges(probes: &[u64], stored: &[u64]) -> Vec<Vec<core::ops::Range<u64>>> {
    let range = |start: u64, end: u64| core::ops::Range { start, end };
    let mut sets = vec![vec![range(0, u64::MAX)]];
    if let [a, b, ..] = probes {
        sets.push(vec![range(*a.min(b), *a.max(b))]);
    }
    if let (Some(first), Some(last)) = (stored.first(), stored.last()) {
        let mid = first / 2 + last / 2;
        sets.push(vec![
            *first..mid,
            mid.saturating_add(1)..last.saturating_add(16),
        ]);
    }
    sets
}

/// Address lookups agree with the tables: the symbol starts at or before the address,
/// the offset lies inside the size, the index is the first alias, and a return-address
/// lookup is the lookup of the byte before.
fn check_lookup(blob: &KsymBlob<'_>, ksyms: &Ksyms<'_>, addr: u64) {
    let found = ksyms.lookup_address(addr);
    if let Some(sym) = found {
        let bias = ksyms.bias();
        let entry = blob.symbol(sym.index).expect("lookup index is in bounds");
        assert_eq!(entry.address, sym.address.wrapping_sub(bias));
        assert_eq!(sym.offset, addr.wrapping_sub(sym.address));
        assert!(sym.offset < sym.size, "{sym:?} at {addr:#x}");
        assert!(ksyms.ranges().find(addr).is_some());
        if let Some(before) = sym.index.checked_sub(1) {
            let prev = blob.symbol(before).expect("in bounds");
            assert!(prev.address < entry.address, "index is the first alias");
        }
        assert_eq!(entry.name.cmp_name(&sym.name), Ordering::Equal);
        let mut sink = CountingSink::default();
        write!(sink, "{sym}").expect("a counting sink never fails");
    }
    let ret = ksyms.lookup_return_address(addr.wrapping_add(1));
    if addr != u64::MAX {
        let expected = found.map(|mut s| {
            s.offset += 1;
            s
        });
        assert_eq!(ret, expected);
    }
}

/// A name's accessors agree with each other.
fn check_name(name: &symblob::ksym::Name<'_>) {
    let bytes: Vec<u8> = name.bytes().collect();
    assert_eq!(bytes.len(), name.len());
    assert_eq!(name.is_empty(), bytes.is_empty());
    assert_eq!(name.cmp_bytes(&bytes), Ordering::Equal);
    assert!(name.starts_with(&bytes[..bytes.len() / 2]));
    let mut buf = vec![0u8; name.len()];
    assert_eq!(name.copy_to(&mut buf).ok(), Some(name.len()));
    assert_eq!(buf, bytes);
    if !buf.is_empty() {
        assert!(name.copy_to(&mut buf[1..]).is_err());
    }
    let mut sink = CountingSink::default();
    write!(sink, "{name}").expect("a counting sink never fails");
}

/// Parses `bytes` as Lidia and, if that succeeds, runs checksum verification,
/// validation, both iterations, the line table, strings, and lookups at `probes` and at
/// the edges of the stored ranges.
pub fn lidia(bytes: &[u8], probes: &[u64]) {
    let Ok(file) = LidiaFile::parse(bytes) else {
        return;
    };
    let _ = file.verify_checksums();
    let validated = file.validate().is_ok();
    let n = file.len();
    assert_eq!(file.is_empty(), n == 0);
    assert!(matches!(file.va_size(), 4 | 8));
    assert!(matches!(file.field_size(), 4 | 8));
    assert!(matches!(file.line_size(), 2 | 4));
    assert_eq!(file.ranges().count(), n);
    assert_eq!(file.ranges().rev().count(), n);
    assert!(file.range(n).is_none() && file.va(n).is_none() && file.entry(n).is_none());
    assert_eq!(file.string(0).map(|s| s.len()), Some(0));
    let lines = file.lines();
    assert_eq!(lines.iter().count(), lines.len());

    let mut queries: Vec<u64> = probes.to_vec();
    for range in file.ranges().take(PER_ENTRY_LIMIT) {
        assert_eq!(range.lines.iter().count(), range.lines.len());
        let end = range.va.wrapping_add(range.length);
        queries.extend([range.va, end.wrapping_sub(1), end]);
        let _ = range.lines.line_for(range.va, end.wrapping_sub(1));
        let entry = file.entry(range.index).expect("index below len");
        if validated {
            for offset in [entry.func, entry.file, entry.call_file] {
                assert!(file.string(offset).is_some());
            }
            assert_eq!(range.lines.len() as u64, entry.line_count);
        }
        let mut sink = CountingSink::default();
        write!(sink, "{}{}{}", range.function, range.file, range.call_file)
            .expect("a counting sink never fails");
    }
    for &p in probes {
        let _ = file.string(p);
        let _ = file.string(p & 0xffff);
    }
    for &addr in &queries {
        check_lidia_lookup(&file, addr);
    }
    // The batched lookups answer exactly what the single ones answer, on any file.
    file.lookup_each(&queries, |i, frames| {
        assert!(frames.eq(file.lookup(queries[i])))
    });
    file.lookup_function_each(&queries, |i, function| {
        assert_eq!(function, file.lookup_function(queries[i]));
    });
}

/// The frames of a lookup cover the address, come from distinct ranges walking down the
/// table, and the first one is what `lookup_function` answers.
fn check_lidia_lookup(file: &LidiaFile<'_>, addr: u64) {
    let mut last_index = None;
    let mut count = 0usize;
    let mut first = None;
    for frame in file.lookup(addr) {
        count += 1;
        assert!(count <= file.len());
        let va = file.va(frame.range_index).expect("frame index in bounds");
        let entry = file
            .entry(frame.range_index)
            .expect("frame index in bounds");
        assert!(va <= addr && addr < va.wrapping_add(entry.length));
        assert_eq!(frame.depth, entry.depth);
        if let Some(last) = last_index {
            assert!(frame.range_index < last);
        }
        last_index = Some(frame.range_index);
        first.get_or_insert(frame.function);
        let mut sink = CountingSink::default();
        write!(sink, "{}:{} {}", frame.file, frame.line, frame.function)
            .expect("a counting sink never fails");
    }
    assert_eq!(file.lookup_function(addr), first);
}

/// One image as decoded, owned, for comparing two decodes.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct OwnedImage {
    /// The path, or `None` when absent, empty or not decodable.
    pub path: Option<String>,
    /// The build ID.
    pub build_id: Option<Vec<u8>>,
    /// Base address.
    pub base: u64,
    /// End of text.
    pub end_of_text: u64,
}

/// A whole decoded stream: platform, word size in bits, images, and whether decoding
/// stopped on a fatal error.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct OwnedStream {
    /// The platform string (empty for the legacy layout).
    pub platform: String,
    /// 16, 32 or 64.
    pub bits: u32,
    /// The images decoded before the end or the first fatal error.
    pub images: Vec<OwnedImage>,
    /// Whether a fatal error ended decoding.
    pub failed: bool,
}

/// Decodes a CIF stream completely into owned values, or `None` when the header is bad.
pub fn cif_decode(bytes: &[u8], options: DecodeOptions) -> Option<OwnedStream> {
    // One slot per input byte can never run out.
    let mut prefixes = vec![PrefixRef::EMPTY; bytes.len() + 1];
    let mut decoder = Decoder::new(bytes, options, &mut prefixes).ok()?;
    let count = decoder.image_count();
    let mut stream = OwnedStream {
        platform: decoder.header().platform.to_owned(),
        bits: decoder.word_size().bits(),
        images: Vec::new(),
        failed: false,
    };
    let mut path = vec![0u8; 64 * 1024];
    loop {
        match decoder.next_image(&mut path) {
            Ok(Some(image)) => {
                assert!(image.end_of_text > image.base);
                assert!(image.end_of_text <= decoder.word_size().mask());
                assert!((image.offset as usize) < bytes.len());
                let _ = image.name();
                stream.images.push(OwnedImage {
                    path: image.path.ok().flatten().map(str::to_owned),
                    build_id: image.build_id.map(<[u8]>::to_vec),
                    base: image.base,
                    end_of_text: image.end_of_text,
                });
            }
            Ok(None) => break,
            Err(_) => {
                stream.failed = true;
                break;
            }
        }
    }
    // After the end or a fatal error the decoder stays finished.
    assert!(matches!(decoder.next_image(&mut path), Ok(None)));
    assert!(stream.images.len() <= count as usize);
    if stream.failed {
        assert!(decoder.trailing_bytes().is_none());
    } else {
        assert_eq!(stream.images.len(), count as usize);
        assert!(decoder.trailing_bytes().is_some());
    }
    assert!(decoder.offset() <= bytes.len());
    Some(stream)
}

/// Encodes `stream`'s images in `mode`, checks `encoded_len`, decodes the result and
/// returns it; `None` if the encoder refuses the images.
pub fn cif_reencode(stream: &OwnedStream, mode: EncodeMode) -> Option<OwnedStream> {
    let word_size = symblob::cif::WordSize::from_bits(stream.bits)?;
    let header = Header::new(word_size, &stream.platform);
    let images: Vec<Image<'_>> = stream
        .images
        .iter()
        .map(|i| Image {
            path: i.path.as_deref().map(str::as_bytes),
            name: None,
            build_id: i.build_id.as_deref(),
            base: i.base,
            end_of_text: i.end_of_text,
        })
        .collect();
    let options = EncodeOptions::new(mode);
    let len = symblob::cif::encoded_len(&header, &images, options).ok()?;
    let mut out = vec![0u8; len];
    let written = symblob::cif::encode(&header, &images, &mut out, options)
        .expect("encode succeeds into a buffer of encoded_len bytes");
    assert_eq!(written, len);
    if len > 0 {
        // One byte short must be reported, not written past.
        let mut short = vec![0u8; len - 1];
        assert!(symblob::cif::encode(&header, &images, &mut short, options).is_err());
    }
    let decoded = cif_decode(&out, DecodeOptions::default()).expect("own output decodes");
    Some(decoded)
}

/// Decodes `bytes` in both layouts; re-encodes every stream that decoded completely in
/// both modes and checks that the re-encoded stream decodes to the same images.
pub fn cif(bytes: &[u8]) {
    for legacy in [false, true] {
        let options = DecodeOptions {
            legacy_no_platform: legacy,
        };
        let Some(stream) = cif_decode(bytes, options) else {
            continue;
        };
        if stream.failed {
            continue;
        }
        for mode in [EncodeMode::Canonical, EncodeMode::Swift] {
            if let Some(again) = cif_reencode(&stream, mode) {
                assert!(!again.failed);
                assert_eq!(again.images, stream.images);
                assert_eq!(again.platform, stream.platform);
                assert_eq!(again.bits, stream.bits);
            }
        }
    }
}

/// ksym-bin v2 on any bytes: [`v2::Blob::open`] (O(1)) and [`v2::Blob::parse`] agree,
/// `validate` gives `parse`'s verdict, and every accessor stays total and bounded on a
/// blob that only opens. On a blob that validates, the accessors agree with each other
/// as [`ksym`] checks them for v1.
pub fn ksym_v2(bytes: &[u8], probes: &[u64], names: &[&[u8]]) {
    use symblob::ksym::v2;
    let full = v2::Blob::parse(bytes);
    let blob = match v2::Blob::open(bytes) {
        Ok(blob) => blob,
        Err(e) => {
            assert_eq!(full.err(), Some(e), "parse fails as open does");
            return;
        }
    };
    assert_eq!(blob.validate().err(), full.err());
    let validated = full.is_ok();
    let n = blob.len();
    assert_eq!(blob.is_empty(), n == 0);
    assert!(blob.used_size() <= bytes.len());
    let _ = (blob.base(), blob.multi_byte_codes());
    assert!(blob.symbol(n).is_none() && blob.symbol_by_rank(n).is_none());
    assert!(blob.address(n).is_none() && blob.rank_of(n).is_none());
    assert!(blob.index_of_rank(n).is_none());

    assert_eq!(blob.symbols().len(), n);
    assert!(blob.symbols().count() <= n);
    assert!(blob.symbols().rev().count() <= n);
    assert!(blob.symbols_by_name().count() <= n);
    let mut sink = CountingSink::default();
    let _ = blob.dump(&mut sink);

    let mut previous: Option<v2::Entry<'_>> = None;
    for entry in blob.symbols().take(PER_ENTRY_LIMIT) {
        assert!(entry.index < n);
        check_name_v2(&entry.name);
        let own: Vec<u8> = entry.name.bytes().collect();
        let lowest = blob.lookup_name(&own);
        let all: Vec<_> = blob.lookup_name_all(&own).collect();
        if validated {
            if let Some(p) = previous {
                assert!(p.address <= entry.address);
            }
            let rank = blob.rank_of(entry.index).expect("every index has a rank");
            assert_eq!(blob.index_of_rank(rank), Some(entry.index));
            assert_eq!(blob.symbol_by_rank(rank), Some(entry));
            assert!(all
                .iter()
                .all(|e| e.name.cmp_bytes(&own) == Ordering::Equal));
            assert!(all.iter().any(|e| e.index == entry.index));
            let expected = blob
                .symbols()
                .filter(|e| e.name.cmp_bytes(&own) == Ordering::Equal)
                .map(|e| e.address)
                .min();
            assert_eq!(lowest, expected);
            assert_eq!(lowest, all.iter().map(|e| e.address).min());
        }
        previous = Some(entry);
    }
    if validated {
        // Name order is sorted by (name, address).
        let by_name: Vec<_> = blob.symbols_by_name().take(PER_ENTRY_LIMIT).collect();
        for w in by_name.windows(2) {
            let a: Vec<u8> = w[0].name.bytes().collect();
            assert_ne!(w[1].name.cmp_bytes(&a), Ordering::Less);
        }
    }
    for name in names {
        let lowest = blob.lookup_name(name);
        let all: Vec<_> = blob.lookup_name_all(name).collect();
        assert!(all.len() <= n);
        if validated {
            assert_eq!(lowest, all.iter().map(|e| e.address).min());
        }
    }

    let stored: Vec<u64> = blob
        .symbols()
        .take(PER_ENTRY_LIMIT)
        .map(|e| e.address)
        .collect();
    let queries = address_queries(probes, &stored);
    for ranges in &text_ranges(probes, &stored) {
        let Ok(ranges) = TextRanges::new(ranges) else {
            continue;
        };
        for bias in [0, probes.first().copied().unwrap_or(0)] {
            let ksyms = v2::Ksyms::new(blob, ranges).with_bias(bias);
            for &q in &queries {
                let found = ksyms.lookup_address(q);
                let ret = ksyms.lookup_return_address(q.wrapping_add(1));
                if let Some(sym) = found {
                    assert!(sym.index < n);
                    let mut sink = CountingSink::default();
                    write!(sink, "{sym}").expect("a counting sink never fails");
                    if validated {
                        check_lookup_v2(&blob, &ksyms, q, &sym);
                    }
                }
                if validated && q != u64::MAX {
                    let expected = found.map(|mut s| {
                        s.offset += 1;
                        s
                    });
                    assert_eq!(ret, expected);
                }
            }
            ksyms.lookup_address_each(&queries, |i, s| {
                if validated {
                    assert_eq!(s, ksyms.lookup_address(queries[i]));
                }
            });
        }
    }
}

/// A v2 address lookup on a valid blob: the symbol starts at or before the address, the
/// offset lies inside the size, the index is the first alias.
fn check_lookup_v2(
    blob: &symblob::ksym::v2::Blob<'_>,
    ksyms: &symblob::ksym::v2::Ksyms<'_>,
    addr: u64,
    sym: &symblob::ksym::v2::Symbol<'_>,
) {
    let entry = blob.symbol(sym.index).expect("lookup index is in bounds");
    assert_eq!(entry.address, sym.address.wrapping_sub(ksyms.bias()));
    assert_eq!(sym.offset, addr.wrapping_sub(sym.address));
    assert!(sym.offset < sym.size, "{sym:?} at {addr:#x}");
    assert!(ksyms.ranges().find(addr).is_some());
    if let Some(before) = sym.index.checked_sub(1) {
        let prev = blob.address(before).expect("in bounds");
        assert!(prev < entry.address, "index is the first alias");
    }
    assert_eq!(entry.name, sym.name);
    assert_eq!(entry.kind, sym.kind);
}

/// A v2 name's accessors agree with each other (on any blob that opens).
fn check_name_v2(name: &symblob::ksym::v2::Name<'_>) {
    let bytes: Vec<u8> = name.bytes().collect();
    assert_eq!(bytes.len(), name.len());
    assert_eq!(name.is_empty(), bytes.is_empty());
    assert_eq!(name.cmp_bytes(&bytes), Ordering::Equal);
    assert!(name.starts_with(&bytes[..bytes.len() / 2]));
    assert!(*name == bytes[..]);
    let mut buf = vec![0u8; name.len()];
    assert_eq!(name.copy_to(&mut buf).ok(), Some(name.len()));
    assert_eq!(buf, bytes);
    if !buf.is_empty() {
        assert!(name.copy_to(&mut buf[1..]).is_err());
    }
    let mut sink = CountingSink::default();
    write!(sink, "{name} {name:?}").expect("a counting sink never fails");
}

/// The addresses to look up: the probes, and each stored address with its neighbours.
fn address_queries(probes: &[u64], stored: &[u64]) -> Vec<u64> {
    let mut queries = probes.to_vec();
    for &a in stored {
        queries.extend([a.wrapping_sub(1), a, a.wrapping_add(1)]);
    }
    queries
}
