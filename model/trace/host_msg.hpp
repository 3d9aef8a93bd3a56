// host_msg.hpp - what the host (trace_source) accepts: word that a queue it waits
// on has room again.
#ifndef GD_HOST_MSG_HPP
#define GD_HOST_MSG_HPP

#include "gd_msg.hpp"

namespace gd {
namespace op {
constexpr op_code queue_space = op_code_of('h', 'o', 1);  // packet processor -> host: a queue the host
                                                          // waits on has room again
}  // namespace op

struct queue_space_body { uint32_t queue; };

}  // namespace gd

#endif
