#!/usr/bin/env python3
"""admission_pairs.py - which CTA admission rule a captured GPU followed.

    admission_pairs.py CAPTURE.json[.gz] [--device ID] [--pairs]

Looks in a PyTorch-profiler (Kineto) capture for pairs of kernels of different streams
where the second (B) became ready while the first (A), a kernel of two or more waves,
was running, and B started before A ended. For each pair it compares B's measured
start with what the two admission rules of the model's distributor
(`cwd.admission`) predict, taking A's CTAs to run D/W each (D its measured duration,
W its waves on the idle device, as kineto2gdt.py does):

  inorder   B takes slots only once every CTA of A has launched: at the start of A's
            last wave, (W - 1) D/W after A's start, or when B was ready if later.
  channels  B takes slots as soon as they free up: at the first wave end of A after
            B was ready (or when B was ready, once A's last wave is running).

B is ready at the end of its launch call plus the capture's idle-stream launch latency
(kineto2gdt.py's L), or when the work before it on its stream ended, if later.
Collectives (NCCL/RCCL) are left out on both sides: they hold their SMs while waiting
for peer GPUs. Prints the pairs' count and the median / p90 of |measured - predicted|
start per rule; --pairs lists every pair: A and B as their indices among the device's
kernels in start order (0-based), times in µs from A's start.
docs/VALIDATION.md gives the figures for the shared captures.
"""
import argparse
import collections
import os
import statistics
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import gdtrace  # noqa: E402
import kineto2gdt  # noqa: E402


def percentile(xs, p):
    """Nearest-rank percentile of a non-empty list."""
    s = sorted(xs)
    return s[max(0, -(-len(s) * p // 100) - 1)]


def ready_times(cap, kernels, device_id, lead_ns):
    """id(kernel) -> the time it could first run: the end of its launch call + lead_ns,
    or the end of the work before it on its stream, whichever is later; None when its
    launch call is not in the capture."""
    work = [(k["ts"], k["dur"], k["stream"], k) for k in kernels]
    work += [(c["ts"], c["dur"], c["stream"], None) for c in cap.commands if c["device"] == device_id]
    work.sort(key=lambda w: w[0])
    busy_until = {}
    ready = {}
    for ts, dur, stream, k in work:
        if k is not None:
            before = busy_until.get(stream)
            if k["rt"] is None:
                ready[id(k)] = None
            else:
                r = k["rt"][2] + lead_ns
                ready[id(k)] = r if before is None else max(r, before)
        busy_until[stream] = max(busy_until.get(stream, ts + dur), ts + dur)
    return ready


def pairs(path, device_id=None, window=8):
    """The capture's (A, B, ready, inorder, channels) pairs; times in ns, absolute."""
    cap = kineto2gdt.collect(path, None)
    by_device = collections.Counter(k["device"] for k in cap.kernels)
    if not by_device:
        raise kineto2gdt.ConvertError("%s: no kernel events (cat 'kernel') in the trace" % path)
    if device_id is None:
        device_id = by_device.most_common(1)[0][0]
    elif device_id not in by_device:
        raise kineto2gdt.ConvertError("%s: no kernel on device %s (the capture's kernels are on device %s)" % (
            path, device_id, ", ".join(str(d) for d in sorted(by_device, key=str))))
    dev, kernels = kineto2gdt.device_kernels(cap, device_id, [])
    kernels.sort(key=lambda k: (k["ts"], k["corr"] if k["corr"] is not None else -1))
    lead = kineto2gdt.idle_launch_latency(kernels)
    ready = ready_times(cap, kernels, device_id, lead)
    coll = kineto2gdt.COLLECTIVE_PREFIXES
    out = []
    for j, b in enumerate(kernels):
        r = ready[id(b)]
        if r is None or b["name"].startswith(coll):
            continue
        for i in range(max(0, j - window), j):
            a = kernels[i]
            if a["stream"] == b["stream"] or a["name"].startswith(coll) or a["waves"] < 2:
                continue
            a_end = a["ts"] + a["dur"]
            if not (a["ts"] < b["ts"] < a_end and a["ts"] < r < a_end):
                continue
            d = a["dur"] / a["waves"]
            last_wave = a["ts"] + (a["waves"] - 1) * d
            inorder = max(r, last_wave)
            if r >= last_wave:
                channels = r
            else:
                k = -(-(r - a["ts"]) // d)       # the first wave end at or after r
                channels = a["ts"] + k * d
            out.append(dict(a=i, b=j, a_kernel=a, b_kernel=b, ready=r, inorder=inorder, channels=channels))
    return out, lead


def main(argv=None):
    ap = gdtrace.ArgumentParser(description=__doc__.split("\n\n")[2].strip(),
                                 formatter_class=argparse.RawDescriptionHelpFormatter,
                                 epilog="\n\n".join(__doc__.split("\n\n")[3:]))
    ap.add_argument("capture", help="PyTorch-profiler trace (.json or .json.gz)")
    ap.add_argument("--device", type=int, default=None, help="device id (default: the one with most kernels)")
    ap.add_argument("--pairs", action="store_true", help="list every pair")
    args = ap.parse_args(argv)
    try:
        found, lead = pairs(args.capture, args.device)
    except (kineto2gdt.ConvertError, OSError) as e:
        print("admission_pairs: %s" % e, file=sys.stderr)
        return 1
    us = lambda ns: ns / 1000.0  # noqa: E731
    if args.pairs:
        print("A\tB\tA waves\tA CTA time\tB ready\tB start\tinorder\tchannels\tA / B")
        for p in found:
            a, b = p["a_kernel"], p["b_kernel"]
            t0 = a["ts"]
            print("%d\t%d\t%d\t%.2f\t%.1f\t%.1f\t%.1f\t%.1f\t%s / %s" % (
                p["a"], p["b"], a["waves"], us(a["dur"] / a["waves"]), us(p["ready"] - t0), us(b["ts"] - t0),
                us(p["inorder"] - t0), us(p["channels"] - t0), a["name"][:40], b["name"][:40]))
    print("%s: %d pair(s) of a kernel of 2+ waves and a kernel of another stream that became ready and started "
          "while it ran (launch latency %.2f µs)" % (args.capture, len(found), us(lead)))
    for rule in ("inorder", "channels"):
        if not found:
            break
        err = [abs(p["b_kernel"]["ts"] - p[rule]) for p in found]
        print("  %-8s |measured - predicted| start: median %.1f µs, p90 %.1f µs, max %.1f µs; within 2 µs: %d" % (
            rule, us(statistics.median(err)), us(percentile(err, 90)), us(max(err)),
            sum(1 for e in err if e <= 2000)))
    return 0


if __name__ == "__main__":
    sys.exit(gdtrace.run_main(main))
