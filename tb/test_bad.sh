#!/bin/sh
# The bad-input suite (tb/bad/, issue 18 item 9): every case of tb/bad/cases.tsv runs
# `gdsim COMMAND` (a timeout of 60 s: a hang fails) and must exit with its status, with
# a message on stderr that matches its pattern; a message about a trace record names
# the file, the record and its offset; no failing case leaves an output file behind; and
# tb/bad/gen.py still writes exactly the committed files.
# Usage: sh tb/test_bad.sh BUILD_DIR   (run from the repository root)
set -u
build=${1:-build}
gdsim=$build/gdsim
tmp=$(mktemp -d "${TMPDIR:-/tmp}/test_bad.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT
fail=0
n=0

mkdir "$tmp/gen"
python3 tb/bad/gen.py "$tmp/gen" || { echo "FAIL: tb/bad/gen.py"; exit 1; }
for f in "$tmp"/gen/*; do
    b=$(basename "$f")
    if ! cmp -s "$f" "tb/bad/$b"; then
        echo "FAIL: tb/bad/$b differs from what tb/bad/gen.py writes (run python3 tb/bad/gen.py and commit)"
        fail=1
    fi
done

tab=$(printf '\t')
while IFS="$tab" read -r name cmd status pattern; do
    case "$name" in '#'*|'') continue ;; esac
    n=$((n + 1))
    file=tb/bad/$name
    out=$tmp/out
    rm -rf "$out"; mkdir "$out"
    c=$(printf '%s' "$cmd" | sed "s#{F}#$file#g; s#{T}#$out#g")
    p=$(printf '%s' "$pattern" | sed "s#{F}#$file#g")
    # shellcheck disable=SC2086
    timeout 60 "$gdsim" $c >"$tmp/stdout" 2>"$tmp/stderr"
    rc=$?
    msg=$(head -c 2000 "$tmp/stderr")
    if [ "$rc" = 124 ]; then
        echo "FAIL $name: no answer in 60 s (gdsim $c)"; fail=1; continue
    fi
    if [ "$rc" -gt 128 ] && [ "$rc" != 130 ] && [ "$rc" != 143 ]; then
        echo "FAIL $name: killed by signal $((rc - 128)) (gdsim $c): $msg"; fail=1; continue
    fi
    if [ "$rc" != "$status" ]; then
        echo "FAIL $name: exit $rc, expected $status (gdsim $c): $msg"; fail=1; continue
    fi
    if [ -n "$p" ] && ! grep -Eq -- "$p" "$tmp/stderr"; then
        echo "FAIL $name: message does not match /$p/: $msg"; fail=1; continue
    fi
    if printf '%s' "$pattern" | grep -q 'record \[0-9\]'; then
        if ! grep -Eq -- "$file: record [0-9]+ \(offset [0-9]+\): " "$tmp/stderr"; then
            echo "FAIL $name: the message does not name the file, record and offset: $msg"; fail=1; continue
        fi
    fi
    if [ "$(grep -c . "$tmp/stderr")" -gt 3 ]; then
        echo "FAIL $name: more than 3 lines on stderr: $msg"; fail=1; continue
    fi
    left=$(ls -A "$out")
    if [ "$status" != 0 ] && [ -n "$left" ]; then
        echo "FAIL $name: left output files: $left"; fail=1; continue
    fi
done < tb/bad/cases.tsv

# names from a trace leave as valid UTF-8: JSON that parses strictly, CSV of one line per
# row, a text report of UTF-8 (each byte that is not UTF-8, and each control character: '?')
f=tb/bad/name_not_utf8.gdt
if "$gdsim" replay "$f" --no-progress --summary-json "$tmp/n.json" --kernels-csv "$tmp/n.csv" \
        --timeline "$tmp/n.tl.json" >"$tmp/n.txt"; then
    python3 - "$tmp" <<'PY' || { echo "FAIL name_not_utf8: outputs are not valid UTF-8 JSON/CSV"; fail=1; }
import csv, json, sys
t = sys.argv[1]
json.loads(open(t + "/n.json", "rb").read().decode("utf-8", "strict"))
tl = json.loads(open(t + "/n.tl.json", "rb").read().decode("utf-8", "strict"))
names = {e.get("name") for e in tl["traceEvents"] if e.get("pid") == 3}
rows = list(csv.reader(open(t + "/n.csv", encoding="utf-8", errors="strict", newline="")))
assert len(rows) == 2 and len(open(t + "/n.csv", "rb").read().splitlines()) == 2, rows
want = 'bad?? "quoted", ??comma ??? ?? \u20ac ok'  # a valid character stays
assert rows[1][1] == want, (rows[1][1], want)
assert want in names, names
open(t + "/n.txt", "rb").read().decode("utf-8", "strict")
PY
else
    echo "FAIL name_not_utf8: the replay failed"; fail=1
fi

# a name cannot forge a line of the report or drive the terminal
"$gdsim" replay tb/bad/name_forges_lines.gdt --no-progress >"$tmp/report" 2>&1 || { echo "FAIL name_forges_lines"; fail=1; }
[ "$(grep -c '^  kernels ' "$tmp/report")" = 1 ] || { echo "FAIL name_forges_lines: $(cat "$tmp/report")"; fail=1; }
if LC_ALL=C grep -q "$(printf '\033')" "$tmp/report"; then echo "FAIL name_forges_lines: an escape reached the report"; fail=1; fi

[ "$n" -ge 60 ] || { echo "FAIL: only $n cases in tb/bad/cases.tsv"; fail=1; }
[ "$fail" = 0 ] && echo "test_bad: $n cases ok"
exit "$fail"
