// gd_msg.hpp - the gdsim TLM extension: every transaction between blocks is a
// generic payload (TLM_IGNORE_COMMAND) carrying one gd::msg that names the
// operation and points at its body. Bodies are plain structs; the callee fills
// their response fields. Timed operations use the b_transport delay argument
// (TLM-2.0 loosely-timed temporal decoupling): the operation happens at
// sc_time_stamp() + delay. Per-CTA bodies also carry that time as `at` (ps), so
// callees need no out-of-line sc_time_stamp() call per CTA.
#ifndef GD_MSG_HPP
#define GD_MSG_HPP

#include <cstdint>
#include <cstring>
#include <tlm>

#include "cga.h"
#include "cwd.h"
#include "pp.h"

namespace gd {

enum class op : uint8_t {
    submit,       // host -> packet processor: a packet written into a queue (doorbell)
    queue_space,  // packet processor -> host: a queue the host waits on has room again
    dispatch,     // packet processor -> GPU2GPC: launch a kernel
    kernel_done,  // GPU2GPC -> packet processor: a kernel's last CTA retired
    gpc_select,   // GPU2GPC -> GPC2SM: count free slots for this kernel from now on
    gpc_step,     // GPU2GPC -> GPC2SM: retire the CTAs that end by the annotated time (or
                  // before: retirements may be handed over late while nothing depends on them), then
                  // launch one CTA of the selected kernel if asked (and, when the launch is
                  // conditional, only if this GPC then beats every other GPC)
    sm_launch,    // GPC2SM -> SM: start a CTA
    // cwd.policy=cga (seed 003's distributor):
    gpc_query,    // GPU2GPC -> GPC2SM: where would one GPC-CGA of the selected kernel go, at what speed
                  // (a speculative launch on the GPC's free slots; nothing changes)
    gpc_free,     // GPU2GPC -> GPC2SM: the GPC's free slots for the selected kernel (its query model)
    gpc_launch,   // GPU2GPC -> GPC2SM: an SM mask: launch CTAs of the selected kernel on these SMs, all
                  // at the annotated time, as one GPC-CGA (or as one-CTA CGAs of a plain grid)
    gpc_wait      // GPU2GPC -> GPC2SM: a CGA of the selected kernel waits (or stops waiting) for room
};

struct msg : tlm::tlm_extension<msg> {
    op code = op::submit;
    void *body = nullptr;
    tlm::tlm_extension_base *clone() const override { return new msg(*this); }
    void copy_from(const tlm::tlm_extension_base &e) override { *this = static_cast<const msg &>(e); }
};

struct submit_body { gd_kernel_run *run; bool accepted; };
struct queue_space_body { uint32_t queue; };
struct dispatch_body { gd_kernel_run *run; bool accepted; };
struct kernel_done_body { gd_kernel_run *run; };
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
};
struct sm_launch_body { gd_time_ps at; gd_kernel_run *run; gd_time_ps end; };
struct gpc_query_body {
    uint32_t ctas; gd_cga_mode mode; bool cga;  // one GPC-CGA of this many CTAs; cga: takes an id
    int32_t speed;                              // result: least free slots left on the SMs it would
                                                // use, or -1 (does not fit, or no GPC-CGA id / counter)
    uint32_t take[GD_MAX_SMS_PER_GPC];          // result: its CTAs per SM
};
struct gpc_free_body { const uint32_t *free_slots; uint32_t nsm; uint32_t cgas_left, ids_left; };
struct gpc_launch_body {
    gd_time_ps at;                   // == sc_time_stamp() + delay: when every CTA of the mask starts
    gd_kernel_run *run;              // the selected kernel
    const uint32_t *take;            // CTAs per SM of this GPC
    bool cga;                        // one GPC-CGA: take a gpc_local_cga_id, release it after the flush
    uint64_t cga_seq;                // its sequence number in the kernel (the SMs derive CTA ids from it)
    gd_time_ps end;                  // result: the latest end of the CTAs launched
    uint32_t launched;               // result: CTAs launched
    uint64_t warp_ps;                // result: sum over them of warps x residency (ps)
    uint32_t max_free; gd_time_ps next_retire;  // result, as for gpc_step
};
struct gpc_wait_body { gd_time_ps at; bool waiting; };

// One reusable payload with its extension attached: a block keeps one per
// outgoing socket, so a transaction allocates nothing.
struct channel {
    tlm::tlm_generic_payload p;
    msg m;
    channel() { p.set_command(tlm::TLM_IGNORE_COMMAND); p.set_extension(&m); }
    ~channel() { p.clear_extension(&m); }
    channel(const channel &) = delete;
    channel &operator=(const channel &) = delete;

    template <typename Socket>
    void call(Socket &s, op code, void *body, sc_core::sc_time &delay)
    {
        m.code = code;
        m.body = body;
        p.set_response_status(tlm::TLM_INCOMPLETE_RESPONSE);
        s->b_transport(p, delay);
    }
};

// Base of blocks whose per-CTA target socket is bound to the block itself (the
// canonical TLM-2.0 binding: the initiator's b_transport is one virtual call into
// the block, without simple_target_socket's callback indirection). Only the
// blocking transport is offered.
struct fw_target : tlm::tlm_fw_transport_if<> {
    tlm::tlm_sync_enum nb_transport_fw(tlm::tlm_generic_payload &p, tlm::tlm_phase &, sc_core::sc_time &) override
    {
        p.set_response_status(tlm::TLM_COMMAND_ERROR_RESPONSE);
        return tlm::TLM_COMPLETED;
    }
    bool get_direct_mem_ptr(tlm::tlm_generic_payload &, tlm::tlm_dmi &) override { return false; }
    unsigned int transport_dbg(tlm::tlm_generic_payload &) override { return 0; }
};

inline msg &msg_of(tlm::tlm_generic_payload &p)
{
    msg *m = nullptr;
    p.get_extension(m);
    return *m;
}

// Simulated time <-> picoseconds (the kernel's time resolution is 1 ps).
inline gd_time_ps now_ps() { return sc_core::sc_time_stamp().value(); }

// sc_time from a picosecond count. sc_time::from_value is an out-of-line library
// call that showed up at 3 % of a replay's instructions; sc_time holds nothing but
// its value, so the value is copied in directly. time_layout_ok() (checked once per
// replay by gpu_top) confirms the layout against from_value.
static_assert(sizeof(sc_core::sc_time) == sizeof(sc_core::sc_time::value_type),
              "sc_time is expected to hold only its value");
inline sc_core::sc_time ps_time(gd_time_ps ps)
{
    sc_core::sc_time t;
    sc_core::sc_time::value_type v = ps;
    std::memcpy(static_cast<void *>(&t), &v, sizeof v);
    return t;
}
inline bool time_layout_ok()
{
    return ps_time(123456789).value() == 123456789 &&
           ps_time(987654321) == sc_core::sc_time::from_value(987654321);
}

}  // namespace gd

#endif
