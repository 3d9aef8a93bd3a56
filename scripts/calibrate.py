#!/usr/bin/env python3
"""Front-end latencies from a PyTorch-profiler capture: what the per-preset defaults
of pp.* and cwd.grid_launch_cycles are derived from (docs/VALIDATION.md).

  calibrate.py CAPTURE.json[.gz] --clock-mhz MHZ [--device ID] [--queued-ns N] [--wait-ns N]

It measures, on the GPU's own timestamps:
  - the idle launch latency: start - end of the launch call, over the packets whose
    stream had finished everything before them when the call ended (median, p10);
  - the back-to-back gaps: start of a packet - end of the packet before it on the same
    stream, when the packet's launch call ended at least --queued-ns before that end
    (so it was waiting in its queue), by pair (K = kernel, C = memcpy/memset): floor
    (p10), median, and the mean of the gaps up to --wait-ns (longer ones are waits for
    other streams or the host, which the gap does not describe);
and derives the keys (all times x --clock-mhz):
  pp.completion_cycles = cwd.grid_launch_cycles = mean K->K gap / 2 (the split is not
      observable: both lie between one kernel's end and the next one's start);
  pp.command_launch_cycles = mean of the K->C and C->C gaps - pp.completion_cycles;
  pp.fetch_cycles + pp.decode_cycles = median idle launch latency - grid launch,
      split 90/10 (not observable either).
Python 3 standard library only."""
import argparse
import collections
import os
import statistics
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import kineto2gdt  # noqa: E402


def measure(path, device=None, queued_ns=5000, wait_ns=20000):
    cap = kineto2gdt.collect(path, None)
    items = [dict(k, type="K") for k in cap.kernels] + [dict(c, type="C") for c in cap.commands]
    devices = collections.Counter(k["device"] for k in items if k["type"] == "K")
    if device is None:
        device = devices.most_common(1)[0][0]
    items = [k for k in items if k["device"] == device and k["stream"] is not None]
    for k in items:
        rt = cap.runtime.get(k["corr"]) if k["corr"] is not None else None
        k["launch_end"] = rt[2] if rt is not None else None
    by_stream = collections.defaultdict(list)
    for k in items:
        by_stream[k["stream"]].append(k)
    idle, gaps = [], collections.defaultdict(list)
    for ks in by_stream.values():
        ks.sort(key=lambda k: (k["ts"], k["corr"] if k["corr"] is not None else -1))
        busy_until = None
        for prev, k in zip([None] + ks[:-1], ks):
            if k["launch_end"] is not None and (busy_until is None or busy_until <= k["launch_end"]):
                idle.append(k["ts"] - k["launch_end"])
            if prev is not None and k["launch_end"] is not None:
                end = prev["ts"] + prev["dur"]
                if k["launch_end"] <= end - queued_ns:
                    gaps[prev["type"] + k["type"]].append(k["ts"] - end)
            end_k = k["ts"] + k["dur"]
            busy_until = end_k if busy_until is None else max(busy_until, end_k)
    return device, sorted(idle), {k: sorted(v) for k, v in gaps.items()}


def pct(v, p):
    return v[min(len(v) - 1, int(len(v) * p / 100))] if v else float("nan")


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("capture")
    ap.add_argument("--clock-mhz", type=float, required=True, help="the preset's frontend.clock_mhz")
    ap.add_argument("--device", type=int, default=None)
    ap.add_argument("--queued-ns", type=int, default=5000)
    ap.add_argument("--wait-ns", type=int, default=20000)
    a = ap.parse_args(argv)
    device, idle, gaps = measure(a.capture, a.device, a.queued_ns, a.wait_ns)
    print("%s, device %s" % (a.capture, device))
    print("  idle launch latency: %d packets, median %.3f us, p10 %.3f us" % (
        len(idle), statistics.median(idle) / 1000 if idle else float("nan"), pct(idle, 10) / 1000))
    means = {}
    for pair in ("KK", "KC", "CK", "CC"):
        v = gaps.get(pair, [])
        kept = [g for g in v if g <= a.wait_ns]
        means[pair] = (statistics.mean(kept) if kept else None, len(kept))
        print("  gap %s->%s: %5d queued, floor (p10) %.3f us, median %.3f us, mean of the %d up to %d us %s" % (
            pair[0], pair[1], len(v), pct(v, 10) / 1000, statistics.median(v) / 1000 if v else float("nan"),
            len(kept), a.wait_ns // 1000, "%.3f us" % (means[pair][0] / 1000) if kept else "-"))
    cyc = a.clock_mhz / 1000.0  # cycles per ns
    kk = means["KK"][0]
    if kk is None:
        print("  no back-to-back kernels: cannot derive the keys")
        return 1
    half = kk / 2
    print("  pp.completion_cycles = cwd.grid_launch_cycles = %.0f" % (half * cyc))
    n = means["KC"][1] + means["CC"][1]
    if n:
        to_cmd = ((means["KC"][0] or 0) * means["KC"][1] + (means["CC"][0] or 0) * means["CC"][1]) / n
        print("  pp.command_launch_cycles = %.0f (gap before a command %.3f us over %d)" % (
            max(0.0, to_cmd - half) * cyc, to_cmd / 1000, n))
    if idle:
        fd = max(0.0, statistics.median(idle) - half)
        print("  pp.fetch_cycles = %.0f, pp.decode_cycles = %.0f (fetch + decode %.3f us)" % (
            fd * 0.9 * cyc, fd * 0.1 * cyc, fd / 1000))
    return 0


if __name__ == "__main__":
    sys.exit(main())
