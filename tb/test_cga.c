/* test_cga.c - seed 003's CGA work-distributor decisions (model/cwd/cga.c) without a
 * simulator: fill the lake, multicast, the GPC query and the GPU2GPC choice, a
 * GPU-CGA's two passes, distributed rasterization, CGA ids. */
#include <check.h>
#include <string.h>

#include "cga.h"
#include "tb_util.h"

static uint64_t rng = 0x9E3779B97F4A7C15ull;
static uint32_t rnd(uint32_t n)
{
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return (uint32_t)(rng % n);
}

/* The animation's rule, one CTA at a time: onto the SM with the most free slots
 * left, the highest priority (lowest index) on a tie. Returns CTAs placed. */
static uint32_t drop_one_by_one(const uint32_t *free_slots, uint32_t n, uint32_t k, uint32_t *take, uint32_t *order)
{
    uint32_t left[64];
    memcpy(left, free_slots, n * sizeof *left);
    memset(take, 0, n * sizeof *take);
    uint32_t placed = 0;
    for (; placed < k; placed++) {
        uint32_t best = 0;
        for (uint32_t i = 1; i < n; i++)
            if (left[i] > left[best])
                best = i;
        if (!left[best])
            break;
        left[best]--;
        take[best]++;
        if (order)
            order[placed] = best;
    }
    return placed;
}

/* Figs 21-23: 137 CTAs over 32 SMs of up to 8 free slots ([0130]: an SM with room for
 * 8 CTAs). The figures are not in the text; the free slots follow its description
 * ([0146]-[0148]): SM3, SM4, SM6, SM8 and SM31 full, SM18 nearly so, SM10-SM12 and
 * SM17 partly used, SM2, SM5, SM7 (and others) empty; 160 free slots in all. */
static const uint32_t FIG21[32] = {6, 5, 8, 0, 0, 8, 0, 8, 0, 7, 4, 3, 5, 6, 7, 8,
                                   6, 2, 1, 5, 8, 7, 6, 5, 4, 8, 7, 6, 5, 8, 7, 0};

START_TEST(fill_the_lake_fig21)
{
    uint32_t take[32], ref[32], order[137];
    gd_lake_result r;
    gd_lake_fill(FIG21, 32, 137, 16, take, &r);
    /* The water settles at level 1: bringing every SM down to one free slot takes
     * 133 CTAs; the 4 left go to the four highest-priority SMs at the water line
     * (SM0, SM1, SM2, SM5: fig 22's popcount from the left below 4, fig 23). */
    ck_assert_uint_eq(r.placed, 137);
    ck_assert_uint_eq(r.level, 1);
    ck_assert_uint_eq(r.extra, 4);
    static const uint32_t expect[32] = {6, 5, 8, 0, 0, 8, 0, 7, 0, 6, 3, 2, 4, 5, 6, 7,
                                        5, 1, 0, 4, 7, 6, 5, 4, 3, 7, 6, 5, 4, 7, 6, 0};
    ck_assert_mem_eq(take, expect, sizeof expect);
    /* scanned from level 8 down to 1: 8 probes */
    ck_assert_uint_eq(r.probes, 8);
    /* the same as dropping the CTAs one by one; the first go to the deepest SMs in
     * priority order (SM2, SM5, SM7, SM15, SM20, SM25, SM29), then level 7 ... */
    ck_assert_uint_eq(drop_one_by_one(FIG21, 32, 137, ref, order), 137);
    ck_assert_mem_eq(take, ref, sizeof ref);
    static const uint32_t first[10] = {2, 5, 7, 15, 20, 25, 29, 2, 5, 7};
    ck_assert_mem_eq(order, first, sizeof first);
    /* a binary search on the level (scan_limit 4 < 8) finds the same in 4 probes
     * (levels 0-8: 4, 2, 1, 0) */
    uint32_t take_bs[32];
    gd_lake_fill(FIG21, 32, 137, 4, take_bs, &r);
    ck_assert_mem_eq(take_bs, expect, sizeof expect);
    ck_assert_uint_eq(r.level, 1);
    ck_assert_uint_eq(r.probes, 4);
    /* more CTAs than free slots: every slot filled, the rest wait ([0154]) */
    gd_lake_fill(FIG21, 32, 500, 16, take, &r);
    ck_assert_uint_eq(r.placed, 160);
    ck_assert_mem_eq(take, FIG21, sizeof FIG21);
}
END_TEST

/* Any free slots, any count: the closed form (scan or binary search) equals the
 * one-by-one drop. */
START_TEST(fill_the_lake_random)
{
    for (int trial = 0; trial < 3000; trial++) {
        uint32_t n = 1 + rnd(64), freeslots[64], a[64], b[64], ref[64];
        uint32_t deep = 1 + rnd(trial % 3 ? 12 : trial % 2 ? 200 : 400);  /* past 256: no histogram */
        for (uint32_t i = 0; i < n; i++)
            freeslots[i] = rnd(4) ? rnd(deep + 1) : 0;
        uint32_t k = rnd(n * deep + 2);
        gd_lake_result ra, rb;
        gd_lake_fill(freeslots, n, k, 1000, a, &ra);  /* scan */
        gd_lake_fill(freeslots, n, k, 0, b, &rb);     /* binary search */
        uint32_t placed = drop_one_by_one(freeslots, n, k, ref, NULL);
        ck_assert_mem_eq(a, ref, n * sizeof *a);
        ck_assert_mem_eq(b, ref, n * sizeof *b);
        ck_assert_uint_eq(ra.placed, placed);
        ck_assert_uint_eq(rb.placed, placed);
        ck_assert_uint_eq(ra.level, rb.level);
    }
}
END_TEST

/* The lake from the GPCs' level masks (what the GPU2GPC distributor uses) equals
 * gd_lake_fill over the whole GPU's free slots: take, receiving GPCs, level, extra,
 * probes, for random GPUs of 1-12 GPCs of 1-64 SMs, shallow and deep, scan and search. */
START_TEST(fill_the_lake_from_levels)
{
    static uint32_t freeslots[12 * 64], ref[12 * 64], take[12 * 64];
    static uint64_t level[12][257];
    for (int trial = 0; trial < 3000; trial++) {
        uint32_t ngpc = 1 + rnd(12), n = 0, deep = 1 + rnd(trial % 3 ? 12 : 256);
        gd_lake_gpc g[12];
        memset(level, 0, sizeof level);
        for (uint32_t c = 0; c < ngpc; c++) {
            uint32_t nsm = 1 + rnd(64), mx = 0;
            for (uint32_t i = 0; i < nsm; i++) {
                uint32_t f = rnd(4) ? rnd(deep + 1) : 0;
                if (trial % 5 == 0 && c % 2)
                    f = 0;  /* full GPCs */
                freeslots[n + i] = f;
                level[c][f] |= 1ull << i;
                mx = f > mx ? f : mx;
            }
            g[c] = (gd_lake_gpc){level[c], mx, nsm};
            n += nsm;
        }
        uint32_t k = rnd(trial % 7 ? n * deep / 2 + 2 : 4);
        uint32_t scan = trial % 2 ? 1000 : rnd(9);
        gd_lake_result ra, rb;
        uint64_t receive[1] = {~0ull};
        for (uint32_t i = 0; i < n; i++)
            take[i] = 0xdead;  /* entries of GPCs that receive nothing stay untouched */
        gd_lake_fill(freeslots, n, k, scan, ref, &ra);
        gd_lake_fill_levels(g, ngpc, k, scan, take, receive, &rb);
        ck_assert_uint_eq(rb.placed, ra.placed);
        ck_assert_uint_eq(rb.level, ra.level);
        ck_assert_uint_eq(rb.extra, ra.extra);
        ck_assert_uint_eq(rb.probes, ra.probes);
        for (uint32_t c = 0, off = 0; c < ngpc; off += g[c].nsm, c++) {
            uint32_t any = 0;
            for (uint32_t i = 0; i < g[c].nsm; i++)
                any |= ref[off + i];
            ck_assert_uint_eq((receive[0] >> c) & 1, any != 0);
            if (any)
                ck_assert_mem_eq(take + off, ref + off, g[c].nsm * sizeof *take);
        }
        ck_assert_uint_eq(receive[0] >> ngpc, 0);
    }
}
END_TEST

/* A GPC's share of a fill from its level masks, grouped by count in the order of
 * each group's lowest SM: SM 0 and SM 2 have 3 free slots, SM 3 has 2, SM 1 has 1;
 * water line 1. */
START_TEST(lake_share_groups)
{
    uint64_t lv[4] = {0, 1u << 1, 1u << 3, 1u << 0 | 1u << 2};
    gd_lake_group g[64];
    /* one CTA at the line: the first SM with >= 1 free slot (SM 0) takes one more */
    ck_assert_uint_eq(gd_lake_gpc_groups(lv, 3, 1, 1, g), 3);
    ck_assert_uint_eq(g[0].sms, 1u << 0);
    ck_assert_uint_eq(g[0].count, 3);
    ck_assert_uint_eq(g[1].sms, 1u << 2);
    ck_assert_uint_eq(g[1].count, 2);
    ck_assert_uint_eq(g[2].sms, 1u << 3);
    ck_assert_uint_eq(g[2].count, 1);
    /* two at the line: SM 1 too, which joins SM 3's count */
    ck_assert_uint_eq(gd_lake_gpc_groups(lv, 3, 1, 2, g), 3);
    ck_assert_uint_eq(g[0].sms, 1u << 0);
    ck_assert_uint_eq(g[0].count, 3);
    ck_assert_uint_eq(g[1].sms, 1u << 1 | 1u << 3);
    ck_assert_uint_eq(g[1].count, 1);
    ck_assert_uint_eq(g[2].sms, 1u << 2);
    ck_assert_uint_eq(g[2].count, 2);
    /* water line above every SM: nothing */
    ck_assert_uint_eq(gd_lake_gpc_groups(lv, 3, 4, 0, g), 0);
    /* the fill of the whole GPU over these four SMs: line 1, 6 CTAs = 5 above the line + 1 */
    gd_lake_gpc one = {lv, 3, 4};
    uint32_t extra[1] = {99};
    uint64_t receive[1];
    gd_lake_result r;
    gd_lake_fill_gpcs(&one, 1, 6, 8, extra, receive, &r);
    ck_assert_uint_eq(r.level, 1);
    ck_assert_uint_eq(r.placed, 6);
    ck_assert_uint_eq(receive[0], 1);
    ck_assert_uint_eq(extra[0], 1);
}
END_TEST

/* The SMs at the water line that take one more are the first `extra` in SM order,
 * however many of the line's SMs that is (all of them, a few, all but a few). */
START_TEST(lake_share_extras_lowest_first)
{
    for (int trial = 0; trial < 4000; trial++) {
        uint64_t m = 0;
        const uint32_t bits = rnd(65);
        for (uint32_t i = 0; i < bits; i++)
            m |= 1ull << rnd(64);
        const uint32_t n = (uint32_t)__builtin_popcountll(m), e = rnd(n + 2);
        uint64_t ref = 0, left = m;
        for (uint32_t i = 0; i < e && left; i++, left &= left - 1)
            ref |= left & -left;
        uint64_t lv[2] = {0, m};  /* every SM of m has one free slot; line 1 */
        gd_lake_group g[64];
        const uint32_t ng = gd_lake_gpc_groups(lv, 1, 1, e, g);
        ck_assert_uint_eq(ng, ref != 0);
        if (ng) {
            ck_assert_uint_eq(g[0].sms, ref);
            ck_assert_uint_eq(g[0].count, 1);
        }
    }
}
END_TEST

/* An idle GPC with room for k CTAs per SM: CTAs per SM differ by at most one. */
START_TEST(idle_gpc_spreads_evenly)
{
    for (uint32_t n = 1; n <= 64; n += 7) {
        uint32_t freeslots[64], take[64];
        for (uint32_t k = 1; k <= 8; k++) {
            for (uint32_t i = 0; i < n; i++)
                freeslots[i] = k;
            for (uint32_t ctas = 1; ctas <= n * k; ctas += 1 + n / 3) {
                gd_lake_result r;
                gd_lake_fill(freeslots, n, ctas, 4, take, &r);
                uint32_t lo = UINT32_MAX, hi = 0;
                for (uint32_t i = 0; i < n; i++) {
                    lo = take[i] < lo ? take[i] : lo;
                    hi = take[i] > hi ? take[i] : hi;
                }
                ck_assert_uint_le(hi - lo, 1);
                ck_assert_uint_eq(r.placed, ctas);
            }
        }
    }
}
END_TEST

/* Multicast: one CTA per SM, SMs of whole TPCs (both SMs with a free slot) first. */
START_TEST(multicast_whole_tpcs_first)
{
    /* TPCs of 2: (SM0 3, SM1 0) partial, (1, 1) whole, (2, 2) whole, (SM6 0, SM7 5) partial */
    static const uint32_t f[8] = {3, 0, 1, 1, 2, 2, 0, 5};
    uint32_t take[8];
    ck_assert_int_eq(gd_multicast_pick(f, 8, 2, 3, take), 1);
    static const uint32_t e3[8] = {0, 0, 1, 0, 1, 1, 0, 0};  /* SM4, SM5 (2 free), then SM2 */
    ck_assert_mem_eq(take, e3, sizeof e3);
    ck_assert_int_eq(gd_multicast_pick(f, 8, 2, 6, take), 1);
    static const uint32_t e6[8] = {1, 0, 1, 1, 1, 1, 0, 1};  /* whole TPCs, then SM7 (5), SM0 (3) */
    ck_assert_mem_eq(take, e6, sizeof e6);
    /* only 6 SMs have a free slot: 7 CTAs cannot be spread one per SM */
    uint32_t before[8];
    memcpy(before, take, sizeof take);
    ck_assert_int_eq(gd_multicast_pick(f, 8, 2, 7, take), 0);
    ck_assert_mem_eq(take, before, sizeof before);
    /* never two CTAs of one CGA on an SM, on random GPCs */
    for (int trial = 0; trial < 2000; trial++) {
        uint32_t n = 1 + rnd(64), fr[64], t[64], m = 1 + rnd(16), have = 0;
        for (uint32_t i = 0; i < n; i++) {
            fr[i] = rnd(3) ? rnd(5) : 0;
            have += fr[i] > 0;
        }
        int ok = gd_multicast_pick(fr, n, 2, m, t);
        ck_assert_int_eq(ok, have >= m);
        if (!ok)
            continue;
        uint32_t sum = 0;
        for (uint32_t i = 0; i < n; i++) {
            ck_assert_uint_le(t[i], 1);
            ck_assert(!t[i] || fr[i] > 0);
            sum += t[i];
        }
        ck_assert_uint_eq(sum, m);
    }
}
END_TEST

/* Fig 28: a multicast GPC-CGA of 4 CTAs queried on four GPCs of 8 SMs. GPC0: SM0
 * empty, SM1 and SM2 partly used, SM3-SM7 full: 3 SMs, it cannot take it. GPC1: four
 * SMs with one slot each: it fits exactly (speed 0). GPC2 (40 free slots) and GPC3
 * (20) both leave 4 slots on the SMs that would receive a CTA: the same speed, so
 * both receive a CGA in the same step although GPC2 is lighter ([0170]-[0171]). */
START_TEST(gpc_choice_fig28)
{
    static const uint32_t gpc[4][8] = {{8, 3, 2, 0, 0, 0, 0, 0},
                                       {1, 1, 1, 1, 0, 0, 0, 0},
                                       {5, 5, 5, 5, 5, 5, 5, 5},
                                       {5, 5, 5, 5, 0, 0, 0, 0}};
    int32_t speed[4];
    uint32_t take[4][8];
    for (int g = 0; g < 4; g++)
        speed[g] = gd_gpc_query(gpc[g], 8, 4, GD_CGA_MULTICAST, 2, 16, take[g]);
    ck_assert_int_eq(speed[0], -1);
    ck_assert_int_eq(speed[1], 0);
    ck_assert_int_eq(speed[2], 4);
    ck_assert_int_eq(speed[3], 4);
    uint64_t pick[1];
    ck_assert_uint_eq(gd_gpu_pick(speed, 4, pick), 2);
    ck_assert_uint_eq(pick[0], 0xC);  /* GPC2 and GPC3 */
    static const uint32_t t2[8] = {1, 1, 1, 1, 0, 0, 0, 0};
    ck_assert_mem_eq(take[2], t2, sizeof t2);
    /* in load-balancing mode the same CGA's 4 CTAs fit GPC0's empty SM0: speed 4 there,
     * and GPC2 now wins alone (its four CTAs on four SMs, 4 left on each) */
    int32_t lb[4];
    for (int g = 0; g < 4; g++)
        lb[g] = gd_gpc_query(gpc[g], 8, 4, GD_CGA_LOAD_BALANCE, 2, 16, take[g]);
    ck_assert_int_eq(lb[0], 4);
    ck_assert_int_eq(lb[1], 0);
    ck_assert_int_eq(lb[2], 4);
    ck_assert_int_eq(lb[3], 4);
    ck_assert_uint_eq(gd_gpu_pick(lb, 4, pick), 3);
    ck_assert_uint_eq(pick[0], 0xD);
    int32_t none[3] = {-1, -1, -1};
    ck_assert_uint_eq(gd_gpu_pick(none, 3, pick), 0);
    ck_assert_uint_eq(pick[0], 0);
    /* beyond 64 GPCs: GPCs 3, 64 and 129 of 130 */
    int32_t many[130];
    for (int g = 0; g < 130; g++)
        many[g] = g == 3 || g == 64 || g == 129 ? 7 : g % 7;
    uint64_t wide[3];
    ck_assert_uint_eq(gd_gpu_pick(many, 130, wide), 3);
    ck_assert_uint_eq(wide[0], 1ull << 3);
    ck_assert_uint_eq(wide[1], 1ull);
    ck_assert_uint_eq(wide[2], 2ull);
}
END_TEST

static void shadow(gd_gpc_shadow *s, const uint32_t *freeslots, uint32_t nsm, uint32_t cgas, uint32_t ids)
{
    memset(s, 0, sizeof *s);
    s->nsm = nsm;
    memcpy(s->free_slots, freeslots, nsm * sizeof *freeslots);
    s->cgas_left = cgas;
    s->ids_left = ids;
}

/* A GPU-CGA launches all its GPC-CGAs or none; a failed speculation leaves the
 * state as it was. */
START_TEST(gpu_cga_all_or_nothing)
{
    static const uint32_t a[4] = {2, 2, 0, 0}, b[4] = {1, 1, 1, 1}, c[4] = {0, 0, 0, 1};
    gd_gpc_shadow g[3], before[3];
    shadow(&g[0], a, 4, 8, 8);
    shadow(&g[1], b, 4, 8, 8);
    shadow(&g[2], c, 4, 8, 8);
    memcpy(before, g, sizeof g);
    uint32_t gpc_of[8], take[8 * GD_MAX_SMS_PER_GPC];
    uint32_t scratch[3 * (sizeof(gd_gpc_shadow) / 4 + GD_MAX_SMS_PER_GPC + 1)];
    ck_assert_uint_eq(sizeof scratch, gd_gpu_cga_scratch_size(3));
    /* 3 GPC-CGAs of 2 CTAs: 9 free slots, but GPC2's single slot cannot hold a part:
     * iteration 1 places on GPC0 (speed 1) and GPC1 (speed 0); iteration 2: GPC0 again
     * (its SMs 1 and 1 -> speed 0) */
    ck_assert_int_eq(gd_gpu_cga_place(g, 3, 3, 2, GD_CGA_LOAD_BALANCE, 2, 16, gpc_of, take, scratch), 1);
    ck_assert_uint_eq(gpc_of[0], 0);
    ck_assert_uint_eq(gpc_of[1], 1);
    ck_assert_uint_eq(gpc_of[2], 0);
    ck_assert_uint_eq(take[0 * GD_MAX_SMS_PER_GPC + 0], 1);
    ck_assert_uint_eq(take[0 * GD_MAX_SMS_PER_GPC + 1], 1);
    ck_assert_uint_eq(take[1 * GD_MAX_SMS_PER_GPC + 0], 1);
    ck_assert_uint_eq(take[1 * GD_MAX_SMS_PER_GPC + 1], 1);
    ck_assert_uint_eq(g[0].free_slots[0] + g[0].free_slots[1], 0);
    ck_assert_uint_eq(g[0].cgas_left, 6);
    ck_assert_uint_eq(g[1].free_slots[0] + g[1].free_slots[1], 0);
    ck_assert_uint_eq(g[1].free_slots[2] + g[1].free_slots[3], 2);
    /* now 2 parts of 3 CTAs: only GPC1's two free slots and GPC2's one are left */
    gd_gpc_shadow mid[3];
    memcpy(mid, g, sizeof g);
    ck_assert_int_eq(gd_gpu_cga_place(g, 3, 2, 3, GD_CGA_LOAD_BALANCE, 2, 16, gpc_of, take, scratch), 0);
    ck_assert_mem_eq(g, mid, sizeof g);
    /* the GPC-CGA counter and the CGA ids limit too */
    memcpy(g, before, sizeof g);
    g[0].ids_left = 0;
    ck_assert_int_eq(gd_gpu_cga_place(g, 3, 3, 2, GD_CGA_LOAD_BALANCE, 2, 16, gpc_of, take, scratch), 0);
    g[0].ids_left = 8;
    g[0].cgas_left = 1;  /* GPC0 may take one more GPC-CGA, GPC1 none */
    g[1].cgas_left = 0;
    ck_assert_int_eq(gd_gpu_cga_place(g, 3, 2, 2, GD_CGA_LOAD_BALANCE, 2, 16, gpc_of, take, scratch), 0);
    g[1].cgas_left = 1;
    ck_assert_int_eq(gd_gpu_cga_place(g, 3, 2, 2, GD_CGA_LOAD_BALANCE, 2, 16, gpc_of, take, scratch), 1);
    ck_assert_uint_eq(g[1].cgas_left, 0);
    ck_assert_uint_eq(g[1].ids_left, 7);
}
END_TEST

/* The SMs' rasterization from launch-count deltas equals the direct computation. */
START_TEST(rasterization_matches_direct)
{
    for (int trial = 0; trial < 300; trial++) {
        uint32_t dim[3] = {1 + rnd(40), 1 + rnd(12), 1 + rnd(6)};
        if (trial % 5 == 0)
            dim[0] = 1 + rnd(70000);
        uint64_t total = (uint64_t)dim[0] * dim[1] * dim[2], pos = 0;
        gd_raster r;
        gd_raster_init(&r, dim);
        while (pos + 1 < total) {
            uint64_t room = total - 1 - pos;
            uint64_t delta = 1 + (room > 1 ? rnd((uint32_t)(room < 5000 ? room : 5000)) : 0);
            if (delta > room)
                delta = room;
            gd_raster_advance(&r, delta);
            pos += delta;
            uint32_t d[3];
            gd_raster_direct(dim, pos, d);
            ck_assert_mem_eq(r.cur, d, sizeof d);
        }
    }
    /* [0186]-[0190]: x carries into y, y into z */
    uint32_t dim[3] = {4, 3, 2};
    gd_raster r;
    gd_raster_init(&r, dim);
    gd_raster_advance(&r, 3);   /* (3,0,0) */
    gd_raster_advance(&r, 10);  /* 13 = 1 + 0*4 + 1*12: (1,0,1) */
    ck_assert_uint_eq(r.cur[0], 1);
    ck_assert_uint_eq(r.cur[1], 0);
    ck_assert_uint_eq(r.cur[2], 1);
}
END_TEST

START_TEST(cga_ids_free_list)
{
    gd_cga_ids ids;
    gd_cga_ids_init(&ids, 3);
    ck_assert_uint_eq(gd_cga_ids_take(&ids), 0);
    ck_assert_uint_eq(gd_cga_ids_take(&ids), 1);
    ck_assert_uint_eq(gd_cga_ids_take(&ids), 2);
    ck_assert_uint_eq(gd_cga_ids_take(&ids), UINT32_MAX);  /* the launch stalls */
    gd_cga_ids_release(&ids, 1);
    ck_assert_uint_eq(ids.in_use, 2);
    ck_assert_uint_eq(gd_cga_ids_take(&ids), 1);
    gd_cga_ids_init(&ids, 1000);  /* at most 256 */
    for (uint32_t i = 0; i < GD_MAX_CGA_IDS; i++)
        ck_assert_uint_eq(gd_cga_ids_take(&ids), i);
    ck_assert_uint_eq(gd_cga_ids_take(&ids), UINT32_MAX);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("cga");
    TCase *tc = tcase_create("cga");
    tcase_add_test(tc, fill_the_lake_fig21);
    tcase_add_test(tc, fill_the_lake_random);
    tcase_add_test(tc, fill_the_lake_from_levels);
    tcase_add_test(tc, lake_share_groups);
    tcase_add_test(tc, lake_share_extras_lowest_first);
    tcase_add_test(tc, idle_gpc_spreads_evenly);
    tcase_add_test(tc, multicast_whole_tpcs_first);
    tcase_add_test(tc, gpc_choice_fig28);
    tcase_add_test(tc, gpu_cga_all_or_nothing);
    tcase_add_test(tc, rasterization_matches_direct);
    tcase_add_test(tc, cga_ids_free_list);
    suite_add_tcase(s, tc);
    return tb_run_suite(s);
}
