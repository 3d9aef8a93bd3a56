// sm_msg.hpp - what an SM accepts: a CTA to start.
#ifndef GD_SM_MSG_HPP
#define GD_SM_MSG_HPP

#include "gd_msg.hpp"
#include "packet.h"

namespace gd {
namespace op {
constexpr op_code sm_launch = op_code_of('s', 'm', 1);  // GPC2SM -> SM: start a CTA
}  // namespace op

// at == sc_time_stamp() + delay; cost: what it takes (its kernel's CTA cost, or one warp's
// for a sub-workgroup of a split CTA); alloc: where its warps went (may be null); end:
// result, when the CTA ends.
struct sm_launch_body {
    gd_time_ps at;
    gd_kernel_run *run;
    const gd_cta_cost *cost;
    gd_time_ps end;
    const gd_cta_alloc *alloc;
};

}  // namespace gd

#endif
