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
    uint64_t (*ctas_read)(const void *src) = nullptr;         // CTAs of the dispatches read so far
    const uint64_t *kernels_done = nullptr;
    const uint64_t *ctas_done = nullptr;
    // Guards: *interrupt set (gd_sim_interrupt, from a signal handler) or the wall-clock
    // deadline passed (the timeout; 0: none) stops the replay: tick() returns false and
    // stop says why.
    const volatile int *interrupt = nullptr;
    double deadline = 0;
    enum { RUNNING, INTERRUPTED, TIMED_OUT } stop = RUNNING;
    double start = now(), last = start;
    unsigned calls = 0;

    static double now()
    {
        struct timespec ts;
        clock_gettime(CLOCK_MONOTONIC, &ts);
        return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
    }
    gd_progress snapshot(gd_time_ps sim_time, double w) const
    {
        gd_progress p;
        p.records_read = records_read ? records_read(records_src) : 0;
        p.kernels_done = kernels_done ? *kernels_done : 0;
        p.ctas_done = ctas_done ? *ctas_done : 0;
        p.sim_time_ns = sim_time / GD_PS_PER_NS;
        p.wall_seconds = w - start;
        p.input_fraction = input_fraction ? input_fraction(records_src) : -1.0;
        p.ctas_read = ctas_read ? ctas_read(records_src) : 0;
        return p;
    }
    // Cheap enough to call per event: the interrupt flag is read every call, the clock
    // every 256th. False: stop the replay (stop says why).
    bool tick(gd_time_ps sim_time, bool force = false)
    {
        if (stop != RUNNING || (interrupt && *interrupt)) {
            if (stop == RUNNING)
                stop = INTERRUPTED;
            return false;
        }
        if ((!fn && !deadline) || (!force && (++calls & 255) != 0))
            return true;
        double w = now();
        if (deadline && w >= deadline) {
            stop = TIMED_OUT;
            return false;
        }
        if (!fn || (!force && w - last < 0.5))
            return true;
        last = w;
        gd_progress p = snapshot(sim_time, w);
        fn(ctx, &p);
        return true;
    }
    // For event_domain::set_poll.
    static bool poll(void *self, gd_time_ps t) { return static_cast<progress_meter *>(self)->tick(t); }
};

}  // namespace gd

#endif
