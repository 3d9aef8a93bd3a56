"""scripts/calibrate.py (the launch-gap fit), the calibration record and graph flag of
trace format 1.9 (scripts/gdtrace.py) and kineto2gdt.py --calibrate, on a capture
written here whose gaps are chosen by hand so that every fitted value is known
exactly, and every rule that leaves a gap out changes a value if it fails.
Usage: python3 tb/test_calibrate.py BUILD_DIR"""
import contextlib
import csv as csvmod
import gzip
import io
import json
import os
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "scripts"))
import calibrate  # noqa: E402
import gdtrace  # noqa: E402
import kineto2gdt  # noqa: E402

SHARED = os.path.join(HERE, "data", "kineto")
BUILD = sys.argv[1] if len(sys.argv) > 1 else os.path.join(HERE, "..", "build")
_TMP = tempfile.TemporaryDirectory()  # removed at exit, whether the test passes or fails
TMP = _TMP.name
T0 = 10000000        # the GPU timeline starts at 10 ms; the host launches everything in the first 0.2 ms
KDUR, CDUR = 10000, 5000


class Builder:
    """A Kineto capture of the A100 (the triton capture's deviceProperties), built in
    call order: each op's launch call gets the next correlation id; times in ns."""

    def __init__(self):
        self.events, self.corr, self.host = [], 0, 0
        self.ops = self.kernels = 0

    def call(self, name, ts=None, dur=500):
        """A host runtime call; at the next host time unless ts is given."""
        self.corr += 1
        if ts is None:
            ts, self.host = self.host, self.host + 1000
        self.events.append(dict(ph="X", cat="cuda_runtime", name=name, pid=1, tid=1, ts=ts / 1000, dur=dur / 1000,
                                args={"correlation": self.corr}))
        return self.corr

    def op(self, kind, stream, start, dur=None, corr=None, late_launch_end=None, api="cudaLaunchKernel"):
        """A kernel (K) or memcpy (C) on stream at start; launched now by its own call
        (api / cudaMemcpyAsync), or by the call `corr` (a graph launch), or by a call
        ending at late_launch_end (not queued). Returns its end."""
        dur = dur if dur is not None else KDUR if kind == "K" else CDUR
        if corr is None:
            name = api if kind == "K" else "cudaMemcpyAsync"
            corr = self.call(name) if late_launch_end is None else self.call(name, late_launch_end - 500)
        args = {"device": 0, "stream": stream, "correlation": corr}
        if kind == "K":
            args.update({"registers per thread": 16, "shared memory": 0, "grid": [4, 1, 1], "block": [128, 1, 1]})
            self.events.append(dict(ph="X", cat="kernel", name="k", pid=0, tid=stream, ts=start / 1000,
                                    dur=dur / 1000, args=args))
        else:
            args["bytes"] = 256
            self.events.append(dict(ph="X", cat="gpu_memcpy", name="Memcpy DtoD (Device -> Device)", pid=0,
                                    tid=stream, ts=start / 1000, dur=dur / 1000, args=args))
        self.ops += 1
        self.kernels += kind == "K"
        return start + dur

    def wait(self, stream, on_stream, record):
        """A recorded cross-stream wait (cudaStreamWaitEvent and its cuda_sync event) of
        stream on the event record call `record`."""
        corr = self.call("cudaStreamWaitEvent")
        self.events.append(dict(ph="X", cat="cuda_sync", name="Stream Wait Event", pid=0, tid=stream, ts=0, dur=0,
                                args={"cuda_sync_kind": "Stream Wait Event", "device": 0, "stream": stream,
                                      "wait_on_stream": on_stream, "wait_on_cuda_event_record_corr_id": record,
                                      "correlation": corr}))

    def write(self, name):
        src = json.load(gzip.open(os.path.join(SHARED, "a100_triton_1_kernel.json.gz")))
        path = os.path.join(TMP, name)
        with open(path, "w") as f:
            json.dump(dict(deviceProperties=src["deviceProperties"], traceEvents=self.events), f)
        return path


# The hand-chosen gaps (ns) of the first half of the capture, per class; the second half
# adds five K->K gaps of 3000.
KK = [1000, 1100, 1200, 5000, 1300]         # median 1200 (mean 1720)
KC = [1400, 1500, 1450, 1700, 9000]         # median 1500
CK = [1600, 1650, 1800, 1900, 2000]         # median 1800
CC = [1500, 1600, 1701, 1800, 1900, 2000]   # median (1701 + 1800) / 2 = 1750.5: 1751
GRAPH_KK = [300, 400, 500, 600, 10000]      # median 500
GRAPH_KC = [700]                            # one gap: omitted
AFTER_WAIT = [2500, 2000, 2300, 2100, 2200]  # median 2200
FIRST_HALF = {"pp.gap_kernel_kernel_ns": 1200, "pp.gap_kernel_copy_ns": 1500, "pp.gap_copy_kernel_ns": 1800,
              "pp.gap_copy_copy_ns": 1751, "pp.gap_graph_kernel_kernel_ns": 500, "pp.gap_after_wait_ns": 2200}
# the whole capture: K->K = KK + 5 x 3000, median (3000 + 3000) / 2
WHOLE = dict(FIRST_HALF, **{"pp.gap_kernel_kernel_ns": 3000})


def build():
    """Stream 7 runs the classes' sequences back to back, all launched long before
    (busy queue); stream 9 holds the packets waited for and one that runs during a gap;
    stream 11 pads the second half so that the first half is exactly 50 % of the
    kernels (the copies all lie in the first half).
    Left out: a K->K gap of 100 during which a stream-9 kernel ran, one of 25000 (above
    wait-ns), one of 50 whose launch call ended 1 us before its predecessor ended (not
    queued); each would move the K->K median if counted."""
    b = Builder()
    x0 = b.op("K", 9, T0 - 50000)               # ended long before: the wait on it holds nothing
    rec0 = b.call("cudaEventRecord")
    t = b.op("K", 7, T0)
    for i, g in enumerate(KK):
        if i == 4:
            b.wait(7, 9, rec0)                  # satisfied wait: the pair stays K->K
        t = b.op("K", 7, t + g)
    b.op("K", 9, t - 500, 550)                  # runs from 500 before the end to 50 into the gap of 100
    t = b.op("K", 7, t + 100)                   # contended: left out
    t = b.op("K", 7, t + 25000)                 # above wait-ns: left out
    t = b.op("K", 7, t + 50, late_launch_end=t - 1000)   # not queued: left out
    for kc, ck in zip(KC, CK[:4] + [None]):
        t = b.op("C", 7, t + kc)
        if ck is not None:
            t = b.op("K", 7, t + ck)
    for g in CC:
        t = b.op("C", 7, t + g)
    t = b.op("K", 7, t + CK[4])
    graph = b.call("cudaGraphLaunch")
    for g in GRAPH_KK:
        t = b.op("K", 7, t + g, corr=graph)
    t = b.op("C", 7, t + GRAPH_KC[0], corr=graph)
    # after a wait: P (stream 7), X (stream 9) starting 100 into P and ending 3000 after
    # it, a wait of stream 7 for X's event, then the next packet g after X's end
    t = b.op("K", 7, t + 4000, late_launch_end=t - 1000)  # P1, not queued: its gap is left out
    p_start = t - KDUR
    for g in AFTER_WAIT:
        x_end = b.op("K", 9, p_start + 100, t + 3000 - (p_start + 100))
        b.wait(7, 9, b.call("cudaEventRecord"))
        p_start = x_end + g
        t = b.op("K", 7, p_start)
    first_half = b.kernels
    # second half: five K->K gaps of 3000 after a pause, then padding on stream 11
    t = b.op("K", 7, t + 1000000)
    for _ in range(5):
        t = b.op("K", 7, t + 3000)
    t += 1000000
    while b.kernels < 2 * first_half:
        t = b.op("K", 11, t + 30000)             # gaps above wait-ns: none counted
    return b.write("gaps.json"), first_half, b.ops - b.kernels


PATH, HALF, COPIES = build()


def test_fit_whole():
    r = calibrate.fit(PATH)
    assert r["keys"] == WHOLE, r["keys"]
    assert list(r["keys"]) == [k for k in gdtrace.GAP_KEYS if k in WHOLE]   # in key order
    n = {k: c["samples"] for k, c in r["classes"].items()}
    assert n == {"pp.gap_kernel_kernel_ns": 10, "pp.gap_kernel_copy_ns": 5, "pp.gap_copy_kernel_ns": 5,
                 "pp.gap_copy_copy_ns": 6, "pp.gap_graph_kernel_kernel_ns": 5, "pp.gap_graph_kernel_copy_ns": 1,
                 "pp.gap_graph_copy_kernel_ns": 0, "pp.gap_graph_copy_copy_ns": 0, "pp.gap_after_wait_ns": 5,
                 "pp.gap_programmatic_lead_ns": 0, "pp.idle_launch_ns": 3}, n
    assert r["omitted"] == {"pp.gap_graph_kernel_copy_ns": "1 < 5 gaps: the preset's value applies",
                            "pp.gap_graph_copy_kernel_ns": "0 < 5 gaps: the preset's value applies",
                            "pp.gap_graph_copy_copy_ns": "0 < 5 gaps: the preset's value applies",
                            "pp.gap_programmatic_lead_ns": "0 < 5 gaps: the preset's value applies",
                            "pp.idle_launch_ns": "3 < 5 stream launches onto an idle stream: the preset's stages "
                                                 "apply"}, r["omitted"]
    c = r["classes"]["pp.gap_kernel_kernel_ns"]
    assert (c["p10"], c["median"], c["p90"]) == (1100, 3000, 5000), c
    assert r["device"] == 0 and r["ops"] == 2 * HALF + COPIES and r["gaps"] == 36
    assert r["provenance"] == "calibrate.py fit of gaps.json device 0, all %d ops: 36 gaps" % (2 * HALF + COPIES)
    ex = r["excluded"]
    assert ex[calibrate.CONTENDED] >= 1 and ex[calibrate.TOO_LONG] >= 1 and ex[calibrate.NOT_QUEUED] == 2, ex


def test_fit_first_half():
    r = calibrate.fit(PATH, first_fraction=0.5)
    assert r["keys"] == FIRST_HALF, r["keys"]
    assert (r["kernels"], r["kernels_fitted"]) == (2 * HALF, HALF), r
    assert r["ops_fitted"] == HALF + COPIES and r["ops"] == 2 * HALF + COPIES, r
    assert r["classes"]["pp.gap_kernel_kernel_ns"]["samples"] == 5
    assert "first 50 %% of %d kernels (%d of %d ops): 31 gaps" % (2 * HALF, HALF + COPIES, 2 * HALF + COPIES) \
        in r["provenance"], r["provenance"]
    # a collected Capture gives the same fit as the path
    assert calibrate.fit(kineto2gdt.collect(PATH, None), first_fraction=0.5) == r


def test_rules():
    """Each rule that leaves a gap out, relaxed, lets its gap in and moves the median."""
    # wait-ns above 25000: the 25000 gap counts: K->K 1000 1100 1200 1300 5000 25000
    assert calibrate.fit(PATH, first_fraction=0.5, wait_ns=25000)["keys"]["pp.gap_kernel_kernel_ns"] == 1250
    # queued-ns 0: the gap of 50 counts (and P1's 4000 after the graph copy, as C->K)
    r = calibrate.fit(PATH, first_fraction=0.5, queued_ns=0)
    assert r["keys"]["pp.gap_kernel_kernel_ns"] == 1150 and r["keys"]["pp.gap_copy_kernel_ns"] == 1850, r["keys"]
    # min-samples 1: the one graph K->C gap is fitted; 6: the five-gap classes are omitted
    assert calibrate.fit(PATH, min_samples=1)["keys"]["pp.gap_graph_kernel_copy_ns"] == 700
    assert set(calibrate.fit(PATH, min_samples=6)["keys"]) == {"pp.gap_kernel_kernel_ns", "pp.gap_copy_copy_ns"}


def test_programmatic_lead():
    """Kernels launched by cudaLaunchKernelExC that started before the kernel ahead of
    them ended (programmatic dependent launches): how long before, not a K->K gap; their
    median (500 ns) is pp.gap_programmatic_lead_ns. One that started after its
    predecessor ended is an ordinary K->K gap (1200, with four others: median 1200)."""
    b = Builder()
    t = b.op("K", 5, T0)
    for lead in (300, 400, 500, 600, 700):
        t = b.op("K", 5, t - lead, api="cudaLaunchKernelExC")
    for g in (1000, 1100, 1300, 1400):
        t = b.op("K", 5, t + g)
    t = b.op("K", 5, t + 1200, api="cudaLaunchKernelExC")
    r = calibrate.fit(b.write("pdl.json"))
    assert r["keys"] == {"pp.gap_kernel_kernel_ns": 1200, "pp.gap_programmatic_lead_ns": 500}, r["keys"]
    c = r["classes"]["pp.gap_programmatic_lead_ns"]
    assert (c["samples"], c["p10"], c["p90"]) == (5, 300, 700), c


def test_idle_launch():
    """pp.idle_launch_ns: the median start - launch-call end of the stream launches onto
    an idle stream (1050 over six; the graph launch's kernel, the kernel queued behind
    another, the one a recorded cross-stream wait held and the one without a launch call
    do not count); fewer than min-samples, or
    a median not above 0, omit it. In the calibration record it needs format 1.12."""
    b = Builder()
    t = T0
    for lead in (800, 900, 1000, 1100, 5000):     # each on its own idle stream
        t = b.op("K", 20 + lead // 100, t + 20000, late_launch_end=t + 20000 - lead)
    b.op("K", 20 + 50, t - 5000, late_launch_end=t - 9000)   # behind the 5000 one, still running: not idle
    # held by a recorded wait for stream 61's kernel (itself launched 1200 ns before its
    # start), which ended 50 us after the launch call: not a launch latency (counted, the
    # median would be 1100)
    x_end = b.op("K", 61, t + 10000, 60000, late_launch_end=t + 10000 - 1200)
    b.wait(60, 61, b.call("cudaEventRecord"))
    b.op("K", 60, x_end + 1000, late_launch_end=x_end - 50000)
    graph = b.call("cudaGraphLaunch", t + 9000)
    t = b.op("K", 90, t + 100000, corr=graph)     # a graph launch's: left out
    b.events.append(dict(ph="X", cat="kernel", name="k", pid=0, tid=91, ts=(t + 50000) / 1000, dur=10.0,
                         args={"device": 0, "stream": 91, "correlation": 999, "registers per thread": 16,
                               "shared memory": 0, "grid": [4, 1, 1], "block": [128, 1, 1]}))   # no launch call
    path = b.write("idle.json")
    r = calibrate.fit(path)
    assert r["keys"] == {gdtrace.IDLE_KEY: 1050}, r["keys"]
    c = r["classes"][gdtrace.IDLE_KEY]
    assert (c["samples"], c["p10"], c["median"], c["p90"]) == (6, 800, 1050, 5000), c
    assert r["provenance"].endswith(": 0 gaps, 6 idle launches"), r["provenance"]
    assert calibrate.record_lines(r) == [(gdtrace.IDLE_KEY, 1050, "idle launch: median of 6 launches onto an idle "
                                                                  "stream (p10 800, p90 5000 ns)")]
    r7 = calibrate.fit(path, min_samples=7)
    assert r7["keys"] == {} and r7["omitted"][gdtrace.IDLE_KEY].startswith("6 < 7 stream launches"), r7["omitted"]
    # kineto2gdt --calibrate: format 1.12 for it; gdsim replays each kernel 1050 ns after
    # its doorbell (its launch call's end), the key set by the record, plus the
    # distributor's launch step of its first CTA (sm.block_finder=shift: 10 cycles at the
    # A100's 1410 MHz, 7.092 ns), which the stages pay too
    out = os.path.join(TMP, "idle.gdt.gz")
    log = io.StringIO()
    kineto2gdt.convert(path, out, log=log, calibrate=1.0)
    assert gzip.open(out).read(12)[8:12] == b"\x01\x00\x0c\x00", log.getvalue()
    assert "calibration record (format 1.12)" in log.getvalue() and gdtrace.read(out)[1]["keys"] == {
        gdtrace.IDLE_KEY: 1050}
    gdsim = os.path.join(BUILD, "gdsim")
    csv_path = os.path.join(TMP, "idle.csv")
    for sets, want in (([], 1050), (["--set", "pp.idle_launch_ns=2500"], 2500), (["--set", "pp.idle_launch_ns=0"],
                                                                              None)):
        rr = subprocess.run([gdsim, "replay", out, "--quiet", "--set", "host.mode=open", "--kernels-csv", csv_path]
                            + sets, capture_output=True, text=True)
        assert rr.returncode == 0, rr.stderr
        rows = list(csvmod.DictReader(open(csv_path)))
        lat = sorted(round(float(x["first_cta_ns"]) - float(x["submit_ns"]), 3) for x in rows)
        if want is None:   # the A100 preset's stages: doorbell 0 + fetch + decode + grid launch, 2472 cycles
            assert lat[:5] == [1760.283] * 5, lat
        else:
            assert lat[:5] == [want + 7.092] * 5, (sets, lat)
    # a median not above 0 (the packets started before their calls ended): omitted
    b = Builder()
    t = T0
    for i in range(5):
        t = b.op("K", 30 + i, t + 20000, late_launch_end=t + 20000 + 300)
    r = calibrate.fit(b.write("early.json"))
    assert r["keys"] == {} and "the median is -300 ns" in r["omitted"][gdtrace.IDLE_KEY], r["omitted"]
    # the writer: the key needs format 1.12
    w = gdtrace.TraceWriter(os.path.join(TMP, "idle11.gdt.gz"), Dev, "test", minor=11)
    expect_error(lambda: w.calibration("x", {gdtrace.IDLE_KEY: 1000}), "needs format 1.12")


def test_contention_and_waits():
    """Without the stream-9 kernel that ran during the gap of 100, that gap counts;
    without the cuda_sync events, the pairs held by a wait fall in K->K with the
    predecessor's end as the start of their gap (3000 + g) and run beside stream 9's
    packets: left out as contended."""
    src = json.load(open(PATH))
    ev = src["traceEvents"]
    ev_nocont = [e for e in ev if not (e.get("cat") == "kernel" and e["args"]["stream"] == 9 and
                                       abs(e["dur"] - 0.55) < 1e-9)]
    assert len(ev_nocont) == len(ev) - 1
    path = os.path.join(TMP, "nocont.json")
    json.dump(dict(src, traceEvents=ev_nocont), open(path, "w"))
    assert calibrate.fit(path, first_fraction=0.5)["keys"]["pp.gap_kernel_kernel_ns"] == 1150
    path = os.path.join(TMP, "nowaits.json")
    json.dump(dict(src, traceEvents=[e for e in ev if e.get("cat") != "cuda_sync"]), open(path, "w"))
    r = calibrate.fit(path, first_fraction=0.5)
    assert "pp.gap_after_wait_ns" not in r["keys"] and r["keys"]["pp.gap_kernel_kernel_ns"] == 1200, r["keys"]


def run(*args):
    return subprocess.run([sys.executable, os.path.join(HERE, "..", "scripts", "calibrate.py")] + list(args),
                          capture_output=True, text=True)


def config_keys(text):
    """gdsim's --config reader (cli/gdsim.c read_config): '#' to the end of the line is
    a comment, blank lines skipped, KEY = VALUE with spaces and tabs trimmed."""
    out = {}
    for line in text.split("\n"):
        assert len(line.encode()) < 1023, line
        line = line.split("#", 1)[0].strip(" \t\r\n")
        if line:
            key, value = line.split("=", 1)
            out[key.strip(" \t")] = int(value.strip(" \t"))
    return out


def test_cli_config_file():
    out = os.path.join(TMP, "gaps.conf")
    r = run(PATH, "--first-fraction", "0.5", "-o", out)
    assert r.returncode == 0, r.stderr
    text = open(out).read()
    assert config_keys(text) == FIRST_HALF, text
    assert gdtrace.parse_config(text) == {k: str(v) for k, v in FIRST_HALF.items()}
    assert text.startswith("# calibrate.py fit of gaps.json device 0, first 50 % of")
    assert "pp.gap_copy_copy_ns = 1751  # C->C: median of 6 clean gaps (p10 1500, p90 2000 ns)\n" in text, text
    assert "pp.gap_graph_kernel_copy_ns omitted: 1 < 5 gaps" in text
    lines = {ln.split()[0] + " " + ln.split()[1] if ln.startswith("  graph") else ln.split()[0]: ln
             for ln in r.stdout.splitlines() if ln.startswith("  ")}
    assert lines["graph K->C"].endswith("omitted: 1 < 5"), r.stdout
    assert lines["C->C"].split()[1:] == ["pp.gap_copy_copy_ns", "6", "1.500", "1.751", "2.000", "1751"], r.stdout
    # stream 9's first kernel and stream 7's, launched onto idle streams (9949.5 and 9997.5 us)
    assert lines["idle"].split()[1:] == ["launch", "pp.idle_launch_ns", "2", "9949.500", "9973.500", "9997.500",
                                         "omitted:", "2", "<", "5"], r.stdout
    # the whole capture, with the K->K gaps by CTA count (4 CTAs: bucket 4-7)
    r = run(PATH, "--by-grid", "--clock-mhz", "1410")
    assert r.returncode == 0 and "K->K gaps by CTAs" in r.stdout, r.stdout + r.stderr
    assert "4-7" in r.stdout and "10, 3.000 us" in r.stdout, r.stdout


def test_cli_errors():
    empty = os.path.join(TMP, "empty.json")
    open(empty, "w").write('{"traceEvents": []}')
    missing = os.path.join(TMP, "missing.json")
    one = os.path.join(SHARED, "a100_triton_1_kernel.json.gz")
    for args, what in (([empty], "empty.json: no kernel events (cat 'kernel') in the trace"),
                       ([missing], "missing.json"),
                       ([PATH, "--device", "5"], "no kernels on device 5 (devices with kernels: 0)"),
                       ([PATH, "--first-fraction", "0"], "the first fraction must be in (0, 1], not 0.0"),
                       ([one], "a100_triton_1_kernel.json.gz: no class has 5 clean gaps and no 5 launches onto an idle stream"),
                       ([PATH, "--min-samples", "100"], "no class has 100 clean gaps")):
        out = os.path.join(TMP, "never.conf")
        r = run(*(args + ["-o", out]))
        assert r.returncode == 1 and "calibrate: error: " in r.stderr and what in r.stderr, (args, r.stderr)
        assert "Traceback" not in r.stderr and not os.path.exists(out), r.stderr


class Dev:
    name, cc, sms, threads_per_sm, regs_per_sm, smem_per_sm = "test", (8, 0), 108, 2048, 65536, 167936
    smem_per_cta_default, smem_per_cta_optin, threads_per_cta, warp_size, gpcs = 49152, 166912, 1024, 32, []


def test_record_round_trip():
    r = calibrate.fit(PATH, first_fraction=0.5)
    out = os.path.join(TMP, "cal.gdt.gz")
    w = gdtrace.TraceWriter(out, Dev, "test", minor=9)
    w.calibration(r["provenance"], calibrate.record_lines(r))
    w.kernel(1, "k", 128, 16, 0, 0, gdtrace.EXEC_FIXED_CTA, 1000)
    w.dispatch(0, 0, 1, (128, 1, 1), (1, 1, 1), 0, graph=True)
    w.nonkernel(0, 0, "memset", 1000, 4, graph=True)
    w.nonkernel(0, 0, "memset", 1000, 4)
    w.close()
    recs = gdtrace.read(out)
    assert [x["type"] for x in recs] == [1, 10, 2, 3, 8, 8, 15]
    cal = recs[1]
    assert cal["provenance"] == r["provenance"] and cal["keys"] == FIRST_HALF, cal
    assert config_keys(cal["text"]) == FIRST_HALF and cal["text"].endswith("\n")
    assert (recs[3]["flags"], recs[3]["graph"]) == (2, True)
    assert (recs[4]["flags"], recs[4]["graph"], recs[5]["flags"], recs[5]["graph"]) == (3, True, 1, False)
    # not a packet: the end record counts 3
    raw = gzip.open(out).read()
    assert raw[-16:] == (6).to_bytes(8, "little") + (3).to_bytes(8, "little")


def expect_error(f, what):
    try:
        f()
    except ValueError as e:
        assert what in str(e), (what, str(e))
        return
    raise AssertionError("no error: " + what)


def test_writer_errors():
    out = os.path.join(TMP, "bad.gdt.gz")
    line = [("pp.gap_kernel_kernel_ns", 1000, None)]
    w = gdtrace.TraceWriter(out, Dev, "test", minor=8)
    expect_error(lambda: w.calibration("x", line), "needs format 1.9")
    w.kernel(1, "k", 128, 16, 0, 0, gdtrace.EXEC_FIXED_CTA, 1000)
    expect_error(lambda: w.dispatch(0, 0, 1, (128, 1, 1), (1, 1, 1), 0, graph=True), "needs format 1.9")
    expect_error(lambda: w.nonkernel(0, 0, "memset", 1, 1, graph=True), "needs format 1.9")
    w = gdtrace.TraceWriter(out, Dev, "test", minor=9)
    for prov, what in (("", "1 to 512 bytes, not 0"), ("x" * 513, "not 513"), ("a\nb", "one line"),
                       ("a\rb", "one line"), ("a\0b", "one line")):
        expect_error(lambda: w.calibration(prov, line), what)
    for lines, what in (([], "at least one key"), ([("pp.fetch_cycles", 1)], "not a key a calibration record"),
                        (line + line, "set twice"), ([("pp.gap_after_wait_ns", -1)], "non-negative integer"),
                        ([("pp.gap_after_wait_ns", 1.5)], "non-negative integer"),
                        ([("pp.gap_after_wait_ns", 1, "a\nb")], "comment must be one line"),
                        ([("pp.gap_after_wait_ns", 1, "x" * 1000)], "longer than gdsim")):
        expect_error(lambda: w.calibration("x", lines), what)
    w.calibration("x" * 512, {"pp.gap_after_wait_ns": 7})   # the longest provenance gdsim reads; a dict
    expect_error(lambda: w.calibration("x", line), "at most one")
    w = gdtrace.TraceWriter(out, Dev, "test", minor=9)
    w.nonkernel(0, 0, "memset", 1, 1)
    expect_error(lambda: w.calibration("x", line), "before the first packet")


def test_kineto2gdt_calibrate():
    """--calibrate embeds the fit (record after the header), graph-launched packets carry
    the flag; without graph launches or --calibrate the format stays what it was."""
    out = os.path.join(TMP, "conv.gdt.gz")
    log = io.StringIO()
    res = kineto2gdt.convert(PATH, out, log=log, calibrate=0.5)
    recs = gdtrace.read(out)
    assert recs[1]["type"] == gdtrace.REC_CALIBRATION and recs[1]["keys"] == FIRST_HALF, recs[1]
    assert recs[1]["provenance"] == calibrate.fit(PATH, first_fraction=0.5)["provenance"]
    assert res["calibration"]["keys"] == FIRST_HALF and "calibration record (format 1.9)" in log.getvalue()
    assert gzip.open(out).read(12)[8:12] == b"\x01\x00\x0a\x00"  # 1.10: the host model
    graph = [x for x in recs if x.get("graph")]
    assert [x["type"] for x in graph] == [3] * 5 + [8] and res["graph_packets"] == 6, graph
    assert "6 packet(s) launched by a CUDA/HIP graph launch (cudaGraphLaunch)" in log.getvalue()
    # the whole capture: calibrate=1
    kineto2gdt.convert(PATH, out, log=io.StringIO(), calibrate=1.0)
    assert gdtrace.read(out)[1]["keys"] == WHOLE
    # no graph launch and no --calibrate: format 1.10 for the host model (its launch call and
    # device synchronize); --calibrate without enough gaps: no record, said on the log
    one = os.path.join(SHARED, "a100_triton_1_kernel.json.gz")
    kineto2gdt.convert(one, out, log=io.StringIO())
    assert gzip.open(out).read(12)[8:12] == b"\x01\x00\x0a\x00"
    log = io.StringIO()
    res = kineto2gdt.convert(one, out, log=log, calibrate=1.0)
    assert res["calibration"] is None and "no calibration record: no class has 5 clean gaps" in log.getvalue()
    assert gzip.open(out).read(12)[8:12] == b"\x01\x00\x0a\x00"
    assert all(x["type"] != gdtrace.REC_CALIBRATION for x in gdtrace.read(out))
    # the command line
    r = subprocess.run([sys.executable, os.path.join(HERE, "..", "scripts", "kineto2gdt.py"), PATH, out,
                        "--calibrate", "0.5"], capture_output=True, text=True)
    assert r.returncode == 0 and gdtrace.read(out)[1]["keys"] == FIRST_HALF, r.stderr
    r = subprocess.run([sys.executable, os.path.join(HERE, "..", "scripts", "kineto2gdt.py"), PATH, out,
                        "--calibrate", "1.5"], capture_output=True, text=True)
    assert r.returncode == 1 and "the fraction must be in (0, 1], not 1.5" in r.stderr, r.stderr


def test_deterministic():
    a = calibrate.config_text(calibrate.fit(PATH))
    assert a == calibrate.config_text(calibrate.fit(PATH))


def main():
    tests = [v for k, v in sorted(globals().items()) if k.startswith("test_")]
    for t in tests:
        with contextlib.redirect_stdout(io.StringIO()):
            t()
        print("ok  ", t.__name__)
    print("calibrate: %d tests ok" % len(tests))


if __name__ == "__main__":
    main()
