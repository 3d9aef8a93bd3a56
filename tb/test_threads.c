/* test_threads.c - replays on separate handles from several threads at once (issue 42,
 * item 3): each replay either completes with the same results as a replay alone or, from
 * inside another replay's progress callback, is refused with GD_ESTATE; none fails for
 * want of the lock. include/gdsim.h, "Threading and lifetime". */
#include <check.h>
#include <pthread.h>
#include <stdatomic.h>
#include <sys/wait.h>

#include "gdsim.h"
#include "tb_util.h"

#define SAMPLE "traces/sample.gdt.gz"
#define THREADS 4

static gd_summary g_alone;  /* the sample replayed once on this thread, before the threads start */
static int g_runs;          /* replays per thread */
static atomic_int g_failures;
static char g_first_error[512];
static atomic_flag g_error_taken = ATOMIC_FLAG_INIT;

static void replay_alone(gd_summary *out)
{
    gd_sim *sim = NULL;
    ck_assert_int_eq(gd_sim_new(&sim, NULL), GD_OK);
    ck_assert_msg(gd_sim_replay_file(sim, SAMPLE) == GD_OK, "%s", gd_sim_errmsg(sim));
    ck_assert_int_eq(gd_sim_summary(sim, out), GD_OK);
    gd_sim_free(sim);
}

static void note_failure(const char *what)
{
    atomic_fetch_add(&g_failures, 1);
    if (!atomic_flag_test_and_set(&g_error_taken))
        snprintf(g_first_error, sizeof g_first_error, "%s", what);
}

/* One thread: g_runs replays, each on a handle of its own (every other one a new
 * handle, the others reusing one), every result compared with the lone replay's. */
static void *worker(void *arg)
{
    (void)arg;
    gd_sim *kept = NULL;
    if (gd_sim_new(&kept, NULL) != GD_OK) {
        note_failure("gd_sim_new failed");
        return NULL;
    }
    for (int i = 0; i < g_runs; i++) {
        gd_sim *fresh = NULL, *sim = kept;
        if (i % 2) {
            if (gd_sim_new(&fresh, NULL) != GD_OK) {
                note_failure("gd_sim_new failed");
                continue;
            }
            sim = fresh;
        }
        gd_summary s;
        if (gd_sim_replay_file(sim, SAMPLE) != GD_OK)
            note_failure(gd_sim_errmsg(sim));
        else if (gd_sim_summary(sim, &s) != GD_OK || s.sim_time_ns != g_alone.sim_time_ns ||
                 s.kernels != g_alone.kernels || s.ctas != g_alone.ctas ||
                 s.mean_launch_latency_ns != g_alone.mean_launch_latency_ns)
            note_failure("a concurrent replay's summary differs from the replay alone");
        gd_sim_free(fresh);
    }
    gd_sim_free(kept);
    return NULL;
}

static void run_threads(int runs)
{
    pthread_t th[THREADS];
    g_runs = runs;
    atomic_store(&g_failures, 0);
    replay_alone(&g_alone);
    for (int i = 0; i < THREADS; i++)
        ck_assert_int_eq(pthread_create(&th[i], NULL, worker, NULL), 0);
    for (int i = 0; i < THREADS; i++)
        pthread_join(th[i], NULL);
    ck_assert_msg(atomic_load(&g_failures) == 0, "%d of %d concurrent replays failed; the first: %s",
                  atomic_load(&g_failures), THREADS * runs, g_first_error);
}

/* 1,000 replays over 4 threads (GDSIM_THREAD_RUNS changes the count). */
START_TEST(concurrent_handles)
{
    const char *env = getenv("GDSIM_THREAD_RUNS");
    int total = env ? atoi(env) : 1000;
    run_threads(total > THREADS ? total / THREADS : 1);
}
END_TEST

/* A replay asked for from a replay's progress callback (another handle, the same
 * thread) cannot wait for the lock its own thread holds: GD_ESTATE, at once. */
static gd_sim *g_inner;
static int g_inner_rc = -1;
static char g_inner_msg[512];

static void progress_replays(void *ctx, const gd_progress *p)
{
    (void)ctx, (void)p;
    if (g_inner_rc == -1) {  /* the replay's final report comes whatever its length */
        g_inner_rc = gd_sim_replay_file(g_inner, SAMPLE);
        snprintf(g_inner_msg, sizeof g_inner_msg, "%s", gd_sim_errmsg(g_inner));
    }
}

START_TEST(replay_from_a_callback)
{
    gd_options o;
    ck_assert_int_eq(gd_options_init(&o, GD_OPTIONS_VERSION), GD_OK);
    o.progress = progress_replays;
    gd_sim *outer = NULL;
    ck_assert_int_eq(gd_sim_new(&outer, &o), GD_OK);
    ck_assert_int_eq(gd_sim_new(&g_inner, NULL), GD_OK);
    ck_assert_msg(gd_sim_replay_file(outer, SAMPLE) == GD_OK, "%s", gd_sim_errmsg(outer));
    ck_assert_int_eq(g_inner_rc, GD_ESTATE);
    ck_assert_msg(strstr(g_inner_msg, "from inside another replay") != NULL, "%s", g_inner_msg);
    /* the handle is usable afterwards */
    ck_assert_int_eq(gd_sim_replay_file(g_inner, SAMPLE), GD_OK);
    gd_sim_free(g_inner);
    gd_sim_free(outer);
}
END_TEST

/* A child forked while another thread of its parent replays (holding the lock) can
 * replay: the lock is taken before fork and released in both processes. */
static void *replay_loop(void *arg)
{
    gd_sim *sim = arg;
    for (int i = 0; i < 40; i++)
        if (gd_sim_replay_file(sim, SAMPLE) != GD_OK)
            note_failure(gd_sim_errmsg(sim));
    return NULL;
}

START_TEST(fork_while_replaying)
{
    atomic_store(&g_failures, 0);
    replay_alone(&g_alone);
    gd_sim *busy = NULL;
    ck_assert_int_eq(gd_sim_new(&busy, NULL), GD_OK);
    pthread_t th;
    ck_assert_int_eq(pthread_create(&th, NULL, replay_loop, busy), 0);
    for (int i = 0; i < 8; i++) {
        usleep(2000);
        pid_t pid = fork();
        ck_assert_int_ne(pid, -1);
        if (pid == 0) {
            gd_sim *sim = NULL;
            gd_summary s;
            int ok = gd_sim_new(&sim, NULL) == GD_OK && gd_sim_replay_file(sim, SAMPLE) == GD_OK &&
                     gd_sim_summary(sim, &s) == GD_OK && s.sim_time_ns == g_alone.sim_time_ns;
            _exit(ok ? 0 : 1);
        }
        int st = 0;
        ck_assert_int_eq(waitpid(pid, &st, 0), pid);
        ck_assert_msg(WIFEXITED(st) && WEXITSTATUS(st) == 0, "the forked child's replay failed (status %d)", st);
    }
    pthread_join(th, NULL);
    gd_sim_free(busy);
    ck_assert_msg(atomic_load(&g_failures) == 0, "the parent's replays failed: %s", g_first_error);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("threads");
    TCase *tc = tcase_create("threads");
    tcase_set_timeout(tc, 600);
    tcase_add_test(tc, concurrent_handles);
    tcase_add_test(tc, replay_from_a_callback);
    tcase_add_test(tc, fork_while_replaying);
    suite_add_tcase(s, tc);
    return tb_run_suite(s);
}
