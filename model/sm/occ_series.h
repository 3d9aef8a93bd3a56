/* occ_series.h - occupancy over time: the SMs' resident warps averaged over fixed
 * intervals of simulated time, streamed as CSV (--occupancy-csv).
 *
 * The distributor tells it each group of CTAs it starts on an SM (warps, start and
 * end: every CTA's run is known when it starts), in order of start time. Each SM's
 * resident warps are a step function; the series integrates it over the intervals
 * [i*I, (i+1)*I) and writes a row for every interval in which some warp was resident
 * (rows of an idle GPU are left out: their values are all zero):
 *
 *   start_ns,gpu,gpc0,...,gpcN-1,sm0,...,smM-1
 *
 * each value the mean resident warps over the interval (the SM's, its GPC's sum, the
 * whole GPU's sum). Exact: the sum over rows of gpu x I is the warp-time integral
 * behind the report's mean occupancy (up to the 4 decimals written).
 * Memory: per SM a few words, and one pending end per group of CTAs resident. */
#ifndef GD_OCC_SERIES_H
#define GD_OCC_SERIES_H

#include <stdint.h>
#include <stdio.h>

#include "gd_util.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct gd_occ_end {
    gd_time_ps end;
    uint32_t sm, warps;
} gd_occ_end;

typedef struct gd_occ_series {
    FILE *f;
    uint32_t nsm, ngpc;
    const uint32_t *gpc_of;   /* the GPC of each SM (nsm entries, owned by the caller) */
    gd_time_ps interval;      /* ps */
    uint64_t base_ns;         /* added to the start times written (the outputs' time base) */
    gd_time_ps bin_start, bin_end;
    gd_time_ps frontier;      /* the latest start seen */
    uint32_t *cur;            /* resident warps per SM now */
    gd_time_ps *last;         /* when each SM's warps last changed (or the bin began) */
    uint64_t *acc;            /* warp x ps per SM in the current interval */
    double *gpc_sum;          /* scratch: a row's GPC columns */
    uint64_t total;           /* resident warps on the GPU now */
    int dirty;                /* the current interval has warp time */
    gd_occ_end *heap;         /* pending ends, a min-heap on end */
    size_t nheap, capheap;
    uint64_t rows;
    /* optional: told each row written (start ps, the GPCs' mean resident warps) */
    void (*on_row)(void *ctx, gd_time_ps start, const double *gpc);
    void *on_row_ctx;
    int io_error, nomem, order_error;
} gd_occ_series;

/* Set up a series of nsm SMs in ngpc GPCs (gpc_of[sm]); interval in ps (> 0). The
 * header is written at once. f may be NULL (rows only to on_row). GD_ENOMEM or GD_EIO. */
int gd_occ_series_init(gd_occ_series *s, FILE *f, uint32_t nsm, uint32_t ngpc, const uint32_t *gpc_of,
                       gd_time_ps interval, uint64_t base_ns);
/* warps start resident on sm at start and leave at end (start <= end); starts must
 * come in non-decreasing order (order_error is set otherwise). */
void gd_occ_series_add(gd_occ_series *s, uint32_t sm, uint32_t warps, gd_time_ps start, gd_time_ps end);
/* Every pending end applied and the last interval written. GD_OK, GD_EIO (a write
 * failed), GD_ENOMEM, or GD_EINTERNAL (starts out of order). */
int gd_occ_series_finish(gd_occ_series *s);
void gd_occ_series_destroy(gd_occ_series *s);

#ifdef __cplusplus
}
#endif

#endif
