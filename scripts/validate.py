#!/usr/bin/env python3
"""Replay a PyTorch-profiler capture on its own device and compare with what the GPU
did (docs/VALIDATION.md).

  validate.py CAPTURE.json[.gz] [--preset NAME] [--set KEY=VALUE]... [--device ID]
              [--gdsim PATH] [--keep DIR] [--infer-waits] [--json]

Converts the capture (scripts/kineto2gdt.py), replays it (build/gdsim) and prints:
  - kernels: in the capture (on the converted GPU), in the replay, and whether each
    appears exactly once (joined by source_id = correlation and measured_start_ns);
  - the share of kernels whose kineto_est_occupancy_pct equals the capture's recorded
    'est. achieved occupancy %' (captures without it, e.g. AMD: n/a);
  - the median, p90 and maximum of |first_cta_ns - measured_start_ns|;
  - the replayed span (first CTA of the first kernel to the end of the last) against
    the measured span (first kernel start to last kernel end), as a relative error.
Exit status 0 when the comparison ran (whatever the numbers), 1 on an error.
Python 3 standard library only; times are compared exactly (decimal), not in floats."""
import argparse
import csv
import decimal
import io
import json
import os
import shutil
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import kineto2gdt  # noqa: E402

D = decimal.Decimal


def pct(sorted_vals, p):
    """Nearest-rank percentile."""
    if not sorted_vals:
        return None
    k = max(1, -(-len(sorted_vals) * p // 100))
    return sorted_vals[int(k) - 1]


def validate(capture, preset=None, sets=(), device=None, gdsim=None, keep=None, infer_waits=False):
    work = keep or tempfile.mkdtemp(prefix="gdsim-validate-")
    os.makedirs(work, exist_ok=True)
    base = os.path.basename(capture).split(".json")[0]
    trace = os.path.join(work, base + ".gdt.gz")
    kcsv = os.path.join(work, base + ".kernels.csv")
    log = io.StringIO()
    conv = kineto2gdt.convert(capture, trace, device_id=device, log=log, infer=infer_waits)
    gdsim = gdsim or os.path.join(HERE, "..", "build", "gdsim")
    if not os.path.exists(gdsim):
        raise kineto2gdt.ConvertError("%s not found: build it with `make` (or give --gdsim)" % gdsim)
    cmd = [gdsim, "replay", trace, "--quiet", "--kernels-csv", kcsv]
    if preset:
        cmd += ["--preset", preset]
    for kv in sets:
        cmd += ["--set", kv]
    r = subprocess.run(cmd, capture_output=True, text=True)
    if r.returncode != 0:
        if keep is None:
            shutil.rmtree(work, ignore_errors=True)
        raise kineto2gdt.ConvertError("replay failed: %s" % r.stderr.strip())
    with open(kcsv, newline="") as f:
        rows = list(csv.DictReader(f))
    if keep is None:
        shutil.rmtree(work, ignore_errors=True)
        trace = None

    capture_kernels = conv["capture_kernels"]
    want = {}
    for corr, ts, dur, est in capture_kernels:
        want.setdefault((corr, ts), []).append((dur, est))
    seen = {}
    for row in rows:
        key = (int(row["source_id"]) if row["source_id"] else None,
               int(D(row["measured_start_ns"])) if row["measured_start_ns"] else None)
        seen[key] = seen.get(key, 0) + 1
    missing = sum(len(v) for k, v in want.items()) - sum(min(len(v), seen.get(k, 0)) for k, v in want.items())
    extra = sum(n - len(want.get(k, ())) for k, n in seen.items() if n > len(want.get(k, ())))

    compared = equal = 0
    errs = []
    first = last_end = None
    for row in rows:
        key = (int(row["source_id"]) if row["source_id"] else None,
               int(D(row["measured_start_ns"])) if row["measured_start_ns"] else None)
        recs = want.get(key)
        if recs and recs[0][1] is not None:
            compared += 1
            equal += int(row["kineto_est_occupancy_pct"]) == int(D(recs[0][1]))
        if row["measured_start_ns"]:
            errs.append(abs(D(row["first_cta_ns"]) - D(row["measured_start_ns"])))
        f, e = D(row["first_cta_ns"]), D(row["end_ns"])
        first = f if first is None or f < first else first
        last_end = e if last_end is None or e > last_end else last_end
    errs.sort()
    m_first = min(ts for _, ts, _, _ in capture_kernels)
    m_last = max(ts + dur for _, ts, dur, _ in capture_kernels)
    span_meas = D(m_last - m_first)
    span_rep = (last_end - first) if rows else D(0)
    return dict(capture=capture, preset=preset or "trace", device=conv["device_id"], trace=trace,
                infer_waits=bool(infer_waits), inferred_barriers=conv["inferred_barriers"],
                wait_commands=conv["wait_commands"],
                kernels_capture=len(capture_kernels), kernels_replayed=len(rows), missing=missing, extra=extra,
                occupancy_compared=compared, occupancy_equal=equal,
                start_err_median_ns=float(pct(errs, 50)) if errs else None,
                start_err_p90_ns=float(pct(errs, 90)) if errs else None,
                start_err_max_ns=float(errs[-1]) if errs else None,
                span_measured_ns=float(span_meas), span_replayed_ns=float(span_rep),
                span_rel_err=float((span_rep - span_meas) / span_meas) if span_meas else None,
                converter_report=log.getvalue())


def report(v, out=sys.stdout):
    p = lambda *a: print(*a, file=out)  # noqa: E731
    p("validate: %s on preset %s (device %s)%s" % (
        v["capture"], v["preset"], v["device"],
        ", inferred %d waits on other streams and %d outside the capture" % (
            v["inferred_barriers"], v["wait_commands"]) if v["infer_waits"] else ""))
    once = "each exactly once" if not v["missing"] and not v["extra"] else "%d missing, %d extra" % (
        v["missing"], v["extra"])
    p("  kernels               %d in the capture, %d replayed: %s" % (v["kernels_capture"], v["kernels_replayed"],
                                                                     once))
    if v["occupancy_compared"]:
        p("  occupancy agreement   %d of %d (%.2f %%): kineto_est_occupancy_pct = the recorded est. achieved "
          "occupancy %%" % (v["occupancy_equal"], v["occupancy_compared"],
                            100.0 * v["occupancy_equal"] / v["occupancy_compared"]))
    else:
        p("  occupancy agreement   n/a (the capture records no est. achieved occupancy)")
    if v["start_err_median_ns"] is not None:
        p("  |first CTA - start|   median %.3f us, p90 %.3f us, max %.3f us" % (
            v["start_err_median_ns"] / 1000, v["start_err_p90_ns"] / 1000, v["start_err_max_ns"] / 1000))
    p("  span                  measured %.3f us, replayed %.3f us: %+.4f %%" % (
        v["span_measured_ns"] / 1000, v["span_replayed_ns"] / 1000, 100.0 * v["span_rel_err"]))


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                 epilog="See docs/VALIDATION.md for the results on the shared captures.")
    ap.add_argument("capture", help="Kineto Chrome-trace JSON (.json or .json.gz)")
    ap.add_argument("--preset", help="gdsim preset (default: trace, the capture's own device)")
    ap.add_argument("--set", action="append", default=[], metavar="KEY=VALUE", help="a gdsim configuration key")
    ap.add_argument("--device", type=int, help="GPU of the capture to convert (default: the one with most kernels)")
    ap.add_argument("--gdsim", help="gdsim binary (default: build/gdsim of this checkout)")
    ap.add_argument("--keep", metavar="DIR", help="keep the converted trace and the kernel CSV in DIR")
    ap.add_argument("--infer-waits", action="store_true", help="convert with kineto2gdt.py --infer-waits")
    ap.add_argument("--json", action="store_true", help="print the results as JSON")
    a = ap.parse_args(argv)
    try:
        v = validate(a.capture, a.preset, a.set, a.device, a.gdsim, a.keep, a.infer_waits)
    except (kineto2gdt.ConvertError, OSError) as e:
        print("validate: error: %s" % e, file=sys.stderr)
        return 1
    if a.json:
        v = dict(v)
        del v["converter_report"]
        print(json.dumps(v, indent=2, sort_keys=True))
    else:
        report(v)
    return 0


if __name__ == "__main__":
    sys.exit(main())
