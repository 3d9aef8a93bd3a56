"""scripts/admission_pairs.py: the pairs it finds and the two admission rules'
predictions, exact on a constructed capture; the figures docs/VALIDATION.md quotes for
the shared AlexNet and V100 captures; a capture without kernels is an error naming it.
Usage: python3 tb/test_admission_pairs.py BUILD_DIR"""
import contextlib
import gzip
import io
import json
import os
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "scripts"))
import admission_pairs  # noqa: E402

SHARED = os.path.join(HERE, "data", "kineto")
_TMP = tempfile.TemporaryDirectory()  # removed at exit, whether the test passes or fails
TMP = _TMP.name


def capture(name):
    return os.path.join(SHARED, name + ".json.gz")


def synthetic(events):
    src = json.load(gzip.open(capture("a100_triton_1_kernel")))
    path = os.path.join(TMP, "pairs.json")
    json.dump(dict(deviceProperties=src["deviceProperties"], traceEvents=events), open(path, "w"))
    return path


def kernel(stream, corr, ts, dur, grid=1, threads=128, regs=16, name="k"):
    return dict(ph="X", cat="kernel", name=name, pid=0, tid=stream, ts=ts, dur=dur,
                args={"device": 0, "stream": stream, "correlation": corr, "registers per thread": regs,
                      "shared memory": 0, "grid": [grid, 1, 1], "block": [threads, 1, 1]})


def launch(corr, ts, dur=1):
    return dict(ph="X", cat="cuda_runtime", name="cudaLaunchKernel", pid=1, tid=1, ts=ts, dur=dur,
                args={"correlation": corr})


def run(argv):
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        rc = admission_pairs.main(argv)
    return rc, out.getvalue(), err.getvalue()


def test_constructed():
    """A100 (108 SMs). A: stream 7, 648 CTAs of 512 threads x 64 registers (2 per SM,
    216 slots: 3 waves), 100..160 us, so 20 us per CTA and its last wave starts at 140.
    B (stream 20, 1 CTA) ready at 111 (launch call ends 110, latency 1 us), started 141:
    inorder predicts 140, channels the first wave end after 111, 120. C (stream 21)
    ready at 145, after A's last wave started: both rules predict 145. Left out: E (one
    wave) and F, which started beside it; D after A on A's own stream; an NCCL kernel
    running beside A. The idle-stream latencies are 1, 31, 1, 1, 3 and 1 (the NCCL kernel) us: median 1."""
    nccl = "ncclKernel_AllReduce_RING_LL_Sum_float(ncclWorkElem)"
    ev = [launch(1, 98), kernel(7, 1, 100, 60, grid=648, threads=512, regs=64, name="A"),
          launch(2, 109), kernel(20, 2, 141, 5, name="B"),
          launch(3, 143), kernel(21, 3, 145, 5, name="C"),
          launch(4, 150), kernel(7, 4, 162, 5, name="D"),
          launch(5, 198), kernel(22, 5, 200, 10, grid=100, name="E"),
          launch(6, 201), kernel(23, 6, 205, 2, name="F"),
          launch(7, 99), kernel(9, 7, 101, 20, grid=2, threads=544, regs=96, name=nccl)]
    path = synthetic(ev)
    found, lead = admission_pairs.pairs(path)
    assert lead == 1000, lead
    got = [(p["a_kernel"]["name"], p["b_kernel"]["name"], p["ready"], p["inorder"], p["channels"]) for p in found]
    assert got == [("A", "B", 111000, 140000, 120000), ("A", "C", 145000, 145000, 145000)], got
    rc, out, err = run([path, "--pairs"])
    assert rc == 0, err
    lines = out.splitlines()
    assert lines[1] == "0\t2\t3\t20.00\t11.0\t41.0\t40.0\t20.0\tA / B", lines
    assert lines[2] == "0\t3\t3\t20.00\t45.0\t45.0\t45.0\t45.0\tA / C", lines
    assert "2 pair(s)" in lines[3] and "latency 1.00 µs" in lines[3], lines
    assert lines[4] == "  inorder  |measured - predicted| start: median 0.5 µs, p90 1.0 µs, max 1.0 µs; " \
                       "within 2 µs: 2", lines
    assert lines[5] == "  channels |measured - predicted| start: median 10.5 µs, p90 21.0 µs, max 21.0 µs; " \
                       "within 2 µs: 1", lines


def test_shared_captures():
    """The figures docs/VALIDATION.md gives (admission rule the GPUs followed)."""
    rc, out, _ = run([capture("a100_alexnet_79_kernels"), "--pairs"])
    assert rc == 0
    lines = out.splitlines()
    assert lines[1].startswith("6\t7\t4\t16.00\t34.0\t37.0\t48.1\t48.1\t"), lines
    assert lines[2].startswith("45\t46\t4\t18.25\t17.0\t38.0\t54.8\t18.2\t"), lines
    rc, out, _ = run([capture("v100_train_9876_kernels")])
    assert rc == 0
    lines = out.splitlines()
    assert "86 pair(s)" in lines[0] and "latency 8.00 µs" in lines[0], lines
    assert lines[1] == "  inorder  |measured - predicted| start: median 5.8 µs, p90 45.8 µs, max 608.5 µs; " \
                       "within 2 µs: 13", lines
    assert lines[2] == "  channels |measured - predicted| start: median 16.1 µs, p90 630.5 µs, max 8475.6 µs; " \
                       "within 2 µs: 3", lines
    for name in ("a100_train_nccl_2700_kernels", "mi250_minitoy_14_kernels", "a100_triton_1_kernel"):
        rc, out, _ = run([capture(name)])
        assert rc == 0 and ": 0 pair(s)" in out, (name, out)


def test_errors():
    path = synthetic([launch(1, 0)])
    rc, out, err = run([path])
    assert rc == 1 and err == "admission_pairs: %s: no kernel events (cat 'kernel') in the trace\n" % path, err
    missing = os.path.join(TMP, "missing.json")
    rc, out, err = run([missing])
    assert rc == 1 and missing in err, err


if __name__ == "__main__":
    test_constructed()
    test_shared_captures()
    test_errors()
    print("test_admission_pairs: 3 tests passed")
