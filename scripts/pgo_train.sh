#!/bin/sh
# The training replays of the profile-guided build (make PGO=1, the release build;
# docs/PERFORMANCE.md): an instrumented gdsim replays them and the counts it writes
# (.gcda files beside its objects) steer the real build's inlining, branch layout and
# hot/cold code placement. They are what replays spend their time on, and none is a
# benchmark input (make bench replays the V100 capture, bench10/20, half10, one-CTA
# kernels): a real training step of another GPU (the A100 capture in tb/data/kineto),
# a GPU kept full by kernels of thousands of CTAs (on the H100 preset, on 1,056 and on
# 8,448 SMs), one left half full, many one-CTA kernels, kernels of mixed shapes,
# clusters (GPC-CGAs, GPU-CGAs, multicast) and tenants, the bundled sample with every
# output written, and a replay with sim.shortcuts=off. Read ahead is off so that one
# thread writes the counts.
# Usage: scripts/pgo_train.sh GDSIM WORKDIR (exit status 1 if a replay fails)
set -eu
G=${1:?usage: pgo_train.sh GDSIM WORKDIR}
W=${2:?usage: pgo_train.sh GDSIM WORKDIR}
rm -rf "$W"
mkdir -p "$W"
gen() { f=$1; shift; python3 scripts/gen_trace.py "$W/$f" "$@" >/dev/null; }
gen full.gdt.gz --kernels 150 --grid 4000 --block 256 --regs 32 --smem 0 --cta-ns 2000 --queues 2 --submit-ns 3000 \
    --device h100 --seed 7
gen half.gdt.gz --kernels 600 --grid 1000 --block 256 --regs 32 --smem 0 --cta-ns 2000 --queues 4 --submit-ns 3000 \
    --device h100 --seed 7
gen tiny.gdt.gz --kernels 30000 --grid 1 --block 256 --regs 32 --smem 0 --cta-ns 2000 --queues 4 --submit-ns 1000 \
    --device h100 --seed 7
gen mix.gdt.gz --kernels 300 --grid 300 --block 256 --regs "32;64;128" --smem 8192 --cta-ns "2000;3500;800" \
    --queues 3 --device a100 --insn "fp32=100,ldst=20"
gen cga.gdt.gz --kernels 40 --grid 64,4 --block 128 --regs 32 --smem 0 --cta-ns 1500 --queues 2 --cluster 2,2 --device h100
gen gcga.gdt.gz --kernels 20 --grid 64,4 --block 128 --regs 32 --smem 0 --cta-ns 1500 --queues 2 --cluster 2,2 \
    --gpu-cga 2 --device h100
gen mc.gdt.gz --kernels 20 --grid 32,4 --block 128 --regs 32 --smem 0 --cta-ns 1500 --queues 2 --cluster 4 \
    --cluster-mode multicast --device h100
gen ten.gdt.gz --kernels 60 --grid 200 --block 256 --regs 32 --smem 0 --cta-ns 1500 --queues 2 --tenants 4 \
    --chain "s,c,c;s,-,c" --fail 1:4 --priority 2:3 --independent 3 --device h100
python3 scripts/kineto2gdt.py tb/data/kineto/a100_train_nccl_2700_kernels.json.gz "$W/a100.gdt.gz" >/dev/null 2>&1
L1056=$(awk 'BEGIN { for (i = 0; i < 64; i++) printf "%s%d", i ? "," : "", 16 + i % 2 }')
L8448=$(awk 'BEGIN { for (i = 0; i < 512; i++) printf "%s%d", i ? "," : "", 16 + i % 2 }')
r() { "$G" replay "$@" --quiet --set sim.read_ahead=off; }
r "$W/a100.gdt.gz"
r "$W/full.gdt.gz"
r "$W/full.gdt.gz" --set gpu.gpcs=64 --set gpu.sms_per_gpc="$L1056"
r "$W/full.gdt.gz" --set gpu.gpcs=512 --set gpu.sms_per_gpc="$L8448"
r "$W/half.gdt.gz"
r "$W/tiny.gdt.gz"
for t in mix cga gcga mc ten; do r "$W/$t.gdt.gz"; done
r "$W/mix.gdt.gz" --set sim.shortcuts=off
r traces/sample.gdt.gz --kernels-csv "$W/k.csv" --summary-json "$W/s.json" --cta-log "$W/c.csv" \
    --occupancy-csv "$W/o.csv"
