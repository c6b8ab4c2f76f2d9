#!/usr/bin/env bash
# Fuzzing: builds every cargo-fuzz target (fuzz/) and runs each for a bounded time from
# its committed seeds, two at a time. Any crash, timeout or out-of-memory input fails the
# check; the log names the reproducer (kept under fuzz/artifacts/) and prints it in
# base64. FUZZ_SECONDS sets the time per target (default 45).
set -euo pipefail
cd "$(dirname "$0")/../.."

if ! command -v cargo-fuzz >/dev/null 2>&1; then
  cargo install cargo-fuzz --locked
fi
cargo fuzz --version

# The corpora grow in a scratch directory, so the work tree stays as it was.
scratch="$(mktemp -d)"
trap 'rm -rf "$scratch"' EXIT
FUZZ_CORPUS_DIR="$scratch/corpus" FUZZ_LOG_DIR="$scratch/logs" \
  bash fuzz/run.sh "${FUZZ_SECONDS:-45}"
