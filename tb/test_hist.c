/* test_hist.c - the duration histogram behind the summary's percentiles: bucket
 * boundaries, the relative-error bound, nearest-rank percentiles against a sorted
 * reference, exact mean/min/max. */
#include <check.h>
#include <math.h>
#include <stdlib.h>

#include "hist.h"
#include "tb_util.h"

START_TEST(buckets_cover_every_value_once)
{
    /* exact below 256; then consecutive ranges of 2^shift values, no gap, no overlap */
    uint64_t expect_lo = 0;
    for (uint32_t b = 0; b < GD_HIST_BUCKETS; b++) {
        uint64_t lo, hi;
        gd_hist_bucket_range(b, &lo, &hi);
        ck_assert_uint_eq(lo, expect_lo);
        ck_assert_uint_eq(gd_hist_bucket(lo), b);
        ck_assert_uint_eq(gd_hist_bucket(hi), b);
        if (b >= 256) /* width / low <= 1/128 */
            ck_assert_uint_le((hi - lo + 1) * 128, lo);
        expect_lo = hi + 1;
        if (hi == UINT64_MAX)
            break;
    }
    ck_assert_uint_eq(gd_hist_bucket(UINT64_MAX), GD_HIST_BUCKETS - 1);
    ck_assert_uint_eq(gd_hist_bucket(255), 255);
    ck_assert_uint_eq(gd_hist_bucket(256), 256);
    ck_assert_uint_eq(gd_hist_bucket(257), 256); /* 256 and 257 share a bucket of width 2 */
    ck_assert_uint_eq(gd_hist_bucket(258), 257);
}
END_TEST

static int cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

START_TEST(percentiles_within_bound)
{
    enum { N = 10007 };
    static uint64_t v[N];
    gd_hist h;
    gd_hist_init(&h);
    uint64_t s = 12345;
    long double sum = 0;
    for (int i = 0; i < N; i++) {
        s = s * 6364136223846793005ull + 1442695040888963407ull;
        v[i] = (s >> 20) % 50000000ull; /* 0 .. 50 us in ps */
        if (i % 7 == 0)
            v[i] = (s >> 50); /* some small values too */
        sum += v[i];
        ck_assert_int_eq(gd_hist_add(&h, v[i]), 0);
    }
    qsort(v, N, sizeof v[0], cmp_u64);
    static const double ps[] = {1, 10, 50, 90, 99, 99.9, 100};
    for (size_t k = 0; k < sizeof ps / sizeof ps[0]; k++) {
        size_t rank = (size_t)ceil(ps[k] / 100.0 * N);
        uint64_t truth = v[rank - 1], got = gd_hist_percentile(&h, ps[k]);
        double err = truth ? fabs((double)got - (double)truth) / (double)truth : (double)got;
        ck_assert_msg(err <= 1.0 / 256, "p%g: %llu vs %llu", ps[k], (unsigned long long)got,
                      (unsigned long long)truth);
    }
    ck_assert_uint_eq(gd_hist_percentile(&h, 100), v[N - 1]); /* max exact */
    ck_assert_uint_eq(h.min, v[0]);
    ck_assert_double_eq_tol(gd_hist_mean(&h), (double)(sum / N), 1e-6);
    gd_hist_free(&h);
}
END_TEST

START_TEST(small_and_empty)
{
    gd_hist h;
    gd_hist_init(&h);
    ck_assert_uint_eq(gd_hist_percentile(&h, 50), 0);
    ck_assert_double_eq(gd_hist_mean(&h), 0.0);
    uint64_t vals[] = {100, 200, 300, 400};
    for (int i = 0; i < 4; i++)
        gd_hist_add(&h, vals[i]);
    ck_assert_uint_eq(gd_hist_percentile(&h, 50), 200); /* rank 2 */
    ck_assert_uint_eq(gd_hist_percentile(&h, 51), 300); /* rank 3 */
    ck_assert_uint_eq(gd_hist_percentile(&h, 99), 400);
    ck_assert_double_eq(gd_hist_mean(&h), 250.0);
    gd_hist_free(&h);
    gd_hist_free(&h); /* twice is fine */
}
END_TEST

/* A row of counters per power of two that holds a value: values of one replay's
 * latencies (a few powers of two) take a few KiB, not all 58 rows. The percentiles
 * across rows with empty rows between are those of the values. */
START_TEST(rows_only_where_values_are)
{
    gd_hist h;
    gd_hist_init(&h);
    ck_assert_int_eq(gd_hist_add(&h, 1000000), 0);      /* 2^19 .. 2^20: one row */
    ck_assert_int_eq(gd_hist_add(&h, 1000001), 0);
    ck_assert_int_eq(gd_hist_add(&h, 3000000000ull), 0); /* 2^31 .. 2^32: another */
    ck_assert_int_eq(gd_hist_add(&h, 7), 0);             /* exact: row 0 */
    uint32_t rows = 0;
    for (uint32_t r = 0; r < GD_HIST_ROWS; r++)
        rows += h.row[r] != NULL;
    ck_assert_uint_eq(rows, 3);
    ck_assert_uint_eq(gd_hist_percentile(&h, 25), 7);
    uint64_t lo, hi;
    gd_hist_bucket_range(gd_hist_bucket(1000000), &lo, &hi);
    ck_assert_uint_eq(gd_hist_percentile(&h, 50), lo + (hi - lo) / 2); /* rank 2: the bucket's midpoint */
    ck_assert_uint_eq(gd_hist_percentile(&h, 75), lo + (hi - lo) / 2); /* rank 3: the same bucket */
    ck_assert_uint_eq(gd_hist_percentile(&h, 100), 3000000000ull);
    gd_hist_free(&h);
    for (uint32_t r = 0; r < GD_HIST_ROWS; r++)
        ck_assert_ptr_null(h.row[r]);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("hist");
    TCase *tc = tcase_create("hist");
    tcase_add_test(tc, buckets_cover_every_value_once);
    tcase_add_test(tc, percentiles_within_bound);
    tcase_add_test(tc, small_and_empty);
    tcase_add_test(tc, rows_only_where_values_are);
    suite_add_tcase(s, tc);
    return tb_run_suite(s);
}
