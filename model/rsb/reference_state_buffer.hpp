// reference_state_buffer.hpp - the reference state buffer (RSB, seed 000 [0090]):
// on-chip storage of the kernel agent holding the reference state table that
// reference packets fill and condensed packets read. The packet processor reaches
// it through its rsb_out socket; every access takes rsb.access_cycles of the
// front-end clock, added to the transaction's delay. The table's decisions are
// rsb.h's; this module only keeps time. A what-if swaps or resizes the buffer here
// (rsb.entries) without touching the packet processor.
#ifndef GD_REFERENCE_STATE_BUFFER_HPP
#define GD_REFERENCE_STATE_BUFFER_HPP

#include <systemc>
#include <tlm>
#include <tlm_utils/simple_target_socket.h>

#include "config.h"
#include "gd_msg.hpp"
#include "rsb.h"
#include "rsb_msg.hpp"

namespace gd {

class reference_state_buffer : public sc_core::sc_module {
public:
    tlm_utils::simple_target_socket<reference_state_buffer> pp_in;  // accesses from the packet processor

    reference_state_buffer(sc_core::sc_module_name name, const gd_config &cfg);

    const gd_rsb &table() const { return rsb_; }

private:
    void b_transport(tlm::tlm_generic_payload &p, sc_core::sc_time &delay);

    gd_rsb rsb_;
    const gd_time_ps access_ps_;
};

}  // namespace gd

#endif
