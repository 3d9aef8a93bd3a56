// gpc2sm.hpp - the GPC2SM work distributor of one GPC: places CTAs on the GPC's
// SMs (the SM with the most free slots, cwd.h) and keeps the GPC's retirement
// calendar of CTA-complete messages.
#ifndef GD_GPC2SM_HPP
#define GD_GPC2SM_HPP

#include <memory>
#include <vector>

#include <systemc>
#include <tlm>
#include <tlm_utils/simple_initiator_socket.h>

#include "gd_msg.hpp"
#include "calendar.h"
#include "report.h"

namespace gd {

class gpc2sm : public sc_core::sc_module, public fw_target {
public:
    tlm::tlm_target_socket<> cwd_in;  // from the GPU2GPC distributor
    std::vector<std::unique_ptr<tlm_utils::simple_initiator_socket<gpc2sm>>> sm_out;  // one per SM

    gpc2sm(sc_core::sc_module_name name, uint32_t nsm, const gd_config &cfg, gd_stats *stats);
    ~gpc2sm() override;

private:
    struct cta {
        const gd_cta_cost *cost;  // the kernel descriptor's (lives for the whole replay)
        uint32_t sm;
        gd_cta_alloc alloc;
    };

    void b_transport(tlm::tlm_generic_payload &p, sc_core::sc_time &delay) override;
    void step(gpc_step_body *b, sc_core::sc_time &delay);

    gd_gpc_tracker trk_;
    gd_calendar calendar_;        // CTA-complete messages: (end time, seq << 16 | cta index)
    std::vector<cta> ctas_;       // resident CTAs, indexed by the calendar key's low bits
    std::vector<uint32_t> free_;  // unused indices of ctas_
    uint64_t seq_ = 0;
    channel ch_;
    uint64_t launched_ = 0, retired_ = 0, peak_resident_ = 0;
};

}  // namespace gd

#endif
