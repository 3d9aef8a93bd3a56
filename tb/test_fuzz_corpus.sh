#!/bin/sh
# The fuzz harnesses (tb/fuzz/fuzz_*.c) built as plain programs with gcc (tb/fuzz/
# driver.c; `make check` builds them) replay the committed corpus: tb/fuzz/corpus/NAME/
# (seeds and every input a fuzzing campaign found to crash, kept as regressions), the
# bad-input suite tb/bad/, and the bundled examples. Each harness takes any bytes, so
# each replays all of them; a broken invariant aborts and names the input.
# Usage: sh tb/test_fuzz_corpus.sh BUILD_DIR   (from the repository root)
set -u
B=${1:-build}
fail=0
for n in trace config topology compare; do
    bin=$B/tb/fuzz/replay_$n
    [ -x "$bin" ] || { echo "FAIL: $bin is missing (make check builds it)"; fail=1; continue; }
    out=$("$bin" tb/fuzz/corpus/trace tb/fuzz/corpus/compare tb/bad tb/data/configs traces/topologies 2>&1) \
        || { echo "FAIL: fuzz_$n: $out"; fail=1; continue; }
    echo "fuzz_$n: $out"
done
exit "$fail"
