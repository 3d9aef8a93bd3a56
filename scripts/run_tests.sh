#!/bin/sh
# Run every test of `make check`: the Check binaries given as arguments, then the
# shell and Python tests. Usage: scripts/run_tests.sh BUILD_DIR TEST_BIN...
# Prints one line per test and a summary; exits non-zero if any failed.
set -u
build=$1; shift
failed=""
passed=0
run() {
    name=$1; shift
    log="$build/tb/$name.log"
    mkdir -p "$build/tb"
    if "$@" >"$log" 2>&1; then
        passed=$((passed + 1)); echo "PASS  $name"
    else
        failed="$failed $name"; echo "FAIL  $name (log: $log)"; sed 's/^/    | /' "$log" | tail -n 40
    fi
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
