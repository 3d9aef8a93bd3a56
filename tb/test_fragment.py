"""Contiguous allocation (sm.alloc=contiguous, seed 001 emb. 1 a41-a45) end to end: a
hand-worked fragmentation case with exact times, the fragmentation report, the block
finders' cycle costs and a finder that can never see a block large enough.
Usage: python3 tb/test_fragment.py BUILD_DIR

One SM of the h100 preset (4 sub-partitions of 16384 registers = 64 units of 256; shared
memory 233472 bytes = 1824 units of 128), 1 ns cycles. Five one-CTA kernels of 128
threads (4 warps: one per sub-partition) on five queues, submitted 1 us apart:
  K0 128 regs/thread (16 units per sub-partition) 10 us   -> units [0, 16)
  K1 128                                           2 us   -> [16, 32)
  K2 128                                          10 us   -> [32, 48)
  K3 128                                           2 us   -> [48, 64): every unit taken
  K4 255 regs/thread (8192 per warp: 32 units)     1 us
Each kernel is set up 320 ns after its submit (fetch 100, decode 10, grid launch 200,
then the cga step's query 8 + mask 1 + broadcast 1), so K0..K3 start at 1320, 2320,
3320, 4320 (+1 ns of block finder under contiguous). K1 ends at 4320 and K3 at 6320:
then 32 units are free in every sub-partition, which the counted rules accept for K4
(start 6320 + 10), but as two blocks of 16: under contiguous K4 waits until K0 ends
at 11321 and [0, 32) is free (start 11321 + 11 = 11332). Meanwhile (6321 -> 11321,
5 us) the SM strands 1 CTA slot, 4 x 32 register units and the shared memory of the
two CTAs left (233472 - 2 x 1024 reserved bytes = 1808 units): 5, 640 and 9040
unit x us."""
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
        "pp.decode_cycles=10", "cwd.grid_launch_cycles=200"]
SPEC = [(128, 10000), (128, 2000), (128, 10000), (128, 2000), (255, 1000)]


def trace():
    path = os.path.join(TMP, "frag.gdt.gz")
    dev = gdtrace.Device("NVIDIA H100 80GB HBM3", (9, 0), 132, 2048, 65536, 233472, 49152, 232448, 1024, 32,
                         [18, 18, 16, 16, 16, 16, 16, 16])
    w = gdtrace.TraceWriter(path, dev, "test_fragment", minor=6)
    for i, (regs, ns) in enumerate(SPEC):
        w.kernel(i + 1, "K%d" % i, 128, regs, 0, 0, cta_ps=ns * 1000)
    for i in range(len(SPEC)):
        w.dispatch(i, 1000 * (i + 1), i + 1, (128, 1, 1), (1, 1, 1), 0, True, 0)
    w.close()
    return path


def replay(path, *sets, ok=True):
    log, js = os.path.join(TMP, "ctas.csv"), os.path.join(TMP, "s.json")
    for f in (log, js):
        if os.path.exists(f):
            os.remove(f)
    cmd = [os.path.join(BUILD, "gdsim"), "replay", path, "--no-progress", "--absolute-times", "--cta-log", log,
           "--summary-json", js]  # times in the trace's clock, as the docstring counts them
    for k in KEYS + list(sets):
        cmd += ["--set", k]
    r = subprocess.run(cmd, capture_output=True, text=True)
    if not ok:
        assert r.returncode != 0, "the replay should have failed"
        return r.stderr
    assert r.returncode == 0, r.stderr
    starts = [float(row["launch_ns"]) for row in sorted(csv.DictReader(open(log)), key=lambda x: int(x["kernel_index"]))]
    return starts, json.load(open(js)), r.stdout


def main():
    t = trace()
    # The hand-worked case, under both distributors.
    want = {
        ("cga", "count"): [1320, 2320, 3320, 4320, 6330],
        ("cga", "contiguous"): [1321, 2321, 3321, 4321, 11332],
        # baseline: the finder spaces launches (cwd.cta_launch_cycles + finder); a CTA
        # launches at the retirement that makes room
        ("baseline", "count"): [1310, 2310, 3310, 4310, 6310],
        ("baseline", "contiguous"): [1310, 2310, 3310, 4310, 11310],
    }
    for (policy, alloc), starts in want.items():
        got, js, text = replay(t, "cwd.policy=" + policy, "sm.alloc=" + alloc)
        assert got == starts, (policy, alloc, got, starts)
        adm = js["admission"]
        assert adm["alloc"] == alloc
        if alloc == "count":
            assert adm["frag_delayed_ctas"] == 0 and adm["frag_wait_ns"] == 0 and adm["frag_stranded_slot_ns"] == 0, adm
            assert "allocation" not in text, text
            assert adm["block_finder"] == "none" and adm["finder_cycles"] == 0, adm
        else:
            assert adm["frag_delayed_ctas"] == 1, adm
            assert adm["frag_wait_ns"] == 5000, adm
            assert adm["frag_stranded_slot_ns"] == 5000, adm
            assert adm["frag_stranded_reg_unit_ns"] == 640000, adm
            assert adm["frag_stranded_smem_unit_ns"] == 9040000, adm
            assert adm["finder_cycles"] == 5, adm  # five launch steps, one cycle each
            line = [l for l in text.splitlines() if l.startswith("  allocation")]
            assert line == ["  allocation          contiguous, shift finder (1 cycle per launch step), pooled wave "
                            "placement: 1 CTAs waited 5.000 us for contiguous room; stranded 5.000 slot x us, "
                            "640.000 register-unit x us, 9040.000 shared-memory-unit x us"], line

    # The finders' cost per launch step (cga): scan, one unit per cycle over the longest
    # map (1824 shared-memory units); shared, the 4 x 64 register units and the 1824
    # shared-memory units do not fit one 2048-bit period: 2 periods; shift with
    # registered steps, 3 cycles. K0 starts 1320 + that.
    for sets, first in [(["sm.block_finder=scan"], 1320 + 1824),
                        (["sm.block_finder=scan", "sm.scan_bits_per_cycle=64"], 1320 + 29),
                        (["sm.block_finder=shared"], 1322),
                        (["sm.block_finder=shared", "sm.finder_width=1824"], 1322),
                        (["sm.block_finder=shift", "sm.finder_cycles=3"], 1323),
                        (["sm.block_finder=groups"], 1321)]:
        got, js, _ = replay(t, "sm.alloc=contiguous", *sets)
        assert got[0] == first, (sets, got)
    # groups (z = 4: groups of 16 register units) see the same blocks here; K4 still waits
    got, js, _ = replay(t, "sm.alloc=contiguous", "sm.block_finder=groups")
    assert got[4] == 11332, got
    # z = 2 (groups of 32 units): the finder sees a block only where a whole group is
    # free. K0 takes [0,16) (first fit); group [32,64) is whole, so K1 fits and takes
    # [16,32), K2 [32,48). Then no group is whole: K3 waits, past K1's end (4321, when 16
    # units in a row are free), for K0's (11321: [0,32) whole): 11332; K4 (32 units) for
    # K2's end, 13321: 13332.
    got, js, _ = replay(t, "sm.alloc=contiguous", "sm.block_finder=groups", "sm.finder_groups=2")
    assert got == [1321, 2321, 3321, 11332, 13332], got
    # sampled shifts 0, 1, 3, 7: the finder sees at most 8 units, K0 needs 16 on an
    # empty SM: the replay stops with an error naming the kernel and the keys.
    err = replay(t, "sm.alloc=contiguous", "sm.block_finder=sampled", "sm.finder_samples=0,1,3,7", ok=False)
    assert "kernel 0 (K0)" in err and "sm.block_finder=sampled" in err, err
    # sampled with 15 in the list sees K0's 16-unit block exactly
    got, js, _ = replay(t, "sm.alloc=contiguous", "sm.block_finder=sampled", "sm.finder_samples=0,1,3,7,15,31")
    assert got == [1321, 2321, 3321, 4321, 11332], got
    # bad settings are refused with the key named
    for bad, words in [(["sm.finder_samples=0,2,3"], "never shrink"),
                       (["sm.finder_samples=x"], "sm.finder_samples"),
                       (["sm.block_finder=groups", "sm.finder_groups=5"], "sm.finder_groups"),
                       (["sm.block_finder=shared", "sm.finder_width=1000"], "sm.finder_width"),
                       (["sm.smem_alloc_unit=64"], "sm.smem_alloc_unit")]:
        err = replay(t, "sm.alloc=contiguous", *bad, ok=False)
        assert words in err, (bad, err)
    # Wave placement (emb. 8) and the per-sub-partition occupancy: three one-warp CTAs of
    # 10 us at once on one SM (16 warp slots per sub-partition, a 10 us busy span: one warp
    # for the whole span is 6.25 %). tail: sub-partitions 2, 3, 0; head (as [0233] writes
    # it): 2, 0, 2; pooled under contiguous: the largest free block, lowest first: 0, 1, 2.
    one = os.path.join(TMP, "one.gdt.gz")
    dev = gdtrace.Device("NVIDIA H100 80GB HBM3", (9, 0), 132, 2048, 65536, 233472, 49152, 232448, 1024, 32,
                         [18, 18, 16, 16, 16, 16, 16, 16])
    w = gdtrace.TraceWriter(one, dev, "test_fragment", minor=6)
    w.kernel(1, "warp", 32, 32, 0, 0, cta_ps=10000 * 1000)
    w.dispatch(0, 1000, 1, (32, 1, 1), (3, 1, 1), 0, True, 0)
    w.close()
    for sets, pct in ((["sm.wave_placement=tail"], [6.25, 0, 6.25, 6.25]),
                      (["sm.wave_placement=head"], [6.25, 0, 12.5, 0]),
                      (["sm.alloc=contiguous"], [6.25, 6.25, 6.25, 0])):
        _, js, text = replay(one, *sets)
        occ = js["occupancy"]
        assert occ["per_sub_partition_pct"] == [pct], (sets, occ)
        assert occ["per_sm_pct"] == [3 / 64 * 100], occ  # 3 of 64 warp slots
        assert [l for l in text.splitlines() if l.startswith("  occupancy spread")], text
    _, js, text = replay(one)
    assert "per_sub_partition_pct" not in js["occupancy"] and "occupancy spread" not in text, js["occupancy"]

    # A mixed-register workload from gen_trace (docs/MODEL.md's, smaller): CTAs wait for
    # contiguous room under contiguous, never under count.
    mix = os.path.join(TMP, "mix.gdt.gz")
    r = subprocess.run([sys.executable, os.path.join(HERE, "..", "scripts", "gen_trace.py"), mix, "--kernels", "18",
                        "--tenants", "3", "--queues", "3", "--chain", "-", "--regs", "32;96;255", "--cta-ns",
                        "2000;5000;11000", "--grid", "600", "--block", "128", "--smem", "0", "--submit-ns", "2000",
                        "--no-barrier"], capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    for alloc in ("count", "contiguous"):
        js = os.path.join(TMP, "mix.json")
        r = subprocess.run([os.path.join(BUILD, "gdsim"), "replay", mix, "--quiet", "--summary-json", js, "--set",
                            "sm.alloc=" + alloc], capture_output=True, text=True)
        assert r.returncode == 0, r.stderr
        adm = json.load(open(js))["admission"]
        if alloc == "count":
            assert adm["frag_delayed_ctas"] == 0 and adm["frag_stranded_reg_unit_ns"] == 0, adm
        else:
            assert adm["frag_delayed_ctas"] > 0 and adm["frag_stranded_reg_unit_ns"] > 0, adm
    # deterministic: the same run twice gives the same report
    a = replay(t, "sm.alloc=contiguous")
    b = replay(t, "sm.alloc=contiguous")
    assert a == b
    print("test_fragment: ok")


if __name__ == "__main__":
    main()
