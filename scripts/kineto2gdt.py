#!/usr/bin/env python3
"""Convert a PyTorch-profiler trace (Kineto Chrome-trace JSON, .json or .json.gz) into a
gdsim trace (.gdt.gz, traces/FORMAT.md).

  kineto2gdt.py IN.json[.gz] OUT.gdt.gz [--device ID] [--pid PID] [--infer-waits] [--calibrate[=F]] [-q]

What it makes of the capture (docs/KINETO.md has the details):
  - the device description from `deviceProperties` (inferred, with a warning, when absent);
  - one hardware queue per CUDA/HIP stream; every packet has the barrier bit set, as a
    stream runs its work in order;
  - kernels become dispatch packets; memcpy/memset work becomes non-kernel commands of
    its measured duration; each cross-stream wait ("Stream Wait Event") becomes a
    barrier-AND packet depending on the awaited stream's last packet before the event;
  - each packet's host submit time is the end of its launch API event (linked by
    `correlation`); one without gets the documented fallback;
  - each kernel's measured duration spread over its waves on the capturing device: its
    CTAs run duration / waves (a kernel partly beside a collective: its shape-mates'
    median duration, or the measured one without the replay's second slowdown);
  - the measured start and duration and the `correlation` id ride along as launch info;
  - kernels and copies of a CUDA/HIP graph launch (cudaGraphLaunch, ...) carry the
    graph-launched flag (format 1.9; other traces keep the format they had);
  - --calibrate[=F]: the launch gaps and the idle launch latency calibrate.fit measures
    on the capture (on the first ceil(F x n), 0 < F <= 1, of the device's n kernels by
    start and the copies before the next kernel; default all) go into the trace as a
    calibration record (format 1.9; 1.12 with the idle launch latency) that gdsim
    applies over its preset; none when nothing had enough samples (reported);
  - everything it does not convert is counted and reported on stderr, with why (-q: errors only);
  - input it cannot convert (not a Kineto trace, or an event whose fields are missing or of the
    wrong type or range) gives one error line naming the file and the event, and no output.

Python 3 standard library only. The JSON is read as a stream (the trace events are
never all in memory as Python objects); the packets are sorted in memory by submit
time, a small dict each, and written as a stream.
"""
import argparse
import bisect
import collections
import decimal
import gzip
import io
import json
import os
import statistics
import sys
import traceback
import zlib

sys.path.insert(0, os.path.dirname(os.path.realpath(__file__)))
import gdtrace  # noqa: E402
from gdtrace import (CMD_COND, CMD_SYNC, EXEC_PER_DISPATCH, MAX_HOST_THREADS, WAIT_DEVICE, WAIT_QUEUE,  # noqa: E402
                     WAIT_SIGNAL, Device, TraceWriter, max_ctas_per_sm, resident_placement, slots_beside)
import bisect  # noqa: E402
import itertools  # noqa: E402
import heapq  # noqa: E402
import math  # noqa: E402

# Host API calls that launch kernels; a CUDA graph launch submits all its kernels at once.
KERNEL_LAUNCH_APIS = {
    "cudaLaunchKernel", "cudaLaunchKernel_ptsz", "cudaLaunchKernelExC", "cudaLaunchKernelExC_ptsz",
    "cuLaunchKernel", "cuLaunchKernelEx", "cudaLaunchCooperativeKernel", "cudaLaunchCooperativeKernel_ptsz",
    "cudaLaunchCooperativeKernelMultiDevice", "cudaGraphLaunch", "cudaGraphLaunch_ptsz", "cuGraphLaunch",
    "hipLaunchKernel", "hipExtLaunchKernel", "hipModuleLaunchKernel", "hipExtModuleLaunchKernel",
    "hipLaunchCooperativeKernel", "hipGraphLaunch", "hipHccModuleLaunchKernel",
}
# The launches that can make a programmatic dependent launch (CUDA's launch attribute
# cudaLaunchAttributeProgrammaticStreamSerialization; Kineto does not record attributes).
PDL_LAUNCH_APIS = {"cudaLaunchKernelExC", "cudaLaunchKernelExC_ptsz", "cuLaunchKernelEx", "cuLaunchKernelEx_ptsz"}
# The graph launches among them: their kernels and copies are graph-launched (format 1.9
# flag; the launch-gap model's pp.gap_graph_* keys, calibrate.py).
GRAPH_LAUNCH_APIS = {"cudaGraphLaunch", "cudaGraphLaunch_ptsz", "cuGraphLaunch", "hipGraphLaunch"}
# HIP launch APIs whose grid is in work-items, not workgroups: their parameters are the
# global work size (HIP API reference: hipExtModuleLaunchKernel's globalWorkSizeX...,
# hipHccModuleLaunchKernel's likewise; hipModuleLaunchKernel takes gridDimX..., in blocks,
# as the captures show: Triton's attn_fwd, grid (2, 8, 1) of 256-work-item blocks).
# ROCm 6.4 and later copy the launch's grid onto the kernel event too (docs/KINETO.md).
GRID_IN_WORK_ITEMS = {"hipExtModuleLaunchKernel", "hipHccModuleLaunchKernel"}
# A kernel with no grid and block anywhere in the capture (a graph's kernel on ROCm, or
# one without a launch event) and no same-name kernel that has them: a full wave of
# workgroups of this many work-items, one per SM/CU (docs/KINETO.md).
ASSUMED_BLOCK = 256
# Without a launch event a kernel is taken as submitted this long before it started,
# unless the capture shows otherwise (the median over packets launched onto an idle stream).
DEFAULT_SUBMIT_LEAD_NS = 5000
# A median launch-to-start time this long onto an idle device is a clock offset, not a
# launch (clock_offset()).
CLOCK_SKEW_NS = 1000000
# The idle launch latency's median needs this many launch-to-start times to be more than
# DEFAULT_SUBMIT_LEAD_NS (idle_launch_latency()).
IDLE_MIN_SAMPLES = 3
MAX_QUEUES = 1024
# Collective-communication kernels (NCCL, RCCL): they wait inside for the other GPUs of
# the collective, which gdsim does not model; see own_work_and_peers().
COLLECTIVE_PREFIXES = ("ncclKernel", "ncclDevKernel", "rcclKernel")
# partly_beside_collectives(): a collective counts as resident when a kernel started only if
# it started at least this long before it (closer, a replay may start either first: a few
# launch gaps).
RESIDENT_LEAD_NS = 5000
# --infer-waits: a packet waiting in its queue (launch ended this long before the packet
# ahead of it ended) that starts more than INFER_WAIT_NS after that packet ended was held
# back by something else (the gaps calibrate.py averages stop there too).
INFER_WAIT_NS = 20000
INFER_QUEUED_NS = 5000
# Copy directions in the profiler's memcpy event names ("Memcpy HtoD (Pageable -> Device)")
# and in HIP's "kind" argument.
MEMCPY_KINDS = {"HtoD": "memcpy_htod", "DtoH": "memcpy_dtoh", "DtoD": "memcpy_dtod", "HtoH": "memcpy_htoh",
                "PtoP": "memcpy_peer", "Peer": "memcpy_peer"}

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


class EventError(ConvertError):
    """A field of a trace event missing or of the wrong type or range; collect() adds the
    file and the event."""


# Times (us) at or above this are refused: in ns, a time plus a duration must fit the
# trace's 64-bit fields with room to spare.
MAX_TIME_US = (1 << 62) // 1000
# The longest span (ns) from the earliest start to the latest end of what a capture
# converts: any duration or gap in it must fit a 64-bit field in picoseconds (106 days).
MAX_SPAN_NS = (1 << 63) // 1000
# Largest SM count gdsim takes (GD_MAX_GPCS x GD_MAX_SMS_PER_GPC, model/base/config.h) and
# the warp sizes its trace reader accepts (model/trace/trace.c).
MAX_SMS = 1024 * 64
MAX_WARP_SIZE = 64


# --------------------------------------------------------------------------------------
# Streaming JSON

class JsonFloat(str):
    """A JSON number with a fraction or exponent, kept as its text (exact: to_ns). A str,
    so that what used to see such numbers as strings still does; told apart from a JSON
    string by its type."""
    __slots__ = ()


NUMBER_CHARS = frozenset("0123456789+-.eE")


class JsonStream:
    """Yields the members of the top-level JSON object as (key, value), except that the
    elements of the 'traceEvents' array come one at a time as ('traceEvents', element).
    Floats stay text (JsonFloat), so times convert to nanoseconds exactly. Anything that
    is not such a JSON object (or not UTF-8 text, or a damaged gzip stream) raises
    ConvertError naming the file and where in it."""

    CHUNK = 1 << 20
    # A syntax error this many characters before the end of the text read so far is not
    # for want of more text (the longest token the decoder looks ahead over, -Infinity,
    # is 9 characters; an unterminated string is always for want of more).
    LOOKAHEAD = 16

    def __init__(self, f, path):
        self.f, self.path = f, path
        self.buf, self.i, self.eof, self.consumed = "", 0, False, 0
        self.dec = json.JSONDecoder(parse_float=JsonFloat, object_pairs_hook=_unique_members)

    def _read(self):
        """Characters read so far."""
        return self.consumed + len(self.buf)

    def _more(self):
        if self.eof:
            return False
        try:
            data = self.f.read(self.CHUNK)
        except UnicodeDecodeError as e:
            if self._read() == 0 and e.start == 0 and bytes(e.object[:2]) in (b"\xff\xfe", b"\xfe\xff"):
                raise ConvertError("%s: UTF-16 text (it starts with a UTF-16 byte-order mark); a Kineto trace is "
                                   "UTF-8 JSON" % self.path) from None
            bad = bytes(e.object[e.start:e.start + 1])
            raise ConvertError("%s: not UTF-8 text (byte 0x%s: %s)" % (self.path, bad.hex(), e.reason)) from None
        except EOFError:
            raise ConvertError("%s: the gzip data ends early (a truncated file?)" % self.path) from None
        except (zlib.error, gzip.BadGzipFile) as e:
            raise ConvertError("%s: damaged gzip data (%s)" % (self.path, e)) from None
        except OSError as e:
            raise ConvertError("%s: cannot read: %s" % (self.path, e.strerror or e)) from None
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
                if self._read() == 0:
                    raise ConvertError("%s: empty: no JSON in it" % self.path)
                raise ConvertError("%s: the JSON ends too early" % self._where())

    def _expect(self, ch, what=None):
        if self._peek() != ch:
            raise ConvertError("%s: expected '%s'%s, found %s" % (self._where(), ch, what or "",
                                                                   repr(self.buf[self.i])))
        self.i += 1

    def _cut(self, end):
        """Whether a value the decoder ended at `end` may go on in text not yet read: at
        the end of the buffer, or a number followed by nothing but number characters
        ('1.' of '1.5', '2e' of '2e3': the decoder takes the '1', the '2')."""
        if end >= len(self.buf):
            return True
        if self.buf[self.i] not in "-0123456789":
            return False
        return all(c in NUMBER_CHARS for c in itertools.islice(self.buf, end, None))

    def _value(self):
        self._peek()
        while True:
            try:
                v, end = self.dec.raw_decode(self.buf, self.i)
            except RecursionError:
                raise ConvertError("%s: the JSON is nested too deeply" % self._where()) from None
            except json.JSONDecodeError as e:
                if self.eof or (not e.msg.startswith("Unterminated string") and
                                e.pos + self.LOOKAHEAD <= len(self.buf)):
                    hint = ""
                    if e.pos < len(self.buf) and self.buf[e.pos] == "\x00":
                        hint = " (a NUL character: UTF-16 text or binary data?)"
                    msg = e.msg[:-len(" starting at")] if e.msg.endswith(" starting at") else \
                        e.msg[:-len(" at")] if e.msg.endswith(" at") else e.msg
                    raise ConvertError("%s: character %d: %s%s" % (self.path, self.consumed + e.pos, msg,
                                                                   hint)) from None
            except DuplicateMember as e:
                raise ConvertError("%s: an object names its member %s twice (which one counts?)" % (
                    self._where(), _show(e.args[0]))) from None
            except ValueError as e:   # not the syntax: an integer of too many digits
                msg = "a number of more than %d digits" % sys.get_int_max_str_digits() \
                    if "digits" in str(e) and hasattr(sys, "get_int_max_str_digits") else str(e)
                raise ConvertError("%s: %s" % (self._where(), msg)) from None
            else:
                if self.eof or not self._cut(end):
                    self.i = end
                    return v
            self._more()  # incomplete: read on (at the end of input, the next try decides)

    def items(self):
        if self._peek() != "{":
            raise ConvertError("%s: not a JSON object (a Kineto trace is {\"traceEvents\": [...], ...}): it starts "
                               "with %s" % (self._where(), repr(self.buf[self.i])))
        self.i += 1
        if self._peek() == "}":
            self.i += 1
            self._end()
            return
        seen = set()
        while True:
            at = self._where()
            key = self._value()
            if not isinstance(key, str):
                raise ConvertError("%s: expected a member name (a string), found %s" % (at, _show(key)))
            if key in seen:
                raise ConvertError("%s: the top-level object names its member %s twice (which one counts?)" % (
                    at, _show(key)))
            seen.add(key)
            self._expect(":")
            if key == "traceEvents":
                if self._peek() != "[":
                    raise ConvertError("%s: traceEvents is not a list: it starts with %s" % (
                        self._where(), repr(self.buf[self.i])))
                self.i += 1
                if self._peek() != "]":
                    while True:
                        yield key, self._value()
                        if self._peek() == ",":
                            self.i += 1
                            continue
                        break
                self._expect("]", " or ',' in traceEvents")
            else:
                yield key, self._value()
            if self._peek() == ",":
                self.i += 1
                continue
            self._expect("}", " or ','")
            self._end()
            return

    def _end(self):
        """After the top-level object: nothing but blanks (a second document, or anything
        else, is an error)."""
        while True:
            while self.i < len(self.buf) and self.buf[self.i] in " \t\r\n":
                self.i += 1
            if self.i < len(self.buf):
                raise ConvertError("%s: more after the end of the JSON object: %s (a second document, or "
                                   "damaged data?)" % (self._where(), repr(self.buf[self.i:self.i + 20])))
            if not self._more():
                return


class DuplicateMember(ValueError):
    pass


def _unique_members(pairs):
    """A JSON object whose members are all named once (json keeps the last of a name
    given twice, silently)."""
    d = dict(pairs)
    if len(d) != len(pairs):
        seen = set()
        for k, _ in pairs:
            if k in seen:
                raise DuplicateMember(k)
            seen.add(k)
    return d


def _show(v, limit=60):
    """A JSON value for a one-line message."""
    if isinstance(v, JsonFloat):
        return str(v) if len(v) <= limit else v[:limit] + "..."
    if v is None:
        return "null"
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, float):   # the parser's NaN, Infinity, -Infinity
        return "NaN" if v != v else "Infinity" if v > 0 else "-Infinity"
    if isinstance(v, int):
        return str(v) if -10 ** 18 < v < 10 ** 18 else "an integer of %d digits" % len(str(abs(v)))
    if isinstance(v, str):
        r = repr(v)
        return r if len(r) <= limit else r[:limit] + "..."
    if isinstance(v, list):
        return "a list of %d" % len(v)
    if isinstance(v, dict):
        return "an object"
    return type(v).__name__


def open_text(path):
    """The capture as text (gzip or not), opened without waiting for a FIFO's writer."""
    raw = gdtrace.open_input(path, "rb")
    try:
        gz = raw.peek(2)[:2] == b"\x1f\x8b"
        return io.TextIOWrapper(gzip.GzipFile(fileobj=raw, mode="rb") if gz else raw, encoding="utf-8")
    except BaseException:
        raw.close()
        raise


def to_ns(v):
    """A Kineto time (microseconds, int or decimal text) in integer nanoseconds, half up."""
    if isinstance(v, int):
        return v * 1000
    d = decimal.Decimal(v) * 1000
    return int(d.to_integral_value(rounding=decimal.ROUND_HALF_UP))


# --------------------------------------------------------------------------------------
# Trace event fields, checked (EventError names the field)

def _time(e, key, required):
    """A time or duration in us, as integer ns: a JSON number, finite, not negative,
    below MAX_TIME_US. Absent: an error if required, else 0."""
    if key not in e:
        if required:
            raise EventError("no '%s'" % key)
        return 0
    v = e[key]
    if isinstance(v, float):
        raise EventError("'%s' is %s, not a finite number" % (key, _show(v)))
    if isinstance(v, bool) or not isinstance(v, (int, JsonFloat)):
        raise EventError("'%s' is not a number: %s" % (key, _show(v)))
    out_of_range = "'%s' is out of range: %s (microseconds; at most %d)" % (key, _show(v), MAX_TIME_US - 1)
    try:
        d = v if isinstance(v, int) else decimal.Decimal(v)
    except decimal.DecimalException:   # an exponent beyond the decimal module's
        raise EventError(out_of_range) from None
    if d < 0:
        raise EventError("'%s' is negative: %s" % (key, _show(v)))
    if d >= MAX_TIME_US:
        raise EventError(out_of_range)
    return to_ns(v)


def _int(d, key, lo, hi, where=""):
    """An integer lo <= v < hi, or None (absent or null)."""
    v = d.get(key)
    if v is None:
        return None
    if isinstance(v, bool) or not isinstance(v, int):
        raise EventError("'%s%s' is not an integer: %s" % (where, key, _show(v)))
    if not lo <= v < hi:
        raise EventError("'%s%s' is out of range: %s (%d to %d)" % (where, key, _show(v), lo, hi - 1))
    return v


def _id(d, key, where="", default=None):
    """A device, stream, process or thread id: an integer or a string; None (null);
    default when absent."""
    if key not in d:
        return default
    v = d[key]
    if v is None or isinstance(v, str) or (isinstance(v, int) and not isinstance(v, bool)):
        return v
    raise EventError("'%s%s' is not an integer or a string: %s" % (where, key, _show(v)))


def _str(d, key, default, where=""):
    v = d.get(key, default)
    if not isinstance(v, str):
        raise EventError("'%s%s' is not a string: %s" % (where, key, _show(v)))
    return v


def _opt_str(d, key, where=""):
    v = d.get(key)
    if v is not None and not isinstance(v, str):
        raise EventError("'%s%s' is not a string: %s" % (where, key, _show(v)))
    return v


def _shape(d, key, where="args."):
    """A grid or block: a list of 3 integers (their range is the conversion's to judge),
    or None."""
    v = d.get(key)
    if v is None:
        return None
    if not (isinstance(v, list) and len(v) == 3 and
            all(isinstance(x, int) and not isinstance(x, bool) and -(1 << 63) <= x < 1 << 63 for x in v)):
        raise EventError("'%s%s' is not a list of 3 integers: %s" % (where, key, _show(v)))
    return list(v)


def _number(d, key, where="args.", keep=False):
    """A finite, non-negative JSON number as a float (keep: as it came), or None."""
    v = d.get(key)
    if v is None:
        return None
    if isinstance(v, bool) or not isinstance(v, (int, float, JsonFloat)):
        raise EventError("'%s%s' is not a number: %s" % (where, key, _show(v)))
    try:
        f = float(v)
    except OverflowError:   # an integer beyond a float's range
        f = float("inf")
    if f != f or f in (float("inf"), float("-inf")):
        raise EventError("'%s%s' is %s, not a finite number" % (where, key, _show(v)))
    if f < 0:
        raise EventError("'%s%s' is negative: %s" % (where, key, _show(v)))
    return v if keep else f


def _label(e):
    """How an error names a trace event: ' (category 'name')'."""
    cat, name = e.get("cat"), e.get("name")
    parts = [cat if isinstance(cat, str) else None, _show(name) if isinstance(name, str) else None]
    parts = [p for p in parts if p]
    return " (%s)" % " ".join(parts) if parts else ""


# --------------------------------------------------------------------------------------
# Collecting the capture

class Capture:
    def __init__(self, path=None):
        self.path = path                   # the capture file
        self.device_props = None
        self.kernels = []                  # per kernel event: dict of what we use
        self.commands = []                 # per gpu_memcpy / gpu_memset event
        self.waits = []                    # per cuda_sync "Stream Wait Event"
        self.syncs = {}                    # correlation -> cuda_sync "Stream Sync" / "Event Sync" / "Context Sync"
        self.unresolved_calls = set()      # cudaStreamWaitEvent calls resolve_wait_calls could not rebuild
        self.unlinked_calls = set()        # cudaStreamWaitEvent calls of unlinked cuda_sync waits (unlinked_waits)
        self.runtime = {}                  # correlation -> (name, ts_ns, end_ns, pid, args)
        self.skipped = collections.Counter()  # (what, why) -> count: events not converted
        self.assumed = collections.Counter()  # (what, how) -> count: converted with an assumption
        self.events = 0
        self.rocm = False                  # a ROCm capture (roctracer/HIP version keys, ROCM_KEYS)
        self.clock = None                  # align_clocks: (device, offset ns, packets judged) once aligned
        self.clock_agreed = None           # align_clocks: (offset not applied, a device synchronize's return - work end)


def event_kind(e):
    cat = e.get("cat")
    if cat:
        return cat if isinstance(cat, str) else "(category %s)" % _show(cat)
    ph = e.get("ph")
    if ph is not None and not isinstance(ph, str):
        return "(no category, ph %s)" % _show(ph)
    return {"M": "metadata", "i": "instant", "I": "instant"}.get(ph, "(no category, ph %s)" % ph)


CORR_RANGE = (-(1 << 63), 1 << 63)
# Kineto's categories before PyTorch 1.10 (2021): the same events under other names.
CATEGORY_2021 = {"Kernel": "kernel", "Runtime": "cuda_runtime", "Driver": "cuda_driver", "Memcpy": "gpu_memcpy",
                 "Memset": "gpu_memset"}
# Top-level keys Kineto writes only on ROCm (its roctracer / rocprofiler back end).
ROCM_KEYS = ("roctracer_version", "hip_runtime_version", "hip_driver_version")


def collect(path, pid_filter):
    """The capture's kernels, copies, waits and host API calls (Capture). Raises
    ConvertError for a file that is not a Kineto trace, naming the trace event (its
    index in traceEvents) whose fields the conversion cannot use."""
    cap = Capture(path)
    with open_text(path) as f:
        for key, val in JsonStream(f, path).items():
            if key == "deviceProperties":
                cap.device_props = val
            if key in ROCM_KEYS:
                cap.rocm = True
            if key != "traceEvents":
                continue
            index = cap.events
            cap.events += 1
            if not isinstance(val, dict):
                raise ConvertError("%s: traceEvents[%d] is not an object: %s" % (path, index, _show(val)))
            try:
                collect_event(cap, val, pid_filter)
            except EventError as err:
                raise ConvertError("%s: traceEvents[%d]%s: %s" % (path, index, _label(val), err)) from None
    starts = itertools.chain((k["ts"] for k in cap.kernels), (c["ts"] for c in cap.commands),
                             (w["ts"] for w in cap.waits), (rt[1] for rt in cap.runtime.values()))
    ends = itertools.chain((k["ts"] + k["dur"] for k in cap.kernels), (c["ts"] + c["dur"] for c in cap.commands),
                           (w["end"] for w in cap.waits), (rt[2] for rt in cap.runtime.values()))
    first, last = min(starts, default=0), max(ends, default=0)
    if last - first > MAX_SPAN_NS:
        raise ConvertError("%s: its kernels, copies, waits and launch calls span %.1f days from the first start to the "
                           "last end (times or durations out of range?); at most %.1f days convert" % (
                               path, (last - first) / 86400e9, MAX_SPAN_NS / 86400e9))
    return cap


def collect_event(cap, e, pid_filter):
    cat = e.get("cat")
    cat = CATEGORY_2021.get(cat, cat) if isinstance(cat, str) else cat
    if not isinstance(cat, str) or cat not in ("kernel", "gpu_memcpy", "gpu_memset", "cuda_sync", "cuda_runtime",
                                               "cuda_driver"):
        cap.skipped[(event_kind(e), WHY.get(event_kind(e), "not dispatch work"))] += 1
        return
    if cat in ("cuda_runtime", "cuda_driver") and pid_filter is not None and e.get("pid") != pid_filter:
        cap.skipped[("%s event" % cat, "another host process (--pid %s)" % pid_filter)] += 1
        return
    args = e.get("args")
    if args is None:
        args = {}
    elif not isinstance(args, dict):
        raise EventError("'args' is not an object: %s" % _show(args))
    name = _str(e, "name", "")
    pid = _id(e, "pid")
    ts, dur = _time(e, "ts", True), _time(e, "dur", False)
    corr = _int(args, "correlation", *CORR_RANGE, where="args.")
    if cat == "cuda_sync":
        kind = _opt_str(args, "cuda_sync_kind", "args.") or name
        if kind != "Stream Wait Event":   # what a host wait waited for (host_model)
            if corr is None or corr in cap.syncs:
                cap.skipped[("cuda_sync '%s'" % kind, "no correlation id, or one another cuda_sync event has: "
                                                      "no call to attach it to")] += 1
                return
            cap.syncs[corr] = dict(kind=kind, ts=ts, end=ts + dur, device=_id(args, "device", "args."),
                                   stream=_id(args, "stream", "args."),
                                   wait_stream=_id(args, "wait_on_stream", "args."),
                                   record=_int(args, "wait_on_cuda_event_record_corr_id", *CORR_RANGE, where="args."))
            return
    if cat == "kernel":
        cap.kernels.append(dict(name=name, ts=ts, dur=dur, device=_id(args, "device", "args.", pid),
                                stream=_id(args, "stream", "args."), corr=corr, grid=_shape(args, "grid"),
                                block=_shape(args, "block"),
                                regs=_int(args, "registers per thread", 0, 1 << 32, "args."),
                                smem=_int(args, "shared memory", 0, 1 << 32, "args."),
                                est=_number(args, "est. achieved occupancy %", keep=True),
                                bps=_number(args, "blocks per SM")))
    elif cat in ("gpu_memcpy", "gpu_memset"):
        cap.commands.append(dict(cat=cat, name=name, ts=ts, dur=dur, device=_id(args, "device", "args.", pid),
                                 stream=_id(args, "stream", "args."), corr=corr,
                                 bytes=_int(args, "bytes", 0, 1 << 64, "args."), kind=_opt_str(args, "kind", "args.")))
    elif cat == "cuda_sync":   # a Stream Wait Event
        cap.waits.append(dict(ts=ts, end=ts + dur, device=_id(args, "device", "args."),
                              stream=_id(args, "stream", "args."),
                              wait_stream=_id(args, "wait_on_stream", "args."),
                              record=_int(args, "wait_on_cuda_event_record_corr_id", *CORR_RANGE, where="args."),
                              event=_int(args, "wait_on_cuda_event_id", *CORR_RANGE, where="args."),
                              corr=corr))
    else:   # cuda_runtime, cuda_driver
        keep = {}
        for k in ("grid", "block"):
            if k in args:
                keep[k] = _shape(args, k)
        if "shared memory" in args:
            keep["shared memory"] = _int(args, "shared memory", 0, 1 << 32, "args.")
        if corr is None:  # (before, such calls overwrote each other under no id)
            cap.skipped[("runtime call %s" % name, "no correlation id: no work to link it to")] += 1
            return
        if corr in cap.runtime:  # a correlation id names one call: the first keeps it
            cap.skipped[("runtime call %s" % name, "its correlation id %d is another runtime call's: which "
                                                          "call launched the work is not known" % corr)] += 1
            return
        cap.runtime[corr] = (name, ts, ts + dur, pid, keep or None, _id(e, "tid"))


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
    "Operator": "host-side PyTorch operator (its launches are converted through the runtime events)",
}


# --------------------------------------------------------------------------------------
# The device

# The deviceProperties fields that describe a device (all but its id and memory size):
# entries equal in these describe the same kind of GPU.
DESCRIBING = ("name", "computeMajor", "computeMinor", "numSms", "maxThreadsPerBlock", "maxThreadsPerMultiprocessor",
              "regsPerBlock", "regsPerMultiprocessor", "warpSize", "sharedMemPerBlock", "sharedMemPerMultiprocessor",
              "maxSharedMemoryPerMultiProcessor", "sharedMemPerBlockOptin")


def props_entry(props, device_id, rocm, notes):
    """The deviceProperties entry that describes `device_id`, or None. CUDA numbers a
    GPU the same in both places. ROCm's kernel events name the GPU by its HSA agent
    index, CPU agents first (a GPU behind one CPU agent is 1, behind two 2; the ninth
    GPU of a two-socket node is 9), while deviceProperties lists the process's visible
    GPUs from id 0: one entry is the one GPU; among several, entries that describe the
    same GPU make the choice moot, and otherwise the agent index cannot be told from a
    GPU index, so the entry of that id is taken (said in notes). Raises ConvertError
    when props are not a list of objects."""
    if props is None:
        return None
    if not isinstance(props, list):
        raise ConvertError("deviceProperties is not a list: %s" % _show(props))
    for i, d in enumerate(props):
        if not isinstance(d, dict):
            raise ConvertError("deviceProperties[%d] is not an object: %s" % (i, _show(d)))
    of_id = [d for i, d in enumerate(props) if d.get("id", i) == device_id]
    entry = of_id[-1] if of_id else None   # (the last of an id, as before)
    if not rocm or not props:
        return entry
    if len(props) == 1:
        if entry is None:
            notes.append("device %s is the capture's one GPU (ROCm names it by its HSA agent index): its "
                         "deviceProperties entry has id %s" % (device_id, props[0].get("id", 0)))
        return props[0]
    same = all(all(d.get(f) == props[0].get(f) for f in DESCRIBING) for d in props)
    if same:
        return entry or props[0]
    if entry is not None:
        notes.append("ROCm names device %s by its HSA agent index, and the capture's %d deviceProperties entries "
                     "differ: the one with id %s is taken (agent and GPU index may differ by the CPU agents)" % (
                         device_id, len(props), device_id))
    return entry


def device_from_props(props, device_id, warnings, rocm=False):
    """The Device of `device_id` from the capture's deviceProperties (props_entry), or
    None when they do not describe it. Raises ConvertError (without the file name) when
    they are not a list of objects, or the device's fields are not integers gdsim takes."""
    p = props_entry(props, device_id, rocm, warnings)
    if p is None:
        return None
    missing = []

    def field(n):
        v = p[n]
        if isinstance(v, bool) or not isinstance(v, int) or not 0 <= v < 1 << 32:
            raise ConvertError("deviceProperties of device %s: '%s' is not an integer from 0 to %d: %s" % (
                device_id, n, (1 << 32) - 1, _show(v)))
        return v

    def get(*names, default=None):
        for n in names:
            if n in p:
                if n != names[0]:
                    missing.append("%s (used %s)" % (names[0], n))
                return field(n)
        missing.append("%s (used %s)" % (names[0], default))
        return default

    regs = get("regsPerMultiprocessor", "regsPerBlock", default=65536)
    name = p.get("name", "")
    if not isinstance(name, str):
        raise ConvertError("deviceProperties of device %s: 'name' is not a string: %s" % (device_id, _show(name)))
    cc = tuple(field(n) if n in p else 0 for n in ("computeMajor", "computeMinor"))
    if not name.strip():   # (vLLM's ROCm captures have an empty name)
        name = ("AMD gfx%d.%d GPU, %s CUs" if rocm else "GPU of compute capability %d.%d, %s SMs") % (
            cc[0], cc[1], p.get("numSms", "?")) + " (deviceProperties give no name)"
    dev = Device(name=name, cc=cc,
                 sms=get("numSms", default=0), threads_per_sm=get("maxThreadsPerMultiprocessor", default=2048),
                 regs_per_sm=regs,
                 smem_per_sm=get("sharedMemPerMultiprocessor", "maxSharedMemoryPerMultiProcessor", default=0),
                 smem_per_cta_default=get("sharedMemPerBlock", default=49152),
                 smem_per_cta_optin=0, threads_per_cta=get("maxThreadsPerBlock", default=1024),
                 warp_size=get("warpSize", default=32))
    dev.smem_per_cta_optin = field("sharedMemPerBlockOptin") if "sharedMemPerBlockOptin" in p else \
        dev.smem_per_cta_default
    if "sharedMemPerBlockOptin" not in p:
        missing.append("sharedMemPerBlockOptin (taken as sharedMemPerBlock)")
    if dev.smem_per_cta_optin > dev.smem_per_sm:
        dev.smem_per_cta_optin = dev.smem_per_sm
    # what gdsim's trace reader requires of a device (model/trace/trace.c), and the
    # conversion divides by
    bad = []
    if not 1 <= dev.sms <= MAX_SMS:
        bad.append("numSms %s (1 to %d)" % (dev.sms if "numSms" in p else "missing", MAX_SMS))
    if not 1 <= dev.warp_size <= MAX_WARP_SIZE:
        bad.append("warpSize %d (1 to %d)" % (dev.warp_size, MAX_WARP_SIZE))
    elif dev.threads_per_sm < dev.warp_size:
        bad.append("maxThreadsPerMultiprocessor %d (at least the warp size)" % dev.threads_per_sm)
    if dev.threads_per_cta < 1:
        bad.append("maxThreadsPerBlock 0")
    if dev.regs_per_sm < 1:
        bad.append("%s 0" % ("regsPerMultiprocessor" if "regsPerMultiprocessor" in p else "regsPerBlock"))
    if bad:
        raise ConvertError("deviceProperties of device %s out of range: %s" % (device_id, ", ".join(bad)))
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
        if g and k.get("est") is not None and k.get("bps") and prod(g) > 0:
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
        raise ConvertError("the trace has no deviceProperties of the device and no kernel gives 'blocks per SM' to "
                           "infer the SM count from")
    n = sms.most_common(1)[0][0]
    if not 1 <= n <= MAX_SMS:
        raise ConvertError("the trace has no deviceProperties, and its kernels' 'blocks per SM' give %d SMs (1 to %d)"
                           % (n, MAX_SMS))
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


def deferred_doorbell(k, busy_until, lead, launch_starts):
    """Whether packet k (its stream's work before it ended by busy_until) is a copy from
    pageable host memory whose DMA the driver started after the launch call returned:
    onto an idle stream, more than the idle launch latency lead after the call's end,
    and before its thread's next launch call began (launch_starts: the start times of
    each thread's launch calls, sorted), whose packets the thread's order puts after it."""
    if k["type"] != "command" or k["rt"] is None or "Pageable -> " not in (k.get("name") or "") or \
            (busy_until is not None and busy_until > k["rt"][2]) or k["ts"] - lead <= k["rt"][2]:
        return False
    starts = launch_starts.get(_thread_of(k["rt"]), [])
    i = bisect.bisect_right(starts, k["rt"][1])
    return i == len(starts) or starts[i] >= k["ts"] - lead


def programmatic_launches(per_stream):
    """The kernels that were programmatic dependent launches, by the capture's evidence:
    launched by a PDL_LAUNCH_APIS call, they started before the kernel ahead of them on
    their stream (their primary) ended. Kineto records no launch attributes; on the
    shared H100 captures and the public B200 one every kernel that started before its
    stream predecessor ended came from such a call (148, 16 and 74 of them), and none
    from another. Such a kernel's CTAs wait for their primary's work
    (cudaGridDependencySynchronize) inside its measured run: what it ran on its own is
    the time after its primary ended (its own_dur, over its waves). Returns {id(kernel)}."""
    out = set()
    for items in per_stream.values():
        for a, b in zip(items, items[1:]):
            if b["type"] == "kernel" and a["type"] == "kernel" and b["rt"] is not None and \
                    b["rt"][0] in PDL_LAUNCH_APIS and b["ts"] < a["ts"] + a["dur"]:
                out.add(id(b))
                if "own_dur" not in b:
                    b["own_dur"] = max(1, b["ts"] + b["dur"] - (a["ts"] + a["dur"]))
    return out


def _after_earlier(ks):
    """Each packet of a stream's list (in the order they ran) with the latest end of the
    packets before it (None for the first)."""
    busy_until = None
    for k in ks:
        yield k, busy_until
        if k.get("ts") is not None:
            end = k["ts"] + k["dur"]
            busy_until = end if busy_until is None else max(busy_until, end)


def idle_launches(items):
    """The packets launched onto an idle stream: those whose stream had finished
    everything before them (by the capture's timestamps) when their launch call ended.
    items: dicts with ts, dur, stream, corr and rt (the launch call's runtime tuple, or
    None). Yields (item, start - end of the launch call in ns, whether a graph launch
    launched it), stream by stream in the order the packets ran."""
    by_stream = collections.defaultdict(list)
    for k in items:
        by_stream[k["stream"]].append(k)
    for ks in by_stream.values():
        ks.sort(key=lambda k: (k["ts"], k["corr"] if k["corr"] is not None else -1))
        for k, busy_until in _after_earlier(ks):
            if k["rt"] is not None and (busy_until is None or busy_until <= k["rt"][2]):
                yield k, k["ts"] - k["rt"][2], k["rt"][0] in GRAPH_LAUNCH_APIS


def idle_launch_latency(items, info=None):
    """L: the median of (start - end of the launch call), at least 0, over the packets
    whose stream had finished everything before them when their launch call ended;
    graph launches only when there is no other (their kernels start after the graph's
    own set-up, or before the call returns); DEFAULT_SUBMIT_LEAD_NS if there are none;
    from fewer than IDLE_MIN_SAMPLES, no more than DEFAULT_SUBMIT_LEAD_NS (one packet of a
    vLLM capture started 547 us after its call onto an idle stream: what held it is not in
    the capture). info, a dict, gets the gaps used: n, lo, hi, graph (whether they were
    graph launches), capped (the few-sample bound applied)."""
    gaps = ([], [])   # launched by a graph launch: no, yes
    for k, gap, graph in idle_launches(items):
        gaps[graph].append(gap)
    used = gaps[0] or gaps[1]
    lead = max(0, int(statistics.median(used))) if used else DEFAULT_SUBMIT_LEAD_NS
    capped = bool(used) and len(used) < IDLE_MIN_SAMPLES and lead > DEFAULT_SUBMIT_LEAD_NS
    if info is not None:
        info.update(n=len(used), lo=min(used, default=None), hi=max(used, default=None), graph=not gaps[0],
                    capped=capped)
    return DEFAULT_SUBMIT_LEAD_NS if capped else lead


def align_clocks(cap, device_id):
    """Moves the host's events (launch and sync calls) later by clock_offset() of the
    device's kernels and copies, once per capture; returns (offset ns, packets judged)."""
    if cap.clock is None:
        items = [dict(ts=k["ts"], dur=k["dur"], rt=cap.runtime.get(k["corr"]), corr=k["corr"])
                 for k in cap.kernels + cap.commands if k["device"] == device_id and k["corr"] is not None]
        off, n = clock_offset(items)
        if off:
            agree = device_sync_agrees(cap, items)
            if agree is not None:
                cap.clock_agreed = (off, agree)
                off = 0
        if off:
            cap.runtime = {c: (r[0], r[1] + off, r[2] + off) + r[3:] for c, r in cap.runtime.items()}
            for sy in cap.syncs.values():
                sy["ts"] += off
                sy["end"] += off
        cap.clock = (device_id, off, n)
    return cap.clock[1:]


def device_sync_agrees(cap, items):
    """A device synchronize that waited (it began before the device's work launched ahead
    of it ended) and returned no more than CLOCK_SKEW_NS before that work's end, in the
    capture's own times: the clocks agree (with the GPU clock behind, it would return that
    far before the work's end), and a capture whose packets all started long after their
    launch calls had a GPU busy with work launched before its window. Returns the
    synchronize's (return - work's end) in ns, or None when no synchronize says."""
    ends = sorted((k["corr"], k["ts"] + k["dur"]) for k in items if isinstance(k["corr"], int))
    latest = list(itertools.accumulate((e for _, e in ends), max))
    corrs = [c for c, _ in ends]
    for corr, rt in sorted((c, r) for c, r in cap.runtime.items() if isinstance(c, int)):
        if HOST_WAIT_CALLS.get(rt[0]) != "device":
            continue
        i = bisect.bisect_left(corrs, corr)   # the device's work launched before the call
        if i and rt[1] < latest[i - 1] and rt[2] >= latest[i - 1] - CLOCK_SKEW_NS:
            return rt[2] - latest[i - 1]
    return None


def clock_offset(items):
    """How far the capture's GPU clock runs behind its host clock: 0 unless no packet
    started within CLOCK_SKEW_NS of its launch call's end (nor before it), as on every
    NVIDIA capture here (on each, the quickest start is at most 58 ns after its call);
    then the quickest such start less DEFAULT_SUBMIT_LEAD_NS. Kineto's ROCm back end
    converts GPU timestamps to the host's clock with one offset taken after the
    collection (pytorch/kineto #1082, #991): four public MI300X captures have no packet
    that started within 7 ms of its launch call (9.2, 21.2, 7.3 and 146 ms), where the
    others start 4 to 20 us after theirs. Graph launches are left out. Returns (offset
    ns, launch calls judged)."""
    gaps = [k["ts"] - k["rt"][2] for k in items if k["rt"] is not None and k["rt"][0] not in GRAPH_LAUNCH_APIS]
    if not gaps or min(gaps) < CLOCK_SKEW_NS:
        return 0, len(gaps)
    return min(gaps) - DEFAULT_SUBMIT_LEAD_NS, len(gaps)


def waves_beside_resident(kernels, dev):
    """A kernel that ran while kernels of other streams held SMs for its whole measured
    run (an NCCL kernel holds a few SMs for milliseconds) had only the slots they left:
    count its waves on those (gdtrace.resident_placement, slots_beside), so that replaying the capture, where
    the same kernels again run side by side, reproduces its measured duration. Kernels
    that overlapped others only in part keep the waves of an idle GPU (those a collective
    held SMs beside when they started: partly_beside_collectives). Updates k["waves"];
    returns how many kernels changed."""
    order = sorted(kernels, key=lambda k: (k["ts"], k["corr"] if isinstance(k["corr"], int) else -1))
    active, placements, changed = [], {}, 0
    for k in order:
        end = k["ts"] + k["dur"]
        active = [a for a in active if a["ts"] + a["dur"] > k["ts"]]
        beside = [a for a in active if a["stream"] != k["stream"] and a["ts"] + a["dur"] >= end]
        if beside:
            resident = tuple((a["threads"], a["regs"], a["smem"], prod(a["grid"])) for a in beside)
            if resident not in placements:
                placements[resident] = resident_placement(dev, resident)
            slots = slots_beside(dev, resident, k["threads"], k["regs"], k["smem"], placements[resident])
            if slots >= 1:
                waves = -(-prod(k["grid"]) // slots)
                if waves != k["waves"]:
                    k["waves"] = waves
                    changed += 1
        active.append(k)
    return changed


def own_work_and_peers(kernels):
    """A collective kernel's measured duration is mostly waiting for its peer GPUs: it
    ends when the slowest of them has sent its part, whenever it started. gdsim models
    one GPU, so the peers are an input: the kernel's CTAs run at least until its
    measured end (format 1.3 wait_until_ns, trace time), and for their own work the
    shortest measured duration of that kernel with the same grid and block in the
    capture (the run that waited least). Replayed on the capturing device, a collective
    that starts on time ends on time, and one that starts late (behind a wait the replay
    got wrong) ends its own work later, not a whole measured duration later. Sets
    k["own_dur"] and k["wait_until"]; returns how many kernels are collectives."""
    shortest = {}
    coll = [k for k in kernels if k["name"].startswith(COLLECTIVE_PREFIXES)]
    for k in coll:
        key = (k["name"], tuple(k["grid"]), tuple(k["block"]))
        shortest[key] = min(shortest.get(key, k["dur"]), k["dur"])
    for k in coll:
        k["own_dur"] = shortest[(k["name"], tuple(k["grid"]), tuple(k["block"]))]
        k["wait_until"] = k["ts"] + k["dur"]
    return len(coll)


def finish_ps(ctas, cta_ps, segments):
    """When the last of `ctas` CTAs of cta_ps each ends, started greedily on the slots
    `segments` gives ((from_ps, slots), ... from 0 on, the last slot count for ever):
    each CTA starts as soon as a slot is free, and keeps its slot until it ends. A
    batch of CTAs that started together restarts together while CTAs are left."""
    batches, left = [], ctas          # [end_ps, CTAs]: every batch runs until `left` is 0
    for j, (start, slots) in enumerate(segments):
        until = segments[j + 1][0] if j + 1 < len(segments) else None
        add = min(left, slots - sum(c for _, c in batches))
        if add > 0:
            batches.append([start + cta_ps, add])
            left -= add
        while left:
            due = [b for b in batches if until is None or b[0] < until]
            if not due:
                break
            n = sum(c for _, c in due)
            rounds = left // n
            if until is not None:
                rounds = min([rounds] + [-(-(until - b[0]) // cta_ps) for b in due])
            if rounds:
                for b in due:
                    b[0] += rounds * cta_ps
                left -= rounds * n
                continue
            for b in sorted(due):            # fewer CTAs left than due: the earliest take them
                take = min(b[1], left)
                if take < b[1]:
                    batches.append([b[0], b[1] - take])   # these slots stay idle
                    b[1] = take
                b[0] += cta_ps
                left -= take
                if not left:
                    break
    return max(b[0] for b in batches)


def cta_ps_for(ctas, dur_ps, segments):
    """The CTA time (ps) with which finish_ps(ctas, ., segments) comes nearest dur_ps (a
    tie: the longer). finish_ps grows with the CTA time: a bisection."""
    lo, hi = 1, max(1, dur_ps)
    while lo < hi:
        mid = (lo + hi) // 2
        if finish_ps(ctas, mid, segments) >= dur_ps:
            hi = mid
        else:
            lo = mid + 1
    if lo > 1 and dur_ps - finish_ps(ctas, lo - 1, segments) < finish_ps(ctas, lo, segments) - dur_ps:
        return lo - 1
    return lo


def partly_beside_collectives(kernels, dev):
    """A kernel that a collective kernel of another stream (a few SMs for milliseconds)
    held SMs beside when it started (the collective started RESIDENT_LEAD_NS or more
    before it), and that ended after the collective, is slowed twice in a replay: its
    measured duration includes sharing the GPU, and the replay takes the collective's SMs
    away again. (A collective that starts during its run does not slow it in a replay:
    the distributor serves the older kernel's CTAs until all have launched, cwd.admission
    inorder, the default. Kernels that other streams' kernels held SMs beside for their
    whole run are waves_beside_resident's.) Such a kernel gets, as its CTA time
    (k["cta_ps"]):
    (a) the median measured duration of its shape-mates (same name, grid, block,
        registers, shared memory) whose runs overlapped no collective, over the waves of
        an idle GPU, as a kernel that ran alone: the replay adds the collective's
        contention itself. Only when that median is between its measured duration less
        the time collectives overlapped it and its measured duration: an overlap cannot
        have cost more than itself, nor made the kernel faster; mates outside did other
        work (a grid-stride copy of another size, a GEMM of another depth);
    (b) otherwise, the CTA time with which its CTAs, started greedily on the slots left
        beside the collectives resident when it started until each ended
        (resident_placement, slots_beside) and on all slots after, end at its measured
        end (finish_ps): replayed in step with the capture it keeps its measured duration.
        Counting its waves beside the collective for the whole run instead would shorten
        it by the part of the run the collective did not cover.
    Returns (kernels given (a), kernels given (b), of those (b) whose CTA time changed)."""
    order = sorted(kernels, key=lambda k: (k["ts"], k["corr"] if isinstance(k["corr"], int) else -1))
    colls = [k for k in order if k["name"].startswith(COLLECTIVE_PREFIXES)]
    if not colls:
        return 0, 0, 0
    coll_ts = [c["ts"] for c in colls]
    longest = max(c["dur"] for c in colls)

    def overlapping(k):
        end, i = k["ts"] + k["dur"], bisect.bisect_left(coll_ts, k["ts"] + k["dur"]) - 1
        out = []
        while i >= 0 and coll_ts[i] >= k["ts"] - longest:
            c = colls[i]
            if c["stream"] != k["stream"] and c["ts"] < end and c["ts"] + c["dur"] > k["ts"]:
                out.append(c)
            i -= 1
        return out

    mates, partly = collections.defaultdict(list), []
    active = []
    for k in order:
        end = k["ts"] + k["dur"]
        active = [a for a in active if a["ts"] + a["dur"] > k["ts"]]
        if not k["name"].startswith(COLLECTIVE_PREFIXES):
            over = overlapping(k)
            key = (k["name"], tuple(k["grid"]), tuple(k["block"]), k["regs"], k["smem"])
            if not over:
                mates[key].append(k["dur"])
            elif not any(a["stream"] != k["stream"] and a["ts"] + a["dur"] >= end for a in active):
                held = [c for c in over if k["ts"] - c["ts"] >= RESIDENT_LEAD_NS]   # resident when it started
                if held:
                    partly.append((k, key, over, held))
        active.append(k)
    n_a = n_b = changed = 0
    placements = {}
    for k, key, over, held in partly:
        dur_ps = k["dur"] * 1000
        spans = sorted((max(c["ts"], k["ts"]), min(c["ts"] + c["dur"], k["ts"] + k["dur"])) for c in over)
        covered, reach = 0, k["ts"]
        for a, b in spans:                                          # their union
            covered += max(0, b - max(a, reach))
            reach = max(reach, b)
        m = mates.get(key)
        if m:
            m = sorted(m)
            twice = m[(len(m) - 1) // 2] + m[len(m) // 2]          # 2 x the median, exact
            if 2 * (k["dur"] - covered) <= twice <= 2 * k["dur"]:
                k["cta_ps"] = (twice * 1000 + k["waves"]) // (2 * k["waves"])   # half up
                n_a += 1
                continue
        segments = []
        for t in sorted({0} | {c["ts"] + c["dur"] - k["ts"] for c in held}):
            resident = tuple((c["threads"], c["regs"], c["smem"], prod(c["grid"])) for c in held
                             if c["ts"] + c["dur"] - k["ts"] > t)
            if resident not in placements:
                placements[resident] = resident_placement(dev, resident)
            segments.append((t * 1000, slots_beside(dev, resident, k["threads"], k["regs"], k["smem"],
                                                    placements[resident])))
        cta = cta_ps_for(prod(k["grid"]), dur_ps, segments)
        if cta != (dur_ps + k["waves"] // 2) // k["waves"]:
            changed += 1
        k["cta_ps"] = cta
        n_b += 1
    return n_a, n_b, changed


def corr_bounds(items):
    """For a stream's packets in the order they ran: (prefix_max, suffix_min) of their
    launch correlation ids (-1 without one). bisect_right(prefix_max, c) is the first
    packet launched after call c; bisect_left(suffix_min, c) - 1 the last launched
    before it (a stream runs its work in launch order)."""
    corr = [k["corr"] if isinstance(k["corr"], int) else -1 for k in items]
    suffix_min, m = [0] * len(corr), float("inf")
    for i in range(len(corr) - 1, -1, -1):
        m = min(m, corr[i])
        suffix_min[i] = m
    return list(itertools.accumulate(corr, max)), suffix_min


def place_barriers(cap, per_stream, device_id, lead=0):
    """Turn each 'Stream Wait Event' into a barrier-AND packet on the waiting stream
    that depends on the last packet of the awaited stream issued before the awaited
    cudaEventRecord (by correlation id, which orders a process's API calls). The
    barrier goes before the waiting stream's first packet issued after the wait call.
    A wait rebuilt from the call order that held its packet long after the awaited
    packet ended ("unexplained", resolve_wait_calls) is followed by a timed wait for
    that time less twice the typical back-to-back gap (typical_gap), as --infer-waits
    does for a wait outside the capture; counted in cap.assumed.
    Returns {stream: [barrier or timed wait, ...]} with each one's list position ("pos")."""
    idx = {s: corr_bounds(items) for s, items in per_stream.items()}
    typical = None
    placed = collections.defaultdict(list)   # stream -> barriers, in call order
    for wt in sorted(cap.waits, key=lambda w: (w["corr"] if w["corr"] is not None else -1, w["ts"])):
        what = "cudaStreamWaitEvent call (wait rebuilt from the call order)" if wt.get("from_call") else \
            "cuda_sync 'Stream Wait Event'"
        if wt["device"] is not None and wt["device"] != device_id:
            cap.skipped[(what, "on device %s, not the converted device %s" % (wt["device"], device_id))] += 1
            continue
        s, src, rec, corr = wt["stream"], wt["wait_stream"], wt["record"], wt["corr"]
        if rec is None or rec < 0 or corr is None:
            cap.skipped[(what, "the awaited event was never recorded: nothing to wait for")] += 1
            continue
        if src == s:
            cap.skipped[(what, "waits for its own stream, whose order already covers it")] += 1
            continue
        if s not in per_stream:
            cap.skipped[(what, "the waiting stream has no converted work: nothing waits")] += 1
            continue
        dep = None
        if wt.get("dep_index") is not None:       # rebuilt by resolve_wait_calls
            dep = per_stream[src][wt["dep_index"]]
            dpos = wt["dep_index"]
        elif src in per_stream:
            j = bisect.bisect_left(idx[src][1], rec) - 1   # last packet of src issued before the record
            if j >= 0:
                dep = per_stream[src][j]
                dpos = j
        for b in reversed([] if wt.get("from_call") else placed.get(src, [])):
            if b["corr"] < rec:                         # or a barrier there, if later
                if dep is None or b["pos"] > dpos:
                    dep = b
                break
        if dep is None:
            cap.skipped[(what, "no converted work on the awaited stream before the event was recorded: satisfied "
                               "at once")] += 1
            continue
        pos = bisect.bisect_right(idx[s][0], corr)
        rt = cap.runtime.get(corr)
        b = dict(type="barrier", corr=corr, record=rec, stream=s, pos=pos, dep=dep,
                 submit=rt[2] if rt is not None else wt["end"], rt=rt)
        placed[s].append(b)
        if wt.get("unexplained"):
            typical = typical_gap(per_stream) if typical is None else typical
            # the replay starts the timed wait once the barrier is done: the barrier,
            # written onto its idle queue at the wait call's end, is fetched the idle
            # launch latency later, or what it and its queue wait for ends later; the
            # hold is counted from there, not from the held packet's launch call
            hold = wt["unexplained"]
            if wt.get("held_start") is not None:
                hold = wt["held_start"] - max(wt["gpu_free"], b["submit"] + lead)
            if hold - 2 * typical > 0:
                placed[s].append(dict(type="command", cmd="other", dur=hold - 2 * typical, bytes=0,
                                      corr=None, ts=None, stream=s, pos=pos, submit=b["submit"], rt=None,
                                      filler=True))
                cap.assumed[("cross-stream wait rebuilt from the call order that held its packet more than %d us "
                             "after the awaited packet ended" % (INFER_WAIT_NS // 1000),
                             "a wait for work the capture does not show: a timed wait of that time less twice the "
                             "typical back-to-back gap (%d ns) after the barrier" % typical)] += 1
    return placed


WAIT_CALLS = ("cudaStreamWaitEvent", "cudaStreamWaitEvent_ptsz", "hipStreamWaitEvent")
RECORD_CALLS = ("cudaEventRecord", "cudaEventRecord_ptsz", "cudaEventRecordWithFlags", "cudaEventRecordWithFlags_ptsz",
                "hipEventRecord", "hipEventRecordWithFlags")


def unlinked_waits(cap):
    """The cuda_sync 'Stream Wait Event's whose profiler named the awaited event
    (wait_on_cuda_event_id) but neither the stream it was recorded on nor its record
    call (both -1): Kineto links a wait to its record only through cudaEventRecord, and
    PyTorch built for CUDA 13 records with cudaEventRecordWithFlags (the H100 captures,
    docs/KINETO.md). Each is taken out of cap.waits and returned with the correlation
    id of its record call: the last cudaEventRecord* call its host thread made before
    the wait call (PyTorch records the event just before the wait), or None when there
    is none. resolve_wait_calls then finds the awaited packet."""
    keep, out = [], []
    records = collections.defaultdict(list)   # host thread -> sorted record-call correlations
    for corr, rt in cap.runtime.items():
        if rt[0] in RECORD_CALLS and isinstance(corr, int):
            records[(rt[3], rt[5])].append(corr)
    for v in records.values():
        v.sort()
    for wt in cap.waits:
        if (wt["record"] is None or wt["record"] < 0) and wt["wait_stream"] == -1 and wt.get("event") is not None \
                and wt["event"] >= 0 and isinstance(wt["corr"], int):
            rt = cap.runtime.get(wt["corr"])
            rec = None
            if rt is not None:
                calls = records.get((rt[3], rt[5]), [])
                i = bisect.bisect_left(calls, wt["corr"])
                rec = calls[i - 1] if i else None
            out.append((wt, rec))
            cap.unlinked_calls.add(wt["corr"])
        else:
            keep.append(wt)
    cap.waits[:] = keep
    return out


def resolve_wait_calls(cap, per_stream, device_id, held_ns=INFER_WAIT_NS, unlinked=None):
    """Captures whose profiler records the cudaStreamWaitEvent calls but not the
    'Stream Wait Event' cuda_sync events that say what they wait for (nor, often, the
    cudaEventRecord calls): rebuild each wait from the host's call order and the GPU
    timestamps (docs/KINETO.md, 'Waits rebuilt from the call order').
    - The waiting stream: that of the next packet the same host thread launched after
      the call (PyTorch makes the consumer stream wait just before launching onto it).
    - The awaited packet, on one of the other streams: if the waiting packet was held
      (it started more than held_ns after both its launch call's end and the end of the
      packet before it on its stream), the latest packet launched there before the call
      that had ended when the held packet started (the event may have been recorded
      before that stream's last launches); otherwise the last packet launched there
      before the call. Of the streams whose candidate ended before the waiting packet
      started (a wait holds its packet until the awaited work is done), the one that
      ended last.
    A call that gives the same wait as an earlier one (several calls before one launch)
    adds nothing. Appends the waits it rebuilds to cap.waits, in the cuda_sync form
    place_barriers reads; counts the others in cap.skipped. Returns (rebuilt, not
    rebuilt).
    unlinked: [(cuda_sync wait, record call correlation or None)] from unlinked_waits:
    rebuild these instead, each with its waiting stream the one the cuda_sync event
    names (its first packet launched after the call waits) and its candidates the
    packets launched before the record call."""
    if unlinked is not None:
        calls = sorted(((wt["corr"], wt, rec) for wt, rec in unlinked), key=lambda c: c[0])
    else:
        calls = sorted((corr, rt, None) for corr, rt in cap.runtime.items()
                       if rt[0] in WAIT_CALLS and isinstance(corr, int))
    if not calls:
        return 0, 0
    launched = collections.defaultdict(list)       # host thread -> [(launch corr, packet)]
    for items in per_stream.values():
        for k in items:
            if k["rt"] is not None and isinstance(k["corr"], int):
                launched[(k["rt"][3], k["rt"][5])].append((k["corr"], k))
    for v in launched.values():
        v.sort(key=lambda x: x[0])
    launched_corr = {t: [c for c, _ in v] for t, v in launched.items()}
    last_before, ends, position, launched_max = {}, {}, {}, {}
    for s, items in per_stream.items():
        position.update((id(k), i) for i, k in enumerate(items))
        launched_max[s], last_before[s] = corr_bounds(items)
        ends[s] = list(itertools.accumulate((k["ts"] + k["dur"] for k in items), max))
    spans = sorted((k["ts"], k["ts"] + k["dur"]) for items in per_stream.values() for k in items)
    span_starts = [a for a, _ in spans]
    span_latest = list(itertools.accumulate((b for _, b in spans), max))   # latest end of spans[0 .. i]
    what = "runtime call cudaStreamWaitEvent"
    resolved = unresolved = 0
    taken = set()
    for corr, rt, rec in calls:
        if unlinked is not None:
            wt, what = rt, "cuda_sync 'Stream Wait Event' (the record call rebuilt from the call order)"
            if wt["device"] is not None and wt["device"] != device_id:
                cap.skipped[(what, "on device %s, not the converted device %s" % (wt["device"], device_id))] += 1
                continue
            if rec is None:
                cap.skipped[(what, "no cudaEventRecord call before it on its host thread: nothing to wait for")] += 1
                unresolved += 1
                continue
            items = per_stream.get(wt["stream"], [])
            i = bisect.bisect_right(launched_max.get(wt["stream"], []), corr)
            if i >= len(items):
                cap.skipped[(what, "no packet launched after it on the waiting stream: nothing waits")] += 1
                unresolved += 1
                continue
            b, bound = items[i], rec
        else:
            nxt = launched.get((rt[3], rt[5]), [])
            i = bisect.bisect_right(launched_corr.get((rt[3], rt[5]), []), corr)
            if i >= len(nxt):
                cap.skipped[(what, "no packet launched after it on its host thread: nothing waits")] += 1
                cap.unresolved_calls.add(corr)
                unresolved += 1
                continue
            b, bound = nxt[i][1], corr
        pos = position[id(b)]
        free_at = max(b["rt"][2] if b["rt"] is not None else 0, ends[b["stream"]][pos - 1] if pos else 0)
        held = b["ts"] - free_at > held_ns
        best = None
        for s, items in per_stream.items():
            if s == b["stream"]:
                continue
            j = bisect.bisect_left(last_before[s], bound) - 1
            if held:
                j = min(j, bisect.bisect_right(ends[s], b["ts"]) - 1)
            if j < 0:
                continue
            slack = b["ts"] - ends[s][j]
            if slack >= 0 and (best is None or slack < best[0]):
                best = (slack, s, j)
        if best is None:
            cap.skipped[(what, "no other stream's last packet before the %s ended before the next packet of "
                               "its %s started: the awaited stream cannot be identified" % (
                                   "record call" if unlinked is not None else "call",
                                   "stream" if unlinked is not None else "thread"))] += 1
            if unlinked is None:
                cap.unresolved_calls.add(corr)
            unresolved += 1
            continue
        if (id(b), best[1], best[2]) in taken:
            cap.skipped[(what, "rebuilt as the same wait as an earlier call (several calls before one launch)")] += 1
            if unlinked is None:
                cap.unresolved_calls.add(corr)
            unresolved += 1
            continue
        taken.add((id(b), best[1], best[2]))
        # held long after the awaited packet ended too, with the GPU idle all along: the
        # event was recorded by work the capture does not show (before its window, another
        # process or device); a GPU busy meanwhile may be what held it
        unexplained = 0
        gpu_free = max(ends[b["stream"]][pos - 1] if pos else 0, ends[best[1]][best[2]])
        if held and best[0] > held_ns:
            since = max(free_at, ends[best[1]][best[2]])
            i = bisect.bisect_left(span_starts, b["ts"])
            if i == 0 or span_latest[i - 1] <= since:
                unexplained = b["ts"] - since
        if unlinked is not None:   # the cuda_sync event becomes the barrier, its call and record call are used
            cap.waits.append(dict(ts=rt["ts"], end=rt["end"], device=device_id, stream=b["stream"],
                                  wait_stream=best[1], record=rec, corr=corr, dep_index=best[2],
                                  unexplained=unexplained, held_start=b["ts"], gpu_free=gpu_free))
        else:
            cap.waits.append(dict(ts=rt[1], end=rt[2], device=device_id, stream=b["stream"], wait_stream=best[1],
                                  record=corr, corr=corr, from_call=True, dep_index=best[2], unexplained=unexplained,
                                  held_start=b["ts"], gpu_free=gpu_free))
        resolved += 1
    return resolved, unresolved


def rebuild_waits(cap, per_stream, device_id, warnings=None):
    """Complete cap.waits before place_barriers: the record calls of the unlinked
    'Stream Wait Event's (unlinked_waits), or, in a capture without such events, the
    waits of its cudaStreamWaitEvent calls (resolve_wait_calls). Appends a warning with
    the counts to warnings (a list) when given. Returns (whether the capture records its
    waits as cuda_sync 'Stream Wait Event's, how many of those were unlinked)."""
    unlinked = unlinked_waits(cap)
    recorded = bool(cap.waits or unlinked)
    if unlinked:
        done, not_done = resolve_wait_calls(cap, per_stream, device_id, unlinked=unlinked)
        if warnings is not None:
            warnings.append("%d cuda_sync 'Stream Wait Event'(s) name their event but not where it was recorded "
                            "(Kineto links only cudaEventRecord, not cudaEventRecordWithFlags): %d rebuilt from the "
                            "host's call order and the GPU timestamps, %d not (docs/KINETO.md)" % (
                                len(unlinked), done, not_done))
    if not recorded:
        done, not_done = resolve_wait_calls(cap, per_stream, device_id)
        if (done or not_done) and warnings is not None:
            warnings.append("the capture records %d cudaStreamWaitEvent call(s) but not what they wait for (no "
                            "cuda_sync 'Stream Wait Event' events): %d rebuilt from the host's call order and the "
                            "GPU timestamps, %d not (docs/KINETO.md)" % (done + not_done, done, not_done))
    return recorded, len(unlinked)


def merge_streams(lists, queue_of):
    """The packets of all streams in one submit-ordered sequence of (queue, packet):
    each stream's own order kept, a barrier never before the packet it depends on
    (ties in submit time go to the lower queue number)."""
    written = set()
    heads = {s: 0 for s in lists}
    heap = [(lst[0]["submit"], queue_of[s], s) for s, lst in lists.items() if lst]
    heapq.heapify(heap)
    waiting = collections.defaultdict(list)   # id(dependency) -> streams whose head waits for it
    out = []
    while heap:
        _, q, s = heapq.heappop(heap)
        p = lists[s][heads[s]]
        if p["type"] == "barrier" and id(p["dep"]) not in written:
            waiting[id(p["dep"])].append(s)
            continue
        out.append((q, p))
        written.add(id(p))
        heads[s] += 1
        if heads[s] < len(lists[s]):
            heapq.heappush(heap, (lists[s][heads[s]]["submit"], q, s))
        for w in waiting.pop(id(p), []):
            heapq.heappush(heap, (lists[w][heads[w]]["submit"], queue_of[w], w))
    if any(heads[s] < len(lst) for s, lst in lists.items()):
        raise ConvertError("the cross-stream waits form a cycle (stream order by start time disagrees with the "
                           "API call order); cannot order the packets")
    return out


def typical_gap(per_stream, wait_ns=INFER_WAIT_NS, queued_ns=INFER_QUEUED_NS):
    """The median back-to-back gap of the capture's queued packets (launch call ended at
    least queued_ns before the packet ahead ended, gap at most wait_ns), at least 0; 0
    without any: what the model's own latencies stand for in a wait's time."""
    gaps = []
    for items in per_stream.values():
        for a, b in zip(items, items[1:]):
            if b["rt"] is not None and b["rt"][2] <= a["ts"] + a["dur"] - queued_ns and \
                    b["ts"] - a["ts"] - a["dur"] <= wait_ns:
                gaps.append(b["ts"] - a["ts"] - a["dur"])
    return max(0, int(statistics.median(gaps))) if gaps else 0


def infer_waits(per_stream, wait_ns=INFER_WAIT_NS, queued_ns=INFER_QUEUED_NS, held=frozenset()):
    """For captures without dependency records: a packet that waited in its queue (its
    launch call ended at least queued_ns before the packet ahead of it ended) and still
    started more than wait_ns after that packet ended was held back by something else.
    If a packet of another stream ended within wait_ns before it started, infer a
    barrier-AND on that packet; otherwise insert a timed command ("a wait outside the
    capture") of the unexplained time less twice the median back-to-back gap (over the
    queued gaps up to wait_ns), which the model's own latencies stand for. Packets
    already behind a barrier ((stream, position) in held) are left alone.
    Returns ({stream: [inserted item with its list position "pos"]}, counts)."""
    ends = sorted(((k["ts"] + k["dur"], id(k), s, k) for s, items in per_stream.items() for k in items),
                  key=lambda e: (e[0], e[1]))
    end_times = [e[0] for e in ends]
    typical = typical_gap(per_stream, wait_ns, queued_ns)
    out = collections.defaultdict(list)
    n_barriers = n_fillers = filler_ns = 0
    for s, items in per_stream.items():
        for i in range(1, len(items)):
            a, b = items[i - 1], items[i]
            end = a["ts"] + a["dur"]
            gap = b["ts"] - end
            if b["rt"] is None or b["rt"][2] > end - queued_ns or gap <= wait_ns or (s, i) in held:
                continue
            j = bisect.bisect_right(end_times, b["ts"]) - 1
            while j >= 0 and ends[j][2] == s:
                j -= 1
            if j >= 0 and ends[j][0] > end and b["ts"] - ends[j][0] <= wait_ns:
                out[s].append(dict(type="barrier", corr=None, record=None, stream=s, pos=i, dep=ends[j][3],
                                   submit=b["submit"], rt=None, inferred=True))
                n_barriers += 1
            elif gap - 2 * typical > 0:
                out[s].append(dict(type="command", cmd="other", dur=gap - 2 * typical, bytes=0, corr=None,
                                   ts=None, stream=s, pos=i, submit=b["submit"], rt=None, filler=True))
                n_fillers += 1
                filler_ns += gap - 2 * typical
    return out, dict(inferred_barriers=n_barriers, wait_commands=n_fillers, wait_ns=filler_ns, typical_gap_ns=typical)


# --------------------------------------------------------------------------------------
# The host model (format 1.10; docs/KINETO.md 'Host threads and waits')

# Host API calls that wait for the GPU, and what they wait for.
HOST_WAIT_CALLS = {
    "cudaStreamSynchronize": "stream", "cudaStreamSynchronize_ptsz": "stream", "cuStreamSynchronize": "stream",
    "hipStreamSynchronize": "stream",
    "cudaDeviceSynchronize": "device", "cuCtxSynchronize": "device", "hipDeviceSynchronize": "device",
    "cudaEventSynchronize": "event", "cuEventSynchronize": "event", "hipEventSynchronize": "event",
}
# A copy is a host wait when its call returned no earlier than this before the copy ended
# (a blocking copy: cudaMemcpy, hipMemcpyWithStream, a cudaMemcpyAsync from pageable memory).
BLOCKING_COPY_SLACK_NS = 1000
# A polling loop (a thread querying until GPU work is done, e.g. `while not ev.query()`)
# is a host wait: at least POLL_MIN_QUERIES consecutive queries on one thread with no
# other call between, each starting within POLL_MAX_GAP_NS of the previous one's end,
# spanning at least POLL_MIN_SPAN_NS, and a converted packet submitted before the loop
# began ending during it (the latest such is what it waited for). Kineto records neither the event or stream a query
# asks about nor what it returned, so the loop is told by its shape: the shared captures'
# runs of queries are short bursts (the V100 capture: 2,073 runs of up to 28
# cudaEventQuery within 116 us, PyTorch's caching allocator checking the events of freed
# blocks once each; the A100 NCCL capture's bursts last ~50 us), none a loop.
POLL_CALLS = {"cudaEventQuery", "cudaStreamQuery", "cuEventQuery", "cuStreamQuery", "hipEventQuery",
              "hipStreamQuery"}
POLL_MIN_QUERIES = 8
POLL_MAX_GAP_NS = 50000
POLL_MIN_SPAN_NS = 200000
NO_LAUNCH_THREAD = "packets without a launch call in the capture"


def _thread_of(rt):
    return NO_LAUNCH_THREAD if rt is None else "pid %s tid %s" % (rt[3], rt[5])


def _gpu_idle_at(packets, idle_ns=INFER_WAIT_NS):
    """A function telling whether a packet (its submit time, start) was submitted when
    every packet of the capture that started before it had ended, and started more than
    idle_ns after that: the GPU was idle, waiting for it to be written."""
    spans = sorted((p["ts"], p["ts"] + p["dur"]) for _, p in packets
                   if p["type"] != "barrier" and p.get("ts") is not None)
    starts = [a for a, _ in spans]
    latest = list(itertools.accumulate((b for _, b in spans), max))

    def idle(p):
        if p["type"] == "barrier" or p.get("ts") is None:
            return False
        i = bisect.bisect_left(starts, p["ts"])
        return i > 0 and p["submit"] > latest[i - 1] and p["ts"] - latest[i - 1] > idle_ns
    return idle


def _host_calls(packets):
    """The host calls: runs of consecutive packets (in file order) of one launch call
    (a graph launch submits several); a packet without a launch call is a call of its
    own on the NO_LAUNCH_THREAD thread. A packet of a launch call that the GPU, idle,
    waited for (submitted, at its start minus the idle launch latency inside the call,
    after every packet that started before it had ended, and starting more than
    INFER_WAIT_NS after that) was written later in the call
    than those before it (a HIP graph launch enqueues its nodes one by one from the
    host): it begins a call of its own, at its submit time. Returns (calls, the number
    of such splits)."""
    calls, i, splits = [], 0, 0
    idle = _gpu_idle_at(packets)
    while i < len(packets):
        rt = packets[i][1].get("rt")
        j = i + 1
        while rt is not None and j < len(packets) and packets[j][1].get("rt") is rt:
            if idle(packets[j][1]):
                splits += 1
                break
            j += 1
        calls.append(dict(kind="call", thread=_thread_of(rt), first=i, n=j - i, time=packets[i][1]["submit"]))
        i = j
    return calls, splits


class _Before:
    """What had been submitted by a time (the captured submits, packets in file order):
    the packets, the last one of each stream, the latest end."""

    def __init__(self, packets):
        self.packets = packets
        self.submits = [p["submit"] for _, p in packets]
        self.by_stream = collections.defaultdict(list)   # stream -> [(submit, index)]
        self.max_end = []
        m = 0
        for i, (_, p) in enumerate(packets):
            self.by_stream[p["stream"]].append((p["submit"], i))
            if p["type"] != "barrier" and p.get("ts") is not None:   # (a timed filler has no start)
                m = max(m, p["ts"] + p["dur"])
            self.max_end.append(m)

    def count(self, t):
        return bisect.bisect_right(self.submits, t)

    def last_of(self, stream, t):
        """The last packet of stream submitted by t (its index), or None."""
        lst = self.by_stream.get(stream, [])
        j = bisect.bisect_right(lst, (t, float("inf"))) - 1
        return lst[j][1] if j >= 0 else None

    def end_of(self, i):
        p = self.packets[i][1]
        return p["ts"] + p["dur"] if p["type"] != "barrier" and p.get("ts") is not None else 0


def _wait_target(before, kind, rt, sync, thread):
    """What a wait call waited for: (queue stream or None, packet index or None, awaited
    end, how), how 'recorded' (the cuda_sync event says) or 'inferred'."""
    start, end = rt[1], rt[2]
    n = before.count(start)
    if kind == "device":
        return None, None, before.max_end[n - 1] if n else 0, "recorded"
    stream, how = None, "recorded"
    if sync is not None:
        stream = sync["wait_stream"] if kind == "event" else sync["stream"]
        if stream == -1:
            stream = None
        if kind == "event" and stream is not None and sync.get("record") not in (None, -1):
            lst = [i for _, i in before.by_stream.get(stream, [])
                   if isinstance(before.packets[i][1]["corr"], int) and before.packets[i][1]["corr"] < sync["record"]]
            if lst:
                i = max(lst)
                return stream, i, before.end_of(i), how
    if stream is None:
        # the stream whose last packet submitted before the call ended last before the call
        # returned; with none still running at the call, the one the thread last launched onto
        how = "inferred"
        best = None
        for st in before.by_stream:
            i = before.last_of(st, start)
            if i is None:
                continue
            e = before.end_of(i)
            if start <= e <= end + BLOCKING_COPY_SLACK_NS and (best is None or e > best[0]):
                best = (e, st, i)
        if best is None:
            for i in range(n - 1, -1, -1):
                if _thread_of(before.packets[i][1].get("rt")) == thread:
                    best = (before.end_of(i), before.packets[i][1]["stream"], i)
                    break
        if best is None:
            return None, None, 0, "nothing submitted by its thread before it"
        stream = best[1]
    i = before.last_of(stream, start)
    if i is None:
        return None, None, 0, "its stream has no converted work before it"
    return stream, i, before.end_of(i), how


def _stream_free(packets):
    """For each packet (by index), when its stream let it start in the capture: the
    latest end of what ran before it on its stream (a barrier's: the end of the packet
    it waited for); 0 for the first."""
    def end(p):
        while p["type"] == "barrier":
            p = p["dep"]
        return p["ts"] + p["dur"] if p.get("ts") is not None else 0
    last, free = {}, []
    for _, p in packets:
        free.append(last.get(p["stream"], 0))
        last[p["stream"]] = max(free[-1], end(p))
    return free


def polling_loops(cap, packets):
    """The polling loops of the capture (POLL_* above) as host waits: a list of wait
    entries (as host_model's) on the packet each waited for, and the correlations of
    their queries; runs of queries that are not loops stay calls without GPU work."""
    by_thread = collections.defaultdict(list)
    for corr, rt in cap.runtime.items():
        by_thread[_thread_of(rt)].append((rt[1], rt[2], rt[0] in POLL_CALLS, corr))
    ends = sorted((p["ts"] + p["dur"], i) for i, (_, p) in enumerate(packets)
                  if p["type"] != "barrier" and p.get("ts") is not None)
    end_times = [e for e, _ in ends]
    waits, used = [], set()
    for thread, calls in by_thread.items():
        calls.sort(key=lambda c: (c[0], c[1]))
        run = []
        for c in calls + [(None, None, False, None)]:
            if c[2] and run and c[0] - run[-1][1] <= POLL_MAX_GAP_NS:
                run.append(c)
                continue
            if len(run) >= POLL_MIN_QUERIES and run[-1][1] - run[0][0] >= POLL_MIN_SPAN_NS:
                # what it waited for: the last packet to end before its last query began,
                # of those submitted before the loop began (what a wait can name)
                j = bisect.bisect_right(end_times, run[-1][0]) - 1
                while j >= 0 and end_times[j] >= run[0][0] and packets[ends[j][1]][1]["submit"] >= run[0][0]:
                    j -= 1
                if j >= 0 and end_times[j] >= run[0][0]:
                    target = ends[j][1]
                    waits.append(dict(kind="wait", thread=thread, wkind="poll", stream=None, target=target,
                                      time=run[0][0], end=run[-1][1], tail=max(0, run[-1][1] - end_times[j]),
                                      corr=run[0][3]))
                    used.update(q[3] for q in run)
                else:  # each query counted here, not again as a call without GPU work
                    for q in run:
                        cap.skipped[("runtime call %s in a polling loop" % cap.runtime[q[3]][0],
                                     "no packet submitted before the loop ended during it: nothing to wait for")] += 1
                        cap.unresolved_calls.add(q[3])
            run = [c] if c[2] else []
    return waits, used


def host_model(cap, packets, device_id, warnings):
    """The captured program for a closed-loop replay (trace format 1.10): the host threads
    (pid, tid of the launch calls), each call that submitted packets, and each wait for
    the GPU (a stream, event or device synchronize; a blocking copy), with the CPU time
    between them. None when no packet has a launch call. Otherwise a dict: threads
    [(name, start_ns)] by id; before {packet index: [record]} and after [record], the
    host records to write before packet i and after the last one; awaited {id(packet)}
    (packets a wait needs a completion signal on); used {correlation} (the wait calls it
    took); reported {correlation} (the wait calls it counted in cap.skipped); counts."""
    if not any(p.get("rt") is not None for _, p in packets):
        return None
    before = _Before(packets)
    entries, splits = _host_calls(packets)
    used, reported, counts = set(), set(), collections.Counter()
    if splits:
        cap.assumed[("packet of a multi-packet launch call (a graph launch) submitted when the GPU had finished "
                     "everything that started before it, starting more than %d us after that (it waited for the "
                     "host to write it)" % (INFER_WAIT_NS // 1000),
                     "a host call of its own at its submit time, the CPU time since the call's previous doorbell "
                     "its gap")] += splits
    # a deferred doorbell (a copy from pageable memory, deferred_doorbell): a wait of its
    # thread that began after the call returned and before the doorbell is issued at the
    # doorbell and waits for what had been submitted by then, the copy included
    deferred = collections.defaultdict(list)   # thread -> [(call's return, doorbell)], in time order
    for _, p in packets:
        if p.get("deferred"):
            deferred[_thread_of(p["rt"])].append((p["rt"][2], p["submit"]))

    def doorbell_pending(thread, t):
        """The deferred doorbell of thread pending at t (after its call returned), or None."""
        windows = deferred.get(thread, [])
        j = bisect.bisect_right(windows, (t, float("inf"))) - 1
        return windows[j][1] if j >= 0 and windows[j][0] <= t < windows[j][1] else None

    for corr, rt in cap.runtime.items():
        kind = HOST_WAIT_CALLS.get(rt[0])
        if kind is None:
            continue
        d = doorbell_pending(_thread_of(rt), rt[1])
        if d is not None:
            rt = (rt[0], d, max(rt[2], d)) + tuple(rt[3:])
        sync = cap.syncs.get(corr)
        what = "runtime call %s" % rt[0]
        if sync is not None and sync["device"] is not None and sync["device"] != device_id:
            cap.skipped[(what, "waits for device %s, not the converted device %s" % (sync["device"],
                                                                                        device_id))] += 1
            reported.add(corr)
            continue
        thread = _thread_of(rt)
        if before.count(rt[1]) == 0:
            cap.skipped[(what, "before the first converted packet: nothing to wait for")] += 1
            reported.add(corr)
            continue
        stream, target, awaited, how = _wait_target(before, kind, rt, sync, thread)
        if kind != "device" and target is None:
            cap.skipped[(what, how)] += 1
            reported.add(corr)
            continue
        if how == "inferred":
            cap.assumed[(what + " without a cuda_sync event naming its %s" % ("event" if kind == "event" else
                                                                              "stream"),
                         "waits for the stream whose last packet before it ended last before it returned (else "
                         "the stream its thread last launched onto)")] += 1
        entries.append(dict(kind="wait", thread=thread, wkind=kind, stream=stream, target=target, time=rt[1],
                            end=rt[2], tail=max(0, rt[2] - max(awaited, rt[1])), ret=max(rt[2], awaited),
                            corr=corr))
        used.add(corr)
        counts[kind] += 1
        if d is not None:
            counts["at_doorbell"] += 1
    polls, poll_used = polling_loops(cap, packets)
    for e in polls:   # (a loop begun before a deferred doorbell of its thread: issued at it)
        d = doorbell_pending(e["thread"], e["time"])
        if d is not None:
            e.update(time=d, end=max(e["end"], d))
            counts["at_doorbell"] += 1
    entries.extend(polls)
    used |= poll_used
    if polls:
        counts["poll"] += len(polls)
    # blocking copies: the call returned when the copy had ended. One whose stream held
    # it (what ran before it on its stream ended after the call began) waited inside the
    # call until then: its doorbell goes at the call's start plus the CPU time before the
    # doorbell of the capture's blocking copies that were not held (their median), not at
    # its start minus the idle launch latency, so that the wait is a wait, not CPU time
    free = _stream_free(packets)
    copies, prefixes = [], []
    for e in [e for e in entries if e["kind"] == "call" and e["n"] == 1]:
        p = packets[e["first"]][1]
        rt = p.get("rt")
        if p["type"] == "command" and not p.get("filler") and not p.get("deferred") and rt is not None and \
                rt[2] >= p["ts"] + p["dur"] - BLOCKING_COPY_SLACK_NS:
            held = free[e["first"]] > rt[1]
            copies.append((e, p, rt, held))
            if not held:
                prefixes.append(max(0, p["submit"] - rt[1]))
    prefix = gdtrace.median_ns(sorted(prefixes)) if prefixes else 0
    for e, p, rt, held in copies:
        if held:   # (the file keeps the packet's submit order)
            e["host"] = max(rt[1], min(p["submit"], rt[1] + prefix))
            counts["held_copy"] += 1
        entries.append(dict(kind="wait", thread=e["thread"], wkind="copy", stream=p["stream"],
                            target=e["first"], time=p["submit"], host=e.get("host", p["submit"]), end=rt[2],
                            tail=max(0, rt[2] - (p["ts"] + p["dur"])), ret=max(rt[2], p["ts"] + p["dur"]),
                            corr=None))
        counts["copy"] += 1
    entries.sort(key=lambda e: (e["time"], e["kind"] == "wait", e.get("first", 0), e.get("corr") or 0))
    names, prev, last_of = {}, {}, {}
    out_before, out_after, pending = collections.defaultdict(list), [], []
    awaited, negative, last_time = set(), 0, 0
    for e in entries:
        h = e.get("host", e["time"])   # (the host's time of it, where not the file order's)
        if e["thread"] not in names:
            names[e["thread"]] = (len(names), h)
            prev[e["thread"]] = h
        tid = names[e["thread"]][0]
        gap = h - prev[e["thread"]]
        if gap < 0:
            negative += 1
            gap = 0
        if e["kind"] == "call":
            rec = ["call", tid, e["n"], gap, False]
            prev[e["thread"]] = h
            pending.append(rec)
            out_before[e["first"]].extend(pending)
            pending = []
            last_time = packets[e["first"] + e["n"] - 1][1]["submit"]
        else:
            t = max(e["time"], last_time)
            if e["wkind"] == "device":
                rec = ["wait", tid, WAIT_DEVICE, 0, t, gap, e["tail"], False, False]
            elif e["wkind"] == "stream":
                rec = ["wait", tid, WAIT_QUEUE, e["stream"], t, gap, e["tail"], False, False]
            else:
                rec = ["wait", tid, WAIT_SIGNAL, packets[e["target"]][1], t, gap, e["tail"], e["wkind"] == "poll",
                       False]
                awaited.add(id(packets[e["target"]][1]))
            # the next call's gap from when the replay returns it: its tail after the
            # awaited work's end, and no earlier (a call the capture ends up to
            # BLOCKING_COPY_SLACK_NS before its copy's end, or before the awaited work's
            # end, two clocks: counted from the call's end, each later call of the thread
            # replayed that much late)
            prev[e["thread"]] = max(e.get("ret", e["end"]), h)
            pending.append(rec)
            last_time = t
        last_of[e["thread"]] = rec
    out_after.extend(pending)
    for rec in last_of.values():
        rec[-1] = True
    if negative:
        cap.assumed[("host call or wait that the capture puts before its thread's previous one returned (the "
                     "launch times' adjustments to the stream order)", "gap 0")] += negative
    at_doorbell = counts.pop("at_doorbell", 0)
    if at_doorbell:
        cap.assumed[("host wait that began before the deferred doorbell of its thread's previous call (a copy from "
                     "pageable memory)", "issued at that doorbell, gap 0")] += at_doorbell
    if len(names) > MAX_HOST_THREADS:
        warnings.append("%d host threads, more than a trace holds (%d): no host model; the replay is open-loop "
                        "(every packet at its captured submit time)" % (len(names), MAX_HOST_THREADS))
        return None
    threads = [None] * len(names)
    for name, (tid, start) in names.items():
        threads[tid] = (name, start)
    counts["calls"] = sum(1 for e in entries if e["kind"] == "call")
    return dict(threads=threads, before=out_before, after=out_after, awaited=awaited, used=used, reported=reported,
                counts=counts, copy_prefix=prefix)


def launch_shape(k, rt):
    """(grid in workgroups, block, shared memory) of kernel k from its kernel event or
    its launch event rt (HIP traces before ROCm 6.4 have the shape only there); grid and
    block None when neither has both."""
    grid, block, smem = k["grid"], k["block"], k["smem"]
    if (grid is None or block is None) and rt is not None and rt[4]:
        grid, block = rt[4].get("grid"), rt[4].get("block")
        if smem is None:
            smem = rt[4].get("shared memory")
    if grid is None or block is None:
        return None, None, smem
    if rt is not None and rt[0] in GRID_IN_WORK_ITEMS and min(block) >= 1:
        grid = [-(-grid[i] // block[i]) for i in range(3)]
    return grid, block, smem


def shape_from_mates(cap, k, rt, mates, shapes, dev):
    """A shape for kernel k, which has none in the capture: that of the kernel among
    mates (those of its name with a shape) whose measured duration is nearest its own
    (the first such in the capture; a kernel's shape follows its problem size, as its
    duration does), or a full wave of ASSUMED_BLOCK-work-item workgroups, one per SM;
    counted in cap.assumed."""
    why = "graph-launched kernel" if rt is not None and rt[0] in GRAPH_LAUNCH_APIS else \
        "kernel without a launch event" if rt is None else "kernel launched by %s" % rt[0]
    if mates:
        dur = max(k["dur"], 1)
        m = min(mates, key=lambda m: abs(math.log(max(m["dur"], 1) / dur)))
        cap.assumed[("%s without grid and block" % why, "the shape of its same-name kernel nearest in measured "
                                                          "duration")] += 1
        return shapes[id(m)][0], shapes[id(m)][1]
    cap.assumed[("%s without grid and block, and no same-name kernel with them" % why,
                 "a full wave: one workgroup of %d work-items per SM/CU, running its measured duration"
                 % ASSUMED_BLOCK)] += 1
    return [dev.sms, 1, 1], [min(ASSUMED_BLOCK, dev.threads_per_cta), 1, 1]


def device_kernels(cap, device_id, warnings):
    """The capturing device and its kernels as the conversion uses them: each kernel
    dict gains its launch shape, registers, `waves` on the idle device and `rt` (its
    launch call, when a kernel launch API); kernels that cannot be converted are counted
    in cap.skipped."""
    try:
        dev = device_from_props(cap.device_props, device_id, warnings, cap.rocm) or \
            infer_device(cap.kernels, warnings)
    except ConvertError as e:
        raise ConvertError("%s: %s" % (cap.path, e)) from None

    kernels = []
    shapes, mates = {}, collections.defaultdict(list)   # id(kernel) -> launch_shape; name -> kernels with one
    for k in cap.kernels:
        if k["device"] == device_id:
            shapes[id(k)] = launch_shape(k, cap.runtime.get(k["corr"]))
            if shapes[id(k)][0] is not None:
                mates[k["name"]].append(k)
    for k in cap.kernels:
        if k["device"] != device_id:
            cap.skipped[("kernel", "on device %s, not the converted device %s" % (k["device"], device_id))] += 1
            continue
        rt = cap.runtime.get(k["corr"])
        grid, block, smem = shapes[id(k)]
        if grid is None:
            grid, block = shape_from_mates(cap, k, rt, mates.get(k["name"]), shapes, dev)
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
        # updated in place: one dict per kernel however many steps use it
        k.update(grid=grid, block=block, smem=smem, regs=regs, threads=threads, waves=waves, type="kernel",
                 rt=rt if rt is not None and rt[0] in KERNEL_LAUNCH_APIS else None)
        kernels.append(k)
    return dev, kernels


def convert(in_path, out_path, device_id=None, pid=None, log=None, infer=False, calibrate=None):
    """calibrate: None, or a fraction 0 < f <= 1: embed a calibration record (format 1.9)
    of the launch gaps calibrate.fit measures on the first ceil(f x n) of the device's n
    kernels by start and the copies before the next one (1: the whole capture), when any class has enough of them.
    log: where the notes go (summary, warnings, what was not converted); default sys.stderr.
    Raises ConvertError (input that cannot be converted, or an output that cannot be
    written); the output is written under a temporary name in its folder and renamed
    when complete, so that a failed conversion leaves none behind."""
    if log is None:
        log = sys.stderr
    if calibrate is not None and not 0 < calibrate <= 1:
        raise ConvertError("--calibrate: the fraction must be in (0, 1], not %s" % calibrate)
    try:  # the output must not be the capture (a link to it included): it would replace it
        same = os.path.exists(out_path) and os.path.samefile(in_path, out_path)
    except OSError:
        same = False
    if same:
        raise ConvertError("%s: is the capture being converted; refusing to overwrite it" % out_path)
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
    offset, judged = align_clocks(cap, device_id)
    if cap.clock_agreed:
        warnings.append("none of the capture's %d launched packets started sooner than %.3f ms after its launch call "
                        "ended, but a device synchronize returned %.3f ms after the work it waited for ended: the "
                        "clocks agree, and the GPU was busy with work launched before the capture (docs/KINETO.md)" % (
                            judged, (cap.clock_agreed[0] + DEFAULT_SUBMIT_LEAD_NS) / 1e6, cap.clock_agreed[1] / 1e6))
    if offset:
        warnings.append("the capture's GPU clock runs %.3f ms behind its host clock: none of its %d launched "
                        "packets started sooner than %.3f ms after its launch call ended (Kineto's ROCm back end "
                        "aligns the clocks once, after collection); the host's calls are moved %.3f ms later, leaving "
                        "%d ns for the quickest (docs/KINETO.md)" % (
                            offset / 1e6, judged, (offset + DEFAULT_SUBMIT_LEAD_NS) / 1e6, offset / 1e6,
                            DEFAULT_SUBMIT_LEAD_NS))
    fitted = None
    if calibrate is not None:
        # on the capture as collected, before the conversion adds to it: the same fit as
        # `calibrate.py IN --device ID [--first-fraction F]`
        import calibrate as calibration   # here, not at the top: calibrate.py imports this module
        fitted = calibration.fit(cap, device_id, None if calibrate == 1 else calibrate)
    dev, kernels = device_kernels(cap, device_id, warnings)

    collectives = own_work_and_peers(kernels)
    if collectives:
        warnings.append("%d collective kernel(s) (NCCL/RCCL): each runs its own work (the shortest measured run of "
                        "the same kernel and shape) and at least until its measured end, when its peer GPUs were "
                        "done (docs/KINETO.md)" % collectives)
    beside = waves_beside_resident(kernels, dev)
    if beside:
        warnings.append("%d kernel(s) ran while kernels of other streams held SMs throughout: their measured "
                        "duration is spread over the waves the remaining SM resources allow (docs/KINETO.md)" % beside)
    by_mates, fitted_b, changed_b = partly_beside_collectives(kernels, dev)
    if by_mates or fitted_b:
        what = "kernel that a collective kernel of another stream held SMs beside when it started, for part of its run"
        if by_mates:
            cap.assumed[(what, "CTA time = the median measured duration of its shape-mates that overlapped no "
                               "collective, over the idle GPU's waves (a)")] += by_mates
        if fitted_b:
            cap.assumed[(what + ", without shape-mates whose median its run can explain",
                         "CTA time with which its CTAs, on the slots left beside the collective until it ended, end "
                         "at its measured end (b; %d changed by it)" % changed_b)] += fitted_b

    commands = []
    for c in cap.commands:
        what = "memset" if c["cat"] == "gpu_memset" else "memcpy"
        if c["device"] != device_id:
            cap.skipped[(what, "on device %s, not the converted device %s" % (c["device"], device_id))] += 1
            continue
        if c["stream"] is None:
            cap.skipped[(what, "no stream")] += 1
            continue
        if c["cat"] == "gpu_memset":
            kind = "memset"
        else:
            word = (c["kind"] or c["name"].replace("Memcpy ", "", 1).split(" ")[0]) if c["name"] or c["kind"] else ""
            kind = MEMCPY_KINDS.get(word)
            if kind is None:
                cap.assumed[("memcpy of unknown direction '%s'" % c["name"], "kept as a command of kind 'other'")] += 1
                kind = "other"
        rt = cap.runtime.get(c["corr"]) if c["corr"] is not None else None
        c.update(what=what, cmd=kind, bytes=int(c["bytes"] or 0), rt=rt, type="command")
        commands.append(c)

    # Submit times: the end of the launch call; otherwise the fallback.
    # Without one: just in time, i.e. the launch-to-start time of an idle stream (the
    # median over the packets launched when their stream had nothing left to run). A
    # packet whose launch is not in the capture was mostly issued before the capture
    # window, behind work the capture does not show; submitted any earlier it would
    # run early on a model GPU that has not got that work.
    lead_info = {}
    lead = idle_launch_latency(kernels + commands, lead_info)
    if fitted is not None and gdtrace.IDLE_KEY in fitted["keys"]:
        # the calibration's idle launch latency is the model's for these packets: the
        # doorbells the capture does not show go that long before their start, so that
        # the replay starts them there (whole capture: the same number; --calibrate=F:
        # the first fraction's, as the model has it on the rest)
        lead, lead_info = fitted["keys"][gdtrace.IDLE_KEY], dict(lead_info, calibrated=True)
    if lead_info.get("calibrated"):
        lead_note = "idle launch latency L = %d ns: the calibration record's (pp.idle_launch_ns, %s)" % (
            lead, fitted["provenance"])
    elif lead_info["n"]:
        lead_note = "idle launch latency L = %d ns: %s %d packet(s) launched onto an idle stream%s (%d to %d ns; " \
                    "docs/KINETO.md)" % (
                        lead, "the default, as the median is more and comes from fewer than %d:" % IDLE_MIN_SAMPLES
                        if lead_info["capped"] else "the median launch-to-start time of the",
                        lead_info["n"], ", by graph launches (there is no other)" if lead_info["graph"] else "",
                        lead_info["lo"], lead_info["hi"])
    else:
        lead_note = "idle launch latency L = %d ns, assumed: no packet was launched onto an idle stream" % lead
    no_launch = sum(1 for k in kernels + commands if k["rt"] is None)
    if no_launch:
        warnings.append("%d kernel(s) or memcpy/memset(s) have no launch event: submitted %d ns before they started "
                        "(the median launch-to-start time of the packets launched onto an idle stream), but not "
                        "before the previous packet of their stream" % (no_launch, lead))
    streams = sorted({k["stream"] for k in kernels + commands}, key=lambda s: (str(type(s)), s))
    if len(streams) > MAX_QUEUES:
        raise ConvertError("%s: %d streams; gdsim has %d hardware queues" % (in_path, len(streams), MAX_QUEUES))
    queue_of = {s: i for i, s in enumerate(streams)}

    # Each stream's work in the order it ran.
    per_stream = collections.defaultdict(list)
    for k in kernels:
        per_stream[k["stream"]].append(k)
    for c in commands:
        per_stream[c["stream"]].append(c)
    launch_starts = collections.defaultdict(list)   # thread -> its launch calls' starts (deferred_doorbell)
    for k in kernels + commands:
        if k["rt"] is not None:
            launch_starts[_thread_of(k["rt"])].append(k["rt"][1])
    for v in launch_starts.values():
        v.sort()
    for s, items in per_stream.items():
        items.sort(key=lambda k: (k["ts"], k["corr"] if k["corr"] is not None else -1))
        for k, busy_until in _after_earlier(items):
            # The doorbell is written inside the launch call: a long call (first use of a
            # library, lazy loading) returns after its kernel started. The packet was then
            # submitted no later than its start minus the idle launch latency.
            k["submit"] = max(0, min(k["rt"][2], k["ts"] - lead) if k["rt"] is not None else k["ts"] - lead)
            if k["rt"] is not None and k["rt"][2] > k["ts"] - lead:
                cap.assumed[("%s that started less than the idle launch latency (%d ns) after its launch call "
                             "ended" % (k["type"], lead), "submitted at its start minus that latency, inside the "
                                                          "call")] += 1
            elif deferred_doorbell(k, busy_until, lead, launch_starts):
                # A copy from pageable host memory is staged through a pinned buffer by the
                # driver, which starts the DMA once the data is staged, after the call may
                # have returned (CUDA's 'API synchronization behavior'); onto an idle stream
                # its start says when: the doorbell is deferred to its start minus L.
                k["submit"] = k["ts"] - lead
                k["deferred"] = True
                cap.assumed[("memcpy from pageable host memory onto an idle stream that started more than the idle "
                             "launch latency (%d ns) after its launch call returned (the driver stages the data, "
                             "then starts the DMA)" % lead, "submitted at its start minus that latency, after "
                                                            "the call returned (a deferred doorbell)")] += 1

    programmatic = programmatic_launches(per_stream)
    recorded_waits, _ = rebuild_waits(cap, per_stream, device_id, warnings)
    barriers = place_barriers(cap, per_stream, device_id, lead)
    inferred = dict(inferred_barriers=0, wait_commands=0, wait_ns=0, typical_gap_ns=0)
    if infer and recorded_waits:
        warnings.append("--infer-waits ignored: the capture records its cross-stream waits (cuda_sync 'Stream Wait "
                        "Event')")
    elif infer:
        extra, inferred = infer_waits(per_stream, held={(s, b["pos"]) for s, bs in barriers.items() for b in bs})
        for s, items in extra.items():
            barriers.setdefault(s, []).extend(items)
        warnings.append("--infer-waits: %d barrier(s) on another stream's packet that ended just before a stalled "
                        "packet started, and %d timed wait(s) for what the capture does not show (%.3f ms in all; "
                        "the stream's median back-to-back gap %d ns is left to the model)" % (
                            inferred["inferred_barriers"], inferred["wait_commands"], inferred["wait_ns"] / 1e6,
                            inferred["typical_gap_ns"]))

    # Final order: each stream's packets in order, barriers after the packets they
    # depend on, submit times non-decreasing along a stream and through the file.
    lists = {}
    for s, items in per_stream.items():
        # barriers of one position in their list's order (call order), before the packet
        # there (inserting each at its position, last position first, reversed them)
        at = collections.defaultdict(list)
        for b in barriers.get(s, []):
            at[b["pos"]].append(b)
        lst = []
        for i in range(len(items) + 1):
            lst.extend(at.pop(i, []))
            if i < len(items):
                lst.append(items[i])
        for i in sorted(at):   # (none: a barrier's position is at most its stream's length)
            lst.extend(at[i])
        lists[s] = lst
    for _ in range(len(lists) + sum(len(v) for v in barriers.values()) + 1):
        changed = False
        for s, lst in lists.items():
            last = 0
            for k in lst:
                if k["type"] == "barrier" and k["dep"]["submit"] > k["submit"]:
                    k["submit"] = k["dep"]["submit"]
                if k["submit"] < last:
                    k["submit"] = last
                    changed = True
                last = k["submit"]
        if not changed:
            break
    try:
        packets = merge_streams(lists, queue_of)
    except ConvertError as e:
        raise ConvertError("%s: %s" % (in_path, e)) from None

    # The host model (format 1.10): the program's threads, calls and waits.
    host = host_model(cap, packets, device_id, warnings)

    # Host API calls: those behind a converted packet were used (a barrier uses its
    # cudaStreamWaitEvent and the cudaEventRecord it waits for; the host model its
    # synchronize calls); report the rest.
    used = {id(p["rt"]) for _, p in packets if p.get("rt") is not None}
    used_corr = {p["corr"] for _, p in packets if p["type"] == "barrier"}
    used_corr |= {p["record"] for _, p in packets if p["type"] == "barrier"}
    runtime_used = 0
    wait_calls = {wt["corr"] for wt in cap.waits} | cap.unlinked_calls
    rebuilt_calls = {wt["corr"] for wt in cap.waits if wt.get("from_call")}
    for corr, rt in cap.runtime.items():
        if corr in cap.unresolved_calls:
            continue   # counted by resolve_wait_calls
        if corr in rebuilt_calls:
            continue   # the call is the wait: a barrier, or counted by place_barriers
        if host is not None and corr in host["reported"]:
            continue   # a wait the host model reported
        if id(rt) in used or corr in used_corr or (host is not None and corr in host["used"]):
            runtime_used += 1
            continue
        if rt[0] in KERNEL_LAUNCH_APIS:
            why = "launch call whose kernel was not converted (see the kernel lines) or not captured"
        elif corr in wait_calls:
            why = "the call of a 'Stream Wait Event' that needed no barrier (see the cuda_sync lines)"
        elif rt[0] in WAIT_CALLS:
            why = ("the capture records cuda_sync 'Stream Wait Event' events but none for this call: the "
                   "profiler saw nothing for it to wait for")
        elif "Memcpy" in rt[0] or "Memset" in rt[0]:
            why = "copy or fill call whose GPU work was not captured or not converted (see the memcpy/memset lines)"
        else:
            why = "host API call without GPU work of its own (allocation, query, event, synchronisation)"
        cap.skipped[("runtime call %s" % rt[0], why)] += 1

    # The cuda_sync events of the host's synchronizations: what a host wait waited for.
    for corr, sync in cap.syncs.items():
        rt = cap.runtime.get(corr)
        if host is not None and corr in host["used"] and rt is not None:
            runtime_used += 1
        elif host is None:
            cap.skipped[("cuda_sync '%s'" % sync["kind"], "the host waited, but the capture has no launch calls: no "
                                                          "host model, the captured submit times include the wait")] += 1
        elif rt is not None and rt[0] not in HOST_WAIT_CALLS:
            cap.skipped[("cuda_sync '%s'" % sync["kind"], "its call, %s, is not taken as a host wait (a query "
                                                          "returns at once; polling loops are not followed yet)"
                         % rt[0])] += 1
        else:
            cap.skipped[("cuda_sync '%s'" % sync["kind"], "no synchronize call of the capture behind it")] += 1

    # Tenants (seed 004's VIDs, trace format 1.6): a stream belongs to the host process
    # that launched most of its packets and its VID is its queue (the default, so no
    # tenant field is written); packets another process launched onto the same stream id
    # get VIDs of their own, numbered after the queues, in a tenant field.
    owner = {}
    for s, lst in lists.items():
        pids = collections.Counter(k["rt"][3] for k in lst if k.get("rt") is not None and len(k["rt"]) > 3)
        owner[s] = min(pids.items(), key=lambda x: (-x[1], str(x[0])))[0] if pids else None
    extra_vid = {}

    def vid_of(q, p):
        pid = p["rt"][3] if p.get("rt") is not None and len(p["rt"]) > 3 else None
        s = p["stream"]
        if pid is None or pid == owner.get(s):
            return q
        return extra_vid.setdefault((pid, s), len(streams) + len(extra_vid))

    vids = [vid_of(q, p) for q, p in packets]
    # Packets of a CUDA/HIP graph launch carry the graph-launched flag (format 1.9).
    graph_of = {id(p): p.get("rt") is not None and p["rt"][0] in GRAPH_LAUNCH_APIS for _, p in packets}
    n_graph = sum(graph_of.values())
    record = fitted is not None and bool(fitted["keys"])
    producer = "kineto2gdt.py %s device %s" % (os.path.basename(in_path), device_id)
    w = None
    try:
        w = TraceWriter(out_path, dev, producer,
                        minor=max([12 if record and gdtrace.IDLE_KEY in fitted["keys"] else 11 if programmatic
                                   else 10 if host else 9 if n_graph or record else 6 if extra_vid else 3] +
                                  [m for k, m in gdtrace.CALIBRATION_KEY_MINOR.items()
                                   if record and k in fitted["keys"]]))
        if record:
            w.calibration(fitted["provenance"], calibration.record_lines(fitted))
        for tid, (name, start) in enumerate(host["threads"] if host else []):
            w.host_thread(tid, start, name)
        descs = {}
        handles = {}   # completion signals: only packets something depends on carry one
        for _, p in packets:
            if p["type"] == "barrier" and id(p["dep"]) not in handles:
                handles[id(p["dep"])] = len(handles) + 1
        for _, p in packets:
            if host and id(p) in host["awaited"] and id(p) not in handles:
                handles[id(p)] = len(handles) + 1

        def write_host(recs):
            for rec in recs:
                if rec[0] == "call":
                    w.host_call(rec[1], rec[2], rec[3], last=rec[4])
                else:
                    target = queue_of[rec[3]] if rec[2] == WAIT_QUEUE else handles[id(rec[3])] \
                        if rec[2] == WAIT_SIGNAL else 0
                    w.host_wait(rec[1], rec[2], target, rec[4], rec[5], rec[6], polling=rec[7], last=rec[8])

        n_kernels = n_commands = n_barriers = 0
        for i, ((q, p), vid) in enumerate(zip(packets, vids)):
            if host:
                write_host(host["before"].get(i, ()))
            tenant = (vid, CMD_SYNC | CMD_COND) if vid != q else None
            signal = handles.get(id(p), 0)
            corr = p["corr"] if isinstance(p["corr"], int) and p["corr"] >= 0 else None
            if p["type"] == "kernel":
                key = (p["name"], p["threads"], p["regs"], p["smem"])
                kid = descs.get(key)
                if kid is None:
                    kid = descs[key] = len(descs) + 1
                    w.kernel(kid, p["name"], p["threads"], p["regs"], p["smem"], 0, EXEC_PER_DISPATCH)
                own = p.get("own_dur", p["dur"])
                cta_ps = p["cta_ps"] if "cta_ps" in p else (own * 1000 + p["waves"] // 2) // p["waves"]
                w.dispatch(q, p["submit"], kid, p["block"], p["grid"], p["smem"], barrier=True, signal=signal,
                           info=(cta_ps, corr, p["ts"], p["dur"]), wait_until_ns=p.get("wait_until"), tenant=tenant,
                           graph=graph_of[id(p)], programmatic=id(p) in programmatic)
                n_kernels += 1
            elif p["type"] == "command":
                if p.get("filler"):
                    w.nonkernel(q, p["submit"], p["cmd"], p["dur"] * 1000, 0, barrier=True, signal=signal,
                                info=(None, None, None, None))
                    continue
                w.nonkernel(q, p["submit"], p["cmd"], p["dur"] * 1000, p["bytes"], barrier=True, signal=signal,
                            info=(None, corr, p["ts"], p["dur"]), tenant=tenant, graph=graph_of[id(p)])
                n_commands += 1
            else:
                w.barrier(q, p["submit"], [handles[id(p["dep"])]], barrier=True, signal=signal,
                          info=(None, corr, None, None), tenant=tenant)
                if not p.get("inferred"):
                    n_barriers += 1
        if host:
            write_host(host["after"])
        w.close()
    except BaseException as e:
        if w is not None:
            w.discard()
        if isinstance(e, OSError):
            raise ConvertError("%s: cannot write: %s" % (out_path, e.strerror or e)) from None
        raise

    print("kineto2gdt: %s -> %s: %d kernels, %d memcpy/memset commands and %d cross-stream barriers of device %s "
          "(%s) on %d queue(s), %d kernel descriptors; %d trace events read" % (
              in_path, out_path, n_kernels, n_commands, n_barriers, device_id, dev.name, len(streams), len(descs),
              cap.events), file=log)
    if n_graph:
        print("kineto2gdt: %d packet(s) launched by a CUDA/HIP graph launch (%s): flagged graph-launched "
              "(format 1.9)" % (n_graph, ", ".join(sorted({p["rt"][0] for _, p in packets if graph_of[id(p)]}))),
              file=log)
    print("kineto2gdt: " + lead_note, file=log)
    if programmatic:
        print("kineto2gdt: %d kernel(s) launched by %s started before the kernel ahead of them on their stream ended: "
              "flagged programmatic dependent launches (format 1.11; docs/KINETO.md)" % (
                  len(programmatic), "/".join(sorted(PDL_LAUNCH_APIS & {p["rt"][0] for _, p in packets
                                                                        if id(p) in programmatic}))), file=log)
    if host:
        c = host["counts"]
        print("kineto2gdt: host model (format 1.10): %d thread(s), %d call(s), %d wait(s): %d stream, %d event and %d "
              "device synchronize(s), %d blocking copy(ies)%s%s; the replay is closed-loop (host.mode=closed, the "
              "default; docs/KINETO.md)" % (len(host["threads"]), c["calls"], c["stream"] + c["event"] + c["device"] +
                                            c["copy"] + c["poll"], c["stream"], c["event"], c["device"], c["copy"],
                                            " (%d held by their stream: doorbell %d ns into the call)" % (
                                                c["held_copy"], host["copy_prefix"]) if c["held_copy"] else "",
                                            ", %d polling loop(s)" % c["poll"] if c["poll"] else ""), file=log)
    if record:
        print("kineto2gdt: calibration record (format 1.%d): %s: %s%s" % (
            12 if gdtrace.IDLE_KEY in fitted["keys"] else 9,
            fitted["provenance"], ", ".join("%s = %d" % kv for kv in fitted["keys"].items()),
            "; %d class(es) with fewer than %d gaps left to the preset" % (len(fitted["omitted"]),
                                                                           fitted["min_samples"])
            if fitted["omitted"] else ""), file=log)
    elif fitted is not None:
        print("kineto2gdt: --calibrate: no calibration record: no class has %d clean gaps or launches onto an idle "
              "stream (%s); the preset's launch timing applies" % (fitted["min_samples"], fitted["provenance"]),
              file=log)
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
    capture_kernels = [(k["corr"], k["ts"], k["dur"], k["est"]) for k in cap.kernels if k["device"] == device_id]
    return dict(kernels=n_kernels, commands=n_commands, barriers=n_barriers, waits=len(cap.waits),
                capture_kernels=capture_kernels, device_id=device_id, **inferred,
                skipped=dict(cap.skipped), assumed=dict(cap.assumed), device=dev, warnings=warnings,
                events=cap.events, launches_used=runtime_used, graph_packets=n_graph,
                programmatic=len(programmatic),
                calibration=fitted if record else None,
                host=None if host is None else dict(threads=len(host["threads"]), **host["counts"]))


class _Discard:
    """A log that drops what is written to it (--quiet)."""

    def write(self, text):
        return len(text)

    def flush(self):
        pass


def error(msg):
    """An error on one line of stderr."""
    print("kineto2gdt: error: %s" % " ".join(str(msg).splitlines()), file=sys.stderr)


def main(argv=None):
    ap = gdtrace.ArgumentParser(description="Convert a PyTorch-profiler (Kineto) trace into a gdsim trace.",
                                 epilog="Details: docs/KINETO.md. The report on stderr accounts for every trace "
                                        "event that was not converted (-q: errors only).")
    ap.add_argument("input", help="Kineto Chrome-trace JSON (.json or .json.gz)")
    ap.add_argument("output", help="gdsim trace to write (.gdt.gz)")
    ap.add_argument("--device", type=int, default=None, metavar="ID",
                    help="GPU whose kernels to convert (default: the one with the most kernels)")
    ap.add_argument("--infer-waits", action="store_true",
                    help="for captures without cuda_sync 'Stream Wait Event' records: infer the waits that held "
                         "packets back from the timeline (docs/KINETO.md)")
    ap.add_argument("--pid", type=int, default=None,
                    help="use only the host (launch API) events of this process (default: all)")
    ap.add_argument("--calibrate", type=float, nargs="?", const=1.0, default=None, metavar="F",
                    help="embed the launch gaps and idle launch latency calibrate.py fits to the capture (on "
                         "its first F of kernels by start and the copies among them, 0 < F <= 1, default all) as "
                         "a calibration record (format 1.9, 1.12 with the idle launch latency; docs/KINETO.md)")
    ap.add_argument("-q", "--quiet", action="store_true",
                    help="print errors only: not the summary, the warnings or the report of what was not converted")
    a = ap.parse_args(argv)
    try:
        convert(a.input, a.output, a.device, a.pid, log=_Discard() if a.quiet else sys.stderr,
                infer=a.infer_waits, calibrate=a.calibrate)
    except ConvertError as e:
        error(e)
        return 1
    except OSError as e:   # opening the input
        error("%s: %s" % (e.filename if e.filename is not None else a.input, e.strerror or e))
        return 1
    except MemoryError:
        error("%s: out of memory" % a.input)
        return 1
    except KeyboardInterrupt:
        error("%s: interrupted" % a.input)
        return 130
    except Exception as e:   # a bug: one line that says where, not a traceback
        where = traceback.extract_tb(e.__traceback__)[-1]
        error("%s: internal error (a bug in kineto2gdt.py; please report it with the capture): %s: %s at %s:%d" % (
            a.input, type(e).__name__, e, os.path.basename(where.filename), where.lineno))
        return 1
    return 0


if __name__ == "__main__":
    sys.modules.setdefault("kineto2gdt", sys.modules[__name__])   # one module when calibrate.py imports it
    sys.exit(gdtrace.run_main(main))
