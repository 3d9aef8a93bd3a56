/* test_meta.c - the meta-scheduler's decisions (model/meta/meta.c) without a simulator:
 * launch sizes, the SIMD-width threshold, overflow prevention, each policy's order,
 * protection of an important kernel, concurrency, debug mode, and seed 002 fig 1 run
 * to completion by a tiny event loop (every launch ends cta_ns after it starts) with
 * its hand-worked timeline and every item accounted for. */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gdsim.h"
#include "meta.h"
#include "tb_util.h"
#include "topology.h"

static gd_topology *T;
static gd_meta *M;

static void load(const char *text)
{
    gd_err e;
    gd_err_clear(&e);
    ck_assert_msg(gd_topology_parse(T, text, strlen(text), "t.topo", &e) == GD_OK, "parse: %s", e.msg);
}

/* params: sms SMs, every kernel 8 CTAs per SM */
static void start(int policy, uint32_t simd, int protect, int debug, int conc, uint32_t sms)
{
    gd_meta_params p;
    memset(&p, 0, sizeof p);
    p.policy = policy;
    p.simd_width = simd;
    p.protect = (uint8_t)protect;
    p.debug = (uint8_t)debug;
    p.concurrency = (uint8_t)conc;
    p.sms = sms;
    uint32_t per_sm[GD_META_MAX_KERNELS];
    for (int i = 0; i < GD_META_MAX_KERNELS; i++)
        per_sm[i] = 8;
    memset(M, 0, sizeof *M);
    gd_meta_init(M, T, &p, per_sm, 0);
}

static void setup(void)
{
    T = malloc(sizeof *T);
    M = malloc(sizeof *M);
}
static void teardown(void)
{
    free(T);
    free(M);
}

/* FIG1: tb_util.h */

/* Run to completion: each launch ends cta_ns after the round that decided it (no
 * latency); returns the makespan in ns and writes the launches "K1x4@0 ..." into seq. */
static uint64_t run_all(char *seq, size_t size)
{
    struct { gd_meta_launch l; gd_time_ps end; } fl[256];
    size_t nf = 0;
    gd_time_ps now = 0, last = 0;
    seq[0] = '\0';
    for (int guard = 0; guard < 10000; guard++) {
        gd_meta_launch l[GD_META_MAX_KERNELS];
        size_t n;
        while ((n = gd_meta_round(M, now, l, GD_META_MAX_KERNELS)) > 0)
            for (size_t i = 0; i < n; i++) {
                ck_assert_uint_lt(nf, 256);
                fl[nf].l = l[i];
                fl[nf].end = now + T->k[l[i].kernel].cta_ns * 1000;
                nf++;
                size_t len = strlen(seq);
                snprintf(seq + len, size - len, "%s%sx%llu@%llu", len ? " " : "", T->k[l[i].kernel].name,
                         (unsigned long long)l[i].ctas, (unsigned long long)(now / 1000));
            }
        if (!nf)
            break;
        /* the earliest end (ties: launch order) */
        size_t e = 0;
        for (size_t i = 1; i < nf; i++)
            if (fl[i].end < fl[e].end)
                e = i;
        now = fl[e].end;
        if (now > last)
            last = now;
        gd_meta_ended(M, now, &fl[e].l);
        fl[e] = fl[--nf];
        /* keep launch order among the rest (for same-time ends) */
        for (size_t i = e; i + 1 < nf; i++)
            if (fl[i].l.seq > fl[i + 1].l.seq) {
                __typeof__(fl[0]) x = fl[i];
                fl[i] = fl[i + 1];
                fl[i + 1] = x;
            }
    }
    gd_meta_account(M, last);
    return last / 1000;
}

/* items in = items consumed + left, per buffer; and nothing in flight */
static void accounted(void)
{
    for (uint32_t b = 0; b < T->nbuffers; b++) {
        const gd_meta_bstate *s = &M->b[b];
        ck_assert_uint_eq(T->b[b].initial + s->written, s->consumed + s->fill);
        ck_assert_uint_eq(s->reading, 0);
        ck_assert_uint_eq(s->incoming, 0);
    }
    ck_assert_uint_eq(M->in_flight, 0);
}

START_TEST(fig1_first_round)
{
    load(FIG1);
    start(GD_META_ROUND_ROBIN, 32, 1, 0, GD_META_AUTO, 132);
    gd_meta_launch l[8];
    ck_assert_uint_eq(gd_meta_round(M, 0, l, 8), 1);
    ck_assert_uint_eq(l[0].kernel, 0);
    ck_assert_uint_eq(l[0].ctas, 4);  /* F1 holds 8 CTAs' items, F2 and F3 room for 4 */
    ck_assert_uint_eq(M->b[0].fill, 128);
    ck_assert_uint_eq(M->b[0].reading, 128);
    ck_assert_uint_eq(M->b[1].incoming, 128);
    ck_assert_uint_eq(M->b[2].incoming, 128);
    ck_assert_uint_eq(gd_meta_round(M, 0, l, 8), 0);  /* no room left for K1 */
    gd_meta_ended(M, 2000000, &(gd_meta_launch){0, 4, 1, 0});
    ck_assert_uint_eq(M->b[0].reading, 0);
    ck_assert_uint_eq(M->b[1].fill, 128);
    ck_assert_uint_eq(M->b[2].fill, 128);
    ck_assert_uint_eq(M->b[1].written, 128);
}
END_TEST

/* Hand-worked (no latencies, a GPU that holds everything): K1 4 CTAs 0-2000 ns; K2
 * (F2 full, K1 has no room) 2000-6000; K3 (F4 and F3) 6000-7000; K1 again once K3
 * freed F3: 7000-9000; K2 9000-13000; K3 13000-14000. The topology forces this
 * order, so every policy gives the same 14 us. */
START_TEST(fig1_timeline_every_policy)
{
    const int pol[] = {GD_META_ROUND_ROBIN, GD_META_PRIORITY, GD_META_MOST_DATA};
    for (int i = 0; i < 3; i++) {
        load(FIG1);
        start(pol[i], 32, 1, 0, GD_META_AUTO, 132);
        char seq[512];
        ck_assert_uint_eq(run_all(seq, sizeof seq), 14000);
        ck_assert_str_eq(seq, "K1x4@0 K2x4@2000 K3x4@6000 K1x4@7000 K2x4@9000 K3x4@13000");
        accounted();
        ck_assert_uint_eq(M->b[0].consumed, 256);
        ck_assert_uint_eq(M->b[3].consumed, 256);
        ck_assert_uint_eq(M->k[1].busy_ps, 8000000);
        /* F3 is full while K1 holds items for more CTAs but no room for them: from 0
         * (its first launch reserved all of F3) to 7000 (K3 freed it) */
        ck_assert_uint_eq(M->b[2].full_ps, 7000000);
    }
}
END_TEST

/* Seed 002 [0097]: a consumer waits for simd_width items while its producer can still
 * write; 7 of 8 items do not launch it, 8 do; with its producer done, 7 do. */
#define SIMD                                                                                          \
    "buffer S width=4 length=100 initial=%d\n"                                                       \
    "buffer A width=4 length=64 initial=%d\n"                                                        \
    "kernel P in=S out=A items=1 threads=32 cta_ns=10\n"                                             \
    "kernel C in=A items=1 threads=32 cta_ns=10\n"

static int consumer_launches(int s_items, int a_items)
{
    char text[512];
    snprintf(text, sizeof text, SIMD, s_items, a_items);
    load(text);
    start(GD_META_ROUND_ROBIN, 8, 1, 0, GD_META_PARALLEL, 132);
    gd_meta_launch l[8];
    size_t n = gd_meta_round(M, 0, l, 8);
    for (size_t i = 0; i < n; i++)
        if (l[i].kernel == 1)
            return (int)l[i].ctas;
    return 0;
}

START_TEST(simd_threshold)
{
    ck_assert_int_eq(consumer_launches(100, 7), 0);
    ck_assert_int_eq(consumer_launches(100, 8), 8);
    ck_assert_int_eq(consumer_launches(0, 7), 7);  /* P can never write again */
}
END_TEST

/* The threshold never stops a pipeline: a loop whose items dwindle below the SIMD
 * width (K feeds itself half of what it reads) waits for more while anything is in
 * flight, then launches with what there is once nothing could add to it. */
START_TEST(simd_threshold_loop)
{
    load("buffer A width=4 length=64 initial=32\nbuffer OUT width=4 length=64 drain\n"
         "buffer B width=4 length=64 initial=1\n"
         "kernel K in=A out=A,OUT items=2 out_items=1 threads=32 cta_ns=10\n"
         "kernel X in=B items=1 threads=32 cta_ns=10\n");
    start(GD_META_ROUND_ROBIN, 32, 1, 0, GD_META_PARALLEL, 132);
    gd_meta_launch l[8];
    ck_assert_uint_eq(gd_meta_round(M, 0, l, 8), 2);
    ck_assert_uint_eq(l[0].kernel, 0);
    ck_assert_uint_eq(l[0].ctas, 16);  /* 32 items, 2 a CTA */
    ck_assert_uint_eq(l[1].kernel, 1);  /* X: B's producers are done (it has none) */
    gd_meta_ended(M, 10000, &l[0]);
    ck_assert_uint_eq(M->b[0].fill, 16);
    ck_assert_uint_eq(gd_meta_round(M, 10000, l + 2, 6), 0);  /* 16 < 32 while X is in flight */
    gd_meta_ended(M, 10000, &l[1]);
    ck_assert_uint_eq(gd_meta_round(M, 10000, l, 8), 1);  /* nothing in flight: 16 items go */
    ck_assert_uint_eq(l[0].kernel, 0);
    ck_assert_uint_eq(l[0].ctas, 8);
    for (gd_time_ps t = 20000; M->in_flight; t += 10000) {
        gd_meta_ended(M, t, &l[0]);
        if (!gd_meta_round(M, t, l, 8))
            break;
    }
    ck_assert_uint_eq(M->b[0].fill, 1);      /* 32 -> 16 -> 8 -> 4 -> 2 -> 1: fewer than a CTA's */
    ck_assert_uint_eq(M->b[1].fill, 31);     /* the drain */
    ck_assert_uint_eq(M->k[0].launches, 5);
    char why[256];
    ck_assert_int_eq(gd_meta_stuck(M, why, sizeof why), 0);
}
END_TEST

/* Seed 002 [0098]: a producer launches only as many CTAs as its output has room for
 * (items x amplification each), and none while less than one CTA's room is free. */
START_TEST(overflow_prevention)
{
    load("buffer S width=4 length=1000 initial=1000\n"
         "buffer B width=4 length=50\n"
         "kernel P in=S out=B items=4 amplification=3 out_items=2 threads=32 cta_ns=10\n"
         "kernel C in=B items=2 threads=32 cta_ns=10\n");
    start(GD_META_ROUND_ROBIN, 1, 1, 0, GD_META_PARALLEL, 132);
    gd_meta_launch l[8];
    ck_assert_uint_eq(gd_meta_round(M, 0, l, 8), 1);
    ck_assert_uint_eq(l[0].ctas, 4);  /* 50 entries / 12 per CTA */
    ck_assert_uint_eq(M->b[1].incoming, 48);
    ck_assert_uint_eq(gd_meta_round(M, 0, l, 8), 0);  /* 2 entries free: not one CTA's 12 */
    gd_meta_ended(M, 10000, &l[0]);
    ck_assert_uint_eq(M->b[1].fill, 8);      /* 4 CTAs x out_items 2 */
    ck_assert_uint_eq(M->b[1].incoming, 0);  /* the rest of the reservation is freed */
    for (gd_time_ps t = 20000; t < 2000000; t += 10000) {  /* never more than 50 entries in use */
        size_t n = gd_meta_round(M, t, l, 8);
        ck_assert_uint_le(M->b[1].fill + M->b[1].reading + M->b[1].incoming, 50);
        for (size_t i = 0; i < n; i++)
            gd_meta_ended(M, t, &l[i]);
    }
    accounted();
}
END_TEST

/* Two independent kernels with data on a GPU that holds one launch at a time
 * (concurrency auto, 1 SM): who goes first is the policy's choice ([0107]-[0109]). */
#define TWO                                                             \
    "buffer A width=4 length=64 initial=32\n"                          \
    "buffer B width=4 length=64 initial=64\n"                          \
    "kernel X in=A items=32 threads=32 cta_ns=10\n"                    \
    "kernel Y in=B items=32 threads=32 cta_ns=10 importance=%d\n"

static int first_of(int policy, int importance, uint32_t rr)
{
    char text[512];
    snprintf(text, sizeof text, TWO, importance);
    load(text);
    start(policy, 1, 1, 0, GD_META_AUTO, 1);
    M->rr = rr;
    gd_meta_launch l[8];
    ck_assert_uint_eq(gd_meta_round(M, 0, l, 8), 1);  /* the SM is held: one launch */
    return (int)l[0].kernel;
}

START_TEST(policy_order)
{
    ck_assert_int_eq(first_of(GD_META_ROUND_ROBIN, 0, 0), 0);  /* A checked first */
    ck_assert_int_eq(first_of(GD_META_ROUND_ROBIN, 0, 1), 1);  /* B checked first */
    ck_assert_uint_eq(M->rr, 0);                                /* each round starts one buffer later */
    gd_meta_launch r[8];
    gd_meta_round(M, 0, r, 8);
    ck_assert_uint_eq(M->rr, 1);
    ck_assert_int_eq(first_of(GD_META_PRIORITY, 0, 0), 0);     /* equal: declaration order */
    ck_assert_int_eq(first_of(GD_META_PRIORITY, 5, 0), 1);     /* Y more important */
    ck_assert_int_eq(first_of(GD_META_MOST_DATA, 0, 0), 1);    /* B holds more */
    /* parallel: round_robin and priority launch both in one round, most_data only the
     * fullest buffer's consumer */
    load("buffer A width=4 length=64 initial=32\nbuffer B width=4 length=64 initial=64\n"
         "kernel X in=A items=32 threads=32 cta_ns=10\nkernel Y in=B items=32 threads=32 cta_ns=10\n");
    gd_meta_launch l[8];
    start(GD_META_ROUND_ROBIN, 1, 1, 0, GD_META_PARALLEL, 132);
    ck_assert_uint_eq(gd_meta_round(M, 0, l, 8), 2);
    start(GD_META_PRIORITY, 1, 1, 0, GD_META_PARALLEL, 132);
    ck_assert_uint_eq(gd_meta_round(M, 0, l, 8), 2);
    start(GD_META_MOST_DATA, 1, 1, 0, GD_META_PARALLEL, 132);
    ck_assert_uint_eq(gd_meta_round(M, 0, l, 8), 1);
    ck_assert_uint_eq(l[0].kernel, 1);
    ck_assert_uint_eq(l[0].ctas, 2);
    ck_assert_uint_eq(gd_meta_round(M, 0, l, 8), 1);  /* the next round: X */
    ck_assert_uint_eq(l[0].kernel, 0);
}
END_TEST

/* Seed 002 [0095]-[0096]: while the important kernel runs, a less important one is
 * not launched (meta.protect_important=on), even with data and SMs free. */
START_TEST(protect_important)
{
    for (int prot = 0; prot < 2; prot++) {
        char text[512];
        snprintf(text, sizeof text, TWO, 3);
        load(text);
        start(GD_META_PRIORITY, 1, prot, 0, GD_META_PARALLEL, 132);
        gd_meta_launch l[8];
        /* take X's data away for the first round: Y launches alone */
        M->b[0].fill = 0;
        ck_assert_uint_eq(gd_meta_round(M, 0, l, 8), 1);
        ck_assert_uint_eq(l[0].kernel, 1);
        M->b[0].fill = 32;
        ck_assert_uint_eq(gd_meta_round(M, 0, l, 8), prot ? 0 : 1);
        gd_meta_ended(M, 10000, &(gd_meta_launch){1, 2, 1, 0});
        if (prot)
            ck_assert_uint_eq(gd_meta_round(M, 10000, l, 8), 1);  /* Y done: X goes */
    }
}
END_TEST

/* Seed 002 [0094]: concurrency auto lets a second kernel run beside the first only on
 * the SMs the first leaves, shrinking its launch; sequential waits. */
START_TEST(concurrency)
{
    load("buffer A width=4 length=1024 initial=64\nbuffer B width=4 length=1024 initial=1024\n"
         "kernel X in=A items=32 threads=32 cta_ns=10\nkernel Y in=B items=32 threads=32 cta_ns=10\n");
    gd_meta_launch l[8];
    start(GD_META_ROUND_ROBIN, 1, 1, 0, GD_META_AUTO, 4);
    ck_assert_uint_eq(gd_meta_round(M, 0, l, 8), 2);
    ck_assert_uint_eq(l[0].ctas, 2);   /* X: all its data, one SM */
    ck_assert_uint_eq(l[0].sms, 1);
    ck_assert_uint_eq(l[1].ctas, 24);  /* Y: the 3 SMs left x 8 */
    ck_assert_uint_eq(l[1].sms, 3);
    ck_assert_uint_eq(gd_meta_round(M, 0, l, 8), 0);  /* every SM held */
    start(GD_META_ROUND_ROBIN, 1, 1, 0, GD_META_PARALLEL, 4);
    ck_assert_uint_eq(gd_meta_round(M, 0, l, 8), 2);
    ck_assert_uint_eq(l[1].ctas, 32);  /* a whole wave of its own */
    start(GD_META_ROUND_ROBIN, 1, 1, 0, GD_META_SEQUENTIAL, 4);
    ck_assert_uint_eq(gd_meta_round(M, 0, l, 8), 1);
    ck_assert_uint_eq(l[0].kernel, 0);
    gd_meta_ended(M, 10000, &l[0]);
    ck_assert_uint_eq(gd_meta_round(M, 10000, l, 8), 1);
    ck_assert_uint_eq(l[0].kernel, 1);
    ck_assert_uint_eq(l[0].ctas, 32);
}
END_TEST

/* Seed 002 [0117]: debug mode shrinks the buffers, launches one CTA at a time, one
 * launch in flight, and logs every fill and drain. */
static char LOG[8192];
static void log_fn(void *ctx, gd_time_ps t, int ev, uint32_t k, int b, uint64_t items, uint64_t fill)
{
    (void)ctx;
    size_t len = strlen(LOG);
    snprintf(LOG + len, sizeof LOG - len, "%llu %s %s %s %llu %llu\n", (unsigned long long)(t / 1000),
             gd_meta_event_name(ev), T->k[k].name, b < 0 ? "-" : T->b[b].name, (unsigned long long)items,
             (unsigned long long)fill);
}

START_TEST(debug_mode)
{
    load(FIG1);
    LOG[0] = '\0';
    M->log = log_fn;
    gd_meta_params p;
    memset(&p, 0, sizeof p);
    p.policy = GD_META_ROUND_ROBIN;
    p.simd_width = 32;
    p.protect = 1;
    p.debug = 1;
    p.sms = 132;
    uint32_t per_sm[3] = {8, 4, 16};
    gd_meta_init(M, T, &p, per_sm, 0);
    /* F1 keeps its 256 initial items; F2 and F3: K1's 32 + 32 - 1; F4 likewise */
    ck_assert_uint_eq(M->b[0].length, 256);
    ck_assert_uint_eq(M->b[1].length, 63);
    ck_assert_uint_eq(M->b[2].length, 63);
    ck_assert_uint_eq(M->b[3].length, 63);
    char seq[2048];
    /* one CTA at a time; F3 (63 entries) holds one of K1's CTAs but not two, so K1
     * waits for K3 each time: K1, K2, K3 in turn, 7 us a turn, 8 turns */
    ck_assert_uint_eq(run_all(seq, sizeof seq), 56000);
    accounted();
    ck_assert(strncmp(seq, "K1x1@0 K2x1@2000 K3x1@6000 K1x1@7000 K2x1@9000 ", 47) == 0);
    ck_assert_uint_eq(M->k[0].launches, 8);
    ck_assert_uint_eq(M->k[2].launches, 8);
    ck_assert(strncmp(LOG, "0 launch K1 - 1 0\n0 take K1 F1 32 224\n0 reserve K1 F2 32 0\n0 reserve K1 F3 32 0\n"
                           "2000 end K1 - 1 0\n2000 write K1 F2 32 32\n2000 write K1 F3 32 32\n2000 free K1 F1 32 224\n",
                      strlen("0 launch K1 - 1 0\n0 take K1 F1 32 224\n0 reserve K1 F2 32 0\n0 reserve K1 F3 32 0\n"
                             "2000 end K1 - 1 0\n2000 write K1 F2 32 32\n2000 write K1 F3 32 32\n2000 free K1 F1 32 224\n")) == 0);
}
END_TEST

Suite *meta_suite(void)
{
    Suite *s = suite_create("meta");
    TCase *tc = tcase_create("decisions");
    tcase_add_checked_fixture(tc, setup, teardown);
    tcase_add_test(tc, fig1_first_round);
    tcase_add_test(tc, fig1_timeline_every_policy);
    tcase_add_test(tc, simd_threshold);
    tcase_add_test(tc, simd_threshold_loop);
    tcase_add_test(tc, overflow_prevention);
    tcase_add_test(tc, policy_order);
    tcase_add_test(tc, protect_important);
    tcase_add_test(tc, concurrency);
    tcase_add_test(tc, debug_mode);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    SRunner *sr = srunner_create(meta_suite());
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
