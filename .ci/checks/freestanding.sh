#!/usr/bin/env bash
# The freestanding example, built the way a kernel is: link once with an all-zero .ksyms
# placeholder, build the blob of the linked file's text symbols with the `symblob` CLI,
# fill the placeholder with objcopy, run. Every printed frame is checked against nm, and
# every name lookup must match the program's own function pointers. The same linked program
# is filled once with a ksym-bin v1 blob and once with a v2 blob; both runs are checked alike.
set -euo pipefail
cd "$(dirname "$0")/../.."

if [ "$(uname -s)-$(uname -m)" != "Linux-x86_64" ]; then
  echo "skipped: the freestanding example is an x86_64 Linux program"
  exit 0
fi

fail() {
  echo "FAIL: $*" >&2
  exit 1
}

target="$(realpath -m "${CARGO_TARGET_DIR:-target}")"
(cd examples/freestanding &&
  env -u RUSTFLAGS -u CARGO_ENCODED_RUSTFLAGS CARGO_TARGET_DIR="$target/examples" \
    cargo build --release --locked)
cargo build --locked -p symblob-build --bin symblob
linked="$target/examples/x86_64-unknown-linux-gnu/release/freestanding"
symblob="$target/debug/symblob"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# 1. The placeholder: PROGBITS (a NOBITS section has no bytes to replace), and its size.
line=$(readelf -SW "$linked" | grep -F ' .ksyms ') || fail "no .ksyms section"
read -r type section_size < <(sed -E 's/.*\] +\.ksyms +([A-Z_]+) +[0-9a-f]+ +[0-9a-f]+ +([0-9a-f]+) .*/\1 \2/' <<<"$line")
[ "$type" = PROGBITS ] || fail ".ksyms is $type, not PROGBITS"
section_size=$((16#$section_size))
echo ".ksyms: PROGBITS, $section_size bytes"

# 2. Never filled: the program must say so and fail.
status=0
out=$("$linked") || status=$?
[ "$status" = 2 ] && [ "$out" = "no symbols embedded" ] ||
  fail "unfilled program printed '$out' with status $status"

# check_filled VERSION: fill the linked program with a ksym-bin blob of that format version,
# run it and check its output.
check_filled() {
  local version=$1 bin="$work/freestanding-v$1"
  local status out nm_lines text_end text_addr text_size frames frame addr name off size query
  local start next names l a marks
  echo "--- ksym-bin v$version"
  # 3. The post-link step: build the blob padded to the section, replace the section.
  "$symblob" ksym build "$linked" --format elf --demangle --format-version "$version" \
    --pad-to "$section_size" -o "$work/ksyms-v$version.bin"
  objcopy --update-section .ksyms="$work/ksyms-v$version.bin" "$linked" "$bin"

  # 4. Run and check.
  status=0
  out=$("$bin") || status=$?
  echo "$out"
  [ "$status" = 0 ] || fail "the program exited with status $status"
  grep -q MISMATCH <<<"$out" && fail "a name lookup disagrees with the function's address"
  [ "$(grep -c '^lookup_name .*: OK$' <<<"$out")" = 6 ] || fail "expected 6 name checks"
  grep -q "^symbols: .*, format: ksym-bin v$version\$" <<<"$out" ||
    fail "the program did not read the blob as ksym-bin v$version"
  # Stack high-water marks: all 8 measured (shown in the summary line below).
  mapfile -t marks < <(sed -n '/^stack high-water marks/,/^[^ ]/s/^  .*: \([0-9]*\)$/\1/p' <<<"$out")
  [ "${#marks[@]}" = 8 ] || fail "expected 8 stack high-water marks, got ${#marks[@]}"

  # Text symbols (nm -n -C, types T and t) and the end of the text section.
  mapfile -t nm_lines < <(nm -n -C "$bin" | grep -E '^[0-9a-f]+ [Tt] ')
  text_end=$(readelf -SW "$bin" | grep -F ' .text ' |
    sed -E 's/.*\] +\.text +[A-Z]+ +([0-9a-f]+) +[0-9a-f]+ +([0-9a-f]+) .*/\1 \2/')
  read -r text_addr text_size <<<"$text_end"
  text_end=$((16#$text_addr + 16#$text_size))

  frames=0
  while IFS= read -r frame; do
    # " [<00000000002148d2>] name+0x22/0x4b0", or "pc:  [<…>] …" for the program counter.
    [[ "$frame" =~ \[\<([0-9a-f]+)\>\]\ (.+)\+0x([0-9a-f]+)/0x([0-9a-f]+)$ ]] ||
      fail "unresolved frame: $frame"
    addr=$((16#${BASH_REMATCH[1]}))
    name=${BASH_REMATCH[2]}
    off=$((16#${BASH_REMATCH[3]}))
    size=$((16#${BASH_REMATCH[4]}))
    # Return addresses are looked up as ra - 1; the program counter as itself.
    query=$addr
    [[ "$frame" == pc:* ]] || query=$((addr - 1))
    start=-1 next=$text_end names=()
    for l in "${nm_lines[@]}"; do
      a=$((16#${l%% *}))
      if ((a <= query)); then
        ((a != start)) && names=()
        start=$a
        names+=("${l#* ? }")
      elif ((a > start)); then
        next=$a
        break
      fi
    done
    ((start >= 0)) || fail "$frame: no symbol at or below $query"
    printf '%s\n' "${names[@]}" | grep -qxF -- "$name" ||
      fail "$frame: nm names $(printf '%s, ' "${names[@]}")at $(printf %x $start)"
    ((off == addr - start)) || fail "$frame: offset should be $((addr - start))"
    ((next > text_end)) && next=$text_end
    ((size == next - start)) || fail "$frame: size should be $((next - start))"
    frames=$((frames + 1))
  done < <(grep -F '[<' <<<"$out")
  ((frames >= 6)) || fail "only $frames frames"
  echo "ok (v$version): $frames frames agree with nm; stack high-water marks: ${marks[*]}"
}

check_filled 1
check_filled 2
