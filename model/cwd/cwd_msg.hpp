// cwd_msg.hpp - what the compute work distributor accepts: kernels to launch
// (GPU2GPC, from the packet processor) and the GPC-level operations GPU2GPC sends
// to each GPC2SM distributor.
#ifndef GD_CWD_MSG_HPP
#define GD_CWD_MSG_HPP

#include "cga.h"
#include "config.h"
#include "gd_msg.hpp"
#include "occupancy.h"
#include "packet.h"

namespace gd {
namespace op {
constexpr op_code dispatch = op_code_of('c', 'w', 1);    // packet processor -> GPU2GPC: launch a kernel
constexpr op_code gpc_select = op_code_of('c', 'w', 2);  // GPU2GPC -> GPC2SM: count free slots for this
                                                         // kernel from now on
constexpr op_code gpc_step = op_code_of('c', 'w', 3);    // GPU2GPC -> GPC2SM: retire the CTAs that end by
    // the annotated time (or before: retirements may be handed over late while nothing depends on them),
    // then launch one CTA of the selected kernel if asked (and, when the launch is conditional, only if
    // this GPC then beats every other GPC)
// cwd.policy=cga (seed 003's distributor):
constexpr op_code gpc_query = op_code_of('c', 'w', 4);   // GPU2GPC -> GPC2SM: where would one GPC-CGA of
    // the selected kernel go, at what speed (a speculative launch on the GPC's free slots; nothing changes)
constexpr op_code gpc_free = op_code_of('c', 'w', 5);    // GPU2GPC -> GPC2SM: the GPC's free slots for the
                                                         // selected kernel (its query model)
constexpr op_code gpc_launch = op_code_of('c', 'w', 6);  // GPU2GPC -> GPC2SM: an SM mask: launch CTAs of
    // the selected kernel on these SMs, all at the annotated time, as one GPC-CGA (or as one-CTA CGAs of
    // a plain grid)
constexpr op_code gpc_wait = op_code_of('c', 'w', 7);    // GPU2GPC -> GPC2SM: a CGA of the selected kernel
                                                         // waits (or stops waiting) for room
constexpr op_code gpc_fits = op_code_of('c', 'w', 8);    // GPU2GPC -> GPC2SM: how many CTAs of this cost fit
    // on the GPC's SM with the most room (any kernel, not only the selected one; cwd.admission=channels)
constexpr op_code gpc_fragment = op_code_of('c', 'w', 9);  // GPU2GPC -> GPC2SM: a CTA of this cost waits
    // for contiguous room that the counted rules would find (sm.alloc=contiguous), or stops waiting: the
    // GPC integrates what the fragmentation strands
constexpr op_code gpc_refill = op_code_of('c', 'w', 10);  // GPU2GPC -> GPC2SM: the CTAs due to retire by
    // the annotated time retire, and as many CTAs of the selected kernel as they and the held records
    // leave start on the same SMs at `at` (what retires after the annotated time, by `at`, retires as a
    // mask's own retirement would; gpu2gpc.hpp); with check set, only whether the GPC can (all that is
    // due is counted, placed evenly, of the kernel's cost; every free slot is a held record's) and how many
}  // namespace op

struct dispatch_body { gd_kernel_run *run; bool accepted; };
// What a GPC's answer tells of a refill at a later step (op::gpc_refill's check, answered
// ahead while nothing else changes the GPC): GPU2GPC decides the common cases from it and
// asks the GPC only when more than one calendar entry would be due.
struct gpc_refill_hint {
    bool ready;           // counters only, even records, nothing placed or watched: a refill is possible
    uint64_t first_ctas;  // CTAs of the earliest calendar entry if a refill can take them back, else 0
    gd_time_ps second;    // the time of the entry after it (GD_TIME_NEVER: none)
    gd_time_ps release;   // the earliest GPC-CGA id release (GD_TIME_NEVER: none)
    uint64_t held_ctas;   // the CTAs of the held records
};
struct gpc_select_body { const gd_cta_cost *cost; uint32_t max_free; };
struct gpc_step_body {
    gd_time_ps at;                       // == sc_time_stamp() + delay (UINT64_MAX with no
                                         // launch: retire everything, at the end of a run)
    gd_kernel_run *launch;               // launch one CTA of this (selected) kernel at `at`, or null
    bool conditional;                    // launch only if max_free then beats (beat_free, beat_gpc)
    uint32_t beat_free, beat_gpc, gpc;   // the best other GPC's max_free and index; this GPC's index
    uint64_t retired;                    // results: CTAs retired by `at`
    bool launched;                       // a CTA was launched ...
    uint32_t sm; gd_time_ps end;         // ... on this SM of the GPC, ending then
    uint32_t max_free; gd_time_ps next_retire;
    bool free_held;                      // result: the GPC's free slots are all its held records' (op::gpc_refill)
    gpc_refill_hint hint;                // result
};
struct gpc_query_body {
    uint32_t ctas; gd_cga_mode mode; bool cga;  // one GPC-CGA of this many CTAs; cga: takes an id
    int32_t speed;                              // result: least free slots left on the SMs it would
                                                // use, or -1 (does not fit, or no GPC-CGA id / counter)
    uint32_t take[GD_MAX_SMS_PER_GPC];          // result: its CTAs per SM
};
struct gpc_free_body {
    const uint32_t *free_slots; uint32_t nsm; uint32_t cgas_left, ids_left;
    const gd_sm_res *res;  // result: the SMs' free resources
    const uint64_t *level; // result: the SMs at each count of free slots (cwd.h), 0..max_free
    uint32_t max_free;
};
struct gpc_launch_body {
    gd_time_ps at;                   // == sc_time_stamp() + delay: when every CTA of the mask starts
    gd_kernel_run *run;              // the selected kernel
    const gd_cta_cost *cost;         // what each CTA takes (the kernel's, or one warp's of a split CTA)
    bool sub;                        // one-warp sub-workgroups of the kernel's next CTA (seed 001 emb. 3)
    const uint32_t *take;            // CTAs per SM of this GPC, or null: the lake's share of this GPC,
    uint32_t lake_level, lake_extra; // a water line and CTAs at it (gd_lake_gpc_groups on the GPC's
                                     // own level masks for the selected kernel)
    bool cga;                        // one GPC-CGA: take a gpc_local_cga_id, release it after the flush
    uint64_t cga_seq;                // its sequence number in the kernel (the SMs derive CTA ids from it)
    gd_time_ps end;                  // result: the latest end of the CTAs launched
    uint32_t launched;               // result: CTAs launched
    uint64_t warp_ps;                // result: sum over them of warps x residency (ps)
    uint32_t max_free; gd_time_ps next_retire;  // result, as for gpc_step
    bool free_held;                             // result, as for gpc_step
    gpc_refill_hint hint;                       // result, as for gpc_step
};
struct gpc_wait_body { gd_time_ps at; bool waiting; };
struct gpc_refill_body {
    gd_time_ps t;                    // == sc_time_stamp() + delay: the step, when the CTAs retire
    gd_time_ps at;                   // when the new CTAs start (as gpc_launch_body)
    gd_kernel_run *run;              // the selected kernel and its CTA cost
    const gd_cta_cost *cost;
    bool check;                      // only answer ok and ctas; nothing changes
    bool ok;                         // result of a check: the GPC can
    uint64_t ctas;                   // result of a check: the CTAs that retire (and start)
    gd_time_ps end;                  // results, as gpc_launch_body
    uint32_t launched;
    uint64_t warp_ps;
    uint32_t max_free; gd_time_ps next_retire;
    bool free_held;
    gpc_refill_hint hint;
};
// counted: by the counted rules alone (gd_sm_res_count_slots), as sm.alloc=count would see it
struct gpc_fits_body { const gd_cta_cost *cost; uint32_t max_free; bool counted = false; };
struct gpc_fragment_body { gd_time_ps at; const gd_cta_cost *cost; };  // cost null: the wait ended

}  // namespace gd

#endif
