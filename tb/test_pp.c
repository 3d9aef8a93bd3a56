/* test_pp.c - the packet processor's decisions in C: queue capacity and growth, the
 * HSA barrier bit, barrier-AND/-OR packets, round-robin choice of the next queue,
 * and the run pool. */
#include <check.h>
#include <stdlib.h>
#include <string.h>

#include "gdsim.h"
#include "pp.h"
#include "tb_util.h"

START_TEST(queue_capacity_and_order)
{
    gd_pp_queue q;
    gd_pp_queue_init(&q, 40);
    gd_kernel_run runs[41];
    memset(runs, 0, sizeof runs);
    for (int i = 0; i < 40; i++)
        ck_assert_int_eq(gd_pp_queue_push(&q, &runs[i]), 0); /* grows past 16 and 32 */
    ck_assert_int_eq(gd_pp_queue_push(&q, &runs[40]), 1);   /* full */
    /* a condensed packet's later kernels come with their packet: never refused */
    runs[40].in_packet = 1;
    ck_assert_int_eq(gd_pp_queue_push(&q, &runs[40]), 0);
    ck_assert_uint_eq(q.packets, 40);
    ck_assert_uint_eq(q.count, 41);
    gd_pp_queue_destroy(&q);
    gd_pp_queue_init(&q, 40);
    runs[40].in_packet = 0;
    for (int i = 0; i < 40; i++)
        ck_assert_int_eq(gd_pp_queue_push(&q, &runs[i]), 0);
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

/* A programmatic dependent launch waits only until every earlier packet still
 * outstanding is a kernel (and no barrier packet is pending), where the command
 * scheduler's policies do not decide; it takes no launch-gap hold meanwhile. */
START_TEST(programmatic_dependent_launch)
{
    gd_pp_queue q;
    gd_pp_queue_init(&q, 8);
    q.programmatic_early = 1;
    gd_kernel_run d;
    memset(&d, 0, sizeof d);
    d.kind = GD_PKT_KERNEL;
    d.barrier = 1;
    d.programmatic = 1;
    gd_pp_queue_push(&q, &d);
    q.state = GD_PQ_DECODED;
    q.outstanding = q.outstanding_kernels = 2; /* two kernels before it, not completed */
    ck_assert(gd_pp_can_dispatch(&q));
    q.outstanding = 3;                         /* and a copy */
    ck_assert(!gd_pp_can_dispatch(&q));
    q.outstanding = 2;
    q.barriers_pending = 1;                    /* a barrier packet before it */
    ck_assert(!gd_pp_can_dispatch(&q));
    q.barriers_pending = 0;
    q.programmatic_early = 0;                  /* cs.policy=inorder|waitqueue */
    ck_assert(!gd_pp_can_dispatch(&q));
    q.programmatic_early = 1;
    d.programmatic = 0;                        /* the barrier bit alone */
    ck_assert(!gd_pp_can_dispatch(&q));
    d.programmatic = 1;
    /* no hold while its primary is outstanding; the usual one once the queue drained */
    gd_gap_model m;
    memset(&m, 0, sizeof m);
    for (int c = 0; c < GD_GAP_CLASSES; c++)
        m.gap_ps[c] = 5000000;
    gd_kernel_run prev;
    memset(&prev, 0, sizeof prev);
    prev.kind = GD_PKT_KERNEL;
    d.decoded = 100;
    gd_pp_completed(&q, &prev, 200);
    ck_assert_uint_eq(gd_pp_release_time(&q, &d, &m), 0);
    q.outstanding = q.outstanding_kernels = 0;
    ck_assert_uint_eq(gd_pp_release_time(&q, &d, &m), 200 + 5000000);
    gd_pp_queue_destroy(&q);
}
END_TEST

START_TEST(barrier_and_or_conditions)
{
    uint32_t values[4] = {0, 2, 0, 1};
    gd_kernel_run b;
    memset(&b, 0, sizeof b);
    b.kind = GD_PKT_BARRIER_AND;
    ck_assert(gd_pp_barrier_satisfied(&b, values)); /* no dependency: satisfied */
    b.ndeps = 2;
    b.dep[0] = 0;
    b.dep[1] = 2;
    ck_assert(gd_pp_barrier_satisfied(&b, values)); /* both 0 */
    b.dep[1] = 3;
    ck_assert(!gd_pp_barrier_satisfied(&b, values)); /* one not 0 */
    b.kind = GD_PKT_BARRIER_OR;
    ck_assert(gd_pp_barrier_satisfied(&b, values)); /* one is 0 */
    b.dep[0] = 1;
    ck_assert(!gd_pp_barrier_satisfied(&b, values)); /* none is 0 */
    values[1] = 0;
    ck_assert(gd_pp_barrier_satisfied(&b, values));
}
END_TEST

/* Barriers leave the head once decoded, resolve oldest first, honour their barrier
 * bit, and hold back every later packet until they complete. */
START_TEST(barrier_packets_in_a_queue)
{
    uint32_t values[2] = {1, 0};
    gd_pp_queue q;
    gd_pp_queue_init(&q, 8);
    gd_kernel_run k0, b1, b2, k3;
    memset(&k0, 0, sizeof k0);
    memset(&b1, 0, sizeof b1);
    memset(&b2, 0, sizeof b2);
    memset(&k3, 0, sizeof k3);
    b1.kind = b2.kind = GD_PKT_BARRIER_AND;
    b1.barrier = 1;     /* waits for k0 too */
    b1.ndeps = 1;       /* and for signal 1 (0: satisfied) */
    b1.dep[0] = 1;
    b2.ndeps = 1;       /* no barrier bit; waits for signal 0 */
    b2.dep[0] = 0;
    k3.barrier = 0;
    gd_pp_queue_push(&q, &k0);
    gd_pp_queue_push(&q, &b1);
    gd_pp_queue_push(&q, &b2);
    gd_pp_queue_push(&q, &k3);
    gd_pp_queue_pop(&q); /* k0 dispatched, not complete */
    q.outstanding = 1;
    gd_pp_barrier_park(&q, &b1);
    gd_pp_barrier_park(&q, &b2);
    ck_assert_ptr_eq(gd_pp_queue_head(&q), &k3);
    ck_assert_uint_eq(q.outstanding, 3);
    q.state = GD_PQ_DECODED;
    ck_assert(!gd_pp_can_dispatch(&q));                  /* behind two barriers */
    ck_assert_ptr_null(gd_pp_barrier_ready(&q, values)); /* b1's barrier bit: k0 not complete */
    q.outstanding--;                                     /* k0 completes */
    ck_assert_ptr_eq(gd_pp_barrier_ready(&q, values), &b1);
    gd_pp_barrier_resolved(&q);
    values[0] = 0;                                       /* b2's dependency satisfied */
    ck_assert_ptr_null(gd_pp_barrier_ready(&q, values)); /* but b1 is still completing */
    gd_pp_barrier_completed(&q);
    ck_assert_ptr_eq(gd_pp_barrier_ready(&q, values), &b2);
    gd_pp_barrier_resolved(&q);
    ck_assert(!gd_pp_can_dispatch(&q));
    gd_pp_barrier_completed(&q);
    ck_assert(gd_pp_can_dispatch(&q));
    ck_assert_uint_eq(q.outstanding, 0);
    ck_assert_ptr_null(q.bar_head);
    ck_assert_ptr_null(q.bar_tail);
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

/* The launch-gap classes (gap.h): every pair of predecessor and successor kind, and
 * the graph variants; no class for a barrier packet or a pipeline as successor. */
START_TEST(gap_classes)
{
    ck_assert_int_eq(gd_gap_class(GD_GAP_IS_KERNEL, GD_GAP_IS_KERNEL, 0), GD_GAP_KERNEL_KERNEL);
    ck_assert_int_eq(gd_gap_class(GD_GAP_IS_KERNEL, GD_GAP_IS_COPY, 0), GD_GAP_KERNEL_COPY);
    ck_assert_int_eq(gd_gap_class(GD_GAP_IS_COPY, GD_GAP_IS_KERNEL, 0), GD_GAP_COPY_KERNEL);
    ck_assert_int_eq(gd_gap_class(GD_GAP_IS_COPY, GD_GAP_IS_COPY, 0), GD_GAP_COPY_COPY);
    ck_assert_int_eq(gd_gap_class(GD_GAP_IS_KERNEL, GD_GAP_IS_KERNEL, 1), GD_GAP_GRAPH_KERNEL_KERNEL);
    ck_assert_int_eq(gd_gap_class(GD_GAP_IS_KERNEL, GD_GAP_IS_COPY, 1), GD_GAP_GRAPH_KERNEL_COPY);
    ck_assert_int_eq(gd_gap_class(GD_GAP_IS_COPY, GD_GAP_IS_KERNEL, 1), GD_GAP_GRAPH_COPY_KERNEL);
    ck_assert_int_eq(gd_gap_class(GD_GAP_IS_COPY, GD_GAP_IS_COPY, 1), GD_GAP_GRAPH_COPY_COPY);
    ck_assert_int_eq(gd_gap_class(GD_GAP_IS_BARRIER, GD_GAP_IS_KERNEL, 0), GD_GAP_AFTER_WAIT);
    ck_assert_int_eq(gd_gap_class(GD_GAP_IS_BARRIER, GD_GAP_IS_COPY, 1), GD_GAP_AFTER_WAIT);
    ck_assert_int_eq(gd_gap_class(GD_GAP_IS_KERNEL, GD_GAP_IS_BARRIER, 0), GD_GAP_NONE);
    ck_assert_int_eq(gd_gap_class(GD_GAP_IS_OTHER, GD_GAP_IS_KERNEL, 0), GD_GAP_NONE);
    ck_assert_int_eq(gd_gap_class(GD_GAP_IS_KERNEL, GD_GAP_IS_OTHER, 0), GD_GAP_NONE);
    ck_assert_str_eq(gd_gap_class_key(GD_GAP_GRAPH_COPY_KERNEL), "pp.gap_graph_copy_kernel_ns");
    ck_assert_str_eq(gd_gap_class_key(GD_GAP_AFTER_WAIT), "pp.gap_after_wait_ns");
}
END_TEST

/* The wake-up and fetch of a packet written into an idle queue: pp.doorbell_cycles +
 * pp.fetch_cycles; with pp.idle_launch_ns, what its decode and grid or command launch
 * leave of it, never negative; barriers and other packets keep the stages. */
START_TEST(idle_launch_wake)
{
    gd_gap_model m;
    memset(&m, 0, sizeof m);
    m.doorbell_ps = 3000000;
    m.fetch_ps = 1100000;
    m.decode_ps = 124000;
    m.grid_launch_ps = 512000;
    m.command_launch_ps = 300000;
    ck_assert_uint_eq(gd_gap_wake_ps(&m, GD_GAP_IS_KERNEL), 4100000);  /* 0: the stages */
    ck_assert_uint_eq(gd_gap_wake_ps(&m, GD_GAP_IS_COPY), 4100000);
    m.idle_launch_ps = 1000000;
    ck_assert_uint_eq(gd_gap_wake_ps(&m, GD_GAP_IS_KERNEL), 1000000 - 124000 - 512000);
    ck_assert_uint_eq(gd_gap_wake_ps(&m, GD_GAP_IS_COPY), 1000000 - 124000 - 300000);
    ck_assert_uint_eq(gd_gap_wake_ps(&m, GD_GAP_IS_BARRIER), 4100000);
    ck_assert_uint_eq(gd_gap_wake_ps(&m, GD_GAP_IS_OTHER), 4100000);
    m.idle_launch_ps = 636000;  /* exactly decode + grid launch */
    ck_assert_uint_eq(gd_gap_wake_ps(&m, GD_GAP_IS_KERNEL), 0);
    m.idle_launch_ps = 500000;  /* below them: they take it all */
    ck_assert_uint_eq(gd_gap_wake_ps(&m, GD_GAP_IS_KERNEL), 0);
    ck_assert_uint_eq(gd_gap_wake_ps(&m, GD_GAP_IS_COPY), 500000 - 424000);
    gd_kernel_run k;
    memset(&k, 0, sizeof k);
    k.kind = GD_PKT_COMMAND;
    ck_assert_uint_eq(gd_pp_wake_ps(&k, &m), 76000);
    k.kind = GD_PKT_BARRIER_AND;
    ck_assert_uint_eq(gd_pp_wake_ps(&k, &m), 4100000);
}
END_TEST

/* The hold: the class's gap less the fixed part (completion, then the barrier's own
 * time after a wait, then the grid launch before a kernel or the engine start before a
 * copy), never negative; and when the packet processor applies it. */
START_TEST(gap_hold_and_release)
{
    gd_gap_model m;
    memset(&m, 0, sizeof m);
    for (int c = 0; c < GD_GAP_CLASSES; c++)
        m.gap_ps[c] = 1000000 + 1000 * (gd_time_ps)c;
    m.completion_ps = 50000;
    m.barrier_ps = 7000;
    m.grid_launch_ps = 200000;
    m.command_launch_ps = 30000;
    ck_assert_uint_eq(gd_gap_fixed_ps(&m, GD_GAP_KERNEL_KERNEL, GD_GAP_IS_KERNEL), 250000);
    ck_assert_uint_eq(gd_gap_hold_ps(&m, GD_GAP_KERNEL_KERNEL, GD_GAP_IS_KERNEL), 750000);
    ck_assert_uint_eq(gd_gap_hold_ps(&m, GD_GAP_KERNEL_COPY, GD_GAP_IS_COPY), 1001000 - 80000);
    ck_assert_uint_eq(gd_gap_hold_ps(&m, GD_GAP_GRAPH_COPY_KERNEL, GD_GAP_IS_KERNEL), 1006000 - 250000);
    ck_assert_uint_eq(gd_gap_hold_ps(&m, GD_GAP_AFTER_WAIT, GD_GAP_IS_KERNEL), 1008000 - 257000);
    ck_assert_uint_eq(gd_gap_hold_ps(&m, GD_GAP_AFTER_WAIT, GD_GAP_IS_COPY), 1008000 - 87000);
    m.gap_ps[GD_GAP_COPY_COPY] = 79999;  /* below the fixed part: no hold */
    ck_assert_uint_eq(gd_gap_hold_ps(&m, GD_GAP_COPY_COPY, GD_GAP_IS_COPY), 0);
    ck_assert_uint_eq(gd_gap_hold_ps(&m, GD_GAP_NONE, GD_GAP_IS_COPY), 0);

    gd_pp_queue q;
    gd_pp_queue_init(&q, 8);
    gd_kernel_run head, prev;
    memset(&head, 0, sizeof head);
    memset(&prev, 0, sizeof prev);
    head.kind = GD_PKT_KERNEL;
    head.barrier = 1;
    head.decoded = 400000;
    ck_assert_uint_eq(gd_pp_release_time(&q, &head, &m), 0);  /* nothing completed on the queue yet */
    prev.kind = GD_PKT_COMMAND;
    gd_pp_completed(&q, &prev, 900000);
    ck_assert_uint_eq(gd_pp_release_time(&q, &head, &m), 900000 + 1002000 - 250000);  /* copy -> kernel */
    head.graph = 1;
    ck_assert_uint_eq(gd_pp_release_time(&q, &head, &m), 900000 + 1006000 - 250000);
    head.graph = 0;
    prev.kind = GD_PKT_BARRIER_AND;
    gd_pp_completed(&q, &prev, 900000);
    ck_assert_uint_eq(gd_pp_release_time(&q, &head, &m), 900000 + 1008000 - 257000);
    head.decoded = 900001;  /* decoded after the completion: the queue was idle, no gap */
    ck_assert_uint_eq(gd_pp_release_time(&q, &head, &m), 0);
    head.decoded = 900000;  /* at the same time: it was waiting */
    ck_assert_uint_ne(gd_pp_release_time(&q, &head, &m), 0);
    head.barrier = 0;       /* no barrier bit: it did not wait for the predecessor */
    ck_assert_uint_eq(gd_pp_release_time(&q, &head, &m), 0);
    head.barrier = 1;
    head.in_packet = 1;     /* a condensed packet's later kernel */
    ck_assert_uint_eq(gd_pp_release_time(&q, &head, &m), 0);
    head.in_packet = 0;
    head.kind = GD_PKT_PIPELINE;
    ck_assert_uint_eq(gd_pp_release_time(&q, &head, &m), 0);
    gd_pp_queue_destroy(&q);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("pp");
    TCase *tc = tcase_create("decisions");
    tcase_add_test(tc, queue_capacity_and_order);
    tcase_add_test(tc, barrier_bit);
    tcase_add_test(tc, programmatic_dependent_launch);
    tcase_add_test(tc, barrier_and_or_conditions);
    tcase_add_test(tc, barrier_packets_in_a_queue);
    tcase_add_test(tc, round_robin_pick);
    tcase_add_test(tc, run_pool_recycles);
    tcase_add_test(tc, gap_classes);
    tcase_add_test(tc, gap_hold_and_release);
    tcase_add_test(tc, idle_launch_wake);
    suite_add_tcase(s, tc);
    return tb_run_suite(s);
}
