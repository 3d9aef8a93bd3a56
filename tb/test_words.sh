#!/bin/sh
# Reports speak the hardware's words: the patent texts the blocks come from ("seed 00N"),
# their paragraph numbers ("[0123]") and embodiments ("emb. N") belong in docs and
# comments, never in what the program prints. Checked here: `gdsim keys`, `gdsim --help`,
# the text report and summary JSON of replays of the sample (with the default
# configuration and with the optional blocks switched on, whose statistics and report
# lines appear only then), configuration errors and topology checks.
# Usage: sh tb/test_words.sh BUILD_DIR
set -u
B=${1:-build}
G=$B/gdsim
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
WORDS='seed [0-9]|\[0[0-9]{3}\]|emb\. [0-9]'
bad=0
fail() { echo "FAIL: $*"; bad=1; }
# check WHAT FILE: FILE must hold none of WORDS
check() {
    if grep -nE "$WORDS" "$2" >"$T/hits"; then
        fail "$1 cites the sources ('$WORDS'):"
        sed 's/^/    /' "$T/hits"
    fi
}

"$G" keys >"$T/keys" || fail "gdsim keys: exit status"
[ -s "$T/keys" ] || fail "gdsim keys: no output"
check "gdsim keys" "$T/keys"
"$G" --help >"$T/help" || fail "gdsim --help: exit status"
check "gdsim --help" "$T/help"

n=0
while read -r sets; do
    n=$((n + 1))
    # shellcheck disable=SC2086
    "$G" replay traces/sample.gdt.gz $sets --summary-json "$T/s$n.json" >"$T/r$n.txt" 2>&1 ||
        { fail "replay of the sample with '$sets': exit status"; continue; }
    [ -s "$T/s$n.json" ] || fail "replay with '$sets': no summary JSON"
    check "the text report (replay with '$sets')" "$T/r$n.txt"
    check "the summary JSON (replay with '$sets')" "$T/s$n.json"
done <<'EOF'

--set cwd.admission=channels --set cwd.priority_windows=100,200 --set cwd.split_after=4 --set sm.alloc=contiguous --set sm.wave_placement=tail --set gpc2sm.select=power --set power.window_ns=10000
--set sm.alloc=contiguous --set sm.block_finder=sampled --set gpc2sm.select=weighted --set select.cycles=1
--set cs.policy=waitqueue --set pp.condensed_overlap=on
--set cwd.policy=baseline --set cwd.raster_check=on
EOF
grep -q "admission           channels" "$T/r2.txt" || fail "replay 2 did not exercise the admission report line"
grep -q '"admission_splits"' "$T/s2.json" || fail "replay 2 did not exercise the admission statistics"

# Configuration errors.
for s in select.window_cycles=1000 sm.finder_samples=0,2,3; do
    "$G" replay traces/sample.gdt.gz --quiet --set "$s" >"$T/cfg.out" 2>&1 && fail "--set $s was accepted"
    [ -s "$T/cfg.out" ] || fail "--set $s: no message"
    check "the error for --set $s" "$T/cfg.out"
done

# Topology checks: a parse error and each rule's message.
printf 'kernel K in=A out=B items=2 amplification=2 out_items=5 threads=32 cta_ns=10\n' >"$T/t.topo"
"$G" check-topology "$T/t.topo" >"$T/topo.out" 2>&1 && fail "check-topology accepted out_items above the reserve"
grep -q "the most a CTA may write" "$T/topo.out" || fail "check-topology: unexpected message: $(cat "$T/topo.out")"
for t in tb/data/topologies/*.topo; do
    "$G" check-topology "$t" >>"$T/topo.out" 2>&1
done
check "check-topology" "$T/topo.out"

[ $bad -eq 0 ] || exit 1
echo "words: ok"
