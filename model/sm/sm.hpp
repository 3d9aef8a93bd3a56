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
#include "stats.h"

namespace gd {

class sm : public sc_core::sc_module, public fw_target {
public:
    tlm::tlm_target_socket<> launch_in;  // from the GPC2SM distributor

    sm(sc_core::sc_module_name name, uint32_t id, gd_stats *stats);

    uint64_t ctas() const { return ctas_; }
    uint64_t warp_ps() const { return warp_ps_; }

private:
    void b_transport(tlm::tlm_generic_payload &p, sc_core::sc_time &delay) override;

    uint32_t id_;
    uint64_t ctas_ = 0;     // CTAs run
    uint64_t warp_ps_ = 0;  // resident warps integrated over time
};

}  // namespace gd

#endif
