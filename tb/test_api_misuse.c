/* test_api_misuse.c - the C API used wrongly (issue 18 item 8): NULL handles and
 * arguments, calls made from a replay's own progress callback (while it runs), calls
 * after a failed replay, unknown keys and huge strings. Each call returns its documented
 * code with a message, never crashes, and leaves the handle usable. */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gdsim.h"
#include "tb_util.h"

static const char *SAMPLE = "traces/sample.gdt.gz";

START_TEST(null_handles_and_arguments)
{
    const char *s = NULL;
    gd_summary sum;
    gd_stage_stats st;
    gd_condense_result cr;
    ck_assert_int_eq(gd_options_init(NULL, GD_OPTIONS_VERSION), GD_EINVAL);
    ck_assert_int_eq(gd_sim_new(NULL, NULL), GD_EINVAL);
    gd_sim_free(NULL);
    ck_assert_int_eq(gd_sim_set(NULL, "gpu.gpcs", "1"), GD_EINVAL);
    ck_assert_int_eq(gd_sim_load_config(NULL, "x"), GD_EINVAL);
    ck_assert_int_eq(gd_sim_get(&s, NULL, "gpu.gpcs"), GD_EINVAL);
    ck_assert_int_eq(gd_sim_resolve_config(NULL, SAMPLE), GD_EINVAL);
    ck_assert_int_eq(gd_sim_set_cta_log(NULL, "x"), GD_EINVAL);
    ck_assert_int_eq(gd_sim_set_meta_log(NULL, "x"), GD_EINVAL);
    ck_assert_int_eq(gd_sim_set_occupancy_csv(NULL, "x", 10), GD_EINVAL);
    ck_assert_int_eq(gd_sim_set_timeline(NULL, "x", 10), GD_EINVAL);
    ck_assert_int_eq(gd_sim_set_vcd(NULL, "x", 1), GD_EINVAL);
    ck_assert_int_eq(gd_sim_set_absolute_times(NULL, 1), GD_EINVAL);
    ck_assert_int_eq(gd_sim_set_kernel_table(NULL, 0), GD_EINVAL);
    ck_assert_int_eq(gd_sim_set_timeout(NULL, 1), GD_EINVAL);
    ck_assert_int_eq(gd_sim_interrupt(NULL), GD_EINVAL);
    ck_assert_int_eq(gd_sim_dump_trace(NULL, SAMPLE, "-"), GD_EINVAL);
    ck_assert_int_eq(gd_sim_check_topology(NULL, "x", "-"), GD_EINVAL);
    ck_assert_int_eq(gd_sim_condense_trace(&cr, NULL, SAMPLE, "x", 8, 1000, NULL), GD_EINVAL);
    ck_assert_int_eq(gd_sim_replay_file(NULL, SAMPLE), GD_EINVAL);
    ck_assert_int_eq(gd_sim_summary(NULL, &sum), GD_EINVAL);
    ck_assert_int_eq(gd_sim_stage_stats(&st, NULL, 0), GD_EINVAL);
    ck_assert_int_eq(gd_sim_write_kernels_csv(NULL, "-"), GD_EINVAL);
    ck_assert_int_eq(gd_sim_write_summary_json(NULL, "-"), GD_EINVAL);
    ck_assert_int_eq(gd_sim_write_summary_text(NULL, "-"), GD_EINVAL);
    ck_assert_str_eq(gd_sim_errmsg(NULL), "");

    gd_sim *sim;
    ck_assert_int_eq(gd_sim_new(&sim, NULL), GD_OK);
    ck_assert_int_eq(gd_sim_set(sim, NULL, "1"), GD_EINVAL);
    ck_assert_int_eq(gd_sim_set(sim, "gpu.gpcs", NULL), GD_EINVAL);
    ck_assert_int_eq(gd_sim_load_config(sim, NULL), GD_EINVAL);
    ck_assert_int_eq(gd_sim_get(NULL, sim, "gpu.gpcs"), GD_EINVAL);
    ck_assert_int_eq(gd_sim_get(&s, sim, NULL), GD_EINVAL);
    ck_assert_int_eq(gd_sim_resolve_config(sim, NULL), GD_EINVAL);
    ck_assert_int_eq(gd_sim_dump_trace(sim, NULL, "-"), GD_EINVAL);
    ck_assert_int_eq(gd_sim_check_topology(sim, NULL, "-"), GD_EINVAL);
    ck_assert_int_eq(gd_sim_condense_trace(NULL, sim, SAMPLE, "x", 8, 1000, NULL), GD_EINVAL);
    ck_assert_int_eq(gd_sim_replay_file(sim, NULL), GD_EINVAL);
    ck_assert_ptr_nonnull(strstr(gd_sim_errmsg(sim), "NULL"));
    ck_assert_int_eq(gd_sim_summary(sim, NULL), GD_EINVAL);
    ck_assert_int_eq(gd_sim_summary(sim, &sum), GD_ESTATE);
    ck_assert_int_eq(gd_sim_stage_stats(NULL, sim, 0), GD_EINVAL);
    ck_assert_int_eq(gd_sim_write_kernels_csv(sim, NULL), GD_EINVAL);
    ck_assert_int_eq(gd_sim_write_kernels_csv(sim, "-"), GD_ESTATE);
    ck_assert_int_eq(gd_sim_write_summary_json(sim, "-"), GD_ESTATE);
    ck_assert_int_eq(gd_sim_set_occupancy_csv(sim, "x", 0), GD_EINVAL);
    ck_assert_int_eq(gd_sim_set_vcd(sim, "x", 5000), GD_EINVAL);
    ck_assert_int_eq(gd_sim_replay_file(sim, SAMPLE), GD_OK); /* still usable */
    ck_assert_int_eq(gd_sim_stage_stats(&st, sim, GD_STAGES), GD_EINVAL);
    ck_assert_int_eq(gd_sim_stage_stats(&st, sim, -1), GD_EINVAL);
    ck_assert_ptr_null(gd_stage_name(-1));
    ck_assert_int_eq(gd_config_key(NULL, NULL, NULL, NULL, 100000), GD_EINVAL);
    ck_assert_int_eq(gd_config_key_accepted(NULL, 100000), GD_EINVAL);
    gd_sim_free(sim);
}
END_TEST

/* Calls from the progress callback, while the replay runs: everything that would change
 * what the replay works with is GD_ESTATE; reading and interrupting are allowed. */
static gd_sim *g_sim;
static int g_codes[32], g_ncodes;
static void during(void *ctx, const gd_progress *p)
{
    (void)ctx;
    (void)p;
    gd_sim *sim = g_sim;
    const char *v;
    gd_condense_result cr;
    if (g_ncodes)
        return; /* once */
    int *c = g_codes;
    c[g_ncodes++] = gd_sim_set(sim, "gpu.gpcs", "2");
    c[g_ncodes++] = gd_sim_load_config(sim, "tb/bad/config_unknown_key.cfg");
    c[g_ncodes++] = gd_sim_resolve_config(sim, SAMPLE);
    c[g_ncodes++] = gd_sim_set_cta_log(sim, "x.csv");
    c[g_ncodes++] = gd_sim_set_meta_log(sim, "x.csv");
    c[g_ncodes++] = gd_sim_set_occupancy_csv(sim, "x.csv", 10);
    c[g_ncodes++] = gd_sim_set_timeline(sim, "x.json", 10);
    c[g_ncodes++] = gd_sim_set_vcd(sim, "x.vcd", 1);
    c[g_ncodes++] = gd_sim_set_absolute_times(sim, 1);
    c[g_ncodes++] = gd_sim_set_kernel_table(sim, 0);
    c[g_ncodes++] = gd_sim_set_timeout(sim, 1);
    c[g_ncodes++] = gd_sim_replay_file(sim, SAMPLE);
    c[g_ncodes++] = gd_sim_dump_trace(sim, SAMPLE, "/dev/null");
    c[g_ncodes++] = gd_sim_condense_trace(&cr, sim, SAMPLE, "/dev/null", 8, 1000, NULL);
    c[g_ncodes++] = gd_sim_check_topology(sim, "traces/topologies/fig1.topo", "/dev/null");
    c[g_ncodes++] = gd_sim_write_kernels_csv(sim, "/dev/null");
    c[g_ncodes++] = gd_sim_write_summary_json(sim, "/dev/null");
    c[g_ncodes++] = gd_sim_get(&v, sim, "gpu.gpcs") == GD_OK ? GD_ESTATE : -100; /* reading is fine */
}

START_TEST(calls_during_a_replay)
{
    gd_options o;
    gd_options_init(&o, GD_OPTIONS_VERSION);
    o.progress = during;
    ck_assert_int_eq(gd_sim_new(&g_sim, &o), GD_OK);
    g_ncodes = 0;
    ck_assert_int_eq(gd_sim_replay_file(g_sim, SAMPLE), GD_OK);
    ck_assert_int_eq(g_ncodes, 18);
    for (int i = 0; i < g_ncodes; i++)
        ck_assert_msg(g_codes[i] == GD_ESTATE, "call %d from the progress callback gave %d", i, g_codes[i]);
    gd_summary got, want;
    ck_assert_int_eq(gd_sim_summary(g_sim, &got), GD_OK);
    gd_sim *fresh;
    ck_assert_int_eq(gd_sim_new(&fresh, NULL), GD_OK);
    ck_assert_int_eq(gd_sim_replay_file(fresh, SAMPLE), GD_OK);
    ck_assert_int_eq(gd_sim_summary(fresh, &want), GD_OK);
    ck_assert_mem_eq(&got, &want, sizeof got); /* the calls changed nothing */
    FILE *f = fopen("x.csv", "r");
    ck_assert_ptr_null(f);
    gd_sim_free(fresh);
    gd_sim_free(g_sim);
}
END_TEST

/* gd_sim_free from the progress callback stops the replay; the handle is freed when
 * gd_sim_replay_file returns (ASan/LSan: no use after free, no leak). */
static int g_frees;
static void free_during(void *ctx, const gd_progress *p)
{
    (void)ctx;
    (void)p;
    if (g_frees++ == 0)
        gd_sim_free(g_sim);
}

START_TEST(free_from_the_progress_callback)
{
    gd_options o;
    gd_options_init(&o, GD_OPTIONS_VERSION);
    o.progress = free_during;
    ck_assert_int_eq(gd_sim_new(&g_sim, &o), GD_OK);
    g_frees = 0;
    ck_assert_int_eq(gd_sim_replay_file(g_sim, SAMPLE), GD_EINTERRUPTED);
    ck_assert_int_eq(g_frees, 1); /* the replay stopped: no more progress calls */
}
END_TEST

START_TEST(after_a_failed_replay_and_huge_strings)
{
    gd_sim *sim;
    gd_summary sum;
    ck_assert_int_eq(gd_sim_new(&sim, NULL), GD_OK);
    ck_assert_int_eq(gd_sim_replay_file(sim, SAMPLE), GD_OK);
    ck_assert_int_eq(gd_sim_replay_file(sim, "tb/bad/dispatch_grid_0.gdt"), GD_EFORMAT);
    ck_assert_int_eq(gd_sim_summary(sim, &sum), GD_ESTATE); /* the failed replay left no results */
    ck_assert_int_eq(gd_sim_write_kernels_csv(sim, "/dev/null"), GD_ESTATE);
    ck_assert_int_eq(gd_sim_replay_file(sim, SAMPLE), GD_OK);
    ck_assert_int_eq(gd_sim_summary(sim, &sum), GD_OK);
    ck_assert_uint_eq(sum.kernels, 40);

    size_t n = 1 << 20;
    char *big = malloc(n + 1);
    ck_assert_ptr_nonnull(big);
    memset(big, 'a', n);
    big[n] = '\0';
    ck_assert_int_eq(gd_sim_set(sim, big, "1"), GD_ECONFIG);
    ck_assert_uint_lt(strlen(gd_sim_errmsg(sim)), 1024);
    ck_assert_int_eq(gd_sim_set(sim, "gpu.name", big), GD_ECONFIG);
    ck_assert_uint_lt(strlen(gd_sim_errmsg(sim)), 1024);
    ck_assert_int_eq(gd_sim_set(sim, "gpu.gpcs", big), GD_ECONFIG);
    ck_assert_int_eq(gd_sim_replay_file(sim, big), GD_EIO);
    ck_assert_uint_lt(strlen(gd_sim_errmsg(sim)), 1024);
    ck_assert_int_eq(gd_sim_load_config(sim, big), GD_EIO);
    ck_assert_int_eq(gd_sim_dump_trace(sim, big, "/dev/null"), GD_EIO);
    ck_assert_int_eq(gd_sim_set_cta_log(sim, big), GD_OK); /* kept; the replay then names it */
    ck_assert_int_eq(gd_sim_replay_file(sim, SAMPLE), GD_EIO);
    ck_assert_uint_lt(strlen(gd_sim_errmsg(sim)), 1024);
    ck_assert_int_eq(gd_sim_set_cta_log(sim, NULL), GD_OK);
    ck_assert_int_eq(gd_sim_replay_file(sim, SAMPLE), GD_OK);
    free(big);
    gd_sim_free(sim);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("api_misuse");
    TCase *tc = tcase_create("misuse");
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, null_handles_and_arguments);
    tcase_add_test(tc, calls_during_a_replay);
    tcase_add_test(tc, free_from_the_progress_callback);
    tcase_add_test(tc, after_a_failed_replay_and_huge_strings);
    suite_add_tcase(s, tc);
    SRunner *sr = srunner_create(s);
    srunner_set_fork_status(sr, CK_NOFORK);
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
