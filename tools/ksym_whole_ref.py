#!/usr/bin/env python3
"""Reference model of `symblob ksym build --whole-search-names`.

Takes a ksym-bin blob built with `--whole-search-names 0` and rewrites it the way the
builder stores the names that the name search compares first:

* the search is the reader's 4-ary lower bound: over [lo, hi) with hi - lo > 4 it probes
  lo + j*step (step = (hi - lo) // 4, j = 1..3) and goes on in [lo, p1], [p1+1, p2],
  [p2+1, p3] or [p3+1, hi]; the names it can probe in its first R rounds are stored raw;
* tokens that no name uses any more are removed and the others renumbered in their
  order (a token can only move to a shorter id);
* `auto` takes as many rounds as cost at most 1 % of the blob: a round costs, for every
  tokened name it stores raw, the token's length less its reference (3 bytes below id
  256, else 4); the blob is counted as 16 bytes a symbol, its records and 4 bytes plus
  the bytes of every token.

Usage: ksym_whole_ref.py IN OUT ROUNDS|auto [plain|sized]
Prints the rounds used.
"""

import struct
import sys


def align(x, a):
    return (x + a - 1) & ~(a - 1)


def parse(blob, base):
    n = struct.unpack_from('<Q', blob, base)[0]
    o_addr = base + 8
    o_offs = o_addr + 8 * n
    o_seqs = o_offs + 4 * n
    o_len = o_seqs + 4 * n
    names_len = struct.unpack_from('<Q', blob, o_len)[0]
    o_names = o_len + 8
    o_tlen = base + align(o_names - base + names_len, 8)
    tlen = struct.unpack_from('<Q', blob, o_tlen)[0]
    o_table = o_tlen + 8
    o_klen = base + align(o_table - base + tlen, 8)
    k = struct.unpack_from('<Q', blob, o_klen)[0]
    index = struct.unpack_from('<%dI' % k, blob, o_klen + 8)
    table = blob[o_table:o_table + tlen]
    tokens = [table[index[i]:(index[i + 1] if i + 1 < k else tlen)] for i in range(k)]
    offs = struct.unpack_from('<%dI' % n, blob, o_offs)
    seqs = struct.unpack_from('<%dI' % n, blob, o_seqs)
    records = []
    for i in range(n):
        at = o_names + offs[i]
        kind = blob[at]
        size = struct.unpack_from('<H', blob, at + 1)[0]
        p = blob[at + 3:at + 3 + size]
        if p[:1] == b'\xff':
            if len(p) >= 4 and p[2] == 0xff and p[3] == 0xff:
                tid, rest = p[1] * 256 + 0xff, p[4:]
            elif p[2] == 0xff:
                tid, rest = p[1], p[3:]
            else:
                tid, rest = p[1] * 256 + p[2], p[4:]
        else:
            tid, rest = None, p
        records.append((kind, tid, rest))
    return blob[o_addr:o_offs], seqs, records, tokens


def probes(n, max_rounds):
    """(rank, round) for every rank the search may probe in its first rounds."""
    out = []

    def walk(lo, hi, rnd):
        if rnd > max_rounds or hi - lo <= 4:
            return
        step = (hi - lo) // 4
        at = [lo + j * step for j in (1, 2, 3)]
        out.extend((a, rnd) for a in at)
        for lo2, hi2 in ((lo, at[0]), (at[0] + 1, at[1]), (at[1] + 1, at[2]), (at[2] + 1, hi)):
            walk(lo2, hi2, rnd + 1)

    walk(0, n, 1)
    return out


def ref_bytes(tid):
    return 3 if tid < 256 else 4


def auto_rounds(seqs, records, tokens):
    found = probes(len(seqs), 12)
    deepest = max((r for _, r in found), default=0)
    cost = [0] * (deepest + 1)
    for rank, rnd in found:
        _, tid, _ = records[seqs[rank]]
        if tid is not None:
            cost[rnd] += len(tokens[tid]) - ref_bytes(tid)
    blob = sum(16 + 3 + len(rest) + (0 if tid is None else ref_bytes(tid))
               for _, tid, rest in records)
    blob += sum(len(t) + 4 for t in tokens)
    budget = blob // 100
    spent, rounds = 0, 0
    for rnd in range(1, deepest + 1):
        spent += cost[rnd]
        if spent > budget:
            break
        rounds = rnd
    return rounds


def rewrite(blob, rounds, layout):
    base = 8 if layout == 'sized' else 0
    addresses, seqs, records, tokens = parse(blob, base)
    if not tokens:
        return blob, 0
    if rounds == 'auto':
        rounds = auto_rounds(seqs, records, tokens)
    found = probes(len(seqs), rounds)
    rounds = max((r for _, r in found), default=0)
    whole = {seqs[rank] for rank, _ in found}
    records = [(kind, None, tokens[tid] + rest) if i in whole and tid is not None
               else (kind, tid, rest)
               for i, (kind, tid, rest) in enumerate(records)]
    used = sorted({tid for _, tid, _ in records if tid is not None})
    new_id = {t: i for i, t in enumerate(used)}
    names, offsets = bytearray(), []
    for kind, tid, rest in records:
        if tid is None:
            payload = rest
        else:
            t = new_id[tid]
            ref = bytes([0xff, t, 0xff]) if t < 256 else bytes([0xff, t >> 8, t & 0xff, 0xff])
            payload = ref + rest
        offsets.append(len(names))
        names += bytes([kind]) + struct.pack('<H', len(payload)) + payload
    out = bytearray(b'\0' * base)
    out += struct.pack('<Q', len(records)) + addresses
    out += struct.pack('<%dI' % len(offsets), *offsets)
    out += struct.pack('<%dI' % len(seqs), *seqs)
    out += struct.pack('<Q', len(names)) + names
    out += b'\0' * (align(len(out) - base, 8) - (len(out) - base))
    table = b''.join(tokens[t] for t in used)
    out += struct.pack('<Q', len(table)) + table
    out += b'\0' * (align(len(out) - base, 8) - (len(out) - base))
    index, at = [], 0
    for t in used:
        index.append(at)
        at += len(tokens[t])
    out += struct.pack('<Q', len(used)) + struct.pack('<%dI' % len(index), *index)
    if base:
        struct.pack_into('<Q', out, 0, len(out))
    return bytes(out), rounds


def main():
    src, dst, rounds = sys.argv[1:4]
    layout = sys.argv[4] if len(sys.argv) > 4 else 'sized'
    with open(src, 'rb') as f:
        blob = f.read()
    out, used = rewrite(blob, rounds if rounds == 'auto' else int(rounds), layout)
    with open(dst, 'wb') as f:
        f.write(out)
    print(used)


if __name__ == '__main__':
    main()
