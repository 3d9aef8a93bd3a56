// sched_msg.hpp - what the command scheduler accepts besides the distributor's own
// operations (op::dispatch from the packet processor, op::kernel_done from GPU2GPC,
// which it forwards or acts on). The packet processor accepts op::pq_left from it.
#ifndef GD_SCHED_MSG_HPP
#define GD_SCHED_MSG_HPP

#include "gd_msg.hpp"
#include "packet.h"

namespace gd {
namespace op {
constexpr op_code pq_left = op_code_of('c', 's', 1);  // command scheduler -> packet processor: a command
                                                      // left its physical queue (its queue slot is free)
}  // namespace op

struct pq_left_body { gd_kernel_run *run; };

}  // namespace gd

#endif
