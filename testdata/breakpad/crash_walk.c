/* The program of the Breakpad "real crash, walked" test (tests/it/breakpad/crash_walk.rs).

   Built with `-O2 -g -fomit-frame-pointer` for x86-64, it calls down a chain of
   functions, some kept out of line, some inlined into their callers:

     main -> handle_request -> [validate, inlined] -> compute_checksum
          -> [mix, inlined] -> spin_forever -> [wait_for_kill, inlined]

   and, in the deepest frame, writes one byte to standard output to tell the test it is
   there and spins until the test, having written a minidump of it, kills it.

   No function keeps a frame pointer, so only the call frame information (Breakpad's
   `STACK CFI` records) says where each frame's return address is. Every out-of-line
   function keeps a frame of its own (a `volatile` array on its stack, which also keeps
   its call from becoming a tail call) and fills it with addresses inside this program:
   a walker that scans the stack for return addresses takes those for callers and walks
   a chain that is not the real one. */
#include <stdint.h>
#include <unistd.h>

/* `noipa`: out of line and never cloned (no `.constprop`/`.isra` copy under another
   name), so each function is one frame under its source name. */
#define OUT_OF_LINE __attribute__((noipa))
#define INLINED static inline __attribute__((always_inline))

/* Never cleared: the deepest frame spins until the process is killed. */
volatile int keep_spinning = 1;

/* Never called; its address is the decoy "return address" planted in every frame. */
OUT_OF_LINE int decoy_target(int x) { return x * 3 + 1; }

/* Fills a frame's slots with addresses inside decoy_target: a stack scan finds them
   below the frame's true return address and stops at them first. */
#define PLANT_DECOYS(slots)                                                   \
  for (unsigned i_ = 0; i_ < sizeof(slots) / sizeof((slots)[0]); i_++)       \
    (slots)[i_] = (uintptr_t)&decoy_target + 1

INLINED void wait_for_kill(void) {
  while (keep_spinning) {
  }
}

OUT_OF_LINE int spin_forever(int seed) {
  volatile uintptr_t slots[6];
  PLANT_DECOYS(slots);
  /* The test waits for this byte; from here on the program stays in this frame. */
  if (write(1, "R", 1) != 1)
    return -1;
  wait_for_kill();
  return seed + (int)slots[seed & 3];
}

INLINED int mix(int x) {
  int r = spin_forever(x ^ 0x5a);
  return r * 7;
}

OUT_OF_LINE int compute_checksum(int x) {
  volatile uintptr_t slots[10];
  PLANT_DECOYS(slots);
  int r = mix(x + 11);
  return r + (int)slots[x & 7];
}

INLINED int validate(int x) {
  int r = compute_checksum(x * 5);
  return r - 1;
}

OUT_OF_LINE int handle_request(int x) {
  volatile uintptr_t slots[14];
  PLANT_DECOYS(slots);
  int r = validate(x + 2);
  return r ^ (int)slots[x & 7];
}

int main(int argc, char **argv) {
  (void)argv;
  volatile uintptr_t slots[4];
  PLANT_DECOYS(slots);
  int r = handle_request(argc);
  return r + (int)slots[argc & 3];
}
