"""scripts/kineto2gdt.py on the small shared captures (tb/data/kineto): what
each kernel becomes, exact to the nanosecond; every trace event accounted for; AMD
grids; errors; determinism; the streaming JSON reader at awkward chunk sizes; hostile
input (each class of bad file, and seeded random mutations of a capture) ending in one
error line and no output, never a traceback; --quiet.
Usage: python3 tb/test_kineto.py BUILD_DIR"""
import collections
import contextlib
import csv
import gzip
import hashlib
import io
import json
import os
import random
import shutil
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "scripts"))
import gdtrace  # noqa: E402
import kineto2gdt  # noqa: E402

BUILD = sys.argv[1] if len(sys.argv) > 1 else "build"
SHARED = os.path.join(HERE, "data", "kineto")   # copies of ../shared/data/kineto (tb/data/kineto/README.md)
TMP = tempfile.mkdtemp()


def capture(name):
    return os.path.join(SHARED, name + ".json.gz")


def convert(name, **kw):
    out = os.path.join(TMP, name + ".gdt.gz")
    log = io.StringIO()
    res = kineto2gdt.convert(capture(name), out, log=log, **kw)
    return out, res, log.getvalue()


def dispatches(path):
    return [r for r in gdtrace.read(path) if r["type"] == gdtrace.REC_DISPATCH]


def replay_csv(path):
    out = os.path.join(TMP, os.path.basename(path) + ".csv")
    r = subprocess.run([os.path.join(BUILD, "gdsim"), "replay", path, "--quiet", "--absolute-times", "--kernels-csv", out],
                       capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    return list(csv.DictReader(open(out)))


def accounted(res):
    """Every trace event is a converted kernel, memcpy/memset or cross-stream wait, a host
    API call used for one, or reported."""
    assert res["events"] == (res["kernels"] + res["commands"] + res["barriers"] + res["launches_used"] +
                             sum(res["skipped"].values())), res


def packets(path):
    return [r for r in gdtrace.read(path) if r["type"] in (gdtrace.REC_DISPATCH, gdtrace.REC_BARRIER_AND,
                                                           gdtrace.REC_BARRIER_OR, gdtrace.REC_NONKERNEL)]


def test_triton():
    out, res, log = convert("a100_triton_1_kernel")
    d = dispatches(out)
    assert len(d) == 1
    k = d[0]
    # cuLaunchKernel ends at 2413669097446.934 us, 2.342 us after the kernel started at
    # ...444.592: the doorbell was written inside the call, so the submit time is the
    # start minus the idle launch latency (this capture's only kernel: negative, taken as 0)
    assert k["submit_ns"] == 2413669097444592, k
    assert res["assumed"][("kernel that started less than the idle launch latency (0 ns) after its launch call "
                           "ended", "submitted at its start minus that latency, inside the call")] == 1, res
    assert k["block"] == (128, 1, 1) and k["grid"] == (1, 1, 1)
    assert k["header"] & gdtrace.AQL_BARRIER
    # one wave: each CTA runs the whole 1.76 us; correlation 35; measured start and duration
    assert k["info"] == (1760000, 35, 2413669097444592, 1760), k["info"]
    desc = [r for r in gdtrace.read(out) if r["type"] == gdtrace.REC_KERNEL][0]
    assert desc["regs"] == 16 and desc["threads"] == 128 and desc["exec_model"] == gdtrace.EXEC_PER_DISPATCH
    assert desc["name"] == "triton_poi_fused_add_cos_sin_0"
    accounted(res)


def test_multistream():
    out, res, log = convert("a100_multistream_events_3_kernels")
    d = dispatches(out)
    assert [k["info"][1] for k in d] == [27, 57, 1413]   # correlations, in submit order
    assert sorted({k["queue"] for k in d}) == [0, 1, 2]   # streams 20, 24, 28
    assert [k["queue"] for k in d] == [0, 2, 1]
    for k in d:
        # 640 CTAs of 128 threads, 122 registers, 12544 B: 4 per A100 SM (registers),
        # 432 slots, 2 waves: 123 us -> 61.5 us per CTA
        assert k["grid"] == (8, 16, 5) and k["block"] == (128, 1, 1)
        assert k["info"][0] == 61500000 and k["info"][3] == 123000
    # the three memsets before the kernels, each on its kernel's stream, in stream order
    p = packets(out)
    assert [(r["type"], r["queue"]) for r in p] == [(8, 0), (3, 0), (8, 2), (3, 2), (4, 1), (8, 1), (3, 1)]
    m = p[0]
    # cudaMemsetAsync (correlation 25) ends at ...348661 us; 1 us, 512 bytes; measured start
    assert (m["kind"], m["flags"], m["submit_ns"], m["duration_ps"], m["bytes"]) == (
        gdtrace.NONKERNEL_KINDS["memset"], 1, 1712867402348661000, 1000000, 512), m
    assert m["info"] == (gdtrace.UNKNOWN, 25, 1712867402348667000, 1000), m["info"]
    # stream 24 waits for the event recorded (correlation 1385) after kernel 27 on stream 20:
    # a barrier-AND on kernel 27's completion signal, submitted when cudaStreamWaitEvent
    # (correlation 1389) returned, before stream 24's memset and kernel
    b = p[4]
    assert p[1]["signal"] != 0 and b["deps"] == [p[1]["signal"]], (p[1], b)
    assert b["header"] & gdtrace.AQL_BARRIER and b["signal"] == 0
    assert b["submit_ns"] == 1712867402367685000 and b["info"][1] == 1389, b
    assert all(r["signal"] == 0 for r in p if r is not p[1])   # only what is waited for carries a signal
    assert res["barriers"] == 1 and res["commands"] == 3 and res["waits"] == 1
    assert res["skipped"][("cuda_sync 'Event Sync'", "its call, cudaEventQuery, is not taken as a host wait (a "
                           "query returns at once; polling loops are not followed yet)")] == 3
    assert res["host"] == dict(threads=1, calls=7, device=1), res["host"]   # the cudaDeviceSynchronize
    accounted(res)
    assert len(replay_csv(out)) == 3


def test_alexnet_waits():
    """Of the 20 'Stream Wait Event's, 6 wait for work converted on the other stream;
    the other 14 wait for events recorded on streams with nothing before the record."""
    out, res, log = convert("a100_alexnet_79_kernels")
    assert res["waits"] == 20 and res["barriers"] == 6, res
    assert res["skipped"][("cuda_sync 'Stream Wait Event'", "no converted work on the awaited stream before the "
                           "event was recorded: satisfied at once")] == 14
    assert res["commands"] == 19   # 16 memcpy + 3 memset
    p = packets(out)
    carried = set()
    for r in p:   # every dependency is carried by an earlier packet of another queue
        if r["type"] == gdtrace.REC_BARRIER_AND:
            assert all(dep in carried for dep in r["deps"]), r
        if r["signal"]:
            carried.add(r["signal"])
    # 34 cudaStreamWaitEvent calls: 6 became barriers, 14 belong to the waits that needed
    # none, 14 have no cuda_sync event
    sk = res["skipped"]
    assert sk[("runtime call cudaStreamWaitEvent", "the call of a 'Stream Wait Event' that needed no barrier (see "
               "the cuda_sync lines)")] == 14, sk
    assert sk[("runtime call cudaStreamWaitEvent", "the capture records cuda_sync 'Stream Wait Event' events but "
               "none for this call: the profiler saw nothing for it to wait for")] == 14, sk
    accounted(res)


def test_old_profiler_waits_rebuilt():
    """The multistream capture without its cuda_sync events (older profilers): its
    cudaStreamWaitEvent call is rebuilt from the call order. The next packet launched
    after it (stream 24's memset) was not held, so the awaited packet is the last one
    launched before the call on another stream that had ended when it started: stream
    28's kernel (correlation 57) ended after stream 20's (27). The true dependency (27)
    cannot be told apart here: both had long ended; the rebuilt wait holds nothing."""
    src = json.load(gzip.open(capture("a100_multistream_events_3_kernels")))
    src["traceEvents"] = [e for e in src["traceEvents"] if e.get("cat") != "cuda_sync"]
    path = os.path.join(TMP, "nosync.json")
    json.dump(src, open(path, "w"))
    log = io.StringIO()
    out = os.path.join(TMP, "nosync.gdt.gz")
    res = kineto2gdt.convert(path, out, log=log)
    assert res["barriers"] == 1 and res["waits"] == 1
    p = packets(out)
    assert [(r["type"], r["queue"]) for r in p] == [(8, 0), (3, 0), (8, 2), (3, 2), (4, 1), (8, 1), (3, 1)]
    assert p[4]["deps"] == [p[3]["signal"]] and p[3]["info"][1] == 57 and p[4]["info"][1] == 1389
    assert "1 cudaStreamWaitEvent call(s) but not what they wait for" in log.getvalue()
    accounted(res)


def host_call_event(name, corr, ts, dur, tid=1):
    return dict(ph="X", cat="cuda_runtime", name=name, pid=1, tid=tid, ts=ts, dur=dur, args={"correlation": corr})


def test_host_model():
    """The host model (format 1.10) of a constructed capture, times in us. Thread 1: launch
    1 (10..11) of A on stream 7 (20..60); cudaStreamSynchronize 2 (15..70) with its
    cuda_sync 'Stream Sync' on stream 7; launch 3 (80..81) of B on s7 (90..100);
    cudaMemcpy 4 (105..140), its DtoH copy on s7 (110..138): a blocking copy;
    cudaStreamSynchronize 5 (150..155) without a cuda_sync event (the stream inferred: the
    copy's, the last work submitted before it); launch 6 (160..161) of C on s7 (170..180);
    cudaDeviceSynchronize 7 (185..200). Thread 2: launch 8 (30..31) of D on stream 9
    (40..50). The idle launch latency (median start - launch end) is 9 us."""
    ev = [launch_event(1, 10), host_call_event("cudaStreamSynchronize", 2, 15, 55),
          dict(ph="X", cat="cuda_sync", name="Stream Sync", pid=0, tid=7, ts=16, dur=53,
               args={"cuda_sync_kind": "Stream Sync", "stream": 7, "device": 0, "correlation": 2}),
          launch_event(3, 80), host_call_event("cudaMemcpy", 4, 105, 35),
          dict(ph="X", cat="gpu_memcpy", name="Memcpy DtoH (Device -> Pageable)", pid=0, tid=7, ts=110, dur=28,
               args={"device": 0, "stream": 7, "correlation": 4, "bytes": 4096}),
          host_call_event("cudaStreamSynchronize", 5, 150, 5), launch_event(6, 160),
          host_call_event("cudaDeviceSynchronize", 7, 185, 15),
          dict(launch_event(8, 30), tid=2),
          kernel_event(7, 1, 20, 40), kernel_event(7, 3, 90, 10), kernel_event(7, 6, 170, 10),
          kernel_event(9, 8, 40, 10)]
    path = synthetic(ev)
    out = os.path.join(TMP, "host.gdt.gz")
    log = io.StringIO()
    res = kineto2gdt.convert(path, out, log=log)
    assert res["host"] == dict(threads=2, calls=5, stream=2, device=1, copy=1), res["host"]
    assert "host model (format 1.10): 2 thread(s), 5 call(s), 4 wait(s): 2 stream, 0 event and 1 device " \
           "synchronize(s), 1 blocking copy(ies)" in log.getvalue(), log.getvalue()
    assert res["assumed"][("runtime call cudaStreamSynchronize without a cuda_sync event naming its stream",
                           "waits for the stream whose last packet before it ended last before it returned (else "
                           "the stream its thread last launched onto)")] == 1, res["assumed"]
    accounted(res)
    recs = gdtrace.read(out)
    assert gzip.open(out).read(12)[8:12] == b"\x01\x00\x0a\x00"
    us = 1000
    host = [r for r in recs if r["type"] in (gdtrace.REC_HOST_THREAD, gdtrace.REC_HOST_CALL, gdtrace.REC_HOST_WAIT)
            or r["type"] in (gdtrace.REC_DISPATCH, gdtrace.REC_NONKERNEL)]
    got = []
    for r in host:
        if r["type"] == gdtrace.REC_HOST_THREAD:
            got.append(("thread", r["thread"], r["start_ns"] // us, r["name"]))
        elif r["type"] == gdtrace.REC_HOST_CALL:
            got.append(("call", r["thread"], r["packets"], r["gap_ns"] // us, r["last"]))
        elif r["type"] == gdtrace.REC_HOST_WAIT:
            got.append(("wait", r["thread"], r["kind"], r["target"], r["time_ns"] // us, r["gap_ns"] // us,
                        r["tail_ns"] // us, r["last"]))
        else:
            got.append(("packet", r["queue"], r["submit_ns"] // us))
    sig = [r for r in recs if r["type"] == gdtrace.REC_NONKERNEL][0]["signal"]
    assert sig != 0
    # thread 0 = pid 1 tid 1 (first at 11), thread 1 = pid 1 tid 2 (31); queue 0 = stream 7, 1 = stream 9
    assert got == [
        ("thread", 0, 11, "pid 1 tid 1"), ("thread", 1, 31, "pid 1 tid 2"),
        ("call", 0, 1, 0, False), ("packet", 0, 11),                   # launch of A: its doorbell at 11
        ("wait", 0, gdtrace.WAIT_QUEUE, 0, 15, 4, 10, False),          # 15 - 11; 70 - A's end 60
        ("call", 1, 1, 0, True), ("packet", 1, 31),                   # thread 2's launch of D
        ("call", 0, 1, 11, False), ("packet", 0, 81),                  # B: 81 - the sync's return 70
        ("call", 0, 1, 20, False), ("packet", 0, 101),                 # the copy: 110 - 9 us lead = 101
        ("wait", 0, gdtrace.WAIT_SIGNAL, sig, 101, 0, 2, False),       # its own signal: 140 - 138
        ("wait", 0, gdtrace.WAIT_QUEUE, 0, 150, 10, 5, False),         # inferred s7; 150 - 140; 155 - 150
        ("call", 0, 1, 6, False), ("packet", 0, 161),                  # C: 161 - 155
        ("wait", 0, gdtrace.WAIT_DEVICE, 0, 185, 24, 15, True),        # 185 - 161; 200 - C's end 180 < 185
    ], got
    # closed loop: B is launched the sync's tail (10 us) and its gap (11 us) after A ended
    rows = {int(r["source_id"]): r for r in replay_csv(out)}
    assert len(rows) == 4
    assert float(rows[3]["submit_ns"]) == float(rows[1]["end_ns"]) + 21000, (rows[1], rows[3])


def test_pageable_copy_deferred_doorbell():
    """A copy from pageable host memory is staged by the driver, which starts its DMA after
    the call returned (docs/KINETO.md): thread 1 launches A (10..11) on stream 7 (12..30)
    and B (40..41, 42..50), then cudaMemcpyAsync 3 (60..70) of 'HtoD (Pageable -> Device)'
    runs on s7 at 76..78, cudaStreamSynchronize 4 (71..83) waits for s7, launch 5 (90..91)
    of C (92..100), then a pinned copy 6 (110..112, 120..121) that is not deferred. The idle
    launch latency is 1 us (leads 1, 1, 6, 1, 8)."""
    us = 1000
    ev = [launch_event(1, 10), launch_event(2, 40),
          host_call_event("cudaMemcpyAsync", 3, 60, 10),
          dict(ph="X", cat="gpu_memcpy", name="Memcpy HtoD (Pageable -> Device)", pid=0, tid=7, ts=76, dur=2,
               args={"device": 0, "stream": 7, "correlation": 3, "bytes": 256}),
          host_call_event("cudaStreamSynchronize", 4, 71, 12),
          dict(ph="X", cat="cuda_sync", name="Stream Sync", pid=0, tid=7, ts=72, dur=10,
               args={"cuda_sync_kind": "Stream Sync", "stream": 7, "device": 0, "correlation": 4}),
          launch_event(5, 90),
          host_call_event("cudaMemcpyAsync", 6, 110, 2),
          dict(ph="X", cat="gpu_memcpy", name="Memcpy HtoD (Pinned -> Device)", pid=0, tid=7, ts=120, dur=1,
               args={"device": 0, "stream": 7, "correlation": 6, "bytes": 256}),
          kernel_event(7, 1, 12, 18), kernel_event(7, 2, 42, 8), kernel_event(7, 5, 92, 8)]
    out = os.path.join(TMP, "pageable.gdt.gz")
    res = kineto2gdt.convert(synthetic(ev), out, log=io.StringIO())
    accounted(res)
    assert res["assumed"][("memcpy from pageable host memory onto an idle stream that started more than the idle "
                           "launch latency (1000 ns) after its launch call returned (the driver stages the data, "
                           "then starts the DMA)", "submitted at its start minus that latency, after the call "
                                                   "returned (a deferred doorbell)")] == 1, res["assumed"]
    assert res["assumed"][("host wait that began before the deferred doorbell of its thread's previous call (a "
                           "copy from pageable memory)", "issued at that doorbell, gap 0")] == 1
    got = []
    for r in gdtrace.read(out):
        if r["type"] == gdtrace.REC_HOST_CALL:
            got.append(("call", r["packets"], r["gap_ns"] // us))
        elif r["type"] == gdtrace.REC_HOST_WAIT:
            got.append(("wait", r["kind"], r["time_ns"] // us, r["gap_ns"] // us, r["tail_ns"] // us))
        elif r["type"] in (gdtrace.REC_DISPATCH, gdtrace.REC_NONKERNEL):
            got.append(("packet", r["submit_ns"] // us))
    assert got == [
        ("call", 1, 0), ("packet", 11), ("call", 1, 30), ("packet", 41),
        ("call", 1, 34), ("packet", 75),            # the pageable copy: its start 76 - 1, after the call's end 70
        ("wait", gdtrace.WAIT_QUEUE, 75, 0, 5),     # began at 71, before that doorbell: issued at it; 83 - 78
        ("call", 1, 8), ("packet", 91),             # C: 91 - the sync's return 83
        ("call", 1, 21), ("packet", 112),           # the pinned copy: at its call's end, 112 - 91
    ], got
    # closed loop, with no fixed launch latency: the sync returns 5 us after the copy
    # ended, 2 us after its doorbell at A + 64 us; C 8 us later (at the call's end, 70, and
    # without the deferral: A + 74 us)
    csv_out = os.path.join(TMP, "pageable.csv")
    r = subprocess.run([os.path.join(BUILD, "gdsim"), "replay", out, "--quiet", "--absolute-times", "--kernels-csv",
                        csv_out, "--set", "pp.fetch_cycles=0", "--set", "pp.decode_cycles=0", "--set",
                        "pp.command_launch_cycles=0"], capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    rows = {int(x["source_id"]): x for x in csv.DictReader(open(csv_out))}
    assert float(rows[5]["submit_ns"]) - float(rows[1]["submit_ns"]) == 79 * us, (rows[1], rows[5])
    # Between the return (70) and the doorbell (75): (a) the same thread launches K on
    # stream 9 at 71 (its packet goes first, so the copy is not deferred: at its call's
    # end); (b) another thread launches at 72, or (c) a packet without a launch call is
    # submitted at 73: the copy is deferred, the wait written after it, and gdsim reads
    # and replays each trace.
    copy = [ev[2], ev[3], ev[4], ev[5]]   # the copy's call and event, the synchronize and its cuda_sync
    cases = {"same thread": [launch_event(8, 71), kernel_event(9, 8, 73, 1)],
             "other thread": [dict(launch_event(8, 72), tid=2), kernel_event(9, 8, 74, 1)],
             "no launch call": [kernel_event(9, 99, 74, 1)]}
    for name, extra in cases.items():
        out = os.path.join(TMP, "pageable2.gdt.gz")
        res = kineto2gdt.convert(synthetic([ev[0]] + copy + extra + [kernel_event(7, 1, 12, 18)]), out,
                                 log=io.StringIO())
        accounted(res)
        deferred = sum(v for k, v in res["assumed"].items() if "deferred doorbell" in k[1])
        assert deferred == (name != "same thread"), (name, res["assumed"])
        recs = [r for r in gdtrace.read(out) if r["type"] in (gdtrace.REC_HOST_WAIT, gdtrace.REC_NONKERNEL)]
        assert [r["type"] for r in recs] == [gdtrace.REC_NONKERNEL, gdtrace.REC_HOST_WAIT], (name, recs)
        if name == "same thread":   # at the call's end; the wait at its own start
            assert (recs[0]["submit_ns"], recs[1]["time_ns"]) == (70 * us, 71 * us), (name, recs)
        else:   # at its start - L (L 1 us, or 3.5 us with the packet without a launch call), the wait at it
            assert recs[0]["submit_ns"] > 70 * us and recs[1]["time_ns"] == recs[0]["submit_ns"], (name, recs)
        r = subprocess.run([os.path.join(BUILD, "gdsim"), "replay", out, "--quiet"], capture_output=True, text=True)
        assert r.returncode == 0, (name, r.stderr)
    # A polling loop that began between the return and the doorbell (its queries from 71
    # us, every 40 us, while A runs on stream 9 until 400) is issued at the doorbell too,
    # after the copy's call (before it, the closed loop would submit the copy only when
    # the loop was over). L is 3.5 us (leads 9, 6, 1, 1): the doorbell at 76 - 3.5.
    q = [host_call_event("cudaEventQuery", 100 + i, 71 + 40 * i, 3) for i in range(10)]
    ev2 = [launch_event(1, 10), kernel_event(9, 1, 20, 380)] + copy[:2] + q + \
        [launch_event(10, 500), kernel_event(7, 10, 502, 8), launch_event(11, 520), kernel_event(7, 11, 522, 8)]
    out = os.path.join(TMP, "pageable3.gdt.gz")
    res = kineto2gdt.convert(synthetic(ev2), out, log=io.StringIO())
    accounted(res)
    assert res["host"]["poll"] == 1, res["host"]
    got = [("call", r["gap_ns"]) if r["type"] == gdtrace.REC_HOST_CALL else
           ("wait", r["time_ns"], r["polling"]) if r["type"] == gdtrace.REC_HOST_WAIT else ("packet", r["submit_ns"])
           for r in gdtrace.read(out) if r["type"] in (gdtrace.REC_HOST_CALL, gdtrace.REC_HOST_WAIT,
                                                       gdtrace.REC_DISPATCH, gdtrace.REC_NONKERNEL)]
    assert got[:5] == [("call", 0), ("packet", 11 * us), ("call", 61500), ("packet", 72500), ("wait", 72500, True)], got
    r = subprocess.run([os.path.join(BUILD, "gdsim"), "replay", out, "--quiet"], capture_output=True, text=True)
    assert r.returncode == 0, r.stderr


def test_held_copy():
    """A blocking copy that its stream held waited inside its call: thread 1 launches A
    (10..11) on stream 7 (20..200); cudaMemcpy 2 (30..215), its DtoH copy on s7 (205..210),
    waits for A inside the call; cudaMemcpy 3 (300..320), its copy (310..315), found s7
    idle: its doorbell 1 us into the call (310 - the idle launch latency 9 us = 301, of
    A, B and C); launches 4 (400..401) and 5 (430..431) of B (410..420) and C (440..450).
    Copy 2's doorbell is put 1 us (copy 3's) into its call, not at 196: the 165 us between
    are a wait for A, not CPU time, and a replay whose A ends early returns early."""
    ev = [launch_event(1, 10), host_call_event("cudaMemcpy", 2, 30, 185),
          dict(ph="X", cat="gpu_memcpy", name="Memcpy DtoH (Device -> Pageable)", pid=0, tid=7, ts=205, dur=5,
               args={"device": 0, "stream": 7, "correlation": 2, "bytes": 4096}),
          host_call_event("cudaMemcpy", 3, 300, 20),
          dict(ph="X", cat="gpu_memcpy", name="Memcpy DtoH (Device -> Pageable)", pid=0, tid=7, ts=310, dur=5,
               args={"device": 0, "stream": 7, "correlation": 3, "bytes": 4096}),
          launch_event(4, 400), launch_event(5, 430),
          kernel_event(7, 1, 20, 180), kernel_event(7, 4, 410, 10), kernel_event(7, 5, 440, 10)]
    path = synthetic(ev)
    out = os.path.join(TMP, "held_copy.gdt.gz")
    log = io.StringIO()
    res = kineto2gdt.convert(path, out, log=log)
    assert res["host"] == dict(threads=1, calls=5, copy=2, held_copy=1), res["host"]
    assert "2 blocking copy(ies) (1 held by their stream: doorbell 1000 ns into the call)" in log.getvalue(), \
        log.getvalue()
    us = 1000
    got = [("call", r["gap_ns"] // us) if r["type"] == gdtrace.REC_HOST_CALL else
           ("wait", r["time_ns"] // us, r["gap_ns"] // us, r["tail_ns"] // us) if r["type"] == gdtrace.REC_HOST_WAIT
           else ("packet", r["submit_ns"] // us)
           for r in gdtrace.read(out) if r["type"] in (gdtrace.REC_HOST_CALL, gdtrace.REC_HOST_WAIT,
                                                       gdtrace.REC_DISPATCH, gdtrace.REC_NONKERNEL)]
    assert got == [
        ("call", 0), ("packet", 11),                # A
        ("call", 20), ("packet", 196),              # copy 2: its doorbell at 30 + 1 = 31 (the packet: 205 - 9)
        ("wait", 196, 0, 5),                        # its own signal; 215 - 210
        ("call", 86), ("packet", 301),              # copy 3: 301 - 215
        ("wait", 301, 0, 5),
        ("call", 81), ("packet", 401), ("call", 30), ("packet", 431),
    ], got
    # closed loop, A twice as fast (90 us): copy 2 runs when A ends, B comes 90 us earlier
    # (before, its doorbell at 196: B at the same time however early A ended)
    csv_out, got = os.path.join(TMP, "held_copy.csv"), []
    for scale in (1, 0.5):
        r = subprocess.run([os.path.join(BUILD, "gdsim"), "replay", out, "--quiet", "--absolute-times",
                            "--set", "sm.cta_time_scale=%s" % scale, "--kernels-csv", csv_out],
                           capture_output=True, text=True)
        assert r.returncode == 0, r.stderr
        rows = {int(x["source_id"]): x for x in csv.DictReader(open(csv_out))}
        got.append((float(rows[1]["end_ns"]), float(rows[4]["submit_ns"])))
    assert abs(got[0][0] - got[1][0] - 90 * us) < 1 and abs(got[0][1] - got[1][1] - 90 * us) < 1, got


def test_polling_loop():
    """A polling loop is a host wait (kineto2gdt POLL_*): thread 1 launches A (10..11) on
    stream 7 (20..400), then queries its event 10 times, every 40 us from 50 us (3 us each,
    the last 410..413: the first after A ended), then launches B (420..421, 430..440). A
    burst of 12 queries within 60 us (the caching allocator's pattern) and a loop during
    which nothing ended stay calls without GPU work."""
    q = [host_call_event("cudaEventQuery", 100 + i, 50 + 40 * i, 3) for i in range(9)]
    q.append(host_call_event("cudaEventQuery", 109, 410, 3))
    burst = [host_call_event("cudaEventQuery", 200 + i, 500 + 5 * i, 3) for i in range(12)]
    idle = [host_call_event("cudaStreamQuery", 300 + i, 700 + 30 * i, 3) for i in range(10)]
    # a loop of thread 2 while another thread's kernel, launched after the loop began, runs:
    # not what it waited for (a wait names work submitted before it); nothing else ended
    other = [dict(host_call_event("cudaEventQuery", 400 + i, 1300 + 30 * i, 3), tid=2) for i in range(10)]
    ev = [launch_event(1, 10), launch_event(3, 420), launch_event(5, 1100), launch_event(6, 1350)] + q + burst + \
        idle + other + [kernel_event(7, 1, 20, 380), kernel_event(7, 3, 430, 10), kernel_event(7, 5, 1110, 10),
                        kernel_event(7, 6, 1360, 100)]
    path = synthetic(ev)
    out = os.path.join(TMP, "poll.gdt.gz")
    log = io.StringIO()
    res = kineto2gdt.convert(path, out, log=log)
    assert res["host"] == dict(threads=1, calls=4, poll=1), res["host"]
    assert "1 wait(s): 0 stream, 0 event and 0 device synchronize(s), 0 blocking copy(ies), 1 polling loop(s)" in \
        log.getvalue(), log.getvalue()
    why = "no packet submitted before the loop ended during it: nothing to wait for"
    assert res["skipped"][("runtime call cudaStreamQuery in a polling loop", why)] == 10, res["skipped"]
    assert res["skipped"][("runtime call cudaEventQuery in a polling loop", why)] == 10, res["skipped"]
    assert res["skipped"][("runtime call cudaEventQuery", "host API call without GPU work of its own (allocation, "
                                                          "query, event, synchronisation)")] == 12, res["skipped"]
    accounted(res)
    recs = gdtrace.read(out)
    waits = [r for r in recs if r["type"] == gdtrace.REC_HOST_WAIT]
    assert len(waits) == 1, waits
    w = waits[0]
    a = [r for r in recs if r["type"] == gdtrace.REC_DISPATCH][0]
    us = 1000
    assert (w["kind"], w["target"], w["polling"], w["time_ns"] // us, w["tail_ns"] // us) == \
        (gdtrace.WAIT_SIGNAL, a["signal"], True, 50, 13), w   # 413 - A's end 400
    calls = [r for r in recs if r["type"] == gdtrace.REC_HOST_CALL]
    assert [c["gap_ns"] // us for c in calls] == [0, 8, 680, 250], calls   # doorbells: 421 - 413; 1101 - 421
    # closed loop: B goes the loop's tail and its gap after A ended
    rows = {int(r["source_id"]): r for r in replay_csv(out)}
    assert float(rows[3]["submit_ns"]) == float(rows[1]["end_ns"]) + 21000, (rows[1], rows[3])


def test_host_syncs_unattached():
    """cuda_sync synchronize events without a correlation id, or with one another has,
    are counted as not converted (every event accounted for), not attached to a call."""
    src = json.load(gzip.open(capture("a100_triton_1_kernel")))
    ev = src["traceEvents"] + [
        dict(ph="X", cat="cuda_sync", name="Context Sync", pid=0, tid=7, ts=1, dur=1,
             args={"cuda_sync_kind": "Context Sync"}),
        dict(ph="X", cat="cuda_sync", name="Stream Sync", pid=0, tid=7, ts=1, dur=1,
             args={"cuda_sync_kind": "Stream Sync", "stream": 7, "correlation": 5}),
        dict(ph="X", cat="cuda_sync", name="Stream Sync", pid=0, tid=7, ts=2, dur=1,
             args={"cuda_sync_kind": "Stream Sync", "stream": 7, "correlation": 5})]
    path = os.path.join(TMP, "syncs.json")
    json.dump(dict(src, traceEvents=ev), open(path, "w"))
    res = kineto2gdt.convert(path, os.path.join(TMP, "syncs.gdt.gz"), log=io.StringIO())
    sk = res["skipped"]
    assert sk[("cuda_sync 'Context Sync'", "no correlation id, or one another cuda_sync event has: no call to attach "
               "it to")] == 1, sk
    assert sk[("cuda_sync 'Stream Sync'", "no correlation id, or one another cuda_sync event has: no call to attach "
               "it to")] == 1, sk
    assert sk[("cuda_sync 'Stream Sync'", "no synchronize call of the capture behind it")] == 1, sk
    accounted(res)


def wait_call(corr, ts, tid=1):
    return dict(ph="X", cat="cuda_runtime", name="cudaStreamWaitEvent", pid=1, tid=tid, ts=ts, dur=1,
                args={"correlation": corr})


def test_waits_rebuilt_from_calls():
    """Waits rebuilt from cudaStreamWaitEvent calls (no cuda_sync events), one host
    thread, streams 7 and 9 (queues 0 and 1), times in us:
      A s7 100..150 (launch 1); X s9 100..228 (2); Y s9 230..330 (3);
      calls 4 and 5; B s7 232..262 (launch 6): held 82 us after A ended; Y was launched
        before the calls but ended after B started, so the wait was for X (ended 4 us
        before B): a barrier on X before B; call 5 gives the same wait;
      call 7; C s9 400..410 (launch 8): held 70 us after Y; the latest stream-7 packet
        launched before the call that had ended by then is B: a barrier on B; B ended
        138 us before C started and the GPU was idle from Y's end (330) to C: a wait for
        work the capture does not show, timed: 70 us less twice the typical gap (the
        queued gaps X->Y 2 us and B->D 8 us: 5 us), 60 us;
      call 10; D s7 270..280 (launch 11), not held; stream 9's last packet launched
        before the call (C) ended after D started: no candidate;
      call 12: nothing launched after it."""
    ev = [launch_event(1, 0), launch_event(2, 1), launch_event(3, 2), wait_call(4, 3), wait_call(5, 4),
          launch_event(6, 5), wait_call(7, 6), launch_event(8, 7), wait_call(10, 9), launch_event(11, 10),
          wait_call(12, 11),
          kernel_event(7, 1, 100, 50), kernel_event(9, 2, 100, 128), kernel_event(9, 3, 230, 100),
          kernel_event(7, 6, 232, 30), kernel_event(9, 8, 400, 10), kernel_event(7, 11, 270, 10)]
    path = synthetic(ev)
    out = os.path.join(TMP, "rebuilt.gdt.gz")
    log = io.StringIO()
    res = kineto2gdt.convert(path, out, log=log)
    assert res["barriers"] == 2 and res["waits"] == 2, res
    p = packets(out)
    names = {r["signal"]: r["info"][1] for r in p if r["signal"]}
    got = [(r["type"], r["queue"], r["info"][1], [names[d] for d in r.get("deps", [])]) for r in p]
    assert got == [(3, 0, 1, []), (3, 1, 2, []), (3, 1, 3, []), (4, 0, 4, [2]), (3, 0, 6, []), (4, 1, 7, [6]),
                   (8, 1, gdtrace.UNKNOWN, []), (3, 1, 8, []), (3, 0, 11, [])], got
    assert p[6]["duration_ps"] == 60000000, p[6]
    sk = res["skipped"]
    what = "runtime call cudaStreamWaitEvent"
    assert sk[(what, "rebuilt as the same wait as an earlier call (several calls before one launch)")] == 1, sk
    assert sk[(what, "no other stream's last packet before the call ended before the next packet of its thread "
                     "started: the awaited stream cannot be identified")] == 1, sk
    assert sk[(what, "no packet launched after it on its host thread: nothing waits")] == 1, sk
    assert "5 cudaStreamWaitEvent call(s) but not what they wait for (no cuda_sync 'Stream Wait Event' events): " \
           "2 rebuilt" in log.getvalue(), log.getvalue()
    accounted(res)
    # the replay holds B until X completes and C until B completes
    rows = {int(r["source_id"]): r for r in replay_csv(out)}
    assert float(rows[6]["first_cta_ns"]) > float(rows[2]["end_ns"])
    assert float(rows[8]["first_cta_ns"]) > float(rows[6]["end_ns"]) + 60000
    # a kernel of stream 11 running in C's hold (340..395): the GPU was busy, which may
    # be what held C: no timed wait
    ev += [launch_event(13, 12), kernel_event(11, 13, 340, 55)]
    kineto2gdt.convert(synthetic(ev), out, log=io.StringIO())
    assert [r["type"] for r in packets(out)].count(8) == 0


def big_kernel_event(stream, corr, ts, dur, name, grid, block, regs):
    e = kernel_event(stream, corr, ts, dur)
    e["name"] = name
    e["args"].update({"grid": grid, "block": block, "registers per thread": regs})
    return e


def test_collectives_and_resident_kernels():
    """On the A100 (108 SMs of 65536 registers in 4 sub-partitions):
    - two NCCL kernels of one shape (stream 9) ran 50 and 20 us: each runs its own work
      of 20 us (the shortest run) and at least until its measured end (format 1.3);
    - N1 (2 CTAs of 544 threads x 96 registers) holds 2 SMs from 100 to 600 us; kernel
      K (stream 7, 320 CTAs of 256 threads x 80 registers: 3 per idle SM, none beside
      an N1 CTA) runs 200..240 within it: 318 slots, 2 waves, 20 us per CTA; kernel L
      (same shape, 580..620) outlives N1 by 20 us and has no shape-mates: 318 CTAs
      start at 580, the other 2 when N1 ends at 600, so 20 us per CTA end it at 620
      (test_partly_beside_collective)."""
    nccl = "ncclKernel_AllReduce_RING_LL_Sum_float(ncclWorkElem)"
    ev = [launch_event(1, 0), launch_event(2, 1), launch_event(3, 2), launch_event(4, 3),
          big_kernel_event(9, 1, 100, 500, nccl, [2, 1, 1], [544, 1, 1], 96),
          big_kernel_event(9, 2, 700, 20, nccl, [2, 1, 1], [544, 1, 1], 96),
          big_kernel_event(7, 3, 200, 40, "K", [320, 1, 1], [256, 1, 1], 80),
          big_kernel_event(7, 4, 580, 40, "L", [320, 1, 1], [256, 1, 1], 80)]
    src = json.load(gzip.open(capture("a100_triton_1_kernel")))
    dev = kineto2gdt.device_from_props(src["deviceProperties"], 0, [])
    assert gdtrace.slots_beside(dev, [], 256, 80, 0) == 324
    assert gdtrace.slots_beside(dev, [(544, 96, 0, 2)], 256, 80, 0) == 318
    path = synthetic(ev)
    out = os.path.join(TMP, "coll.gdt.gz")
    log = io.StringIO()
    kineto2gdt.convert(path, out, log=log)
    d = {r["info"][1]: r for r in dispatches(out)}
    assert d[1]["info"][0] == 20000000 and d[1]["wait_until_ns"] == 600000, d[1]
    assert d[2]["info"][0] == 20000000 and d[2]["wait_until_ns"] == 720000, d[2]
    assert d[3]["info"][0] == 20000000 and "wait_until_ns" not in d[3], d[3]
    assert d[4]["info"][0] == 20000000, d[4]
    assert "2 collective kernel(s)" in log.getvalue() and "1 kernel(s) ran while kernels of other streams held SMs" \
        in log.getvalue(), log.getvalue()
    # replayed: N1 starts at once and runs to 600 us; the late-launched N2 runs its 20 us
    rows = {int(r["source_id"]): r for r in replay_csv(out)}
    assert float(rows[1]["end_ns"]) == 600000.0, rows[1]
    assert float(rows[2]["end_ns"]) - float(rows[2]["first_cta_ns"]) >= 20000.0


NCCL = "ncclKernel_AllReduce_RING_LL_Sum_float(ncclWorkElem)"


def nccl_event(corr, ts, dur):
    """A collective on stream 9 holding 2 A100 SMs (2 CTAs of 544 threads x 96 registers)."""
    return big_kernel_event(9, corr, ts, dur, NCCL, [2, 1, 1], [544, 1, 1], 96)


def k320(corr, ts, dur, name="K"):
    """320 CTAs of 256 threads x 80 registers on stream 7: 3 per idle A100 SM, 324 slots,
    1 wave; 318 slots beside an NCCL CTA (test_collectives_and_resident_kernels)."""
    return big_kernel_event(7, corr, ts, dur, name, [320, 1, 1], [256, 1, 1], 80)


def partly_capture(mates, extra=()):
    """The collective N (100..220 us) holds 2 SMs when K (200..260, 60 us) starts and
    ends 20 us into K's run: 318 of K's CTAs start at 200, 2 at 220. `mates`: (start,
    duration) of K's shape-mates, which ran alone."""
    ev = [nccl_event(1, 100, 120), k320(2, 200, 60)]
    ev += [k320(3 + i, ts, dur) for i, (ts, dur) in enumerate(mates)] + list(extra)
    # each launched 2 us before it started: the replay starts it in step with the capture
    return synthetic(ev + [launch_event(e["args"]["correlation"], e["ts"] - 2) for e in ev])


PARTLY = "kernel that a collective kernel of another stream held SMs beside when it started, for part of its run"


def test_partly_beside_collective():
    """(a) K has shape-mates that overlapped no collective, 45, 50 and 70 us: the median,
    50 us (not the mean, 55), is within what the overlap can explain (60 us less the 20 us
    N covered, up to 60 us), so K's CTAs run 50 us, over the idle GPU's 1 wave. Replayed,
    2 CTAs wait for N's SMs until 220 and end at 270: 70 us, slowed once by the model's
    contention (before: 60 us CTAs, ended at 280, slowed twice).
    Unchanged beside it: the mates (alone: duration / 1 wave); F (700..760) inside the
    collective N2 (600..900): 2 waves beside it, 30 us (waves_beside_resident); S
    (950..1010), during whose run the collective N3 (980..1000) starts: the distributor
    serves S's CTAs first (a replay does not slow S), the idle GPU's 1 wave, 60 us."""
    extra = [nccl_event(20, 600, 300), k320(21, 700, 60, "F"), k320(22, 950, 60, "S"), nccl_event(23, 980, 20)]
    path = partly_capture([(300, 45), (400, 50), (500, 70)], extra)
    out = os.path.join(TMP, "partly_a.gdt.gz")
    log = io.StringIO()
    res = kineto2gdt.convert(path, out, log=log)
    d = {r["info"][1]: r for r in dispatches(out)}
    assert d[2]["info"][0] == 50000000, d[2]                      # median of the mates / 1 wave
    assert [d[c]["info"][0] for c in (3, 4, 5)] == [45000000, 50000000, 70000000]
    assert d[21]["info"][0] == 30000000 and d[22]["info"][0] == 60000000, (d[21], d[22])
    assert res["assumed"][(PARTLY, "CTA time = the median measured duration of its shape-mates that overlapped no "
                           "collective, over the idle GPU's waves (a)")] == 1, res["assumed"]
    assert not any(what.startswith(PARTLY + ", without") for what, _ in res["assumed"]), res["assumed"]
    assert "1 kernel(s) ran while kernels of other streams held SMs throughout" in log.getvalue()
    accounted(res)
    # replayed in step with the capture (K starts 0.76 us late): the 2 CTAs that waited
    # for N's SMs run 50 us from when N ended at 220 us
    rows = {int(r["source_id"]): r for r in replay_csv(out)}
    k, n = rows[2], rows[1]
    assert float(n["end_ns"]) == 220000.0, n
    assert 270000.0 <= float(k["end_ns"]) < 271000.0, k
    assert 69000.0 < float(k["end_ns"]) - float(k["first_cta_ns"]) < 71000.0, k
    s = rows[22]
    assert 59000.0 < float(s["end_ns"]) - float(s["first_cta_ns"]) < 61000.0, s   # not slowed by N3


def test_partly_beside_collective_without_mates():
    """(b) K without shape-mates: its CTAs run the time with which 318 of them starting at
    200 and 2 when N ends (220) end at its measured end (260): 40 us, not the idle GPU's
    60 us (replayed: 280, slowed twice) nor the 30 us of 2 waves beside N for the whole
    run (replayed: 250). Replayed, K ends at 260: its measured 60 us.
    M (1020..1080), beside the collective N4 (1000..1030), has shape-mates of 10, 10, 12
    us: the overlap (10 us) cannot explain 60 us against 10 (other work), so (b): 318
    CTAs at 0, 2 at 10 us: 50 us. P (1200..1260) began 2 us after the collective N5
    (1198..1230): too close to tell which a replay starts first (RESIDENT_LEAD_NS), the
    idle GPU's waves (a replay in step, as this one, slows it twice; the V100 capture's
    replay started two such kernels before their collective)."""
    extra = [nccl_event(20, 1000, 30), k320(21, 1020, 60, "M"), k320(22, 1300, 10, "M"), k320(23, 1400, 10, "M"),
             k320(24, 1500, 12, "M"), nccl_event(25, 1198, 32), k320(26, 1200, 60, "P")]
    path = partly_capture([], extra)
    out = os.path.join(TMP, "partly_b.gdt.gz")
    log = io.StringIO()
    res = kineto2gdt.convert(path, out, log=log)
    d = {r["info"][1]: r for r in dispatches(out)}
    assert d[2]["info"][0] == 40000000, d[2]
    assert d[21]["info"][0] == 50000000, d[21]
    assert d[26]["info"][0] == 60000000, d[26]
    assert res["assumed"][(PARTLY + ", without shape-mates whose median its run can explain",
                           "CTA time with which its CTAs, on the slots left beside the collective until it ended, "
                           "end at its measured end (b; 2 changed by it)")] == 2, res["assumed"]
    accounted(res)
    rows = {int(r["source_id"]): r for r in replay_csv(out)}
    k, m = rows[2], rows[21]
    assert float(rows[1]["end_ns"]) == 220000.0, rows[1]
    assert 260000.0 <= float(k["end_ns"]) < 261000.0, k                       # its measured end
    assert 59000.0 < float(k["end_ns"]) - float(k["first_cta_ns"]) < 61000.0, k
    assert 59000.0 < float(m["end_ns"]) - float(m["first_cta_ns"]) < 61000.0, m
    # the greedy start behind it: 640 CTAs, 318 slots and 324 from 20 us on: 318 at 0,
    # 6 at 20, 316 when the first 318 end; 660: 12 more, a third round
    segs = [(0, 318), (20000000, 324)]
    assert kineto2gdt.finish_ps(640, 40000000, segs) == 80000000
    assert kineto2gdt.finish_ps(660, 40000000, segs) == 120000000
    assert kineto2gdt.finish_ps(320, 10000000, segs) == 20000000    # short: the 2 follow K's own first CTAs
    assert kineto2gdt.cta_ps_for(320, 60000000, segs) == 40000000
    assert kineto2gdt.cta_ps_for(640, 60000001, segs) == 30000001  # nearest; a tie goes to the longer


def test_mi250():
    out, res, log = convert("mi250_minitoy_14_kernels")
    d = dispatches(out)
    assert len(d) == 14
    by_corr = {k["info"][1]: k for k in d}
    assert by_corr[118]["grid"] == (3, 1, 1) and by_corr[118]["block"] == (128, 1, 1)   # hipLaunchKernel: CTAs
    assert by_corr[121]["grid"] == (2, 1, 1) and by_corr[121]["block"] == (256, 1, 1)   # work-items 512 / 256
    assert by_corr[132]["grid"] == (2, 8, 1)                                             # (512, 8) / (256, 1)
    assert by_corr[133]["block"] == (32, 4, 1)
    hdr = gdtrace.read(out)[0]
    assert hdr["warp_size"] == 64 and hdr["sms"] == 104
    assert "14  kernel without a register count (AMD traces)" in log, log
    accounted(res)
    rows = replay_csv(out)
    assert len(rows) == 14
    assert all(r["source_id"] for r in rows)


def test_alexnet():
    out, res, log = convert("a100_alexnet_79_kernels")
    d = dispatches(out)
    events = json.load(gzip.open(capture("a100_alexnet_79_kernels")))["traceEvents"]
    kernels = [e for e in events if e.get("cat") == "kernel"]
    assert sorted(k["info"][1] for k in d) == sorted(e["args"]["correlation"] for e in kernels)
    assert len({k["queue"] for k in d}) == 2
    # submit order: non-decreasing
    assert all(d[i]["submit_ns"] <= d[i + 1]["submit_ns"] for i in range(len(d) - 1))
    rows = replay_csv(out)
    recorded = {e["args"]["correlation"]: e["args"]["est. achieved occupancy %"] for e in kernels}
    assert len(rows) == 79
    for r in rows:
        assert int(r["kineto_est_occupancy_pct"]) == recorded[int(r["source_id"])], r
        # every kernel fits the SM and gets a non-zero estimate, even a one-CTA kernel
        assert int(r["max_ctas_per_sm"]) >= 1 and float(r["est_achieved_occupancy_pct"]) > 0, r
    accounted(res)


def test_h100_unlinked_waits():
    """The H100 launch capture (PyTorch 2.11, CUDA 13): its 60 'Stream Wait Event's name
    their event (wait_on_cuda_event_id) but not its stream or record call (-1), since
    PyTorch records with cudaEventRecordWithFlags, which Kineto does not link. Each
    round of the capture's part (c) makes stream 53 wait on stream 7 (nothing to wait
    for there but the last round's wait), stream 57 wait on the event recorded on 53
    behind its add kernel, and stream 7 wait on 57: every wait becomes a barrier, the
    record calls found from the host's call order."""
    out, res, log = convert("h100_launch_562_kernels")
    assert res["waits"] == 60 and res["barriers"] == 60, res
    assert ("60 cuda_sync 'Stream Wait Event'(s) name their event but not where it was recorded (Kineto links "
            "only cudaEventRecord, not cudaEventRecordWithFlags): 60 rebuilt") in log, log
    assert not any("never recorded" in why for _, why in res["skipped"]), res["skipped"]
    p = packets(out)
    q = {r["queue"] for r in p if r["type"] == gdtrace.REC_DISPATCH}
    assert q == {0, 1, 2}   # streams 7, 53, 57
    by_signal = {r["signal"]: r for r in p if r["signal"]}
    deps = collections.Counter()
    for r in p:
        if r["type"] == gdtrace.REC_BARRIER_AND:
            (d,) = r["deps"]
            dep = by_signal[d]
            deps[(r["queue"], dep["queue"], dep["type"])] += 1
            if r["queue"] == 2:   # 57 waits for the add kernel launched on 53 just before the record
                assert dep["type"] == gdtrace.REC_DISPATCH and dep["info"][1] < r["info"][1]
    # 57 on 53's kernel (20); 53 on 57's last kernel, which 7 waited for (19; the first
    # round's on stream 7's last kernel); 7 on 57's kernel: a barrier only before 7's
    # next packet (its big kernel), the other 19 on 7 before nothing
    assert deps == {(2, 1, 3): 20, (1, 2, 3): 19, (1, 0, 3): 1, (0, 2, 3): 20}, deps
    # the 20 barriers on 7 share a position (before its big kernel): they stay in call
    # order, each submitted at the end of its own round's call, not all at the last
    # round's (reversed, the first in the queue pushed the other 19 to its submit time:
    # 20 host calls at gap 0 after the rounds, whose barriers the closed loop's device
    # synchronize then waited 6.4 us for)
    on7 = [r for r in p if r["type"] == gdtrace.REC_BARRIER_AND and r["queue"] == 0]
    assert [r["info"][1] for r in on7] == sorted(r["info"][1] for r in on7)
    assert len({r["submit_ns"] for r in on7}) == 20
    accounted(res)
    rows = replay_csv(out)
    assert len(rows) == 562


def test_h100_unlinked_wait_without_record():
    """A wait that names its event but not its record (as in the H100 captures): with a
    cudaEventRecordWithFlags call before it on its host thread the awaited packet is
    found from the call order; with none, the wait is reported, and its call too."""
    def events(record):
        # launches: kernel 1 on stream 7 (corr 1), kernel 2 on stream 9 (corr 2), the
        # record (corr 3), the wait of stream 9 (corr 4), kernel 5 on stream 9 (corr 5)
        ev = [launch_event(1, 0), launch_event(2, 1),
              dict(ph="X", cat="cuda_runtime", name="cudaStreamWaitEvent", pid=1, tid=1, ts=3, dur=1,
                   args={"correlation": 4}),
              launch_event(5, 5),
              kernel_event(7, 1, 100, 50), kernel_event(9, 2, 100, 80), kernel_event(9, 5, 200, 10),
              dict(ph="X", cat="cuda_sync", name="Stream Wait Event", pid=0, tid=9, ts=3, dur=1,
                   args={"cuda_sync_kind": "Stream Wait Event", "wait_on_stream": -1,
                         "wait_on_cuda_event_record_corr_id": -1, "wait_on_cuda_event_id": 5, "stream": 9,
                         "correlation": 4, "device": 0})]
        if record:
            ev.append(dict(ph="X", cat="cuda_runtime", name="cudaEventRecordWithFlags", pid=1, tid=1, ts=2,
                           dur=0.5, args={"correlation": 3}))
        return synthetic(ev)

    out = os.path.join(TMP, "unlinked.gdt.gz")
    res = kineto2gdt.convert(events(False), out, log=io.StringIO())
    assert res["barriers"] == 0 and res["waits"] == 0, res
    assert res["skipped"][("cuda_sync 'Stream Wait Event' (the record call rebuilt from the call order)",
                           "no cudaEventRecord call before it on its host thread: nothing to wait for")] == 1
    assert res["skipped"][("runtime call cudaStreamWaitEvent", "the call of a 'Stream Wait Event' that needed no "
                           "barrier (see the cuda_sync lines)")] == 1
    accounted(res)
    assert [(r["type"], r["queue"]) for r in packets(out)] == [(3, 0), (3, 1), (3, 1)]
    # with the record: a barrier on stream 9 before kernel 5, on stream 7's kernel 1 (it
    # ended at 150 us, before 5 started; kernel 2 is on the waiting stream itself)
    res = kineto2gdt.convert(events(True), out, log=io.StringIO())
    assert res["barriers"] == 1 and res["waits"] == 1, res
    p = packets(out)
    assert [(r["type"], r["queue"]) for r in p] == [(3, 0), (3, 1), (4, 1), (3, 1)], p
    assert p[2]["deps"] == [p[0]["signal"]] and p[0]["info"][1] == 1 and p[2]["info"][1] == 4
    accounted(res)
    # the waiting kernel's launch not in the capture, and the wait event twice: the same
    # barrier, the second event reported as the same wait
    path = events(True)
    doc = json.load(open(path))
    ev = [e for e in doc["traceEvents"] if not (e["name"] == "cudaLaunchKernel" and e["args"]["correlation"] == 5)]
    ev += [e for e in ev if e.get("cat") == "cuda_sync"]
    res = kineto2gdt.convert(synthetic(ev), out, log=io.StringIO())
    assert res["barriers"] == 1, res
    assert res["skipped"][("cuda_sync 'Stream Wait Event' (the record call rebuilt from the call order)",
                           "rebuilt as the same wait as an earlier call (several calls before one launch)")] == 1
    accounted(res)


def test_capture_script_without_gpu():
    """scripts/capture_kineto.py (run on a GPU machine) explains itself here: --help
    works without PyTorch, and without PyTorch or a CUDA device it ends in one line."""
    script = os.path.join(HERE, "..", "scripts", "capture_kineto.py")
    r = subprocess.run([sys.executable, script, "--help"], capture_output=True, text=True)
    assert r.returncode == 0 and "transformer_large" in r.stdout and "--prefix" in r.stdout, r
    r = subprocess.run([sys.executable, script, os.path.join(TMP, "cap")], capture_output=True, text=True)
    assert r.returncode == 1 and len(r.stderr.splitlines()) == 1, r
    assert r.stderr.startswith("capture_kineto: "), r.stderr


SHA256 = {
    "a100_alexnet_79_kernels": "b9febb1abc8cc729a2890fb6a4171de9867ba72c944437ee046067e7c89912dc",
    "a100_multistream_events_3_kernels": "3e79d573357fd8f764206cc2e514e4a1be4ef43808269689056ed400972ff09c",
    "a100_train_nccl_2700_kernels": "c1cf9c575fdcd7bdc6326ceab834f94b351f81ae55577a7471aa9e328fb8b58e",
    "a100_triton_1_kernel": "f1702aba1e49885c42a7bf5ab8b63b82a0d630acd41180d87199401dd202ccfb",
    "mi250_minitoy_14_kernels": "39fdab670f9e80a05ccc6d0d07611b3aeba1092fa10681d8dd08cea48d0488b5",
    "v100_train_9876_kernels": "5e69e04ed19b2dbf59e632008146c1bd6da417dc3af7ab4885c619b11e34f1bf",
}


def test_captures_are_the_shared_ones():
    """tb/data/kineto holds byte-identical copies of ../shared/data/kineto."""
    for name, digest in SHA256.items():
        assert hashlib.sha256(open(capture(name), "rb").read()).hexdigest() == digest, name


# This project's own captures (scripts/capture_kineto.py on an H100, tb/data/kineto/README.md).
SHA256_OWN = {
    "h100_graph_840_kernels": "f772b7fef3248acf15f8f37c71d0b06f9eda1406839f70a7a9a76dabe188e677",
    "h100_launch_562_kernels": "3964326a1ef16502201c754caade333a68ab674a06e8b941268e4b6dea924d1e",
    "h100_resnet_1036_kernels": "34b3a837316b4362e9180efaccab01f20c94c9d58cd64c7f538e53040b8de5ad",
    "h100_resnet_large_1956_kernels": "877a2899929e6ddae69d139f082c627c9d79660327f71d5f3e8e2829bcb80858",
    "h100_transformer_1124_kernels": "51cd803123a1d545d86194fd75674447c3e1ac092923d1ea100d9288f028a36d",
    "h100_transformer_large_1296_kernels": "f34d22356699403951a19c1ea26ae0899e22aea66456c46874dda551e117b06c",
}


def test_h100_captures():
    """The H100 captures are the ones recorded, each converts with every kernel and
    memcpy/memset once and every event accounted for, and its device is the H100's."""
    expect = {   # kernels, memcpy/memset, graph-launched packets, streams
        "h100_graph_840_kernels": (840, 90, 930, 1),
        "h100_launch_562_kernels": (562, 0, 0, 3),
        "h100_resnet_1036_kernels": (1036, 196, 0, 1),
        "h100_resnet_large_1956_kernels": (1956, 800, 0, 1),
        "h100_transformer_1124_kernels": (1124, 148, 0, 1),
        "h100_transformer_large_1296_kernels": (1296, 312, 0, 1),
    }
    for name, digest in SHA256_OWN.items():
        assert hashlib.sha256(open(capture(name), "rb").read()).hexdigest() == digest, name
        out, res, log = convert(name)
        recs = gdtrace.read(out)
        p = [r for r in recs if r["type"] in (gdtrace.REC_DISPATCH, gdtrace.REC_NONKERNEL)]
        graph = sum(1 for r in p if r["flags"] & gdtrace.PACKET_GRAPH)
        got = (res["kernels"], res["commands"], graph, len({r["queue"] for r in p}))
        assert got == expect[name], (name, got)
        assert recs[0]["sms"] == 132 and recs[0]["cc"] == (9, 0), (name, recs[0])
        accounted(res)


def synthetic(events):
    """A capture of the triton one's device with the given events."""
    src = json.load(gzip.open(capture("a100_triton_1_kernel")))
    path = os.path.join(TMP, "synthetic.json")
    json.dump(dict(deviceProperties=src["deviceProperties"], traceEvents=events), open(path, "w"))
    return path


def kernel_event(stream, corr, ts, dur):
    return dict(ph="X", cat="kernel", name="k", pid=0, tid=stream, ts=ts, dur=dur,
                args={"device": 0, "stream": stream, "correlation": corr, "registers per thread": 16,
                      "shared memory": 0, "grid": [1, 1, 1], "block": [128, 1, 1],
                      "est. achieved occupancy %": 0, "blocks per SM": 0.009259})


def launch_event(corr, ts, dur=1):
    return dict(ph="X", cat="cuda_runtime", name="cudaLaunchKernel", pid=1, tid=1, ts=ts, dur=dur,
                args={"correlation": corr})


def test_infer_waits():
    """Stream 7 runs A, B, C, D, all launched long before; the host is ahead. B starts
    100 us after A ended, 2 us after kernel X of stream 9 ended: a wait on X. D starts
    300 us after C ended, with nothing ending on another stream near it: a wait outside
    the capture, of 300 us less twice the median back-to-back gap (4 us)."""
    ev = [launch_event(1, 0), launch_event(2, 1), launch_event(3, 2), launch_event(4, 3), launch_event(9, 4),
          kernel_event(7, 1, 100, 50),      # A: 100..150
          kernel_event(9, 9, 120, 128),     # X: 120..248
          kernel_event(7, 2, 250, 30),      # B: 250 (waited for X)
          kernel_event(7, 3, 284, 10),      # C: 284..294 (4 us after B)
          kernel_event(7, 4, 594, 10)]      # D: 594 (300 us after C)
    path = synthetic(ev)
    out = os.path.join(TMP, "infer.gdt.gz")
    res = kineto2gdt.convert(path, out, log=io.StringIO(), infer=True)
    assert (res["inferred_barriers"], res["wait_commands"], res["typical_gap_ns"]) == (1, 1, 4000), res
    assert res["wait_ns"] == 300000 - 2 * 4000
    p = packets(out)
    kinds = [(r["type"], r["queue"]) for r in p]
    # queue 0 = stream 7, queue 1 = stream 9; the barrier comes after X, before B; the
    # wait command right before D
    assert kinds == [(3, 0), (3, 1), (4, 0), (3, 0), (3, 0), (8, 0), (3, 0)], kinds
    x, b, w = p[1], p[2], p[5]
    assert x["signal"] and b["deps"] == [x["signal"]]
    assert (w["kind"], w["duration_ps"], w["bytes"]) == (0, 292000000, 0) and w["info"][1] == gdtrace.UNKNOWN
    # without the option: no barrier, no wait command
    res = kineto2gdt.convert(path, out, log=io.StringIO())
    assert [r["type"] for r in packets(out)] == [3, 3, 3, 3, 3]
    # with recorded waits the option is ignored, with a warning
    log = io.StringIO()
    res = kineto2gdt.convert(capture("a100_multistream_events_3_kernels"), out, log=log, infer=True)
    assert res["inferred_barriers"] == 0 and "--infer-waits ignored" in log.getvalue()


def test_programmatic_dependent_launch():
    """Stream 7: P (100 us), then D, launched by cudaLaunchKernelExC, starting 2 us before
    P ended and running 30 us (programmatic dependent launch, by the timing): D is
    flagged (format 1.11) and its CTAs get the 28 us it ran after P ended. Replayed with a
    lead of 1 us, D's CTA starts 1 us before P's ends and ends 28 us after it (it waits
    for P's work, then runs its own); E, launched by cudaLaunchKernel after D, is an
    ordinary kernel. The same capture with D launched by cudaLaunchKernel: not flagged,
    its start after P's end plus the K->K gap."""
    def capture(api):
        ev = [launch_event(1, 0), launch_event(2, 1), launch_event(3, 2),
              kernel_event(7, 1, 100, 100), kernel_event(7, 2, 198, 30), kernel_event(7, 3, 240, 10)]
        ev[1]["name"] = api
        return synthetic(ev)
    out = os.path.join(TMP, "pdl.gdt.gz")
    log = io.StringIO()
    res = kineto2gdt.convert(capture("cudaLaunchKernelExC"), out, log=log)
    assert res["programmatic"] == 1 and "1 kernel(s) launched by cudaLaunchKernelExC started before" in log.getvalue()
    d = dispatches(out)
    assert [x["programmatic"] for x in d] == [False, True, False]
    assert gdtrace.read(out)[0]["type"] == gdtrace.REC_HEADER and d[1]["info"][0] == 28000000   # its own time, ps
    rows = subprocess.run([os.path.join(BUILD, "gdsim"), "replay", out, "--quiet", "--set",
                           "pp.gap_programmatic_lead_ns=1000", "--kernels-csv", out + ".csv"],
                          capture_output=True, text=True)
    assert rows.returncode == 0, rows.stderr
    p, dd, e = list(csv.DictReader(open(out + ".csv")))
    # (+ the distributor's launch step, 10 cycles at 1410 MHz, as for any kernel)
    assert round(float(dd["first_cta_ns"]) - float(p["end_ns"]), 3) == -1000 + 7.092, (p["end_ns"], dd["first_cta_ns"])
    assert float(dd["end_ns"]) == float(p["end_ns"]) + 28000, (p["end_ns"], dd["end_ns"])
    assert float(e["first_cta_ns"]) > float(dd["end_ns"])
    res = kineto2gdt.convert(capture("cudaLaunchKernel"), out, log=io.StringIO())
    assert res["programmatic"] == 0 and not any(x["programmatic"] for x in dispatches(out))
    p, dd, _ = replay_csv(out)
    assert round(float(dd["first_cta_ns"]) - float(p["end_ns"]), 3) == 1121 + 7.092   # the A100 preset's K->K gap
    assert float(dd["end_ns"]) - float(dd["first_cta_ns"]) == 30000


def test_programmatic_under_the_command_scheduler():
    """Under cs.policy=inorder|waitqueue the barrier bit holds a programmatic kernel as
    any kernel, and other tenants' kernels share its hardware queue: queue 0 P (100 us),
    queue 1 X (300 us), queue 0 D (programmatic, 30 us), one physical queue. D starts as
    when not flagged, not from the end of X (the last kernel to arrive there; a
    review found it held until then, 200 us late)."""
    dev = gdtrace.Device("H100", (9, 0), 132, 2048, 65536, 233472, 49152, 232448, 1024, 32)
    starts = {}
    for prog in (False, True):
        path = os.path.join(TMP, "pdl_cs_%d.gdt.gz" % prog)
        w = gdtrace.TraceWriter(path, dev, "test", minor=11)
        for kid, us in ((1, 100), (2, 300), (3, 30)):
            w.kernel(kid, "k%d" % us, 1024, 64, 0, 0, gdtrace.EXEC_FIXED_CTA, us * 1000000)
        w.dispatch(0, 0, 1, (1024, 1, 1), (1, 1, 1), 0)
        w.dispatch(1, 5, 2, (1024, 1, 1), (1, 1, 1), 0)
        w.dispatch(0, 10, 3, (1024, 1, 1), (1, 1, 1), 0, programmatic=prog)
        w.close()
        for policy in ("inorder", "waitqueue"):
            r = subprocess.run([os.path.join(BUILD, "gdsim"), "replay", path, "--quiet", "--kernels-csv", path + ".csv",
                                "--set", "cs.policy=" + policy, "--set", "cs.physical_queues=1", "--set",
                                "pp.gap_programmatic_lead_ns=1000"], capture_output=True, text=True)
            assert r.returncode == 0, r.stderr
            rows = list(csv.DictReader(open(path + ".csv")))
            starts[(prog, policy)] = float(rows[2]["first_cta_ns"])
            assert starts[(prog, policy)] < float(rows[1]["end_ns"]) - 100000, (prog, policy, rows[2], rows[1])
    assert starts[(True, "inorder")] == starts[(False, "inorder")], starts
    assert starts[(True, "waitqueue")] == starts[(False, "waitqueue")], starts


def test_tenants_from_process_and_stream():
    """VIDs (seed 004's tenants): a stream's VID is its queue (no tenant field), and
    packets another host process launched onto the same stream id get a VID of their
    own in a tenant field (format 1.6); the replay reports both tenants."""
    ev = [launch_event(1, 0), launch_event(2, 1), launch_event(3, 2), launch_event(4, 3),
          kernel_event(7, 1, 100, 50), kernel_event(7, 2, 200, 50), kernel_event(7, 3, 300, 50),
          kernel_event(9, 4, 100, 50)]
    ev[2]["pid"] = 2  # kernel 3 was launched by another process onto stream 7
    path = synthetic(ev)
    out = os.path.join(TMP, "tenants.gdt.gz")
    kineto2gdt.convert(path, out, log=io.StringIO())
    p = sorted((r for r in packets(out) if r["type"] == 3), key=lambda r: r["info"][1])   # by correlation
    assert [(r["queue"], r.get("tenant")) for r in p] == [(0, None), (0, None), (0, (2, 3)), (1, None)], p
    rows = sorted(replay_csv(out), key=lambda r: int(r["source_id"]))
    assert [r["vid"] for r in rows] == ["0", "0", "2", "1"] and [r["queue"] for r in rows] == ["0", "0", "0", "1"]
    # a capture of one process: the same bytes as before tenant fields existed (VID = queue)
    ev[2]["pid"] = 1
    kineto2gdt.convert(synthetic(ev), out, log=io.StringIO())
    assert all("tenant" not in r for r in packets(out))


def test_small_chunks_same_bytes():
    out1, _, _ = convert("a100_alexnet_79_kernels")
    ref = open(out1, "rb").read()
    saved = kineto2gdt.JsonStream.CHUNK
    try:
        kineto2gdt.JsonStream.CHUNK = 7  # values split everywhere across reads
        out2, _, _ = convert("a100_alexnet_79_kernels")
    finally:
        kineto2gdt.JsonStream.CHUNK = saved
    assert open(out2, "rb").read() == ref


def test_no_device_properties():
    src = json.load(gzip.open(capture("a100_triton_1_kernel")))
    del src["deviceProperties"]
    path = os.path.join(TMP, "noprops.json")
    json.dump(src, open(path, "w"))
    log = io.StringIO()
    res = kineto2gdt.convert(path, os.path.join(TMP, "noprops.gdt.gz"), log=log)
    assert res["device"].sms == 108, res["device"].sms          # 1 CTA / 'blocks per SM' 0.009259
    assert "no deviceProperties: inferred 108 SMs" in log.getvalue(), log.getvalue()


def run_cli(*args):
    return subprocess.run([sys.executable, os.path.join(HERE, "..", "scripts", "kineto2gdt.py")] + list(args),
                          capture_output=True, text=True)


def test_errors():
    r = run_cli(os.path.join(TMP, "missing.json"), os.path.join(TMP, "x.gdt.gz"))
    assert r.returncode == 1 and "missing.json" in r.stderr, r.stderr
    bad = os.path.join(TMP, "bad.json")
    open(bad, "w").write('{"traceEvents": [{"cat": "kernel", "ts": 1,, }]}')
    r = run_cli(bad, os.path.join(TMP, "x.gdt.gz"))
    assert r.returncode == 1 and "bad.json: character" in r.stderr, r.stderr
    empty = os.path.join(TMP, "empty.json")
    open(empty, "w").write('{"traceEvents": []}')
    r = run_cli(empty, os.path.join(TMP, "x.gdt.gz"))
    assert r.returncode == 1 and "no kernel events" in r.stderr, r.stderr
    r = run_cli(capture("a100_triton_1_kernel"), os.path.join(TMP, "x.gdt.gz"), "--device", "5")
    assert r.returncode == 1 and "no kernels on device 5 (devices with kernels: 0)" in r.stderr, r.stderr


# --------------------------------------------------------------------------------------
# Hostile input: one error line naming the file (and the event), exit status 1, no
# traceback, no output file (nor a temporary one) left behind.

def kernel_of(src):
    return next(e for e in src["traceEvents"] if isinstance(e, dict) and e.get("cat") == "kernel")


def multistream():
    return json.load(gzip.open(capture("a100_multistream_events_3_kernels")))


def with_kernel(change):
    """The multistream capture with its first kernel event changed by change(event), as
    JSON text (NaN and Infinity as the parser's extensions)."""
    src = multistream()
    e = kernel_of(src)
    change(e)
    return json.dumps(src)


def refused(data, expect, name="in.json", args=(), cli=False):
    """Runs the converter on `data` (bytes or text) written to a fresh folder, through
    main() in this process (cli: the command in a process of its own, as a user runs it);
    asserts one error line naming the file with `expect` in it, exit status 1 and
    nothing left but the input. Returns the line."""
    with tempfile.TemporaryDirectory() as tmp:
        path, out = os.path.join(tmp, name), os.path.join(tmp, "out.gdt.gz")
        with open(path, "wb") as f:
            f.write(data if isinstance(data, bytes) else data.encode())
        if cli:
            r = run_cli(path, out, *args)
            rc, err = r.returncode, r.stderr
        else:
            buf = io.StringIO()
            with contextlib.redirect_stderr(buf):
                rc = kineto2gdt.main([path, out] + list(args))   # an exception fails the test with its traceback
            err = buf.getvalue()
        lines = err.splitlines()
        assert rc == 1, (rc, err)
        assert "Traceback" not in err and len(lines) == 1, err
        assert lines[0].startswith("kineto2gdt: error: %s: " % path), err
        assert expect in lines[0], (expect, err)
        assert "internal error" not in lines[0], err
        assert os.listdir(tmp) == [name], os.listdir(tmp)
        return lines[0]


def test_bad_binary():
    refused(bytes(range(256)) * 16, "not UTF-8 text (byte 0x80", cli=True)
    refused(b"\x00\x01\x02\x03" * 64, "character 0: not a JSON object")


def test_bad_gzip_of_binary():
    refused(gzip.compress(bytes(range(256)) * 16), "not UTF-8 text", name="in.json.gz", cli=True)
    refused(gzip.compress(b"\x00" * 5000), "not a JSON object", name="in.json.gz")
    # a damaged gzip stream: its CRC, its deflate data
    data = gzip.compress(json.dumps(multistream()).encode())
    refused(data[:-8] + b"\x00" * 8, "damaged gzip data (CRC check failed", name="in.json.gz")
    refused(data[:10] + b"\xff" * 64 + data[74:], "damaged gzip data", name="in.json.gz")


def test_bad_utf16():
    text = json.dumps(multistream())
    refused(text.encode("utf-16"), "UTF-16 text (it starts with a UTF-16 byte-order mark)", cli=True)   # a BOM
    refused(gzip.compress(text.encode("utf-16")), "UTF-16 text", name="in.json.gz")
    refused(text.encode("utf-16-le"), "character 1: Expecting value (a NUL character: UTF-16 text")  # without


def test_bad_truncated_gzip():
    data = gzip.compress(json.dumps(multistream()).encode())
    for cut in (3, 10, len(data) // 2, len(data) - 1):
        refused(data[:cut], "", name="in.json.gz")
    refused(data[:len(data) // 2], "the gzip data ends early (a truncated file?)", name="in.json.gz", cli=True)
    text = json.dumps(multistream())
    refused(text[:len(text) // 2], "")   # plain JSON cut short


def test_bad_empty():
    refused(b"", "empty: no JSON in it", cli=True)
    refused(gzip.compress(b""), "empty: no JSON in it", name="in.json.gz")
    refused(b" \n\t", "the JSON ends too early")


def test_bad_json_shape():
    refused("[1, 2, 3]", "character 0: not a JSON object (a Kineto trace is {\"traceEvents\": [...], ...}): it "
                         "starts with '['")
    refused("42", "not a JSON object", cli=True)
    refused('{"traceEvents": 5}', "character 16: traceEvents is not a list: it starts with '5'")
    refused('{"traceEvents": {"a": 1}}', "traceEvents is not a list")
    src = multistream()
    src["traceEvents"].insert(7, [1, 2])
    refused(json.dumps(src), "traceEvents[7] is not an object: a list of 2")
    refused('{"traceEvents": [1]}', "traceEvents[0] is not an object: 1")
    refused('{"traceEvents": [], 7: 1}', "expected a member name (a string)")


def event_error(src_text, what, cli=False):
    """The error for the multistream capture's first kernel (traceEvents[n]) with `what`."""
    n = next(i for i, e in enumerate(multistream()["traceEvents"]) if isinstance(e, dict) and e.get("cat") == "kernel")
    return refused(src_text, "traceEvents[%d] (kernel 'ampere_sgemm_128x64_nn'): %s" % (n, what), cli=cli)


def test_bad_times():
    def setter(key, value):
        return lambda e: e.__setitem__(key, value)
    event_error(with_kernel(lambda e: e.pop("ts")), "no 'ts'", cli=True)
    for key in ("ts", "dur"):
        event_error(with_kernel(setter(key, "12")), "'%s' is not a number: '12'" % key)
        event_error(with_kernel(setter(key, [1])), "'%s' is not a number: a list of 1" % key)
        event_error(with_kernel(setter(key, None)), "'%s' is not a number: null" % key)
        event_error(with_kernel(setter(key, True)), "'%s' is not a number: true" % key)
        event_error(with_kernel(setter(key, float("nan"))), "'%s' is NaN, not a finite number" % key)
        event_error(with_kernel(setter(key, float("inf"))), "'%s' is Infinity, not a finite number" % key)
        event_error(with_kernel(setter(key, float("-inf"))), "'%s' is -Infinity, not a finite number" % key)
        event_error(with_kernel(setter(key, 10 ** 30)), "'%s' is out of range: an integer of 31 digits" % key)
    event_error(with_kernel(setter("ts", -5)), "'ts' is negative: -5")
    # in range alone, but too far from the rest (the durations and gaps in picoseconds
    # must fit 64 bits)
    refused(with_kernel(setter("dur", 10 ** 15)), "its kernels, copies, waits and launch calls span 11574.1 days "
                                                  "from the first start to the last end")
    refused(with_kernel(setter("ts", 1)), "span 19824.9 days")
    event_error(with_kernel(setter("ts", -0.5)), "'ts' is negative: -0.5")
    # an exponent beyond what a float (or the decimal context) holds
    for big in ("1e999999999", "1e9999999999999999999999", "-1e-9999999999999999999999"):
        event_error(with_kernel(setter("ts", 1)).replace('"ts": 1,', '"ts": %s,' % big),
                    "'ts' is out of range: %s" % big)


def test_bad_negative_duration():
    event_error(with_kernel(lambda e: e.__setitem__("dur", -3)), "'dur' is negative: -3", cli=True)
    event_error(with_kernel(lambda e: e.__setitem__("dur", -1.5)), "'dur' is negative: -1.5")
    # on a copy, a wait, a launch call too
    for cat in ("gpu_memset", "cuda_sync", "cuda_runtime"):
        src = multistream()
        i, e = next((i, e) for i, e in enumerate(src["traceEvents"]) if isinstance(e, dict) and e.get("cat") == cat
                    and (cat != "cuda_sync" or e["args"].get("cuda_sync_kind") == "Stream Wait Event"))
        e["dur"] = -2
        refused(json.dumps(src), "traceEvents[%d] (%s '%s'): 'dur' is negative: -2" % (i, cat, e["name"]))


def test_bad_field_types():
    def arg(key, value):
        return lambda e: e["args"].__setitem__(key, value)
    event_error(with_kernel(lambda e: e.__setitem__("args", "x")), "'args' is not an object: 'x'", cli=True)
    event_error(with_kernel(lambda e: e.__setitem__("args", [1])), "'args' is not an object: a list of 1")
    event_error(with_kernel(arg("grid", "abc")), "'args.grid' is not a list of 3 integers: 'abc'")
    event_error(with_kernel(arg("grid", [1, 2])), "'args.grid' is not a list of 3 integers: a list of 2")
    event_error(with_kernel(arg("block", [128, 1.5, 1])), "'args.block' is not a list of 3 integers")
    event_error(with_kernel(arg("stream", [7])), "'args.stream' is not an integer or a string: a list of 1")
    event_error(with_kernel(arg("device", {})), "'args.device' is not an integer or a string: an object")
    event_error(with_kernel(arg("correlation", "27")), "'args.correlation' is not an integer: '27'")
    event_error(with_kernel(arg("registers per thread", -1)), "'args.registers per thread' is out of range: -1")
    event_error(with_kernel(arg("shared memory", 1 << 40)), "'args.shared memory' is out of range")
    event_error(with_kernel(arg("blocks per SM", float("nan"))), "'args.blocks per SM' is NaN")
    n = next(i for i, e in enumerate(multistream()["traceEvents"]) if isinstance(e, dict) and e.get("cat") == "kernel")
    refused(with_kernel(lambda e: e.__setitem__("name", 5)), "traceEvents[%d] (kernel): 'name' is not a string: 5" % n)
    refused(with_kernel(lambda e: e.__setitem__("name", ["x"])), "traceEvents[%d] (kernel): 'name' is not a string: "
            "a list of 1" % n)
    # deviceProperties
    src = multistream()
    src["deviceProperties"] = "x"
    refused(json.dumps(src), "deviceProperties is not a list: 'x'")
    src["deviceProperties"] = [dict(multistream()["deviceProperties"][0], numSms=0)]
    refused(json.dumps(src), "deviceProperties of device 0 out of range: numSms 0 (1 to 65536)")
    src["deviceProperties"] = [dict(multistream()["deviceProperties"][0], warpSize="32")]
    refused(json.dumps(src), "deviceProperties of device 0: 'warpSize' is not an integer from 0 to 4294967295: '32'")
    # a category that is not a string: not converted (and reported), not an error
    src = multistream()
    src["traceEvents"].append({"cat": [1], "ph": {"x": 1}, "name": "odd"})
    src["traceEvents"].append({"ph": [1], "name": "odder"})
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "in.json")
        json.dump(src, open(path, "w"))
        log = io.StringIO()
        res = kineto2gdt.convert(path, os.path.join(tmp, "out.gdt.gz"), log=log)
        assert res["skipped"][("(category a list of 1)", "not dispatch work")] == 1, res["skipped"]
        assert res["skipped"][("(no category, ph a list of 1)", "not dispatch work")] == 1, res["skipped"]
        accounted(res)


def test_bad_deep_nesting():
    deep = "[" * 100000 + "]" * 100000
    refused('{"traceEvents": [%s]}' % deep, "character 17: the JSON is nested too deeply", cli=True)
    refused('{"traceEvents": [{"args": %s}]}' % deep, "character 17: the JSON is nested too deeply")
    refused('{"x": %s, "traceEvents": []}' % deep, "character 6: the JSON is nested too deeply")
    refused('{"traceEvents": [%s]}' % ("9" * 5000), "character 17: a number of more than")


def test_bad_more_than_one_document():
    """Trailing data, a second document and a member named twice (json would keep the
    last, silently) are refused, naming where."""
    refused('{"traceEvents": []} x', "character 20: more after the end of the JSON object: 'x'", cli=True)
    refused('{"traceEvents": []}\n{"traceEvents": []}', "character 20: more after the end of the JSON object")
    refused('{"traceEvents": [], "traceEvents": []}', "character 19: the top-level object names its member "
                                                       "'traceEvents' twice", cli=True)
    refused('{"traceEvents": [{"ph": "X", "ph": "i"}]}', "an object names its member 'ph' twice")
    refused('{"traceEvents": [{"args": {"stream": 7, "stream": 8}}]}', "an object names its member 'stream' twice")


def test_output_is_the_capture():
    """The output may not be the capture, nor a link to it: refused, the capture intact."""
    src = os.path.join(TMP, "cap.json.gz")
    shutil.copy(capture("a100_triton_1_kernel"), src)
    before = open(src, "rb").read()
    link = os.path.join(TMP, "cap-link.gdt.gz")
    os.symlink(src, link)
    for out in (src, link):
        try:
            kineto2gdt.convert(src, out, log=io.StringIO())
        except kineto2gdt.ConvertError as e:
            assert "is the capture being converted; refusing to overwrite it" in str(e), e
        else:
            raise AssertionError("converted onto its capture: %s" % out)
        assert open(src, "rb").read() == before


def test_duplicate_correlation():
    """Two runtime calls with one correlation id: the first keeps it, the second is
    counted as not converted (every event accounted for)."""
    ev = [launch_event(1, 10), dict(launch_event(1, 20), name="cudaMemsetAsync"), kernel_event(7, 1, 30, 10)]
    res = kineto2gdt.convert(synthetic(ev), os.path.join(TMP, "dup.gdt.gz"), log=io.StringIO())
    assert res["skipped"][("runtime call cudaMemsetAsync", "its correlation id 1 is another runtime call's: which "
                                                           "call launched the work is not known")] == 1, res["skipped"]
    assert res["kernels"] == 1, res
    accounted(res)


def test_bad_json_syntax_found_early():
    """A syntax error is reported when the decoder reaches it, without reading the rest of
    the file (which would take it all into memory): here after 2 chunks of 60 MB."""
    class Source:
        def __init__(self):
            self.parts = ['{"traceEvents": [{"ts": 1,, }, ', "{}, " * 15000000, "{}]}"]
            self.reads = 0

        def read(self, n):
            self.reads += 1
            return self.parts.pop(0) if self.parts else ""

    src = Source()
    try:
        list(kineto2gdt.JsonStream(src, "big.json").items())
        raise AssertionError("accepted")
    except kineto2gdt.ConvertError as e:
        assert str(e) == "big.json: character 26: Expecting property name enclosed in double quotes", e
    assert src.reads == 2, src.reads


def test_stream_values_split_anywhere():
    """Every value split at every point across reads, against json.loads: top-level
    numbers cut after '1.' or '2e' (once taken for 1 and 2), literals, escapes,
    surrogate pairs; and a syntax error found at the same character however cut."""
    doc = ('{"a": 1.5e3, "b": -0.25, "c": 12, "d": -7, "e": 1E-2, "f": true, "g": null, "h": "x\\"y\\u00e9\\ud83d'
           '\\ude00", "traceEvents": [1.25, -3, 4e5, {"ts": 1.0, "n": [NaN, Infinity, -Infinity, false]}, "s", [], '
           '{}], "z": -Infinity, "y": 0, "k": 123456789012345678901234567890.123456789e-10}')
    want = [(k, v) for k, val in json.loads(doc, parse_float=str).items() for v in (val if k == "traceEvents"
                                                                                     else [val])]
    saved = kineto2gdt.JsonStream.CHUNK
    try:
        for chunk in range(1, len(doc) + 2):
            kineto2gdt.JsonStream.CHUNK = chunk
            got = list(kineto2gdt.JsonStream(io.StringIO(doc), "x").items())
            assert repr(got) == repr(want), (chunk, got)
            assert isinstance(got[0][1], kineto2gdt.JsonFloat) and isinstance(got[2][1], int)
        for bad, msg in [('{"a": 1.x}', "x: character 7: expected '}' or ',', found '.'"),
                         ('{"traceEvents": [{"a": "abc\\u12G4"}]}', "x: character 28: Invalid \\uXXXX escape"),
                         ('{"traceEvents": [{"a": -Inf}]}' + " " * 30, "x: character 23: Expecting value"),
                         ('{"traceEvents": [{"a": 1} {"b": 2}]}',
                          "x: character 26: expected ']' or ',' in traceEvents, found '{'")]:
            for chunk in range(1, len(bad) + 2):
                kineto2gdt.JsonStream.CHUNK = chunk
                try:
                    list(kineto2gdt.JsonStream(io.StringIO(bad), "x").items())
                    raise AssertionError("accepted")
                except kineto2gdt.ConvertError as e:
                    assert str(e) == msg, (chunk, str(e), msg)
    finally:
        kineto2gdt.JsonStream.CHUNK = saved


def test_no_output_left_on_write_error():
    """A failure while writing leaves neither the output nor its temporary file; an output
    that was there stays as it was until a conversion succeeds."""
    with tempfile.TemporaryDirectory() as tmp:
        out = os.path.join(tmp, "out.gdt.gz")
        saved = gdtrace.TraceWriter.dispatch

        def full_disk(self, *a, **kw):
            raise OSError(28, "No space left on device")
        gdtrace.TraceWriter.dispatch = full_disk
        try:
            kineto2gdt.convert(capture("a100_triton_1_kernel"), out, log=io.StringIO())
            raise AssertionError("no error")
        except kineto2gdt.ConvertError as e:
            assert str(e) == "%s: cannot write: No space left on device" % out, e
        finally:
            gdtrace.TraceWriter.dispatch = saved
        assert os.listdir(tmp) == [], os.listdir(tmp)
        open(out, "w").write("old")
        r = run_cli(os.path.join(tmp, "missing.json"), out)
        assert r.returncode == 1 and r.stderr.startswith("kineto2gdt: error: %s: No such file or directory"
                                                         % os.path.join(tmp, "missing.json")), r.stderr
        assert open(out).read() == "old" and os.listdir(tmp) == ["out.gdt.gz"]
        r = run_cli(capture("a100_triton_1_kernel"), out, "-q")
        assert r.returncode == 0 and r.stderr == "", r.stderr
        assert len(dispatches(out)) == 1 and os.listdir(tmp) == ["out.gdt.gz"]
        r = run_cli(capture("a100_triton_1_kernel"), os.path.join(tmp, "no", "such", "dir.gdt.gz"))
        assert r.returncode == 1 and "no/such/dir.gdt.gz: cannot write: No such file or directory" in r.stderr, \
            r.stderr


def test_internal_error_one_line():
    """A bug (here a planted one) is one line naming the file and where, exit status 1."""
    saved = kineto2gdt.idle_launch_latency
    kineto2gdt.idle_launch_latency = lambda items: None + 1
    err = io.StringIO()
    try:
        with tempfile.TemporaryDirectory() as tmp, contextlib.redirect_stderr(err):
            rc = kineto2gdt.main([capture("a100_triton_1_kernel"), os.path.join(tmp, "out.gdt.gz")])
            assert os.listdir(tmp) == []
    finally:
        kineto2gdt.idle_launch_latency = saved
    lines = err.getvalue().splitlines()
    assert rc == 1 and len(lines) == 1, err.getvalue()
    assert lines[0].startswith("kineto2gdt: error: %s: internal error (a bug in kineto2gdt.py" %
                               capture("a100_triton_1_kernel")) and "TypeError" in lines[0], lines


def test_quiet():
    """-q / --quiet: nothing on stderr for a good capture (the notes are there without it);
    errors still are."""
    with tempfile.TemporaryDirectory() as tmp:
        out = os.path.join(tmp, "out.gdt.gz")
        r = run_cli(capture("a100_alexnet_79_kernels"), out)
        assert r.returncode == 0 and "not converted (count, what, why)" in r.stderr, r.stderr
        for flag in ("-q", "--quiet"):
            os.remove(out)
            r = run_cli(capture("a100_alexnet_79_kernels"), out, flag)
            assert r.returncode == 0 and r.stderr == "" and r.stdout == "", (flag, r.stderr)
            assert len(dispatches(out)) == 79
        err = io.StringIO()
        with contextlib.redirect_stderr(err):   # in-process: the notes go to sys.stderr as it is now
            assert kineto2gdt.main([capture("mi250_minitoy_14_kernels"), out, "--quiet", "--infer-waits"]) == 0
            assert kineto2gdt.main([capture("mi250_minitoy_14_kernels"), out]) == 0
        assert err.getvalue().startswith("kineto2gdt: %s -> %s: 14 kernels" % (
            capture("mi250_minitoy_14_kernels"), out)), err.getvalue()
    refused('{"traceEvents": 5}', "traceEvents is not a list", args=("-q",))


def mutate(rng, src, text, kind):
    """One mutation of the capture (src parsed, text its JSON): (file name, bytes)."""
    if kind == 0:     # the gzip file cut short
        data = gzip.compress(text.encode(), mtime=0)
        return "cut.json.gz", data[:rng.randrange(len(data))]
    if kind == 1:     # the JSON cut short
        return "cut.json", text[:rng.randrange(len(text))].encode()
    if kind == 2:     # random bytes of the JSON replaced
        data = bytearray(text.encode())
        for _ in range(rng.randint(1, 8)):   # any byte, or one that means something to JSON
            data[rng.randrange(len(data))] = rng.randrange(256) if rng.random() < 0.5 else \
                rng.choice(b'{}[]":,-.0123456789eEtfn \\')
        return ("flip.json.gz", gzip.compress(bytes(data), mtime=0)) if rng.random() < 0.5 else \
            ("flip.json", bytes(data))
    src = json.loads(text)
    events = [e for e in src["traceEvents"] if isinstance(e, dict)]
    converted = [e for e in events if e.get("cat") in ("kernel", "gpu_memcpy", "gpu_memset", "cuda_sync",
                                                       "cuda_runtime")]
    if kind == 3:     # keys of events deleted
        for _ in range(rng.randint(1, 5)):
            e = rng.choice(converted if rng.random() < 0.8 else events)
            d = e["args"] if "args" in e and isinstance(e["args"], dict) and e["args"] and rng.random() < 0.5 else e
            if d:
                del d[rng.choice(sorted(d))]
        return "deleted.json", json.dumps(src).encode()
    wrong = ["str", "12", "", [1, 2], [1, 2, 3], [], {}, {"a": 1}, None, True, False, float("nan"), float("inf"),
             float("-inf"), -1, -1.5, 0, 1 << 70, 1e300, 3.25]
    if kind == 4:     # values of events replaced by others of the wrong type or range
        for _ in range(rng.randint(1, 4)):
            e = rng.choice(converted if rng.random() < 0.8 else events)
            d = e["args"] if "args" in e and isinstance(e["args"], dict) and rng.random() < 0.6 else e
            if d:
                d[rng.choice(sorted(d))] = rng.choice(wrong)
        return "wrong.json", json.dumps(src).encode()
    props = src["deviceProperties"][0]  # kind 5: the device
    key = rng.choice(sorted(props))
    if rng.random() < 0.3:
        del props[key]
    else:
        props[key] = rng.choice(wrong)
    return "device.json", json.dumps(src).encode()


def test_mutated_captures():
    """60 seeded random mutations of the AlexNet capture (cut, bytes flipped, keys
    deleted, values of the wrong type, NaN, negative; the device's fields): each converts
    (exit 0 and an output) or fails with one error line naming the file (exit 1, no
    output, no temporary file), never a traceback nor an internal error."""
    mutated_captures("a100_alexnet_79_kernels", 20261126)


def test_mutated_h100_waits():
    """The same on the H100 launch capture, whose waits name their event but not its
    record (the record calls rebuilt from the call order)."""
    mutated_captures("h100_launch_562_kernels", 20261127)


def mutated_captures(name, seed):
    text = gzip.open(capture(name), "rt").read()
    src = json.loads(text)
    rng = random.Random(seed)
    outcomes = collections.Counter()
    with tempfile.TemporaryDirectory() as tmp:
        for i in range(60):
            name, data = mutate(rng, src, text, i % 6)
            path, out = os.path.join(tmp, "%02d_%s" % (i, name)), os.path.join(tmp, "%02d.gdt.gz" % i)
            with open(path, "wb") as f:
                f.write(data)
            err = io.StringIO()
            args = [path, out] + (["-q"] if i % 2 else [])
            with contextlib.redirect_stderr(err):
                rc = kineto2gdt.main(args)
            msg = err.getvalue()
            what = (i, name, msg)
            assert "Traceback" not in msg and "internal error" not in msg, what
            if rc == 0:
                assert os.path.exists(out) and "error" not in msg, what
                assert msg == "" if "-q" in args else msg.startswith("kineto2gdt: %s -> " % path), what
                assert gdtrace.read(out)[-1]["type"] == gdtrace.REC_END, what
                os.remove(out)
            else:
                assert rc == 1 and len(msg.splitlines()) == 1, what
                assert msg.startswith("kineto2gdt: error: %s: " % path), what
                assert not os.path.exists(out), what
            outcomes[(i % 6, rc)] += 1
            os.remove(path)
            assert os.listdir(tmp) == [], (what, os.listdir(tmp))
    # the mutations reach both outcomes: they test the checks, not only the reader
    assert sum(n for (kind, rc), n in outcomes.items() if rc == 0) >= 10, outcomes
    assert sum(n for (kind, rc), n in outcomes.items() if rc == 1) >= 20, outcomes


def test_deterministic():
    a, _, _ = convert("mi250_minitoy_14_kernels")
    first = open(a, "rb").read()
    b, _, _ = convert("mi250_minitoy_14_kernels")
    assert open(b, "rb").read() == first


def main():
    tests = [v for k, v in sorted(globals().items()) if k.startswith("test_")]
    try:
        for t in tests:
            with contextlib.redirect_stdout(io.StringIO()):
                t()
            print("ok  ", t.__name__)
    finally:
        shutil.rmtree(TMP, ignore_errors=True)
    print("kineto2gdt: %d tests ok" % len(tests))


if __name__ == "__main__":
    main()
