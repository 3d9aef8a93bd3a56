/* test_alloc_fail.c - allocation failure, the way SQLite tests it: the N-th allocation
 * of the C core fails (the linker sends malloc, calloc, realloc and strdup of
 * libgdsim.a's C objects here: -Wl,--wrap), for every N over a small replay, after
 * which the handle must answer GD_ENOMEM (or succeed, when the failing allocation had
 * a fallback) with a message, and stay usable: the next replay gives the results of a
 * replay that never failed. Memory the failed replays leave is what LeakSanitizer
 * reports under make check SANITIZER=address. C++ allocations (std::bad_alloc) are
 * caught by the C API's wrappers (cwrap/gdsim.cpp) and not swept here. */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gdsim.h"
#include "tb_util.h"

void *__real_malloc(size_t n);
void *__real_calloc(size_t n, size_t size);
void *__real_realloc(void *p, size_t n);
char *__real_strdup(const char *s);
void *__wrap_malloc(size_t n);
void *__wrap_calloc(size_t n, size_t size);
void *__wrap_realloc(void *p, size_t n);
char *__wrap_strdup(const char *s);

static long g_count, g_fail_at = -1;

#include <execinfo.h>
/* GD_ALLOC_TRACE=1: print where the failing allocation was asked for (to find it) */
static int fails(void)
{
    if (++g_count != g_fail_at)
        return 0;
    const char *t = getenv("GD_ALLOC_TRACE");
    if (t && (atol(t) <= 0 || atol(t) == g_count)) {
        void *bt[16];
        backtrace_symbols_fd(bt, backtrace(bt, 16), 2);
    }
    return 1;
}
void *__wrap_malloc(size_t n) { return fails() ? NULL : __real_malloc(n); }
void *__wrap_calloc(size_t n, size_t size) { return fails() ? NULL : __real_calloc(n, size); }
void *__wrap_realloc(void *p, size_t n) { return fails() ? NULL : __real_realloc(p, n); }
char *__wrap_strdup(const char *s) { return fails() ? NULL : __real_strdup(s); }

static const char *TRACE = "tb/bad/name_not_utf8.gdt"; /* one kernel: a whole replay, quickly */

static char *csv, *json;

static const char *g_step;  /* the file the failing step was about (its message must name it) */

static int replay_once(gd_sim *sim)
{
    g_step = TRACE;
    int rc = gd_sim_replay_file(sim, TRACE);
    if (rc == GD_OK)
        rc = gd_sim_write_kernels_csv(sim, g_step = csv);
    if (rc == GD_OK)
        rc = gd_sim_write_summary_json(sim, g_step = json);
    return rc;
}

START_TEST(every_allocation_fails_once)
{
    csv = tb_tmp_path(".csv");
    json = tb_tmp_path(".json");
    gd_sim *sim;
    ck_assert_int_eq(gd_sim_new(&sim, NULL), GD_OK);
    g_count = 0;
    g_fail_at = -1;
    ck_assert_int_eq(replay_once(sim), GD_OK);
    gd_summary want;
    ck_assert_int_eq(gd_sim_summary(sim, &want), GD_OK);
    const long total = g_count;
    ck_assert_int_gt(total, 10);
    long failed = 0;
    for (long n = 1; n <= total; n++) {
        g_count = 0;
        g_fail_at = n;
        int rc = replay_once(sim);
        g_fail_at = -1;
        if (rc == GD_OK && getenv("GD_ALLOC_ABSORBED"))
            fprintf(stderr, "absorbed %ld\n", n);
        if (rc != GD_OK) {
            failed++;
            ck_assert_msg(rc == GD_ENOMEM, "allocation %ld of %ld failing gave %d: %s", n, total, rc,
                          gd_sim_errmsg(sim));
            ck_assert_msg(strstr(gd_sim_errmsg(sim), "memory") != NULL, "allocation %ld: message '%s'", n,
                          gd_sim_errmsg(sim));
            /* and names the file (and for the trace, how far it got) */
            ck_assert_msg(strstr(gd_sim_errmsg(sim), g_step) != NULL, "allocation %ld: message '%s' names no '%s'",
                          n, gd_sim_errmsg(sim), g_step);
            if (g_step == TRACE)
                ck_assert_msg(strstr(gd_sim_errmsg(sim), "record") != NULL, "allocation %ld: message '%s' names no "
                              "record", n, gd_sim_errmsg(sim));
        }
        /* the handle goes on as if nothing had happened */
        ck_assert_int_eq(replay_once(sim), GD_OK);
        gd_summary got;
        ck_assert_int_eq(gd_sim_summary(sim, &got), GD_OK);
        ck_assert_mem_eq(&got, &want, sizeof got);
    }
    ck_assert_int_gt(failed, total * 9 / 10); /* the rest: allocations only a first replay makes */
    printf("alloc-fail sweep: %ld allocations, %ld failures gave GD_ENOMEM\n", total, failed);
    gd_sim_free(sim);

    /* gd_sim_new itself */
    for (long n = 1; n <= 20; n++) {
        gd_sim *s = NULL;
        g_count = 0;
        g_fail_at = n;
        int rc = gd_sim_new(&s, NULL);
        g_fail_at = -1;
        ck_assert(rc == GD_OK || rc == GD_ENOMEM);
        ck_assert(rc == GD_OK ? s != NULL : s == NULL);
        gd_sim_free(s);
    }
    remove(csv);
    remove(json);
    free(csv);
    free(json);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("alloc_fail");
    TCase *tc = tcase_create("sweep");
    tcase_set_timeout(tc, 600);
    tcase_add_test(tc, every_allocation_fails_once);
    suite_add_tcase(s, tc);
    SRunner *sr = srunner_create(s);
    srunner_set_fork_status(sr, CK_NOFORK);
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
