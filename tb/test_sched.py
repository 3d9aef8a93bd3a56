"""The command scheduler (seed 004) end to end, from the CLI, with exact hand-worked
times. Usage: python3 tb/test_sched.py BUILD_DIR

The small configuration: front-end clock 1000 MHz (1 cycle = 1 ns), fetch 100, decode
10, completion 50, the prior-art distributor (cwd.policy=baseline: a kernel's first
CTA 200 ns after its dispatch), the scheduler's pick 1 + decode 2 = 3 ns per command.
Seed fig 6 (gen_trace.py --seed-fig6): one queue holding, head first, u1_1s u2_1s u1_2c
u2_2s u2_3c u2_4c u1_3c (user 1 = VID 1, user 2 = VID 2; s sync, c conditional), all
submitted at 1000 ns, each one CTA of 500 ns. The packet processor fetches and decodes
one packet after the other (the next fetch starts when a packet leaves the head for
the scheduler's physical queue): decoded at 1110, 1220, 1330, 1440, 1550, 1660, 1770.
A command's first CTA is its pick + 3 + 200; it ends 500 later.

inorder (the prior art: a waiting head blocks its queue):
  u1_1s picked 1110, first CTA 1313, ends 1813; u2_1s picked 1220: 1423, ends 1923.
  u1_2c (waits for u1_1s) blocks the queue from 1330; u2_2s, decoded 1440, is held
  behind it (a false dependency). u1_1s ends 1813: u1_2c picked 1813 (2016), u2_2s
  1816 (2019, ends 2519, the new latest sync of user 2). u2_3c waits for u2_2s and
  blocks the head; u1_3c (its own sync long done) is held behind it: a false
  dependency. u2_2s ends 2519: u2_3c picked 2519 (2722), u2_4c 2522 (2725), u1_3c
  2525 (2728). Head-of-line blocking: 1440..1813 and 1816..2519 = 1076 ns.
waitqueue (seed 004 method 800):
  u1_1s 1110 (1313, its wait queue WQ0); u2_1s 1220 (1423, WQ1); u1_2c into WQ0 at
  1330; u2_2s (a sync, WQ2) picked 1440: 1643, ends 2143; u2_3c and u2_4c into WQ2;
  u1_3c into WQ0 (u1_1s is its VID's latest running sync). u1_1s ends 1813: WQ0 is
  served first: u1_2c 1813 (2016), u1_3c 1816 (2019) - before u2_2s has completed.
  u2_2s ends 2143: u2_3c 2143 (2346), u2_4c 2146 (2349). No head-of-line blocking.
"""
import csv
import io
import json
import os
import subprocess
import sys
import tempfile

BUILD = sys.argv[1] if len(sys.argv) > 1 else "build"
HERE = os.path.dirname(os.path.abspath(__file__))
GEN = [sys.executable, os.path.join(HERE, "..", "scripts", "gen_trace.py")]
_TMP = tempfile.TemporaryDirectory()  # removed at exit, whether the test passes or fails
TMP = _TMP.name
SMALL = ["frontend.clock_mhz=1000", "pp.fetch_cycles=100", "pp.decode_cycles=10", "pp.completion_cycles=50",
         "cwd.grid_launch_cycles=200", "cwd.policy=baseline", "cs.pick_cycles=1", "cs.decode_cycles=2"]


def gen(name, *args):
    path = os.path.join(TMP, name + ".gdt.gz")
    r = subprocess.run(GEN + [path] + list(args), capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    return path


def replay(trace, *keys):
    """The kernels CSV rows (by name when names are unique) and the JSON summary."""
    js = os.path.join(TMP, "summary.json")
    cmd = [os.path.join(BUILD, "gdsim"), "replay", trace, "--quiet", "--absolute-times", "--kernels-csv", "-",
           "--summary-json", js]  # the hand-checked times are in the trace's clock
    for k in keys:
        cmd += ["--set", k]
    r = subprocess.run(cmd, capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    rows = list(csv.DictReader(io.StringIO(r.stdout)))
    return rows, json.load(open(js))


def by_name(rows):
    return {row["name"]: row for row in rows}


def ns(row, col):
    return float(row[col]) - 0  # trace time: the first submit is 1000


def check_fig6():
    t = gen("fig6", "--seed-fig6")
    rows, js = replay(t, "cs.policy=inorder", *SMALL)
    k = by_name(rows)
    first = {n: ns(k[n], "first_cta_ns") for n in k}
    assert first == {"u1_1s": 1313, "u2_1s": 1423, "u1_2c": 2016, "u2_2s": 2019, "u2_3c": 2722, "u2_4c": 2725,
                     "u1_3c": 2728}, first
    assert ns(k["u1_3c"], "first_cta_ns") > ns(k["u2_2s"], "end_ns")  # waited for another tenant's sync
    s = js["scheduler"]
    assert s["policy"] == "inorder" and s["hol_blocking_ns"] == 1076.0 and s["false_dependencies"] == 2, s
    assert s["pushed"] == 0 and s["from_pq"] == 7, s
    assert all(r["status"] == "ok" and r["pq"] == "0" and r["wq"] == "" for r in rows)
    assert [r["vid"] for r in rows] == ["1", "2", "1", "2", "2", "2", "1"]
    assert [r["cmd_flags"] for r in rows] == ["s", "s", "c", "s", "c", "c", "c"]

    rows, js = replay(t, "cs.policy=waitqueue", *SMALL)
    k = by_name(rows)
    first = {n: ns(k[n], "first_cta_ns") for n in k}
    assert first == {"u1_1s": 1313, "u2_1s": 1423, "u1_2c": 2016, "u2_2s": 1643, "u2_3c": 2346, "u2_4c": 2349,
                     "u1_3c": 2019}, first
    assert ns(k["u1_3c"], "first_cta_ns") < ns(k["u2_2s"], "end_ns")  # no false dependency
    assert {n: k[n]["wq"] for n in k} == {"u1_1s": "", "u2_1s": "", "u1_2c": "0", "u2_2s": "", "u2_3c": "2",
                                         "u2_4c": "2", "u1_3c": "0"}
    s = js["scheduler"]
    assert s["hol_blocking_ns"] == 0.0 and s["false_dependencies"] == 0, s
    assert s["pushed"] == 4 and s["from_wq"] == 4 and s["from_pq"] == 3 and s["wq_occupancy_max"] == 4, s
    print("fig 6: inorder and waitqueue timelines as hand-worked")


def check_failure():
    """A failing u1_1s turns user 1's conditional commands into no-ops; user 2 completes."""
    t = gen("fig6fail", "--seed-fig6", "--fail", "1:0")
    for policy in ("inorder", "waitqueue"):
        rows, js = replay(t, "cs.policy=" + policy, *SMALL)
        k = by_name(rows)
        status = {n: k[n]["status"] for n in k}
        assert status == {"u1_1s": "failed", "u2_1s": "ok", "u1_2c": "noop", "u2_2s": "ok", "u2_3c": "ok",
                          "u2_4c": "ok", "u1_3c": "noop"}, (policy, status)
        assert k["u1_1s"]["cmd_flags"] == "sf"
        # a no-op runs nothing: it ends when it is decided (u1_2c right when u1_1s fails at 1813)
        assert ns(k["u1_2c"], "first_cta_ns") == ns(k["u1_2c"], "end_ns") == 1816, k["u1_2c"]
        per = {v["vid"]: v for v in js["scheduler"]["per_vid"]}
        assert per[1]["failed"] == 1 and per[1]["noop"] == 2 and per[2]["failed"] == per[2]["noop"] == 0, per
        assert js["scheduler"]["noops"] == 2 and js["scheduler"]["failed"] == 1
    print("failure: u1_2c and u1_3c are no-ops, user 2 runs on, under both policies")


def check_wq_exhaustion():
    """One wait queue for seed fig 6: syncs wait for it (reported), nothing deadlocks."""
    t = gen("fig6", "--seed-fig6")
    rows, js = replay(t, "cs.policy=waitqueue", "cs.wait_queues=1", *SMALL)
    assert len(rows) == 7 and all(r["status"] == "ok" for r in rows)
    k = by_name(rows)
    # u2_1s waits at the head for WQ0 (held by u1_1s) until u1_1s completes at 1813
    assert ns(k["u2_1s"], "ready_ns") == 1813 and ns(k["u2_1s"], "first_cta_ns") == 2016, k["u2_1s"]
    s = js["scheduler"]
    assert s["no_wq_waits"] == 2 and s["wait_queues"] == 1, s
    print("one wait queue: %d syncs waited for it, all 7 commands done" % s["no_wq_waits"])


def check_tenants():
    """16 tenants on 4 queues: half with chains (s,c,c), half whose commands are all
    syncs (they never wait), each queue holding both kinds. waitqueue has no
    head-of-line blocking and a lower mean launch latency than inorder for every
    tenant that never waits; both replay every command exactly once."""
    t = gen("t16", "--tenants", "16", "--queues", "4", "--kernels", "640", "--grid", "64", "--block", "256",
            "--regs", "32", "--smem", "0", "--cta-ns", "20000", "--submit-ns", "100",
            "--chain", "s,c,c;s,c,c;s,c,c;s,c,c;s;s;s;s")
    res = {}
    for policy in ("inorder", "waitqueue"):
        rows, js = replay(t, "cs.policy=" + policy)
        assert sorted(int(r["kernel_index"]) for r in rows) == list(range(640)), policy
        res[policy] = js["scheduler"]
    assert res["waitqueue"]["hol_blocking_ns"] == 0 and res["inorder"]["hol_blocking_ns"] > 0, res
    lat = {p: {v["vid"]: v["mean_latency_ns"] for v in res[p]["per_vid"]} for p in res}
    never_wait = [v for v in range(16) if (v // 4) % 2 == 1]
    for v in never_wait:
        assert lat["waitqueue"][v] < lat["inorder"][v], (v, lat["waitqueue"][v], lat["inorder"][v])
    print("16 tenants: waitqueue no head-of-line blocking (inorder %.0f us), lower latency for the %d tenants "
          "that never wait" % (res["inorder"]["hol_blocking_ns"] / 1000, len(never_wait)))


def check_physical_queues():
    """cs.physical_queues maps trace queues onto hardware queues in first-seen order;
    the CSV keeps the trace's queue and VID, and pq is the hardware queue."""
    t = gen("q3", "--kernels", "30", "--grid", "4", "--block", "128", "--regs", "32", "--smem", "0",
            "--cta-ns", "1000", "--queues", "3", "--submit-ns", "200")
    rows, _ = replay(t, "cs.physical_queues=2", "cs.policy=inorder")
    seen = []
    for r in rows:
        if r["queue"] not in seen:
            seen.append(r["queue"])
        assert r["vid"] == r["queue"], r
        assert int(r["pq"]) == seen.index(r["queue"]) % 2, r
    rows1, js1 = replay(t, "cs.physical_queues=1")
    rows0, js0 = replay(t)
    assert all(r["pq"] == "0" for r in rows1)
    assert js1["summary"]["queues"] == 1 and js0["summary"]["queues"] == 3
    assert js1["summary"]["sim_time_ns"] > js0["summary"]["sim_time_ns"]  # false dependencies cost time
    print("physical queues: 3 trace queues on 2 and on 1 hardware queue")


def check_copy_engine():
    """A non-kernel command is a command too: on one stream a memset M (400 ns) then a
    kernel K, both sync+conditional (the barrier bit of a trace without tenant fields).
    waitqueue: M decoded 1110, picked, dispatched 1113 to a copy engine, which starts it
    30 ns later (pp.command_launch_cycles): 1143..1543. K decoded 1220 waits in M's wait
    queue; M's end frees it: picked 1543, first CTA 1746. M's completion (after the
    50 ns cleanup) 1593."""
    sys.path.insert(0, os.path.join(HERE, "..", "scripts"))
    import gdtrace
    path = os.path.join(TMP, "copy.gdt.gz")
    w = gdtrace.TraceWriter(path, gdtrace.Device("dev", (9, 0), 132, 2048, 65536, 233472, 49152, 232448, 1024, 32,
                                                 [18, 18, 16, 16, 16, 16, 16, 16]), "test", minor=2)
    w.kernel(1, "k", 32, 16, 0, 0, cta_ps=500000)
    w.nonkernel(0, 1000, "memset", 400000, 4096)
    w.dispatch(0, 1000, 1, (32, 1, 1), (1, 1, 1), 0, True, 0)
    w.close()
    rows, js = replay(path, "cs.policy=waitqueue", "pp.command_launch_cycles=30", *SMALL)
    assert len(rows) == 1 and ns(rows[0], "first_cta_ns") == 1746 and rows[0]["wq"] == "0", rows
    assert js["scheduler"]["pushed"] == 1 and js["scheduler"]["per_vid"][0]["commands"] == 2, js["scheduler"]
    print("copy engine: the kernel waits in the memset's wait queue and starts after it")


def check_admission_priorities():
    """Seed 001's admission (cwd.admission=channels) with trace priorities and windows:
    tenants A (VID 0) and B (VID 1), one kernel each of 8 CTAs of 768 threads (2 per SM
    on 2 SMs: a wave of 4 fills the GPU), submitted at 1000 and 1010 on two queues; the
    cga distributor (query 8, one mask, broadcast 1: a step's CTAs start 10 ns after
    it). A's first wave starts at 1320, before B is set up; each later step comes at a
    wave's end (2320, 3330, 4340) and serves the round's winner:
      equal priorities: a tie at 2320, a42 takes the lowest unmarked channel (A); then
      B alone: A 1320, 2330; B 3340, 4350.
      B priority 0, A 1: B wins at 2320 and 3330, A's second wave last: A 1320, 4350.
      the same with windows of 2000 and 1000 cycles (levels 0 and 1; the counter starts
      at the replay's first submit, 1000): at 3330 (cycle 2330) level 1 is lifted and
      A wins: A 1320, 3340; B 2330, 4350."""
    keys = SMALL[:4] + ["gpu.preset=h100", "gpu.gpcs=1", "gpu.sms_per_gpc=2", "cwd.grid_launch_cycles=200",
                        "cwd.policy=cga", "cwd.query_cycles=8", "cwd.mask_launch_cycles=1",
                        "cwd.id_broadcast_cycles=1", "cwd.admission=channels"]
    shape = ["--tenants", "2", "--queues", "2", "--kernels", "2", "--grid", "8", "--block", "768", "--regs", "32",
             "--smem", "0", "--cta-ns", "1000", "--submit-ns", "10", "--chain", "s"]

    def waves(trace, *extra):
        log = os.path.join(TMP, "ctas.csv")
        cmd = [os.path.join(BUILD, "gdsim"), "replay", trace, "--quiet", "--absolute-times", "--cta-log", log]
        for k in keys + list(extra):
            cmd += ["--set", k]
        r = subprocess.run(cmd, capture_output=True, text=True)
        assert r.returncode == 0, r.stderr
        out = {}
        for row in csv.DictReader(open(log)):
            out.setdefault(int(row["kernel_index"]), set()).add(float(row["launch_ns"]))
        return {k: sorted(v) for k, v in out.items()}

    equal = gen("prio_eq", *shape)
    assert waves(equal) == {0: [1320, 2330], 1: [3340, 4350]}, waves(equal)
    ranked = gen("prio_b", *shape, "--priority", "0:1", "--priority", "1:0")
    assert waves(ranked) == {0: [1320, 4350], 1: [2330, 3340]}, waves(ranked)
    assert waves(ranked, "cwd.priority_windows=2000,1000") == {0: [1320, 3340], 1: [2330, 4350]}
    # inorder ignores priorities: the oldest kernel's CTAs first
    assert waves(ranked, "cwd.admission=inorder") == {0: [1320, 2330], 1: [3340, 4350]}
    print("admission: a42 ties, priorities and a priority window decide which kernel a step serves")


def check_default_unchanged():
    """The default (cs.policy=aql) is the packet processor's HSA semantics: the same
    kernel times with the scheduler block in between as the hand-worked tests of
    test_replay.c (checked there); here: the fig 6 queue, all packets with the
    barrier bit, runs one kernel after the other."""
    t = gen("fig6", "--seed-fig6")
    rows, js = replay(t, *SMALL)
    assert js["scheduler"]["policy"] == "aql"
    ends = [ns(r, "end_ns") for r in rows]
    firsts = [ns(r, "first_cta_ns") for r in rows]
    assert all(firsts[i + 1] > ends[i] for i in range(6)), (firsts, ends)
    assert all(r["wq"] == "" and r["engine"] == "" for r in rows)
    print("aql: seed fig 6's queue runs in order, one after the other")


def check_bad_tenant():
    """Format 1.6's tenant field: every malformed case is an error naming the record and
    the field; random corruptions of it never crash the reader."""
    import gzip
    import random
    import struct
    sys.path.insert(0, os.path.join(HERE, "..", "scripts"))
    import gdtrace

    def run(path):
        return subprocess.run([os.path.join(BUILD, "gdsim"), "dump", path], capture_output=True, text=True)

    cases = [
        (6, (70000, 1, 0), "VID 70000 is too large"),
        (6, (3, 8, 0), "command flag 3 (independent) in a version 1.6 trace (needs 1.7)"),
        (7, (3, 16, 0), "command flags 0x10"),
        (6, (3, 1, 9 << 8), "priority 9 (levels are 0, the highest, to 7)"),
        (6, (3, 1, 1), "tenant field reserved bytes 6-7 are not zero"),
        (5, (3, 1, 0), "tenant field (VID and flags) in a version 1.5 trace (needs 1.6)"),
    ]
    for i, (minor, (vid, flags, res), why) in enumerate(cases):
        path = os.path.join(TMP, "bad%d.gdt.gz" % i)
        w = gdtrace.TraceWriter(path, gdtrace.Device("dev", (9, 0), 132, 2048, 65536, 233472, 49152, 232448, 1024,
                                                     32, [18, 18, 16, 16, 16, 16, 16, 16]), "test", minor=minor)
        w.kernel(1, "k", 128, 32, 0, 0, cta_ps=1000000)
        w.minor = max(minor, 6)
        w.dispatch(0, 1000, 1, (128, 1, 1), (4, 1, 1), 0, True, 0, tenant=(0, 0))
        # patch the last record's tenant field in place: rewrite the file from the records
        w.close()
        data = bytearray(gzip.open(path).read())
        end = len(data) - 24  # the end record: 8-byte frame + 16 bytes
        struct.pack_into("<IB", data, end - 8, vid, flags)
        data[end - 3] = res >> 8       # byte 5: the priority
        data[end - 2] = res & 0xff     # byte 6: reserved
        with gzip.open(path, "wb") as f:
            f.write(bytes(data))
        r = run(path)
        assert r.returncode == 1 and why in r.stderr and "record 2" in r.stderr, (why, r.stderr)
    # random corruptions of a valid 1.6 trace's tenant fields: an error or a clean read, never a crash
    rng = random.Random(11)
    good = gen("tenants4", "--tenants", "4", "--kernels", "12", "--grid", "4", "--block", "128", "--regs", "32",
               "--smem", "0", "--cta-ns", "1000", "--fail", "1:1")
    clean = bytearray(gzip.open(good).read())
    for n in range(60):
        data = bytearray(clean)
        rec = rng.randrange(12)
        # records: header, kernel, then 12 dispatches of 8 + 144 bytes, then the end record
        hdr_len = struct.unpack_from("<I", data, 16 + 4)[0]
        pos = 16 + 8 + hdr_len
        pos += 8 + struct.unpack_from("<I", data, pos + 4)[0]  # the kernel record
        pos += rec * (8 + 144) + 8 + 136 + rng.randrange(8)
        data[pos] ^= 1 << rng.randrange(8)
        path = os.path.join(TMP, "flip.gdt.gz")
        with gzip.open(path, "wb") as f:
            f.write(bytes(data))
        r = run(path)
        assert r.returncode in (0, 1), (n, r.returncode, r.stderr)
        if r.returncode == 1:
            assert "record" in r.stderr, r.stderr
    print("tenant field: 5 malformed cases named, 60 random corruptions read or refused cleanly")


check_fig6()
check_bad_tenant()
check_failure()
check_wq_exhaustion()
check_tenants()
check_physical_queues()
check_copy_engine()
check_admission_priorities()
check_default_unchanged()
print("sched: ok")
