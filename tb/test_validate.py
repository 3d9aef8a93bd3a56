"""Regression tests of the replay against the shared PyTorch-profiler captures
(../shared/data/kineto), through scripts/validate.py: occupancy agreement, every kernel
exactly once, and the timeline errors within the bounds docs/VALIDATION.md documents;
the metrics themselves (gap error on queued kernels, unexplained stalls, the start
error with them taken out, the --split bookkeeping) exact on a small constructed
capture; and the figures of the held-out second half (--split 0.5), printed.
Usage: python3 tb/test_validate.py BUILD_DIR"""
import contextlib
import io
import json
import os
import shutil
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "scripts"))
import validate  # noqa: E402

BUILD = sys.argv[1] if len(sys.argv) > 1 else "build"
SHARED = os.path.join(HERE, "data", "kineto")   # copies of ../shared/data/kineto (tb/data/kineto/README.md)
US = 1000.0

# capture, options, bounds: median and p90 of |first CTA - measured start| (ns), |span
# error| (fraction). docs/VALIDATION.md gives the measured values; the bounds leave
# room for small model changes but not for a broken timeline. These are the preset
# alone (calibrate=None: no calibration record in the trace), as the bounds were set,
# replayed open-loop (host.mode=open: every packet at its captured submit time).
CASES = [
    ("a100_train_nccl_2700_kernels", False, 0.5 * US, 3 * US, 1e-4),
    ("a100_alexnet_79_kernels", False, 2 * US, 20 * US, 1e-4),
    ("a100_multistream_events_3_kernels", False, 2 * US, 2 * US, 1e-4),
    ("a100_triton_1_kernel", False, 2 * US, 2 * US, 1e-4),
    ("mi250_minitoy_14_kernels", False, 1 * US, 2 * US, 5e-4),
    # waits rebuilt from the call order, us timestamps, host 20-60 ms ahead: errors
    # accumulate (docs/VALIDATION.md)
    ("v100_train_9876_kernels", False, 1000 * US, 3000 * US, 1e-3),
    ("v100_train_9876_kernels", True, 1500 * US, 3500 * US, 1e-3),
    # this project's H100 captures (scripts/capture_kineto.py), on the H100 preset, whose
    # launch latencies are still the A100's (docs/VALIDATION.md, 'H100 captures'): host-
    # bound training steps (resnet, transformer) replay within a microsecond; where kernels
    # queue, each gap's error accumulates; the graph replays' gaps are a third of the
    # preset's fixed latencies
    ("h100_resnet_1036_kernels", False, 0.5 * US, 1 * US, 1e-4),
    ("h100_transformer_1124_kernels", False, 0.5 * US, 1 * US, 1e-4),
    ("h100_launch_562_kernels", False, 20 * US, 60 * US, 1e-4),
    ("h100_resnet_large_1956_kernels", False, 50 * US, 200 * US, 1e-4),
    ("h100_transformer_large_1296_kernels", False, 300 * US, 700 * US, 1e-2),
    ("h100_graph_840_kernels", False, 200 * US, 350 * US, 2.5e-2),
    # public ROCm captures (tb/data/kineto/README.md) on the AMD presets (docs/VALIDATION.md,
    # 'AMD captures'): back-to-back gaps of 1 ns, graph kernels of an assumed full wave
    ("mi210_gpu_only_562_kernels", False, 1.5 * US, 3 * US, 1e-3),
    ("mi300x_sglang_decode_graph_555_kernels", False, 5 * US, 10 * US, 1e-3),
    ("mi300x_vllm_decode_graph_425_kernels", False, 5 * US, 10 * US, 2e-3),
    ("mi300x_event_replay_29_kernels", False, 0.5 * US, 1 * US, 1e-4),
]


# The same captures replayed closed-loop (host.mode=closed, the default since the host
# model, trace format 1.10: each launch its captured CPU gap after the host thread's
# previous call returned, each synchronize returning when the replay has completed what
# it waited for). In-sample, the open loop replays the measured submit times, which the
# closed loop rebuilds from the program: where the model's GPU runs behind the capture
# before a synchronize, the host's later launches move with it and the error carries on
# (docs/VALIDATION.md, 'Closed loop'). Bounds on what it gives now, to catch a broken
# host. The V100 capture's, the open loop's since its blocking copies wait inside their
# calls for their stream (kineto2gdt: a held copy's doorbell early in its call), not
# on the CPU (before: +2.86 %, every early finish of the model's GPU lost to the host).
CLOSED_CASES = [
    # its blocking copies' calls end up to 1.06 us before the copy's recorded end, and
    # return 0 ns after it: the next call's gap counts from the copy's end, and the wait
    # returns then, before the model's completion signal (0.33 / 1.08 us and 0.43 / 1.20
    # us before each; the open loop's 0.012 / 1.043 now)
    ("a100_train_nccl_2700_kernels", False, 0.1 * US, 1.5 * US, 1e-4),
    # each of its 16 synchronizes after a pageable copy adds the preset's launch latency
    # error (0.75 us) to the open loop's start errors (docs/VALIDATION.md, 'Closed loop')
    ("a100_alexnet_79_kernels", False, 14 * US, 30 * US, 1e-4),
    ("mi250_minitoy_14_kernels", False, 1 * US, 2 * US, 5e-4),
    ("v100_train_9876_kernels", False, 1000 * US, 3000 * US, 1e-3),
    ("h100_launch_562_kernels", False, 40 * US, 60 * US, 1e-3),
    ("h100_resnet_large_1956_kernels", False, 50 * US, 200 * US, 1e-3),
    ("mi210_gpu_only_562_kernels", False, 1.5 * US, 3 * US, 1e-3),
    # its graph launch's 513 nodes after a 274 us host stall in the call are a host call
    # of their own; the timed wait counts from its barrier (kineto2gdt._host_calls,
    # place_barriers): 281 us before, 3.4 us now
    ("mi300x_sglang_decode_graph_555_kernels", False, 5 * US, 10 * US, 1e-3),
    ("mi300x_vllm_decode_graph_425_kernels", False, 5 * US, 10 * US, 2e-3),
]


# Closed loop with each capture's own calibration record (calibrate=1.0: the launch gaps
# and the idle launch latency pp.idle_launch_ns fitted to the whole capture): the
# AlexNet capture's 16 synchronizes each wait for a copy launched onto an idle stream,
# which the A100 preset starts 1.753 us after its doorbell and the capture 1.0 us after
# (12.8 / 27.5 us before the key, the open loop's 1.725 / 14.661 us with it).
CALIBRATED_CLOSED_CASES = [
    ("a100_alexnet_79_kernels", False, 2 * US, 16 * US, 1e-4),
    ("a100_train_nccl_2700_kernels", False, 0.1 * US, 1.5 * US, 1e-4),
    ("h100_resnet_1036_kernels", False, 0.1 * US, 0.5 * US, 1e-4),
]


def check(name, infer, med, p90, span, mode="open", calibrate=None):
    v = validate.validate(os.path.join(SHARED, name + ".json.gz"), sets=("host.mode=" + mode,),
                          gdsim=os.path.join(BUILD, "gdsim"), infer_waits=infer, calibrate=calibrate)
    label = "%s%s, %s loop%s" % (name, " --infer-waits" if infer else "", mode,
                                 ", calibrated" if calibrate is not None else "")
    assert v["kernels_capture"] == v["kernels_replayed"] and not v["missing"] and not v["extra"], (label, v)
    if name.startswith("mi"):
        assert v["occupancy_compared"] == 0, v   # ROCm records no occupancy estimate
    else:
        assert v["occupancy_compared"] == v["kernels_capture"] == v["occupancy_equal"], (label, v)
    assert v["start_err_median_ns"] <= med, (label, v["start_err_median_ns"])
    assert v["start_err_p90_ns"] <= p90, (label, v["start_err_p90_ns"])
    assert abs(v["span_rel_err"]) <= span, (label, v["span_rel_err"])
    out = io.StringIO()
    validate.report(v, out)
    return label, out.getvalue()


# --------------------------------------------------------------------------------------
# A small constructed capture (times in us, as Kineto writes them), streams 7 and 8 of
# device 0 (an A100's properties):
#
#   stream 7  K0 1000-1010  K1 1012-1022  C2 1024-1028  K3 1030-1040  K4 1041-1050
#             K5 1150-1160  K6 1240-1270  Y 1412-1422  K8 1452-1460  K9 1510-1520
#   stream 8  X 1400-1410 (no launch call in the capture)
#
# launch calls (end): K0 995, K1 998, C2 1000, K3 1002, K4 1038 (not queued: after
# 1050 - 5), K5 1040, K6 1205, record 1256, wait 1258 (Y waits for X: a cuda_sync
# 'Stream Wait Event'), Y 1260, K8 1301, K9 1303.
#
# The GPU is idle (all streams) for more than 50 us three times, and for 30 and 50 us:
#   1050-1150 (100 us): K5 was submitted (1040) and its predecessor K4 done: a stall;
#   1160-1240 (80 us): K6's launch call ended at 1205, after the idle began: the host;
#   1270-1400 (130 us): Y was submitted (1260) but waits for X, not yet run (and X's
#                       submission is unknown): waiting on another stream, no stall;
#   1422-1452 (30 us) and 1460-1510 (50 us, not more): ready, but not above 50 us.
# Queued kernels behind a kernel: K1 (gap 2 us), K5 (100 us, across the stall), Y
# (142 us), K8 (30 us), K9 (50 us); not K3 (behind a copy), K4 and K6 (not queued).

A100 = {"id": 0, "name": "NVIDIA A100-PG509-200", "totalGlobalMem": 42297524224, "computeMajor": 8,
        "computeMinor": 0, "maxThreadsPerBlock": 1024, "maxThreadsPerMultiprocessor": 2048, "regsPerBlock": 65536,
        "regsPerMultiprocessor": 65536, "warpSize": 32, "sharedMemPerBlock": 49152,
        "sharedMemPerMultiprocessor": 167936, "numSms": 108, "sharedMemPerBlockOptin": 166912}

# name, kind, stream, corr, ts, dur, launch call (ts, end) or None
OPS = [("K0", "K", 7, 1, 1000, 10, (990, 995)), ("K1", "K", 7, 2, 1012, 10, (996, 998)),
       ("C2", "C", 7, 3, 1024, 4, (999, 1000)), ("K3", "K", 7, 4, 1030, 10, (1001, 1002)),
       ("K4", "K", 7, 5, 1041, 9, (1036, 1038)), ("K5", "K", 7, 6, 1150, 10, (1039, 1040)),
       ("K6", "K", 7, 7, 1240, 30, (1200, 1205)), ("X", "K", 8, 11, 1400, 10, None),
       ("Y", "K", 7, 14, 1412, 10, (1259, 1260)), ("K8", "K", 7, 15, 1452, 8, (1300, 1301)),
       ("K9", "K", 7, 16, 1510, 10, (1302, 1303))]
# replayed first CTA = measured start + DELTA (ns), end likewise
DELTA = dict(K0=0, K1=500, K3=0, K4=0, K5=-99000, K6=-99000, X=-98000, Y=-98000, K8=-97750, K9=-97750)


def tiny_capture(path):
    ev = []
    for name, kind, stream, corr, ts, dur, launch in OPS:
        args = {"device": 0, "stream": stream, "correlation": corr}
        if kind == "K":
            args.update({"grid": [1, 1, 1], "block": [128, 1, 1], "registers per thread": 32, "shared memory": 0,
                         "est. achieved occupancy %": 0})
            ev.append({"ph": "X", "cat": "kernel", "name": "kernel_" + name, "pid": 0, "tid": stream, "ts": ts,
                       "dur": dur, "args": args})
        else:
            args["bytes"] = 4096
            ev.append({"ph": "X", "cat": "gpu_memcpy", "name": "Memcpy HtoD (Pageable -> Device)", "pid": 0,
                       "tid": stream, "ts": ts, "dur": dur, "args": args})
        if launch:
            ev.append({"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel" if kind == "K" else
                       "cudaMemcpyAsync", "pid": 100, "tid": 100, "ts": launch[0], "dur": launch[1] - launch[0],
                       "args": {"correlation": corr}})
    ev.append({"ph": "X", "cat": "cuda_runtime", "name": "cudaEventRecord", "pid": 100, "tid": 100, "ts": 1255,
               "dur": 1, "args": {"correlation": 12}})
    ev.append({"ph": "X", "cat": "cuda_runtime", "name": "cudaStreamWaitEvent", "pid": 100, "tid": 100, "ts": 1257,
               "dur": 1, "args": {"correlation": 13}})
    ev.append({"ph": "X", "cat": "cuda_sync", "name": "Stream Wait Event", "pid": 0, "tid": 7, "ts": 1257, "dur": 1,
               "args": {"cuda_sync_kind": "Stream Wait Event", "device": 0, "stream": 7, "wait_on_stream": 8,
                        "wait_on_cuda_event_record_corr_id": 12, "correlation": 13}})
    with open(path, "w") as f:
        json.dump({"deviceProperties": [A100], "traceEvents": ev}, f)


def rows_for(tl):
    """A replay's kernels-CSV rows: each kernel at its measured time + DELTA."""
    out = []
    for k in tl.kernels:
        d = DELTA[k["name"][len("kernel_"):]]
        out.append(dict(source_id=str(k["corr"]), measured_start_ns="%d.000" % k["ts"],
                        first_cta_ns="%d.000" % (k["ts"] + d), end_ns="%d.000" % (k["end"] + d),
                        kineto_est_occupancy_pct="0"))
    return out


def test_split_bookkeeping():
    assert validate.split_index(79, 0.5) == 40
    assert validate.split_index(2700, 0.5) == 1350
    assert validate.split_index(100, 0.55) == 55       # exact: not ceil(0.55 * 100) = ceil(55.00000000000001)
    assert validate.split_index(10, 0.3) == 3
    assert validate.split_index(10, 0.25) == 3
    assert validate.split_index(1, 0.5) == 1           # a single kernel: nothing held out
    assert validate.split_index(7, None) == 0
    for bad in (0, 1, 1.5, -0.5):
        try:
            validate.split_index(10, bad)
        except ValueError:
            continue
        raise AssertionError("split %s accepted" % bad)


def test_metrics(tmp):
    path = os.path.join(tmp, "tiny.json")
    tiny_capture(path)
    tl = validate.Timeline(path, 0, 50 * 1000)
    names = [k["name"][len("kernel_"):] for k in tl.kernels]
    assert names == ["K0", "K1", "K3", "K4", "K5", "K6", "X", "Y", "K8", "K9"], names

    # unexplained stalls: exactly the 100 us one before K5
    assert [(s["start_ns"], s["end_ns"], s["length_ns"], s["stream"], s["op"]) for s in tl.stalls] == [
        (1050000, 1150000, 100000, 7, "kernel_K5")], tl.stalls
    assert tl.idle_kinds == {"unexplained stall": 1, "host (nothing submitted yet)": 1,
                             "waiting on another stream": 1}, tl.idle_kinds
    y = [k for k in tl.kernels if k["name"] == "kernel_Y"][0]
    assert y["ready"] == 1410000, y        # X's end, through the recorded wait
    assert tl.stall_before(1149999) == 0 and tl.stall_before(1150000) == 100000
    # a lower threshold takes the 30 and 50 us idles as stalls too; a higher one none
    assert [s["length_ns"] for s in validate.Timeline(path, 0, 20 * 1000).stalls] == [100000, 30000, 50000]
    assert validate.Timeline(path, 0, 100 * 1000).stalls == []

    rows = rows_for(tl)
    v = validate.evaluate(tl, rows)
    assert v["evaluation"] == dict(mode="in-sample", split=None, kernels=10, first_index=0, evaluated=10,
                                   start_ns=1000000), v["evaluation"]
    assert not v["missing"] and not v["extra"] and v["occupancy_compared"] == v["occupancy_equal"] == 10, v
    # gap errors |DELTA(k) - DELTA(pred)|: K1 500, K5 99000, Y 1000, K8 250, K9 0
    assert v["gap_err_count"] == 5 and v["gap_err_not_replayed"] == 0, v
    assert (v["gap_err_median_ns"], v["gap_err_p90_ns"], v["gap_err_max_ns"]) == (500, 99000, 99000), v
    assert v["gap_err_over_1us"] == 1 and v["gap_err_across_stall"] == 1, v
    # the gaps' own spread: measured 2, 100, 142, 30, 50 us, median 50: |g - 50| = 0 20 48
    # 50 92 us; every kernel-name pair once: 0
    assert (v["gap_floor_median_ns"], v["gap_floor_p90_ns"]) == (48000, 92000), v
    assert (v["gap_floor_pair_median_ns"], v["gap_floor_pair_p90_ns"], v["gap_floor_pairs"]) == (0, 0, 5), v
    # |DELTA|: 0 0 0 500 97750 97750 98000 98000 99000 99000 (nearest rank: 5th, 9th)
    assert (v["start_err_median_ns"], v["start_err_p90_ns"], v["start_err_max_ns"]) == (97750, 99000, 99000), v
    # the stall taken out (from K5 on, 100 us earlier): 0 0 0 500 1000 1000 2000 2000 2250 2250
    assert (v["start_err_ex_stalls_median_ns"], v["start_err_ex_stalls_p90_ns"],
            v["start_err_ex_stalls_max_ns"]) == (1000, 2250, 2250), v
    assert (v["span_measured_ns"], v["span_replayed_ns"]) == (520000, 422250), v
    s = validate.stall_summary(tl, v["span_start_ns"], v["span_end_ns"], v["span_measured_ns"])
    assert (s["count"], s["total_ns"], s["whole_capture_count"]) == (1, 100000, 1), s
    assert abs(s["share"] - 100000 / 520000) < 1e-12 and s["largest"][0]["at_ns"] == 50000, s

    # --split 0.5: 10 kernels, the last 5 (K6 X Y K8 K9) evaluated
    h = validate.evaluate(tl, rows, split=0.5)
    assert h["evaluation"] == dict(mode="held-out", split=0.5, kernels=10, first_index=5, evaluated=5,
                                   start_ns=1240000), h["evaluation"]
    assert not h["missing"] and not h["extra"] and h["occupancy_compared"] == 10, h   # over all kernels
    assert h["gap_err_count"] == 3, h                                                 # Y, K8, K9
    assert (h["gap_err_median_ns"], h["gap_err_p90_ns"], h["gap_err_max_ns"]) == (250, 1000, 1000), h
    # held out 142, 30, 50 us: median 50, |g - 50| = 0 20 92 us
    assert (h["gap_floor_median_ns"], h["gap_floor_p90_ns"]) == (20000, 92000), h
    assert (h["start_err_median_ns"], h["start_err_p90_ns"], h["start_err_max_ns"]) == (98000, 99000, 99000), h
    assert (h["start_err_ex_stalls_median_ns"], h["start_err_ex_stalls_max_ns"]) == (2000, 2250), h
    assert (h["span_start_ns"], h["span_end_ns"], h["span_measured_ns"], h["span_replayed_ns"]) == (
        1240000, 1520000, 280000, 281250), h
    s = validate.stall_summary(tl, h["span_start_ns"], h["span_end_ns"], h["span_measured_ns"])
    assert (s["count"], s["total_ns"], s["whole_capture_count"]) == (0, 0, 1), s      # the stall is before
    # a kernel the replay lost: counted missing, its gaps not compared
    lost = [r for r in rows if r["source_id"] != "15"]                               # K8
    m = validate.evaluate(tl, lost)
    assert m["missing"] == 1 and m["gap_err_count"] == 3 and m["gap_err_not_replayed"] == 2, m

    # --queued-us: with 0 us K4 is queued too (launch ended 3 us before K3's end)
    q = validate.evaluate(tl, rows, queued_ns=0)
    assert q["gap_err_count"] == 6, q

    # the whole way through gdsim: every kernel once, the split's kernels, the stall
    gdsim = os.path.join(BUILD, "gdsim")
    with contextlib.redirect_stdout(io.StringIO()):
        r = validate.validate(path, gdsim=gdsim, calibrate=None, split=0.5)
    assert r["kernels_capture"] == r["kernels_replayed"] == 10 and not r["missing"] and not r["extra"], r
    assert r["occupancy_compared"] == r["occupancy_equal"] == 10, r
    assert r["evaluation"]["first_index"] == 5 and r["evaluation"]["evaluated"] == 5, r
    assert r["gap_err_count"] == 3 and r["stalls"]["whole_capture_count"] == 1, r
    out = io.StringIO()
    validate.report(r, out)
    text = out.getvalue()
    assert "held-out second part (split 0.5): kernels 5-9 of 10" in text and "preset alone" in text, text
    assert "unexplained stalls      0 " in text and "whole capture 1," in text, text
    if validate.convert_has_calibrate():
        c = validate.validate(path, gdsim=gdsim, calibrate=1.0, beside=True)
        assert c["calibrate"] == 1.0 and c["preset_alone"]["calibrate"] is None, c
        assert "IN-SAMPLE" in validate.describe(c), validate.describe(c)
        assert c["stalls"]["count"] == 1 and c["stalls"]["largest"][0]["op"] == "kernel_K5", c["stalls"]
    else:
        try:
            validate.validate(path, gdsim=gdsim, calibrate=1.0)
        except validate.kineto2gdt.ConvertError as e:
            assert "no calibrate parameter" in str(e), e
        else:
            raise AssertionError("calibration without kineto2gdt support accepted")


# Held out (--split 0.5, calibrated on the first half): gap error median and p90 (ns),
# |span error| (fraction), for the captures with queued kernels (docs/VALIDATION.md,
# 'Launch gaps, in-sample and held out'): issue 15's bounds (0.5 us, 3 us, 1 %), or
# where the held-out gaps' own spread is wider than that (V100 training: whole-
# microsecond timestamps, stream-launched gaps spread 2-9 us that nothing in the
# capture explains; one best value per launch kind fitted to the held-out gaps
# themselves leaves 1.000 / 4.000 us) at most FLOOR_SLACK above that spread.
HELD_OUT_BOUNDS = {
    "a100_train_nccl_2700_kernels": (0.5 * US, 3 * US, 0.01),
    "a100_alexnet_79_kernels": (0.5 * US, 3 * US, 0.01),
    "v100_train_9876_kernels": (0.5 * US, 3 * US, 0.01),
    # ROCm: back-to-back gaps of a few ns replayed within 50 ns (issue 43)
    "mi210_gpu_only_562_kernels": (0.05 * US, 0.05 * US, 0.01),
    "mi300x_sglang_decode_graph_555_kernels": (0.05 * US, 0.05 * US, 0.01),
    "mi300x_vllm_decode_graph_425_kernels": (0.05 * US, 0.05 * US, 0.01),
}
FLOOR_SLACK = 0.05 * US


def held_out(name):
    """The figures of the held-out second half (--split 0.5), calibrated on the first
    half, with the preset alone beside; bounded where HELD_OUT_BOUNDS says."""
    v = validate.validate(os.path.join(SHARED, name + ".json.gz"), gdsim=os.path.join(BUILD, "gdsim"),
                          calibrate=0.5, split=0.5, beside=True, sets=("host.mode=open",))
    assert v["kernels_capture"] == v["kernels_replayed"] and not v["missing"] and not v["extra"], (name, v)
    if not name.startswith("mi"):   # (ROCm records no occupancy estimate)
        assert v["occupancy_compared"] == v["kernels_capture"] == v["occupancy_equal"], (name, v)
    if name in HELD_OUT_BOUNDS:
        med, p90, span = HELD_OUT_BOUNDS[name]
        assert v["gap_err_count"] > 0, (name, "no queued kernels held out")
        assert v["gap_err_median_ns"] <= max(med, v["gap_floor_median_ns"] + FLOOR_SLACK), (
            name, v["gap_err_median_ns"], v["gap_floor_median_ns"])
        assert v["gap_err_p90_ns"] <= max(p90, v["gap_floor_p90_ns"] + FLOOR_SLACK), (
            name, v["gap_err_p90_ns"], v["gap_floor_p90_ns"])
        assert v["evaluation"].get("evaluated_in_calibration") == 0, (name, v["evaluation"])
        assert abs(v["span_rel_err"]) <= span, (name, v["span_rel_err"])
    out = io.StringIO()
    validate.report(v, out)
    return out.getvalue()


# The bounds report against a what-if (docs/VALIDATION.md, 'What bounds each capture'):
# kernels twice as fast (sm.cta_time_scale=0.5), closed loop. The saving never exceeds
# what the report says a faster GPU can give (the span less the host floor); GPU-bound
# captures save most of their kernels' half, host-bound ones nearly nothing.
# capture: (verdict, least and most saving, as fractions of the span)
SENSITIVITY = {
    "h100_graph_840_kernels": ("GPU", 0.40, 0.50),
    "h100_transformer_large_1296_kernels": ("GPU", 0.05, 0.09),
    "h100_resnet_large_1956_kernels": ("host", 0.03, 0.06),
    "h100_resnet_1036_kernels": ("host", 0.0, 0.001),
    "a100_train_nccl_2700_kernels": ("host", 0.0, 0.001),
}


def test_bounds_predict_what_if(tmp):
    gd = os.path.join(BUILD, "gdsim")
    for name, (verdict, least, most) in sorted(SENSITIVITY.items()):
        trace = os.path.join(tmp, name + ".gdt.gz")
        validate.kineto2gdt.convert(os.path.join(SHARED, name + ".json.gz"), trace, log=io.StringIO())
        spans = []
        for scale in ("1", "0.5"):  # (the CLI: the binding would need a sanitizer's runtime preloaded)
            out = os.path.join(tmp, "bounds.json")
            subprocess.run([gd, "replay", trace, "--quiet", "--no-progress", "--set", "sm.cta_time_scale=" + scale,
                            "--summary-json", out], check=True)
            with open(out) as f:
                b = json.load(f)["bounds"]
            spans.append(b["span_us"])
            if scale == "1":
                bound = b
        b = bound
        saving = (spans[0] - spans[1]) / spans[0]
        can = (b["span_us"] - b["host_floor_us"]) / b["span_us"]
        assert b["verdict"] == verdict, (name, b)
        assert saving <= can + 1e-9, (name, "saved %.4f, the report said at most %.4f" % (saving, can))
        assert least <= saving <= most, (name, saving)
        print("ok   %s: %s-bound, kernels twice as fast save %.2f %% (at most %.2f %%, the report said)" % (
            name, verdict, 100 * saving, 100 * can))


def test_exit_status():
    """validate.py exits 1, after its report, when the replay did not run every kernel of
    the capture once (its figures would compare different work)."""
    real, real_report = validate.validate, validate.report
    try:
        for got, status in [(dict(kernels_capture=5, kernels_replayed=0, missing=5, extra=0), 1),
                            (dict(kernels_capture=5, kernels_replayed=5, missing=1, extra=1), 1),
                            (dict(kernels_capture=5, kernels_replayed=5, missing=0, extra=0), 0)]:
            validate.validate = lambda *a, **k: dict(got, converter_report="")
            validate.report = lambda v, out=None: None
            err = io.StringIO()
            with contextlib.redirect_stderr(err):
                rc = validate.main(["capture.json"])
            assert rc == status, (got, rc)
            assert (status == 0) == (err.getvalue() == ""), err.getvalue()
            if status:
                assert err.getvalue().startswith("validate: error: %d kernel(s) of the capture replayed of 5" %
                                                 got["kernels_replayed"]), err.getvalue()
    finally:
        validate.validate, validate.report = real, real_report


def main():
    tmp = tempfile.mkdtemp(prefix="test-validate-")
    test_exit_status()
    print("ok   exit status when kernels are missing")
    try:
        test_split_bookkeeping()
        print("ok   split bookkeeping")
        test_metrics(tmp)
        print("ok   metrics on a constructed capture (gap error, stalls, start error without them, split)")
        test_bounds_predict_what_if(tmp)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    for case in CASES + [c + ("closed",) for c in CLOSED_CASES] + [c + ("closed", 1.0)
                                                                   for c in CALIBRATED_CLOSED_CASES]:
        with contextlib.redirect_stdout(io.StringIO()):
            label, text = check(*case)
        print("ok  ", label)
        print(text, end="")
    print("validate: %d captures open-loop, %d closed-loop and %d closed-loop calibrated within their bounds" % (
        len(CASES), len(CLOSED_CASES), len(CALIBRATED_CLOSED_CASES)))
    for name in sorted({c[0] for c in CASES}):
        print("held out (--split 0.5)%s:" % (" within its bounds" if name in HELD_OUT_BOUNDS else ""))
        print(held_out(name), end="")


if __name__ == "__main__":
    main()
