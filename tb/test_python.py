#!/usr/bin/env python3
"""The Python binding (python/gdsim, ctypes) against the library of BUILD_DIR: every
result equals what the CLI gives for the same trace (summary JSON, kernel table, text
report, keys), errors are gdsim.Error with the library's code and message, several
Sim objects live in one process and each replays the same way twice.
Usage: python3 tb/test_python.py BUILD_DIR (a sanitizer build reruns itself with the
sanitizer's runtime preloaded, so the binding is checked under ASan/UBSan too)."""
import csv
import json
import os
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
B = os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else os.path.join(ROOT, "build"))
GD = os.path.join(B, "gdsim")
SAMPLE = os.path.join(ROOT, "traces", "sample.gdt.gz")

RUNTIME = {"asan": "libasan.so", "ubsan": "libubsan.so"}.get(os.path.basename(B))
if RUNTIME and "GDSIM_TEST_PRELOADED" not in os.environ:
    # the sanitizer's runtime first; with it libstdc++, or ASan's __cxa_throw interceptor
    # finds no real function (Python itself is no C++ program) and aborts at the first throw
    lib = " ".join(subprocess.run(["g++", "-print-file-name=" + f], capture_output=True, text=True).stdout.strip()
                   for f in (RUNTIME, "libstdc++.so.6"))
    env = dict(os.environ, LD_PRELOAD=lib, GDSIM_TEST_PRELOADED="1", ASAN_OPTIONS="detect_leaks=0")
    sys.exit(subprocess.run([sys.executable] + sys.argv, env=env).returncode)

os.environ["GDSIM_LIBRARY"] = os.path.join(B, "libgdsim.so")
sys.path.insert(0, os.path.join(ROOT, "python"))
import gdsim  # noqa: E402


def cli(*args):
    r = subprocess.run([GD] + list(args), capture_output=True, text=True)
    assert r.returncode == 0, (args, r.stderr)
    return r.stdout


def expect_error(code, text, fn, *args):
    try:
        fn(*args)
    except gdsim.Error as e:
        assert e.code == code, (e.code, code, e.message)
        assert text in e.message, (text, e.message)
        assert str(e) == e.message
        return e
    raise AssertionError("no gdsim.Error from %s%r" % (fn.__name__, args))


_T = tempfile.TemporaryDirectory(prefix="gdsim-pytest-")  # removed at exit, pass or fail
T = _T.name

# the library's identity and keys are the CLI's
assert cli("--version").split()[1] == gdsim.version(), gdsim.version()
names = [line.split(" = ")[0] for line in cli("keys").splitlines() if " = " in line and not line.startswith(" ")]
ks = gdsim.keys()
assert [k["name"] for k in ks] == names, "keys differ from gdsim keys"
pol = [k for k in ks if k["name"] == "meta.policy"][0]
assert pol["default"] == "topology" and "Meta-scheduler" in pol["doc"] and pol["source"], pol
assert [k for k in ks if k["name"] == "gpu.name"][0]["default"] is None  # from the preset
assert gdsim.STAGES[0] == "fetch" and gdsim.STAGES[-1] == "launch_latency" and len(gdsim.STAGES) == 8
assert gdsim.strerror(gdsim.EFORMAT)

# one replay: every output equals the CLI's
report = cli("replay", SAMPLE, "--no-progress", "--summary-json", os.path.join(T, "s.json"),
             "--kernels-csv", os.path.join(T, "k.csv"))
with gdsim.Sim() as sim:
    expect_error(gdsim.ESTATE, "no replay", sim.summary)
    s = sim.replay(SAMPLE)
    assert s == json.load(open(os.path.join(T, "s.json"))), "summary differs from the CLI's"
    assert s is sim.summary()
    assert (s["summary"]["kernels"], s["summary"]["ctas"]) == (40, 40000), s["summary"]
    raw = sim.kernels(raw=True)
    assert raw == list(csv.DictReader(open(os.path.join(T, "k.csv")))), "kernel table differs from the CLI's"
    k = sim.kernels()
    assert len(k) == 40 and k[0]["kernel_index"] == 0 and isinstance(k[0]["grid_ctas"], int)
    assert k[0]["first_cta_ns"] == float(raw[0]["first_cta_ns"]) and isinstance(k[0]["name"], str)
    assert sim.report() == report, "text report differs from the CLI's"
    b = sim.bounds()  # the sample: two queues kept busy from the start, GPU-bound
    assert b["verdict"] == "GPU" and b is s["bounds"], b
    assert abs(sum(b["critical_path_us"].values()) - b["span_us"]) < 1e-5, b
    assert abs(sum(b["gpu_us"].values()) - b["span_us"]) < 1e-5, b
    assert b["host_floor_us"] <= b["span_us"] and b["gpu_floor_us"] <= b["span_us"], b
    assert "  bounds              GPU-bound:" in report, report
    st = sim.stages()
    assert list(st) == list(gdsim.STAGES) and st["fetch"]["kernels"] == 40, st["fetch"]
    lat = sum(r["first_cta_ns"] - r["submit_ns"] for r in k) / len(k)
    assert abs(st["launch_latency"]["mean_ns"] - lat) < 1e-3 * lat, (st["launch_latency"], lat)
    try:
        import pandas  # noqa: F401
        assert len(sim.kernels(frame=True)) == 40
    except ImportError:
        expect_error(gdsim.EINVAL, "needs pandas", sim.kernels, True)

# configuration, errors
sim = gdsim.Sim({"gpu.preset": "h100", "meta.debug": True, "cwd.max_resident_kernels": 4})
assert sim.get("meta.debug") == "on" and sim.get("cwd.max_resident_kernels") == "4" and sim.get("sm.regs") == "65536"
expect_error(gdsim.ECONFIG, "unknown configuration key 'no.such'", sim.set, "no.such", 1)
expect_error(gdsim.ECONFIG, "meta.policy", sim.set, "meta.policy", "fastest")
expect_error(gdsim.EIO, os.path.join(T, "none.gdt") + ": cannot open", sim.replay, os.path.join(T, "none.gdt"))
cfg = os.path.join(T, "point.cfg")
with open(cfg, "w") as f:
    f.write("# a sweep point\ncwd.max_resident_kernels = 8\nmeta.policy = fastest\n")
expect_error(gdsim.ECONFIG, "point.cfg:3: bad value 'fastest'", sim.load_config, cfg)
assert sim.get("cwd.max_resident_kernels") == "4"          # none of the file applied
with open(cfg, "w") as f:
    f.write("cwd.max_resident_kernels = 8  # fewer\n")
sim.load_config(cfg)
assert sim.get("cwd.max_resident_kernels") == "8"
bad = os.path.join(T, "bad.gdt")
with open(bad, "wb") as f:
    f.write(b"not a trace at all, not even gzip")
expect_error(gdsim.EFORMAT, bad, sim.replay, bad)
ok, text = sim.check_topology(os.path.join(ROOT, "traces", "topologies", "fig1.topo"))
assert ok and "valid: 3 kernels, 4 buffers" in text, text
ok, text = sim.check_topology(os.path.join(ROOT, "tb", "data", "topologies", "starved.topo"))
assert not ok and "kernel L: starved:" in text, text
expect_error(gdsim.EIO, "none.topo", sim.check_topology, os.path.join(T, "none.topo"))
sim.close()
sim.close()  # twice is fine
expect_error(gdsim.EINVAL, "after close", sim.replay, SAMPLE)

# several simulations in one process, interleaved: each gives the same results twice,
# and a different configuration gives its own
a = gdsim.Sim()
b = gdsim.Sim({"gpu.preset": "h100", "gpu.gpcs": 1, "gpu.sms_per_gpc": 8})
calls = []
c = gdsim.Sim(progress=calls.append)
ra1, rb1, rc1 = a.replay(SAMPLE), b.replay(SAMPLE), c.replay(SAMPLE)
ka1 = a.kernels()
ra2, rb2 = a.replay(SAMPLE), b.replay(SAMPLE)
assert ra1 == ra2 and rb1 == rb2 and ra1 == rc1 and ka1 == a.kernels()
assert rb1["summary"]["sim_time_ns"] > ra1["summary"]["sim_time_ns"], (rb1["summary"], ra1["summary"])
assert all(set(p) == {"records_read", "kernels_done", "ctas_done", "sim_time_ns", "wall_seconds", "input_fraction",
                      "ctas_read", "rows_written", "rows_total"} for p in calls)
assert calls[-1]["input_fraction"] == 1.0, calls[-1]
assert calls[-1]["ctas_done"] == calls[-1]["ctas_read"] == 40000, calls[-1]
assert all(p["rows_total"] == 0 for p in calls), "a replay's reports are not a write's"
n = len(calls)
assert len(c.kernels()) == 40   # writing the table reports too, once at its end at least
assert calls[-1]["rows_written"] == calls[-1]["rows_total"] == 40 and len(calls) > n, calls[n:]


def raising(p):
    if p["rows_total"]:
        raise RuntimeError("stop the table")


with gdsim.Sim(progress=raising) as r:
    r.replay(SAMPLE)
    try:
        r.kernels()
        raise AssertionError("the callback's exception was lost")
    except RuntimeError as e:
        assert str(e) == "stop the table", e
for x in (a, b, c):
    x.close()

# values checked before they reach C (issue 42): NULs, wrong types and integers past their
# C type raise ValueError or TypeError; lists of ints are list keys; paths may be bytes
with gdsim.Sim() as s:
    for args, exc, text in [(("gpu.name", "a\0b"), ValueError, "NUL byte"), (("gpu.name", None), TypeError, "NoneType"),
                            ((b"gpu.name", "x"), TypeError, "a configuration key must be a str"),
                            (("gpu.sms_per_gpc", [16, True]), TypeError, "list")]:
        try:
            s.set(*args)
        except exc as e:
            assert text in str(e), (args, e)
        else:
            raise AssertionError("accepted %r" % (args,))
    s.set("gpu.sms_per_gpc", [16, 16, 14])
    s.set("sm.cta_time_rules", b"x.rules")
    assert (s.get("gpu.sms_per_gpc"), s.get("sm.cta_time_rules")) == ("16,16,14", "x.rules")
    for fn, args, exc in [(s.set_occupancy_csv, (os.path.join(T, "o.csv"), 2 ** 64 + 5), ValueError),
                          (s.set_timeline, (os.path.join(T, "t.json"), -1), ValueError),
                          (s.set_vcd, (os.path.join(T, "w.vcd"), 1.5), TypeError),
                          (s.set_timeout, ("5",), TypeError),
                          (s.replay, ("a\0b.gdt.gz",), ValueError), (s.load_config, (None,), TypeError)]:
        try:
            fn(*args)
        except exc:
            pass
        else:
            raise AssertionError("%s%r accepted" % (fn.__name__, args))


# a kernel's name stays text in kernels(), whatever it looks like
sys.path.insert(0, os.path.join(ROOT, "scripts"))
import gdtrace  # noqa: E402
num = os.path.join(T, "numeric.gdt.gz")
w = gdtrace.TraceWriter(num, gdtrace.Device("NVIDIA H100 80GB HBM3", (9, 0), 132, 2048, 65536, 233472, 49152,
                                            232448, 1024, 32), "test_python")
w.kernel(1, "1e3", 128, 32, 0, 0, cta_ps=1000000)
w.dispatch(0, 1000, 1, (128, 1, 1), (1, 1, 1), 0)
w.close()
with gdsim.Sim() as s:
    s.replay(num)
    assert s.kernels()[0]["name"] == "1e3" and s.kernels()[0]["grid_ctas"] == 1, s.kernels()[0]


# an exception in the progress callback stops the replay (it interrupts it) and replay()
# raises it (the sample's one call comes at its end)
class Stop(Exception):
    pass


def stop(p):
    raise Stop(p["kernels_done"])


with gdsim.Sim(progress=stop) as s:
    try:
        s.replay(SAMPLE)
    except Stop:
        pass
    else:
        raise AssertionError("the callback's exception was swallowed")
    assert s.replay.__doc__ and s.set_timeout(0) is None   # the handle stays usable


# a CTA log and a meta log through the binding
with gdsim.Sim() as sim:
    sim.set_cta_log(os.path.join(T, "cta.csv"))
    sim.replay(SAMPLE)
    sim.set_cta_log(None)
    rows = open(os.path.join(T, "cta.csv")).read().splitlines()
    assert rows[0].startswith("kernel_index,cta_id,") and len(rows) == 40001, len(rows)

# the outputs of a replay beyond the summary: occupancy over time, timeline, waveforms,
# times in the trace's clock; the configuration resolved against a trace
with gdsim.Sim() as sim:
    assert sim.get("gpu.gpcs").startswith("(from the trace's device")
    sim.resolve(SAMPLE)
    assert sim.get("gpu.gpcs") == "8" and sim.get("gpu.preset") == "trace/h100"
    occ, tl, vcd = (os.path.join(T, n) for n in ("occ.csv", "tl.json", "w.vcd"))
    sim.set_occupancy_csv(occ, 5000)
    sim.set_timeline(tl, 5000)
    sim.set_vcd(vcd, 2)
    sim.set_absolute_times(True)
    sim.replay(SAMPLE)
    assert open(occ).readline().startswith("start_ns,gpu,gpc0,")
    assert open(occ).read().splitlines()[1].startswith("1000.000,"), "absolute times: the first submit at 1000 ns"
    import json as _json
    assert any(e.get("ph") == "X" for e in _json.load(open(tl))["traceEvents"])
    assert "$var wire" in open(vcd).read(4096)
    expect_error(gdsim.EINVAL, "interval 0 ns", sim.set_occupancy_csv, occ, 0)
    # no kernel table kept: the same summary, kernels() refused
    full = sim.replay(SAMPLE)
    sim.set_kernel_table(False)
    assert sim.replay(SAMPLE) == full
    expect_error(gdsim.ESTATE, "kept no kernel table", sim.kernels)
    sim.set_kernel_table(True)
    sim.replay(SAMPLE)
    assert len(sim.kernels()) == 40

# stopping a replay: a timeout, and interrupt() from another thread; the handle stays usable
import threading
BIG = os.path.join(os.path.dirname(os.path.abspath(__file__)), "bad", "run_past_timeout.gdt")  # 2^28 CTAs
with gdsim.Sim() as sim:
    sim.set_timeout(0.2)
    expect_error(gdsim.ELIMIT, "timeout of 0.2 s", sim.replay, BIG)
    expect_error(gdsim.EINVAL, "not a timeout", sim.set_timeout, -1)
    expect_error(gdsim.EINVAL, "not a timeout (0 for none, or 0.001 to 10^7 s)", sim.set_timeout, 1e-300)
    sim.set_timeout(0)
    threading.Timer(0.2, sim.interrupt).start()
    expect_error(gdsim.EINTERRUPTED, "interrupted", sim.replay, BIG)
    assert sim.replay(SAMPLE)["summary"]["kernels"] == 40

# the kernel table's writing (kernels(), gd_sim_write_kernels_csv) has the timeout's bound
# too, and interrupt() stops it: 50,000 rows take tens of ms, the clock is read every 1,024th
K50 = os.path.join(T, "k50k.gdt.gz")
subprocess.run([sys.executable, os.path.join(ROOT, "scripts", "gen_trace.py"), K50, "--kernels", "50000", "--grid",
                "1", "--block", "256", "--regs", "32", "--smem", "0", "--cta-ns", "1000"], check=True,
               capture_output=True)
with gdsim.Sim() as sim:
    sim.replay(K50)
    sim.set_timeout(0.001)
    expect_error(gdsim.ELIMIT, "rows of the kernel table; nothing written", sim.kernels)
    sim.set_timeout(0)
    done = threading.Event()

    def keep_interrupting():
        while not done.is_set():
            sim.interrupt()
            done.wait(0.0005)
    th = threading.Thread(target=keep_interrupting)
    th.start()
    try:
        expect_error(gdsim.EINTERRUPTED, "interrupted after", sim.kernels)
    finally:
        done.set()
        th.join()
    assert len(sim.kernels()) == 50000  # an interrupt before the call is forgotten

# replays on separate Sim objects from 4 threads at once (ctypes lets go of the GIL in
# a call): the library's lock serialises them, none fails, each result is the lone one's
with gdsim.Sim() as sim:
    alone = sim.replay(SAMPLE)
RUNS = int(os.environ.get("GDSIM_THREAD_RUNS", "1000")) // 4
failures = []


def worker():
    kept = gdsim.Sim()
    for i in range(RUNS):
        try:
            if i % 2:
                with gdsim.Sim() as fresh:
                    got = fresh.replay(SAMPLE)
            else:
                got = kept.replay(SAMPLE)
            if got != alone:
                failures.append("a concurrent replay's results differ from the replay alone")
        except gdsim.Error as e:
            failures.append(e.message)
    kept.close()


threads = [threading.Thread(target=worker) for _ in range(4)]
for t in threads:
    t.start()
for t in threads:
    t.join()
assert not failures, "%d of %d concurrent replays failed; the first: %s" % (len(failures), 4 * RUNS, failures[0])

print("python binding: keys, summary, kernel table, report and stages equal the CLI's; errors; "
      "several simulations in one process, %d replays from 4 threads: ok" % (4 * RUNS))
