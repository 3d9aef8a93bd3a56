/* exec.h - the SM's execution-time model, pure C.
 *
 * Every CTA of a dispatch runs for the dispatch's per-CTA duration (from its kernel
 * descriptor, or given by the dispatch itself: format 1.1 launch info), independent
 * of what else shares the SM; a dispatch with a wait-until time (format 1.3: a kernel
 * that waits inside for work outside the modelled GPU, such as a collective waiting
 * for its peer GPUs) keeps each CTA running at least until that time. A replay may
 * scale the durations (sm.cta_time_scale: the what-if of a faster or slower SM); the
 * wait-until times stay, as the peers' are not the modelled GPU's. */
#ifndef GD_EXEC_H
#define GD_EXEC_H

#include "packet.h"

#ifdef __cplusplus
extern "C" {
#endif

/* A CTA duration times sm.cta_time_scale (ppm: millionths), rounded to the nearest ps
 * (a what-if on a capture: its measured times, faster or slower). */
static inline gd_time_ps gd_cta_time_scaled(gd_time_ps ps, uint32_t ppm) { return gd_scale_ps(ps, ppm); }

static inline gd_time_ps gd_cta_exec_time(const gd_kernel_run *k, gd_time_ps start)
{
    if (k->wait_until > start && k->wait_until - start > k->cta_ps)
        return k->wait_until - start;
    return k->cta_ps;
}

#ifdef __cplusplus
}
#endif

#endif
