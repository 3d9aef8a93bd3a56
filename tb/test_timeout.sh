#!/bin/sh
# --timeout is a bound on the whole replay (issue 42, item 2): every trace of tb/bad,
# on its own device and on 8,448 SMs, returns within the timeout + 1 s; so do the
# CTA log (a line per CTA) and a device of 65,536 SMs being built; a long replay gives
# a progress line every --progress-every seconds. The watchdog (model/base/progress.hpp)
# makes this hold: before it the clock was read every 4,096th step of the model, and a
# replay of 2^28 CTAs on 8,448 SMs given 1 s ran 3.8 s to its end, one with --cta-log
# given 0.2 s stopped after 3.5 s, a 65,536-SM device given 0.5 s took 3.2 s.
# Under a sanitizer (build/asan, build/ubsan) the times are not checked, only that
# the replay stopped for its timeout. About 40 s on 2 cores (87 of its 176 replays build
# an 8,448-SM device); under a sanitizer only the named cases run, a few seconds.
# Usage: sh tb/test_timeout.sh BUILD_DIR
set -u
B=${1:-build}
G=$B/gdsim
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
case $(basename "$B") in asan | ubsan) timed=0 ;; *) timed=1 ;; esac
L8448=$(awk 'BEGIN { for (i = 0; i < 512; i++) printf "%s%d", i ? "," : "", 16 + i % 2 }')

now() { date +%s.%N; }
# within LIMIT FILE ARGS...: the replay ends within LIMIT seconds (exit status kept in $T/rc)
within() {
    limit=$1
    shift
    t0=$(now)
    "$G" replay "$@" >"$T/out" 2>"$T/err"
    echo $? >"$T/rc"
    t1=$(now)
    if [ $timed = 1 ] && awk "BEGIN { exit !($t1 - $t0 > $limit) }"; then
        fail "$* took $(awk "BEGIN { printf \"%.2f\", $t1 - $t0 }") s, past $limit s: $(tail -c 300 "$T/err")"
    fi
}

n=0
# (under a sanitizer only the cases below)
for f in $([ $timed = 1 ] && echo tb/bad/*.gdt tb/bad/*.gdt.gz); do
    within 1.5 "$f" --timeout 0.5 --quiet --no-progress
    within 1.5 "$f" --timeout 0.5 --quiet --no-progress --set gpu.gpcs=512 --set "gpu.sms_per_gpc=$L8448"
    n=$((n + 2))
done

# The replay that needs its timeout: 2^28 CTAs, on 132 and 8,448 SMs, with a CTA log
within 1.5 tb/bad/run_past_timeout.gdt --timeout 0.5 --quiet --no-progress --set gpu.gpcs=512 \
    --set "gpu.sms_per_gpc=$L8448"
grep -q "ran past its timeout of 0.5 s" "$T/err" || fail "8,448 SMs: $(cat "$T/err")"
within 1.2 tb/bad/run_past_timeout.gdt --timeout 0.2 --quiet --no-progress --cta-log "$T/cta.csv"
grep -q "ran past its timeout of 0.2 s" "$T/err" || fail "--cta-log: $(cat "$T/err")"
[ ! -e "$T/cta.csv" ] || fail "a stopped replay left its CTA log"
# a device of 65,536 SMs stops while it is being built
within 1.5 tb/bad/header_65536_sms.gdt --timeout 0.5 --quiet --no-progress
grep -q "ran past its timeout of 0.5 s and was stopped after .* while the model of the device was built ([0-9]* of its 1024 GPCs)" "$T/err" ||
    fail "65,536 SMs: $(cat "$T/err")"
[ "$(cat "$T/rc")" = 1 ] || fail "65,536 SMs: exit status $(cat "$T/rc")"

# The kernel table's writing is bounded too (50,000 rows take about 0.1 s): the
# command stops in the replay or in the writing, whichever the 0.1 s runs out in, and
# leaves no table
python3 scripts/gen_trace.py "$T/k50k.gdt.gz" --kernels 50000 --grid 1 --block 256 --regs 32 --smem 0 \
    --cta-ns 1000 >/dev/null || fail "gen_trace.py"
within 1.1 "$T/k50k.gdt.gz" --timeout 0.1 --quiet --no-progress --kernels-csv "$T/k.csv"
[ "$(cat "$T/rc")" = 1 ] && grep -q "timeout.*nothing written" "$T/err" || fail "50,000 rows: $(cat "$T/err")"
[ -z "$(ls "$T" | grep '^k\.csv')" ] || fail "a stopped write left $(ls "$T" | grep '^k\.csv')"

# Progress lines on a long replay: one every 0.5 s (the 8,448-SM replay's model steps
# take milliseconds each, too few for the clock read every 4,096th)
if [ $timed = 1 ]; then
    "$G" replay tb/bad/run_past_timeout.gdt --timeout 2.2 --progress-every 0.5 --set gpu.gpcs=512 \
        --set "gpu.sms_per_gpc=$L8448" >/dev/null 2>"$T/err"
    lines=$(grep -c "CTAs launched, simulated" "$T/err")
    [ "$lines" -ge 3 ] || fail "$lines progress lines in a 2.2 s replay with --progress-every 0.5: $(cat "$T/err")"
fi

echo "timeout: $n replays of tb/bad (own device and 8,448 SMs) within 0.5 s + 1 s; 2^28 CTAs on 8,448 SMs," \
    "with a CTA log, a 65,536-SM device stopped while built, the kernel table's writing; progress lines" \
    "every 0.5 s: ok"
