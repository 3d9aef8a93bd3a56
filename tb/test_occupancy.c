/* test_occupancy.c - the occupancy calculator and the SM resource tracker, against
 * hand-computed cases (shared/data/kineto/README.md rules) for every limiter and
 * every preset's compute capability. */
#include <check.h>
#include <stdlib.h>
#include <string.h>

#include "config.h"
#include "cwd.h"
#include "gdsim.h"
#include "occ_series.h"
#include "occupancy.h"
#include "tb_util.h"

/* The resolved SM limits of a preset. */
static gd_sm_limits preset_sm(const char *preset)
{
    gd_settings *s = gd_settings_new();
    gd_err err;
    ck_assert_int_eq(gd_settings_set(s, "gpu.preset", preset, &err), GD_OK);
    gd_config cfg;
    ck_assert_int_eq(gd_config_resolve(&cfg, s, NULL, &err), GD_OK);
    gd_settings_free(s);
    return cfg.sm;
}

static gd_occupancy occ(const char *preset, uint32_t threads, uint32_t regs, uint32_t smem)
{
    gd_sm_limits sm = preset_sm(preset);
    gd_cta_shape shape = {threads, regs, smem};
    gd_occupancy o;
    gd_err err;
    ck_assert_int_eq(gd_occupancy_compute(&o, &sm, &shape, sm.smem_per_cta_optin, &err), GD_OK);
    return o;
}

#define CHECK_OCC(o, n, lim, pct)                          \
    do {                                                   \
        ck_assert_uint_eq((o).max_ctas, (n));              \
        ck_assert_int_eq((o).limiter, (lim));              \
        ck_assert_double_eq_tol((o).theoretical_pct, (pct), 1e-9); \
    } while (0)

/* The example: 256 threads, 64 registers on H100. Registers per warp
 * 64*32 = 2048; 16384 per sub-partition / 2048 = 8 warps, x4 = 32 warps, / 8 per CTA = 4. */
START_TEST(registers_h100)
{
    gd_occupancy o = occ("h100", 256, 64, 0);
    CHECK_OCC(o, 4, GD_LIMIT_REGISTERS, 50.0);
    ck_assert_uint_eq(o.by_warps, 8);
    ck_assert_uint_eq(o.by_regs, 4);
    ck_assert_uint_eq(o.by_smem, 228); /* no shared memory but the 1 KiB reserve: 233472 / 1024 */
    ck_assert_str_eq(gd_limiter_name(o.limiter), "registers");
}
END_TEST

/* Register allocation granularity: 33 registers -> 1056 -> 1280 per warp;
 * 16384/1280 = 12 warps per sub-partition, 48 per SM, / 8 = 6 CTAs (75 %). */
START_TEST(registers_granularity_a100)
{
    gd_occupancy o = occ("a100", 256, 33, 0);
    CHECK_OCC(o, 6, GD_LIMIT_REGISTERS, 75.0);
    ck_assert_uint_eq(o.cost.regs_per_warp, 1280);
}
END_TEST

/* 1024 threads, 32 registers: warps 64/32 = 2, registers 16 warps/sub x4 = 64/32 = 2:
 * a tie, reported as warps (first in order). */
START_TEST(warps_tie_v100)
{
    gd_occupancy o = occ("v100", 1024, 32, 0);
    CHECK_OCC(o, 2, GD_LIMIT_WARPS, 100.0);
    ck_assert_uint_eq(o.by_regs, 2);
}
END_TEST

/* 48 KiB + 1 KiB reserve rounded to 128 = 50176 B; 167936 / 50176 = 3 CTAs on A100. */
START_TEST(shared_memory_a100)
{
    gd_occupancy o = occ("a100", 128, 32, 49152);
    CHECK_OCC(o, 3, GD_LIMIT_SHARED_MEMORY, 18.75);
    ck_assert_uint_eq(o.cost.smem, 50176);
}
END_TEST

/* cc 7.0: no reserve, 256 B granularity: 20000 -> 20224; 98304 / 20224 = 4. */
START_TEST(shared_memory_v100)
{
    gd_occupancy o = occ("v100", 256, 32, 20000);
    CHECK_OCC(o, 4, GD_LIMIT_SHARED_MEMORY, 50.0);
    ck_assert_uint_eq(o.cost.smem, 20224);
}
END_TEST

/* An opt-in GEMM: 200000 + 1024 -> 201088; one CTA per H100 SM (228 KiB). */
START_TEST(shared_memory_optin_h100)
{
    gd_occupancy o = occ("h100", 128, 128, 200000);
    CHECK_OCC(o, 1, GD_LIMIT_SHARED_MEMORY, 6.25);
}
END_TEST

/* One-warp CTAs: warps allow 64, registers 128, shared memory none (cc 7.0: no
 * limit at all; cc >= 8.0: the 1 KiB reserve allows 164 / 228): the CTA cap (32). */
START_TEST(cta_slots_each_cc)
{
    ck_assert_uint_eq(occ("v100", 32, 16, 0).by_smem, UINT32_MAX);
    CHECK_OCC(occ("v100", 32, 16, 0), 32, GD_LIMIT_CTA_SLOTS, 50.0);
    CHECK_OCC(occ("a100", 32, 16, 0), 32, GD_LIMIT_CTA_SLOTS, 50.0);
    CHECK_OCC(occ("h100", 32, 16, 0), 32, GD_LIMIT_CTA_SLOTS, 50.0);
}
END_TEST

/* The profiler's convention: with the default 48 KiB per-CTA limit a larger CTA gets 0. */
START_TEST(default_limit_gives_zero)
{
    gd_sm_limits sm = preset_sm("a100");
    gd_cta_shape shape = {128, 64, 100000};
    gd_occupancy o;
    ck_assert_int_eq(gd_occupancy_compute(&o, &sm, &shape, sm.smem_per_cta_default, NULL), GD_OK);
    ck_assert_uint_eq(o.max_ctas, 0);
    ck_assert_int_eq(o.limiter, GD_LIMIT_SHARED_MEMORY);
    ck_assert_int_eq(gd_occupancy_compute(&o, &sm, &shape, sm.smem_per_cta_optin, NULL), GD_OK);
    ck_assert_uint_eq(o.max_ctas, 1);
}
END_TEST

/* 255 registers x 1024 threads: 8192 per warp, 2 warps per sub-partition, 8 per SM: none fit. */
START_TEST(too_many_registers_fit_none)
{
    gd_occupancy o = occ("h100", 1024, 255, 0);
    ck_assert_uint_eq(o.max_ctas, 0);
    ck_assert_int_eq(o.limiter, GD_LIMIT_REGISTERS);
}
END_TEST

/* No registers: no register limit. Two-warp CTAs: 32 by warps ties the CTA cap of
 * 32 and the tie is reported as warps. */
START_TEST(no_registers_no_register_limit)
{
    gd_occupancy o = occ("h100", 64, 0, 0);
    ck_assert_uint_eq(o.by_regs, UINT32_MAX);
    CHECK_OCC(o, 32, GD_LIMIT_WARPS, 100.0);
}
END_TEST

START_TEST(impossible_shapes_are_errors)
{
    gd_sm_limits sm = preset_sm("h100");
    gd_occupancy o;
    gd_err err;
    gd_cta_shape zero = {0, 32, 0}, big = {1025, 32, 0}, regs = {256, 256, 0};
    ck_assert_int_eq(gd_occupancy_compute(&o, &sm, &zero, sm.smem_per_cta_optin, &err), GD_EINVAL);
    ck_assert_int_eq(gd_occupancy_compute(&o, &sm, &big, sm.smem_per_cta_optin, &err), GD_EINVAL);
    ck_assert_ptr_nonnull(strstr(err.msg, "1025 threads"));
    ck_assert_int_eq(gd_occupancy_compute(&o, &sm, &regs, sm.smem_per_cta_optin, &err), GD_EINVAL);
    ck_assert_ptr_nonnull(strstr(err.msg, "256 registers"));
}
END_TEST

/* The profiler's "est. achieved occupancy %" for kernels of the shared captures,
 * with the value each capture recorded. */
static int kineto(const char *preset, uint32_t sms, uint64_t ctas, uint32_t threads, uint32_t regs, uint32_t smem,
                  int optin)
{
    gd_sm_limits sm = preset_sm(preset);
    gd_cta_shape shape = {threads, regs, smem};
    gd_occupancy o;
    ck_assert_int_eq(gd_occupancy_compute(&o, &sm, &shape, optin ? sm.smem_per_cta_optin : sm.smem_per_cta_default,
                                          NULL), GD_OK);
    return gd_kineto_occupancy_pct(&sm, sms, ctas, threads, o.max_ctas);
}

START_TEST(kineto_estimate_matches_captures)
{
    /* v100_train: 1024 CTAs x 128 threads, 20 registers: 12.8 blocks per SM, 16 fit: 12.8 x 128 / 2048 = 80 % */
    ck_assert_int_eq(kineto("v100", 80, 1024, 128, 20, 0, 0), 80);
    /* v100_train: one CTA: 1/80 x 128 / 2048 rounds to 0 */
    ck_assert_int_eq(kineto("v100", 80, 1, 128, 16, 0, 0), 0);
    /* a100_train_nccl: 512 x 512 threads, 40 registers, 400 B shared: recorded 75 */
    ck_assert_int_eq(kineto("a100", 108, 512, 512, 40, 400, 0), 75);
    /* a100_alexnet: 864 x 256, 47 registers: recorded 63 */
    ck_assert_int_eq(kineto("a100", 108, 864, 256, 47, 0, 0), 63);
    /* a100_multistream_events: 640 x 128, 122 registers, 12544 B: recorded 25 */
    ck_assert_int_eq(kineto("a100", 108, 640, 128, 122, 12544, 0), 25);
    /* a100_train_nccl cutlass GEMM: 512 x 128, 222 registers, 80 KiB shared memory:
     * the profiler's 48 KiB convention gives 0 (recorded 0); with the opt-in limit 2 CTAs
     * fit (registers, shared memory): 2 x 128 / 2048 = 12.5 % -> 13 */
    ck_assert_int_eq(kineto("a100", 108, 512, 128, 222, 81920, 0), 0);
    ck_assert_int_eq(kineto("a100", 108, 512, 128, 222, 81920, 1), 13);
}
END_TEST

/* On an empty SM, free slots equal max_ctas; each take removes exactly one and
 * each give restores the state bit for bit. */
START_TEST(free_slots_track_take_and_give)
{
    static const gd_cta_shape shapes[] = {{256, 64, 0},   {1024, 32, 0}, {128, 32, 49152},
                                          {96, 40, 1000}, {32, 16, 0},   {544, 72, 3000}};
    const char *presets[] = {"v100", "a100", "h100"};
    for (size_t p = 0; p < 3; p++) {
        gd_sm_limits sm = preset_sm(presets[p]);
        for (size_t i = 0; i < sizeof shapes / sizeof shapes[0]; i++) {
            gd_occupancy o;
            ck_assert_int_eq(gd_occupancy_compute(&o, &sm, &shapes[i], sm.smem_per_cta_optin, NULL), GD_OK);
            gd_sm_res res, empty;
            gd_sm_res_init(&res, &sm);
            empty = res;
            ck_assert_uint_eq(gd_sm_res_free_slots(&res, &o.cost), o.max_ctas);
            gd_cta_alloc a[64];
            for (uint32_t k = 0; k < o.max_ctas; k++) {
                gd_sm_res_take(&res, &o.cost, &a[k]);
                ck_assert_uint_eq(gd_sm_res_free_slots(&res, &o.cost), o.max_ctas - k - 1);
            }
            for (uint32_t k = o.max_ctas; k-- > 0;)
                gd_sm_res_give(&res, &o.cost, &a[k]);
            ck_assert_mem_eq(&res, &empty, sizeof res);
        }
    }
}
END_TEST

/* With two kernels sharing an SM, free slots must equal what actually fits: take
 * CTAs of B until free_slots says 0 and check none was refused before that. */
START_TEST(free_slots_mixed_kernels)
{
    gd_sm_limits sm = preset_sm("h100");
    gd_cta_shape sa = {96, 40, 1000}, sb = {256, 64, 20000};
    gd_occupancy oa, ob;
    gd_occupancy_compute(&oa, &sm, &sa, sm.smem_per_cta_optin, NULL);
    gd_occupancy_compute(&ob, &sm, &sb, sm.smem_per_cta_optin, NULL);
    for (uint32_t na = 0; na <= oa.max_ctas; na++) {
        gd_sm_res res;
        gd_sm_res_init(&res, &sm);
        gd_cta_alloc al;
        for (uint32_t k = 0; k < na; k++)
            gd_sm_res_take(&res, &oa.cost, &al);
        uint32_t f = gd_sm_res_free_slots(&res, &ob.cost);
        for (uint32_t k = 0; k < f; k++) {
            ck_assert_uint_ge(gd_sm_res_free_slots(&res, &ob.cost), 1);
            gd_sm_res_take(&res, &ob.cost, &al);
            for (uint32_t s = 0; s < res.nsub; s++)
                ck_assert_uint_le(res.regs[s], sm.regs / sm.reg_subpartitions);
        }
        ck_assert_uint_eq(gd_sm_res_free_slots(&res, &ob.cost), 0);
        ck_assert_uint_le(res.warps, sm.max_warps);
    }
}
END_TEST

/* A GPC2SM tracker puts each CTA on the SM with the most free slots, lowest index on
 * a tie: on 3 SMs with 2 slots each, CTAs go to SM 0, 1, 2, 0, 1, 2. */
START_TEST(gpc_places_most_free_lowest_index)
{
    gd_sm_limits sm = preset_sm("h100");
    gd_cta_shape shape = {1024, 32, 0}; /* 2 per SM */
    gd_occupancy o;
    gd_occupancy_compute(&o, &sm, &shape, sm.smem_per_cta_optin, NULL);
    gd_gpc_tracker *g = malloc(sizeof *g);
    gd_gpc_init(g, 3, &sm);
    ck_assert_uint_eq(gd_gpc_select(g, &o.cost), 2);
    uint32_t order[6];
    gd_cta_alloc al[6];
    for (int i = 0; i < 6; i++)
        order[i] = gd_gpc_place(g, &al[i]);
    ck_assert_uint_eq(order[0], 0);
    ck_assert_uint_eq(order[1], 1);
    ck_assert_uint_eq(order[2], 2);
    ck_assert_uint_eq(order[3], 0);
    ck_assert_uint_eq(order[4], 1);
    ck_assert_uint_eq(order[5], 2);
    ck_assert_uint_eq(g->max_free, 0);
    gd_gpc_release(g, 1, &o.cost, &al[1]);
    ck_assert_uint_eq(g->max_free, 1);
    ck_assert_uint_eq(gd_gpc_place(g, &al[1]), 1);
    /* A different kernel retiring: free slots of the selected kernel are recomputed. */
    gd_cta_shape small = {32, 16, 0};
    gd_occupancy os;
    gd_occupancy_compute(&os, &sm, &small, sm.smem_per_cta_optin, NULL);
    gd_gpc_release(g, 2, &o.cost, &al[5]);
    gd_gpc_select(g, &os.cost);
    ck_assert_uint_eq(gd_gpc_free_slots_of(g, 2), 31); /* one 32-warp CTA left: 32 warps, 31 CTA slots free */
    ck_assert_uint_eq(gd_gpc_free_slots_of(g, 0), 0);  /* two 32-warp CTAs: no warp slot free */
    free(g);
}
END_TEST

/* gpc2sm.group_ctas: placing and retiring n CTAs of one SM at once leaves the very
 * state n single placements and retirements leave (every field of the SMs' resources,
 * free slots, levels, max_free), on random mixes of shapes that split evenly over the
 * sub-partitions and shapes that do not (1, 3 and 17 warps: the CTA-by-CTA fallback),
 * with the other kernel's CTAs resident beside them; and the warps per sub-partition
 * summed over the group equal the single CTAs' sum. */
START_TEST(group_take_and_give_equal_single)
{
    static const gd_cta_shape shapes[] = {{256, 64, 0},  {128, 32, 8192}, {32, 16, 0},   {96, 40, 1000},
                                          {544, 72, 3000}, {512, 24, 0},  {64, 255, 0}, {128, 0, 0}};
    const char *presets[] = {"v100", "a100", "h100", "mi250"};
    uint64_t x = 0x853c49e6748fea9bull;
    for (size_t p = 0; p < 4; p++) {
        gd_sm_limits sm = preset_sm(presets[p]);
        gd_occupancy o[8];
        for (size_t i = 0; i < 8; i++) {
            gd_cta_shape sh = shapes[i];
            if (sh.threads > sm.max_threads_per_cta)
                sh.threads = sm.max_threads_per_cta;
            if (sh.regs_per_thread > sm.max_regs_per_thread)
                sh.regs_per_thread = sm.max_regs_per_thread;
            ck_assert_int_eq(gd_occupancy_compute(&o[i], &sm, &sh, sm.smem_per_cta_optin, NULL), GD_OK);
        }
        gd_gpc_tracker *a = malloc(sizeof *a), *b = malloc(sizeof *b);
        for (int round = 0; round < 300; round++) {
            gd_gpc_init(a, 4, &sm);
            x ^= x << 13, x ^= x >> 7, x ^= x << 17;
            const gd_cta_cost *other = &o[x % 8].cost, *mine = &o[(x >> 8) % 8].cost;
            /* the other kernel's CTAs first, one by one, on random SMs */
            gd_gpc_select(a, other);
            gd_cta_alloc oal[4][64];
            uint32_t on[4] = {0, 0, 0, 0};
            for (uint32_t k = 0; k < (uint32_t)(x >> 16) % 24; k++) {
                uint32_t i = (uint32_t)(x >> (20 + k % 40)) % 4;
                if (gd_gpc_free_slots_of(a, i) && on[i] < 64)
                    gd_gpc_place_on(a, i, &oal[i][on[i]++]);
            }
            gd_gpc_select(a, mine);
            *b = *a;
            /* then n of mine on each SM: at once in a, one by one in b */
            gd_cta_alloc bal[4][256];
            uint16_t sum_a[4][GD_MAX_SUBPARTITIONS], sum_b[4][GD_MAX_SUBPARTITIONS];
            memset(sum_a, 0, sizeof sum_a);
            memset(sum_b, 0, sizeof sum_b);
            uint32_t n[4];
            for (uint32_t i = 0; i < 4; i++) {
                n[i] = gd_gpc_free_slots_of(a, i) ? 1 + (uint32_t)((x >> (3 * i)) % gd_gpc_free_slots_of(a, i)) : 0;
                if (n[i])
                    gd_gpc_place_on_n(a, i, n[i], sum_a[i]);
                for (uint32_t k = 0; k < n[i]; k++) {
                    gd_gpc_place_on(b, i, &bal[i][k]);
                    for (uint32_t t = 0; t < GD_MAX_SUBPARTITIONS; t++)
                        sum_b[i][t] += bal[i][k].warps_in_sub[t];
                }
            }
            gd_gpc_sync(a);
            gd_gpc_sync(b);
            ck_assert_mem_eq(a, b, sizeof *a);
            ck_assert_mem_eq(sum_a, sum_b, sizeof sum_a);
            uint32_t total = 0;  /* kept as free slots change: their sum */
            for (uint32_t i = 0; i < 4; i++)
                total += gd_gpc_free_slots_of(a, i);
            ck_assert_uint_eq(a->free_total, total);
            /* the other kernel's CTAs retire on SM 0 (free slots recomputed), then mine
             * at once in a, one by one in b */
            for (uint32_t k = 0; k < on[0]; k++) {
                gd_gpc_release(a, 0, other, &oal[0][k]);
                gd_gpc_release(b, 0, other, &oal[0][k]);
            }
            for (uint32_t i = 0; i < 4; i++) {
                if (n[i])
                    gd_gpc_release_n(a, i, mine, n[i], sum_a[i]);
                for (uint32_t k = 0; k < n[i]; k++)
                    gd_gpc_release(b, i, mine, &bal[i][k]);
                gd_gpc_sync(a);
            gd_gpc_sync(b);
            ck_assert_mem_eq(a, b, sizeof *a);
                uint32_t total = 0;
                for (uint32_t s = 0; s < 4; s++)
                    total += gd_gpc_free_slots_of(a, s);
                ck_assert_uint_eq(a->free_total, total);
            }
        }
        free(a);
        free(b);
    }
}
END_TEST

/* A launch step's record of several SMs (gpc2sm.group_ctas): gd_gpc_place_mask and
 * gd_gpc_release_mask leave the tracker exactly as gd_gpc_place_on_n and
 * gd_gpc_release_n on each SM do, on GPCs of 1 to 64 SMs with four and with two
 * register sub-partitions, with another kernel's CTAs resident; SMs whose registers do
 * not split evenly (1, 3 and 17 warps, or a short sub-partition) are left to the
 * caller; retiring with a cost other than the selected one recounts. */
/* A mask's release in two halves (levels now, resources later) leaves the state of
 * gd_gpc_release_mask, in either order; the same CTAs placed back on the same SMs
 * between the halves (gd_gpc_place_levels) leave the state before the release. */
START_TEST(mask_release_in_halves)
{
    static const gd_cta_shape shapes[] = {{256, 64, 0}, {128, 32, 8192}, {32, 16, 0}, {96, 40, 1000}};
    gd_sm_limits sm = preset_sm("h100");
    gd_occupancy o[4];
    for (size_t i = 0; i < 4; i++)
        ck_assert_int_eq(gd_occupancy_compute(&o[i], &sm, &shapes[i], sm.smem_per_cta_optin, NULL), GD_OK);
    gd_gpc_tracker *a = malloc(sizeof *a), *b = malloc(sizeof *b), *placed = malloc(sizeof *placed);
    uint64_t x = 0x9e3779b97f4a7c15ull, halves = 0;
    for (int round = 0; round < 600; round++) {
        x ^= x << 13, x ^= x >> 7, x ^= x << 17;
        const uint32_t nsm = 1 + (uint32_t)(x % 64);
        const gd_cta_cost *mine = &o[(x >> 6) % 4].cost;
        gd_gpc_init(a, nsm, &sm);
        gd_gpc_select(a, mine);
        /* some CTAs of mine first, then n more on a random mask */
        for (uint32_t k = 0; k < nsm; k++) {
            x ^= x << 13, x ^= x >> 7, x ^= x << 17;
            uint32_t i = (uint32_t)(x % nsm);
            uint16_t w[GD_MAX_SUBPARTITIONS] = {0};
            if (gd_gpc_free_slots_of(a, i))
                gd_gpc_place_on_n(a, i, 1, w);
        }
        const uint32_t n = 1 + (uint32_t)((x >> 12) % 3);
        uint64_t sms = 0;
        for (uint32_t i = 0; i < nsm; i++)
            if (gd_gpc_free_slots_of(a, i) >= n && ((x >> (i % 61)) & 1))
                sms |= 1ull << i;
        uint16_t sw[GD_MAX_SUBPARTITIONS] = {0};
        const uint64_t done = gd_gpc_place_mask(a, sms, n, sw);
        if (!done)
            continue;
        ck_assert(gd_gpc_release_counted(a, mine));
        *placed = *a;
        *b = *a;
        gd_gpc_release_mask(b, done, mine, n, sw);
        gd_gpc_release_levels(a, done, n);
        ck_assert_mem_eq(a->level, b->level, sizeof a->level);
        for (uint32_t i = 0; i < nsm; i++)
            ck_assert_uint_eq(gd_gpc_free_slots_of(a, i), gd_gpc_free_slots_of(b, i));
        ck_assert_uint_eq(a->max_free, b->max_free);
        ck_assert_uint_eq(a->free_total, b->free_total);
        if ((x >> 30) & 1) {  /* placed back as they were */
            gd_gpc_place_levels(a, done, n);
            gd_gpc_sync(a);
            gd_gpc_sync(placed);
            ck_assert_mem_eq(a, placed, sizeof *a);
        } else {
            gd_gpc_release_held(a, done, mine, n, sw);
            gd_gpc_sync(a);
            gd_gpc_sync(b);
            ck_assert_mem_eq(a, b, sizeof *a);
        }
        halves++;
    }
    ck_assert_uint_gt(halves, 250);
    free(a);
    free(b);
    free(placed);
}
END_TEST

START_TEST(mask_take_and_give_equal_per_sm)
{
    static const gd_cta_shape shapes[] = {{256, 64, 0},  {128, 32, 8192}, {32, 16, 0},   {96, 40, 1000},
                                          {544, 72, 3000}, {512, 24, 0},  {64, 255, 0}, {128, 0, 0}};
    uint64_t x = 0x2545f4914f6cdd1dull;
    uint64_t placed_total = 0, left_total = 0;
    for (int subs = 4; subs >= 2; subs -= 2) {
        gd_sm_limits sm = preset_sm("h100");
        sm.reg_subpartitions = (uint32_t)subs;
        gd_occupancy o[8];
        for (size_t i = 0; i < 8; i++)
            ck_assert_int_eq(gd_occupancy_compute(&o[i], &sm, &shapes[i], sm.smem_per_cta_optin, NULL), GD_OK);
        gd_gpc_tracker *a = malloc(sizeof *a), *b = malloc(sizeof *b);
        for (int round = 0; round < 400; round++) {
            x ^= x << 13, x ^= x >> 7, x ^= x << 17;
            const uint32_t nsm = 1 + (uint32_t)(x % 64);
            gd_gpc_init(a, nsm, &sm);
            const gd_cta_cost *other = &o[(x >> 6) % 8].cost, *mine = &o[(x >> 9) % 8].cost;
            /* the other kernel's CTAs first, one by one, on random SMs */
            gd_gpc_select(a, other);
            static gd_cta_alloc oal[64][32];
            uint32_t on[64] = {0};
            for (uint32_t k = 0; k < 4 * nsm; k++) {
                x ^= x << 13, x ^= x >> 7, x ^= x << 17;
                uint32_t i = (uint32_t)(x % nsm);
                if (gd_gpc_free_slots_of(a, i) && on[i] < 32)
                    gd_gpc_place_on(a, i, &oal[i][on[i]++]);
            }
            gd_gpc_select(a, mine);
            *b = *a;
            /* n of mine on every SM of a random mask that has room for them */
            const uint32_t n = 1 + (uint32_t)((x >> 12) % 3);
            uint64_t sms = 0;
            for (uint32_t i = 0; i < nsm; i++)
                if (gd_gpc_free_slots_of(a, i) >= n && ((x >> (i % 61)) & 1))
                    sms |= 1ull << i;
            uint16_t sw[GD_MAX_SUBPARTITIONS] = {0}, rest[64][GD_MAX_SUBPARTITIONS];
            memset(rest, 0, sizeof rest);
            const uint64_t done = gd_gpc_place_mask(a, sms, n, sw);
            ck_assert_uint_eq(done & ~sms, 0);
            for (uint64_t m = sms & ~done; m; m &= m - 1)
                gd_gpc_place_on_n(a, (uint32_t)__builtin_ctzll(m), n, rest[__builtin_ctzll(m)]);
            for (uint64_t m = sms; m; m &= m - 1) {
                uint16_t each[GD_MAX_SUBPARTITIONS] = {0};
                gd_gpc_place_on_n(b, (uint32_t)__builtin_ctzll(m), n, each);
                if (done & m & -m)
                    ck_assert_mem_eq(each, sw, sizeof sw);
            }
            gd_gpc_sync(a);
            gd_gpc_sync(b);
            ck_assert_mem_eq(a, b, sizeof *a);
            placed_total += gd_popcount64(done);
            left_total += gd_popcount64(sms & ~done);
            /* the other kernel's CTAs leave SM 0 in b's way and a's, then mine retire */
            for (uint32_t k = 0; k < on[0]; k++) {
                gd_gpc_release(a, 0, other, &oal[0][k]);
                gd_gpc_release(b, 0, other, &oal[0][k]);
            }
            if ((x >> 20) & 1) {  /* a kernel of another cost is selected meanwhile: recounted */
                gd_gpc_select(a, other);
                gd_gpc_select(b, other);
            }
            gd_gpc_release_mask(a, done, mine, n, sw);
            for (uint64_t m = sms & ~done; m; m &= m - 1)
                gd_gpc_release_n(a, (uint32_t)__builtin_ctzll(m), mine, n, rest[__builtin_ctzll(m)]);
            for (uint64_t m = done; m; m &= m - 1)
                gd_gpc_release_n(b, (uint32_t)__builtin_ctzll(m), mine, n, sw);
            for (uint64_t m = sms & ~done; m; m &= m - 1)
                gd_gpc_release_n(b, (uint32_t)__builtin_ctzll(m), mine, n, rest[__builtin_ctzll(m)]);
            gd_gpc_sync(a);
            gd_gpc_sync(b);
            ck_assert_mem_eq(a, b, sizeof *a);
            uint32_t total = 0;
            for (uint32_t i = 0; i < nsm; i++)
                total += gd_gpc_free_slots_of(a, i);
            ck_assert_uint_eq(a->free_total, total);
        }
        free(a);
        free(b);
    }
    /* both kinds of SM were met */
    ck_assert_uint_gt(placed_total, 1000);
    ck_assert_uint_gt(left_total, 100);
}
END_TEST

/* The GPU2GPC view: earliest and second-earliest retirement, best GPC excluding one. */
START_TEST(gpc_view_orders)
{
    gd_gpc_view v;
    gd_gpc_view_init(&v, 5);
    uint64_t t[] = {50, 20, 20, 90, 10};
    for (uint32_t g = 0; g < 5; g++)
        gd_gpc_view_set_retire(&v, g, t[g]);
    ck_assert_uint_eq(gd_gpc_view_first(&v), 4);
    uint32_t g2;
    ck_assert_uint_eq(gd_gpc_view_second(&v, &g2), 20);
    ck_assert_uint_eq(g2, 1); /* tie with GPC 2: lower index first */
    gd_gpc_view_set_retire(&v, 4, UINT64_MAX);
    ck_assert_uint_eq(gd_gpc_view_first(&v), 1);
    ck_assert_uint_eq(gd_gpc_view_second(&v, &g2), 20);
    ck_assert_uint_eq(g2, 2);
    gd_gpc_view_set_free(&v, 0, 2);
    gd_gpc_view_set_free(&v, 3, 4);
    gd_gpc_view_set_free(&v, 4, 4);
    ck_assert_uint_eq(gd_gpc_view_best(&v, UINT32_MAX), 3);
    ck_assert_uint_eq(gd_gpc_view_best(&v, 3), 4);
    gd_gpc_view_set_free(&v, 3, 0);
    gd_gpc_view_set_free(&v, 4, 0);
    ck_assert_uint_eq(gd_gpc_view_best(&v, 0), UINT32_MAX);
}
END_TEST

/* The earliest and second-earliest retirement over up to GD_MAX_GPCS GPCs after batches
 * of 1 to n changes (the heap settles them one by one or rebuilds itself): the same
 * answers as a scan of every GPC, ties to the lower index. */
static uint32_t first_by_scan(const uint64_t *r, uint32_t n, uint32_t except)
{
    uint32_t best = UINT32_MAX;
    for (uint32_t g = 0; g < n; g++)
        if (g != except && (best == UINT32_MAX || r[g] < r[best]))
            best = g;
    return best;
}

START_TEST(gpc_view_retire_batches)
{
    static gd_gpc_view v;
    static uint64_t r[GD_MAX_GPCS];
    const uint32_t sizes[] = {1, 2, 5, 6, 8, 64, 300, GD_MAX_GPCS};
    uint64_t x = 2463534242ull;  /* xorshift64 */
    for (size_t s = 0; s < sizeof sizes / sizeof *sizes; s++) {
        const uint32_t n = sizes[s];
        gd_gpc_view_init(&v, n);
        for (uint32_t g = 0; g < n; g++)
            r[g] = UINT64_MAX;
        for (int i = 0; i < 4000; i++) {
            x ^= x << 13; x ^= x >> 7; x ^= x << 17;
            const uint32_t batch = 1 + (uint32_t)(x % ((x >> 8) % 4 ? 4 : n));  /* few, or up to all */
            for (uint32_t b = 0; b < batch; b++) {
                x ^= x << 13; x ^= x >> 7; x ^= x << 17;
                const uint32_t g = (uint32_t)((x >> 3) % n);
                r[g] = (x >> 40) % 8 ? (x >> 20) % 50 : UINT64_MAX;  /* many ties, some never */
                gd_gpc_view_set_retire(&v, g, r[g]);
            }
            const uint32_t f = first_by_scan(r, n, UINT32_MAX);
            ck_assert_uint_eq(gd_gpc_view_first(&v), f);
            uint32_t g2;
            const uint64_t t2 = gd_gpc_view_second(&v, &g2);
            const uint32_t s2 = first_by_scan(r, n, f);
            ck_assert_uint_eq(g2, s2);
            ck_assert_uint_eq(t2, s2 == UINT32_MAX ? UINT64_MAX : r[s2]);
        }
    }
}
END_TEST

/* The best GPC over up to GD_MAX_GPCS GPCs (the per-level sets): the same answer as a
 * scan of every GPC, after each of 20,000 random changes of one GPC's free slots. */
static uint32_t best_by_scan(const uint32_t *f, uint32_t n, uint32_t except)
{
    uint32_t best = UINT32_MAX, bf = 0;
    for (uint32_t g = 0; g < n; g++)
        if (g != except && f[g] > bf) {
            bf = f[g];
            best = g;
        }
    return best;
}

START_TEST(gpc_view_best_many_gpcs)
{
    static gd_gpc_view v;
    static uint32_t f[GD_MAX_GPCS];
    const uint32_t sizes[] = {1, 63, 64, 65, 300, GD_MAX_GPCS};
    uint64_t x = 88172645463325252ull;  /* xorshift64 */
    for (size_t s = 0; s < sizeof sizes / sizeof *sizes; s++) {
        const uint32_t n = sizes[s];
        gd_gpc_view_init(&v, n);
        memset(f, 0, sizeof f);
        for (int i = 0; i < 20000; i++) {
            x ^= x << 13; x ^= x >> 7; x ^= x << 17;
            uint32_t g = (uint32_t)(x % n), level = (uint32_t)((x >> 20) % 9);  /* levels 0..8: many ties */
            if ((x >> 40) % 50 == 0)
                level = GD_MAX_FREE_LEVELS - 1;
            f[g] = level;
            gd_gpc_view_set_free(&v, g, level);
            uint32_t except = (x >> 32) % 3 ? (uint32_t)((x >> 24) % n) : UINT32_MAX;
            ck_assert_uint_eq(gd_gpc_view_best(&v, except), best_by_scan(f, n, except));
            ck_assert_uint_eq(gd_gpc_view_best(&v, UINT32_MAX), best_by_scan(f, n, UINT32_MAX));
        }
    }
}
END_TEST

/* Occupancy over time, by hand: 2 SMs (GPCs 0 and 1), intervals of 10 ps. SM 0 holds
 * 4 warps over [0, 15), SM 1 2 warps over [12, 40) and 3 more over [15, 16); then an
 * idle stretch, and SM 0 holds 1 warp over [95, 105). Interval [10, 20): SM 0 4 x 5 /
 * 10 = 2, SM 1 (2 x 8 + 3 x 1) / 10 = 1.9. The idle intervals [40, 90) get no row. */
START_TEST(occupancy_series_by_hand)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    ck_assert_ptr_nonnull(f);
    const uint32_t gpc_of[2] = {0, 1};
    gd_occ_series s;
    ck_assert_int_eq(gd_occ_series_init(&s, f, 2, 2, gpc_of, 10, 7), GD_OK);
    gd_occ_series_add(&s, 0, 4, 0, 15);
    gd_occ_series_add(&s, 1, 2, 12, 40);
    gd_occ_series_add(&s, 1, 3, 15, 16);
    gd_occ_series_add(&s, 0, 1, 95, 105);
    ck_assert_int_eq(gd_occ_series_finish(&s), GD_OK);
    ck_assert_uint_eq(s.rows, 6);
    gd_occ_series_destroy(&s);
    fclose(f);
    ck_assert_str_eq(buf, "start_ns,gpu,gpc0,gpc1,sm0,sm1\n"
                          "7.000,4.0000,4.0000,0.0000,4.0000,0.0000\n"
                          "7.010,3.9000,2.0000,1.9000,2.0000,1.9000\n"
                          "7.020,2.0000,0.0000,2.0000,0.0000,2.0000\n"
                          "7.030,2.0000,0.0000,2.0000,0.0000,2.0000\n"
                          "7.090,0.5000,0.5000,0.0000,0.5000,0.0000\n"
                          "7.100,0.5000,0.5000,0.0000,0.5000,0.0000\n");
    free(buf);
    /* starts out of order are an internal error, not a wrong row */
    f = open_memstream(&buf, &len);
    ck_assert_int_eq(gd_occ_series_init(&s, f, 2, 2, gpc_of, 10, 0), GD_OK);
    gd_occ_series_add(&s, 0, 4, 20, 30);
    gd_occ_series_add(&s, 1, 4, 10, 30);
    ck_assert_int_eq(gd_occ_series_finish(&s), GD_EINTERNAL);
    gd_occ_series_destroy(&s);
    fclose(f);
    free(buf);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("occupancy");
    TCase *tc = tcase_create("rules");
    tcase_add_test(tc, registers_h100);
    tcase_add_test(tc, registers_granularity_a100);
    tcase_add_test(tc, warps_tie_v100);
    tcase_add_test(tc, shared_memory_a100);
    tcase_add_test(tc, shared_memory_v100);
    tcase_add_test(tc, shared_memory_optin_h100);
    tcase_add_test(tc, cta_slots_each_cc);
    tcase_add_test(tc, default_limit_gives_zero);
    tcase_add_test(tc, too_many_registers_fit_none);
    tcase_add_test(tc, no_registers_no_register_limit);
    tcase_add_test(tc, impossible_shapes_are_errors);
    tcase_add_test(tc, kineto_estimate_matches_captures);
    suite_add_tcase(s, tc);
    TCase *tr = tcase_create("tracker");
    tcase_add_test(tr, free_slots_track_take_and_give);
    tcase_add_test(tr, free_slots_mixed_kernels);
    tcase_add_test(tr, gpc_places_most_free_lowest_index);
    tcase_add_test(tr, group_take_and_give_equal_single);
    tcase_add_test(tr, mask_take_and_give_equal_per_sm);
    tcase_add_test(tr, mask_release_in_halves);
    tcase_add_test(tr, gpc_view_orders);
    tcase_add_test(tr, gpc_view_retire_batches);
    tcase_add_test(tr, gpc_view_best_many_gpcs);
    tcase_add_test(tr, occupancy_series_by_hand);
    suite_add_tcase(s, tr);
    return tb_run_suite(s);
}
