// select_msg.hpp - what the module selector accepts (from GPU2GPC): pick the SM for
// one CTA of a launch step, and note the CTAs a step placed (their energy history).
#ifndef GD_SELECT_MSG_HPP
#define GD_SELECT_MSG_HPP

#include "gd_msg.hpp"
#include "occupancy.h"
#include "packet.h"

namespace gd {
namespace op {
constexpr op_code select_pick = op_code_of('s', 'e', 1);    // which SM takes the next CTA
constexpr op_code select_placed = op_code_of('s', 'e', 2);  // a step put `count` CTAs on SM `sm`
}  // namespace op

struct select_pick_body {
    gd_time_ps at;                  // the step's time (== sc_time_stamp() + delay)
    bool first;                     // the step's first pick (the step's pending energy starts at 0)
    const gd_kernel_run *run;       // the kernel
    uint32_t n;                     // SMs of the GPU
    const uint32_t *free_slots;     // per SM: more CTAs of the kernel that fit (0: not a candidate)
    const gd_sm_res *res;           // per SM: its free resources
    int32_t sm;                     // result: the SM, or -1 (no candidate)
};

struct select_placed_body {
    const gd_kernel_run *run;
    uint32_t sm, count;
    gd_time_ps start, end;          // when those CTAs run
};

}  // namespace gd

#endif
