/* admission.h - multi-channel workgroup admission (seed 001 embodiments 1-3), pure C.
 *
 * Each kernel resident in the distributor is a *task channel*: a FIFO of its CTAs
 * (workgroups), the head of which is its candidate. In a round every channel head is
 * matched against every SM's remaining resources at once (a1-a3); the heads that fit
 * somewhere are the candidate set; the highest priority among them wins (a4). Ties
 * (a42): among the tied channels that have not been marked "already chosen at this
 * priority", one is chosen and marked; when all are marked, one is chosen, keeps its
 * mark, and the others' marks for that priority are cleared. The seed chooses at
 * random; gdsim takes the lowest-numbered such channel, so that replays are
 * deterministic (the marks still rotate the choice).
 *
 * Priority windows (emb. 2, b1-b4): a cycle counter runs over a period split into y
 * windows; during window y priority level y is lifted above the others, which keep
 * their order. Failed rounds (emb. 3, c1-c4): a counter of rounds in which every head
 * failed to match; past the threshold a head marked independent is split into
 * single-warp sub-workgroups at the lowest priority, and the counter restarts.
 *
 * Priorities are levels 0 (highest) .. GD_ADM_LEVELS - 1. */
#ifndef GD_ADMISSION_H
#define GD_ADMISSION_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define GD_ADM_LEVELS 8

typedef struct gd_adm {
    uint32_t nch;                 /* channels */
    uint8_t *marks;               /* marks[ch * GD_ADM_LEVELS + level]: chosen at this level (a42) */
    uint32_t nwin;                /* priority windows (0: none) */
    uint64_t win_len[GD_ADM_LEVELS];
    uint64_t period;              /* sum of the window lengths */
    uint64_t failed_rounds;       /* g (c2) */
    uint64_t split_after;         /* the threshold (default 256) */
    uint64_t rounds, lifts, splits, ties, failed_total;  /* statistics */
} gd_adm;

/* windows: lengths in cycles of the windows of levels 0, 1, ... (n of them, 0: none). */
int gd_adm_init(gd_adm *a, uint32_t channels, const uint64_t *windows, uint32_t n, uint64_t split_after);
void gd_adm_destroy(gd_adm *a);

/* The level lifted to the top at `cycle` (b3), or -1 without windows. */
int gd_adm_lifted(const gd_adm *a, uint64_t cycle);

/* The effective rank of a priority level at `cycle` (0 = the highest): the lifted
 * level first, the others in their order. */
uint32_t gd_adm_rank(const gd_adm *a, uint32_t level, uint64_t cycle);

/* One round (a3-a4, a41-a42, b44, c2): candidate[ch] says whether channel ch's head
 * fits an SM, level[ch] its priority level. Returns the winning channel, or -1 when no
 * head fits (a failed round: counted). */
int32_t gd_adm_round(gd_adm *a, const uint8_t *candidate, const uint8_t *level, uint64_t cycle);

/* Whether the failed rounds have passed the threshold (c2-c3): then the caller splits
 * an independent head and calls gd_adm_split_done. */
int gd_adm_should_split(const gd_adm *a);
/* The failed rounds in a row are n: a caller that evaluates rounds only at events
 * counts the ones the hardware repeated in between (nothing changed: they failed too). */
void gd_adm_set_failed_rounds(gd_adm *a, uint64_t n);
void gd_adm_split_done(gd_adm *a);

#ifdef __cplusplus
}
#endif

#endif
