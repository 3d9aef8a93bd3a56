#!/usr/bin/env python3
"""Replay a PyTorch-profiler capture on its own device and compare with what the GPU
did (docs/VALIDATION.md, 'Metrics and cross-validation').

  validate.py CAPTURE.json[.gz] [--split F | --no-calibrate] [--preset NAME] [--set KEY=VALUE]...
              [--device ID] [--gdsim PATH] [--keep DIR] [--infer-waits] [--queued-us US]
              [--stall-us US] [--json]

Converts the capture (scripts/kineto2gdt.py), replays it (build/gdsim) and prints:
  - which kernels the figures are on: all of them, calibrated on the same capture
    (in-sample), or with --split F those after the first F of the kernels by measured
    start, calibrated on the first F (held-out); the replay always runs the whole capture;
  - kernels: in the capture (on the converted GPU), in the replay, and whether each
    appears exactly once (joined by source_id = correlation and measured_start_ns);
  - the share of kernels whose kineto_est_occupancy_pct equals the capture's recorded
    'est. achieved occupancy %' (captures without it, e.g. AMD: n/a);
  - the gap error on queued kernels: |replayed - measured| (start - end of the kernel
    before it on its stream) for the kernels whose stream predecessor is a kernel that
    their launch call ended at least --queued-us before: median, p90, count;
  - the median, p90 and maximum of |first_cta_ns - measured_start_ns|, and the same
    with the unexplained stalls removed from the measured timeline;
  - the replayed span (first CTA of the first kernel to the end of the last) against
    the measured span (first kernel start to last kernel end), as a relative error;
  - the unexplained stalls of the capture: the GPU idle for more than --stall-us while
    an op that ran after it was already submitted and its dependencies were met (count,
    total, share of the span, the 10 largest). Information only: the replay never sees it.
With calibration (the default) the same replay with the preset alone is shown beside it.
Exit status 0 when the comparison ran (whatever the numbers), 1 on an error.
Python 3 standard library only; times are compared exactly (decimal), not in floats."""
import argparse
import bisect
import collections
import csv
import decimal
import fractions
import inspect
import io
import json
import math
import os
import shutil
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import gdtrace  # noqa: E402
import kineto2gdt  # noqa: E402

D = decimal.Decimal
QUEUED_US = 5      # a kernel is queued when its launch call ended this long before its predecessor ended
STALL_US = 50      # idle longer than this with an op ready is an unexplained stall (docs/VALIDATION.md)
LARGEST = 10       # stalls listed


def pct(sorted_vals, p):
    """Nearest-rank percentile."""
    if not sorted_vals:
        return None
    k = max(1, -(-len(sorted_vals) * p // 100))
    return sorted_vals[int(k) - 1]


def fraction(x, what, closed=False):
    """x (a float or text) as an exact fraction in (0, 1) ((0, 1] if closed)."""
    f = fractions.Fraction(str(x))
    if not (0 < f < 1 or (closed and f == 1)):
        raise ValueError("%s must be in (0, 1%s, not %s" % (what, "]" if closed else ")", x))
    return f


def split_index(n, split):
    """Index of the first evaluated kernel of n under --split (ceil(split * n), exact); 0 without."""
    return 0 if split is None else math.ceil(fraction(split, "split") * n)


def corr_key(c):
    """The correlation id as the converter writes it into source_id (None unless an int >= 0)."""
    return c if isinstance(c, int) and not isinstance(c, bool) and c >= 0 else None


# --------------------------------------------------------------------------------------
# The capture's own timeline: stream order, queued gaps, cross-stream waits, idle, stalls

class Timeline:
    """What the GPU did, from the capture alone (no replay): every kernel and copy of the
    device, each stream's order, the dependency each op waited for, the GPU's idle
    intervals and which of them are unexplained stalls."""

    def __init__(self, capture, device=None, stall_ns=STALL_US * 1000):
        cap = kineto2gdt.collect(capture, None)
        by_device = collections.Counter(k["device"] for k in cap.kernels)
        if not by_device:
            raise kineto2gdt.ConvertError("%s: no kernel events (cat 'kernel') in the trace" % capture)
        self.device = by_device.most_common(1)[0][0] if device is None else device
        kineto2gdt.align_clocks(cap, self.device)   # the converter's host times (docs/KINETO.md)
        self.stall_ns = stall_ns
        ops = []
        for k in cap.kernels:
            if k["device"] != self.device:
                continue
            rt = cap.runtime.get(k["corr"])
            rt = rt if rt is not None and rt[0] in kineto2gdt.KERNEL_LAUNCH_APIS else None
            ops.append(dict(type="kernel", kind="K", name=k["name"], ts=k["ts"], dur=k["dur"], stream=k["stream"],
                            corr=k["corr"], rt=rt, est=k.get("est")))
        for c in cap.commands:
            if c["device"] != self.device:
                continue
            rt = cap.runtime.get(c["corr"]) if c["corr"] is not None else None
            ops.append(dict(type="command", kind="C", name=c["name"], ts=c["ts"], dur=c["dur"], stream=c["stream"],
                            corr=c["corr"], rt=rt))
        for o in ops:
            o["end"] = o["ts"] + o["dur"]
            o["launch_end"] = o["rt"][2] if o["rt"] is not None else None
            o["key"] = (corr_key(o["corr"]), o["ts"])
            o["pred"] = None
            o["ready"] = None          # when its stream predecessor and every wait before it were done
        self.ops = ops
        self.t0 = min(o["ts"] for o in ops)
        self.kernels = sorted((o for o in ops if o["kind"] == "K"),
                              key=lambda o: (o["ts"], o["corr"] if isinstance(o["corr"], int) else -1))
        per_stream = collections.defaultdict(list)
        for o in ops:
            if o["stream"] is not None:
                per_stream[o["stream"]].append(o)
        for items in per_stream.values():
            items.sort(key=lambda o: (o["ts"], o["corr"] if o["corr"] is not None else -1))
            for i, o in enumerate(items):
                o["pred"] = items[i - 1] if i else None
                o["ready"] = items[i - 1]["end"] if i else None
        self.per_stream = dict(per_stream)
        self.starts = {s: [o["ts"] for o in items] for s, items in per_stream.items()}
        self.waits, self.waits_note = self._waits(cap)
        self.idle = self._idle()
        self.stalls, self.idle_kinds = self._stalls()
        ends = sorted(s["end_ns"] for s in self.stalls)
        self._stall_ends = ends
        self._stall_cum = [0]
        for s in sorted(self.stalls, key=lambda s: s["end_ns"]):
            self._stall_cum.append(self._stall_cum[-1] + s["length_ns"])

    def _waits(self, cap):
        """The cross-stream waits as kineto2gdt places its barriers (recorded 'Stream Wait
        Event's, or rebuilt from the call order when the capture has none): each op behind
        a barrier gets ready = max(its stream predecessor's end, the end of the awaited op
        (through chained barriers), the end of the op before the barrier on its stream)."""
        try:
            recorded, unlinked = kineto2gdt.rebuild_waits(cap, self.per_stream, self.device)
            placed = kineto2gdt.place_barriers(cap, self.per_stream, self.device)
        except (AttributeError, TypeError, KeyError, IndexError) as e:   # the converter's internals changed
            return 0, "cross-stream waits unknown (kineto2gdt.place_barriers: %s): stream order only" % e
        # (a timed wait after a barrier stands for work the capture does not show: its
        # packet's hold stays a stall here)
        barriers = sorted((b for bs in placed.values() for b in bs if b["type"] == "barrier"),
                          key=lambda b: (b["corr"] if isinstance(b["corr"], int) else -1))
        ready = {}
        n = 0
        for b in barriers:     # a barrier depends only on ops or on barriers of earlier calls
            dep = b["dep"]
            t = ready.get(id(dep), 0) if dep.get("type") == "barrier" else dep["ts"] + dep["dur"]
            items = self.per_stream[b["stream"]]
            if 0 < b["pos"] <= len(items):
                t = max(t, items[b["pos"] - 1]["end"])
            ready[id(b)] = t
            if b["pos"] < len(items):
                o = items[b["pos"]]
                o["ready"] = t if o["ready"] is None else max(o["ready"], t)
                o.setdefault("waits_on", []).append(dep.get("name", "(a barrier)"))
                n += 1
        return n, ("%d cross-stream wait(s) %s" % (
            n, ("recorded (cuda_sync 'Stream Wait Event'%s)" % (
                ", their record calls rebuilt from the call order" if unlinked else "")) if recorded else
            "rebuilt from the call order"))

    def _idle(self):
        """The intervals where no kernel or copy of the device ran (all streams)."""
        idle, end = [], None
        for s, e in sorted((o["ts"], o["end"]) for o in self.ops):
            if end is not None and s > end:
                idle.append((end, s))
            end = e if end is None else max(end, e)
        return idle

    def _stalls(self):
        """Idle intervals (a, b) longer than stall_ns during which some op that started at
        or after b had been submitted (its launch call ended at or before a) and was ready
        (its stream predecessor and the ops it waited for had ended at or before a). Only
        the first op of each stream at or after b can be: a later one's predecessor ended
        after b. Returns (stalls, counts of the long idle intervals by kind)."""
        stalls = []
        kinds = collections.Counter()
        for a, b in self.idle:
            if b - a <= self.stall_ns:
                continue
            cands, submitted = [], False
            nxt = None
            for s, items in self.per_stream.items():
                i = bisect.bisect_left(self.starts[s], b)
                if i == len(items):
                    continue
                o = items[i]
                if o["ts"] == b and (nxt is None or str(s) < str(nxt["stream"])):
                    nxt = o
                if o["launch_end"] is None or o["launch_end"] > a:
                    continue
                submitted = True
                if o["ready"] is None or o["ready"] <= a:
                    cands.append(o)
            if not cands:
                kinds["waiting on another stream" if submitted else "host (nothing submitted yet)"] += 1
                continue
            kinds["unexplained stall"] += 1
            o = min(cands, key=lambda o: (o["ts"], str(o["stream"])))
            stalls.append(dict(start_ns=a, end_ns=b, length_ns=b - a, stream=o["stream"], op=o["name"],
                               op_kind=o["kind"], op_start_ns=o["ts"], submitted_ns=o["launch_end"],
                               next_op=nxt["name"] if nxt is not None else None,
                               next_stream=nxt["stream"] if nxt is not None else None))
        return stalls, kinds

    def stall_before(self, t):
        """Total length of the unexplained stalls that ended at or before t."""
        return self._stall_cum[bisect.bisect_right(self._stall_ends, t)]


# --------------------------------------------------------------------------------------
# Replay against the timeline

def row_key(row):
    return (int(row["source_id"]) if row["source_id"] else None,
            int(D(row["measured_start_ns"])) if row["measured_start_ns"] else None)


def spread_floor(gaps, key):
    """The gaps' own spread: sorted |measured - the median of the measured gaps with the
    same key| (the upper median, in exact arithmetic). It is the error left by the best
    single value per key fitted to these very gaps (a median minimises the absolute
    error), the floor below which no model that gives every gap of a key the same
    value can go: key = stream or graph launch (the classes of a queued K->K gap), or
    that and the two kernels' names."""
    by = collections.defaultdict(list)
    for g in gaps:
        by[key(g)].append(g["measured"])
    med = {k: sorted(v)[len(v) // 2] for k, v in by.items()}
    return sorted(abs(g["measured"] - med[key(g)]) for g in gaps)


def evaluate(tl, rows, split=None, queued_ns=QUEUED_US * 1000, capture_kernels=None, fitted_kernels=None):
    """The figures of one replay (its kernels CSV rows) against the timeline, on the
    evaluated kernels: all, or with split those of index >= ceil(split * n) in
    measured-start order. Occupancy and 'each exactly once' are over all kernels.
    fitted_kernels: the calibration's window, its first fitted_kernels kernels by start
    (calibrate.fit's first_fraction); evaluated kernels inside it are counted (held
    out: none, since both cut at ceil(F x n))."""
    capture_kernels = capture_kernels if capture_kernels is not None else [
        (k["corr"], k["ts"], k["dur"], k["est"]) for k in tl.kernels]
    want = {}
    for corr, ts, dur, est in capture_kernels:
        want.setdefault((corr, ts), []).append((dur, est))
    seen = collections.Counter(row_key(r) for r in rows)
    missing = sum(len(v) for k, v in want.items()) - sum(min(len(v), seen.get(k, 0)) for k, v in want.items())
    extra = sum(n - len(want.get(k, ())) for k, n in seen.items() if n > len(want.get(k, ())))
    compared = equal = 0
    for row in rows:
        recs = want.get(row_key(row))
        if recs and recs[0][1] is not None:
            compared += 1
            equal += int(row["kineto_est_occupancy_pct"]) == int(D(recs[0][1]))
    by_key = {}
    for row in rows:
        by_key.setdefault(row_key(row), row)

    n = len(tl.kernels)
    cut = split_index(n, split)
    evaluated = tl.kernels[cut:]
    ev = dict(mode="held-out" if split is not None else "in-sample", split=split, kernels=n, first_index=cut,
              evaluated=len(evaluated),
              start_ns=evaluated[0]["ts"] if evaluated else None)
    if fitted_kernels is not None and split is not None:
        # calibrate.fit fits on the first fitted_kernels kernels (and the copies before
        # the next one): the same cut as here unless the two orders differ
        ev.update(calibration_kernels=fitted_kernels,
                  evaluated_in_calibration=max(0, fitted_kernels - cut))

    # (a) gap error on queued kernels
    gaps, not_replayed = [], 0
    for k in evaluated:
        p = k["pred"]
        if p is None or p["kind"] != "K" or k["launch_end"] is None or k["launch_end"] > p["end"] - queued_ns:
            continue
        rk, rp = by_key.get(k["key"]), by_key.get(p["key"])
        if rk is None or rp is None:
            not_replayed += 1
            continue
        meas = k["ts"] - p["end"]
        rep = D(rk["first_cta_ns"]) - D(rp["end_ns"])
        graph = k["rt"] is not None and k["rt"][0] in kineto2gdt.GRAPH_LAUNCH_APIS
        gaps.append(dict(err=abs(rep - meas), measured=meas, replayed=rep, stream=k["stream"], name=k["name"],
                         start_ns=k["ts"], stall=tl.stall_before(k["ts"]) != tl.stall_before(p["end"]),
                         graph=graph, pair=(graph, p["name"], k["name"])))
    gerr = sorted(g["err"] for g in gaps)
    floor_class, floor_pair = spread_floor(gaps, lambda g: g["graph"]), spread_floor(gaps, lambda g: g["pair"])

    # (c) start error, and with the unexplained stalls taken out of the measured timeline
    errs, errs_ex = [], []
    for k in evaluated:
        row = by_key.get(k["key"])
        if row is None:
            continue
        f = D(row["first_cta_ns"])
        errs.append(abs(f - k["ts"]))
        errs_ex.append(abs(f - (k["ts"] - tl.stall_before(k["ts"]))))
    errs.sort()
    errs_ex.sort()

    # (b) span
    if split is None:
        m_first = min(ts for _, ts, _, _ in capture_kernels)
        m_last = max(ts + dur for _, ts, dur, _ in capture_kernels)
        spanned = rows
    else:
        m_first = min((k["ts"] for k in evaluated), default=0)
        m_last = max((k["end"] for k in evaluated), default=0)
        spanned = [by_key[k["key"]] for k in evaluated if k["key"] in by_key]
    span_meas = D(m_last - m_first)
    span_rep = (max(D(r["end_ns"]) for r in spanned) - min(D(r["first_cta_ns"]) for r in spanned)) \
        if spanned else D(0)

    f = lambda x: float(x) if x is not None else None  # noqa: E731
    return dict(
        evaluation=ev,
        kernels_capture=len(capture_kernels), kernels_replayed=len(rows), missing=missing, extra=extra,
        occupancy_compared=compared, occupancy_equal=equal,
        gap_err_count=len(gaps), gap_err_median_ns=f(pct(gerr, 50)), gap_err_p90_ns=f(pct(gerr, 90)),
        gap_err_max_ns=f(gerr[-1]) if gerr else None, gap_err_not_replayed=not_replayed,
        gap_err_across_stall=sum(g["stall"] for g in gaps),
        gap_err_over_1us=sum(g["err"] > 1000 for g in gaps),
        gap_floor_median_ns=f(pct(floor_class, 50)), gap_floor_p90_ns=f(pct(floor_class, 90)),
        gap_floor_pair_median_ns=f(pct(floor_pair, 50)), gap_floor_pair_p90_ns=f(pct(floor_pair, 90)),
        gap_floor_pairs=len(set(g["pair"] for g in gaps)),
        start_err_median_ns=f(pct(errs, 50)), start_err_p90_ns=f(pct(errs, 90)),
        start_err_max_ns=f(errs[-1]) if errs else None,
        start_err_ex_stalls_median_ns=f(pct(errs_ex, 50)), start_err_ex_stalls_p90_ns=f(pct(errs_ex, 90)),
        start_err_ex_stalls_max_ns=f(errs_ex[-1]) if errs_ex else None,
        span_measured_ns=float(span_meas), span_replayed_ns=float(span_rep),
        span_rel_err=float((span_rep - span_meas) / span_meas) if span_meas else None,
        span_start_ns=m_first, span_end_ns=m_last)


def stall_summary(tl, start, end, span_ns):
    """The unexplained stalls inside [start, end] (the evaluated span)."""
    inside = [s for s in tl.stalls if s["start_ns"] >= start and s["end_ns"] <= end]
    total = sum(s["length_ns"] for s in inside)
    largest = sorted(inside, key=lambda s: (-s["length_ns"], s["start_ns"]))[:LARGEST]
    return dict(threshold_ns=tl.stall_ns, count=len(inside), total_ns=total,
                share=float(D(total) / D(span_ns)) if span_ns else None,
                whole_capture_count=len(tl.stalls), whole_capture_total_ns=sum(s["length_ns"] for s in tl.stalls),
                idle_over_threshold=dict(tl.idle_kinds), waits=tl.waits_note, t0_ns=tl.t0,
                largest=[dict(s, at_ns=s["start_ns"] - tl.t0) for s in largest])


def convert_has_calibrate():
    try:
        return "calibrate" in inspect.signature(kineto2gdt.convert).parameters
    except (TypeError, ValueError):
        return False


def replay(capture, trace, kcsv, sjson, preset, sets, device, gdsim, infer_waits, calibrate, log):
    kw = {}
    if convert_has_calibrate():
        kw["calibrate"] = None if calibrate is None else float(calibrate)
    elif calibrate is not None:
        raise kineto2gdt.ConvertError(
            "this kineto2gdt.convert() has no calibrate parameter yet (issue 15): calibration is not available; "
            "run with --no-calibrate (the preset alone)")
    conv = kineto2gdt.convert(capture, trace, device_id=device, log=log, infer=infer_waits, **kw)
    cmd = [gdsim, "replay", trace, "--quiet", "--absolute-times", "--kernels-csv", kcsv, "--summary-json", sjson]
    if preset:
        cmd += ["--preset", preset]
    for kv in sets:
        cmd += ["--set", kv]
    try:
        r = subprocess.run(cmd, capture_output=True, text=True, errors="replace")
    except OSError as e:
        raise kineto2gdt.ConvertError("--gdsim %s: cannot run: %s" % (gdsim, e.strerror or e))
    if r.returncode != 0:
        lines = r.stderr.strip().splitlines()
        raise kineto2gdt.ConvertError("--gdsim %s: the replay failed (exit %d)%s" % (
            gdsim, r.returncode, ": " + lines[-1] if lines else ", saying nothing"))
    with open(kcsv, newline="") as f:
        rows = list(csv.DictReader(f))
    try:
        with open(sjson) as f:
            config = json.load(f).get("config", {})
    except (OSError, ValueError):
        config = {}
    gap_keys = {k: v for k, v in config.items() if k in gdtrace.CALIBRATION_KEYS}
    return conv, rows, gap_keys


def validate(capture, preset=None, sets=(), device=None, gdsim=None, keep=None, infer_waits=False,
             calibrate=None, split=None, beside=False, queued_us=QUEUED_US, stall_us=STALL_US, timeline=None):
    """Convert and replay the capture and compare with what the GPU did; returns the
    figures as a dict (docs/VALIDATION.md). calibrate: None (the preset alone, no
    calibration record: the default here, as before) or the fraction f of the capture the
    converter fits the launch gaps on (kineto2gdt.convert(calibrate=f); the CLI's default
    is 1.0, or F with --split F); split: evaluate only the kernels of index >=
    ceil(split x n) by measured start (with calibrate=split they are held out); beside:
    also replay with the preset alone, its figures under 'preset_alone'; timeline: a
    Timeline of the capture to reuse. The unexplained stalls ('stalls') are from the
    capture alone."""
    if split is not None:
        fraction(split, "--split")
    if calibrate is not None:
        fraction(calibrate, "calibrate", closed=True)
    keep = keep or None  # --keep "" is no folder to keep: work in a temporary one, removed below
    work = keep or tempfile.mkdtemp(prefix="gdsim-validate-")
    os.makedirs(work, exist_ok=True)
    base = os.path.basename(capture).split(".json")[0]
    gdsim = gdsim or os.path.join(HERE, "..", "build", "gdsim")
    try:
        if not os.path.exists(gdsim):
            raise kineto2gdt.ConvertError("%s not found: build it with `make` (or give --gdsim)" % gdsim)
        runs = [("", calibrate)] + ([(".preset", None)] if beside and calibrate is not None else [])
        results = []
        for suffix, cal in runs:
            trace = os.path.join(work, base + suffix + ".gdt.gz")
            for name in (trace, trace[:-7] + ".kernels.csv", trace[:-7] + ".summary.json"):
                # names this script chose in --keep's folder: never the capture, and a link
                # planted there is replaced, never followed
                if os.path.lexists(name) and os.path.exists(name) and os.path.samefile(name, capture):
                    raise kineto2gdt.ConvertError("%s: is the capture (--keep %s); refusing to overwrite it" %
                                                  (name, keep))
                if os.path.islink(name):
                    os.unlink(name)
            log = io.StringIO()
            conv, rows, gap_keys = replay(capture, trace, os.path.join(work, base + suffix + ".kernels.csv"),
                                          os.path.join(work, base + suffix + ".summary.json"), preset, sets,
                                          device, gdsim, infer_waits, cal, log)
            results.append((trace, log, conv, rows, gap_keys, cal))
    finally:
        if keep is None:
            shutil.rmtree(work, ignore_errors=True)
    tl = timeline or Timeline(capture, results[0][2]["device_id"], int(D(str(stall_us)) * 1000))
    out = None
    for trace, log, conv, rows, gap_keys, cal in results:
        v = dict(capture=capture, preset=preset or "trace", device=conv["device_id"],
                 trace=trace if keep is not None else None,
                 infer_waits=bool(infer_waits), inferred_barriers=conv["inferred_barriers"],
                 wait_commands=conv["wait_commands"], calibrate=float(cal) if cal is not None else None,
                 replay_gap_keys=gap_keys, queued_ns=int(D(str(queued_us)) * 1000),
                 converter_report=log.getvalue())
        fitted = conv.get("calibration")
        v["calibration"] = None if not fitted else {k: fitted.get(k) for k in (
            "provenance", "keys", "omitted", "gaps", "ops", "ops_fitted", "kernels", "kernels_fitted",
            "first_fraction")}
        v.update(evaluate(tl, rows, split, v["queued_ns"], conv["capture_kernels"],
                          fitted.get("kernels_fitted") if fitted else None))
        if out is None:
            out = v
        else:
            out["preset_alone"] = v
    out["stalls"] = stall_summary(tl, out["span_start_ns"], out["span_end_ns"], out["span_measured_ns"])
    return out


# --------------------------------------------------------------------------------------
# Report

def us(ns):
    return "-" if ns is None else "%.3f us" % (ns / 1000)


def describe(v):
    ev = v["evaluation"]
    if ev["mode"] == "held-out":
        what = "held-out second part (split %s): %s" % (
            ev["split"], "kernels %d-%d of %d by measured start (%d)" % (
                ev["first_index"], ev["kernels"] - 1, ev["kernels"], ev["evaluated"]) if ev["evaluated"] else
            "none of the %d kernels is held out" % ev["kernels"])
    else:
        what = "all %d kernels" % ev["kernels"]
    if ev.get("evaluated_in_calibration"):
        what += " (WARNING: %d of them inside the calibration's window, its first %d kernels)" % (
            ev["evaluated_in_calibration"], ev["calibration_kernels"])
    if v["calibrate"] is None:
        return what + "; preset alone (no calibration record)"
    if ev["mode"] == "held-out":
        return what + "; launch gaps calibrated on the first %s of the capture" % v["calibrate"]
    return what + "; IN-SAMPLE: launch gaps calibrated on the same capture (calibrate=%s)" % v["calibrate"]


def lines(v):
    """The per-replay figures as (label, text)."""
    out = []
    once = "each exactly once" if not v["missing"] and not v["extra"] else "%d missing, %d extra" % (
        v["missing"], v["extra"])
    out.append(("kernels", "%d in the capture, %d replayed: %s" % (v["kernels_capture"], v["kernels_replayed"],
                                                                    once)))
    if v["occupancy_compared"]:
        out.append(("occupancy agreement", "%d of %d (%.2f %%): kineto_est_occupancy_pct = the recorded est. "
                    "achieved occupancy %%" % (v["occupancy_equal"], v["occupancy_compared"],
                                               100.0 * v["occupancy_equal"] / v["occupancy_compared"])))
    else:
        out.append(("occupancy agreement", "n/a (the capture records no est. achieved occupancy)"))
    if v["gap_err_count"]:
        out.append(("gap error, queued K->K", "median %s, p90 %s, max %s over %d gaps (%d over 1 us, %d across a "
                    "stall)" % (us(v["gap_err_median_ns"]), us(v["gap_err_p90_ns"]), us(v["gap_err_max_ns"]),
                                v["gap_err_count"], v["gap_err_over_1us"], v["gap_err_across_stall"])))
        out.append(("  the gaps' own spread", "median %s, p90 %s with one value per launch kind fitted to "
                    "them; %s, %s with one per kernel-name pair (%d)" % (
                        us(v["gap_floor_median_ns"]), us(v["gap_floor_p90_ns"]), us(v["gap_floor_pair_median_ns"]),
                        us(v["gap_floor_pair_p90_ns"]), v["gap_floor_pairs"])))
    else:
        out.append(("gap error, queued K->K", "n/a (no kernel queued behind a kernel)"))
    if v["start_err_median_ns"] is None:
        out.append(("|first CTA - start|", "n/a (no kernel evaluated)"))
    else:
        out.append(("|first CTA - start|", "median %.3f us, p90 %.3f us, max %.3f us" % (
            v["start_err_median_ns"] / 1000, v["start_err_p90_ns"] / 1000, v["start_err_max_ns"] / 1000)))
        out.append(("  stalls taken out", "median %.3f us, p90 %.3f us, max %.3f us" % (
            v["start_err_ex_stalls_median_ns"] / 1000, v["start_err_ex_stalls_p90_ns"] / 1000,
            v["start_err_ex_stalls_max_ns"] / 1000)))
    out.append(("span", "measured %.3f us, replayed %.3f us: %s" % (
        v["span_measured_ns"] / 1000, v["span_replayed_ns"] / 1000,
        "%+.4f %%" % (100.0 * v["span_rel_err"]) if v["span_rel_err"] is not None else "n/a")))
    c = v.get("calibration")
    if v["calibrate"] is None:
        out.append(("calibration", "none: the preset alone"))
    else:
        out.append(("calibration", "no record: no gap class had enough clean gaps, the preset's gaps apply"
                    if c is None else "%s; %s%s" % (c["provenance"], ", ".join(
                        "%s %s" % (GAP_NAMES.get(k, k), x) for k, x in c["keys"].items()),
                        "" if not v["replay_gap_keys"] or all(str(v["replay_gap_keys"].get(k)) == str(x)
                                                              for k, x in c["keys"].items())
                        else " (NOT what the replay used: gpu.preset=trace applies the record)")))
    if v["replay_gap_keys"]:
        out.append(("launch keys replayed", ", ".join("%s %s" % (GAP_NAMES.get(k, k), x)
                                                       for k, x in sorted(v["replay_gap_keys"].items(),
                                                                          key=lambda kv: GAP_ORDER(kv[0])))))
    return out


GAP_NAMES = {"pp.gap_kernel_kernel_ns": "K->K", "pp.gap_kernel_copy_ns": "K->C", "pp.gap_copy_kernel_ns": "C->K",
             "pp.gap_copy_copy_ns": "C->C", "pp.gap_graph_kernel_kernel_ns": "graph K->K",
             "pp.gap_graph_kernel_copy_ns": "graph K->C", "pp.gap_graph_copy_kernel_ns": "graph C->K",
             "pp.gap_graph_copy_copy_ns": "graph C->C", "pp.gap_after_wait_ns": "after wait",
             "pp.gap_programmatic_lead_ns": "programmatic lead", "pp.idle_launch_ns": "idle launch"}


def GAP_ORDER(key):
    return (list(GAP_NAMES).index(key) if key in GAP_NAMES else len(GAP_NAMES), key)


def report(v, out=sys.stdout):
    p = lambda *a: print(*a, file=out)  # noqa: E731
    p("validate: %s on preset %s (device %s)%s" % (
        v["capture"], v["preset"], v["device"],
        ", inferred %d waits on other streams and %d outside the capture" % (
            v["inferred_barriers"], v["wait_commands"]) if v["infer_waits"] else ""))
    p("  figures on              %s" % describe(v))
    runs = [("calibrated" if v["calibrate"] is not None else "", v)]
    if v.get("preset_alone"):
        runs.append(("preset alone", v["preset_alone"]))
    per = [dict(lines(r)) for _, r in runs]
    labels = [label for label, _ in lines(v)]
    labels += [label for r in per[1:] for label in r if label not in labels]
    tag = max(len(t) for t, _ in runs)
    for label in labels:
        first = True
        for j, (t, _) in enumerate(runs):
            if label not in per[j]:
                continue
            text = "the same" if j and per[j][label] == per[0].get(label) else per[j][label]
            p("  %-24s%s%s" % (label if first else "", ("%-*s  " % (tag, t)) if len(runs) > 1 else "", text))
            first = False
    s = v["stalls"]
    idle = ", ".join("%d %s" % (n, k) for k, n in sorted(s["idle_over_threshold"].items()))
    p("  unexplained stalls      %d (GPU idle > %s with an op submitted and ready), %s in all, %.3f %% of the "
      "measured span; whole capture %d, %s" % (
          s["count"], us(s["threshold_ns"]), us(s["total_ns"]), 100.0 * (s["share"] or 0.0),
          s["whole_capture_count"], us(s["whole_capture_total_ns"])))
    p("                          whole capture, idle > %s: %s; %s" % (us(s["threshold_ns"]), idle or "none",
                                                                     s["waits"]))
    for st in s["largest"]:
        name = st["op"] if len(st["op"]) <= 60 else st["op"][:57] + "..."
        p("      at %12.3f us  %10s  stream %-4s %s %s" % (
            st["at_ns"] / 1000, us(st["length_ns"]), st["stream"], st["op_kind"], name))


def main(argv=None):
    ap = gdtrace.ArgumentParser(description=__doc__.split("\n\n")[0],
                                 epilog="See docs/VALIDATION.md for the metrics and the results on the shared "
                                        "captures.")
    ap.add_argument("capture", help="Kineto Chrome-trace JSON (.json or .json.gz)")
    ap.add_argument("--split", type=float, metavar="F",
                    help="calibrate on the first F of the kernels (by measured start) and report on the rest only "
                         "(held out); default: calibrate on the whole capture and report on it (in-sample)")
    ap.add_argument("--no-calibrate", action="store_true",
                    help="the preset alone: no calibration record in the converted trace")
    ap.add_argument("--preset", help="gdsim preset (default: trace, the capture's own device)")
    ap.add_argument("--set", action="append", default=[], metavar="KEY=VALUE", help="a gdsim configuration key")
    ap.add_argument("--device", type=int, help="GPU of the capture to convert (default: the one with most kernels)")
    ap.add_argument("--gdsim", help="gdsim binary (default: build/gdsim of this checkout)")
    ap.add_argument("--keep", metavar="DIR", help="keep the converted traces, kernel CSVs and summaries in DIR")
    ap.add_argument("--infer-waits", action="store_true", help="convert with kineto2gdt.py --infer-waits")
    ap.add_argument("--queued-us", type=gdtrace.number(0, 1e9), default=QUEUED_US,
                    help="gap error: a kernel is queued when its launch call ended this long before the end of the "
                         "kernel before it on its stream (default %(default)s)")
    ap.add_argument("--stall-us", type=gdtrace.number(0, 1e9), default=STALL_US,
                    help="unexplained stalls: GPU idle longer than this (default %(default)s)")
    ap.add_argument("--json", action="store_true", help="print the results as JSON")
    a = ap.parse_args(argv)
    try:
        if a.split is not None:
            fraction(a.split, "--split")
        cal = None if a.no_calibrate else (a.split if a.split is not None else 1.0)
        v = validate(a.capture, a.preset, a.set, a.device, a.gdsim, a.keep, a.infer_waits, calibrate=cal,
                     split=a.split, beside=cal is not None, queued_us=a.queued_us, stall_us=a.stall_us)
    except (kineto2gdt.ConvertError, OSError, ValueError) as e:
        print("validate: error: %s" % e, file=sys.stderr)
        return 1
    if a.json:
        v = dict(v)
        del v["converter_report"]
        if v.get("preset_alone"):
            v["preset_alone"] = {k: x for k, x in v["preset_alone"].items() if k != "converter_report"}
        print(json.dumps(v, indent=2, sort_keys=True, default=str))
    else:
        report(v)
    # the comparison means nothing unless the replay ran every kernel of the capture once
    if not v["kernels_replayed"] or v["missing"] or v["extra"]:
        print("validate: error: %d kernel(s) of the capture replayed of %d (%d not replayed, %d extra): the figures "
              "above compare different work" % (v["kernels_replayed"], v["kernels_capture"], v["missing"],
                                                 v["extra"]), file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(gdtrace.run_main(main))
