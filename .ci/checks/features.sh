#!/usr/bin/env bash
# The cargo features of symblob-build: the library with none of them, and with each one
# alone, compiles without a warning (its unit tests too); a `build.rs` that writes
# ksym-bin from an ELF file (the `ksym` feature alone, as the `ksym_from_elf` example
# does) compiles neither the heavy dependencies of the other sources and writers nor
# those of the command line, and writes the bytes the command line writes.
set -euo pipefail
cd "$(dirname "$0")/../.."

fail() {
  echo "FAIL: $*" >&2
  exit 1
}

# The features, as builder/Cargo.toml declares them (every `name = ` line of its
# [features] table but `default`).
mapfile -t features < <(
  sed -n '/^\[features\]/,/^\[/{s/^\([a-z][a-z0-9_-]*\) = .*/\1/p}' builder/Cargo.toml |
    grep -vx default
)
((${#features[@]} >= 10)) || fail "found only ${#features[@]} features in builder/Cargo.toml"

# `cargo check` replays the warnings of a crate it does not recompile, so a clean run
# means no warnings whether or not the target directory was warm.
check() {
  local what=$1
  shift
  local log
  log=$(cargo check --locked --quiet -p symblob-build --no-default-features "$@" 2>&1) ||
    fail "$what does not compile:"$'\n'"$log"
  [ -z "$log" ] || fail "$what compiles with warnings:"$'\n'"$log"
  echo "ok: $what"
}

check "no features" --lib --tests
for feature in "${features[@]}"; do
  check "--features $feature" --lib --tests --features "$feature"
done
check "the ksym_from_elf example with --features ksym" --features ksym --example ksym_from_elf

# What the library compiles with no feature, and with `ksym` alone: none of these.
heavy='gimli|rayon|rayon-core|iced-x86|sha2|serde|serde_core|serde_derive|serde_json|base64|crc32c|clap|indicatif|console|ureq|zstd|csv|tokio|axum|hyper|object_store|reqwest'
for set in "" ksym; do
  tree=$(cargo tree --locked -p symblob-build --no-default-features ${set:+--features "$set"} \
    -e normal --prefix none)
  found=$(awk '{print $1}' <<<"$tree" | sort -u | grep -xE "$heavy" || true)
  [ -z "$found" ] || fail "symblob-build with features '${set}' depends on:"$'\n'"$found"
  echo "ok: features '${set}': $(awk '{print $1}' <<<"$tree" | sort -u | wc -l) crates, none of $heavy"
done

# The example built with `ksym` alone writes, for every test ELF file with symbols, the
# bytes of `symblob ksym build --format elf --demangle` (which refuses a file without
# symbols; the library writes an empty blob).
target="$(realpath -m "${CARGO_TARGET_DIR:-target}")"
cargo build --locked --quiet -p symblob-build --no-default-features --features ksym \
  --example ksym_from_elf
cargo build --locked --quiet -p symblob-build --bin symblob
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
same=0
for elf in testdata/lidia/elf/* testdata/golden/inputs/*; do
  [ -f "$elf" ] && [ "$(head -c 4 "$elf")" = $'\x7fELF' ] || continue
  "$target/debug/symblob" ksym build "$elf" --format elf --demangle -o "$work/cli.bin" \
    2>/dev/null || continue
  "$target/debug/examples/ksym_from_elf" "$elf" "$work/example.bin" 2>/dev/null ||
    fail "ksym_from_elf failed on $elf"
  cmp -s "$work/cli.bin" "$work/example.bin" ||
    fail "ksym_from_elf (ksym alone) and the command line differ on $elf"
  same=$((same + 1))
done
((same >= 10)) || fail "only $same test ELF files compared"
echo "ok: ksym_from_elf built with ksym alone writes the command line's bytes for $same ELF files"
