/* Thread-local storage: `counter` (uninitialised) goes to .tbss, a NOBITS section
 * that takes no space in the file; `seed` (initialised) to .tdata, which does. */
__thread long counter[64];
__thread int seed = 7;

int main(int argc, char **argv) {
    (void)argv;
    counter[argc & 63] += seed;
    return (int)counter[1];
}
