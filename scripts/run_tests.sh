#!/bin/sh
# Run every test of `make check`: the Check binaries given as arguments, then the
# shell and Python tests. Usage: scripts/run_tests.sh BUILD_DIR TEST_BIN...
# Prints one line per test and a summary; exits non-zero if any failed.
# Each test runs with TMPDIR set to a folder of its own inside one private folder,
# removed when this script ends, however it ends: what a test leaves there (a failed
# test that stopped before cleaning up) does not stay behind; leftovers of a test that
# passed are named, as a test should remove its temporaries itself.
set -u
build=$1; shift
failed=""
passed=0
tmp=$(mktemp -d "${TMPDIR:-/tmp}/gdsim-tests-XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT
trap 'exit 130' HUP INT TERM
run() {
    name=$1; shift
    log="$build/tb/$name.log"
    mkdir -p "$build/tb" "$tmp/$name"
    if TMPDIR="$tmp/$name" "$@" >"$log" 2>&1; then
        passed=$((passed + 1)); echo "PASS  $name"
        left=$(ls -A "$tmp/$name")
        [ -z "$left" ] || echo "      note: $name left in its TMPDIR (removed now):" $left
    else
        failed="$failed $name"; echo "FAIL  $name (log: $log)"; sed 's/^/    | /' "$log" | tail -n 40
    fi
    rm -rf "$tmp/$name"
}
for t in "$@"; do
    run "$(basename "$t")" "$t"
done
for t in tb/test_*.sh; do
    [ -e "$t" ] && run "$(basename "$t")" sh "$t" "$build"
done
for t in tb/test_*.py; do
    [ -e "$t" ] && run "$(basename "$t")" python3 "$t" "$build"
done
if [ -n "$failed" ]; then
    echo "make check: $passed passed, FAILED:$failed"
    exit 1
fi
echo "make check: all $passed test programs passed"
