#!/bin/sh
# Compiles the C, C++ and Rust DWARF test programs of testdata/dwarf/ (and testdata/symbfile/) into the
# committed inputs of testdata/golden/inputs/, so that the golden test needs no compiler.
# The tests that compile these programs at test time build the same sources with the same
# flags; here the build directory is mapped to `.` in the debug information, so that the
# files do not depend on where they were built.
#
# Run from the repository root: sh testdata/golden/compile-inputs.sh
# Rerun only when an input has to change; then regenerate the outputs (make.sh).
set -eu
root=$(pwd)
out=$root/testdata/golden/inputs
build=$(mktemp -d)
trap 'rm -rf "$build"' EXIT
cp "$root"/testdata/dwarf/*.c "$root"/testdata/dwarf/*.h "$root"/testdata/dwarf/*.S \
    "$root"/testdata/dwarf/*.cpp "$root"/testdata/dwarf/*.rs "$root"/testdata/symbfile/aarch64_double.c "$build"/
mkdir -p "$build/go" && cp "$root"/testdata/dwarf/go/main.go "$build/go/"
cd "$build"
map="-ffile-prefix-map=$build=."
c_sources="main.c other.c"

gcc -c $map asm_double.S -o asm_double.o
gcc -O2 -g -gdwarf-5 $map $c_sources asm_double.o -o "$out/c-gcc-dwarf5"
gcc -O2 -g -gdwarf-4 $map $c_sources asm_double.o -o "$out/c-gcc-dwarf4"
gcc -O2 -g -gz=zlib $map $c_sources asm_double.o -o "$out/c-gcc-gz-zlib"
clang-14 -O2 -g $map $c_sources asm_double.o -o "$out/c-clang"
aarch64-linux-gnu-gcc -O2 -g $map $c_sources asm_double_aarch64.S -o "$out/c-aarch64"
aarch64-linux-gnu-gcc -O2 -g $map $c_sources aarch64_double.c -o "$out/c-aarch64-svc"
g++ -O2 -g $map shapes.cpp -o "$out/cpp-gxx"
clang++-14 -O2 -g -fdebug-types-section -gdwarf-5 $map shapes.cpp -o "$out/cpp-clang5-types"
g++ -O2 -g -fdebug-types-section -gdwarf-4 $map shapes.cpp -o "$out/cpp-gxx4-types"
# Linked against the shared standard library, so that the file holds the DWARF of this
# crate only (statically linked, the standard library's DWARF makes it 4.8 MB).
rustc -C opt-level=2 -g --edition 2021 -C prefer-dynamic --remap-path-prefix "$build=." iters.rs -o "$out/rust"
gcc $map nested.S -o "$out/nested"

# The C program stripped, with its debug file beside it (.gnu_debuglink).
objcopy --only-keep-debug "$out/c-gcc-dwarf5" "$out/c-stripped.debug"
objcopy --strip-debug --add-gnu-debuglink="$out/c-stripped.debug" "$out/c-gcc-dwarf5" "$out/c-stripped"

# Split DWARF packaged by llvm-dwp (Clang, DWARF 5).
mkdir dwp && (cd dwp && clang-14 -O2 -g -gsplit-dwarf -gdwarf-5 "-ffile-prefix-map=$build/dwp=." \
    ../main.c ../other.c ../asm_double.o -o prog && timeout 120 llvm-dwp-14 -e prog -o prog.dwp)
cp dwp/prog "$out/dwp-clang5"
cp dwp/prog.dwp "$out/dwp-clang5.dwp"

# dwz -m: two programs sharing a supplementary file (.gnu_debugaltlink).
mkdir dwz && (cd dwz \
    && gcc -O2 -g -gdwarf-5 "-ffile-prefix-map=$build/dwz=." ../main.c ../other.c ../asm_double.o -o o2 \
    && gcc -O1 -g -gdwarf-5 "-ffile-prefix-map=$build/dwz=." ../main.c ../other.c ../asm_double.o -o o1 \
    && timeout 120 dwz -m common.debug -r o2 o1)
cp dwz/o2 "$out/dwz5-o2"
cp dwz/common.debug "$out/dwz5-common.debug"

