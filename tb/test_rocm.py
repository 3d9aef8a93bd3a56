"""scripts/kineto2gdt.py on constructed ROCm-style captures (docs/KINETO.md, 'AMD ROCm
captures'): GPUs named by HSA agent index, grids in work-items, graph-launched kernels
and kernels without a launch event (shapes from same-name kernels or a stated full
wave), the host/GPU clock offset of Kineto's ROCm back end, the 2021 category names,
an empty device name; each with exact expected outputs, every kernel replayed once.
Usage: python3 tb/test_rocm.py BUILD_DIR"""
import contextlib
import csv
import hashlib
import io
import json
import os
import shutil
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "scripts"))
import gdtrace  # noqa: E402
import kineto2gdt  # noqa: E402

BUILD = sys.argv[1] if len(sys.argv) > 1 else "build"
TMP = tempfile.mkdtemp()

# An MI300X as Kineto's ROCm back end describes it (the public MI300X captures of
# docs/VALIDATION.md): one entry, id 0.
MI300X = {"id": 0, "name": "AMD Instinct MI300X", "totalGlobalMem": 206141652992, "computeMajor": 9,
          "computeMinor": 4, "maxThreadsPerBlock": 1024, "maxThreadsPerMultiprocessor": 2048, "regsPerBlock": 65536,
          "warpSize": 64, "sharedMemPerBlock": 65536, "numSms": 304, "maxSharedMemoryPerMultiProcessor": 65536}
DEV = 2   # the GPU's HSA agent index behind two CPU agents


def kernel(corr, ts, dur, name="k", grid=None, block=None, stream=0, kind="Dispatch Kernel", cat="kernel"):
    args = {"device": DEV, "stream": stream, "correlation": corr, "kind": kind}
    if grid is not None:
        args.update(grid=grid, block=block)
    return dict(ph="X", cat=cat, name=name, pid=DEV, tid=stream, ts=ts, dur=dur, args=args)


def launch(corr, ts, dur=2, api="hipLaunchKernel", grid=None, block=None, cat="cuda_runtime"):
    args = {"correlation": corr}
    if grid is not None:
        args.update(grid=grid, block=block)
    return dict(ph="X", cat=cat, name=api, pid=100, tid=100, ts=ts, dur=dur, args=args)


def capture(events, props=(MI300X,), name="rocm.json", **top):
    path = os.path.join(TMP, name)
    os.makedirs(os.path.dirname(path), exist_ok=True)
    doc = dict(schemaVersion=1, deviceProperties=list(props), roctracer_version=4.1, hip_runtime_version=60443483,
               traceEvents=events)
    doc.update(top)
    json.dump(doc, open(path, "w"))
    return path


def convert(path, **kw):
    out = path.replace(".json", ".gdt.gz")
    log = io.StringIO()
    res = kineto2gdt.convert(path, out, log=log, **kw)
    return out, res, log.getvalue()


def dispatches(path):
    return [r for r in gdtrace.read(path) if r["type"] == gdtrace.REC_DISPATCH]


def replay_rows(path):
    out = path + ".csv"
    r = subprocess.run([os.path.join(BUILD, "gdsim"), "replay", path, "--quiet", "--absolute-times",
                        "--kernels-csv", out], capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    return list(csv.DictReader(open(out)))


def eager(n=3, t0=100, api="hipLaunchKernel", grid=(64, 1, 1), block=(256, 1, 1), name="k"):
    """n kernels, each launched 10 us before it starts, 20 us apart, on an idle GPU."""
    ev = []
    for i in range(n):
        ts = t0 + 20 * i
        ev += [launch(i + 1, ts - 12, api=api, grid=list(grid), block=list(block)),
               kernel(i + 1, ts, 5, name=name, grid=list(grid), block=list(block))]
    return ev


def test_agent_index_one_entry():
    """Kernels on device 2, deviceProperties one entry of id 0: the one GPU (refused
    before, 'no deviceProperties'), said in the log."""
    out, res, log = convert(capture(eager()))
    assert res["device"].sms == 304 and res["device"].warp_size == 64, res["device"]
    assert "device 2 is the capture's one GPU" in log, log
    assert len(dispatches(out)) == 3 and len(replay_rows(out)) == 3


def test_agent_index_several_entries():
    """Eight identical entries: any describes device 2 (the agent index of GPU 0). Two
    that differ: the entry of that id is taken, and the log says the mapping is
    uncertain; without one of that id, the device is inferred, and with no 'blocks
    per SM' (ROCm's kernels have none) refused with a message naming the device."""
    same = [dict(MI300X, id=i) for i in range(8)]
    _, res, log = convert(capture(eager(), same))
    assert res["device"].sms == 304 and "agent index" not in log
    differ = [dict(MI300X, id=0), dict(MI300X, id=1, numSms=228), dict(MI300X, id=2, numSms=80)]
    _, res, log = convert(capture(eager(), differ))
    assert res["device"].sms == 80 and "entries differ: the one with id 2 is taken" in log, log
    try:
        convert(capture(eager(), differ[:2]))
        raise AssertionError("converted")
    except kineto2gdt.ConvertError as e:
        assert "no deviceProperties of the device" in str(e), e


def test_work_item_grids():
    """hipExtModuleLaunchKernel's grid is in work-items on the launch event and, from
    ROCm 6.4, on the kernel event: 65536 work-items of 256 are 256 workgroups (65,536
    before); a size not a multiple of the block is rounded up (784 -> 4, as AQL's
    partial workgroups); hipModuleLaunchKernel's grid is in blocks (Triton's attn_fwd)."""
    ev = [launch(1, 88, api="hipExtModuleLaunchKernel", grid=[65536, 1, 1], block=[256, 1, 1]),
          kernel(1, 100, 5, name="Cijk_gemm", grid=[65536, 1, 1], block=[256, 1, 1]),
          launch(2, 108, api="hipExtModuleLaunchKernel", grid=[784, 1, 64], block=[256, 1, 1]),
          kernel(2, 120, 5, name="transpose", grid=[784, 1, 64], block=[256, 1, 1]),
          launch(3, 128, api="hipModuleLaunchKernel", grid=[2, 8, 1], block=[256, 1, 1]),
          kernel(3, 140, 5, name="attn_fwd", grid=[2, 8, 1], block=[256, 1, 1]),
          launch(4, 148, api="hipExtModuleLaunchKernel", grid=[512, 1, 1], block=[256, 1, 1]),
          kernel(4, 160, 5, name="old_rocm")]   # (before 6.4: the shape on the launch event only)
    out, res, _ = convert(capture(ev))
    assert [d["grid"] for d in dispatches(out)] == [(256, 1, 1), (4, 1, 64), (2, 8, 1), (2, 1, 1)]
    assert [d["grid_items"] for d in dispatches(out)] == [(65536, 1, 1), (1024, 1, 64), (512, 8, 1), (512, 1, 1)]
    assert len(replay_rows(out)) == 4


def test_graph_kernels():
    """A hipGraphLaunch's kernels carry its correlation id and no grid or block ('Dispatch
    Task'). One whose name an eager kernel also has takes the shape of the same-name
    kernel nearest in duration (two mates, 5 us with 64 workgroups and 50 us with 640:
    the 40 us one takes 640); one without takes a full wave (304 workgroups of 256). All
    are replayed, once each, graph-launched; the log counts both assumptions."""
    ev = eager(1, name="add") + [launch(5, 150, api="hipLaunchKernel", grid=[640, 1, 1], block=[256, 1, 1]),
                                 kernel(5, 200, 50, name="add", grid=[640, 1, 1], block=[256, 1, 1]),
                                 launch(9, 300, dur=10, api="hipGraphLaunch"),
                                 kernel(9, 320, 40, name="add", kind="Dispatch Task"),
                                 kernel(9, 365, 7, name="triton_poi_fused_0", kind="Dispatch Task")]
    out, res, log = convert(capture(ev))
    d = dispatches(out)
    assert [(x["grid"], x["block"], x["graph"]) for x in d] == [
        ((64, 1, 1), (256, 1, 1), False), ((640, 1, 1), (256, 1, 1), False),
        ((640, 1, 1), (256, 1, 1), True), ((304, 1, 1), (256, 1, 1), True)], d
    assert res["assumed"][("graph-launched kernel without grid and block",
                           "the shape of its same-name kernel nearest in measured duration")] == 1
    assert res["assumed"][("graph-launched kernel without grid and block, and no same-name kernel with them",
                           "a full wave: one workgroup of 256 work-items per SM/CU, running its measured "
                           "duration")] == 1
    assert not res["skipped"].get(("kernel", "no grid and block on the kernel event or its launch event"))
    rows = replay_rows(out)
    assert len(rows) == 4 and sorted(int(r["source_id"]) for r in rows) == [1, 5, 9, 9]


def test_kernel_without_launch_event():
    """A kernel launched before the profiler's window has neither launch event nor shape
    on ROCm: its same-name kernel's shape; none dropped."""
    ev = eager(2, name="copy") + [kernel(77, 400, 5, name="copy")]
    out, res, log = convert(capture(ev))
    assert [x["grid"] for x in dispatches(out)] == [(64, 1, 1)] * 3
    assert res["assumed"][("kernel without a launch event without grid and block",
                           "the shape of its same-name kernel nearest in measured duration")] == 1
    assert len(replay_rows(out)) == 3


def test_clock_offset():
    """Every kernel starts 7 ms after its launch call returned, even onto an idle GPU:
    the GPU clock runs 7 ms - 5 us behind the host's (Kineto's ROCm back end). The
    host's calls are moved that much later, so the packets are submitted 5 us before
    they start, and the replay starts each kernel within a few us of its measured
    start (the mi300x preset's idle launch takes 4.918 us of the 5: 82 ns early); an
    offset under 1 ms is a launch latency and left alone."""
    ev = []
    for i in range(3):
        ts = 10000 + 50 * i
        ev += [launch(i + 1, ts - 7000 - 2, dur=2), kernel(i + 1, ts, 5, grid=[64, 1, 1], block=[256, 1, 1])]
    out, res, log = convert(capture(ev))
    assert "GPU clock runs 6.995 ms behind its host clock" in log, log
    d = dispatches(out)
    # submit: the call's end moved by 6,995 us, 5 us before the kernel's start
    assert [x["info"][2] - x["submit_ns"] for x in d] == [5000] * 3, [(x["submit_ns"], x["info"]) for x in d]
    rows = replay_rows(out)
    starts = [float(r["first_cta_ns"]) for r in rows]
    measured = [float(r["measured_start_ns"]) for r in rows]
    assert all(abs(s - m) < 10000 for s, m in zip(starts, measured)), (starts, measured)
    # a device synchronize that began before the last kernel ended and returned 3 us after
    # it, in the capture's own times: the clocks agree (a GPU clock 7 ms behind would have
    # it return 7 ms early): no correction, said
    sync = launch(90, 10098, dur=10, api="hipDeviceSynchronize")
    out, res, log = convert(capture(ev + [sync]))
    assert "GPU clock runs" not in log and "returned 0.003 ms after the work it waited for ended: the clocks " \
        "agree" in log, log
    assert [x["info"][2] - x["submit_ns"] for x in dispatches(out)] == [7000000] * 3
    for e in ev:          # 0.9 ms: a launch latency
        if e["cat"] == "cuda_runtime":
            e["ts"] += 6100
    out, res, log = convert(capture(ev))
    assert "GPU clock" not in log
    assert [x["info"][2] - x["submit_ns"] for x in dispatches(out)] == [900000] * 3


def test_idle_latency_few_samples():
    """The idle launch latency from fewer than 3 launches onto an idle stream is at most
    the 5 us default (one packet of a vLLM capture started 547 us after its call); from 3
    or more, their median (10 us here: each kernel starts 10 us after its call ended)."""
    _, res, log = convert(capture(eager(2)))
    assert "L = 5000 ns: the default, as the median is more and comes from fewer than 3: 2 packet(s)" in log, log
    _, res, log = convert(capture(eager(3)))
    assert "L = 10000 ns: the median launch-to-start time of the 3 packet(s)" in log, log


def test_categories_2021():
    """Kineto before PyTorch 1.10 named the categories Kernel, Runtime, Memcpy, Memset:
    the same conversion, byte for byte (refused before: 'no kernel events')."""
    ev = eager(2) + [launch(20, 150, api="hipMemcpyAsync"),
                     dict(ph="X", cat="gpu_memcpy", name="Memcpy HtoD", pid=DEV, tid=0, ts=160, dur=3,
                          args={"device": DEV, "stream": 0, "correlation": 20, "bytes": 4096, "kind": "HtoD"})]
    a, _, _ = convert(capture(ev, name="new/rocm.json"))
    old = json.loads(json.dumps(ev))
    for e in old:
        e["cat"] = {"kernel": "Kernel", "cuda_runtime": "Runtime", "gpu_memcpy": "Memcpy"}[e["cat"]]
    b, _, _ = convert(capture(old, name="old/rocm.json"))
    assert open(a, "rb").read() == open(b, "rb").read()


def test_empty_device_name():
    """vLLM's ROCm captures have an empty name: one from the architecture and CU count."""
    out, res, _ = convert(capture(eager(), [dict(MI300X, name="")]))
    assert res["device"].name == "AMD gfx9.4 GPU, 304 CUs (deviceProperties give no name)", res["device"].name


def test_bad_inputs():
    """Bad ROCm-specific input ends in one ConvertError naming the field."""
    for props, expect in ((["x"], "deviceProperties[0] is not an object"),
                          ([dict(MI300X, numSms="304")], "'numSms' is not an integer"),
                          ([dict(MI300X, name=7)], "'name' is not a string")):
        try:
            convert(capture(eager(), props))
            raise AssertionError("converted: %s" % props)
        except kineto2gdt.ConvertError as e:
            assert expect in str(e), (expect, str(e))


# Public ROCm captures shipped in tb/data/kineto (README.md there: sources, MIT licences).
PUBLIC = {
    "mi210_gpu_only_562_kernels": "0c9c627bcefe7365e6595ff9f86594e07553820db6a268c09c369e25fe47b97a",
    "mi300x_sglang_decode_graph_555_kernels": "6bafad1e64aa49e71793cb45fb3ab84fa93f9f018c51b18a86508e7ea6de350e",
    "mi300x_vllm_decode_graph_425_kernels": "da0a9ffe51da7b5cc0ece37be5708c4c002a2f89e2839bd2bad00ab8d7e6f8c5",
    "mi300x_event_replay_29_kernels": "0d157aa3645710d0561e3a567ba7f08305000e8a99061e22d4b6f799a9b28c5d",
}


def public(name):
    path = os.path.join(HERE, "data", "kineto", name + ".json.gz")
    assert hashlib.sha256(open(path, "rb").read()).hexdigest() == PUBLIC[name], name
    out = os.path.join(TMP, name + ".gdt.gz")
    log = io.StringIO()
    res = kineto2gdt.convert(path, out, log=log)
    rows = replay_rows(out)
    assert len(rows) == res["kernels"] == sum(1 for k in res["capture_kernels"]), (name, len(rows), res["kernels"])
    # every trace event converted, used or reported once (a host wait the host model
    # reported was also counted as used before)
    assert res["events"] == (res["kernels"] + res["commands"] + res["barriers"] + res["launches_used"] +
                             sum(res["skipped"].values())), (name, res)
    return out, res, log.getvalue()


def test_public_captures():
    """The shipped public ROCm captures convert whole (each was refused or lost kernels
    before: docs/VALIDATION.md, 'AMD captures'), every kernel replayed once, each rule
    where its evidence is: the MI210's work-item grids (SubTensorOpWithScalar1d: 65,536
    work-items of 256, 256 workgroups) and 1 ns gaps; the SGLang capture's device 9 with
    one deviceProperties entry, 544 graph kernels of a full wave and one timed wait; the
    vLLM capture's 7.279 ms clock offset, empty device name and capped launch latency;
    the event replay's 9 kernels without launch event shaped by their same-name ones, and
    the device synchronize that says its clocks agree."""
    out, res, log = public("mi210_gpu_only_562_kernels")
    sub = [d for d in dispatches(out) if d["grid_items"] == (65536, 1, 1)]
    assert sub and all(d["grid"] == (256, 1, 1) for d in sub), len(sub)
    out, res, log = public("mi300x_sglang_decode_graph_555_kernels")
    assert "device 9 is the capture's one GPU" in log and res["device"].sms == 304
    assert res["assumed"][("graph-launched kernel without grid and block, and no same-name kernel with them",
                           "a full wave: one workgroup of 256 work-items per SM/CU, running its measured "
                           "duration")] == 544
    assert [r["type"] for r in gdtrace.read(out)].count(gdtrace.REC_NONKERNEL) == 3 + 1   # 3 copies, 1 timed wait
    out, res, log = public("mi300x_vllm_decode_graph_425_kernels")
    assert "GPU clock runs 7.279 ms behind its host clock" in log, log
    assert res["device"].name == "AMD gfx9.4 GPU, 304 CUs (deviceProperties give no name)"
    assert "L = 5000 ns: the default" in log
    out, res, log = public("mi300x_event_replay_29_kernels")
    assert res["assumed"][("kernel without a launch event without grid and block",
                           "the shape of its same-name kernel nearest in measured duration")] == 9
    assert "the clocks agree" in log and "GPU clock runs" not in log


def test_mutated():
    """Seeded mutations of a ROCm capture with every rule above in play (agent-index
    device, work-item grids, graph kernels, a kernel without launch, clock offset): each
    converts or ends in a ConvertError, never another exception."""
    import random
    base = (eager(2, name="add", api="hipExtModuleLaunchKernel", grid=(16384, 1, 1)) +
            [launch(9, 300, dur=10, api="hipGraphLaunch"), kernel(9, 320, 40, name="add", kind="Dispatch Task"),
             kernel(9, 365, 7, name="other", kind="Dispatch Task"), kernel(50, 400, 3, name="add")])
    values = [None, "x", -1, 0, [1], [1, 2, 3], [0, 1, 1], {}, 2 ** 70, 1.5, True, "hipGraphLaunch"]
    rng = random.Random(43)
    outcomes = {"converted": 0, "refused": 0}
    for i in range(150):
        ev = json.loads(json.dumps(base))
        props = [dict(MI300X)]
        for _ in range(rng.randint(1, 3)):
            target = rng.choice(ev + props)
            d = target["args"] if isinstance(target.get("args"), dict) and target["args"] and \
                rng.random() < 0.7 else target
            if not d:
                continue
            key = rng.choice(sorted(d))
            if rng.random() < 0.3:
                del d[key]
            else:
                d[key] = rng.choice(values)
        try:
            convert(capture(ev, props, name="mut/rocm.json"))
            outcomes["converted"] += 1
        except kineto2gdt.ConvertError as e:
            assert "\n" not in str(e).strip(), e
            outcomes["refused"] += 1
    assert min(outcomes.values()) > 10, outcomes


def main():
    tests = [v for k, v in sorted(globals().items()) if k.startswith("test_")]
    try:
        for t in tests:
            with contextlib.redirect_stdout(io.StringIO()):
                t()
            print("ok  ", t.__name__)
    finally:
        shutil.rmtree(TMP, ignore_errors=True)
    print("rocm: %d tests ok" % len(tests))


if __name__ == "__main__":
    main()
