#!/usr/bin/env python3
"""Pictures of a gdsim replay (matplotlib; Debian package python3-matplotlib).

  plot.py occupancy OCC.csv -o OUT.png|svg [--by sm|gpc] [--interval NS]
      heat map of resident warps per SM (or GPC) over time, from `gdsim replay
      --occupancy-csv OCC.csv`; idle intervals (no row in the CSV) are drawn as 0
  plot.py latency KERNELS.csv -o OUT.png|svg
      cumulative distribution of each stage of a kernel's launch over the kernels
      (submit -> fetched -> ... -> completion, and submit -> first CTA), from
      `gdsim replay --kernels-csv KERNELS.csv`
  plot.py gantt KERNELS.csv -o OUT.png|svg
      the kernels of each hardware queue over time (first CTA to last CTA end), and
      beside them the times the capture measured when the trace came from one
  plot.py waves WAVES.vcd -o OUT.png|svg [--signals REGEX]
      the signals of `gdsim replay --vcd WAVES.vcd` (default: resident kernels, queue 0's
      depth, the GPCs' resident warps) as steps over time, the view GTKWave gives
  plot.py timeline TIMELINE.json -o OUT.png|svg [--max-tracks N]
      the tracks of `gdsim replay --timeline TIMELINE.json` drawn as rows (the view
      Perfetto UI gives of the same file)

Every kind takes --window A,B: only the time from A to B ms (in the CSV's time base).
The format follows OUT's extension (.png or .svg). Exit status 1 with a one-line
message when an input cannot be read.
"""
import argparse
import csv
import json
import math
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.realpath(__file__)))
import gdtrace  # noqa: E402  (OutputFile: outputs whole or not at all)


def _matplotlib():
    try:
        import matplotlib
    except ImportError:
        # Debian's python3-matplotlib lives with /usr/bin/python3; another python3
        # first on PATH (pyenv, a venv) does not see it: run again with Debian's.
        deb = "/usr/bin/python3"
        if os.path.exists(deb) and os.path.realpath(sys.executable) != os.path.realpath(deb) \
                and not os.environ.get("GDSIM_PLOT_REEXEC"):
            os.environ["GDSIM_PLOT_REEXEC"] = "1"
            os.execv(deb, [deb, os.path.abspath(sys.argv[0])] + sys.argv[1:])  # the script running: plot.py or one importing it
        sys.exit("plot.py: matplotlib is missing: install Debian's python3-matplotlib (make deps does)")
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    return plt


class PlotError(Exception):
    pass


def read_csv(path, need):
    """The rows of a gdsim CSV as dicts, each with its line number as "_n": every row as
    many cells as the header, no column twice."""
    try:
        with gdtrace.open_input(path, newline="") as f:
            r = csv.DictReader(f)
            rows = list(r)
            head = r.fieldnames or []
    except (OSError, UnicodeDecodeError, csv.Error) as e:
        raise PlotError("%s: cannot read: %s" % (path, getattr(e, "strerror", None) or e))
    if not rows:
        raise PlotError("%s: no rows" % path)
    dup = sorted({c for c in head if head.count(c) > 1})
    if dup:
        raise PlotError("%s: column %s given twice" % (path, dup[0]))
    missing = [c for c in need if c not in head]
    if missing:
        raise PlotError("%s: not the expected CSV: no column %s" % (path, ", ".join(missing)))
    for n, row in enumerate(rows, 2):
        if None in row or None in row.values():
            raise PlotError("%s: line %d: %s cells than the header's %d" % (
                path, n, "more" if None in row else "fewer", len(head)))
        row["_n"] = n
    return rows


def num(path, row, col, low=None):
    """A cell as a finite number (at least low, when given), else an error naming the
    file, the line and the column."""
    try:
        v = float(row[col])
    except (TypeError, ValueError):
        v = None
    if v is None or not math.isfinite(v) or (low is not None and v < low):
        raise PlotError("%s: line %d: %s=%r is not a finite number%s" % (
            path, row.get("_n", 0), col, row[col], "" if low is None else " of at least %g" % low))
    return v


def regex(text):
    """--signals: a regular expression Python compiles."""
    import re
    try:
        re.compile(text)
    except re.error as e:
        raise argparse.ArgumentTypeError("%r is not a regular expression: %s" % (text, e))
    return text


def save(plt, fig, out, source=None):
    """The figure into out (.png or .svg), whole or not at all, never over its source."""
    ext = os.path.splitext(out)[1].lower()
    if ext not in (".png", ".svg"):
        raise PlotError("%s: the output must end in .png or .svg" % out)
    fig.tight_layout()
    try:
        with gdtrace.OutputFile(out, "wb", inputs=(source,) if source else ()) as f:
            fig.savefig(f, format=ext[1:], dpi=120, metadata={"Software": None} if ext == ".png" else {"Date": None})
    except (OSError, ValueError) as e:
        raise PlotError("%s: cannot write: %s" % (out, getattr(e, "strerror", None) or e))
    plt.close(fig)


def in_window(window, start_ns, end_ns=None):
    if not window:
        return True
    end_ns = start_ns if end_ns is None else end_ns
    return end_ns >= window[0] * 1e6 and start_ns <= window[1] * 1e6


def set_window(ax, window):
    if window:
        ax.set_xlim(window[0], window[1])


def plot_occupancy(plt, path, out, by, interval, window):
    rows = read_csv(path, ["start_ns", "gpu"])
    if window:
        rows = [r for r in rows if in_window(window, num(path, r, "start_ns"))]
        if not rows:
            raise PlotError("%s: no interval in the window %g-%g ms" % (path, window[0], window[1]))
    import numpy as np
    cols = [c for c in rows[0] if c.startswith("sm" if by == "sm" else "gpc")]
    if not cols:
        raise PlotError("%s: no %s columns" % (path, by))
    starts = [num(path, r, "start_ns", 0) for r in rows]
    for r, a, b in zip(rows[1:], starts, starts[1:]):
        if b < a:
            raise PlotError("%s: line %d: start_ns %g is before the line above's %g (the intervals go forward)" %
                            (path, r["_n"], b, a))
    if interval is None:
        d = sorted(set(b - a for a, b in zip(starts, starts[1:]) if b > a))
        interval = d[0] if d else 10000.0
    t0 = starts[0]
    if (starts[-1] - t0) / interval > 1e8:
        raise PlotError("%s: %g ns from the first interval to the last, more than 10^8 intervals of %g ns" %
                        (path, starts[-1] - t0, interval))
    nbins = int(round((starts[-1] - t0) / interval)) + 1
    width = min(nbins, 2000)  # at most 2000 columns: neighbouring intervals averaged
    m = np.zeros((len(cols), width))
    for r, s in zip(rows, starts):
        b = int(round((s - t0) / interval)) * width // nbins
        m[:, b] += [num(path, r, c, 0) for c in cols]
    m /= nbins / width
    fig, ax = plt.subplots(figsize=(10, 4.5))
    span_ms = nbins * interval / 1e6
    im = ax.imshow(m, aspect="auto", interpolation="nearest", cmap="viridis", origin="lower",
                   extent=(t0 / 1e6, t0 / 1e6 + span_ms, -0.5, len(cols) - 0.5))
    ax.set_xlabel("time (ms)")
    ax.set_ylabel(by.upper() + "s" if by == "gpc" else "SM")
    ax.set_title("resident warps per %s (%s)" % ("SM" if by == "sm" else "GPC", os.path.basename(path)))
    fig.colorbar(im, ax=ax, label="mean resident warps")
    save(plt, fig, out, path)


STAGES = [("fetch", "submit_ns", "fetched_ns"), ("decode", "fetched_ns", "decoded_ns"),
          ("dependencies", "decoded_ns", "ready_ns"), ("first CTA", "ready_ns", "first_cta_ns"),
          ("last CTA launched", "first_cta_ns", "last_cta_ns"), ("drain", "last_cta_ns", "end_ns"),
          ("completion", "end_ns", "completion_ns"), ("launch latency", "submit_ns", "first_cta_ns")]


def plot_latency(plt, path, out, window):
    rows = read_csv(path, sorted({c for _, a, b in STAGES for c in (a, b)}))
    for r in rows:  # every stage's times, finite, and in the order of the stages
        for _, a, b in STAGES:
            if num(path, r, b) < num(path, r, a):
                raise PlotError("%s: line %d: %s %s is before %s %s" % (path, r["_n"], b, r[b], a, r[a]))
    if window:
        rows = [r for r in rows if in_window(window, num(path, r, "submit_ns"), num(path, r, "completion_ns"))]
        if not rows:
            raise PlotError("%s: no kernel in the window %g-%g ms" % (path, window[0], window[1]))
    fig, ax = plt.subplots(figsize=(8, 4.5))
    for name, a, b in STAGES:
        v = sorted((num(path, r, b) - num(path, r, a)) / 1000.0 for r in rows)
        y = [(i + 1) / len(v) for i in range(len(v))]
        ax.step(v, y, where="post", label=name, linewidth=2.2 if name == "launch latency" else 1.2)
    ax.set_xscale("symlog", linthresh=0.01)
    ax.set_xlabel("duration (us)")
    ax.set_ylabel("share of kernels")
    ax.set_ylim(0, 1.02)
    ax.grid(alpha=0.3)
    ax.legend(fontsize=8, loc="lower right")
    ax.set_title("stages of a kernel's launch (%d kernels, %s)" % (len(rows), os.path.basename(path)))
    save(plt, fig, out, path)


def plot_gantt(plt, path, out, window):
    rows = read_csv(path, ["queue", "first_cta_ns", "end_ns", "measured_start_ns", "measured_dur_ns"])
    for r in rows:
        if not r["queue"].isascii() or not r["queue"].isdigit():
            raise PlotError("%s: line %d: queue=%r is not a queue number" % (path, r["_n"], r["queue"]))
        if num(path, r, "end_ns") < num(path, r, "first_cta_ns"):
            raise PlotError("%s: line %d: end_ns %s is before first_cta_ns %s" % (path, r["_n"], r["end_ns"],
                                                                                 r["first_cta_ns"]))
        for c in ("measured_start_ns", "measured_dur_ns"):
            if r[c]:
                num(path, r, c, 0 if c == "measured_dur_ns" else None)
    if window:
        rows = [r for r in rows if in_window(window, num(path, r, "first_cta_ns"), num(path, r, "end_ns"))]
        if not rows:
            raise PlotError("%s: no kernel in the window %g-%g ms" % (path, window[0], window[1]))
    queues = sorted({int(r["queue"]) for r in rows})
    measured = any(r["measured_start_ns"] for r in rows)
    fig, ax = plt.subplots(figsize=(10, 1.2 + 0.6 * len(queues) * (2 if measured else 1)))
    labels, y = [], 0
    for q in queues:
        mine = [r for r in rows if int(r["queue"]) == q]
        bars = [(num(path, r, "first_cta_ns") / 1e6, (num(path, r, "end_ns") - num(path, r, "first_cta_ns")) / 1e6)
                for r in mine]
        ax.broken_barh(bars, (y - 0.35, 0.7), facecolors="tab:blue")
        labels.append("queue %d replayed" % q)
        y += 1
        if measured:
            mbars = [(num(path, r, "measured_start_ns") / 1e6, num(path, r, "measured_dur_ns") / 1e6)
                     for r in mine if r["measured_start_ns"] and r["measured_dur_ns"]]
            ax.broken_barh(mbars, (y - 0.35, 0.7), facecolors="tab:orange")
            labels.append("queue %d measured" % q)
            y += 1
    ax.set_yticks(range(len(labels)))
    ax.set_yticklabels(labels, fontsize=8)
    ax.invert_yaxis()
    ax.set_xlabel("time (ms)")
    ax.grid(axis="x", alpha=0.3)
    set_window(ax, window)
    ax.set_title("kernels per queue%s (%s)" % (", replayed and measured" if measured else "",
                                               os.path.basename(path)))
    save(plt, fig, out, path)


def timeline_events(path):
    """The events of a gdsim timeline (a Chrome trace): each an object with the fields a
    plot uses, of their kinds, else an error naming the event and the field."""
    try:
        with gdtrace.open_input(path) as f:
            doc = json.load(f)
    except (OSError, ValueError) as e:
        raise PlotError("%s: not a gdsim timeline: %s" % (path, getattr(e, "strerror", None) or e))
    ev = doc.get("traceEvents") if isinstance(doc, dict) else None
    if not isinstance(ev, list):
        raise PlotError("%s: not a gdsim timeline: no traceEvents list" % path)

    def bad(i, what):
        raise PlotError("%s: traceEvents[%d]: %s" % (path, i, what))
    for i, e in enumerate(ev):
        if not isinstance(e, dict):
            bad(i, "not an object")
        ph = e.get("ph")
        if not isinstance(ph, str):
            bad(i, "no ph (event kind)")
        if ph in ("M", "X", "C"):
            for k in ("pid", "tid") if ph != "C" else ("pid",):
                if isinstance(e.get(k), bool) or not isinstance(e.get(k), int):
                    bad(i, "%s is %r, not an integer" % (k, e.get(k)))
            if not isinstance(e.get("name"), str):
                bad(i, "no name")
        if ph == "M" and e.get("name") in ("process_name", "thread_name") and \
                not (isinstance(e.get("args"), dict) and isinstance(e["args"].get("name"), str)):
            bad(i, "a %s event with no args.name" % e["name"])
        if ph in ("X", "C"):
            for k in ("ts", "dur") if ph == "X" else ("ts",):
                v = e.get(k)
                if isinstance(v, bool) or not isinstance(v, (int, float)) or not math.isfinite(v) or \
                        (k == "dur" and v < 0):
                    bad(i, "%s is %r, not a finite number%s" % (k, v, " of at least 0" if k == "dur" else ""))
        if ph == "C":
            v = e.get("args", {}).get("value") if isinstance(e.get("args"), dict) else None
            if isinstance(v, bool) or not isinstance(v, (int, float)) or not math.isfinite(v):
                bad(i, "a counter with no finite args.value")
    return ev


def plot_timeline(plt, path, out, max_tracks, window):
    ev = [e for e in timeline_events(path) if e["ph"] in ("M", "X", "C")]  # the kinds drawn
    procs = {e["pid"]: e["args"]["name"] for e in ev if e.get("ph") == "M" and e.get("name") == "process_name"}
    tnames = {(e["pid"], e["tid"]): e["args"]["name"] for e in ev if e.get("ph") == "M"
              and e.get("name") == "thread_name"}
    if window:  # the slices and counters in the window
        ev = [e for e in ev if e.get("ph") == "M" or in_window(window, e["ts"] * 1e3, e["ts"] * 1e3 + e.get("dur", 0) * 1e3)]
    order = {1: 0, 4: 1, 3: 2, 2: 3}  # replayed and measured queues together, then GPCs, then waiting
    tracks = sorted({(e["pid"], e["tid"]) for e in ev if e.get("ph") == "X"},
                    key=lambda t: (order.get(t[0], 9), t[1]))[:max_tracks]
    if not tracks:
        raise PlotError("%s: no slice to draw%s" % (path, " in the window %g-%g ms" % window if window else ""))
    row = {t: i for i, t in enumerate(tracks)}
    colors = {"queued": "#c7c7c7", "decode": "#9edae5", "waiting for dependencies": "#ffbb78",
              "launching": "#f7b6d2", "running": "#1f77b4", "completion": "#98df8a"}
    fig, ax = plt.subplots(figsize=(11, 1.0 + 0.32 * len(tracks)))
    spans = {}
    for e in ev:
        if e.get("ph") != "X" or (e["pid"], e["tid"]) not in row:
            continue
        if "args" in e and e["pid"] == 1:
            continue  # the packet: its stages are drawn
        kind = {2: "queued", 3: "running"}.get(e["pid"], e["name"] if e["pid"] == 1 else None)
        spans.setdefault((row[(e["pid"], e["tid"])], colors.get(kind, "#ff7f0e")), []).append(
            (e["ts"] / 1e3, e["dur"] / 1e3))
    for (r, c), bars in spans.items():
        ax.broken_barh(bars, (r - 0.4, 0.8), facecolors=c, edgecolor="white", linewidth=0.3)
    counters = [e for e in ev if e.get("ph") == "C" and e["name"] == "GPC 0 resident warps"]
    ax.set_yticks(range(len(tracks)))
    short = {1: "replayed", 2: "waiting", 3: "", 4: "measured"}
    ax.set_yticklabels([("%s %s" % (short.get(p, ""), tnames.get((p, t), t))).strip() for p, t in tracks], fontsize=7)
    ax.invert_yaxis()
    ax.set_xlabel("time (ms)")
    if counters:
        ax2 = ax.twinx()
        ax2.step([e["ts"] / 1e3 for e in counters], [e["args"]["value"] for e in counters], where="post",
                 color="black", linewidth=0.8, alpha=0.6)
        ax2.set_ylabel("GPC 0 resident warps", fontsize=8)
    set_window(ax, window)
    handles = [plt.Rectangle((0, 0), 1, 1, color=c) for c in colors.values()]
    ax.legend(handles, list(colors), fontsize=7, ncol=6, loc="upper center", bbox_to_anchor=(0.5, -0.12))
    ax.set_title("timeline of %s (%d tracks shown)" % (os.path.basename(path), len(tracks)))
    save(plt, fig, out, path)


def read_vcd(path, pattern):
    """The signals of a VCD whose full names match pattern: {name: [(t_ps, value)]}."""
    import re
    rx = re.compile(pattern)
    ids, scope, out, t, body = {}, [], {}, 0, False
    try:
        with gdtrace.open_input(path) as f:
            for line in f:
                w = line.split()
                if not w:
                    continue
                if not body:
                    if w[0] == "$scope":
                        scope.append(w[2])
                    elif w[0] == "$upscope":
                        scope.pop()
                    elif w[0] == "$var":
                        name = ".".join(scope[1:] + [w[4]])
                        if rx.search(name):
                            ids[w[3]] = name
                            out[name] = []
                    elif w[0] == "$enddefinitions":
                        body = True
                elif w[0][0] == "#":
                    now = int(w[0][1:])
                    if now < t:
                        raise ValueError("time #%d after #%d: a VCD's time only goes forward" % (now, t))
                    t = now
                elif w[0][0] == "b" and len(w) > 1 and w[1] in ids:
                    out[ids[w[1]]].append((t, int(w[0][1:], 2)))
                elif w[0][0] in "01" and w[0][1:] in ids:
                    out[ids[w[0][1:]]].append((t, int(w[0][0])))
    except (OSError, UnicodeDecodeError, ValueError, IndexError) as e:
        raise PlotError("%s: not a readable VCD: %s" % (path, e))
    if not body:
        raise PlotError("%s: not a VCD (no $enddefinitions)" % path)
    if not out:
        raise PlotError("%s: no signal matches %r" % (path, pattern))
    return out


def plot_waves(plt, path, out, pattern, window):
    sig = read_vcd(path, pattern)
    names = sorted(sig)[:24]
    end = max((v[-1][0] for v in sig.values() if v), default=0)
    fig, axes = plt.subplots(len(names), 1, figsize=(10, 0.75 * len(names) + 1), sharex=True, squeeze=False)
    for ax, n in zip(axes[:, 0], names):
        v = sig[n] or [(0, 0)]
        ax.step([a / 1e9 for a, _ in v] + [end / 1e9], [b for _, b in v] + [v[-1][1]], where="post", linewidth=0.9)
        ax.set_ylabel(n.replace("gpu.", ""), rotation=0, ha="right", va="center", fontsize=7)
        ax.tick_params(axis="y", labelsize=6)
        ax.grid(alpha=0.25)
        set_window(ax, window)
    axes[-1, 0].set_xlabel("time (ms)")
    axes[0, 0].set_title("waveforms of %s" % os.path.basename(path))
    save(plt, fig, out, path)


def main(argv=None):
    ap = gdtrace.ArgumentParser(description=__doc__.split("\n\n")[0],
                                 epilog="docs/PLOTS.md shows one of each.")
    sub = ap.add_subparsers(dest="what", required=True)
    p = sub.add_parser("occupancy", help="SM x time heat map from --occupancy-csv")
    p.add_argument("csv")
    p.add_argument("-o", "--output", required=True)
    p.add_argument("--by", choices=("sm", "gpc"), default="sm")
    p.add_argument("--interval", type=gdtrace.number(1e-3, 1e15),
                   help="the CSV's interval in ns (default: from its rows)")
    for name, h in (("latency", "per-stage CDF from --kernels-csv"), ("gantt", "kernels per queue from --kernels-csv")):
        p = sub.add_parser(name, help=h)
        p.add_argument("csv")
        p.add_argument("-o", "--output", required=True)
    p = sub.add_parser("waves", help="signals of a --vcd file")
    p.add_argument("vcd")
    p.add_argument("-o", "--output", required=True)
    p.add_argument("--signals", default=r"resident_kernels|queue0\.depth|gpc2sm_\d+\.resident_warps",
                   type=regex, help="regular expression over the signals' full names")
    p = sub.add_parser("timeline", help="the tracks of a --timeline file")
    p.add_argument("json")
    p.add_argument("-o", "--output", required=True)
    p.add_argument("--max-tracks", type=gdtrace.number(1, 10 ** 6, integer=True), default=40)
    for p in sub.choices.values():
        p.add_argument("--window", metavar="A,B", help="only the time from A to B ms")
    a = ap.parse_args(argv)
    window = None
    if a.window:
        try:
            window = tuple(float(x) for x in a.window.split(","))
            if len(window) != 2 or not window[0] < window[1] or not all(math.isfinite(x) for x in window):
                raise ValueError
        except ValueError:
            ap.error("--window %s: two times in ms, A,B with A < B" % a.window)
    plt = _matplotlib()
    try:
        if a.what == "occupancy":
            plot_occupancy(plt, a.csv, a.output, a.by, a.interval, window)
        elif a.what == "latency":
            plot_latency(plt, a.csv, a.output, window)
        elif a.what == "gantt":
            plot_gantt(plt, a.csv, a.output, window)
        elif a.what == "waves":
            plot_waves(plt, a.vcd, a.output, a.signals, window)
        else:
            plot_timeline(plt, a.json, a.output, a.max_tracks, window)
    except PlotError as e:
        print("plot.py: error: %s" % e, file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(gdtrace.run_main(main))
