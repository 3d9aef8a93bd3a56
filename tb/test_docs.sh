#!/bin/sh
# docs/CONFIG.md is generated from the key table; it must match (run `make docs`).
set -u
B=${1:-build}
"$B/gen_config_doc" >"$B/CONFIG.md.new" || { echo "FAIL: generator"; exit 1; }
if ! cmp -s "$B/CONFIG.md.new" docs/CONFIG.md; then
    diff -u docs/CONFIG.md "$B/CONFIG.md.new" | head -40
    echo "FAIL: docs/CONFIG.md is out of date: run 'make docs' and commit it"
    exit 1
fi

# The README's example report is what the demo prints.
"$B/gdsim" replay traces/sample.gdt.gz >"$B/demo.out" || { echo "FAIL: demo replay"; exit 1; }
python3 - "$B/demo.out" <<'PY' || exit 1
import sys
readme = open("README.md").read()
block = "gdsim 0.1.0 replay" + readme.split("```\ngdsim 0.1.0 replay", 1)[1].split("```", 1)[0]
demo = open(sys.argv[1]).read()
if block.strip() != demo.strip():
    print("FAIL: README.md's example report differs from what `make demo` prints now:")
    print(demo)
    sys.exit(1)
PY
echo "readme: ok"
