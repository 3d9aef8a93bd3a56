/* select.h - the module selector's decisions (seed 001 embodiments 9 and 10), pure C.
 *
 * Among the candidate SMs (execution modules) that can take a CTA:
 *  - weighted (emb. 9, i1-i4): the one with the largest sum over resources h of
 *    a_h x r_h, r_h its remaining amount of resource h; gdsim counts r_h as a
 *    fraction of the SM's capacity (warp slots, CTA slots, shared memory, registers),
 *    so that the weights compare alike units;
 *  - power (emb. 10, j1-j4): the one with the least sum over instruction classes s of
 *    b_s x c_s, c_s its instructions of class s in the last nx cycles: gdsim keeps each
 *    SM's CTAs as segments of energy (b_s x instructions, spread evenly over the CTA's
 *    run) and takes their energy inside the window [now - nx, now].
 * Ties go to the lowest SM index. */
#ifndef GD_SELECT_H
#define GD_SELECT_H

#include <stddef.h>
#include <stdint.h>

#include "config.h"
#include "gd_util.h"
#include "occupancy.h"

#ifdef __cplusplus
extern "C" {
#endif

enum gd_select_policy { GD_SELECT_LAKE = 0, GD_SELECT_WEIGHTED = 1, GD_SELECT_POWER = 2 };

/* Resources of emb. 9, in the order of select.resource_weights. */
enum { GD_RES_WARPS = 0, GD_RES_CTAS, GD_RES_SMEM, GD_RES_REGS, GD_RES_KINDS };

/* emb. 9's total remaining weight of an SM (weights a_h per GD_RES_*). */
double gd_select_weight(const gd_sm_res *res, const gd_sm_limits *sm, const uint32_t *a);

/* The candidate (free_slots[i] > 0) of the largest weight; -1 when none. */
int32_t gd_select_weighted(const uint32_t *free_slots, const gd_sm_res *res, uint32_t n, const gd_sm_limits *sm,
                           const uint32_t *a);

/* An SM's energy history: segments (start, end, energy) of the CTAs it ran. */
typedef struct gd_energy_seg {
    gd_time_ps start, end;
    uint64_t energy_fj;
} gd_energy_seg;

typedef struct gd_energy_hist {
    gd_energy_seg *v;
    size_t n, cap;
} gd_energy_hist;

void gd_ehist_init(gd_energy_hist *h);
void gd_ehist_free(gd_energy_hist *h);
/* A CTA's energy spread over [start, end). 0, or -1 when out of memory. */
int gd_ehist_add(gd_energy_hist *h, gd_time_ps start, gd_time_ps end, uint64_t energy_fj);
/* emb. 10's tb: the energy (fJ) inside [now - window, now]; segments that ended
 * before the window are dropped. */
double gd_ehist_window(gd_energy_hist *h, gd_time_ps now, gd_time_ps window);

/* The candidate of the least energy in the window, counting `pending[i]` (fJ, the
 * CTAs this step has already put on SM i) on top; -1 when none. */
int32_t gd_select_power(const uint32_t *free_slots, const double *recent_fj, const double *pending, uint32_t n);

#ifdef __cplusplus
}
#endif

#endif
