/* Two builds of one program: -DV2 grows `grow_me`, removes `drop_me` and adds `new_one`.
   `noipa` keeps the callers' code the same in both builds. */
#include <stdio.h>
#include <stdlib.h>

__attribute__((noipa)) int grow_me(int x) {
#ifdef V2
  for (int i = 0; i < x; i++) {
    x ^= (x << 3) + i * 7;
    if (x % 11 == 3) printf("%d\n", x);
  }
#endif
  return x * 3 + 1;
}

/* Kept by `used`, not called, so that main's code is the same in both builds. */
#ifndef V2
__attribute__((used, noipa)) int drop_me(int x) { return x * x - 17; }
#else
__attribute__((used, noipa)) int new_one(int x) { return x / 3 + (x % 5) * 9; }
#endif

__attribute__((noipa)) int stays(int x) { return x + 42; }

const int kTable[16] = {1, 2, 3, 5, 8, 13, 21, 34, 55, 89, 144, 233, 377, 610, 987, 1597};
int g_state = 7;
char g_buffer[128];

int main(int argc, char **argv) {
  int v = argc > 1 ? atoi(argv[1]) : 3;
  g_buffer[v & 127] = (char)stays(grow_me(v) + kTable[v & 15] + g_state);
  printf("%d\n", g_buffer[v & 127]);
  return 0;
}
