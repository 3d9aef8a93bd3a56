#!/bin/sh
# The profile-guided build (Makefile, PGO=1: make check-pgo, make bench;
# docs/PERFORMANCE.md): the training replays of scripts/pgo_train.sh ran with the
# instrumented gdsim and wrote their outputs; every object of the library's hot path
# was then compiled with the counts they left beside it; and what is shipped (the CLI,
# libgdsim.so, libgdsim.a) carries no instrumentation; the library and the CLI were
# link-time optimised. A build with PGO=0 (the default) or a sanitizer has no profile:
# skipped (.ci/run runs make check-pgo). Usage: sh tb/test_pgo.sh BUILD_DIR
set -u
B=${1:-build}
fail() { echo "FAIL: $*"; exit 1; }
# (build.mk says how the build was made: a stamp left by an earlier PGO=1 build of the
# same folder does not make a plain one profile-guided)
if [ ! -f "$B/pgo.stamp" ] || ! grep -qx 'PGO := 1' "$B/build.mk" 2>/dev/null; then
    echo "pgo: skipped ($B is a build without a profile: PGO=0 or a sanitizer)"
    exit 0
fi
# the training ran to its end: the sample's outputs, the last replay, are there
for f in k.csv s.json c.csv o.csv a100.gdt.gz; do
    [ -s "$B/pgo/$f" ] || fail "the training run left no $B/pgo/$f"
done
# the counts beside the objects that replays spend their time in, each newer than the
# stamp's training run started (the stamp is touched after it), older than the object
# compiled with it
for o in model/cwd/gpc2sm model/cwd/gpu2gpc model/cwd/cwd model/cwd/cga model/pp/packet_processor model/pp/pp \
         model/sched/command_scheduler model/meta/meta_scheduler model/trace/trace model/trace/trace_source \
         model/trace/report model/base/domain model/base/calendar model/sm/occupancy; do
    g="$B/obj/$o.gcda"
    [ -s "$g" ] || fail "no profile $g: $o was not compiled with the training run's counts"
    [ "$B/obj/$o.o" -nt "$g" ] || fail "$B/obj/$o.o is older than its profile: not compiled with it"
done
# nothing shipped is instrumented (an instrumented program writes .gcda files wherever
# it runs)
for f in "$B/gdsim" "$B/libgdsim.so" "$B/libgdsim.a"; do
    nm "$f" 2>/dev/null | grep -q "__gcov_" && fail "$f is instrumented (it refers to __gcov_*)"
done
# link-time optimised: the objects carry GCC's intermediate code (and ordinary code too,
# fat objects, which the test programs link)
grep -qx 'LTO := 0' "$B/build.mk" && { echo "pgo: the training replays ran; the hot path's objects were compiled with their counts; nothing shipped is instrumented (LTO=0)"; exit 0; }
for o in model/pp/pp cwrap/gdsim; do
    objdump -h "$B/obj/$o.o" | grep -q '\.gnu\.lto_' || fail "$B/obj/$o.o has no LTO sections: not link-time optimised"
    objdump -h "$B/obj/$o.o" | grep -q ' \.text' || fail "$B/obj/$o.o has no ordinary code: not a fat LTO object"
done
echo "pgo: the training replays ran; the hot path's objects were compiled with their counts; nothing shipped is instrumented; LTO objects"
