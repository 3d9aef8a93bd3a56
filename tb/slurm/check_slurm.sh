#!/bin/sh
# make check-slurm: the sweep as a Slurm job array, for real. Installs Debian's slurmctld,
# slurmd, munge and parallel when missing, starts a one-node cluster on this machine
# (munged, slurmctld, slurmd, with a key, a configuration and their state in a temporary
# folder, on ports of their own), plans a 12-point grid with scripts/sweep.py, submits
# its array with sbatch --wait, collects, runs the same grid with GNU parallel, checks
# that the two CSVs are identical, and stops the daemons it started.
# Usage: sh tb/slurm/check_slurm.sh BUILD_DIR
set -u
B=$(cd "${1:-build}" && pwd)
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
fail() { echo "FAIL: check-slurm: $*"; [ -n "${T:-}" ] && for f in "$T"/*.log; do [ -f "$f" ] && { echo "--- $f"; tail -n 15 "$f"; }; done; exit 1; }

need=""
for p in slurmctld slurmd munge parallel; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || need="$need $p"
done
if [ -n "$need" ]; then
    echo "check-slurm: installing$need"
    SUDO=""; [ "$(id -u)" -eq 0 ] || SUDO=sudo
    # shellcheck disable=SC2086
    DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y --no-install-recommends $need >/dev/null 2>&1 || {
        $SUDO apt-get update >/dev/null 2>&1
        DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y --no-install-recommends $need >/dev/null 2>&1
    } || fail "cannot install$need"
fi
[ "$(id -u)" -eq 0 ] || fail "the one-node cluster runs its daemons as root (run as root, as CI does)"

T=$(mktemp -d "${TMPDIR:-/tmp}/gdsim-slurm-XXXXXX")
pids=""
cleanup() {
    for p in $pids; do kill "$p" 2>/dev/null; done
    sleep 1
    for p in $pids; do kill -9 "$p" 2>/dev/null; done
    rm -rf "$T"
}
trap cleanup EXIT
trap 'exit 130' HUP INT TERM
mkdir -p "$T/state" "$T/spool" "$T/munge"

# munge: a key of our own, a socket in the folder
if command -v mungekey >/dev/null; then mungekey -c -k "$T/munge/munge.key" >/dev/null 2>&1
else dd if=/dev/urandom of="$T/munge/munge.key" bs=1024 count=1 2>/dev/null; fi
chmod 700 "$T/munge"; chmod 600 "$T/munge/munge.key"
/usr/sbin/munged --force -F --socket="$T/munge/munge.sock" --key-file="$T/munge/munge.key" \
    --pid-file="$T/munge/munged.pid" --log-file="$T/munged.log" --seed-file="$T/munge/seed" >/dev/null 2>&1 &
pids="$!"
i=0; while [ ! -S "$T/munge/munge.sock" ] && [ $i -lt 50 ]; do sleep 0.2; i=$((i + 1)); done
[ -S "$T/munge/munge.sock" ] || fail "munged did not start"

host=$(hostname -s)
port=$((20000 + $$ % 20000))
cat >"$T/slurm.conf" <<CONF
ClusterName=gdsim
SlurmctldHost=$host(127.0.0.1)
SlurmUser=root
SlurmdUser=root
SlurmctldPort=$port
SlurmdPort=$((port + 1))
AuthType=auth/munge
AuthInfo=socket=$T/munge/munge.sock
CredType=cred/munge
StateSaveLocation=$T/state
SlurmdSpoolDir=$T/spool
SlurmctldPidFile=$T/slurmctld.pid
SlurmdPidFile=$T/slurmd.pid
SlurmctldLogFile=$T/slurmctld.log
SlurmdLogFile=$T/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
SelectType=select/cons_tres
SelectTypeParameters=CR_CPU
MpiDefault=none
ReturnToService=2
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
PlugStackConfig=$T/plugstack.conf
NodeName=$host NodeAddr=127.0.0.1 CPUs=$(nproc) State=UNKNOWN
PartitionName=gdsim Nodes=$host Default=YES MaxTime=INFINITE State=UP
CONF
: >"$T/plugstack.conf"
export SLURM_CONF="$T/slurm.conf"
/usr/sbin/slurmctld -D -i -f "$T/slurm.conf" >>"$T/slurmctld.log" 2>&1 &
pids="$pids $!"
/usr/sbin/slurmd -D -f "$T/slurm.conf" >>"$T/slurmd.log" 2>&1 &
pids="$pids $!"
i=0
until sinfo -h -o %t 2>/dev/null | grep -q "idle"; do
    i=$((i + 1)); [ $i -lt 60 ] || fail "the node did not come up ($(sinfo -h -o '%t %E' 2>&1))"; sleep 0.5
done

grid="--trace $ROOT/traces/sample.gdt.gz --set gpu.gpcs=4,8,16 --set gpu.sms_per_gpc=16 --set cwd.policy=baseline,cga --set frontend.clock_mhz=1000,2000"
S="python3 $ROOT/scripts/sweep.py"
# shellcheck disable=SC2086
$S plan "$T/slurm" $grid --gdsim "$B/gdsim" >/dev/null || fail "plan"
sbatch --wait --quiet "$T/slurm/sweep.sbatch" >"$T/sbatch.log" 2>&1 || fail "sbatch --wait: $(cat "$T/sbatch.log")"
$S collect "$T/slurm" >/dev/null || fail "collect after Slurm"
# shellcheck disable=SC2086
$S plan "$T/par" $grid --gdsim "$B/gdsim" >/dev/null && $S run "$T/par" --jobs 2 --gdsim "$B/gdsim" \
    && $S collect "$T/par" >/dev/null || fail "the same grid with GNU parallel"
[ "$(wc -l <"$T/slurm/results.csv")" -eq 13 ] || fail "Slurm: $(wc -l <"$T/slurm/results.csv") lines, want 13"
cmp -s "$T/slurm/results.csv" "$T/par/results.csv" || fail "Slurm and GNU parallel differ: $(diff "$T/slurm/results.csv" "$T/par/results.csv" | head -5)"
echo "check-slurm: 12 points as a Slurm job array on a one-node cluster = GNU parallel's: ok"
