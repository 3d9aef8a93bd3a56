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
echo "docs: ok"
