//! A synthetic C program of any size, for the scaling chart: `functions` external
//! functions in files of 1,000, each calling always-inlined helpers that call smaller
//! always-inlined helpers (so the DWARF holds two levels of inlined subroutines and
//! line tables for all of them), and a `main` that reaches every function through a
//! table so none is dropped. Compile it with `gcc -O2 -g`.

use std::fmt::Write as _;
use std::path::Path;

/// Functions per source file.
const PER_FILE: usize = 1000;
/// Inlined helpers per source file.
const HELPERS: usize = 32;

/// Writes `main.c` and `part_<k>.c` files into `dir`.
pub fn generate(functions: usize, dir: &Path) -> Result<(), String> {
    std::fs::create_dir_all(dir).map_err(|e| format!("{}: {e}", dir.display()))?;
    let files = functions.div_ceil(PER_FILE);
    let mut main = String::from("/* Generated: the scaling benchmark's program. */\n");
    for k in 0..files {
        let first = k * PER_FILE;
        let last = functions.min(first + PER_FILE);
        let mut src = String::from("/* Generated: the scaling benchmark's program. */\n");
        // Leaves first: every `mid_h` calls the leaf after its own.
        for h in 0..HELPERS {
            let _ = writeln!(
                src,
                "static inline __attribute__((always_inline)) int leaf_{h}(int x) {{\n  \
                 return (x * {m}) ^ (x >> {s});\n}}",
                m = 2 * h + 3,
                s = h % 7 + 1
            );
        }
        for h in 0..HELPERS {
            let _ = writeln!(
                src,
                "static inline __attribute__((always_inline)) int mid_{h}(int x) {{\n  \
                 int y = leaf_{h}(x);\n  return y + leaf_{n}(y + {h});\n}}",
                n = (h + 1) % HELPERS
            );
        }
        for i in first..last {
            let _ = writeln!(
                src,
                "int fn_{i}(int x) {{\n  int s = {i};\n  for (int t = 0; t < (x & 7); t++)\n    \
                 s += mid_{a}(x + t);\n  return s - mid_{b}(x);\n}}",
                a = i % HELPERS,
                b = (i * 7 + 3) % HELPERS
            );
            let _ = writeln!(main, "int fn_{i}(int);");
        }
        let path = dir.join(format!("part_{k}.c"));
        std::fs::write(&path, src).map_err(|e| format!("{}: {e}", path.display()))?;
    }
    main.push_str("static int (*const table[])(int) = {\n");
    for i in 0..functions {
        let _ = writeln!(main, "  fn_{i},");
    }
    let _ = writeln!(
        main,
        "}};\nint main(int argc, char **argv) {{\n  (void)argv;\n  \
         return table[(unsigned)argc % {functions}u](argc);\n}}"
    );
    let path = dir.join("main.c");
    std::fs::write(&path, main).map_err(|e| format!("{}: {e}", path.display()))
}
