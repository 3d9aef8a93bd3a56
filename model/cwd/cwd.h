/* cwd.h - decisions of the compute work distributor (GPU2GPC and GPC2SM), pure C.
 *
 * Foundation policy (issue 2): every CTA goes to the SM with the most free slots
 * for its kernel, lowest SM index on a tie. The GPU2GPC distributor picks the GPC
 * whose best SM has the most free slots (lowest GPC index on a tie) and the GPC2SM
 * distributor picks that SM inside the GPC; since SMs are numbered GPC by GPC the
 * two steps together pick the globally lowest-numbered SM with the most free slots.
 *
 * Like the hardware's resource trackers (seed 003 [0135], [0139]), the GPC2SM
 * distributor tracks each SM's free resources itself; "free slots" are how many
 * more CTAs of the current kernel fit in them (occupancy.h). SMs are kept in
 * per-level bit masks (level = free slots) so the choice is a find-first-set. */
#ifndef GD_CWD_H
#define GD_CWD_H

#include <stdint.h>

#include "config.h"
#include "occupancy.h"

#ifdef __cplusplus
extern "C" {
#endif

struct gd_alloc_cfg;  /* sm/alloc.h */
struct gd_sm_place;

#define GD_MAX_FREE_LEVELS 257  /* free slots 0..256 (sm.max_ctas is at most 256) */

typedef struct gd_gpc_tracker {
    gd_sm_res res[GD_MAX_SMS_PER_GPC];          /* first: where the tracker is 64-byte aligned (gpc2sm.hpp),
                                                   every SM's entry is one cache line */
    /* what every launch or retirement of counts reads or moves (one cache line there) */
    uint32_t max_free;                          /* most free slots of any SM */
    uint32_t free_total;                        /* the sum of the SMs' free slots */
    uint64_t stale;                             /* SMs whose free_slots entry is out of date: a mask's
                                                   placement or release moves its SMs' level bits only */
    uint64_t nonempty[(GD_MAX_FREE_LEVELS + 63) / 64];  /* bit f: level[f] has an SM */
    uint32_t nsm;
    uint32_t selected;                          /* 1 once gd_gpc_select has counted for cost */
    gd_cta_cost cost;                           /* the kernel free slots are counted for */
    uint32_t free_slots[GD_MAX_SMS_PER_GPC];    /* per SM, but for the SMs of `stale` (gd_gpc_sync) */
    uint64_t level[GD_MAX_FREE_LEVELS];         /* bit i: SM i has exactly this many free slots */
} gd_gpc_tracker;

/* Bring every SM's free_slots entry up to date (from the level masks), before
 * reading the array. */
void gd_gpc_sync(gd_gpc_tracker *g);
/* SM sm's free slots (its level). */
uint32_t gd_gpc_free_slots_of(const gd_gpc_tracker *g, uint32_t sm);

static inline int gd_cta_cost_equal(const gd_cta_cost *a, const gd_cta_cost *b)
{
    return a->warps == b->warps && a->regs_per_warp == b->regs_per_warp && a->smem == b->smem;
}

/* GPU2GPC bookkeeping over the GPCs: each GPC's next retirement time, its earliest
 * and second earliest (ties: lower GPC first) found when asked for after changes, by a
 * scan of up to GD_VIEW_SCAN GPCs or an indexed min-heap of more, and the GPCs by their most free slots for the head kernel (a set per
 * level, as a GPC keeps its SMs), so the best GPC costs O(levels it skips + words),
 * not O(GPCs). */
#define GD_VIEW_SCAN 16
typedef struct gd_gpc_view {
    uint32_t n;
    uint64_t retire[GD_MAX_GPCS];   /* next retirement per GPC (UINT64_MAX: none) */
    uint32_t max_free[GD_MAX_GPCS]; /* per GPC, for the head kernel (< GD_MAX_FREE_LEVELS) */
    uint32_t heap[GD_MAX_GPCS];     /* GPC indices, heap-ordered by (retire, index) once settled */
    uint32_t pos[GD_MAX_GPCS];      /* position of each GPC in heap */
    /* GPCs whose retire changed since the heap was last settled (a launch step changes
     * many: they are sifted, or the heap rebuilt, once, when the earliest is asked for) */
    uint32_t ndirty;
    uint32_t dirty[GD_MAX_GPCS];
    uint64_t dirty_was[GD_MAX_GPCS];  /* the retire each had in the settled heap */
    uint8_t is_dirty[GD_MAX_GPCS];
    uint32_t first, second;           /* once settled: the earliest and the next (UINT32_MAX: none) */
    uint32_t top;                   /* the highest level with a GPC (0: no GPC has a free slot) */
    uint32_t count[GD_MAX_FREE_LEVELS];              /* GPCs per level (level 0 not kept) */
    uint64_t at[GD_MAX_FREE_LEVELS][GD_GPC_WORDS];   /* bit g % 64 of word g / 64: max_free[g] == level */
} gd_gpc_view;

void gd_gpc_view_init(gd_gpc_view *v, uint32_t n);
void gd_gpc_view_set_retire(gd_gpc_view *v, uint32_t g, uint64_t t);
static inline void gd_gpc_view_set_free(gd_gpc_view *v, uint32_t g, uint32_t f)
{
    if (f >= GD_MAX_FREE_LEVELS)
        f = GD_MAX_FREE_LEVELS - 1;
    const uint32_t old = v->max_free[g];
    if (old == f)
        return;
    const uint64_t bit = 1ull << (g % 64);
    v->max_free[g] = f;
    if (old) {
        v->at[old][g / 64] &= ~bit;
        v->count[old]--;
    }
    if (f) {
        v->at[f][g / 64] |= bit;
        v->count[f]++;
        if (f > v->top)
            v->top = f;
    }
    while (v->top && !v->count[v->top])
        v->top--;
}
void gd_gpc_view_settle(gd_gpc_view *v);
/* The GPC with the earliest next retirement (the lowest index on a tie). */
static inline uint32_t gd_gpc_view_first(gd_gpc_view *v)
{
    if (v->ndirty)
        gd_gpc_view_settle(v);
    return v->first;
}
/* The earliest next retirement among the GPCs other than gd_gpc_view_first (and
 * which GPC; UINT32_MAX if there is no other GPC). */
uint64_t gd_gpc_view_second(gd_gpc_view *v, uint32_t *gpc);
/* The GPC with the most free slots, lowest index on a tie, ignoring `except`
 * (pass UINT32_MAX to ignore none); UINT32_MAX if none has a free slot. */
uint32_t gd_gpc_view_best(const gd_gpc_view *v, uint32_t except);

/* An empty GPC of nsm SMs; free slots are counted for a one-warp kernel until the
 * first gd_gpc_select. */
void gd_gpc_init(gd_gpc_tracker *g, uint32_t nsm, const gd_sm_limits *sm);

/* Give the SMs placement state (sm.alloc=contiguous or emb. 8's wave placement):
 * place[0..nsm) become theirs (the caller keeps the array; gd_sm_place_init is done
 * here). Call before the first CTA. */
void gd_gpc_set_placement(gd_gpc_tracker *g, const struct gd_alloc_cfg *cfg, struct gd_sm_place *place);

/* Count free slots for a kernel of this cost from now on; returns max_free. */
uint32_t gd_gpc_select(gd_gpc_tracker *g, const gd_cta_cost *cost);

/* Place one CTA of the selected kernel (max_free must be > 0): on the SM with the
 * most free slots, lowest index on a tie. Returns the SM's index in the GPC. */
uint32_t gd_gpc_place(gd_gpc_tracker *g, gd_cta_alloc *alloc);

/* Place one CTA of the selected kernel on SM sm (its free slots must be > 0): the
 * CGA distributor's launch, whose SMs were chosen by a query (cga.h). */
void gd_gpc_place_on(gd_gpc_tracker *g, uint32_t sm, gd_cta_alloc *alloc);

/* Place n CTAs of the selected kernel on SM sm at once (its free slots must be >= n),
 * counts only (no placement state): the same state as n gd_gpc_place_on calls, the
 * sums of the CTAs' warps_in_sub added to warps_in_sub. */
void gd_gpc_place_on_n(gd_gpc_tracker *g, uint32_t sm, uint32_t n, uint16_t *warps_in_sub);

/* Place n CTAs of the selected kernel on each SM of the mask sms (bit i: SM i; their
 * free slots must be >= n) at once, counts only, where the CTAs' warps split evenly over
 * an SM's register sub-partitions (gd_sm_res_take_n's first path): the same state as
 * gd_gpc_place_on_n on each. Returns the SMs placed; warps_in_sub (zeroed by the caller)
 * gets the warps each of them took per sub-partition. The other SMs of sms are left
 * alone (place them with gd_gpc_place_on_n). */
uint64_t gd_gpc_place_mask(gd_gpc_tracker *g, uint64_t sms, uint32_t n, uint16_t *warps_in_sub);

/* The two halves of gd_gpc_place_mask's placement of n CTAs on each SM of sms,
 * counts only, for CTAs whose resources the SMs still hold (released by
 * gd_gpc_release_levels, not yet by gd_gpc_release_held): the same CTAs back on the
 * same SMs change no resource, only the free-slot levels. */
void gd_gpc_place_levels(gd_gpc_tracker *g, uint64_t sms, uint32_t n);

/* A CTA of any kernel retired from SM sm. */
void gd_gpc_release(gd_gpc_tracker *g, uint32_t sm, const gd_cta_cost *cost, const gd_cta_alloc *alloc);

/* n CTAs of one cost retired from SM sm at once, counts only (no placement state):
 * warps_in_sub holds the sums of their allocs' warps_in_sub. The same state as n
 * gd_gpc_release calls (gpc2sm.group_ctas). */
void gd_gpc_release_n(gd_gpc_tracker *g, uint32_t sm, const gd_cta_cost *cost, uint32_t n,
                      const uint16_t *warps_in_sub);

/* n CTAs of one cost retired from each SM of the mask sms (bit i: SM i) at once, counts
 * only, warps_in_sub the same for every SM: the same state as gd_gpc_release_n on each
 * of them (a GPC2SM record of one launch step's CTAs on several SMs). */
void gd_gpc_release_mask(gd_gpc_tracker *g, uint64_t sms, const gd_cta_cost *cost, uint32_t n,
                         const uint16_t *warps_in_sub);

/* gd_gpc_release_mask in two halves, when gd_gpc_release_counted (counts only, the
 * selected cost: the free slots follow from the counts): gd_gpc_release_levels gives
 * the SMs their n free slots each (levels, max_free, free_total) and
 * gd_gpc_release_held their resources. Between the two the SMs' resources are those
 * of the CTAs still resident: a GPC2SM distributor releases the levels when CTAs
 * retire and the resources only when something reads them, or never when the same
 * CTAs are placed on the same SMs again (gd_gpc_place_levels). Both halves, in either
 * order, leave the state gd_gpc_release_mask leaves. */
int gd_gpc_release_counted(const gd_gpc_tracker *g, const gd_cta_cost *cost);
void gd_gpc_release_levels(gd_gpc_tracker *g, uint64_t sms, uint32_t n);
void gd_gpc_release_held(gd_gpc_tracker *g, uint64_t sms, const gd_cta_cost *cost, uint32_t n,
                         const uint16_t *warps_in_sub);

#ifdef __cplusplus
}
#endif

#endif
