#!/usr/bin/env python3
"""The scripts' bad-input suite (issue 42, items 5 and 9): each case is what a hostile
probe of the scripts found, and must end in one line on stderr saying what is wrong,
with a non-zero exit status: no traceback, no hang (a FIFO nobody writes to), no input
overwritten, no file left under an output's name or a temporary one. Each case failed
before its fix. Usage: python3 tb/test_scripts_bad.py BUILD_DIR"""
import os
import re
import signal
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
B = os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else os.path.join(ROOT, "build"))
G = os.path.join(B, "gdsim")
S = os.path.join(ROOT, "scripts")
SAMPLE = os.path.join(ROOT, "traces", "sample.gdt.gz")
CAP = os.path.join(ROOT, "tb", "data", "kineto", "a100_triton_1_kernel.json.gz")
SHAPE = ["--kernels", "2", "--grid", "8", "--block", "64", "--regs", "32", "--smem", "0", "--cta-ns", "1000"]


def run(script, *args, timeout=60):
    return subprocess.run([sys.executable, os.path.join(S, script)] + list(args), capture_output=True, text=True,
                          errors="replace", timeout=timeout, cwd=T)


def bad(script, args, code, pattern, timeout=60):
    """The script ends with `code` and one line matching `pattern`, no traceback."""
    try:
        r = run(script, *args, timeout=timeout)
    except subprocess.TimeoutExpired:
        raise AssertionError("%s %s: no answer in %d s (a hang)" % (script, args, timeout))
    lines = r.stderr.strip().splitlines()
    assert r.returncode == code, (script, args, r.returncode, r.stderr[-600:])
    assert len(lines) == 1 and "Traceback" not in r.stderr, (script, args, r.stderr[-600:])
    assert re.search(pattern, lines[0]), (script, args, lines[0], pattern)
    assert not [n for n in os.listdir(T) if ".part-" in n], (script, args, os.listdir(T))
    return lines[0]


def write(name, text, mode="w"):
    with open(os.path.join(T, name), mode) as f:
        f.write(text)
    return name


def main():
    global T
    with tempfile.TemporaryDirectory(prefix="gdsim-scripts-bad-") as T:
        cases(T)


def cases(t):
    n = 0
    subprocess.run([G, "replay", SAMPLE, "--quiet", "--kernels-csv", "k.csv", "--occupancy-csv", "occ.csv",
                    "--timeline", "tl.json", "--vcd", "w.vcd"], cwd=t, check=True)
    os.mkfifo(os.path.join(t, "fifo"))

    # inputs that are FIFOs with no writer: an answer, not a wait for ever
    for script, args in (("plot.py", ["occupancy", "fifo", "-o", "x.png"]), ("kineto2gdt.py", ["fifo", "x.gdt.gz"]),
                         ("gen_trace.py", ["x.gdt.gz", "--pipeline", "fifo"]), ("validate.py", ["fifo"]),
                         ("calibrate.py", ["fifo"]), ("admission_pairs.py", ["fifo"]),
                         ("compare_policies.py", ["fifo"])):
        bad(script, args, 2 if script == "gen_trace.py" else 1, r"fifo: (empty|no rows)", timeout=30)
        n += 1
    # an output that is an input of the run (a link to one included) is refused, the input kept
    topo = write("t.topo", "topology t\n")
    bad("gen_trace.py", [topo, "--pipeline", topo], 1, r"t\.topo: is an input of this run")
    img = write("i.topo", open(os.path.join(ROOT, "traces", "topologies", "image.topo")).read())
    bad("compare_policies.py", [img, "--lengths", "1", "--gdsim", G, "-o", img], 1, r"i\.topo: is an input",
        timeout=120)
    os.symlink("occ.csv", os.path.join(t, "l.png"))
    occ = open(os.path.join(t, "occ.csv")).read()
    bad("plot.py", ["occupancy", "occ.csv", "-o", "l.png"], 1, r"l\.png: is an input of this run")
    assert open(os.path.join(t, "occ.csv")).read() == occ and open(os.path.join(t, topo)).read() == "topology t\n"
    n += 3
    # --keep's names are the script's: a link there to the capture is refused, not written through
    os.mkdir(os.path.join(t, "keep"))
    cap = os.path.join(t, "keep", "cap.json.gz")
    with open(CAP, "rb") as f, open(cap, "wb") as o:
        o.write(f.read())
    os.symlink("cap.json.gz", os.path.join(t, "keep", "cap.kernels.csv"))
    bad("validate.py", [cap, "--keep", "keep", "--gdsim", G], 1, r"is the capture \(--keep keep\); refusing")
    assert open(cap, "rb").read() == open(CAP, "rb").read()
    n += 1
    # tracebacks before: plot.py
    write("nan.csv", "start_ns,gpu,sm0\n0,1,2\nnan,1,2\n")
    write("short.csv", "start_ns,gpu,sm0\n0,1,2\n10,1\n")
    write("cell.csv", "start_ns,gpu,sm0\n0,1,2\n10,1,x\n")
    write("dup.csv", "start_ns,gpu,sm0,sm0\n0,1,2,2\n")
    write("t1.json", '{"traceEvents": 5}')
    write("t2.json", '{"traceEvents": [1]}')
    write("t3.json", '{"traceEvents": [{"ph": "X", "pid": 1, "tid": 1, "ts": "a", "dur": 1, "name": "n"}]}')
    write("t4.json", '{"traceEvents": []}')
    write("deep.json", "[" * 100000)
    for args, code, pattern in (
            (["occupancy", "nan.csv", "-o", "a.png"], 1, r"nan\.csv: line 3: start_ns='nan' is not a finite number"),
            (["occupancy", "short.csv", "-o", "a.png"], 1, r"short\.csv: line 3: fewer cells than the header's 3"),
            (["occupancy", "cell.csv", "-o", "a.png"], 1, r"cell\.csv: line 3: sm0='x' is not a finite number"),
            (["occupancy", "dup.csv", "-o", "a.png"], 1, r"dup\.csv: column sm0 given twice"),
            (["occupancy", "occ.csv", "-o", "a.png", "--interval", "0"], 2, r"--interval: '0': want a finite number"),
            (["occupancy", "occ.csv", "-o", "a.png", "--interval", "nan"], 2, r"--interval: 'nan'"),
            (["timeline", "t1.json", "-o", "a.png"], 1, r"t1\.json: not a gdsim timeline: no traceEvents list"),
            (["timeline", "t2.json", "-o", "a.png"], 1, r"t2\.json: traceEvents\[0\]: not an object"),
            (["timeline", "t3.json", "-o", "a.png"], 1, r"traceEvents\[0\]: ts is 'a', not a finite number"),
            (["timeline", "t4.json", "-o", "a.png"], 1, r"t4\.json: no slice to draw"),
            (["timeline", "deep.json", "-o", "a.png"], 1, r"an input is nested too deeply"),
            (["timeline", "tl.json", "-o", "a.png", "--window", "0,inf"], 2, r"--window 0,inf: two times"),
            (["timeline", "tl.json", "-o", "a.png", "--max-tracks=-5"], 2, r"--max-tracks: '-5'"),
            (["waves", "w.vcd", "-o", "a.png", "--signals", "("], 2, r"--signals: '\(' is not a regular expression"),
            (["gantt", "k.csv", "-o", "a.png", "--window", "1000,2000"], 1, r"no kernel in the window")):
        bad("plot.py", args, code, pattern)
        n += 1
    assert not os.path.exists(os.path.join(t, "a.png"))
    # gen_trace.py: numbers past their fields, VIDs past the tenants, bad text
    for extra, pattern in (
            (["--regs", "4294967296"], r"--regs 4294967296: at most 255"),
            (["--smem", "10000000"], r"--smem 10000000: more than the h100's"),
            (["--insn", "fp32=\u00b2"], r"--insn: 'fp32=\u00b2' is not CLASS=N"),
            (["--insn", "fp32=1,fp32=2"], r"fp32 given twice"),
            (["--tenants", "70000"], r"--tenants 70000: at most 65536"),
            (["--tenants", "2", "--fail", "99:1"], r"--fail 99:1: VID 99, but --tenants 2"),
            (["--grid", "8,100000000000"], r"--grid: 100000000000 CTAs along Y")):
        args = SHAPE + extra
        if "--grid" in extra:
            args = [a for i, a in enumerate(SHAPE) if i not in (4, 5)] + extra
        bad("gen_trace.py", ["x.gdt.gz"] + args, 2, pattern)
        n += 1
    write("empty.topo", "")
    bad("gen_trace.py", ["x.gdt.gz", "--pipeline", "empty.topo"], 2, r"empty\.topo: empty: not a topology")
    bad("gen_trace.py", ["nodir/x.gdt.gz"] + SHAPE, 1, r"gen_trace\.py: nodir/x\.gdt\.gz: No such file")
    bad("gen_trace.py", [""] + SHAPE, 1, r"an empty output path")
    assert not os.path.exists(os.path.join(t, "x.gdt.gz"))
    n += 3
    # validate.py, calibrate.py, admission_pairs.py: values out of range, a gdsim that fails
    bad("validate.py", [CAP, "--queued-us", "inf"], 2, r"--queued-us: 'inf': want a finite number")
    bad("validate.py", [CAP, "--stall-us=-1"], 2, r"--stall-us: '-1'")
    bad("validate.py", [CAP, "--gdsim", "/bin/false"], 1, r"--gdsim /bin/false: the replay failed \(exit 1\)")
    bad("calibrate.py", [CAP, "--min-samples", "0"], 2, r"--min-samples: '0': want a finite whole number")
    bad("admission_pairs.py", [CAP, "--device", "99"], 1, r"no kernel on device 99")
    n += 5
    # argparse's own errors are one line too
    bad("plot.py", [], 2, r"^plot\.py: error: the following arguments are required: what \(see plot\.py --help\)")
    n += 1
    # a Ctrl-C or SIGTERM while an output is being written leaves nothing behind
    p = subprocess.Popen([sys.executable, os.path.join(S, "gen_trace.py"), "big.gdt.gz", "--kernels", "3000000",
                          "--grid", "1", "--block", "64", "--regs", "32", "--smem", "0", "--cta-ns", "10"],
                         cwd=t, stderr=subprocess.PIPE, text=True)
    deadline = time.time() + 20
    while time.time() < deadline and not [x for x in os.listdir(t) if x.startswith("big.gdt.gz.part-")]:
        time.sleep(0.05)
    p.send_signal(signal.SIGTERM)
    err = p.communicate(timeout=30)[1]
    assert p.returncode == 143 and "Traceback" not in err, (p.returncode, err)
    assert not [x for x in os.listdir(t) if x.startswith("big.gdt.gz")], os.listdir(t)
    n += 1
    print("scripts' bad input: %d cases, one line each, no hang, no input overwritten, nothing left: ok" % n)


if __name__ == "__main__":
    main()
