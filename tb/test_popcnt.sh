#!/bin/sh
# The POPCNT instruction (Makefile, POPCNT=1 by default where the building machine's
# x86-64 CPU has it; docs/PERFORMANCE.md item 36): a build made with it compiled the
# population counts of the fill-the-lake into the instruction; a build with POPCNT=0
# (or on a CPU without it) has none, so it runs on any x86-64 CPU; make asks for the
# flag only when told so and refuses any other value.
# Usage: sh tb/test_popcnt.sh BUILD_DIR
set -u
B=${1:-build}
fail() { echo "FAIL: $*"; exit 1; }
case "$(gcc -dumpmachine 2>/dev/null)" in
(x86_64*) ;;
(*) echo "popcnt: skipped (the compiler does not target x86-64)"; exit 0 ;;
esac
command -v objdump >/dev/null 2>&1 || { echo "popcnt: skipped (no objdump)"; exit 0; }
[ -f "$B/build.mk" ] || fail "no $B/build.mk: build first"
want=$(sed -n 's/^POPCNT := \([01]\)$/\1/p' "$B/build.mk")
[ -n "$want" ] || fail "$B/build.mk names no POPCNT: $(cat "$B/build.mk")"
n=$(objdump -d --no-show-raw-insn "$B/gdsim" | grep -c '[[:space:]]popcnt[[:space:]]')
if [ "$want" = 1 ]; then
    [ "$n" -gt 0 ] || fail "built with POPCNT=1 but $B/gdsim has no popcnt instruction"
    grep -qw popcnt /proc/cpuinfo || fail "built with POPCNT=1 on a CPU without the instruction"
else
    [ "$n" -eq 0 ] || fail "built with POPCNT=0 but $B/gdsim has $n popcnt instructions"
fi
# what make asks the compiler for, told each value (a dry run: nothing is built)
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
mk() { env -u MAKEFLAGS -u MAKELEVEL make -n --no-print-directory BUILD="$T/b" SANITIZER= PGO=0 "$@" "$T/b/obj/model/cwd/cga.o" 2>&1; }
mk POPCNT=1 | grep -q -- ' -mpopcnt ' || fail "make POPCNT=1 does not compile with -mpopcnt"
mk POPCNT=0 | grep -q -- '-mpopcnt' && fail "make POPCNT=0 compiles with -mpopcnt"
mk POPCNT=2 | grep -q "POPCNT must be 0 or 1 (got '2')" || fail "make POPCNT=2 is not refused"
# the lake fill itself: the instruction with -mpopcnt, the inline count without (every
# model folder on the include path, as the Makefile puts them)
inc="-Iinclude -Imodel"
for d in model/*/; do inc="$inc -I${d%/}"; done
for f in "" -mpopcnt; do
    gcc -std=c11 -O2 $f $inc -D_GNU_SOURCE -c model/cwd/cga.c -o "$T/cga.o" ||
        fail "model/cwd/cga.c does not compile with '$f'"
    c=$(objdump -d --no-show-raw-insn "$T/cga.o" | grep -c '[[:space:]]popcnt[[:space:]]')
    if [ -n "$f" ]; then
        [ "$c" -gt 0 ] || fail "model/cwd/cga.c with -mpopcnt has no popcnt instruction"
    else
        [ "$c" -eq 0 ] || fail "model/cwd/cga.c for the x86-64 baseline has $c popcnt instructions"
    fi
done
echo "popcnt: $B built with POPCNT=$want ($n popcnt instructions in its gdsim); make passes -mpopcnt only for POPCNT=1; the lake fill compiles to the instruction with it and to the inline count without"
