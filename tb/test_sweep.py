#!/usr/bin/env python3
"""scripts/sweep.py with GNU parallel: a grid planned (points file and Slurm array
script), run, collected into one CSV whose rows are the points' summaries; a point's
figures equal a direct replay's; failures name the point; collect refuses a sweep with
points missing. (The same grid as a Slurm job array: make check-slurm.)
Usage: python3 tb/test_sweep.py BUILD_DIR"""
import csv
import json
import os
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.join(HERE, "..")
BUILD = os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else "build")
SWEEP = [sys.executable, os.path.join(ROOT, "scripts", "sweep.py")]
SAMPLE = os.path.join(ROOT, "traces", "sample.gdt.gz")
GD = ["--gdsim", os.path.join(BUILD, "gdsim")]


def sweep(*args, ok=True):
    r = subprocess.run(SWEEP + list(args), capture_output=True, text=True)
    assert (r.returncode == 0) == ok, (args, r.returncode, r.stderr)
    return r


with tempfile.TemporaryDirectory(prefix="gdsim-sweep-") as t:
    d = os.path.join(t, "s")
    cfg = os.path.join(t, "fast.cfg")
    open(cfg, "w").write("frontend.clock_mhz = 2000\n")
    sweep("plan", d, "--trace", SAMPLE, "--set", "gpu.gpcs=4,8", "--set", "gpu.sms_per_gpc=16",
          "--set", "cwd.policy=baseline,cga", "--config", cfg, *GD)
    pts = list(csv.reader(open(os.path.join(d, "points.tsv")), delimiter="\t"))
    assert pts[0] == ["point", "trace", "config", "gpu.gpcs", "gpu.sms_per_gpc", "cwd.policy"], pts[0]
    assert len(pts) == 5 and [p[3] + p[5] for p in pts[1:]] == ["4baseline", "4cga", "8baseline", "8cga"], pts
    sb = open(os.path.join(d, "sweep.sbatch")).read()
    assert "#SBATCH --array=0-3" in sb and "point" in sb and "$SLURM_ARRAY_TASK_ID" in sb, sb
    sweep("run", d, "--jobs", "2", *GD)
    png = os.path.join(t, "cmp.png")
    sweep("collect", d, "--plot", png, "--metric", "sim_time_ns")
    assert open(png, "rb").read(8) == b"\x89PNG\r\n\x1a\n", "comparison plot"
    rows = list(csv.DictReader(open(os.path.join(d, "results.csv"))))
    assert [r["point"] for r in rows] == ["0", "1", "2", "3"] and all(r["ctas"] == "40000" for r in rows), rows
    # a point's figures are a direct replay's with the same settings
    js = os.path.join(t, "direct.json")
    subprocess.run([os.path.join(BUILD, "gdsim"), "replay", SAMPLE, "--quiet", "--config", cfg, "--set", "gpu.gpcs=8",
                    "--set", "gpu.sms_per_gpc=16", "--set", "cwd.policy=cga", "--summary-json", js], check=True)
    s = json.load(open(js))["summary"]
    assert rows[3]["sim_time_ns"] == str(s["sim_time_ns"]) and float(rows[3]["mean_sm_occupancy_pct"]) == \
        s["mean_sm_occupancy_pct"], (rows[3], s)
    assert rows[0]["sim_time_ns"] != rows[2]["sim_time_ns"], "4 and 8 GPCs give the same time"
    # a failing point is named; collect then refuses
    bad = os.path.join(t, "bad")
    sweep("plan", bad, "--trace", SAMPLE, "--set", "gpu.gpcs=2,3", *GD)
    r = sweep("run", bad, "--jobs", "2", *GD, ok=False)
    assert "point 0:" in r.stderr and "gpu.sms_per_gpc lists 8 GPCs but gpu.gpcs is 2" in r.stderr, r.stderr
    r = sweep("collect", bad, ok=False)
    assert "2 of 2 points have no summary" in r.stderr, r.stderr
    r = sweep("plan", os.path.join(t, "x"), "--trace", "/nonexistent.gdt.gz", ok=False)
    assert "/nonexistent.gdt.gz: no such file" in r.stderr
    r = sweep("plan", os.path.join(t, "x"), "--trace", SAMPLE, "--set", "novalue", ok=False)
    assert "want KEY=V1,V2" in r.stderr
    # keys and values are checked when planned; a huge plan needs --yes; a folder name
    # a Slurm script cannot hold is refused
    r = sweep("plan", os.path.join(t, "x"), "--trace", SAMPLE, "--set", "no.such.key=1,2", *GD, ok=False)
    assert "unknown configuration key 'no.such.key'" in r.stderr, r.stderr
    r = sweep("plan", os.path.join(t, "x"), "--trace", SAMPLE, "--set", "host.cpu_time_scale=1,1e3", *GD, ok=False)
    assert "bad value '1e3' for configuration key 'host.cpu_time_scale'" in r.stderr, r.stderr
    big = ",".join(str(i) for i in range(1, 101))
    r = sweep("plan", os.path.join(t, "x"), "--trace", SAMPLE, "--set", "sm.max_ctas=" + big, "--set",
              "cwd.max_resident_kernels=" + big, "--set", "gpu.gpcs=1,2", *GD, ok=False)
    assert "20000 points, more than 10000: give --yes" in r.stderr, r.stderr
    assert not os.path.exists(os.path.join(t, "x")), "a refused plan made its folder"
    r = sweep("plan", os.path.join(t, "x\ny"), "--trace", SAMPLE, "--set", "gpu.gpcs=4", *GD, ok=False)
    assert "which a Slurm script's #SBATCH line cannot hold" in r.stderr, r.stderr
    r = sweep("point", d, "9", *GD, ok=False)
    assert "the sweep has points 0 to 3" in r.stderr
    r = sweep("point", d, "-1", *GD, ok=False)   # not the last point
    assert "the sweep has points 0 to 3" in r.stderr
    # a list-valued key is one value per point (';' separates points); results carry the
    # device's SMs, the bounds, and the plot compares with a baseline point
    g = os.path.join(t, "grid")
    sweep("plan", g, "--trace", SAMPLE, "--set", "gpu.gpcs=8", "--set",
          "gpu.sms_per_gpc=18,18,16,16,16,16,16,16;36,36,32,32,32,32,32,32", "--set", "sm.cta_time_scale=1,0.5",
          "--config", cfg, *GD)
    pts = list(csv.reader(open(os.path.join(g, "points.tsv")), delimiter="\t"))
    assert [p[4:] for p in pts[1:]] == [["18,18,16,16,16,16,16,16", "1"], ["18,18,16,16,16,16,16,16", "0.5"],
                                        ["36,36,32,32,32,32,32,32", "1"], ["36,36,32,32,32,32,32,32", "0.5"]], pts
    one = os.path.join(t, "one")
    sweep("plan", one, "--trace", SAMPLE, "--set", "gpu.sms_per_gpc=16,16,16,16,16,14,14", *GD)
    assert len(open(os.path.join(one, "points.tsv")).read().splitlines()) == 2, "a list split into points"
    r = sweep("plan", one, "--trace", SAMPLE, "--set", "gpu.gpcs=4;;8", *GD, ok=False)
    assert "--set gpu.gpcs=4;;8: an empty value" in r.stderr, r.stderr
    sweep("run", g, "--jobs", "2", *GD)
    svg = os.path.join(t, "rel.svg")
    sweep("collect", g, "--plot", svg, "--metric", "sim_time_ns", "--baseline", "0")
    plot_text = open(svg).read()
    assert "change from point 0" in plot_text and "(baseline)" in plot_text and "fast.cfg" in plot_text, "plot"
    rows = list(csv.DictReader(open(os.path.join(g, "results.csv"))))
    assert [r["sms"] for r in rows] == ["132", "132", "264", "264"], [r["sms"] for r in rows]
    assert all(r["gpcs"] == "8" and r["config"] == "fast.cfg" for r in rows), rows
    # twice the SMs and kernels twice as fast: the GPU catches up with the host's submits
    assert [r["verdict"] for r in rows] == ["GPU", "GPU", "GPU", "host"], [r["verdict"] for r in rows]
    for r in rows:  # the critical path's categories sum to the span
        total = sum(float(r["path_%s_us" % c]) for c in ["host_cpu", "host_sync", "held", "front_end", "sms_full",
                                                          "kernels", "copies"])
        assert abs(total * 1000 - float(r["sim_time_ns"])) < 1.0, (total, r["sim_time_ns"])
        assert float(r["gpu_floor_us"]) <= total + 1e-6 and float(r["host_floor_us"]) <= total + 1e-6, r
    assert float(rows[1]["sim_time_ns"]) < float(rows[0]["sim_time_ns"]), "kernels twice as fast: no faster"
    os.remove(os.path.join(g, "results.csv"))
    r = sweep("collect", g, "--plot", svg, "--baseline", "7", ok=False)
    assert "--baseline 7: no such point" in r.stderr, r.stderr
    assert not os.path.exists(os.path.join(g, "results.csv")), "results written before the plot's error"
    # a file-valued key's value is made absolute when planned (the points run anywhere)
    rules = os.path.join(t, "half.rules")
    open(rules, "w").write("0.5 *\n")
    here = os.getcwd()
    os.chdir(t)
    try:
        sweep("plan", os.path.join(t, "r"), "--trace", SAMPLE, "--set", "sm.cta_time_rules=none;half.rules", *GD)
    finally:
        os.chdir(here)
    pts = list(csv.reader(open(os.path.join(t, "r", "points.tsv")), delimiter="\t"))
    assert [p[3] for p in pts[1:]] == ["none", rules], pts
    # a hostile probe's findings (issue 42): none may lose data or credit a result to
    # the wrong point
    h = os.path.join(t, "h")
    sweep("plan", h, "--trace", SAMPLE, "--set", "frontend.clock_mhz=1000,10", *GD)
    r = sweep("plan", h, "--trace", SAMPLE, "--set", "frontend.clock_mhz=10,1000", *GD, ok=False)
    assert "holds a sweep already" in r.stderr, r.stderr   # the old points' results would pass for the new ones
    sweep("point", h, "0", *GD)
    sweep("point", h, "1", *GD)
    tsv = open(os.path.join(h, "points.tsv")).read()
    for o in (os.path.join(h, "points.tsv"), os.path.join(h, "points", "0.json")):
        r = sweep("collect", h, "-o", o, ok=False)
        assert "is an input of this run" in r.stderr, r.stderr
    assert open(os.path.join(h, "points.tsv")).read() == tsv
    j0 = json.load(open(os.path.join(h, "points", "0.json")))
    j0["summary"]["sim_time_ns"] = float("nan")
    json.dump(j0, open(os.path.join(h, "points", "0.json"), "w"))
    r = sweep("collect", h, ok=False)
    assert "summary.sim_time_ns is nan, not a finite number" in r.stderr, r.stderr
    r = sweep("run", h, "--jobs", "0", *GD, ok=False)
    assert r.stderr.count("\n") == 1 and "--jobs" in r.stderr, r.stderr   # one line, argparse's included
    victim = os.path.join(t, "escaped.json")
    open(victim, "w").write("precious")
    open(os.path.join(h, "points.tsv"), "w").write(tsv.replace("\n0\t", "\n../../escaped\t"))
    r = sweep("point", h, "0", *GD, ok=False)
    assert "want 0 (the points are numbered" in r.stderr and open(victim).read() == "precious", r.stderr
    open(os.path.join(h, "points.tsv"), "w").write(tsv)
    os.remove(os.path.join(h, "points", "1.json"))   # a link planted at a point's output is replaced, not followed
    os.symlink(victim, os.path.join(h, "points", "1.json"))
    sweep("point", h, "1", *GD)
    assert open(victim).read() == "precious" and not os.path.islink(os.path.join(h, "points", "1.json"))
print("sweep: ok")
