#!/usr/bin/env python3
"""Launch timing from a PyTorch-profiler capture: the pp.gap_* keys (ns) of the launch-gap
model (issue 15) and the idle launch latency pp.idle_launch_ns, fitted to the GPU's own
timestamps (docs/KINETO.md, 'Calibration record').

  calibrate.py CAPTURE.json[.gz] [--device ID] [--first-fraction F] [--queued-ns N]
               [--wait-ns N] [--min-samples N] [--by-grid] [-o FILE]

A gap is the time from the end of a packet (kernel, or copy: memcpy/memset) to the
start of the next packet of its stream. It is a *clean busy-queue gap*, one the fit
uses, when
  - the successor was waiting in its queue: its launch call (the runtime event of
    its correlation id) ended at least --queued-ns (5000) before its release, the
    predecessor's end (after a wait: the awaited packet's end, below);
  - the gap is at most --wait-ns (20000): longer ones are waits for something else
    (the host, another stream, another GPU);
  - no packet of another stream of the device ran at any time during the gap: the
    model reproduces contention itself, so it must not be fitted.
The gaps fall into classes by the kinds of predecessor and successor (K kernel, C copy)
and by how the successor was launched (a stream launch, or a graph launch:
cudaGraphLaunch, cuGraphLaunch, hipGraphLaunch), one key each
(pp.gap_kernel_kernel_ns ... pp.gap_graph_copy_copy_ns). The after-wait class
(pp.gap_after_wait_ns): the successor's stream has a recorded cross-stream wait
(cuda_sync 'Stream Wait Event') between the two in call order (correlation ids), and
the awaited packet (the last packet of the awaited stream issued before the awaited
event record, as kineto2gdt.place_barriers finds it) ended after the predecessor: the
gap then runs from the awaited packet's end, under the same three conditions. A wait
that held nothing leaves its pair in the class of its kinds.

A class's value is the median of its gaps (robust against the outliers the conditions
let through), rounded half up to the nearest ns, at least 0 (gaps below 0, from
timestamps rounded to the us, are kept: they are small gaps). A class with fewer than
--min-samples (5) gaps is omitted: the preset's value applies. --first-fraction F
(0 < F <= 1, for cross-validation) counts only the gaps whose successor is among the
first ceil(F x n) of the device's n kernels by start time (then correlation id), or is
a copy that started before the first kernel left out: validate.py --split F holds out
exactly the other kernels.

The idle launch latency (pp.idle_launch_ns, format 1.12): the median of start - end
of the launch call over the packets of the first fraction launched onto an idle stream
(their stream had finished everything before them when the call ended;
kineto2gdt.idle_launches), stream launches only (a graph's kernels start after its own
set-up, or before the call returns), none that a recorded cross-stream wait held (its
awaited packet ended after the call: as for the gaps); omitted with fewer than --min-samples such
launches, or when the median is not above 0 (the packets started before their calls
ended: a clock offset, not a latency).

It prints a table (class, key, gaps, p10 / median / p90, value; the idle launch
latency's row counts launches) and with --by-grid the K->K gaps by
the successor's and the predecessor's CTA count; -o FILE writes the fitted keys in
gdsim's --config syntax (`gdsim replay TRACE --config FILE`) under a comment saying
where they come from. `kineto2gdt.py --calibrate` embeds the same fit in the trace
(format 1.9 calibration record). Library use: fit(capture, ...) returns the fit as a
dict. --clock-mhz (the older derivation's) is accepted and ignored: keys are in ns.
Python 3 standard library only."""
import argparse
import bisect
import collections
import fractions
import math
import os
import sys
import textwrap

sys.path.insert(0, os.path.dirname(os.path.realpath(__file__)))
import gdtrace  # noqa: E402
import kineto2gdt  # noqa: E402

# (class, key): the predecessor and successor kinds, "graph" when the successor came
# from a graph launch; in gdtrace.GAP_KEYS order.
CLASSES = (("K->K", "pp.gap_kernel_kernel_ns"), ("K->C", "pp.gap_kernel_copy_ns"),
           ("C->K", "pp.gap_copy_kernel_ns"), ("C->C", "pp.gap_copy_copy_ns"),
           ("graph K->K", "pp.gap_graph_kernel_kernel_ns"), ("graph K->C", "pp.gap_graph_kernel_copy_ns"),
           ("graph C->K", "pp.gap_graph_copy_kernel_ns"), ("graph C->C", "pp.gap_graph_copy_copy_ns"),
           ("after wait", "pp.gap_after_wait_ns"), ("programmatic lead", "pp.gap_programmatic_lead_ns"))
assert tuple(k for _, k in CLASSES) == gdtrace.GAP_KEYS
# Why a gap was left out (fit()["excluded"]).
NOT_QUEUED = "successor not queued (launch call ended less than queued-ns before the release)"
NO_LAUNCH = "successor without a launch call in the capture"
TOO_LONG = "gap longer than wait-ns (a wait for something else)"
CONTENDED = "a packet of another stream ran during the gap"
LATER = "successor outside the first fraction"


def pct(v, p):
    """The p-th percentile of the sorted list v (the element at index floor(n p / 100))."""
    return v[min(len(v) - 1, len(v) * p // 100)] if v else None


def _corr(x):
    return x if isinstance(x, int) else -1


def _ctas(kernel):
    """A kernel event's CTA count (its grid's product), None without a usable grid."""
    g = kernel.get("grid")
    try:
        return int(g[0]) * int(g[1]) * int(g[2])
    except (TypeError, ValueError, IndexError):
        return None


def _one_line(s):
    return "".join(c if c.isprintable() else "?" for c in s)


class _Busy:
    """Per stream, the packets' start times in order and the running maximum of their
    ends: whether a packet of another stream ran at any time during an interval."""

    def __init__(self, ops):
        by_stream = collections.defaultdict(list)
        for o in ops:
            by_stream[o["stream"]].append((o["ts"], o["end"]))
        self.streams = {}
        for s, v in by_stream.items():
            v.sort()
            ends, m = [], None
            for _, e in v:
                m = e if m is None else max(m, e)
                ends.append(m)
            self.streams[s] = ([t for t, _ in v], ends)

    def other_ran(self, stream, start, end):
        """A packet of a stream other than `stream` started before `end` and ended after
        `start` (for start == end: one ran across that instant)."""
        for s, (starts, ends) in self.streams.items():
            if s == stream:
                continue
            j = bisect.bisect_left(starts, end) - 1
            if j >= 0 and ends[j] > start:
                return True
        return False


def _awaited(cap, per_stream, device):
    """The recorded cross-stream waits of the device as {stream: [(wait corr, awaited
    packet)]} in call order: the awaited packet is the last packet of the awaited stream
    issued before the awaited event record (kineto2gdt.place_barriers' rule, without
    following barriers of the awaited stream). Waits rebuilt from cudaStreamWaitEvent
    calls (kineto2gdt.resolve_wait_calls, when the converter ran first) are not used:
    they are inferred from these very gaps."""
    last_before = {}
    for s, ops in per_stream.items():
        suffix_min, m = [0] * len(ops), float("inf")
        for i in range(len(ops) - 1, -1, -1):
            m = min(m, _corr(ops[i]["corr"]))
            suffix_min[i] = m
        last_before[s] = suffix_min
    out = collections.defaultdict(list)
    for wt in cap.waits:
        if wt.get("from_call") or (wt["device"] is not None and wt["device"] != device):
            continue
        s, src, rec, corr = wt["stream"], wt["wait_stream"], wt["record"], wt["corr"]
        if not isinstance(rec, int) or rec < 0 or not isinstance(corr, int) or src == s or src not in per_stream:
            continue
        j = bisect.bisect_left(last_before[src], rec) - 1
        if j >= 0:
            out[s].append((corr, per_stream[src][j]))
    for v in out.values():
        v.sort(key=lambda x: x[0])
    return out


def fit(capture, device=None, first_fraction=None, queued_ns=5000, wait_ns=20000, min_samples=5):
    """Fit the launch-gap keys to a capture: a path (.json or .json.gz) or a
    kineto2gdt.Capture already collected (kineto2gdt.collect; the converter passes its
    own). Raises kineto2gdt.ConvertError when the capture has no kernels (on the
    device). Returns a dict:
      keys        {key: ns} of the fitted classes, in gdtrace.CALIBRATION_KEYS order;
      classes     {key: dict(name, samples, p10, median, p90, value)} of every class
                  (None where it has no gap; value None when omitted);
      omitted     {key: why} of the classes with fewer than min_samples gaps;
      gaps        clean gaps in the fitted classes; excluded: {why: count};
      device, capture (basename), ops (kernels and copies of the device),
      ops_fitted (those in the fitted window), kernels, kernels_fitted (the first
      ceil(F x kernels) by start), first_fraction, by_grid ({(class, side): {log2 CTAs:
      sorted gaps}} for the two K->K classes, side "successor" or "predecessor");
      provenance  one line for the calibration record and the -o file's header."""
    if first_fraction is not None and not 0 < first_fraction <= 1:
        raise kineto2gdt.ConvertError("the first fraction must be in (0, 1], not %s" % first_fraction)
    cap = kineto2gdt.collect(capture, None) if isinstance(capture, (str, bytes, os.PathLike)) else capture
    path = cap.path or "capture"
    by_device = collections.Counter(k["device"] for k in cap.kernels)
    if not by_device:
        raise kineto2gdt.ConvertError("%s: no kernel events (cat 'kernel') in the trace: nothing to calibrate" % path)
    if device is None:
        device = by_device.most_common(1)[0][0]
    elif device not in by_device:
        raise kineto2gdt.ConvertError("%s: no kernels on device %s (devices with kernels: %s)" % (
            path, device, ", ".join(str(d) for d in sorted(by_device, key=str))))
    kineto2gdt.align_clocks(cap, device)   # (the converter's own alignment when it passes cap)

    # The device's packets, as small dicts of our own (the capture's are left alone).
    ops = []
    for kind, events in (("K", cap.kernels), ("C", cap.commands)):
        for e in events:
            if e["device"] != device:
                continue
            rt = cap.runtime.get(e["corr"]) if e["corr"] is not None else None
            ops.append(dict(kind=kind, ts=e["ts"], dur=e["dur"], end=e["ts"] + e["dur"], stream=e["stream"],
                            corr=e["corr"], rt=rt, launch_end=rt[2] if rt is not None else None,
                            graph=rt is not None and rt[0] in kineto2gdt.GRAPH_LAUNCH_APIS,
                            pdl=rt is not None and rt[0] in kineto2gdt.PDL_LAUNCH_APIS,
                            ctas=_ctas(e) if kind == "K" else None))
    ops.sort(key=lambda o: (o["ts"], _corr(o["corr"]), o["end"], o["kind"], str(o["stream"])))
    # The fitted window: the first ceil(F x n) kernels by measured start (validate.py
    # --split F holds out exactly the others) and the copies that started before the
    # first kernel left out.
    kernels = [o for o in ops if o["kind"] == "K"]   # already in (start, correlation) order
    n_first = len(kernels) if first_fraction is None else math.ceil(
        fractions.Fraction(str(first_fraction)) * len(kernels))
    cut = (kernels[n_first]["ts"], _corr(kernels[n_first]["corr"])) if n_first < len(kernels) else None
    for i, o in enumerate(kernels):
        o["first"] = i < n_first
    for o in ops:
        if o["kind"] == "C":
            o["first"] = cut is None or (o["ts"], _corr(o["corr"])) < cut
    ops_fitted = sum(o["first"] for o in ops)
    busy = _Busy(ops)   # every packet of the device, with or without a stream
    per_stream = collections.defaultdict(list)
    for o in ops:
        if o["stream"] is not None:
            per_stream[o["stream"]].append(o)   # already in (start, correlation) order
    waits = _awaited(cap, per_stream, device)

    gaps = collections.defaultdict(list)
    excluded = collections.Counter()
    by_grid = collections.defaultdict(lambda: collections.defaultdict(list))
    for s, items in per_stream.items():
        wait_corrs = [c for c, _ in waits.get(s, [])]
        for prev, k in zip([None] + items[:-1], items):
            if prev is None:
                continue
            if not k["first"]:
                excluded[LATER] += 1
                continue
            if prev["kind"] == k["kind"] == "K" and k["pdl"] and k["ts"] < prev["end"]:
                # a programmatic dependent launch (kineto2gdt.programmatic_launches): how
                # long before its primary ended it started, not a gap
                gaps["programmatic lead"].append(prev["end"] - k["ts"])
                continue
            # a recorded wait between the two (in call order) whose packet ended later
            release, cls = prev["end"], ("graph " if k["graph"] else "") + prev["kind"] + "->" + k["kind"]
            lo = bisect.bisect_right(wait_corrs, _corr(prev["corr"]))
            hi = bisect.bisect_left(wait_corrs, _corr(k["corr"]))
            if not (isinstance(prev["corr"], int) and isinstance(k["corr"], int)):
                hi = lo   # no call order to place a wait in
            for _, dep in waits.get(s, [])[lo:hi]:
                if dep["end"] > release:
                    release, cls = dep["end"], "after wait"
            gap = k["ts"] - release
            if k["launch_end"] is None:
                excluded[NO_LAUNCH] += 1
            elif k["launch_end"] > release - queued_ns:
                excluded[NOT_QUEUED] += 1
            elif gap > wait_ns:
                excluded[TOO_LONG] += 1
            elif busy.other_ran(s, release, k["ts"]):
                excluded[CONTENDED] += 1
            else:
                gaps[cls].append(gap)
                if cls in ("K->K", "graph K->K") and k["ctas"] and prev["ctas"]:
                    by_grid[(cls, "successor")][k["ctas"].bit_length() - 1].append(gap)
                    by_grid[(cls, "predecessor")][prev["ctas"].bit_length() - 1].append(gap)

    keys, classes, omitted, used = {}, {}, {}, 0
    for name, key in CLASSES:
        v = sorted(gaps.get(name, []))
        c = dict(name=name, samples=len(v), p10=pct(v, 10), median=gdtrace.median_ns(v) if v else None, p90=pct(v, 90),
                 value=None)
        if len(v) >= min_samples:
            c["value"] = keys[key] = max(0, c["median"])
            used += len(v)
        else:
            omitted[key] = "%d < %d gaps: the preset's value applies" % (len(v), min_samples)
        classes[key] = c
    # The idle launch latency: launch-call end to start of the packets launched onto an
    # idle stream (kineto2gdt.idle_launches), stream launches only: a graph's kernels
    # start after its own set-up, or before the call returns.
    # A packet a recorded cross-stream wait held (its awaited packet ended after the
    # launch call) waited for that, not for the launch: left out, as from the gaps.
    prev_of = {id(k): prev for items in per_stream.values() for prev, k in zip([None] + items[:-1], items)}

    def held(o):
        if o["stream"] is None or not isinstance(o["corr"], int):
            return False
        prev = prev_of.get(id(o))
        wl = waits.get(o["stream"], [])
        lo = bisect.bisect_right([c for c, _ in wl], _corr(prev["corr"])) if prev is not None else 0
        hi = bisect.bisect_left([c for c, _ in wl], _corr(o["corr"]))
        return any(dep["end"] > o["launch_end"] for _, dep in wl[lo:hi])
    idle = sorted(gap for o, gap, graph in kineto2gdt.idle_launches(ops) if o["first"] and not graph and not held(o))
    c = dict(name="idle launch", samples=len(idle), p10=pct(idle, 10), median=gdtrace.median_ns(idle) if idle else None,
             p90=pct(idle, 90), value=None)
    if len(idle) < min_samples:
        omitted[gdtrace.IDLE_KEY] = "%d < %d stream launches onto an idle stream: the preset's stages apply" % (
            len(idle), min_samples)
    elif c["median"] <= 0:
        omitted[gdtrace.IDLE_KEY] = ("the median is %d ns: the packets started before their launch call ended (a "
                                     "clock offset, not a latency): the preset's stages apply" % c["median"])
    else:
        c["value"] = keys[gdtrace.IDLE_KEY] = c["median"]
    classes[gdtrace.IDLE_KEY] = c
    base = _one_line(os.path.basename(path))
    share = ("first %s %% of %d kernels (%d of %d ops)" % ("%g" % (first_fraction * 100), len(kernels), ops_fitted,
                                                           len(ops)) if first_fraction is not None
             else "all %d ops" % len(ops))
    provenance = "calibrate.py fit of %s device %s, %s: %d gaps%s" % (
        base, _one_line(str(device)), share, used,
        ", %d idle launches" % len(idle) if gdtrace.IDLE_KEY in keys else "")
    return dict(keys=keys, classes=classes, omitted=omitted, gaps=used, excluded=dict(excluded), device=device,
                capture=base, ops=len(ops), ops_fitted=ops_fitted, kernels=len(kernels), kernels_fitted=n_first,
                first_fraction=first_fraction,
                by_grid={k: dict(sorted((b, sorted(g)) for b, g in v.items())) for k, v in sorted(by_grid.items())},
                provenance=provenance, queued_ns=queued_ns, wait_ns=wait_ns, min_samples=min_samples)


def record_lines(result):
    """The fitted keys as gdtrace.TraceWriter.calibration lines: (key, ns, comment)."""
    out = []
    for key, value in result["keys"].items():
        c = result["classes"][key]
        out.append((key, value, "%s: median of %d %s (p10 %d, p90 %d ns)" % (
            c["name"], c["samples"], "launches onto an idle stream" if key == gdtrace.IDLE_KEY else "clean gaps",
            c["p10"], c["p90"])))
    return out


def config_text(result):
    """The -o file: a header comment (provenance and settings) and the keys in gdsim's
    --config syntax."""
    head = [result["provenance"],
            "capture %s, device %s, %s; clean busy-queue gaps: successor queued >= %d ns before, gap <= %d ns, "
            "no other stream's packet during it; value = median; classes with < %d gaps omitted" % (
                result["capture"], result["device"],
                "first %d of %d kernels (%d of %d ops)" % (result["kernels_fitted"], result["kernels"],
                                                          result["ops_fitted"], result["ops"])
                if result["first_fraction"] is not None
                else "all %d ops" % result["ops"], result["queued_ns"], result["wait_ns"], result["min_samples"])]
    for key, why in result["omitted"].items():
        head.append("%s omitted: %s" % (key, why))
    # short comment lines: gdsim's --config reader takes lines of up to 1023 bytes
    lines = ["# " + w for h in head for w in textwrap.wrap(_one_line(h), 100, subsequent_indent="  ")]
    return "\n".join(lines) + "\n" + gdtrace.calibration_text(record_lines(result))


def _us(ns):
    return "-" if ns is None else "%.3f" % (ns / 1000)


def report(result, out, by_grid=False):
    print("%s, device %s: %s" % (result["capture"], result["device"], result["provenance"]), file=out)
    print("  %-11s %-30s %7s %9s %9s %9s  %s" % ("class", "key", "gaps", "p10 us", "median", "p90 us",
                                                  "value (ns)"), file=out)
    for key, c in result["classes"].items():
        value = str(c["value"]) if c["value"] is not None else "omitted: %d < %d" % (
            c["samples"], result["min_samples"]) if c["samples"] < result["min_samples"] else "omitted: median <= 0"
        print("  %-11s %-30s %7d %9s %9s %9s  %s" % (c["name"], key, c["samples"], _us(c["p10"]), _us(c["median"]),
                                                      _us(c["p90"]), value), file=out)
    if result["excluded"]:
        print("  left out: " + "; ".join("%s %d" % (why, n) for why, n in sorted(result["excluded"].items())),
              file=out)
    if by_grid:
        # the K->K classes' gaps by log2 CTA count of the successor and of the predecessor
        for cls in ("K->K", "graph K->K"):
            succ = result["by_grid"].get((cls, "successor"), {})
            pred = result["by_grid"].get((cls, "predecessor"), {})
            if not succ:
                continue
            print("  %-21s %18s %18s" % (cls + " gaps by CTAs", "successor's", "predecessor's"), file=out)
            for b in sorted(set(succ) | set(pred)):
                cell = ["%6d, %s us" % (len(g[b]), _us(gdtrace.median_ns(g[b]))) if b in g else "" for g in (succ, pred)]
                print("    %9d-%-9d %18s %18s" % (1 << b, (2 << b) - 1, cell[0], cell[1]), file=out)


def main(argv=None):
    ap = gdtrace.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("capture", help="Kineto Chrome-trace JSON (.json or .json.gz)")
    ap.add_argument("--device", type=int, default=None, help="GPU to fit (default: the one with the most kernels)")
    ap.add_argument("--first-fraction", type=float, default=None, metavar="F",
                    help="count only the gaps whose successor is among the first ceil(F x n) (0 < F <= 1) of "
                         "the device's n kernels by start time, or a copy before the first kernel left out "
                         "(cross-validation: validate.py --split F holds out the others)")
    ap.add_argument("--queued-ns", type=gdtrace.number(0, 10 ** 12, integer=True), default=5000,
                    help="the successor's launch call ended at least this long before its release (default 5000)")
    ap.add_argument("--wait-ns", type=gdtrace.number(0, 10 ** 12, integer=True), default=20000,
                    help="longest gap counted (default 20000)")
    ap.add_argument("--min-samples", type=gdtrace.number(1, 10 ** 9, integer=True), default=5,
                    help="fewest gaps for a class to be fitted (default 5)")
    ap.add_argument("--by-grid", action="store_true", help="also print the K->K gaps by log2 CTA count")
    ap.add_argument("-o", "--output", metavar="FILE", help="write the fitted keys in --config syntax")
    ap.add_argument("--clock-mhz", type=float, help="ignored (accepted for older scripts: the keys are in ns)")
    a = ap.parse_args(argv)
    try:
        result = fit(a.capture, a.device, a.first_fraction, a.queued_ns, a.wait_ns, a.min_samples)
        report(result, sys.stdout, a.by_grid)
        if not result["keys"]:
            raise kineto2gdt.ConvertError("%s: no class has %d clean gaps and no %d launches onto an idle stream "
                                          "(or their median is not above 0): nothing fitted" % (
                                              a.capture, a.min_samples, a.min_samples))
        if a.output:
            with gdtrace.OutputFile(a.output, "w", inputs=(a.capture,), encoding="utf-8", newline="\n") as f:
                f.write(config_text(result))
            print("  wrote %d key(s) to %s" % (len(result["keys"]), a.output))
    except (kineto2gdt.ConvertError, OSError, ValueError) as e:
        print("calibrate: error: %s" % e, file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(gdtrace.run_main(main))
