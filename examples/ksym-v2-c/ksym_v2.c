/*
 * ksym_v2: a reader of ksym-bin v2, written from docs/formats/ksym-bin-v2.md alone.
 * Section numbers below are that document's. See ksym_v2.h for the API.
 *
 * Every offset is a uint64_t and every read goes through rd(), which checks it against
 * the slice, so no input can make this code read outside it. Counts come from the header
 * (N, L, D < 2^32), widths are at most 64, so the products below fit in 64 bits.
 */
#include "ksym_v2.h"

#define HEADER 48u
#define MAX_R 32u /* r <= 5 */

/* ---- bytes ---------------------------------------------------------------------- */

/* The little-endian integer of `nb` (<= 8) bytes at `off`, if it lies inside the slice. */
static int rd(const ksym_v2 *k, uint64_t off, unsigned nb, uint64_t *out)
{
    uint64_t v = 0;
    unsigned b;
    if (off > k->len || k->len - off < nb)
        return KSYM_V2_E_CORRUPT;
    for (b = 0; b < nb; b++)
        v |= (uint64_t)k->blob[off + b] << (8u * b);
    *out = v;
    return KSYM_V2_OK;
}

static int byte_at(const ksym_v2 *k, uint64_t off, uint8_t *out)
{
    if (off >= k->len)
        return KSYM_V2_E_CORRUPT;
    *out = k->blob[off];
    return KSYM_V2_OK;
}

/*
 * Element `idx` of a packed array (section 2) of `n` elements of `w` bits that starts at
 * `off` and occupies `bytes` bytes.
 */
static int packed(const ksym_v2 *k, uint64_t off, uint64_t bytes, uint64_t n, unsigned w,
                  uint64_t idx, uint64_t *out)
{
    uint64_t bit, first, v = 0;
    unsigned sh, nb, b;
    if (idx >= n || w > 64)
        return KSYM_V2_E_CORRUPT;
    if (w == 0) {
        *out = 0;
        return KSYM_V2_OK;
    }
    bit = idx * w;
    first = bit >> 3;
    sh = (unsigned)(bit & 7u);
    nb = (sh + w + 7u) / 8u; /* 1 .. 9 bytes */
    if (first > bytes || bytes - first < nb)
        return KSYM_V2_E_CORRUPT;
    for (b = 0; b < nb; b++) {
        uint8_t byte;
        int e = byte_at(k, off + first + b, &byte);
        if (e)
            return e;
        if (b == 0)
            v = (uint64_t)byte >> sh;
        else if (8u * b - sh < 64u)
            v |= (uint64_t)byte << (8u * b - sh);
    }
    if (w < 64)
        v &= ((uint64_t)1 << w) - 1u;
    *out = v;
    return KSYM_V2_OK;
}

static uint64_t packed_bytes(uint64_t n, unsigned w)
{
    return (n * w + 7u) / 8u;
}

/* bits(x) (section 2): 0 for 0, else floor(log2 x) + 1. */
static unsigned bits_of(uint64_t x)
{
    unsigned b = 0;
    while (x) {
        b++;
        x >>= 1;
    }
    return b;
}

/* ---- open ----------------------------------------------------------------------- */

static const uint8_t MAGIC[8] = {0x4B, 0x53, 0x59, 0x4D, 0x42, 0x49, 0x4E, 0x32};

/* Appends a segment of `size` bytes at *at, if it fits in the slice. */
static int segment(const ksym_v2 *k, uint64_t *at, uint64_t size, uint64_t *off)
{
    if (*at > k->len || k->len - *at < size)
        return KSYM_V2_E_TRUNCATED;
    *off = *at;
    *at += size;
    return KSYM_V2_OK;
}

int ksym_v2_open(ksym_v2 *k, const void *blob, size_t len)
{
    const uint8_t *p = (const uint8_t *)blob;
    uint64_t v, total, at, na, nr;
    unsigned i;
    int e;
    if (!k || (!blob && len))
        return KSYM_V2_E_ARG;
    k->blob = p;
    k->len = (uint64_t)len;
    k->ranges = 0;
    k->num_ranges = 0;
    k->bias = 0;
    if (len < 8)
        return KSYM_V2_E_MAGIC;
    for (i = 0; i < 8; i++)
        if (p[i] != MAGIC[i])
            return KSYM_V2_E_MAGIC;
    if (len < HEADER)
        return KSYM_V2_E_TRUNCATED;
    rd(k, 8, 8, &total);
    rd(k, 16, 8, &k->base);
    rd(k, 24, 4, &v), k->n = (uint32_t)v;
    rd(k, 28, 4, &v), k->names_len = (uint32_t)v;
    rd(k, 32, 4, &v), k->addr_data_len = (uint32_t)v;
    rd(k, 36, 2, &v), k->num_types = (uint32_t)v;
    k->num_shapes = p[38];
    k->a = p[39];
    k->r = p[40];
    k->g = p[41];
    k->first_bytes = p[42];
    k->type_bits = p[44];
    k->group_bits = p[45];
    k->index_bits = p[46];
    k->restart_pos_bits = p[47];
    k->hash_bits = p[43];
    /* Section 3's limits. T <= 256 is left to validation (types strictly ascending). */
    if (k->a > 15 || k->r > 5 || k->g > 8 || (k->first_bytes != 4 && k->first_bytes != 8) ||
        k->hash_bits > 32 || k->type_bits > 8 || k->group_bits > 32 || k->index_bits > 32 ||
        k->restart_pos_bits > 32 || (k->num_types == 0) != (k->n == 0))
        return KSYM_V2_E_FIELD;
    na = ((uint64_t)k->n + ((uint64_t)1 << k->a) - 1u) >> k->a;
    nr = ((uint64_t)k->n + ((uint64_t)1 << k->r) - 1u) >> k->r;
    at = HEADER;
    if ((e = segment(k, &at, k->num_types, &k->off_types)) ||
        (e = segment(k, &at, 512, &k->off_token_ends)))
        return e;
    rd(k, k->off_token_ends + 510, 2, &k->token_bytes_len);
    if ((e = segment(k, &at, k->token_bytes_len, &k->off_token_bytes)) ||
        (e = segment(k, &at, 2u * (uint64_t)k->num_shapes, &k->off_shapes)) ||
        (e = segment(k, &at, na * k->first_bytes, &k->off_first)) ||
        (e = segment(k, &at, na * 4u, &k->off_pos)) ||
        (e = segment(k, &at, k->addr_data_len, &k->off_addr_data)))
        return e;
    k->a2n_bytes = packed_bytes(k->n, k->group_bits + k->type_bits);
    if ((e = segment(k, &at, k->a2n_bytes, &k->off_a2n)) ||
        (e = segment(k, &at, 8u * nr, &k->off_keys)))
        return e;
    k->restart_pos_bytes = packed_bytes(nr, k->restart_pos_bits);
    if ((e = segment(k, &at, k->restart_pos_bytes, &k->off_restart_pos)) ||
        (e = segment(k, &at, k->names_len, &k->off_names)))
        return e;
    k->n2a_bytes = packed_bytes(k->n, k->index_bits);
    if ((e = segment(k, &at, k->n2a_bytes, &k->off_n2a)))
        return e;
    /* 4.5: 2^b + 1 bucket starts of bits(N) bits, N entries of index_bits + 8 bits. */
    k->hash_starts_bytes = 0;
    k->hash_entries_bytes = 0;
    if (k->hash_bits) {
        k->hash_starts_bytes = packed_bytes(((uint64_t)1 << k->hash_bits) + 1u, bits_of(k->n));
        k->hash_entries_bytes = packed_bytes(k->n, k->index_bits + 8u);
    }
    if ((e = segment(k, &at, k->hash_starts_bytes, &k->off_hash_starts)) ||
        (e = segment(k, &at, k->hash_entries_bytes, &k->off_hash_entries)))
        return e;
    k->end = at;
    if (total != at)
        return KSYM_V2_E_SIZE;
    if (at >= ((uint64_t)1 << 32)) /* section 6: E < 2^32 */
        return KSYM_V2_E_FIELD;
    return KSYM_V2_OK;
}

int ksym_v2_set_ranges(ksym_v2 *k, const ksym_v2_range *ranges, size_t num, uint64_t bias)
{
    size_t i;
    if (!k || !ranges || num == 0)
        return KSYM_V2_E_RANGES;
    for (i = 0; i < num; i++) {
        if (ranges[i].start >= ranges[i].end)
            return KSYM_V2_E_RANGES;
        if (i > 0 && ranges[i].start < ranges[i - 1].end)
            return KSYM_V2_E_RANGES;
    }
    k->ranges = ranges;
    k->num_ranges = num;
    k->bias = bias;
    return KSYM_V2_OK;
}

uint32_t ksym_v2_count(const ksym_v2 *k)
{
    return k->n;
}

uint64_t ksym_v2_used_size(const ksym_v2 *k)
{
    return k->end;
}

/* ---- addresses (4.2) ------------------------------------------------------------ */

/* first[j] */
static int block_first(const ksym_v2 *k, uint64_t j, uint64_t *out)
{
    return rd(k, k->off_first + j * k->first_bytes, k->first_bytes, out);
}

/* The block's packed offsets: where they start, how many, their width. */
static int block_data(const ksym_v2 *k, uint64_t j, uint64_t *off, uint64_t *cnt, unsigned *w,
                      uint64_t *bytes)
{
    uint64_t pos, c, start = j << k->a;
    uint8_t width;
    int e;
    if ((e = rd(k, k->off_pos + 4u * j, 4, &pos)))
        return e;
    if (pos >= k->addr_data_len)
        return KSYM_V2_E_CORRUPT;
    width = k->blob[k->off_addr_data + pos];
    if (width > 64)
        return KSYM_V2_E_CORRUPT;
    c = (uint64_t)k->n - start;
    if (c > ((uint64_t)1 << k->a))
        c = (uint64_t)1 << k->a;
    *cnt = c - 1u;
    *w = width;
    *bytes = packed_bytes(c - 1u, width);
    *off = k->off_addr_data + pos + 1u;
    if (*bytes > k->addr_data_len - pos - 1u)
        return KSYM_V2_E_CORRUPT;
    return KSYM_V2_OK;
}

/* The stored address of symbol i (no bias). */
static int address(const ksym_v2 *k, uint64_t i, uint64_t *out)
{
    uint64_t j = i >> k->a, p = i & (((uint64_t)1 << k->a) - 1u), first, off, cnt, bytes, d = 0;
    unsigned w;
    int e;
    if (i >= k->n)
        return KSYM_V2_E_CORRUPT;
    if ((e = block_first(k, j, &first)))
        return e;
    if (p != 0) {
        if ((e = block_data(k, j, &off, &cnt, &w, &bytes)) ||
            (e = packed(k, off, bytes, cnt, w, p - 1u, &d)))
            return e;
    }
    *out = k->base + first + d;
    return KSYM_V2_OK;
}

/* ---- links and types (4.3) ------------------------------------------------------ */

static int a2n(const ksym_v2 *k, uint64_t i, uint64_t *out)
{
    return packed(k, k->off_a2n, k->a2n_bytes, k->n, k->group_bits + k->type_bits, i, out);
}

static int index_of_rank(const ksym_v2 *k, uint64_t rank, uint64_t *out)
{
    int e = packed(k, k->off_n2a, k->n2a_bytes, k->n, k->index_bits, rank, out);
    if (!e && *out >= k->n)
        return KSYM_V2_E_CORRUPT;
    return e;
}

static int type_of(const ksym_v2 *k, uint64_t i, uint8_t *out)
{
    uint64_t v;
    int e = a2n(k, i, &v);
    if (e)
        return e;
    v &= ((uint64_t)1 << k->type_bits) - 1u;
    if (v >= k->num_types)
        return KSYM_V2_E_CORRUPT;
    *out = k->blob[k->off_types + v];
    return KSYM_V2_OK;
}

/* rank(i): scan the group's G entries of n2a for i. */
static int rank_of(const ksym_v2 *k, uint64_t i, uint64_t *out)
{
    uint64_t v, lo, hi, r;
    int e = a2n(k, i, &v);
    if (e)
        return e;
    lo = (v >> k->type_bits) << k->g;
    if (lo >= k->n)
        return KSYM_V2_E_CORRUPT;
    hi = lo + ((uint64_t)1 << k->g);
    if (hi > k->n)
        hi = k->n;
    for (r = lo; r < hi; r++) {
        uint64_t x;
        if ((e = index_of_rank(k, r, &x)))
            return e;
        if (x == i) {
            *out = r;
            return KSYM_V2_OK;
        }
    }
    return KSYM_V2_E_CORRUPT;
}

/* ---- names (4.1, 4.4) ----------------------------------------------------------- */

/* Code c's string: its offset in the blob and its length. */
static int token(const ksym_v2 *k, uint8_t c, uint64_t *off, uint64_t *len)
{
    uint64_t s = 0, t;
    int e;
    if (c > 0 && (e = rd(k, k->off_token_ends + 2u * (c - 1u), 2, &s)))
        return e;
    if ((e = rd(k, k->off_token_ends + 2u * c, 2, &t)))
        return e;
    if (s > t || t > k->token_bytes_len)
        return KSYM_V2_E_CORRUPT;
    *off = k->off_token_bytes + s;
    *len = t - s;
    return KSYM_V2_OK;
}

/* One entry of `names`: shared length, codes (their offset in the blob and number). */
typedef struct {
    uint64_t lcp;
    uint64_t codes; /* blob offset of the first code */
    uint64_t count;
    uint64_t next; /* offset in `names` of the next entry */
} entry;

static int uleb(const ksym_v2 *k, uint64_t *pos, uint64_t *out)
{
    uint64_t v = 0;
    unsigned i;
    for (i = 0; i < 5; i++) {
        uint8_t b;
        if (*pos >= k->names_len)
            return KSYM_V2_E_CORRUPT;
        b = k->blob[k->off_names + *pos];
        (*pos)++;
        v |= (uint64_t)(b & 0x7Fu) << (7u * i);
        if (!(b & 0x80u)) {
            if (v >> 32)
                return KSYM_V2_E_CORRUPT;
            *out = v;
            return KSYM_V2_OK;
        }
    }
    return KSYM_V2_E_CORRUPT;
}

/* Parses the entry at offset `pos` of `names`. */
static int parse_entry(const ksym_v2 *k, uint64_t pos, entry *en)
{
    uint8_t h;
    int e;
    if (pos >= k->names_len)
        return KSYM_V2_E_CORRUPT;
    h = k->blob[k->off_names + pos];
    pos++;
    if (h < k->num_shapes) {
        en->lcp = k->blob[k->off_shapes + 2u * h];
        en->count = k->blob[k->off_shapes + 2u * h + 1u];
    } else if (h == 0xFF) {
        if ((e = uleb(k, &pos, &en->lcp)) || (e = uleb(k, &pos, &en->count)))
            return e;
    } else {
        return KSYM_V2_E_CORRUPT;
    }
    if (en->count > k->names_len - pos)
        return KSYM_V2_E_CORRUPT;
    en->codes = k->off_names + pos;
    en->next = pos + en->count;
    return KSYM_V2_OK;
}

/* The length of an entry's expanded codes. */
static int expanded_len(const ksym_v2 *k, const entry *en, uint64_t *out)
{
    uint64_t c, total = 0, off, len;
    int e;
    for (c = 0; c < en->count; c++) {
        if ((e = token(k, k->blob[en->codes + c], &off, &len)))
            return e;
        total += len;
    }
    *out = total;
    return KSYM_V2_OK;
}

/* The offset in `names` of restart m's entry. */
static int restart_pos(const ksym_v2 *k, uint64_t m, uint64_t *out)
{
    uint64_t nr = ((uint64_t)k->n + ((uint64_t)1 << k->r) - 1u) >> k->r;
    return packed(k, k->off_restart_pos, k->restart_pos_bytes, nr, k->restart_pos_bits, m, out);
}

/*
 * Compares the expanded codes of `en` with q[from .. qlen). *cmp is <0, 0 or >0 as
 * (q[0 .. from) ++ expansion) compares with q; *common is the length of the common prefix
 * of the two (from + the bytes that matched).
 */
static int compare_codes(const ksym_v2 *k, const entry *en, const uint8_t *q, uint64_t qlen,
                         uint64_t from, int *cmp, uint64_t *common)
{
    uint64_t c, at = from, off, len, b;
    int e;
    for (c = 0; c < en->count; c++) {
        if ((e = token(k, k->blob[en->codes + c], &off, &len)))
            return e;
        for (b = 0; b < len; b++, at++) {
            uint8_t x = k->blob[off + b];
            if (at >= qlen) {
                *cmp = 1; /* q is a proper prefix of the name */
                *common = at;
                return KSYM_V2_OK;
            }
            if (x != q[at]) {
                *cmp = x < q[at] ? -1 : 1;
                *common = at;
                return KSYM_V2_OK;
            }
        }
    }
    *cmp = at < qlen ? -1 : 0;
    *common = at;
    return KSYM_V2_OK;
}

/* restart_keys[m] as a big-endian u64. */
static int restart_key(const ksym_v2 *k, uint64_t m, uint64_t *out)
{
    uint64_t off = k->off_keys + 8u * m, v = 0;
    unsigned b;
    if (off > k->len || k->len - off < 8)
        return KSYM_V2_E_CORRUPT;
    for (b = 0; b < 8; b++)
        v = (v << 8) | k->blob[off + b];
    *out = v;
    return KSYM_V2_OK;
}

/* Restart m's name against q: <0, 0, >0 (the key first, then the whole name). */
static int compare_restart(const ksym_v2 *k, uint64_t m, const uint8_t *q, uint64_t qlen,
                           uint64_t kq, int *cmp)
{
    uint64_t key, pos, common;
    entry en;
    int e;
    if ((e = restart_key(k, m, &key)))
        return e;
    if (key != kq) {
        *cmp = key < kq ? -1 : 1;
        return KSYM_V2_OK;
    }
    if ((e = restart_pos(k, m, &pos)) || (e = parse_entry(k, pos, &en)))
        return e;
    /* A restart stores its name whole: its lcp is ignored (section 4.4). */
    return compare_codes(k, &en, q, qlen, 0, cmp, &common);
}

/* ---- the name hash index (4.5) -------------------------------------------------- */

static uint64_t rotl5(uint64_t x)
{
    return (x << 5) | (x >> 59);
}

/* The hash of q[0 .. qlen) (4.5). */
static uint64_t name_hash(const uint8_t *q, uint64_t qlen)
{
    const uint64_t K = 0x9E3779B97F4A7C15ull;
    uint64_t h = 0, i, w;
    unsigned b;
    for (i = 0; i < qlen; i += 8u) {
        w = 0;
        for (b = 0; b < 8u && i + b < qlen; b++)
            w |= (uint64_t)q[i + b] << (8u * b);
        h = (rotl5(h) ^ w) * K;
    }
    h = (rotl5(h) ^ qlen) * K;
    h ^= h >> 33;
    h *= 0xFF51AFD7ED558CCDull;
    h ^= h >> 33;
    h *= 0xC4CEB9FE1A85EC53ull;
    h ^= h >> 33;
    return h;
}

/*
 * Section 8.2 step 3: whether the name of `rank` equals q, by a walk from its restart that
 * keeps ell, the common prefix of q and the current name. *next is the offset in `names`
 * just past rank's entry.
 */
static int rank_equals(const ksym_v2 *k, uint64_t rank, const uint8_t *q, uint64_t qlen,
                       int *equal, uint64_t *next)
{
    uint64_t m = rank >> k->r, first = m << k->r, pos, r, ell = 0, prevlen = 0, xlen, lcp;
    int e, cmp = 1;
    entry en;
    if ((e = restart_pos(k, m, &pos)))
        return e;
    for (r = first; r <= rank; r++) {
        if ((e = parse_entry(k, pos, &en)) || (e = expanded_len(k, &en, &xlen)))
            return e;
        pos = en.next;
        if (r == first) {
            if ((e = compare_codes(k, &en, q, qlen, 0, &cmp, &ell)))
                return e;
            prevlen = xlen;
            continue;
        }
        lcp = en.lcp < prevlen ? en.lcp : prevlen; /* clamp (4.4) */
        prevlen = lcp + xlen;
        if (lcp > ell) {
            cmp = 1; /* differs from q where the previous name did */
            continue;
        }
        if ((e = compare_codes(k, &en, q, qlen, lcp, &cmp, &ell)))
            return e;
    }
    *equal = cmp == 0;
    *next = pos;
    return KSYM_V2_OK;
}

/* Section 8.2 with the index: the first rank of bucket(q) with q's fingerprint whose name
 * equals q. */
static int hash_find(const ksym_v2 *k, const uint8_t *q, uint64_t qlen, int *matched,
                     uint64_t *found, uint64_t *next)
{
    uint64_t h = name_hash(q, qlen), nb = (uint64_t)1 << k->hash_bits;
    uint64_t bucket = h >> (64u - k->hash_bits), fp = (h >> (56u - k->hash_bits)) & 0xFFu;
    uint64_t s, t, i, v;
    unsigned sbits = bits_of(k->n), ebits = k->index_bits + 8u;
    int e, equal;
    if ((e = packed(k, k->off_hash_starts, k->hash_starts_bytes, nb + 1u, sbits, bucket, &s)) ||
        (e = packed(k, k->off_hash_starts, k->hash_starts_bytes, nb + 1u, sbits, bucket + 1u,
                    &t)))
        return e;
    if (t > k->n)
        t = k->n;
    *matched = 0;
    for (i = s; i < t; i++) {
        if ((e = packed(k, k->off_hash_entries, k->hash_entries_bytes, k->n, ebits, i, &v)))
            return e;
        if ((v & 0xFFu) != fp)
            continue;
        if ((v >> 8) >= k->n)
            return KSYM_V2_E_CORRUPT;
        if ((e = rank_equals(k, v >> 8, q, qlen, &equal, next)))
            return e;
        if (equal) {
            *matched = 1;
            *found = v >> 8;
            return KSYM_V2_OK;
        }
    }
    return KSYM_V2_OK;
}

/*
 * Section 8.2. With the name hash index, the first equal name of q's bucket. Without it,
 * the scan starts at the last restart whose name is strictly below q and
 * ends at the next restart, compared whole, so that a run of equal names that reaches
 * across a restart is found at its first rank (the lowest address).
 */
int ksym_v2_lookup_name(const ksym_v2 *k, const uint8_t *q, size_t qlen_, uint32_t *rank,
                        uint32_t *count)
{
    uint64_t qlen = (uint64_t)qlen_, kq = 0, nr, lo, hi, m, r, stop, pos, ell = 0, prevlen = 0;
    uint64_t R, found = 0, run;
    unsigned b;
    int e, cmp, matched = 0;
    entry en;
    if (!k || !rank || !count || (!q && qlen))
        return KSYM_V2_E_ARG;
    if (k->n == 0)
        return KSYM_V2_NONE;
    R = (uint64_t)1 << k->r;
    nr = ((uint64_t)k->n + R - 1u) >> k->r;
    if (k->hash_bits) {
        if ((e = hash_find(k, q, qlen, &matched, &found, &pos)))
            return e;
        goto run;
    }
    for (b = 0; b < 8; b++)
        kq = (kq << 8) | (b < qlen ? q[b] : 0u);
    /* lo = the number of restarts whose name is < q. */
    lo = 0;
    hi = nr;
    while (lo < hi) {
        uint64_t mid = lo + (hi - lo) / 2u;
        if ((e = compare_restart(k, mid, q, qlen, kq, &cmp)))
            return e;
        if (cmp < 0)
            lo = mid + 1u;
        else
            hi = mid;
    }
    m = lo > 0 ? lo - 1u : 0;
    /* Scan ranks m*R .. (m+1)*R inclusive (the next restart is >= q), at most R + 1. */
    stop = (m + 1u) * R;
    if (stop > (uint64_t)k->n - 1u)
        stop = (uint64_t)k->n - 1u;
    if ((e = restart_pos(k, m, &pos)))
        return e;
    for (r = m * R; r <= stop; r++) {
        uint64_t xlen, lcp;
        if ((e = parse_entry(k, pos, &en)) || (e = expanded_len(k, &en, &xlen)))
            return e;
        pos = en.next;
        if ((r & (R - 1u)) == 0) {
            /* A restart: the whole name against q. */
            if ((e = compare_codes(k, &en, q, qlen, 0, &cmp, &ell)))
                return e;
            prevlen = xlen;
        } else {
            lcp = en.lcp < prevlen ? en.lcp : prevlen; /* clamp (4.4) */
            prevlen = lcp + xlen;
            if (lcp > ell)
                continue; /* shares more with the previous name: still below q */
            if (lcp < ell)
                return KSYM_V2_NONE; /* differs earlier, where the previous name matched q */
            if ((e = compare_codes(k, &en, q, qlen, ell, &cmp, &ell)))
                return e;
        }
        if (cmp == 0) {
            matched = 1;
            found = r;
            break;
        }
        if (cmp > 0)
            return KSYM_V2_NONE;
    }
run:
    if (!matched)
        return KSYM_V2_NONE;
    /* The run of equal names: an entry that repeats the whole previous name and adds no
     * bytes, or a restart whose whole name is q. */
    run = 1;
    for (r = found + 1u; r < k->n; r++) {
        uint64_t xlen;
        if ((e = parse_entry(k, pos, &en)) || (e = expanded_len(k, &en, &xlen)))
            return e;
        pos = en.next;
        if ((r & (R - 1u)) == 0) {
            uint64_t common;
            if ((e = compare_codes(k, &en, q, qlen, 0, &cmp, &common)))
                return e;
            if (cmp != 0)
                break;
        } else if (!(en.lcp >= qlen && xlen == 0)) {
            break;
        }
        run++;
    }
    *rank = (uint32_t)found;
    *count = (uint32_t)run;
    return KSYM_V2_OK;
}

/*
 * Section 8.3: the name of rank `rank`, copied into name[0 .. cap), its length in *len.
 * Walks the entries from the rank's restart, keeping a stack of pieces: a piece is an
 * entry whose expanded codes supply the name's bytes from `start` up to the next piece's
 * start (or the end of the name for the top piece).
 */
static int decode_name(const ksym_v2 *k, uint64_t rank, uint8_t *name, size_t cap,
                       uint64_t *len)
{
    struct piece {
        uint64_t start;
        entry en;
    } st[MAX_R];
    unsigned top = 0, p;
    uint64_t R = (uint64_t)1 << k->r, r, pos, prevlen = 0;
    int e;
    if ((e = restart_pos(k, rank >> k->r, &pos)))
        return e;
    for (r = rank & ~(R - 1u); r <= rank; r++) {
        entry en;
        uint64_t lcp, xlen;
        if ((e = parse_entry(k, pos, &en)) || (e = expanded_len(k, &en, &xlen)))
            return e;
        pos = en.next;
        lcp = (r == (rank & ~(R - 1u))) ? 0 : (en.lcp < prevlen ? en.lcp : prevlen);
        while (top > 0 && st[top - 1].start >= lcp)
            top--;
        if (top >= MAX_R) /* cannot happen: at most R entries are walked */
            return KSYM_V2_E_CORRUPT;
        st[top].start = lcp;
        st[top].en = en;
        top++;
        prevlen = lcp + xlen;
    }
    *len = prevlen;
    /* Emit: piece p's expansion supplies bytes start[p] .. start[p+1). */
    for (p = 0; p < top; p++) {
        uint64_t at = st[p].start, stop = p + 1 < top ? st[p + 1].start : prevlen, c;
        for (c = 0; c < st[p].en.count && at < stop; c++) {
            uint64_t off, tl, b;
            if ((e = token(k, k->blob[st[p].en.codes + c], &off, &tl)))
                return e;
            for (b = 0; b < tl && at < stop; b++, at++)
                if (at < cap)
                    name[at] = k->blob[off + b];
        }
    }
    return KSYM_V2_OK;
}

/* ---- symbols -------------------------------------------------------------------- */

static int fill(const ksym_v2 *k, uint64_t index, uint64_t rank, uint8_t *name, size_t cap,
                ksym_v2_sym *sym)
{
    uint64_t a;
    int e;
    if ((e = address(k, index, &a)) || (e = type_of(k, index, &sym->type)) ||
        (e = decode_name(k, rank, name, cap, &sym->name_len)))
        return e;
    sym->index = (uint32_t)index;
    sym->rank = (uint32_t)rank;
    sym->address = a + k->bias;
    sym->size = 0;
    sym->offset = 0;
    return KSYM_V2_OK;
}

int ksym_v2_symbol(const ksym_v2 *k, uint32_t index, uint8_t *name, size_t cap,
                   ksym_v2_sym *sym)
{
    uint64_t rank;
    int e;
    if (!k || !sym || (!name && cap) || index >= k->n)
        return KSYM_V2_E_ARG;
    if ((e = rank_of(k, index, &rank)))
        return e;
    return fill(k, index, rank, name, cap, sym);
}

int ksym_v2_symbol_by_rank(const ksym_v2 *k, uint32_t rank, uint8_t *name, size_t cap,
                           ksym_v2_sym *sym)
{
    uint64_t index;
    int e;
    if (!k || !sym || (!name && cap) || rank >= k->n)
        return KSYM_V2_E_ARG;
    if ((e = index_of_rank(k, rank, &index)))
        return e;
    return fill(k, index, rank, name, cap, sym);
}

/* Section 8.1 with ksym-bin.md D8. */
int ksym_v2_lookup_address(const ksym_v2 *k, uint64_t addr, uint8_t *name, size_t cap,
                           ksym_v2_sym *sym)
{
    const ksym_v2_range *range;
    uint64_t stored, off, na, lo, hi, j, first, doff, cnt, bytes, i, s, s_rt, end, rank;
    unsigned w;
    size_t rlo, rhi;
    int e;
    if (!k || !sym || (!name && cap))
        return KSYM_V2_E_ARG;
    if (k->num_ranges == 0 || k->n == 0)
        return KSYM_V2_NONE;
    /* The range holding addr: the last whose start is <= addr. */
    rlo = 0;
    rhi = k->num_ranges;
    while (rlo < rhi) {
        size_t mid = rlo + (rhi - rlo) / 2u;
        if (k->ranges[mid].start <= addr)
            rlo = mid + 1u;
        else
            rhi = mid;
    }
    if (rlo == 0 || addr >= k->ranges[rlo - 1u].end)
        return KSYM_V2_NONE;
    range = &k->ranges[rlo - 1u];
    stored = addr - k->bias;
    if (stored < k->base)
        return KSYM_V2_NONE;
    off = stored - k->base;
    /* The last block whose first offset is <= off. */
    na = ((uint64_t)k->n + ((uint64_t)1 << k->a) - 1u) >> k->a;
    lo = 0;
    hi = na;
    while (lo < hi) {
        uint64_t mid = lo + (hi - lo) / 2u;
        if ((e = block_first(k, mid, &first)))
            return e;
        if (first <= off)
            lo = mid + 1u;
        else
            hi = mid;
    }
    if (lo == 0)
        return KSYM_V2_NONE;
    j = lo - 1u;
    if ((e = block_first(k, j, &first)) || (e = block_data(k, j, &doff, &cnt, &w, &bytes)))
        return e;
    /* p = the number of in-block offsets <= off - first. */
    lo = 0;
    hi = cnt;
    while (lo < hi) {
        uint64_t mid = lo + (hi - lo) / 2u, d;
        if ((e = packed(k, doff, bytes, cnt, w, mid, &d)))
            return e;
        if (d <= off - first)
            lo = mid + 1u;
        else
            hi = mid;
    }
    i = (j << k->a) + lo; /* the last symbol at or below stored */
    if ((e = address(k, i, &s)))
        return e;
    s_rt = s + k->bias;
    if (s_rt < range->start)
        return KSYM_V2_NONE;
    /* Size: to the next symbol (all aliases of s are at or before i) or the range end. */
    end = range->end;
    if (i + 1u < k->n) {
        uint64_t next;
        if ((e = address(k, i + 1u, &next)))
            return e;
        if (next + k->bias < end)
            end = next + k->bias;
    }
    /* The first alias: the lowest index with address s. */
    lo = 0;
    hi = i;
    while (lo < hi) {
        uint64_t mid = lo + (hi - lo) / 2u, x;
        if ((e = address(k, mid, &x)))
            return e;
        if (x < s)
            lo = mid + 1u;
        else
            hi = mid;
    }
    i = lo;
    if ((e = rank_of(k, i, &rank)) || (e = fill(k, i, rank, name, cap, sym)))
        return e;
    sym->address = s_rt;
    sym->size = end - s_rt;
    sym->offset = addr - s_rt;
    return KSYM_V2_OK;
}

int ksym_v2_lookup_return_address(const ksym_v2 *k, uint64_t ra, uint8_t *name, size_t cap,
                                  ksym_v2_sym *sym)
{
    int e;
    if (ra == 0)
        return KSYM_V2_NONE;
    e = ksym_v2_lookup_address(k, ra - 1u, name, cap, sym);
    if (e == KSYM_V2_OK)
        sym->offset += 1u;
    return e;
}
