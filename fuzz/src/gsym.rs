//! The GSYM reader on one input: every public entry, with the invariants that hold
//! whatever the bytes are, and [`template`], a valid file around fuzzer-chosen chunk
//! bytes so that the lookup target spends its time inside line programs and inline trees.

use symblob::gsym::{Function, GsymFile, Lookup, LookupIndex, MAX_INLINE_DEPTH};

/// How many functions get the per-function checks; iteration always covers all of them.
const PER_FUNCTION_LIMIT: usize = 256;

/// Parses `bytes` and, if that succeeds, runs validation, iteration and lookups at
/// `probes` and at every function's edges, checking that the answers are consistent.
pub fn gsym(bytes: &[u8], probes: &[u64]) {
    let Ok(file) = GsymFile::parse(bytes) else {
        return;
    };
    let validated = file.validate().is_ok();
    let header = file.header();
    assert!(matches!(header.addr_off_size, 1 | 2 | 4 | 8));
    assert!(header.uuid.len() <= 20);
    assert_eq!(file.len(), header.num_addresses as usize);
    assert_eq!(file.functions().count(), file.len());
    assert!(file.address(file.len()).is_none() && file.function(file.len()).is_err());
    for index in 0..file.file_count().min(PER_FUNCTION_LIMIT) {
        assert!(file.file(index as u32).is_some());
    }
    assert!(file.file(file.file_count() as u32).is_none());

    let mut queries = probes.to_vec();
    for function in file.functions().take(PER_FUNCTION_LIMIT) {
        match function {
            Ok(f) => {
                match file.line_rows(&f) {
                    Ok(Some(rows)) => {
                        let mut previous = f.address;
                        for row in rows {
                            match row {
                                Ok(row) if validated => {
                                    assert!(row.address >= previous);
                                    assert!(file.file(row.file).is_some());
                                    previous = row.address;
                                }
                                Ok(_) => {}
                                Err(e) => assert!(!validated, "a validated line table runs: {e}"),
                            }
                        }
                    }
                    Ok(None) => {}
                    Err(e) => assert!(!validated, "a validated record decodes: {e}"),
                }
                inline_nodes(&file, &f, validated);
                let end = f.address.wrapping_add(u64::from(f.size));
                queries.extend([
                    f.address,
                    end.wrapping_sub(1),
                    end,
                    f.address.wrapping_sub(1),
                ]);
            }
            Err(e) => assert!(!validated, "a validated file's records decode: {e}"),
        }
    }
    // The lookup index answers exactly what the file answers, errors included.
    let mut words = vec![0u64; LookupIndex::words_needed(&file)];
    let index = LookupIndex::build(file, &mut words).expect("a buffer of the size asked for");
    let answer = |found: Result<Option<&Lookup<'_>>, symblob::Error>| {
        format!("{:?}", found.map(|l| l.map(frames)))
    };
    for &addr in &queries {
        lookup(&file, addr, validated);
        assert_eq!(
            answer(
                index
                    .lookup(addr)
                    .as_ref()
                    .map(Option::as_ref)
                    .map_err(|e| *e)
            ),
            answer(
                file.lookup(addr)
                    .as_ref()
                    .map(Option::as_ref)
                    .map_err(|e| *e)
            ),
            "{addr:#x}: the indexed lookup differs"
        );
    }
    // Batched, sorted in pieces of three: every position answered once, as alone.
    let mut answered = vec![false; queries.len()];
    index.lookup_each(&queries, &mut [0u64; 3], |i, found| {
        let addr = queries[i];
        let alone = file.lookup(addr);
        let alone = answer(alone.as_ref().map(Option::as_ref).map_err(|e| *e));
        assert_eq!(
            answer(found),
            alone,
            "{addr:#x}: the batched lookup differs"
        );
        assert!(
            !std::mem::replace(&mut answered[i], true),
            "{i} answered twice"
        );
    });
    assert!(answered.iter().all(|&a| a), "a position was not answered");
    if let Some(short) = words.len().checked_sub(1) {
        assert!(LookupIndex::build(file, &mut words[..short]).is_err());
    }
}

/// A lookup's frames, for comparing two lookups.
fn frames(found: &Lookup<'_>) -> Vec<(String, u64, String, String, u32, bool)> {
    found
        .frames()
        .map(|f| {
            let text = |s: symblob::gsym::Str<'_>| s.to_string();
            (
                text(f.name),
                f.offset,
                text(f.dir),
                text(f.base),
                f.line,
                f.inlined,
            )
        })
        .collect()
}

/// The walk of `function`'s whole inline tree: depth first (each node at most one level
/// below the one before, and below it only when that one has children), every depth
/// under the limit, each node's ranges as many as it says; on a validated file the walk
/// succeeds and every child's ranges lie inside its parent's extent.
fn inline_nodes(file: &GsymFile<'_>, function: &Function<'_>, validated: bool) {
    let nodes = match file.inline_nodes(function) {
        Ok(Some(nodes)) => nodes,
        Ok(None) => return,
        Err(e) => {
            assert!(!validated, "a validated record has chunks: {e}");
            return;
        }
    };
    // The extent (lowest start, highest end) of the open node at each depth.
    let mut extents = [(0u64, 0u64); MAX_INLINE_DEPTH];
    let mut previous: Option<(usize, bool)> = None;
    for node in nodes {
        let node = match node {
            Ok(node) => node,
            Err(e) => {
                assert!(!validated, "a validated tree walks: {e}");
                break;
            }
        };
        assert!(node.depth < MAX_INLINE_DEPTH);
        match previous {
            None => assert_eq!(node.depth, 0),
            Some((depth, children)) => {
                assert!(node.depth >= 1, "one root");
                assert!(node.depth <= depth + usize::from(children));
            }
        }
        previous = Some((node.depth, node.has_children));
        assert!(node.range_count > 0);
        let ranges: Vec<_> = node.ranges.clone().collect();
        assert_eq!(ranges.len() as u64, node.range_count);
        assert_eq!(ranges[0].start, node.first_start);
        let low = ranges.iter().map(|r| r.start).min().unwrap_or(0);
        let high = ranges.iter().map(|r| r.end).max().unwrap_or(0);
        if validated {
            if let Some(&(l, h)) = node.depth.checked_sub(1).and_then(|d| extents.get(d)) {
                assert!(
                    l <= low && high <= h,
                    "a validated child lies in its parent"
                );
            }
        }
        extents[node.depth] = (low, high);
    }
}

/// One lookup and its consistency with `function_at` and the frame rules.
fn lookup(file: &GsymFile<'_>, addr: u64, validated: bool) {
    let at = file.function_at(addr);
    match file.lookup(addr) {
        Ok(Some(found)) => {
            assert_eq!(at, Ok(Some(found.function)));
            assert!(found.function.covers(addr));
            let frames: Vec<_> = found.frames().collect();
            assert!(!frames.is_empty() && frames.len() <= MAX_INLINE_DEPTH + 1);
            let (last, inner) = frames.split_last().expect("at least one frame");
            assert!(!last.inlined && inner.iter().all(|f| f.inlined));
            assert_eq!(last.name, found.function.name);
            if found.row.is_none() {
                assert_eq!(frames.len(), 1);
            }
        }
        Ok(None) => assert!(matches!(at, Ok(None))),
        // After validation only LLVM's own refusal remains: an address that the line
        // table does not reach.
        Err(e) => assert!(
            !validated || e.section == symblob::gsym::section::LINE_TABLE,
            "lookup of a validated file failed: {e}"
        ),
    }
}

/// A little-endian GSYM file with one function at 0x1000 of `size` bytes named "f", file
/// 1 = "d/a.c", whose FunctionInfo continues with `chunks` (the chunk list, as given).
pub fn template(size: u32, chunks: &[u8]) -> Vec<u8> {
    const STRINGS: &[u8] = b"\0f\0d\0a.c\0";
    let mut out = Vec::new();
    out.extend(0x4753_594du32.to_le_bytes());
    out.extend(1u16.to_le_bytes());
    out.extend([8, 0]);
    out.extend(0u64.to_le_bytes());
    out.extend(1u32.to_le_bytes());
    let strtab = 48 + 8 + 4 + 4 + 16;
    out.extend((strtab as u32).to_le_bytes());
    out.extend((STRINGS.len() as u32).to_le_bytes());
    out.extend([0; 20]);
    out.extend(0x1000u64.to_le_bytes());
    let record = (strtab + STRINGS.len()).next_multiple_of(4);
    out.extend((record as u32).to_le_bytes());
    out.extend(2u32.to_le_bytes());
    for word in [0u32, 0, 3, 5] {
        out.extend(word.to_le_bytes());
    }
    out.extend_from_slice(STRINGS);
    out.resize(record, 0);
    out.extend(size.to_le_bytes());
    out.extend(1u32.to_le_bytes());
    out.extend_from_slice(chunks);
    out
}
