#!/bin/sh
# The gdsim command line: help, version, replay of the sample, CSV/JSON outputs,
# configuration errors (exit 2), and damaged traces (exit 1, fast, with a message
# naming the file and the record/offset). Usage: sh tb/test_cli.sh BUILD_DIR
set -u
B=${1:-build}
G=$B/gdsim
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
fail() { echo "FAIL: $*"; exit 1; }

$G --help >"$T/help" || fail "--help exit status"
grep -q "gdsim replay TRACE" "$T/help" || fail "--help lacks usage"
grep -q -- "--kernels-csv" "$T/help" || fail "--help lacks options"
grep -q -- "--cta-log" "$T/help" || fail "--help lacks --cta-log"
grep -q "gdsim dump TRACE" "$T/help" || fail "--help lacks dump"
grep -q "gdsim condense IN OUT" "$T/help" || fail "--help lacks condense"
$G >/dev/null 2>&1; [ $? -eq 2 ] || fail "no arguments should exit 2"
[ "$($G --version)" = "gdsim 0.1.0" ] || fail "--version"
$G frobnicate >/dev/null 2>&1; [ $? -eq 2 ] || fail "unknown command should exit 2"

# Replay of the bundled sample, with both outputs.
$G replay traces/sample.gdt.gz --kernels-csv "$T/k.csv" --summary-json "$T/s.json" >"$T/out" || fail "replay of the sample"
for w in "kernels             40 on 2 queues" "CTAs                40000" "mean SM occupancy" "mean launch latency"; do
    grep -q "$w" "$T/out" || fail "summary lacks '$w'"
done
head -1 "$T/k.csv" | grep -q "^kernel_index,name,queue,grid_ctas,threads_per_cta,regs_per_thread,smem_bytes,max_ctas_per_sm,limiter,theoretical_occupancy_pct,submit_ns,first_cta_ns,last_cta_ns,end_ns,latency_ns,achieved_occupancy_pct" || fail "CSV header"
[ "$(wc -l <"$T/k.csv")" -eq 41 ] || fail "CSV rows"
python3 -c "import json,sys; d=json.load(open('$T/s.json')); assert d['summary']['kernels']==40 and d['config']['gpu.preset']=='trace/h100'" || fail "JSON summary"
$G replay traces/sample.gdt.gz --quiet --kernels-csv - | head -1 | grep -q '^kernel_index' || fail "CSV to stdout"
[ -z "$($G replay traces/sample.gdt.gz --quiet)" ] || fail "--quiet prints nothing"
$G replay traces/sample.gdt.gz --quiet --cta-log "$T/ctas.csv" --set cwd.policy=cga || fail "--cta-log"
head -1 "$T/ctas.csv" | grep -qx "kernel_index,cta_id,x,y,z,cga_id,cga_cta_id,gpc,sm,launch_ns,end_ns" || fail "CTA log header"
[ "$(wc -l <"$T/ctas.csv")" -eq 40001 ] || fail "CTA log rows"
$G replay traces/sample.gdt.gz --quiet --cta-log - --set cwd.policy=cga >"$T/ctas-stdout.csv" || fail "--cta-log -"
cmp -s "$T/ctas.csv" "$T/ctas-stdout.csv" || fail "--cta-log - writes the CTA log to standard output"
[ ! -e ./- ] || fail "--cta-log - created a file named '-'"
$G replay traces/sample.gdt.gz --quiet --cta-log /nonexistent/d/c.csv 2>"$T/err"; [ $? -eq 2 ] || fail "--cta-log to a bad path exits 2"
grep -q -- "--cta-log /nonexistent/d/c.csv: the folder /nonexistent/d does not exist" "$T/err" || fail "--cta-log error names the file"
$G replay traces/sample.gdt.gz --quiet --perf | grep -q "M CTAs/s, peak memory" || fail "--perf"

# Configuration: --preset, --set, --config and their errors.
$G replay traces/sample.gdt.gz --preset a100 | grep -q "preset a100: 7 GPCs, 108 SMs" || fail "--preset a100"
$G replay traces/sample.gdt.gz --set gpu.gpcs=4 --set gpu.sms_per_gpc=10 | grep -q "4 GPCs, 40 SMs" || fail "--set layout"
$G replay traces/sample.gdt.gz --set gpu.gpcs=x >/dev/null 2>"$T/err"; [ $? -eq 2 ] || fail "bad value should exit 2"
grep -q "gpu.gpcs" "$T/err" && grep -q "an integer from 1 to 1024" "$T/err" || fail "bad value message"
# More than 64 GPCs (hypothetical GPUs, issue 16): set, and from a trace's own layout
# (100 GPCs of 1 and 2 SMs: a list longer than one stored value)
$G replay traces/sample.gdt.gz --set gpu.gpcs=130 --set gpu.sms_per_gpc=1 | grep -q "130 GPCs, 130 SMs" \
    || fail "--set 130 GPCs"
python3 - "$T/wide.gdt.gz" <<'PY' || fail "writing the 100-GPC trace"
import sys
sys.path.insert(0, "scripts")
from gdtrace import Device, TraceWriter
gpcs = [1 + g % 2 for g in range(100)]
d = Device("wide", (9, 0), sum(gpcs), 2048, 65536, 233472, 49152, 232448, 1024, 32, gpcs)
w = TraceWriter(sys.argv[1], d, "test_cli")
w.kernel(1, "k", 256, 32, 0, 0, cta_ps=1000000)
w.dispatch(0, 1000, 1, (256, 1, 1), (2000, 1, 1), 0, True, 1)
w.close()
PY
$G replay "$T/wide.gdt.gz" >"$T/out" 2>&1 || fail "replay of the 100-GPC trace"
grep -q "100 GPCs, 150 SMs" "$T/out" || fail "the trace's 100-GPC layout: $(cat "$T/out")"
grep -Eq "^  CTAs +2000$" "$T/out" || fail "the 100-GPC replay ran its CTAs: $(cat "$T/out")"
# clusters on 130 GPCs: GPC-CGAs picked from GPC masks of three words, and GPU-CGAs
for cga in 1 4; do
    python3 scripts/gen_trace.py "$T/cl$cga.gdt.gz" --kernels 20 --grid 512 --block 128 --regs 32 --smem 0 \
        --cta-ns 2000 --cluster 2 --gpu-cga $cga --device h100 || fail "gen_trace clusters"
    $G replay "$T/cl$cga.gdt.gz" --set gpu.gpcs=130 --set gpu.sms_per_gpc=2 >"$T/out" 2>&1 \
        || fail "clusters on 130 GPCs (--gpu-cga $cga): $(cat "$T/out")"
    grep -Eq "^  CTAs +10240$" "$T/out" || fail "clusters on 130 GPCs ran their CTAs: $(cat "$T/out")"
done
$G replay traces/sample.gdt.gz --set nope=1 >/dev/null 2>"$T/err"; [ $? -eq 2 ] || fail "unknown key should exit 2"
grep -q "unknown configuration key 'nope'" "$T/err" || fail "unknown key message"
printf '# a config file\nfrontend.clock_mhz = 1000  # 1 ns cycles\n\ngpu.preset=v100\n' >"$T/c.cfg"
$G replay traces/sample.gdt.gz --config "$T/c.cfg" | grep -q "preset v100: 6 GPCs, 80 SMs, cc 7.0, front-end 1000 MHz" || fail "--config"
printf 'frontend.clock_mhz 1000\n' >"$T/bad.cfg"
$G replay traces/sample.gdt.gz --config "$T/bad.cfg" >/dev/null 2>"$T/err"; [ $? -eq 2 ] || fail "bad config file should exit 2"
grep -q "bad.cfg:1: expected KEY = VALUE" "$T/err" || fail "config file message names file and line"
# not configuration files: a folder, an endless device, a binary, a line too long; a
# bad line 3 after good ones applies none of them
$G replay traces/sample.gdt.gz --config "$T" >/dev/null 2>"$T/err"; [ $? -eq 2 ] || fail "--config DIR should exit 2"
grep -q "cannot read: Is a directory" "$T/err" || fail "--config DIR message: $(cat "$T/err")"
timeout 20 $G replay traces/sample.gdt.gz --config /dev/zero >/dev/null 2>"$T/err"; [ $? -eq 2 ] || fail "--config /dev/zero should exit 2"
grep -q "/dev/zero:1: a NUL byte" "$T/err" || fail "--config /dev/zero message: $(cat "$T/err")"
head -c 2000000 /dev/urandom | tr -d '\000' >"$T/big.cfg"
$G replay traces/sample.gdt.gz --config "$T/big.cfg" >/dev/null 2>"$T/err"; [ $? -eq 2 ] || fail "huge config should exit 2"
grep -q "big.cfg: longer than 1048576 bytes" "$T/err" || fail "huge config message: $(cat "$T/err")"
{ printf 'gpu.gpcs = 4\n# x\n'; printf 'gpu.sms_per_gpc = 10 #%01100d\n' 0; } >"$T/long.cfg"
$G replay traces/sample.gdt.gz --config "$T/long.cfg" >/dev/null 2>"$T/err"; [ $? -eq 2 ] || fail "long line should exit 2"
grep -q "long.cfg:3: longer than 1023 bytes" "$T/err" || fail "long line message: $(cat "$T/err")"
printf 'gpu.gpcs = 4\r\ngpu.sms_per_gpc = 10\r\n' >"$T/crlf.cfg"
$G replay traces/sample.gdt.gz --config "$T/crlf.cfg" | grep -q "4 GPCs, 40 SMs" || fail "--config with CRLF lines"
$G replay >/dev/null 2>&1; [ $? -eq 2 ] || fail "replay without trace should exit 2"
$G replay traces/sample.gdt.gz --bogus >/dev/null 2>&1; [ $? -eq 2 ] || fail "unknown option should exit 2"
$G replay "$T/none.gdt.gz" >/dev/null 2>"$T/err"; [ $? -eq 1 ] || fail "missing trace should exit 1"
grep -q "none.gdt.gz: cannot open" "$T/err" || fail "missing trace message"

# Damaged traces: a truncated and a bit-flipped copy of a larger trace.
python3 scripts/gen_trace.py "$T/big.gdt.gz" --kernels 3000 --grid 50 --block 128 --regs 32 --smem 0 --cta-ns 1000 --queues 3 --seed 7
$G replay "$T/big.gdt.gz" --quiet || fail "the undamaged trace replays"
size=$(wc -c <"$T/big.gdt.gz")
head -c $((size / 2)) "$T/big.gdt.gz" >"$T/cut.gdt.gz"
start=$(date +%s%N)
$G replay "$T/cut.gdt.gz" >/dev/null 2>"$T/err"; rc=$?
ms=$(( ($(date +%s%N) - start) / 1000000 ))
[ $rc -eq 1 ] || fail "truncated trace exit status $rc"
[ $ms -lt 1000 ] || fail "truncated trace took $ms ms"
grep -q "cut.gdt.gz: record [0-9]* (offset [0-9]*): the gzip stream is truncated" "$T/err" || fail "truncated message: $(cat "$T/err")"
python3 - "$T/big.gdt.gz" "$T/flip.gdt.gz" <<'PY'
import sys
b = bytearray(open(sys.argv[1], "rb").read())
b[len(b) // 3] ^= 0x04
open(sys.argv[2], "wb").write(b)
PY
start=$(date +%s%N)
$G replay "$T/flip.gdt.gz" >/dev/null 2>"$T/err"; rc=$?
ms=$(( ($(date +%s%N) - start) / 1000000 ))
[ $rc -eq 1 ] || fail "bit-flipped trace exit status $rc"
[ $ms -lt 1000 ] || fail "bit-flipped trace took $ms ms"
grep -q "flip.gdt.gz: record [0-9]* (offset [0-9]*): " "$T/err" || fail "bit flip message: $(cat "$T/err")"

# gdsim dump: one line per record; a damaged trace: the records before it, then the error.
$G dump traces/sample.gdt.gz >"$T/dump" || fail "dump of the sample"
[ "$(wc -l <"$T/dump")" -eq 43 ] || fail "dump lines"
head -1 "$T/dump" | grep -q '^#0 header: device "NVIDIA H100 80GB HBM3" cc 9.0, 132 SMs' || fail "dump header"
sed -n 3p "$T/dump" | grep -q '^#2 dispatch queue 0 submit_ns 1000: kernel_dispatch barrier 1 acquire system release system setup 1D workgroup 256x1x1 grid 256000x1x1 (1000x1x1 CTAs)' || fail "dump dispatch: $(sed -n 3p "$T/dump")"
tail -1 "$T/dump" | grep -qx "#42 end: 43 records, 40 packets" || fail "dump end"
$G dump "$T/cut.gdt.gz" >"$T/dump2" 2>"$T/err"; [ $? -eq 1 ] || fail "dump of a truncated trace exits 1"
grep -q "the gzip stream is truncated" "$T/err" || fail "dump error message"
[ "$(wc -l <"$T/dump2")" -gt 100 ] || fail "dump prints the records before the damage"
$G dump traces/sample.gdt.gz -o "$T/dump3" && cmp -s "$T/dump" "$T/dump3" || fail "dump -o"
$G dump >/dev/null 2>&1; [ $? -eq 2 ] || fail "dump without a trace exits 2"
$G dump traces/sample.gdt.gz --bogus >/dev/null 2>&1; [ $? -eq 2 ] || fail "dump with an unknown option exits 2"

# gdsim condense: the sample (one kernel, two queues) into reference and condensed
# packets; both replays complete the same kernels and CTAs, the condensed one fetches
# fewer packets and bytes with less front-end overhead.
$G condense traces/sample.gdt.gz "$T/sc.gdt.gz" >"$T/cond" || fail "condense the sample"
grep -q "  reference packets   1 (table misses)" "$T/cond" || fail "condense: references $(cat "$T/cond")"
grep -q "  RST hit rate        97.5 %" "$T/cond" || fail "condense: hit rate"
grep -q "  packet bytes        2560 before, 1280 after" "$T/cond" || fail "condense: bytes"
$G replay traces/sample.gdt.gz --quiet --summary-json "$T/p.json" || fail "plain replay"
$G replay "$T/sc.gdt.gz" --quiet --summary-json "$T/c.json" || fail "condensed replay"
python3 - "$T/p.json" "$T/c.json" <<'PY' || fail "condensed vs plain"
import json, sys
p, c = (json.load(open(x)) for x in sys.argv[1:3])
assert p["summary"]["kernels"] == c["summary"]["kernels"] == 40 and p["summary"]["ctas"] == c["summary"]["ctas"]
assert c["frontend"]["packets_processed"] < p["frontend"]["packets_processed"], (p["frontend"], c["frontend"])
assert c["frontend"]["bytes_fetched"] < p["frontend"]["bytes_fetched"]
assert c["frontend"]["frontend_overhead_ns"] < p["frontend"]["frontend_overhead_ns"]
assert p["frontend"]["rst_hit_rate"] == 0 and c["frontend"]["rst_hit_rate"] == 0.975
PY
$G dump "$T/sc.gdt.gz" | grep -q "condensed queue .* diff header 0x" || fail "dump of a condensed trace"
$G condense "$T/sc.gdt.gz" "$T/x.gdt.gz" 2>"$T/err"; [ $? -eq 1 ] || fail "condensing a condensed trace exits 1"
grep -q "already condensed" "$T/err" || fail "condense error message"
$G condense traces/sample.gdt.gz "$T/x.gdt.gz" --rsb-entries 9 2>/dev/null; [ $? -eq 2 ] || fail "--rsb-entries 9 exits 2"
$G condense traces/sample.gdt.gz "$T/x.gdt.gz" --replacement mru 2>/dev/null; [ $? -eq 2 ] || fail "--replacement mru exits 2"
# Replacement with two entries on kernels A B A C A: LRU keeps A (used again), FIFO
# evicts it (loaded first): 3 misses against 4.
python3 - "$T/abaca.gdt.gz" <<'PY' || fail "ABACA trace"
import sys
sys.path.insert(0, "scripts")
from gdtrace import TraceWriter
from gen_trace import DEVICES
w = TraceWriter(sys.argv[1], DEVICES["h100"], "ABACA", minor=0)
for k in (1, 2, 3):
    w.kernel(k, "k%d" % k, 64, 8, 0, 0, cta_ps=100000)
for i, k in enumerate((1, 2, 1, 3, 1)):
    w.dispatch(0, 1000 + 100000 * i, k, (64, 1, 1), (4, 1, 1), 0)
w.close()
PY
$G condense "$T/abaca.gdt.gz" "$T/x.gdt.gz" --rsb-entries 2 | grep -q "  reference packets   3 (table misses)" || fail "lru misses"
$G condense "$T/abaca.gdt.gz" "$T/x.gdt.gz" --rsb-entries 2 --replacement fifo | grep -q "  reference packets   4 (table misses)" || fail "fifo misses"
$G replay "$T/x.gdt.gz" --quiet || fail "replay of the fifo-condensed trace"

# The Kripke-like task graph (seed 000 fig 4), plain vs condensed: 20 iterations of
# six kernels; the first iteration loads the six table entries, each later one is one
# condensed packet of six kernels that differ only in their kernarg (5 words each).
python3 scripts/compare_condensed.py --kripke "$T/kr.gdt.gz" --iterations 20 || fail "kripke trace"
python3 scripts/compare_condensed.py "$T/kr.gdt.gz" --gdsim "$G" --json >"$T/kr.json" || fail "compare_condensed"
python3 - "$T/kr.json" <<'PY' || fail "kripke plain vs condensed"
import json, sys
r = json.load(open(sys.argv[1]))
p, c = r["plain"], r["condensed"]
assert p["kernels"] == c["kernels"] == 120 and p["ctas"] == c["ctas"]
assert p["packets_processed"] == 120 and c["packets_processed"] == 6 + 19, c
assert c["bytes_fetched"] == 25 * 64 and abs(c["rst_hit_rate"] - 114 / 120) < 1e-6, c
assert c["frontend_overhead_ns"] < p["frontend_overhead_ns"]
PY

# gdsim check-topology: seed 002 fig 1 is valid (exit 0); a topology that breaks rules
# gets a line per rule naming the kernel or buffer (exit 1); a syntax error names its
# line on stderr (exit 1); a usage error exits 2.
grep -q "gdsim check-topology FILE" "$T/help" || fail "--help lacks check-topology"
$G check-topology traces/topologies/fig1.topo >"$T/topo" || fail "fig1: $(cat "$T/topo")"
grep -q "^traces/topologies/fig1.topo: valid: 3 kernels, 4 buffers, policy round_robin, meta.simd_width 32$" "$T/topo" ||
    fail "fig1 verdict: $(cat "$T/topo")"
$G check-topology traces/topologies/fig1.topo --preset mi250 | grep -q "meta.simd_width 64$" || fail "mi250 wave64"
$G check-topology traces/topologies/fig1.topo --set meta.policy=most_data | grep -q "policy most_data (meta.policy)," ||
    fail "meta.policy"

$G check-topology traces/topologies/fig1.topo --set meta.simd_width=200 >"$T/topo" && fail "simd 200 accepted"
grep -q "^traces/topologies/fig1.topo:7: buffer F2: deadlock: 128 entries can deadlock" "$T/topo" ||
    fail "simd 200: $(cat "$T/topo")"
printf 'buffer A width=4 length=8 initial=9\nkernel K in=A,Q items=1 threads=32 cta_ns=10\n' >"$T/bad.topo"
$G check-topology "$T/bad.topo" >"$T/topo" 2>"$T/err"
rc=$?
[ $rc -eq 1 ] || fail "bad topology: exit $rc"
[ ! -s "$T/err" ] || fail "bad topology: stderr $(cat "$T/err")"
{
    echo "$T/bad.topo:2: kernel K: unknown-buffer: reads Q, which is not a buffer of the topology"
    echo "$T/bad.topo:1: buffer A: overflow: initial=9 is more than its 8 entries"
    echo "$T/bad.topo: invalid: 2 errors (traces/TOPOLOGY.md explains each rule)"
} >"$T/want"
cmp -s "$T/topo" "$T/want" || { diff "$T/want" "$T/topo"; fail "bad topology verdicts"; }
printf 'buffer A width=4 length=8\nkernel K in=A items=one threads=32 cta_ns=10\n' >"$T/syn.topo"
$G check-topology "$T/syn.topo" >/dev/null 2>"$T/err"
rc=$?
[ $rc -eq 1 ] || fail "syntax error: exit $rc"
grep -q "^gdsim: $T/syn.topo:2: items='one': not a whole number" "$T/err" || fail "syntax error: $(cat "$T/err")"
$G check-topology /nonexistent.topo 2>"$T/err" && fail "missing topology accepted"
grep -q "^gdsim: /nonexistent.topo: cannot read: No such file or directory" "$T/err" || fail "missing: $(cat "$T/err")"
$G check-topology 2>/dev/null
[ $? -eq 2 ] || fail "check-topology without a file: not a usage error"
$G check-topology a b 2>/dev/null
[ $? -eq 2 ] || fail "check-topology with two files: not a usage error"
$G check-topology "$T/bad.topo" --set nosuch.key=1 2>/dev/null
[ $? -eq 2 ] || fail "bad key: not a usage error"

$G keys | grep -q "^cwd.max_resident_kernels = 128" || fail "gdsim keys"
echo "cli: ok"
