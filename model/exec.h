/* exec.h - the SM's execution-time model, pure C.
 *
 * Issue 2: every CTA of a kernel descriptor runs for the descriptor's fixed
 * per-CTA duration, independent of what else shares the SM. */
#ifndef GD_EXEC_H
#define GD_EXEC_H

#include "trace.h"

#ifdef __cplusplus
extern "C" {
#endif

static inline gd_time_ps gd_cta_exec_time(const gd_kernel_desc *d)
{
    return d->cta_duration_ps;
}

#ifdef __cplusplus
}
#endif

#endif
