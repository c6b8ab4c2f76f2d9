/* The mid-size C benchmark input: zstd's library with a small driver that compresses
 * and decompresses standard input at a level given on the command line. Every object
 * file is linked whole, so all of the library's code and debug info stay in. */
#include <stdio.h>
#include <stdlib.h>
#include "zstd.h"

int main(int argc, char **argv) {
  int level = argc > 1 ? atoi(argv[1]) : 3;
  size_t cap = 1 << 20, len = 0;
  char *in = malloc(cap);
  if (!in) return 1;
  size_t n;
  while ((n = fread(in + len, 1, cap - len, stdin)) > 0) {
    len += n;
    if (len == cap) {
      cap *= 2;
      in = realloc(in, cap);
      if (!in) return 1;
    }
  }
  size_t bound = ZSTD_compressBound(len);
  char *out = malloc(bound), *back = malloc(len + 1);
  if (!out || !back) return 1;
  size_t c = ZSTD_compress(out, bound, in, len, level);
  if (ZSTD_isError(c)) return 2;
  size_t d = ZSTD_decompress(back, len + 1, out, c);
  if (ZSTD_isError(d) || d != len) return 3;
  printf("%zu -> %zu bytes\n", len, c);
  return 0;
}
