//! Names stored whole because the name search compares them first.
//!
//! Every `lookup_name` without an index compares the query with a name from each of the
//! search's first rounds ([`name_probe_ranks`]), and a name that starts with a token costs
//! such a comparison two more dependent reads than a raw one. The first rounds hold few
//! names (3, 15, 63, … 4^r − 1), so storing them raw speeds up every lookup for a few
//! bytes. On Linux's text symbols, six rounds (4,095 names) take 14 % off a lookup for
//! 0.8 % more bytes. Any reader reads the blob as before: a raw record is always allowed.

use symblob::ksym::{name_probe_ranks, MAX_PROBE_ROUNDS};

use super::tokens::{Tokens, SHORT_IDS};

/// Which names the builder stores without a token because the name search compares them
/// first (see [`symblob::ksym::name_probe_ranks`]).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum WholeSearchNames {
    /// As many search rounds as cost at most [`AUTO_BUDGET_PERCENT`] of the blob's
    /// bytes (the default).
    #[default]
    Auto,
    /// The names of the first N rounds (0: none), whatever they cost.
    Rounds(usize),
}

/// The share of the blob that [`WholeSearchNames::Auto`] may spend, in percent.
pub const AUTO_BUDGET_PERCENT: u64 = 1;

/// For each name-order rank, whether its name is stored whole, and the number of search
/// rounds that covers (no more than the search has). `names` are the symbols' names in
/// address order, `seqs` the name-order permutation and `tokens` the selection made
/// without whole names.
pub(crate) fn whole_ranks(
    choice: WholeSearchNames,
    names: &[&str],
    seqs: &[u32],
    tokens: &Tokens<'_>,
) -> (Vec<bool>, usize) {
    // Each probed rank's round, and the cost of each round: what its names lose when
    // stored raw, their token's length less the reference's bytes.
    let mut round_of = vec![0usize; seqs.len()];
    let mut cost = [0u64; MAX_PROBE_ROUNDS + 1];
    let mut deepest = 0;
    name_probe_ranks(seqs.len(), MAX_PROBE_ROUNDS, |rank, round| {
        deepest = deepest.max(round);
        if let Some(r) = round_of.get_mut(rank) {
            *r = round;
        }
        let use_of = seqs
            .get(rank)
            .and_then(|&i| tokens.uses.get(i as usize).copied().flatten());
        if let (Some((id, len)), Some(c)) = (use_of, cost.get_mut(round)) {
            *c += (len as u64).saturating_sub(reference_bytes(id));
        }
    });
    let rounds = match choice {
        WholeSearchNames::Rounds(r) => r.min(deepest),
        WholeSearchNames::Auto => {
            let budget = blob_estimate(names, tokens) * AUTO_BUDGET_PERCENT / 100;
            let mut spent = 0u64;
            cost.iter()
                .take(deepest + 1)
                .skip(1)
                .take_while(|&&c| {
                    spent += c;
                    spent <= budget
                })
                .count()
        }
    };
    let whole = round_of
        .iter()
        .map(|&r| (1..=rounds).contains(&r))
        .collect();
    (whole, rounds)
}

/// Bytes of a token reference: `FF id FF` or `FF hi lo FF`.
fn reference_bytes(id: u16) -> u64 {
    if usize::from(id) < SHORT_IDS {
        3
    } else {
        4
    }
}

/// The blob's size with this token selection, up to its few bytes of header and padding:
/// the tables (16 bytes a symbol), the records and the token table and index.
fn blob_estimate(names: &[&str], tokens: &Tokens<'_>) -> u64 {
    let records: u64 = names
        .iter()
        .zip(&tokens.uses)
        .map(|(name, use_of)| {
            let payload = match *use_of {
                Some((id, len)) => name.len().saturating_sub(len) as u64 + reference_bytes(id),
                None => name.len() as u64,
            };
            16 + 3 + payload
        })
        .sum();
    let table: u64 = tokens.table.iter().map(|t| t.len() as u64 + 4).sum();
    records + table
}
