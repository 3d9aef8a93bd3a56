#!/bin/sh
# Install the Debian packages gdsim needs, only those missing; with sudo when not root.
# Usage: scripts/deps.sh [--build] [PACKAGE...]
# With SYSTEMC_HOME set (make SYSTEMC_HOME=DIR) SystemC comes from there, not Debian.
# cmake: make check builds a CMake project against the installed package;
# python3-matplotlib: scripts/plot.py (tb/test_plots.py makes each picture); gtkwave:
# its vcd2fst reads back the waveforms of --vcd (tb/test_vcd.sh); parallel: GNU parallel
# runs scripts/sweep.py's points (tb/test_sweep.py). Arguments: more packages (make fuzz:
# clang).
# --build (make deps-build, which make demo runs): only what building gdsim needs.
set -eu
if [ "${1:-}" = "--build" ]; then
    shift
    pkgs="zlib1g-dev pkg-config"
else
    pkgs="check zlib1g-dev pkg-config cmake python3-matplotlib gtkwave parallel"
fi
[ -n "${SYSTEMC_HOME:-}" ] || pkgs="libsystemc-dev $pkgs"
pkgs="$pkgs $*"  # more for one goal: make fuzz asks for clang
need=""
for pkg in $pkgs; do
    if ! dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q "install ok installed"; then
        need="$need $pkg"
    fi
done
[ -z "$need" ] && exit 0
echo "make deps: installing missing packages:$need"
if ! command -v apt-get >/dev/null 2>&1; then
    echo "make deps: apt-get not found; install these packages by hand:$need" >&2
    exit 1
fi
SUDO=""
if [ "$(id -u)" -ne 0 ]; then
    if command -v sudo >/dev/null 2>&1; then SUDO="sudo"; else
        echo "make deps: not root and no sudo; install these packages by hand:$need" >&2
        exit 1
    fi
fi
export DEBIAN_FRONTEND=noninteractive
# shellcheck disable=SC2086
$SUDO apt-get install -y --no-install-recommends $need || {
    $SUDO apt-get update && $SUDO apt-get install -y --no-install-recommends $need
}
