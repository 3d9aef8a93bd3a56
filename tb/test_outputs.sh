#!/bin/sh
# What a new user meets in the outputs: times relative to the first submit (and
# --absolute-times), the idle note and the occupancy over the time kernels were
# resident, `gdsim keys` with resolved values and --markdown, typed JSON
# configuration, standard output holding only the one output sent there, output
# paths checked before the replay, progress lines without terminal codes.
# Usage: sh tb/test_outputs.sh BUILD_DIR
set -u
B=${1:-build}
G=$B/gdsim
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
S=traces/sample.gdt.gz   # its first submit is at 1000 ns of the trace's clock

# Times: from the first submit by default, the trace's clock with --absolute-times;
# every time column differs by exactly the origin the JSON records.
$G replay $S --quiet --kernels-csv "$T/rel.csv" --cta-log "$T/rel_cta.csv" --summary-json "$T/rel.json" \
    || fail "replay"
$G replay $S --quiet --kernels-csv "$T/abs.csv" --cta-log "$T/abs_cta.csv" --summary-json "$T/abs.json" \
    --absolute-times || fail "replay --absolute-times"
python3 - "$T" <<'EOF' || fail "relative and absolute times"
import csv, json, sys
from decimal import Decimal as D
t = sys.argv[1]
rel, ab = json.load(open(t + "/rel.json")), json.load(open(t + "/abs.json"))
assert rel["trace"]["time_origin_ns"] == 1000 and ab["trace"]["time_origin_ns"] == 1000, rel["trace"]
assert rel["trace"]["absolute_times"] is False and ab["trace"]["absolute_times"] is True
for name, cols in (("", ["submit_ns", "first_cta_ns", "last_cta_ns", "end_ns", "fetched_ns", "decoded_ns",
                         "ready_ns", "completion_ns"]), ("_cta", ["launch_ns", "end_ns"])):
    r = list(csv.DictReader(open(t + "/rel%s.csv" % name)))
    a = list(csv.DictReader(open(t + "/abs%s.csv" % name)))
    assert len(r) == len(a) > 0
    for x, y in zip(r, a):
        for c in cols:
            assert D(y[c]) - D(x[c]) == 1000, (name, c, x[c], y[c])
        for c in x:
            if c not in cols:
                assert x[c] == y[c], (c, x[c], y[c])
first = list(csv.DictReader(open(t + "/rel.csv")))[0]
assert first["submit_ns"] == "0.000", first["submit_ns"]
EOF

# The occupancy over the time kernels were resident: the same warp integral over a
# shorter time (resident_ns), so the two figures' products agree; the idle note
# appears only past report.idle_gap_pct of the simulated time.
python3 - "$T/rel.json" <<'EOF' || fail "resident occupancy"
import json, sys
s = json.load(open(sys.argv[1]))["summary"]
assert 0 < s["resident_ns"] <= s["sim_time_ns"], s
assert s["idle_ns"] == 608 and s["longest_idle_ns"] == 608, s
a = s["mean_sm_occupancy_pct"] * s["busy_span_ns"]
b = s["resident_occupancy_pct"] * s["resident_ns"]
assert abs(a - b) <= 1e-5 * a, (a, b)
EOF
$G replay $S | grep -q "idle  " && fail "idle note for a 608 ns gap"
$G replay $S --set report.idle_gap_pct=0 >"$T/idle.txt" || fail "replay idle_gap_pct=0"
grep -q "^  idle                0.608 us with no kernel on the GPU (0.1 % of the simulated time; longest 0.608 us)" "$T/idle.txt" \
    || fail "idle note: $(grep idle "$T/idle.txt")"
grep -q "^  occupancy resident  49.73 % of warp slots over the 761.613 us kernels were resident" "$T/idle.txt" \
    || fail "resident occupancy line: $(grep resident "$T/idle.txt")"

# gdsim keys: resolved values (a named preset, or the trace's device), --markdown.
$G keys --preset v100 | grep -qx "gpu.gpcs = 6" || fail "keys --preset v100"
$G keys --trace $S >"$T/keys" || fail "keys --trace"
grep -qx "gpu.preset = trace/h100" "$T/keys" && grep -qx "gpu.gpcs = 8" "$T/keys" \
    && grep -qx "gpu.sms_per_gpc = 18,18,16,16,16,16,16,16" "$T/keys" || fail "keys --trace values"
grep -q "(device preset)" "$T/keys" && fail "keys still says (device preset)"
$G keys --set gpu.preset=a100 --set gpu.gpcs=3 | grep -qx "gpu.gpcs = 3" || fail "keys --set"
$G keys --markdown >"$T/keys.md" || fail "keys --markdown"
head -2 "$T/keys.md" | tail -1 | grep -qx "|---|---|---|---|---|" || fail "keys --markdown table"
n=$($G keys | grep -c "^[a-z0-9_]*\.[a-z0-9_.]* = ")
[ "$(grep -c '^| `' "$T/keys.md")" -eq "$n" ] || fail "keys --markdown: a row per key ($n)"
$G keys --bogus 2>/dev/null; [ $? -eq 2 ] || fail "keys --bogus: not a usage error"
$G keys --trace /nonexistent.gdt.gz 2>"$T/err"; [ $? -eq 1 ] || fail "keys --trace missing: exit 1"
grep -q "/nonexistent.gdt.gz: cannot open" "$T/err" || fail "keys --trace missing: $(cat "$T/err")"

# JSON configuration values typed: numbers as numbers, lists as arrays.
python3 - "$T/rel.json" <<'EOF' || fail "typed JSON configuration"
import json, sys
c = json.load(open(sys.argv[1]))["config"]
assert c["gpu.gpcs"] == 8 and c["gpu.sms_per_gpc"] == [18, 18, 16, 16, 16, 16, 16, 16], c["gpu.sms_per_gpc"]
assert c["gpu.cc"] == "9.0" and c["gpu.preset"] == "trace/h100" and c["cwd.max_resident_kernels"] == 128
EOF

# Standard output holds only the output sent there; the text report goes to stderr.
$G replay $S --summary-json - >"$T/stdout.json" 2>"$T/stderr" || fail "--summary-json -"
python3 -c "import json,sys; json.load(open(sys.argv[1]))" "$T/stdout.json" || fail "--summary-json - is not only JSON"
grep -q "mean SM occupancy" "$T/stderr" || fail "the text report goes to stderr"
$G replay $S --kernels-csv - --perf >"$T/stdout.csv" 2>"$T/stderr" || fail "--kernels-csv - --perf"
head -1 "$T/stdout.csv" | grep -q "^kernel_index," && [ "$(wc -l <"$T/stdout.csv")" -eq 41 ] || fail "--kernels-csv -"
grep -q "^perf: " "$T/stderr" || fail "--perf goes to stderr with an output on stdout"
$G replay $S --summary-json - --cta-log - >/dev/null 2>"$T/err"; [ $? -eq 2 ] || fail "two outputs on stdout"
grep -q "both write to standard output" "$T/err" || fail "two outputs on stdout: $(cat "$T/err")"

# Every output path is checked before the replay: nothing is written when one is bad.
for bad in "/nonexistent/x.csv:the folder /nonexistent does not exist" "$T:is a directory" \
           "$S:is the trace being replayed"; do
    p=${bad%%:*}; msg=${bad#*:}
    rm -f "$T/ok.csv"
    $G replay $S --kernels-csv "$T/ok.csv" --summary-json "$p" >/dev/null 2>"$T/err"
    [ $? -eq 2 ] || fail "bad output $p: exit status"
    grep -q -- "--summary-json $p: $msg" "$T/err" || fail "bad output $p: $(cat "$T/err")"
    [ ! -e "$T/ok.csv" ] || fail "bad output $p: another output was written"
done
$G replay $S --kernels-csv "$T/same" --summary-json "$T/same" >/dev/null 2>"$T/err"; [ $? -eq 2 ] \
    || fail "two outputs on one path"
gzip -t $S || fail "the trace was damaged"

# Occupancy over time: the intervals integrate to the summary's mean occupancy, under
# every distributor and allocation path; idle intervals have no row; times as the CSVs'.
for sets in "" "--set cwd.policy=baseline" "--set sm.alloc=contiguous --set sm.wave_placement=tail" \
            "--set cwd.admission=channels --set cwd.split_after=2" "--set gpc2sm.select=power --set sim.shortcuts=off"; do
    # shellcheck disable=SC2086
    $G replay $S --quiet $sets --occupancy-csv "$T/occ.csv" --interval 7000 --summary-json "$T/occ.json" \
        || fail "occupancy CSV ($sets)"
    python3 - "$T/occ.csv" "$T/occ.json" 7000 <<'EOF2' || fail "occupancy CSV integral ($sets)"
import csv, json, sys
from decimal import Decimal as D
rows = list(csv.DictReader(open(sys.argv[1])))
d = json.load(open(sys.argv[2]))
s, c, I = d["summary"], d["config"], int(sys.argv[3])
sms, gpcs = sum(c["gpu.sms_per_gpc"]), c["gpu.gpcs"]
assert list(rows[0])[:2] == ["start_ns", "gpu"] and len(rows[0]) == 2 + gpcs + sms, list(rows[0])[:12]
for r in rows:
    assert D(r["start_ns"]) % I == 0, r["start_ns"]
    g = sum(D(r["gpc%d" % i]) for i in range(gpcs))
    m = sum(D(r["sm%d" % i]) for i in range(sms))
    assert abs(D(r["gpu"]) - g) < D("0.001") * gpcs and abs(D(r["gpu"]) - m) < D("0.001") * sms, r["start_ns"]
    assert D(r["gpu"]) > 0
warp_ns = sum(float(r["gpu"]) for r in rows) * I
want = s["mean_sm_occupancy_pct"] / 100 * s["busy_span_ns"] * sms * c["sm.max_warps"]
assert abs(warp_ns - want) <= 1e-5 * want, (warp_ns, want)
EOF2
done
$G replay $S --quiet --occupancy-csv - --interval 0 >/dev/null 2>&1; [ $? -eq 2 ] || fail "--interval 0: usage error"
$G replay $S --quiet --occupancy-csv "$T/occ_abs.csv" --absolute-times || fail "occupancy CSV --absolute-times"
$G replay $S --quiet --occupancy-csv - | sed -n 2p | cut -d, -f1 | grep -qx "0.000" || fail "occupancy CSV from 0"
sed -n 2p "$T/occ_abs.csv" | cut -d, -f1 | grep -qx "1000.000" || fail "occupancy CSV --absolute-times: from 1000"

# The timeline of a converted capture: every kernel once in the replayed queue tracks
# and once in the measured ones; its CTAs per GPC add up to its grid; slices on one
# track nest properly; counters for the GPCs' warps and the queues' depth.
python3 scripts/kineto2gdt.py -q tb/data/kineto/a100_alexnet_79_kernels.json.gz "$T/alex.gdt.gz" || fail "convert"
$G replay "$T/alex.gdt.gz" --quiet --timeline "$T/tl.json" --kernels-csv "$T/alex.csv" --interval 5000 \
    || fail "--timeline"
python3 - "$T/tl.json" "$T/alex.csv" <<'EOF2' || fail "timeline contents"
import collections, csv, json, sys
ev = json.load(open(sys.argv[1]))["traceEvents"]
rows = list(csv.DictReader(open(sys.argv[2])))
procs = {e["pid"]: e["args"]["name"] for e in ev if e["ph"] == "M" and e["name"] == "process_name"}
assert procs == {1: "hardware queues (replayed)", 2: "queued packets (replayed)", 3: "kernels per GPC (replayed)",
                 4: "hardware queues (measured)", 5: "counters"}, procs
threads = {(e["pid"], e["tid"]): e["args"]["name"] for e in ev if e["ph"] == "M" and e["name"] == "thread_name"}
X = [e for e in ev if e["ph"] == "X"]
for pid in (1, 4):
    ks = [e["args"]["kernel_index"] for e in X if e["pid"] == pid and "args" in e]
    assert sorted(ks) == list(range(len(rows))), (pid, len(ks), len(rows))
ctas = collections.Counter()
for e in X:
    assert (e["pid"], e["tid"]) in threads, e
    assert e["dur"] >= 0
    if e["pid"] == 3:
        ctas[e["args"]["kernel_index"]] += e["args"]["ctas"]
assert all(ctas[int(r["kernel_index"])] == int(r["grid_ctas"]) for r in rows), "CTAs per GPC"
by_tid = collections.defaultdict(list)
for e in X:
    by_tid[(e["pid"], e["tid"])].append(e)
for k, v in by_tid.items():   # on one track each slice nests in the open one or follows it
    v.sort(key=lambda e: (e["ts"], -e["dur"]))
    stack = []
    for e in v:
        while stack and e["ts"] >= stack[-1][1] - 1e-9:
            stack.pop()
        assert not stack or e["ts"] + e["dur"] <= stack[-1][1] + 1e-6, (k, e, stack[-1])
        stack.append((e["ts"], e["ts"] + e["dur"]))
stages = collections.Counter(e["name"] for e in X if e["pid"] == 1 and "args" not in e)
assert stages["running"] == len(rows) and stages["decode"] == len(rows), stages
queued = [e["args"]["kernel_index"] for e in X if e["pid"] == 2]
assert len(queued) == len(set(queued)) > 0, "queued packets"
first = {int(r["kernel_index"]): float(r["first_cta_ns"]) / 1000 for r in rows}
run = [e for e in X if e["pid"] == 1 and e["name"] == "running"]
assert sorted(round(e["ts"], 6) for e in run) == sorted(round(v, 6) for v in first.values())
C = collections.Counter(e["name"] for e in ev if e["ph"] == "C")
assert C["GPC 0 resident warps"] > 0 and C["queue 0 depth"] > 0, C
EOF2
$G replay $S --quiet --timeline - --interval 5000 | python3 -c "import json,sys; json.load(sys.stdin)" \
    || fail "--timeline - is one JSON document"

# A replay that fails leaves none of these outputs, not even a partial one.
head -c 300 $S >"$T/cut.gdt.gz"
$G replay "$T/cut.gdt.gz" --quiet --occupancy-csv "$T/f_occ.csv" --timeline "$T/f_tl.json" \
    --vcd "$T/f_w.vcd" 2>"$T/err"; [ $? -eq 1 ] || fail "a truncated trace: exit 1"
grep -q "the gzip stream is truncated" "$T/err" || fail "truncated: $(cat "$T/err")"
ls "$T" | grep -q "^f_" && fail "a failed replay left outputs: $(ls "$T" | grep '^f_')"

# A symbolic link at an output's name never redirects the write (issue 42: a link
# planted there overwrote its target, an input or any file): a link to a regular file
# (or to nothing) is replaced by the output, its target untouched; a link to a device
# is written through, and a write error through one (to /dev/full) is an error, the
# link kept.
for o in cta-log occupancy-csv timeline vcd kernels-csv summary-json; do
    echo precious >"$T/t_$o"
    ln -s "t_$o" "$T/l_$o"
    $G replay $S --quiet --$o "$T/l_$o" || fail "--$o over a link"
    [ ! -L "$T/l_$o" ] && [ -s "$T/l_$o" ] && [ "$(cat "$T/t_$o")" = precious ] ||
        fail "--$o over a link: the write went through it, or the output is missing"
    ln -s "nowhere_$o" "$T/d_$o"
    $G replay $S --quiet --$o "$T/d_$o" || fail "--$o over a dangling link"
    [ ! -L "$T/d_$o" ] && [ -s "$T/d_$o" ] && [ ! -e "$T/nowhere_$o" ] || fail "--$o over a dangling link"
    if [ -c /dev/full ]; then
        ln -s /dev/full "$T/f_$o"
        $G replay $S --quiet --$o "$T/f_$o" 2>"$T/err"; [ $? -eq 1 ] || fail "--$o to /dev/full: not an error"
        grep -q "f_$o.*write failed\|write failed.*f_$o" "$T/err" || fail "--$o to /dev/full: $(cat "$T/err")"
        [ -L "$T/f_$o" ] || fail "--$o to /dev/full: the link was replaced"
        rm -f "$T/f_$o"
    fi
done
ls "${TMPDIR:-/tmp}" | grep -q "^gdsim-vcd-" && fail "a temporary VCD was left in ${TMPDIR:-/tmp}"

# Temporary files have names no other file has, made exclusively (issue 42): a link
# planted where the old fixed name PATH.part was is left alone, and so is its target; a
# trace named like that survives; two replays writing the same outputs at once both
# succeed, each output whole; nothing temporary stays.
mkdir "$T/u"
echo "victim" >"$T/u/victim"
for o in summary-json kernels-csv cta-log occupancy-csv timeline vcd; do
    ln -s victim "$T/u/o_$o.part"
    $G replay $S --quiet --$o "$T/u/o_$o" || fail "--$o beside a planted .part link"
    [ "$(cat "$T/u/victim")" = victim ] || fail "--$o wrote through a planted link at its old temporary name"
    [ -s "$T/u/o_$o" ] && [ ! -L "$T/u/o_$o" ] || fail "--$o: no output"
done
cp $S "$T/u/s.json.part"
$G replay "$T/u/s.json.part" --quiet --summary-json "$T/u/s.json" || fail "a trace named OUTPUT.part"
cmp -s $S "$T/u/s.json.part" || fail "the trace named OUTPUT.part was changed"
for i in 1 2 3 4; do
    $G replay $S --quiet --summary-json "$T/u/same.json" --kernels-csv "$T/u/same.csv" 2>"$T/u/err$i" &
done
wait
for i in 1 2 3 4; do [ -s "$T/u/err$i" ] && fail "a concurrent replay failed: $(cat "$T/u/err$i")"; done
python3 -c "import json,sys; json.load(open(sys.argv[1]))" "$T/u/same.json" || fail "concurrent writers: malformed JSON"
[ "$(wc -l <"$T/u/same.csv")" = 41 ] || fail "concurrent writers: the kernels CSV is not whole"
ls "$T/u" | grep -q "\.part-" && fail "temporary files were left: $(ls "$T/u" | grep '\.part-')"

# Progress when stderr is not a terminal: whole lines, no carriage return or escape.
$G replay $S --progress --progress-every 0 >/dev/null 2>"$T/prog" || fail "--progress"
grep -q "^gdsim: 100 % of the trace read, 40 kernels done, 40000 of 40000 CTAs launched, simulated 0.764 ms" "$T/prog" \
    || fail "progress line: $(cat "$T/prog")"
if grep -q "$(printf '\r')" "$T/prog" || grep -q "$(printf '\033')" "$T/prog"; then
    fail "terminal codes in progress written to a file"
fi
$G replay $S --progress-every x >/dev/null 2>&1; [ $? -eq 2 ] || fail "--progress-every x: not a usage error"
echo "outputs: ok"
