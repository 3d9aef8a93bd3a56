// host_msg.hpp - what a host (trace_source, hw_queues) accepts from the packet
// processor: word that a queue it waits on has room again, and that a packet
// completed (its completion signal is lowered: a host in a platform writes it to
// memory).
#ifndef GD_HOST_MSG_HPP
#define GD_HOST_MSG_HPP

#include "gd_msg.hpp"
#include "packet.h"

namespace gd {
namespace op {
constexpr op_code queue_space = op_code_of('h', 'o', 1);  // packet processor -> host: a queue the host
                                                          // waits on has room again
constexpr op_code packet_completed = op_code_of('h', 'o', 2);  // packet processor -> host: a packet completed
}  // namespace op

// Both carry the caller's event domain (domain.hpp); a host that belongs to it says so
// (same_domain): what it does then runs as one of the domain's wake-ups, so the domain
// need not look at SystemC's activity again.
struct queue_space_body { uint32_t queue; const void *domain; bool same_domain; };
struct packet_completed_body { const gd_kernel_run *run; const void *domain; bool same_domain; };

}  // namespace gd

#endif
