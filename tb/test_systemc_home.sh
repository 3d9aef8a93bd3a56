#!/bin/sh
# Building against a SystemC that is not the system's: `make SYSTEMC_HOME=DIR` and
# pkg-config's `systemc`. DIR is a relocated copy, in an Accellera-style layout
# (DIR/include, DIR/lib-linux64), of the SystemC the default build uses, so the test
# runs anywhere make check does; the checks prove the build took headers and library
# from DIR, not from the system: the compiler's dependency files name DIR's headers,
# the dynamic loader resolves libsystemc in DIR (the rpath), and the example platform
# and a replay give what the default build gives. Also: the flags pkg-config gives,
# what make install records for pkg-config and CMake users, the rebuild when the
# SystemC changes, and the errors for a DIR without SystemC.
# Usage: sh tb/test_systemc_home.sh BUILD_DIR
# Slow: it compiles the library, the CLI and the example platform once more against
# the copy (about 30 s on 2 cores with this test's make -j; up to 60 s while make -j2
# check runs another test beside it).
set -u
B=${1:-build}
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
export SYSTEMC_DISABLE_COPYRIGHT_MESSAGE=1
# the plain build also when make check runs with SANITIZER (OPT=-O0, PGO=0: only the paths
# matter); the SystemC each step names, not one make check was given
mk() {
    env -u MAKEFLAGS -u MAKELEVEL -u SYSTEMC_HOME -u SYSTEMC_CFLAGS -u SYSTEMC_LIBS -u LTO -u V \
        make --no-print-directory SANITIZER= PGO=0 OPT=-O0 "$@"
}

# where the SystemC of the build under test ($B) lives
sys=$(env -u MAKEFLAGS -u MAKELEVEL make --no-print-directory systemc-flags)
sys_flags=$(echo "$sys" | sed -n 's/^SYSTEMC_CFLAGS=//p')
# shellcheck disable=SC2086
hdr=$(echo '#include <systemc.h>' | g++ $sys_flags -x c++ -M - | tr ' \\' '\n\n' | grep '/systemc\.h$' | head -1)
[ -f "$hdr" ] || fail "cannot find the system's systemc.h"
incdir=$(dirname "$hdr")
lib=""
for d in $(echo "$sys" | sed -n 's/^SYSTEMC_LIBS=//p' | tr ' ' '\n' | sed -n 's/^-L//p'); do
    [ -z "$lib" ] && [ -e "$d/libsystemc.so" ] && lib=$(readlink -f "$d/libsystemc.so")
done
[ -n "$lib" ] || lib=$(readlink -f "$(g++ -print-file-name=libsystemc.so)")
[ -f "$lib" ] || fail "cannot find the system's libsystemc.so"
soname=$(readelf -d "$lib" | sed -n 's/.*SONAME.*\[\(.*\)\]/\1/p')
[ -n "$soname" ] || fail "$lib has no soname"

# the relocated copy
SC="$T/systemc"
mkdir -p "$SC/include" "$SC/lib-linux64"
for h in systemc.h systemc sysc tlm.h tlm tlm_core tlm_utils; do
    cp -RL "$incdir/$h" "$SC/include/" || fail "copying $incdir/$h"
done
cp "$lib" "$SC/lib-linux64/$soname"
ln -s "$soname" "$SC/lib-linux64/libsystemc.so"

# the flags make derives
flags=$(mk systemc-flags SYSTEMC_HOME="$SC")
echo "$flags" | grep -qx "SYSTEMC_CFLAGS=-I$SC/include" || fail "SYSTEMC_HOME: $flags"
echo "$flags" | grep -q "^SYSTEMC_LIBS=-L$SC/lib-linux64 -lsystemc -Wl,-rpath,$SC/lib-linux64$" || fail "SYSTEMC_HOME: $flags"
mkdir -p "$T/pc"
cat >"$T/pc/systemc.pc" <<PC
prefix=$SC
Name: SystemC
Description: relocated copy
Version: 0
Cflags: -I\${prefix}/include
Libs: -L\${prefix}/lib-linux64 -lsystemc
PC
flags=$(PKG_CONFIG_PATH="$T/pc" mk systemc-flags)
echo "$flags" | grep -qx "SYSTEMC_CFLAGS=-I$SC/include *" || fail "pkg-config: $flags"
echo "$flags" | grep -q "^SYSTEMC_LIBS=-L$SC/lib-linux64 -lsystemc *-Wl,-rpath,$SC/lib-linux64$" || fail "pkg-config: $flags"
echo "flags from SYSTEMC_HOME and from pkg-config: ok"

# errors name what is missing
out=$(mk systemc-flags SYSTEMC_HOME="$T/nothing" 2>&1) && fail "SYSTEMC_HOME without SystemC accepted"
echo "$out" | grep -q "SYSTEMC_HOME=$T/nothing: no include/systemc.h there" || fail "$out"
mkdir -p "$T/headers_only" && cp -R "$SC/include" "$T/headers_only/"
out=$(mk systemc-flags SYSTEMC_HOME="$T/headers_only" 2>&1) && fail "SYSTEMC_HOME without a library accepted"
echo "$out" | grep -q "no libsystemc in lib-linux64/, lib64/ or lib/" || fail "$out"

# the library, the CLI and the example platform built against the copy
BB="$T/build"
mk -j"$(nproc 2>/dev/null || echo 1)" BUILD="$BB" SYSTEMC_HOME="$SC" "$BB/gdsim" "$BB/tb/vp_example" >"$T/build.log" 2>&1 || { tail -30 "$T/build.log"; fail "make SYSTEMC_HOME=..."; }
grep -q "$SC/include/sysc/kernel/sc_module.h" "$BB/obj/cwrap/gpu.d" || fail "gpu.cpp was not compiled with the copy's headers"
grep -q "$incdir/sysc/" "$BB/obj/cwrap/gpu.d" && fail "gpu.cpp saw the system's SystemC headers"
for p in "$BB/gdsim" "$BB/tb/vp_example"; do
    ldd "$p" | grep -q "libsystemc.* => $SC/lib-linux64/$soname" || { ldd "$p"; fail "$p does not load libsystemc from SYSTEMC_HOME"; }
done
"$B/tb/vp_example" ns >"$T/vp_default" 2>&1 || fail "the default build's vp_example"
"$BB/tb/vp_example" ns >"$T/vp_home" 2>&1 || { cat "$T/vp_home"; fail "vp_example built with SYSTEMC_HOME"; }
cmp -s "$T/vp_default" "$T/vp_home" || { diff "$T/vp_default" "$T/vp_home"; fail "vp_example differs with SYSTEMC_HOME"; }
"$B/gdsim" replay traces/sample.gdt.gz --quiet --summary-json "$T/default.json" --kernels-csv "$T/default.csv" || fail "default replay"
"$BB/gdsim" replay traces/sample.gdt.gz --quiet --summary-json "$T/home.json" --kernels-csv "$T/home.csv" || fail "replay built with SYSTEMC_HOME"
cmp -s "$T/default.json" "$T/home.json" && cmp -s "$T/default.csv" "$T/home.csv" || fail "the replay differs with SYSTEMC_HOME"
echo "built with SYSTEMC_HOME: headers and libsystemc from $SC; vp_example and the sample replay as the default build"

# what make install records of the SystemC: gdsim.pc and the CMake package
mk BUILD="$BB" SYSTEMC_HOME="$SC" install PREFIX="$T/prefix" >"$T/install.log" 2>&1 || { tail -30 "$T/install.log"; fail "make install with SYSTEMC_HOME"; }
export PKG_CONFIG_PATH="$T/prefix/lib/pkgconfig"
pkg-config --cflags gdsim | grep -q -- "-I$SC/include" || fail "gdsim.pc: $(pkg-config --cflags gdsim)"
pkg-config --libs gdsim | grep -q -- "-L$SC/lib-linux64 -lsystemc -Wl,-rpath,$SC/lib-linux64" || fail "gdsim.pc: $(pkg-config --libs gdsim)"
cfg="$T/prefix/lib/cmake/gdsim/gdsimConfig.cmake"
grep -q "set(GDSIM_SYSTEMC_INCLUDE_DIRS \"$SC/include\")" "$cfg" || fail "gdsimConfig.cmake: no SystemC include directory"
grep -q "set(GDSIM_SYSTEMC_LIBRARY \"$SC/lib-linux64/libsystemc.so\")" "$cfg" || fail "gdsimConfig.cmake: no SystemC library"
grep -q "^make install: the build found in $BB/: plain (PGO=0), OPT=-O0, POPCNT=[01], SystemC -I$SC/include -L$SC/lib-linux64$" "$T/install.log" ||
    { cat "$T/install.log"; fail "make install does not say which build it installs"; }
echo "make install with SYSTEMC_HOME: gdsim.pc and gdsimConfig.cmake name the copy: ok"

# nothing rebuilt while the SystemC is the same; rebuilt when it changes
out=$(mk BUILD="$BB" SYSTEMC_HOME="$SC" "$BB/obj/cwrap/gpu.o")
echo "$out" | grep -q "cwrap/gpu.cpp" && fail "rebuilt with the same SystemC: $out"
out=$(mk BUILD="$BB" "$BB/obj/cwrap/gpu.o")
echo "$out" | grep -q "cwrap/gpu.cpp" || fail "not rebuilt when the SystemC changed: $out"
echo "rebuilds follow the SystemC: ok"
