#include "sm.hpp"

#include "exec.h"

namespace gd {

sm::sm(sc_core::sc_module_name name, uint32_t id, gd_stats *stats) : sc_module(name), launch_in("launch_in"), id_(id)
{
    launch_in.bind(*this);
    if (stats) {
        gd_stats_add(stats, basename(), "ctas", "CTAs", "CTAs run on this SM", &ctas_);
        gd_stats_add(stats, basename(), "warp_ps", "warp x ps", "resident warps integrated over time", &warp_ps_);
    }
}

void sm::b_transport(tlm::tlm_generic_payload &p, sc_core::sc_time &delay)
{
    msg &m = msg_of(p);
    if (m.code != op::sm_launch) {
        p.set_response_status(tlm::TLM_COMMAND_ERROR_RESPONSE);
        return;
    }
    auto *b = static_cast<sm_launch_body *>(m.body);
    (void)delay;  // b->at == sc_time_stamp() + delay
    gd_time_ps start = b->at;
    gd_time_ps dur = gd_cta_exec_time(b->run, start);
    b->end = start + dur;
    ctas_++;
    warp_ps_ += (uint64_t)b->run->desc->occ.cost.warps * dur;
    p.set_response_status(tlm::TLM_OK_RESPONSE);
}

}  // namespace gd
