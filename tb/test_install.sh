#!/bin/sh
# `make install PREFIX=DIR`, then from the installed copy alone: a C program outside
# the repository (tb/vp_cmake/replay.c) built with pkg-config replays the sample three
# times and gets identical summaries; the same with libgdsim.a; the CMake project
# tb/vp_cmake finds the package with find_package(gdsim) and builds the example
# platform (shared and static) and the C program, which run as the in-tree ones do;
# the Python package and the trace scripts work. Usage: sh tb/test_install.sh BUILD_DIR
set -u
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
B=${1:-build}
# Always the plain build, also when make check runs with SANITIZER (the installed
# library must not need a sanitizer runtime): BUILD_DIR itself, or the folder above
# build/asan and build/ubsan; with the SystemC that make check was given.
case "$B" in */asan | */ubsan) plain=$(dirname "$B") ;; *) plain=$B ;; esac
# the build is taken as it is (whatever flags made it): nothing is compiled or linked
# again when it is up to date, and make install says which build it installs
# (up to date for certain only when make check has just built it: not under a sanitizer)
[ "$B" = "$plain" ] && [ -f "$plain/gdsim" ] && [ -f "$plain/build.mk" ] && up_to_date=1 || up_to_date=0
[ $up_to_date = 1 ] && touch -r "$plain/gdsim" "$T/gdsim.time"
env -u MAKEFLAGS -u MAKELEVEL -u PGO -u LTO -u OPT make -s install PREFIX="$T/prefix" SANITIZER= BUILD="$plain" >"$T/install.log" 2>&1 ||
    { cat "$T/install.log"; fail "make install"; }
if [ $up_to_date = 1 ]; then
    grep -q "^make install: the build found in $plain/: " "$T/install.log" || { cat "$T/install.log"; fail "make install does not say which build"; }
    [ "$plain/gdsim" -nt "$T/gdsim.time" ] && fail "make install built $plain/gdsim again"
fi
for f in lib/libgdsim.so lib/libgdsim.a include/gdsim.h include/gdsim/gpu.hpp bin/gdsim lib/pkgconfig/gdsim.pc \
         lib/cmake/gdsim/gdsimConfig.cmake lib/cmake/gdsim/gdsimConfigVersion.cmake; do
    [ -e "$T/prefix/$f" ] || fail "missing $f"
done
cp traces/sample.gdt.gz tb/vp_cmake/replay.c "$T/"
export PKG_CONFIG_PATH="$T/prefix/lib/pkgconfig"
(cd "$T" && cc -std=c99 -Wall -Wextra -Werror replay.c -o three $(pkg-config --cflags --libs gdsim)) || fail "building against the installed library"
out=$(cd "$T" && ./three sample.gdt.gz) || fail "running: $out"
echo "$out" | grep -q "identical three times" || fail "$out"
"$T/prefix/bin/gdsim" --version | grep -q "gdsim 0.1.0" || fail "installed CLI"
echo "install: $out"
# the shared library has a soname that changes with the major version; the program
# above needs it by that name
readelf -d "$T/prefix/lib/libgdsim.so" | grep -q "SONAME.*\[libgdsim.so.0\]" || fail "no soname libgdsim.so.0"
readelf -d "$T/three" | grep -q "NEEDED.*\[libgdsim.so.0\]" || fail "the program does not need libgdsim.so.0"
# the static library links without the compiler's LTO plugin (fat LTO objects)
# (what it needs besides itself from gdsim.pc: the SystemC gdsim was built with, zlib, ...)
static_libs=$(pkg-config --static --libs gdsim | sed 's/ -lgdsim / /')
# shellcheck disable=SC2086
(cd "$T" && cc -std=c99 -fno-lto -fno-use-linker-plugin replay.c -o three_static -I prefix/include prefix/lib/libgdsim.a \
    $static_libs) || fail "linking libgdsim.a without the LTO plugin"
out=$(cd "$T" && ./three_static sample.gdt.gz) || fail "running the static program: $out"
echo "static library without the LTO plugin: $out"

# A CMake project outside the tree (tb/vp_cmake) finds the installed package; what it
# builds runs as the Makefile's builds do: the example platform (its output compared
# with the in-tree build's, at 1 ns) on the shared and on the static library, and the
# C program.
export SYSTEMC_DISABLE_COPYRIGHT_MESSAGE=1
cmake -S tb/vp_cmake -B "$T/cmake" -DCMAKE_PREFIX_PATH="$T/prefix" -DCMAKE_BUILD_TYPE=Release >"$T/cmake.log" 2>&1 ||
    { cat "$T/cmake.log"; fail "configuring tb/vp_cmake against the installed package"; }
grep -q "gdsim 0.1.0 with SystemC" "$T/cmake.log" || { cat "$T/cmake.log"; fail "find_package(gdsim) did not report the package"; }
cmake --build "$T/cmake" >>"$T/cmake.log" 2>&1 || { cat "$T/cmake.log"; fail "building tb/vp_cmake"; }
"$B/tb/vp_example" ns >"$T/vp_tree.out" 2>&1 || { cat "$T/vp_tree.out"; fail "the in-tree vp_example"; }
for v in vp_example vp_example_static; do
    "$T/cmake/$v" ns >"$T/$v.out" 2>&1 || { cat "$T/$v.out"; fail "$v built by CMake"; }
    cmp -s "$T/vp_tree.out" "$T/$v.out" || { diff "$T/vp_tree.out" "$T/$v.out"; fail "$v built by CMake differs from the in-tree build"; }
done
readelf -d "$T/cmake/vp_example" | grep -q "NEEDED.*\[libgdsim.so.0\]" || fail "CMake's vp_example does not use libgdsim.so.0"
readelf -d "$T/cmake/vp_example_static" | grep -q "NEEDED.*libgdsim" && fail "vp_example_static needs libgdsim.so"
out=$(cd "$T" && cmake/replay_c sample.gdt.gz) || fail "replay_c built by CMake: $out"
echo "$out" | grep -q "identical three times" || fail "replay_c: $out"
# a version the package cannot meet is refused
sed 's/find_package(gdsim 0.1 REQUIRED)/find_package(gdsim 1.0 REQUIRED)/' tb/vp_cmake/CMakeLists.txt >"$T/CMakeLists.txt"
mkdir -p "$T/v1" && cp tb/vp_cmake/replay.c "$T/v1/" && cp "$T/CMakeLists.txt" "$T/v1/"
cmake -S "$T/v1" -B "$T/v1/build" -DCMAKE_PREFIX_PATH="$T/prefix" >"$T/v1.log" 2>&1 && fail "find_package(gdsim 1.0) accepted 0.1.0"
grep -q "0.1.0" "$T/v1.log" || { cat "$T/v1.log"; fail "find_package(gdsim 1.0): no version in the message"; }
echo "cmake: find_package(gdsim) found the installed copy; vp_example (shared and static) and replay_c built and ran as in the tree"

# The Python package and the trace scripts from the installed copy alone: outside the
# repository, the package found through PYTHONPATH and the library where make install
# put it; a capture converted and a trace generated by the installed scripts.
PY_DIR=$(python3 -c 'import sysconfig, sys; print(sysconfig.get_path("purelib", vars={"base": sys.argv[1]}))' "$T/prefix")
[ -f "$PY_DIR/gdsim/__init__.py" ] || fail "the Python package is not in $PY_DIR"
cp tb/data/kineto/a100_triton_1_kernel.json.gz "$T/"
out=$(cd "$T" && env -u GDSIM_LIBRARY PYTHONPATH="$PY_DIR" python3 -c '
import gdsim, os, sys
assert gdsim.__file__.startswith(sys.argv[1]), gdsim.__file__
with gdsim.Sim() as s:
    d = s.replay("sample.gdt.gz")
    assert len(s.kernels()) == d["summary"]["kernels"] == 40
print("python: %d kernels, %d CTAs from %s" % (d["summary"]["kernels"], d["summary"]["ctas"], os.path.dirname(gdsim.__file__)))
' "$T/prefix") || fail "the installed Python package: $out"
echo "$out"
(cd "$T" && prefix/bin/kineto2gdt.py a100_triton_1_kernel.json.gz triton.gdt.gz >/dev/null 2>&1) || fail "installed kineto2gdt.py"
(cd "$T" && prefix/bin/gen_trace.py gen.gdt.gz --kernels 3 --grid 10 --block 128 --regs 32 --smem 0 --cta-ns 1000) ||
    fail "installed gen_trace.py"
"$T/prefix/bin/gdsim" replay "$T/triton.gdt.gz" --quiet || fail "replaying the converted capture"
"$T/prefix/bin/gdsim" replay "$T/gen.gdt.gz" --quiet || fail "replaying the generated trace"
echo "installed scripts: a capture converted, a trace generated, both replayed: ok"
