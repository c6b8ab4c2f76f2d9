#!/usr/bin/env bash
# Regenerates every table of BENCHMARKS.md and docs/bench/scaling.png.
#
#   peers/run.sh            # everything (kernel, zstd, ripgrep, scaling)
#   SKIP_KERNEL=1 peers/run.sh
#   SECONDS_PER_TOOL=3 CHILDREN=5 peers/run.sh   # longer passes, more child processes
#
# Inputs are made or fetched into $WORK (default peers/target/bench), never into the
# repository:
#   * kernel  — the Debian cloud kernel's vmlinux with DWARF, from the
#               linux-image-<version>-cloud-amd64-dbg package (apt-get download), or the
#               file $VMLINUX names;
#   * zstd    — the zstd library (the sources the zstd-sys crate ships) and a small driver,
#               gcc -O2 -g;
#   * ripgrep — `cargo install ripgrep` with full debug info;
#   * scale-N — a generated C program of N functions with two levels of inlining.
# Output: $WORK/tables.md (the tables as they go into BENCHMARKS.md), $WORK/results.tsv.
set -euo pipefail

ROOT=$(cd "$(dirname "$0")/.." && pwd)
WORK=${WORK:-$ROOT/peers/target/bench}
MAIN_TARGET=${CARGO_TARGET_DIR:-$ROOT/target}
SECONDS_PER_TOOL=${SECONDS_PER_TOOL:-1.5}
CHILDREN=${CHILDREN:-3}
COUNT=${COUNT:-100000}
SCALES=${SCALES:-"1000 4000 16000 64000"}
GSYMUTIL=${GSYMUTIL:-llvm-gsymutil-14}
DUMP_SYMS=${DUMP_SYMS:-dump_syms}
mkdir -p "$WORK"
TABLES=$WORK/tables.md
TSV=$WORK/results.tsv
: >"$TABLES"
: >"$TSV"

echo "== building symblob and the peers harness" >&2
(cd "$ROOT" && CARGO_TARGET_DIR=$MAIN_TARGET cargo build --release -q -p symblob-build --bin symblob)
SYMBLOB=$MAIN_TARGET/release/symblob
(cd "$ROOT/peers" && CARGO_TARGET_DIR=$ROOT/peers/target cargo build --release -q)
PEERS=$ROOT/peers/target/release/symblob-peers
command -v "$GSYMUTIL" >/dev/null || { echo "$GSYMUTIL not found (apt-get install llvm-14)" >&2; exit 1; }

# --- inputs -------------------------------------------------------------------------

kernel() {
  if [[ -n ${VMLINUX:-} ]]; then echo "$VMLINUX"; return; fi
  local found
  found=$(find "$WORK/kernel" -path '*/usr/lib/debug/boot/vmlinux-*' 2>/dev/null | head -1 || true)
  if [[ -z $found ]]; then
    mkdir -p "$WORK/kernel"
    local pkg
    pkg=$(apt-cache depends linux-image-cloud-amd64-dbg 2>/dev/null |
      awk '/Depends: linux-image-[0-9]/ {print $2; exit}')
    [[ -n $pkg ]] || { echo "no cloud kernel debug package known to apt (apt-get update?)" >&2; return 1; }
    (cd "$WORK/kernel" && apt-get download "$pkg" >&2 && dpkg-deb -x ./*.deb x && rm -f ./*.deb)
    found=$(find "$WORK/kernel" -path '*/usr/lib/debug/boot/vmlinux-*' | head -1)
  fi
  echo "$found"
}

zstd_binary() {
  local out=$WORK/zstd/zstd-bench
  if [[ ! -x $out ]]; then
    local src
    src=$(cd "$ROOT/peers" && cargo metadata --format-version 1 2>/dev/null |
      python3 -c 'import json,sys,os; m=json.load(sys.stdin); print(next(os.path.dirname(p["manifest_path"]) for p in m["packages"] if p["name"]=="zstd-sys"))')
    mkdir -p "$WORK/zstd/obj"
    local lib=$src/zstd/lib
    find "$lib/common" "$lib/compress" "$lib/decompress" "$lib/dictBuilder" -name '*.c' |
      xargs -P2 -I{} sh -c 'gcc -O2 -g -DZSTD_DISABLE_ASM -I"$1" -c "$2" -o "$3/$(basename "$2" .c).o"' _ "$lib" {} "$WORK/zstd/obj"
    gcc -O2 -g -I"$lib" "$ROOT/peers/c/zstd_main.c" "$WORK"/zstd/obj/*.o -o "$out"
  fi
  echo "$out"
}

ripgrep_binary() {
  local out=$WORK/rg/bin/rg
  if [[ ! -x $out ]]; then
    CARGO_PROFILE_RELEASE_DEBUG=2 CARGO_TARGET_DIR=$WORK/rg-build \
      cargo install ripgrep --version 14.1.1 --locked --root "$WORK/rg" -q >&2
  fi
  echo "$out"
}

scale_binary() {
  local n=$1 dir=$WORK/scale/$1
  if [[ ! -x $dir/prog ]]; then
    "$PEERS" gen-c "$n" "$dir/src"
    mkdir -p "$dir/obj"
    ls "$dir"/src/*.c | xargs -P2 -I{} sh -c 'gcc -O2 -g -c "$1" -o "$2/$(basename "$1" .c).o"' _ {} "$dir/obj"
    gcc "$dir"/obj/*.o -o "$dir/prog" || return 1
  fi
  echo "$dir/prog"
}

# --- measurements -------------------------------------------------------------------

# compare LABEL ELF [REPEAT]: builds side by side, then lookups over their outputs.
compare() {
  local label=$1 elf=$2 repeat=${3:-3}
  local functions
  echo "== $label: $elf" >&2
  functions=$("$PEERS" functions "$elf")
  "$PEERS" builds --elf "$elf" --label "$label" --symblob "$SYMBLOB" --gsymutil "$GSYMUTIL" \
    --dump-syms "$DUMP_SYMS" --out-dir "$WORK/out" --repeat "$repeat" --functions "$functions" \
    --tsv "$TSV" | tee -a "$TABLES"
  local o=$WORK/out/$label
  # Its Breakpad symbol file read into Lidia, beside the two Rust parsers of `.sym` files.
  rm -f "$o.sym"
  "$SYMBLOB" breakpad build --quiet "$elf" -o "$o.sym"
  "$PEERS" sym-reads --sym "$o.sym" --symblob "$SYMBLOB" --out-dir "$WORK/out" --label "$label" \
    --repeat 5 | tee -a "$TABLES"
  "$PEERS" lookups --elf "$elf" --label "$label" --lidia "$o.lidia" --ksym "$o.ksym" \
    --gsym "$o.gsym" --symcache "$o.symcache" --count "$COUNT" --seconds "$SECONDS_PER_TOOL" \
    --children "$CHILDREN" \
    --work "$WORK/samples" --tsv "$TSV" | tee -a "$TABLES"
  # ksym-bin v2 of the same symbols, side by side with v1 and blazesym in one run.
  "$SYMBLOB" ksym build -q --format-version 2 "$elf" -o "$o.v2.ksym"
  "$PEERS" lookups --elf "$elf" --label "$label-ksym-v2" --ksym "$o.ksym" --ksym2 "$o.v2.ksym" \
    --tools symblob-ksym,symblob-ksym2,symblob-ksym-batch,symblob-ksym2-batch,symblob-ksym-formatted,symblob-ksym2-formatted,symblob-ksym-name-plain,symblob-ksym2-name,blazesym-name \
    --count "$COUNT" --seconds "$SECONDS_PER_TOOL" --children "$CHILDREN" \
    --work "$WORK/samples" | tee -a "$TABLES"
  # Name → address again on a blob without tokens (`--max-tokens 0`: every name whole).
  "$SYMBLOB" ksym build -q --max-tokens 0 "$elf" -o "$o-whole.ksym"
  "$PEERS" lookups --elf "$elf" --label "$label-ksym-whole" --ksym "$o-whole.ksym" \
    --tools symblob-ksym-name,symblob-ksym-name-plain,blazesym-name --count "$COUNT" \
    --seconds "$SECONDS_PER_TOOL" --children "$CHILDREN" \
    --work "$WORK/samples" | tee -a "$TABLES"
}

if [[ -z ${SKIP_KERNEL:-} ]]; then
  compare vmlinux "$(kernel)" 3
fi
compare zstd "$(zstd_binary)" 5
compare ripgrep "$(ripgrep_binary)" 3
for n in $SCALES; do
  compare "scale-$n" "$(scale_binary "$n")" 3
done

"$PEERS" checksums | tee -a "$TABLES"

mkdir -p "$ROOT/docs/bench"
"$PEERS" chart "$TSV" "$ROOT/docs/bench/scaling.png"
echo "== tables: $TABLES; chart: docs/bench/scaling.png" >&2
