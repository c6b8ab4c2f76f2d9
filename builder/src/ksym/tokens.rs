//! Token selection (D16, improved within v1): which name prefixes go into the token table.
//!
//! A v1 name record is either the raw name or `token[id] ‖ rest`, and the reader accepts
//! any token at the start of a name. So every prefix shared by two or more names (or a
//! name that occurs twice) is a candidate, as long as it ends on a UTF-8 character
//! boundary. The candidates are exactly the nodes of a compacted trie over the sorted
//! distinct names: extending a prefix until the set of names below it changes only adds
//! savings.
//!
//! A token of length `ℓ` costs `ℓ + 4` bytes (table bytes and index entry) and saves
//! `ℓ − c` bytes per name that uses it instead of no token, where `c` is 3 for ids below
//! 256 (`FF id FF`) and 4 above (`FF hi lo FF`). A name uses the deepest selected token
//! that is a prefix of it. Selection is greedy on real savings: the candidate with the
//! largest gain is taken, gains of the others are updated lazily (they only ever shrink),
//! and ties go to the smaller token bytes, so the result is deterministic. Afterwards
//! every token that does not pay for itself is dropped, and ids are assigned by
//! descending use count (ties by bytes), so the most used tokens get one-byte ids.

use std::cmp::Reverse;
use std::collections::BinaryHeap;

/// The largest token count the builder writes: ids 0..=510, never 511 (its long form
/// `FF 01 FF FF` is misread by the original reader).
pub const MAX_TOKENS: usize = 511;

/// Ids below this are written in the short form `FF id FF`.
pub(crate) const SHORT_IDS: usize = 256;

const NONE: u32 = u32::MAX;

/// The chosen tokens and which token each name uses.
pub(crate) struct Tokens<'a> {
    /// Token bytes in id order.
    pub table: Vec<&'a [u8]>,
    /// For each input name: `(id, token length)` of the token it starts with, if any.
    pub uses: Vec<Option<(u16, usize)>>,
}

impl Tokens<'_> {
    /// Stores the names at the name-order ranks marked in `whole` without a token.
    /// Tokens no name uses any more are removed and the others renumbered in their order
    /// (so a token can only move to a shorter id); the rest of the selection is kept, as
    /// a new selection without those names would trade bytes elsewhere for nothing.
    pub(crate) fn store_whole(&mut self, name_order: &[u32], whole: &[bool]) {
        for (&i, _) in name_order.iter().zip(whole).filter(|&(_, &w)| w) {
            if let Some(slot) = self.uses.get_mut(i as usize) {
                *slot = None;
            }
        }
        let mut used = vec![false; self.table.len()];
        for &(id, _) in self.uses.iter().flatten() {
            used[usize::from(id)] = true;
        }
        let mut new_id = vec![0u16; self.table.len()];
        let mut next = 0u16;
        for (id, &u) in used.iter().enumerate() {
            new_id[id] = next;
            next += u16::from(u);
        }
        let mut kept = used.iter();
        self.table.retain(|_| kept.next() == Some(&true));
        for (id, _) in self.uses.iter_mut().flatten() {
            *id = new_id[usize::from(*id)];
        }
    }
}

/// One node of the compacted trie: the prefix `names[rep][..depth]`.
struct Node {
    depth: usize,
    rep: u32,
    parent: u32,
    /// Names (with multiplicity) in this subtree.
    count: u64,
}

/// Selects at most `max_tokens` (≤ [`MAX_TOKENS`]) tokens for `names`, given in any order,
/// with `name_order` listing the indices of `names` in ascending name order.
pub(crate) fn select<'a>(names: &[&'a str], name_order: &[u32], max_tokens: usize) -> Tokens<'a> {
    let max_tokens = max_tokens.min(MAX_TOKENS);
    // Distinct names in ascending order, with multiplicity, and each name's distinct index.
    let mut distinct: Vec<(&'a [u8], u64)> = Vec::new();
    let mut distinct_of = vec![0u32; names.len()];
    for &i in name_order {
        let name = names[i as usize].as_bytes();
        match distinct.last_mut() {
            Some((last, n)) if *last == name => *n += 1,
            _ => distinct.push((name, 1)),
        }
        distinct_of[i as usize] = (distinct.len() - 1) as u32;
    }

    let (nodes, leaf_of) = build_trie(&distinct);
    // Pruning can free ids; refill them a few times, always ending with a prune so that
    // every token left pays for itself.
    let mut chosen = prune(
        &nodes,
        &distinct,
        &leaf_of,
        choose(&nodes, &distinct, max_tokens, &[]),
    );
    for _ in 0..3 {
        if chosen.len() >= max_tokens {
            break;
        }
        let kept: Vec<u32> = chosen.iter().map(|&(v, _)| v).collect();
        let refilled = choose(&nodes, &distinct, max_tokens, &kept);
        if refilled.len() == kept.len() {
            break;
        }
        chosen = prune(&nodes, &distinct, &leaf_of, refilled);
    }

    // Final ids: by use count, descending, then token bytes.
    let mut chosen: Vec<(u32, u64)> = chosen;
    chosen.sort_by(|a, b| {
        b.1.cmp(&a.1)
            .then_with(|| prefix(&nodes, &distinct, a.0).cmp(prefix(&nodes, &distinct, b.0)))
    });
    let mut id_of = vec![NONE; nodes.len()];
    for (id, &(node, _)) in chosen.iter().enumerate() {
        id_of[node as usize] = id as u32;
    }
    let table = chosen
        .iter()
        .map(|&(node, _)| prefix(&nodes, &distinct, node))
        .collect();
    let uses = distinct_of
        .iter()
        .map(|&d| {
            let node = covering(&nodes, &id_of, leaf_of[d as usize])?;
            Some((id_of[node as usize] as u16, nodes[node as usize].depth))
        })
        .collect();
    Tokens { table, uses }
}

/// The bytes of a node's prefix.
fn prefix<'a>(nodes: &[Node], distinct: &[(&'a [u8], u64)], node: u32) -> &'a [u8] {
    let n = &nodes[node as usize];
    &distinct[n.rep as usize].0[..n.depth]
}

/// The deepest node on the path from `from` (inclusive) to the root that is marked in
/// `mark` (any value other than [`NONE`]).
fn covering(nodes: &[Node], mark: &[u32], from: u32) -> Option<u32> {
    let mut v = from;
    while v != NONE {
        if mark[v as usize] != NONE {
            return Some(v);
        }
        v = nodes[v as usize].parent;
    }
    None
}

/// The largest `d ≤ limit` that is a character boundary of `name`.
fn floor_boundary(name: &[u8], limit: usize) -> usize {
    let mut d = limit.min(name.len());
    // A UTF-8 continuation byte (10xxxxxx) cannot start a character.
    while d > 0 && d < name.len() && name[d] & 0xC0 == 0x80 {
        d -= 1;
    }
    d
}

fn common_prefix(a: &[u8], b: &[u8]) -> usize {
    a.iter().zip(b).take_while(|(x, y)| x == y).count()
}

/// Builds the compacted trie of the sorted distinct names, with edge depths cut back to
/// character boundaries. Returns the nodes (node 0 is the root) and each name's node.
fn build_trie(distinct: &[(&[u8], u64)]) -> (Vec<Node>, Vec<u32>) {
    let mut nodes = vec![Node {
        depth: 0,
        rep: 0,
        parent: NONE,
        count: 0,
    }];
    let mut leaf_of = Vec::with_capacity(distinct.len());
    let mut stack: Vec<u32> = vec![0];
    for (i, &(name, mult)) in distinct.iter().enumerate() {
        let shared = match i.checked_sub(1) {
            Some(prev) => floor_boundary(name, common_prefix(distinct[prev].0, name)),
            None => 0,
        };
        let mut popped = NONE;
        while let Some(&top) = stack.last() {
            if nodes[top as usize].depth <= shared {
                break;
            }
            stack.pop();
            attach(&mut nodes, popped, top);
            popped = top;
        }
        let top = *stack.last().unwrap_or(&0);
        if nodes[top as usize].depth < shared {
            // A branching point that did not exist yet, between `top` and `popped`.
            let new = nodes.len() as u32;
            nodes.push(Node {
                depth: shared,
                rep: i as u32,
                parent: NONE,
                count: 0,
            });
            attach(&mut nodes, popped, new);
            stack.push(new);
        } else {
            attach(&mut nodes, popped, top);
        }
        let top = *stack.last().unwrap_or(&0);
        if nodes[top as usize].depth == name.len() {
            // Cannot happen for distinct sorted names, kept for robustness.
            nodes[top as usize].count += mult;
            leaf_of.push(top);
        } else {
            let leaf = nodes.len() as u32;
            nodes.push(Node {
                depth: name.len(),
                rep: i as u32,
                parent: NONE,
                count: mult,
            });
            stack.push(leaf);
            leaf_of.push(leaf);
        }
    }
    let mut popped = NONE;
    while let Some(top) = stack.pop() {
        attach(&mut nodes, popped, top);
        popped = top;
    }
    (nodes, leaf_of)
}

/// Makes `parent` the parent of `child` (if any) and adds the child's count to it. A
/// child is attached only once, after all of its own children.
fn attach(nodes: &mut [Node], child: u32, parent: u32) {
    if child == NONE {
        return;
    }
    nodes[child as usize].parent = parent;
    let count = nodes[child as usize].count;
    nodes[parent as usize].count += count;
}

/// Id cost in the record: 3 bytes for short ids, 4 for long ones.
fn id_cost(ids_taken: usize) -> i64 {
    if ids_taken < SHORT_IDS {
        3
    } else {
        4
    }
}

/// Greedy selection on real savings with lazy gain updates, starting from the nodes in
/// `initial` (taken first, in order). Returns the chosen nodes.
fn choose(
    nodes: &[Node],
    distinct: &[(&[u8], u64)],
    max_tokens: usize,
    initial: &[u32],
) -> Vec<u32> {
    // uncovered[v]: names below v not below a chosen node strictly inside v's subtree.
    let mut uncovered: Vec<u64> = nodes.iter().map(|n| n.count).collect();
    // saving[v]: per-name saving of chosen node v (NONE-like when not chosen).
    let mut saving: Vec<i64> = vec![i64::MIN; nodes.len()];

    let gain = |v: u32, uncovered: &[u64], saving: &[i64], taken: usize| -> i64 {
        let n = &nodes[v as usize];
        let mut base = 0i64;
        let mut a = n.parent;
        while a != NONE {
            if saving[a as usize] != i64::MIN {
                base = saving[a as usize].max(0);
                break;
            }
            a = nodes[a as usize].parent;
        }
        let per_name = n.depth as i64 - id_cost(taken) - base;
        (uncovered[v as usize] as i64).saturating_mul(per_name) - (n.depth as i64 + 4)
    };

    let mut chosen = Vec::new();
    let take = |v: u32, chosen: &mut Vec<u32>, uncovered: &mut [u64], saving: &mut [i64]| {
        let n = &nodes[v as usize];
        saving[v as usize] = n.depth as i64 - id_cost(chosen.len());
        let newly = uncovered[v as usize];
        let mut a = n.parent;
        while a != NONE {
            uncovered[a as usize] -= newly;
            if saving[a as usize] != i64::MIN {
                break;
            }
            a = nodes[a as usize].parent;
        }
        chosen.push(v);
    };
    for &v in initial.iter().take(max_tokens) {
        take(v, &mut chosen, &mut uncovered, &mut saving);
    }

    // Heap entries: (gain, smaller bytes first, node). The bytes order is a rank computed
    // once, so that ties are broken by token bytes.
    let mut ranked: Vec<u32> = (1..nodes.len() as u32)
        .filter(|&v| nodes[v as usize].count >= 2 && saving[v as usize] == i64::MIN)
        .collect();
    ranked.sort_by(|&a, &b| prefix(nodes, distinct, a).cmp(prefix(nodes, distinct, b)));
    let mut rank = vec![0u32; nodes.len()];
    for (r, &v) in ranked.iter().enumerate() {
        rank[v as usize] = r as u32;
    }
    let mut heap: BinaryHeap<(i64, Reverse<u32>, u32)> = ranked
        .iter()
        .map(|&v| {
            (
                gain(v, &uncovered, &saving, chosen.len()),
                Reverse(rank[v as usize]),
                v,
            )
        })
        .filter(|e| e.0 > 0)
        .collect();

    while chosen.len() < max_tokens {
        let Some((stored, r, v)) = heap.pop() else {
            break;
        };
        let current = gain(v, &uncovered, &saving, chosen.len());
        if current != stored {
            // Gains only shrink; re-queue with the fresh value and look again.
            if current > 0 {
                heap.push((current, r, v));
            }
            continue;
        }
        // `current` is at least every other (stale, hence optimistic) gain: take it.
        take(v, &mut chosen, &mut uncovered, &mut saving);
    }
    chosen
}

/// Drops tokens that do not pay for their table entry under their final ids, until every
/// remaining token saves bytes. Returns `(node, names using it)` pairs.
fn prune(
    nodes: &[Node],
    distinct: &[(&[u8], u64)],
    leaf_of: &[u32],
    mut chosen: Vec<u32>,
) -> Vec<(u32, u64)> {
    loop {
        let mut mark = vec![NONE; nodes.len()];
        for &v in &chosen {
            mark[v as usize] = 0;
        }
        let mut uses = vec![0u64; nodes.len()];
        for (d, &leaf) in leaf_of.iter().enumerate() {
            if let Some(v) = covering(nodes, &mark, leaf) {
                uses[v as usize] += distinct[d].1;
            }
        }
        let mut by_use: Vec<u32> = chosen.clone();
        by_use.sort_by(|&a, &b| {
            uses[b as usize]
                .cmp(&uses[a as usize])
                .then_with(|| prefix(nodes, distinct, a).cmp(prefix(nodes, distinct, b)))
        });
        let mut cost = vec![0i64; nodes.len()];
        for (id, &v) in by_use.iter().enumerate() {
            cost[v as usize] = id_cost(id);
        }
        let keep: Vec<u32> = by_use
            .iter()
            .copied()
            .filter(|&v| {
                let n = &nodes[v as usize];
                let fallback = match covering(nodes, &mark, n.parent) {
                    Some(a) => (nodes[a as usize].depth as i64 - cost[a as usize]).max(0),
                    None => 0,
                };
                let per_name = n.depth as i64 - cost[v as usize] - fallback;
                let net = (uses[v as usize] as i64).saturating_mul(per_name) - (n.depth as i64 + 4);
                uses[v as usize] >= 2 && per_name > 0 && net > 0
            })
            .collect();
        if keep.len() == chosen.len() {
            return by_use.into_iter().map(|v| (v, uses[v as usize])).collect();
        }
        chosen = keep;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn run(names: &[&'static str]) -> (Vec<String>, Vec<Option<(u16, usize)>>) {
        let mut order: Vec<u32> = (0..names.len() as u32).collect();
        order.sort_by(|&a, &b| names[a as usize].cmp(names[b as usize]));
        let t = select(names, &order, MAX_TOKENS);
        let table = t
            .table
            .iter()
            .map(|b| String::from_utf8(b.to_vec()).unwrap())
            .collect();
        (table, t.uses)
    }

    #[test]
    fn shared_prefix_becomes_a_token() {
        let names = [
            "modtest_0001_drivers_net_phy_irq_handler_probe",
            "modtest_0001_drivers_net_phy_irq_handler_remove",
            "modtest_0001_drivers_net_phy_irq_handler_isr",
            "short",
        ];
        let (table, uses) = run(&names);
        assert_eq!(table, vec!["modtest_0001_drivers_net_phy_irq_handler_"]);
        assert_eq!(uses[0], Some((0, 41)));
        assert_eq!(uses[3], None);
    }

    #[test]
    fn no_single_use_or_unprofitable_tokens() {
        let (table, _) = run(&["abcdefghijklmnop", "zzzzzzzzzzzzzzzzzzz", "ab_x", "ab_y"]);
        assert!(table.is_empty(), "{table:?}");
    }

    #[test]
    fn tokens_end_on_char_boundaries() {
        let names = [
            "näää_one_long_suffix",
            "näää_one_long_suffiy",
            "näää_one_long_suffiz",
        ];
        let (table, _) = run(&names);
        for t in &table {
            assert!(names.iter().all(|n| n.is_char_boundary(t.len())));
        }
    }

    #[test]
    fn never_more_than_511_tokens() {
        let owned: Vec<String> = (0..2000)
            .flat_map(|i| {
                ["_alpha", "_beta"].map(|s| format!("prefix_{i:05}_shared_long_enough_part{s}"))
            })
            .collect();
        let names: Vec<&str> = owned.iter().map(|s| s.as_str()).collect();
        let mut order: Vec<u32> = (0..names.len() as u32).collect();
        order.sort_by(|&a, &b| names[a as usize].cmp(names[b as usize]));
        let t = select(&names, &order, MAX_TOKENS);
        assert!(t.table.len() <= MAX_TOKENS);
        assert!(t.uses.iter().flatten().all(|&(id, _)| id < 511));
    }
}
