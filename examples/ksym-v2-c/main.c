/*
 * ksym-v2-c: answers queries about a ksym-bin v2 blob with the C reader, one line of
 * output per line of input (see README.md for the protocol).
 *
 *   ksym-v2-c [-b BIAS] [-r START:END]... BLOB           < queries
 *   ksym-v2-c [-b BIAS] [-r START:END]... --each BLOBS   < queries
 *
 * BIAS, START and END are hexadecimal (0x optional). Without -r the text range is
 * [0, 0xffffffffffffffff).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ksym_v2.h"

static void *xrealloc(void *p, size_t n)
{
    void *q = realloc(p, n ? n : 1);
    if (!q) {
        fprintf(stderr, "ksym-v2-c: out of memory\n");
        exit(3);
    }
    return q;
}

/* Reads a whole file. */
static unsigned char *slurp(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    unsigned char *buf = NULL;
    size_t cap = 0, n = 0, got;
    if (!f)
        return NULL;
    do {
        if (n == cap) {
            cap = cap ? 2 * cap : 65536;
            buf = xrealloc(buf, cap);
        }
        got = fread(buf + n, 1, cap - n, f);
        n += got;
    } while (got > 0);
    fclose(f);
    *len = n;
    return buf;
}

/* One line of stdin without its LF; 0 at the end of input. */
static int read_line(char **line, size_t *cap, size_t *len)
{
    int c;
    size_t n = 0;
    while ((c = getchar()) != EOF && c != '\n') {
        if (n + 1 >= *cap) {
            *cap = *cap ? 2 * *cap : 256;
            *line = xrealloc(*line, *cap);
        }
        (*line)[n++] = (char)c;
    }
    if (c == EOF && n == 0)
        return 0;
    if (!*line)
        *line = xrealloc(NULL, *cap = 256);
    (*line)[n] = 0;
    *len = n;
    return 1;
}

static int parse_hex(const char *s, unsigned long long *out)
{
    char *end;
    if (!*s)
        return 0;
    *out = strtoull(s, &end, 16);
    return *end == 0;
}

static unsigned char *name_buf;
static size_t name_cap = 256;

/* Calls a lookup again with a larger buffer when the name did not fit. */
#define WITH_NAME(call)                                                                     \
    do {                                                                                    \
        e = (call);                                                                         \
        if (e == KSYM_V2_OK && sym.name_len > name_cap) {                                   \
            name_cap = (size_t)sym.name_len;                                                \
            name_buf = xrealloc(name_buf, name_cap);                                        \
            e = (call);                                                                     \
        }                                                                                   \
    } while (0)

static void print_symbol(int e, const ksym_v2_sym *s)
{
    if (e == KSYM_V2_NONE) {
        puts("-");
    } else if (e != KSYM_V2_OK) {
        printf("E%d\n", e);
    } else {
        fwrite(name_buf, 1, (size_t)s->name_len, stdout);
        printf("+0x%llx/0x%llx %c\n", (unsigned long long)s->offset,
               (unsigned long long)s->size, s->type);
    }
}

/* Answers one query line (see README.md). */
static void answer(const ksym_v2 *k, const char *line, size_t qlen)
{
    unsigned long long a;
    ksym_v2_sym sym;
    int e;
    if ((line[0] == 'a' || line[0] == 'r') && line[1] == ' ' && parse_hex(line + 2, &a)) {
        if (line[0] == 'a')
            WITH_NAME(ksym_v2_lookup_address(k, a, name_buf, name_cap, &sym));
        else
            WITH_NAME(ksym_v2_lookup_return_address(k, a, name_buf, name_cap, &sym));
        print_symbol(e, &sym);
    } else if (line[0] == 'n' && line[1] == ' ') {
        uint32_t rank, count, r;
        e = ksym_v2_lookup_name(k, (const uint8_t *)line + 2, qlen - 2, &rank, &count);
        if (e == KSYM_V2_NONE) {
            puts("-");
            return;
        } else if (e) {
            printf("E%d\n", e);
            return;
        }
        for (r = 0; r < count; r++) {
            e = ksym_v2_symbol_by_rank(k, rank + r, NULL, 0, &sym);
            if (e)
                printf("%sE%d", r ? " " : "", e);
            else
                printf("%s0x%llx", r ? " " : "", (unsigned long long)sym.address);
        }
        putchar('\n');
    } else if (!strcmp(line, "dump")) {
        uint32_t n = ksym_v2_count(k), x;
        for (x = 0; x < n; x++) {
            WITH_NAME(ksym_v2_symbol(k, x, name_buf, name_cap, &sym));
            if (e) {
                printf("E%d\n", e);
                continue;
            }
            printf("%016llx %c ", (unsigned long long)sym.address, sym.type);
            fwrite(name_buf, 1, (size_t)sym.name_len, stdout);
            putchar('\n');
        }
    } else if (!strcmp(line, "count")) {
        printf("%lu %llu\n", (unsigned long)ksym_v2_count(k),
               (unsigned long long)ksym_v2_used_size(k));
    } else {
        puts("?");
    }
}

/*
 * --each: BLOBS holds blobs one after the other, each a u32 little-endian length then its
 * bytes. Every blob is copied into a buffer of exactly its length (so that a sanitizer
 * sees any read past it), opened, and asked every query of standard input. The first line
 * of each blob's answers is "open 0" or "open E<code>".
 */
static int each(const unsigned char *all, size_t len, const ksym_v2_range *ranges,
                size_t nranges, unsigned long long bias)
{
    char **lines = NULL;
    size_t *lens = NULL, nlines = 0, linecap = 0, at = 0, i;
    char *line = NULL;
    size_t cap = 0, qlen;
    while (read_line(&line, &cap, &qlen)) {
        if (nlines == linecap) {
            linecap = linecap ? 2 * linecap : 64;
            lines = xrealloc(lines, linecap * sizeof *lines);
            lens = xrealloc(lens, linecap * sizeof *lens);
        }
        lines[nlines] = xrealloc(NULL, qlen + 1);
        memcpy(lines[nlines], line, qlen + 1);
        lens[nlines++] = qlen;
    }
    free(line);
    while (len - at >= 4) {
        size_t n = (size_t)all[at] | (size_t)all[at + 1] << 8 | (size_t)all[at + 2] << 16 |
                   (size_t)all[at + 3] << 24;
        unsigned char *copy;
        ksym_v2 k;
        int e;
        at += 4;
        if (n > len - at) {
            fprintf(stderr, "ksym-v2-c: BLOBS is truncated\n");
            return 2;
        }
        copy = xrealloc(NULL, n);
        if (n)
            memcpy(copy, all + at, n);
        at += n;
        e = ksym_v2_open(&k, copy, n);
        if (!e)
            e = ksym_v2_set_ranges(&k, ranges, nranges, bias);
        printf("open %d\n", e);
        if (!e)
            for (i = 0; i < nlines; i++)
                answer(&k, lines[i], lens[i]);
        free(copy);
    }
    for (i = 0; i < nlines; i++)
        free(lines[i]);
    free(lines);
    free(lens);
    return 0;
}

int main(int argc, char **argv)
{
    static ksym_v2_range ranges[64];
    size_t nranges = 0, len = 0, cap = 0, qlen;
    unsigned long long bias = 0, a, b;
    const char *path = NULL;
    unsigned char *blob;
    char *line = NULL;
    int i, e, many = 0;
    ksym_v2 k;
    for (i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "-b") && i + 1 < argc) {
            if (!parse_hex(argv[++i], &bias))
                goto usage;
        } else if (!strcmp(argv[i], "-r") && i + 1 < argc && nranges < 64) {
            char *colon = strchr(argv[++i], ':');
            if (!colon)
                goto usage;
            *colon = 0;
            if (!parse_hex(argv[i], &a) || !parse_hex(colon + 1, &b))
                goto usage;
            ranges[nranges].start = a;
            ranges[nranges].end = b;
            nranges++;
        } else if (!strcmp(argv[i], "--each")) {
            many = 1;
        } else if (!path) {
            path = argv[i];
        } else {
            goto usage;
        }
    }
    if (!path)
        goto usage;
    if (nranges == 0) {
        ranges[0].start = 0;
        ranges[0].end = ~0ull;
        nranges = 1;
    }
    blob = slurp(path, &len);
    if (!blob) {
        perror(path);
        return 2;
    }
    name_buf = xrealloc(NULL, name_cap);
    if (many) {
        e = each(blob, len, ranges, nranges, bias);
        free(name_buf);
        free(blob);
        return e;
    }
    e = ksym_v2_open(&k, blob, len);
    if (e) {
        printf("E%d open\n", e);
        return 1;
    }
    e = ksym_v2_set_ranges(&k, ranges, nranges, bias);
    if (e) {
        printf("E%d ranges\n", e);
        return 1;
    }
    while (read_line(&line, &cap, &qlen))
        answer(&k, line, qlen);
    free(line);
    free(name_buf);
    free(blob);
    return 0;
usage:
    fprintf(stderr, "usage: ksym-v2-c [-b BIAS] [-r START:END]... BLOB < queries\n"
                    "       ksym-v2-c [-b BIAS] [-r START:END]... --each BLOBS < queries\n");
    return 2;
}
