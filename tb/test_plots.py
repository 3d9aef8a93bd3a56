#!/usr/bin/env python3
"""scripts/plot.py: each picture (occupancy heat map, per-stage latency CDF, Gantt of
kernels per queue with the capture's measured times, timeline, waveforms) made from a replay's
outputs, as PNG and SVG; bad inputs end in a one-line error.
Usage: python3 tb/test_plots.py BUILD_DIR"""
import os
import subprocess
import sys
import tempfile
import xml.dom.minidom

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.join(HERE, "..")
BUILD = sys.argv[1] if len(sys.argv) > 1 else "build"
PLOT = os.path.join(ROOT, "scripts", "plot.py")


def run(*args, ok=True):
    r = subprocess.run([sys.executable, PLOT] + list(args), capture_output=True, text=True)
    if ok:
        assert r.returncode == 0, (args, r.stderr)
    return r


def main():
    with tempfile.TemporaryDirectory(prefix="gdsim-plots-") as t:
        trace = os.path.join(t, "alex.gdt.gz")
        subprocess.run([sys.executable, os.path.join(ROOT, "scripts", "kineto2gdt.py"), "-q",
                        os.path.join(ROOT, "tb", "data", "kineto", "a100_alexnet_79_kernels.json.gz"), trace],
                       check=True)
        occ, kcsv, tl, vcd = (os.path.join(t, n) for n in ("occ.csv", "k.csv", "tl.json", "w.vcd"))
        subprocess.run([os.path.join(BUILD, "gdsim"), "replay", trace, "--quiet", "--occupancy-csv", occ,
                        "--kernels-csv", kcsv, "--timeline", tl, "--interval", "2000", "--vcd", vcd], check=True)
        window = ["--window", "10900,10960"]   # the training steps after the host's pause
        for kind, src, extra in (("occupancy", occ, window), ("latency", kcsv, []), ("gantt", kcsv, window),
                                 ("timeline", tl, window), ("occupancy", occ, ["--by", "gpc"]),
                                 ("waves", vcd, window)):
            for ext in ("png", "svg"):
                out = os.path.join(t, "%s.%s" % (kind, ext))
                run(kind, src, "-o", out, *extra)
                data = open(out, "rb").read()
                if ext == "png":
                    assert data.startswith(b"\x89PNG\r\n\x1a\n") and len(data) > 5000, (kind, len(data))
                else:
                    doc = xml.dom.minidom.parseString(data)   # well-formed SVG
                    assert doc.documentElement.tagName == "svg"
                    assert len(doc.getElementsByTagName("path")) > 10, kind
                os.remove(out)
        # bad inputs: one line naming the file, exit 1
        bad = os.path.join(t, "bad.csv")
        open(bad, "w").write("a,b\n1,2\n")
        for kind, src, want in (("occupancy", bad, "no column start_ns"), ("latency", bad, "no column"),
                                ("timeline", bad, "not a gdsim timeline"), ("waves", bad, "not a VCD"),
                                ("gantt", os.path.join(t, "none.csv"), "cannot read")):
            r = run(kind, src, "-o", os.path.join(t, "x.png"), ok=False)
            assert r.returncode == 1 and want in r.stderr and src in r.stderr and "Traceback" not in r.stderr, \
                (kind, r.stderr)
            assert len(r.stderr.strip().splitlines()) == 1, r.stderr
        r = run("latency", kcsv, "-o", os.path.join(t, "x.jpg"), ok=False)
        assert r.returncode == 1 and ".png or .svg" in r.stderr, r.stderr
        r = run("occupancy", occ, "-o", os.path.join(t, "x.png"), "--window", "5,1", ok=False)
        assert r.returncode == 2 and "--window" in r.stderr, r.stderr
        r = run("waves", vcd, "-o", os.path.join(t, "x.png"), "--signals", "no_such_signal", ok=False)
        assert r.returncode == 1 and "no signal matches" in r.stderr, r.stderr
        assert sorted(os.listdir(t)) == sorted(["alex.gdt.gz", "occ.csv", "k.csv", "tl.json", "w.vcd", "bad.csv"]), \
            os.listdir(t)
    print("plots: ok")


if __name__ == "__main__":
    main()
