/* test_admission.c - seed 001's multi-channel admission (model/cwd/admission.c,
 * embodiments 1-3) and balanced wave placement (model/sm/waves.c, embodiment 8)
 * without a simulator: a42's tie marks over a sequence of rounds, a priority-window
 * timeline, the split after exactly 256 failed rounds, the split table for q = 4 and
 * 1..16 warps, and the pointer rotation keeping sub-partitions balanced. */
#include <check.h>
#include <string.h>

#include "admission.h"
#include "tb_util.h"
#include "waves.h"

/* a41: a single highest-priority candidate wins; non-candidates never do. */
START_TEST(highest_priority_wins)
{
    gd_adm a;
    ck_assert_int_eq(gd_adm_init(&a, 4, NULL, 0, 256), 0);
    uint8_t cand[4] = {1, 1, 0, 1}, lev[4] = {2, 1, 0, 3};
    ck_assert_int_eq(gd_adm_round(&a, cand, lev, 0), 1);  /* channel 2 (level 0) does not fit */
    uint8_t none[4] = {0, 0, 0, 0};
    ck_assert_int_eq(gd_adm_round(&a, none, lev, 0), -1);
    ck_assert_uint_eq(a.failed_rounds, 1);
    ck_assert_int_eq(gd_adm_round(&a, cand, lev, 0), 1);
    ck_assert_uint_eq(a.failed_rounds, 0);
    gd_adm_destroy(&a);
}
END_TEST

/* a42 over a sequence of rounds: channels 0, 1, 2 tie at level 1 each round. The
 * unmarked ones are chosen first (0, then 1, then 2, each marked); when all are marked
 * one is chosen (0), keeps its mark and the others' are cleared, so 1 and 2 come next. */
START_TEST(tie_marks_rotate)
{
    gd_adm a;
    ck_assert_int_eq(gd_adm_init(&a, 3, NULL, 0, 256), 0);
    uint8_t cand[3] = {1, 1, 1}, lev[3] = {1, 1, 1};
    int expect[] = {0, 1, 2, 0, 1, 2, 0};
    for (int i = 0; i < 7; i++)
        ck_assert_int_eq(gd_adm_round(&a, cand, lev, 0), expect[i]);
    ck_assert(a.marks[0 * GD_ADM_LEVELS + 1] && !a.marks[1 * GD_ADM_LEVELS + 1] && !a.marks[2 * GD_ADM_LEVELS + 1]);
    /* marks are per level: a tie at level 2 between 1 and 2 starts afresh */
    uint8_t c2[3] = {0, 1, 1}, l2[3] = {1, 2, 2};
    ck_assert_int_eq(gd_adm_round(&a, c2, l2, 0), 1);
    ck_assert_int_eq(gd_adm_round(&a, c2, l2, 0), 2);
    ck_assert_uint_eq(a.ties, 9);
    gd_adm_destroy(&a);
}
END_TEST

/* Emb. 2: windows of 40, 30, 20, 10 cycles (levels 0-3), period 100. In cycles 40-69
 * level 1 is lifted over level 0; in 90-99 level 3 over all. */
START_TEST(priority_windows)
{
    uint64_t w[4] = {40, 30, 20, 10};
    gd_adm a;
    ck_assert_int_eq(gd_adm_init(&a, 2, w, 4, 256), 0);
    ck_assert_int_eq(gd_adm_lifted(&a, 0), 0);
    ck_assert_int_eq(gd_adm_lifted(&a, 39), 0);
    ck_assert_int_eq(gd_adm_lifted(&a, 40), 1);
    ck_assert_int_eq(gd_adm_lifted(&a, 95), 3);
    ck_assert_int_eq(gd_adm_lifted(&a, 140), 1);
    ck_assert_uint_eq(gd_adm_rank(&a, 3, 95), 0);
    ck_assert_uint_eq(gd_adm_rank(&a, 0, 95), 1);
    ck_assert_uint_eq(gd_adm_rank(&a, 2, 95), 3);
    uint8_t cand[2] = {1, 1}, lev[2] = {0, 3};
    int expect[] = {0, 0, 0, 1};  /* at cycles 10, 50, 70, 95 */
    uint64_t at[] = {10, 50, 70, 95};
    for (int i = 0; i < 4; i++)
        ck_assert_int_eq(gd_adm_round(&a, cand, lev, at[i]), expect[i]);
    ck_assert_uint_eq(a.lifts, 1);
    gd_adm_destroy(&a);
}
END_TEST

/* Emb. 3: the split comes after exactly 256 failed rounds in a row (the 257th); a
 * round that matches restarts the count. */
START_TEST(split_after_failed_rounds)
{
    gd_adm a;
    ck_assert_int_eq(gd_adm_init(&a, 2, NULL, 0, 256), 0);
    uint8_t none[2] = {0, 0}, one[2] = {0, 1}, lev[2] = {0, 0};
    for (int i = 0; i < 200; i++)
        gd_adm_round(&a, none, lev, 0);
    gd_adm_round(&a, one, lev, 0);
    for (int i = 0; i < 256; i++) {
        gd_adm_round(&a, none, lev, 0);
        ck_assert(!gd_adm_should_split(&a));
    }
    gd_adm_round(&a, none, lev, 0);
    ck_assert(gd_adm_should_split(&a));
    gd_adm_split_done(&a);
    ck_assert(!gd_adm_should_split(&a));
    ck_assert_uint_eq(a.splits, 1);
    gd_adm_destroy(&a);
}
END_TEST

/* Emb. 8, h101-h103: the split table for q = 4 and 1..16 warps. */
START_TEST(wave_split_table)
{
    static const uint32_t table[16][4] = {
        {1, 0, 0, 0}, {1, 1, 0, 0}, {1, 1, 1, 0}, {1, 1, 1, 1}, {2, 1, 1, 1}, {2, 2, 1, 1},
        {2, 2, 2, 1}, {2, 2, 2, 2}, {3, 2, 2, 2}, {3, 3, 2, 2}, {3, 3, 3, 2}, {3, 3, 3, 3},
        {4, 3, 3, 3}, {4, 4, 3, 3}, {4, 4, 4, 3}, {4, 4, 4, 4}};
    for (uint32_t wx = 1; wx <= 16; wx++) {
        uint32_t out[GD_MAX_SUBPARTITIONS];
        gd_wave_split(wx, 4, out);
        for (int t = 0; t < 4; t++)
            ck_assert_uint_eq(out[t], table[wx - 1][t]);
    }
}
END_TEST

/* h3, h5 with the tail pointer: one-warp CTAs go to sub-partitions 2, 3, 0, 1, 2 ...;
 * after 4000 CTAs of 1 to 7 warps every sub-partition holds the same number of warps
 * within one CTA's worth; with the head pointer likewise. */
START_TEST(wave_rotation_balances)
{
    uint32_t t1 = 0, su, t, out[GD_MAX_SUBPARTITIONS];
    int seen[5];
    for (int i = 0; i < 5; i++) {
        gd_wave_rotation(GD_WAVE_TAIL, t1, 1, 4, &su, &t);
        gd_wave_place(1, 4, su, out);
        for (int s = 0; s < 4; s++)
            if (out[s])
                seen[i] = s;
        t1 = t;
    }
    ck_assert(seen[0] == 2 && seen[1] == 3 && seen[2] == 0 && seen[3] == 1 && seen[4] == 2);
    /* a remainder of 0 wraps to sub-partition 0 (waves.h: the seed's 1-based wording) */
    gd_wave_rotation(GD_WAVE_TAIL, 1, 3, 4, &su, &t);
    ck_assert_uint_eq(t, 0);
    ck_assert_uint_eq(su, 1);
    for (int pointer = 0; pointer < 2; pointer++) {
        uint64_t total[4] = {0, 0, 0, 0};
        t1 = 0;
        for (uint32_t i = 0; i < 4000; i++) {
            uint32_t wx = 1 + i % 7;
            gd_wave_rotation(pointer, t1, wx, 4, &su, &t);
            gd_wave_place(wx, 4, su, out);
            uint32_t sum = 0;
            for (int s = 0; s < 4; s++) {
                total[s] += out[s];
                sum += out[s];
            }
            ck_assert_uint_eq(sum, wx);
            t1 = t;
        }
        uint64_t lo = total[0], hi = total[0];
        for (int s = 1; s < 4; s++) {
            lo = total[s] < lo ? total[s] : lo;
            hi = total[s] > hi ? total[s] : hi;
        }
        ck_assert_msg(hi - lo <= 2 * 7, "pointer %d: %llu .. %llu", pointer, (unsigned long long)lo,
                      (unsigned long long)hi);
    }
}
END_TEST

int main(void)
{
    Suite *s = suite_create("admission");
    TCase *tc = tcase_create("seed001");
    tcase_add_test(tc, highest_priority_wins);
    tcase_add_test(tc, tie_marks_rotate);
    tcase_add_test(tc, priority_windows);
    tcase_add_test(tc, split_after_failed_rounds);
    tcase_add_test(tc, wave_split_table);
    tcase_add_test(tc, wave_rotation_balances);
    suite_add_tcase(s, tc);
    return tb_run_suite(s);
}
