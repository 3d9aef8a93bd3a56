#!/bin/sh
# `make install PREFIX=DIR`, then a C program outside the repository, built with
# pkg-config, replays the sample three times through the API and gets identical
# summaries. Usage: sh tb/test_install.sh BUILD_DIR
set -u
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
# Always the plain build, also when make check runs with SANITIZER (the installed
# library must not need a sanitizer runtime).
env -u MAKEFLAGS -u MAKELEVEL make -s install PREFIX="$T/prefix" SANITIZER= >"$T/install.log" 2>&1 || { cat "$T/install.log"; fail "make install"; }
for f in lib/libgdsim.so lib/libgdsim.a include/gdsim.h bin/gdsim lib/pkgconfig/gdsim.pc; do
    [ -e "$T/prefix/$f" ] || fail "missing $f"
done
cp traces/sample.gdt.gz "$T/"
cat >"$T/three.c" <<'C'
#include <stdio.h>
#include <string.h>
#include <gdsim.h>
int main(int argc, char **argv)
{
    gd_summary s[3];
    for (int i = 0; i < 3; i++) {
        gd_sim *sim;
        if (gd_sim_new(&sim, NULL) != GD_OK) return 1;
        if (gd_sim_replay_file(sim, argv[1]) != GD_OK) { fprintf(stderr, "%s\n", gd_sim_errmsg(sim)); return 1; }
        if (gd_sim_summary(sim, &s[i]) != GD_OK) return 1;
        gd_sim_free(sim);
    }
    if (memcmp(&s[0], &s[1], sizeof s[0]) || memcmp(&s[0], &s[2], sizeof s[0])) { puts("differ"); return 1; }
    printf("%llu kernels, %llu CTAs, %.3f %% occupancy, identical three times\n",
           (unsigned long long)s[0].kernels, (unsigned long long)s[0].ctas, s[0].mean_sm_occupancy_pct);
    return argc == 2 ? 0 : 1;
}
C
export PKG_CONFIG_PATH="$T/prefix/lib/pkgconfig"
(cd "$T" && cc -std=c99 -Wall -Wextra -Werror three.c -o three $(pkg-config --cflags --libs gdsim)) || fail "building against the installed library"
out=$(cd "$T" && ./three sample.gdt.gz) || fail "running: $out"
echo "$out" | grep -q "identical three times" || fail "$out"
"$T/prefix/bin/gdsim" --version | grep -q "gdsim 0.1.0" || fail "installed CLI"
echo "install: $out"
