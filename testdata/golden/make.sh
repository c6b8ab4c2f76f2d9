#!/bin/sh
# Writes testdata/golden/outputs/ from testdata/golden/cases.txt with a `symblob` binary:
# each case runs with the repository root as the current directory, `$T/` replaced by
# `testdata/` and `$O/` by an empty directory of its own; what the case leaves there (and
# its standard output, as `stdout`, when not empty, with `$O/` for the directory) becomes `outputs/NAME/`.
#
# Run from the repository root: sh testdata/golden/make.sh [SYMBLOB]
# (default target/debug/symblob). Regenerate only when an issue changes an output on
# purpose, and name that issue in the commit and in README.md.
set -eu
symblob=${1:-target/debug/symblob}
golden=testdata/golden
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
rm -rf "$golden/outputs"
mkdir -p "$golden/outputs"
set -f
grep -v '^[[:space:]]*\(#\|$\)' "$golden/cases.txt" | while read -r name args; do
    out=$scratch/$name
    mkdir -p "$out"
    # shellcheck disable=SC2086 # the arguments are split at spaces on purpose
    set -- $(printf '%s\n' "$args" | sed -e "s|\\\$T/|testdata/|g" -e "s|\\\$O/|$out/|g")
    # SuperSize archives record the ELF's mtime: every input gets the same one
    # (2026-01-01 00:00:00 UTC, the golden test's INPUT_MTIME).
    for arg in "$@"; do
        case $arg in testdata/*) [ -f "$arg" ] && touch -d @1767225600 "$arg" ;; esac
    done
    if ! "$symblob" "$@" >"$out/stdout"; then
        echo "case $name failed: symblob $*" >&2
        exit 1
    fi
    # What it prints names the output directory as `$O/`, as the case does.
    if [ -s "$out/stdout" ]; then
        sed -i "s|$out/|\$O/|g" "$out/stdout"
    else
        rm "$out/stdout"
    fi
    cp -R "$out" "$golden/outputs/$name"
done
du -sh "$golden"
