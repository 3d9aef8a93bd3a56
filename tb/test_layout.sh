#!/bin/sh
# The layout of model/ (DESIGN.md, README "Layout"): one folder per hardware block
# plus base/, and gpu_top at the top.
#  1. base/ includes no block: every #include "..." of a file in model/base/ names a
#     file of model/base/ or the public header.
#  2. model/ holds only gpu_top.cpp/.hpp and folders; every block folder holds a
#     C core (*.c) and a SystemC module (a *.hpp declaring an sc_module).
#  3. A new block needs its own folder and a change to gpu_top only: a copy of the
#     tree gets tb/data/pass_block/pass/ (a pass-through module between the packet
#     processor and the command scheduler, on the way to GPU2GPC) and tb/data/pass_block/gpu_top.patch, builds with the
#     unchanged Makefile and replays the sample with the same report and kernel
#     table, every dispatch and completion having gone through the new block.
# Usage: sh tb/test_layout.sh BUILD_DIR
# Slow: part 3 builds a copy of the tree (the changed block and gpu_top, the link): about
# 20 s on 2 cores alone, up to 60 s while make -j2 check runs another test beside it.
set -u
B=${1:-build}
fail() { echo "FAIL: $*"; exit 1; }

# 1
bad=""
for f in model/base/*; do
    for inc in $(sed -n 's/^[[:space:]]*#[[:space:]]*include[[:space:]]*"\([^"]*\)".*/\1/p' "$f"); do
        [ -e "model/base/$inc" ] || [ -e "include/$inc" ] || bad="$bad $f:$inc"
    done
done
[ -z "$bad" ] || fail "model/base/ includes block headers:$bad"
echo "base/ includes no block: ok"

# 2
for f in model/*; do
    if [ -d "$f" ]; then
        [ "$f" = model/base ] && continue
        ls "$f"/*.c >/dev/null 2>&1 || fail "$f has no C core (*.c)"
        grep -l "sc_core::sc_module" "$f"/*.hpp >/dev/null 2>&1 || fail "$f has no SystemC module (*.hpp)"
    else
        case "$f" in model/gpu_top.cpp|model/gpu_top.hpp) ;; *) fail "$f: model/ holds only block folders, base/ and gpu_top" ;; esac
    fi
done
echo "model/: $(cd model && ls -d */ | tr -d / | tr '\n' ' ')+ gpu_top: ok"

# 3
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
grep -E '^(\+\+\+|---) ' tb/data/pass_block/gpu_top.patch | grep -vqE '^(\+\+\+ b|--- a)/model/gpu_top\.(cpp|hpp)$' &&
    fail "gpu_top.patch changes more than gpu_top"
cp -pR Makefile gdsim.pc.in include cwrap cli model scripts traces "$T/"
# reuse the plain build's objects and the record of their flags (build.mk, times kept:
# when the copy's flags are the same, only what the change touches rebuilds)
[ -d build/obj ] && [ -f build/build.mk ] && mkdir -p "$T/build" && cp -pR build/obj build/build.mk "$T/build/"
cp -pR tb/data/pass_block/pass "$T/model/pass"
P=$(pwd)/tb/data/pass_block/gpu_top.patch
if command -v patch >/dev/null 2>&1; then
    (cd "$T" && patch -s -p1 <"$P")
else
    (cd "$T" && git apply -p1 "$P")
fi || fail "gpu_top.patch does not apply"
env -u MAKEFLAGS -u MAKELEVEL make -s -C "$T" build/gdsim SANITIZER= PGO=0 >"$T/build.log" 2>&1 || { tail -30 "$T/build.log"; fail "the tree with the new block does not build"; }
"$T/build/gdsim" replay traces/sample.gdt.gz --kernels-csv "$T/with.csv" >"$T/with.txt" 2>"$T/with.err" || { cat "$T/with.err"; fail "replay with the new block"; }
grep -q "pass_through: 40 transactions down, 40 up" "$T/with.err" || { cat "$T/with.err"; fail "the dispatches and completions did not go through the new block"; }
"$B/gdsim" replay traces/sample.gdt.gz --kernels-csv "$T/without.csv" >"$T/without.txt" 2>/dev/null || fail "replay without the new block"
cmp -s "$T/with.txt" "$T/without.txt" || { diff "$T/without.txt" "$T/with.txt"; fail "the report changed"; }
cmp -s "$T/with.csv" "$T/without.csv" || fail "the kernel table changed"
echo "a pass-through block in its own folder + gpu_top only: builds, 40 dispatches and 40 completions through it, same report and kernel table: ok"
