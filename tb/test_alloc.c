/* test_alloc.c - contiguous allocation and seed 001's maximum-free-block finders
 * (model/sm/alloc.c, embodiments 4-7) without a simulator: each finder against a plain
 * scan on 10^6 random maps (n = 8 ... 256, every group count z dividing n, several
 * samplings, every packing of the shared unit), the seed's own examples, and
 * first-fit allocation with exact release. */
#include <check.h>
#include <string.h>

#include "alloc.h"
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

int main(void)
{
    Suite *s = suite_create("alloc");
    TCase *tc = tcase_create("finders");
    tcase_set_timeout(tc, 600);
    tcase_add_test(tc, finders_match_the_scan);
    tcase_add_test(tc, shared_unit);
    tcase_add_test(tc, hand_cases);
    tcase_add_test(tc, first_fit_allocation);
    suite_add_tcase(s, tc);
    return tb_run_suite(s);
}
