#!/bin/sh
# The meta-scheduler end to end (issue 13): seed 002 fig 1 as a pipeline-launch packet
# (format 1.8, scripts/gen_trace.py --pipeline) replayed by gdsim.
#  - under round_robin, priority and most_data, with the meta-scheduler's and the
#    distributor's latencies at 0, the pipeline spans exactly the hand-worked 14 us
#    (tb/test_meta.c works the timeline out) and every item is accounted for;
#  - with the default latencies, two replays give the same report, kernel table and
#    meta log byte for byte;
#  - debug mode launches one CTA at a time, K1, K2, K3 in turn;
#  - a ring of 64 kernels below the SIMD width runs to the end;
#  - every topology of tb/data/topologies (one per rule) and a trace whose topology
#    breaks a rule are rejected, naming the record, the part and
#    the rule, in under a second; so is a kernel the device cannot run;
#  - a pipeline among ordinary kernels: every kernel replayed, the pipeline one row;
#  - the image pipeline under scripts/compare_policies.py: its figures are the
#    replays' own, and docs/MODEL.md's table is current.
# Usage: sh tb/test_meta.sh BUILD_DIR
set -u
B=${1:-build}
G="$B/gdsim"
fail() { echo "FAIL: $*"; exit 1; }
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT

python3 scripts/gen_trace.py "$T/fig1.gdt" --pipeline traces/topologies/fig1.topo || fail "gen_trace --pipeline"
Z="--set meta.check_cycles=0 --set meta.launch_cycles=0 --set cwd.grid_launch_cycles=0 --set cwd.cta_launch_cycles=0
   --set cwd.cga_flush_cycles=0 --set cwd.id_broadcast_cycles=0 --set cwd.mask_launch_cycles=0 --set cwd.query_cycles=0"
for p in round_robin priority most_data; do
    # shellcheck disable=SC2086
    "$G" replay "$T/fig1.gdt" $Z --set meta.policy=$p --quiet --summary-json "$T/$p.json" --meta-log "$T/$p.csv" ||
        fail "fig1 under $p"
    python3 - "$T/$p.json" "$T/$p.csv" "$p" <<'EOF' || fail "fig1 under $p: figures"
import csv, json, sys
d = json.load(open(sys.argv[1]))
p = d["meta"]["pipelines"][0]
assert p["name"] == "p0:fig1", p["name"]
assert p["span_ns"] == 14000.0, p["span_ns"]
assert (p["launches"], p["ctas"], p["items_in"], p["items_left"]) == (6, 24, 256, 0), p
for b in p["buffers"]:
    # items in = items consumed + left, per buffer
    assert b["initial"] + b["written"] == b["consumed"] + b["left"], b
    assert b["consumed"] == 256, b
for k in p["kernels"]:
    assert (k["launches"], k["ctas"], k["items"]) == (2, 8, 256), k
launches = [(r["time_ns"], r["kernel"], r["items"]) for r in csv.DictReader(open(sys.argv[2])) if r["event"] == "launch"]
assert [k for _, k, _ in launches] == ["K1", "K2", "K3", "K1", "K2", "K3"], launches
t0 = float(launches[0][0])
assert [round(float(t) - t0, 3) for t, _, _ in launches] == [0, 2000, 6000, 7000, 9000, 13000], launches
# the packet's row in the kernel table spans the pipeline
assert d["summary"]["kernels"] == 1 and d["summary"]["ctas"] == 24, d["summary"]
print(sys.argv[3], "span", p["span_ns"], "ns: ok")
EOF
done

# determinism, default latencies
for i in 1 2; do
    "$G" replay "$T/fig1.gdt" --summary-json "$T/d$i.json" --kernels-csv "$T/d$i.csv" --meta-log "$T/d$i.log" >"$T/d$i.txt" ||
        fail "fig1 replay $i"
done
for f in json csv log txt; do
    cmp -s "$T/d1.$f" "$T/d2.$f" || fail "two replays differ ($f)"
done
grep -q "^  pipeline p0:fig1    span " "$T/d1.txt" || { cat "$T/d1.txt"; fail "the text report has no pipeline line"; }
grep -q '^0,pipeline fig1,0,24,256,' "$T/d1.csv" || { cat "$T/d1.csv"; fail "the kernel table has no pipeline row"; }
echo "two replays identical: ok"

# debug mode: one CTA at a time, K1 K2 K3 in turn
"$G" replay "$T/fig1.gdt" --set meta.debug=on --quiet --meta-log "$T/dbg.csv" --summary-json "$T/dbg.json" ||
    fail "debug mode"
python3 - "$T/dbg.csv" "$T/dbg.json" <<'EOF' || fail "debug mode: order"
import csv, json, sys
rows = list(csv.DictReader(open(sys.argv[1])))
launches = [(r["kernel"], r["items"]) for r in rows if r["event"] == "launch"]
assert launches == [("K1", "1"), ("K2", "1"), ("K3", "1")] * 8, launches
# never two launches in flight
inflight = 0
for r in rows:
    inflight += {"launch": 1, "end": -1}.get(r["event"], 0)
    assert 0 <= inflight <= 1, r
p = json.load(open(sys.argv[2]))["meta"]["pipelines"][0]
assert [b["length"] for b in p["buffers"]] == [256, 63, 63, 63], p["buffers"]
print("debug mode: 24 one-CTA launches, K1 K2 K3 in turn: ok")
EOF

# invalid topologies inside a trace
cat >"$T/bad.topo" <<'EOF'
topology bad
buffer A width=4 length=4096 initial=4096
buffer B width=4 length=7
kernel K in=A out=B items=6 threads=32 cta_ns=10
kernel L in=B items=4 threads=32 cta_ns=10
EOF
python3 scripts/gen_trace.py "$T/bad.gdt" --pipeline "$T/bad.topo" || fail "gen_trace bad"
s=$(date +%s%N)
"$G" replay "$T/bad.gdt" --set meta.simd_width=1 >"$T/bad.out" 2>"$T/bad.err" && fail "an invalid topology was replayed"
e=$(date +%s%N)
grep -q "record 1 (offset .*): pipeline-launch packet: topology 'bad' is invalid (1 error; the first: line 3: buffer B: deadlock: 7 entries can deadlock" "$T/bad.err" ||
    { cat "$T/bad.err"; fail "the message does not name the record, part and rule"; }
[ $(((e - s) / 1000000)) -lt 1000 ] || fail "rejecting took $(((e - s) / 1000000)) ms"
sed 's/threads=32 cta_ns=10$/threads=4096 cta_ns=10/' "$T/bad.topo" | sed 's/length=7/length=9/' >"$T/big.topo"
python3 scripts/gen_trace.py "$T/big.gdt" --pipeline "$T/big.topo" || fail "gen_trace big"
"$G" replay "$T/big.gdt" --set meta.simd_width=1 >/dev/null 2>"$T/big.err" && fail "a kernel of 4096 threads was replayed"
grep -q "pipeline-launch packet: topology line 4: kernel 'K': 4096 threads per CTA (the device allows 1 to 1024)" "$T/big.err" ||
    { cat "$T/big.err"; fail "the device check does not name the kernel"; }
# the largest topology the format allows, valid: a ring of 64 kernels that halves its
# items each step runs to the end (32 + 16 + ... + 1 CTAs), although most launches start
# below meta.simd_width (32) with every writer of their input waiting too
# (tb/data/topologies/ring64.topo with each CTA returning half of what it reads)
sed 's/ out_items=2 / out_items=1 /' tb/data/topologies/ring64.topo >"$T/ring.topo"
python3 scripts/gen_trace.py "$T/ring.gdt" --pipeline "$T/ring.topo" || fail "gen_trace ring"
timeout 10 "$G" replay "$T/ring.gdt" --quiet --summary-json "$T/ring.json" || fail "the 64-kernel ring"
python3 - "$T/ring.json" <<'EOF2' || fail "the 64-kernel ring: figures"
import json, sys
p = json.load(open(sys.argv[1]))["meta"]["pipelines"][0]
assert (p["launches"], p["ctas"], p["items_in"], p["items_left"]) == (6, 63, 64, 1), p
assert [k["ctas"] for k in p["kernels"][:7]] == [32, 16, 8, 4, 2, 1, 0], p["kernels"][:7]
EOF2
echo "a ring of 64 kernels below the SIMD width runs to the end: ok"

# every invalid topology of tb/data/topologies (one per rule, and the largest the
# format allows): check-topology and a trace launching it both reject it naming the part
# and rule (its first line: '# expect: RULE: PART'), each in under a second
n=0
for f in tb/data/topologies/*.topo; do
    exp=$(sed -n '1s/^# expect: //p' "$f"); rule=${exp%%: *}; part=${exp#*: }
    [ -n "$rule" ] && [ -n "$part" ] || fail "$f: no '# expect: RULE: PART' line"
    s=$(date +%s%N)
    timeout 10 "$G" check-topology "$f" --set meta.simd_width=1 >"$T/ct.out" 2>&1; rc=$?
    e=$(date +%s%N)
    [ $rc -eq 1 ] || { cat "$T/ct.out"; fail "$f: check-topology exit $rc, not 1"; }
    grep -q "^$f:[0-9]*: $part: $rule: " "$T/ct.out" || { cat "$T/ct.out"; fail "$f: no '$part: $rule' verdict"; }
    [ $(((e - s) / 1000000)) -lt 1000 ] || fail "$f: check-topology took $(((e - s) / 1000000)) ms"
    python3 scripts/gen_trace.py "$T/inv.gdt" --pipeline "$f" || fail "gen_trace $f"
    s=$(date +%s%N)
    timeout 10 "$G" replay "$T/inv.gdt" --set meta.simd_width=1 >/dev/null 2>"$T/inv.err"; rc=$?
    e=$(date +%s%N)
    [ $rc -eq 1 ] || { cat "$T/inv.err"; fail "$f in a trace: exit $rc, not 1"; }
    grep -q "record 1 (offset .*): pipeline-launch packet: topology .* is invalid (.*: line [0-9]*: $part: $rule: " \
        "$T/inv.err" || { cat "$T/inv.err"; fail "$f in a trace: no '$part: $rule'"; }
    [ $(((e - s) / 1000000)) -lt 1000 ] || fail "$f in a trace: rejecting took $(((e - s) / 1000000)) ms"
    n=$((n + 1))
done
[ $n -ge 12 ] || fail "only $n invalid topologies in tb/data/topologies"
echo "invalid topologies rejected with record, part and rule: ok ($n files of tb/data/topologies, each under 1 s)"

# a pipeline among ordinary kernels
python3 scripts/gen_trace.py "$T/mix.gdt" --pipeline traces/topologies/fig1.topo --kernels 5 --grid 100 --block 128 \
    --regs 32 --smem 0 --cta-ns 3000 --queues 2 || fail "gen_trace mix"
"$G" replay "$T/mix.gdt" --quiet --summary-json "$T/mix.json" --kernels-csv "$T/mix.csv" || fail "mixed replay"
python3 - "$T/mix.json" "$T/mix.csv" <<'EOF' || fail "mixed trace"
import csv, json, sys
d = json.load(open(sys.argv[1]))
assert d["summary"]["kernels"] == 6 and d["summary"]["ctas"] == 24 + 500, d["summary"]
rows = list(csv.DictReader(open(sys.argv[2])))
assert [r["name"] for r in rows] == ["pipeline fig1"] + ["gen_kernel_b128_r32_s0"] * 5, [r["name"] for r in rows]
print("a pipeline among 5 kernels: 6 rows, 524 CTAs: ok")
EOF

# malformed pipeline-launch records: each an error naming the record and what is wrong
python3 - "$T" <<'EOF2' || fail "writing malformed records"
import os, struct, sys
sys.path.insert(0, "scripts")
from gdtrace import REC_PIPELINE, TraceWriter
from gen_trace import DEVICES
text = open("traces/topologies/fig1.topo", "rb").read()
head = lambda q, res, flags, n, res2: struct.pack("<HHIQQII", q, res, flags, 1000, 0, n, res2)
cases = {
    "short": (head(0, 0, 1, len(text), 0)[:20]),
    "length": (head(0, 0, 1, len(text) + 1, 0) + text),
    "empty": (head(0, 0, 1, 0, 0)),
    "reserved": (head(0, 0, 1, len(text), 5) + text),
    "reserved2": (head(0, 7, 1, len(text), 0) + text),
    "flags": (head(0, 0, 3, len(text), 0) + text),
    "queue": (head(1024, 0, 1, len(text), 0) + text),
    "version": (head(0, 0, 1, len(text), 0) + text),
    "syntax": (head(0, 0, 1, 12, 0) + b"kernel K in="),
}
for name, payload in cases.items():
    w = TraceWriter(os.path.join(sys.argv[1], name + ".gdt"), DEVICES["h100"], "test", minor=8)
    w.record(REC_PIPELINE, payload)
    w.close()
EOF2
# the version case: rewrite the file header's minor version to 7
python3 - "$T/version.gdt" <<'EOF2'
import gzip, sys
d = bytearray(gzip.open(sys.argv[1]).read()); d[10] = 7
with open(sys.argv[1], "wb") as f:
    f.write(gzip.compress(bytes(d), mtime=0))
EOF2
for c in "short:shorter than its 32 fixed bytes" "length:topology of 627 bytes in a record of 658" \
         "empty:topology of 0 bytes" "reserved:reserved bytes 28-31 are not zero" "reserved2:reserved bytes 2-7 are not zero" \
         "flags:flags 0x00000003 (only bit 0, barrier, is defined)" "queue:on queue 1024" \
         "version:record type 9 (pipeline-launch packet) in a version 1.7 trace (needs format 1.8)" \
         "syntax:pipeline-launch packet: topology:1:"; do
    n=${c%%:*}; want=${c#*:}
    "$G" replay "$T/$n.gdt" >/dev/null 2>"$T/$n.err" && fail "malformed record '$n' was replayed"
    grep -q "$T/$n.gdt: record 1 (offset [0-9]*): .*$want" "$T/$n.err" || { cat "$T/$n.err"; fail "malformed record '$n': message"; }
done
echo "malformed pipeline-launch records: 9 classes rejected with record and reason: ok"

# The bigger example and the policy comparison (traces/topologies/image.topo,
# scripts/compare_policies.py; the table in docs/MODEL.md): its figures are the
# replay's own, a length the validation rejects is a row naming rule and part, two runs
# give the same table, every item is accounted for, bad arguments are usage errors.
S="--set gpu.gpcs=1 --set gpu.sms_per_gpc=4"
# shellcheck disable=SC2086
python3 scripts/compare_policies.py traces/topologies/image.topo $S --lengths 0.25,1 --gdsim "$G" --csv \
    -o "$T/cmp.csv" --keep "$T/cmp" || fail "compare_policies"
# shellcheck disable=SC2086
python3 scripts/compare_policies.py traces/topologies/image.topo $S --lengths 0.25,1 --gdsim "$G" --csv \
    >"$T/cmp2.csv" || fail "compare_policies, second run"
cmp -s "$T/cmp.csv" "$T/cmp2.csv" || fail "compare_policies: two runs differ"
python3 scripts/gen_trace.py "$T/image.gdt" --pipeline traces/topologies/image.topo || fail "gen_trace image.topo"
for p in round_robin priority most_data; do
    # shellcheck disable=SC2086
    "$G" replay "$T/image.gdt" --preset h100 $S --set meta.policy=$p --quiet --summary-json "$T/image_$p.json" ||
        fail "image.topo under $p"
done
python3 - "$T" <<'EOF2' || fail "compare_policies: figures"
import csv, json, os, sys
T = sys.argv[1]
rows = list(csv.DictReader(open(os.path.join(T, "cmp.csv"))))
assert len(rows) == 4, rows
assert rows[0]["lengths"] == "0.25x" and rows[0]["policy"] == "", rows[0]
assert rows[0]["rejected"] == "out-of-range (kernel denoise); deadlock (buffer mixed)", rows[0]["rejected"]
best = min(float(r["makespan us"]) for r in rows[1:])
for r in rows[1:]:
    d = json.load(open(os.path.join(T, "image_%s.json" % r["policy"])))
    p = d["meta"]["pipelines"][0]
    assert r["makespan us"] == "%.3f" % (p["span_ns"] / 1000.0), (r, p["span_ns"])
    assert int(r["launches"]) == p["launches"] and int(r["rounds"]) == p["rounds"], r
    assert r["occupancy %"] == "%.1f" % d["summary"]["mean_sm_occupancy_pct"], r
    assert r["vs best"] == "%.3f" % (float(r["makespan us"]) / best), r
    assert r["inner KiB"] == "10.0", r  # luma 2048 x 1 + chroma 1024 x 2 + clean, sharp 1024 x 1 + tone 1024 x 2 + mixed 512 x 4
    inner = [b for b in p["buffers"] if b["name"] not in ("bitstream", "stream")]
    fill = 100.0 * sum(b["mean_fill"] for b in inner) / sum(b["length"] for b in inner)
    assert r["fill %"] == "%.1f" % fill, (r, fill)
    # the six kernels' 800 CTAs, every item through every buffer
    assert (p["ctas"], p["items_in"], p["items_left"]) == (800, 2048, 1024), p
    for b in p["buffers"]:
        assert b["initial"] + b["written"] == b["consumed"] + b["left"], b
        assert b["left"] == (1024 if b["name"] == "stream" else 0), b
# the kept 1x topology: inner buffers at 1x, the rejected 0.25x one with 64x8 luma and 128-entry mixed
x25 = open(os.path.join(T, "cmp", "x0_25.topo")).read()
assert "buffer luma      width=1  dims=64x8" in x25 and "buffer mixed     width=4  length=128" in x25, x25
assert "length=2048 initial=2048" in x25 and "length=1152 drain" in x25, x25
EOF2
# policies differ on the example (the table in docs/MODEL.md is not one row three times)
cut -d, -f4 "$T/cmp.csv" | sed 1,2d | sort -u | wc -l | grep -q '^ *[23]$' || fail "compare_policies: policies do not differ"
python3 scripts/compare_policies.py traces/topologies/image.topo --policies fastest --gdsim "$G" >/dev/null 2>"$T/e1" &&
    fail "an unknown policy was accepted"
grep -q "unknown policy 'fastest'" "$T/e1" || fail "unknown policy: message"
python3 scripts/compare_policies.py traces/topologies/image.topo --lengths 0,1 --gdsim "$G" >/dev/null 2>"$T/e2" &&
    fail "a length factor 0 was accepted"
python3 scripts/compare_policies.py "$T/none.topo" --gdsim "$G" >/dev/null 2>"$T/e3" && fail "a missing topology was accepted"
grep -q "none.topo" "$T/e3" || fail "missing topology: message"
# docs/MODEL.md's table is what the script prints now
# shellcheck disable=SC2086
python3 scripts/compare_policies.py traces/topologies/image.topo --lengths 0.25,0.5,1,2,4 $S --gdsim "$G" \
    >"$T/doc.md" || fail "compare_policies for the docs table"
sed -n '/<!-- compare_policies: image.topo defaults/,/<!-- end -->/p' docs/MODEL.md | sed '1d;$d' >"$T/doc_want.md"
cmp -s "$T/doc.md" "$T/doc_want.md" || { diff "$T/doc_want.md" "$T/doc.md"; fail "docs/MODEL.md's policy table is out of date"; }
echo "compare_policies on image.topo: figures from the replays, rejected length named, deterministic, docs table current: ok"
