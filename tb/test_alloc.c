/* test_alloc.c - contiguous allocation and seed 001's maximum-free-block finders
 * (model/sm/alloc.c, embodiments 4-7) without a simulator: each finder against a plain
 * scan on 10^6 random maps (n = 8 ... 256, every group count z dividing n, several
 * samplings, every packing of the shared unit), the seed's own examples, and
 * first-fit allocation with exact release. */
#include <check.h>
#include <string.h>

#include "alloc.h"
#include "gdsim.h"
#include "tb_util.h"

static uint64_t rng = 0x9E3779B97F4A7C15ull;
static uint64_t rnd64(void)
{
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return rng;
}

/* A random map of n units, each free with probability p/16. */
static void random_map(gd_umap *m, uint32_t n, uint32_t p)
{
    gd_umap_init(m, n);
    memset(m->w, 0, sizeof m->w);
    for (uint32_t i = 0; i < n; i++)
        if (rnd64() % 16 < p)
            m->w[i >> 6] |= 1ull << (i & 63);
}

/* The group finder's definition, computed another way: the longest run of
 * group-aligned, fully free groups of n/z units, times n/z. */
static uint32_t groups_ref(const gd_umap *m, uint32_t z)
{
    uint32_t g = m->n / z, best = 0, run = 0;
    for (uint32_t u = 0; u < z; u++) {
        int all = 1;
        for (uint32_t j = u * g; j < (u + 1) * g; j++)
            all &= (int)((m->w[j >> 6] >> (j & 63)) & 1u);
        run = all ? run + 1 : 0;
        if (run > best)
            best = run;
    }
    return best * g;
}

/* The sampled finder's definition: the largest sampled k with a free block of k + 1. */
static uint32_t sampled_ref(uint32_t exact, const uint32_t *k, uint32_t w, uint32_t n)
{
    uint32_t best = 0;
    for (uint32_t a = 0; a < w && k[a] < n; a++)
        if (exact >= k[a] + 1)
            best = k[a] + 1;
    return best;
}

static const uint32_t SAMPLES_POW2[] = {0, 1, 2, 3, 5, 7, 11, 15, 23, 31, 47, 63, 95, 127, 191, 255};
static const uint32_t SAMPLES_DENSE[] = {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15};
static const uint32_t SAMPLES_NOPRIME[] = {0, 1, 4, 8, 14, 20, 26, 32, 48, 64, 80, 96, 128, 160, 192, 224};

START_TEST(finders_match_the_scan)
{
    static const uint32_t NS[] = {8, 12, 16, 24, 32, 48, 64, 96, 100, 128, 160, 192, 200, 255, 256};
    const uint32_t *samplings[] = {SAMPLES_POW2, SAMPLES_DENSE, SAMPLES_NOPRIME};
    ck_assert(gd_samples_ok(SAMPLES_POW2, 16) && gd_samples_ok(SAMPLES_DENSE, 16) && gd_samples_ok(SAMPLES_NOPRIME, 16));
    /* (counted, not asserted per map: Check reports every assertion through a pipe) */
    uint64_t checked = 0, bad_shift = 0, bad_groups = 0, bad_sampled = 0;
    for (uint32_t iter = 0; checked < 1000000; iter++) {
        uint32_t n = NS[iter % (sizeof NS / sizeof NS[0])];
        gd_umap m;
        random_map(&m, n, 1 + (uint32_t)(rnd64() % 16));
        uint32_t exact = gd_maxrun_scan(&m);
        bad_shift += gd_maxrun_shift(&m) != exact;
        for (uint32_t z = 1; z <= n; z++) {
            if (n % z)
                continue;
            uint32_t g = gd_maxrun_groups(&m, z);
            bad_groups += g != groups_ref(&m, z) || g > exact;
        }
        for (int s = 0; s < 3; s++) {
            uint32_t v = gd_maxrun_sampled(&m, samplings[s], 16);
            bad_sampled += v != sampled_ref(exact, samplings[s], 16, n) || v > exact;
        }
        checked++;
    }
    ck_assert_uint_eq(bad_shift, 0);
    ck_assert_uint_eq(bad_groups, 0);
    ck_assert_uint_eq(bad_sampled, 0);
}
END_TEST

/* Embodiment 7: several maps on one shared unit give each map's exact largest block;
 * the seed's example (128, 64 and 48 blocks on a 128-bit unit) takes two periods. */
START_TEST(shared_unit)
{
    gd_umap a, b, c;
    const gd_umap *maps[3] = {&a, &b, &c};
    uint32_t out[3];
    uint64_t bad = 0;
    for (int iter = 0; iter < 20000; iter++) {
        random_map(&a, 128, 1 + (uint32_t)(rnd64() % 16));
        random_map(&b, 64, 1 + (uint32_t)(rnd64() % 16));
        random_map(&c, 48, 1 + (uint32_t)(rnd64() % 16));
        bad += gd_maxrun_shared(maps, 3, 128, out) != 2;
        bad += out[0] != gd_maxrun_scan(&a) || out[1] != gd_maxrun_scan(&b) || out[2] != gd_maxrun_scan(&c);
        /* smaller maps pack three to a period */
        random_map(&a, 40, 1 + (uint32_t)(rnd64() % 16));
        random_map(&b, 40, 1 + (uint32_t)(rnd64() % 16));
        random_map(&c, 40, 1 + (uint32_t)(rnd64() % 16));
        bad += gd_maxrun_shared(maps, 3, 128, out) != 1;
        bad += out[0] != gd_maxrun_scan(&a) || out[1] != gd_maxrun_scan(&b) || out[2] != gd_maxrun_scan(&c);
    }
    ck_assert_uint_eq(bad, 0);
    /* a free run at the end of one map and the start of the next is not one block */
    gd_umap_init(&a, 8);
    gd_umap_init(&b, 8);
    a.w[0] = 0xF0;  /* units 4-7 free */
    b.w[0] = 0x0F;  /* units 0-3 free */
    const gd_umap *two[2] = {&a, &b};
    ck_assert_uint_eq(gd_maxrun_shared(two, 2, 16, out), 1);
    ck_assert_uint_eq(out[0], 4);
    ck_assert_uint_eq(out[1], 4);
}
END_TEST

/* Hand cases: the seed's grouping example (128 units in groups of 4), a sampled finder
 * that misses a block between its samples. */
START_TEST(hand_cases)
{
    gd_umap m;
    gd_umap_init(&m, 128);
    memset(m.w, 0, sizeof m.w);
    for (uint32_t i = 6; i < 19; i++)  /* 13 free units, 6..18 */
        m.w[i >> 6] |= 1ull << (i & 63);
    ck_assert_uint_eq(gd_maxrun_scan(&m), 13);
    ck_assert_uint_eq(gd_maxrun_shift(&m), 13);
    ck_assert_uint_eq(gd_maxrun_groups(&m, 32), 8);  /* groups 2 and 3 (units 8..15) are whole */
    ck_assert_uint_eq(gd_maxrun_sampled(&m, SAMPLES_POW2, 16), 12);  /* k = 11: 12 units */
    gd_umap_init(&m, 16);
    ck_assert_uint_eq(gd_maxrun_shift(&m), 16);
    memset(m.w, 0, sizeof m.w);
    ck_assert_uint_eq(gd_maxrun_shift(&m), 0);
    ck_assert_uint_eq(gd_maxrun_sampled(&m, SAMPLES_POW2, 16), 0);
    static const uint32_t shrinking[] = {0, 4, 6};
    ck_assert(!gd_samples_ok(shrinking, 3));
}
END_TEST

/* First fit: blocks start at the lowest address that has room; a release gives back
 * exactly its block; a fragmented map has room in units but not in a block. */
START_TEST(first_fit_allocation)
{
    gd_umap m;
    gd_umap_init(&m, 16);
    ck_assert_int_eq(gd_umap_alloc(&m, 4), 0);
    ck_assert_int_eq(gd_umap_alloc(&m, 4), 4);
    ck_assert_int_eq(gd_umap_alloc(&m, 4), 8);
    ck_assert_int_eq(gd_umap_alloc(&m, 4), 12);
    ck_assert_int_eq(gd_umap_alloc(&m, 1), -1);
    gd_umap_release(&m, 4, 4);
    gd_umap_release(&m, 12, 4);
    ck_assert_uint_eq(gd_umap_free_units(&m), 8);
    ck_assert_uint_eq(gd_maxrun_scan(&m), 4);
    ck_assert_int_eq(gd_umap_alloc(&m, 8), -1);  /* 8 free units, no block of 8 */
    ck_assert_int_eq(gd_umap_alloc(&m, 3), 4);
    ck_assert_int_eq(gd_umap_alloc(&m, 2), 12);
    ck_assert_uint_eq(gd_maxrun_scan(&m), 2);
}
END_TEST

/* The model's word-wide finder results (gd_block_finder_max) equal the hardware
 * algorithms' on random maps, up to the longest map (2048 units). */
START_TEST(model_finders_match_the_hardware)
{
    static const uint32_t NS[] = {8, 64, 100, 256, 384, 1312, 1824, 2048};
    gd_alloc_cfg a;
    memset(&a, 0, sizeof a);
    a.nsamples = 16;
    memcpy(a.samples, SAMPLES_POW2, sizeof SAMPLES_POW2);
    uint64_t bad_fast = 0, bad_groups = 0, bad_sampled = 0;
    for (uint32_t iter = 0; iter < 40000; iter++) {
        uint32_t n = NS[iter % (sizeof NS / sizeof NS[0])];
        gd_umap m;
        random_map(&m, n, 1 + (uint32_t)(rnd64() % 16));
        if (iter % 7 == 0)  /* long free runs across words */
            for (uint32_t i = 0; i < n; i++)
                if (rnd64() % 64 == 0)
                    gd_umap_release(&m, i, (uint32_t)(rnd64() % 200));
        uint32_t exact = gd_maxrun_scan(&m);
        a.finder = GD_FINDER_SHIFT;
        bad_fast += gd_block_finder_max(&a, &m) != exact || gd_maxrun_fast(&m) != exact;
        a.finder = GD_FINDER_GROUPS;
        a.groups = n % 4 ? (n % 2 ? 1 : 2) : 4;
        bad_groups += gd_block_finder_max(&a, &m) != groups_ref(&m, a.groups);
        a.finder = GD_FINDER_SAMPLED;
        bad_sampled += gd_block_finder_max(&a, &m) != sampled_ref(exact, SAMPLES_POW2, 16, n);
        if (n <= 256) {
            bad_groups += gd_block_finder_max(&(gd_alloc_cfg){.finder = GD_FINDER_GROUPS, .groups = a.groups}, &m) !=
                          gd_maxrun_groups(&m, a.groups);
            bad_sampled += gd_block_finder_max(&a, &m) != gd_maxrun_sampled(&m, SAMPLES_POW2, 16);
        }
    }
    ck_assert_uint_eq(bad_fast, 0);
    ck_assert_uint_eq(bad_groups, 0);
    ck_assert_uint_eq(bad_sampled, 0);
}
END_TEST

/* An h100 SM's placement state: 4 sub-partitions of 64 register units, 1824
 * shared-memory units, 64 warp slots, 32 CTA slots. */
static const gd_sm_limits H100 = {.cc_major = 9, .warp_size = 32, .max_warps = 64, .max_ctas = 32, .regs = 65536,
                                   .reg_alloc_unit = 256, .reg_subpartitions = 4, .max_regs_per_thread = 255,
                                   .smem = 233472, .smem_alloc_unit = 128, .smem_reserved_per_cta = 1024,
                                   .smem_per_cta_default = 49152, .smem_per_cta_optin = 232448,
                                   .max_threads_per_cta = 1024};

static void h100_sm(gd_alloc_cfg *a, gd_sm_res *r, gd_sm_place *p, int contiguous, int placement)
{
    memset(a, 0, sizeof *a);
    a->contiguous = contiguous;
    a->placement = placement;
    a->finder = GD_FINDER_SHIFT;
    a->finder_cycles = 1;
    a->scan_bits = 1;
    a->width = 2048;
    a->nsub = 4;
    a->reg_unit = 256;
    a->reg_units = 64;
    a->smem_unit = 128;
    a->smem_units = 1824;
    a->max_warps = 64;
    gd_sm_res_init(r, &H100);
    gd_sm_place_init(p, a);
    r->place = p;
}

static gd_cta_cost cost_of(uint32_t threads, uint32_t regs, uint32_t smem)
{
    gd_occupancy o;
    gd_cta_shape sh = {threads, regs, smem};
    gd_err err;
    ck_assert_int_eq(gd_occupancy_compute(&o, &H100, &sh, H100.smem_per_cta_optin, &err), GD_OK);
    return o.cost;
}

/* The cycles a refresh costs with each finder on the h100's maps. */
START_TEST(finder_cycles)
{
    gd_alloc_cfg a;
    gd_sm_res r;
    gd_sm_place p;
    h100_sm(&a, &r, &p, 1, GD_PLACE_POOLED);
    ck_assert_uint_eq(gd_block_finder_cycles(&a), 1);
    a.finder = GD_FINDER_SCAN;
    ck_assert_uint_eq(gd_block_finder_cycles(&a), 1824);  /* the longest map, a unit per cycle */
    a.scan_bits = 64;
    ck_assert_uint_eq(gd_block_finder_cycles(&a), 29);
    a.finder = GD_FINDER_SHARED;
    ck_assert_uint_eq(gd_block_finder_cycles(&a), 2);  /* 4 x 64 + 1824 > 2048: two periods */
    a.smem_units = 1792;
    ck_assert_uint_eq(gd_block_finder_cycles(&a), 1);  /* 4 x 64 + 1792 = 2048: one */
    a.finder_cycles = 3;
    ck_assert_uint_eq(gd_block_finder_cycles(&a), 3);
    a.width = 64;
    a.smem_units = 64;
    ck_assert_uint_eq(gd_block_finder_cycles(&a), 15);  /* five maps, a period each */
    a.contiguous = 0;
    ck_assert_uint_eq(gd_block_finder_cycles(&a), 0);
}
END_TEST

/* Free slots under placement count what successive takes place: on an empty SM the
 * occupancy rules' max CTAs (except under the head pointer, which as the seed writes it
 * visits only some sub-partitions for some warp counts: see wave_placement_on_an_sm);
 * each take lowers them by exactly one; a give returns exactly its blocks. Random mixes
 * of CTA shapes, both allocations, every placement. */
START_TEST(placement_free_slots_are_exact)
{
    static const uint32_t THREADS[] = {32, 64, 96, 128, 256, 384, 512, 1024};
    static const uint32_t REGS[] = {16, 32, 40, 64, 96, 128, 168, 255};
    static const uint32_t SMEM[] = {0, 100, 4096, 10000, 49152, 100000};
    uint64_t bad = 0;
    for (int mode = 0; mode < 6; mode++) {
        gd_alloc_cfg a;
        gd_sm_res r;
        gd_sm_place p;
        h100_sm(&a, &r, &p, mode & 1, mode / 2);
        gd_cta_cost held[64];
        gd_cta_alloc al[64];
        uint32_t nheld = 0;
        for (int iter = 0; iter < 3000; iter++) {
            gd_cta_cost c = cost_of(THREADS[rnd64() % 8], REGS[rnd64() % 8], SMEM[rnd64() % 6]);
            if (nheld == 0 && a.placement != GD_PLACE_HEAD)  /* empty: the occupancy rules' count */
                bad += gd_sm_res_free_slots(&r, &c) != gd_sm_res_count_slots(&r, &c);
            uint32_t f = gd_sm_res_free_slots(&r, &c);
            bad += f > gd_sm_res_count_slots(&r, &c);
            if (f && nheld < 64 && rnd64() % 3) {
                gd_sm_res_take(&r, &c, &al[nheld]);
                held[nheld++] = c;
                bad += gd_sm_res_free_slots(&r, &c) != f - 1;
            } else if (nheld) {
                uint32_t i = (uint32_t)(rnd64() % nheld);
                gd_sm_res_give(&r, &held[i], &al[i]);
                held[i] = held[nheld - 1];
                al[i] = al[nheld - 1];
                nheld--;
            }
        }
        while (nheld) {
            nheld--;
            gd_sm_res_give(&r, &held[nheld], &al[nheld]);
        }
        /* all given back: every unit and slot free again */
        bad += r.warps != 64 || r.ctas != 32 || r.smem != 233472;
        for (uint32_t t = 0; t < 4; t++) {
            bad += r.regs[t] != 16384 || p.warps[t] != 16;
            if (a.contiguous)
                bad += gd_umap_free_units(&p.regs[t]) != 64;
        }
        if (a.contiguous)
            bad += gd_umap_free_units(&p.smem) != 1824;
    }
    ck_assert_uint_eq(bad, 0);
}
END_TEST

/* The hand case of tb/test_fragment.py on one SM: four 4-warp CTAs of 16 register
 * units per sub-partition fill the register files; the second and fourth go: 32 units
 * free per sub-partition in two blocks. A CTA of 32 units per sub-partition fits by the
 * counted rules, not contiguously; once the first goes it fits at unit 0. */
START_TEST(fragmentation_hand_case)
{
    gd_alloc_cfg a;
    gd_sm_res r;
    gd_sm_place p;
    h100_sm(&a, &r, &p, 1, GD_PLACE_POOLED);
    gd_cta_cost small = cost_of(128, 128, 0), big = cost_of(128, 255, 0);
    ck_assert_uint_eq(small.regs_per_warp, 4096);
    ck_assert_uint_eq(big.regs_per_warp, 8192);
    gd_cta_alloc al[4], b;
    for (int i = 0; i < 4; i++) {
        gd_sm_res_take(&r, &small, &al[i]);
        for (int t = 0; t < 4; t++) {
            ck_assert_uint_eq(al[i].warps_in_sub[t], 1);
            ck_assert_uint_eq(al[i].reg_start[t], 16 * i);
        }
        ck_assert_uint_eq(al[i].smem_start, 8 * i);  /* 1024 reserved bytes: 8 units */
    }
    ck_assert_uint_eq(gd_sm_res_free_slots(&r, &small), 0);
    gd_sm_res_give(&r, &small, &al[1]);
    gd_sm_res_give(&r, &small, &al[3]);
    ck_assert_uint_eq(gd_sm_res_count_slots(&r, &big), 1);
    ck_assert_uint_eq(gd_sm_res_free_slots(&r, &big), 0);
    ck_assert_uint_eq(gd_sm_res_free_slots(&r, &small), 2);
    gd_sm_res_give(&r, &small, &al[0]);
    ck_assert_uint_eq(gd_sm_res_free_slots(&r, &big), 1);
    gd_sm_res_take(&r, &big, &b);
    for (int t = 0; t < 4; t++)
        ck_assert_uint_eq(b.reg_start[t], 0);
    ck_assert_uint_eq(b.smem_start, 0);
    /* count mode: the same sequence fits the big CTA after the second and fourth go */
    gd_sm_res c;
    gd_sm_res_init(&c, &H100);
    for (int i = 0; i < 4; i++)
        gd_sm_res_take(&c, &small, &al[i]);
    gd_sm_res_give(&c, &small, &al[1]);
    gd_sm_res_give(&c, &small, &al[3]);
    ck_assert_uint_eq(gd_sm_res_free_slots(&c, &big), 1);
}
END_TEST

/* Emb. 8 on an SM: one-warp CTAs go to the sub-partitions in the order of the tail
 * pointer (t = t1 + 1, su = t + 1: 2, 3, 0, 1, ...) or the head pointer (t = t1 + 2,
 * su = t: 2, 0, 2, 0, ...: as [0233] writes it, the head pointer leaves sub-partitions 1
 * and 3 idle for one-warp CTAs when q = 4, so the SM holds half as many);
 * pooled puts each on the sub-partition with the largest free block (0, 1, 2, 3). A
 * CTA whose rotated share finds no room in its sub-partition does not fit even when
 * others have room (h4). */
START_TEST(wave_placement_on_an_sm)
{
    static const uint32_t TAIL[] = {2, 3, 0, 1, 2, 3, 0, 1}, HEAD[] = {2, 0, 2, 0, 2, 0, 2, 0},
                          POOLED[] = {0, 1, 2, 3, 0, 1, 2, 3};
    const uint32_t *want[3] = {POOLED, TAIL, HEAD};
    for (int pl = 0; pl < 3; pl++) {
        gd_alloc_cfg a;
        gd_sm_res r;
        gd_sm_place p;
        h100_sm(&a, &r, &p, pl == 0, pl);
        gd_cta_cost one = cost_of(32, 32, 0);
        for (int i = 0; i < 8; i++) {
            gd_cta_alloc al;
            gd_sm_res_take(&r, &one, &al);
            uint32_t sub = 0;
            for (uint32_t t = 0; t < 4; t++)
                if (al.warps_in_sub[t])
                    sub = t;
            ck_assert_msg(sub == want[pl][i], "placement %d, CTA %d: sub-partition %u, want %u", pl, i, sub,
                          want[pl][i]);
        }
    }
    /* tail: fill sub-partition 2's registers; the next one-warp CTA is due there */
    gd_alloc_cfg a;
    gd_sm_res r;
    gd_sm_place p;
    h100_sm(&a, &r, &p, 0, GD_PLACE_TAIL);
    r.regs[2] = 0;
    gd_cta_cost one = cost_of(32, 32, 0);
    ck_assert_uint_eq(gd_sm_res_count_slots(&r, &one), 32);
    ck_assert_uint_eq(gd_sm_res_free_slots(&r, &one), 0);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("alloc");
    TCase *tc = tcase_create("finders");
    tcase_set_timeout(tc, 600);
    tcase_add_test(tc, finders_match_the_scan);
    tcase_add_test(tc, shared_unit);
    tcase_add_test(tc, hand_cases);
    tcase_add_test(tc, first_fit_allocation);
    tcase_add_test(tc, model_finders_match_the_hardware);
    tcase_add_test(tc, finder_cycles);
    tcase_add_test(tc, placement_free_slots_are_exact);
    tcase_add_test(tc, fragmentation_hand_case);
    tcase_add_test(tc, wave_placement_on_an_sm);
    suite_add_tcase(s, tc);
    return tb_run_suite(s);
}
