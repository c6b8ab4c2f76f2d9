//! `GsymFile::inline_nodes`: the whole inline tree of a function, node by node. On trees
//! put together here the walk gives the nodes as written; at the depth limit it stops
//! with an error at the offending node; on the files `llvm-gsymutil-14 --convert` writes,
//! the chain of every sampled address, worked out from the walked nodes by the rules of
//! `docs/formats/gsym.md` §7.2, names the frames our lookup answers (which the other
//! tests hold equal to `llvm-gsymutil-14`'s).

use symblob::gsym::{section, GsymFile, InlineRange, MAX_INLINE_DEPTH};
use symblob::ErrorKind;

use super::oracle::gsym_fixture;
use super::sample_addresses;
use super::tiny::{gsym, nested_calls, node, uleb, Func, INL, MAIN};

/// A walked node: depth, ranges, name, call file, call line, has children.
type Walked = (usize, Vec<InlineRange>, String, u32, u32, bool);

fn walk(file: &GsymFile<'_>, index: usize) -> Result<Vec<Walked>, symblob::Error> {
    let function = file.function(index)?;
    let Some(nodes) = file.inline_nodes(&function)? else {
        return Ok(Vec::new());
    };
    nodes
        .map(|n| {
            n.map(|n| {
                assert_eq!(n.ranges.remaining(), n.range_count);
                (
                    n.depth,
                    n.ranges.collect(),
                    n.name.to_string(),
                    n.call_file,
                    n.call_line,
                    n.has_children,
                )
            })
        })
        .collect()
}

fn range(start: u64, end: u64) -> InlineRange {
    InlineRange { start, end }
}

#[test]
fn gsym_inline_nodes_walk_every_node_in_order() {
    // Root [0x1000, 0x1040) → A with two ranges (+4..+8, +0x10..+0x18) → B under A's
    // first range start; then C, a sibling of A.
    let b = node(2, 1, INL, 7, None);
    let mut a = uleb(2);
    for v in [4, 4, 0x10, 8] {
        a.extend(uleb(v));
    }
    a.push(1);
    a.extend(INL.to_le_bytes());
    a.extend([1, 5]); // call file 1, call line 5
    a.extend(b);
    a.push(0);
    let c = node(0x20, 0x10, MAIN, 9, None);
    let mut children = a;
    children.extend(c);
    let tree = node(0, 0x40, MAIN, 0, Some(children));
    let bytes = gsym(&[
        Func {
            start: 0x1000,
            size: 0x40,
            name: MAIN,
            chunks: vec![(2, tree)],
        },
        Func {
            start: 0x2000,
            size: 0x10,
            name: MAIN,
            chunks: vec![],
        },
    ]);
    let file = GsymFile::parse(&bytes).unwrap();
    file.validate().unwrap();
    let walked = walk(&file, 0).unwrap();
    let expected: Vec<Walked> = vec![
        (0, vec![range(0x1000, 0x1040)], "main".into(), 0, 0, true),
        (
            1,
            vec![range(0x1004, 0x1008), range(0x1010, 0x1018)],
            "inl".into(),
            1,
            5,
            true,
        ),
        (2, vec![range(0x1006, 0x1007)], "inl".into(), 1, 7, false),
        (1, vec![range(0x1020, 0x1030)], "main".into(), 1, 9, false),
    ];
    assert_eq!(walked, expected);
    // A function without an inline chunk has no tree.
    let plain = file.function(1).unwrap();
    assert!(file.inline_nodes(&plain).unwrap().is_none());
}

#[test]
fn gsym_inline_nodes_stop_at_the_depth_limit_with_the_offset() {
    let file = |depth| {
        gsym(&[Func {
            start: 0x1000,
            size: 0x100,
            name: MAIN,
            chunks: vec![(2, nested_calls(depth))],
        }])
    };
    let within = file(MAX_INLINE_DEPTH);
    let parsed = GsymFile::parse(&within).unwrap();
    let walked = walk(&parsed, 0).unwrap();
    assert_eq!(walked.len(), MAX_INLINE_DEPTH);
    for (level, n) in walked.iter().enumerate() {
        assert_eq!(n.0, level);
        assert_eq!(n.1, [range(0x1000 + level as u64, 0x1100)]);
    }

    let beyond = file(MAX_INLINE_DEPTH + 1);
    let parsed = GsymFile::parse(&beyond).unwrap();
    let function = parsed.function(0).unwrap();
    let mut nodes = parsed.inline_nodes(&function).unwrap().unwrap();
    let mut last_offset = 0;
    for level in 0..MAX_INLINE_DEPTH - 1 {
        let n = nodes.next().unwrap().unwrap();
        assert_eq!(n.depth, level);
        last_offset = n.offset;
    }
    let e = nodes.next().unwrap().unwrap_err();
    assert_eq!(e.section, section::INLINE);
    assert!(matches!(e.kind, ErrorKind::Malformed(m) if m.contains("deeper")));
    // The node that would open a list too deep, right after the last one given: count,
    // offset, a two-byte size, the flag, the name, call file and call line: 11 bytes.
    assert_eq!(e.offset, last_offset + 11, "{e}");
    assert!(nodes.next().is_none(), "the walk ends after its error");

    // A cut tree: an error, then the end.
    let mut cut = nested_calls(3);
    cut.truncate(cut.len() - 4);
    let bytes = gsym(&[Func {
        start: 0x1000,
        size: 0x100,
        name: MAIN,
        chunks: vec![(2, cut)],
    }]);
    let parsed = GsymFile::parse(&bytes).unwrap();
    let e = walk(&parsed, 0).unwrap_err();
    assert_eq!(e.section, section::INLINE);
}

/// The nodes of the chain covering `addr` (`docs/formats/gsym.md` §7.2): the root if it
/// covers it, then in each covering node's children the first that covers it.
fn chain(nodes: &[Walked], addr: u64) -> Vec<&Walked> {
    let covers = |n: &Walked| n.1.iter().any(|r| r.start <= addr && addr < r.end);
    let mut out: Vec<&Walked> = Vec::new();
    let mut looking = 0;
    for n in nodes {
        if n.0 < looking {
            break; // the list searched ended without a covering child
        }
        if n.0 > looking {
            continue; // inside a subtree skipped
        }
        if !covers(n) {
            if looking == 0 {
                break;
            }
            continue;
        }
        out.push(n);
        if !n.5 {
            break;
        }
        looking += 1;
    }
    out
}

fn llvm_trees_name_the_lookups_frames(name: &str) {
    let Some(path) = gsym_fixture(name) else {
        return;
    };
    let bytes = std::fs::read(path).expect("read gsym");
    let file = GsymFile::parse(&bytes).unwrap();
    let trees: Vec<Vec<Walked>> = (0..file.len())
        .map(|i| walk(&file, i).expect("LLVM's trees walk"))
        .collect();
    let nodes: usize = trees.iter().map(Vec::len).sum();
    assert!(nodes > file.len() / 4, "{name}: {nodes} nodes");
    let (mut compared, mut inlined) = (0, 0);
    for addr in sample_addresses(&file, 64, 0x6e6f_6465) {
        let Ok(Some(found)) = file.lookup(addr) else {
            continue;
        };
        if found.row.is_none() {
            continue;
        }
        let tree = &trees[found.function.index];
        // Innermost first: the chain's nodes with a call file, deepest first, then the
        // function; each outer frame's line is the call line of the frame inside it.
        let mut want: Vec<(String, u32)> = Vec::new();
        let mut line = found.row.map_or(0, |r| r.line);
        for n in chain(tree, addr).iter().rev() {
            let entry = file.file(n.3).unwrap();
            if entry.dir.is_empty() && entry.base.is_empty() {
                continue;
            }
            want.push((n.2.clone(), line));
            line = n.4;
        }
        want.push((found.function.name.to_string(), line));
        let got: Vec<(String, u32)> = found
            .frames()
            .map(|f| (f.name.to_string(), f.line))
            .collect();
        assert_eq!(got, want, "{name} {addr:#x}");
        compared += 1;
        inlined += want.len() - 1;
    }
    assert!(compared > 300 && inlined > 0, "{name}: {compared} compared");
}

#[test]
fn gsym_inline_nodes_name_the_frames_of_gcc_c() {
    llvm_trees_name_the_lookups_frames("c-gcc");
}

#[test]
fn gsym_inline_nodes_name_the_frames_of_clang_cpp() {
    llvm_trees_name_the_lookups_frames("cpp-clang");
}

#[test]
fn gsym_inline_nodes_name_the_frames_of_gxx_cpp() {
    llvm_trees_name_the_lookups_frames("cpp-gxx");
}
