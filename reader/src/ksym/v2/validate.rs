//! `Blob::validate`: every rule of the spec (section 5), in O(N·(R + G)) without memory
//! beyond a few words.

use core::cmp::Ordering;

use super::blob::{ceil_shift, Blob};
use super::header::err;
use super::name::Name;
use crate::{Error, ErrorKind};

impl Blob<'_> {
    /// Checks everything the spec requires beyond the layout `open` checks: the code and
    /// type tables, the address blocks (sorted addresses), `a2n` and `n2a` (a permutation,
    /// consistent), every name entry (well formed, exact shared lengths, restarts and their
    /// keys), names strictly in name order (equal names by address), and zero padding.
    /// Errors name the segment and the byte offset of the first entry at fault.
    pub fn validate(&self) -> Result<(), Error> {
        self.validate_tables()?;
        self.validate_addresses()?;
        self.validate_links()?;
        self.validate_names()?;
        self.validate_hash()?;
        self.validate_padding()
    }

    fn validate_tables(&self) -> Result<(), Error> {
        let types = self.types();
        if let Some(k) = types.windows(2).position(|w| w.first() >= w.get(1)) {
            let at = u64::from(self.g.types)
                .wrapping_add(k as u64)
                .wrapping_add(1);
            return Err(err("types", at, ErrorKind::Unsorted));
        }
        let mut previous_end = 0usize;
        for c in 0..=255u8 {
            let k = usize::from(c).wrapping_mul(2);
            let at = u64::from(self.g.token_ends).wrapping_add(k as u64);
            let ends = self.segment(self.g.token_ends, self.g.token_bytes);
            let end = ends
                .get(k..k.wrapping_add(2))
                .and_then(|b| <[u8; 2]>::try_from(b).ok())
                .map_or(0, |b| usize::from(u16::from_le_bytes(b)));
            if end < previous_end {
                return Err(err("token_ends", at, ErrorKind::Unsorted));
            }
            if end.wrapping_sub(previous_end) > 255 {
                let kind = ErrorKind::OutOfRange {
                    value: end.wrapping_sub(previous_end) as u64,
                    limit: 255,
                };
                return Err(err("token_ends", at, kind));
            }
            previous_end = end;
        }
        Ok(())
    }

    fn validate_addresses(&self) -> Result<(), Error> {
        let data = self.segment(self.g.addr_data, self.g.a2n);
        let blocks = self.address_blocks();
        let positions_at = u64::from(self.g.addr_blocks)
            .wrapping_add((blocks as u64).wrapping_mul(u64::from(self.g.first_bytes)));
        let mut previous = 0u64;
        for j in 0..blocks {
            let first_at = u64::from(self.g.addr_blocks)
                .wrapping_add((j as u64).wrapping_mul(u64::from(self.g.first_bytes)));
            let pos_at = positions_at.wrapping_add((j as u64).wrapping_mul(4));
            let block = self.block_data(j);
            // The width byte must be inside `addr_data`, its value at most 64, and the
            // offsets must end inside `addr_data` too.
            let count = self.block_len(j).saturating_sub(1) as u64;
            let needed = count.wrapping_mul(u64::from(block.width)).div_ceil(8);
            let raw_width = self.raw_block_width(j);
            match raw_width {
                None => {
                    let kind = ErrorKind::OutOfRange {
                        value: 0,
                        limit: data.len() as u64,
                    };
                    return Err(err("addr_blocks", pos_at, kind));
                }
                Some(w) if w > 64 => {
                    let kind = ErrorKind::OutOfRange {
                        value: u64::from(w),
                        limit: 64,
                    };
                    return Err(err("addr_data", pos_at, kind));
                }
                Some(_) if needed > self.block_room(j) => {
                    let kind = ErrorKind::Truncated {
                        needed,
                        available: self.block_room(j),
                    };
                    return Err(err("addr_data", pos_at, kind));
                }
                Some(_) => {}
            }
            let first = self.first(j);
            if (j == 0 && first != 0) || first < previous {
                return Err(err("addr_blocks", first_at, ErrorKind::Unsorted));
            }
            previous = first;
            for k in 0..usize::try_from(count).unwrap_or(0) {
                let offset = first.checked_add(block.get(k));
                let Some(offset) = offset.filter(|&o| o >= previous) else {
                    return Err(err("addr_data", pos_at, ErrorKind::Unsorted));
                };
                previous = offset;
            }
        }
        if self.g.base.checked_add(previous).is_none() {
            return Err(err("base", 16, ErrorKind::Overflow));
        }
        Ok(())
    }

    fn validate_links(&self) -> Result<(), Error> {
        let n = self.len();
        let groups = ceil_shift(n, self.g.group_shift) as u64;
        let a2n = self.a2n();
        let type_mask = 1u64.wrapping_shl(self.g.type_bits).wrapping_sub(1);
        let a2n_at = |i: usize| {
            u64::from(self.g.a2n).wrapping_add((i as u64).wrapping_mul(u64::from(a2n.width)) / 8)
        };
        for i in 0..n {
            let value = a2n.get(i);
            let kind = value & type_mask;
            let group = value.wrapping_shr(self.g.type_bits);
            if kind >= self.types().len() as u64 {
                let kind = ErrorKind::OutOfRange {
                    value: kind,
                    limit: self.types().len() as u64,
                };
                return Err(err("a2n", a2n_at(i), kind));
            }
            if group >= groups {
                let kind = ErrorKind::OutOfRange {
                    value: group,
                    limit: groups,
                };
                return Err(err("a2n", a2n_at(i), kind));
            }
        }
        let n2a = self.n2a();
        let n2a_at = |r: usize| {
            u64::from(self.g.n2a).wrapping_add((r as u64).wrapping_mul(u64::from(n2a.width)) / 8)
        };
        let group_size = 1usize.wrapping_shl(self.g.group_shift);
        for r in 0..n {
            let index = n2a.get(r);
            if index >= n as u64 {
                let kind = ErrorKind::OutOfRange {
                    value: index,
                    limit: n as u64,
                };
                return Err(err("n2a", n2a_at(r), kind));
            }
            let index = usize::try_from(index).unwrap_or(usize::MAX);
            let group = a2n.get(index).wrapping_shr(self.g.type_bits);
            let expected = r.wrapping_shr(self.g.group_shift) as u64;
            if group != expected {
                let kind = ErrorKind::Mismatch {
                    expected,
                    found: group,
                };
                return Err(err("a2n", a2n_at(index), kind));
            }
            // Within a group the indices are distinct: with the group check above, `n2a`
            // is then one-to-one, so a permutation.
            let group_start = r & !group_size.wrapping_sub(1);
            if (group_start..r).any(|earlier| n2a.get(earlier) == index as u64) {
                let kind = ErrorKind::Malformed("n2a repeats an index");
                return Err(err("n2a", n2a_at(r), kind));
            }
        }
        Ok(())
    }

    fn validate_names(&self) -> Result<(), Error> {
        let n = self.len();
        let names_at = |at: usize| u64::from(self.g.names).wrapping_add(at as u64);
        let restart_mask = 1usize.wrapping_shl(self.g.restart_shift).wrapping_sub(1);
        let mut at = 0usize;
        let mut previous_len = 0u64;
        let (entries, table) = (self.entries(), self.code_table());
        for rank in 0..n {
            let restart = rank & restart_mask == 0;
            if restart && self.restart_pos(rank.wrapping_shr(self.g.restart_shift)) != at {
                let kind = ErrorKind::Mismatch {
                    expected: at as u64,
                    found: self.restart_pos(rank.wrapping_shr(self.g.restart_shift)) as u64,
                };
                return Err(err("restart_pos", u64::from(self.g.restart_pos), kind));
            }
            let head = entries
                .head(at)
                .ok_or_else(|| err("names", names_at(at), ErrorKind::Malformed("bad entry")))?;
            let codes = self.codes(&head);
            if let Some(k) = codes.iter().position(|&c| table.string(c).is_empty()) {
                let kind = ErrorKind::Malformed("unused code in a name");
                return Err(err("names", names_at(head.codes.wrapping_add(k)), kind));
            }
            if (restart && head.lcp != 0) || head.lcp > previous_len {
                let kind = ErrorKind::OutOfRange {
                    value: head.lcp,
                    limit: if restart { 0 } else { previous_len },
                };
                return Err(err("names", names_at(at), kind));
            }
            if rank > 0 {
                self.check_order(rank, &head)
                    .map_err(|kind| err("names", names_at(at), kind))?;
            }
            if restart {
                self.check_key(rank)?;
            }
            previous_len = head.lcp.wrapping_add(self.expanded_len(&head));
            at = head.next();
        }
        if at != self.names().len() {
            let kind = ErrorKind::Mismatch {
                expected: self.names().len() as u64,
                found: at as u64,
            };
            return Err(err("names", names_at(at), kind));
        }
        Ok(())
    }

    /// Checks that the name at `rank` follows the one before it: shares exactly `lcp`
    /// bytes with it and sorts after it (equal names by address-order index).
    fn check_order(&self, rank: usize, head: &super::entries::Head) -> Result<(), ErrorKind> {
        let previous = Name::of_rank(*self, rank.wrapping_sub(1));
        let order = if head.lcp == 0 {
            // A restart (or a name sharing nothing): its codes are the whole name.
            previous.cmp_codes(head)
        } else {
            let theirs = previous.byte_at(head.lcp);
            let ours = self
                .codes(head)
                .first()
                .and_then(|&c| self.code(c).first().copied());
            match (theirs, ours) {
                (Some(a), Some(b)) if a == b => {
                    return Err(ErrorKind::Malformed("shared length is not exact"))
                }
                (a, b) => a.cmp(&b),
            }
        };
        match order {
            Ordering::Less => Ok(()),
            Ordering::Greater => Err(ErrorKind::Unsorted),
            Ordering::Equal => {
                let (a, b) = (
                    self.index_of_rank(rank.wrapping_sub(1)),
                    self.index_of_rank(rank),
                );
                if a < b {
                    Ok(())
                } else {
                    Err(ErrorKind::Unsorted)
                }
            }
        }
    }

    /// Checks restart `rank / R`'s key against its name.
    fn check_key(&self, rank: usize) -> Result<(), Error> {
        let m = rank.wrapping_shr(self.g.restart_shift);
        let mut key = [0u8; 8];
        let mut filled = 0usize;
        Name::of_rank(*self, rank).for_each_chunk(|chunk| {
            for (k, b) in key.iter_mut().skip(filled).zip(chunk) {
                *k = *b;
                filled = filled.wrapping_add(1);
            }
            filled < key.len()
        });
        let found = self.restart_key(m);
        let expected = u64::from_be_bytes(key);
        if found != expected {
            let at = u64::from(self.g.restart_keys).wrapping_add((m as u64).wrapping_mul(8));
            return Err(err(
                "restart_keys",
                at,
                ErrorKind::Mismatch { expected, found },
            ));
        }
        Ok(())
    }

    /// The name hash index (spec 4.5): bucket starts from 0 to N, non-decreasing; ranks
    /// below N and increasing within each bucket; and every rank found in the bucket of
    /// its name's hash with its fingerprint. Each rank is then in exactly one entry (its
    /// bucket holds it once, no other bucket can), so the N entries are a permutation.
    fn validate_hash(&self) -> Result<(), Error> {
        if !self.has_name_hash() {
            return Ok(());
        }
        let n = self.len();
        let starts = self.hash_starts();
        let entries = self.hash_entries();
        let starts_at = |k: usize| {
            u64::from(self.g.hash_starts)
                .wrapping_add((k as u64).wrapping_mul(u64::from(starts.width)) / 8)
        };
        let entries_at = |e: usize| {
            u64::from(self.g.hash_entries)
                .wrapping_add((e as u64).wrapping_mul(u64::from(entries.width)) / 8)
        };
        let buckets = 1usize.wrapping_shl(self.g.hash_bits);
        let mut previous = 0u64;
        for k in 0..=buckets {
            let start = starts.get(k);
            let bad = if k == 0 {
                start != 0
            } else {
                start < previous || (k == buckets && start != n as u64)
            };
            if bad {
                let kind = ErrorKind::Mismatch {
                    expected: if k == buckets { n as u64 } else { previous },
                    found: start,
                };
                return Err(err("hash_starts", starts_at(k), kind));
            }
            previous = start;
        }
        for bucket in 0..buckets {
            let mut last: Option<u64> = None;
            for e in self.bucket_entries(bucket) {
                let rank = entries.get(e).wrapping_shr(super::header::FINGERPRINT_BITS);
                if rank >= n as u64 || last.is_some_and(|l| rank <= l) {
                    return Err(err("hash_entries", entries_at(e), ErrorKind::Unsorted));
                }
                last = Some(rank);
            }
        }
        for rank in 0..n {
            let slot = self.slot_of(self.hash_of_rank(rank));
            let range = self.bucket_entries(slot.bucket);
            let [at] =
                crate::partition::partition_points_by(range.len(), &[rank as u64], |d, &r| {
                    entries
                        .get(range.start.wrapping_add(d))
                        .wrapping_shr(super::header::FINGERPRINT_BITS)
                        < r
                });
            let e = range.start.wrapping_add(at);
            let value = entries.get(e);
            let found = at < range.len()
                && value.wrapping_shr(super::header::FINGERPRINT_BITS) == rank as u64;
            if !found {
                let kind = ErrorKind::Malformed("a name is not in its hash bucket");
                return Err(err("hash_entries", entries_at(range.start), kind));
            }
            if value & 0xFF != slot.fingerprint {
                let kind = ErrorKind::Mismatch {
                    expected: slot.fingerprint,
                    found: value & 0xFF,
                };
                return Err(err("hash_entries", entries_at(e), kind));
            }
        }
        Ok(())
    }

    fn validate_padding(&self) -> Result<(), Error> {
        let padding = self.input.get(self.bytes.len()..).unwrap_or_default();
        match padding.iter().position(|&b| b != 0) {
            Some(k) => {
                let at = (self.bytes.len() as u64).wrapping_add(k as u64);
                Err(err(
                    "padding",
                    at,
                    ErrorKind::Malformed("non-zero byte after the blob"),
                ))
            }
            None => Ok(()),
        }
    }
}
