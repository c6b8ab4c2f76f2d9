//! The drop-in `KallsymsMapped` and the layout choice on arbitrary bytes: it accepts
//! exactly what `KsymBlob::parse` accepts, and its answers agree with each other and with
//! the blob's own.

use symblob::ksym::{KallsymsMapped, KsymBlob, LayoutKind, KSYM_NAME_LEN};

use crate::CountingSink;

/// How many stored names are looked up by name.
const NAME_LIMIT: usize = 128;

/// Runs every method of the drop-in type, and the explicit layout choice, on `bytes`.
pub fn ksym_compat(bytes: &[u8], probes: &[u64], names: &[&[u8]]) {
    let parsed = KsymBlob::parse(bytes);
    // An explicit choice of the detected layout gives the same result.
    let kind = LayoutKind::detect(bytes);
    let explicit = KsymBlob::parse_as(bytes, kind);
    assert_eq!(parsed.err(), explicit.err());
    if let Ok(blob) = &parsed {
        assert_eq!(blob.layout_kind(), kind);
        assert_eq!(blob.layout().kind, kind);
    }

    let total = KallsymsMapped::check_total_bytes(bytes);
    assert_eq!(total.is_err(), bytes.len() < 8);
    let (start, end) = match (probes.first(), probes.get(1)) {
        (Some(&a), Some(&b)) => (a.min(b), a.max(b)),
        _ => (0, u64::MAX),
    };
    let mapped = KallsymsMapped::from_blob(bytes, start, end);
    assert_eq!(mapped.is_ok(), parsed.is_ok());
    let (Ok(mapped), Ok(blob)) = (mapped, parsed) else {
        return;
    };
    assert_eq!(total, Ok(blob.used_size() as u64));

    let mut sink = CountingSink::default();
    mapped
        .dump_all_symbols(&mut sink)
        .expect("a counting sink never fails");
    // One line per symbol, plus the newlines a hostile blob stores in a type or a name.
    let stored_newlines: usize = blob
        .symbols()
        .map(|e| usize::from(e.kind == b'\n') + e.name.to_string().matches('\n').count())
        .sum();
    assert_eq!(sink.lines, blob.len() + stored_newlines);

    let mut small = [0u8; 8];
    let mut large = [0u8; KSYM_NAME_LEN];
    for &addr in probes {
        let cut = mapped
            .lookup_address(addr, &mut small)
            .map(|(n, s, o, k)| (n.to_owned(), s, o, k));
        let whole = mapped.lookup_address(addr, &mut large);
        assert_eq!(cut.is_some(), whole.is_some());
        if let (Some(cut), Some(whole)) = (cut, whole) {
            assert!(whole.0.starts_with(&cut.0) && cut.0.len() <= 8);
            assert_eq!((cut.1, cut.2, cut.3), (whole.1, whole.2, whole.3));
            assert!(addr >= start && addr < end);
            assert_eq!(addr.checked_sub(whole.2), Some(addr - whole.2));
        }
    }
    let stored = blob.symbols().take(NAME_LIMIT).map(|e| e.name.to_string());
    let queries = names
        .iter()
        .map(|n| String::from_utf8_lossy(n).into_owned());
    for name in stored.chain(queries) {
        let found = mapped.lookup_name(&name);
        match mapped.lookup_names(&name, true) {
            Some((first, last)) => {
                assert!(first <= last);
                assert_eq!(mapped.lookup_name_by_idx(first), found);
                assert!(mapped.lookup_name_by_idx(last).is_some());
                assert_eq!(mapped.lookup_names(&name, false), Some((first, 0)));
            }
            None => assert_eq!(found, None),
        }
    }
    assert_eq!(mapped.lookup_name_by_idx(blob.len()), None);
}
