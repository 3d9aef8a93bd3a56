"""gdsim from Python: the C library (libgdsim.so) through ctypes, standard library only.

    import gdsim
    with gdsim.Sim({"gpu.preset": "h100", "cwd.admission": "channels"}) as sim:
        s = sim.replay("traces/sample.gdt.gz")       # the summary JSON as a dict
        print(s["summary"]["sim_time_ns"], s["summary"]["mean_sm_occupancy_pct"])
        for k in sim.kernels():                       # one dict per kernel (the kernels CSV)
            print(k["kernel_index"], k["first_cta_ns"] - k["submit_ns"])
    gdsim.keys()                                      # every configuration key, default, doc, source

Every failure raises gdsim.Error, whose .code is the library's status (gdsim.EFORMAT, ...)
and whose message is the library's own ("trace.gdt.gz: record 12 (offset 1400): ...").
Many Sim objects may live in one process; their replays run one at a time (the C API
serialises them). The library is found at $GDSIM_LIBRARY, else where `make install` put
it, else in the checkout's build/ directory, else on the loader's path. docs/PYTHON.md
describes the whole interface."""
import csv
import ctypes
import ctypes.util
import json
import os
import tempfile
import weakref

__all__ = ["Sim", "Error", "keys", "version", "strerror", "STAGES", "OK", "EINVAL", "ENOMEM", "EIO", "EFORMAT",
           "ECONFIG", "ESTATE", "EMODEL", "EINTERNAL", "EINTERRUPTED", "ELIMIT"]

OK, EINVAL, ENOMEM, EIO, EFORMAT, ECONFIG, ESTATE, EMODEL, EINTERNAL = 0, -1, -2, -3, -4, -5, -6, -7, -8
EINTERRUPTED, ELIMIT = -9, -10
OPTIONS_VERSION = 1


class Error(Exception):
    """A gdsim call failed: .code is the status (a negative gdsim.E* value), .message the
    library's text naming what went wrong and where."""

    def __init__(self, code, message):
        super().__init__(message)
        self.code = code
        self.message = message


class _Progress(ctypes.Structure):
    _fields_ = [("records_read", ctypes.c_uint64), ("kernels_done", ctypes.c_uint64),
                ("ctas_done", ctypes.c_uint64), ("sim_time_ns", ctypes.c_uint64), ("wall_seconds", ctypes.c_double),
                ("input_fraction", ctypes.c_double), ("ctas_read", ctypes.c_uint64),
                ("rows_written", ctypes.c_uint64), ("rows_total", ctypes.c_uint64)]


_PROGRESS_FN = ctypes.CFUNCTYPE(None, ctypes.c_void_p, ctypes.POINTER(_Progress))


class _Options(ctypes.Structure):
    _fields_ = [("version", ctypes.c_uint), ("progress", _PROGRESS_FN), ("progress_ctx", ctypes.c_void_p)]


class _StageStats(ctypes.Structure):
    _fields_ = [("kernels", ctypes.c_uint64), ("mean_ns", ctypes.c_double), ("p50_ns", ctypes.c_double),
                ("p99_ns", ctypes.c_double), ("max_ns", ctypes.c_double)]


def _candidates():
    env = os.environ.get("GDSIM_LIBRARY")
    if env:
        yield env
        return
    here = os.path.dirname(os.path.realpath(__file__))
    try:
        from . import _libpath  # written by make install
        yield _libpath.LIBRARY
    except ImportError:
        pass
    yield os.path.join(here, "..", "..", "build", "libgdsim.so")  # a checkout: python/gdsim -> build/
    found = ctypes.util.find_library("gdsim")
    if found:
        yield found


def _load():
    tried = []
    for path in _candidates():
        if os.sep in path and not os.path.exists(path):
            tried.append(path + " (missing)")
            continue
        try:
            return ctypes.CDLL(path)
        except OSError as e:
            tried.append("%s (%s)" % (path, e))
    raise ImportError("gdsim: libgdsim.so not found (set GDSIM_LIBRARY, run make, or make install); tried: " +
                      ("; ".join(tried) or "nothing"))


_lib = _load()
_P = ctypes.c_void_p
_S = ctypes.c_char_p
for _name, _res, _args in [
        ("gd_options_init", ctypes.c_int, [ctypes.POINTER(_Options), ctypes.c_uint]),
        ("gd_sim_new", ctypes.c_int, [ctypes.POINTER(_P), ctypes.POINTER(_Options)]),
        ("gd_sim_free", None, [_P]),
        ("gd_sim_set", ctypes.c_int, [_P, _S, _S]),
        ("gd_sim_load_config", ctypes.c_int, [_P, _S]),
        ("gd_sim_get", ctypes.c_int, [ctypes.POINTER(_S), _P, _S]),
        ("gd_sim_set_cta_log", ctypes.c_int, [_P, _S]),
        ("gd_sim_set_meta_log", ctypes.c_int, [_P, _S]),
        ("gd_sim_set_occupancy_csv", ctypes.c_int, [_P, _S, ctypes.c_uint64]),
        ("gd_sim_set_timeline", ctypes.c_int, [_P, _S, ctypes.c_uint64]),
        ("gd_sim_set_vcd", ctypes.c_int, [_P, _S, ctypes.c_uint]),
        ("gd_sim_set_kernel_table", ctypes.c_int, [_P, ctypes.c_int]),
        ("gd_sim_set_absolute_times", ctypes.c_int, [_P, ctypes.c_int]),
        ("gd_sim_set_timeout", ctypes.c_int, [_P, ctypes.c_double]),
        ("gd_sim_interrupt", ctypes.c_int, [_P]),
        ("gd_sim_resolve_config", ctypes.c_int, [_P, _S]),
        ("gd_sim_check_topology", ctypes.c_int, [_P, _S, _S]),
        ("gd_sim_replay_file", ctypes.c_int, [_P, _S]),
        ("gd_sim_stage_stats", ctypes.c_int, [ctypes.POINTER(_StageStats), _P, ctypes.c_int]),
        ("gd_sim_write_kernels_csv", ctypes.c_int, [_P, _S]),
        ("gd_sim_write_summary_json", ctypes.c_int, [_P, _S]),
        ("gd_sim_write_summary_text", ctypes.c_int, [_P, _S]),
        ("gd_sim_errmsg", _S, [_P]),
        ("gd_strerror", _S, [ctypes.c_int]),
        ("gd_version", _S, []),
        ("gd_stage_name", _S, [ctypes.c_int]),
        ("gd_config_key", ctypes.c_int, [ctypes.POINTER(_S)] * 4 + [ctypes.c_size_t])]:
    _f = getattr(_lib, _name)
    _f.restype = _res
    _f.argtypes = _args


def _b(s, what="a path"):
    """Text for the C API: str, bytes or a path; a NUL byte would cut it short there."""
    if not isinstance(s, (str, bytes, os.PathLike)):
        raise TypeError("gdsim: %s must be a str, bytes or path, not %s" % (what, type(s).__name__))
    b = os.fsencode(s)
    if b"\0" in b:
        raise ValueError("gdsim: %s contains a NUL byte: %r" % (what, s))
    return b


def _uint(v, bits, what):
    """An integer argument of a C type of that many bits, checked before ctypes wraps it."""
    if isinstance(v, bool) or not isinstance(v, int):
        raise TypeError("gdsim: %s must be an int, not %s" % (what, type(v).__name__))
    if not 0 <= v < 1 << bits:
        raise ValueError("gdsim: %s %d is out of range (0 to %d)" % (what, v, (1 << bits) - 1))
    return v


def _t(b):
    return b.decode("utf-8", "replace") if b is not None else None


def _stage_names():
    out = []
    while _lib.gd_stage_name(len(out)) is not None:
        out.append(_t(_lib.gd_stage_name(len(out))))
    return tuple(out)


# the stages of a kernel's launch, in order (enum gd_stage of gdsim.h)
STAGES = _stage_names()


def version():
    """The library's version string, e.g. '0.1.0'."""
    return _t(_lib.gd_version())


def strerror(code):
    """The library's text for a status code."""
    return _t(_lib.gd_strerror(code))


def keys():
    """Every configuration key: a list of dicts with name, default (None where the device
    preset gives it), doc and source (where the default comes from)."""
    out = []
    i = 0
    while True:
        v = [_S() for _ in range(4)]
        if _lib.gd_config_key(*[ctypes.byref(x) for x in v], i) != OK:
            return out
        out.append(dict(zip(("name", "default", "doc", "source"), (_t(x.value) for x in v))))
        i += 1


def _value(v):
    """A configuration value as the keys take it: text, a number, True/False (on/off), a
    list or tuple of numbers (a list key: gpu.sms_per_gpc=[16, 16, 14]), a path."""
    if isinstance(v, bool):
        return "on" if v else "off"
    if isinstance(v, (int, float, str)):
        return str(v)
    if isinstance(v, (bytes, os.PathLike)):
        return os.fsdecode(v)
    if isinstance(v, (list, tuple)) and v and all(isinstance(x, int) and not isinstance(x, bool) for x in v):
        return ",".join(str(x) for x in v)
    raise TypeError("gdsim: a configuration value must be text, a number, True/False, a path or a list of "
                    "ints, not %s" % type(v).__name__)


_TEXT_COLUMNS = {"name", "limiter", "cmd_flags", "status"}


def _number(s):
    try:
        return int(s)
    except ValueError:
        pass
    try:
        return float(s)
    except ValueError:
        return s


class Sim:
    """A simulation handle: a configuration (the keys of `gdsim keys`) and the results of
    its last replay.

    config: a dict of KEY: VALUE (values as text, numbers, or True/False for on/off).
    progress: a callable receiving a dict (records_read, kernels_done, ctas_done,
    sim_time_ns, wall_seconds, input_fraction, ctas_read, rows_written, rows_total) about
    twice a second of wall time during a replay and once at its end; and while kernels()
    writes the table (rows_total its rows, else 0; rows_written those written)."""

    def __init__(self, config=None, progress=None):
        self._h = None
        self._summary = None
        opts = _Options()
        _lib.gd_options_init(ctypes.byref(opts), OPTIONS_VERSION)
        self._cb = None
        self._cb_error = None
        if progress is not None:
            if not callable(progress):
                raise TypeError("gdsim.Sim: progress must be callable, not %s" % type(progress).__name__)
            me = weakref.ref(self)

            def cb(_ctx, p):
                # an exception here cannot cross ctypes: it stops the replay, which raises it
                sim = me()
                if sim is None or sim._cb_error is not None:
                    return
                try:
                    c = p.contents
                    progress({f: getattr(c, f) for f, _ in _Progress._fields_})
                except BaseException as e:
                    sim._cb_error = e
                    if sim._h is not None:
                        _lib.gd_sim_interrupt(sim._h)
            self._cb = _PROGRESS_FN(cb)
            opts.progress = self._cb
        h = _P()
        rc = _lib.gd_sim_new(ctypes.byref(h), ctypes.byref(opts))
        if rc != OK:
            raise Error(rc, "gd_sim_new: " + strerror(rc))
        self._h = h
        for k, v in (config or {}).items():
            self.set(k, v)

    # lifetime
    def close(self):
        """Free the handle (also done by `with` and when the object is collected)."""
        if self._h is not None:
            _lib.gd_sim_free(self._h)
            self._h = None

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()
        return False

    def __del__(self):
        try:
            self.close()
        except Exception:
            pass

    def _handle(self):
        if self._h is None:
            raise Error(EINVAL, "gdsim.Sim: used after close()")
        return self._h

    def _check(self, rc):
        if rc != OK:
            raise Error(rc, _t(_lib.gd_sim_errmsg(self._h)) or strerror(rc))

    # configuration
    def set(self, key, value):
        """Set a configuration key; an unknown key or bad value raises Error (ECONFIG), a
        value of another type TypeError, a NUL byte ValueError."""
        if not isinstance(key, str):
            raise TypeError("gdsim: a configuration key must be a str, not %s" % type(key).__name__)
        self._check(_lib.gd_sim_set(self._handle(), _b(key, "a key"), _b(_value(value), "the value of " + key)))

    def load_config(self, path):
        """Set the keys of a configuration file (KEY = VALUE lines, '#' comments; the
        CLI's --config): all of them or, with Error naming the file and line, none."""
        self._check(_lib.gd_sim_load_config(self._handle(), _b(os.fspath(path))))

    def get(self, key):
        """A key's value as the next replay would use it, as text."""
        out = _S()
        self._check(_lib.gd_sim_get(ctypes.byref(out), self._handle(), _b(key)))
        return _t(out.value)

    def set_cta_log(self, path):
        """Write one CSV row per CTA during the next replays to path (None: stop)."""
        self._check(_lib.gd_sim_set_cta_log(self._handle(), None if path is None else _b(path)))

    def set_meta_log(self, path):
        """Write the meta-scheduler's event log during the next replays to path (None: stop)."""
        self._check(_lib.gd_sim_set_meta_log(self._handle(), None if path is None else _b(path)))

    def set_occupancy_csv(self, path, interval_ns=10000):
        """Write occupancy over time (mean resident warps per interval) during the next
        replays to path (None: stop)."""
        self._check(_lib.gd_sim_set_occupancy_csv(self._handle(), None if path is None else _b(path),
                                                  _uint(interval_ns, 64, "interval_ns")))

    def set_timeline(self, path, interval_ns=10000):
        """Write the next replays as a Chrome trace-event timeline (Perfetto UI) to path (None: stop)."""
        self._check(_lib.gd_sim_set_timeline(self._handle(), None if path is None else _b(path),
                                             _uint(interval_ns, 64, "interval_ns")))

    def set_vcd(self, path, queues=8):
        """Write the next replays' waveforms (VCD, SystemC's tracing) to path (None: stop)."""
        self._check(_lib.gd_sim_set_vcd(self._handle(), None if path is None else _b(path), _uint(queues, 32, "queues")))

    def set_kernel_table(self, keep):
        """Keep the next replays' kernel table for kernels() (True, the default); False
        saves its time, and kernels() then raises Error (code ESTATE)."""
        self._check(_lib.gd_sim_set_kernel_table(self._handle(), 1 if keep else 0))

    def set_absolute_times(self, absolute):
        """Times in the CSVs in the trace's own clock (True) or from its first submit (False, the default)."""
        self._check(_lib.gd_sim_set_absolute_times(self._handle(), 1 if absolute else 0))

    def set_timeout(self, seconds):
        """Stop each later replay after this many seconds of wall time (0: no limit):
        replay() then raises Error with code ELIMIT, writing nothing. Writing the kernel
        table (kernels()) has the same bound of its own."""
        if isinstance(seconds, bool) or not isinstance(seconds, (int, float)):
            raise TypeError("gdsim: seconds must be a number, not %s" % type(seconds).__name__)
        self._check(_lib.gd_sim_set_timeout(self._handle(), float(seconds)))

    def interrupt(self):
        """Stop the replay running on this handle (from another thread: replay() holds
        no lock on Python while it runs): it raises Error with code EINTERRUPTED; likewise
        kernels() while the table is written. A call while neither runs is forgotten."""
        self._check(_lib.gd_sim_interrupt(self._handle()))

    def resolve(self, trace):
        """Resolve the configuration against a trace's device (its header only): get()
        then gives the values a replay of it would use."""
        self._check(_lib.gd_sim_resolve_config(self._handle(), _b(trace)))

    # running
    def replay(self, path):
        """Replay a trace to completion; returns the summary (what summary() returns)."""
        self._summary = None
        self._cb_error = None
        rc = _lib.gd_sim_replay_file(self._handle(), _b(path))
        if self._cb_error is not None:  # the progress callback raised: the replay stopped for it
            e, self._cb_error = self._cb_error, None
            raise e
        self._check(rc)
        return self.summary()

    def check_topology(self, path):
        """Check a pipeline topology: (valid, verdicts text). A file that cannot be read
        or parsed raises Error."""
        with tempfile.TemporaryDirectory(prefix="gdsim-py-") as d:
            out = os.path.join(d, "verdicts.txt")
            rc = _lib.gd_sim_check_topology(self._handle(), _b(path), _b(out))
            if rc not in (OK, EMODEL):
                self._check(rc)
            with open(out, encoding="utf-8", errors="replace") as f:
                return rc == OK, f.read()

    # results of the last replay
    def _written(self, fn, name):
        with tempfile.TemporaryDirectory(prefix="gdsim-py-") as d:
            out = os.path.join(d, name)
            self._cb_error = None
            rc = fn(self._handle(), _b(out))
            if self._cb_error is not None:  # the progress callback raised: the write stopped for it
                e, self._cb_error = self._cb_error, None
                raise e
            self._check(rc)
            with open(out, encoding="utf-8", errors="replace") as f:
                return f.read()

    def summary(self):
        """The last replay's summary JSON as a dict: gdsim_version, trace, config, summary
        (kernels, ctas, sim_time_ns, mean_sm_occupancy_pct, ...), the blocks' objects and
        stats (docs/MODEL.md). Raises Error (ESTATE) before any replay."""
        if self._summary is None:
            self._summary = json.loads(self._written(_lib.gd_sim_write_summary_json, "summary.json"))
        return self._summary

    def bounds(self):
        """What bounds the last replay (docs/WHATIF.md): a dict with verdict ("host",
        "front-end" or "GPU"), span_us, critical_path_us (host_cpu, host_sync, held,
        front_end, sms_full, kernels, copies: summing to the span), gpu_us (busy_kernels,
        busy_copies, idle_front_end, idle_dependency, idle_nothing_submitted), host_floor_us
        and gpu_floor_us. The summary's "bounds" object; a replay of a platform's queues
        (no trace) has none: {}."""
        return self.summary().get("bounds", {})

    def report(self):
        """The last replay's text report (what `gdsim replay` prints)."""
        return self._written(_lib.gd_sim_write_summary_text, "report.txt")

    def kernels(self, frame=False, raw=False):
        """The last replay's kernel table, one dict per kernel in dispatch order (the
        columns of --kernels-csv). Numbers become int or float; raw=True keeps the text
        (float64 holds about 16 digits: absolute times of converted captures, near 1.7e18
        ns, keep them to about 0.25 us). frame=True gives a pandas DataFrame instead
        (Error if pandas is not installed)."""
        text = self._written(_lib.gd_sim_write_kernels_csv, "kernels.csv")
        rows = list(csv.DictReader(text.splitlines()))
        if not raw:  # (a kernel's name stays text, whatever it looks like)
            rows = [{k: v if k in _TEXT_COLUMNS else _number(v) for k, v in r.items()} for r in rows]
        if frame:
            try:
                import pandas
            except ImportError:
                raise Error(EINVAL, "gdsim.Sim.kernels(frame=True) needs pandas (Debian package python3-pandas)")
            return pandas.DataFrame(rows)
        return rows

    def stages(self):
        """Per stage of a kernel's launch (gdsim.STAGES), its duration over the last
        replay's kernels: a dict of dicts (kernels, mean_ns, p50_ns, p99_ns, max_ns)."""
        out = {}
        for i, name in enumerate(STAGES):
            s = _StageStats()
            self._check(_lib.gd_sim_stage_stats(ctypes.byref(s), self._handle(), i))
            out[name] = {f: getattr(s, f) for f, _ in _StageStats._fields_}
        return out
