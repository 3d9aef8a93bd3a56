#!/bin/sh
# The build and test commands (Makefile, scripts/run_tests.sh; README "Building"):
#  1. the default build is one plain optimised pass (-O2, no LTO, no profile); PGO=1 is
#     the profile-guided, link-time optimised build (instrumented first, the training
#     run, then with the counts), LTO=1 link-time optimised only; other values refused;
#  2. progress lines: `CC model/base/heap.c`, the full command with V=1, nothing with -s;
#  3. make install reuses the build it finds, with the flags recorded in BUILD/build.mk
#     (a flag on the command line still wins) and says which; with none it builds one;
#  4. make check runs the tests -j N at a time (all cores without -j);
#  5. scripts/run_tests.sh runs tests at the same time, prints each one's time, the
#     slowest and one summary line, and refuses a bad -j.
# Dry runs (make -n) but for one small object, so the test takes seconds.
# Usage: sh tb/test_build.sh BUILD_DIR
set -u
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
# make as a user types it: none of the flags this make check was given
mk() {
    env -u MAKEFLAGS -u MAKELEVEL -u MFLAGS -u PGO -u LTO -u OPT -u V -u BUILD -u SANITIZER \
        make --no-print-directory "$@" 2>&1
}
obj="$T/b/obj/model/base/heap.o"

# 1. what each build asks the compiler for
out=$(mk -n BUILD="$T/b" "$obj")
echo "$out" | grep -q -- "-O2 .*-c model/base/heap.c" || fail "the default build does not compile with -O2: $out"
echo "$out" | grep -q -- "-flto\|-fprofile" && fail "the default build is not plain: $out"
out=$(mk -n BUILD="$T/b" LTO=1 "$obj")
echo "$out" | grep -q -- "-flto=auto -ffat-lto-objects .*-c model/base/heap.c" || fail "LTO=1 without -flto: $out"
echo "$out" | grep -q -- "-fprofile" && fail "LTO=1 builds with a profile: $out"
out=$(mk -n BUILD="$T/b" PGO=1 "$obj")
echo "$out" | grep -q -- "-flto=auto .*-fprofile-generate .*-c model/base/heap.c" || fail "PGO=1: no instrumented LTO build: $out"
echo "$out" | grep -q "scripts/pgo_train.sh $T/b/gdsim $T/b/pgo" || fail "PGO=1: no training run: $out"
echo "$out" | grep -q -- "-flto=auto .*-fprofile-use .*-c model/base/heap.c" || fail "PGO=1: no build with the counts: $out"
out=$(mk -n BUILD="$T/b" PGO=1 LTO=0 "$obj")
echo "$out" | grep -q -- "-flto" && fail "PGO=1 LTO=0 builds with -flto: $out"
for v in PGO=2 LTO=yes; do
    out=$(mk -n BUILD="$T/b" $v "$obj") && fail "make $v accepted"
    echo "$out" | grep -q "${v%%=*} must be 0 or 1 (got '${v#*=}')" || fail "make $v: $out"
done
out=$(mk -n BUILD="$T/b" PGO=1 SANITIZER=address "$obj")
echo "$out" | grep -q -- "-fprofile\|-flto" && fail "a sanitizer build with a profile or LTO: $out"
echo "build flags: plain by default, PGO=1 and LTO=1 as documented, bad values refused: ok"

# 2. progress lines (one small object compiled for real)
out=$(mk BUILD="$T/b" "$obj")
[ "$out" = "  CC    model/base/heap.c" ] || fail "progress line: '$out'"
rm -f "$obj"
out=$(mk -s BUILD="$T/b" "$obj")
[ -z "$out" ] || fail "make -s printed: '$out'"
rm -f "$obj"
out=$(mk V=1 BUILD="$T/b" "$obj")
echo "$out" | grep -q "^gcc .* -c model/base/heap.c -o $obj$" || fail "V=1 does not show the command: '$out'"
grep -qx "PGO := 0" "$T/b/build.mk" && ! grep -q "^LTO" "$T/b/build.mk" || fail "build.mk: $(cat "$T/b/build.mk")"
echo "progress lines, V=1 and -s: ok"

# 3. make install takes the build's own flags (here an -O1 build), and says so
mk BUILD="$T/b" OPT=-O1 "$obj" >/dev/null || fail "building with OPT=-O1"
grep -qx "OPT := -O1" "$T/b/build.mk" || fail "build.mk does not record OPT=-O1: $(cat "$T/b/build.mk")"
out=$(mk -n BUILD="$T/b" PREFIX="$T/p" install)
echo "$out" | grep -q -- " -O1 .*-c model/base/heap.c" || fail "make install did not reuse the build's OPT=-O1: $out"
echo "$out" | grep -q -- " -O2 " && fail "make install built with the default OPT: $out"
echo "$out" | grep -q "make install: the build found in $T/b/: plain (PGO=0), OPT=-O1, POPCNT=[01], SystemC " ||
    fail "make install does not say which build: $out"
out=$(mk -n BUILD="$T/b" PREFIX="$T/p" OPT=-O3 install)
echo "$out" | grep -q -- " -O3 .*-c model/base/heap.c" || fail "make install OPT=-O3 did not take the command line's flag: $out"
# (LTO is PGO's unless the build chose otherwise: a release build asked of install on a
# plain build is link-time optimised, and an LTO=1 build stays one)
out=$(mk -n BUILD="$T/b" PREFIX="$T/p" PGO=1 install)
echo "$out" | grep -q -- "-flto=auto .*-fprofile-use .*-c model/base/heap.c" || fail "make install PGO=1 on a plain build: $out"
mkdir -p "$T/l" && sed 's/^PGO := 0$/PGO := 0\nLTO := 1/' "$T/b/build.mk" >"$T/l/build.mk"
out=$(mk -n BUILD="$T/l" PREFIX="$T/p" install)
echo "$out" | grep -q -- "-flto=auto .*-c model/base/heap.c" || fail "make install did not reuse LTO=1: $out"
echo "$out" | grep -q "make install: the build found in $T/l/: link-time optimised (LTO=1), OPT=-O1" || fail "make install, LTO=1: $out"
out=$(mk -n BUILD="$T/none" PREFIX="$T/p" install)
echo "$out" | grep -q "make install: no build in $T/none/ yet: built one: plain (PGO=0), OPT=-O2 " ||
    fail "make install with no build: $out"
echo "make install reuses the build it finds and says which: ok"

# 4. make check's tests, N at a time (dry run: nothing is built or run)
n=$(nproc 2>/dev/null || echo 1)
for j in "" -j1 -j3; do
    out=$(mk -n $j BUILD="$T/c" check)
    want=${j#-j}
    [ -n "$want" ] || want=$n
    echo "$out" | grep -q "^scripts/run_tests.sh -j $want $T/c tb/test_systemc_home.sh tb/test_layout.sh " ||
        fail "make $j check does not run $want tests at a time, the longest first: $(echo "$out" | grep run_tests)"
done
# every recursive make through SUBMAKE is marked '+': make hands its jobserver only to a
# recipe line it knows runs make (else "jobserver unavailable: using -j1", a serial build)
bad=$(grep -n '^[^#]*$(SUBMAKE)' Makefile | grep -v '^[0-9]*:	@+$(SUBMAKE) ')
[ -z "$bad" ] || fail "recursive makes without '+' (they would build one job at a time): $bad"
echo "make check runs N tests at a time: ok"

# 5. the runner: two tests that each wait for the other pass only when run together
mkdir -p "$T/r"
for x in a b; do
    y=b; [ $x = b ] && y=a
    printf '#!/bin/sh\n: >"%s/%s.started"\nn=0\nwhile [ ! -e "%s/%s.started" ]; do\n  [ $n -lt 50 ] || exit 1\n  sleep 0.1; n=$((n + 1))\ndone\n' \
        "$T/r" $x "$T/r" $y >"$T/r/wait_$x"
done
printf '#!/bin/sh\necho broken\nexit 1\n' >"$T/r/broken"
chmod +x "$T/r/wait_a" "$T/r/wait_b" "$T/r/broken"
out=$(sh scripts/run_tests.sh -j 2 "$T/rb" "$T/r/wait_a" "$T/r/wait_b" "$T/r/broken" 2>&1) &&
    fail "run_tests.sh: a failed test, exit 0: $out"
echo "$out" | grep -q "^PASS  wait_a  *[0-9.]* s$" && echo "$out" | grep -q "^PASS  wait_b  *[0-9.]* s$" ||
    fail "run_tests.sh -j 2 did not run two tests at once: $out"
echo "$out" | grep -q "^FAIL  broken  *[0-9.]* s (log: $T/rb/tb/broken.log)$" || fail "run_tests.sh: FAIL line: $out"
echo "$out" | grep -q "^    | broken$" || fail "run_tests.sh: no log of the failed test: $out"
echo "$out" | grep -q "^slowest tests:$" || fail "run_tests.sh: no slowest tests: $out"
[ "$(echo "$out" | grep -c '^ *[0-9.]* s  \(wait_a\|wait_b\|broken\)$')" = 3 ] || fail "run_tests.sh: slowest tests: $out"
echo "$out" | grep -q "^make check: 2 passed, 1 failed, 2 at a time, in [0-9]* s (failed: broken)$" ||
    fail "run_tests.sh: summary line: $out"
rm -f "$T/r"/*.started
# one at a time: the first waits in vain (5 s), the second finds it started
out=$(sh scripts/run_tests.sh -j 1 "$T/rb" "$T/r/wait_a" "$T/r/wait_b" 2>&1) && fail "run_tests.sh -j 1: both waiting tests passed: $out"
echo "$out" | grep -q "^make check: 1 passed, 1 failed, 1 at a time, in [0-9]* s (failed: wait_a)$" ||
    fail "run_tests.sh -j 1 did not run one test at a time: $out"
for j in 0 00 x 1x ""; do
    out=$(sh scripts/run_tests.sh -j "$j" "$T/rb" "$T/r/broken" 2>&1)
    [ $? -eq 2 ] && echo "$out" | grep -q "run_tests.sh: -j wants a positive number of tests at a time (got '$j')" ||
        fail "run_tests.sh -j '$j': $out"
done
echo "run_tests.sh: tests at the same time, times, slowest, summary, bad -j: ok"
echo "build: ok"
