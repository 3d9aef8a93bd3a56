"""scripts/kineto2gdt.py on the small shared captures (../shared/data/kineto): what
each kernel becomes, exact to the nanosecond; every trace event accounted for; AMD
grids; errors; determinism; the streaming JSON reader at awkward chunk sizes.
Usage: python3 tb/test_kineto.py BUILD_DIR"""
import contextlib
import csv
import gzip
import io
import json
import os
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "scripts"))
import gdtrace  # noqa: E402
import kineto2gdt  # noqa: E402

BUILD = sys.argv[1] if len(sys.argv) > 1 else "build"
SHARED = os.path.join(HERE, "..", "..", "shared", "data", "kineto")
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
    r = subprocess.run([os.path.join(BUILD, "gdsim"), "replay", path, "--quiet", "--kernels-csv", out],
                       capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    return list(csv.DictReader(open(out)))


def accounted(res):
    """Every trace event is a converted kernel, a launch call used for one, or reported."""
    assert res["events"] == res["kernels"] + res["launches_used"] + sum(res["skipped"].values()), res


def test_triton():
    out, res, log = convert("a100_triton_1_kernel")
    d = dispatches(out)
    assert len(d) == 1
    k = d[0]
    # cuLaunchKernel ends at 2413669097446.934 us: the submit time
    assert k["submit_ns"] == 2413669097446934, k
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
    accounted(res)


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


def test_deterministic():
    a, _, _ = convert("mi250_minitoy_14_kernels")
    first = open(a, "rb").read()
    b, _, _ = convert("mi250_minitoy_14_kernels")
    assert open(b, "rb").read() == first


def main():
    tests = [v for k, v in sorted(globals().items()) if k.startswith("test_")]
    for t in tests:
        with contextlib.redirect_stdout(io.StringIO()):
            t()
        print("ok  ", t.__name__)
    print("kineto2gdt: %d tests ok" % len(tests))


if __name__ == "__main__":
    main()
