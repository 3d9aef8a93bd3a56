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

# Docs match the code: FORMAT.md's version table ends at the reader's newest minor
# version; every option `gdsim --help` lists for replay and keys appears in the
# README's usage; the docs link to no file outside the repository.
python3 - "$B/gdsim" <<'PY' || exit 1
import re, subprocess, sys, glob
minor = re.search(r"#define GD_TRACE_VERSION_MINOR (\d+)", open("model/trace/trace.h").read()).group(1)
rows = re.findall(r"^\| 1\.(\d+) \|", open("traces/FORMAT.md").read(), re.M)
if rows != [str(i) for i in range(int(minor) + 1)] or "version 1.%s" % minor not in open("traces/FORMAT.md").read():
    sys.exit("FAIL: traces/FORMAT.md's version table %s does not run 1.0 to 1.%s" % (rows, minor))
help_text = subprocess.run([sys.argv[1], "--help"], capture_output=True, text=True).stdout
readme = open("README.md").read()
usage = readme.split("## Using it", 1)[1].split("```", 2)[1]
opts = sorted(set(re.findall(r"(--[a-z][a-z-]+)", help_text)) - {"--help", "--version"})
missing = [o for o in opts if o not in usage]
if missing:
    sys.exit("FAIL: README.md's usage lacks options --help lists: %s" % ", ".join(missing))
for f in ["README.md"] + glob.glob("docs/*.md") + glob.glob("traces/*.md"):
    for link in re.findall(r"\]\(([^)#]+)", open(f).read()):
        if link.startswith("http"):
            continue
        if link.startswith("/") or link.startswith("../") and f == "README.md" or link.startswith("../../"):
            sys.exit("FAIL: %s links outside the repository: %s" % (f, link))
PY
echo "docs match the code: ok"
