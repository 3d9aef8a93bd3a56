#!/usr/bin/env python3
"""Sweeps of gdsim configurations over traces: a grid of points, each one replay, run by
GNU parallel on this machine or as a Slurm job array on a cluster; one summary JSON per
point; one CSV (and a comparison plot) at the end.

  sweep.py plan DIR --trace T [--trace T2 ...] [--set KEY=V1,V2,...]... [--config F [--config F2]]
      write the grid: DIR/points.tsv, a point per line (every trace x every value of
      every --set x every --config), and DIR/sweep.sbatch, the Slurm job array
  sweep.py run DIR [--jobs N]          run the points with GNU parallel (Debian package parallel)
  sweep.py point DIR INDEX             run one point (what parallel and each array task call)
  sweep.py collect DIR [-o CSV] [--plot PNG|SVG] [--metric NAME]
      one row per point: the point's configuration, then its summary figures

On a cluster: `sweep.py plan ...`, then `sbatch DIR/sweep.sbatch` (add --partition,
--time or --account to the #SBATCH lines as the cluster wants), then, once the array is
done, `sweep.py collect DIR`. DIR must be on a file system the nodes share, and gdsim
built where they can run it (--gdsim). Exit status 1 with a one-line message on errors.
"""
import argparse
import csv
import itertools
import json
import os
import shlex
import shutil
import subprocess
import sys

HERE = os.path.dirname(os.path.realpath(__file__))
FIGURES = ["kernels", "ctas", "sim_time_ns", "busy_span_ns", "mean_sm_occupancy_pct", "resident_occupancy_pct",
           "mean_launch_latency_ns", "packets", "host_stalls", "max_resident_kernels", "idle_ns"]


class SweepError(Exception):
    pass


def read_points(d):
    path = os.path.join(d, "points.tsv")
    try:
        with open(path, newline="") as f:
            rows = list(csv.reader(f, delimiter="\t"))
    except OSError as e:
        raise SweepError("%s: cannot read: %s (run `sweep.py plan` first)" % (path, e))
    if not rows or rows[0][:3] != ["point", "trace", "config"]:
        raise SweepError("%s: not a sweep's points file" % path)
    keys = rows[0][3:]
    pts = []
    for n, r in enumerate(rows[1:], 2):
        if len(r) != 3 + len(keys):
            raise SweepError("%s:%d: %d fields, want %d" % (path, n, len(r), 3 + len(keys)))
        pts.append({"point": r[0], "trace": r[1], "config": r[2], "sets": dict(zip(keys, r[3:]))})
    return keys, pts


def plan(a):
    grid = []
    for s in a.set:
        k, eq, vals = s.partition("=")
        if not eq or not k or not vals:
            raise SweepError("--set %s: want KEY=V1,V2,..." % s)
        grid.append((k, vals.split(",")))
    if len({k for k, _ in grid}) != len(grid):
        raise SweepError("a key is given twice with --set")
    for t in a.trace + a.config:
        if not os.path.isfile(t):
            raise SweepError("%s: no such file" % t)
    os.makedirs(os.path.join(a.dir, "points"), exist_ok=True)
    keys = [k for k, _ in grid]
    rows = []
    for trace, conf, vals in itertools.product(a.trace, a.config or [""], itertools.product(*[v for _, v in grid])):
        rows.append([str(len(rows)), os.path.abspath(trace), os.path.abspath(conf) if conf else ""] + list(vals))
    with open(os.path.join(a.dir, "points.tsv"), "w", newline="") as f:
        w = csv.writer(f, delimiter="\t", lineterminator="\n")
        w.writerow(["point", "trace", "config"] + keys)
        w.writerows(rows)
    gdsim = os.path.abspath(a.gdsim)
    me = os.path.abspath(__file__)
    d = os.path.abspath(a.dir)
    with open(os.path.join(a.dir, "sweep.sbatch"), "w") as f:
        f.write("#!/bin/sh\n"
                "#SBATCH --job-name=gdsim-sweep\n"
                "#SBATCH --array=0-%d\n"
                "#SBATCH --ntasks=1\n"
                "#SBATCH --cpus-per-task=1\n"
                "#SBATCH --output=%s/points/slurm-%%a.out\n"
                "# one replay per array task: sweep.py point DIR $SLURM_ARRAY_TASK_ID\n"
                "exec python3 %s point %s \"$SLURM_ARRAY_TASK_ID\" --gdsim %s\n"
                % (len(rows) - 1, d, shlex.quote(me), shlex.quote(d), shlex.quote(gdsim)))
    print("sweep.py: %d points in %s (run: sweep.py run %s, or sbatch %s)" %
          (len(rows), a.dir, a.dir, os.path.join(a.dir, "sweep.sbatch")))


def point(a):
    keys, pts = read_points(a.dir)
    try:
        p = pts[int(a.index)]
    except (ValueError, IndexError):
        raise SweepError("point %s: the sweep has points 0 to %d" % (a.index, len(pts) - 1))
    out = os.path.join(a.dir, "points", "%s.json" % p["point"])
    cmd = [a.gdsim, "replay", p["trace"], "--quiet", "--no-progress", "--summary-json", out + ".part"]
    if p["config"]:
        cmd += ["--config", p["config"]]
    for k in keys:
        cmd += ["--set", "%s=%s" % (k, p["sets"][k])]
    r = subprocess.run(cmd, capture_output=True, text=True)
    if r.returncode != 0:
        with open(os.path.join(a.dir, "points", "%s.err" % p["point"]), "w") as f:
            f.write(r.stderr)
        raise SweepError("point %s: %s" % (p["point"], r.stderr.strip().splitlines()[-1] if r.stderr.strip()
                                            else "gdsim exited %d" % r.returncode))
    os.replace(out + ".part", out)


def run(a):
    keys, pts = read_points(a.dir)
    if not shutil.which("parallel"):
        raise SweepError("GNU parallel is missing (Debian package parallel)")
    cmd = ["parallel", "--will-cite", "--halt", "never", "-j", str(a.jobs), sys.executable,
           os.path.abspath(__file__), "point", a.dir, "{}", "--gdsim", a.gdsim, ":::"] + [p["point"] for p in pts]
    r = subprocess.run(cmd)
    if r.returncode != 0:
        raise SweepError("%d of %d points failed (their messages: %s/points/*.err)" %
                         (r.returncode, len(pts), a.dir))


def collect(a):
    keys, pts = read_points(a.dir)
    rows, missing = [], []
    for p in pts:
        path = os.path.join(a.dir, "points", "%s.json" % p["point"])
        try:
            with open(path) as f:
                s = json.load(f)["summary"]
        except (OSError, ValueError, KeyError) as e:
            missing.append("%s (%s)" % (p["point"], e.__class__.__name__))
            continue
        rows.append([p["point"], os.path.basename(p["trace"]), os.path.basename(p["config"])] +
                    [p["sets"][k] for k in keys] + [s.get(f, "") for f in FIGURES])
    if missing:
        raise SweepError("%d of %d points have no summary: %s" % (len(missing), len(pts), ", ".join(missing[:10])))
    out = a.output or os.path.join(a.dir, "results.csv")
    with open(out, "w", newline="") as f:
        w = csv.writer(f, lineterminator="\n")
        w.writerow(["point", "trace", "config"] + keys + FIGURES)
        w.writerows(rows)
    if a.plot:
        plot(a.plot, keys, rows, a.metric)
    print("sweep.py: %d points -> %s" % (len(rows), out))


def plot(out, keys, rows, metric):
    sys.path.insert(0, HERE)
    import plot as gdplot   # scripts/plot.py: matplotlib through Debian's python3
    plt = gdplot._matplotlib()
    i = 3 + len(keys) + FIGURES.index(metric)
    labels = [" ".join([r[1]] + ["%s=%s" % (k, v) for k, v in zip(keys, r[3:3 + len(keys)])]) for r in rows]
    fig, ax = plt.subplots(figsize=(9, 0.3 * len(rows) + 1.5))
    ax.barh(range(len(rows)), [float(r[i]) for r in rows], color="tab:blue")
    ax.set_yticks(range(len(rows)))
    ax.set_yticklabels(labels, fontsize=7)
    ax.invert_yaxis()
    ax.set_xlabel(metric)
    ax.set_title("%s over the sweep's %d points" % (metric, len(rows)))
    try:
        gdplot.save(plt, fig, out)
    except gdplot.PlotError as e:
        raise SweepError(str(e))


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter, epilog=__doc__.split("\n\n", 1)[1])
    sub = ap.add_subparsers(dest="what", required=True)
    default_gdsim = os.path.join(HERE, "..", "build", "gdsim")
    p = sub.add_parser("plan")
    p.add_argument("dir")
    p.add_argument("--trace", action="append", required=True)
    p.add_argument("--set", action="append", default=[], metavar="KEY=V1,V2,...")
    p.add_argument("--config", action="append", default=[])
    p.add_argument("--gdsim", default=default_gdsim)
    p = sub.add_parser("run")
    p.add_argument("dir")
    p.add_argument("--jobs", type=int, default=os.cpu_count() or 1)
    p.add_argument("--gdsim", default=default_gdsim)
    p = sub.add_parser("point")
    p.add_argument("dir")
    p.add_argument("index")
    p.add_argument("--gdsim", default=default_gdsim)
    p = sub.add_parser("collect")
    p.add_argument("dir")
    p.add_argument("-o", "--output")
    p.add_argument("--plot")
    p.add_argument("--metric", default="mean_sm_occupancy_pct", choices=FIGURES)
    a = ap.parse_args(argv)
    if hasattr(a, "gdsim"):
        a.gdsim = os.path.abspath(a.gdsim)
    try:
        {"plan": plan, "run": run, "point": point, "collect": collect}[a.what](a)
    except SweepError as e:
        print("sweep.py: error: %s" % e, file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
