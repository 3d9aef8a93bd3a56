#!/bin/sh
# Digests of every output (kernels CSV, summary JSON, text report, CTA log, meta log;
# the JSON without the blocks' "wakeups" statistics, which count the simulator's work)
# over a fixed set of replays that covers each block and policy: the check that a
# change meant to be faster leaves every output byte-identical. Print one line per
# replay ("md5  name"); compare two builds with
#   scripts/replay_digests.sh build/gdsim > new.txt
#   scripts/replay_digests.sh /tmp/old/gdsim > old.txt; diff old.txt new.txt
# Usage: scripts/replay_digests.sh GDSIM [WORKDIR]  (traces are made once in WORKDIR,
# default build/digests; exit 1 if a replay fails)
set -u
G=${1:?usage: replay_digests.sh GDSIM [WORKDIR]}
W=${2:-build/digests}
mkdir -p "$W/out"
T=$W
gen() { f=$1; shift; [ -f "$T/$f" ] || python3 scripts/gen_trace.py "$T/$f" "$@" >/dev/null || { echo "gen $f failed" >&2; exit 1; }; }
gen mix.gdt.gz --kernels 40 --grid 300 --block 256 --regs "32;64;128" --smem 8192 --cta-ns "2000;3500;800" \
    --queues 3 --device a100 --insn "fp32=100,ldst=20"
gen odd.gdt.gz --kernels 30 --grid 500 --block 96 --regs 40 --smem 0 --cta-ns 1200 --queues 2 --device v100
gen cga.gdt.gz --kernels 20 --grid 64,4 --block 128 --regs 32 --smem 0 --cta-ns 1500 --queues 2 --cluster 2,2 --device h100
gen gcga.gdt.gz --kernels 12 --grid 64,4 --block 128 --regs 32 --smem 0 --cta-ns 1500 --queues 2 --cluster 2,2 \
    --gpu-cga 2 --device h100
gen mc.gdt.gz --kernels 12 --grid 32,4 --block 128 --regs 32 --smem 0 --cta-ns 1500 --queues 2 --cluster 4 \
    --cluster-mode multicast --device h100
gen tiny.gdt.gz --kernels 3000 --grid 1 --block 256 --regs 32 --smem 0 --cta-ns 2000 --queues 4 --submit-ns 1000 --device h100
gen full.gdt.gz --kernels 40 --grid 4000 --block 256 --regs 32 --smem 0 --cta-ns 2000 --queues 2 --submit-ns 3000 --device h100
gen half.gdt.gz --kernels 100 --grid 1000 --block 256 --regs 32 --smem 0 --cta-ns 2000 --queues 4 --submit-ns 3000 --device h100
gen nobar.gdt.gz --kernels 200 --grid 100 --block 128 --regs 32 --smem 4096 --cta-ns 900 --queues 3 --no-barrier --device a100
gen ten.gdt.gz --kernels 60 --grid 200 --block 256 --regs 32 --smem 0 --cta-ns 1500 --queues 2 --tenants 4 \
    --chain "s,c,c;s,-,c" --fail 1:4 --priority 2:3 --independent 3 --device h100
gen fig6.gdt.gz --seed-fig6 --fail 1:1
gen pipe.gdt.gz --pipeline traces/topologies/fig1.topo --kernels 10 --grid 100 --block 128 --regs 32 --smem 0 \
    --cta-ns 1000 --device h100
[ -f "$T/mix.cond.gdt.gz" ] || "$G" condense "$T/mix.gdt.gz" "$T/mix.cond.gdt.gz" >/dev/null
for c in a100_alexnet_79_kernels a100_train_nccl_2700_kernels mi250_minitoy_14_kernels v100_train_9876_kernels \
         a100_multistream_events_3_kernels; do
    [ -f "$T/$c.gdt.gz" ] || python3 scripts/kineto2gdt.py "tb/data/kineto/$c.json.gz" "$T/$c.gdt.gz" 2>/dev/null ||
        { echo "convert $c failed" >&2; exit 1; }
done
status=0
n=0
while read -r trace opts; do
    [ -n "$trace" ] || continue
    n=$((n + 1))
    o=$W/out/$n
    # shellcheck disable=SC2086
    if ! "$G" replay "$T/$trace" $opts --kernels-csv "$o.csv" --summary-json "$o.json" --cta-log "$o.ctas" \
        --meta-log "$o.meta" >"$o.txt" 2>"$o.err"; then
        echo "FAILED  $trace $opts" ; status=1; continue
    fi
    # every byte but the simulator's own effort (a block's SystemC wake-ups), which
    # speed work is meant to change
    d=$(grep -v -E '"name": "[a-z_]*wakeups"' "$o.json" | cat "$o.csv" - "$o.txt" "$o.ctas" "$o.meta" | md5sum | cut -c1-32)
    echo "$d  $trace $opts"
done <<EOF
mix.gdt.gz
mix.gdt.gz --set cwd.policy=baseline
mix.gdt.gz --set cwd.admission=channels
mix.gdt.gz --set sm.alloc=contiguous
mix.gdt.gz --set sm.wave_placement=tail
mix.gdt.gz --set power.window_ns=1000
mix.gdt.gz --set gpc2sm.select=power
mix.gdt.gz --set gpc2sm.select=weighted
mix.gdt.gz --set gpc2sm.group_ctas=off
mix.gdt.gz --set sim.shortcuts=off
mix.gdt.gz --set cwd.policy=baseline --set sim.shortcuts=off
mix.gdt.gz --set cs.policy=inorder
mix.gdt.gz --set cs.policy=waitqueue
mix.cond.gdt.gz
mix.cond.gdt.gz --set pp.condensed_overlap=on
odd.gdt.gz
odd.gdt.gz --set cwd.policy=baseline
cga.gdt.gz
cga.gdt.gz --set cwd.policy=baseline
gcga.gdt.gz
mc.gdt.gz
tiny.gdt.gz
tiny.gdt.gz --set cwd.policy=baseline
tiny.gdt.gz --set pp.queue_packets=2
full.gdt.gz
full.gdt.gz --set gpu.gpcs=64 --set gpu.sms_per_gpc=16,17,16,17,16,17,16,17,16,17,16,17,16,17,16,17,16,17,16,17,16,17,16,17,16,17,16,17,16,17,16,17,16,17,16,17,16,17,16,17,16,17,16,17,16,17,16,17,16,17,16,17,16,17,16,17,16,17,16,17,16,17,16,17
half.gdt.gz
half.gdt.gz --set cwd.max_resident_kernels=2
nobar.gdt.gz
nobar.gdt.gz --set cs.policy=waitqueue --set cs.physical_queues=1
ten.gdt.gz --set cs.policy=waitqueue
ten.gdt.gz --set cs.policy=inorder
ten.gdt.gz --set cs.policy=waitqueue --set cwd.admission=channels --set cwd.split_after=4
fig6.gdt.gz --set cs.policy=waitqueue
fig6.gdt.gz --set cs.policy=inorder
pipe.gdt.gz
pipe.gdt.gz --set meta.policy=most_data
pipe.gdt.gz --set meta.debug=on
a100_alexnet_79_kernels.gdt.gz
a100_train_nccl_2700_kernels.gdt.gz
mi250_minitoy_14_kernels.gdt.gz
a100_multistream_events_3_kernels.gdt.gz
v100_train_9876_kernels.gdt.gz
v100_train_9876_kernels.gdt.gz --set cwd.policy=baseline
v100_train_9876_kernels.gdt.gz --set cwd.admission=channels
EOF
echo "$n replays" >&2
exit $status
