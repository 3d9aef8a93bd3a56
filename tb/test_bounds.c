/* test_bounds.c - what bounds a replay (model/trace/bounds.h), without a simulator:
 * the path arithmetic, the critical path through queues, signals and a host wait,
 * and the GPU's time by state against a plain sort of every event. Times in ps. */
#include <check.h>
#include <stdlib.h>
#include <string.h>

#include "bounds.h"
#include "host.h"
#include "tb_util.h"

static uint64_t next_rand(uint64_t *s)  /* xorshift64 */
{
    *s ^= *s << 13;
    *s ^= *s >> 7;
    *s ^= *s << 17;
    return *s;
}

START_TEST(path_arithmetic)
{
    gd_path p, q;
    gd_path_start(&p, 100);
    ck_assert_uint_eq(p.at, 100);
    ck_assert_uint_eq(p.cat[GD_PATH_HOST_CPU], 100);
    ck_assert_uint_eq(p.host_floor, 100);
    ck_assert_uint_eq(p.gpu_floor, 0);
    gd_path_extend(&p, 150, GD_PATH_FRONT_END);
    gd_path_extend(&p, 140, GD_PATH_KERNELS);  /* earlier: nothing */
    gd_path_extend(&p, 250, GD_PATH_KERNELS);
    gd_path_extend(&p, 260, GD_PATH_HOST_SYNC);
    ck_assert_uint_eq(p.at, 260);
    ck_assert_uint_eq(p.cat[GD_PATH_FRONT_END], 50);
    ck_assert_uint_eq(p.cat[GD_PATH_KERNELS], 100);
    ck_assert_uint_eq(p.cat[GD_PATH_HOST_SYNC], 10);
    ck_assert_uint_eq(p.host_floor, 110);
    ck_assert_uint_eq(p.gpu_floor, 150);
    /* q: later, with a smaller GPU floor and a larger host floor */
    gd_path_start(&q, 300);
    gd_path_join(&p, &q);
    ck_assert_uint_eq(p.at, 300);
    ck_assert_uint_eq(p.cat[GD_PATH_HOST_CPU], 300);
    ck_assert_uint_eq(p.cat[GD_PATH_KERNELS], 0);  /* q's path: the later one */
    ck_assert_uint_eq(p.host_floor, 300);
    ck_assert_uint_eq(p.gpu_floor, 150);  /* the larger of the two */
    gd_time_ps share[3];
    gd_path_extend(&p, 1000, GD_PATH_HELD);
    ck_assert_int_eq(gd_bounds_verdict(&p, share), GD_BOUND_GPU);  /* a full queue: the GPU's doing */
    ck_assert_uint_eq(share[GD_BOUND_HOST], 300);
    ck_assert_uint_eq(share[GD_BOUND_GPU], 700);
    ck_assert_str_eq(gd_bound_name(GD_BOUND_FRONT_END), "front-end");
}
END_TEST

static gd_bounds b;
static void setup(void) { ck_assert_int_eq(gd_bounds_init(&b), 0); }
static void teardown(void) { gd_bounds_destroy(&b); }

/* A packet on hardware queue q submitted at s (its path: the host's until s), with
 * the barrier bit or not. */
static void submit_with(gd_kernel_run *r, uint32_t q, gd_time_ps s, int kind, int barrier)
{
    memset(r, 0, sizeof *r);
    r->kind = (uint8_t)kind;
    r->queue = r->trace_queue = q;
    r->barrier = barrier;
    r->signal = GD_NO_SIGNAL;
    r->submit = r->host_at = s;
    ck_assert_int_eq(gd_bounds_submitted(&b, r, NULL), 0);
}

static void submit(gd_kernel_run *r, uint32_t q, gd_time_ps s, int kind) { submit_with(r, q, s, kind, 1); }

static void complete(gd_kernel_run *r, gd_time_ps ready, gd_time_ps first, gd_time_ps end, gd_time_ps done)
{
    r->ready = ready;
    r->first_cta = first;
    r->end = end;
    r->completion = done;
    ck_assert_int_eq(gd_bounds_completed(&b, r, NULL), 0);
}

/* Two kernels on queue 0 (the second waits for the first: the barrier bit), a copy on
 * queue 1 and a barrier packet on queue 2 waiting for the second kernel's signal, then
 * a kernel behind it that waited 30 for room on the SMs. */
START_TEST(critical_path_through_queues_and_signals)
{
    gd_kernel_run k1, k2, c, bar, k3;
    submit(&k1, 0, 0, GD_PKT_KERNEL);
    submit(&k2, 0, 10, GD_PKT_KERNEL);
    k2.signal = 7;
    submit(&c, 1, 20, GD_PKT_COMMAND);
    submit(&bar, 2, 30, GD_PKT_BARRIER_AND);
    bar.ndeps = 1;
    bar.dep[0] = 7;
    submit(&k3, 2, 40, GD_PKT_KERNEL);
    k3.room_wait = 30;
    complete(&k1, 5, 8, 108, 110);        /* front end 8, kernel 100, completion 2 */
    complete(&c, 25, 28, 78, 130);        /* not on the path */
    complete(&k2, 115, 120, 320, 325);    /* waited for k1: from 110 */
    complete(&bar, 330, 330, 330, 331);   /* waited for signal 7: from 325 */
    complete(&k3, 335, 400, 500, 505);    /* from 331: front end 39, SMs full 30, kernel 100, 5 */
    const gd_path *e = &b.end;
    ck_assert_uint_eq(e->at, 505);
    ck_assert_uint_eq(e->cat[GD_PATH_HOST_CPU], 0);  /* k1 submitted at 0 */
    ck_assert_uint_eq(e->cat[GD_PATH_KERNELS], 100 + 200 + 100);
    ck_assert_uint_eq(e->cat[GD_PATH_SMS_FULL], 30);
    ck_assert_uint_eq(e->cat[GD_PATH_COPIES], 0);
    ck_assert_uint_eq(e->cat[GD_PATH_FRONT_END], 505 - 430);
    ck_assert_uint_eq(e->gpu_floor, 505);
    /* the host floor: the latest submit (40), as no GPU time is the host's */
    ck_assert_uint_eq(b.host_floor, 40);
    ck_assert_uint_eq(b.gpu_floor, 505);
    /* GPU time: kernels 8-108, 120-320, 400-500; the copy 28-78 under k1; idle
     * 108-120 (k1 completing, k2 met at 110: front end), 320-400 (front end) */
    ck_assert_uint_eq(b.gpu[GD_GPU_KERNELS], 400);
    ck_assert_uint_eq(b.gpu[GD_GPU_COPIES], 0);
    ck_assert_uint_eq(b.gpu[GD_GPU_FRONT_END], 8 + 12 + 80 + 5);
    ck_assert_uint_eq(b.gpu[GD_GPU_DEPENDENCY] + b.gpu[GD_GPU_NOTHING], 0);
}
END_TEST

/* A barrier packet whose signal's packet is submitted later: idle on a dependency
 * until it is; before the first submit and between packets, nothing submitted. */
START_TEST(gpu_idle_by_cause)
{
    gd_kernel_run bar, k, k2;
    submit(&bar, 1, 100, GD_PKT_BARRIER_AND);
    bar.ndeps = 1;
    bar.dep[0] = 3;
    submit(&k, 0, 200, GD_PKT_KERNEL);
    k.signal = 3;
    complete(&k, 200, 210, 310, 320);
    complete(&bar, 325, 325, 325, 326);
    submit(&k2, 0, 1000, GD_PKT_KERNEL);
    complete(&k2, 1000, 1010, 1110, 1120);
    ck_assert_uint_eq(b.gpu[GD_GPU_NOTHING], 100 + (1000 - 326));
    ck_assert_uint_eq(b.gpu[GD_GPU_DEPENDENCY], 100);  /* 100-200: the barrier waits, nothing else in */
    ck_assert_uint_eq(b.gpu[GD_GPU_FRONT_END], 10 + 16 + 10 + 10);
    ck_assert_uint_eq(b.gpu[GD_GPU_KERNELS], 200);
    /* the barrier's path: from k's completion (the signal), not its own submit */
    ck_assert_uint_eq(b.end.at, 1120);
    ck_assert_uint_eq(b.end.cat[GD_PATH_HOST_CPU], 1000);
}
END_TEST

/* Random packets on 4 queues, submitted and completed in time order, against the
 * GPU's time computed from all their events sorted at once. */
START_TEST(gpu_time_matches_a_full_sort)
{
    enum { N = 3000 };
    static gd_kernel_run r[N];
    static gd_time_ps t[N][5];
    uint64_t seed = 12345 + (uint64_t)_i;
    static int barrier[N];
    gd_time_ps qfree[4] = {0, 0, 0, 0}, qfirst[4] = {0, 0, 0, 0}, s = 0;
    for (int i = 0; i < N; i++) {  /* the host submits every 0-40 */
        s += next_rand(&seed) % 40;
        uint32_t q = (uint32_t)(next_rand(&seed) % 4);
        /* with the barrier bit (most), after every earlier packet of its queue completed;
         * without (on runs 2 and 3), at once; either launches after the one before it */
        barrier[i] = _i < 2 || next_rand(&seed) % 4;
        gd_time_ps met = !barrier[i] || s > qfree[q] ? s : qfree[q];
        gd_time_ps first = met + next_rand(&seed) % 20;
        t[i][0] = s;
        t[i][1] = met;
        t[i][2] = first > qfirst[q] ? first : qfirst[q];
        t[i][3] = t[i][2] + next_rand(&seed) % 200;
        t[i][4] = t[i][3] + next_rand(&seed) % 5;
        if (t[i][4] > qfree[q])
            qfree[q] = t[i][4];
        qfirst[q] = t[i][2];
        r[i].queue = q;
        r[i].kind = (next_rand(&seed) % 5) ? GD_PKT_KERNEL : GD_PKT_COMMAND;
    }
    /* submits and completions merged in time order (a submit first on a tie) */
    int *order = malloc(N * sizeof *order);
    for (int i = 0; i < N; i++)
        order[i] = i;
    for (int i = 1; i < N; i++)  /* by completion */
        for (int j = i; j > 0 && t[order[j]][4] < t[order[j - 1]][4]; j--) {
            int x = order[j];
            order[j] = order[j - 1];
            order[j - 1] = x;
        }
    int si = 0, ci = 0;
    while (ci < N) {
        if (si < N && t[si][0] <= t[order[ci]][4]) {
            gd_kernel_run *x = &r[si];
            const uint32_t q = x->queue;
            const uint8_t kind = x->kind;
            submit_with(x, q, t[si][0], kind, barrier[si]);
            si++;
        } else {
            const int i = order[ci++];
            complete(&r[i], t[i][1], t[i][2], t[i][3], t[i][4]);
        }
    }
    /* the reference: every event sorted */
    struct ev { gd_time_ps t; int code, copy; } *ev = malloc(5 * N * sizeof *ev);
    for (int i = 0; i < N; i++)
        for (int k = 0; k < 5; k++)
            ev[5 * i + k] = (struct ev){t[i][k], k, r[i].kind == GD_PKT_COMMAND};
    for (int i = 1; i < 5 * N; i++)
        for (int j = i; j > 0 && ev[j].t < ev[j - 1].t; j--) {
            struct ev x = ev[j];
            ev[j] = ev[j - 1];
            ev[j - 1] = x;
        }
    gd_time_ps want[GD_GPU_STATES] = {0}, last = 0;
    long pend = 0, fe = 0, kern = 0, copy = 0;
    for (int i = 0; i < 5 * N; i++) {
        if (ev[i].t > last) {
            int st = kern ? GD_GPU_KERNELS : copy ? GD_GPU_COPIES : fe ? GD_GPU_FRONT_END
                   : pend ? GD_GPU_DEPENDENCY : GD_GPU_NOTHING;
            want[st] += ev[i].t - last;
            last = ev[i].t;
        }
        long *run = ev[i].copy ? &copy : &kern;
        switch (ev[i].code) {
        case 0: pend++; break;
        case 1: pend--; fe++; break;
        case 2: fe--; (*run)++; break;
        case 3: (*run)--; fe++; break;
        default: fe--; break;
        }
    }
    for (int k = 0; k < GD_GPU_STATES; k++)
        ck_assert_msg(b.gpu[k] == want[k], "%s: %llu, not %llu", gd_gpu_state_key(k),
                      (unsigned long long)b.gpu[k], (unsigned long long)want[k]);
    ck_assert_uint_eq(b.gpu[GD_GPU_KERNELS] + b.gpu[GD_GPU_COPIES] + b.gpu[GD_GPU_FRONT_END] +
                      b.gpu[GD_GPU_DEPENDENCY] + b.gpu[GD_GPU_NOTHING], last);
    free(ev);
    free(order);
}
END_TEST

/* A host thread starting at 1000: a call, a wait for its queue (tail 1000 ps), a call
 * (gap 2000 ps). The wait returns its tail after the kernel's end (500 ps after its
 * completion); its predecessor is the kernel's completion; the host floor keeps the
 * thread's start, its gap and the tail past the completion. */
START_TEST(host_wait_on_the_path)
{
    gd_host h;
    ck_assert_int_eq(gd_host_init(&h, 100), 0);
    h.bounds = &b;
    b.host_waits = 1;
    gd_trace_host_thread th;
    memset(&th, 0, sizeof th);
    th.start_ns = 1;
    ck_assert_int_eq(gd_host_declare(&h, &th), 0);
    gd_trace_host_call c1 = {0, 1, 0, 0};
    ck_assert_int_eq(gd_host_call(&h, &c1), 0);
    gd_kernel_run k, k2;
    memset(&k, 0, sizeof k);
    k.signal = GD_NO_SIGNAL;
    k.barrier = 1;
    gd_host_add_run(&h, &k);
    gd_host_packet_read(&h);
    gd_trace_host_wait w = {0, GD_WAIT_QUEUE, 0, 0, 0, 0, 0, 0};
    w.tail_ns = 1;  /* 1000 ps */
    ck_assert_int_eq(gd_host_wait(&h, &w), 0);
    gd_trace_host_call c2 = {0, 1, 2, GD_HOST_LAST};  /* gap 2 ns */
    ck_assert_int_eq(gd_host_call(&h, &c2), 0);
    memset(&k2, 0, sizeof k2);
    k2.signal = GD_NO_SIGNAL;
    k2.barrier = 1;
    gd_host_add_run(&h, &k2);
    gd_host_packet_read(&h);
    gd_host_eof(&h);
    gd_host_origin(&h, 0);  /* the thread starts at 1000 ps */
    /* the first call at 1000 */
    gd_path kpath, k2path;
    kpath = *gd_host_issue_path(&h, 0, 1000);
    k.submit = 1000;
    ck_assert_int_eq(gd_bounds_submitted(&b, &k, &kpath), 0);
    ck_assert_int_eq(gd_host_submitted(&h, &k), 0);
    gd_host_call_done(&h, 0, 1000);
    ck_assert_int_eq(gd_host_begin_wait(&h, 0, 1000), 0);
    /* the kernel: ready 1500, first CTA 2000, end 7000, completed 7500 */
    complete(&k, 1500, 2000, 7000, 7500);
    ck_assert_uint_eq(gd_host_completed(&h, &k, 7500), 8000);  /* its tail from the kernel's end */
    k2path = *gd_host_issue_path(&h, 0, 10000);  /* due 8000 + 2000 */
    ck_assert_uint_eq(k2path.at, 10000);
    ck_assert_uint_eq(k2path.cat[GD_PATH_HOST_CPU], 1000 + 2000);
    ck_assert_uint_eq(k2path.cat[GD_PATH_HOST_SYNC], 500);  /* from the completion signal */
    ck_assert_uint_eq(k2path.cat[GD_PATH_FRONT_END], 1000 + 500);
    ck_assert_uint_eq(k2path.cat[GD_PATH_KERNELS], 5000);
    ck_assert_uint_eq(k2path.host_floor, 1000 + 500 + 2000);
    ck_assert_uint_eq(k2path.gpu_floor, 6500);
    gd_host_destroy(&h);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("bounds");
    TCase *tc = tcase_create("core");
    tcase_add_checked_fixture(tc, setup, teardown);
    tcase_add_test(tc, path_arithmetic);
    tcase_add_test(tc, critical_path_through_queues_and_signals);
    tcase_add_test(tc, gpu_idle_by_cause);
    tcase_add_loop_test(tc, gpu_time_matches_a_full_sort, 0, 4);
    tcase_add_test(tc, host_wait_on_the_path);
    suite_add_tcase(s, tc);
    return tb_run_suite(s);
}
