/* cga.h - decisions of seed 003's work distributors for cooperative group arrays
 * (CGAs, "clusters"), pure C: no simulator, no time.
 *
 * A grid is an array of CGAs and a CGA an array of CTAs that the hardware launches
 * all together or not at all (seed 003 [0081]-[0123]). A GPC-CGA runs inside one
 * GPC; a GPU-CGA is several GPC-CGAs that launch together ([0119]-[0121]). A kernel
 * without a cluster shape is a grid of one-CTA CGAs.
 *
 * - Inside a GPC (GPC2SM, [0139]-[0161], [0212]-[0215]) CTAs go to SMs by "free
 *   slots" (how many more CTAs of the kernel fit in an SM's remaining resources):
 *   gd_lake_fill (load-balancing mode: fill the lake) and gd_multicast_pick
 *   (multicast mode: at most one CTA of a CGA per SM, whole TPCs first).
 * - Across GPCs (GPU2GPC, [0162]-[0171], [0194]-[0211]) the distributor queries a
 *   model of every GPC ("query model", a shadow copy of the SMs' free slots):
 *   gd_gpc_query places a GPC-CGA speculatively and answers its *speed*, the least
 *   free slots left on the SMs that would receive its CTAs; gd_gpu_pick chooses
 *   every GPC of the best speed; gd_gpu_cga_place does a GPU-CGA's two passes.
 * - CTA ids are rasterized by the SMs from the broadcast launch sequence
 *   ([0172]-[0191]): gd_raster_advance adds a count of launched CTAs (a delta) to
 *   the last (x, y, z) with carries.
 */
#ifndef GD_CGA_H
#define GD_CGA_H

#include <stddef.h>
#include <stdint.h>

#include "config.h"

#ifdef __cplusplus
extern "C" {
#endif

/* How a GPC-CGA's CTAs are spread over a GPC's SMs ([0140]-[0142], [0213]-[0214]). */
typedef enum gd_cga_mode {
    GD_CGA_LOAD_BALANCE = 0,  /* fill the lake: several CTAs of a CGA may share an SM */
    GD_CGA_MULTICAST = 1      /* at most one CTA of a CGA per SM */
} gd_cga_mode;

/* What gd_lake_fill decided. */
typedef struct gd_lake_result {
    uint32_t placed;  /* CTAs placed: min(k, total free slots) */
    uint32_t level;   /* the final water level: SMs that received a CTA keep at least
                         level - 1 free slots (level if extra == 0) */
    uint32_t extra;   /* CTAs placed at the final level, by SM priority */
    uint32_t probes;  /* decision steps: levels scanned, or binary-search probes */
} gd_lake_result;

/* Fill the lake ([0145]-[0157]): k CTAs over n SMs whose free slots are free[i],
 * as if dropped one at a time onto the SM with the most free slots, SM priority
 * deciding ties (SM 0 highest, [0157]). The hardware finds the final water level L
 * (the smallest level whose filling needs no more than k CTAs) by scanning down
 * from the deepest SM, or for deep lakes (most free slots above scan_limit) by a
 * binary search on L ([0155]); the CTAs left at level L go, one each, to the SMs at
 * the water line whose population count from the highest priority is below the
 * number left ([0157], fig 22-23). take[i] receives SM i's CTAs (n <= 64). */
void gd_lake_fill(const uint32_t *free_slots, uint32_t n, uint32_t k, uint32_t scan_limit, uint32_t *take,
                  gd_lake_result *res);

/* One GPC's free slots as its GPC2SM distributor keeps them (cwd.h): bit i of
 * level[f] is set when SM i has exactly f free slots, for f = 0..max_free (no SM has
 * more); nsm SMs. */
typedef struct gd_lake_gpc {
    const uint64_t *level;
    uint32_t max_free;
    uint32_t nsm;
} gd_lake_gpc;

/* gd_lake_fill over a whole GPU's SMs (GPC by GPC, SM priority in that order) from
 * its GPCs' level masks: the same water level, probes and take, in O(GPCs x levels)
 * plus the SMs of the GPCs that receive CTAs, not O(SMs). take holds each SM's CTAs
 * at the SM's index counted GPC by GPC; only the entries of GPCs that receive CTAs
 * are written (bit g of receive[g / 64]: GPC g receives; (ngpc + 63) / 64 words). */
void gd_lake_fill_levels(const gd_lake_gpc *gpcs, uint32_t ngpc, uint32_t k, uint32_t scan_limit, uint32_t *take,
                         uint64_t *receive, gd_lake_result *res);

/* The same fill told GPC by GPC, without a count per SM: res->level is the water
 * line, and each GPC g that receives CTAs (bit g % 64 of receive[g / 64]) gets
 * extra[g] (other entries untouched): its SMs with f > level free slots take
 * f - level CTAs, and its first extra[g] SMs (lowest index first) with at least
 * `level` free slots one more (gd_lake_gpc_groups). What the GPU2GPC distributor sends
 * each GPC, whose GPC2SM distributor holds the level masks. */
void gd_lake_fill_gpcs(const gd_lake_gpc *gpcs, uint32_t ngpc, uint32_t k, uint32_t scan_limit, uint32_t *extra,
                       uint64_t *receive, gd_lake_result *res);

#define GD_LAKE_MAX_COUNTS 258  /* CTAs one SM may take in a fill: 0 .. 257 (free slots <= 256, plus one) */

/* SMs of a GPC that take the same number of CTAs. */
typedef struct gd_lake_group {
    uint64_t sms;    /* bit i: SM i */
    uint32_t count;  /* CTAs each of them takes (> 0) */
} gd_lake_group;

/* A GPC's share of a fill (gd_lake_fill_gpcs: water line `level`, `extra` CTAs at the
 * line) from its level masks (level_masks[f], f = 0..max_free): the SMs that receive
 * CTAs grouped by how many, the groups in the order of their lowest SM. Returns the
 * number of groups written to out (at most 64). */
uint32_t gd_lake_gpc_groups(const uint64_t *level_masks, uint32_t max_free, uint32_t level, uint32_t extra,
                            gd_lake_group *out);

/* Multicast mode ([0142], [0214]): m CTAs of one CGA on m different SMs. SMs of TPCs
 * (sms_per_tpc consecutive SMs) in which every SM has a free slot are used before
 * SMs of TPCs in which only some have; within each class the SM with the most free
 * slots first, then SM priority. Returns 1 and sets take[i] (0 or 1), or 0 (take
 * untouched) when fewer than m SMs have a free slot. */
int gd_multicast_pick(const uint32_t *free_slots, uint32_t n, uint32_t sms_per_tpc, uint32_t m, uint32_t *take);

/* A speculative launch of one GPC-CGA of `ctas` CTAs against a GPC's free slots
 * (the query model, [0166]-[0167]): returns the CGA's speed (the least free slots
 * left on the SMs that would receive a CTA) and sets take[], or -1 when not all its
 * CTAs fit (take untouched). */
int32_t gd_gpc_query(const uint32_t *free_slots, uint32_t n, uint32_t ctas, gd_cga_mode mode, uint32_t sms_per_tpc,
                     uint32_t scan_limit, uint32_t *take);

/* The GPCs that receive a GPC-CGA in one step: every GPC whose answer is the best
 * speed ([0170]-[0171]; speed[g] < 0: cannot take it). Sets bit g % 64 of mask[g / 64]
 * for each ((ngpc + 63) / 64 words written) and returns how many there are. */
uint32_t gd_gpu_pick(const int32_t *speed, uint32_t ngpc, uint64_t *mask);

/* One GPC in the GPU2GPC distributor's query model. */
typedef struct gd_gpc_shadow {
    uint32_t nsm;
    uint32_t free_slots[GD_MAX_SMS_PER_GPC];  /* per SM, for the kernel being launched */
    uint32_t cgas_left;                       /* GPC-CGAs it may still take ([0211]) */
    uint32_t ids_left;                        /* free gpc_local_cga_ids ([0227]) */
} gd_gpc_shadow;

/* A GPU-CGA of `parts` GPC-CGAs of `ctas` CTAs each, in two passes ([0206]-[0221]).
 * Pass 1 queries every part against a copy of the shadow (each part goes to the
 * lowest-numbered GPC of the best speed, and the copy keeps what it took); if a part
 * finds no home the launch fails and `gpcs` is left untouched. Pass 2 resets and
 * places the parts one by one on `gpcs` itself (the same decisions). gpc_of[p]
 * receives part p's GPC and take[p * GD_MAX_SMS_PER_GPC + i] its CTAs on SM i.
 * scratch: gd_gpu_cga_scratch_size(ngpc) bytes, 4-byte aligned, for the snapshot (the
 * caller keeps it, so a launch step allocates nothing). Returns 1 on success, 0 on
 * failure. parts <= GD_MAX_GPCS * GD_MAX_SMS_PER_GPC. */
int gd_gpu_cga_place(gd_gpc_shadow *gpcs, uint32_t ngpc, uint32_t parts, uint32_t ctas, gd_cga_mode mode,
                     uint32_t sms_per_tpc, uint32_t scan_limit, uint32_t *gpc_of, uint32_t *take, void *scratch);
size_t gd_gpu_cga_scratch_size(uint32_t ngpc);

/* Distributed rasterization ([0176]-[0191]): an SM keeps the (x, y, z) of the last
 * CTA it computed and the count (delta) of CTAs launched since, and only decomposes
 * the delta into x, y and z increments, added with carries, when it needs an id. */
typedef struct gd_raster {
    uint32_t dim[3];  /* grid size in x, y, z */
    uint32_t cur[3];  /* the current position */
} gd_raster;

void gd_raster_init(gd_raster *r, const uint32_t dim[3]);
/* Move `delta` positions on (delta below dim x * dim y * dim z). */
void gd_raster_advance(gd_raster *r, uint64_t delta);
/* The direct computation the checking mode compares with. */
void gd_raster_direct(const uint32_t dim[3], uint64_t linear, uint32_t out[3]);

/* The CGA ids of one GPC: a free list of gpc_local_cga_id values ([0227]; an 8-bit
 * field in the SM-to-SM packets, [0237], so at most 256): the lowest free id is
 * handed out; a launch stalls when none is free. */
#define GD_MAX_CGA_IDS 256
#define GD_CGA_ID_WORDS (GD_MAX_CGA_IDS / 64)
typedef struct gd_cga_ids {
    uint32_t n;                 /* ids 0 .. n-1 */
    uint64_t used[GD_CGA_ID_WORDS];
    uint32_t in_use;
} gd_cga_ids;

void gd_cga_ids_init(gd_cga_ids *ids, uint32_t n);
/* The lowest free id, now in use; UINT32_MAX when none is free. */
uint32_t gd_cga_ids_take(gd_cga_ids *ids);
void gd_cga_ids_release(gd_cga_ids *ids, uint32_t id);

#ifdef __cplusplus
}
#endif

#endif
