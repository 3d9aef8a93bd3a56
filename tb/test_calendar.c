/* test_calendar.c - the two calendars (model/base/heap.c, model/base/calendar.c) give their
 * entries back in (time, key) order, against a sorted reference, for random
 * interleavings of pushes and pops, with streams in and out of time order; the
 * entries due by a time (gd_cal_due) and the time of the second entry
 * (gd_cal_second_time) against the same reference. */
#include <check.h>
#include <stdlib.h>
#include <string.h>

#include "calendar.h"
#include "heap.h"
#include "tb_util.h"

typedef struct {
    uint64_t time, key;
} item;

static int cmp_item(const void *a, const void *b)
{
    const item *x = a, *y = b;
    if (x->time != y->time)
        return x->time < y->time ? -1 : 1;
    return x->key < y->key ? -1 : x->key > y->key;
}

static uint64_t rng(uint64_t *s)
{
    *s = *s * 6364136223846793005ull + 1442695040888963407ull;
    return *s >> 33;
}

/* gd_cal_due(c, t): the items of live (sorted) with time <= t, in any order. */
static void check_due(const gd_calendar *c, const item *live, size_t nlive, uint64_t t)
{
    enum { MAX = 64 };
    gd_cal_item out[MAX];
    size_t want = 0;
    while (want < nlive && live[want].time <= t)
        want++;
    const uint32_t n = gd_cal_due(c, t, out, MAX);
    ck_assert_uint_eq(n, want);
    /* and the entry after the smallest */
    ck_assert_uint_eq(gd_cal_second_time(c), (nlive > 1 ? live[1].time : UINT64_MAX));
    for (uint32_t i = 0; i < n && i < MAX; i++) {
        ck_assert_uint_le(out[i].time, t);
        size_t j = 0;
        while (j < want && live[j].key != out[i].key)
            j++;
        ck_assert_msg(j < want, "an entry due by %llu that is not live", (unsigned long long)t);
        ck_assert_uint_eq(live[j].time, out[i].time);
    }
}

/* Push n items, popping now and then; every pop must return the smallest item
 * pushed and not yet popped. mode 0: binary heap; 1: calendar of FIFOs. */
static void run(int mode, uint64_t seed, int streams, int disorder)
{
    enum { N = 5000 };
    item *live = malloc(N * sizeof *live);
    size_t nlive = 0;
    gd_heap h;
    gd_calendar c;
    gd_heap_init(&h);
    gd_cal_init(&c);
    uint64_t stream_time[8] = {0};
    uint64_t seq = 0, now = 0;
    for (int i = 0; i < N; i++) {
        int s = (int)(rng(&seed) % (uint64_t)streams);
        /* a stream's times grow, except now and then (disorder) */
        uint64_t t = stream_time[s] + rng(&seed) % 50;
        if (disorder && rng(&seed) % 10 == 0)
            t = now + rng(&seed) % 200;
        if (t < now)
            t = now;
        stream_time[s] = t;
        item it = {t, (seq++ << 8) | (uint64_t)s};
        live[nlive++] = it;
        if (mode == 0)
            ck_assert_int_eq(gd_heap_push(&h, it.time, it.key), 0);
        else
            ck_assert_int_eq(gd_cal_push(&c, (void *)(uintptr_t)(s + 1), it.time, it.key), 0);
        while (nlive && rng(&seed) % 3 == 0) {
            qsort(live, nlive, sizeof *live, cmp_item);
            const item *want = &live[0];
            if (mode == 0) {
                ck_assert_uint_eq(gd_heap_top(&h)->time, want->time);
                ck_assert_uint_eq(gd_heap_top(&h)->key, want->key);
                gd_heap_pop(&h);
            } else {
                check_due(&c, live, nlive, want->time + rng(&seed) % 40);
                ck_assert_uint_eq(gd_cal_top(&c)->time, want->time);
                ck_assert_uint_eq(gd_cal_top(&c)->key, want->key);
                gd_cal_pop(&c);
            }
            now = want->time;
            memmove(live, live + 1, (nlive - 1) * sizeof *live);
            nlive--;
        }
    }
    qsort(live, nlive, sizeof *live, cmp_item);
    for (size_t i = 0; i < nlive; i++) {
        if (mode == 0) {
            ck_assert_uint_eq(gd_heap_top(&h)->key, live[i].key);
            gd_heap_pop(&h);
        } else {
            ck_assert_uint_eq(gd_cal_top(&c)->key, live[i].key);
            check_due(&c, live + i, nlive - i, live[i].time + i % 7);
            gd_cal_pop(&c);
        }
    }
    ck_assert_uint_eq(mode == 0 ? gd_heap_size(&h) : gd_cal_size(&c), 0);
    ck_assert_uint_eq(mode == 0 ? gd_heap_top_time(&h) : gd_cal_top_time(&c), UINT64_MAX);
    gd_heap_free(&h);
    gd_cal_free(&c);
    free(live);
}

START_TEST(heap_orders)
{
    run(0, 1 + (uint64_t)_i, 4, 1);
}
END_TEST

START_TEST(calendar_in_order_streams)
{
    run(1, 100 + (uint64_t)_i, 1 + _i % 5, 0);
}
END_TEST

START_TEST(calendar_out_of_order_streams)
{
    run(1, 200 + (uint64_t)_i, 1 + _i % 5, 1);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("calendar");
    TCase *tc = tcase_create("order");
    tcase_add_loop_test(tc, heap_orders, 0, 4);
    tcase_add_loop_test(tc, calendar_in_order_streams, 0, 8);
    tcase_add_loop_test(tc, calendar_out_of_order_streams, 0, 8);
    tcase_set_timeout(tc, 60);
    suite_add_tcase(s, tc);
    return tb_run_suite(s);
}
