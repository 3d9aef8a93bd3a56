/* test_api.c - the public C API: options, handles, configuration keys and their
 * errors, error codes and texts, and several simulations created, run and freed in
 * sequence in one process (Check's fork mode is off for this binary: everything
 * runs in one process, as a sweep or a notebook would). */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "gdsim.h"
#include "tb_util.h"

static const char *sample(void)
{
    /* tests run from the repository root (scripts/run_tests.sh) */
    return "traces/sample.gdt.gz";
}

START_TEST(options_and_handles)
{
    gd_options o;
    ck_assert_int_eq(gd_options_init(&o, GD_OPTIONS_VERSION), GD_OK);
    ck_assert_uint_eq(o.version, GD_OPTIONS_VERSION);
    ck_assert_ptr_null(o.progress);
    ck_assert_int_eq(gd_options_init(&o, GD_OPTIONS_VERSION + 1), GD_EINVAL);
    ck_assert_int_eq(gd_options_init(NULL, GD_OPTIONS_VERSION), GD_EINVAL);
    gd_sim *sim = NULL;
    ck_assert_int_eq(gd_sim_new(NULL, NULL), GD_EINVAL);
    o.version = 99;
    ck_assert_int_eq(gd_sim_new(&sim, &o), GD_EINVAL);
    ck_assert_ptr_null(sim);
    ck_assert_int_eq(gd_sim_new(&sim, NULL), GD_OK);
    ck_assert_ptr_nonnull(sim);
    ck_assert_str_eq(gd_sim_errmsg(sim), "");
    gd_summary s;
    ck_assert_int_eq(gd_sim_summary(sim, &s), GD_ESTATE);
    ck_assert_ptr_nonnull(strstr(gd_sim_errmsg(sim), "no replay"));
    ck_assert_int_eq(gd_sim_write_kernels_csv(sim, "/tmp/x.csv"), GD_ESTATE);
    gd_sim_free(sim);
    gd_sim_free(NULL); /* no-op */
    ck_assert_str_eq(gd_sim_errmsg(NULL), "");
}
END_TEST

START_TEST(config_keys)
{
    gd_sim *sim;
    gd_sim_new(&sim, NULL);
    ck_assert_int_eq(gd_sim_set(sim, "gpu.gpcs", "4"), GD_OK);
    ck_assert_int_eq(gd_sim_set(sim, "gpu.gpc", "4"), GD_ECONFIG);
    const char *msg = gd_sim_errmsg(sim);
    ck_assert_ptr_nonnull(strstr(msg, "unknown configuration key 'gpu.gpc'"));
    ck_assert_ptr_nonnull(strstr(msg, "gpu.gpcs")); /* keys of that group are listed */
    ck_assert_int_eq(gd_sim_set(sim, "gpu.gpcs", "many"), GD_ECONFIG);
    msg = gd_sim_errmsg(sim);
    ck_assert_ptr_nonnull(strstr(msg, "'many'"));
    ck_assert_ptr_nonnull(strstr(msg, "gpu.gpcs"));
    ck_assert_ptr_nonnull(strstr(msg, "an integer from 1 to 1024"));
    ck_assert_int_eq(gd_sim_set(sim, "gpu.preset", "b200"), GD_ECONFIG);
    ck_assert_ptr_nonnull(strstr(gd_sim_errmsg(sim), "one of trace|v100|a100|h100|mi250|mi210|mi250x|mi300x|mi300a"));
    ck_assert_int_eq(gd_sim_set(sim, "gpu.sms_per_gpc", "16,16,x"), GD_ECONFIG);
    ck_assert_int_eq(gd_sim_set(sim, "gpu.cc", "8"), GD_ECONFIG);
    ck_assert_int_eq(gd_sim_set(sim, "frontend.clock_mhz", "0"), GD_ECONFIG);
    ck_assert_int_eq(gd_sim_set(sim, NULL, "1"), GD_EINVAL);
    /* values as they would be used */
    const char *v;
    ck_assert_int_eq(gd_sim_get(&v, sim, "gpu.gpcs"), GD_OK);
    ck_assert_str_eq(v, "4");
    ck_assert_int_eq(gd_sim_get(&v, sim, "cwd.max_resident_kernels"), GD_OK);
    ck_assert_str_eq(v, "128");
    ck_assert_int_eq(gd_sim_get(&v, sim, "frontend.clock_mhz"), GD_OK);
    ck_assert_ptr_nonnull(strstr(v, "from the trace"));
    ck_assert_int_eq(gd_sim_set(sim, "gpu.preset", "a100"), GD_OK);
    ck_assert_int_eq(gd_sim_get(&v, sim, "frontend.clock_mhz"), GD_OK);
    ck_assert_str_eq(v, "1410");
    ck_assert_int_eq(gd_sim_get(&v, sim, "no.such"), GD_ECONFIG);
    /* an inconsistent layout is found when the replay resolves the configuration */
    ck_assert_int_eq(gd_sim_set(sim, "gpu.sms_per_gpc", "16,16"), GD_OK);
    ck_assert_int_eq(gd_sim_replay_file(sim, sample()), GD_ECONFIG);
    ck_assert_ptr_nonnull(strstr(gd_sim_errmsg(sim), "gpu.sms_per_gpc lists 2 GPCs but gpu.gpcs is 4"));
    gd_sim_free(sim);
}
END_TEST

static const char *write_file(char path[256], const char *name, const char *text)
{
    snprintf(path, 256, "%s/%s", getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp", name);
    FILE *f = fopen(path, "w");
    ck_assert_ptr_nonnull(f);
    fputs(text, f);
    fclose(f);
    return path;
}

START_TEST(config_files)
{
    gd_sim *sim;
    gd_sim_new(&sim, NULL);
    const char *v;
    /* comments, blank lines, blanks and CR around keys and values */
    char ok_path[256];
    const char *ok = write_file(ok_path, "gdsim-api-ok.cfg", "# sweep point 3\n\n  gpu.gpcs\t=  4 # four\r\n"
                                                    "cwd.max_resident_kernels=32\n");
    ck_assert_int_eq(gd_sim_load_config(sim, ok), GD_OK);
    ck_assert_int_eq(gd_sim_get(&v, sim, "gpu.gpcs"), GD_OK);
    ck_assert_str_eq(v, "4");
    ck_assert_int_eq(gd_sim_get(&v, sim, "cwd.max_resident_kernels"), GD_OK);
    ck_assert_str_eq(v, "32");
    /* a bad line 3: nothing of the file applies, the message names file and line */
    char bad_path[256];
    const char *bad = write_file(bad_path, "gdsim-api-bad.cfg", "gpu.gpcs = 8\ncwd.max_resident_kernels = 64\n"
                                                      "gpu.sms_per_gpc = x\n");
    ck_assert_int_eq(gd_sim_load_config(sim, bad), GD_ECONFIG);
    ck_assert_ptr_nonnull(strstr(gd_sim_errmsg(sim), "gdsim-api-bad.cfg:3: bad value 'x' for configuration key "
                                                     "'gpu.sms_per_gpc'"));
    ck_assert_int_eq(gd_sim_get(&v, sim, "gpu.gpcs"), GD_OK);
    ck_assert_str_eq(v, "4");
    ck_assert_int_eq(gd_sim_get(&v, sim, "cwd.max_resident_kernels"), GD_OK);
    ck_assert_str_eq(v, "32");
    char noeq_path[256];
    const char *noeq = write_file(noeq_path, "gdsim-api-noeq.cfg", "gpu.gpcs 8\n");
    ck_assert_int_eq(gd_sim_load_config(sim, noeq), GD_ECONFIG);
    ck_assert_ptr_nonnull(strstr(gd_sim_errmsg(sim), "gdsim-api-noeq.cfg:1: expected KEY = VALUE"));
    char nokey_path[256];
    const char *nokey = write_file(nokey_path, "gdsim-api-nokey.cfg", "\n = 8\n");
    ck_assert_int_eq(gd_sim_load_config(sim, nokey), GD_ECONFIG);
    ck_assert_ptr_nonnull(strstr(gd_sim_errmsg(sim), "gdsim-api-nokey.cfg:2: expected KEY = VALUE"));
    ck_assert_int_eq(gd_sim_load_config(sim, "/nonexistent/x.cfg"), GD_EIO);
    ck_assert_ptr_nonnull(strstr(gd_sim_errmsg(sim), "/nonexistent/x.cfg: cannot open"));
    ck_assert_int_eq(gd_sim_load_config(sim, "/"), GD_EIO);
    ck_assert_ptr_nonnull(strstr(gd_sim_errmsg(sim), "/: cannot read"));
    ck_assert_int_eq(gd_sim_load_config(sim, "/dev/zero"), GD_ECONFIG);
    ck_assert_ptr_nonnull(strstr(gd_sim_errmsg(sim), "/dev/zero:1: a NUL byte"));
    ck_assert_int_eq(gd_sim_load_config(sim, NULL), GD_EINVAL);
    ck_assert_int_eq(gd_sim_load_config(NULL, ok), GD_EINVAL);
    remove(ok), remove(bad), remove(noeq), remove(nokey);
    gd_sim_free(sim);
}
END_TEST

START_TEST(key_enumeration)
{
    const char *name, *def, *doc, *src;
    size_t n = 0;
    int seen_preset = 0;
    while (gd_config_key(&name, &def, &doc, &src, n) == GD_OK) {
        ck_assert_ptr_nonnull(name);
        ck_assert_ptr_nonnull(doc);
        ck_assert_ptr_nonnull(src);
        ck_assert_int_gt((int)strlen(doc), 10);
        if (strcmp(name, "gpu.preset") == 0) {
            seen_preset = 1;
            ck_assert_str_eq(def, "trace");
        }
        for (size_t j = 0; j < n; j++) {
            const char *other;
            gd_config_key(&other, NULL, NULL, NULL, j);
            ck_assert_str_ne(other, name);
        }
        n++;
    }
    ck_assert(seen_preset);
    ck_assert_uint_ge(n, 20);
    ck_assert_int_eq(gd_config_key(NULL, NULL, NULL, NULL, n), GD_EINVAL);
}
END_TEST

START_TEST(codes_and_version)
{
    int codes[] = {GD_OK,     GD_EINVAL, GD_ENOMEM,    GD_EIO,          GD_EFORMAT, GD_ECONFIG,
                   GD_ESTATE, GD_EMODEL, GD_EINTERNAL, GD_EINTERRUPTED, GD_ELIMIT};
    for (size_t i = 0; i < sizeof codes / sizeof codes[0]; i++) {
        ck_assert_str_ne(gd_strerror(codes[i]), "unknown error code");
        for (size_t j = 0; j < i; j++)
            ck_assert_str_ne(gd_strerror(codes[i]), gd_strerror(codes[j]));
    }
    ck_assert_str_eq(gd_strerror(-1000), "unknown error code");
    ck_assert_str_eq(gd_version(), GD_VERSION_STRING);
}
END_TEST

static void summary_of(gd_sim *sim, gd_summary *s) { ck_assert_int_eq(gd_sim_summary(sim, s), GD_OK); }

/* Several simulations one after another in one process give identical results. */
START_TEST(many_simulations_in_one_process)
{
    gd_summary first;
    char *csv0 = NULL;
    for (int i = 0; i < 3; i++) {
        gd_sim *sim;
        ck_assert_int_eq(gd_sim_new(&sim, NULL), GD_OK);
        ck_assert_msg(gd_sim_replay_file(sim, sample()) == GD_OK, "%s", gd_sim_errmsg(sim));
        gd_summary s;
        summary_of(sim, &s);
        char *path = tb_tmp_path(".csv");
        ck_assert_int_eq(gd_sim_write_kernels_csv(sim, path), GD_OK);
        char *csv = tb_slurp(path, NULL);
        remove(path);
        free(path);
        if (i == 0) {
            first = s;
            csv0 = csv;
            ck_assert_uint_eq(s.kernels, 40);
            ck_assert_uint_eq(s.ctas, 40000);
        } else {
            ck_assert_mem_eq(&s, &first, sizeof s);
            ck_assert_str_eq(csv, csv0);
            free(csv);
        }
        gd_sim_free(sim);
    }
    /* A replay that keeps no kernel table gives the same results and says so when asked
     * for it; the next replay that keeps one writes the same table again. */
    {
        gd_sim *sim;
        ck_assert_int_eq(gd_sim_new(&sim, NULL), GD_OK);
        ck_assert_int_eq(gd_sim_set_kernel_table(sim, 0), GD_OK);
        ck_assert_msg(gd_sim_replay_file(sim, sample()) == GD_OK, "%s", gd_sim_errmsg(sim));
        gd_summary s;
        summary_of(sim, &s);
        ck_assert_mem_eq(&s, &first, sizeof s);
        char *path = tb_tmp_path(".csv");
        ck_assert_int_eq(gd_sim_write_kernels_csv(sim, path), GD_ESTATE);
        ck_assert_ptr_nonnull(strstr(gd_sim_errmsg(sim), "kept no kernel table"));
        ck_assert_int_eq(access(path, F_OK), -1);
        ck_assert_int_eq(gd_sim_set_kernel_table(sim, 1), GD_OK);
        ck_assert_int_eq(gd_sim_replay_file(sim, sample()), GD_OK);
        ck_assert_int_eq(gd_sim_write_kernels_csv(sim, path), GD_OK);
        char *csv = tb_slurp(path, NULL);
        ck_assert_str_eq(csv, csv0);
        free(csv);
        remove(path);
        free(path);
        gd_sim_free(sim);
    }
    /* One handle, several replays; an error in between leaves it usable. */
    gd_sim *sim;
    gd_sim_new(&sim, NULL);
    ck_assert_int_eq(gd_sim_replay_file(sim, sample()), GD_OK);
    ck_assert_int_eq(gd_sim_replay_file(sim, "/nonexistent.gdt.gz"), GD_EIO);
    ck_assert_ptr_nonnull(strstr(gd_sim_errmsg(sim), "/nonexistent.gdt.gz: cannot open"));
    gd_summary s;
    ck_assert_int_eq(gd_sim_summary(sim, &s), GD_ESTATE); /* the failed replay left no results */
    ck_assert_int_eq(gd_sim_replay_file(sim, sample()), GD_OK);
    summary_of(sim, &s);
    ck_assert_mem_eq(&s, &first, sizeof s);
    /* Two handles alternate. */
    gd_sim *other;
    gd_sim_new(&other, NULL);
    ck_assert_int_eq(gd_sim_set(other, "gpu.preset", "a100"), GD_OK);
    ck_assert_int_eq(gd_sim_replay_file(other, sample()), GD_OK);
    gd_summary sa;
    summary_of(other, &sa);
    ck_assert_uint_ne(sa.sim_time_ns, first.sim_time_ns); /* another device, other times */
    summary_of(sim, &s);
    ck_assert_mem_eq(&s, &first, sizeof s);
    gd_sim_free(other);
    gd_sim_free(sim);
    free(csv0);
}
END_TEST

static int progress_calls;
static gd_progress last_progress;
static gd_sim *g_writer;        /* the handle whose table is written */
static int g_write_action;      /* in the write's reports: 1 replay on the handle, 2 free it */
static int g_write_replay_rc;
static void on_progress(void *ctx, const gd_progress *p)
{
    ck_assert_ptr_eq(ctx, &progress_calls);
    progress_calls++;
    last_progress = *p;
    if (p->rows_total && g_write_action == 1)
        g_write_replay_rc = gd_sim_replay_file(g_writer, sample());
    else if (p->rows_total && g_write_action == 2)
        gd_sim_free(g_writer);
}

START_TEST(progress_callback)
{
    gd_options o;
    gd_options_init(&o, GD_OPTIONS_VERSION);
    o.progress = on_progress;
    o.progress_ctx = &progress_calls;
    gd_sim *sim;
    ck_assert_int_eq(gd_sim_new(&sim, &o), GD_OK);
    progress_calls = 0;
    ck_assert_int_eq(gd_sim_replay_file(sim, sample()), GD_OK);
    ck_assert_int_ge(progress_calls, 1); /* at least the final report */
    ck_assert_uint_eq(last_progress.rows_total, 0); /* a replay's reports are not a write's */
    /* writing the kernel table reports too (issue 42: a table of millions of rows takes
     * seconds): at least once, at its end */
    char *csv = tb_tmp_path(".csv");
    progress_calls = 0;
    g_writer = sim;
    ck_assert_int_eq(gd_sim_write_kernels_csv(sim, csv), GD_OK);
    ck_assert_int_ge(progress_calls, 1);
    ck_assert_uint_eq(last_progress.rows_total, 40);
    ck_assert_uint_eq(last_progress.rows_written, 40);
    ck_assert_uint_eq(last_progress.kernels_done, 40);
    /* from the write's callback a replay on the handle is refused, and the write goes on */
    g_write_action = 1;
    ck_assert_int_eq(gd_sim_write_kernels_csv(sim, csv), GD_OK);
    ck_assert_int_eq(g_write_replay_rc, GD_ESTATE);
    /* gd_sim_free from it stops the write and frees the handle */
    g_write_action = 2;
    remove(csv);
    ck_assert_int_eq(gd_sim_write_kernels_csv(sim, csv), GD_EINTERRUPTED);
    g_write_action = 0;
    FILE *f = fopen(csv, "r");
    if (f)
        fclose(f);
    ck_assert_msg(f == NULL, "the stopped write left its file");
    free(csv);
}
END_TEST

/* Stopping a replay: the timeout, gd_sim_interrupt (here from the progress callback),
 * sim.max_sim_time_s; each returns its code, says how far it got, and leaves the handle
 * usable: a replay after it gives what a fresh handle gives. */
START_TEST(stopping)
{
    const char *big = "tb/bad/run_past_timeout.gdt"; /* one grid of 2^28 CTAs: seconds to run */
    gd_options o;
    gd_options_init(&o, GD_OPTIONS_VERSION);
    gd_sim *sim, *fresh;
    ck_assert_int_eq(gd_sim_new(&fresh, NULL), GD_OK);
    ck_assert_int_eq(gd_sim_replay_file(fresh, sample()), GD_OK);
    gd_summary want, got;
    summary_of(fresh, &want);
    gd_sim_free(fresh);

    ck_assert_int_eq(gd_sim_new(&sim, &o), GD_OK);
    ck_assert_int_eq(gd_sim_set_timeout(NULL, 1), GD_EINVAL);
    ck_assert_int_eq(gd_sim_set_timeout(sim, -1), GD_EINVAL);
    ck_assert_int_eq(gd_sim_set_timeout(sim, 0.0 / 0.0), GD_EINVAL);
    ck_assert_ptr_nonnull(strstr(gd_sim_errmsg(sim), "is not a timeout"));
    ck_assert_int_eq(gd_sim_set_timeout(sim, 1e-300), GD_EINVAL);  /* tiny: no replay could start */
    ck_assert_int_eq(gd_sim_set_timeout(sim, 0.0009), GD_EINVAL);
    ck_assert_int_eq(gd_sim_set_timeout(sim, 0.001), GD_OK);
    ck_assert_int_eq(gd_sim_interrupt(NULL), GD_EINVAL);
    ck_assert_int_eq(gd_sim_set_timeout(sim, 0.05), GD_OK);
    ck_assert_int_eq(gd_sim_replay_file(sim, big), GD_ELIMIT);
    ck_assert_ptr_nonnull(strstr(gd_sim_errmsg(sim), "ran past its timeout of 0.05 s"));
    const char *at = strstr(gd_sim_errmsg(sim), "kernels done, ");
    ck_assert_ptr_nonnull(at);
    unsigned long long launched = strtoull(at + strlen("kernels done, "), NULL, 10);
    ck_assert_uint_lt(launched, 1ull << 28); /* stopped inside the grid, not at its end */
    ck_assert_int_eq(gd_sim_summary(sim, &got), GD_ESTATE); /* no results from a stopped replay */
    ck_assert_int_eq(gd_sim_set_timeout(sim, 0), GD_OK);
    ck_assert_int_eq(gd_sim_replay_file(sim, sample()), GD_OK);
    summary_of(sim, &got);
    ck_assert_mem_eq(&got, &want, sizeof got);
    ck_assert_int_eq(gd_sim_set(sim, "sim.max_sim_time_s", "1"), GD_OK);
    ck_assert_int_eq(gd_sim_replay_file(sim, "tb/bad/run_past_max_sim_time.gdt"), GD_ELIMIT);
    ck_assert_ptr_nonnull(strstr(gd_sim_errmsg(sim), "the simulated time reached 1.200003 s, past sim.max_sim_time_s"));
    gd_sim_free(sim);

    gd_sim *self = NULL;
    ck_assert_int_eq(gd_sim_new(&self, NULL), GD_OK);
    ck_assert_int_eq(gd_sim_interrupt(self), GD_OK); /* while no replay runs: forgotten */
    ck_assert_int_eq(gd_sim_replay_file(self, sample()), GD_OK);
    gd_sim_free(self);
}
END_TEST

static gd_sim *g_self;
static void interrupt_self(void *ctx, const gd_progress *p)
{
    (void)ctx;
    (void)p;
    gd_sim_interrupt(g_self);
}

START_TEST(interrupt_from_callback)
{
    gd_options o;
    gd_options_init(&o, GD_OPTIONS_VERSION);
    o.progress = interrupt_self;
    ck_assert_int_eq(gd_sim_new(&g_self, &o), GD_OK);
    ck_assert_int_eq(gd_sim_replay_file(g_self, "tb/bad/run_past_timeout.gdt"), GD_EINTERRUPTED);
    ck_assert_ptr_nonnull(strstr(gd_sim_errmsg(g_self), "the replay was interrupted after"));
    gd_sim_free(g_self);
}
END_TEST

/* gd_sim_get after a replay or gd_sim_resolve_config: the values resolved against
 * the trace's device, until a setting changes; gd_sim_set_absolute_times;
 * gd_config_key_accepted. */
START_TEST(resolved_values)
{
    gd_sim *sim;
    const char *v;
    ck_assert_int_eq(gd_sim_new(&sim, NULL), GD_OK);
    ck_assert_int_eq(gd_sim_get(&v, sim, "gpu.gpcs"), GD_OK);
    ck_assert_str_eq(v, "(from the trace's device, gpu.preset=trace)");
    ck_assert_int_eq(gd_sim_resolve_config(sim, sample()), GD_OK);
    ck_assert_int_eq(gd_sim_get(&v, sim, "gpu.gpcs"), GD_OK);
    ck_assert_str_eq(v, "8");
    ck_assert_int_eq(gd_sim_get(&v, sim, "gpu.preset"), GD_OK);
    ck_assert_str_eq(v, "trace/h100");
    ck_assert_int_eq(gd_sim_get(&v, sim, "no.such"), GD_ECONFIG);
    ck_assert_int_eq(gd_sim_set(sim, "gpu.gpcs", "4"), GD_OK);  /* not resolved any more */
    ck_assert_int_eq(gd_sim_get(&v, sim, "gpu.sms_per_gpc"), GD_OK);
    ck_assert_str_eq(v, "(from the trace's device, gpu.preset=trace)");
    ck_assert_int_eq(gd_sim_set(sim, "gpu.sms_per_gpc", "10"), GD_OK);
    ck_assert_int_eq(gd_sim_replay_file(sim, sample()), GD_OK);
    ck_assert_int_eq(gd_sim_get(&v, sim, "gpu.sms_per_gpc"), GD_OK);
    ck_assert_str_eq(v, "10,10,10,10");
    ck_assert_int_eq(gd_sim_resolve_config(sim, "/nonexistent.gdt.gz"), GD_EIO);
    ck_assert_ptr_nonnull(strstr(gd_sim_errmsg(sim), "/nonexistent.gdt.gz"));
    ck_assert_int_eq(gd_sim_get(&v, sim, "gpu.gpcs"), GD_OK);  /* the failed resolution left nothing */
    ck_assert_str_eq(v, "4");
    ck_assert_int_eq(gd_sim_resolve_config(sim, NULL), GD_EINVAL);
    ck_assert_int_eq(gd_sim_resolve_config(NULL, sample()), GD_EINVAL);
    ck_assert_int_eq(gd_sim_set_absolute_times(NULL, 1), GD_EINVAL);
    ck_assert_int_eq(gd_sim_set_absolute_times(sim, 1), GD_OK);
    gd_sim_free(sim);
    const char *acc = NULL;
    ck_assert_int_eq(gd_config_key_accepted(&acc, 0), GD_OK);
    ck_assert_str_eq(acc, "one of trace|v100|a100|h100|mi250|mi210|mi250x|mi300x|mi300a");
    ck_assert_int_eq(gd_config_key_accepted(NULL, 0), GD_EINVAL);
    size_t n = 0;
    while (gd_config_key(NULL, NULL, NULL, NULL, n) == GD_OK)
        n++;
    ck_assert_int_eq(gd_config_key_accepted(&acc, n), GD_EINVAL);
}
END_TEST

START_TEST(writers)
{
    gd_sim *sim;
    gd_sim_new(&sim, NULL);
    ck_assert_int_eq(gd_sim_replay_file(sim, sample()), GD_OK);
    char *t = tb_tmp_path(".txt"), *j = tb_tmp_path(".json");
    ck_assert_int_eq(gd_sim_write_summary_text(sim, t), GD_OK);
    ck_assert_int_eq(gd_sim_write_summary_json(sim, j), GD_OK);
    char *text = tb_slurp(t, NULL), *json = tb_slurp(j, NULL);
    ck_assert_ptr_nonnull(strstr(text, "mean SM occupancy"));
    ck_assert_ptr_nonnull(strstr(text, "mean launch latency"));
    ck_assert_ptr_nonnull(strstr(json, "\"mean_sm_occupancy_pct\""));
    ck_assert_ptr_nonnull(strstr(json, "\"gpu.preset\": \"trace/h100\""));
    ck_assert_ptr_nonnull(strstr(json, "\"block\": \"gpc2sm_7\""));
    /* the stages: every one, with the sample's 40 kernels; the drain is each CTA's 10 us */
    ck_assert_ptr_nonnull(strstr(text, "    last CTA launched -> done                  10.000     10.000     10.000"));
    ck_assert_ptr_nonnull(strstr(json, "{\"stage\": \"fetch\", \"span\": \"submit -> fetched\", \"kernels\": 40,"));
    ck_assert_ptr_nonnull(strstr(json, "{\"stage\": \"drain\", \"span\": \"last CTA launched -> done\", "
                                       "\"kernels\": 40, \"mean_ns\": 10000.000, \"p50_ns\": 10000.000, "
                                       "\"p99_ns\": 10000.000, \"max_ns\": 10000.000}"));
    ck_assert_ptr_nonnull(strstr(json, "{\"stage\": \"launch_latency\""));
    ck_assert_int_eq(gd_sim_write_kernels_csv(sim, "/nonexistent/dir/k.csv"), GD_EIO);
    ck_assert_ptr_nonnull(strstr(gd_sim_errmsg(sim), "/nonexistent/dir/k.csv"));
    /* the CTA log: one row per CTA after the header; an uncreatable one fails the replay */
    ck_assert_int_eq(gd_sim_set_cta_log(NULL, "x"), GD_EINVAL);
    char *log = tb_tmp_path(".csv");
    ck_assert_int_eq(gd_sim_set_cta_log(sim, log), GD_OK);
    ck_assert_int_eq(gd_sim_replay_file(sim, sample()), GD_OK);
    char *rows = tb_slurp(log, NULL);
    ck_assert_ptr_eq(strstr(rows, "kernel_index,cta_id,x,y,z,cga_id,cga_cta_id,gpc,sm,launch_ns,end_ns\n"), rows);
    int lines = 0;
    for (const char *p = rows; *p; p++)
        lines += *p == '\n';
    ck_assert_int_eq(lines, 40001);
    free(rows);
    remove(log);
    free(log);
    ck_assert_int_eq(gd_sim_set_cta_log(sim, "/nonexistent/dir/ctas.csv"), GD_OK);
    ck_assert_int_eq(gd_sim_replay_file(sim, sample()), GD_EIO);
    ck_assert_ptr_nonnull(strstr(gd_sim_errmsg(sim), "/nonexistent/dir/ctas.csv: cannot create the CTA log"));
    ck_assert_int_eq(gd_sim_set_cta_log(sim, NULL), GD_OK);
    ck_assert_int_eq(gd_sim_replay_file(sim, sample()), GD_OK);
    remove(t);
    remove(j);
    free(t);
    free(j);
    free(text);
    free(json);
    gd_sim_free(sim);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("api");
    TCase *tc = tcase_create("lifecycle");
    tcase_add_test(tc, options_and_handles);
    tcase_add_test(tc, config_keys);
    tcase_add_test(tc, config_files);
    tcase_add_test(tc, key_enumeration);
    tcase_add_test(tc, codes_and_version);
    tcase_add_test(tc, many_simulations_in_one_process);
    tcase_add_test(tc, progress_callback);
    tcase_add_test(tc, stopping);
    tcase_add_test(tc, interrupt_from_callback);
    tcase_add_test(tc, resolved_values);
    tcase_add_test(tc, writers);
    tcase_set_timeout(tc, 120);
    suite_add_tcase(s, tc);
    SRunner *sr = srunner_create(s);
    srunner_set_fork_status(sr, CK_NOFORK); /* several simulations in one process */
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
