#!/usr/bin/env python3
"""Run a pipeline topology under each meta-scheduler policy and several buffer lengths
and print one table: makespan, SM occupancy and how full the buffers were.

  compare_policies.py TOPOLOGY [--policies P,P,...] [--lengths X,X,...] [--preset NAME]
                      [--set KEY=VALUE]... [--gdsim PATH] [--csv] [--keep DIR] [-o FILE]

For each length factor X the buffers between two kernels (those a kernel writes and a
kernel reads; not the host's input, which holds `initial` items, nor a `drain`) get X
times their entries (a 2-D buffer X times its rows), rounded down, at least 1; then
each policy replays a trace holding one pipeline-launch packet of that topology
(`meta.policy=P`). A configuration the validation rejects is a row saying which rule
and part (gdsim check-topology). Columns:

  lengths       the length factor X
  inner KiB     entries x width of the resized buffers, in KiB (the memory they cost)
  policy        meta.policy
  makespan us   the pipeline's span (launch packet dispatched -> last launch ended)
  vs best       makespan / the best makespan among the policies at this length
  launches      kernel launches the meta-scheduler issued (CTAs in all are the same)
  rounds        decision rounds
  occupancy %   mean SM occupancy over the busy span (resident warps / warp slots)
  fill %        mean fill of the resized buffers: sum of mean fills / sum of entries
  stalled us    time a producer with items for a CTA found no room, summed over buffers
  starved us    time a consumer that could run waited for items, summed over buffers

traces/TOPOLOGY.md describes topologies; docs/MODEL.md ('Meta-scheduler') shows the
table for traces/topologies/image.topo. Python 3 standard library only."""
import argparse
import csv
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import gdtrace  # noqa: E402
from gdtrace import TraceWriter  # noqa: E402
from gen_trace import DEVICES  # noqa: E402

POLICIES = ("round_robin", "priority", "most_data")
COLUMNS = ("lengths", "inner KiB", "policy", "makespan us", "vs best", "launches", "rounds", "occupancy %",
           "fill %", "stalled us", "starved us")


def fail(msg):
    raise SystemExit("compare_policies: " + msg)


def strip_comment(line):
    return line.split("#", 1)[0].split()


def buffer_roles(text):
    """Names of the buffers that some kernel writes and some kernel reads."""
    written, read = set(), set()
    for line in text.splitlines():
        w = strip_comment(line)
        if len(w) < 2 or w[0] != "kernel":
            continue
        for f in w[2:]:
            if f.startswith("in="):
                read.update(f[3:].split(","))
            elif f.startswith("out="):
                written.update(f[4:].split(","))
    return written & read


def scaled(text, factor):
    """The topology's text with every inner buffer's entries times factor, and the
    names of the buffers resized."""
    inner = buffer_roles(text)
    out, resized = [], []
    for line in text.splitlines():
        w = strip_comment(line)
        if len(w) >= 2 and w[0] == "buffer" and w[1] in inner:
            name = w[1]

            def length(m):
                return "length=%d" % max(1, int(int(m.group(1)) * factor))

            def dims(m):
                return "dims=%sx%d" % (m.group(1), max(1, int(int(m.group(2)) * factor)))

            code = line.split("#", 1)[0]
            code = re.sub(r"\blength=(\d+)", length, code)
            code = re.sub(r"\bdims=(\d+)x(\d+)", dims, code)
            line = code.rstrip()
            resized.append(name)
        out.append(line)
    return "\n".join(out) + "\n", resized


def buffer_kib(text, names):
    total = 0
    for line in text.splitlines():
        w = strip_comment(line)
        if len(w) < 2 or w[0] != "buffer" or w[1] not in names:
            continue
        f = dict(x.split("=", 1) for x in w[2:] if "=" in x)
        n = int(f["length"]) if "length" in f else dims_entries(f.get("dims", "0x0"))
        total += n * int(f.get("width", "0"))
    return total / 1024.0


def dims_entries(d):
    a, b = d.split("x", 1)
    return int(a) * int(b)


def run(cmd):
    return subprocess.run(cmd, capture_output=True, text=True)


def common_opts(a):
    opts = []
    if a.preset:
        opts += ["--preset", a.preset]
    for kv in a.set:
        opts += ["--set", kv]
    return opts


def verdicts(a, topo):
    """None when valid, else 'rule: part; ...' from check-topology."""
    r = run([a.gdsim, "check-topology", topo] + common_opts(a))
    if r.returncode == 0:
        return None
    if r.returncode != 1:
        fail("gdsim check-topology %s: %s" % (topo, (r.stderr or r.stdout).strip()))
    found = []
    for line in r.stdout.splitlines():
        parts = line.split(": ")
        if len(parts) >= 4 and parts[0].count(":") == 1:
            found.append("%s (%s)" % (parts[2], parts[1]))
    return "; ".join(found) or r.stdout.strip() or r.stderr.strip()


def replay(a, trace, policy, work, tag):
    js = os.path.join(work, tag + ".json")
    cmd = [a.gdsim, "replay", trace, "--quiet", "--no-progress", "--summary-json", js,
           "--set", "meta.policy=" + policy] + common_opts(a)
    r = run(cmd)
    if r.returncode != 0:
        fail("%s failed: %s" % (" ".join(cmd), r.stderr.strip()))
    with open(js) as f:
        return json.load(f)


def compare(a):
    try:
        with gdtrace.open_input(a.topology) as f:
            text = f.read()
    except (OSError, UnicodeDecodeError) as e:
        fail("%s: %s" % (a.topology, getattr(e, "strerror", None) or e))
    if not text.strip():
        fail("%s: empty: not a topology (traces/TOPOLOGY.md)" % a.topology)
    work = a.keep or tempfile.mkdtemp(prefix="gdsim-policies-")
    os.makedirs(work, exist_ok=True)
    rows = []
    try:
        for x in a.lengths:
            tag = ("%g" % x).replace(".", "_")
            topo_text, resized = scaled(text, x)
            topo = os.path.join(work, "x%s.topo" % tag)
            with open(topo, "w") as f:
                f.write(topo_text)
            kib = buffer_kib(topo_text, resized)
            bad = verdicts(a, topo)
            if bad:
                rows.append({"lengths": x, "inner KiB": kib, "rejected": bad})
                continue
            trace = os.path.join(work, "x%s.gdt.gz" % tag)
            w = TraceWriter(trace, DEVICES["h100"], "compare_policies.py x%g" % x, minor=8)
            w.pipeline(0, 1000, topo_text.encode())
            w.close()
            group = []
            for p in a.policies:
                d = replay(a, trace, p, work, "x%s_%s" % (tag, p))
                pl = d["meta"]["pipelines"][0]
                bufs = [b for b in pl["buffers"] if b["name"] in resized]
                entries = sum(b["length"] for b in bufs)
                group.append({"lengths": x, "inner KiB": kib, "policy": p, "makespan us": pl["span_ns"] / 1000.0,
                              "launches": pl["launches"], "rounds": pl["rounds"],
                              "occupancy %": d["summary"]["mean_sm_occupancy_pct"],
                              "fill %": 100.0 * sum(b["mean_fill"] for b in bufs) / entries if entries else 0.0,
                              "stalled us": sum(b["full_ns"] for b in pl["buffers"]) / 1000.0,
                              "starved us": sum(b["empty_ns"] for b in pl["buffers"]) / 1000.0})
            best = min(r["makespan us"] for r in group)
            for r in group:
                r["vs best"] = r["makespan us"] / best if best else 1.0
            rows += group
    finally:
        if not a.keep:
            shutil.rmtree(work, ignore_errors=True)
    return rows


def cell(r, c):
    v = r[c]
    if c == "lengths":
        return "%gx" % v
    if c in ("launches", "rounds"):
        return "%d" % v
    if c == "vs best":
        return "%.3f" % v
    if c in ("occupancy %", "fill %", "inner KiB"):
        return "%.1f" % v
    if isinstance(v, float):
        return "%.3f" % v
    return str(v)


def report(rows, f, as_csv):
    if as_csv:
        out = csv.writer(f, lineterminator="\n")
        out.writerow(COLUMNS + ("rejected",))
        for r in rows:
            if "rejected" in r:
                out.writerow([cell(r, "lengths"), cell(r, "inner KiB")] + [""] * (len(COLUMNS) - 2) + [r["rejected"]])
            else:
                out.writerow([cell(r, c) for c in COLUMNS] + [""])
        return
    f.write("| " + " | ".join(COLUMNS) + " |\n")
    f.write("|" + "|".join("---" if i == 2 else "---:" for i in range(len(COLUMNS))) + "|\n")
    for r in rows:
        if "rejected" in r:
            f.write("| %s | %s | rejected: %s |%s\n" % (cell(r, "lengths"), cell(r, "inner KiB"), r["rejected"],
                                                        " |" * (len(COLUMNS) - 3)))
        else:
            f.write("| " + " | ".join(cell(r, c) for c in COLUMNS) + " |\n")


def factors(s):
    try:
        v = [float(x) for x in s.split(",")]
    except ValueError:
        raise argparse.ArgumentTypeError("a comma-separated list of positive numbers: %r" % s)
    if not v or any(not (0 < x <= 1e6) for x in v):
        raise argparse.ArgumentTypeError("length factors are positive numbers up to 1e6: %r" % s)
    return v


def policies(s):
    v = s.split(",")
    for p in v:
        if p not in POLICIES:
            raise argparse.ArgumentTypeError("unknown policy %r (policies: %s)" % (p, ", ".join(POLICIES)))
    return v


def main(argv=None):
    ap = gdtrace.ArgumentParser(description=__doc__.split("\n\n")[0],
                                 epilog="Example: scripts/compare_policies.py traces/topologies/image.topo "
                                        "--preset h100 --set gpu.gpcs=1 --set gpu.sms_per_gpc=4")
    ap.add_argument("topology", help="a pipeline topology file (traces/TOPOLOGY.md)")
    ap.add_argument("--policies", type=policies, default=list(POLICIES), metavar="P,P,...",
                    help="meta.policy values to compare (default: all three)")
    ap.add_argument("--lengths", type=factors, default=[0.5, 1.0, 2.0, 4.0], metavar="X,X,...",
                    help="factors for the inner buffers' entries (default 0.5,1,2,4)")
    ap.add_argument("--preset", default="h100", help="device preset (default h100; 'trace' for the trace's own)")
    ap.add_argument("--set", action="append", default=[], metavar="KEY=VALUE",
                    help="a configuration key for every replay (repeatable; gdsim keys lists them)")
    ap.add_argument("--gdsim", default=os.path.join(HERE, "..", "build", "gdsim"), help="the gdsim binary")
    ap.add_argument("--csv", action="store_true", help="CSV instead of a Markdown table")
    ap.add_argument("--keep", metavar="DIR", help="keep the topologies, traces and summaries in DIR")
    ap.add_argument("-o", "--output", metavar="FILE", help="write the table to FILE (default: standard output)")
    a = ap.parse_args(argv)
    if not os.access(a.gdsim, os.X_OK):
        fail("%s is not an executable gdsim (build it with make, or pass --gdsim)" % a.gdsim)
    rows = compare(a)
    if a.output:
        try:
            with gdtrace.OutputFile(a.output, "w", inputs=(a.topology,)) as f:   # whole or not at all
                report(rows, f, a.csv)
        except ValueError as e:
            fail(str(e))
    else:
        report(rows, sys.stdout, a.csv)
    return 0


if __name__ == "__main__":
    sys.exit(gdtrace.run_main(main))
