// module_selector.hpp - the power-weighted module selector (seed 001 emb. 9, 10): the
// distributor asks it which SM takes each CTA of a launch step (gpc2sm.select=weighted
// or power; with lake, seed 003's fill of the lake, it is not asked). Each answer takes
// select.cycles. The decisions are select.h's; this block keeps each SM's energy
// history (the CTAs the steps placed, at power.insn_energy_fj) for the power policy.
#ifndef GD_MODULE_SELECTOR_HPP
#define GD_MODULE_SELECTOR_HPP

#include <vector>

#include <systemc>
#include <tlm>
#include <tlm_utils/simple_target_socket.h>

#include "config.h"
#include "gd_msg.hpp"
#include "select.h"
#include "select_msg.hpp"
#include "stats.h"

namespace gd {

class module_selector : public sc_core::sc_module {
public:
    tlm_utils::simple_target_socket<module_selector> cwd_in;  // queries from GPU2GPC

    module_selector(sc_core::sc_module_name name, const gd_config &cfg, gd_stats *stats);
    ~module_selector() override;

    // One CTA of `run` starting at `start`: its energy (the SMs' formula) and its run time.
    uint64_t cta_energy(const gd_kernel_run *run, gd_time_ps dur) const;

private:
    void b_transport(tlm::tlm_generic_payload &p, sc_core::sc_time &delay);

    const int policy_;
    const gd_sm_limits limits_;
    uint32_t weights_[GD_RES_KINDS];
    uint32_t insn_fj_[GD_INSN_CLASSES + 1];
    const gd_time_ps pick_ps_, window_ps_;
    std::vector<gd_energy_hist> hist_;     // per SM
    std::vector<double> recent_, pending_; // per SM, the step being decided
    uint64_t picks_ = 0;
};

}  // namespace gd

#endif
