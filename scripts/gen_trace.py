#!/usr/bin/env python3
"""Write a synthetic gdsim trace (format v1, traces/FORMAT.md).

Every kernel has the same shape (one kernel descriptor): a 1-D grid of GRID CTAs
of BLOCK threads, REGS registers per thread, SMEM bytes of shared memory, each CTA
running CTA_NS nanoseconds. Kernels are spread over QUEUES hardware queues (at
random, seeded) and submitted by the host every SUBMIT_NS nanoseconds on average
(uniformly between half and one and a half times that, seeded). Each dispatch
packet has the barrier bit set, as a CUDA stream serialises its kernels, unless
--no-barrier is given.

Python 3 standard library only; the output is streamed, so any number of kernels
takes constant memory.

Example:
  scripts/gen_trace.py traces/sample.gdt.gz --kernels 40 --grid 1000 --block 256 \\
      --regs 64 --smem 0 --cta-ns 10000 --queues 2 --device h100
"""
import argparse
import gzip
import random
import struct
import sys

MAGIC = b"\x89GDT\r\n\x1a\n"
REC_HEADER, REC_KERNEL, REC_DISPATCH, REC_END = 1, 2, 3, 15
AQL_KERNEL_DISPATCH = 2
AQL_BARRIER = 1 << 8
# Fence scopes: acquire system (2) and release system (2), as CUDA runtimes set them.
AQL_FENCES = (2 << 9) | (2 << 11)

# Device descriptions as the PyTorch profiler's deviceProperties would give them.
DEVICES = {
    "v100": dict(name="Tesla V100-SXM2-16GB", cc=(7, 0), sms=80, threads_per_sm=2048, regs=65536,
                 smem_sm=98304, smem_default=49152, smem_optin=98304, threads_per_cta=1024,
                 gpcs=[14, 14, 14, 14, 12, 12]),
    "a100": dict(name="NVIDIA A100-SXM4-40GB", cc=(8, 0), sms=108, threads_per_sm=2048, regs=65536,
                 smem_sm=167936, smem_default=49152, smem_optin=166912, threads_per_cta=1024,
                 gpcs=[16, 16, 16, 16, 16, 14, 14]),
    "h100": dict(name="NVIDIA H100 80GB HBM3", cc=(9, 0), sms=132, threads_per_sm=2048, regs=65536,
                 smem_sm=233472, smem_default=49152, smem_optin=232448, threads_per_cta=1024,
                 gpcs=[18, 18, 16, 16, 16, 16, 16, 16]),
}


class TraceWriter:
    """Streams records into a gzip file and writes the end record on close."""

    def __init__(self, path, device, producer):
        # mtime=0 and no file name in the gzip header: the same arguments give the same bytes.
        self.raw = open(path, "wb")
        self.f = gzip.GzipFile(filename="", mode="wb", compresslevel=6, fileobj=self.raw, mtime=0)
        self.records = 0
        self.dispatches = 0
        self.f.write(MAGIC + struct.pack("<HHI", 1, 0, 0))
        d = DEVICES[device]
        name = d["name"].encode()
        prod = producer.encode()
        payload = struct.pack("<11I", d["cc"][0], d["cc"][1], d["sms"], d["threads_per_sm"], d["regs"],
                              d["smem_sm"], d["smem_default"], d["smem_optin"], d["threads_per_cta"], 32,
                              len(d["gpcs"]))
        payload += struct.pack("<%dI" % len(d["gpcs"]), *d["gpcs"])
        payload += struct.pack("<H", len(name)) + name + struct.pack("<H", len(prod)) + prod
        self.record(REC_HEADER, payload)

    def record(self, rtype, payload):
        self.f.write(struct.pack("<HHI", rtype, 0, len(payload)) + payload)
        self.records += 1
        if rtype == REC_DISPATCH:
            self.dispatches += 1

    def kernel(self, kid, name, threads, regs, static_smem, dynamic_smem, cta_ps):
        n = name.encode()
        self.record(REC_KERNEL, struct.pack("<6IQH", kid, threads, regs, static_smem, dynamic_smem, 1, cta_ps,
                                            len(n)) + n)

    def dispatch(self, queue, submit_ns, kid, block, grid_ctas, smem, barrier, signal):
        header = AQL_KERNEL_DISPATCH | AQL_FENCES | (AQL_BARRIER if barrier else 0)
        pkt = struct.pack("<HHHHHHIIIIIQQQQ", header, 1, block, 1, 1, 0, grid_ctas * block, 1, 1, 0, smem,
                          kid, 0, 0, signal)
        assert len(pkt) == 64
        self.record(REC_DISPATCH, struct.pack("<HHIQ", queue, 0, 0, submit_ns) + pkt)

    def close(self):
        self.record(REC_END, struct.pack("<QQ", self.records, self.dispatches))
        self.f.close()
        self.raw.close()


def positive(text):
    v = int(text)
    if v <= 0:
        raise argparse.ArgumentTypeError("must be a positive integer, got %s" % text)
    return v


def nonnegative(text):
    v = int(text)
    if v < 0:
        raise argparse.ArgumentTypeError("must be zero or more, got %s" % text)
    return v


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                 epilog="See traces/FORMAT.md for the format.")
    ap.add_argument("out", help="output trace (.gdt.gz)")
    ap.add_argument("--kernels", type=positive, required=True, help="number of kernel dispatches")
    ap.add_argument("--grid", type=positive, required=True, help="CTAs per kernel (1-D grid)")
    ap.add_argument("--block", type=positive, required=True, help="threads per CTA")
    ap.add_argument("--regs", type=nonnegative, required=True, help="registers per thread")
    ap.add_argument("--smem", type=nonnegative, required=True, help="shared memory per CTA, bytes")
    ap.add_argument("--cta-ns", type=nonnegative, required=True, help="run time of each CTA, ns")
    ap.add_argument("--queues", type=positive, default=1, help="hardware queues (default 1)")
    ap.add_argument("--seed", type=int, default=1, help="seed for queue choice and submit jitter (default 1)")
    ap.add_argument("--device", choices=sorted(DEVICES), default="h100",
                    help="device description written in the header (default h100)")
    ap.add_argument("--submit-ns", type=nonnegative, default=5000,
                    help="mean host time between submits, ns (default 5000: cudaLaunchKernel takes 4-10 us)")
    ap.add_argument("--no-barrier", action="store_true", help="clear the AQL barrier bit of every packet")
    ap.add_argument("--name", default=None, help="kernel name (default derived from the shape)")
    a = ap.parse_args(argv)

    if a.block > 1024 or a.block > 65535:
        ap.error("--block %d: at most 1024 threads per CTA" % a.block)
    if a.grid * a.block >= 2 ** 32:
        ap.error("--grid x --block must be below 2^32 work-items (AQL grid_size_x is 32 bits)")
    if a.queues > 1024:
        ap.error("--queues: at most 1024")

    rng = random.Random(a.seed)
    name = a.name or "gen_kernel_b%d_r%d_s%d" % (a.block, a.regs, a.smem)
    w = TraceWriter(a.out, a.device, "gen_trace.py seed=%d" % a.seed)
    w.kernel(1, name, a.block, a.regs, a.smem, 0, a.cta_ns * 1000)
    t = 1000
    for i in range(a.kernels):
        q = rng.randrange(a.queues) if a.queues > 1 else 0
        w.dispatch(q, t, 1, a.block, a.grid, a.smem, not a.no_barrier, i + 1)
        t += rng.randint(a.submit_ns // 2, a.submit_ns + a.submit_ns // 2) if a.submit_ns else 0
    w.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
