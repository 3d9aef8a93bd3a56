// sm_msg.hpp - what an SM accepts: a CTA to start.
#ifndef GD_SM_MSG_HPP
#define GD_SM_MSG_HPP

#include "gd_msg.hpp"
#include "packet.h"

namespace gd {
namespace op {
constexpr op_code sm_launch = op_code_of('s', 'm', 1);  // GPC2SM -> SM: start a CTA
}  // namespace op

// count CTAs of one dispatch start on the SM at at (== sc_time_stamp() + delay): cost is
// what each takes (its kernel's CTA cost, or one warp's for a sub-workgroup of a split
// CTA); sub_warps: how many of their warps went to each register sub-partition, summed
// over the count CTAs (may be null: not accounted); end: result, when they end (every
// CTA of a dispatch runs the same time, exec.h).
struct sm_launch_body {
    gd_time_ps at;
    gd_kernel_run *run;
    const gd_cta_cost *cost;
    gd_time_ps end;
    const uint16_t *sub_warps;
    uint32_t count;
};

}  // namespace gd

#endif
