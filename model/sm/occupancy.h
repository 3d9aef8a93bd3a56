/* occupancy.h - NVIDIA occupancy rules and per-SM resource accounting.
 *
 * Pure C, no simulator. The rules are those of NVIDIA's occupancy calculator
 * (cuda_occupancy.h) as summarised in shared/data/kineto/README.md:
 *   warps:     floor(max_warps / ceil(threads / 32))
 *   registers: regs per warp = roundup(regs * 32, reg_alloc_unit); pooled per SM
 *              sub-partition: floor(floor((regs_per_sm / subparts) / regs_per_warp) * subparts / warps)
 *   shared:    per CTA roundup(smem + reserved, smem_alloc_unit), divided into the SM's shared memory
 *   CTA cap:   max_ctas
 * and max CTAs per SM is the smallest of the four. */
#ifndef GD_OCCUPANCY_H
#define GD_OCCUPANCY_H

#include <stdint.h>

#include "config.h"
#include "gd_util.h"

#ifdef __cplusplus
extern "C" {
#endif

/* What limits the CTAs per SM; the order is the tie-break order. */
typedef enum gd_limiter {
    GD_LIMIT_WARPS = 0,
    GD_LIMIT_REGISTERS = 1,
    GD_LIMIT_SHARED_MEMORY = 2,
    GD_LIMIT_CTA_SLOTS = 3
} gd_limiter;

const char *gd_limiter_name(gd_limiter l);

/* The launch shape of one CTA. */
typedef struct gd_cta_shape {
    uint32_t threads;          /* threads per CTA */
    uint32_t regs_per_thread;  /* registers per thread */
    uint32_t smem_bytes;       /* shared memory per CTA, static + dynamic */
} gd_cta_shape;

/* What one CTA takes from an SM, in allocation units. */
typedef struct gd_cta_cost {
    uint32_t warps;          /* warp slots */
    uint32_t regs_per_warp;  /* registers per warp after rounding (0: no registers) */
    uint32_t smem;           /* shared memory bytes after reserve and rounding (0: none) */
    /* derived, for gd_sm_res_take: warps / sub-partitions and the remainder */
    uint32_t sub_warps, sub_extra;
} gd_cta_cost;

typedef struct gd_occupancy {
    gd_cta_cost cost;
    uint32_t by_warps, by_regs, by_smem, by_ctas;  /* CTAs per SM allowed by each limit (UINT32_MAX: no limit) */
    uint32_t max_ctas;                             /* the smallest of the four */
    gd_limiter limiter;
    double theoretical_pct;  /* max_ctas * warps / max_warps * 100 */
} gd_occupancy;

/* Compute the occupancy of a CTA shape on an SM. smem_limit_per_cta is the
 * per-CTA shared memory limit in force (the opt-in limit for what the hardware
 * runs; smem_per_cta_default for the profiler's convention); a CTA above it gets
 * max_ctas = 0 (limiter shared_memory). Returns GD_OK, or GD_EINVAL with err set
 * when the shape is impossible on this SM (no threads, too many threads or
 * registers). */
int gd_occupancy_compute(gd_occupancy *out, const gd_sm_limits *sm, const gd_cta_shape *shape,
                         uint32_t smem_limit_per_cta, gd_err *err);

/* The PyTorch profiler's "est. achieved occupancy %" (Kineto, CudaDeviceProperties.cpp
 * and the Chrome trace logger), bit for bit: blocks per SM = (float)ctas / (float)sms,
 * capped at active_ctas (the occupancy calculator's CTAs per SM); occupancy =
 * blocks per SM * threads / (float)(max_warps * warp_size) in float; the percentage
 * is (int)(0.5 + occupancy * 100.0). The profiler computes active_ctas with the
 * per-CTA shared memory limit without opt-in (so a CTA above 48 KiB gives 0).
 * gd_kineto_occupancy returns the unrounded float occupancy (a fraction of 1). */
float gd_kineto_occupancy(const gd_sm_limits *sm, uint32_t sms, uint64_t ctas, uint32_t threads,
                          uint32_t active_ctas);
int gd_kineto_occupancy_pct(const gd_sm_limits *sm, uint32_t sms, uint64_t ctas, uint32_t threads,
                            uint32_t active_ctas);

struct gd_sm_place;  /* alloc.h */

/* Free resources of one SM, maintained as CTAs launch and retire. */
typedef struct gd_sm_res {
    uint32_t warps;                        /* free warp slots */
    uint32_t ctas;                         /* free CTA slots */
    uint32_t smem;                         /* free shared memory bytes */
    uint32_t nsub;                         /* register sub-partitions */
    uint32_t regs[GD_MAX_SUBPARTITIONS];   /* free registers per sub-partition */
    struct gd_sm_place *place;             /* placement state (alloc.h); NULL: counts only */
    uint32_t spare_[2];                    /* to 64 bytes: one cache line, a shift to index */
} gd_sm_res;

/* Which sub-partitions a launched CTA's warps took registers from; under
 * sm.alloc=contiguous also where its blocks start (in allocation units). */
typedef struct gd_cta_alloc {
    uint8_t warps_in_sub[GD_MAX_SUBPARTITIONS];
    uint16_t reg_start[GD_MAX_SUBPARTITIONS];
    uint16_t smem_start;
} gd_cta_alloc;

/* An empty SM, counts only (place = NULL; a caller that wants placement sets it). */
void gd_sm_res_init(gd_sm_res *res, const gd_sm_limits *sm);

/* How many more CTAs of this cost fit in the SM's free resources ("free slots").
 * On an empty SM this equals gd_occupancy_compute's max_ctas. */
uint32_t gd_sm_res_free_slots(const gd_sm_res *res, const gd_cta_cost *cost);

/* How many more CTAs of this cost the counted rules alone (the pooled rule above)
 * admit: gd_sm_res_free_slots without placement state; with it, an upper bound. */
uint32_t gd_sm_res_count_slots(const gd_sm_res *res, const gd_cta_cost *cost);

/* Take one CTA's resources (the caller has checked free_slots > 0). Warps spread
 * over the register sub-partitions round-robin (see occupancy.c); every warp lands
 * where its registers fit, which keeps the pooled rule above exact. */
void gd_sm_res_take(gd_sm_res *res, const gd_cta_cost *cost, gd_cta_alloc *alloc);

/* Take n CTAs' resources at once, counts only (res->place must be NULL; the caller has
 * checked free_slots >= n): the same state as n gd_sm_res_take calls, with the sums of
 * their allocs' warps_in_sub added to warps_in_sub. */
void gd_sm_res_take_n(gd_sm_res *res, const gd_cta_cost *cost, uint32_t n, uint16_t *warps_in_sub);

/* Give one CTA's resources back. */
void gd_sm_res_give(gd_sm_res *res, const gd_cta_cost *cost, const gd_cta_alloc *alloc);

/* Give n CTAs' resources back at once, counts only (res->place must be NULL):
 * warps_in_sub holds the sums of their allocs' warps_in_sub. The same state as n
 * gd_sm_res_give calls. */
void gd_sm_res_give_n(gd_sm_res *res, const gd_cta_cost *cost, uint32_t n, const uint16_t *warps_in_sub);

#ifdef __cplusplus
}
#endif

#endif
