#!/usr/bin/env python3
"""Write a synthetic gdsim trace (format v1, traces/FORMAT.md).

Every kernel has the same shape (one kernel descriptor): a grid of GRID CTAs (X, or
X,Y or X,Y,Z) of BLOCK threads, REGS registers per thread, SMEM bytes of shared memory, each CTA
running CTA_NS nanoseconds; several REGS, CTA_NS or --insn values (separated by ';') make
several shapes, which the kernels take in turn. Kernels are spread over QUEUES hardware queues (at
random, seeded) and submitted by the host every SUBMIT_NS nanoseconds on average
(uniformly between half and one and a half times that, seeded). Each dispatch
packet has the barrier bit set, as a CUDA stream serialises its kernels, unless
--no-barrier is given. With --cluster the grid is an array of clusters (CGAs, format
1.4): CX x CY x CZ CTAs that launch together inside one GPC (--cluster-mode
load_balance, or multicast: one CTA of a cluster per SM), and --gpu-cga K of them
(consecutive in grid order) that launch together on the GPU.

Python 3 standard library only; the output is streamed, so any number of kernels
takes constant memory.

Example:
  scripts/gen_trace.py traces/sample.gdt.gz --kernels 40 --grid 1000 --block 256 \\
      --regs 64 --smem 0 --cta-ns 10000 --queues 2 --device h100
"""
import argparse
import os
import random
import struct
import sys

sys.path.insert(0, os.path.dirname(os.path.realpath(__file__)))
import gdtrace  # noqa: E402
from gdtrace import CMD_COND, CMD_FAILS, CMD_INDEPENDENT, CMD_SYNC, INSN_CLASSES, Device, TraceWriter  # noqa: E402

# Device descriptions as the PyTorch profiler's deviceProperties would give them.
DEVICES = {
    "v100": Device("Tesla V100-SXM2-16GB", (7, 0), 80, 2048, 65536, 98304, 49152, 98304, 1024, 32,
                   [14, 14, 14, 14, 12, 12]),
    "a100": Device("NVIDIA A100-SXM4-40GB", (8, 0), 108, 2048, 65536, 167936, 49152, 166912, 1024, 32,
                   [16, 16, 16, 16, 16, 14, 14]),
    "h100": Device("NVIDIA H100 80GB HBM3", (9, 0), 132, 2048, 65536, 233472, 49152, 232448, 1024, 32,
                   [18, 18, 16, 16, 16, 16, 16, 16]),
}


def integer(text):
    """An integer as the digits say it (not '²', not 1e3)."""
    if not text.strip().lstrip("+-").isascii() or not text.strip().lstrip("+-").isdigit():
        raise argparse.ArgumentTypeError("expected an integer, got %r" % text)
    return int(text)


def positive(text):
    v = integer(text)
    if v <= 0:
        raise argparse.ArgumentTypeError("must be a positive integer, got %s" % text)
    return v


def nonnegative(text):
    v = integer(text)
    if v < 0:
        raise argparse.ArgumentTypeError("must be zero or more, got %s" % text)
    return v


def nonnegative_list(text):
    """N or N1;N2;... (non-negative integers): one value, or one per kernel shape."""
    try:
        v = [integer(x) for x in text.split(";")]
    except argparse.ArgumentTypeError:
        raise argparse.ArgumentTypeError("expected N or N1;N2;... (integers), got %s" % text)
    if any(x < 0 for x in v):
        raise argparse.ArgumentTypeError("must be zero or more, got %s" % text)
    return v


def dims(text):
    """X[,Y[,Z]] -> (x, y, z), each a positive integer."""
    parts = text.split(",")
    if not 1 <= len(parts) <= 3:
        raise argparse.ArgumentTypeError("expected X, X,Y or X,Y,Z, got %s" % text)
    v = [positive(p) for p in parts] + [1] * (3 - len(parts))
    return tuple(v)


# What the trace's fields hold (traces/FORMAT.md) and gdsim accepts: a value past one is
# an error naming its option, not a struct.error or a trace gdsim then refuses.
U32, U64 = 2 ** 32 - 1, 2 ** 64 - 1
MAX_REGS = 255          # registers per thread (sm.max_regs_per_thread's range)
MAX_VIDS = 65536        # tenants: VIDs 0 to 65535 (a u16)
MAX_NAME = 65535        # a kernel name's bytes (a u16 length)


def check_ranges(a, ap):
    """Every number the trace will hold, against its field and gdsim's limits."""
    dev = DEVICES[a.device]
    for r in a.regs or []:
        if r > MAX_REGS:
            ap.error("--regs %d: at most %d registers per thread" % (r, MAX_REGS))
    if a.smem is not None and a.smem > dev.smem_per_cta_optin:
        ap.error("--smem %d: more than the %s's %d bytes of shared memory per CTA" % (a.smem, a.device,
                                                                                      dev.smem_per_cta_optin))
    for ns in a.cta_ns or []:
        if ns * 1000 > U64:
            ap.error("--cta-ns %d: past 2^64 ps" % ns)
    if a.submit_ns * 1000 * max(a.kernels or 1, 1) > U64:
        ap.error("--submit-ns %d: the submit times would pass 2^64 ns" % a.submit_ns)
    for i, n in enumerate(a.grid or ()):
        if n > U32:
            ap.error("--grid: %d CTAs along %s, past 2^32" % (n, "XYZ"[i]))
    if a.tenants is not None and a.tenants > MAX_VIDS:
        ap.error("--tenants %d: at most %d (VIDs are 16 bits)" % (a.tenants, MAX_VIDS))
    if a.name is not None:
        try:
            n = len(a.name.encode("utf-8"))
        except UnicodeEncodeError:
            ap.error("--name: not valid UTF-8 text")
        if not n or n > MAX_NAME:
            ap.error("--name: %d bytes; a kernel name has 1 to %d" % (n, MAX_NAME))


def main(argv=None):
    ap = gdtrace.ArgumentParser(description=__doc__.split("\n\n")[0],
                                 epilog="See traces/FORMAT.md for the format.")
    ap.add_argument("out", help="output trace (.gdt.gz)")
    ap.add_argument("--kernels", type=positive, default=None, help="number of kernel dispatches")
    ap.add_argument("--grid", type=dims, default=None, metavar="X[,Y[,Z]]", help="CTAs per kernel, per dimension")
    ap.add_argument("--block", type=positive, default=None, help="threads per CTA")
    ap.add_argument("--regs", type=nonnegative_list, default=None, metavar="R[;R...]",
                    help="registers per thread; several values separated by ';' make one kernel shape each, "
                         "given to the kernels in turn (as --insn's mixes)")
    ap.add_argument("--smem", type=nonnegative, default=None, help="shared memory per CTA, bytes")
    ap.add_argument("--cta-ns", type=nonnegative_list, default=None, metavar="NS[;NS...]",
                    help="run time of each CTA, ns; several values separated by ';': per kernel shape, as --regs")
    ap.add_argument("--queues", type=positive, default=1, help="hardware queues (default 1)")
    ap.add_argument("--seed", type=int, default=1, help="seed for queue choice and submit jitter (default 1)")
    ap.add_argument("--device", choices=sorted(DEVICES), default="h100",
                    help="device description written in the header (default h100)")
    ap.add_argument("--submit-ns", type=nonnegative, default=5000,
                    help="mean host time between submits, ns (default 5000: cudaLaunchKernel takes 4-10 us)")
    ap.add_argument("--no-barrier", action="store_true", help="clear the AQL barrier bit of every packet")
    ap.add_argument("--name", default=None, help="kernel name (default derived from the shape)")
    ap.add_argument("--cluster", type=dims, default=None, metavar="X[,Y[,Z]]",
                    help="CTAs per cluster (GPC-CGA), per dimension; each must divide the grid's")
    ap.add_argument("--gpu-cga", type=positive, default=1, metavar="K",
                    help="clusters per GPU-CGA (default 1: none); must divide the number of clusters")
    ap.add_argument("--cluster-mode", choices=("load_balance", "multicast"), default="load_balance",
                    help="how a cluster's CTAs spread over a GPC's SMs (default load_balance)")
    ap.add_argument("--tenants", type=positive, default=None, metavar="N",
                    help="multi-tenant commands (format 1.6, seed 004): N tenants (VIDs 0..N-1), tenant v on queue "
                         "v mod --queues, their commands interleaved round-robin; --kernels in all")
    ap.add_argument("--chain", default="s,c,c", metavar="F,F,...[;F,...]",
                    help="with --tenants: each tenant's command flags, repeated: s sync, c conditional, sc both, "
                         "- neither (default s,c,c); several patterns separated by ';' go to the tenants in turn")
    ap.add_argument("--fail", action="append", default=[], metavar="VID:INDEX",
                    help="with --tenants or --seed-fig6: tenant VID's INDEX-th command (from 0) fails (repeatable)")
    ap.add_argument("--insn", default=None, metavar="CLASS=N,...",
                    help="the kernel's instruction mix (format 1.6): warp instructions per CTA of the classes "
                         "fp32, fp16, int, ldst, sfu, tensor (others 0); several kernels: mixes separated by ';', "
                         "given to the kernels in turn (the kernel of dispatch i gets mix i mod their number)")
    ap.add_argument("--priority", action="append", default=[], metavar="VID:LEVEL",
                    help="with --tenants: tenant VID's kernels have priority LEVEL, 0 (highest, the default) to 7 "
                         "(seed 001; used by cwd.admission=channels) (repeatable)")
    ap.add_argument("--independent", action="append", default=[], metavar="VID", type=nonnegative,
                    help="with --tenants: tenant VID's kernels are independent: their CTAs' warps do not depend on "
                         "each other, so cwd.split_after may split a CTA into one-warp sub-workgroups (seed 001 "
                         "emb. 3; format 1.7) (repeatable)")
    ap.add_argument("--seed-fig6", action="store_true",
                    help="seed 004 fig 6's queue: user 1: u1_1s u1_2c u1_3c, user 2: u2_1s u2_2s u2_3c u2_4c, on one "
                         "queue in the order u1_1s u2_1s u1_2c u2_2s u2_3c u2_4c u1_3c, all submitted at once "
                         "(shape options default to 1 CTA of 32 threads, 500 ns)")
    ap.add_argument("--pipeline", action="append", default=[], metavar="TOPOLOGY",
                    help="a pipeline-launch packet running this topology file (traces/TOPOLOGY.md; format 1.8), "
                         "on queue 0 before any kernel (repeatable; the shape options are then optional: without "
                         "--kernels the trace holds the pipelines alone)")
    a = ap.parse_args(argv)
    check_ranges(a, ap)
    try:
        if a.pipeline:
            return pipelines(a, ap)
        return generate(a, ap)
    except (ValueError, OverflowError, struct.error) as e:  # the writer's own checks (an input as the output, ...)
        print("gen_trace.py: error: %s" % e, file=sys.stderr)
        return 1


def generate(a, ap):
    """Everything but pipelines: the shape options checked, the trace written."""

    if a.seed_fig6:
        for k, v in (("kernels", 7), ("grid", (1, 1, 1)), ("block", 32), ("regs", [16]), ("smem", 0), ("cta_ns", [500])):
            if getattr(a, k) is None:
                setattr(a, k, v)
    missing = [o for o in ("kernels", "grid", "block", "regs", "smem", "cta_ns") if getattr(a, o) is None]
    if missing:
        ap.error("the following arguments are required: %s" % ", ".join("--" + m.replace("_", "-") for m in missing))
    flags_of = {"s": CMD_SYNC, "c": CMD_COND, "sc": CMD_SYNC | CMD_COND, "cs": CMD_SYNC | CMD_COND, "-": 0}
    chain = []
    for pattern in a.chain.split(";"):
        chain.append([])
        for f in pattern.split(","):
            if f not in flags_of:
                ap.error("--chain: '%s' is not s, c, sc or -" % f)
            chain[-1].append(flags_of[f])
    fails = set()
    for f in a.fail:
        try:
            v, i = (int(x) for x in f.split(":"))
            if v < 0 or i < 0:
                raise ValueError
        except ValueError:
            ap.error("--fail %s: expected VID:INDEX (two non-negative integers)" % f)
        if a.tenants and v >= a.tenants:
            ap.error("--fail %s: VID %d, but --tenants %d has VIDs 0 to %d" % (f, v, a.tenants, a.tenants - 1))
        fails.add((v, i))
    if a.fail and not (a.tenants or a.seed_fig6):
        ap.error("--fail needs --tenants or --seed-fig6")
    prio = {}
    for f in a.priority:
        try:
            v, lv = (int(x) for x in f.split(":"))
            if v < 0 or not 0 <= lv <= 7:
                raise ValueError
        except ValueError:
            ap.error("--priority %s: expected VID:LEVEL (LEVEL 0 to 7)" % f)
        if a.tenants and v >= a.tenants:
            ap.error("--priority %s: VID %d, but --tenants %d has VIDs 0 to %d" % (f, v, a.tenants, a.tenants - 1))
        prio[v] = lv
    if a.priority and not a.tenants:
        ap.error("--priority needs --tenants")
    if a.independent and not a.tenants:
        ap.error("--independent needs --tenants")
    for v in a.independent:
        if v >= a.tenants:
            ap.error("--independent %d: but --tenants %d has VIDs 0 to %d" % (v, a.tenants, a.tenants - 1))
    a.prio = prio
    a.mixes = []
    for spec in (a.insn.split(";") if a.insn else []):
        mix = [0] * len(INSN_CLASSES)
        for item in spec.split(","):
            k, _, v = item.partition("=")
            if k not in INSN_CLASSES or not v.isascii() or not v.isdigit():
                ap.error("--insn: '%s' is not CLASS=N with CLASS one of %s" % (item, ", ".join(INSN_CLASSES)))
            if mix[INSN_CLASSES.index(k)]:
                ap.error("--insn: '%s': %s given twice in one mix" % (item, k))
            if int(v) > U64:
                ap.error("--insn: '%s': past 2^64" % item)
            mix[INSN_CLASSES.index(k)] = int(v)
        a.mixes.append(mix)

    # kernel shapes: the i-th combines the i-th register count, CTA time and mix (each list
    # repeating); dispatch i gets shape i mod their number
    a.regs_list, a.cta_list = a.regs, a.cta_ns
    a.shapes = max(len(a.regs_list), len(a.cta_list), len(a.mixes) or 1)
    a.regs, a.cta_ns = a.regs_list[0], a.cta_list[0]
    if a.shapes > 1 and (a.seed_fig6 or clustered_opts(a)):
        ap.error("several --regs or --cta-ns values need plain kernels (no --seed-fig6, --cluster or --gpu-cga)")
    if a.block > 1024 or a.block > 65535:
        ap.error("--block %d: at most 1024 threads per CTA" % a.block)
    if a.grid[0] * a.block >= 2 ** 32:
        ap.error("--grid X x --block must be below 2^32 work-items (AQL grid_size_x is 32 bits)")
    clustered = a.cluster is not None or a.gpu_cga > 1 or a.cluster_mode != "load_balance"
    cluster = a.cluster or (1, 1, 1)
    for i, d in enumerate("XYZ"):
        if a.grid[i] % cluster[i]:
            ap.error("--cluster: the grid's %d CTAs along %s are not a multiple of the cluster's %d" % (
                a.grid[i], d, cluster[i]))
    clusters = a.grid[0] * a.grid[1] * a.grid[2] // (cluster[0] * cluster[1] * cluster[2])
    if clusters % a.gpu_cga:
        ap.error("--gpu-cga %d: the grid's %d clusters are not a multiple of it" % (a.gpu_cga, clusters))
    if a.queues > 1024:
        ap.error("--queues: at most 1024")

    rng = random.Random(a.seed)
    name = a.name or "gen_kernel_b%d_r%d_s%d" % (a.block, a.regs, a.smem)
    if a.seed_fig6 or a.tenants:
        return tenants(a, name, chain, fails, rng)
    if a.mixes or a.shapes > 1:
        return mixed(a, name, rng)
    # Format 1.0 without clusters: nothing of 1.1 is needed, so such traces stay
    # readable by every 1.x reader (and the sample trace keeps its bytes); 1.4 with.
    w = writer(a, 4 if clustered else 0)
    shape = (cluster[0], cluster[1], cluster[2], a.gpu_cga, 1 if a.cluster_mode == "multicast" else 0)
    w.kernel(1, name, a.block, a.regs, a.smem, 0, cta_ps=a.cta_ns * 1000)
    t = 1000
    for i in range(a.kernels):
        q = rng.randrange(a.queues) if a.queues > 1 else 0
        w.dispatch(q, t, 1, (a.block, 1, 1), a.grid, a.smem, not a.no_barrier, i + 1,
                   cluster=shape if clustered else None)
        t += rng.randint(a.submit_ns // 2, a.submit_ns + a.submit_ns // 2) if a.submit_ns else 0
    w.close()
    return 0


def writer(a, minor):
    """The output trace (whole or not at all: gdtrace.OutputFile), never one of the inputs."""
    return TraceWriter(a.out, DEVICES[a.device], "gen_trace.py seed=%d" % a.seed, minor=minor, inputs=a.pipeline)


def pipelines(a, ap):
    """Pipeline-launch packets on queue 0 (submitted 1 us apart from 1 us), then the
    kernels of --kernels (if given) as a plain trace would have them."""
    texts = []
    for path in a.pipeline:
        try:
            with gdtrace.open_input(path, "rb") as f:
                texts.append(f.read())
        except OSError as e:
            ap.error("--pipeline %s: %s" % (path, e.strerror))
        try:
            texts[-1].decode("utf-8")
        except UnicodeDecodeError as e:
            ap.error("--pipeline %s: not UTF-8 text (byte %d): not a topology (traces/TOPOLOGY.md)" % (path, e.start))
        if not texts[-1].strip():
            ap.error("--pipeline %s: empty: not a topology (traces/TOPOLOGY.md)" % path)
    if a.kernels is not None:
        missing = [o for o in ("grid", "block", "regs", "smem", "cta_ns") if getattr(a, o) is None]
        if missing:
            ap.error("--kernels with --pipeline needs %s" % ", ".join("--" + m.replace("_", "-") for m in missing))
    w = writer(a, 8)
    t = 1000
    for text in texts:
        w.pipeline(0, t, text, barrier=not a.no_barrier)
        t += 1000
    if a.kernels:
        rng = random.Random(a.seed)
        regs, cta_ns = a.regs[0], a.cta_ns[0]
        w.kernel(1, a.name or "gen_kernel_b%d_r%d_s%d" % (a.block, regs, a.smem), a.block, regs, a.smem, 0,
                 cta_ps=cta_ns * 1000)
        for i in range(a.kernels):
            q = rng.randrange(a.queues) if a.queues > 1 else 0
            w.dispatch(q, t, 1, (a.block, 1, 1), a.grid, a.smem, not a.no_barrier, i + 1)
            t += rng.randint(a.submit_ns // 2, a.submit_ns + a.submit_ns // 2) if a.submit_ns else 0
    w.close()
    return 0


def clustered_opts(a):
    return a.cluster is not None or a.gpu_cga > 1 or a.cluster_mode != "load_balance"


def shape_of(a, m):
    """Kernel shape m: (registers per thread, CTA ns, instruction mix or None)."""
    return (a.regs_list[m % len(a.regs_list)], a.cta_list[m % len(a.cta_list)],
            a.mixes[m % len(a.mixes)] if a.mixes else None)


def mixed(a, name, rng):
    """Several kernel shapes (format 1.6): instruction mixes, register counts, CTA times;
    one descriptor per shape, dispatch i naming shape i mod their number."""
    w = writer(a, 6)
    for m in range(a.shapes):
        regs, cta_ns, mix = shape_of(a, m)
        label = "_mix%d" % (m + 1) if a.mixes and a.shapes == len(a.mixes) and len(a.regs_list) == 1 and \
            len(a.cta_list) == 1 else "_k%d_r%d_t%d" % (m + 1, regs, cta_ns)
        w.kernel(m + 1, name + label, a.block, regs, a.smem, 0, cta_ps=cta_ns * 1000, insn=mix)
    t = 1000
    for i in range(a.kernels):
        q = rng.randrange(a.queues) if a.queues > 1 else 0
        w.dispatch(q, t, 1 + i % a.shapes, (a.block, 1, 1), a.grid, a.smem, not a.no_barrier, i + 1)
        t += rng.randint(a.submit_ns // 2, a.submit_ns + a.submit_ns // 2) if a.submit_ns else 0
    w.close()
    return 0


def tenants(a, name, chain, fails, rng):
    """Multi-tenant commands (format 1.6): seed 004 fig 6, or N tenants' chains."""
    w = writer(a, 7 if a.independent else 6)
    grid, block = a.grid, (a.block, 1, 1)
    if a.seed_fig6:
        order = [(1, 1, "s"), (2, 1, "s"), (1, 2, "c"), (2, 2, "s"), (2, 3, "c"), (2, 4, "c"), (1, 3, "c")]
        for kid, (u, n, f) in enumerate(order, 1):
            w.kernel(kid, "u%d_%d%s" % (u, n, f), a.block, a.regs, a.smem, 0, cta_ps=a.cta_ns * 1000)
        for kid, (u, n, f) in enumerate(order, 1):
            flags = (CMD_SYNC if f == "s" else CMD_COND) | (CMD_FAILS if (u, n - 1) in fails else 0)
            w.dispatch(0, 1000, kid, block, grid, a.smem, True, kid, tenant=(u, flags))
        w.close()
        return 0
    if a.shapes > 1 or a.mixes:  # several kernel shapes: dispatch i gets shape i mod their number
        for m in range(a.shapes):
            regs, cta_ns, mix = shape_of(a, m)
            w.kernel(m + 1, "%s_k%d_r%d_t%d" % (name, m + 1, regs, cta_ns), a.block, regs, a.smem, 0,
                     cta_ps=cta_ns * 1000, insn=mix)
    else:
        w.kernel(1, name, a.block, a.regs, a.smem, 0, cta_ps=a.cta_ns * 1000)
    t = 1000
    count = [0] * a.tenants
    for i in range(a.kernels):
        v = i % a.tenants
        k = count[v]
        count[v] += 1
        mine = chain[v % len(chain)]
        flags = mine[k % len(mine)] | (CMD_FAILS if (v, k) in fails else 0) | \
            (CMD_INDEPENDENT if v in a.independent else 0)
        w.dispatch(v % a.queues, t, 1 + i % a.shapes, block, grid, a.smem, bool(flags & CMD_COND), i + 1,
                   tenant=(v, flags, a.prio.get(v, 0)))
        t += rng.randint(a.submit_ns // 2, a.submit_ns + a.submit_ns // 2) if a.submit_ns else 0
    w.close()
    return 0


if __name__ == "__main__":
    sys.exit(gdtrace.run_main(main))
