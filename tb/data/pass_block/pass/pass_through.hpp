// pass_through.hpp - an empty block for tb/test_layout.sh: inserted between the
// packet processor and the command scheduler (on the way to GPU2GPC), it forwards
// every transaction unchanged in both directions (dispatches down, kernel
// completions up) and counts them. It proves
// that a new block needs only its own folder and a change to gpu_top: the test
// copies this folder into model/, applies gpu_top.patch and replays the sample.
#ifndef GD_PASS_THROUGH_HPP
#define GD_PASS_THROUGH_HPP

#include <cstdio>

#include <systemc>
#include <tlm>
#include <tlm_utils/simple_initiator_socket.h>
#include <tlm_utils/simple_target_socket.h>

namespace gd {

class pass_through : public sc_core::sc_module {
public:
    tlm_utils::simple_target_socket<pass_through> down_in;       // from the block above
    tlm_utils::simple_initiator_socket<pass_through> down_out;   // to the block below
    tlm_utils::simple_target_socket<pass_through> up_in;         // from the block below
    tlm_utils::simple_initiator_socket<pass_through> up_out;     // to the block above

    explicit pass_through(sc_core::sc_module_name name);
    ~pass_through() override;

private:
    void down(tlm::tlm_generic_payload &p, sc_core::sc_time &delay);
    void up(tlm::tlm_generic_payload &p, sc_core::sc_time &delay);

    unsigned long long downs_ = 0, ups_ = 0;
};

}  // namespace gd

#endif
