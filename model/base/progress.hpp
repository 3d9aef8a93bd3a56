// progress.hpp - progress reports during a replay (instrumentation, not a hardware
// block): blocks that do long stretches of work call tick(); at most about twice a
// second of wall time the user's callback gets the counters, read through pointers
// the shim sets (any may be null).
#ifndef GD_PROGRESS_HPP
#define GD_PROGRESS_HPP

#include <time.h>

#include "gdsim.h"
#include "gd_util.h"

namespace gd {

struct progress_meter {
    gd_progress_fn fn = nullptr;
    void *ctx = nullptr;
    uint64_t (*records_read)(const void *src) = nullptr;  // trace records read so far
    const void *records_src = nullptr;
    double (*input_fraction)(const void *src) = nullptr;      // of the trace file read, -1 unknown
    const uint64_t *kernels_done = nullptr;
    const uint64_t *ctas_done = nullptr;
    double start = now(), last = start;
    unsigned calls = 0;

    static double now()
    {
        struct timespec ts;
        clock_gettime(CLOCK_MONOTONIC, &ts);
        return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
    }
    // Cheap enough to call per event: the clock is read every 256th call.
    void tick(gd_time_ps sim_time, bool force = false)
    {
        if (!fn || (!force && (++calls & 255) != 0))
            return;
        double w = now();
        if (!force && w - last < 0.5)
            return;
        last = w;
        gd_progress p;
        p.records_read = records_read ? records_read(records_src) : 0;
        p.kernels_done = kernels_done ? *kernels_done : 0;
        p.ctas_done = ctas_done ? *ctas_done : 0;
        p.sim_time_ns = sim_time / GD_PS_PER_NS;
        p.wall_seconds = w - start;
        p.input_fraction = input_fraction ? input_fraction(records_src) : -1.0;
        fn(ctx, &p);
    }
};

}  // namespace gd

#endif
