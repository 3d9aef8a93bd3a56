"""Seed 001's module selector (gpc2sm.select) and the energy report, end to end.
Usage: python3 tb/test_power.py BUILD_DIR

Two SMs (one GPC of the h100 preset, 1 ns cycles, cga distributor). Three one-CTA
kernels of 32 threads on three queues, all 20 us long: A (10^5 tensor instructions per
CTA: high energy) submitted at 1000, B (10 int instructions) at 2000, C (10 int) at
3000. A goes to SM0 under every policy (a tie: the lowest SM). B: SM1 has the most free
slots (lake) and, with A running on SM0, the least recent energy (power): SM1. C: both
SMs hold one CTA and have 31 free slots: lake and weighted take the lowest, SM0;
power takes SM1, whose last 1024 cycles used far less energy. The work, and so the
total energy, is the same under every policy."""
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
KEYS = ["gpu.preset=h100", "gpu.gpcs=1", "gpu.sms_per_gpc=2", "frontend.clock_mhz=1000", "pp.fetch_cycles=100",
        "pp.decode_cycles=10", "cwd.grid_launch_cycles=200", "cwd.policy=cga"]


def trace():
    path = os.path.join(TMP, "three.gdt.gz")
    dev = gdtrace.Device("NVIDIA H100 80GB HBM3", (9, 0), 132, 2048, 65536, 233472, 49152, 232448, 1024, 32,
                         [18, 18, 16, 16, 16, 16, 16, 16])
    w = gdtrace.TraceWriter(path, dev, "test_power", minor=6)
    w.kernel(1, "A", 32, 16, 0, 0, cta_ps=20000000, insn=[0, 0, 0, 0, 0, 100000])
    w.kernel(2, "B", 32, 16, 0, 0, cta_ps=20000000, insn=[0, 0, 10, 0, 0, 0])
    w.kernel(3, "C", 32, 16, 0, 0, cta_ps=20000000, insn=[0, 0, 10, 0, 0, 0])
    for q, (t, kid) in enumerate([(1000, 1), (2000, 2), (3000, 3)]):
        w.dispatch(q, t, kid, (32, 1, 1), (1, 1, 1), 0, True, 0)
    w.close()
    return path


def replay(path, select):
    log, js = os.path.join(TMP, "ctas.csv"), os.path.join(TMP, "s.json")
    cmd = [os.path.join(BUILD, "gdsim"), "replay", path, "--quiet", "--cta-log", log, "--summary-json", js,
           "--set", "gpc2sm.select=" + select]
    for k in KEYS:
        cmd += ["--set", k]
    r = subprocess.run(cmd, capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    sms = {int(row["kernel_index"]): int(row["sm"]) for row in csv.DictReader(open(log))}
    return sms, json.load(open(js))


def main():
    t = trace()
    expect = {"lake": {0: 0, 1: 1, 2: 0}, "weighted": {0: 0, 1: 1, 2: 0}, "power": {0: 0, 1: 1, 2: 1}}
    energy = set()
    for select, want in expect.items():
        sms, js = replay(t, select)
        assert sms == want, (select, sms)
        p = js["power"]
        energy.add(round(p["energy_uj"], 9))
        per_sm = {s["block"]: s["value"] for s in js["stats"] if s["name"] == "energy"}
        # A: 10^5 tensor x 3072000 fJ; B and C: 10 int x 3200 fJ
        a, bc = 100000 * 3072000, 10 * 3200
        assert per_sm == ({"sm_0": a + bc, "sm_1": bc} if select != "power" else {"sm_0": a, "sm_1": 2 * bc}), per_sm
        if select != "lake":
            assert any(s["block"] == "module_selector" and s["name"] == "picks" and s["value"] == 3
                       for s in js["stats"]), select
    assert len(energy) == 1, energy  # the same work: the same energy
    # a dump shows the instruction mix; a 1.5 trace cannot carry one
    r = subprocess.run([os.path.join(BUILD, "gdsim"), "dump", t], capture_output=True, text=True)
    assert "warp instructions per CTA fp32 0 fp16 0 int 0 ldst 0 sfu 0 tensor 100000" in r.stdout, r.stdout
    bad = os.path.join(TMP, "bad.gdt.gz")
    w = gdtrace.TraceWriter(bad, gdtrace.Device("x", (9, 0), 132, 2048, 65536, 233472, 49152, 232448, 1024, 32, []),
                            "test_power", minor=5)
    w.minor = 6
    w.kernel(1, "A", 32, 16, 0, 0, cta_ps=1000, insn=[1, 2, 3, 4, 5, 6])
    w.close()
    r = subprocess.run([os.path.join(BUILD, "gdsim"), "dump", bad], capture_output=True, text=True)
    assert r.returncode == 1 and "record 1" in r.stderr and "instruction mix in a version 1.5 trace" in r.stderr, \
        r.stderr
    print("select: lake and weighted put C on SM0, power on SM1; the energy per SM and in all as computed")
    mixed_workload()


def mixed_workload():
    """Issue 12's figure (docs/MODEL.md): on a mixed-instruction workload (gen_trace.py
    --insn, four mixes over 40 kernels of 500 CTAs, a full H100), power over 2 us
    windows is spread more evenly over the SMs under gpc2sm.select=power than under
    lake, for the same work and energy."""
    path = os.path.join(TMP, "mix.gdt.gz")
    gen = [sys.executable, os.path.join(HERE, "..", "scripts", "gen_trace.py"), path, "--kernels", "40", "--grid",
           "500", "--block", "256", "--regs", "32", "--smem", "0", "--cta-ns", "4000", "--queues", "4",
           "--submit-ns", "1000", "--insn", "fp32=4000,ldst=500;tensor=400,ldst=1000;int=2000;sfu=800,fp32=1000"]
    r = subprocess.run(gen, capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    out = {}
    for select in ("lake", "power"):
        js = os.path.join(TMP, "m.json")
        r = subprocess.run([os.path.join(BUILD, "gdsim"), "replay", path, "--quiet", "--summary-json", js, "--set",
                            "gpc2sm.select=" + select, "--set", "power.window_ns=2000"], capture_output=True, text=True)
        assert r.returncode == 0, r.stderr
        j = json.load(open(js))
        out[select] = (j["power"], j["summary"]["ctas"])
        assert any(s["name"] == "late_ctas" and s["value"] == 0 for s in j["stats"]), select
    (lake, lc), (power, pc) = out["lake"], out["power"]
    assert lc == pc == 20000 and abs(lake["energy_uj"] - power["energy_uj"]) < 1e-6, out
    assert power["window_cov_mean"] < lake["window_cov_mean"] and power["window_cov_p99"] < lake["window_cov_p99"], out
    print("mixed workload: per-window CoV of SM power, mean %.4f (lake) -> %.4f (power), p99 %.4f -> %.4f, energy "
          "%.3f uJ both" % (lake["window_cov_mean"], power["window_cov_mean"], lake["window_cov_p99"],
                           power["window_cov_p99"], lake["energy_uj"]))


main()
