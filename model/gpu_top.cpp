#include "gpu_top.hpp"

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
    env.progress.ctas_done = cwd.ctas_done_counter();
    pp.rsb_out.bind(rsb.pp_in);
    pp.dispatch_out.bind(cs.pp_in);
    cs.cwd_out.bind(meta.cs_in);
    meta.cwd_out.bind(cwd.dispatch_in);
    cwd.done_out.bind(meta.done_in);
    meta.cs_out.bind(cs.done_in);
    cs.pp_out.bind(pp.done_in);
    cwd.select_out.bind(selector.cwd_in);
    uint32_t sm_id = 0;
    sm_counters_.resize(cfg.sms);  // not resized again: the SMs keep pointers into it
    // placed warps (sm.alloc=contiguous, sm.wave_placement=tail|head): the SMs account their
    // sub-partitions' occupancy
    const bool placed = std::string(cfg.sm_alloc) != "count" || std::string(cfg.sm_wave_placement) != "pooled";
    for (uint32_t g = 0; g < cfg.gpcs; g++) {
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

// The SMs and GPCs go in the reverse of the order they were made: SystemC's port and
// export registries find an entry from their end, so each removal is then O(1) (in
// creation order a GPU of thousands of SMs spent a tenth of its replay here).
gpu_top::~gpu_top()
{
    while (!gpcs.empty()) {
        for (size_t n = gpcs.back()->sm_out.size(); n; n--)
            sms.pop_back();
        gpcs.pop_back();
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
