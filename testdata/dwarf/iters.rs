//! Test program for the DWARF builder: iterators, closures and generics, inlined by rustc.
use std::collections::BTreeMap;

#[inline(never)]
fn word_lengths(text: &str) -> BTreeMap<usize, usize> {
    let mut m = BTreeMap::new();
    for w in text.split_whitespace() {
        *m.entry(w.len()).or_insert(0) += 1;
    }
    m
}

#[inline(never)]
fn weighted<T: Copy + Into<u64>>(v: &[T], f: impl Fn(u64) -> u64) -> u64 {
    v.iter().enumerate().map(|(i, &x)| f(x.into()) * (i as u64 + 1)).sum()
}

/// A generic value whose `Clone` is not inlined: legacy mangling names it
/// `<iters::Tagged<T> as core::clone::Clone>::clone`, with `..clone..` in the symbol.
struct Tagged<T> {
    tag: u32,
    items: Vec<T>,
}

impl<T: Clone> Clone for Tagged<T> {
    #[inline(never)]
    fn clone(&self) -> Self {
        Tagged { tag: self.tag + 1, items: self.items.clone() }
    }
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let n: u32 = args.get(1).and_then(|s| s.parse().ok()).unwrap_or(10);
    let data: Vec<u32> = (0..n).map(|i| i.wrapping_mul(2654435761) % 97).collect();
    let w = weighted(&data, |x| x * x + 1);
    let text = "the quick brown fox jumps over the lazy dog again and again";
    let m = word_lengths(text);
    let mut sorted = data.clone();
    sorted.sort_unstable_by(|a, b| b.cmp(a));
    let tagged = std::hint::black_box(&Tagged { tag: n, items: sorted }).clone();
    let words = Tagged { tag: 0, items: text.split(' ').collect::<Vec<_>>() };
    let words = std::hint::black_box(&words).clone();
    let top = &tagged.items[..3.min(tagged.items.len())];
    println!("{w} {:?} {:?} {} {}", m, top, tagged.tag, words.items.len());
}
