"""Clusters (CGAs) end to end on the h100 preset, from the per-CTA log (gdsim replay
--cta-log): with cwd.policy=cga every CTA of a GPC-CGA runs in one GPC and starts with
the others, multicast CGAs never put two CTAs on one SM, a GPU-CGA's parts start
together, CTA ids cover each grid exactly once and agree with the cluster shape, an
idle GPU spreads a uniform kernel evenly, both policies complete every CTA, and two
replays write the same bytes. Usage: python3 tb/test_clusters.py BUILD_DIR"""
import collections
import csv
import os
import subprocess
import sys
import tempfile

BUILD = sys.argv[1] if len(sys.argv) > 1 else "build"
HERE = os.path.dirname(os.path.abspath(__file__))
GEN = [sys.executable, os.path.join(HERE, "..", "scripts", "gen_trace.py")]
_TMP = tempfile.TemporaryDirectory()  # removed at exit, whether the test passes or fails
TMP = _TMP.name
H100_GPC_OF_SM = [g for g, n in enumerate([18, 18, 16, 16, 16, 16, 16, 16]) for _ in range(n)]


def gen(name, *args):
    path = os.path.join(TMP, name + ".gdt.gz")
    r = subprocess.run(GEN + [path] + list(args), capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    return path


def replay(trace, policy, *extra):
    log = os.path.join(TMP, "%s.%s.ctas.csv" % (os.path.basename(trace), policy))
    kcsv = log + ".kernels.csv"
    r = subprocess.run([os.path.join(BUILD, "gdsim"), "replay", trace, "--preset", "h100", "--quiet",
                        "--set", "cwd.policy=" + policy, "--set", "cwd.raster_check=on", "--cta-log", log,
                        "--kernels-csv", kcsv] + list(extra), capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    with open(log) as f:
        assert f.readline() == "kernel_index,cta_id,x,y,z,cga_id,cga_cta_id,gpc,sm,launch_ns,end_ns\n"
    rows = list(csv.DictReader(open(log)))
    return rows, list(csv.DictReader(open(kcsv))), open(log, "rb").read()


def check_ids(rows, grid, cluster, kernels):
    """Every CTA id of each kernel once; (x, y, z), cga_id and cga_cta_id consistent."""
    X, Y, Z = grid
    cx, cy, cz = cluster
    by_kernel = collections.defaultdict(list)
    for r in rows:
        by_kernel[r["kernel_index"]].append(r)
    assert len(by_kernel) == kernels
    for k, rs in by_kernel.items():
        ids = sorted(int(r["cta_id"]) for r in rs)
        assert ids == list(range(X * Y * Z)), (k, len(ids))
        for r in rs:
            x, y, z = int(r["x"]), int(r["y"]), int(r["z"])
            assert int(r["cta_id"]) == x + y * X + z * X * Y
            ix, iy, iz = x % cx, y % cy, z % cz
            assert int(r["cga_cta_id"]) == ix + iy * cx + iz * cx * cy
            gx, gy, gz = x // cx, y // cy, z // cz
            assert int(r["cga_id"]) == gx + gy * (X // cx) + gz * (X // cx) * (Y // cy), r
            assert H100_GPC_OF_SM[int(r["sm"])] == int(r["gpc"])
    return by_kernel


def cgas(rows):
    out = collections.defaultdict(list)
    for r in rows:
        out[(r["kernel_index"], r["cga_id"])].append(r)
    return out


def test_gpc_cgas_load_balance_and_multicast():
    for mode in ("load_balance", "multicast"):
        trace = gen("gpc_" + mode, "--kernels", "6", "--grid", "24,12,2", "--block", "256", "--regs", "64",
                    "--smem", "0", "--cta-ns", "3000", "--queues", "2", "--cluster", "2,2,2",
                    "--cluster-mode", mode, "--submit-ns", "500")
        rows, kernels, first = replay(trace, "cga")
        assert len(kernels) == 6 and len(rows) == 6 * 576
        check_ids(rows, (24, 12, 2), (2, 2, 2), 6)
        for key, rs in cgas(rows).items():
            assert len(rs) == 8
            assert len({r["gpc"] for r in rs}) == 1, key            # one GPC
            assert len({r["launch_ns"] for r in rs}) == 1, key      # launched together
            if mode == "multicast":
                assert len({r["sm"] for r in rs}) == 8, key         # one CTA per SM
        _, _, again = replay(trace, "cga")
        assert again == first                                        # deterministic
        # the prior art completes the same CTAs, without the guarantees
        rows_b, kernels_b, _ = replay(trace, "baseline")
        assert len(rows_b) == len(rows) and len(kernels_b) == 6
        check_ids(rows_b, (24, 12, 2), (2, 2, 2), 6)


def test_gpu_cga_parts_start_together():
    trace = gen("gpu_cga", "--kernels", "3", "--grid", "64,4", "--block", "128", "--regs", "32", "--smem", "0",
                "--cta-ns", "2000", "--cluster", "4,2", "--gpu-cga", "4")
    rows, kernels, _ = replay(trace, "cga")
    assert len(rows) == 3 * 256 and len(kernels) == 3
    check_ids(rows, (64, 4, 1), (4, 2, 1), 3)
    groups = collections.defaultdict(set)
    for (k, cga), rs in cgas(rows).items():
        assert len({r["gpc"] for r in rs}) == 1 and len({r["launch_ns"] for r in rs}) == 1
        groups[(k, int(cga) // 4)].add(rs[0]["launch_ns"])   # 4 consecutive GPC-CGAs form a GPU-CGA
    assert all(len(t) == 1 for t in groups.values()), groups


def test_multicast_on_uneven_sms():
    """A long plain kernel A (130 CTAs of 1024 threads, 2 per SM) leaves 8 free slots for
    kernel B (128 threads) on 130 SMs and 16 on the last two (GPC 7). B's clusters of 8:
    in load-balancing mode they go where the lake is deepest, several CTAs per SM on
    those two; in multicast mode never two CTAs of one cluster on an SM."""
    sys.path.insert(0, os.path.join(HERE, "..", "scripts"))
    import gdtrace
    import gen_trace
    for mode, most in ((0, 4), (1, 1)):
        path = os.path.join(TMP, "uneven%d.gdt.gz" % mode)
        w = gdtrace.TraceWriter(path, gen_trace.DEVICES["h100"], "test_clusters", minor=4)
        w.kernel(1, "A", 1024, 32, 0, 0, cta_ps=100000000)
        w.kernel(2, "B", 128, 32, 0, 0, cta_ps=1000000)
        w.dispatch(0, 1000, 1, (1024, 1, 1), (130, 1, 1), 0)
        w.dispatch(1, 2000, 2, (128, 1, 1), (16, 1, 1), 0, cluster=(8, 1, 1, 1, mode))
        w.close()
        rows, _, _ = replay(path, "cga")
        b = [r for r in rows if r["kernel_index"] == "1"]
        assert len(b) == 16
        per = collections.Counter((r["cga_id"], r["sm"]) for r in b)
        assert max(per.values()) == most, (mode, per)
        for rs in cgas(b).values():
            assert len({r["gpc"] for r in rs}) == 1 and len({r["launch_ns"] for r in rs}) == 1


def test_idle_gpu_spreads_evenly():
    # 400 CTAs with room for 4 per SM on 132 SMs: 3 or 4 per SM, whichever policy
    trace = gen("even", "--kernels", "1", "--grid", "400", "--block", "256", "--regs", "64", "--smem", "0",
                "--cta-ns", "5000")
    for policy in ("cga", "baseline"):
        rows, _, _ = replay(trace, policy)
        per_sm = collections.Counter(int(r["sm"]) for r in rows)
        counts = [per_sm.get(i, 0) for i in range(132)]
        assert max(counts) - min(counts) <= 1, (policy, counts)
        if policy == "cga":
            assert len({r["launch_ns"] for r in rows}) == 1      # one step fills the lake


def test_policies_on_a_million_ctas():
    """Front-end bound (CTAs of 200 ns, 8 per SM): both distributors complete every CTA,
    and the summary shows seed 003's launching many CTAs per front-end cycle where the
    prior art launches one."""
    trace = gen("million", "--kernels", "120", "--grid", "8448", "--block", "256", "--regs", "32", "--smem", "0",
                "--cta-ns", "200", "--submit-ns", "1000")
    out = {}
    for policy in ("baseline", "cga"):
        r = subprocess.run([os.path.join(BUILD, "gdsim"), "replay", trace, "--preset", "h100", "--set",
                            "cwd.policy=" + policy], capture_output=True, text=True)
        assert r.returncode == 0, r.stderr
        line = [x for x in r.stdout.splitlines() if x.startswith("  distributor")][0]
        ctas = [x for x in r.stdout.splitlines() if x.startswith("  CTAs")][0]
        assert ctas.split()[-1] == "1013760", ctas
        per_cycle = float(line.split("(")[-1].split()[0])
        sim_us = float([x for x in r.stdout.splitlines() if "simulated time" in x][0].split()[2])
        out[policy] = (per_cycle, sim_us)
    assert out["baseline"][0] == 1.0, out
    assert out["cga"][0] > 50, out
    assert out["cga"][1] < 0.6 * out["baseline"][1], out


def main():
    tests = [v for k, v in sorted(globals().items()) if k.startswith("test_")]
    for t in tests:
        t()
        print("ok  ", t.__name__)
    print("clusters: %d tests ok" % len(tests))


if __name__ == "__main__":
    main()
