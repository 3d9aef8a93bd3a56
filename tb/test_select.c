/* test_select.c - the module selector's decisions (model/select/select.c, seed 001
 * emb. 9 and 10) on hand-computed module states: the weighted sum of remaining
 * resources, the energy of the last nx cycles from CTA segments, the power choice
 * with the step's pending energy, ties to the lowest SM. */
#include <check.h>
#include <string.h>

#include "power.h"
#include "select.h"
#include "tb_util.h"

static gd_sm_limits limits(void)
{
    gd_sm_limits l;
    memset(&l, 0, sizeof l);
    l.max_warps = 64;
    l.max_ctas = 32;
    l.smem = 1000;
    l.regs = 4000;
    return l;
}

static gd_sm_res res(uint32_t warps, uint32_t ctas, uint32_t smem, uint32_t regs)
{
    gd_sm_res r;
    memset(&r, 0, sizeof r);
    r.warps = warps;
    r.ctas = ctas;
    r.smem = smem;
    r.nsub = 2;
    r.regs[0] = regs / 2;
    r.regs[1] = regs - regs / 2;
    return r;
}

/* Emb. 9: ta = sum a_h r_h (as fractions). SM0: 32/64 warps, 16/32 CTAs, 500/1000
 * smem, 1000/4000 regs -> 0.5 + 0.5 + 0.5 + 0.25 = 1.75 with equal weights; SM1: 48/64,
 * 8/32, 100/1000, 4000/4000 -> 0.75 + 0.25 + 0.1 + 1 = 2.1. SM1 wins; weighting shared
 * memory by 10 turns it (SM0 1.25 + 5 = 6.25, SM1 2.0 + 1 = 3.0). */
START_TEST(weighted_choice)
{
    gd_sm_limits l = limits();
    gd_sm_res r[3] = {res(32, 16, 500, 1000), res(48, 8, 100, 4000), res(64, 32, 1000, 4000)};
    uint32_t equal[4] = {1, 1, 1, 1}, smem10[4] = {1, 1, 10, 1};
    ck_assert_double_eq_tol(gd_select_weight(&r[0], &l, equal), 1.75, 1e-12);
    ck_assert_double_eq_tol(gd_select_weight(&r[1], &l, equal), 2.1, 1e-12);
    uint32_t free_slots[3] = {1, 1, 0};  /* SM2 is not a candidate, however empty */
    ck_assert_int_eq(gd_select_weighted(free_slots, r, 3, &l, equal), 1);
    ck_assert_int_eq(gd_select_weighted(free_slots, r, 3, &l, smem10), 0);
    uint32_t none[3] = {0, 0, 0};
    ck_assert_int_eq(gd_select_weighted(none, r, 3, &l, equal), -1);
    gd_sm_res same[2] = {res(8, 8, 8, 8), res(8, 8, 8, 8)};
    ck_assert_int_eq(gd_select_weighted(free_slots, same, 2, &l, equal), 0);  /* a tie: the lowest */
}
END_TEST

/* Emb. 10's window: a CTA of 1000 fJ over [100, 300) ps and one of 600 fJ over
 * [250, 850): the window [200, 400] holds 1000 x 100/200 + 600 x 150/600 = 650 fJ;
 * [700, 800] 100 fJ of the second (the first, over, is dropped); [800, 900] its last
 * 50 fJ; [900, 1000] nothing, and it is dropped too. */
START_TEST(energy_window)
{
    gd_energy_hist h;
    gd_ehist_init(&h);
    ck_assert_int_eq(gd_ehist_add(&h, 100, 300, 1000), 0);
    ck_assert_int_eq(gd_ehist_add(&h, 250, 850, 600), 0);
    ck_assert_double_eq_tol(gd_ehist_window(&h, 400, 200), 650.0, 1e-9);
    ck_assert_double_eq_tol(gd_ehist_window(&h, 800, 100), 100.0, 1e-9);  /* [700, 800]: 600 x 100/600 */
    ck_assert_uint_eq(h.n, 1);  /* the first ended before 700: dropped */
    ck_assert_double_eq_tol(gd_ehist_window(&h, 900, 100), 50.0, 1e-9);   /* [800, 850) of it */
    ck_assert_double_eq_tol(gd_ehist_window(&h, 1000, 100), 0.0, 1e-9);
    ck_assert_uint_eq(h.n, 0);
    gd_ehist_free(&h);
}
END_TEST

/* Emb. 10's choice: the least recent energy, counting the step's pending CTAs. */
START_TEST(power_choice)
{
    uint32_t free_slots[4] = {2, 2, 0, 2};
    double recent[4] = {500, 100, 0, 300}, pending[4] = {0, 0, 0, 0};
    ck_assert_int_eq(gd_select_power(free_slots, recent, pending, 4), 1);  /* SM2: no room */
    pending[1] = 250;
    ck_assert_int_eq(gd_select_power(free_slots, recent, pending, 4), 3);  /* 350 > 300 */
    pending[3] = 50;
    ck_assert_int_eq(gd_select_power(free_slots, recent, pending, 4), 1);  /* 350 = 350: the lowest */
}
END_TEST

/* The SMs' power over time: windows of 100 ps, 2 SMs. Window 0: SM0 100 fJ, SM1 300
 * (mean 200, std 100: CoV 0.5, max/mean 1.5). A CTA of 400 fJ over [150, 350) on SM0
 * puts 100 in window 1, 200 in window 2, 100 in window 3; SM1's CTA over [100, 200) of
 * 100 fJ: window 1 holds 100 and 100 (CoV 0), windows 2 and 3 only SM0 (CoV 1, max/mean
 * 2). The first CTA starting at 150 closes window 0; the rest close at the end. */
START_TEST(power_over_time)
{
    gd_power_windows p;
    ck_assert_int_eq(gd_power_init(&p, 2, 100), 0);
    gd_power_add(&p, 0, 0, 100, 100);
    gd_power_add(&p, 1, 0, 100, 300);
    gd_power_add(&p, 1, 100, 200, 100);
    ck_assert_uint_eq(p.windows, 1);  /* window 0 closed when a CTA started at 100 */
    gd_power_add(&p, 0, 150, 350, 400);
    gd_power_finish(&p);
    ck_assert_uint_eq(p.windows, 4);
    ck_assert_uint_eq(p.cov_ppm.count, 4);
    ck_assert_uint_eq(p.cov_ppm.min, 0);
    ck_assert_uint_eq(p.cov_ppm.max, 1000000);
    ck_assert_double_eq_tol(gd_hist_mean(&p.cov_ppm), (500000.0 + 0 + 1000000 + 1000000) / 4, 1e-6);
    ck_assert_uint_eq(p.max_ratio_ppm, 2000000);
    ck_assert_uint_eq(p.late, 0);
    /* a CTA that starts in a closed window is counted late, into the first open one */
    gd_power_add(&p, 0, 50, 60, 10);
    ck_assert_uint_eq(p.late, 1);
    gd_power_free(&p);
    /* a long first CTA opens every window it covers: a CTA starting in one of them is
     * not late */
    ck_assert_int_eq(gd_power_init(&p, 2, 100), 0);
    gd_power_add(&p, 0, 0, 350, 350);
    gd_power_add(&p, 1, 120, 130, 10);
    ck_assert_uint_eq(p.late, 0);
    ck_assert_uint_eq(p.windows, 1);
    gd_power_free(&p);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("select");
    TCase *tc = tcase_create("seed001");
    tcase_add_test(tc, weighted_choice);
    tcase_add_test(tc, energy_window);
    tcase_add_test(tc, power_choice);
    tcase_add_test(tc, power_over_time);
    suite_add_tcase(s, tc);
    return tb_run_suite(s);
}
