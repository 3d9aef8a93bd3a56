/* alloc.h - contiguous allocation of an SM's first-class resources and the
 * maximum-free-block finders of seed 001 (embodiments 1 a41-a45, 4-7), pure C.
 *
 * A first-class resource (registers of one sub-partition, the SM's shared memory)
 * is a row of n allocation units, n <= GD_UMAP_MAX (an H100's 228 KiB of shared
 * memory in 128-byte units is 1824); a CTA takes a contiguous block of
 * them (emb. 1 a43-a44: a start address and a count) and gives exactly that block
 * back. In a unit map a set bit is a free unit (the seed's "unoccupied = 1").
 *
 * The finders compute the largest free block as the hardware would:
 *  - emb. 4, shift and reduce: s_i is the map shifted by i with the i vacated bits
 *    occupied, sa_i = s_0 & s_1 & ... & s_i, sar_i = OR of sa_i's bits; the largest
 *    block is i' + 1 for the last i with sar_i = 1 (0 when none): exact.
 *  - emb. 5, z groups: each group of n/z units ANDed into one bit, then emb. 4 on
 *    the z bits: j' full groups in a row give j' * n/z, a lower bound (blocks must be
 *    group-aligned).
 *  - emb. 6, sampled shifts: emb. 4's sar_k only for sampled k (steps that never
 *    shrink): k' + 1 for the largest sampled k with sar_k = 1, a lower bound.
 *  - emb. 7, one shared unit of a bits time-multiplexed: the maps of several
 *    resources packed into one a-bit word per period and reduced together, group
 *    boundaries masked (the seed's m(i) masks): exact, in as many periods as the
 *    packing takes. */
#ifndef GD_ALLOC_H
#define GD_ALLOC_H

#include <stdint.h>

#include "occupancy.h"

#ifdef __cplusplus
extern "C" {
#endif

#define GD_UMAP_MAX GD_MAX_ALLOC_UNITS
#define GD_UMAP_WORDS (GD_UMAP_MAX / 64)

typedef struct gd_umap {
    uint32_t n;                     /* allocation units */
    uint64_t w[GD_UMAP_WORDS];      /* bit i: unit i is free */
} gd_umap;

/* n units, all free (n <= GD_UMAP_MAX). */
void gd_umap_init(gd_umap *m, uint32_t n);
uint32_t gd_umap_free_units(const gd_umap *m);

/* Take the first (lowest-address) free block of `len` units: its start, or -1 when
 * no block is that long. Give back the block [start, start + len). */
int32_t gd_umap_alloc(gd_umap *m, uint32_t len);
void gd_umap_release(gd_umap *m, uint32_t start, uint32_t len);

/* The largest free block, by a plain scan (the reference the finders are checked
 * against). */
uint32_t gd_maxrun_scan(const gd_umap *m);

/* Embodiment 4. */
uint32_t gd_maxrun_shift(const gd_umap *m);

/* Embodiment 5: z groups (z divides n). */
uint32_t gd_maxrun_groups(const gd_umap *m, uint32_t z);

/* Embodiment 6: the sampled shift amounts k[0..w), ascending with steps that never
 * shrink (gd_samples_ok); values >= n are ignored. */
uint32_t gd_maxrun_sampled(const gd_umap *m, const uint32_t *k, uint32_t w);
/* Whether k[0..w) is a valid sampling: ascending, each step no smaller than the one
 * before ([0169]). */
int gd_samples_ok(const uint32_t *k, uint32_t w);

/* Embodiment 7: the largest free block of each of r maps, computed on one shared unit
 * of `width` bits (width <= GD_UMAP_MAX and at least the largest map): the maps are
 * packed, in order, into periods of at most `width` bits (a map that does not fit in
 * the current period starts the next one); each period is one shift-and-reduce over
 * the packed word with the shifts masked at group boundaries. out[i] receives map i's
 * largest block; the return value is the number of periods (cycles of the unit). */
uint32_t gd_maxrun_shared(const gd_umap *const *maps, uint32_t r, uint32_t width, uint32_t *out);

/* ---- the SM's placement of a CTA (sm.alloc, sm.wave_placement) ----
 *
 * With sm.alloc=count and sm.wave_placement=pooled (the defaults) an SM's resources are
 * counts (occupancy.h) and gd_sm_res has no placement state. Otherwise each SM carries a
 * gd_sm_place: its wave pointer (emb. 8) and, under sm.alloc=contiguous, a unit map of
 * each sub-partition's register file and of its shared memory. A CTA's warps are split
 * over the sub-partitions (the "combination": pooled = the h102 split with its extra
 * warps on the sub-partitions with the most room, tail|head = the h102 split rotated by
 * the SM's pointer); it fits when every sub-partition has room for its share (under
 * contiguous: a free block of that many register units, as the block finder sees it)
 * and the shared memory for the CTA (contiguous: a free block) and the counted
 * resources (warp slots per sub-partition, CTA slots) suffice (emb. 1 a31-a32, a41). Taking it allocates
 * the first free block of each (a43-a45) and moves the pointer (h5). */

enum gd_block_finder { GD_FINDER_SCAN = 0, GD_FINDER_SHIFT, GD_FINDER_GROUPS, GD_FINDER_SAMPLED, GD_FINDER_SHARED };
enum gd_wave_placement { GD_PLACE_POOLED = 0, GD_PLACE_TAIL, GD_PLACE_HEAD };

#define GD_MAX_SAMPLES 32

typedef struct gd_alloc_cfg {
    int contiguous;                   /* sm.alloc=contiguous */
    int placement;                    /* enum gd_wave_placement */
    int finder;                       /* enum gd_block_finder */
    uint32_t groups;                  /* sm.finder_groups: z */
    uint32_t nsamples;                /* sm.finder_samples: k[0..nsamples) */
    uint32_t samples[GD_MAX_SAMPLES];
    uint32_t width;                   /* sm.finder_width: the shared unit's bits */
    uint32_t finder_cycles;           /* sm.finder_cycles */
    uint32_t scan_bits;               /* sm.scan_bits_per_cycle */
    uint32_t nsub;                    /* sub-partitions */
    uint32_t reg_unit, reg_units;     /* registers per unit; units per sub-partition */
    uint32_t smem_unit, smem_units;   /* bytes per unit; units of the SM */
    uint32_t max_warps;               /* warp slots of the SM */
} gd_alloc_cfg;

/* From a resolved configuration (gd_config_resolve has checked the maps' sizes, the
 * groups and the samples). */
void gd_alloc_cfg_init(gd_alloc_cfg *a, const gd_config *cfg);

/* Whether the SMs need placement state (anything but count + pooled). */
static inline int gd_alloc_cfg_placed(const gd_alloc_cfg *a) { return a->contiguous || a->placement != GD_PLACE_POOLED; }

typedef struct gd_sm_place {
    const gd_alloc_cfg *cfg;
    uint32_t pointer;                      /* emb. 8's tail or head pointer */
    uint32_t warps[GD_MAX_SUBPARTITIONS];  /* free warp slots per sub-partition (a second-class resource) */
    gd_umap regs[GD_MAX_SUBPARTITIONS];    /* contiguous: each sub-partition's register units */
    gd_umap smem;                          /* contiguous: the shared memory's units */
} gd_sm_place;

/* An empty SM's placement state. */
void gd_sm_place_init(gd_sm_place *p, const gd_alloc_cfg *cfg);

/* The largest free block of a map as the configured finder reports it: exact for scan,
 * shift and shared; group-aligned (emb. 5) or sampled (emb. 6) lower bounds otherwise.
 * Computed by a word-wide scan that equals the finder's result (test_alloc checks the
 * hardware algorithms against it). */
uint32_t gd_block_finder_max(const gd_alloc_cfg *a, const gd_umap *m);

/* The cycles one refresh of an SM's largest free blocks costs with the configured
 * finder (0 under sm.alloc=count): scan, ceil(longest map / scan_bits); shift, groups
 * and sampled (one unit per resource, all in parallel), finder_cycles; shared,
 * finder_cycles per period of the one time-multiplexed unit. */
uint32_t gd_block_finder_cycles(const gd_alloc_cfg *a);

/* The largest free block by a word-wide scan (equals gd_maxrun_scan). */
uint32_t gd_maxrun_fast(const gd_umap *m);

/* Placement-aware versions of gd_sm_res_free_slots / _take / _give (occupancy.c calls
 * them when res->place is set). free_slots counts the CTAs that successive takes would
 * place, so that a take lowers it by exactly one. */
uint32_t gd_sm_place_free_slots(const gd_sm_res *res, const gd_cta_cost *cost);
int gd_sm_place_take(gd_sm_res *res, const gd_cta_cost *cost, gd_cta_alloc *alloc);
void gd_sm_place_give(gd_sm_res *res, const gd_cta_cost *cost, const gd_cta_alloc *alloc);

#ifdef __cplusplus
}
#endif

#endif
