/* alloc.h - contiguous allocation of an SM's first-class resources and the
 * maximum-free-block finders of seed 001 (embodiments 1 a41-a45, 4-7), pure C.
 *
 * A first-class resource (registers of one sub-partition, the SM's shared memory)
 * is a row of n allocation units, n <= GD_UMAP_MAX; a CTA takes a contiguous block of
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

#ifdef __cplusplus
extern "C" {
#endif

#define GD_UMAP_MAX 256
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

#ifdef __cplusplus
}
#endif

#endif
