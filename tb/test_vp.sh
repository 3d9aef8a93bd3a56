#!/bin/sh
# gdsim::gpu in a virtual platform (tb/vp/, docs/VP.md):
#  1. the example platform at 1 ps and at 1 ns resolution: the driver's checks pass
#     (signals, registers, interrupt, the error of an INVALID packet), the hand-checked
#     times hold (A 1050-3050 ns; B and C 3050-5050 ns; the interrupt at 5050 ns), the
#     platform's free-running clock keeps going (606 edges by 6055 ns), sc_start
#     returns, and both resolutions give the same output and kernel table;
#     with memory that annotates a latency, the hand-checked times through
#     b_transport, through DMI and with a global quantum;
#  2. a clock whose cycle 1 ns cannot represent is refused, naming the key;
#  3. per-kernel times through the sockets equal the C API's replay of the same
#     packets (the bundled sample; a four-queue trace without barrier bits; a trace
#     with per-dispatch CTA durations, 2-D and 3-D grids, barrier-AND and -OR);
#  4. the C API's replays in a program with a SystemC simulation of its own.
# Usage: sh tb/test_vp.sh BUILD_DIR
set -u
B=$1
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
export SYSTEMC_DISABLE_COPYRIGHT_MESSAGE=1

for r in ps ns; do
    "$B/tb/vp_example" $r "$T/k_$r.csv" >"$T/out_$r" 2>&1 || { cat "$T/out_$r"; fail "vp_example $r"; }
done
cat "$T/out_ps"
cmp "$T/out_ps" "$T/out_ns" || fail "1 ps and 1 ns give different outputs"
cmp "$T/k_ps.csv" "$T/k_ns.csv" || fail "1 ps and 1 ns give different kernel tables"
grep -q "^interrupt at 5050 ns, all complete by 5050 ns, simulation ended at 6055 ns$" "$T/out_ps" || fail "times"
grep -q "^heartbeat: 606 rising edges" "$T/out_ps" || fail "the platform's clock"
# the INVALID packet's error was acknowledged (the example checks its text before that)
grep -q "^gpu: 3 kernels dispatched, 3 completed; error: $" "$T/out_ps" || fail "the INVALID packet's error"
# kernel_index, first_cta_ns, end_ns, completion_ns of A, B, C
got=$(cut -d, -f1,12,14,20 "$T/k_ps.csv" | tail -n +2 | tr '\n' ' ')
[ "$got" = "0,1050.000,3050.000,3050.000 1,3050.000,5050.000,5050.000 2,3050.000,5050.000,5050.000 " ] ||
    fail "kernel times: $got"
echo "example platform: same at 1 ps and 1 ns; times as hand-checked"

# Memory that annotates 20 ns on every access. The driver waits out its own: 9 writes
# before its 1 us pause and 8 for the packets put the doorbells at 1340 ns (registers
# take no time). The GPU reads A (20 ns) and the descriptor's header and body (40 ns):
# A enters the packet processor at 1400 ns, its first CTA at 1450 (fetch, 50 cycles),
# ends 3450; B and C follow A, 3450-5450. The completion signals of B then C are read
# and written (40 ns each): the interrupt at 5530 ns. Through DMI (the same latency)
# and with a 1 us global quantum (delays kept in the quantum keeper, waited out when a
# packet enters, before the interrupt and before the GPU idles): the same.
for m in lat lat-dmi lat-quantum; do
    "$B/tb/vp_example" $m "$T/k_$m.csv" >"$T/out_$m" 2>&1 || { cat "$T/out_$m"; fail "vp_example $m"; }
done
for m in lat-dmi lat-quantum; do
    cmp -s "$T/out_lat" "$T/out_$m" && cmp -s "$T/k_lat.csv" "$T/k_$m.csv" || { diff "$T/out_lat" "$T/out_$m"; fail "$m differs"; }
done
grep -q "^interrupt at 5530 ns, all complete by 5550 ns" "$T/out_lat" || fail "memory latency: $(grep interrupt "$T/out_lat")"
got=$(cut -d, -f1,12,14,20 "$T/k_lat.csv" | tail -n +2 | tr '\n' ' ')
[ "$got" = "0,1450.000,3450.000,3450.000 1,3450.000,5450.000,5450.000 2,3450.000,5450.000,5450.000 " ] ||
    fail "kernel times with memory latency: $got"
echo "memory latency: times as hand-checked, the same through DMI and with a global quantum"

"$B/tb/vp_example" ns-1980 >"$T/bad" 2>&1
[ $? -eq 3 ] || { cat "$T/bad"; fail "a 1980 MHz clock at 1 ns resolution was not refused"; }
grep -q "frontend.clock_mhz=1980 gives a cycle of 505 ps, which the time resolution (1 ns) cannot represent" \
    "$T/bad" || fail "refusal text: $(cat "$T/bad")"
echo "refused: 1980 MHz at 1 ns"

python3 scripts/gen_trace.py "$T/q4.gdt.gz" --kernels 60 --grid 300 --block 128 --regs "32;64" --smem 4096 \
    --cta-ns "3000;8000" --queues 4 --no-barrier --seed 7 --insn fp32=100,ldst=20 >/dev/null ||
    fail "gen_trace.py"
# per-dispatch CTA durations (execution-time model 2, as converted captures have) in
# reserved2, 2-D and 3-D grids, barrier-AND and barrier-OR between two queues: every
# field of gpu.hpp's packet and descriptor images
python3 - "$T/m2.gdt.gz" <<'PY' || fail "writing the model-2 trace"
import sys
sys.path.insert(0, "scripts")
from gdtrace import TraceWriter, EXEC_PER_DISPATCH
from gen_trace import DEVICES
w = TraceWriter(sys.argv[1], DEVICES["h100"], "test_vp.sh", minor=2)
w.kernel(1, "per_dispatch", 256, 32, 1024, 0, exec_model=EXEC_PER_DISPATCH)
w.kernel(2, "fixed_3d", 64, 40, 0, 2048, cta_ps=1500000)
t = 0
for i in range(12):
    w.dispatch(0, t, 1, (256, 1, 1), (200 + 17 * i, 1, 1), 1024, barrier=i % 3 == 0, signal=10 + i,
               info=(700000 + 131000 * i, None, None, None))
    if i % 4 != 3:
        w.dispatch(1, t + 300, 2, (16, 4, 1), (9, 7 + i, 1 + i % 3), 2048, barrier=False, signal=100 + i)
    else:  # kernel i - 1 is done by now: barrier-OR passes at once, barrier-AND waits for kernel i
        w.barrier(1, t + 400, [10 + i, 10 + i - 1], kind_or=i % 8 == 7, signal=200 + i)
        w.dispatch(1, t + 450, 2, (16, 4, 1), (9, 3, 1), 2048, barrier=True, signal=300 + i)
    t += 2500
w.close()
PY
for t in traces/sample.gdt.gz "$T/q4.gdt.gz" "$T/m2.gdt.gz"; do
    "$B/tb/vp_replay" "$t" "$T/vp.csv" >"$T/vp.out" 2>&1 || { cat "$T/vp.out"; fail "vp_replay $t"; }
    "$B/gdsim" replay "$t" --absolute-times --kernels-csv "$T/capi.csv" >/dev/null || fail "gdsim replay $t"
    origin=$("$B/gdsim" dump "$t" | sed -n 's/.* submit_ns \([0-9]*\):.*/\1/p' | head -n 1)
    python3 tb/vp/compare_kernels.py "$T/vp.csv" "$T/capi.csv" "$origin" || fail "$t: sockets and C API differ"
done

"$B/tb/vp_coexist" traces/sample.gdt.gz || fail "the C API beside a program's own simulation"

# what a driver can do wrong (tb/vp/vp_hostile.cpp): each case behaves as its comment says
for c in delayed-doorbell chunks acknowledge self-barrier later-barrier backward-doorbell; do
    "$B/tb/vp_hostile" $c "$T" >"$T/hostile.out" 2>&1 || { cat "$T/hostile.out"; fail "vp_hostile $c"; }
done

# docs/VP.md's embedding example compiles and prints what the text says
sed -n '/^<!-- vp-example -->$/,/^<!-- end vp-example -->$/p' docs/VP.md | sed '1,2d;$d' | sed '$d' >"$T/embed.cpp"
[ -s "$T/embed.cpp" ] || fail "no example in docs/VP.md"
# the SystemC the build under test used
sc=$(env -u MAKEFLAGS -u MAKELEVEL make --no-print-directory systemc-flags)
sc_cflags=$(echo "$sc" | sed -n 's/^SYSTEMC_CFLAGS=//p')
sc_libs=$(echo "$sc" | sed -n 's/^SYSTEMC_LIBS=//p')
# shellcheck disable=SC2086
${CXX:-g++} -std=c++17 -Wall -Wextra -Werror -Iinclude $sc_cflags "$T/embed.cpp" -o "$T/embed" "$B/libgdsim.a" $sc_libs -lz -lm \
    -lpthread $(echo "$B" | grep -q asan && echo -fsanitize=address) $(echo "$B" | grep -q ubsan && echo -fsanitize=undefined) ||
    fail "docs/VP.md's example does not compile"
"$T/embed" >"$T/embed.out" 2>&1 || { cat "$T/embed.out"; fail "docs/VP.md's example failed"; }
grep -q "^signal 0 at 12273736 ps$" "$T/embed.out" || fail "docs/VP.md's example printed: $(cat "$T/embed.out")"
grep -q "signal 0 at 12273736 ps" docs/VP.md || fail "docs/VP.md does not say what the example prints"
echo "ok"
