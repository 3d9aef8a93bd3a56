// gpc_waves.hpp - the GPCs' waveforms (--vcd): per GPC the CTAs and warps resident and
// a busy flag, as SystemC-timed values. The GPCs retire CTAs lazily (when they next
// act), so their own counts lag; this probe watches every group of CTAs started (a
// launch_watcher: warps, start and end known at the start) and applies each change in a
// process of its own at the change's time, where SystemC's tracing samples it.
#ifndef GD_GPC_WAVES_HPP
#define GD_GPC_WAVES_HPP

#include <memory>
#include <queue>
#include <string>
#include <vector>

#include <systemc>

#include "gd_msg.hpp"
#include "sc_compat.hpp"
#include "gpc2sm.hpp"

namespace gd {

class gpc_waves : public sc_core::sc_module, public launch_watcher {
public:
    GD_SC_HAS_PROCESS(gpc_waves);
    // next: another watcher told of every launch too (may be null)
    gpc_waves(sc_core::sc_module_name name, uint32_t ngpc, launch_watcher *next)
        : sc_module(name), n_(ngpc), ctas_(ngpc), warps_(ngpc), busy_(new bool[ngpc]()), next_(next)
    {
        SC_METHOD(apply);
        sensitive << ev_;
        dont_initialize();
    }
    // gpu.gpc2sm_N.{resident_ctas,resident_warps,busy}, beside the GPCs' own scopes
    void trace(sc_core::sc_trace_file *tf) const
    {
        for (uint32_t g = 0; g < n_; g++) {
            const std::string p = "gpu.gpc2sm_" + std::to_string(g) + ".";
            sc_core::sc_trace(tf, ctas_[g], p + "resident_ctas");
            sc_core::sc_trace(tf, warps_[g], p + "resident_warps");
            sc_core::sc_trace(tf, busy_[g], p + "busy");
        }
    }
    void launched(const gd_kernel_run *k, uint32_t gpc, uint32_t sm, uint32_t ctas, uint32_t warps, gd_time_ps start,
                  gd_time_ps end) override
    {
        if (next_)
            next_->launched(k, gpc, sm, ctas, warps, start, end);
        if (gpc >= n_ || !ctas)
            return;
        const uint64_t w = (uint64_t)ctas * warps;
        changes_.push(change{start, gpc, true, ctas, w});
        changes_.push(change{end, gpc, false, ctas, w});
        apply();  // what is due now at once; the rest at its time
    }

private:
    struct change {
        gd_time_ps t;
        uint32_t gpc;
        bool up;
        uint64_t ctas, warps;
        bool operator>(const change &o) const { return t > o.t || (t == o.t && up && !o.up); }  // ends first
    };
    void apply()
    {
        const gd_time_ps now = now_ps();
        while (!changes_.empty() && changes_.top().t <= now) {
            const change c = changes_.top();
            changes_.pop();
            if (c.up) {
                ctas_[c.gpc] += c.ctas;
                warps_[c.gpc] += c.warps;
            } else {
                ctas_[c.gpc] -= c.ctas;
                warps_[c.gpc] -= c.warps;
            }
            busy_[c.gpc] = ctas_[c.gpc] != 0;
        }
        if (!changes_.empty())
            ev_.notify(ps_time(changes_.top().t - now));  // an earlier pending notification stands
    }
    uint32_t n_;
    std::vector<uint64_t> ctas_, warps_;
    std::unique_ptr<bool[]> busy_;
    launch_watcher *next_;
    std::priority_queue<change, std::vector<change>, std::greater<change>> changes_;
    sc_core::sc_event ev_;
};

}  // namespace gd

#endif
