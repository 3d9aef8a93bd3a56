/* test_pp.c - the packet processor's decisions in C: queue capacity and growth, the
 * HSA barrier bit, round-robin choice of the next queue, and the run pool. */
#include <check.h>
#include <stdlib.h>
#include <string.h>

#include "gdsim.h"
#include "pp.h"

START_TEST(queue_capacity_and_order)
{
    gd_pp_queue q;
    gd_pp_queue_init(&q, 40);
    gd_kernel_run runs[41];
    for (int i = 0; i < 40; i++)
        ck_assert_int_eq(gd_pp_queue_push(&q, &runs[i]), 0); /* grows past 16 and 32 */
    ck_assert_int_eq(gd_pp_queue_push(&q, &runs[40]), 1);   /* full */
    for (int i = 0; i < 25; i++) {
        ck_assert_ptr_eq(gd_pp_queue_head(&q), &runs[i]);
        gd_pp_queue_pop(&q);
    }
    for (int i = 0; i < 25; i++) /* wraps around the ring */
        ck_assert_int_eq(gd_pp_queue_push(&q, &runs[i]), 0);
    ck_assert_uint_eq(q.count, 40);
    ck_assert_ptr_eq(gd_pp_queue_head(&q), &runs[25]);
    gd_pp_queue_destroy(&q);
}
END_TEST

START_TEST(barrier_bit)
{
    gd_pp_queue q;
    gd_pp_queue_init(&q, 8);
    gd_kernel_run a, b;
    memset(&a, 0, sizeof a);
    memset(&b, 0, sizeof b);
    a.barrier = 1;
    gd_pp_queue_push(&q, &a);
    q.state = GD_PQ_DECODED;
    ck_assert(gd_pp_can_dispatch(&q)); /* nothing earlier in flight */
    q.outstanding = 1;                 /* an earlier packet has not completed */
    ck_assert(!gd_pp_can_dispatch(&q));
    gd_pp_queue_pop(&q);
    gd_pp_queue_push(&q, &b);          /* no barrier bit: does not wait */
    q.state = GD_PQ_DECODED;
    ck_assert(gd_pp_can_dispatch(&q));
    q.state = GD_PQ_FETCHED;
    ck_assert(!gd_pp_can_dispatch(&q)); /* not decoded yet */
    gd_pp_queue_destroy(&q);
}
END_TEST

START_TEST(round_robin_pick)
{
    gd_pp_queue qs[6];
    gd_kernel_run r;
    for (int i = 0; i < 6; i++) {
        gd_pp_queue_init(&qs[i], 4);
        gd_pp_queue_push(&qs[i], &r);
        qs[i].state = GD_PQ_FETCHING;
    }
    uint32_t ids[] = {1, 3, 5}; /* the queues in use */
    ck_assert_uint_eq(gd_pp_pick(qs, ids, 3, 0, GD_PQ_FETCHED), UINT32_MAX);
    qs[1].state = GD_PQ_FETCHED;
    qs[5].state = GD_PQ_FETCHED;
    ck_assert_uint_eq(gd_pp_pick(qs, ids, 3, 0, GD_PQ_FETCHED), 0); /* queue 1 */
    ck_assert_uint_eq(gd_pp_pick(qs, ids, 3, 1, GD_PQ_FETCHED), 1); /* from queue 3: queue 5 */
    ck_assert_uint_eq(gd_pp_pick(qs, ids, 3, 2, GD_PQ_FETCHED), 0); /* queue 5 first */
    qs[0].state = GD_PQ_FETCHED;                                    /* not in use: never picked */
    qs[1].state = qs[5].state = GD_PQ_DECODED;
    ck_assert_uint_eq(gd_pp_pick(qs, ids, 3, 0, GD_PQ_FETCHED), UINT32_MAX);
    for (int i = 0; i < 6; i++)
        gd_pp_queue_destroy(&qs[i]);
}
END_TEST

START_TEST(run_pool_recycles)
{
    gd_run_pool pool;
    memset(&pool, 0, sizeof pool);
    gd_kernel_run *a[600];
    for (int i = 0; i < 600; i++) {
        a[i] = gd_run_alloc(&pool);
        ck_assert_ptr_nonnull(a[i]);
        a[i]->index = (uint64_t)i;
    }
    ck_assert_uint_eq(pool.live, 600);
    gd_run_release(&pool, a[7]);
    gd_kernel_run *b = gd_run_alloc(&pool);
    ck_assert_ptr_eq(b, a[7]);      /* recycled */
    ck_assert_uint_eq(b->index, 0); /* and cleared */
    ck_assert_uint_eq(pool.peak, 600);
    gd_run_pool_destroy(&pool);     /* frees the blocks with runs still live */
    ck_assert_uint_eq(pool.live, 0);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("pp");
    TCase *tc = tcase_create("decisions");
    tcase_add_test(tc, queue_capacity_and_order);
    tcase_add_test(tc, barrier_bit);
    tcase_add_test(tc, round_robin_pick);
    tcase_add_test(tc, run_pool_recycles);
    suite_add_tcase(s, tc);
    SRunner *sr = srunner_create(s);
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
