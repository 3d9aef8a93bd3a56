// sm.hpp - one SM (execution unit): runs the CTAs its GPC2SM distributor starts.
//
// The SM answers each CTA start with the CTA's end time from the execution-time
// model (exec.h). That answer is the SM's CTA-complete message announced in
// advance: the distributor keeps it in its retirement calendar and acts on it at
// the end time, so no SystemC event exists per CTA (DESIGN.md, performance budget).
#ifndef GD_SM_HPP
#define GD_SM_HPP

#include <systemc>
#include <tlm>

#include "gd_msg.hpp"
#include "sm_msg.hpp"
#include "power.h"
#include "stats.h"

namespace gd {

class sm : public sc_core::sc_module, public fw_target {
public:
    tlm::tlm_target_socket<> launch_in;  // from the GPC2SM distributor

    // insn_fj: power.insn_energy_fj (7 values), or null: no energy accounting. The SM
    // with id 0 registers the report's power section (every SM's energy).
    // windows: the SMs' shared power-over-time accounts (power.window_ns), or null.
    // subs: register sub-partitions whose warps x time to account (placed warps:
    // sm.alloc=contiguous or sm.wave_placement=tail|head), or 0. The SM with id 0 also
    // registers the report's occupancy section (every SM's warp_ps).
    // counters: where the SM keeps its CTA and warp-time counters (the GPU's array of
    // them, sm_msg.hpp), or null: in the SM itself.
    sm(sc_core::sc_module_name name, uint32_t id, gd_stats *stats, const uint32_t *insn_fj = nullptr,
       gd_power_windows *windows = nullptr, uint32_t subs = 0, sm_counters *counters = nullptr);

    uint64_t ctas() const { return c_->ctas; }
    uint64_t warp_ps() const { return c_->warp_ps; }
    uint64_t energy_fj() const { return energy_fj_; }
    // After the run: the energy of the CTAs without an instruction mix (a generic rate
    // per warp and ns) joins that of the others.
    void finish();

private:
    // the CTA's energy, power windows and sub-partitions: off the common path
    __attribute__((noinline, cold)) void account(const sm_launch_body *b, gd_time_ps dur, uint64_t wd);
    void b_transport(tlm::tlm_generic_payload &p, sc_core::sc_time &delay) override;

    uint32_t id_;
    sm_counters own_;       // the counters, unless the GPU keeps them
    sm_counters *c_;
    const bool slow_;       // windows_ or subs_ (beside the counters every CTA updates)
    uint64_t energy_fj_ = 0;  // energy of the CTAs run (power.insn_energy_fj), femtojoules (finish())
    uint64_t mix_energy_fj_ = 0, mix_warp_ps_ = 0;  // of the CTAs whose kernel has an instruction mix
    const uint32_t *insn_fj_;
    gd_power_windows *windows_;
    const uint32_t subs_;
    uint64_t sub_warp_ps_[GD_MAX_SUBPARTITIONS] = {};  // per sub-partition (subs_ of them)
};

}  // namespace gd

#endif
