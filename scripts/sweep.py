#!/usr/bin/env python3
"""Sweeps of gdsim configurations over traces: a grid of points, each one replay, run by
GNU parallel on this machine or as a Slurm job array on a cluster; one summary JSON per
point; one CSV (and a comparison plot) at the end.

  sweep.py plan DIR --trace T [--trace T2 ...] [--set KEY=V1,V2,...]... [--config F [--config F2]] [--yes]
      write the grid (every key and value checked by gdsim first; more than 10,000 points
      need --yes): DIR/points.tsv, a point per line (every trace x every value of
      every --set x every --config), and DIR/sweep.sbatch, the Slurm job array.
      Values are split at commas, except for keys whose one value is a list or text
      (gpu.sms_per_gpc, cwd.priority_windows, ...: the whole value is one point); ';'
      always splits: --set "gpu.sms_per_gpc=16,16,16,16,16,14,14;32,32,32,32,32,28,28"
  sweep.py run DIR [--jobs N]          run the points with GNU parallel (Debian package parallel)
  sweep.py point DIR INDEX             run one point (what parallel and each array task call)
  sweep.py collect DIR [-o CSV] [--plot PNG|SVG] [--metric NAME] [--baseline POINT]
      one row per point: the point's configuration, its summary figures, the device's
      (gpcs, sms) and what bounds the run (docs/WHATIF.md); the plot: each point's
      metric as a change from the baseline point's (default 0), in %

On a cluster: `sweep.py plan ...`, then `sbatch DIR/sweep.sbatch` (add --partition,
--time or --account to the #SBATCH lines as the cluster wants), then, once the array is
done, `sweep.py collect DIR`. DIR must be on a file system the nodes share, and gdsim
built where they can run it (--gdsim). Exit status 1 with a one-line message on errors.
"""
import argparse
import csv
import itertools
import json
import math
import os
import shlex
import shutil
import subprocess
import sys

HERE = os.path.dirname(os.path.realpath(__file__))
sys.path.insert(0, HERE)
import gdtrace  # noqa: E402  (OutputFile: outputs whole or not at all)
FIGURES = ["kernels", "ctas", "sim_time_ns", "busy_span_ns", "mean_sm_occupancy_pct", "resident_occupancy_pct",
           "mean_launch_latency_ns", "packets", "host_stalls", "max_resident_kernels", "idle_ns"]
DEVICE = ["gpcs", "sms"]   # from the point's resolved configuration
PATH_CATS = ["host_cpu", "host_sync", "held", "front_end", "sms_full", "kernels", "copies"]
GPU_STATES = ["busy_kernels", "busy_copies", "idle_front_end", "idle_dependency", "idle_nothing_submitted"]
BOUNDS = (["verdict", "host_floor_us", "gpu_floor_us"] + ["path_%s_us" % c for c in PATH_CATS] +
          ["gpu_%s_us" % g for g in GPU_STATES])
COLUMNS = FIGURES + DEVICE + BOUNDS
PATH_KEYS = {"sm.cta_time_rules"}   # keys whose value names a file
MAX_POINTS = 10000                   # a plan with more points needs --yes
SBATCH_UNSAFE = set(" \t\n\r\"'%\\$`")   # not in a folder name written into an #SBATCH line
NUMERIC = [c for c in COLUMNS if c != "verdict"]


class SweepError(Exception):
    pass


def read_points(d):
    path = os.path.join(d, "points.tsv")
    try:
        with gdtrace.open_input(path, newline="", encoding="utf-8") as f:
            rows = list(csv.reader(f, delimiter="\t"))
    except OSError as e:
        raise SweepError("%s: cannot read: %s (run `sweep.py plan` first)" % (path, e.strerror or e))
    except (UnicodeDecodeError, csv.Error) as e:
        raise SweepError("%s: not a sweep's points file (%s)" % (path, e))
    if not rows or rows[0][:3] != ["point", "trace", "config"]:
        raise SweepError("%s: not a sweep's points file" % path)
    keys = rows[0][3:]
    if len(set(keys)) != len(keys) or any(not k for k in keys):
        raise SweepError("%s: a key column is empty or given twice" % path)
    pts = []
    for n, r in enumerate(rows[1:], 2):
        if len(r) != 3 + len(keys):
            raise SweepError("%s:%d: %d fields, want %d" % (path, n, len(r), 3 + len(keys)))
        # the point's id names its files under DIR/points: the row's number, nothing else
        if r[0] != str(n - 2):
            raise SweepError("%s:%d: point %r, want %d (the points are numbered from 0 in order)" %
                             (path, n, r[0], n - 2))
        pts.append({"point": r[0], "trace": r[1], "config": r[2], "sets": dict(zip(keys, r[3:]))})
    return keys, pts


def whole_keys(gdsim):
    """The keys whose one value may hold commas (a list, text): `gdsim keys` says which."""
    try:
        r = subprocess.run([gdsim, "keys"], capture_output=True, text=True)
    except OSError as e:
        raise SweepError("%s: cannot run: %s (build it, or give --gdsim)" % (gdsim, e.strerror))
    if r.returncode != 0:
        raise SweepError("%s keys: exited %d" % (gdsim, r.returncode))
    keys, name = set(), None
    for line in r.stdout.splitlines():
        if " = " in line and not line.startswith(" "):
            name = line.split(" = ", 1)[0]
        elif name and line.startswith("    accepted: ") and line[14:].startswith(("comma-separated", "UTF-8 text")):
            keys.add(name)
    return keys


def check_values(gdsim, grid):
    """Every key and value of the grid as gdsim takes it (`gdsim keys --set`: the key exists,
    the value is of its kind), before any point runs: a call with each key's i-th value."""
    for i in range(max((len(vs) for _, vs in grid), default=0)):
        cmd = [gdsim, "keys"]
        for k, vs in grid:
            cmd += ["--set", "%s=%s" % (k, vs[min(i, len(vs) - 1)])]
        try:
            r = subprocess.run(cmd, capture_output=True, text=True, errors="replace")
        except OSError as e:
            raise SweepError("%s: cannot run: %s (build it, or give --gdsim)" % (gdsim, e.strerror))
        if r.returncode != 0:
            lines = r.stderr.strip().splitlines()
            raise SweepError(lines[-1].replace("gdsim: --set: ", "--set: ") if lines else
                             "%s keys exited %d" % (gdsim, r.returncode))


def values(key, vals, whole):
    """A --set's values: split at ';' when it has one, else at ',' unless the key's one
    value is a list or text."""
    vs = vals.split(";") if ";" in vals else [vals] if key in whole else vals.split(",")
    if any(not v for v in vs):
        raise SweepError("--set %s=%s: an empty value" % (key, vals))
    return vs


def plan(a):
    grid = []
    whole = whole_keys(a.gdsim)
    for s in a.set:
        k, eq, vals = s.partition("=")
        if not eq or not k or not vals:
            raise SweepError("--set %s: want KEY=V1,V2,..." % s)
        vs = values(k, vals, whole)
        if k in PATH_KEYS:  # a file named relative to here: absolute, as the traces (points run anywhere)
            vs = [v if v == "none" or not os.path.exists(v) else os.path.abspath(v) for v in vs]
        grid.append((k, vs))
    if len({k for k, _ in grid}) != len(grid):
        raise SweepError("a key is given twice with --set")
    n = 1
    for _, vs in grid:
        n *= len(vs)
    n *= len(a.trace) * max(1, len(a.config))
    if n > MAX_POINTS and not a.yes:
        raise SweepError("%d points, more than %d: give --yes to plan them all" % (n, MAX_POINTS))
    check_values(a.gdsim, grid)
    unsafe = [c for c in os.path.abspath(a.dir) if c in SBATCH_UNSAFE or not c.isprintable()]
    if unsafe:
        raise SweepError("%s: the folder's name has %r, which a Slurm script's #SBATCH line cannot hold; choose "
                         "another folder" % (a.dir, unsafe[0]))
    for t in a.trace + a.config:
        if not os.path.isfile(t):
            raise SweepError("%s: no such file" % t)
    if os.path.lexists(os.path.join(a.dir, "points.tsv")) or any(
            os.scandir(os.path.join(a.dir, "points")) if os.path.isdir(os.path.join(a.dir, "points")) else ()):
        # its points' results would be taken for the new plan's
        raise SweepError("%s: holds a sweep already (points.tsv, points/); plan into a new folder" % a.dir)
    try:
        os.makedirs(os.path.join(a.dir, "points"), exist_ok=True)
    except OSError as e:
        raise SweepError("%s: cannot make the sweep's folder: %s" % (a.dir, e.strerror or e))
    keys = [k for k, _ in grid]
    rows = []
    for trace, conf, vals in itertools.product(a.trace, a.config or [""], itertools.product(*[v for _, v in grid])):
        rows.append([str(len(rows)), os.path.abspath(trace), os.path.abspath(conf) if conf else ""] + list(vals))
    with gdtrace.OutputFile(os.path.join(a.dir, "points.tsv"), "w", newline="") as f:
        w = csv.writer(f, delimiter="\t", lineterminator="\n")
        w.writerow(["point", "trace", "config"] + keys)
        w.writerows(rows)
    gdsim = os.path.abspath(a.gdsim)
    me = os.path.abspath(__file__)
    d = os.path.abspath(a.dir)
    with gdtrace.OutputFile(os.path.join(a.dir, "sweep.sbatch")) as f:
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
        if int(a.index) < 0:
            raise IndexError
        p = pts[int(a.index)]
    except (ValueError, IndexError):
        raise SweepError("point %s: the sweep has points 0 to %d" % (a.index, len(pts) - 1))
    out = os.path.join(a.dir, "points", "%s.json" % p["point"])
    if os.path.islink(out):  # a name the sweep chose: a link planted there is replaced, never followed
        os.unlink(out)
    # gdsim writes the summary whole or not at all (under a temporary name of its own)
    cmd = [a.gdsim, "replay", p["trace"], "--quiet", "--no-progress", "--summary-json", out]
    if p["config"]:
        cmd += ["--config", p["config"]]
    for k in keys:
        cmd += ["--set", "%s=%s" % (k, p["sets"][k])]
    try:
        r = subprocess.run(cmd, capture_output=True, text=True, errors="replace")
    except OSError as e:
        raise SweepError("--gdsim %s: cannot run: %s" % (a.gdsim, e.strerror or e))
    if r.returncode != 0:
        with gdtrace.OutputFile(os.path.join(a.dir, "points", "%s.err" % p["point"]), replace_link=True) as f:
            f.write(r.stderr)
        raise SweepError("point %s: %s" % (p["point"], r.stderr.strip().splitlines()[-1] if r.stderr.strip()
                                            else "gdsim exited %d" % r.returncode))


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


def derived(j):
    """A point's device figures and bounds from its summary JSON (collect's columns)."""
    c = j.get("config", {})
    sms = c.get("gpu.sms_per_gpc")
    out = {"gpcs": c.get("gpu.gpcs", ""), "sms": sum(sms) if isinstance(sms, list) else ""}
    b = j.get("bounds")
    if isinstance(b, dict):
        out["verdict"] = b.get("verdict", "")
        out["host_floor_us"] = b.get("host_floor_us", "")
        out["gpu_floor_us"] = b.get("gpu_floor_us", "")
        for cat in PATH_CATS:
            out["path_%s_us" % cat] = b.get("critical_path_us", {}).get(cat, "")
        for g in GPU_STATES:
            out["gpu_%s_us" % g] = b.get("gpu_us", {}).get(g, "")
    return out


def collect(a):
    keys, pts = read_points(a.dir)
    rows, missing = [], []
    for p in pts:
        path = os.path.join(a.dir, "points", "%s.json" % p["point"])
        try:
            with gdtrace.open_input(path) as f:
                j = json.load(f)
            s = j["summary"]
            if not isinstance(s, dict):
                raise ValueError("summary is not an object")
            d = derived(j)
        except (OSError, ValueError, KeyError, TypeError, AttributeError) as e:
            missing.append("%s (%s)" % (p["point"], e.__class__.__name__))
            continue
        for f in FIGURES:  # a figure gdsim gives is a finite number: anything else is no summary of its
            v = s.get(f, "")
            if v != "" and (isinstance(v, bool) or not isinstance(v, (int, float)) or not math.isfinite(v)):
                raise SweepError("%s: summary.%s is %r, not a finite number" % (path, f, v))
        rows.append([p["point"], os.path.basename(p["trace"]), os.path.basename(p["config"])] +
                    [p["sets"][k] for k in keys] + [s.get(f, "") for f in FIGURES] + [d.get(f, "") for f in
                                                                                       DEVICE + BOUNDS])
    if missing:
        raise SweepError("%d of %d points have no summary: %s" % (len(missing), len(pts), ", ".join(missing[:10])))
    if a.plot:  # (its errors before anything is written)
        relative(keys, rows, a.metric, a.baseline)
        if os.path.splitext(a.plot)[1].lower() not in (".png", ".svg"):
            raise SweepError("--plot %s: the plot must end in .png or .svg" % a.plot)
        if not os.path.isdir(os.path.dirname(a.plot) or "."):
            raise SweepError("--plot %s: no such folder" % a.plot)
    out = a.output or os.path.join(a.dir, "results.csv")
    ins = [os.path.join(a.dir, "points.tsv")] + [os.path.join(a.dir, "points", "%s.json" % p["point"]) for p in pts]
    try:
        with gdtrace.OutputFile(out, "w", inputs=ins, newline="") as f:
            w = csv.writer(f, lineterminator="\n")
            w.writerow(["point", "trace", "config"] + keys + COLUMNS)
            w.writerows(rows)
    except (OSError, ValueError) as e:
        raise SweepError("%s: cannot write: %s" % (out, getattr(e, "strerror", None) or e))
    if a.plot:
        plot(a.plot, keys, rows, a.metric, a.baseline)
    print("sweep.py: %d points -> %s" % (len(rows), out))


def relative(keys, rows, metric, baseline):
    """Each point's metric, the baseline's, and the changes from it in % (a SweepError
    when they cannot be had)."""
    if not rows:
        raise SweepError("no points to plot")
    i = 3 + len(keys) + COLUMNS.index(metric)
    base = [r for r in rows if r[0] == baseline]
    if not base:
        raise SweepError("--baseline %s: no such point (the sweep has points %s to %s)" % (baseline, rows[0][0],
                                                                                          rows[-1][0]))
    try:
        b = float(base[0][i])
        vals = [float(r[i]) for r in rows]
    except (TypeError, ValueError):
        raise SweepError("--metric %s: not a number in every point" % metric)
    if not all(math.isfinite(v) for v in vals):
        raise SweepError("--metric %s: not a finite number in every point" % metric)
    if b == 0:
        raise SweepError("--metric %s: the baseline point %s has 0: no change relative to it" % (metric, baseline))
    return b, vals, [100.0 * (v - b) / b for v in vals]


def plot(out, keys, rows, metric, baseline):
    """Each point's metric as a change from the baseline point's, in %: the differences
    a what-if makes, not bars from zero that hide them."""
    sys.path.insert(0, HERE)
    import plot as gdplot   # scripts/plot.py: matplotlib through Debian's python3
    b, vals, rel = relative(keys, rows, metric, baseline)
    # labels: what differs between the points (the trace and configuration file's names
    # when there are several, and each key that takes more than one value)
    cols = [1] if len({r[1] for r in rows}) > 1 else []
    cols += [2] if len({r[2] for r in rows}) > 1 else []
    cols += [3 + j for j in range(len(keys)) if len({r[3 + j] for r in rows}) > 1]
    labels = []
    for r in rows:
        parts = [("%s=%s" % (keys[c - 3], r[c])) if c >= 3 else r[c] for c in cols] or [r[1]]
        labels.append("%s: %s%s" % (r[0], " ".join(parts), "  (baseline)" if r[0] == baseline else ""))
    plt = gdplot._matplotlib()
    fig, ax = plt.subplots(figsize=(11, 0.35 * len(rows) + 1.8))
    ax.barh(range(len(rows)), rel, color=["tab:gray" if r[0] == baseline else
                                          "tab:green" if v < 0 else "tab:red" for r, v in zip(rows, rel)])
    ax.axvline(0, color="black", linewidth=0.8)
    lo, hi = min(rel + [0.0]), max(rel + [0.0])
    pad = 0.35 * (hi - lo or 1.0)
    ax.set_xlim(lo - pad, hi + pad)
    for y, (v, x) in enumerate(zip(vals, rel)):
        ax.annotate("%+.2f %% (%g)" % (x, v), (x, y), fontsize=7, va="center",
                    ha="left" if x >= 0 else "right", xytext=(3 if x >= 0 else -3, 0), textcoords="offset points")
    ax.set_yticks(range(len(rows)))
    ax.set_yticklabels(labels, fontsize=7)
    ax.invert_yaxis()
    ax.set_xlabel("%s: change from point %s (%g), %%" % (metric, baseline, b))
    common = ["%s=%s" % (keys[c - 3], rows[0][c]) if c >= 3 else rows[0][c] for c in range(1, 3 + len(keys))
              if c not in cols and rows[0][c]]
    ax.set_title("%s relative to point %s%s" % (metric, baseline, ("\n" + " ".join(common)) if common else ""),
                 fontsize=9)
    fig.tight_layout()
    try:
        gdplot.save(plt, fig, out)
    except gdplot.PlotError as e:
        raise SweepError(str(e))


def main(argv=None):
    ap = gdtrace.ArgumentParser(description=__doc__.split("\n\n")[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter, epilog=__doc__.split("\n\n", 1)[1])
    sub = ap.add_subparsers(dest="what", required=True)
    default_gdsim = os.path.join(HERE, "..", "build", "gdsim")
    p = sub.add_parser("plan")
    p.add_argument("dir")
    p.add_argument("--trace", action="append", required=True)
    p.add_argument("--set", action="append", default=[], metavar="KEY=V1,V2,...")
    p.add_argument("--config", action="append", default=[])
    p.add_argument("--gdsim", default=default_gdsim)
    p.add_argument("--yes", action="store_true", help="plan more than %d points" % MAX_POINTS)
    p = sub.add_parser("run")
    p.add_argument("dir")
    p.add_argument("--jobs", type=gdtrace.number(1, 10 ** 6, integer=True), default=os.cpu_count() or 1)
    p.add_argument("--gdsim", default=default_gdsim)
    p = sub.add_parser("point")
    p.add_argument("dir")
    p.add_argument("index")
    p.add_argument("--gdsim", default=default_gdsim)
    p = sub.add_parser("collect")
    p.add_argument("dir")
    p.add_argument("-o", "--output")
    p.add_argument("--plot")
    p.add_argument("--metric", default="sim_time_ns", choices=NUMERIC)
    p.add_argument("--baseline", default="0", metavar="POINT", help="the point the plot compares with (default 0)")
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
    sys.exit(gdtrace.run_main(main))
