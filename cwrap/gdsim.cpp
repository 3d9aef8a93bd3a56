// gdsim.cpp - the extern "C" shim: the public C API (include/gdsim.h) over the
// SystemC model. It owns the SystemC simulation context (a fresh one per replay,
// deleted after its modules), keeps SystemC silent, serialises replays with a
// process-wide lock, and turns every failure (C++ exceptions included) into a
// status code and a message.
#include "gdsim.h"
#include "condense.h"
#include "dump.h"
#include "topology.h"

#include <algorithm>
#include <cinttypes>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <pthread.h>
#include <new>
#include <stdexcept>
#include <string>

#include <systemc>
#include <unistd.h>

#include "config.h"
#include "cta_log.h"
#include "cta_rules.h"
#include "gpc_waves.hpp"
#include "gpu_top.hpp"
#include "occ_series.h"
#include "timeline.h"

#include <unordered_map>
#include <vector>
#include "report.h"
#include "stats.h"
#include "summary.h"
#include "trace.h"
#include "trace_source.hpp"

// libsystemc refers to sc_main; a C program linking only gdsim has none. This weak
// definition satisfies the linker and lets a SystemC program bring its own.
extern "C" __attribute__((weak)) int sc_main(int, char **) { return 0; }

struct gd_sim {
    gd_options opts;
    gd_settings *settings = nullptr;
    gd_err err;
    bool have_results = false;
    gd_config cfg;
    gd_summary summary;
    gd_report report;
    bool report_live = false;
    gd_run_pool pool;
    gd_stats stats;
    std::string trace_path, producer;
    gd_trace_device trace_dev;
    gd_trace_calibration calibration;  // the trace's calibration record (trace_dev.calibration points here)
    uint64_t records = 0;
    std::string getbuf;
    std::string cta_log_path;  // empty: none
    std::string meta_log_path; // empty: none
    int absolute_times = 0;    // gd_sim_set_absolute_times
    bool kernel_table = true;  // gd_sim_set_kernel_table
    std::string occ_path;      // gd_sim_set_occupancy_csv; empty: none
    uint64_t occ_interval_ns = 0;
    std::string vcd_path;      // gd_sim_set_vcd; empty: none
    uint32_t vcd_queues = 0;
    std::string timeline_path; // gd_sim_set_timeline; empty: none
    uint64_t timeline_interval_ns = 0;
    double timeout_s = 0;      // gd_sim_set_timeout; 0: none
    bool running = false;      // a replay runs on this handle (a call from its progress callback)
    volatile int interrupt = 0; // gd_sim_interrupt (a signal handler may set it)
    bool free_pending = false; // gd_sim_free from the progress callback: freed when the replay returns
    gd_cta_rules rules{};      // sm.cta_time_rules as the last replay read them, with their counts
    gd_config resolved;        // the configuration as resolved against a trace's device ...
    bool resolved_valid = false;  // ... by the last replay or gd_sim_resolve_config, settings unchanged since
};

namespace {

// The replay lock (include/gdsim.h, "Threading and lifetime"): SystemC keeps one
// current simulation context per process (sc_curr_simcontext) and the model a global
// time scale, so replays run one at a time. A thread that holds the lock is inside a
// replay: a replay asked for from its progress callback (another handle) would wait
// for itself, and is refused instead. fork() takes the lock first (atfork), so a child
// never starts with another thread's replay half done: it gets the lock free and the
// process's own context back.
pthread_mutex_t g_replay_lock = PTHREAD_MUTEX_INITIALIZER;
thread_local bool t_replaying = false;  // this thread holds g_replay_lock
thread_local bool t_fork_locked = false; // ... taken for a fork by this thread

struct replay_lock {
    replay_lock()
    {
        pthread_mutex_lock(&g_replay_lock);
        t_replaying = true;
    }
    ~replay_lock()
    {
        t_replaying = false;
        pthread_mutex_unlock(&g_replay_lock);
    }
    replay_lock(const replay_lock &) = delete;
    replay_lock &operator=(const replay_lock &) = delete;

    // A fork from a thread inside a replay (its progress callback) keeps the lock it
    // holds: the child is inside that replay too, and the library is not to be used
    // there (documented); the parent goes on.
    static void before_fork()
    {
        if (!t_replaying) {
            pthread_mutex_lock(&g_replay_lock);
            t_fork_locked = true;
        }
    }
    static void after_fork()
    {
        if (t_fork_locked) {
            t_fork_locked = false;
            pthread_mutex_unlock(&g_replay_lock);
        }
    }
};

const int g_atfork = pthread_atfork(replay_lock::before_fork, replay_lock::after_fork, replay_lock::after_fork);

// What watches the CTAs the GPCs start: the occupancy series (--occupancy-csv) and
// the timeline (--timeline: each kernel's CTAs per GPC, gathered until its row).
struct watchers final : gd::launch_watcher {
    gd_occ_series *occ = nullptr;
    const gd_report *report = nullptr;
    gd_timeline *tl = nullptr;
    struct on_gpc {
        gd_time_ps start = 0, end = 0;
        uint64_t ctas = 0;
    };
    std::unordered_map<uint64_t, std::vector<on_gpc>> per_kernel;  // kernels with CTAs launched, not yet written
    uint32_t gpcs = 0;
    gd_time_ps interval = 0, next_zero = 0;  // the warps counters: an idle interval after the last row drops to 0
    bool have_row = false;
    std::vector<double> zeros;  // an idle interval's GPC values
    void launched(const gd_kernel_run *k, uint32_t gpc, uint32_t sm, uint32_t ctas, uint32_t warps, gd_time_ps start,
                  gd_time_ps end) override
    {
        if (occ) {
            occ->base_ns = report->time_base_ns;  // known once the first packet is submitted
            gd_occ_series_add(occ, sm, ctas * warps, start, end);
        }
        if (tl) {
            std::vector<on_gpc> &v = per_kernel[k->index];
            if (v.empty())
                v.resize(gpcs);
            on_gpc &a = v[gpc];
            if (!a.ctas || start < a.start)
                a.start = start;
            if (end > a.end)
                a.end = end;
            a.ctas += ctas;
        }
    }
    static void row(void *ctx, const gd_kernel_run *k)
    {
        auto *w = static_cast<watchers *>(ctx);
        gd_timeline_set_origin(w->tl, w->report->origin_ns, w->report->time_base_ns);
        auto it = w->per_kernel.find(k->index);
        if (it != w->per_kernel.end()) {
            for (uint32_t g = 0; g < w->gpcs; g++)
                if (it->second[g].ctas)
                    gd_timeline_gpc(w->tl, k, g, it->second[g].ctas, it->second[g].start, it->second[g].end);
            w->per_kernel.erase(it);
        }
        gd_timeline_kernel(w->tl, k);
    }
    void zero_until(gd_time_ps start)
    {
        if (have_row && next_zero < start) {
            zeros.resize(gpcs, 0.0);
            gd_timeline_warps(tl, next_zero, zeros.data());
        }
    }
    static void warps(void *ctx, gd_time_ps start, const double *gpc)
    {
        auto *w = static_cast<watchers *>(ctx);
        gd_timeline_set_origin(w->tl, w->report->origin_ns, w->report->time_base_ns);
        w->zero_until(start);
        gd_timeline_warps(w->tl, start, gpc);
        w->have_row = true;
        w->next_zero = start + w->interval;
    }
};

void clear_results(gd_sim *s)
{
    if (s->report_live)
        gd_report_destroy(&s->report);
    s->report_live = false;
    gd_run_pool_destroy(&s->pool);
    gd_stats_destroy(&s->stats);
    gd_cta_rules_free(&s->rules);
    s->have_results = false;
}

int fail(gd_sim *s, int code, const char *fmt, const char *a)
{
    return gd_err_set(&s->err, code, fmt, a);
}

// A SystemC context for one replay. The old context is deleted only after every
// module in it (DESIGN.md: SystemC facts). A program with a SystemC simulation of its
// own keeps it: its context, the report actions and the model's time scale are put
// back afterwards (a replay inside a running simulation is refused: foreign_running).
struct sc_context_guard {
    sc_core::sc_simcontext *ctx, *prev_curr, *prev_default;
    sc_core::sc_actions prev_actions[4];
    gd::time_scale prev_scale;
    static constexpr sc_core::sc_severity severities[4] = {sc_core::SC_INFO, sc_core::SC_WARNING, sc_core::SC_ERROR,
                                                            sc_core::SC_FATAL};
    sc_context_guard()
    {
        static bool env_done = false;
        if (!env_done) {
            // The banner is printed when the first context is created unless this is set.
            setenv("SYSTEMC_DISABLE_COPYRIGHT_MESSAGE", "1", 0);
            env_done = true;
        }
        prev_curr = sc_core::sc_curr_simcontext;
        prev_default = sc_core::sc_default_global_context;
        prev_scale = gd::g_time_scale;
        gd::g_time_scale = gd::time_scale();
        ctx = new sc_core::sc_simcontext;
        sc_core::sc_curr_simcontext = ctx;
        sc_core::sc_default_global_context = ctx;
        static const sc_core::sc_actions mine[4] = {sc_core::SC_DO_NOTHING, sc_core::SC_DO_NOTHING, sc_core::SC_THROW,
                                                    sc_core::SC_THROW};
        for (int i = 0; i < 4; i++)
            prev_actions[i] = sc_core::sc_report_handler::set_actions(severities[i], mine[i]);
        sc_core::sc_set_time_resolution(1, sc_core::SC_PS);
    }
    ~sc_context_guard()
    {
        delete ctx;
        sc_core::sc_curr_simcontext = prev_curr;
        sc_core::sc_default_global_context = prev_default;
        for (int i = 0; i < 4; i++)
            sc_core::sc_report_handler::set_actions(severities[i], prev_actions[i]);
        gd::g_time_scale = prev_scale;
    }
    // A simulation of the calling program has started and not ended (a replay called
    // from one of its processes, or between its sc_start calls).
    static bool foreign_running()
    {
        return sc_core::sc_curr_simcontext && sc_core::sc_is_running(sc_core::sc_curr_simcontext);
    }
};

// SystemC's VCD header holds the wall-clock date: blanked in place (same length), so
// that a replay's outputs are the same bytes every time.
void blank_vcd_date(const char *path)
{
    std::FILE *f = std::fopen(path, "r+b");
    if (!f)
        return;
    char head[512];
    size_t n = std::fread(head, 1, sizeof head - 1, f);
    head[n] = '\0';
    char *d = std::strstr(head, "$date\n"), *e = d ? std::strstr(d, "\n$end") : nullptr;
    if (d && e) {
        d += 6;
        std::memset(d, ' ', (size_t)(e - d));
        const char mark[] = "     (not recorded)";
        std::memcpy(d, mark, std::min(sizeof mark - 1, (size_t)(e - d)));
        std::fseek(f, d - head, SEEK_SET);
        std::fwrite(d, 1, (size_t)(e - d), f);
    }
    std::fclose(f);
}

// Outputs written under a temporary name (gd_out_tmp: PATH.part-XXXXXX) and renamed once the replay has
// succeeded; removed when it fails, so that no file that looks complete is left.
struct part_files {
    struct entry {
        std::string tmp, final_path;
        bool copy;  // the final path is written in place (a device, a FIFO, a link): copied there
    };
    std::vector<entry> files;
    bool done = false;
    // Open final_path's output: a new temporary file beside it (gd_out_tmp), or the path
    // itself where it is written in place (a device, a FIFO, a symbolic link); null with
    // errno set when it cannot be.
    std::FILE *open(const std::string &final_path)
    {
        if (gd_out_in_place(final_path.c_str()))
            return std::fopen(final_path.c_str(), "w");
        char *tmp = nullptr;
        int fd = gd_out_tmp(final_path.c_str(), "", &tmp);
        if (fd < 0)
            return nullptr;
        files.push_back({tmp, final_path, false});
        std::free(tmp);
        std::FILE *f = fdopen(fd, "w");
        if (!f) {
            int e = errno;
            close(fd);
            errno = e;
        }
        return f;
    }
    // A file whose writer picks its own name (SystemC's VCD writer appends ".vcd"):
    // written as tmp, renamed to final_path, or copied into it where it is written in
    // place (the temporary file then lies in TMPDIR, not beside a device).
    void add_named(const std::string &tmp, const std::string &final_path)
    {
        files.push_back({tmp, final_path, gd_out_in_place(final_path.c_str()) != 0});
    }
    static int copy_into(const std::string &from, const std::string &to, gd_err *err)
    {
        std::FILE *in = std::fopen(from.c_str(), "rb");
        if (!in)
            return gd_err_set(err, GD_EIO, "%s: cannot read back %s: %s", to.c_str(), from.c_str(),
                              std::strerror(errno));
        std::FILE *out = std::fopen(to.c_str(), "wb");
        if (!out) {
            int e = errno;
            std::fclose(in);
            return gd_err_set(err, GD_EIO, "%s: cannot open: %s", to.c_str(), std::strerror(e));
        }
        char buf[1 << 16];
        size_t n;
        bool bad = false;
        while (!bad && (n = std::fread(buf, 1, sizeof buf, in)) > 0)
            bad = std::fwrite(buf, 1, n, out) != n;
        bad = std::ferror(in) || bad;
        bad = std::fclose(out) != 0 || bad;
        std::fclose(in);
        std::remove(from.c_str());
        return bad ? gd_err_set(err, GD_EIO, "%s: write failed", to.c_str()) : GD_OK;
    }
    int commit(gd_err *err)
    {
        done = true;
        int rc = GD_OK;
        for (auto &f : files) {
            if (rc != GD_OK) {
                std::remove(f.tmp.c_str());
            } else if (f.copy) {
                rc = copy_into(f.tmp, f.final_path, err);
            } else if (std::rename(f.tmp.c_str(), f.final_path.c_str()) != 0) {
                rc = gd_err_set(err, GD_EIO, "%s: cannot rename %s to it: %s", f.final_path.c_str(), f.tmp.c_str(),
                                std::strerror(errno));
            }
        }
        return rc;
    }
    ~part_files()
    {
        if (!done)
            for (auto &f : files)
                std::remove(f.tmp.c_str());
    }
};

// A replay stopped before its end (interrupt, timeout, simulated-time limit): the
// error says why and how far it got.
// events: null when the replay stopped while the device was built (built: how far).
void stopped_at(gd_sim *s, const char *path, const gd::progress_meter &m, const gd::domain *events,
                const gd::stopped_while_building *built = nullptr)
{
    const gd_progress p = m.snapshot(events ? std::max(events->last(), events->reached()) : 0,
                                     gd::progress_meter::now());
    char far[400];
    if (built)
        std::snprintf(far, sizeof far, "after %.1f s of wall time, while the model of the device was built (%" PRIu32
                      " of its %" PRIu32 " GPCs)", p.wall_seconds, built->done, built->of);
    else
        std::snprintf(far, sizeof far, "after %.1f s of wall time: %" PRIu64 " records read, %" PRIu64
                      " kernels done, %" PRIu64 " CTAs launched, %.6f ms simulated", p.wall_seconds, p.records_read,
                      p.kernels_done, p.ctas_done, p.sim_time_ns / 1e6);
    if (events && events->time_limit_hit())
        gd_err_set(&s->err, GD_ELIMIT, "%s: the simulated time reached %.6f s, past sim.max_sim_time_s (%u s); "
                   "stopped %s; nothing written", path, events->time_limit_at() * 1e-12, s->cfg.sim_max_sim_time_s,
                   far);
    else if (m.stop == gd::progress_meter::TIMED_OUT)
        gd_err_set(&s->err, GD_ELIMIT, "%s: the replay ran past its timeout of %g s and was stopped %s; nothing "
                   "written", path, s->timeout_s, far);
    else
        gd_err_set(&s->err, GD_EINTERRUPTED, "%s: the replay was interrupted %s; nothing written", path, far);
}

int replay(gd_sim *s, const char *path)
{
    part_files parts;
    std::string vcd_tmp;  // SystemC's VCD writer adds ".vcd" to it
    gd_trace_reader *reader = nullptr;
    int rc = gd_trace_open(&reader, path, &s->err);
    if (rc)
        return rc;
    s->trace_path = path;
    s->trace_dev = *gd_trace_device_of(reader);
    if (const gd_trace_calibration *cal = gd_trace_calibration_of(reader)) {
        s->calibration = *cal;
        s->trace_dev.calibration = &s->calibration;
    }
    s->producer = gd_trace_producer(reader);
    if ((rc = gd_config_resolve(&s->cfg, s->settings, &s->trace_dev, &s->err)) != GD_OK) {
        gd_trace_close_reader(reader);
        if (rc == GD_ECONFIG && std::strncmp(s->err.msg, path, std::strlen(path)) != 0) {
            // a rule between keys, broken by the device the trace describes or by a setting
            std::string m = s->err.msg;
            gd_err_set(&s->err, GD_ECONFIG, "%s: the configuration resolved with the device this trace describes "
                       "(record 0, the header) is not valid: %s", path, m.c_str());
        }
        return rc;
    }
    if (std::strcmp(s->cfg.sm_cta_time_rules, "none") != 0) {  // the CTA time rules, named as set
        if (!s->cfg.sm_cta_time_rules[0])
            rc = gd_err_set(&s->err, GD_ECONFIG, "sm.cta_time_rules is empty: give a rules file, or none");
        else if ((rc = gd_cta_rules_load(&s->rules, s->cfg.sm_cta_time_rules, &s->err)) != GD_OK) {
            std::string m = s->err.msg;
            gd_err_set(&s->err, rc, "the CTA time rules (sm.cta_time_rules): %s", m.c_str());
        }
        if (rc) {
            gd_trace_close_reader(reader);
            return rc;
        }
    }
    gd_trace_set_limits(reader, &s->cfg.sm, s->cfg.max_grid);
    gd_cluster_limits cl = {s->cfg.gpcs, s->cfg.sms_per_gpc, s->cfg.sms_per_tpc, s->cfg.cwd_gpc_cgas_per_sm,
                            s->cfg.cwd_gpc_cga_ids, s->cfg.cwd_lake_scan_limit};
    gd_trace_set_cluster_limits(reader, &cl);
    gd_trace_set_rsb(reader, s->cfg.rsb_entries);  // a ref_num beyond the model's buffer is the trace's error
    gd_trace_set_descriptor_bytes(reader, (uint64_t)s->cfg.sim_max_descriptor_mib << 20);
    gd_trace_set_run_limits(reader, s->cfg.sim_max_sim_time_s, s->cfg.sim_max_ctas, s->cfg.sim_max_kernel_descriptors,
                            s->cfg.sim_max_signals);
    gd_trace_set_simd_width(reader, s->cfg.meta_simd_width);  // pipeline topologies are validated with it
    gd_trace_set_read_ahead(reader, std::strcmp(s->cfg.sim_read_ahead, "on") == 0);
    if ((rc = gd_report_init(&s->report, &s->cfg, &s->pool, &s->err)) != GD_OK) {
        gd_trace_close_reader(reader);
        return rc;
    }
    s->report_live = true;

    s->report.absolute_times = s->absolute_times;
    s->report.no_rows = !s->kernel_table;
    gd_cta_log cta_log = {nullptr, &s->report.time_base_ns, 0};
    if (!s->cta_log_path.empty()) {
        cta_log.f = s->cta_log_path == "-" ? stdout : parts.open(s->cta_log_path);
        if (!cta_log.f) {
            gd_trace_close_reader(reader);
            return gd_err_set(&s->err, GD_EIO, "%s: cannot create the CTA log: %s", s->cta_log_path.c_str(),
                              std::strerror(errno));
        }
        if (std::fputs(GD_CTA_LOG_HEADER, cta_log.f) < 0)
            cta_log.io_error = 1;
    }

    std::FILE *meta_log = nullptr;
    bool meta_log_bad = false;
    if (!s->meta_log_path.empty()) {
        meta_log = s->meta_log_path == "-" ? stdout : parts.open(s->meta_log_path);
        if (!meta_log) {
            if (cta_log.f && cta_log.f != stdout)
                std::fclose(cta_log.f);
            gd_trace_close_reader(reader);
            return gd_err_set(&s->err, GD_EIO, "%s: cannot create the meta-scheduler log: %s",
                              s->meta_log_path.c_str(), std::strerror(errno));
        }
        if (std::fputs(gd::META_LOG_HEADER, meta_log) < 0)
            meta_log_bad = true;
    }

    // the occupancy series (a file, or only the timeline's counters) and the timeline
    std::FILE *occ_f = nullptr, *tl_f = nullptr;
    gd_occ_series occ;
    gd_timeline tl;
    std::vector<uint32_t> gpc_of;
    watchers watch;
    bool occ_live = false, tl_live = false;
    const bool want_tl = !s->timeline_path.empty();
    if (!s->occ_path.empty() || want_tl) {
        const char *bad = nullptr;
        if (!s->occ_path.empty() &&
            !(occ_f = s->occ_path == "-" ? stdout : parts.open(s->occ_path)))
            bad = s->occ_path.c_str();
        else if (want_tl &&
                 !(tl_f = s->timeline_path == "-" ? stdout : parts.open(s->timeline_path)))
            bad = s->timeline_path.c_str();
        if (bad) {
            int e = errno;
            for (std::FILE *f : {cta_log.f, meta_log, occ_f})
                if (f && f != stdout)
                    std::fclose(f);
            gd_trace_close_reader(reader);
            return gd_err_set(&s->err, GD_EIO, "%s: cannot create: %s", bad, std::strerror(e));
        }
        for (uint32_t g = 0; g < s->cfg.gpcs; g++)
            gpc_of.insert(gpc_of.end(), s->cfg.sms_per_gpc[g], g);
        // one series: the CSV's interval, or the timeline's when there is no CSV
        uint64_t interval = (occ_f ? s->occ_interval_ns : s->timeline_interval_ns) * GD_PS_PER_NS;
        int orc = gd_occ_series_init(&occ, occ_f, s->cfg.sms, s->cfg.gpcs, gpc_of.data(), interval, 0);
        occ_live = true;
        watch.occ = &occ;
        watch.report = &s->report;
        watch.gpcs = s->cfg.gpcs;
        watch.interval = interval;
        if (orc == GD_OK && want_tl) {
            orc = gd_timeline_open(&tl, tl_f, s->cfg.gpcs, s->absolute_times);
            tl_live = true;
            watch.tl = &tl;
            occ.on_row = watchers::warps;
            occ.on_row_ctx = &watch;
            s->report.on_row = watchers::row;
            s->report.on_row_ctx = &watch;
        }
        if (orc == GD_ENOMEM)
            gd_err_set(&s->err, GD_ENOMEM, "out of memory");
        else if (orc != GD_OK)
            gd_err_set(&s->err, GD_EIO, "write failed (%s)", want_tl ? s->timeline_path.c_str() : s->occ_path.c_str());
    }

    gd::device_env env;
    env.cta_log = cta_log.f ? &cta_log : nullptr;
    env.watch = occ_live ? &watch : nullptr;
    env.meta_log = meta_log;
    env.report = &s->report;
    env.err = &s->err;
    env.source = gd_trace_path(reader);
    env.progress.fn = s->opts.progress;
    env.progress.ctx = s->opts.progress_ctx;
    env.progress.records_read = [](const void *r) { return gd_trace_records_read((const gd_trace_reader *)r); };
    env.progress.input_fraction = [](const void *r) { return gd_trace_input_fraction((const gd_trace_reader *)r); };
    env.progress.ctas_read = [](const void *r) { return gd_trace_ctas_read((const gd_trace_reader *)r); };
    env.progress.records_src = reader;
    env.progress.kernels_done = &s->report.kernels;
    env.progress.interrupt = &s->interrupt;
    if (s->timeout_s > 0)
        env.progress.deadline = env.progress.start + s->timeout_s;
    gd::progress_watchdog watchdog(env.progress);  // reports and the deadline on time, to the end of the replay
    gd::host_env host_env;
    host_env.reader = reader;
    host_env.pool = &s->pool;
    host_env.report = &s->report;
    host_env.err = &s->err;
    host_env.progress = &env.progress;
    host_env.rules = s->rules.n ? &s->rules : nullptr;

    uint64_t packets = 0, stalls = 0, queues = 0, peak = 0, outstanding = 0, dispatches = 0;
    gd_time_ps resident_ps = 0, idle_ps = 0, longest_idle_ps = 0;
    bool finished = false;
    std::string stuck;
    {
        sc_context_guard ctx;
        gd::gpu_top *top = nullptr;
        gd::trace_source *host = nullptr;
        sc_core::sc_trace_file *vcd = nullptr;
        std::unique_ptr<gd::gpc_waves> waves;
        try {
            if (!s->vcd_path.empty()) {  // the GPCs' waveforms watch every launch (and pass it on)
                waves.reset(new gd::gpc_waves("gpc_waves", s->cfg.gpcs, env.watch));
                env.watch = waves.get();
            }
            top = new gd::gpu_top("gpu", s->cfg, env, &s->stats);
            // the host joins the GPU's event domain: the replay runs as one stretch of events
            host = new gd::trace_source("host", host_env, s->cfg, &top->events, &s->stats);
            host->doorbell_out.bind(top->pp.doorbell_in);
            top->pp.space_out.bind(host->space_in);
            if (!s->vcd_path.empty()) {  // SystemC writes NAME.vcd: a temporary name, renamed at the end
                // a new file NAME.part-XXXXXX.vcd beside it (gd_out_tmp), or in TMPDIR when
                // it is written in place (not beside a device); SystemC opens NAME + ".vcd"
                std::string base = s->vcd_path;
                if (gd_out_in_place(s->vcd_path.c_str())) {
                    const char *dir = std::getenv("TMPDIR");
                    base = std::string(dir && *dir ? dir : "/tmp") + "/gdsim-vcd-" + std::to_string(getpid());
                }
                char *made = nullptr;
                int fd = gd_out_tmp(base.c_str(), ".vcd", &made);
                if (fd < 0) {
                    gd_err_set(&s->err, GD_EIO, "%s: cannot create: %s", s->vcd_path.c_str(), std::strerror(errno));
                    throw std::runtime_error("vcd");
                }
                close(fd);
                vcd_tmp.assign(made, std::strlen(made) - 4);
                std::free(made);
                vcd = sc_core::sc_create_vcd_trace_file(vcd_tmp.c_str());
                parts.add_named(vcd_tmp + ".vcd", s->vcd_path);
                vcd->set_time_unit(1, sc_core::SC_PS);
                top->trace(vcd, s->vcd_queues);
                waves->trace(vcd);
            }
            // the kernel table's stage durations come after the blocks' sections
            if (gd_report_register_stats(&s->report, &s->stats)) {
                gd_err_set(&s->err, GD_ENOMEM, "out of memory");
                throw std::bad_alloc();
            }
            top->events.set_time_limit(std::min<gd_time_ps>((gd_time_ps)s->cfg.sim_max_sim_time_s * 1000000000000ull,
                                                            GD_TIME_LIMIT_PS));
            if (s->stats.nomem)  // a block could not register a statistic: the summary would lack it
                throw std::bad_alloc();
            top->events.set_poll(&gd::progress_meter::poll, &env.progress);
            env.progress.ctas_done = top->cwd.ctas_launched_counter();
            sc_core::sc_start();
            if (env.progress.stop != gd::progress_meter::RUNNING || top->events.time_limit_hit()) {
                stopped_at(s, path, env.progress, &top->events);
                throw std::runtime_error("stopped");
            }
            if (vcd)  // SystemC samples the last time step's values in one more (empty) delta cycle
                sc_core::sc_start(sc_core::SC_ZERO_TIME);
            top->finish();  // what the blocks still hold, their time accounts, the SMs' energy
            if (gd_report_register_vids(&s->report, &s->stats)) {
                gd_err_set(&s->err, GD_ENOMEM, "out of memory");
                throw std::bad_alloc();
            }
            env.progress.tick(std::max(gd::now_ps(), top->events.last()), true);  // a final report
            packets = top->pp.packets();
            stalls = top->pp.host_stalls();
            queues = top->pp.queues_used();
            outstanding = top->pp.outstanding();
            stuck = top->pp.stuck();
            peak = top->cwd.peak_resident_kernels();
            resident_ps = top->cwd.resident_ps();
            idle_ps = top->cwd.idle_ps();
            longest_idle_ps = top->cwd.longest_idle_ps();
            finished = host->finished();
            meta_log_bad |= top->meta.log_failed();
            dispatches = host->dispatches();
            gd_stats_freeze(&s->stats);
        } catch (const gd::stopped_while_building &b) {
            stopped_at(s, path, env.progress, nullptr, &b);
        } catch (const std::bad_alloc &) {
            if (s->err.code == GD_OK)
                gd_err_set(&s->err, GD_ENOMEM, "out of memory");
        } catch (const std::exception &e) {
            // SystemC hands on what a process threw as its report E549 ("uncaught exception: ...")
            if (s->err.code == GD_OK && std::strstr(e.what(), "std::bad_alloc"))
                gd_err_set(&s->err, GD_ENOMEM, "out of memory");
            else if (s->err.code == GD_OK)
                gd_err_set(&s->err, GD_EINTERNAL, "SystemC: %s", e.what());
        } catch (...) {
            if (s->err.code == GD_OK)
                gd_err_set(&s->err, GD_EINTERNAL, "SystemC: unknown exception");
        }
        if (top) {
            gd_stats_freeze(&s->stats);
        } else {  // the GPU's constructor threw: its blocks' counters are gone, and so is this replay
            gd_stats_destroy(&s->stats);
            gd_stats_init(&s->stats);
        }
        if (vcd)
            sc_core::sc_close_vcd_trace_file(vcd);
        delete host;  // it belongs to the GPU's event domain
        delete top;
        waves.reset();
    }
    s->records = gd_trace_records_read(reader);
    gd_trace_close_reader(reader);
    if (cta_log.f && ((cta_log.f == stdout ? std::fflush(stdout) : std::fclose(cta_log.f)) || cta_log.io_error) &&
        s->err.code == GD_OK)
        gd_err_set(&s->err, GD_EIO, "%s: write failed (CTA log)", s->cta_log_path.c_str());
    if (meta_log && ((meta_log == stdout ? std::fflush(stdout) : std::fclose(meta_log)) || meta_log_bad) &&
        s->err.code == GD_OK)
        gd_err_set(&s->err, GD_EIO, "%s: write failed (meta-scheduler log)", s->meta_log_path.c_str());
    if (!s->vcd_path.empty() && s->err.code == GD_OK)
        blank_vcd_date((vcd_tmp + ".vcd").c_str());
    if (occ_live) {
        int orc = s->err.code == GD_OK ? gd_occ_series_finish(&occ) : GD_OK;
        gd_occ_series_destroy(&occ);
        if (tl_live) {
            if (watch.have_row)
                watch.zero_until(UINT64_MAX);  // the counters drop to 0 after the last busy interval
            int trc = gd_timeline_close(&tl);
            gd_timeline_destroy(&tl);
            int tbad = tl_f == stdout ? std::fflush(stdout) : std::fclose(tl_f);
            s->report.on_row = nullptr;
            if (s->err.code == GD_OK && (trc != GD_OK || tbad))
                gd_err_set(&s->err, trc == GD_ENOMEM ? GD_ENOMEM : GD_EIO, "%s: write failed (timeline)",
                           s->timeline_path.c_str());
        }
        int bad = !occ_f ? 0 : occ_f == stdout ? std::fflush(stdout) : std::fclose(occ_f);
        if (s->err.code == GD_OK && orc == GD_ENOMEM)
            gd_err_set(&s->err, GD_ENOMEM, "out of memory (occupancy CSV)");
        else if (s->err.code == GD_OK && orc == GD_EINTERNAL)
            gd_err_set(&s->err, GD_EINTERNAL, "%s: internal: CTAs reached the occupancy series out of time order",
                       s->occ_path.c_str());
        else if (s->err.code == GD_OK && (orc != GD_OK || bad))
            gd_err_set(&s->err, GD_EIO, "%s: write failed (occupancy CSV)", s->occ_path.c_str());
    }
    if (s->err.code != GD_OK)
        return s->err.code;
    if (s->report.nomem)  // the report could not take a kernel: it looks unfinished, but that is why
        return gd_err_set(&s->err, GD_ENOMEM, "out of memory (kernel table)");
    if (finished && !stuck.empty())
        return gd_err_set(&s->err, GD_EFORMAT,
                          "%s: the replay cannot finish: packets wait for completion signals that can no longer "
                          "change (the trace's dependencies form a cycle): %s", path, stuck.c_str());
    if (!finished || outstanding || s->report.kernels != dispatches)
        return gd_err_set(&s->err, GD_EINTERNAL,
                          "%s: the simulation stopped with %llu of %llu kernels complete (a model deadlock: please "
                          "report it)", path, (unsigned long long)s->report.kernels, (unsigned long long)dispatches);
    if ((rc = gd_report_finish(&s->report, &s->err)) != GD_OK)
        return rc;
    gd_report_summary(&s->report, &s->summary);
    s->summary.packets = packets;
    s->summary.queues = queues;
    s->summary.host_stalls = stalls;
    s->summary.max_resident_kernels = peak;
    gd_report_resident(&s->report, &s->summary, resident_ps, idle_ps, longest_idle_ps);
    if ((rc = parts.commit(&s->err)) != GD_OK)
        return rc;
    s->have_results = true;
    s->resolved = s->cfg;
    s->resolved_valid = true;
    return GD_OK;
}

// An output of the C API: a temporary file renamed to PATH when complete (gd_out_open).
FILE *open_out(gd_sim *s, gd_outfile *o, const char *path, int *rc)
{
    *rc = gd_out_open(o, path, &s->err);
    return *rc == GD_OK ? o->f : nullptr;
}

int close_out(gd_sim *s, gd_outfile *o, int rc)
{
    const std::string path = o->final_path ? o->final_path : "standard output";
    int crc = gd_out_close(o, rc == GD_OK, &s->err);
    if (rc == GD_OK)
        return crc;
    if (s->err.code == GD_OK)
        gd_err_set(&s->err, rc, "%s: write failed", path.c_str());
    return rc;
}

}  // namespace

extern "C" {

// A call that would change what a running replay works with (made from its progress
// callback): refused.
#define GD_NOT_WHILE_RUNNING(sim, fn)                                                                         \
    do {                                                                                                      \
        if ((sim)->running)                                                                                   \
            return gd_err_set(&(sim)->err, GD_ESTATE, "%s: a replay is running on this handle (a call from "   \
                              "its progress callback?); only gd_sim_get, gd_sim_interrupt and gd_sim_errmsg "  \
                              "may be called then", fn);                                                      \
    } while (0)

int gd_options_init(gd_options *opts, unsigned int version)
{
    if (!opts || version != GD_OPTIONS_VERSION)
        return GD_EINVAL;
    std::memset(opts, 0, sizeof *opts);
    opts->version = GD_OPTIONS_VERSION;
    return GD_OK;
}

int gd_sim_new(gd_sim **out, const gd_options *opts)
{
    if (!out)
        return GD_EINVAL;
    *out = nullptr;
    if (opts && opts->version != GD_OPTIONS_VERSION)
        return GD_EINVAL;
    gd_sim *s = new (std::nothrow) gd_sim;
    if (!s)
        return GD_ENOMEM;
    gd_options_init(&s->opts, GD_OPTIONS_VERSION);
    if (opts)
        s->opts = *opts;
    gd_err_clear(&s->err);
    std::memset(&s->pool, 0, sizeof s->pool);
    gd_stats_init(&s->stats);
    std::memset(&s->summary, 0, sizeof s->summary);
    if (!(s->settings = gd_settings_new())) {
        delete s;
        return GD_ENOMEM;
    }
    *out = s;
    return GD_OK;
}

void gd_sim_free(gd_sim *sim)
{
    if (!sim)
        return;
    if (sim->running) {  // from the replay's own progress callback: stop it, free on the way out
        sim->free_pending = true;
        sim->interrupt = 1;
        return;
    }
    clear_results(sim);
    gd_settings_free(sim->settings);
    delete sim;
}

int gd_sim_set(gd_sim *sim, const char *key, const char *value)
{
    if (!sim)
        return GD_EINVAL;
    GD_NOT_WHILE_RUNNING(sim, "gd_sim_set");
    gd_err_clear(&sim->err);
    if (!key || !value)
        return fail(sim, GD_EINVAL, "gd_sim_set: %s is NULL", key ? "value" : "key");
    sim->resolved_valid = false;
    return gd_settings_set(sim->settings, key, value, &sim->err);
}

int gd_sim_load_config(gd_sim *sim, const char *path)
{
    if (!sim)
        return GD_EINVAL;
    GD_NOT_WHILE_RUNNING(sim, "gd_sim_load_config");
    gd_err_clear(&sim->err);
    if (!path)
        return fail(sim, GD_EINVAL, "%s", "gd_sim_load_config: path is NULL");
    sim->resolved_valid = false;
    return gd_settings_load(sim->settings, path, &sim->err);
}

int gd_sim_resolve_config(gd_sim *sim, const char *trace_path)
{
    if (!sim)
        return GD_EINVAL;
    GD_NOT_WHILE_RUNNING(sim, "gd_sim_resolve_config");
    gd_err_clear(&sim->err);
    if (!trace_path)
        return fail(sim, GD_EINVAL, "%s", "gd_sim_resolve_config: trace_path is NULL");
    sim->resolved_valid = false;
    gd_trace_reader *reader = nullptr;
    int rc = gd_trace_open(&reader, trace_path, &sim->err);
    if (rc)
        return rc;
    gd_trace_device dev = *gd_trace_device_of(reader);
    gd_trace_calibration cal;
    if (const gd_trace_calibration *c = gd_trace_calibration_of(reader)) {
        cal = *c;
        dev.calibration = &cal;
    }
    rc = gd_config_resolve(&sim->resolved, sim->settings, &dev, &sim->err);
    gd_trace_close_reader(reader);
    sim->resolved_valid = rc == GD_OK;
    return rc;
}

int gd_sim_get(const char **out, gd_sim *sim, const char *key)
{
    if (!out || !sim || !key)
        return GD_EINVAL;
    gd_err_clear(&sim->err);
    char buf[2048];
    int rc;
    if (sim->resolved_valid) {  // the values a replay used (or would use) on the trace's device
        if (!gd_config_find_key(key))
            return gd_err_set(&sim->err, GD_ECONFIG, "unknown configuration key '%s'", key);
        if (std::strcmp(key, "gpu.preset") == 0)
            std::snprintf(buf, sizeof buf, "%s", sim->resolved.preset);
        else
            gd_config_format(buf, sizeof buf, &sim->resolved, key);
    } else if ((rc = gd_settings_effective(buf, sizeof buf, sim->settings, key, &sim->err)) != GD_OK) {
        return rc;
    }
    try {
        sim->getbuf = buf;
    } catch (...) {
        return GD_ENOMEM;
    }
    *out = sim->getbuf.c_str();
    return GD_OK;
}

int gd_sim_dump_trace(gd_sim *sim, const char *trace_path, const char *out_path)
{
    if (!sim)
        return GD_EINVAL;
    GD_NOT_WHILE_RUNNING(sim, "gd_sim_dump_trace");
    gd_err_clear(&sim->err);
    if (!trace_path || !out_path)
        return fail(sim, GD_EINVAL, "%s", "gd_sim_dump_trace: a path is NULL");
    if (gd_same_file(trace_path, out_path))
        return fail(sim, GD_EINVAL, "%s: is the trace being dumped; refusing to overwrite it", out_path);
    int rc = GD_OK;
    gd_outfile o;
    FILE *f = open_out(sim, &o, out_path, &rc);
    if (!f)
        return rc;
    rc = gd_trace_dump(f, trace_path, &sim->err);
    if (rc == GD_EIO && std::strncmp(sim->err.msg, "dump output", 11) == 0)  // the dump writer knows no path
        gd_err_set(&sim->err, GD_EIO, "%s: write failed: %s", std::strcmp(out_path, "-") ? out_path : "standard output",
                   std::strerror(errno ? errno : EIO));
    return close_out(sim, &o, rc);
}

int gd_sim_check_topology(gd_sim *sim, const char *topology_path, const char *out_path)
{
    if (!sim)
        return GD_EINVAL;
    GD_NOT_WHILE_RUNNING(sim, "gd_sim_check_topology");
    gd_err_clear(&sim->err);
    if (!topology_path || !out_path)
        return fail(sim, GD_EINVAL, "%s", "gd_sim_check_topology: a path is NULL");
    /* meta.simd_width, or the preset's warp size (32 without a preset) */
    char val[64];
    gd_topo_limits lim{0};
    if (gd_settings_effective(val, sizeof val, sim->settings, "meta.simd_width", &sim->err) != GD_OK)
        return sim->err.code;
    lim.simd_width = (uint32_t)std::strtoul(val, nullptr, 10);
    if (!lim.simd_width) {
        if (gd_settings_effective(val, sizeof val, sim->settings, "sm.warp_size", &sim->err) != GD_OK)
            return sim->err.code;
        lim.simd_width = (uint32_t)std::strtoul(val, nullptr, 10);  /* 0 if it comes from a trace */
        if (!lim.simd_width)
            lim.simd_width = 32;
    }
    char policy[32];  /* meta.policy, or the topology's own (round_robin if none) */
    if (gd_settings_effective(policy, sizeof policy, sim->settings, "meta.policy", &sim->err) != GD_OK)
        return sim->err.code;
    gd_topology *t = static_cast<gd_topology *>(std::malloc(sizeof *t));
    if (!t)
        return fail(sim, GD_ENOMEM, "%s", "out of memory");
    int rc = gd_topology_load(t, topology_path, &sim->err);
    if (rc != GD_OK) {
        std::free(t);
        return rc;
    }
    enum { CAP = 256 };
    gd_topo_verdict *v = static_cast<gd_topo_verdict *>(std::calloc(CAP, sizeof *v));
    if (!v) {
        std::free(t);
        return fail(sim, GD_ENOMEM, "%s", "out of memory");
    }
    size_t n = gd_topology_validate(t, &lim, v, CAP);
    gd_outfile o;
    FILE *f = gd_same_file(topology_path, out_path) ? nullptr : open_out(sim, &o, out_path, &rc);
    if (!f && rc == GD_OK)
        rc = fail(sim, GD_EINVAL, "%s: is the topology being checked; refusing to overwrite it", out_path);
    if (f) {
        for (size_t i = 0; i < n && i < CAP; i++)
            std::fprintf(f, "%s:%u: %s: %s: %s\n", t->source, v[i].line, v[i].part, gd_topo_rule_name(v[i].rule),
                         v[i].text);
        if (n > CAP)
            std::fprintf(f, "%s: %zu more errors not shown\n", t->source, n - CAP);
        if (n)
            std::fprintf(f, "%s: invalid: %zu error%s (traces/TOPOLOGY.md explains each rule)\n", t->source, n,
                         n == 1 ? "" : "s");
        else
            std::fprintf(f, "%s: valid: %u kernels, %u buffers, policy %s, meta.simd_width %u\n", t->source,
                         t->nkernels, t->nbuffers,
                         std::strcmp(policy, "topology")
                             ? (std::string(policy) + " (meta.policy)").c_str()
                             : t->policy < 0 ? "round_robin (none given)" : gd_meta_policy_name(t->policy),
                         lim.simd_width);
        rc = close_out(sim, &o, rc);
    }
    if (rc == GD_OK && n)
        rc = gd_err_set(&sim->err, GD_EMODEL, "%s:%u: %s: %s: %s", t->source, v[0].line, v[0].part,
                        gd_topo_rule_name(v[0].rule), v[0].text);
    std::free(v);
    std::free(t);
    return rc;
}

int gd_sim_condense_trace(gd_condense_result *out, gd_sim *sim, const char *in_path, const char *out_path,
                          unsigned int rsb_entries, unsigned long long window_ns, const char *replacement)
{
    if (!sim)
        return GD_EINVAL;
    GD_NOT_WHILE_RUNNING(sim, "gd_sim_condense_trace");
    gd_err_clear(&sim->err);
    if (!out || !in_path || !out_path)
        return fail(sim, GD_EINVAL, "%s", "gd_sim_condense_trace: a pointer is NULL");
    std::memset(out, 0, sizeof *out);
    char conf[32];
    if (!replacement) {  /* the configuration's rsb.replacement */
        if (gd_settings_effective(conf, sizeof conf, sim->settings, "rsb.replacement", &sim->err) != GD_OK)
            return sim->err.code;
        replacement = conf;
    }
    if (std::strcmp(replacement, "lru") && std::strcmp(replacement, "fifo"))
        return fail(sim, GD_EINVAL, "gdsim condense: replacement policy '%s' is neither lru nor fifo", replacement);
    gd_condense_opts o{rsb_entries, window_ns, !std::strcmp(replacement, "fifo")};
    gd_condense_stats st;
    if (gd_same_file(in_path, out_path))
        return fail(sim, GD_EINVAL, "%s: is the trace being condensed; refusing to overwrite it", out_path);
    const bool in_place = gd_out_in_place(out_path);  // a device, a FIFO, a symbolic link
    std::string part = out_path;  // else a new file beside it (gd_out_tmp), renamed when complete
    if (!in_place) {
        char *made = nullptr;
        int fd = gd_out_tmp(out_path, "", &made);
        if (fd < 0)
            return gd_err_set(&sim->err, GD_EIO, "%s: cannot create: %s", out_path, std::strerror(errno));
        close(fd);
        part = made;
        std::free(made);
    }
    int rc = gd_condense_trace(in_path, part.c_str(), &o, &st, &sim->err);
    if (in_place)
        return rc;
    if (rc == GD_OK && std::rename(part.c_str(), out_path) != 0)
        rc = gd_err_set(&sim->err, GD_EIO, "%s: cannot rename %s to it: %s", out_path, part.c_str(),
                        std::strerror(errno));
    if (rc != GD_OK)
        std::remove(part.c_str());
    out->dispatches = st.dispatches;
    out->references = st.references;
    out->condensed_kernels = st.condensed_kernels;
    out->plain = st.plain;
    out->condensed_packets = st.condensed_packets;
    out->bytes_before = st.bytes_before;
    out->bytes_after = st.bytes_after;
    return rc;
}

int gd_sim_set_cta_log(gd_sim *sim, const char *path)
{
    if (!sim)
        return GD_EINVAL;
    GD_NOT_WHILE_RUNNING(sim, "gd_sim_set_cta_log");
    gd_err_clear(&sim->err);
    try {
        sim->cta_log_path = path ? path : "";
    } catch (const std::bad_alloc &) {
        return gd_err_set(&sim->err, GD_ENOMEM, "out of memory");
    }
    return GD_OK;
}

int gd_sim_set_meta_log(gd_sim *sim, const char *path)
{
    if (!sim)
        return GD_EINVAL;
    GD_NOT_WHILE_RUNNING(sim, "gd_sim_set_meta_log");
    gd_err_clear(&sim->err);
    try {
        sim->meta_log_path = path ? path : "";
    } catch (const std::bad_alloc &) {
        return gd_err_set(&sim->err, GD_ENOMEM, "out of memory");
    }
    return GD_OK;
}

int gd_sim_interrupt(gd_sim *sim)
{
    if (!sim)
        return GD_EINVAL;
    sim->interrupt = 1;  // only this: async-signal-safe
    return GD_OK;
}

int gd_sim_set_timeout(gd_sim *sim, double seconds)
{
    if (!sim)
        return GD_EINVAL;
    GD_NOT_WHILE_RUNNING(sim, "gd_sim_set_timeout");
    gd_err_clear(&sim->err);
    if (!(seconds == 0 || (seconds >= 1e-3 && seconds <= 1e7)))  /* (below a millisecond: no replay can start) */
        return gd_err_set(&sim->err, GD_EINVAL, "gd_sim_set_timeout: %g s is not a timeout (0 for none, or 0.001 "
                          "to 10^7 s)", seconds);
    sim->timeout_s = seconds;
    return GD_OK;
}

int gd_sim_set_kernel_table(gd_sim *sim, int keep)
{
    if (!sim)
        return GD_EINVAL;
    GD_NOT_WHILE_RUNNING(sim, "gd_sim_set_kernel_table");
    gd_err_clear(&sim->err);
    sim->kernel_table = keep != 0;
    return GD_OK;
}

int gd_sim_set_absolute_times(gd_sim *sim, int absolute)
{
    if (!sim)
        return GD_EINVAL;
    GD_NOT_WHILE_RUNNING(sim, "gd_sim_set_absolute_times");
    gd_err_clear(&sim->err);
    sim->absolute_times = absolute != 0;
    return GD_OK;
}

}  // extern "C"

namespace {
// An output written during the next replays with an interval (the occupancy CSV, the
// timeline's counters).
int set_interval_output(gd_sim *sim, std::string &dst, uint64_t &dst_interval, const char *path,
                        uint64_t interval_ns, const char *what)
{
    if (!sim)
        return GD_EINVAL;
    GD_NOT_WHILE_RUNNING(sim, "gd_sim_set_occupancy_csv / gd_sim_set_timeline");
    gd_err_clear(&sim->err);
    if (path && (interval_ns == 0 || interval_ns > UINT64_MAX / GD_PS_PER_NS / 4))
        return gd_err_set(&sim->err, GD_EINVAL, "%s interval %llu ns: from 1 ns to %llu ns", what,
                          (unsigned long long)interval_ns, (unsigned long long)(UINT64_MAX / GD_PS_PER_NS / 4));
    try {
        dst = path ? path : "";
    } catch (const std::bad_alloc &) {
        return gd_err_set(&sim->err, GD_ENOMEM, "out of memory");
    }
    dst_interval = interval_ns;
    return GD_OK;
}
}  // namespace

extern "C" {

int gd_sim_set_vcd(gd_sim *sim, const char *path, unsigned int queues)
{
    if (!sim)
        return GD_EINVAL;
    GD_NOT_WHILE_RUNNING(sim, "gd_sim_set_vcd");
    gd_err_clear(&sim->err);
    if (path && queues > GD_TRACE_MAX_QUEUES)
        return gd_err_set(&sim->err, GD_EINVAL, "waveforms of %u hardware queues: at most %u", queues,
                          (unsigned)GD_TRACE_MAX_QUEUES);
    if (path && std::strcmp(path, "-") == 0)
        return fail(sim, GD_EINVAL, "%s", "waveforms go to a file, not to standard output");
    try {
        sim->vcd_path = path ? path : "";
    } catch (const std::bad_alloc &) {
        return gd_err_set(&sim->err, GD_ENOMEM, "out of memory");
    }
    sim->vcd_queues = queues;
    return GD_OK;
}

int gd_sim_set_occupancy_csv(gd_sim *sim, const char *path, uint64_t interval_ns)
{
    return sim ? set_interval_output(sim, sim->occ_path, sim->occ_interval_ns, path, interval_ns, "occupancy CSV")
               : GD_EINVAL;
}

int gd_sim_set_timeline(gd_sim *sim, const char *path, uint64_t interval_ns)
{
    return sim ? set_interval_output(sim, sim->timeline_path, sim->timeline_interval_ns, path, interval_ns,
                                     "timeline counter")
               : GD_EINVAL;
}

// A replay out of memory says where: the trace, how far it got, and the limits that bound
// what a trace may take (the model's allocations name no record of their own).
static int oom_where(gd_sim *sim, const char *path, int rc)
{
    if (rc != GD_ENOMEM || std::strncmp(sim->err.msg, "out of memory", 13))
        return rc;
    std::string what(sim->err.msg + 13);  // " (kernel table)", or nothing
    return gd_err_set(&sim->err, GD_ENOMEM, "%s: out of memory%s after %" PRIu64 " records of the trace, %" PRIu64
                      " kernels done (sim.max_kernel_descriptors, sim.max_descriptor_mib and sim.max_ctas bound what "
                      "a trace may take; gd_sim_set_kernel_table(sim, 0) keeps no kernel table)", path, what.c_str(),
                      sim->records, sim->report.kernels);
}

int gd_sim_replay_file(gd_sim *sim, const char *trace_path)
{
    if (!sim)
        return GD_EINVAL;
    GD_NOT_WHILE_RUNNING(sim, "gd_sim_replay_file");
    gd_err_clear(&sim->err);
    if (!trace_path)
        return fail(sim, GD_EINVAL, "%s", "gd_sim_replay_file: trace_path is NULL");
    if (t_replaying)  // from another handle's progress callback: the lock is this thread's own
        return gd_err_set(&sim->err, GD_ESTATE, "%s: cannot replay from inside another replay (a progress "
                          "callback runs while its replay holds the library's replay lock): replay after it "
                          "returns, or from another thread", trace_path);
    try {
        replay_lock lock;
        if (sc_context_guard::foreign_running())  // refused before anything changes: earlier results are kept
            return gd_err_set(&sim->err, GD_ESTATE, "%s: cannot replay while the calling program's SystemC "
                              "simulation is running (it has started and not ended): a replay runs a simulation "
                              "of its own; replay before sc_start or after the simulation ends, or put the GPU in "
                              "the platform as a gdsim::gpu module (include/gdsim/gpu.hpp)", trace_path);
        clear_results(sim);
        sim->interrupt = 0;  // an interrupt asked for while no replay ran is forgotten
        sim->running = true;
        int rc;
        try {
            rc = replay(sim, trace_path);
        } catch (...) {
            sim->running = false;
            if (!sim->free_pending)
                throw;
            rc = GD_EINTERRUPTED;
        }
        sim->running = false;
        if (sim->free_pending) {  // gd_sim_free was called from the progress callback
            gd_sim_free(sim);
            return GD_EINTERRUPTED;
        }
        if (rc != GD_OK)
            clear_results(sim);
        return oom_where(sim, trace_path, rc);
    } catch (const std::bad_alloc &) {
        clear_results(sim);
        gd_err_set(&sim->err, GD_ENOMEM, "out of memory");
        return oom_where(sim, trace_path, GD_ENOMEM);
    } catch (const std::exception &e) {
        clear_results(sim);
        return gd_err_set(&sim->err, GD_EINTERNAL, "internal error: %s", e.what());
    } catch (...) {
        clear_results(sim);
        return gd_err_set(&sim->err, GD_EINTERNAL, "internal error");
    }
}

int gd_sim_summary(gd_sim *sim, gd_summary *out)
{
    if (!sim || !out)
        return GD_EINVAL;
    gd_err_clear(&sim->err);
    if (!sim->have_results)
        return fail(sim, GD_ESTATE, "%s", "no replay has completed on this handle yet");
    *out = sim->summary;
    return GD_OK;
}

int gd_sim_stage_stats(gd_stage_stats *out, gd_sim *sim, int stage)
{
    if (out)
        std::memset(out, 0, sizeof *out);
    if (!out || !sim)
        return GD_EINVAL;
    gd_err_clear(&sim->err);
    if (stage < 0 || stage >= GD_STAGES)
        return gd_err_set(&sim->err, GD_EINVAL, "stage %d is not one of 0 to %d (enum gd_stage)", stage,
                          GD_STAGES - 1);
    if (!sim->have_results)
        return fail(sim, GD_ESTATE, "%s", "no replay has completed on this handle yet");
    gd_report_stage_stats(&sim->report, stage, out);
    return GD_OK;
}

int gd_sim_write_kernels_csv(gd_sim *sim, const char *path)
{
    if (!sim || !path)
        return GD_EINVAL;
    GD_NOT_WHILE_RUNNING(sim, "gd_sim_write_kernels_csv");
    gd_err_clear(&sim->err);
    if (!sim->have_results)
        return fail(sim, GD_ESTATE, "%s", "no replay has completed on this handle yet");
    if (sim->report.no_rows)
        return fail(sim, GD_ESTATE, "%s", "the last replay kept no kernel table (gd_sim_set_kernel_table(sim, 0))");
    sim->interrupt = 0;  // as for a replay: an interrupt asked for before the call is forgotten
    gd_write_guard guard;
    std::memset(&guard, 0, sizeof guard);
    guard.interrupt = &sim->interrupt;
    guard.timeout_s = sim->timeout_s;
    const double start = gd::progress_meter::now();
    guard.deadline = sim->timeout_s > 0 ? start + sim->timeout_s : 0;
    struct reporter {
        gd_sim *sim;
        double start;
        static void report(void *ctx, uint64_t done, uint64_t of)
        {
            auto *me = static_cast<reporter *>(ctx);
            gd_sim *s = me->sim;
            gd_progress p;
            std::memset(&p, 0, sizeof p);
            p.records_read = s->records;
            p.kernels_done = s->summary.kernels;
            p.ctas_done = p.ctas_read = s->summary.ctas;
            p.sim_time_ns = s->summary.sim_time_ns;
            p.input_fraction = 1.0;
            p.wall_seconds = gd::progress_meter::now() - me->start;
            p.rows_written = done;
            p.rows_total = of;
            s->opts.progress(s->opts.progress_ctx, &p);
        }
    } rep{sim, start};
    if (sim->opts.progress) {  // the table of a long replay takes seconds: its progress too
        guard.report = reporter::report;
        guard.ctx = &rep;
        guard.every = gd::progress_meter::report_every;
        guard.last = start;
    }
    sim->running = true;  // the callback may only ask, interrupt or free (GD_NOT_WHILE_RUNNING)
    int rc = gd_report_write_csv(&sim->report, path, &guard, &sim->err);
    sim->running = false;
    if (sim->free_pending) {  // gd_sim_free was called from the progress callback
        gd_sim_free(sim);
        return GD_EINTERRUPTED;
    }
    return rc;
}

static int write_summary(gd_sim *sim, const char *path, bool json)
{
    if (!sim || !path)
        return GD_EINVAL;
    GD_NOT_WHILE_RUNNING(sim, json ? "gd_sim_write_summary_json" : "gd_sim_write_summary_text");
    gd_err_clear(&sim->err);
    if (!sim->have_results)
        return fail(sim, GD_ESTATE, "%s", "no replay has completed on this handle yet");
    int rc = GD_OK;
    gd_outfile o;
    FILE *f = open_out(sim, &o, path, &rc);
    if (!f)
        return rc;
    gd_run_info info;
    info.trace_path = sim->trace_path.c_str();
    info.trace_producer = sim->producer.c_str();
    info.trace_device = &sim->trace_dev;
    info.records = sim->records;
    info.stats = &sim->stats;
    info.origin_ns = sim->report.origin_ns;
    info.absolute_times = sim->report.absolute_times;
    info.cta_rules = sim->rules.n ? &sim->rules : nullptr;
    rc = json ? gd_write_summary_json(f, &sim->cfg, &sim->summary, &info)
              : gd_write_summary_text(f, &sim->cfg, &sim->summary, &info);
    return close_out(sim, &o, rc);
}

int gd_sim_write_summary_json(gd_sim *sim, const char *path) { return write_summary(sim, path, true); }
int gd_sim_write_summary_text(gd_sim *sim, const char *path) { return write_summary(sim, path, false); }

const char *gd_sim_errmsg(gd_sim *sim)
{
    if (!sim)
        return "";
    return sim->err.msg;
}

const char *gd_strerror(int code)
{
    switch (code) {
    case GD_OK: return "no error";
    case GD_EINVAL: return "invalid argument";
    case GD_ENOMEM: return "out of memory";
    case GD_EIO: return "input/output error";
    case GD_EFORMAT: return "malformed trace";
    case GD_ECONFIG: return "configuration error";
    case GD_ESTATE: return "call not valid in this state";
    case GD_EMODEL: return "trace cannot run on the configured device";
    case GD_EINTERNAL: return "internal error";
    case GD_EINTERRUPTED: return "interrupted";
    case GD_ELIMIT: return "limit reached";
    }
    return "unknown error code";
}

const char *gd_version(void) { return GD_VERSION_STRING; }

int gd_config_key(const char **name, const char **default_value, const char **doc, const char **source, size_t index)
{
    const gd_key_info *k = gd_config_key_info(index);
    if (!k)
        return GD_EINVAL;
    if (name)
        *name = k->name;
    if (default_value)
        *default_value = k->def;
    if (doc)
        *doc = k->doc;
    if (source)
        *source = k->source;
    return GD_OK;
}

int gd_config_key_accepted(const char **accepted, size_t index)
{
    const gd_key_info *k = gd_config_key_info(index);
    if (!k || !accepted)
        return GD_EINVAL;
    *accepted = k->accepted;
    return GD_OK;
}

}  // extern "C"
