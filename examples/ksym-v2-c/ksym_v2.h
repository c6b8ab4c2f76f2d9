/*
 * ksym_v2: a reader of ksym-bin v2 (docs/formats/ksym-bin-v2.md) in C99.
 *
 * Freestanding: it includes only <stddef.h> and <stdint.h>, calls no library function,
 * allocates nothing, does not recurse, and its stack use is bounded (the largest frame
 * holds the 32 pieces of a name being decoded, section 8.3). The blob may sit at any
 * alignment: every integer is read byte by byte, little-endian.
 *
 * Any input is safe: every read is bounds-checked against the slice given to
 * ksym_v2_open(), so a truncated or corrupt blob gives an error code (or, where the
 * corruption cannot be seen, a wrong answer), never a read outside the slice, a loop that
 * does not end, or undefined behaviour. ksym_v2_open() makes only the O(1) checks of
 * section 5 ("Open"); it does not validate the O(N) properties. A blob that passed the
 * Rust reader's `validate` (or that the builder wrote) answers exactly as the Rust reader.
 *
 * Return values: KSYM_V2_OK (found), KSYM_V2_NONE (a well-formed "no answer": the
 * address is outside the text ranges or below every symbol, the name is not stored), or a
 * negative KSYM_V2_E_* code.
 */
#ifndef KSYM_V2_H
#define KSYM_V2_H

#include <stddef.h>
#include <stdint.h>

enum {
    KSYM_V2_OK = 0,
    KSYM_V2_NONE = 1,
    KSYM_V2_E_MAGIC = -1,     /* does not start with KSYMBIN2 (maybe a v1 blob) */
    KSYM_V2_E_TRUNCATED = -2, /* header or a segment runs past the slice */
    KSYM_V2_E_FIELD = -3,     /* a header field outside its limits (section 3, 6) */
    KSYM_V2_E_SIZE = -4,      /* total_bytes differs from the end of the segments */
    KSYM_V2_E_CORRUPT = -5,   /* found while answering: an offset, width or entry is bad */
    KSYM_V2_E_RANGES = -6,    /* text ranges empty, unsorted, overlapping or empty-sized */
    KSYM_V2_E_ARG = -7        /* an index out of range, a null pointer */
};

/* A half-open text range [start, end) in runtime addresses (ksym-bin.md D7). */
typedef struct {
    uint64_t start;
    uint64_t end;
} ksym_v2_range;

/*
 * An opened blob. The fields are private: they are the header's values and the segments'
 * offsets, computed once by ksym_v2_open(). The struct borrows the blob and the ranges;
 * both must outlive it. It holds no pointers into itself, so it may be copied.
 */
typedef struct {
    const uint8_t *blob;
    uint64_t len; /* the slice: E plus any padding */
    uint64_t base;
    uint32_t n, names_len, addr_data_len;
    uint32_t num_types, num_shapes;
    uint32_t a, r, g;
    uint32_t first_bytes, type_bits, group_bits, index_bits, restart_pos_bits;
    uint64_t off_types, off_token_ends, off_token_bytes, token_bytes_len, off_shapes;
    uint64_t off_first, off_pos, off_addr_data, off_a2n, a2n_bytes;
    uint64_t off_keys, off_restart_pos, restart_pos_bytes, off_names, off_n2a, n2a_bytes;
    uint32_t hash_bits; /* b: 0 when the blob has no name hash index (4.5) */
    uint64_t off_hash_starts, hash_starts_bytes, off_hash_entries, hash_entries_bytes;
    uint64_t end; /* E */
    const ksym_v2_range *ranges;
    size_t num_ranges;
    uint64_t bias;
} ksym_v2;

/*
 * Opens a blob: checks the magic, the field limits of section 3, that every segment fits
 * in `len` bytes and that total_bytes equals the end of the segments (bytes after it are
 * allowed: padding of a fixed-size section). O(1). No text range is set: address lookups
 * answer KSYM_V2_NONE until ksym_v2_set_ranges() is called.
 */
int ksym_v2_open(ksym_v2 *k, const void *blob, size_t len);

/*
 * Sets the text ranges and the load bias (runtime = stored + bias, wrapping; ksym-bin.md
 * D9). The ranges are borrowed: `num` ranges, non-empty, sorted and non-overlapping, in
 * runtime addresses. Every address this reader reports afterwards is a runtime address
 * (stored + bias): lookups by address, by name and the iteration alike.
 */
int ksym_v2_set_ranges(ksym_v2 *k, const ksym_v2_range *ranges, size_t num, uint64_t bias);

/* The number of symbols N. */
uint32_t ksym_v2_count(const ksym_v2 *k);

/* E, the bytes the blob uses (the slice may be longer). */
uint64_t ksym_v2_used_size(const ksym_v2 *k);

/* One symbol, as a lookup or the iteration reports it. */
typedef struct {
    uint32_t index;    /* address-order index (for lookups: the first alias) */
    uint32_t rank;     /* name-order rank */
    uint64_t address;  /* runtime address of the symbol's start */
    uint64_t size;     /* address lookups only: to the next greater address or range end */
    uint64_t offset;   /* address lookups only: query - address (+1 for return addresses) */
    uint8_t type;      /* the nm letter */
    uint64_t name_len; /* the name's full length; min(name_len, cap) bytes were copied */
} ksym_v2_sym;

/*
 * Copies the name into name[0 .. min(len, cap)) (no NUL is added: names are bytes; the
 * caller sees truncation as sym->name_len > cap). `name` may be null when cap is 0, to
 * get the length alone.
 */

/*
 * Symbol `index` in address order (0 <= index < N): iteration in address order is
 * index = 0, 1, ... N - 1, which is what a /proc/kallsyms dump prints. size and offset
 * are 0. Each call walks at most R entries of the name stream (section 8.3).
 */
int ksym_v2_symbol(const ksym_v2 *k, uint32_t index, uint8_t *name, size_t cap,
                   ksym_v2_sym *sym);

/*
 * Address -> symbol (section 5, ksym-bin.md D8): the last symbol at or below `addr`
 * in the text range holding `addr`, reported as the first of its aliases; its size runs
 * to the next greater address or the end of that range, whichever comes first.
 * KSYM_V2_NONE when no range holds `addr`, or when that symbol starts before the range.
 */
int ksym_v2_lookup_address(const ksym_v2 *k, uint64_t addr, uint8_t *name, size_t cap,
                           ksym_v2_sym *sym);

/*
 * The same for a return address (ksym-bin.md D10): looks up ra - 1 (none for ra == 0)
 * and reports offset + 1, so that a call as a function's last instruction names the
 * caller, not the function after it.
 */
int ksym_v2_lookup_return_address(const ksym_v2 *k, uint64_t ra, uint8_t *name, size_t cap,
                                  ksym_v2_sym *sym);

/*
 * Name -> symbols (section 5, 8.2), through the name hash index when the blob has one: the names stored with exactly the bytes q[0 .. qlen)
 * form a run of consecutive ranks; *rank is the first and *count their number. The run is
 * in name order, which for equal names is address order, so the first rank has the lowest
 * address. Get each one's address with ksym_v2_symbol_by_rank(). KSYM_V2_NONE when the
 * name is not stored.
 */
int ksym_v2_lookup_name(const ksym_v2 *k, const uint8_t *q, size_t qlen, uint32_t *rank,
                        uint32_t *count);

/* Symbol at name-order `rank` (0 <= rank < N), as ksym_v2_symbol(). */
int ksym_v2_symbol_by_rank(const ksym_v2 *k, uint32_t rank, uint8_t *name, size_t cap,
                           ksym_v2_sym *sym);

#endif
