#!/bin/sh
# Nothing left behind in the temporary folder: the scripts that work in a temporary
# folder (validate.py, compare_condensed.py and compare_policies.py without --keep), the
# Python tests and the test runner remove what they made there, when they succeed and
# when they fail. Each runs with TMPDIR set to a fresh empty folder, which must be empty
# afterwards.
# Usage: sh tb/test_tmp_clean.sh BUILD_DIR
set -u
B=${1:-build}
G=$B/gdsim
ROOT=$(pwd)
D=$(mktemp -d)
trap 'rm -rf "$D"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
E=$D/tmp       # the TMPDIR of what is checked
mkdir -p "$E" "$D/out"
# clean WHAT: the folder is empty; else name what was left and fail
clean() {
    left=$(cd "$E" && find . -mindepth 1 | sort)
    [ -z "$left" ] || { echo "$left" | sed 's/^/    /'; rm -rf "$E"; mkdir -p "$E"; fail "$1 left the above in TMPDIR"; }
}
tmprun() { TMPDIR=$E "$@"; }
CAP=tb/data/kineto/a100_multistream_events_3_kernels.json.gz

# validate.py: a comparison that runs, one whose replay fails, and --keep "" (no folder)
tmprun python3 scripts/validate.py "$CAP" --gdsim "$G" >"$D/out/v.txt" 2>&1 || { cat "$D/out/v.txt"; fail "validate.py"; }
clean "validate.py"
tmprun python3 scripts/validate.py "$CAP" --gdsim /bin/false >"$D/out/v.txt" 2>&1 && fail "validate.py: a failed replay exits 0"
grep -q "replay failed" "$D/out/v.txt" || { cat "$D/out/v.txt"; fail "validate.py: a failed replay not reported"; }
clean "validate.py, the replay failing"
tmprun python3 scripts/validate.py "$CAP" --gdsim "$G" --keep "" >"$D/out/v.txt" 2>&1 || { cat "$D/out/v.txt"; fail "validate.py --keep ''"; }
clean "validate.py --keep ''"
echo "validate.py: ok"

# compare_condensed.py: a comparison, and one whose gdsim fails
python3 scripts/compare_condensed.py --kripke "$D/out/kr.gdt.gz" --iterations 10 || fail "kripke trace"
tmprun python3 scripts/compare_condensed.py "$D/out/kr.gdt.gz" --gdsim "$G" --json >"$D/out/kr.json" ||
    fail "compare_condensed.py"
grep -q '"condensed"' "$D/out/kr.json" || fail "compare_condensed.py: no comparison"
clean "compare_condensed.py"
tmprun python3 scripts/compare_condensed.py "$D/out/kr.gdt.gz" --gdsim /bin/false >/dev/null 2>&1 &&
    fail "compare_condensed.py: a failed gdsim exits 0"
clean "compare_condensed.py, gdsim failing"
echo "compare_condensed.py: ok"

# compare_policies.py: a comparison, and one whose replays fail
tmprun python3 scripts/compare_policies.py traces/topologies/image.topo --lengths 1 --gdsim "$G" --csv \
    >"$D/out/p.csv" || fail "compare_policies.py"
clean "compare_policies.py"
tmprun python3 scripts/compare_policies.py traces/topologies/image.topo --lengths 1 --gdsim /bin/false \
    >/dev/null 2>&1 && fail "compare_policies.py: a failed gdsim exits 0"
clean "compare_policies.py, gdsim failing"
echo "compare_policies.py: ok"

# the Python tests that work in a temporary folder, failing at their first replay (a
# build folder with the library but no gdsim), and two that pass without a build
mkdir -p "$D/halfbuild"
ln -s "$(cd "$B" && pwd)/libgdsim.so" "$D/halfbuild/libgdsim.so"
for t in tb/test_clusters.py tb/test_fragment.py tb/test_gen_trace.py tb/test_power.py tb/test_python.py \
         tb/test_sched.py tb/test_split.py; do
    tmprun python3 "$t" "$D/halfbuild" >/dev/null 2>&1 && fail "$t passed without gdsim"
    clean "$t, failing"
done
for t in tb/test_admission_pairs.py tb/test_calibrate.py; do
    tmprun python3 "$t" "$B" >"$D/out/a.txt" 2>&1 || { cat "$D/out/a.txt"; fail "$t"; }
    clean "$t"
done
echo "Python tests, failing and passing: ok"

# scripts/run_tests.sh gives each test a TMPDIR of its own and removes it: what a failed
# test left is gone, what a passing one left is named; interrupted, it still cleans up.
# Interrupted, the tests still running stop too, also those in a process group of their
# own (the slow one runs its loop under timeout, which makes one).
mkdir -p "$D/runner"
printf '#!/bin/sh\n: >"$TMPDIR/left_by_a_pass"\n' >"$D/pass_leaves"
printf '#!/bin/sh\nmkdir "$TMPDIR/left_by_a_failure"\nexit 1\n' >"$D/fail_leaves"
# (slow: runs until told to stop, so the runner is interrupted while it runs)
printf '#!/bin/sh\n: >"$TMPDIR/left_by_a_slow_one"\n: >"%s/started"\nexec timeout 60 sh -c '"'"'n=0; while [ ! -e "%s/stop" ] && [ $n -lt 300 ]; do sleep 0.1; n=$((n + 1)); done; : >"%s/finished"'"'"'\n' \
    "$D" "$D" "$D" >"$D/slow"
chmod +x "$D/pass_leaves" "$D/fail_leaves" "$D/slow"
(cd "$D/runner" && tmprun sh "$ROOT/scripts/run_tests.sh" "$D/runner/b" "$D/pass_leaves" "$D/fail_leaves") \
    >"$D/out/r.txt" 2>&1 && { cat "$D/out/r.txt"; fail "run_tests.sh: a failed test, exit 0"; }
grep -q "^PASS  pass_leaves" "$D/out/r.txt" && grep -q "note: pass_leaves left .*left_by_a_pass" "$D/out/r.txt" &&
    grep -q "^FAIL  fail_leaves" "$D/out/r.txt" || { cat "$D/out/r.txt"; fail "run_tests.sh: report"; }
clean "run_tests.sh"
(cd "$D/runner" && exec env TMPDIR="$E" sh "$ROOT/scripts/run_tests.sh" "$D/runner/b" "$D/slow") >/dev/null 2>&1 &
pid=$!
n=0
while [ ! -e "$D/started" ] && [ $n -lt 100 ]; do sleep 0.1; n=$((n + 1)); done
[ -e "$D/started" ] || fail "run_tests.sh: the test did not start"
kill -TERM "$pid"
wait "$pid"
rc=$?
: >"$D/stop"
sleep 0.5
[ "$rc" -eq 143 ] || fail "run_tests.sh: interrupted by SIGTERM, exit $rc (not 143)"
[ -e "$D/finished" ] && fail "run_tests.sh: interrupted, the running test went on to its end"
clean "run_tests.sh, interrupted"
echo "run_tests.sh: ok"
echo "tmp clean: ok"
