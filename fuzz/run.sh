#!/usr/bin/env bash
# Runs the fuzz targets for a fixed time each, two at a time, and reports per target the
# executions, the coverage reached (cov/ft from libFuzzer's final stats) and the findings.
#
#   fuzz/run.sh SECONDS [TARGET...]     e.g. fuzz/run.sh 600, fuzz/run.sh 60 ksym_parse
#
# Every target starts from its committed seeds (fuzz/seeds/<target>/) plus what earlier
# runs found (fuzz/corpus/<target>/, not committed). A crash, timeout or out-of-memory
# input is saved under fuzz/artifacts/<target>/ and its path printed; the script then
# exits non-zero.
#
# Environment:
#   FUZZ_JOBS          targets run at once (default 2)
#   FUZZ_CORPUS_DIR    where corpora grow (default fuzz/corpus)
#   FUZZ_ARTIFACTS_DIR where findings go (default fuzz/artifacts)
#   FUZZ_LOG_DIR       where each target's libFuzzer log goes (default fuzz/target/logs)
#   FUZZ_NO_BUILD=1    skip `cargo fuzz build` (the binaries are already built)
#   FUZZ_REPORT_ONLY=1 run nothing; print the report of the logs already there
set -euo pipefail

here="$(cd "$(dirname "$0")" && pwd)"
seconds="${1:?usage: fuzz/run.sh SECONDS [TARGET...]}"
shift
jobs="${FUZZ_JOBS:-2}"
corpus_root="${FUZZ_CORPUS_DIR:-$here/corpus}"
artifacts_root="${FUZZ_ARTIFACTS_DIR:-$here/artifacts}"
log_root="${FUZZ_LOG_DIR:-$here/target/logs}"
# cargo fuzz needs a nightly compiler (sanitizer flags). Without a nightly toolchain the
# installed one is used with RUSTC_BOOTSTRAP=1, which enables the same flags.
if rustc +nightly -V >/dev/null 2>&1; then
  toolchain=(+nightly)
else
  toolchain=()
  export RUSTC_BOOTSTRAP=1
fi
triple="$(rustc "${toolchain[@]}" -vV | sed -n 's/^host: //p')"
bin_dir="$here/target/$triple/release"

all_targets=(
  ksym_parse lidia_parse cif_decode symbfile_parse gsym_parse gsym_lookup detect
  ksym_mutated ksym_roundtrip lidia_mutated lidia_roundtrip cif_roundtrip
  symbfile_mutated symbfile_roundtrip gsym_roundtrip
  build_ksym_text build_ksym_elf build_lidia_elf build_lidia_dwarf build_lidia_dwarf_companion
  size_load breakpad_reader
)
if [ $# -gt 0 ]; then targets=("$@"); else targets=("${all_targets[@]}"); fi

# libFuzzer flags per target: dictionary, input size, and for the builder targets the
# memory and time limits that turn runaway allocation or a hang into a finding.
flags_for() {
  local common=(-print_final_stats=1 -max_total_time="$seconds")
  case "$1" in
    ksym_parse | ksym_mutated) echo "${common[*]} -dict=$here/dicts/ksym.dict -max_len=8192" ;;
    lidia_parse | lidia_mutated) echo "${common[*]} -dict=$here/dicts/lidia.dict -max_len=8192" ;;
    gsym_parse | gsym_lookup) echo "${common[*]} -dict=$here/dicts/gsym.dict -max_len=8192" ;;
    cif_decode | cif_roundtrip) echo "${common[*]} -dict=$here/dicts/cif.dict -max_len=4096" ;;
    symbfile_parse | symbfile_mutated) echo "${common[*]} -dict=$here/dicts/symbfile.dict -max_len=8192" ;;
    ksym_roundtrip | lidia_roundtrip | symbfile_roundtrip | gsym_roundtrip) echo "${common[*]} -max_len=8192" ;;
    detect) echo "${common[*]} -dict=$here/dicts/detect.dict -max_len=8192" ;;
    breakpad_reader) echo "${common[*]} -dict=$here/dicts/breakpad.dict -max_len=8192" ;;
    size_load) echo "${common[*]} -max_len=16384 -rss_limit_mb=2048 -timeout=10" ;;
    build_ksym_text)
      echo "${common[*]} -dict=$here/dicts/text.dict -max_len=8192 -rss_limit_mb=2048 -timeout=10" ;;
    build_ksym_elf | build_lidia_elf)
      echo "${common[*]} -dict=$here/dicts/elf.dict -max_len=32768 -rss_limit_mb=2048 -timeout=10" ;;
    # The DWARF builder warns on stderr for every corrupt unit: keep its own stderr
    # closed (libFuzzer keeps reporting on a duplicate of it).
    build_lidia_dwarf)
      echo "${common[*]} -dict=$here/dicts/elf.dict -max_len=32768 -rss_limit_mb=2048 -timeout=10 -close_fd_mask=2" ;;
    build_lidia_dwarf_companion)
      echo "${common[*]} -dict=$here/dicts/elf.dict -max_len=65536 -rss_limit_mb=2048 -timeout=10 -close_fd_mask=2" ;;
    *) echo "unknown target $1" >&2; return 1 ;;
  esac
}

if [ "${FUZZ_REPORT_ONLY:-0}" = 1 ]; then FUZZ_NO_BUILD=1; fi
if [ "${FUZZ_NO_BUILD:-0}" != 1 ]; then
  # One named target builds alone; otherwise every target is built.
  build_args=()
  if [ ${#targets[@]} -eq 1 ]; then build_args=("${targets[0]}"); fi
  (cd "$here" && cargo "${toolchain[@]}" fuzz build "${build_args[@]}")
fi
mkdir -p "$corpus_root" "$artifacts_root" "$log_root"

# One target: seed the corpus, run libFuzzer, write "<status>" to the log's .status file.
run_one() {
  local target="$1"
  local corpus="$corpus_root/$target" artifacts="$artifacts_root/$target/"
  local log="$log_root/$target.log"
  mkdir -p "$corpus" "$artifacts"
  if [ -d "$here/seeds/$target" ]; then
    cp -n "$here/seeds/$target"/* "$corpus/" 2>/dev/null || true
  fi
  local status=0
  # shellcheck disable=SC2046
  RAYON_NUM_THREADS=1 "$bin_dir/$target" $(flags_for "$target") \
    -artifact_prefix="$artifacts" "$corpus" >"$log" 2>&1 || status=$?
  echo "$status" >"$log.status"
}

# A small job pool: at most $jobs targets at once.
for target in "${targets[@]}"; do
  [ "${FUZZ_REPORT_ONLY:-0}" = 1 ] && break
  flags_for "$target" >/dev/null
  while [ "$(jobs -rp | wc -l)" -ge "$jobs" ]; do wait -n || true; done
  echo "running $target for ${seconds}s"
  run_one "$target" &
done
wait

# Report.
failed=0
printf '\n%-18s %8s %12s %8s %8s %8s  %s\n' target seconds executions cov ft corpus findings
for target in "${targets[@]}"; do
  log="$log_root/$target.log"
  status="$(cat "$log.status" 2>/dev/null || echo 99)"
  # "#123 DONE cov: 456 ft: 789 corp: 10/2Kb ..." is the final line of a clean run; the
  # last "#N ..." stats line otherwise.
  stats="$(grep -E '^#[0-9]+' "$log" | tail -n 1 || true)"
  execs="$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -n 1)"
  [ -n "$execs" ] || execs="$(echo "$stats" | sed -n 's/^#\([0-9]*\).*/\1/p')"
  cov="$(echo "$stats" | sed -n 's/.*cov: \([0-9]*\).*/\1/p')"
  ft="$(echo "$stats" | sed -n 's/.*ft: \([0-9]*\).*/\1/p')"
  corp="$(echo "$stats" | sed -n 's/.*corp: \([0-9]*\).*/\1/p')"
  took="$(sed -n 's/^Done [0-9]* runs in \([0-9]*\) second.*/\1/p' "$log" | tail -n 1)"
  findings="none"
  if [ "$status" != 0 ]; then
    failed=1
    found="$(sed -n 's/.*Test unit written to \(.*\)/\1/p' "$log" | tail -n 1)"
    findings="exit $status: ${found:-see $log}"
  fi
  printf '%-18s %8s %12s %8s %8s %8s  %s\n' "$target" "${took:-?}" "${execs:-?}" \
    "${cov:-?}" "${ft:-?}" "${corp:-?}" "$findings"
done
if [ "$failed" != 0 ]; then
  echo
  for target in "${targets[@]}"; do
    log="$log_root/$target.log"
    if [ "$(cat "$log.status" 2>/dev/null || echo 99)" != 0 ]; then
      echo "=== $target: end of $log"
      tail -n 60 "$log"
      # The reproducer itself, so that it survives the machine: base64 of the input.
      found="$(sed -n 's/.*Test unit written to \(.*\)/\1/p' "$log" | tail -n 1)"
      if [ -n "$found" ] && [ -f "$found" ] && [ "$(stat -c %s "$found")" -le 65536 ]; then
        echo "--- $found, base64:"
        base64 "$found"
      fi
    fi
  done
  echo "fuzzing found problems; reproduce with: $bin_dir/<target> <artifact>"
fi
exit "$failed"
