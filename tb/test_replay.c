/* test_replay.c - end-to-end replays of tiny traces with hand-checked times, and
 * determinism. Front-end clock 1000 MHz (1 cycle = 1 ns), fetch 100, decode 10,
 * completion 50, grid launch 200 cycles, one CTA launch per cycle; one GPC of two
 * SMs with H100 limits. Trace times start at 1000 ns (the first submit), so a CSV
 * time is 1000 + the simulated time. */
#include <check.h>
#include <stdlib.h>
#include <string.h>

#include "gdsim.h"
#include "trace.h"
#include "condensed.h"
#include "tb_util.h"

static gd_trace_device h100_dev(void) { return tb_h100_device("test"); }

static void add_kernel(gd_trace_writer *w, uint32_t id, const char *name, uint32_t threads, uint32_t regs,
                       uint64_t cta_ns)
{
    gd_kernel_desc k;
    memset(&k, 0, sizeof k);
    k.id = id;
    k.name = (char *)name;
    k.threads_per_cta = threads;
    k.regs_per_thread = regs;
    k.exec_model = GD_EXEC_FIXED_CTA;
    k.cta_duration_ps = cta_ns * 1000;
    ck_assert_int_eq(gd_trace_write_kernel(w, &k, NULL), GD_OK);
}

/* A one-dimensional dispatch of `ctas` CTAs, carrying completion signal `signal` (0:
 * none) and launch info `info` (NULL: none). */
static void add_with_info(gd_trace_writer *w, uint32_t queue, uint64_t submit_ns, uint32_t kid, uint16_t block,
                          uint32_t ctas, int barrier, uint64_t signal, const gd_launch_info *info)
{
    gd_aql_dispatch p;
    memset(&p, 0, sizeof p);
    p.header = GD_AQL_TYPE_KERNEL_DISPATCH | (barrier ? GD_AQL_HEADER_BARRIER : 0);
    p.setup = 1;
    p.workgroup_size[0] = block;
    p.workgroup_size[1] = p.workgroup_size[2] = 1;
    p.grid_size[0] = ctas * block;
    p.grid_size[1] = p.grid_size[2] = 1;
    p.kernel_object = kid;
    p.completion_signal = signal;
    ck_assert_int_eq(gd_trace_write_dispatch(w, queue, submit_ns, &p, info, NULL), GD_OK);
}

static void add_signalled(gd_trace_writer *w, uint32_t queue, uint64_t submit_ns, uint32_t kid, uint16_t block,
                          uint32_t ctas, int barrier, uint64_t signal)
{
    add_with_info(w, queue, submit_ns, kid, block, ctas, barrier, signal, NULL);
}

static void add_dispatch(gd_trace_writer *w, uint32_t queue, uint64_t submit_ns, uint32_t kid, uint16_t block,
                         uint32_t ctas, int barrier)
{
    add_signalled(w, queue, submit_ns, kid, block, ctas, barrier, 0);
}

static gd_trace_writer *new_trace(char **path)
{
    *path = tb_tmp_path(".gdt.gz");
    gd_trace_device d = h100_dev();
    gd_trace_writer *w;
    ck_assert_int_eq(gd_trace_create(&w, *path, &d, "test_replay", 6, NULL), GD_OK);
    add_kernel(w, 1, "big", 1024, 32, 1000);  /* 2 CTAs per SM (warps) */
    add_kernel(w, 2, "small", 32, 16, 500);   /* 32 per SM (CTA slots) */
    return w;
}

/* Launch gaps no longer than the fixed latencies (pp.gap_*_ns = 0): a queued packet
 * goes as soon as its barrier bit lets it, as the hand-checked timelines assume. */
static void no_gaps(gd_sim *sim)
{
    static const char *const gaps[] = {"pp.gap_kernel_kernel_ns", "pp.gap_kernel_copy_ns", "pp.gap_copy_kernel_ns", "pp.gap_copy_copy_ns", "pp.gap_graph_kernel_kernel_ns", "pp.gap_graph_kernel_copy_ns", "pp.gap_graph_copy_kernel_ns", "pp.gap_graph_copy_copy_ns", "pp.gap_after_wait_ns"};
    for (size_t i = 0; i < sizeof gaps / sizeof gaps[0]; i++)
        ck_assert_int_eq(gd_sim_set(sim, gaps[i], "0"), GD_OK);
}

static gd_sim *small_gpu_with(int zero_gaps)
{
    gd_sim *sim;
    ck_assert_int_eq(gd_sim_new(&sim, NULL), GD_OK);
    /* the hand-checked times below are in the trace's clock (the first submit at 1000 ns) */
    ck_assert_int_eq(gd_sim_set_absolute_times(sim, 1), GD_OK);
    /* the timelines below are the prior-art distributor's (one CTA per cycle);
     * cga_gpu() switches to seed 003's */
    const char *kv[][2] = {{"gpu.preset", "h100"},        {"gpu.gpcs", "1"},       {"cwd.policy", "baseline"},
                           {"gpu.sms_per_gpc", "2"},      {"frontend.clock_mhz", "1000"},
                           {"pp.fetch_cycles", "100"},    {"pp.decode_cycles", "10"},
                           {"pp.completion_cycles", "50"}, {"cwd.grid_launch_cycles", "200"},
                           {"cwd.cta_launch_cycles", "1"}};
    for (size_t i = 0; i < sizeof kv / sizeof kv[0]; i++)
        ck_assert_msg(gd_sim_set(sim, kv[i][0], kv[i][1]) == GD_OK, "%s", gd_sim_errmsg(sim));
    if (zero_gaps)
        no_gaps(sim);
    return sim;
}

static gd_sim *small_gpu(void) { return small_gpu_with(1); }

/* What write gives for a replay done, as text (caller frees). */
static char *written(gd_sim *sim, int (*write)(gd_sim *, const char *), const char *ext)
{
    char *path = tb_tmp_path(ext);
    ck_assert_int_eq(write(sim, path), GD_OK);
    char *text = tb_slurp(path, NULL);
    remove(path);
    free(path);
    return text;
}

/* Replay and return the CSV text (caller frees). */
static char *replay_csv(gd_sim *sim, const char *trace)
{
    ck_assert_msg(gd_sim_replay_file(sim, trace) == GD_OK, "%s", gd_sim_errmsg(sim));
    return written(sim, gd_sim_write_kernels_csv, ".csv");
}

/* The summary JSON of a replay done (caller frees). */
static char *summary_json(gd_sim *sim) { return written(sim, gd_sim_write_summary_json, ".json"); }

/* Row `index` of the CSV (0 = first data row), without the newline. */
static char *row_full(const char *csv, int index)
{
    const char *p = strchr(csv, '\n') + 1;
    for (int i = 0; i < index; i++)
        p = strchr(p, '\n') + 1;
    const char *e = strchr(p, '\n');
    char *r = malloc((size_t)(e - p) + 1);
    memcpy(r, p, (size_t)(e - p));
    r[e - p] = '\0';
    return r;
}

/* The same without the command scheduler's six last columns (vid, cmd_flags, status,
 * pq, wq, engine), which the timeline tests do not concern. */
static char *row(const char *csv, int index)
{
    char *r = row_full(csv, index);
    for (int i = 0; i < 6; i++)
        *strrchr(r, ',') = '\0';
    return r;
}

#define ROW_IS(csv, i, expected)              \
    do {                                      \
        char *r_ = row((csv), (i));           \
        ck_assert_str_eq(r_, (expected));     \
        free(r_);                             \
    } while (0)

/* Three kernels, two queues: D0 q0 submit 0: 5 big CTAs; D1 q0 submit 5: 1 big CTA,
 * waits for D0 (barrier); D2 q1 submit 5: 2 small CTAs; and, if d3_submit, D3 q1 submit
 * d3_submit: 2 small CTAs. Its path (caller frees). */
static char *three_kernels(uint64_t d3_submit)
{
    char *path;
    gd_trace_writer *w = new_trace(&path);
    add_dispatch(w, 0, 1000, 1, 1024, 5, 1);
    add_dispatch(w, 0, 1005, 1, 1024, 1, 1);
    add_dispatch(w, 1, 1005, 2, 32, 2, 1);
    if (d3_submit)
        add_dispatch(w, 1, d3_submit, 2, 32, 2, 1);
    ck_assert_int_eq(gd_trace_finish(w, NULL), GD_OK);
    return path;
}

/* three_kernels (see the comments for the hand-worked timeline). */
START_TEST(hand_checked_timeline)
{
    char *path = three_kernels(0);
    gd_sim *sim = small_gpu();
    char *csv = replay_csv(sim, path);
    ck_assert_ptr_nonnull(strstr(csv, "kernel_index,name,queue,grid_ctas,threads_per_cta,regs_per_thread,"
                                      "smem_bytes,max_ctas_per_sm,limiter,theoretical_occupancy_pct,submit_ns,"
                                      "first_cta_ns,last_cta_ns,end_ns,latency_ns,achieved_occupancy_pct,"));
    /* D0: fetched 100, decoded 110, dispatched 110, first CTA 110 + 200 = 310 (SM0),
     * 311 (SM1), 312 (SM0), 313 (SM1); the 5th waits for the first retirement at
     * 1310 (SM0) and ends at 2310; completion 2310 + 50. Occupancy: 5 x 32 warps x
     * 1000 ns / (2000 ns x 128 warp slots) = 62.5 %. */
    ROW_IS(csv, 0, "0,big,0,5,1024,32,0,2,warps,100.00,1000.000,1310.000,2310.000,3310.000,310.000,62.50,"
                   "1100.000,1110.000,1110.000,3360.000,3,,,,100,100.0000");
    /* D1: fetched when D0 left the queue (110 + 100), decoded 220; barrier until D0's
     * completion at 2360; first CTA 2360 + 200. */
    ROW_IS(csv, 1, "1,big,0,1,1024,32,0,2,warps,100.00,1005.000,3560.000,3560.000,4560.000,2555.000,25.00,"
                   "1210.000,1220.000,3360.000,4610.000,4,,,,25,25.0000");
    /* D2: fetched 105, decoded after D0 (110..120), dispatched 120, ready to launch at
     * 320 but queued behind D0 in the distributor: its CTAs take the slots freed at
     * 1311 (SM1) and 1312 (SM0); end 1812; occupancy 2 x 500 / (501 x 128). */
    ROW_IS(csv, 2, "2,small,1,2,32,16,0,32,cta_slots,50.00,1005.000,2311.000,2312.000,2812.000,1306.000,1.56,"
                   "1105.000,1120.000,1120.000,2862.000,5,,,,2,1.5625");
    gd_summary s;
    ck_assert_int_eq(gd_sim_summary(sim, &s), GD_OK);
    ck_assert_uint_eq(s.kernels, 3);
    ck_assert_uint_eq(s.ctas, 8);
    ck_assert_uint_eq(s.sim_time_ns, 3610);
    ck_assert_uint_eq(s.busy_span_ns, 3250);
    ck_assert_double_eq_tol(s.mean_launch_latency_ns, (310.0 + 2555.0 + 1306.0) / 3, 1e-9);
    ck_assert_double_eq_tol(s.mean_sm_occupancy_pct, 100.0 * 193000.0 / (3250.0 * 128.0), 1e-9);
    ck_assert_uint_eq(s.packets, 3);
    ck_assert_uint_eq(s.queues, 2);
    ck_assert_uint_eq(s.max_resident_kernels, 2);
    ck_assert_uint_eq(s.host_stalls, 0);
    /* stage durations (ns) of D0, D1, D2: fetch 100 205 100; decode 10 10 15;
     * dependencies 0 2140 0; first CTA 200 200 1191; last CTA 1000 0 1; drain 1000
     * 1000 500; completion 50 50 50; latency 310 2555 1306. p50 is the 2nd smallest,
     * p99 the largest (exact); a middle value is within 0.4 %. */
    static const double expect[GD_STAGES][3] = {
        {405.0 / 3, 100, 205}, {35.0 / 3, 10, 15},   {2140.0 / 3, 0, 2140},  {1591.0 / 3, 200, 1191},
        {1001.0 / 3, 1, 1000}, {2500.0 / 3, 1000, 1000}, {50, 50, 50},       {4171.0 / 3, 1306, 2555}};
    for (int i = 0; i < GD_STAGES; i++) {
        gd_stage_stats st;
        ck_assert_int_eq(gd_sim_stage_stats(&st, sim, i), GD_OK);
        ck_assert_uint_eq(st.kernels, 3);
        ck_assert_double_eq_tol(st.mean_ns, expect[i][0], 1e-9);
        ck_assert_double_eq_tol(st.p50_ns, expect[i][1], expect[i][1] * 0.004 + 1e-9);
        ck_assert_double_eq_tol(st.p99_ns, expect[i][2], 1e-9);
        ck_assert_double_eq_tol(st.max_ns, expect[i][2], 1e-9);
    }
    ck_assert_str_eq(gd_stage_name(GD_STAGE_DEPENDENCIES), "dependencies");
    ck_assert_ptr_null(gd_stage_name(GD_STAGES));
    gd_stage_stats st;
    ck_assert_int_eq(gd_sim_stage_stats(&st, sim, GD_STAGES), GD_EINVAL);
    ck_assert_ptr_nonnull(strstr(gd_sim_errmsg(sim), "stage 8 is not one of 0 to 7"));
    free(csv);
    gd_sim_free(sim);
    remove(path);
    free(path);
}
END_TEST

/* Format 1.3 wait-until (a collective kernel waiting for its peer GPUs): every CTA
 * runs until at least that time, then its own duration decides. D0 q0 submit 1000:
 * 3 big CTAs of 1000 ns that wait until 4000; D1 q0 submit 1005 (barrier): 1 CTA of
 * 1000 ns that waits until 3000, long passed when it starts. */
START_TEST(wait_until_holds_ctas)
{
    char *path;
    gd_trace_writer *w = new_trace(&path);
    gd_launch_info info = gd_launch_info_unknown();
    info.cta_duration_ps = 1000000;
    info.wait_until_ns = 4000;
    add_with_info(w, 0, 1000, 1, 1024, 3, 1, 0, &info);
    info.wait_until_ns = 3000;
    add_with_info(w, 0, 1005, 1, 1024, 1, 1, 0, &info);
    ck_assert_int_eq(gd_trace_finish(w, NULL), GD_OK);
    gd_sim *sim = small_gpu();
    char *csv = replay_csv(sim, path);
    /* D0: first CTA 1310 (SM0), then 1311 (SM1), 1312 (SM0): all three run until 4000;
     * completion 4050. Occupancy 32 warps x (2690 + 2689 + 2688) ns / (2690 ns x 128)
     * = 74.97 %; the profiler's estimate: 1.5 CTAs per SM of 2. */
    ROW_IS(csv, 0, "0,big,0,3,1024,32,0,2,warps,100.00,1000.000,1310.000,1312.000,4000.000,310.000,74.97,"
                   "1100.000,1110.000,1110.000,4050.000,3,,,,75,75.0000");
    /* D1: fetched 1210, decoded 1220, ready at D0's completion 4050, first CTA 4250;
     * 3000 has passed: it runs its 1000 ns, end 5250, completion 5300. */
    ROW_IS(csv, 1, "1,big,0,1,1024,32,0,2,warps,100.00,1005.000,4250.000,4250.000,5250.000,3245.000,25.00,"
                   "1210.000,1220.000,4050.000,5300.000,4,,,,25,25.0000");
    free(csv);
    gd_sim_free(sim);
    remove(path);
    free(path);
}
END_TEST

/* Without the barrier bit D1 does not wait for D0: it is fetched at 210, decoded at
 * 220, dispatched at once, and its CTA launches when D0's last one has (1310) and a
 * slot frees (1311). */
START_TEST(no_barrier_overlaps)
{
    char *path;
    gd_trace_writer *w = new_trace(&path);
    add_dispatch(w, 0, 1000, 1, 1024, 5, 1);
    add_dispatch(w, 0, 1005, 1, 1024, 1, 0);
    ck_assert_int_eq(gd_trace_finish(w, NULL), GD_OK);
    gd_sim *sim = small_gpu();
    char *csv = replay_csv(sim, path);
    ROW_IS(csv, 1, "1,big,0,1,1024,32,0,2,warps,100.00,1005.000,2311.000,2311.000,3311.000,1306.000,25.00,"
                   "1210.000,1220.000,1220.000,3361.000,4,,,,25,25.0000");
    free(csv);
    gd_sim_free(sim);
    remove(path);
    free(path);
}
END_TEST

/* cwd.max_resident_kernels=1: D1 (another queue) is refused at 120 and dispatched
 * when D0 completes in the distributor (1310); it was ready (barrier satisfied) at 120. */
START_TEST(distributor_full_waits)
{
    char *path;
    gd_trace_writer *w = new_trace(&path);
    add_dispatch(w, 0, 1000, 1, 1024, 1, 1);
    add_dispatch(w, 1, 1000, 1, 1024, 1, 1);
    ck_assert_int_eq(gd_trace_finish(w, NULL), GD_OK);
    gd_sim *sim = small_gpu();
    ck_assert_int_eq(gd_sim_set(sim, "cwd.max_resident_kernels", "1"), GD_OK);
    char *csv = replay_csv(sim, path);
    ROW_IS(csv, 0, "0,big,0,1,1024,32,0,2,warps,100.00,1000.000,1310.000,1310.000,2310.000,310.000,25.00,"
                   "1100.000,1110.000,1110.000,2360.000,3,,,,25,25.0000");
    ROW_IS(csv, 1, "1,big,1,1,1024,32,0,2,warps,100.00,1000.000,2510.000,2510.000,3510.000,1510.000,25.00,"
                   "1100.000,1120.000,1120.000,3560.000,4,,,,25,25.0000");
    gd_summary s;
    gd_sim_summary(sim, &s);
    ck_assert_uint_eq(s.max_resident_kernels, 1);
    free(csv);
    gd_sim_free(sim);
    remove(path);
    free(path);
}
END_TEST

/* pp.queue_packets=1: D1's submit at 1 finds the queue full; the host waits until D0
 * is dispatched (110) and D1 enters the queue then. */
START_TEST(full_queue_stalls_host)
{
    char *path;
    gd_trace_writer *w = new_trace(&path);
    add_dispatch(w, 0, 1000, 1, 1024, 1, 1);
    add_dispatch(w, 0, 1001, 1, 1024, 1, 1);
    ck_assert_int_eq(gd_trace_finish(w, NULL), GD_OK);
    gd_sim *sim = small_gpu();
    ck_assert_int_eq(gd_sim_set(sim, "pp.queue_packets", "1"), GD_OK);
    char *csv = replay_csv(sim, path);
    ROW_IS(csv, 1, "1,big,0,1,1024,32,0,2,warps,100.00,1110.000,2560.000,2560.000,3560.000,1450.000,25.00,"
                   "1210.000,1220.000,2360.000,3610.000,4,,,,25,25.0000");
    gd_summary s;
    gd_sim_summary(sim, &s);
    ck_assert_uint_eq(s.host_stalls, 1);
    free(csv);
    gd_sim_free(sim);
    remove(path);
    free(path);
}
END_TEST

/* Same-time order across GPCs: retirements come before a launch at the same time.
 * Two GPCs of one SM each. D0's 3 CTAs go to SM0 (310), SM1 (311), SM0 (312); SM0
 * frees one slot at 1310. D1 (queue 1, submitted at 1001) may launch from 1311, when
 * SM1's CTA retires: after that retirement SM1 has 2 free slots against SM0's 1, so
 * D1's CTA must go to SM1 (GPC 1) - launching before the retirement would pick SM0. */
START_TEST(retire_before_launch_across_gpcs)
{
    char *path;
    gd_trace_writer *w = new_trace(&path);
    add_dispatch(w, 0, 1000, 1, 1024, 3, 1);
    add_dispatch(w, 1, 2001, 1, 1024, 1, 1);
    ck_assert_int_eq(gd_trace_finish(w, NULL), GD_OK);
    gd_sim *sim = small_gpu();
    ck_assert_int_eq(gd_sim_set(sim, "gpu.gpcs", "2"), GD_OK);
    ck_assert_int_eq(gd_sim_set(sim, "gpu.sms_per_gpc", "1"), GD_OK);
    char *csv = replay_csv(sim, path);
    ROW_IS(csv, 1, "1,big,1,1,1024,32,0,2,warps,100.00,2001.000,2311.000,2311.000,3311.000,310.000,25.00,"
                   "2101.000,2111.000,2111.000,3361.000,4,,,,25,25.0000");
    char *j = tb_tmp_path(".json");
    ck_assert_int_eq(gd_sim_write_summary_json(sim, j), GD_OK);
    char *json = tb_slurp(j, NULL);
    /* GPC 0 ran D0's two CTAs on SM0, GPC 1 D0's one and D1's */
    ck_assert_ptr_nonnull(strstr(json, "{\"block\": \"gpc2sm_1\", \"name\": \"ctas_launched\", \"value\": 2,"));
    ck_assert_ptr_nonnull(strstr(json, "{\"block\": \"gpc2sm_0\", \"name\": \"ctas_launched\", \"value\": 2,"));
    remove(j);
    free(j);
    free(json);
    free(csv);
    gd_sim_free(sim);
    remove(path);
    free(path);
}
END_TEST

static void add_barrier(gd_trace_writer *w, unsigned type, uint32_t queue, uint64_t submit_ns, int barrier,
                        uint64_t dep0, uint64_t dep1)
{
    gd_aql_barrier_pkt b;
    memset(&b, 0, sizeof b);
    b.header = (uint16_t)((type == GD_REC_BARRIER_OR ? GD_AQL_TYPE_BARRIER_OR : GD_AQL_TYPE_BARRIER_AND) |
                          (barrier ? GD_AQL_HEADER_BARRIER : 0));
    b.dep_signal[0] = dep0;
    b.dep_signal[3] = dep1;
    ck_assert_int_eq(gd_trace_write_barrier(w, type, queue, submit_ns, &b, NULL, NULL), GD_OK);
}

/* A block statistic's value from the JSON summary. */
static unsigned long long stat_value(gd_sim *sim, const char *block, const char *name)
{
    char *j = tb_tmp_path(".json");
    ck_assert_int_eq(gd_sim_write_summary_json(sim, j), GD_OK);
    char *json = tb_slurp(j, NULL);
    char key[160];
    snprintf(key, sizeof key, "{\"block\": \"%s\", \"name\": \"%s\", \"value\": ", block, name);
    const char *p = strstr(json, key);
    ck_assert_msg(p != NULL, "no statistic %s.%s", block, name);
    unsigned long long v = strtoull(p + strlen(key), NULL, 10);
    remove(j);
    free(j);
    free(json);
    return v;
}

/* cwd.policy=cga (seed 003's distributor) on the small GPU (1 GPC of 2 SMs, 1 cycle =
 * 1 ns), cwd.query_cycles 8, cwd.mask_launch_cycles 1, cwd.id_broadcast_cycles 1,
 * cwd.cga_flush_cycles 100: a step of one SM mask takes 10 ns. */
static gd_sim *cga_gpu(const char *ids)
{
    gd_sim *sim = small_gpu();
    const char *kv[][2] = {{"cwd.policy", "cga"}, {"cwd.query_cycles", "8"}, {"cwd.mask_launch_cycles", "1"},
                           {"cwd.cga_flush_cycles", "100"}, {"cwd.gpc_cga_ids", ids},
                           {"cwd.id_broadcast_cycles", "1"}};
    for (size_t i = 0; i < sizeof kv / sizeof kv[0]; i++)
        ck_assert_msg(gd_sim_set(sim, kv[i][0], kv[i][1]) == GD_OK, "%s", gd_sim_errmsg(sim));
    return sim;
}

static void add_cluster(gd_trace_writer *w, uint64_t submit_ns, uint32_t ctas, uint16_t cluster, uint8_t mode)
{
    gd_aql_dispatch p;
    memset(&p, 0, sizeof p);
    p.header = GD_AQL_TYPE_KERNEL_DISPATCH | GD_AQL_HEADER_BARRIER;
    p.setup = 1;
    p.workgroup_size[0] = 1024;
    p.workgroup_size[1] = p.workgroup_size[2] = 1;
    p.grid_size[0] = ctas * 1024;
    p.grid_size[1] = p.grid_size[2] = 1;
    p.kernel_object = 1;
    gd_cluster c = {{cluster, 1, 1}, 1, mode};
    ck_assert_int_eq(gd_trace_write_dispatch_cluster(w, 0, submit_ns, &p, NULL, &c, NULL), GD_OK);
}

/* A plain grid of 5 big CTAs (2 per SM): ready to launch at 1310 (fetch 100, decode
 * 10, grid launch 200). Step 1 at 1310 fills the lake: all 4 free slots, one SM mask,
 * so the CTAs start at 1310 + 8 + 1 + 1 = 1320 and end at 2320. The fifth finds no
 * room and waits for the retirements at 2320: it starts at 2330 on SM0 and ends at
 * 3330; completion 3380. Occupancy 32 warps x 5000 ns / (2010 ns x 128). */
START_TEST(cga_plain_grid_fills_the_lake)
{
    char *path;
    gd_trace_writer *w = new_trace(&path);
    add_dispatch(w, 0, 1000, 1, 1024, 5, 1);
    ck_assert_int_eq(gd_trace_finish(w, NULL), GD_OK);
    gd_sim *sim = cga_gpu("256");
    char *csv = replay_csv(sim, path);
    ROW_IS(csv, 0, "0,big,0,5,1024,32,0,2,warps,100.00,1000.000,1320.000,2330.000,3330.000,320.000,62.19,"
                   "1100.000,1110.000,1110.000,3380.000,3,,,,100,100.0000");
    ck_assert_uint_eq(stat_value(sim, "gpu2gpc", "launch_steps"), 2);
    ck_assert_uint_eq(stat_value(sim, "gpu2gpc", "failed_steps"), 1);
    ck_assert_uint_eq(stat_value(sim, "gpu2gpc", "sm_masks"), 2);
    ck_assert_uint_eq(stat_value(sim, "gpu2gpc", "frontend_cycles"), 20);
    /* the one CTA waited from 1320 to 2320 with no free slot: nothing stranded */
    ck_assert_uint_eq(stat_value(sim, "gpc2sm_0", "stranded_slot_ns"), 0);
    free(csv);
    gd_sim_free(sim);
    remove(path);
    free(path);
}
END_TEST

/* Two CGAs of 2 big CTAs. Load balancing: the first query at 1310 puts one CTA on
 * each SM (speed 1): start 1320, end 2320; the next step, when the front end is
 * free at 1320, places the second the same way (speed 0): start 1330, end 2330. With
 * a single gpc_local_cga_id the second waits for the first to end and be flushed:
 * queries at 1320 (no id) and 2320 (CTAs retired, id not yet back) fail; the id
 * returns at 2320 + 100 = 2420, so the second starts at 2430 and ends at 3430. While
 * it waited the GPC had 2 free slots for 1000 ns and 4 for 100 ns: 2400 slot x ns
 * stranded. Occupancy: 32 warps x 4000 ns over 1010 ns (2110 ns) x 128 warp slots. */
START_TEST(cga_clusters_launch_whole)
{
    for (int mode = 0; mode < 2; mode++) {
        char *path;
        gd_trace_writer *w = new_trace(&path);
        add_cluster(w, 1000, 4, 2, (uint8_t)mode);
        ck_assert_int_eq(gd_trace_finish(w, NULL), GD_OK);
        gd_sim *sim = cga_gpu("256");
        char *csv = replay_csv(sim, path);
        ROW_IS(csv, 0, "0,big,0,4,1024,32,0,2,warps,100.00,1000.000,1320.000,1330.000,2330.000,320.000,99.01,"
                       "1100.000,1110.000,1110.000,2380.000,3,,,,100,100.0000");
        ck_assert_uint_eq(stat_value(sim, "gpc2sm_0", "cgas_launched"), 2);
        ck_assert_uint_eq(stat_value(sim, "gpu2gpc", "failed_steps"), 0);
        free(csv);
        gd_sim_free(sim);
        sim = cga_gpu("1");
        csv = replay_csv(sim, path);
        ROW_IS(csv, 0, "0,big,0,4,1024,32,0,2,warps,100.00,1000.000,1320.000,2430.000,3430.000,320.000,47.39,"
                       "1100.000,1110.000,1110.000,3480.000,3,,,,100,100.0000");
        ck_assert_uint_eq(stat_value(sim, "gpu2gpc", "failed_steps"), 2);
        ck_assert_uint_eq(stat_value(sim, "gpc2sm_0", "failed_queries"), 2);
        ck_assert_uint_eq(stat_value(sim, "gpc2sm_0", "stranded_slot_ns"), 2400);
        free(csv);
        gd_sim_free(sim);
        remove(path);
        free(path);
    }
}
END_TEST

/* Two CGAs of 4 big CTAs on one gpc_local_cga_id: the first fills both SMs (1320 to
 * 2320), so the second's step at 1320 fails with no free slot anywhere (the GPCs learn
 * of that wait only when their state next changes: nothing is stranded yet). At 2320
 * the CTAs retire, but the id is back only at 2420: the step fails again and the 4 free
 * slots are stranded for 100 ns (400 slot x ns), with shortcuts and without. */
START_TEST(cga_wait_from_a_full_gpu_strands_what_retires)
{
    for (int shortcuts = 0; shortcuts < 2; shortcuts++) {
        char *path;
        gd_trace_writer *w = new_trace(&path);
        add_cluster(w, 1000, 8, 4, 0);
        ck_assert_int_eq(gd_trace_finish(w, NULL), GD_OK);
        gd_sim *sim = cga_gpu("1");
        ck_assert_int_eq(gd_sim_set(sim, "sim.shortcuts", shortcuts ? "on" : "off"), GD_OK);
        char *csv = replay_csv(sim, path);
        ck_assert_uint_eq(stat_value(sim, "gpu2gpc", "failed_steps"), 2);
        ck_assert_uint_eq(stat_value(sim, "gpc2sm_0", "stranded_slot_ns"), 400);
        ck_assert_uint_eq(stat_value(sim, "gpc2sm_0", "cgas_launched"), 2);
        free(csv);
        gd_sim_free(sim);
        remove(path);
        free(path);
    }
}
END_TEST

/* Seed 001's multi-channel admission (cwd.admission=channels, on the cga distributor):
 * a long kernel L (10 CTAs of 768 threads = 24 warps: 2 per SM, so its first wave of 4
 * fills both SMs' CTA room for it) on queue 0, submitted at 1000, and a short kernel S
 * (1 CTA of 32 threads) on queue 1 at 1005. L: fetched 1100, decoded 1110, set up
 * 1310; its step puts 4 CTAs at 1320 (query 8 + one mask + broadcast 1), the next
 * steps at its retirements 2320 and 3330 its last 6 at 2330 and 3340. S: decoded 1120,
 * set up 1320. inorder: S waits for L's last CTA (3340): its step then, first CTA
 * 3350. channels: the step at 1320 finds no room for L but room for S beside it: S's
 * CTA at 1330; L's times do not change. */
START_TEST(channels_admit_beside)
{
    char *path;
    gd_trace_writer *w = new_trace(&path);
    add_kernel(w, 3, "long", 768, 32, 1000);
    add_dispatch(w, 0, 1000, 3, 768, 10, 1);
    add_dispatch(w, 1, 1005, 2, 32, 1, 1);
    ck_assert_int_eq(gd_trace_finish(w, NULL), GD_OK);
    for (int channels = 0; channels < 2; channels++) {
        gd_sim *sim = cga_gpu("256");
        ck_assert_int_eq(gd_sim_set(sim, "cwd.admission", channels ? "channels" : "inorder"), GD_OK);
        char *csv = replay_csv(sim, path);
        char *l = row(csv, 0), *s = row(csv, 1);
        ck_assert_msg(strstr(l, ",1000.000,1320.000,3340.000,4340.000,"), "%s", l);
        ck_assert_msg(strstr(s, channels ? ",1005.000,1330.000,1330.000,1830.000," : ",1005.000,3350.000,3350.000,3850.000,"),
                      "%s", s);
        if (channels)
            ck_assert_uint_eq(stat_value(sim, "gpu2gpc", "admission_switches"), 1);
        free(l);
        free(s);
        free(csv);
        gd_sim_free(sim);
    }
    remove(path);
    free(path);
}
END_TEST

/* Seed 000: a reference packet R (ref 0, 1 big CTA) and a condensed packet C of two
 * kernels from it (A unchanged, B with its own completion signal), queue 0, on the
 * small GPU (fetch 100, decode 10, completion 50, grid launch 200; rsb.access_cycles
 * 10). R: fetched 1100, decoded + RSB write 1120, first CTA 1320, end 2320,
 * completion 2370. C is fetched once (1120..1220, when R left the queue) and decoded
 * once (1230), A reads its entry (1240) and waits for R (barrier bit): first CTA
 * 2570, end 3570; no cleanup of its own (no signal, no release fence): completion at
 * 3570. B came with the packet (nothing to fetch), reads its entry (2370..2380),
 * starts after A completes: 3770, end 4770; the last kernel: cleanup, 4820. */
START_TEST(condensed_packet_timeline)
{
    char *path;
    gd_trace_writer *w = new_trace(&path);
    gd_aql_dispatch r;
    memset(&r, 0, sizeof r);
    r.header = GD_AQL_TYPE_KERNEL_DISPATCH | GD_AQL_HEADER_BARRIER;
    r.setup = 1;
    r.workgroup_size[0] = 1024;
    r.workgroup_size[1] = r.workgroup_size[2] = 1;
    r.grid_size[0] = 1024;
    r.grid_size[1] = r.grid_size[2] = 1;
    r.kernel_object = 1;
    ck_assert_int_eq(gd_trace_write_reference(w, 0, 1000, &r, NULL, NULL), GD_OK);
    gd_rst t;
    gd_rst_init(&t, 8);
    gd_rst_store(&t, &r);
    gd_condensed_builder b;
    gd_condensed_begin(&b);
    gd_aql_dispatch kb = r;
    kb.completion_signal = 0x77;
    ck_assert_int_eq(gd_condensed_add(&b, &t, 0, &r), 0);
    ck_assert_int_eq(gd_condensed_add(&b, &t, 0, &kb), 0);
    ck_assert_int_eq(gd_trace_write_condensed(w, 0, 1005, &b.pkt, NULL, NULL), GD_OK);
    ck_assert_int_eq(gd_trace_finish(w, NULL), GD_OK);
    gd_sim *sim = small_gpu();
    ck_assert_int_eq(gd_sim_set(sim, "rsb.access_cycles", "10"), GD_OK);
    char *csv = replay_csv(sim, path);
    ROW_IS(csv, 0, "0,big,0,1,1024,32,0,2,warps,100.00,1000.000,1320.000,1320.000,2320.000,320.000,25.00,"
                   "1100.000,1120.000,1120.000,2370.000,3,,,,25,25.0000");
    ROW_IS(csv, 1, "1,big,0,1,1024,32,0,2,warps,100.00,1005.000,2570.000,2570.000,3570.000,1565.000,25.00,"
                   "1220.000,1240.000,2370.000,3570.000,4,,,,25,25.0000");
    ROW_IS(csv, 2, "2,big,0,1,1024,32,0,2,warps,100.00,1005.000,3770.000,3770.000,4770.000,2765.000,25.00,"
                   "2370.000,2380.000,3570.000,4820.000,4,,,,25,25.0000");
    ck_assert_uint_eq(stat_value(sim, "pp", "packets_fetched"), 2);
    ck_assert_uint_eq(stat_value(sim, "pp", "bytes_fetched"), 128);
    ck_assert_uint_eq(stat_value(sim, "pp", "rsb_accesses"), 3);
    ck_assert_uint_eq(stat_value(sim, "pp", "rsb_kernels"), 2);
    /* R: 100 + 10 + 10 + 50; C: 100 + 10 + 10 (A) + 10 (B) + 50 (B) */
    ck_assert_uint_eq(stat_value(sim, "pp", "frontend_overhead"), 350000);
    ck_assert_uint_eq(stat_value(sim, "pp", "packets_enqueued"), 2);
    ck_assert_uint_eq(stat_value(sim, "pp", "fetch_time"), 200000);
    ck_assert_uint_eq(stat_value(sim, "pp", "decode_time"), 20000);
    ck_assert_uint_eq(stat_value(sim, "pp", "rsb_time"), 30000);
    ck_assert_uint_eq(stat_value(sim, "pp", "cleanup_time"), 100000);
    char *j = tb_tmp_path(".json");
    ck_assert_int_eq(gd_sim_write_summary_json(sim, j), GD_OK);
    char *json = tb_slurp(j, NULL);
    ck_assert_ptr_nonnull(strstr(json, "\"frontend\": {\"packets_processed\": 2, \"bytes_fetched\": 128, "
                                       "\"frontend_overhead_ns\": 350.000, \"rsb_accesses\": 3, \"rst_kernels\": 2, "
                                       "\"rst_hit_rate\": 0.666667, \"mean_launch_latency_ns\": 1550.000}"));
    remove(j);
    free(j);
    free(json);
    free(csv);
    gd_sim_free(sim);
    remove(path);
    free(path);
}
END_TEST

/* rsb.entries sizes the model's reference state buffer: a reference packet whose
 * ref_num (5) is beyond it is the trace's error, named with its record, before the
 * replay starts it; with the default 8 entries the same trace replays. */
START_TEST(rsb_entries_bound_ref_num)
{
    char *path;
    gd_trace_writer *w = new_trace(&path);
    gd_aql_dispatch r;
    memset(&r, 0, sizeof r);
    r.header = GD_AQL_TYPE_KERNEL_DISPATCH;
    r.setup = 1;
    r.workgroup_size[0] = r.grid_size[0] = 1024;
    r.workgroup_size[1] = r.workgroup_size[2] = r.grid_size[1] = r.grid_size[2] = 1;
    r.kernel_object = 1;
    r.reserved0 = 5;
    ck_assert_int_eq(gd_trace_write_reference(w, 0, 1000, &r, NULL, NULL), GD_OK);
    ck_assert_int_eq(gd_trace_finish(w, NULL), GD_OK);
    gd_sim *sim = small_gpu();
    ck_assert_int_eq(gd_sim_set(sim, "rsb.entries", "4"), GD_OK);
    ck_assert_int_eq(gd_sim_replay_file(sim, path), GD_EFORMAT);
    ck_assert_msg(strstr(gd_sim_errmsg(sim), "record 3 ") &&
                      strstr(gd_sim_errmsg(sim), "ref_num 5 is beyond the reference state table's 4 entries (rsb.entries)"),
                  "%s", gd_sim_errmsg(sim));
    ck_assert_int_eq(gd_sim_set(sim, "rsb.entries", "8"), GD_OK);
    ck_assert_msg(gd_sim_replay_file(sim, path) == GD_OK, "%s", gd_sim_errmsg(sim));
    ck_assert_uint_eq(stat_value(sim, "pp", "rsb_accesses"), 1);
    gd_sim_free(sim);
    remove(path);
    free(path);
}
END_TEST

/* A memset of `duration_ps` on queue q (barrier bit), submitted at submit_ns. */
static void add_memset(gd_trace_writer *w, uint32_t q, uint64_t submit_ns, gd_time_ps duration_ps)
{
    gd_trace_command c;
    memset(&c, 0, sizeof c);
    c.queue = q;
    c.kind = GD_CMD_MEMSET;
    c.barrier = 1;
    c.submit_ns = submit_ns;
    c.duration_ps = duration_ps;
    c.bytes = 4096;
    c.info = gd_launch_info_unknown();
    ck_assert_int_eq(gd_trace_write_command(w, &c, NULL), GD_OK);
}

/* barrier_and_and_command's packets: D0, C0, B0, D1 (see there). */
static void add_wait_and_command(gd_trace_writer *w)
{
    add_signalled(w, 0, 1000, 1, 1024, 1, 1, 0x10);
    add_memset(w, 1, 1000, 400000);
    add_barrier(w, GD_REC_BARRIER_AND, 1, 1005, 1, 0x10, 0);
    add_dispatch(w, 1, 1010, 2, 32, 2, 1);
}

/* A graph-launched dispatch (format 1.9): as add_dispatch, with flags bit 1. */
static void add_graph_dispatch(gd_trace_writer *w, uint32_t queue, uint64_t submit_ns, uint32_t kid, uint16_t block,
                               uint32_t ctas)
{
    gd_trace_dispatch d;
    memset(&d, 0, sizeof d);
    d.queue = queue;
    d.submit_ns = submit_ns;
    d.pkt.header = GD_AQL_TYPE_KERNEL_DISPATCH | GD_AQL_HEADER_BARRIER;
    d.pkt.setup = 1;
    d.pkt.workgroup_size[0] = block;
    d.pkt.workgroup_size[1] = d.pkt.workgroup_size[2] = 1;
    d.pkt.grid_size[0] = ctas * block;
    d.pkt.grid_size[1] = d.pkt.grid_size[2] = 1;
    d.pkt.kernel_object = kid;
    d.info = gd_launch_info_unknown();
    d.cluster = gd_cluster_none();
    d.graph = 1;
    ck_assert_int_eq(gd_trace_write_dispatch_rec(w, &d, NULL), GD_OK);
}

/* Launch gaps (docs/MODEL.md, 'Launch gaps'), on the hand-checked timeline (times as
 * in the CSV, the first submit at 1000): D0 q0
 * ends at 3310 and completes at 3360; D1, decoded behind it at 1220, would start at
 * 3360 + 200 = 3560 (a gap of 250 ns: pp.completion_cycles + cwd.grid_launch_cycles).
 * With pp.gap_kernel_kernel_ns = 1000 the packet processor holds it for the other
 * 750: ready 4110, first CTA 4310 = 3310 + 1000. Graph-launched, D1 takes
 * pp.gap_graph_kernel_kernel_ns = 600 instead: ready 3710, first CTA 3910. A gap
 * below the fixed part (100 < 250) gives the fixed part. D2 (q1, nothing before it)
 * is never held. */
START_TEST(launch_gap_kernel_kernel)
{
    for (int graph = 0; graph < 3; graph++) {
        char *path;
        gd_trace_writer *w = new_trace(&path);
        add_dispatch(w, 0, 1000, 1, 1024, 5, 1);
        if (graph == 1)
            add_graph_dispatch(w, 0, 1005, 1, 1024, 1);
        else
            add_dispatch(w, 0, 1005, 1, 1024, 1, 1);
        add_dispatch(w, 1, 1005, 2, 32, 2, 1);
        ck_assert_int_eq(gd_trace_finish(w, NULL), GD_OK);
        gd_sim *sim = small_gpu();
        ck_assert_int_eq(gd_sim_set(sim, "pp.gap_kernel_kernel_ns", graph == 2 ? "100" : "1000"), GD_OK);
        ck_assert_int_eq(gd_sim_set(sim, "pp.gap_graph_kernel_kernel_ns", "600"), GD_OK);
        char *csv = replay_csv(sim, path);
        ROW_IS(csv, 0, "0,big,0,5,1024,32,0,2,warps,100.00,1000.000,1310.000,2310.000,3310.000,310.000,62.50,"
                       "1100.000,1110.000,1110.000,3360.000,3,,,,100,100.0000");
        if (graph == 0)
            ROW_IS(csv, 1, "1,big,0,1,1024,32,0,2,warps,100.00,1005.000,4310.000,4310.000,5310.000,3305.000,25.00,"
                           "1210.000,1220.000,4110.000,5360.000,4,,,,25,25.0000");
        else if (graph == 1)
            ROW_IS(csv, 1, "1,big,0,1,1024,32,0,2,warps,100.00,1005.000,3910.000,3910.000,4910.000,2905.000,25.00,"
                           "1210.000,1220.000,3710.000,4960.000,4,,,,25,25.0000");
        else
            ROW_IS(csv, 1, "1,big,0,1,1024,32,0,2,warps,100.00,1005.000,3560.000,3560.000,4560.000,2555.000,25.00,"
                           "1210.000,1220.000,3360.000,4610.000,4,,,,25,25.0000");
        ck_assert_uint_eq(stat_value(sim, "pp", "gap_holds"), graph == 2 ? 0 : 1);
        ck_assert_uint_eq(stat_value(sim, "pp", "gap_hold_time"), graph == 0 ? 750000 : graph == 1 ? 350000 : 0);
        free(csv);
        gd_sim_free(sim);
        remove(path);
        free(path);
    }
}
END_TEST

/* three_kernels with pp.doorbell_cycles = 1000 (1 us here): a packet written into an
 * idle queue (nothing in it or in flight) waits for the packet processor to wake before
 * its fetch; one written behind others of its queue, or while one runs, is fetched when
 * they have left, without it. D0 q0 submit 1000 (q0 idle): fetched 1000 + 1000 + 100 =
 * 2100, decoded 2110. D1 q0 submit 1005 behind D0: fetched when D0 leaves (2110) + 100 =
 * 2210, decoded 2220. D2 q1 submit 1005 (q1 idle): fetched 1005 + 1100 = 2105, decoded
 * after D0's decode: 2110 + 10 = 2120; it leaves at 2120, its CTAs run 2320 to 2820. D3
 * q1 submit 2500, while D2 runs (q1 empty, not idle): fetched 2600, decoded 2610. */
START_TEST(doorbell_wakes_an_idle_queue)
{
    char *path = three_kernels(2500);
    gd_sim *sim = small_gpu();
    ck_assert_int_eq(gd_sim_set(sim, "pp.doorbell_cycles", "1000"), GD_OK);
    char *csv = replay_csv(sim, path);
    const double expect[4][2] = {{2100, 2110}, {2210, 2220}, {2105, 2120}, {2600, 2610}};  /* fetched, decoded */
    for (int i = 0; i < 4; i++) {
        char *r = row(csv, i);
        double f = 0, d = 0;
        const char *p = r;
        for (int c = 0; c < 16; c++)  /* fetched_ns is column 16, decoded_ns 17 */
            p = strchr(p, ',') + 1;
        ck_assert_int_eq(sscanf(p, "%lf,%lf", &f, &d), 2);
        ck_assert_msg(f == expect[i][0] && d == expect[i][1], "row %d: fetched %.3f decoded %.3f", i, f, d);
        free(r);
    }
    free(csv);
    gd_sim_free(sim);
    remove(path);
    free(path);
}
END_TEST

/* Launch gaps after a cross-queue wait and before a copy, on barrier_and_and_command's
 * trace plus C1 q1 submit 15: a memset of 100 ns (barrier bit) behind D1 (times from
 * the first submit, as there; the CSV adds 1000).
 * pp.gap_after_wait_ns = 700: D1, decoded at 340 behind B0, is released when B0
 * completes (1360) and held 700 - (50 + 0 + 200) = 450: ready 1810, first CTA 2010 =
 * D0's end (1310) + 700; its two CTAs end at 2510 and 2511, completion 2561.
 * pp.gap_kernel_copy_ns = 1000: C1 is held 1000 - (50 + 30) = 920 after D1's
 * completion, so its engine starts it at 2561 + 920 + 30 = 3511 = 2511 + 1000 and it
 * completes at 3511 + 100 + 50 = 3661 (commands have no CSV row: the hold time says
 * it). C0, first on q1, and B0 are never held. */
START_TEST(launch_gap_after_wait_and_copy)
{
    char *path;
    gd_trace_writer *w = new_trace(&path);
    add_wait_and_command(w);
    add_memset(w, 1, 1015, 100000);
    ck_assert_int_eq(gd_trace_finish(w, NULL), GD_OK);
    gd_sim *sim = small_gpu();
    ck_assert_int_eq(gd_sim_set(sim, "pp.command_launch_cycles", "30"), GD_OK);
    ck_assert_int_eq(gd_sim_set(sim, "pp.gap_after_wait_ns", "700"), GD_OK);
    ck_assert_int_eq(gd_sim_set(sim, "pp.gap_kernel_copy_ns", "1000"), GD_OK);
    char *csv = replay_csv(sim, path);
    ROW_IS(csv, 1, "1,small,1,2,32,16,0,32,cta_slots,50.00,1010.000,3010.000,3011.000,3511.000,2000.000,1.56,"
                   "1330.000,1340.000,2810.000,3561.000,6,,,,2,1.5625");
    ck_assert_uint_eq(stat_value(sim, "pp", "gap_holds"), 2);
    ck_assert_uint_eq(stat_value(sim, "pp", "gap_hold_time"), 450000 + 920000);
    ck_assert_uint_eq(stat_value(sim, "pp", "commands"), 2);
    free(csv);
    gd_sim_free(sim);
    remove(path);
    free(path);
}
END_TEST

/* A trace's calibration record (format 1.9) sets the launch gaps under
 * gpu.preset=trace, below keys set explicitly, and not under a named preset. The
 * hand-checked timeline again: pp.gap_kernel_kernel_ns = 1000 from the record gives
 * D1's first CTA at 4310 (launch_gap_kernel_kernel); an explicit 100 gives 3560; with
 * gpu.preset=h100 the preset's own 1121 gives 3310 + 1121 = 4431. */
START_TEST(calibration_record_sets_gaps)
{
    char *path = tb_tmp_path(".gdt.gz");
    gd_trace_device d = h100_dev();
    gd_trace_writer *w;
    ck_assert_int_eq(gd_trace_create(&w, path, &d, "test_replay", 6, NULL), GD_OK);
    gd_trace_calibration cal;
    memset(&cal, 0, sizeof cal);
    snprintf(cal.provenance, sizeof cal.provenance, "a hand-made fit");
    cal.n = 2;
    snprintf(cal.key[0], sizeof cal.key[0], "pp.gap_kernel_kernel_ns");
    snprintf(cal.value[0], sizeof cal.value[0], "1000");
    snprintf(cal.key[1], sizeof cal.key[1], "pp.gap_copy_copy_ns");
    snprintf(cal.value[1], sizeof cal.value[1], "5");
    ck_assert_int_eq(gd_trace_write_calibration(w, &cal, NULL), GD_OK);
    add_kernel(w, 1, "big", 1024, 32, 1000);
    add_kernel(w, 2, "small", 32, 16, 500);
    add_dispatch(w, 0, 1000, 1, 1024, 5, 1);
    add_dispatch(w, 0, 1005, 1, 1024, 1, 1);
    ck_assert_int_eq(gd_trace_finish(w, NULL), GD_OK);
    static const char *const first[] = {"4310.000", "3560.000", "4431.000"};
    for (int i = 0; i < 3; i++) {
        gd_sim *sim = small_gpu_with(0);
        ck_assert_int_eq(gd_sim_set(sim, "gpu.preset", i == 2 ? "h100" : "trace"), GD_OK);
        if (i == 1)
            ck_assert_int_eq(gd_sim_set(sim, "pp.gap_kernel_kernel_ns", "100"), GD_OK);
        char *csv = replay_csv(sim, path);
        char *r = row(csv, 1);
        ck_assert_msg(strstr(r, first[i]) != NULL, "case %d: %s", i, r);
        free(r);
        free(csv);
        gd_sim_free(sim);
    }
    remove(path);
    free(path);
}
END_TEST

/* A cross-queue dependency (what kineto2gdt.py makes of cudaStreamWaitEvent) and a
 * non-kernel command, pp.command_launch_cycles = 30:
 * D0 q0 submit 0: 1 big CTA, completion signal 0x10;
 * C0 q1 submit 0: a memset of 400 ns (barrier bit);
 * B0 q1 submit 5: barrier-AND on 0x10 (barrier bit);
 * D1 q1 submit 10: 2 small CTAs (barrier bit).
 * D0: fetched 100, decoded 110, first CTA 310, end 1310, completion 1360.
 * C0: fetched 100, decoded 120 (after D0), its engine starts it at 150, ends 550,
 * completes 600. B0: fetched 120..220 once C0 left the queue, decoded 230 and
 * parked; its barrier bit holds it until C0 completes (600), its dependency until
 * D0 completes (1360): it waited 1130 ns. D1 is fetched and decoded behind it
 * (230..340) and launches when B0 completes (1360 + pp.barrier_cycles = 0): first
 * CTA 1560 - the same gap after D0 as a kernel behind D0 on D0's own queue. */
START_TEST(barrier_and_and_command)
{
    char *path;
    gd_trace_writer *w = new_trace(&path);
    add_wait_and_command(w);
    ck_assert_int_eq(gd_trace_finish(w, NULL), GD_OK);
    gd_sim *sim = small_gpu();
    ck_assert_int_eq(gd_sim_set(sim, "pp.command_launch_cycles", "30"), GD_OK);
    char *csv = replay_csv(sim, path);
    ROW_IS(csv, 0, "0,big,0,1,1024,32,0,2,warps,100.00,1000.000,1310.000,1310.000,2310.000,310.000,25.00,"
                   "1100.000,1110.000,1110.000,2360.000,3,,,,25,25.0000");
    ROW_IS(csv, 1, "1,small,1,2,32,16,0,32,cta_slots,50.00,1010.000,2560.000,2561.000,3061.000,1550.000,1.56,"
                   "1330.000,1340.000,2360.000,3111.000,6,,,,2,1.5625");
    ck_assert_uint_eq(stat_value(sim, "pp", "barrier_packets"), 1);
    ck_assert_uint_eq(stat_value(sim, "pp", "barrier_wait"), 1130000);
    ck_assert_uint_eq(stat_value(sim, "pp", "commands"), 1);
    ck_assert_uint_eq(stat_value(sim, "pp", "command_bytes"), 4096);
    free(csv);
    /* pp.barrier_cycles delays everything behind the barrier */
    ck_assert_int_eq(gd_sim_set(sim, "pp.barrier_cycles", "7"), GD_OK);
    csv = replay_csv(sim, path);
    ROW_IS(csv, 1, "1,small,1,2,32,16,0,32,cta_slots,50.00,1010.000,2567.000,2568.000,3068.000,1557.000,1.56,"
                   "1330.000,1340.000,2367.000,3118.000,6,,,,2,1.5625");
    free(csv);
    gd_sim_free(sim);
    remove(path);
    free(path);
}
END_TEST

/* Barrier-OR resolves on the first of its dependencies: D0 q0 (1 big CTA, 1000 ns,
 * signal 0xA) and D1 q1 (1 small CTA, 500 ns, signal 0xB) both submitted at 0;
 * B q2 barrier-OR on 0xA or 0xB (no barrier bit), D2 q2 behind it. D0 decoded 110,
 * D1 120, B 130; D1's CTA runs 320..820 and completes at 870, before D0 (1360):
 * B resolves at 870 and D2 launches then, first CTA 1070 on the free SM1. */
START_TEST(barrier_or)
{
    char *path;
    gd_trace_writer *w = new_trace(&path);
    add_signalled(w, 0, 1000, 1, 1024, 1, 1, 0xA);
    add_signalled(w, 1, 1000, 2, 32, 1, 1, 0xB);
    add_barrier(w, GD_REC_BARRIER_OR, 2, 1000, 0, 0xA, 0xB);
    add_dispatch(w, 2, 1000, 2, 32, 1, 1);
    ck_assert_int_eq(gd_trace_finish(w, NULL), GD_OK);
    gd_sim *sim = small_gpu();
    char *csv = replay_csv(sim, path);
    ROW_IS(csv, 1, "1,small,1,1,32,16,0,32,cta_slots,50.00,1000.000,1320.000,1320.000,1820.000,320.000,0.78,"
                   "1100.000,1120.000,1120.000,1870.000,4,,,,1,0.7812");
    ROW_IS(csv, 2, "2,small,2,1,32,16,0,32,cta_slots,50.00,1000.000,2070.000,2070.000,2570.000,1070.000,0.78,"
                   "1230.000,1240.000,1870.000,2620.000,6,,,,1,0.7812");
    free(csv);
    gd_sim_free(sim);
    remove(path);
    free(path);
}
END_TEST

/* Dependencies that wait on each other: K0 (q2, signal T) and K2 (q1, signal T) are
 * both submitted before K0 completes, so T stays above 0 while K2 waits behind B1,
 * which waits for K1's signal S, and K1 waits behind B0, which waits for T. The
 * replay stops with an error naming the stuck queues and records. */
START_TEST(dependency_cycle_is_an_error)
{
    char *path;
    gd_trace_writer *w = new_trace(&path);
    add_signalled(w, 2, 1000, 1, 1024, 1, 1, 0x7); /* record 3: K0, T */
    add_barrier(w, GD_REC_BARRIER_AND, 0, 1000, 1, 0x7, 0); /* record 4: B0 on T */
    add_signalled(w, 0, 1000, 2, 32, 1, 1, 0x5);   /* record 5: K1, S */
    add_barrier(w, GD_REC_BARRIER_AND, 1, 1000, 1, 0x5, 0); /* record 6: B1 on S */
    add_signalled(w, 1, 1000, 2, 32, 1, 1, 0x7);   /* record 7: K2, T */
    ck_assert_int_eq(gd_trace_finish(w, NULL), GD_OK);
    gd_sim *sim = small_gpu();
    ck_assert_int_eq(gd_sim_replay_file(sim, path), GD_EFORMAT);
    const char *m = gd_sim_errmsg(sim);
    ck_assert_msg(strstr(m, path) && strstr(m, "form a cycle") &&
                      strstr(m, "queue 0: 1 packet(s) not taken, the first waiting is the barrier-AND packet of "
                                "record 4, waiting on signal #0 = 1") &&
                      strstr(m, "queue 1: 1 packet(s) not taken, the first waiting is the barrier-AND packet of "
                                "record 6, waiting on signal #1 = 1"),
                  "%s", m);
    gd_sim_free(sim);
    remove(path);
    free(path);
}
END_TEST

/* The issue's example: 1000 CTAs x 256 threads, 64 registers, 10 us each, on h100:
 * 4 CTAs per SM (registers), 50 %, two waves: end - first CTA = 20 us plus the
 * launches of the second wave (471 CTAs after the 528 slots, one cycle each). */
START_TEST(issue_example_h100)
{
    char *path = tb_tmp_path(".gdt.gz");
    gd_trace_device d = h100_dev();
    gd_trace_writer *w;
    ck_assert_int_eq(gd_trace_create(&w, path, &d, "test", 6, NULL), GD_OK);
    add_kernel(w, 1, "example", 256, 64, 10000);
    add_dispatch(w, 0, 0, 1, 256, 1000, 1);
    ck_assert_int_eq(gd_trace_finish(w, NULL), GD_OK);
    gd_sim *sim;
    ck_assert_int_eq(gd_sim_new(&sim, NULL), GD_OK);
    ck_assert_int_eq(gd_sim_set(sim, "gpu.preset", "h100"), GD_OK);
    ck_assert_int_eq(gd_sim_set(sim, "cwd.policy", "baseline"), GD_OK);  /* one CTA per cycle, as the issue says */
    char *csv = replay_csv(sim, path);
    char *r = row(csv, 0);
    unsigned idx, queue, grid, threads, regs, smem, maxc;
    char name[64], limiter[32];
    double theo, submit, first, last, end;
    ck_assert_int_eq(sscanf(r, "%u,%63[^,],%u,%u,%u,%u,%u,%u,%31[^,],%lf,%lf,%lf,%lf,%lf", &idx, name, &queue, &grid,
                            &threads, &regs, &smem, &maxc, limiter, &theo, &submit, &first, &last, &end),
                     14);
    ck_assert_uint_eq(maxc, 4);
    ck_assert_str_eq(limiter, "registers");
    ck_assert_double_eq_tol(theo, 50.0, 1e-9);
    /* 471 launch cycles at 1980 MHz, each rounded to 505 ps */
    ck_assert_double_eq_tol(end - first, 20000.0 + 471 * 0.505, 1e-6);
    free(r);
    free(csv);
    /* Seed 003's distributor launches the first wave (528 CTAs) in one step and, when
     * it retires all at once, the other 472 in another: 8 query cycles, 8 SM masks
     * (one per GPC) and 1 cycle of id broadcast, 17 cycles of 505 ps. */
    ck_assert_int_eq(gd_sim_set(sim, "cwd.policy", "cga"), GD_OK);
    csv = replay_csv(sim, path);
    r = row(csv, 0);
    ck_assert_int_eq(sscanf(r, "%u,%63[^,],%u,%u,%u,%u,%u,%u,%31[^,],%lf,%lf,%lf,%lf,%lf", &idx, name, &queue, &grid,
                            &threads, &regs, &smem, &maxc, limiter, &theo, &submit, &first, &last, &end),
                     14);
    ck_assert_double_eq_tol(end - first, 20000.0 + 17 * 0.505, 1e-6);
    ck_assert_double_eq_tol(last - first, 10000.0 + 17 * 0.505, 1e-6);
    free(r);
    free(csv);
    gd_sim_free(sim);
    remove(path);
    free(path);
}
END_TEST

/* Same trace, same configuration: byte-identical CSV and JSON, also across handles. */
START_TEST(deterministic)
{
    char *path;
    gd_trace_writer *w = new_trace(&path);
    for (uint32_t i = 0; i < 200; i++)
        add_dispatch(w, i % 3, 1000 + i * 7, 1 + i % 2, i % 2 ? 32 : 1024, 1 + (i * 37) % 23, (int)(i % 5 != 0));
    ck_assert_int_eq(gd_trace_finish(w, NULL), GD_OK);
    char *csv[2], *json[2];
    for (int k = 0; k < 2; k++) {
        gd_sim *sim = small_gpu();
        csv[k] = replay_csv(sim, path);
        json[k] = summary_json(sim);
        gd_sim_free(sim);
    }
    ck_assert_str_eq(csv[0], csv[1]);
    ck_assert_str_eq(json[0], json[1]);
    ck_assert_ptr_nonnull(strstr(json[0], "\"frontend.clock_mhz\": 1000"));
    ck_assert_ptr_nonnull(strstr(json[0], "\"gdsim_version\": \"" GD_VERSION_STRING "\""));
    ck_assert_ptr_nonnull(strstr(json[0], "\"kernels\": 200"));
    for (int k = 0; k < 2; k++) {
        free(csv[k]);
        free(json[k]);
    }
    remove(path);
    free(path);
}
END_TEST

/* The simulation shortcuts (fused retire-and-launch steps, retirements handed over
 * late while no kernel waits; refills of a full GPU under seed 003's distributor) must
 * not change any result: random traces with mixed kernel shapes on an uneven GPC layout
 * give byte-identical CSVs with sim.shortcuts=on and off under both distributors, and
 * under seed 003's the same summary (every block's statistics). */
START_TEST(shortcuts_change_nothing)
{
    uint64_t seed = 0x9e3779b97f4a7c15ull * (uint64_t)(_i + 1);
    char *path = tb_tmp_path(".gdt.gz");
    gd_trace_device d = h100_dev();
    gd_trace_writer *w;
    ck_assert_int_eq(gd_trace_create(&w, path, &d, "random", 6, NULL), GD_OK);
    /* kernel shapes: threads, regs, smem, ns per CTA */
    static const uint32_t shapes[][4] = {{1024, 32, 0, 1000}, {32, 16, 0, 500},   {256, 64, 20000, 730},
                                         {96, 40, 1000, 1300}, {512, 128, 0, 250}, {128, 24, 49152, 2000}};
    for (uint32_t k = 0; k < 6; k++) {
        gd_kernel_desc kd;
        memset(&kd, 0, sizeof kd);
        kd.id = k + 1;
        kd.name = (char *)"random";
        kd.threads_per_cta = shapes[k][0];
        kd.regs_per_thread = shapes[k][1];
        kd.static_smem = shapes[k][2];
        kd.exec_model = GD_EXEC_FIXED_CTA;
        /* whole nanoseconds on odd seeds: CTAs then often end at the same time */
        kd.cta_duration_ps = shapes[k][3] * 1000ull + (_i % 2 ? 0 : seed % 997);
        ck_assert_int_eq(gd_trace_write_kernel(w, &kd, NULL), GD_OK);
    }
    uint64_t t = 1000;
    for (uint32_t i = 0; i < 400; i++) {
        seed = seed * 6364136223846793005ull + 1442695040888963407ull;
        uint32_t r = (uint32_t)(seed >> 33);
        uint32_t k = r % 6;
        gd_aql_dispatch p;
        memset(&p, 0, sizeof p);
        p.header = GD_AQL_TYPE_KERNEL_DISPATCH | ((r >> 4) % 4 ? GD_AQL_HEADER_BARRIER : 0);
        p.setup = 1;
        p.workgroup_size[0] = (uint16_t)shapes[k][0];
        p.workgroup_size[1] = p.workgroup_size[2] = 1;
        p.grid_size[0] = (1 + (r >> 8) % 60) * shapes[k][0];
        p.grid_size[1] = p.grid_size[2] = 1;
        p.group_segment_size = shapes[k][2];
        p.kernel_object = k + 1;
        t += (r >> 16) % 900;
        p.completion_signal = i + 1;
        ck_assert_int_eq(gd_trace_write_dispatch(w, (r >> 12) % 4, t, &p, NULL, NULL), GD_OK);
        /* now and then a barrier on earlier kernels (another queue's, mostly) or a copy */
        if (i > 20 && r % 8 == 0) {
            gd_aql_barrier_pkt b;
            memset(&b, 0, sizeof b);
            int or_ = (r >> 3) % 3 == 0;
            b.header = (uint16_t)((or_ ? GD_AQL_TYPE_BARRIER_OR : GD_AQL_TYPE_BARRIER_AND) |
                                  ((r >> 5) % 2 ? GD_AQL_HEADER_BARRIER : 0));
            b.dep_signal[0] = i + 1 - (r >> 20) % 20;
            b.dep_signal[2] = i + 1 - (r >> 25) % 20;
            ck_assert_int_eq(gd_trace_write_barrier(w, or_ ? GD_REC_BARRIER_OR : GD_REC_BARRIER_AND,
                                                    (r >> 14) % 4, t, &b, NULL, NULL), GD_OK);
        } else if (r % 10 == 1) {
            gd_trace_command c;
            memset(&c, 0, sizeof c);
            c.queue = (r >> 14) % 4;
            c.kind = GD_CMD_MEMCPY_DTOD;
            c.barrier = 1;
            c.submit_ns = t;
            c.duration_ps = (r >> 9) % 3000 * 1000ull;
            c.info = gd_launch_info_unknown();
            ck_assert_int_eq(gd_trace_write_command(w, &c, NULL), GD_OK);
        }
    }
    ck_assert_int_eq(gd_trace_finish(w, NULL), GD_OK);
    for (int cga = 0; cga < 2; cga++) {
        char *csv[2], *json[2];
        for (int on = 0; on < 2; on++) {
            gd_sim *sim = small_gpu();
            ck_assert_int_eq(gd_sim_set(sim, "cwd.policy", cga ? "cga" : "baseline"), GD_OK);
            ck_assert_int_eq(gd_sim_set(sim, "gpu.gpcs", "3"), GD_OK);
            ck_assert_int_eq(gd_sim_set(sim, "gpu.sms_per_gpc", "2,3,1"), GD_OK);
            ck_assert_int_eq(gd_sim_set(sim, "cwd.max_resident_kernels", _i % 2 ? "4" : "128"), GD_OK);
            ck_assert_int_eq(gd_sim_set(sim, "sim.shortcuts", on ? "on" : "off"), GD_OK);
            /* no grid-launch latency on some seeds: a kernel's first launch is then at its
             * arrival, right after retirements that were handed over late */
            ck_assert_int_eq(gd_sim_set(sim, "cwd.grid_launch_cycles", _i % 3 == 0 ? "0" : "200"), GD_OK);
            csv[on] = replay_csv(sim, path);
            json[on] = summary_json(sim);
            /* the configuration lists the key itself */
            char *key = strstr(json[on], "\"sim.shortcuts\"");
            ck_assert_ptr_nonnull(key);
            memmove(key, strchr(key, '\n'), strlen(strchr(key, '\n')) + 1);
            gd_sim_free(sim);
        }
        ck_assert_str_eq(csv[0], csv[1]);
        /* seed 003's distributor: shortcuts are refills of a full GPU (docs/MODEL.md), which
         * leave every statistic as it is; the prior art's fused steps count fewer steps */
        if (cga)
            ck_assert_msg(!strcmp(json[0], json[1]), "summaries differ");
        for (int on = 0; on < 2; on++) {
            free(csv[on]);
            free(json[on]);
        }
    }
    remove(path);
    free(path);
}
END_TEST

/* A trace without dispatches replays to an empty report. */

/* The closed-loop host (issue 41; host.h, format 1.10). One host thread, N iterations
 * of: a call launching a one-CTA kernel on queue 0 (CPU gap 300 ns after the previous
 * return; the first at the thread's start), a wait for queue 0 (cudaStreamSynchronize:
 * issued at once, returning 100 ns after the kernel's last CTA ended, 50 after its
 * completion). Captured every 2500 ns.
 * On the small GPU a kernel submitted at s completes at s + 360 + D (fetch 100, decode
 * 10, grid launch 200, the CTA's D, completion 50). A second thread, when given, launches
 * a small kernel on queue 1 every 700 ns and never waits. */
#define LOOP_N 4
static char *loop_trace(uint64_t cta_ns, int loader)
{
    char *path = tb_tmp_path(".gdt.gz");
    gd_trace_device d = h100_dev();
    gd_trace_writer *w;
    ck_assert_int_eq(gd_trace_create(&w, path, &d, "test_replay closed loop", 6, NULL), GD_OK);
    gd_trace_host_thread t;
    memset(&t, 0, sizeof t);
    t.start_ns = 1000;
    snprintf(t.name, sizeof t.name, "main");
    ck_assert_int_eq(gd_trace_write_host_thread(w, &t, NULL), GD_OK);
    if (loader) {
        t.thread = 1;
        t.start_ns = 1200;
        snprintf(t.name, sizeof t.name, "loader");
        ck_assert_int_eq(gd_trace_write_host_thread(w, &t, NULL), GD_OK);
    }
    add_kernel(w, 1, "step", 1024, 32, cta_ns);
    add_kernel(w, 2, "load", 32, 16, 500);
    uint64_t next_load = 1200;
    int loads = 0;
    for (int i = 0; i < LOOP_N; i++) {
        uint64_t at = 1000 + 2500 * (uint64_t)i;
        for (; loader && next_load < at + 2; next_load += 700, loads++) {  /* the loader's calls before it */
            gd_trace_host_call lc = {1, 1, loads ? 700 : 0, 0};
            ck_assert_int_eq(gd_trace_write_host_call(w, &lc, NULL), GD_OK);
            add_dispatch(w, 1, next_load, 2, 32, 1, 1);
        }
        gd_trace_host_call c = {0, 1, i ? 300 : 0, 0};
        ck_assert_int_eq(gd_trace_write_host_call(w, &c, NULL), GD_OK);
        add_dispatch(w, 0, at, 1, 1024, 1, 1);
        gd_trace_host_wait h = {0, GD_WAIT_QUEUE, i == LOOP_N - 1 ? GD_HOST_LAST : 0, 0, 0, at + 1, 0, 100};
        ck_assert_int_eq(gd_trace_write_host_wait(w, &h, NULL), GD_OK);
    }
    ck_assert_int_eq(gd_trace_finish(w, NULL), GD_OK);
    return path;
}

/* Column col (0-based) of data row i of a kernels CSV, as a number. */
static double csv_num(const char *csv, int i, int col)
{
    char *r = row_full(csv, i);
    const char *p = r;
    for (int c = 0; c < col; c++)
        p = strchr(p, ',') + 1;
    double v = strtod(p, NULL);
    free(r);
    return v;
}
#define COL_QUEUE 2
#define COL_SUBMIT 10
#define COL_FIRST 11
#define COL_END 13

START_TEST(closed_loop_follows_the_gpu)
{
    uint64_t span[2][2];  /* [closed, open][D 1000, 500] */
    for (int open = 0; open < 2; open++) {
        for (int half = 0; half < 2; half++) {
            /* the kernels twice as fast: the same trace, sm.cta_time_scale=0.5 */
            const uint64_t D = half ? 500 : 1000;
            char *path = loop_trace(1000, 0);
            gd_sim *sim = small_gpu();
            if (open)
                ck_assert_int_eq(gd_sim_set(sim, "host.mode", "open"), GD_OK);
            if (half)
                ck_assert_int_eq(gd_sim_set(sim, "sm.cta_time_scale", "0.5"), GD_OK);
            char *csv = replay_csv(sim, path);
            for (int i = 0; i < LOOP_N; i++) {
                /* closed: each call 300 ns after the previous wait returned (the kernel's end +
                 * 100); open: at its captured time */
                double want = open ? 1000.0 + 2500.0 * i : 1000.0 + (710.0 + (double)D) * i;
                ck_assert_msg(csv_num(csv, i, COL_SUBMIT) == want, "%s, D %llu: kernel %d submitted at %.3f, not %.3f",
                              open ? "open" : "closed", (unsigned long long)D, i, csv_num(csv, i, COL_SUBMIT), want);
            }
            gd_summary s;
            gd_sim_summary(sim, &s);
            span[open][half] = s.sim_time_ns;
            ck_assert_uint_eq(stat_value(sim, "host", "threads"), open ? 0 : 1);
            ck_assert_uint_eq(stat_value(sim, "host", "calls"), open ? 0 : LOOP_N);
            ck_assert_uint_eq(stat_value(sim, "host", "waits"), open ? 0 : LOOP_N);
            if (!open) {  /* CPU: 3 gaps of 300 ns; waited: submit to completion, 360 + D each */
                ck_assert_uint_eq(stat_value(sim, "host", "cpu"), 900000);
                ck_assert_uint_eq(stat_value(sim, "host", "waited"), (uint64_t)LOOP_N * (360 + D) * 1000);
            }
            /* the bounds (bounds.h): closed, the critical path is every iteration (front end
             * 360 and the kernel's D), the 3 CPU gaps and 3 wait tails between; open, the
             * captured submit of the last kernel (7500) and that kernel. With no host time
             * (the GPU floor) the four kernels run one after another on their queue. */
            const uint64_t span_ps = s.sim_time_ns * 1000;
            ck_assert_uint_eq(stat_value(sim, "bounds", "span"), span_ps);
            ck_assert_uint_eq(stat_value(sim, "bounds", "host_cpu"), open ? 7500000 : 900000);
            ck_assert_uint_eq(stat_value(sim, "bounds", "host_sync"), open ? 0 : 150000);  /* completion + 50 */
            ck_assert_uint_eq(stat_value(sim, "bounds", "held"), 0);
            ck_assert_uint_eq(stat_value(sim, "bounds", "front_end"), (open ? 1 : LOOP_N) * 360000);
            ck_assert_uint_eq(stat_value(sim, "bounds", "sms_full"), 0);
            ck_assert_uint_eq(stat_value(sim, "bounds", "kernels"), (open ? 1 : LOOP_N) * D * 1000);
            ck_assert_uint_eq(stat_value(sim, "bounds", "host_floor"), open ? 7500000 : 1050000);
            ck_assert_uint_eq(stat_value(sim, "bounds", "gpu_floor"), LOOP_N * (360 + D) * 1000);  /* one queue */
            /* the GPU: each kernel's D running, 360 in the front end, the rest idle for the host */
            ck_assert_uint_eq(stat_value(sim, "bounds", "busy_kernels"), LOOP_N * D * 1000);
            ck_assert_uint_eq(stat_value(sim, "bounds", "idle_front_end"), LOOP_N * 360000);
            ck_assert_uint_eq(stat_value(sim, "bounds", "idle_dependency"), 0);
            ck_assert_uint_eq(stat_value(sim, "bounds", "idle_nothing_submitted"),
                              span_ps - LOOP_N * (360 + D) * 1000);
            char *report = written(sim, gd_sim_write_summary_text, ".txt");
            ck_assert_ptr_nonnull(strstr(report, open ? "  bounds              host-bound:"
                                                      : "  bounds              GPU-bound:"));
            free(report);
            free(csv);
            gd_sim_free(sim);
            remove(path);
            free(path);
        }
    }
    /* closed: N x (710 + D) - 350 from the first submit to the last completion */
    ck_assert_uint_eq(span[0][0], LOOP_N * (710 + 1000) - 350);
    ck_assert_uint_eq(span[0][0] - span[0][1], LOOP_N * 500);  /* every kernel's half saved */
    ck_assert_uint_eq(span[1][0] - span[1][1], 500);           /* open: the last kernel's only */
}
END_TEST

/* A thread that never waits goes on at its own pace whatever the GPU does: the loader's
 * submits are its captured times in closed loop, for both kernel durations. */
START_TEST(closed_loop_threads_independent)
{
    char *csv[2];
    for (int half = 0; half < 2; half++) {
        char *path = loop_trace(half ? 500 : 1000, 1);
        gd_sim *sim = small_gpu();
        csv[half] = replay_csv(sim, path);
        ck_assert_uint_eq(stat_value(sim, "host", "threads"), 2);
        gd_sim_free(sim);
        remove(path);
        free(path);
    }
    int loads = 0, rows = -1;  /* (the header line) */
    for (const char *p = csv[0]; (p = strchr(p, '\n')) != NULL; p++)
        rows++;
    ck_assert_int_eq(rows, LOOP_N + 11);  /* 11 loads: 1200, 1900, ... 8200 */
    for (int i = 0; i < rows; i++) {
        if (csv_num(csv[0], i, COL_QUEUE) != 1)
            continue;
        double want = 1200.0 + 700.0 * loads++;
        ck_assert_msg(csv_num(csv[0], i, COL_SUBMIT) == want, "loader kernel %d at %.3f, not %.3f", i,
                      csv_num(csv[0], i, COL_SUBMIT), want);
        ck_assert_msg(csv_num(csv[1], i, COL_SUBMIT) == want, "loader kernel %d at %.3f with D 500, not %.3f", i,
                      csv_num(csv[1], i, COL_SUBMIT), want);
    }
    ck_assert_int_eq(loads, 11);
    free(csv[0]);
    free(csv[1]);
}
END_TEST

/* What-ifs on the captured times (docs/WHATIF.md): per-kernel CTA time rules scale the
 * kernels their first matching rule names, and count what each matched; the host's CPU
 * scale shortens each iteration's gap and tail. */
START_TEST(cta_time_rules_and_host_scale)
{
    char *path = loop_trace(1000, 1);
    char *rules = tb_tmp_path(".txt");
    FILE *f = fopen(rules, "w");
    fputs("# the step kernel twice as fast\n0.5 st*\n2 nothing*\n0.25 step\n", f);
    fclose(f);
    gd_sim *sim = small_gpu();
    ck_assert_int_eq(gd_sim_set(sim, "sm.cta_time_rules", rules), GD_OK);
    char *csv = replay_csv(sim, path);
    gd_summary s;
    for (int i = 0, step = 0; i < LOOP_N + 11; i++)  /* the steps as with sm.cta_time_scale=0.5 */
        if (csv_num(csv, i, COL_QUEUE) == 0) {
            ck_assert(csv_num(csv, i, COL_SUBMIT) == 1000.0 + (710.0 + 500.0) * step);
            step++;
        }
    for (int i = 0; i < LOOP_N + 11; i++) {  /* step kernels 500 ns, the loader's as captured */
        double d = csv_num(csv, i, COL_END) - csv_num(csv, i, COL_FIRST);
        ck_assert_msg(d == 500.0, "kernel %d (queue %.0f) ran %.3f ns", i, csv_num(csv, i, COL_QUEUE), d);
    }
    char *json = written(sim, gd_sim_write_summary_json, ".json");
    char want[600];
    snprintf(want, sizeof want, "\"rules\": {\"file\": \"%s\", \"rules\": [{\"line\": 2, \"pattern\": \"st*\", \"scale\": "
             "0.5, \"kernels\": 1, \"dispatches\": 4}, {\"line\": 3, \"pattern\": \"nothing*\", \"scale\": 2, "
             "\"kernels\": 0, \"dispatches\": 0}, {\"line\": 4, \"pattern\": \"step\", \"scale\": 0.25, \"kernels\": 0, "
             "\"dispatches\": 0}], \"unmatched_kernels\": 1, \"unmatched_dispatches\": 11}}", rules);
    ck_assert_msg(strstr(json, want) != NULL, "no %s in %s", want, json);
    char *text = written(sim, gd_sim_write_summary_text, ".txt");
    ck_assert_ptr_nonnull(strstr(text, "    line 2    x0.5      4 dispatches of 1 kernels  st*\n"));
    ck_assert_ptr_nonnull(strstr(text, "    no rule             11 dispatches of 1 kernels (as measured)\n"));
    free(text);
    free(json);
    free(csv);
    /* a second replay counts afresh; without the rules, as captured */
    ck_assert_int_eq(gd_sim_replay_file(sim, path), GD_OK);
    json = written(sim, gd_sim_write_summary_json, ".json");
    ck_assert_msg(strstr(json, want) != NULL, "second replay: %s", json);
    free(json);
    ck_assert_int_eq(gd_sim_set(sim, "sm.cta_time_rules", "none"), GD_OK);
    csv = replay_csv(sim, path);
    ck_assert(csv_num(csv, LOOP_N + 10, COL_QUEUE) == 0.0);  /* the last step, as captured */
    ck_assert(csv_num(csv, LOOP_N + 10, COL_SUBMIT) == 1000.0 + (710.0 + 1000.0) * (LOOP_N - 1));
    free(csv);
    json = written(sim, gd_sim_write_summary_json, ".json");
    ck_assert_ptr_nonnull(strstr(json, "\"scale\": 1, \"rules\": null}"));
    free(json);
    gd_sim_free(sim);
    remove(path);
    free(path);
    /* the host's CPU: gaps (300) and tails (100) at half and at zero */
    path = loop_trace(1000, 0);
    for (int z = 0; z < 2; z++) {
        sim = small_gpu();
        ck_assert_int_eq(gd_sim_set(sim, "host.cpu_time_scale", z ? "0" : "0.5"), GD_OK);
        ck_assert_int_eq(gd_sim_replay_file(sim, path), GD_OK);
        gd_sim_summary(sim, &s);
        /* at half, a tail of 50 from the kernel's end returns at its completion */
        ck_assert_uint_eq(s.sim_time_ns, LOOP_N * (360 + 1000) + (LOOP_N - 1) * (z ? 0 : 150));
        ck_assert_uint_eq(stat_value(sim, "bounds", "host_cpu"), z ? 0 : 3 * 150000);
        gd_sim_free(sim);
    }
    remove(rules);
    free(rules);
    remove(path);
    free(path);
}
END_TEST

START_TEST(empty_trace)
{
    char *path;
    gd_trace_writer *w = new_trace(&path);
    ck_assert_int_eq(gd_trace_finish(w, NULL), GD_OK);
    gd_sim *sim = small_gpu();
    char *csv = replay_csv(sim, path);
    ck_assert_str_eq(strchr(csv, '\n') + 1, "");
    gd_summary s;
    ck_assert_int_eq(gd_sim_summary(sim, &s), GD_OK);
    ck_assert_uint_eq(s.kernels, 0);
    ck_assert_uint_eq(s.ctas, 0);
    ck_assert_uint_eq(s.sim_time_ns, 0);
    ck_assert_double_eq(s.mean_sm_occupancy_pct, 0.0);
    free(csv);
    gd_sim_free(sim);
    remove(path);
    free(path);
}
END_TEST

/* A trace that cannot run on the chosen device is an error naming the kernel. */
START_TEST(model_errors)
{
    char *path = tb_tmp_path(".gdt.gz");
    gd_trace_device d = h100_dev();
    gd_trace_writer *w;
    ck_assert_int_eq(gd_trace_create(&w, path, &d, "test", 6, NULL), GD_OK);
    gd_kernel_desc k;
    memset(&k, 0, sizeof k);
    k.id = 1;
    k.name = (char *)"fat";
    k.threads_per_cta = 128;
    k.static_smem = 150000; /* fits an H100, not a V100 */
    k.exec_model = GD_EXEC_FIXED_CTA;
    ck_assert_int_eq(gd_trace_write_kernel(w, &k, NULL), GD_OK);
    ck_assert_int_eq(gd_trace_finish(w, NULL), GD_OK);
    gd_sim *sim;
    gd_sim_new(&sim, NULL);
    ck_assert_int_eq(gd_sim_set(sim, "gpu.preset", "v100"), GD_OK);
    ck_assert_int_eq(gd_sim_replay_file(sim, path), GD_EFORMAT);
    ck_assert_ptr_nonnull(strstr(gd_sim_errmsg(sim), "kernel 'fat'"));
    ck_assert_ptr_nonnull(strstr(gd_sim_errmsg(sim), "record 1 (offset"));
    ck_assert_int_eq(gd_sim_set(sim, "gpu.preset", "h100"), GD_OK);
    ck_assert_int_eq(gd_sim_replay_file(sim, path), GD_OK);
    /* trace: this trace's device (132 SMs, cc 9.0, warp 32) is the h100 chip */
    ck_assert_int_eq(gd_sim_set(sim, "gpu.preset", "trace"), GD_OK);
    ck_assert_int_eq(gd_sim_replay_file(sim, path), GD_OK);
    gd_sim_free(sim);
    remove(path);
    free(path);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("replay");
    TCase *tc = tcase_create("timeline");
    tcase_add_test(tc, hand_checked_timeline);
    tcase_add_test(tc, no_barrier_overlaps);
    tcase_add_test(tc, wait_until_holds_ctas);
    tcase_add_test(tc, cga_plain_grid_fills_the_lake);
    tcase_add_test(tc, cga_clusters_launch_whole);
    tcase_add_test(tc, cga_wait_from_a_full_gpu_strands_what_retires);
    tcase_add_test(tc, condensed_packet_timeline);
    tcase_add_test(tc, rsb_entries_bound_ref_num);
    tcase_add_test(tc, channels_admit_beside);
    tcase_add_test(tc, distributor_full_waits);
    tcase_add_test(tc, full_queue_stalls_host);
    tcase_add_test(tc, retire_before_launch_across_gpcs);
    tcase_add_test(tc, barrier_and_and_command);
    tcase_add_test(tc, launch_gap_kernel_kernel);
    tcase_add_test(tc, doorbell_wakes_an_idle_queue);
    tcase_add_test(tc, launch_gap_after_wait_and_copy);
    tcase_add_test(tc, calibration_record_sets_gaps);
    tcase_add_test(tc, barrier_or);
    tcase_add_test(tc, dependency_cycle_is_an_error);
    tcase_add_test(tc, issue_example_h100);
    tcase_add_test(tc, deterministic);
    tcase_add_loop_test(tc, shortcuts_change_nothing, 0, 12);
    tcase_add_test(tc, model_errors);
    tcase_add_test(tc, empty_trace);
    tcase_add_test(tc, closed_loop_follows_the_gpu);
    tcase_add_test(tc, closed_loop_threads_independent);
    tcase_add_test(tc, cta_time_rules_and_host_scale);
    tcase_set_timeout(tc, 60);
    suite_add_tcase(s, tc);
    return tb_run_suite(s);
}
