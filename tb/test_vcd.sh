#!/bin/sh
# Waveforms (--vcd): SystemC's VCD writer, read back by GTKWave's own converter
# (vcd2fst, Debian package gtkwave); the values are the model's at their times (the
# GPCs' resident warps integrate to the report's mean occupancy; counts end where the
# summary says); the replay's other outputs are unchanged by it; the same bytes twice.
# Usage: sh tb/test_vcd.sh BUILD_DIR
set -u
B=${1:-build}
G=$B/gdsim
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
command -v vcd2fst >/dev/null || fail "vcd2fst missing (Debian package gtkwave; make deps installs it)"
S=traces/sample.gdt.gz

$G replay $S --quiet --vcd "$T/a.vcd" --vcd-queues 2 --kernels-csv "$T/a.csv" --summary-json "$T/a.json" \
    || fail "replay --vcd"
$G replay $S --quiet --kernels-csv "$T/b.csv" || fail "replay"
cmp -s "$T/a.csv" "$T/b.csv" || fail "--vcd changed the kernels CSV"
[ ! -e "$T/a.vcd.part.vcd" ] || fail "the temporary VCD stayed"
vcd2fst "$T/a.vcd" "$T/a.fst" >"$T/conv.log" 2>&1 && [ -s "$T/a.fst" ] || fail "vcd2fst refused it: $(cat "$T/conv.log")"
$G replay $S --quiet --vcd "$T/c.vcd" --vcd-queues 2 || fail "replay --vcd again"
cmp -s "$T/a.vcd" "$T/c.vcd" || fail "two replays gave different VCDs"

python3 - "$T/a.vcd" "$T/a.json" <<'PY' || fail "VCD values"
import json, sys
ids, vals, changes, t = {}, {}, [], 0
body = False
for line in open(sys.argv[1]):
    w = line.split()
    if not w:
        continue
    if w[0] == "$scope":
        scope = getattr(sys.modules[__name__], "_scope", []) + [w[2]]
        sys.modules[__name__]._scope = scope
    elif w[0] == "$upscope":
        sys.modules[__name__]._scope = sys.modules[__name__]._scope[:-1]
    elif w[0] == "$var":
        ids[w[3]] = ".".join(sys.modules[__name__]._scope[1:] + [w[4]])
    elif w[0] == "$enddefinitions":
        body = True
    elif body and w[0][0] == "#":
        t = int(w[0][1:])
    elif body and w[0][0] == "b":
        changes.append((t, ids[w[1]], int(w[0][1:], 2)))
    elif body and w[0][0] in "01" and w[0][1:] in ids:
        changes.append((t, ids[w[0][1:]], int(w[0][0])))
d = json.load(open(sys.argv[2]))
s, c = d["summary"], d["config"]
names = set(ids.values())
for want in ("gpu.pp.queue0.depth", "gpu.pp.queue1.write_index", "gpu.gpu2gpc.resident_kernels",
             "gpu.gpu2gpc.ctas_launched", "gpu.gpc2sm_0.resident_warps", "gpu.gpc2sm_7.busy"):
    assert want in names, (want, sorted(names)[:20])
assert not any(n.startswith("gpu.pp.queue2.") for n in names), "only --vcd-queues 2 queues"
final = {}
for tt, n, v in changes:
    final[n] = v
assert final["gpu.gpu2gpc.ctas_launched"] == s["ctas"] == 40000, final["gpu.gpu2gpc.ctas_launched"]
assert final["gpu.gpu2gpc.resident_kernels"] == 0 and final["gpu.gpc2sm_0.resident_ctas"] == 0
assert final["gpu.pp.queue0.write_index"] + final["gpu.pp.queue1.write_index"] == s["packets"] == 40
assert max(v for tt, n, v in changes if n == "gpu.gpu2gpc.resident_kernels") == s["max_resident_kernels"]
# the GPCs' resident warps, a step function of the VCD's times, integrate to the
# warp-time behind the mean occupancy: each value holds from its time to the next
cur, last, area = {}, 0, 0
for tt, n, v in changes:
    if tt != last:
        area += sum(cur.values()) * (tt - last)
        last = tt
    if n.endswith(".resident_warps"):
        cur[n] = v
want = s["mean_sm_occupancy_pct"] / 100 * s["busy_span_ns"] * 1000 * sum(c["gpu.sms_per_gpc"]) * c["sm.max_warps"]
assert abs(area - want) <= 1e-5 * want, (area, want)

PY
$G replay $S --quiet --vcd - 2>"$T/err"; [ $? -eq 2 ] || fail "--vcd -: usage error"
$G replay $S --quiet --vcd /nonexistent/w.vcd 2>"$T/err"; [ $? -eq 2 ] || fail "--vcd to a missing folder"
$G replay $S --quiet --vcd "$T/x.vcd" --vcd-queues 5000 2>/dev/null; [ $? -eq 2 ] || fail "--vcd-queues 5000"
echo "vcd: ok"
