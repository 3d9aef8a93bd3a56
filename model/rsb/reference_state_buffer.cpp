#include "reference_state_buffer.hpp"

namespace gd {

reference_state_buffer::reference_state_buffer(sc_core::sc_module_name name, const gd_config &cfg)
    : sc_module(name), pp_in("pp_in"), access_ps_(gd_cycles_to_ps(cfg.rsb_access_cycles, cfg.clock_mhz))
{
    gd_rsb_init(&rsb_, cfg.rsb_entries);
    pp_in.register_b_transport(this, &reference_state_buffer::b_transport);
}

void reference_state_buffer::b_transport(tlm::tlm_generic_payload &p, sc_core::sc_time &delay)
{
    msg &m = msg_of(p);
    auto *b = static_cast<rsb_body *>(m.body);
    int rc;
    switch (m.code) {
    case op::rsb_install:
        rc = gd_rsb_install(&rsb_, b->ref_num, b->pkt, nullptr);
        break;
    case op::rsb_lookup:
        b->entry = gd_rsb_lookup(&rsb_, b->ref_num);
        rc = b->ref_num >= rsb_.rst.size ? -1 : b->entry != nullptr;
        break;
    case op::rsb_evict:
        rc = gd_rsb_evict(&rsb_, b->ref_num);
        break;
    default:
        p.set_response_status(tlm::TLM_COMMAND_ERROR_RESPONSE);
        return;
    }
    if (rc < 0) {  // beyond the table
        p.set_response_status(tlm::TLM_ADDRESS_ERROR_RESPONSE);
        return;
    }
    b->held = rc > 0;
    delay += ps_time(access_ps_);
    p.set_response_status(tlm::TLM_OK_RESPONSE);
}

}  // namespace gd
