"""Writing gdsim traces (format 1.10, traces/FORMAT.md) from Python, standard library
only; used by gen_trace.py and kineto2gdt.py. Also the NVIDIA occupancy rules
(tb/data/kineto/README.md; the same as model/sm/occupancy.c) that the converter
needs to spread a kernel's measured time over its waves."""
import argparse
import atexit
import fcntl
import gzip
import heapq
import os
import signal
import stat
import struct
import sys
import tempfile

MAGIC = b"\x89GDT\r\n\x1a\n"
REC_HEADER, REC_KERNEL, REC_DISPATCH, REC_BARRIER_AND, REC_BARRIER_OR, REC_NONKERNEL, REC_END = 1, 2, 3, 4, 5, 8, 15
REC_PIPELINE = 9  # format 1.8
REC_CALIBRATION = 10  # format 1.9: launch timing keys fitted to the capture (calibrate.py)
REC_HOST_THREAD, REC_HOST_CALL, REC_HOST_WAIT = 11, 12, 13  # format 1.10: the host model
HOST_LAST, HOST_POLLING = 1, 2   # host call and wait flags: the thread's last record; a polling loop
WAIT_SIGNAL, WAIT_QUEUE, WAIT_DEVICE = 1, 2, 3   # what a host wait waits for
MAX_HOST_THREADS, MAX_CALL_PACKETS = 4096, 65535
AQL_KERNEL_DISPATCH, AQL_BARRIER_AND, AQL_BARRIER_OR = 2, 3, 5
AQL_BARRIER = 1 << 8
# Fence scopes: acquire system (2) and release system (2), as CUDA and HIP runtimes set them.
AQL_FENCES = (2 << 9) | (2 << 11)
EXEC_FIXED_CTA, EXEC_PER_DISPATCH = 1, 2
UNKNOWN = 0xFFFFFFFFFFFFFFFF
CMD_SYNC, CMD_COND, CMD_FAILS = 1, 2, 4  # a multi-tenant command's flags (format 1.6; seed 004)
CMD_INDEPENDENT = 8  # a kernel whose CTAs' warps are independent (format 1.7; seed 001 emb. 3)
INSN_CLASSES = ("fp32", "fp16", "int", "ldst", "sfu", "tensor")  # a kernel's instruction mix (format 1.6)
# A packet record's flags: bit 0 of a dispatch = reference packet (1.5), of a
# non-kernel command = barrier; bit 1 of both (1.9) = launched by a CUDA/HIP graph launch;
# bit 2 of a dispatch (1.11) = a programmatic dependent launch.
DISPATCH_REFERENCE, NONKERNEL_BARRIER, PACKET_GRAPH, DISPATCH_PROGRAMMATIC = 1, 1, 2, 4
# The keys a calibration record (format 1.9) may set, all in ns: the gap from the end of a
# packet to the start of the next one of its queue when that one was already waiting
# (predecessor_successor; the graph ones when the successor came from a graph launch),
# and from the end of the awaited packet to the start of a packet a cross-stream wait held.
GAP_KEYS = ("pp.gap_kernel_kernel_ns", "pp.gap_kernel_copy_ns", "pp.gap_copy_kernel_ns", "pp.gap_copy_copy_ns",
            "pp.gap_graph_kernel_kernel_ns", "pp.gap_graph_kernel_copy_ns", "pp.gap_graph_copy_kernel_ns",
            "pp.gap_graph_copy_copy_ns", "pp.gap_after_wait_ns", "pp.gap_programmatic_lead_ns")
# And the idle launch latency (format 1.12): from the doorbell of a packet written into
# an idle queue to its start.
IDLE_KEY = "pp.idle_launch_ns"
CALIBRATION_KEYS = GAP_KEYS + (IDLE_KEY,)
# The format minor version a calibration record with these keys needs (9 otherwise).
CALIBRATION_KEY_MINOR = {"pp.gap_programmatic_lead_ns": 11, IDLE_KEY: 12}
CALIBRATION_PROVENANCE_MAX = 512   # GD_CALIBRATION_MAX_PROVENANCE (model/base/config.h): what gdsim reads
CONFIG_LINE_MAX = 255   # a calibration record's lines: gdsim reads up to 255 bytes each (model/trace/trace.c)
NONKERNEL_KINDS = {"other": 0, "memcpy_htod": 1, "memcpy_dtoh": 2, "memcpy_dtod": 3, "memcpy_htoh": 4,
                   "memcpy_peer": 5, "memset": 6}


class Device:
    """A device description: what the header record holds."""

    def __init__(self, name, cc, sms, threads_per_sm, regs_per_sm, smem_per_sm, smem_per_cta_default,
                 smem_per_cta_optin, threads_per_cta, warp_size, gpcs=()):
        self.name, self.cc, self.sms = name, cc, sms
        self.threads_per_sm, self.regs_per_sm = threads_per_sm, regs_per_sm
        self.smem_per_sm, self.smem_per_cta_default, self.smem_per_cta_optin = (
            smem_per_sm, smem_per_cta_default, smem_per_cta_optin)
        self.threads_per_cta, self.warp_size, self.gpcs = threads_per_cta, warp_size, list(gpcs)


class ArgumentParser(argparse.ArgumentParser):
    """argparse with the scripts' rule for bad input: one line on stderr (the program,
    what is wrong, where help is), exit status 2; no usage block."""

    def error(self, message):
        sys.stderr.write("%s: error: %s (see %s --help)\n" % (self.prog, message, self.prog))
        sys.exit(2)


def number(low=None, high=None, integer=False):
    """An argparse type: a finite number (a whole one when integer) from low to high
    (None: no bound), else one line saying what was wanted."""
    def parse(text):
        try:
            v = int(text) if integer else float(text)
        except ValueError:
            v = None
        if v is None or v != v or v in (float("inf"), float("-inf")) or (low is not None and v < low) or \
                (high is not None and v > high):
            raise argparse.ArgumentTypeError("%r: want a finite %s%s%s" % (
                text, "whole number" if integer else "number", "" if low is None else " of at least %g" % low,
                "" if high is None else " and at most %g" % high))
        return v
    return parse


def shown(path, most=160):
    """A path for a one-line message: control characters as '?', and a long one cut in
    the middle (as the library's messages are), so that the reason after it stays."""
    p = "".join(c if c.isprintable() else "?" for c in str(path))
    return p if len(p) <= most else p[:most // 2 - 2] + "..." + p[-(most // 2 - 2):]


def run_main(main):
    """Run a script's main() and return its exit status; however it ends, in one line:
    Ctrl-C (130) and SIGTERM (143) remove the outputs it did not finish (the atexit
    hook below) and say so; an OSError that escapes names its file; an input nested too
    deeply for Python (a JSON of 100,000 '[') says so. Other errors are the script's
    own, named where they are found."""
    prog = os.path.basename(sys.argv[0])
    try:
        signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))
    except ValueError:  # not the main thread
        pass
    try:
        return main()
    except KeyboardInterrupt:
        print("%s: interrupted; nothing more written" % prog, file=sys.stderr)
        return 130
    except BrokenPipeError:
        return 1
    except OSError as e:
        where = shown(e.filename) if e.filename is not None else ""
        print("%s: %s%s" % (prog, "%s: " % where if where else "", e.strerror or e), file=sys.stderr)
        return 1
    except RecursionError:
        print("%s: an input is nested too deeply to read" % prog, file=sys.stderr)
        return 1


def open_input(path, mode="r", **open_args):
    """Open an input file without waiting for a FIFO's writer (a FIFO nobody writes to
    would block open() for ever; it reads as empty instead), then read it as usual."""
    fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0))
    try:
        fcntl.fcntl(fd, fcntl.F_SETFL, fcntl.fcntl(fd, fcntl.F_GETFL) & ~os.O_NONBLOCK)
        if stat.S_ISDIR(os.fstat(fd).st_mode):
            raise IsADirectoryError(21, "is a directory", path)
        return os.fdopen(fd, mode, **open_args)
    except BaseException:
        os.close(fd)
        raise


_PENDING = set()   # OutputFiles neither committed nor discarded


@atexit.register
def _discard_pending():
    """However a script ends (an exception, Ctrl-C, sys.exit), an output it did not
    finish leaves no temporary file behind."""
    for o in list(_PENDING):
        o.discard()


class OutputFile:
    """An output written whole or not at all, as the library writes its own
    (docs/RELIABILITY.md, gd_out_tmp): into a new file beside `path`, PATH.part-XXXXXXXX,
    created exclusively (never a link planted there, never another run's), with the
    permissions a new file gets; commit() renames it over `path`, discard() removes it.
    Written in place, as the library does (gd_out_in_place): paths under /dev/ and
    /proc/, and a `path` that is a device or a FIFO or a link to one. A link to a
    regular file (or to nothing) is replaced by the output, its target left alone (a
    link planted at an output's name never redirects the write; replace_link=True, for
    a name the script chose itself, replaces any link). `inputs`: files this run
    reads, which the output must not be (ValueError names it). Use as a context manager
    (`with OutputFile(p) as f:` commits when the block ends normally, discards on any
    exception, Ctrl-C included) or call commit()/discard(); `f` is the open file."""

    def __init__(self, path, mode="w", inputs=(), replace_link=False, **open_args):
        self.path, self.tmp = path, None
        if not path:
            raise ValueError("an empty output path")
        for i in inputs:  # (a link to one included)
            try:
                same = os.path.exists(path) and os.path.samefile(i, path)
            except OSError:
                same = False
            if same:
                raise ValueError("%s: is an input of this run (%s); refusing to overwrite it" % (path, i))
        if replace_link and os.path.islink(path):
            os.unlink(path)  # a name the script chose: a link planted there is replaced, never followed
        try:  # as gd_out_in_place: a link to a regular file (or to nothing) is replaced, not followed
            st = os.stat(path) if os.path.islink(path) else os.lstat(path)
        except OSError:
            st = None
        if path.startswith(("/dev/", "/proc/")) or (st is not None and not stat.S_ISREG(st.st_mode)):
            # as gd_out_in_place: a device, a FIFO, a link to one of them; a FIFO nobody
            # reads is an error (ENXIO), not a wait for ever
            fd = os.open(path, os.O_WRONLY | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0))
            fcntl.fcntl(fd, fcntl.F_SETFL, fcntl.fcntl(fd, fcntl.F_GETFL) & ~os.O_NONBLOCK)
            self.f = os.fdopen(fd, mode, **open_args)
            return
        d, base = os.path.split(path)
        try:
            fd, self.tmp = tempfile.mkstemp(prefix=base + ".part-", dir=d or ".")
        except OSError as e:  # named after the output, not the temporary name
            raise type(e)(e.errno, e.strerror, path) from None
        _PENDING.add(self)
        try:
            mask = os.umask(0)
            os.umask(mask)
            os.fchmod(fd, 0o666 & ~mask)
            self.f = os.fdopen(fd, mode, **open_args)
        except BaseException:
            os.close(fd)
            os.remove(self.tmp)
            _PENDING.discard(self)
            raise

    def commit(self):
        try:
            self.f.close()
            if self.tmp is not None:
                os.replace(self.tmp, self.path)
                self.tmp = None
        except BaseException:
            self.discard()
            raise
        _PENDING.discard(self)

    def discard(self):
        try:
            self.f.close()
        except (OSError, ValueError):
            pass
        if self.tmp is not None:
            try:
                os.remove(self.tmp)
            except OSError:
                pass
            self.tmp = None
        _PENDING.discard(self)

    def __enter__(self):
        return self.f

    def __exit__(self, kind, value, tb):
        if kind is None:
            self.commit()
        else:
            self.discard()
        return False


class TraceWriter:
    """Streams records into a gzip file (same bytes for the same records: no time or
    name in the gzip header) and writes the end record on close(). The file is an
    OutputFile: `path` appears, whole, at close(); discard() (or an exception in a
    `with TraceWriter(...) as w:` block) leaves nothing. inputs: as OutputFile's."""

    def __init__(self, path, device, producer, minor=1, inputs=()):
        self.out = OutputFile(path, "wb", inputs=inputs)
        self.raw = self.out.f
        self.f = gzip.GzipFile(filename="", mode="wb", compresslevel=6, fileobj=self.raw, mtime=0)
        self.records = 0
        self.packets = 0
        self.minor = minor
        self.calibrated = False
        self.f.write(MAGIC + struct.pack("<HHI", 1, minor, 0))
        d = device
        name = d.name.encode()[:63]
        prod = producer.encode()[:255]
        payload = struct.pack("<11I", d.cc[0], d.cc[1], d.sms, d.threads_per_sm, d.regs_per_sm, d.smem_per_sm,
                              d.smem_per_cta_default, d.smem_per_cta_optin, d.threads_per_cta, d.warp_size,
                              len(d.gpcs))
        payload += struct.pack("<%dI" % len(d.gpcs), *d.gpcs)
        payload += struct.pack("<H", len(name)) + name + struct.pack("<H", len(prod)) + prod
        self.record(REC_HEADER, payload)

    def record(self, rtype, payload):
        self.f.write(struct.pack("<HHI", rtype, 0, len(payload)) + payload)
        self.records += 1
        if rtype in (REC_DISPATCH, REC_BARRIER_AND, REC_BARRIER_OR, REC_NONKERNEL, REC_PIPELINE):
            self.packets += 1
        if rtype == REC_PIPELINE and self.minor < 8:
            raise ValueError("a pipeline-launch packet needs format 1.8 (TraceWriter(minor=8))")
        if rtype in (REC_BARRIER_AND, REC_BARRIER_OR, REC_NONKERNEL) and self.minor < 2:
            raise ValueError("record type %d needs format 1.2 (TraceWriter(minor=2))" % rtype)

    def kernel(self, kid, name, threads, regs, static_smem, dynamic_smem, exec_model=EXEC_FIXED_CTA, cta_ps=0,
               insn=None):
        """insn (format 1.6): warp instructions per CTA of the classes INSN_CLASSES, a list of 6."""
        n = name.encode()[:65535]
        tail = b""
        if insn is not None:
            if self.minor < 6:
                raise ValueError("an instruction mix needs format 1.6 (TraceWriter(minor=6))")
            tail = struct.pack("<6Q", *insn)
        self.record(REC_KERNEL, struct.pack("<6IQH", kid, threads, regs, static_smem, dynamic_smem, exec_model,
                                            cta_ps, len(n)) + n + tail)

    @staticmethod
    def _info(info):
        """Launch info (cta_ps, source_id, measured_start_ns, measured_dur_ns); None: absent."""
        if info is None:
            return b""
        return struct.pack("<4Q", *(UNKNOWN if v is None else v for v in info))

    def _tenant(self, tenant):
        """A tenant field (format 1.6): (vid, flags[, priority]) with flags CMD_SYNC | CMD_COND |
        CMD_FAILS (| CMD_INDEPENDENT, format 1.7) and priority 0 (highest) .. 7."""
        if self.minor < 6:
            raise ValueError("a tenant field (VID and flags) needs format 1.6 (TraceWriter(minor=6))")
        if tenant[1] & CMD_INDEPENDENT and self.minor < 7:
            raise ValueError("the independent flag needs format 1.7 (TraceWriter(minor=7))")
        return struct.pack("<IBB2x", tenant[0], tenant[1], tenant[2] if len(tenant) > 2 else 0)

    def _graph(self, graph):
        """The graph-launched flag bit (format 1.9) of a dispatch or non-kernel command."""
        if not graph:
            return 0
        if self.minor < 9:
            raise ValueError("the graph-launched flag needs format 1.9 (TraceWriter(minor=9))")
        return PACKET_GRAPH

    def dispatch(self, queue, submit_ns, kid, block, grid, smem, barrier=True, signal=0, info=None,
                 kernarg=0, wait_until_ns=None, cluster=None, tenant=None, graph=False, programmatic=False):
        """block: (x, y, z) threads; grid: (x, y, z) CTAs. wait_until_ns (format 1.3, with
        launch info): the CTAs run at least until then (a collective waiting for its peers).
        cluster (format 1.4): (x, y, z, gpu_cga, mode): CTAs per GPC-CGA, GPC-CGAs per
        GPU-CGA, 0 load_balance / 1 multicast. tenant (format 1.6): (vid, flags). graph
        (format 1.9): the kernel came from a CUDA/HIP graph launch. programmatic (format
        1.11, with the barrier bit): a programmatic dependent launch."""
        flags = self._graph(graph)
        if programmatic:
            if self.minor < 11:
                raise ValueError("the programmatic flag needs format 1.11 (TraceWriter(minor=11))")
            if not barrier:
                raise ValueError("a programmatic dependent launch needs the barrier bit")
            flags |= DISPATCH_PROGRAMMATIC
        if tenant is not None and cluster is None:
            cluster = (1, 1, 1, 1, 0)
        dims = 3 if grid[2] > 1 or block[2] > 1 else 2 if grid[1] > 1 or block[1] > 1 else 1
        header = AQL_KERNEL_DISPATCH | AQL_FENCES | (AQL_BARRIER if barrier else 0)
        pkt = struct.pack("<HHHHHHIIIIIQQQQ", header, dims, block[0], block[1], block[2], 0,
                          grid[0] * block[0], grid[1] * block[1], grid[2] * block[2], 0, smem, kid, kernarg, 0,
                          signal)
        tail = self._info(info)
        if wait_until_ns or cluster is not None:
            if info is None and cluster is None or self.minor < 3:
                raise ValueError("a wait-until time needs launch info and format 1.3 (TraceWriter(minor=3))")
            if cluster is not None:
                if self.minor < 4:
                    raise ValueError("a cluster shape needs format 1.4 (TraceWriter(minor=4))")
                tail = self._info(info or (None, None, None, None))
            tail += struct.pack("<Q", wait_until_ns or UNKNOWN)
            if cluster is not None:
                tail += struct.pack("<4HB7x", *cluster)
        if tenant is not None:
            tail += self._tenant(tenant)
        self.record(REC_DISPATCH, struct.pack("<HHIQ", queue, flags, 0, submit_ns) + pkt + tail)

    def barrier(self, queue, submit_ns, deps, kind_or=False, barrier=True, signal=0, info=None, tenant=None):
        """An AQL barrier-AND (or -OR) packet waiting on up to 5 signals; tenant (1.6): (vid, flags)."""
        deps = list(deps) + [0] * (5 - len(deps))
        header = (AQL_BARRIER_OR if kind_or else AQL_BARRIER_AND) | AQL_FENCES | (AQL_BARRIER if barrier else 0)
        pkt = struct.pack("<HHI5QQQ", header, 0, 0, *deps[:5], 0, signal)
        tail = self._info(info if info is not None or tenant is None else (None, None, None, None))
        if tenant is not None:
            tail += self._tenant(tenant)
        self.record(REC_BARRIER_OR if kind_or else REC_BARRIER_AND,
                    struct.pack("<HHIQ", queue, 0, 0, submit_ns) + pkt + tail)

    def nonkernel(self, queue, submit_ns, kind, duration_ps, nbytes, barrier=True, signal=0, info=None, tenant=None,
                  graph=False):
        """A memcpy/memset (or other non-kernel) command that takes duration_ps on its queue;
        tenant (1.6): (vid, flags); graph (1.9): it came from a CUDA/HIP graph launch."""
        flags = (NONKERNEL_BARRIER if barrier else 0) | self._graph(graph)
        payload = struct.pack("<HHIQQQQ", queue, NONKERNEL_KINDS[kind], flags, submit_ns, duration_ps,
                              nbytes, signal)
        tail = self._info(info if info is not None or tenant is None else (None, None, None, None))
        if tenant is not None:
            tail += self._tenant(tenant)
        self.record(REC_NONKERNEL, payload + tail)

    def pipeline(self, queue, submit_ns, topology, barrier=True, signal=0):
        """A pipeline-launch packet (format 1.8): topology is the text of a topology file
        (traces/TOPOLOGY.md), bytes or str."""
        text = topology.encode() if isinstance(topology, str) else bytes(topology)
        self.record(REC_PIPELINE, struct.pack("<HHIQQII", queue, 0, 1 if barrier else 0, submit_ns, signal,
                                              len(text), 0) + text)

    def calibration(self, provenance, lines):
        """The calibration record (format 1.9): at most one, before the first packet.
        provenance: one line saying where the fit comes from (1..512 bytes of UTF-8, no
        NUL, CR or LF). lines: (key, value_ns[, comment]) tuples, or a dict {key: value_ns}
        or {key: (value_ns, comment)}; each key one of CALIBRATION_KEYS (pp.idle_launch_ns
        needs format 1.12), at most once, the value a non-negative integer, the comment
        (None: none) one line. Written in gdsim's --config syntax, one `key = value  #
        comment` line each (calibration_text)."""
        if self.minor < 9:
            raise ValueError("a calibration record needs format 1.9 (TraceWriter(minor=9))")
        text = calibration_text(lines)
        for key, minor in CALIBRATION_KEY_MINOR.items():
            if self.minor < minor and any(t.split(" = ", 1)[0] == key for t in text.splitlines()):
                raise ValueError("a calibration record that sets %s needs format 1.%d (TraceWriter(minor=%d))" % (
                    key, minor, minor))
        if self.calibrated:
            raise ValueError("a trace has at most one calibration record")
        if self.packets:
            raise ValueError("the calibration record must come before the first packet record")
        prov = provenance.encode() if isinstance(provenance, str) else bytes(provenance)
        if not 1 <= len(prov) <= CALIBRATION_PROVENANCE_MAX:
            raise ValueError("the calibration provenance must be 1 to %d bytes, not %d" % (
                CALIBRATION_PROVENANCE_MAX, len(prov)))
        if any(c in prov for c in b"\0\r\n"):
            raise ValueError("the calibration provenance must be one line (no NUL, CR or LF)")
        prov.decode()   # UTF-8 (raises UnicodeDecodeError, a ValueError)
        self.record(REC_CALIBRATION, struct.pack("<I", len(prov)) + prov + text.encode())
        self.calibrated = True

    def _host(self, what):
        if self.minor < 10:
            raise ValueError("a %s record needs format 1.10 (TraceWriter(minor=10))" % what)

    def host_thread(self, thread, start_ns, name=""):
        """Declare a host thread of the captured program (format 1.10): every one before the
        first packet. start_ns (trace time): where its first record's gap starts."""
        self._host("host thread")
        if self.packets:
            raise ValueError("host threads are declared before the first packet record")
        if not 0 <= thread < MAX_HOST_THREADS:
            raise ValueError("host thread %d: ids are 0 to %d" % (thread, MAX_HOST_THREADS - 1))
        n = name.encode()[:255]
        self.record(REC_HOST_THREAD, struct.pack("<IIQH", thread, 0, start_ns, len(n)) + n)

    def host_call(self, thread, packets, gap_ns, last=False):
        """A host call of the thread that submits the next `packets` packet records, gap_ns
        of CPU time after the thread's previous call or wait returned (format 1.10)."""
        self._host("host call")
        if not 1 <= packets <= MAX_CALL_PACKETS:
            raise ValueError("a host call submits 1 to %d packets, not %d" % (MAX_CALL_PACKETS, packets))
        self.record(REC_HOST_CALL, struct.pack("<IIQII", thread, packets, gap_ns, HOST_LAST if last else 0, 0))

    def host_wait(self, thread, kind, target, time_ns, gap_ns, tail_ns, last=False, polling=False):
        """The thread waits (format 1.10) for a signal (kind WAIT_SIGNAL, target its handle), a
        queue (WAIT_QUEUE, target the queue) or the device (WAIT_DEVICE, target 0): called at
        time_ns (trace time), gap_ns after its previous return; it returns tail_ns after
        what it waited for completed."""
        self._host("host wait")
        flags = (HOST_LAST if last else 0) | (HOST_POLLING if polling else 0)
        self.record(REC_HOST_WAIT, struct.pack("<IHHQQQQ", thread, kind, flags, target, time_ns, gap_ns, tail_ns))

    def close(self):
        try:
            self.record(REC_END, struct.pack("<QQ", self.records, self.packets))
            self.f.close()
        except BaseException:
            self.discard()
            raise
        self.out.commit()

    def discard(self):
        """Give up: nothing is written (the temporary file goes)."""
        try:
            self.f.close()
        except (OSError, ValueError):
            pass
        self.out.discard()

    def __enter__(self):
        return self

    def __exit__(self, kind, value, tb):
        if kind is None:
            self.close()
        else:
            self.discard()
        return False


def median_ns(v):
    """Median of the sorted integer list v, rounded half up to an integer (of an even
    count, the mean of the middle two)."""
    n = len(v)
    return v[n // 2] if n % 2 else (v[n // 2 - 1] + v[n // 2] + 1) // 2


def calibration_text(lines):
    """The fit in gdsim's --config syntax (`key = value  # comment` lines, '\n' ends):
    what TraceWriter.calibration writes and what calibrate.py -o writes. See
    TraceWriter.calibration for `lines`; raises ValueError on anything the record may
    not hold."""
    if isinstance(lines, dict):
        lines = [(k,) + (tuple(v) if isinstance(v, (tuple, list)) else (v,)) for k, v in lines.items()]
    out, seen = [], set()
    for line in lines:
        key, value = line[0], line[1]
        comment = line[2] if len(line) > 2 else None
        if key not in CALIBRATION_KEYS:
            raise ValueError("'%s' is not a key a calibration record may set (%s)" % (
                key, ", ".join(CALIBRATION_KEYS)))
        if key in seen:
            raise ValueError("'%s' is set twice" % key)
        seen.add(key)
        if isinstance(value, bool) or not isinstance(value, int) or value < 0:
            raise ValueError("%s: the value must be a non-negative integer (ns), not %r" % (key, value))
        text = "%s = %d" % (key, value)
        if comment is not None and any(c in comment for c in "\0\r\n"):
            raise ValueError("%s: the comment must be one line (no NUL, CR or LF)" % key)
        if comment:
            text += "  # " + comment
        if len(text.encode()) > CONFIG_LINE_MAX:
            raise ValueError("%s: the line is longer than gdsim reads in a calibration record (%d bytes)" % (
                key, CONFIG_LINE_MAX))
        out.append(text + "\n")
    if not out:
        raise ValueError("a calibration record needs at least one key")
    return "".join(out)


def parse_config(text):
    """KEY = VALUE lines of gdsim's --config syntax ('#' starts a comment, blank lines
    skipped) as {key: value text}, in order; raises ValueError on a line without '='."""
    out = {}
    for n, line in enumerate(text.split("\n"), 1):
        line = line.split("#", 1)[0].strip(" \t\r")
        if not line:
            continue
        if "=" not in line:
            raise ValueError("line %d: expected KEY = VALUE" % n)
        key, value = line.split("=", 1)
        out[key.strip(" \t")] = value.strip(" \t")
    return out


def cta_cap(cc):
    """Resident CTAs per SM by compute capability (CUDA C++ Programming Guide)."""
    return {(7, 0): 32, (7, 2): 32, (7, 5): 16, (8, 0): 32, (8, 6): 16, (8, 7): 16, (8, 9): 24,
            (9, 0): 32}.get(tuple(cc), 32)


def max_ctas_per_sm(dev, threads, regs, smem, smem_limit=None):
    """CTAs of this shape that fit in an empty SM (the occupancy calculator's rule;
    model/sm/occupancy.c). smem_limit: the per-CTA shared memory limit in force (default:
    the opt-in limit)."""
    if smem_limit is None:
        smem_limit = dev.smem_per_cta_optin
    warp = dev.warp_size
    warps = -(-threads // warp)
    limits = [dev.threads_per_sm // warp // warps, cta_cap(dev.cc)]
    if regs:
        per_warp = -(-regs * warp // 256) * 256
        limits.append((dev.regs_per_sm // 4 // per_warp) * 4 // warps)
    reserved = 1024 if dev.cc[0] >= 8 else 0
    granule = 128 if dev.cc[0] >= 8 else 256
    if smem > smem_limit:
        limits.append(0)
    elif smem + reserved:
        limits.append(dev.smem_per_sm // (-(-(smem + reserved) // granule) * granule))
    return min(limits)


class SmResources:
    """One SM's free resources as CTAs of different kernels take them: the Python twin of
    model/sm/occupancy.c's gd_sm_res (warp slots, CTA slots, shared memory, and registers
    per sub-partition, a CTA's warps spread round-robin over the 4 sub-partitions)."""
    SUBS = 4

    def __init__(self, dev):
        self.dev = dev
        self.warps = dev.threads_per_sm // dev.warp_size
        self.ctas = cta_cap(dev.cc)
        self.smem = dev.smem_per_sm
        self.regs = [dev.regs_per_sm // self.SUBS] * self.SUBS

    def cost(self, threads, regs, smem):
        dev = self.dev
        warp = dev.warp_size
        reserved = 1024 if dev.cc[0] >= 8 else 0
        granule = 128 if dev.cc[0] >= 8 else 256
        return (-(-threads // warp), -(-regs * warp // 256) * 256 if regs else 0,
                -(-(smem + reserved) // granule) * granule if smem + reserved else 0)

    def free_slots(self, cost):
        warps, rpw, smem = cost
        n = min(self.warps // warps, self.ctas)
        if smem:
            n = min(n, self.smem // smem)
        if rpw and n:
            n = min(n, sum(r // rpw for r in self.regs) // warps)
        return n

    def take(self, cost):
        warps, rpw, smem = cost
        self.warps -= warps
        self.ctas -= 1
        self.smem -= smem
        if not rpw:
            return
        q, left = divmod(warps, self.SUBS)
        need = q * rpw + (rpw if left else 0)
        if all(r >= need for r in self.regs):
            self.regs = [r - q * rpw for r in self.regs]
        else:
            left = warps
        for _ in range(left):
            best = max(range(self.SUBS), key=lambda i: (self.regs[i], -i))
            self.regs[best] -= rpw


def resident_placement(dev, resident):
    """The SMs' free resources while the CTAs in `resident` ((threads, regs, smem, ctas)
    per kernel, in launch order) hold them, each CTA placed as the model's distributor
    does on an idle GPU: on the SM with the most free slots for its kernel, lowest index
    on a tie. Returns a list of (count, SmResources) of SMs in the same state."""
    sms = [SmResources(dev) for _ in range(dev.sms)]
    for r_threads, r_regs, r_smem, r_ctas in resident:
        c = sms[0].cost(r_threads, r_regs, r_smem)
        heap = [(-sm.free_slots(c), i) for i, sm in enumerate(sms)]   # most free slots, lowest index
        heapq.heapify(heap)
        for _ in range(r_ctas):
            free, best = heapq.heappop(heap)
            if free == 0:
                break
            sms[best].take(c)
            heapq.heappush(heap, (-sms[best].free_slots(c), best))
    groups = {}
    for sm in sms:
        key = (sm.warps, sm.ctas, sm.smem, tuple(sm.regs))
        n, _ = groups.get(key, (0, sm))
        groups[key] = (n + 1, sm)
    return list(groups.values())


def slots_beside(dev, resident, threads, regs, smem, placement=None):
    """CTA slots a kernel of this shape has on the device while the CTAs in `resident`
    hold their SMs (resident_placement; or give its result as `placement`): the
    kernel's free slots summed over the SMs."""
    if placement is None:
        placement = resident_placement(dev, resident)
    c = placement[0][1].cost(threads, regs, smem)
    return sum(n * sm.free_slots(c) for n, sm in placement)


def read(path):
    """The records of a gdsim trace as dicts (for tests and tools; no validation beyond
    the framing: gdsim's reader is the one that checks a trace)."""
    with open_input(path, "rb") as raw, gzip.GzipFile(fileobj=raw, mode="rb") as f:
        data = f.read()
    if data[:8] != MAGIC:
        raise ValueError("%s: not a gdsim trace" % path)
    pos, out = 16, []
    while pos < len(data):
        rtype, _, length = struct.unpack_from("<HHI", data, pos)
        p = data[pos + 8:pos + 8 + length]
        pos += 8 + length
        rec = {"type": rtype}
        if rtype == REC_KERNEL:
            f = struct.unpack_from("<6IQH", p)
            rec.update(id=f[0], threads=f[1], regs=f[2], static_smem=f[3], dynamic_smem=f[4], exec_model=f[5],
                       cta_ps=f[6], name=p[34:34 + f[7]].decode())
            if len(p) == 34 + f[7] + 48:
                rec["insn"] = struct.unpack_from("<6Q", p, 34 + f[7])
        elif rtype in (REC_DISPATCH, REC_BARRIER_AND, REC_BARRIER_OR):
            queue, flags, _, submit = struct.unpack_from("<HHIQ", p)
            rec.update(queue=queue, submit_ns=submit)
            if rtype == REC_DISPATCH:
                rec.update(flags=flags, graph=bool(flags & PACKET_GRAPH),
                           programmatic=bool(flags & DISPATCH_PROGRAMMATIC))
                f = struct.unpack_from("<HHHHHHIIIIIQQQQ", p, 16)
                rec.update(header=f[0], setup=f[1], block=f[2:5], grid_items=f[6:9], smem=f[10], kernel=f[11],
                           signal=f[14])
                rec["grid"] = tuple(-(-rec["grid_items"][i] // rec["block"][i]) for i in range(3))
                info_at = 80
            else:
                f = struct.unpack_from("<HHI5QQQ", p, 16)
                rec.update(header=f[0], deps=[d for d in f[3:8] if d], signal=f[9])
                info_at = 80
            if len(p) > info_at:
                rec["info"] = struct.unpack_from("<4Q", p, info_at)
            if rtype == REC_DISPATCH and len(p) > info_at + 32:
                rec["wait_until_ns"] = struct.unpack_from("<Q", p, info_at + 32)[0]
            if rtype == REC_DISPATCH and len(p) > info_at + 40:
                rec["cluster"] = struct.unpack_from("<4HB", p, info_at + 40)
            tenant_at = info_at + 56 if rtype == REC_DISPATCH else info_at + 32
            if len(p) > tenant_at:
                rec["tenant"] = struct.unpack_from("<IB", p, tenant_at)
                if p[tenant_at + 5]:
                    rec["priority"] = p[tenant_at + 5]
        elif rtype == REC_NONKERNEL:
            f = struct.unpack_from("<HHIQQQQ", p)
            rec.update(queue=f[0], kind=f[1], flags=f[2], submit_ns=f[3], duration_ps=f[4], bytes=f[5], signal=f[6],
                       graph=bool(f[2] & PACKET_GRAPH))
            if len(p) > 40:
                rec["info"] = struct.unpack_from("<4Q", p, 40)
            if len(p) > 72:
                rec["tenant"] = struct.unpack_from("<IB", p, 72)
        elif rtype == REC_CALIBRATION:
            n = struct.unpack_from("<I", p)[0]
            text = p[4 + n:].decode()
            rec.update(provenance=p[4:4 + n].decode(), text=text,
                       keys={k: int(v) for k, v in parse_config(text).items()})
        elif rtype == REC_HOST_THREAD:
            f = struct.unpack_from("<IIQH", p)
            rec.update(thread=f[0], start_ns=f[2], name=p[18:18 + f[3]].decode(errors="replace"))
        elif rtype == REC_HOST_CALL:
            f = struct.unpack_from("<IIQI", p)
            rec.update(thread=f[0], packets=f[1], gap_ns=f[2], last=bool(f[3] & HOST_LAST))
        elif rtype == REC_HOST_WAIT:
            f = struct.unpack_from("<IHHQQQQ", p)
            rec.update(thread=f[0], kind=f[1], last=bool(f[2] & HOST_LAST), polling=bool(f[2] & HOST_POLLING),
                       target=f[3], time_ns=f[4], gap_ns=f[5], tail_ns=f[6])
        elif rtype == REC_HEADER:
            f = struct.unpack_from("<11I", p)
            rec.update(cc=(f[0], f[1]), sms=f[2], warp_size=f[9], gpcs=f[10])
        out.append(rec)
    return out
