#!/bin/sh
# Run the tests of `make check`, N at a time.
# Usage: scripts/run_tests.sh [-j N] BUILD_DIR TEST...
# A TEST is a program (run as it is), a *.sh (run with sh) or a *.py (with python3); each
# is given BUILD_DIR and started in the order given (make check lists the longest
# first). A line per test as it ends: PASS or FAIL, its name and its time; then the
# last lines of each failed test's log (BUILD_DIR/tb/NAME.log), the ten slowest tests
# and one summary line (N passed, M failed). Exits 1 if any failed.
# Each test runs with TMPDIR set to a folder of its own inside one private folder,
# removed when this script ends, however it ends: what a test leaves there (a failed
# test that stopped before cleaning up) does not stay behind; leftovers of a test that
# passed are named, as a test should remove its temporaries itself. Interrupted, the
# tests still running are stopped (SIGTERM to their process group).
set -u
now() { date +%s.%N; }

if [ "${1:-}" = "--one" ]; then
    # one test (xargs starts these): --one BUILD_DIR PRIVATE_DIR TEST
    build=$2; tmp=$3; t=$4
    name=$(basename "$t")
    log="$build/tb/$name.log"
    mkdir -p "$build/tb" "$tmp/t/$name"
    case "$t" in
        *.sh) set -- sh "$t" "$build" ;;
        *.py) set -- python3 "$t" "$build" ;;
        *) set -- "$t" ;;
    esac
    start=$(now)
    if TMPDIR="$tmp/t/$name" "$@" >"$log" 2>&1 </dev/null; then st=pass; else st=fail; fi
    secs=$(awk -v a="$start" -v b="$(now)" 'BEGIN { printf "%.1f", b - a }')
    if [ $st = pass ]; then
        left=$(ls -A "$tmp/t/$name")
        note=""
        [ -z "$left" ] || note=$(printf '\n      note: %s left in its TMPDIR (removed now): %s' "$name" "$(echo $left)")
        printf 'PASS  %-26s %6s s%s\n' "$name" "$secs" "$note"
    else
        printf 'FAIL  %-26s %6s s (log: %s)\n' "$name" "$secs" "$log"
    fi
    rm -rf "$tmp/t/$name"
    printf '%s %s %s\n' "$st" "$secs" "$log" >"$tmp/r/$name"
    exit 0
fi

jobs=1
if [ "${1:-}" = "-j" ]; then
    jobs=${2:-}; shift 2
fi
case "$jobs" in
    '' | *[!0-9]* | 0*) echo "run_tests.sh: -j wants a positive number of tests at a time (got '$jobs')" >&2; exit 2 ;;
esac
[ $# -ge 1 ] || { echo "usage: scripts/run_tests.sh [-j N] BUILD_DIR TEST..." >&2; exit 2; }
build=$1; shift
tmp=$(mktemp -d "${TMPDIR:-/tmp}/gdsim-tests-XXXXXX") || exit 1
mkdir -p "$tmp/t" "$tmp/r"
pool=""
# the processes of the pool's session (a test's own process groups too, e.g. timeout's)
session() {
    for f in /proc/[0-9]*/stat; do
        s=$(cat "$f" 2>/dev/null) || continue
        # after the command's name in parentheses: state, parent, group, session
        set -- ${s##*) }
        [ "${4:-}" = "$pool" ] && p=${f#/proc/} && echo "${p%/stat}"
    done
}
stop() {  # stop EXIT_STATUS
    trap '' HUP INT TERM
    if [ -n "$pool" ]; then
        kill -TERM $(session) 2>/dev/null
        wait "$pool" 2>/dev/null
    fi
    exit "$1"
}
trap 'rm -rf "$tmp"' EXIT
trap 'stop 129' HUP
trap 'stop 130' INT
trap 'stop 143' TERM
start=$(now)
# The pool in a session of its own (setsid), so that an interruption stops every test
# it started: a Ctrl-C reaches this script, which passes it on. Its signals as in the
# foreground: the shell starts a background command with SIGINT and SIGQUIT ignored,
# which env --default-signal undoes (coreutils 8.31; without it they stay ignored).
printf '%s\n' "$@" >"$tmp/list"
dflt=""
env --default-signal=INT,QUIT true 2>/dev/null && dflt="env --default-signal=INT,QUIT"
setsid $dflt xargs -d '\n' -P "$jobs" -I{} sh "$0" --one "$build" "$tmp" {} <"$tmp/list" &
pool=$!
wait "$pool"
pool=""
passed=0
failed=""
for t in "$@"; do
    name=$(basename "$t")
    if [ -f "$tmp/r/$name" ] && read -r st secs log <"$tmp/r/$name" && [ "$st" = pass ]; then
        passed=$((passed + 1))
    else
        failed="$failed $name"
        if [ -f "$tmp/r/$name" ]; then
            echo "--- $name (log: $build/tb/$name.log), its last lines:"
            tail -n 40 "$build/tb/$name.log" | sed 's/^/    | /'
        else
            echo "--- $name: no result (the test runner was stopped)"
        fi
    fi
done
total=$(awk -v a="$start" -v b="$(now)" 'BEGIN { printf "%.0f", b - a }')
echo "slowest tests:"
for f in "$tmp"/r/*; do
    [ -f "$f" ] && read -r st secs log <"$f" && printf '%8s s  %s\n' "$secs" "$(basename "$f")"
done | sort -rn | head -n 10
nfailed=$(echo $failed | wc -w)
echo "make check: $passed passed, $nfailed failed, $jobs at a time, in $total s${failed:+ (failed:$failed)}"
[ -z "$failed" ]
