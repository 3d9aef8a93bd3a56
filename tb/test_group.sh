#!/bin/sh
# gpc2sm.group_ctas (issue 16): a launch step's CTAs booked per SM and retired as one
# calendar entry give exactly the outputs of one record per CTA: the kernels CSV, the
# summary JSON (but for the key's own line), the text report and the CTA log, under
# every distributor policy and allocation rule that changes how CTAs are placed.
# Usage: sh tb/test_group.sh BUILD_DIR
set -u
B=${1:-build}
G=$B/gdsim
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
fail() { echo "FAIL: $*"; exit 1; }

python3 scripts/gen_trace.py "$T/mix.gdt.gz" --kernels 40 --grid 300 --block 256 --regs "32;64;128" --smem 8192 \
    --cta-ns "2000;3500;800" --queues 3 --device a100 --insn "fp32=100,ldst=20" >/dev/null || fail "gen mix"
python3 scripts/gen_trace.py "$T/odd.gdt.gz" --kernels 30 --grid 500 --block "96" --regs "40" --smem 0 \
    --cta-ns "1200" --queues 2 --device v100 >/dev/null || fail "gen odd"
python3 scripts/gen_trace.py "$T/cga.gdt.gz" --kernels 20 --grid 64,4 --block 128 --regs 32 --smem 0 \
    --cta-ns 1500 --queues 2 --cluster 2,2 --device h100 >/dev/null || fail "gen cga"
python3 scripts/kineto2gdt.py tb/data/kineto/a100_alexnet_79_kernels.json.gz "$T/alex.gdt.gz" 2>/dev/null \
    || fail "convert alexnet"

n=0
while read -r trace opts; do
    n=$((n + 1))
    for g in on off; do
        # shellcheck disable=SC2086
        $G replay "$T/$trace" $opts --set gpc2sm.group_ctas=$g --kernels-csv "$T/$g.csv" \
            --summary-json "$T/$g.json" --cta-log "$T/$g.ctas" >"$T/$g.txt" || fail "$trace $opts ($g)"
        sed -i '/gpc2sm.group_ctas/d' "$T/$g.json"
        sed -i '/wall\|M CTAs\/s\|peak memory/d' "$T/$g.txt"
    done
    for f in csv json ctas txt; do
        cmp -s "$T/on.$f" "$T/off.$f" || fail "$trace $opts: the $f output differs with gpc2sm.group_ctas=on"
    done
    [ "$(wc -l <"$T/on.ctas")" -gt 1000 ] || fail "$trace $opts: CTA log too short"
done <<EOF
mix.gdt.gz
mix.gdt.gz --set cwd.policy=baseline
mix.gdt.gz --set cwd.admission=channels
mix.gdt.gz --set sm.alloc=contiguous
mix.gdt.gz --set sm.wave_placement=tail
mix.gdt.gz --set power.window_ns=1000
mix.gdt.gz --set gpc2sm.select=power
mix.gdt.gz --set gpc2sm.select=weighted
odd.gdt.gz
cga.gdt.gz
alex.gdt.gz
EOF
# Without a CTA log, grouped launches of a plain kernel (no instruction mix) start by
# their SMs' counters only, counted when their records are given up (the last ones by
# the end-of-run flush): the per-SM counts in the summary JSON must still match.
for trace in odd.gdt.gz alex.gdt.gz cga.gdt.gz; do
    n=$((n + 1))
    for g in on off; do
        $G replay "$T/$trace" --quiet --set gpc2sm.group_ctas=$g --kernels-csv "$T/$g.csv" \
            --summary-json "$T/$g.json" || fail "$trace without a CTA log ($g)"
        sed -i '/gpc2sm.group_ctas/d' "$T/$g.json"
    done
    for f in csv json; do
        cmp -s "$T/on.$f" "$T/off.$f" || fail "$trace without a CTA log: the $f output differs with gpc2sm.group_ctas=on"
    done
done
echo "group: $n configurations, outputs identical with and without grouping"
