#!/usr/bin/env python3
"""Seed 000's what-if, side by side: condense a trace (gdsim condense), replay the
plain and the condensed trace, and print what the front end did in each.

  compare_condensed.py TRACE [--gdsim PATH] [--rsb-entries N] [--window-ns NS] [--replacement lru|fifo]
                       [--set KEY=VALUE]... [--keep DIR] [--json]
  compare_condensed.py --kripke OUT [--iterations N]    write the task-graph trace

--kripke writes a Kripke-like task graph (seed 000 fig 4): six kernels (LTimes,
scattering, source, LPlusTimes, sweep, population) launched in order on one queue,
the loop repeated --iterations times, each kernel short (a few microseconds) and the
host submitting ahead, as in the source's motivation. Python 3 standard library only."""
import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import gdtrace  # noqa: E402
from gdtrace import TraceWriter  # noqa: E402
from gen_trace import DEVICES  # noqa: E402

# (name, CTAs, threads per CTA, registers, CTA ns): small kernels of a sweep code
KRIPKE = [("LTimes", 264, 256, 32, 2000), ("scattering", 132, 256, 40, 3000), ("source", 66, 128, 24, 1000),
          ("LPlusTimes", 264, 256, 32, 2000), ("sweep", 528, 256, 64, 4000), ("population", 33, 256, 16, 1500)]


def write_kripke(path, iterations, submit_ns=1500):
    w = TraceWriter(path, DEVICES["h100"], "compare_condensed.py --kripke iterations=%d" % iterations, minor=0)
    for i, (name, _, threads, regs, cta_ns) in enumerate(KRIPKE):
        w.kernel(i + 1, name, threads, regs, 0, 0, cta_ps=cta_ns * 1000)
    t = 1000
    for it in range(iterations):
        for i, (_, ctas, threads, _, _) in enumerate(KRIPKE):
            # each launch has its own kernel arguments (a new kernarg address per iteration)
            w.dispatch(0, t, i + 1, (threads, 1, 1), (ctas, 1, 1), 0, True, 0,
                       kernarg=0x7f0000000000 + (it * len(KRIPKE) + i) * 0x1000)
            t += submit_ns
    w.close()


def run(cmd):
    r = subprocess.run(cmd, capture_output=True, text=True)
    if r.returncode != 0:
        raise SystemExit("compare_condensed: %s failed: %s" % (" ".join(cmd), r.stderr.strip()))
    return r.stdout


def compare(trace, gdsim, rsb, window, sets, keep, replacement="lru"):
    work = keep or tempfile.mkdtemp(prefix="gdsim-condense-")
    os.makedirs(work, exist_ok=True)
    try:
        cond = os.path.join(work, os.path.basename(trace).replace(".gdt.gz", "") + ".condensed.gdt.gz")
        enc = run([gdsim, "condense", trace, cond, "--rsb-entries", str(rsb), "--window-ns", str(window),
                   "--replacement", replacement])
        out = {"encoder": enc.strip().splitlines()}
        for label, path in (("plain", trace), ("condensed", cond)):
            js = os.path.join(work, label + ".json")
            cmd = [gdsim, "replay", path, "--quiet", "--summary-json", js]
            for kv in sets:
                cmd += ["--set", kv]
            run(cmd)
            with open(js) as f:
                d = json.load(f)
            out[label] = dict(d["frontend"], kernels=d["summary"]["kernels"], ctas=d["summary"]["ctas"],
                              sim_time_ns=d["summary"]["sim_time_ns"])
    finally:
        if not keep:  # the work folder is ours: removed whether the comparison ran or failed
            shutil.rmtree(work, ignore_errors=True)
    return out


def report(res, f=sys.stdout):
    for line in res["encoder"]:
        print(line, file=f)
    p, c = res["plain"], res["condensed"]
    rows = [("kernels", "kernels", "%d"), ("CTAs", "ctas", "%d"), ("packets processed", "packets_processed", "%d"),
            ("bytes fetched", "bytes_fetched", "%d"), ("front-end overhead, us", "frontend_overhead_ns", "%.3f"),
            ("RST hit rate", "rst_hit_rate", "%.3f"), ("mean launch latency, us", "mean_launch_latency_ns", "%.3f"),
            ("simulated time, us", "sim_time_ns", "%.3f")]
    print("  %-26s %16s %16s" % ("", "plain", "condensed"), file=f)
    for label, key, fmt in rows:
        a, b = p[key], c[key]
        if key in ("frontend_overhead_ns", "mean_launch_latency_ns", "sim_time_ns"):
            a, b = a / 1000.0, b / 1000.0
        print("  %-26s %16s %16s" % (label, fmt % a, fmt % b), file=f)


def main(argv=None):
    ap = gdtrace.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("trace", nargs="?", help="a gdsim trace (.gdt.gz)")
    ap.add_argument("--gdsim", default=os.path.join(HERE, "..", "build", "gdsim"))
    ap.add_argument("--rsb-entries", type=int, default=8)
    ap.add_argument("--window-ns", type=int, default=20000)
    ap.add_argument("--replacement", choices=("lru", "fifo"), default="lru")
    ap.add_argument("--set", action="append", default=[], metavar="KEY=VALUE")
    ap.add_argument("--keep", metavar="DIR")
    ap.add_argument("--json", action="store_true")
    ap.add_argument("--kripke", metavar="OUT", help="write the Kripke-like task-graph trace to OUT and stop")
    ap.add_argument("--iterations", type=int, default=500)
    a = ap.parse_args(argv)
    if a.kripke:
        write_kripke(a.kripke, a.iterations)
        return 0
    if not a.trace:
        ap.error("a trace is needed (or --kripke OUT)")
    res = compare(a.trace, a.gdsim, a.rsb_entries, a.window_ns, a.set, a.keep, a.replacement)
    if a.json:
        json.dump(res, sys.stdout, indent=1)
        print()
    else:
        report(res)
    return 0


if __name__ == "__main__":
    sys.exit(gdtrace.run_main(main))
