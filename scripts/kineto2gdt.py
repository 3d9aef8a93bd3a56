#!/usr/bin/env python3
"""Convert a PyTorch-profiler trace (Kineto Chrome-trace JSON, .json or .json.gz) into a
gdsim trace (.gdt.gz, traces/FORMAT.md).

  kineto2gdt.py IN.json[.gz] OUT.gdt.gz [--device ID] [--pid PID]

What it makes of the capture (docs/KINETO.md has the details):
  - the device description from `deviceProperties` (inferred, with a warning, when absent);
  - one hardware queue per CUDA/HIP stream; every packet has the barrier bit set, as a
    stream runs its work in order;
  - each kernel's host submit time is the end of its launch API event (linked by
    `correlation`); a kernel without one gets the documented fallback;
  - each kernel's measured duration spread over its waves on the capturing device: its
    CTAs run duration / waves;
  - the measured start and duration and the `correlation` id ride along as launch info;
  - everything it does not convert is counted and reported on stderr, with why.

Python 3 standard library only. The JSON is read as a stream (the trace events are
never all in memory as Python objects); the dispatch records are sorted in memory by
submit time, a few dozen bytes each, and written as a stream.
"""
import argparse
import collections
import decimal
import gzip
import json
import os
import statistics
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from gdtrace import EXEC_PER_DISPATCH, Device, TraceWriter, max_ctas_per_sm  # noqa: E402

# Host API calls that launch kernels; a CUDA graph launch submits all its kernels at once.
KERNEL_LAUNCH_APIS = {
    "cudaLaunchKernel", "cudaLaunchKernel_ptsz", "cudaLaunchKernelExC", "cudaLaunchKernelExC_ptsz",
    "cuLaunchKernel", "cuLaunchKernelEx", "cudaLaunchCooperativeKernel", "cudaLaunchCooperativeKernel_ptsz",
    "cudaLaunchCooperativeKernelMultiDevice", "cudaGraphLaunch", "cudaGraphLaunch_ptsz", "cuGraphLaunch",
    "hipLaunchKernel", "hipExtLaunchKernel", "hipModuleLaunchKernel", "hipExtModuleLaunchKernel",
    "hipLaunchCooperativeKernel", "hipGraphLaunch",
}
# HIP reports these grids in work-items, not workgroups (shared/data/kineto/README.md).
GRID_IN_WORK_ITEMS = {"hipExtModuleLaunchKernel", "hipModuleLaunchKernel"}
# Without a launch event a kernel is taken as submitted this long before it started,
# unless the capture shows otherwise (the median over kernels that have one).
DEFAULT_SUBMIT_LEAD_NS = 5000
MAX_QUEUES = 1024

# Device limits by compute capability, for traces without deviceProperties
# (CUDA C++ Programming Guide, 'Technical Specifications per Compute Capability').
INFER_LIMITS = {
    (7, 0): dict(name="inferred cc 7.0 (V100-like)", smem_sm=98304, optin=98304),
    (8, 0): dict(name="inferred cc 8.0 (A100-like)", smem_sm=167936, optin=166912),
    (9, 0): dict(name="inferred cc 9.0 (H100-like)", smem_sm=233472, optin=232448),
}
# Kernel-name markers of the architecture a library kernel was built for.
ARCH_MARKERS = [("sm90", (9, 0)), ("hopper", (9, 0)), ("sm80", (8, 0)), ("ampere", (8, 0)), ("sm_80", (8, 0)),
                ("sm70", (7, 0)), ("volta", (7, 0)), ("sm_70", (7, 0))]


class ConvertError(Exception):
    pass


# --------------------------------------------------------------------------------------
# Streaming JSON

class JsonStream:
    """Yields the members of the top-level JSON object as (key, value), except that the
    elements of the 'traceEvents' array come one at a time as ('traceEvents', element).
    Floats stay strings, so times convert to nanoseconds exactly."""

    CHUNK = 1 << 20

    def __init__(self, f, path):
        self.f, self.path = f, path
        self.buf, self.i, self.eof, self.consumed = "", 0, False, 0
        self.dec = json.JSONDecoder(parse_float=str)

    def _more(self):
        if self.eof:
            return False
        data = self.f.read(self.CHUNK)
        if not data:
            self.eof = True
            return False
        if self.i > self.CHUNK:  # drop what has been parsed
            self.consumed += self.i
            self.buf, self.i = self.buf[self.i:], 0
        self.buf += data
        return True

    def _where(self):
        return "%s: character %d" % (self.path, self.consumed + self.i)

    def _peek(self):
        while True:
            while self.i < len(self.buf) and self.buf[self.i] in " \t\r\n":
                self.i += 1
            if self.i < len(self.buf):
                return self.buf[self.i]
            if not self._more():
                raise ConvertError("%s: the JSON ends too early" % self._where())

    def _expect(self, ch):
        if self._peek() != ch:
            raise ConvertError("%s: expected '%s', found '%s'" % (self._where(), ch, self.buf[self.i]))
        self.i += 1

    def _value(self):
        self._peek()
        while True:
            try:
                v, end = self.dec.raw_decode(self.buf, self.i)
                # a number at the very end of the buffer may continue in the next chunk
                if end < len(self.buf) or self.eof:
                    self.i = end
                    return v
            except ValueError as e:
                if self.eof:
                    raise ConvertError("%s: %s" % (self._where(), e)) from None
            self._more()  # incomplete: read on (at the end of input, the next try decides)

    def items(self):
        self._expect("{")
        if self._peek() == "}":
            return
        while True:
            key = self._value()
            self._expect(":")
            if key == "traceEvents":
                self._expect("[")
                if self._peek() != "]":
                    while True:
                        yield key, self._value()
                        if self._peek() == ",":
                            self.i += 1
                            continue
                        break
                self._expect("]")
            else:
                yield key, self._value()
            if self._peek() == ",":
                self.i += 1
                continue
            self._expect("}")
            return


def open_text(path):
    with open(path, "rb") as probe:
        gz = probe.read(2) == b"\x1f\x8b"
    return gzip.open(path, "rt", encoding="utf-8") if gz else open(path, "r", encoding="utf-8")


def to_ns(v):
    """A Kineto time (microseconds, int or decimal text) in integer nanoseconds, half up."""
    if isinstance(v, int):
        return v * 1000
    d = decimal.Decimal(v) * 1000
    return int(d.to_integral_value(rounding=decimal.ROUND_HALF_UP))


# --------------------------------------------------------------------------------------
# Collecting the capture

class Capture:
    def __init__(self):
        self.device_props = None
        self.kernels = []                  # per kernel event: dict of what we use
        self.runtime = {}                  # correlation -> (name, ts_ns, end_ns, pid, args)
        self.skipped = collections.Counter()  # (what, why) -> count: events not converted
        self.assumed = collections.Counter()  # (what, how) -> count: converted with an assumption
        self.events = 0


def event_kind(e):
    if e.get("cat"):
        return e["cat"]
    return {"M": "metadata", "i": "instant", "I": "instant"}.get(e.get("ph"), "(no category, ph %s)" % e.get("ph"))


def collect(path, pid_filter):
    cap = Capture()
    with open_text(path) as f:
        for key, val in JsonStream(f, path).items():
            if key == "deviceProperties":
                cap.device_props = val
            if key != "traceEvents":
                continue
            cap.events += 1
            e = val
            if not isinstance(e, dict):
                cap.skipped[("non-object trace event", "not an event")] += 1
                continue
            cat = e.get("cat")
            args = e.get("args") or {}
            if cat == "kernel":
                cap.kernels.append(dict(name=e.get("name", ""), ts=to_ns(e["ts"]), dur=to_ns(e.get("dur", 0)),
                                        device=args.get("device", e.get("pid")), stream=args.get("stream"),
                                        corr=args.get("correlation"), grid=args.get("grid"),
                                        block=args.get("block"), regs=args.get("registers per thread"),
                                        smem=args.get("shared memory"),
                                        est=args.get("est. achieved occupancy %"),
                                        bps=float(args["blocks per SM"]) if "blocks per SM" in args else None))
            elif cat in ("cuda_runtime", "cuda_driver"):
                if pid_filter is not None and e.get("pid") != pid_filter:
                    cap.skipped[("%s event" % cat, "another host process (--pid %s)" % pid_filter)] += 1
                    continue
                corr = args.get("correlation")
                ts = to_ns(e["ts"])
                keep = {k: args[k] for k in ("grid", "block", "shared memory") if k in args}
                cap.runtime[corr] = (e.get("name", ""), ts, ts + to_ns(e.get("dur", 0)), e.get("pid"), keep)
            else:
                cap.skipped[(event_kind(e), WHY.get(event_kind(e), "not dispatch work"))] += 1
    return cap


WHY = {
    "cpu_op": "host-side PyTorch operator (its launches are converted through the runtime events)",
    "python_function": "host-side Python frame",
    "user_annotation": "host-side annotation",
    "gpu_user_annotation": "annotation range on the GPU timeline (no work of its own)",
    "ac2g": "flow arrow linking a launch to its kernel (the correlation id is used instead)",
    "async_cpu_to_gpu": "flow arrow linking a launch to its kernel (the correlation id is used instead)",
    "fwdbwd": "flow arrow linking forward and backward operators",
    "metadata": "process/thread naming metadata",
    "instant": "instant marker (e.g. the profiler's iteration or record-window marks)",
    "Trace": "the profiler's own trace-span event",
    "cuda_profiler_range": "profiler range marker",
}


# --------------------------------------------------------------------------------------
# The device

def device_from_props(props, device_id, warnings):
    p = None
    for i, d in enumerate(props or []):
        if d.get("id", i) == device_id:
            p = d
    if p is None:
        return None
    missing = []

    def get(*names, default=None):
        for n in names:
            if n in p:
                if n != names[0]:
                    missing.append("%s (used %s)" % (names[0], n))
                return p[n]
        missing.append("%s (used %s)" % (names[0], default))
        return default

    regs = get("regsPerMultiprocessor", "regsPerBlock", default=65536)
    dev = Device(name=p.get("name", "device %s" % device_id), cc=(p.get("computeMajor", 0), p.get("computeMinor", 0)),
                 sms=get("numSms", default=0), threads_per_sm=get("maxThreadsPerMultiprocessor", default=2048),
                 regs_per_sm=regs,
                 smem_per_sm=get("sharedMemPerMultiprocessor", "maxSharedMemoryPerMultiProcessor", default=0),
                 smem_per_cta_default=get("sharedMemPerBlock", default=49152),
                 smem_per_cta_optin=0, threads_per_cta=get("maxThreadsPerBlock", default=1024),
                 warp_size=get("warpSize", default=32))
    dev.smem_per_cta_optin = p.get("sharedMemPerBlockOptin", dev.smem_per_cta_default)
    if "sharedMemPerBlockOptin" not in p:
        missing.append("sharedMemPerBlockOptin (taken as sharedMemPerBlock)")
    if dev.smem_per_cta_optin > dev.smem_per_sm:
        dev.smem_per_cta_optin = dev.smem_per_sm
    if missing:
        warnings.append("deviceProperties of device %s lack %s" % (device_id, ", ".join(missing)))
    return dev


def infer_device(kernels, warnings):
    """No deviceProperties: the SM count from the profiler's 'blocks per SM' (grid / SMs),
    the compute capability from library kernel names, the per-SM limits of that
    compute capability."""
    sms = collections.Counter()
    for k in kernels:
        g = k.get("grid")
        if g and k.get("est") is not None and k.get("bps"):
            sms[round(g[0] * g[1] * g[2] / k["bps"])] += 1
    cc = None
    for k in kernels:
        low = k["name"].lower()
        for marker, c in ARCH_MARKERS:
            if marker in low:
                cc = c
                break
        if cc:
            break
    if not sms:
        raise ConvertError("the trace has no deviceProperties and no kernel gives 'blocks per SM' to infer the SM "
                           "count from")
    n = sms.most_common(1)[0][0]
    cc = cc or (8, 0)
    lim = INFER_LIMITS[cc]
    warnings.append("the trace has no deviceProperties: inferred %d SMs (grid / 'blocks per SM' of its kernels) and "
                    "compute capability %d.%d (%s), with that capability's per-SM limits" % (
                        n, cc[0], cc[1], "from kernel names" if cc else "assumed"))
    return Device(lim["name"], cc, n, 2048, 65536, lim["smem_sm"], 49152, lim["optin"], 1024, 32)


# --------------------------------------------------------------------------------------
# Conversion

def prod(v):
    return v[0] * v[1] * v[2]


def convert(in_path, out_path, device_id=None, pid=None, log=sys.stderr):
    cap = collect(in_path, pid)
    warnings = []
    by_device = collections.Counter(k["device"] for k in cap.kernels)
    if not by_device:
        raise ConvertError("%s: no kernel events (cat 'kernel') in the trace" % in_path)
    if device_id is None:
        device_id = by_device.most_common(1)[0][0]
    elif device_id not in by_device:
        raise ConvertError("%s: no kernels on device %s (devices with kernels: %s)" % (
            in_path, device_id, ", ".join(str(d) for d in sorted(by_device, key=str))))
    dev = device_from_props(cap.device_props, device_id, warnings) or infer_device(cap.kernels, warnings)

    kernels = []
    for k in cap.kernels:
        if k["device"] != device_id:
            cap.skipped[("kernel", "on device %s, not the converted device %s" % (k["device"], device_id))] += 1
            continue
        rt = cap.runtime.get(k["corr"])
        grid, block, smem = k["grid"], k["block"], k["smem"]
        if (grid is None or block is None) and rt is not None:
            # HIP traces put the launch shape on the launch event
            grid, block = rt[4].get("grid"), rt[4].get("block")
            if smem is None:
                smem = rt[4].get("shared memory")
            if grid is not None and block is not None and rt[0] in GRID_IN_WORK_ITEMS:
                grid = [-(-grid[i] // block[i]) for i in range(3)]
        if grid is None or block is None:
            cap.skipped[("kernel", "no grid and block on the kernel event or its launch event")] += 1
            continue
        grid, block = [int(x) for x in grid], [int(x) for x in block]
        smem = int(smem or 0)
        regs = k["regs"]
        if regs is None:
            cap.assumed[("kernel without a register count (AMD traces)",
                         "0 registers per thread: registers never limit its occupancy")] += 1
            regs = 0
        threads = prod(block)
        if min(grid) < 1 or min(block) < 1 or threads > dev.threads_per_cta or max(block) > 65535:
            cap.skipped[("kernel", "grid or block out of range for the device")] += 1
            continue
        if max(grid[i] * block[i] for i in range(3)) >= 1 << 32:
            cap.skipped[("kernel", "grid larger than an AQL packet holds (2^32 work-items per dimension)")] += 1
            continue
        fit = max_ctas_per_sm(dev, threads, regs, smem)
        if fit < 1:
            cap.skipped[("kernel", "no CTA fits an SM of the capturing device")] += 1
            continue
        waves = -(-prod(grid) // (fit * dev.sms))
        kernels.append(dict(k, grid=grid, block=block, smem=smem, regs=regs, threads=threads, waves=waves,
                            rt=rt if rt is not None and rt[0] in KERNEL_LAUNCH_APIS else None))

    # Submit times: the end of the launch call; otherwise the fallback.
    leads = [k["ts"] - k["rt"][2] for k in kernels if k["rt"] is not None]
    lead = int(statistics.median(leads)) if leads else DEFAULT_SUBMIT_LEAD_NS
    if lead < 0:
        lead = 0
    no_launch = sum(1 for k in kernels if k["rt"] is None)
    if no_launch:
        warnings.append("%d kernel(s) have no launch event: submitted %d ns before they started (the median "
                        "launch-to-start time of the others), but not before the previous packet of their stream"
                        % (no_launch, lead))
    streams = sorted({k["stream"] for k in kernels}, key=lambda s: (str(type(s)), s))
    if len(streams) > MAX_QUEUES:
        raise ConvertError("%s: %d streams; gdsim has %d hardware queues" % (in_path, len(streams), MAX_QUEUES))
    queue_of = {s: i for i, s in enumerate(streams)}
    per_stream = collections.defaultdict(list)
    for k in kernels:
        per_stream[k["stream"]].append(k)
    packets = []
    for s, ks in per_stream.items():
        ks.sort(key=lambda k: (k["ts"], k["corr"] if k["corr"] is not None else -1))  # a stream runs in order
        last = None
        for seq, k in enumerate(ks):
            submit = k["rt"][2] if k["rt"] is not None else k["ts"] - lead
            if last is not None and submit < last:
                submit = last  # a stream's packets enter its queue in its order
            submit = max(submit, 0)
            last = submit
            packets.append((submit, queue_of[s], seq, k))
    packets.sort(key=lambda p: (p[0], p[1], p[2]))

    # Host API calls: the launches of converted kernels were used; report the rest.
    used = {id(k["rt"]) for k in kernels if k["rt"] is not None}
    for corr, rt in cap.runtime.items():
        if id(rt) in used:
            continue
        if rt[0] in KERNEL_LAUNCH_APIS:
            why = "launch call whose kernel was not converted (see the kernel lines) or not captured"
        else:
            why = "host API call without GPU work of its own (allocation, query, event, synchronisation)"
        cap.skipped[("runtime call %s" % rt[0], why)] += 1

    producer = "kineto2gdt.py %s device %s" % (os.path.basename(in_path), device_id)
    w = TraceWriter(out_path, dev, producer)
    descs = {}
    for i, (submit, q, _, k) in enumerate(packets):
        key = (k["name"], k["threads"], k["regs"], k["smem"])
        kid = descs.get(key)
        if kid is None:
            kid = descs[key] = len(descs) + 1
            w.kernel(kid, k["name"], k["threads"], k["regs"], k["smem"], 0, EXEC_PER_DISPATCH)
        cta_ps = (k["dur"] * 1000 + k["waves"] // 2) // k["waves"]
        corr = k["corr"] if isinstance(k["corr"], int) and k["corr"] >= 0 else None
        w.dispatch(q, submit, kid, k["block"], k["grid"], k["smem"], barrier=True, signal=i + 1,
                   info=(cta_ps, corr, k["ts"], k["dur"]))
    w.close()

    print("kineto2gdt: %s -> %s: %d kernels of device %s (%s) on %d queue(s), %d kernel descriptors; "
          "%d trace events read" % (in_path, out_path, len(packets), device_id, dev.name, len(streams), len(descs),
                                    cap.events), file=log)
    for wmsg in warnings:
        print("kineto2gdt: warning: " + wmsg, file=log)
    if cap.assumed:
        print("kineto2gdt: converted with an assumption (count, what, assumed):", file=log)
        for (what, how), n in sorted(cap.assumed.items(), key=lambda x: (-x[1], x[0])):
            print("  %8d  %s: %s" % (n, what, how), file=log)
    if cap.skipped:
        print("kineto2gdt: not converted (count, what, why):", file=log)
        for (what, why), n in sorted(cap.skipped.items(), key=lambda x: (-x[1], x[0])):
            print("  %8d  %s: %s" % (n, what, why), file=log)
    return dict(kernels=len(packets), skipped=dict(cap.skipped), assumed=dict(cap.assumed), device=dev,
                warnings=warnings, events=cap.events,
                launches_used=len(used))


def main(argv=None):
    ap = argparse.ArgumentParser(description="Convert a PyTorch-profiler (Kineto) trace into a gdsim trace.",
                                 epilog="Details: docs/KINETO.md. The report on stderr accounts for every trace "
                                        "event that was not converted.")
    ap.add_argument("input", help="Kineto Chrome-trace JSON (.json or .json.gz)")
    ap.add_argument("output", help="gdsim trace to write (.gdt.gz)")
    ap.add_argument("--device", type=int, default=None,
                    help="GPU whose kernels to convert (default: the one with the most kernels)")
    ap.add_argument("--pid", type=int, default=None,
                    help="use only the host (launch API) events of this process (default: all)")
    a = ap.parse_args(argv)
    try:
        convert(a.input, a.output, a.device, a.pid)
    except (ConvertError, OSError) as e:
        print("kineto2gdt: error: %s" % e, file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
