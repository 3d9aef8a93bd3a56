#!/usr/bin/env python3
"""compare_kernels.py VP_CSV CAPI_CSV ORIGIN_NS: the kernel table gdsim::gpu wrote
(times in simulated ns) against the C API's replay of the same trace (times in the
trace's time base, simulated time 0 = ORIGIN_NS): every column of every kernel equal,
times after the shift, except trace_record (a ring index in the platform)."""
import csv
import sys
from decimal import Decimal


def main():
    vp_path, capi_path, origin = sys.argv[1], sys.argv[2], Decimal(sys.argv[3])
    vp = list(csv.DictReader(open(vp_path)))
    capi = list(csv.DictReader(open(capi_path)))
    if len(vp) != len(capi) or not vp:
        sys.exit(f"{vp_path}: {len(vp)} kernels, {capi_path}: {len(capi)}")
    times = [c for c in capi[0] if c.endswith("_ns") and not c.startswith("measured") and c != "latency_ns"]
    bad = 0
    for a, b in zip(vp, capi):
        for col in b:
            if col == "trace_record":
                continue
            want = b[col]
            if col in times and want != "":
                want = f"{Decimal(want) - origin:.3f}"
            if a[col] != want:
                bad += 1
                if bad <= 10:
                    print(f"kernel {b['kernel_index']}: {col} through the sockets {a[col]}, C API {want}")
    if bad:
        sys.exit(f"{bad} differences")
    print(f"{len(vp)} kernels: every time and figure equal ({len(times)} time columns shifted by {origin} ns)")


main()
