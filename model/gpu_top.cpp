#include "gpu_top.hpp"

#include <algorithm>
#include <cstring>
#include <new>
#include <string>

namespace gd {

gpu_top::gpu_top(sc_core::sc_module_name name, const gd_config &cfg, device_env &env, gd_stats *stats)
    : sc_module(name),
      events("events"),
      pp("pp", cfg, env.report, stats, &events),
      rsb("rsb", cfg),
      cs("command_scheduler", cfg, stats, &events),
      meta("meta_scheduler", cfg, stats, env.meta_log, env.err, env.source, &events),
      cwd("gpu2gpc", cfg, stats, &env.progress, env.err, &events),
      selector("module_selector", cfg, stats)
{
    if (stats && (gd_stats_add(stats, events.basename(), "wakeups", "activations",
                               "SystemC activations of the GPU's event domain (simulator effort, not a model figure)",
                               events.activations()) ||
                  gd_stats_add(stats, events.basename(), "block_wakeups", "wake-ups",
                               "wake-ups of the GPU's timed blocks the domain ran (simulator effort)", events.wakeups())))
        throw std::bad_alloc();
    std::memset(&power, 0, sizeof power);
    if (cfg.power_window_ns && gd_power_init(&power, cfg.sms, (gd_time_ps)cfg.power_window_ns * GD_PS_PER_NS))
        throw std::bad_alloc();
    if (!time_layout_ok())
        SC_REPORT_FATAL("gdsim", "sc_time layout differs from the one gdsim was built for");
    pp.rsb_out.bind(rsb.pp_in);
    pp.dispatch_out.bind(cs.pp_in);
    cs.cwd_out.bind(meta.cs_in);
    meta.cwd_out.bind(cwd.dispatch_in);
    cwd.done_out.bind(meta.done_in);
    meta.cs_out.bind(cs.done_in);
    cs.pp_out.bind(pp.done_in);
    cwd.select_out.bind(selector.cwd_in);
    meta.set_cta_limit(cfg.sim_max_ctas, &env.progress);
    for (int i = 0; i < 4; i++)  // see ~gpu_top
        anchors_.emplace_back(new anchor(("teardown_anchor_" + std::to_string(i)).c_str()));
    sm_counters_.resize(cfg.sms);  // not resized again: the SMs keep pointers into it
    env.progress.ctas_done = cwd.ctas_done_counter();
    try {
        build_gpcs(cfg, env, stats);
    } catch (...) {  // what was built goes as ~gpu_top would take it (that does not run)
        env.progress.ctas_done = nullptr;  // the counter goes with this GPU (stopped_at reads the meter)
        teardown();
        throw;
    }
}

// The GPCs, each with its SMs.
void gpu_top::build_gpcs(const gd_config &cfg, device_env &env, gd_stats *stats)
{
    // placed warps (sm.alloc=contiguous, sm.wave_placement=tail|head): the SMs account their
    // sub-partitions' occupancy
    const bool placed = std::string(cfg.sm_alloc) != "count" || std::string(cfg.sm_wave_placement) != "pooled";
    uint32_t sm_id = 0;
    for (uint32_t g = 0; g < cfg.gpcs; g++) {
        if (!env.progress.tick(0))  // a device of thousands of SMs takes a second or more to build
            throw stopped_while_building(g, cfg.gpcs);
        uint32_t n = cfg.sms_per_gpc[g];
        gpcs.emplace_back(new gpc2sm(("gpc2sm_" + std::to_string(g)).c_str(), g, sm_id, n, cfg, stats, env.cta_log, env.watch));
        cwd.gpc_out[g]->bind(gpcs[g]->cwd_in);
        for (uint32_t i = 0; i < n; i++, sm_id++) {
            sms.emplace_back(new sm(("sm_" + std::to_string(sm_id)).c_str(), sm_id, stats, cfg.power_insn_fj,
                                    cfg.power_window_ns ? &power : nullptr, placed ? cfg.sm.reg_subpartitions : 0, &sm_counters_[sm_id]));
            gpcs[g]->sm_out[i]->bind(sms.back()->launch_in);
        }
    }
}

// The order the GPCs and SMs go in. SystemC's port and export registries find an entry
// from their end; its module registry and a module's list of children find one from
// their front; all move their last entry into the place of the one removed. So the
// GPCs and SMs go in the reverse of the order they were made, each then last in the
// port and export registries, after the anchors: modules of nothing, made just before
// them and removed first, which moves the last modules into their places near the
// front of the module registry and of the top's children (behind the few blocks made
// before them), where each removal then leaves the next one to go. Every removal is
// then O(1). More than one anchor: modules made after the SMs stay in the module
// registry to the end (SystemC 2.3's method invoker, made at elaboration); each takes
// one anchor's place. Reverse order alone scanned the module registry and the top's
// children whole for each removal: a GPU of 65,536 SMs spent 1.6 s of its 1.8 s
// teardown there (creation order scanned the port registries whole instead: a tenth
// of a replay on thousands of SMs).
gpu_top::~gpu_top() { teardown(); }

void gpu_top::teardown()
{
    anchors_.clear();
    size_t first = 0;  // the first SM of the last GPC (it may have fewer made than it has)
    for (size_t g = 0; g + 1 < gpcs.size(); g++)
        first += gpcs[g]->sm_out.size();
    first = std::min(first, sms.size());
    while (!gpcs.empty()) {
        while (sms.size() > first)
            sms.pop_back();
        gpcs.pop_back();
        if (!gpcs.empty())
            first -= std::min(first, gpcs.back()->sm_out.size());
    }
    gd_power_free(&power);
}

void gpu_top::finish()
{
    cwd.flush();  // the GPCs retire what they still hold (statistics count every CTA)
    cs.finish();  // the scheduler's time accounts
    for (auto &m : sms)
        m->finish();
    if (power.nsm)
        gd_power_finish(&power);
}

void gpu_top::trace(sc_core::sc_trace_file *tf, uint32_t queues)
{
    events.set_lockstep(true);
    pp.trace(tf, queues);
    cwd.trace(tf);  // the GPCs' signals: gpc_waves.hpp, which the builder makes the GPCs' watcher
}

}  // namespace gd
