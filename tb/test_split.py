"""Seed 001 emb. 3 in the replay (cwd.split_after): a CTA of an independent kernel that
no SM can take for cwd.split_after matching rounds in a row is split into one-warp
sub-workgroups of the lowest priority. Exact times on a hand-worked case.
Usage: python3 tb/test_split.py BUILD_DIR

One SM of the h100 preset (64 warp slots), 1 ns cycles, cwd.admission=channels, a round
every cwd.query_cycles = 8 cycles. K0 (queue 0): two CTAs of 640 threads (20 warps
each), 100 us; K1 (queue 1, independent, trace format 1.7): one CTA of 1024 threads (32
warps), 10 us. K0's CTAs start at 1320 and hold 40 warp slots until 101320; K1 is set up
at 2310 (submit 2000, fetch 100, decode 10, grid launch 200) and its CTA does not fit (24
slots free). The first failed round is at 2310; the 257th, past cwd.split_after = 256,
at 2310 + 256 x 8 = 4358: K1's CTA becomes 32 one-warp sub-workgroups, 24 of which fit
and start at 4358 + 10 (query 8, mask 1, broadcast 1) = 4368; they end at 14368 and the
other 8 start at 14378; K1 ends at 24378 instead of 111330 (its CTA after K0's)."""
import csv
import json
import os
import subprocess
import sys
import tempfile

BUILD = sys.argv[1] if len(sys.argv) > 1 else "build"
HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "scripts"))
import gdtrace  # noqa: E402

_TMP = tempfile.TemporaryDirectory()  # removed at exit, whether the test passes or fails
TMP = _TMP.name
KEYS = ["gpu.preset=h100", "gpu.gpcs=1", "gpu.sms_per_gpc=1", "frontend.clock_mhz=1000", "pp.fetch_cycles=100",
        "pp.decode_cycles=10", "cwd.grid_launch_cycles=200", "cwd.admission=channels"]


def trace(name, independent=True, k2=False):
    path = os.path.join(TMP, name + ".gdt.gz")
    dev = gdtrace.Device("NVIDIA H100 80GB HBM3", (9, 0), 132, 2048, 65536, 233472, 49152, 232448, 1024, 32,
                         [18, 18, 16, 16, 16, 16, 16, 16])
    w = gdtrace.TraceWriter(path, dev, "test_split", minor=7)
    w.kernel(1, "K0", 640, 32, 0, 0, cta_ps=100000 * 1000)
    w.kernel(2, "K1", 1024, 32, 0, 0, cta_ps=10000 * 1000)
    w.kernel(3, "K2", 256, 32, 0, 0, cta_ps=1000 * 1000)
    w.dispatch(0, 1000, 1, (640, 1, 1), (2, 1, 1), 0, True, 0, tenant=(0, 1))
    w.dispatch(1, 2000, 2, (1024, 1, 1), (1, 1, 1), 0, True, 0,
               tenant=(1, 1 | (gdtrace.CMD_INDEPENDENT if independent else 0)))
    if k2:  # 8 warps, priority 0, set up at 6310 while 8 sub-workgroups wait
        w.dispatch(2, 6000, 3, (256, 1, 1), (1, 1, 1), 0, True, 0, tenant=(2, 1, 0))
    w.close()
    return path


def replay(path, *sets):
    log, js = os.path.join(TMP, "ctas.csv"), os.path.join(TMP, "s.json")
    cmd = [os.path.join(BUILD, "gdsim"), "replay", path, "--no-progress", "--absolute-times", "--cta-log", log,
           "--summary-json", js]  # times in the trace's clock, as the docstring counts them
    for k in KEYS + list(sets):
        cmd += ["--set", k]
    r = subprocess.run(cmd, capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    rows = [(int(x["kernel_index"]), int(x["cta_id"]), float(x["launch_ns"]), float(x["end_ns"]))
            for x in csv.DictReader(open(log))]
    return rows, json.load(open(js)), r.stdout


def starts(rows, kernel):
    """{launch time: how many CTAs or sub-workgroups of the kernel started then}"""
    out = {}
    for k, _, t, _ in rows:
        if k == kernel:
            out[t] = out.get(t, 0) + 1
    return out


def main():
    t = trace("split")
    rows, js, text = replay(t)
    assert starts(rows, 0) == {1320.0: 2}, rows
    assert starts(rows, 1) == {4368.0: 24, 14378.0: 8}, starts(rows, 1)
    assert all(c == 0 for k, c, _, _ in rows if k == 1), "every sub-workgroup carries its CTA's id"
    assert max(e for k, _, _, e in rows if k == 1) == 24378.0
    adm = js["admission"]
    assert adm["split_ctas"] == 1, adm
    assert "1 CTAs split" in [l for l in text.splitlines() if l.startswith("  admission")][0], text
    k1 = [s for s in js["stats"] if s["block"] == "gpu2gpc" and s["name"] == "ctas_launched"][0]
    assert k1["value"] == 3, k1  # two CTAs of K0, one (split) of K1

    # the threshold and the round period are keys: 100 rounds of 8 cycles, 256 of 4
    rows, _, _ = replay(t, "cwd.split_after=100")
    assert starts(rows, 1) == {2310.0 + 100 * 8 + 10: 24, 2310.0 + 810 + 10000 + 10: 8}, starts(rows, 1)
    rows, _, _ = replay(t, "cwd.query_cycles=4")
    assert min(starts(rows, 1)) == 2310.0 + 256 * 4 + 6, starts(rows, 1)  # a step: query 4, mask 1, broadcast 1
    # never split: with cwd.split_after=0, under inorder admission, or a kernel not marked independent
    for sets, path in ((["cwd.split_after=0"], t), (["cwd.admission=inorder"], t), ([], trace("dep", False))):
        rows, js, _ = replay(path, *sets)
        assert starts(rows, 1) == {101330.0: 1}, (sets, starts(rows, 1))
        assert js["admission"]["split_ctas"] == 0

    # the sub-workgroups have the lowest priority: K2 (priority 0, 8 warps), set up at
    # 6310 while 8 of them wait, takes the room the first 24 leave at 14368 first (its
    # step at 14368 starts it at 14378); the 8 follow at the next step (14378 + 10)
    rows, js, _ = replay(trace("k2", k2=True))
    assert starts(rows, 2) == {14378.0: 1}, starts(rows, 2)
    assert starts(rows, 1) == {4368.0: 24, 14388.0: 8}, starts(rows, 1)
    # the same run twice: the same report
    assert replay(t) == replay(t)
    print("test_split: ok")


if __name__ == "__main__":
    main()
