/* test_host.c - the closed-loop host's decisions (model/trace/host.h), without a
 * simulator: which thread's call or wait comes next and when, when records must be
 * read first, and when a wait is over. Times in ps; records as the reader gives them. */
#include <check.h>
#include <string.h>

#include "gdsim.h"
#include "host.h"
#include "tb_util.h"

static gd_host h;
static gd_kernel_run runs[16];
static int nruns;

static void setup(void)
{
    ck_assert_int_eq(gd_host_init(&h, 100), 0);
    memset(runs, 0, sizeof runs);
    nruns = 0;
}
static void teardown(void) { gd_host_destroy(&h); }

static void declare(uint32_t id, uint64_t start_ns)
{
    gd_trace_host_thread t;
    memset(&t, 0, sizeof t);
    t.thread = id;
    t.start_ns = start_ns;
    ck_assert_int_eq(gd_host_declare(&h, &t), 0);
}

/* A call of thread with one packet (a run on trace queue q, signal sig or GD_NO_SIGNAL). */
static gd_kernel_run *call(uint32_t thread, uint64_t gap_ns, uint32_t q, uint32_t sig, int last)
{
    gd_trace_host_call c = {thread, 1, gap_ns, last ? GD_HOST_LAST : 0};
    ck_assert_int_eq(gd_host_call(&h, &c), 0);
    gd_kernel_run *r = &runs[nruns++];
    r->trace_queue = q;
    r->signal = sig;
    gd_host_add_run(&h, r);
    gd_host_packet_read(&h);
    return r;
}

static void wait_for(uint32_t thread, uint32_t kind, uint64_t target, uint32_t signal, uint64_t gap_ns,
                     uint64_t tail_ns)
{
    gd_trace_host_wait w = {thread, kind, 0, target, signal, 0, gap_ns, tail_ns};
    ck_assert_int_eq(gd_host_wait(&h, &w), 0);
}

static int next(uint32_t *th, gd_time_ps *due)
{
    *th = UINT32_MAX;
    *due = 0;
    return gd_host_next(&h, th, due);
}

/* Issue the head call of thread at now: all its runs submitted. */
static void issue(uint32_t thread, gd_time_ps now)
{
    gd_host_item *it = gd_host_head(&h, thread);
    for (gd_kernel_run *r = it->runs; r; r = r->host_next)
        ck_assert_int_eq(gd_host_submitted(&h, r), 0);
    gd_host_call_done(&h, thread, now);
}

/* The earliest due item goes first; a thread whose next record is not read yet holds
 * back only items due after its ready time (its next is due no earlier). */
START_TEST(order_and_reading)
{
    uint32_t th;
    gd_time_ps due;
    declare(0, 1000);
    declare(1, 5000);  /* starts later */
    gd_host_origin(&h, 1000);
    ck_assert_int_eq(next(&th, &due), GD_HOST_READ);  /* thread 0 has nothing read yet */
    ck_assert_uint_eq(th, 0);
    call(0, 100, 0, GD_NO_SIGNAL, 0);
    ck_assert_int_eq(next(&th, &due), GD_HOST_ISSUE);  /* 100 ns, before thread 1 could start (4000 ns) */
    ck_assert_uint_eq(th, 0);
    ck_assert_uint_eq(due, 100000);
    issue(0, 100000);
    ck_assert_int_eq(next(&th, &due), GD_HOST_READ);
    ck_assert_uint_eq(th, 0);
    call(0, 5000, 0, GD_NO_SIGNAL, 0);  /* due 5100 ns: thread 1 (ready 4000) must be read first */
    ck_assert_int_eq(next(&th, &due), GD_HOST_READ);
    ck_assert_uint_eq(th, 1);
    call(1, 1100, 1, GD_NO_SIGNAL, 1);  /* due 5100 ns too, read later: goes second */
    ck_assert_int_eq(next(&th, &due), GD_HOST_ISSUE);
    ck_assert_uint_eq(th, 0);
    ck_assert_uint_eq(due, 5100000);
    /* a stalled thread (its queue full) waits for room; the other goes */
    h.t[0].stalled = 1;
    ck_assert_int_eq(next(&th, &due), GD_HOST_ISSUE);
    ck_assert_uint_eq(th, 1);
    ck_assert_uint_eq(due, 5100000);
    h.t[0].stalled = 0;
    issue(0, 5100000);
    issue(1, 5100000);
    ck_assert_uint_eq(h.calls, 3);
    ck_assert_uint_eq(h.cpu_ps, (100 + 5000 + 1100) * 1000ull);
    ck_assert_int_eq(next(&th, &due), GD_HOST_READ);  /* thread 0 has not ended */
    ck_assert_uint_eq(th, 0);
    ck_assert(!gd_host_done(&h));
    gd_host_eof(&h);
    ck_assert_int_eq(next(&th, &due), GD_HOST_IDLE);
    ck_assert(gd_host_done(&h));
    ck_assert(gd_host_all_ended(&h));
}
END_TEST

/* A queue wait waits for what was submitted to the queue before it, not what comes
 * after; a device wait for every queue; a signal wait for its signal; a wait with
 * nothing outstanding is over at once. */
START_TEST(wait_conditions)
{
    uint32_t th;
    gd_time_ps due;
    declare(0, 0);
    declare(1, 0);
    gd_host_origin(&h, 0);
    gd_kernel_run *a = call(0, 0, 3, 7, 0), *b = call(1, 0, 4, GD_NO_SIGNAL, 0);
    ck_assert_int_eq(next(&th, &due), GD_HOST_ISSUE);
    issue(th, 0);
    ck_assert_int_eq(next(&th, &due), GD_HOST_ISSUE);
    issue(th, 0);
    wait_for(0, GD_WAIT_QUEUE, 3, 0, 10, 50);
    gd_kernel_run *c = call(1, 5, 3, GD_NO_SIGNAL, 0);
    ck_assert_int_eq(next(&th, &due), GD_HOST_ISSUE);  /* thread 1's call at 5 ns, before the wait at 10 */
    ck_assert_uint_eq(th, 1);
    issue(1, 5000);
    ck_assert_int_eq(next(&th, &due), GD_HOST_READ);  /* thread 1's next is due from 5 ns */
    wait_for(1, GD_WAIT_DEVICE, 0, 0, 0, 0);
    ck_assert_int_eq(next(&th, &due), GD_HOST_ISSUE);
    ck_assert_uint_eq(th, 1);  /* the device wait at 5 ns */
    ck_assert_int_eq(gd_host_begin_wait(&h, 1, 5000), 0);
    ck_assert_int_eq(next(&th, &due), GD_HOST_ISSUE);
    ck_assert_uint_eq(th, 0);
    ck_assert_uint_eq(due, 10000);
    /* queue 3 had a and c when the wait began at 10 ns: both end it (and the device wait) */
    ck_assert_int_eq(gd_host_begin_wait(&h, 0, 10000), 0);
    ck_assert_uint_eq(gd_host_completed(&h, a, 20000), GD_TIME_NEVER);
    ck_assert_uint_eq(gd_host_completed(&h, b, 30000), GD_TIME_NEVER);
    ck_assert(h.t[0].waiting && h.t[1].waiting);
    c->end = 38000;  /* its last CTA ended 2 ns before its completion was signalled */
    ck_assert_uint_eq(gd_host_completed(&h, c, 40000), 40000);  /* thread 1 at once, thread 0 after its tail */
    ck_assert(!h.t[0].waiting && !h.t[1].waiting);
    ck_assert_uint_eq(h.t[0].ready, 88000);  /* its tail from c's end, not its completion */
    ck_assert_uint_eq(h.t[1].ready, 38000);  /* tail 0: c's end, though the thread goes on at 40 ns */
    ck_assert_uint_eq(h.t[0].waited_ps, 30000);
    ck_assert_uint_eq(h.waits, 2);
    ck_assert_uint_eq(h.waited_ps, 30000 + 35000);
    /* a signal wait for a (completed) and a queue wait with nothing outstanding: at once */
    wait_for(0, GD_WAIT_SIGNAL, 0x40, 7, 0, 3);
    ck_assert_int_eq(next(&th, &due), GD_HOST_READ);  /* thread 1 (ready 38 ns) is read first */
    wait_for(1, GD_WAIT_QUEUE, 4, 0, 0, 0);
    ck_assert_int_eq(next(&th, &due), GD_HOST_ISSUE);
    ck_assert_uint_eq(th, 1);
    ck_assert_int_eq(gd_host_begin_wait(&h, 1, 40000), 1);
    ck_assert_int_eq(next(&th, &due), GD_HOST_READ);
    gd_host_eof(&h);
    ck_assert_int_eq(next(&th, &due), GD_HOST_ISSUE);
    ck_assert_uint_eq(th, 0);
    ck_assert_uint_eq(due, 88000);
    ck_assert_int_eq(gd_host_begin_wait(&h, 0, 88000), 1);
    ck_assert_uint_eq(h.t[0].ready, 91000);
    ck_assert_int_eq(next(&th, &due), GD_HOST_IDLE);
    ck_assert(gd_host_done(&h));
}
END_TEST

/* A signal wait counts the signal's packets submitted before it, on any queue. */
START_TEST(signal_counts)
{
    uint32_t th;
    gd_time_ps due;
    declare(0, 0);
    gd_host_origin(&h, 0);
    gd_kernel_run *a = call(0, 0, 0, 2, 0), *b = call(0, 0, 1, 2, 0);
    issue(0, 0);
    issue(0, 0);
    wait_for(0, GD_WAIT_SIGNAL, 0x99, 2, 0, 0);
    gd_kernel_run *c = call(0, 0, 2, 2, 1);
    ck_assert_int_eq(next(&th, &due), GD_HOST_ISSUE);
    ck_assert_int_eq(gd_host_begin_wait(&h, 0, 0), 0);
    ck_assert_uint_eq(gd_host_completed(&h, b, 100), GD_TIME_NEVER);
    ck_assert_uint_eq(gd_host_completed(&h, a, 200), 200);
    issue(0, 200);
    ck_assert_uint_eq(gd_host_completed(&h, c, 300), GD_TIME_NEVER);
    ck_assert_uint_eq(h.buffered, 0);
}
END_TEST


/* A wait that begins after the awaited work ended but before its completion was
 * signalled returns its tail after its own start, not after that end (the converter's
 * tail counts from the later of the two): never before it began. */
START_TEST(wait_after_end)
{
    uint32_t th;
    gd_time_ps due;
    declare(0, 0);
    gd_host_origin(&h, 0);
    gd_kernel_run *a = call(0, 0, 0, 3, 0);
    issue(0, 0);
    wait_for(0, GD_WAIT_SIGNAL, 0x33, 3, 10, 2);
    call(0, 1, 0, GD_NO_SIGNAL, 1);
    ck_assert_int_eq(next(&th, &due), GD_HOST_ISSUE);
    ck_assert_uint_eq(due, 10000);
    ck_assert_int_eq(gd_host_begin_wait(&h, 0, 10000), 0);
    a->end = 6000;  /* ended at 6 ns, its completion signalled at 12 ns */
    ck_assert_uint_eq(gd_host_completed(&h, a, 12000), 12000);
    ck_assert_uint_eq(h.t[0].ready, 12000);  /* 10 ns + its 2 ns tail, not 6 + 2 */
    ck_assert_int_eq(next(&th, &due), GD_HOST_ISSUE);
    ck_assert_uint_eq(due, 13000);
}
END_TEST

/* A queue's packets go in in trace order, whichever thread submits them: a call due
 * earlier waits for another thread's earlier packet of its queue. */
START_TEST(queue_order_across_threads)
{
    uint32_t th;
    gd_time_ps due;
    declare(0, 0);
    declare(1, 0);
    gd_host_origin(&h, 0);
    call(0, 500, 2, GD_NO_SIGNAL, 1);  /* thread 0: queue 2 at 500 ns, first in the trace */
    call(1, 100, 2, GD_NO_SIGNAL, 0);  /* thread 1: queue 2 at 100 ns, after it */
    call(1, 0, 3, GD_NO_SIGNAL, 1);
    gd_host_eof(&h);
    ck_assert_int_eq(next(&th, &due), GD_HOST_ISSUE);
    ck_assert_uint_eq(th, 0);  /* not thread 1, though due first */
    ck_assert_uint_eq(due, 500000);
    issue(0, 500000);
    ck_assert_int_eq(next(&th, &due), GD_HOST_ISSUE);
    ck_assert_uint_eq(th, 1);
    ck_assert_uint_eq(due, 100000);  /* overdue: it goes at once */
}
END_TEST

int main(void)
{
    Suite *s = suite_create("host");
    TCase *tc = tcase_create("host");
    tcase_add_checked_fixture(tc, setup, teardown);
    tcase_add_test(tc, order_and_reading);
    tcase_add_test(tc, wait_conditions);
    tcase_add_test(tc, signal_counts);
    tcase_add_test(tc, queue_order_across_threads);
    tcase_add_test(tc, wait_after_end);
    suite_add_tcase(s, tc);
    return tb_run_suite(s);
}
