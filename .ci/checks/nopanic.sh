#!/usr/bin/env bash
# The reader's panic freedom, proven at link time, and the no_std link check.
#
# examples/nopanic is a #![no_std] #![no_main], panic = "abort" program without libc or
# allocator that feeds standard input to every public entry point of the reader. Its panic
# handler calls `symblob_reader_panicked`, which is defined nowhere: with fat LTO and one
# codegen unit, the link succeeds only if no panic is reachable from those entry points.
# A negative control (one panicking index) must fail to link, and the program, run on the
# project's golden blobs, must print the origin reader's dumps, verify Lidia checksums and
# validate the GSYM seeds.
set -euo pipefail
cd "$(dirname "$0")/../.."

if [ "$(uname -s)-$(uname -m)" != "Linux-x86_64" ]; then
  echo "skipped: the no-panic program is an x86_64 Linux program"
  exit 0
fi

target="$(realpath -m "${CARGO_TARGET_DIR:-target}")/examples"
bin="$target/x86_64-unknown-linux-gnu/release/nopanic"
build() {
  # The example's .cargo/config.toml carries its flags; outer RUSTFLAGS would replace them.
  (cd examples/nopanic &&
    env -u RUSTFLAGS -u CARGO_ENCODED_RUSTFLAGS CARGO_TARGET_DIR="$target" \
      cargo build --release --locked "$@")
}

echo "link with an undefined panic handler (LTO, codegen-units = 1, opt-level 3)"
build
echo "ok: no panic path is reachable from the reader's entry points"

echo "negative control: a reachable panic must make the link fail"
if log=$(build --features panic-control 2>&1); then
  echo "FAIL: the control program linked; the check proves nothing" >&2
  exit 1
fi
grep -q "undefined symbol: symblob_reader_panicked" <<<"$log" || {
  echo "FAIL: the control program failed for another reason:" >&2
  echo "$log" >&2
  exit 1
}
echo "ok: the control program's panic was caught"
# Leave the real program as the last build in the target directory.
build >/dev/null 2>&1

echo "run on the golden ksym blobs: dumps equal the origin reader's"
for blob in testdata/ksym/origin/*.bin; do
  "$bin" <"$blob" | sed -n '/^ksym dump:$/,/^ksym dump end$/{//!p}' |
    cmp -s - "${blob%.bin}.dump.txt" || {
    echo "FAIL: dump of $blob differs from ${blob%.bin}.dump.txt" >&2
    exit 1
  }
done

# require_summary FILE OUTPUT FORMAT PATTERN: the program's OUTPUT on FILE must have the
# summary line PATTERN of a full decode; else fail, showing the lines of FORMAT.
require_summary() {
  grep -q "$4" <<<"$2" || {
    echo "FAIL: $1: $(grep "^$3" <<<"$2")" >&2
    exit 1
  }
}

echo "run on the Lidia files: every one parses, checksums verify"
for file in testdata/lidia/lidia/*.lidia; do
  out=$("$bin" <"$file")
  require_summary "$file" "$out" lidia "^lidia: [0-9]* ranges"
  if grep -q "^lidia checksums:" <<<"$out"; then
    echo "FAIL: $file: $(grep '^lidia checksums:' <<<"$out")" >&2
    exit 1
  fi
done
echo "ok"

echo "run on the symbfiles symblib wrote: every one decodes in full"
for file in testdata/symbfile/symblib/*.symbfile; do
  out=$("$bin" <"$file")
  require_summary "$file" "$out" symbfile "^symbfile: [0-9]* ranges, [0-9]* return pads"
done
echo "ok"

echo "run on one file of each format: detection names it"
# require_detected FILE NAME: the program must say `detect: NAME` for FILE.
require_detected() {
  out=$("$bin" <"$1")
  grep -qx "detect: $2" <<<"$out" || {
    echo "FAIL: $1: $(grep '^detect' <<<"$out"), not $2" >&2
    exit 1
  }
}
require_detected "$(ls testdata/ksym/origin/*.bin | head -n 1)" ksym-bin
require_detected "$(ls testdata/lidia/lidia/*.lidia | head -n 1)" lidia
require_detected "$(ls testdata/symbfile/symblib/*.symbfile | head -n 1)" symbfile
require_detected "$(ls fuzz/seeds/gsym_parse/*.gsym | head -n 1)" gsym
require_detected fuzz/seeds/cif_decode/basic.cif cif
require_detected testdata/ksym/input/seed-3.nm SymbolText
require_detected testdata/lidia/elf/simple Elf
echo "ok"

echo "run on the GSYM seeds (llvm-gsymutil's output, both byte orders): every one validates"
for file in fuzz/seeds/gsym_parse/*.gsym; do
  out=$("$bin" <"$file")
  require_summary "$file" "$out" gsym "^gsym: [0-9]* functions, [0-9]* lookups"
  if grep -q "^gsym validate:" <<<"$out"; then
    echo "FAIL: $file: $(grep '^gsym validate:' <<<"$out")" >&2
    exit 1
  fi
done
echo "ok"
