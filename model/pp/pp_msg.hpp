// pp_msg.hpp - what the packet processor accepts: packets from the host (doorbell)
// and kernel completions from the distributor.
#ifndef GD_PP_MSG_HPP
#define GD_PP_MSG_HPP

#include "gd_msg.hpp"
#include "packet.h"

namespace gd {
namespace op {
constexpr op_code submit = op_code_of('p', 'p', 1);       // host -> packet processor: a packet written
                                                          // into a queue (doorbell)
constexpr op_code kernel_done = op_code_of('p', 'p', 2);  // distributor -> packet processor: a kernel's
                                                          // last CTA retired
}  // namespace op

struct submit_body { gd_kernel_run *run; bool accepted; };
struct kernel_done_body { gd_kernel_run *run; };

}  // namespace gd

#endif
