"""scripts/gen_trace.py: reproducible output, argument checks, and traces that gdsim
replays with the asked-for shape. Usage: python3 tb/test_gen_trace.py BUILD_DIR"""
import csv
import gzip
import os
import subprocess
import sys
import tempfile

BUILD = sys.argv[1] if len(sys.argv) > 1 else "build"
GEN = [sys.executable, "scripts/gen_trace.py"]


def gen(path, *extra):
    args = ["--kernels", "6", "--grid", "300", "--block", "128", "--regs", "40", "--smem", "2048",
            "--cta-ns", "1500", "--queues", "3"]
    return subprocess.run(GEN + [path] + args + list(extra), capture_output=True, text=True)


def main():
    with tempfile.TemporaryDirectory() as d:  # removed whether the test passes or fails
        check_all(d)


def check_all(d):
    a, b, c = (os.path.join(d, n) for n in ("a.gdt.gz", "b.gdt.gz", "c.gdt.gz"))
    assert gen(a, "--seed", "5").returncode == 0
    assert gen(b, "--seed", "5").returncode == 0
    assert gen(c, "--seed", "6").returncode == 0
    assert open(a, "rb").read() == open(b, "rb").read(), "same seed, same bytes"
    assert open(a, "rb").read() != open(c, "rb").read(), "another seed, another trace"
    assert subprocess.run(["gzip", "-t", a]).returncode == 0, "a gzip stream"

    out = os.path.join(d, "k.csv")
    r = subprocess.run([os.path.join(BUILD, "gdsim"), "replay", a, "--quiet", "--kernels-csv", out],
                       capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    rows = list(csv.DictReader(open(out)))
    assert len(rows) == 6
    for row in rows:
        assert row["grid_ctas"] == "300" and row["threads_per_cta"] == "128"
        assert row["regs_per_thread"] == "40" and row["smem_bytes"] == "2048"
    assert {row["queue"] for row in rows} <= {"0", "1", "2"}

    for bad in (["--block", "2048"], ["--kernels", "0"], ["--regs", "-1"], ["--device", "b200"]):
        args = ["--kernels", "1", "--grid", "1", "--block", "32", "--regs", "1", "--smem", "0", "--cta-ns", "1"]
        for i in range(0, len(bad), 2):
            if bad[i] in args:
                args[args.index(bad[i]) + 1] = bad[i + 1]
            else:
                args += bad[i:i + 2]
        r = subprocess.run(GEN + [os.path.join(d, "x.gdt.gz")] + args, capture_output=True, text=True)
        assert r.returncode == 2, (bad, r.returncode)
        assert "error" in r.stderr, r.stderr
    # several kernel shapes: --regs and --cta-ns lists, taken in turn by the kernels
    sh = os.path.join(d, "sh.gdt.gz")
    assert gen(sh, "--regs", "32;96;255", "--cta-ns", "1000;3000").returncode == 0
    r = subprocess.run([os.path.join(BUILD, "gdsim"), "replay", sh, "--quiet", "--kernels-csv", out],
                       capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    rows = list(csv.DictReader(open(out)))
    assert [row["regs_per_thread"] for row in rows] == ["32", "96", "255"] * 2, rows
    assert [row["name"].split("_")[-1] for row in rows] == ["t1000", "t3000", "t1000"] * 2, rows
    for bad in ("32;x", "32;-4"):
        r = gen(os.path.join(d, "x.gdt.gz"), "--regs", bad)
        assert r.returncode == 2 and "--regs" in r.stderr, r.stderr
    # clusters (format 1.4): a 3-D grid of 2x2x1 multicast clusters, 3 per GPU-CGA
    sys.path.insert(0, "scripts")
    import gdtrace
    cl = os.path.join(d, "cl.gdt.gz")
    r = subprocess.run(GEN + [cl, "--kernels", "2", "--grid", "12,4,2", "--block", "64", "--regs", "32", "--smem", "0",
                              "--cta-ns", "100", "--cluster", "2,2", "--gpu-cga", "3", "--cluster-mode", "multicast"],
                       capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    recs = gdtrace.read(cl)
    disp = [x for x in recs if x["type"] == gdtrace.REC_DISPATCH]
    assert len(disp) == 2 and all(x["grid"] == (12, 4, 2) and x["cluster"] == (2, 2, 1, 3, 1) for x in disp), disp
    r = subprocess.run([os.path.join(BUILD, "gdsim"), "replay", cl, "--quiet", "--kernels-csv", out],
                       capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    assert [row["grid_ctas"] for row in csv.DictReader(open(out))] == ["96", "96"]
    # without a cluster option the trace stays format 1.0, byte for byte as before
    assert gzip.open(a).read(12)[8:12] == b"\x01\x00\x00\x00"   # major 1, minor 0
    for bad, what in ((["--cluster", "5"], "not a multiple of the cluster's 5"),
                      (["--cluster", "2", "--gpu-cga", "4"], "not a multiple of it"),
                      (["--grid", "2,0"], "must be a positive integer"),
                      (["--cluster", "1,1,1,1"], "expected X, X,Y or X,Y,Z")):
        r = subprocess.run(GEN + [os.path.join(d, "x.gdt.gz"), "--kernels", "1", "--grid", "6", "--block", "32",
                                  "--regs", "1", "--smem", "0", "--cta-ns", "1"] + bad, capture_output=True, text=True)
        assert r.returncode == 2 and what in r.stderr, (bad, r.stderr)
    # a cluster the modelled GPU can never launch fails the replay, naming the reason
    big = os.path.join(d, "big.gdt.gz")
    assert subprocess.run(GEN + [big, "--kernels", "1", "--grid", "40", "--block", "64", "--regs", "32", "--smem",
                                 "0", "--cta-ns", "1", "--cluster", "20", "--cluster-mode", "multicast"]).returncode == 0
    r = subprocess.run([os.path.join(BUILD, "gdsim"), "replay", big, "--preset", "h100", "--quiet"],
                       capture_output=True, text=True)
    assert r.returncode == 1 and "a multicast cluster of 20 CTAs needs 20 SMs of one GPC" in r.stderr, r.stderr
    check_output_file(d)
    print("gen_trace: ok")


def check_output_file(d):
    """gdtrace.OutputFile, through which every script writes: whole or nothing."""
    sys.path.insert(0, "scripts")
    import gdtrace
    out = os.path.join(d, "o.txt")
    leftovers = lambda: [n for n in os.listdir(d) if ".part-" in n]  # noqa: E731
    try:  # an exception in the block: nothing written, no temporary file
        with gdtrace.OutputFile(out) as f:
            f.write("half")
            raise RuntimeError("stop")
    except RuntimeError:
        pass
    assert not os.path.exists(out) and not leftovers(), os.listdir(d)
    with gdtrace.OutputFile(out) as f:  # whole, with a new file's permissions
        f.write("whole")
    mask = os.umask(0)
    os.umask(mask)
    assert open(out).read() == "whole" and os.stat(out).st_mode & 0o777 == 0o666 & ~mask and not leftovers()
    with gdtrace.OutputFile(out) as f:  # replaced whole
        f.write("again")
    assert open(out).read() == "again"
    try:  # an input of the run is refused, a link to it too
        gdtrace.OutputFile(out, inputs=(out,))
        raise AssertionError("an input was taken as the output")
    except ValueError as e:
        assert "is an input of this run" in str(e), e
    assert open(out).read() == "again"
    # a script that ends by an exception (or Ctrl-C) with an output open leaves no temporary file
    code = ("import sys; sys.path.insert(0, 'scripts'); import gdtrace; "
            "w = gdtrace.TraceWriter(%r, gdtrace.Device('x', (9, 0), 132, 2048, 65536, 233472, 49152, 232448, 1024, 32), "
            "'t'); raise KeyboardInterrupt" % os.path.join(d, "t.gdt.gz"))
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert r.returncode != 0 and "KeyboardInterrupt" in r.stderr, r.stderr
    assert not os.path.exists(os.path.join(d, "t.gdt.gz")) and not leftovers(), os.listdir(d)
    # a link at the output's name is replaced, its target untouched (as the library does)
    victim = os.path.join(d, "victim")
    open(victim, "w").write("precious")
    link = os.path.join(d, "link.txt")
    os.symlink(victim, link)
    with gdtrace.OutputFile(link) as f:
        f.write("out")
    assert open(victim).read() == "precious" and not os.path.islink(link) and open(link).read() == "out"
    # gen_trace.py replaces an existing file whole
    r = gen(out, "--seed", "5")
    assert r.returncode == 0 and not leftovers()


if __name__ == "__main__":
    main()
