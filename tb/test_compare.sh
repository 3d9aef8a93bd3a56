#!/bin/sh
# gdsim compare A.json B.json: two summaries side by side with B - A and B / A, the
# configuration keys that differ; malformed JSON (truncations and byte flips of a real
# summary, deterministic) is a one-line error naming the file and the byte, never a crash.
# Usage: sh tb/test_compare.sh BUILD_DIR
set -u
B=${1:-build}
G=$B/gdsim
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
S=traces/sample.gdt.gz

$G replay $S --quiet --summary-json "$T/a.json" --set gpu.gpcs=4 --set gpu.sms_per_gpc=16 || fail "replay a"
$G replay $S --quiet --summary-json "$T/b.json" --set gpu.gpcs=8 --set gpu.sms_per_gpc=16 || fail "replay b"
$G compare "$T/a.json" "$T/b.json" >"$T/out" || fail "compare"
python3 - "$T/a.json" "$T/b.json" "$T/out" <<'PY' || fail "compare figures: $(cat "$T/out")"
import json, sys
a, b = (json.load(open(p))["summary"] for p in sys.argv[1:3])
lines = {l.split()[0]: l.split() for l in open(sys.argv[3]) if l.strip() and not l.startswith(" ")}
for k in ("sim_time_ns", "kernels", "mean_sm_occupancy_pct"):
    w = lines[k]
    assert float(w[1]) == a[k] and float(w[2]) == b[k], w
    assert abs(float(w[3]) - (b[k] - a[k])) < 1e-6 * max(1, abs(a[k])), w
    assert w[4] == "%.4f" % (b[k] / a[k]), w
out = open(sys.argv[3]).read()
assert "configuration keys that differ:" in out and "gpu.gpcs" in out and "A 4  B 8" in out, out
assert "frontend.clock_mhz" not in out, "a key that is the same was listed"
PY
$G compare "$T/a.json" "$T/a.json" | grep -q "^configuration: the same" || fail "the same file"
$G compare "$T/a.json" 2>/dev/null; [ $? -eq 2 ] || fail "one file: usage error"
$G compare "$T/a.json" /nonexistent.json 2>"$T/err"; [ $? -eq 1 ] || fail "missing file: exit 1"
grep -q "/nonexistent.json: cannot read" "$T/err" || fail "missing file: $(cat "$T/err")"
echo '{"trace": {}}' >"$T/other.json"
$G compare "$T/a.json" "$T/other.json" 2>"$T/err"; [ $? -eq 1 ] && grep -q 'no "summary" object' "$T/err" \
    || fail "not a summary: $(cat "$T/err")"
# a number past a double's range is not from gdsim
sed 's/"kernels": [0-9]*/"kernels": 1e999/' "$T/a.json" >"$T/big.json"
grep -q '1e999' "$T/big.json" || fail "big.json: no number replaced"
$G compare "$T/big.json" "$T/b.json" 2>"$T/err"; [ $? -eq 1 ] && grep -q 'big.json: byte [0-9]*: a number out of the range of a double' "$T/err" \
    || fail "1e999: $(cat "$T/err")"
# truncations and byte flips: exit 0 or 1 with a message naming the file, never a crash
python3 - "$T" "$G" <<'PY' || fail "malformed JSON"
import random, subprocess, sys
t, g = sys.argv[1], sys.argv[2]
data = open(t + "/a.json", "rb").read()
rnd = random.Random(17)
cases = [data[:n] for n in sorted(rnd.sample(range(len(data)), 120))]
for _ in range(120):
    m = bytearray(data)
    for _ in range(rnd.randint(1, 4)):
        m[rnd.randrange(len(m))] = rnd.choice(b'{}[]",:0-e.\\ \x00\xff' + bytes([rnd.randrange(256)]))
    cases.append(bytes(m))
errors = 0
for i, c in enumerate(cases):
    p = "%s/m%d.json" % (t, i)
    open(p, "wb").write(c)
    r = subprocess.run([g, "compare", p, t + "/b.json"], capture_output=True)
    assert r.returncode in (0, 1), (i, r.returncode, r.stderr)
    if r.returncode:
        errors += 1
        msg = r.stderr.decode()
        assert msg.startswith("gdsim: compare: " + p + ": ") and msg.count("\n") == 1, msg
assert errors > 120, errors
PY
echo "compare: ok"
