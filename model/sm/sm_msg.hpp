// sm_msg.hpp - what an SM accepts: a CTA to start.
#ifndef GD_SM_MSG_HPP
#define GD_SM_MSG_HPP

#include "gd_msg.hpp"
#include "exec.h"
#include "packet.h"

namespace gd {
namespace op {
constexpr op_code sm_launch = op_code_of('s', 'm', 1);  // GPC2SM -> SM: start a CTA
constexpr op_code sm_direct = op_code_of('s', 'm', 2);  // GPC2SM -> SM: ask for the direct interface
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

// The counters every CTA start on an SM updates. A GPU keeps its SMs' side by side
// (sm's constructor), so a distributor starting CTAs on many SMs through their direct
// interfaces touches a few cache lines, not one per SM.
struct sm_counters {
    uint64_t ctas = 0;     // CTAs run
    uint64_t warp_ps = 0;  // resident warps integrated over time
    // count CTAs start, each holding wd warps x time
    void add(uint64_t count, uint64_t wd) { add_sum(count, wd * count); }
    // count CTAs whose warps x time add up to warp_sum
    void add_sum(uint64_t count, uint64_t warp_sum)
    {
        ctas += count;
        warp_ps += warp_sum;
    }
};

// The SM's direct interface, granted once in answer to op::sm_direct (the body: an
// sm_direct the SM fills), as a TLM-2.0 target grants direct memory access: the
// counters every CTA start updates. A distributor holding it starts the CTAs that need
// nothing else (sm_direct_launch, or sm_counters::add_sum for many CTAs at once) without a
// transaction, and sends the others (power accounting, sub-partitions) as sm_launch.
// The SM's own sm_launch uses the same functions, so both paths give the same counts.
struct sm_direct {
    sm_counters *counters = nullptr;  // null: not granted
    bool slow = true;                 // every start needs sm_launch
};

// b's CTAs start on an SM whose counters these are: sets b.end (exec.h) and returns
// one CTA's warps x time.
inline uint64_t sm_count_launch(sm_counters &c, sm_launch_body &b)
{
    const gd_time_ps dur = gd_cta_exec_time(b.run, b.at);
    b.end = b.at + dur;
    const uint64_t wd = (uint64_t)b.cost->warps * dur;
    c.add(b.count, wd);
    return wd;
}

// Starts b's CTAs through d when they need only the counters: sets b.end and returns
// true; false when they must go through sm_launch.
inline bool sm_direct_launch(const sm_direct &d, sm_launch_body &b)
{
    if (__builtin_expect(d.slow || b.run->has_insn, 0))
        return false;
    sm_count_launch(*d.counters, b);
    return true;
}

}  // namespace gd

#endif
