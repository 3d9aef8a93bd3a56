"""Regression tests of the replay against the shared PyTorch-profiler captures
(../shared/data/kineto), through scripts/validate.py: occupancy agreement, every kernel
exactly once, and the timeline errors within the bounds docs/VALIDATION.md documents.
Usage: python3 tb/test_validate.py BUILD_DIR"""
import contextlib
import io
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "scripts"))
import validate  # noqa: E402

BUILD = sys.argv[1] if len(sys.argv) > 1 else "build"
SHARED = os.path.join(HERE, "data", "kineto")   # copies of ../shared/data/kineto (tb/data/kineto/README.md)
US = 1000.0

# capture, options, bounds: median and p90 of |first CTA - measured start| (ns), |span
# error| (fraction). docs/VALIDATION.md gives the measured values; the bounds leave
# room for small model changes but not for a broken timeline.
CASES = [
    ("a100_train_nccl_2700_kernels", False, 0.5 * US, 3 * US, 1e-4),
    ("a100_alexnet_79_kernels", False, 2 * US, 20 * US, 1e-4),
    ("a100_multistream_events_3_kernels", False, 2 * US, 2 * US, 1e-4),
    ("a100_triton_1_kernel", False, 2 * US, 2 * US, 1e-4),
    ("mi250_minitoy_14_kernels", False, 1 * US, 2 * US, 5e-4),
    # waits rebuilt from the call order, us timestamps, host 20-60 ms ahead: errors
    # accumulate (docs/VALIDATION.md)
    ("v100_train_9876_kernels", False, 1000 * US, 3000 * US, 1e-3),
    ("v100_train_9876_kernels", True, 1500 * US, 3500 * US, 1e-3),
]


def check(name, infer, med, p90, span):
    v = validate.validate(os.path.join(SHARED, name + ".json.gz"),
                          gdsim=os.path.join(BUILD, "gdsim"), infer_waits=infer)
    label = "%s%s" % (name, " --infer-waits" if infer else "")
    assert v["kernels_capture"] == v["kernels_replayed"] and not v["missing"] and not v["extra"], (label, v)
    if name.startswith("mi250"):
        assert v["occupancy_compared"] == 0, v   # ROCm records no occupancy estimate
    else:
        assert v["occupancy_compared"] == v["kernels_capture"] == v["occupancy_equal"], (label, v)
    assert v["start_err_median_ns"] <= med, (label, v["start_err_median_ns"])
    assert v["start_err_p90_ns"] <= p90, (label, v["start_err_p90_ns"])
    assert abs(v["span_rel_err"]) <= span, (label, v["span_rel_err"])
    out = io.StringIO()
    validate.report(v, out)
    return label, out.getvalue()


def main():
    for case in CASES:
        with contextlib.redirect_stdout(io.StringIO()):
            label, text = check(*case)
        print("ok  ", label)
        print(text, end="")
    print("validate: %d captures within their bounds" % len(CASES))


if __name__ == "__main__":
    main()
