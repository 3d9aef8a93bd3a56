/* test_cs.c - the command scheduler's decisions (model/sched/cs.c, seed 004 fig 8)
 * without a simulator: every branch of method 800, each checked against the tables
 * (running-command status table, physical-queue and sync-command tables per wait
 * queue, virtual-queue command status table) after the step. */
#include <check.h>
#include <string.h>

#include "cs.h"
#include "tb_util.h"

enum { S = GD_CMD_SYNC, C = GD_CMD_COND, SC = GD_CMD_SYNC | GD_CMD_COND };

static gd_kernel_run runs[16];

static gd_kernel_run *cmd(int i, uint32_t pq, uint32_t vid, uint8_t flags)
{
    gd_kernel_run *r = &runs[i];
    memset(r, 0, sizeof *r);
    r->index = (uint64_t)i;
    r->kind = GD_PKT_KERNEL;
    r->pq = pq;
    r->vid = vid;
    r->cmd_flags = flags;
    return r;
}

static gd_cs cs;

static void setup(int policy, uint32_t engines, uint32_t wqs, uint32_t depth)
{
    ck_assert_int_eq(gd_cs_init(&cs, policy, engines, 2, wqs, depth), 0);
}

static void enq(gd_kernel_run *r) { ck_assert_int_eq(gd_cs_enqueue(&cs, r), 0); }

/* One step; returns its action (0: nothing can act). */
static int step(gd_cs_decision *d)
{
    memset(d, 0, sizeof *d);
    return gd_cs_step(&cs, d) ? d->action : 0;
}

/* Steps 801-808: a sync command gets a free wait queue (physical-queue table: the PQ
 * it serves; sync-command table: the sync and its engine), its status-table entry
 * (pq_id, vid, latest-sync mark) and an engine. */
START_TEST(sync_enables_wait_queue)
{
    setup(GD_CS_WAITQUEUE, 4, 2, 8);
    gd_kernel_run *a = cmd(0, 3, 7, S);
    enq(a);
    gd_cs_decision d;
    ck_assert_int_eq(step(&d), GD_CS_DISPATCH);
    ck_assert_ptr_eq(d.cmd, a);
    ck_assert_int_eq(d.engine, 0);
    ck_assert_ptr_eq(cs.eng[0].cmd, a);
    ck_assert_int_eq(cs.eng[0].pq_id, 3);
    ck_assert_int_eq(cs.eng[0].wq_id, -1);
    ck_assert_uint_eq(cs.eng[0].vid, 7);
    ck_assert_uint_eq(cs.eng[0].latest_sync, 1);
    ck_assert_int_eq(cs.wq[0].pq, 3);
    ck_assert_ptr_eq(cs.wq[0].sync, a);
    ck_assert_int_eq(cs.wq[0].sync_engine, 0);
    ck_assert_int_eq(cs.wq[1].pq, -1);
    ck_assert_ptr_eq(cs.vq[7].latest, a);
    ck_assert_int_eq(a->cs_own_wq, 0);
    ck_assert_int_eq(step(&d), 0);
    gd_cs_destroy(&cs);
}
END_TEST

/* Step 805: a second sync of the same VID clears the older one's latest-sync mark
 * and takes it. */
START_TEST(newer_sync_takes_latest_mark)
{
    setup(GD_CS_WAITQUEUE, 4, 2, 8);
    gd_kernel_run *a = cmd(0, 0, 1, S), *b = cmd(1, 0, 1, S);
    enq(a);
    enq(b);
    gd_cs_decision d;
    ck_assert_int_eq(step(&d), GD_CS_DISPATCH);
    ck_assert_int_eq(step(&d), GD_CS_DISPATCH);
    ck_assert_uint_eq(cs.eng[0].latest_sync, 0);
    ck_assert_uint_eq(cs.eng[1].latest_sync, 1);
    ck_assert_ptr_eq(cs.vq[1].latest, b);
    ck_assert_ptr_eq(cs.wq[1].sync, b);
    /* the older sync completing leaves the VID's latest alone */
    gd_cs_complete(&cs, a, 0);
    ck_assert_ptr_eq(cs.vq[1].latest, b);
    ck_assert_ptr_null(cs.eng[0].cmd);
    ck_assert_int_eq(cs.wq[0].pq, -1);  /* its WQ was empty: free again */
    gd_cs_destroy(&cs);
}
END_TEST

/* Steps 809-811 and [0081]: a conditional command whose VID has a running latest sync
 * leaves its PQ for that sync's wait queue (no head-of-line blocking: the command of
 * another VID behind it is dispatched), and is dispatched from there when the sync
 * completes; the WQ is then free. */
START_TEST(conditional_waits_in_wait_queue)
{
    setup(GD_CS_WAITQUEUE, 4, 2, 8);
    gd_kernel_run *a = cmd(0, 0, 1, S), *b = cmd(1, 0, 1, C), *c = cmd(2, 0, 2, S);
    enq(a);
    enq(b);
    enq(c);
    gd_cs_decision d;
    ck_assert_int_eq(step(&d), GD_CS_DISPATCH);
    ck_assert_int_eq(step(&d), GD_CS_PUSH);
    ck_assert_ptr_eq(d.cmd, b);
    ck_assert_int_eq(d.wq, 0);
    ck_assert_uint_eq(cs.wq[0].q.n, 1);
    ck_assert_uint_eq(cs.in_wq, 1);
    ck_assert_int_eq(b->cs_state, GD_CS_IN_WQ);
    ck_assert_int_eq(step(&d), GD_CS_DISPATCH);  /* user 2's sync, not blocked by b */
    ck_assert_ptr_eq(d.cmd, c);
    ck_assert_int_eq(cs.wq[1].pq, 0);
    ck_assert_int_eq(step(&d), 0);               /* b waits for a */
    gd_cs_complete(&cs, a, 0);
    ck_assert_int_eq(cs.wq[0].sync_engine, -1);
    ck_assert_ptr_null(cs.vq[1].latest);
    ck_assert_int_eq(step(&d), GD_CS_DISPATCH);
    ck_assert_ptr_eq(d.cmd, b);
    ck_assert(d.from_wq);
    ck_assert_int_eq(cs.eng[d.engine].wq_id, 0);
    ck_assert_int_eq(cs.eng[d.engine].pq_id, 0);
    ck_assert_uint_eq(cs.eng[d.engine].latest_sync, 0);  /* a conditional is never a latest sync */
    ck_assert_int_eq(cs.wq[0].pq, -1);
    ck_assert_uint_eq(cs.from_wq, 1);
    ck_assert_uint_eq(cs.from_pq, 2);
    gd_cs_destroy(&cs);
}
END_TEST

/* Steps 812, 814-815: a conditional command without a running sync of its VID and
 * without an error is dispatched straight from its PQ. */
START_TEST(conditional_without_sync_runs)
{
    setup(GD_CS_WAITQUEUE, 4, 2, 8);
    gd_kernel_run *b = cmd(0, 1, 5, C);
    enq(b);
    gd_cs_decision d;
    ck_assert_int_eq(step(&d), GD_CS_DISPATCH);
    ck_assert_int_eq(cs.eng[0].pq_id, 1);
    ck_assert_uint_eq(cs.eng[0].vid, 5);
    ck_assert_int_eq(cs.wq[0].pq, -1);  /* no WQ for a conditional */
    gd_cs_destroy(&cs);
}
END_TEST

/* Steps 812-813, [0080]: a failed sync marks its VID failed; the conditional
 * commands that waited for it, and those picked later, complete as no-ops; a new
 * sync that succeeds clears the error; another VID is not affected. */
START_TEST(failed_chain_completes_as_noops)
{
    setup(GD_CS_WAITQUEUE, 4, 2, 8);
    gd_kernel_run *a = cmd(0, 0, 1, S), *b = cmd(1, 0, 1, C), *x = cmd(2, 1, 2, C);
    enq(a);
    enq(b);
    gd_cs_decision d;
    ck_assert_int_eq(step(&d), GD_CS_DISPATCH);
    ck_assert_int_eq(step(&d), GD_CS_PUSH);
    gd_cs_complete(&cs, a, 1);
    ck_assert_int_eq(a->status, GD_STATUS_FAILED);
    ck_assert_uint_eq(cs.vq[1].failed, 1);
    ck_assert_uint_eq(cs.wq[0].sync_failed, 1);
    ck_assert_int_eq(step(&d), GD_CS_NOOP);
    ck_assert_ptr_eq(d.cmd, b);
    ck_assert_int_eq(b->status, GD_STATUS_NOOP);
    ck_assert_int_eq(cs.wq[0].pq, -1);
    gd_kernel_run *c = cmd(3, 0, 1, C);  /* picked after the failure */
    enq(c);
    enq(x);
    ck_assert_int_eq(step(&d), GD_CS_DISPATCH);  /* user 2 runs on (PQ 1 is next, round-robin) */
    ck_assert_ptr_eq(d.cmd, x);
    ck_assert_int_eq(step(&d), GD_CS_NOOP);
    ck_assert_ptr_eq(d.cmd, c);
    gd_kernel_run *s2 = cmd(4, 0, 1, S), *c2 = cmd(5, 0, 1, C);
    enq(s2);
    ck_assert_int_eq(step(&d), GD_CS_DISPATCH);
    gd_cs_complete(&cs, s2, 0);
    ck_assert_uint_eq(cs.vq[1].failed, 0);
    enq(c2);
    ck_assert_int_eq(step(&d), GD_CS_DISPATCH);
    ck_assert_uint_eq(cs.noops, 2);
    ck_assert_uint_eq(cs.failed, 1);
    gd_cs_destroy(&cs);
}
END_TEST

/* Steps 803-804: with no free wait queue a sync waits at its PQ's head and the
 * scheduler serves other PQs meanwhile; it goes once a WQ is free. */
START_TEST(sync_waits_for_a_wait_queue)
{
    setup(GD_CS_WAITQUEUE, 4, 1, 8);
    gd_kernel_run *a = cmd(0, 0, 1, S), *b = cmd(1, 0, 2, S), *x = cmd(2, 1, 3, C);
    enq(a);
    enq(b);
    enq(x);
    gd_cs_decision d;
    ck_assert_int_eq(step(&d), GD_CS_DISPATCH);
    ck_assert_int_eq(step(&d), GD_CS_DISPATCH);  /* b has no WQ: PQ 1's head goes */
    ck_assert_ptr_eq(d.cmd, x);
    ck_assert_int_eq(step(&d), 0);
    ck_assert_int_eq(b->cs_state, GD_CS_IN_PQ);
    gd_cs_complete(&cs, a, 0);
    ck_assert_int_eq(step(&d), GD_CS_DISPATCH);
    ck_assert_ptr_eq(d.cmd, b);
    ck_assert_ptr_eq(cs.wq[0].sync, b);
    gd_cs_destroy(&cs);
}
END_TEST

/* The prior art (cs.policy=inorder): a conditional head whose sync runs blocks its
 * PQ, and the ready command of another VID behind it is held (head-of-line
 * blocking, a false dependency). */
START_TEST(inorder_head_blocks)
{
    setup(GD_CS_INORDER, 4, 0, 8);
    gd_kernel_run *a = cmd(0, 0, 1, S), *b = cmd(1, 0, 1, C), *c = cmd(2, 0, 2, S);
    enq(a);
    enq(b);
    enq(c);
    gd_cs_decision d;
    ck_assert_int_eq(step(&d), GD_CS_DISPATCH);
    ck_assert_int_eq(step(&d), 0);
    ck_assert_int_eq(gd_cs_head_blocks(&cs, 0), 1);
    ck_assert_uint_eq(c->cs_held, 1);
    ck_assert_uint_eq(b->cs_held, 0);
    gd_cs_complete(&cs, a, 0);
    ck_assert_int_eq(gd_cs_head_blocks(&cs, 0), 0);
    ck_assert_int_eq(step(&d), GD_CS_DISPATCH);
    ck_assert_ptr_eq(d.cmd, b);
    ck_assert_int_eq(step(&d), GD_CS_DISPATCH);
    ck_assert_ptr_eq(d.cmd, c);
    ck_assert_uint_eq(cs.pushed, 0);
    gd_cs_destroy(&cs);
}
END_TEST

/* Sync and conditional at once (a serial stream): each command waits where the one
 * before it waits. x2 is pushed into x1's WQ and becomes the VID's latest sync while
 * waiting there; x3 follows it into the same WQ; when x1 completes, x2 is dispatched
 * and the WQ now waits for x2, so x3 does not start before x2 completes. */
START_TEST(serial_chain_waits_where_its_sync_waits)
{
    setup(GD_CS_WAITQUEUE, 4, 2, 8);
    gd_kernel_run *x1 = cmd(0, 0, 1, SC), *x2 = cmd(1, 0, 1, SC), *x3 = cmd(2, 0, 1, SC);
    enq(x1);
    enq(x2);
    enq(x3);
    gd_cs_decision d;
    ck_assert_int_eq(step(&d), GD_CS_DISPATCH);
    ck_assert_int_eq(step(&d), GD_CS_PUSH);
    ck_assert_ptr_eq(cs.vq[1].latest, x2);
    ck_assert_int_eq(step(&d), GD_CS_PUSH);
    ck_assert_int_eq(d.wq, 0);
    ck_assert_ptr_eq(cs.vq[1].latest, x3);
    ck_assert_int_eq(step(&d), 0);
    gd_cs_complete(&cs, x1, 0);
    ck_assert_int_eq(step(&d), GD_CS_DISPATCH);
    ck_assert_ptr_eq(d.cmd, x2);
    ck_assert_ptr_eq(cs.wq[0].sync, x2);
    ck_assert_int_eq(cs.wq[0].sync_engine, d.engine);
    ck_assert_uint_eq(cs.eng[d.engine].latest_sync, 0);  /* x3, newer, is the latest */
    ck_assert_int_eq(step(&d), 0);                       /* x3 waits for x2 */
    gd_cs_complete(&cs, x2, 0);
    ck_assert_int_eq(step(&d), GD_CS_DISPATCH);
    ck_assert_ptr_eq(d.cmd, x3);
    ck_assert_uint_eq(cs.eng[d.engine].latest_sync, 1);
    ck_assert_int_eq(cs.wq[0].pq, 0);                    /* bound to x3 now */
    gd_cs_complete(&cs, x3, 0);
    ck_assert_int_eq(cs.wq[0].pq, -1);
    ck_assert_uint_eq(cs.max_in_wq, 2);
    gd_cs_destroy(&cs);
}
END_TEST

/* A full wait queue (cs.wq_depth) holds the conditional command at its PQ's head. */
START_TEST(full_wait_queue_holds_head)
{
    setup(GD_CS_WAITQUEUE, 4, 2, 1);
    gd_kernel_run *a = cmd(0, 0, 1, S), *b = cmd(1, 0, 1, C), *c = cmd(2, 0, 1, C), *e = cmd(3, 0, 2, S);
    enq(a);
    enq(b);
    enq(c);
    enq(e);
    gd_cs_decision d;
    ck_assert_int_eq(step(&d), GD_CS_DISPATCH);
    ck_assert_int_eq(step(&d), GD_CS_PUSH);
    ck_assert_int_eq(step(&d), 0);
    ck_assert_int_eq(gd_cs_head_blocks(&cs, 0), 1);  /* e (user 2) is held behind c */
    ck_assert_uint_eq(e->cs_held, 1);
    gd_cs_destroy(&cs);
}
END_TEST

/* Engines: kernels and copies have their own; a command waits for one of its kind. */
START_TEST(engines_by_kind)
{
    setup(GD_CS_INORDER, 1, 0, 8);
    gd_kernel_run *a = cmd(0, 0, 1, S), *b = cmd(1, 1, 2, S), *m = cmd(2, 2, 3, S);
    m->kind = GD_PKT_COMMAND;
    enq(a);
    enq(b);
    enq(m);
    gd_cs_decision d;
    ck_assert_int_eq(step(&d), GD_CS_DISPATCH);
    ck_assert_int_eq(step(&d), GD_CS_DISPATCH);
    ck_assert_ptr_eq(d.cmd, m);
    ck_assert_int_eq(d.engine, 1);  /* the first copy engine */
    ck_assert_int_eq(step(&d), 0);  /* b waits for the only kernel engine */
    gd_cs_complete(&cs, a, 0);
    ck_assert_int_eq(step(&d), GD_CS_DISPATCH);
    ck_assert_ptr_eq(d.cmd, b);
    ck_assert_int_eq(d.engine, 0);
    gd_cs_destroy(&cs);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("cs");
    TCase *tc = tcase_create("method800");
    tcase_add_test(tc, sync_enables_wait_queue);
    tcase_add_test(tc, newer_sync_takes_latest_mark);
    tcase_add_test(tc, conditional_waits_in_wait_queue);
    tcase_add_test(tc, conditional_without_sync_runs);
    tcase_add_test(tc, failed_chain_completes_as_noops);
    tcase_add_test(tc, sync_waits_for_a_wait_queue);
    tcase_add_test(tc, inorder_head_blocks);
    tcase_add_test(tc, serial_chain_waits_where_its_sync_waits);
    tcase_add_test(tc, full_wait_queue_holds_head);
    tcase_add_test(tc, engines_by_kind);
    suite_add_tcase(s, tc);
    return tb_run_suite(s);
}
