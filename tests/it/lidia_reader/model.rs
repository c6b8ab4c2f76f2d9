//! Model test: random range lists written by a small writer that follows the format
//! specification (header, VA, range, strings and line tables; size selection; stable sort
//! by VA then depth), then every lookup compared with a direct model of the selection
//! walk and of the file/line rules of a frame.

use std::collections::HashMap;

use proptest::prelude::*;
use symblob::lidia::{crc32c, LidiaFile};

/// One range as a producer gives it.
#[derive(Clone, Debug)]
struct ModelRange {
    va: u64,
    length: u64,
    depth: u64,
    func: Vec<u8>,
    file: Vec<u8>,
    call_file: Vec<u8>,
    call_line: u64,
    lines: Vec<(u64, u64)>,
}

/// How the writer lays the file out beyond the ranges themselves.
#[derive(Clone, Debug)]
struct Layout {
    /// Stable-sort by (VA, depth) as the Go writer does; `false` leaves insertion order,
    /// which readers must survive.
    sort: bool,
    /// Junk bytes before each section (the Go writer writes none; readers must take
    /// positions from the header).
    gaps: [usize; 4],
    /// Use the wide encodings even when the narrow ones would do.
    wide: (bool, bool, bool),
}

fn put(out: &mut Vec<u8>, value: u64, size: u64) {
    out.extend_from_slice(&value.to_le_bytes()[..size as usize]);
}

/// Writes `ranges` as a Lidia v1 file; returns the bytes and the ranges in table order.
fn write(ranges: &[ModelRange], layout: &Layout) -> (Vec<u8>, Vec<ModelRange>) {
    // Strings: "" at 0 and "[overflow]" at 4, then each new string once, u32-prefixed.
    let mut strings = Vec::new();
    let mut seen: HashMap<Vec<u8>, u64> = HashMap::new();
    let mut add = |s: &[u8]| -> u64 {
        if let Some(&o) = seen.get(s) {
            return o;
        }
        let o = strings.len() as u64;
        strings.extend_from_slice(&(s.len() as u32).to_le_bytes());
        strings.extend_from_slice(s);
        seen.insert(s.to_vec(), o);
        o
    };
    add(b"");
    add(b"[overflow]");
    let mut line_entries = Vec::new();
    let mut entries: Vec<(usize, [u64; 8])> = Vec::new();
    for (i, r) in ranges.iter().enumerate() {
        let (func, file, call_file) = (add(&r.func), add(&r.file), add(&r.call_file));
        let line_index = line_entries.len() as u64;
        line_entries.extend_from_slice(&r.lines);
        let fields = [
            r.length,
            r.depth,
            func,
            file,
            line_index,
            r.lines.len() as u64,
            call_file,
            r.call_line,
        ];
        entries.push((i, fields));
    }
    if layout.sort {
        entries.sort_by_key(|(i, f)| (ranges[*i].va, f[1])); // stable
    }
    let big = |v: u64, limit: u64| v > limit;
    let vs = if layout.wide.0 || ranges.iter().any(|r| big(r.va, u32::MAX.into())) {
        8
    } else {
        4
    };
    let fs = if layout.wide.1
        || entries
            .iter()
            .any(|(_, f)| f[..6].iter().any(|&v| big(v, u32::MAX.into())))
    {
        8
    } else {
        4
    };
    let ls = if layout.wide.2
        || line_entries
            .iter()
            .any(|&(o, l)| big(o, 0xffff) || big(l, 0xffff))
    {
        4
    } else {
        2
    };

    let mut va_table = Vec::new();
    let mut range_table = Vec::new();
    for (i, fields) in &entries {
        put(&mut va_table, ranges[*i].va, vs);
        for &f in fields {
            put(&mut range_table, f, fs);
        }
    }
    let mut line_table = Vec::new();
    for &(o, l) in &line_entries {
        put(&mut line_table, o, ls);
        put(&mut line_table, l, ls);
    }

    let mut body = Vec::new();
    let mut offsets = [0u64; 4];
    for (k, section) in [&va_table, &range_table, &strings, &line_table]
        .into_iter()
        .enumerate()
    {
        body.extend(std::iter::repeat_n(0xa5, layout.gaps[k]));
        offsets[k] = 128 + body.len() as u64;
        body.extend_from_slice(section);
    }
    let n = entries.len() as u64;
    let mut out = b".dia".to_vec();
    out.extend_from_slice(&1u32.to_le_bytes());
    let headers = [
        ([vs, n], &va_table),
        ([fs, n], &range_table),
        ([strings.len() as u64, u64::MAX], &strings),
        ([ls, line_entries.len() as u64], &line_table),
    ];
    for (k, (fields, bytes)) in headers.into_iter().enumerate() {
        for f in fields.into_iter().filter(|&f| f != u64::MAX) {
            put(&mut out, f, 8);
        }
        put(&mut out, offsets[k], 8);
        put(&mut out, crc32c(bytes).into(), 4);
        put(&mut out, 0, 4);
    }
    assert_eq!(out.len(), 128);
    out.extend_from_slice(&body);
    let table_order = entries.iter().map(|(i, _)| ranges[*i].clone()).collect();
    (out, table_order)
}

/// A frame as the model computes it.
#[derive(Debug, PartialEq)]
struct ModelFrame {
    function: Vec<u8>,
    file: Vec<u8>,
    line: u64,
    depth: u64,
    index: usize,
    call_file: Vec<u8>,
    call_line: u64,
}

/// The Go reader's selection (on a sorted table), then the position of each frame.
fn model_lookup(table: &[ModelRange], addr: u64) -> Vec<ModelFrame> {
    // sort.Search(n, func(i) bool { return va[i] > addr }), Go's bisection as written.
    let (mut i, mut j) = (0usize, table.len());
    while i < j {
        let h = (i + j) / 2;
        if table[h].va <= addr {
            i = h + 1;
        } else {
            j = h;
        }
    }
    let mut selected = Vec::new();
    let mut idx = i as isize - 1;
    while idx >= 0 {
        let r = &table[idx as usize];
        if r.va <= addr && addr < r.va.wrapping_add(r.length) {
            selected.push(idx as usize);
        }
        if r.depth == 0 {
            break;
        }
        idx -= 1;
    }
    let mut frames = Vec::new();
    for (k, &index) in selected.iter().enumerate() {
        let r = &table[index];
        let (file, line) = if k == 0 {
            let mut prev = 0;
            for &(offset, line) in &r.lines {
                if addr < r.va.wrapping_add(offset) {
                    break;
                }
                prev = line;
            }
            (r.file.clone(), prev)
        } else {
            let inner = &table[selected[k - 1]];
            let file = if inner.call_file.is_empty() {
                &r.file
            } else {
                &inner.call_file
            };
            (file.clone(), inner.call_line)
        };
        frames.push(ModelFrame {
            function: r.func.clone(),
            file,
            line,
            depth: r.depth,
            index,
            call_file: r.call_file.clone(),
            call_line: r.call_line,
        });
    }
    frames
}

fn name() -> impl Strategy<Value = Vec<u8>> {
    prop_oneof![
        4 => prop::sample::select(vec!["", "main", "f", "g::h", "[overflow]", "inl"])
            .prop_map(|s| s.as_bytes().to_vec()),
        1 => prop::collection::vec(any::<u8>(), 0..12),
    ]
}

fn model_range() -> impl Strategy<Value = ModelRange> {
    let base = prop::sample::select(vec![0u64, 0x1000, 0xffff_ff00, 1 << 32, u64::MAX - 0x7f]);
    let length = prop_oneof![8 => 0u64..0x80, 1 => Just(0u64), 1 => (1u64 << 32)..(1u64 << 32) + 4];
    let line = prop_oneof![4 => 0u64..200, 1 => Just(65_536u64), 1 => Just(u32::MAX as u64)];
    let lines = prop::collection::vec((0u64..0x90, line), 0..5);
    let call_line = prop_oneof![Just(0u64), 1u64..100, Just(u32::MAX as u64)];
    (
        base,
        0u64..0x100,
        length,
        0u64..4,
        name(),
        name(),
        name(),
        call_line,
        lines,
    )
        .prop_map(
            |(base, off, length, depth, func, file, call_file, call_line, lines)| ModelRange {
                va: base.wrapping_add(off),
                length,
                depth,
                func,
                file,
                call_file,
                call_line,
                lines,
            },
        )
}

fn layout() -> impl Strategy<Value = Layout> {
    (
        prop::bool::weighted(0.9),
        prop::array::uniform4(prop_oneof![3 => Just(0usize), 1 => 1usize..4]),
        (any::<bool>(), any::<bool>(), any::<bool>()),
    )
        .prop_map(|(sort, gaps, wide)| Layout { sort, gaps, wide })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(400))]

    #[test]
    fn lookups_equal_the_model(
        ranges in prop::collection::vec(model_range(), 0..40),
        layout in layout(),
        extra in prop::collection::vec(any::<u64>(), 4),
        shift in 0usize..8,
    ) {
        let (bytes, table) = write(&ranges, &layout);
        let mut buf = vec![0u8; shift];
        buf.extend_from_slice(&bytes);
        let f = LidiaFile::parse(&buf[shift..]).unwrap();
        f.verify_checksums().unwrap();
        prop_assert_eq!(f.len(), table.len());
        // Go's writer always sorts; the reader only promises bounded lookups otherwise,
        // and `validate` reports the first entry out of order.
        let unsorted = (1..table.len()).find(|&i| table[i].va < table[i - 1].va);
        match unsorted {
            None => f.validate().unwrap(),
            Some(i) => {
                let e = f.validate().unwrap_err();
                let at = f.header().va.offset.get() + i as u64 * u64::from(f.va_size());
                prop_assert_eq!((e.section, e.offset), (symblob::lidia::section::VA, at));
                prop_assert_eq!(e.kind, symblob::ErrorKind::Unsorted);
            }
        }

        for (i, (r, m)) in f.ranges().zip(&table).enumerate() {
            prop_assert_eq!(r.index, i);
            prop_assert_eq!((r.va, r.length, r.depth, r.call_line), (m.va, m.length, m.depth, m.call_line));
            prop_assert_eq!((r.function.as_bytes(), r.file.as_bytes()), (&m.func[..], &m.file[..]));
            prop_assert_eq!(r.call_file.as_bytes(), &m.call_file[..]);
            let lines: Vec<_> = r.lines.iter().map(|e| (e.offset, e.line)).collect();
            prop_assert_eq!(&lines, &m.lines);
        }

        let mut addrs = extra;
        addrs.extend([0, 1, u64::MAX]);
        for r in &table {
            for d in [0u64, 1, r.length / 2, r.length.wrapping_sub(1), r.length] {
                addrs.push(r.va.wrapping_add(d));
            }
            addrs.push(r.va.wrapping_sub(1));
            for &(offset, _) in &r.lines {
                addrs.push(r.va.wrapping_add(offset));
                addrs.push(r.va.wrapping_add(offset).wrapping_sub(1));
            }
        }
        // Batched lookups answer what single ones answer, sorted or not.
        f.lookup_each(&addrs, |i, frames| assert!(frames.eq(f.lookup(addrs[i]))));
        f.lookup_function_each(&addrs, |i, function| {
            assert_eq!(function, f.lookup_function(addrs[i]));
        });
        for addr in addrs {
            let got: Vec<ModelFrame> = f
                .lookup(addr)
                .map(|fr| ModelFrame {
                    function: fr.function.to_vec(),
                    file: fr.file.to_vec(),
                    line: fr.line,
                    depth: fr.depth,
                    index: fr.range_index,
                    call_file: fr.call_file.to_vec(),
                    call_line: fr.call_line,
                })
                .collect();
            let fast = f.lookup_function(addr).map(|s| s.to_vec());
            prop_assert_eq!(&fast, &got.first().map(|m| m.function.clone()));
            if unsorted.is_none() {
                let want = model_lookup(&table, addr);
                prop_assert_eq!(&got, &want, "address {:#x}", addr);
                continue;
            }
            // Unsorted: whatever start the search picks, the walk keeps its rules.
            for (k, frame) in got.iter().enumerate() {
                let r = &table[frame.index];
                prop_assert!(r.va <= addr && addr < r.va.wrapping_add(r.length));
                prop_assert!(k == 0 || frame.index < got[k - 1].index);
                prop_assert!(k + 1 == got.len() || r.depth != 0);
            }
        }
    }
}
