// gpu2gpc.hpp - the GPU2GPC work distributor: takes kernels from the packet
// processor in order, hands their CTAs one at a time to the GPC whose best SM has
// the most free slots, hands the GPCs their CTA-complete messages, and reports each
// kernel's completion.
//
// Timing. CTA-level events (a CTA launch every cwd.cta_launch_cycles, each CTA's
// retirement) are never SystemC events, nor wake-ups of the GPU's event domain
// (domain.hpp). This block keeps them in C and processes them within one wake-up,
// ahead of SystemC time (TLM-2.0 temporal decoupling: its transactions to the GPC2SM
// distributors carry the event's offset from sc_time_stamp() as the b_transport
// delay). It may run ahead only while nothing else can reach it:
//   - up to, not including, the domain's next wake-up of another block or SystemC's
//     next activity outside the domain (domain::limit);
//   - it stops after the first time step that completes a kernel, wakes again at that
//     time and delivers the completion then, because a completion can cause new
//     activity (a barrier released, a queue refilled);
//   - a kernel arriving at time T first processes the events at times <= T.
// So the domain sees one wake-up per kernel-level happening, while every CTA still
// gets its exact launch and retirement time.
//
// Events, and their order at the same time: CTA retirements, kernel completions,
// CTA launches (a freed slot is usable at once); all before a kernel arriving then.
//  - A kernel completes when its last CTA ends; once all its CTAs have launched that
//    time is known (the latest CTA end), so completions are events of their own.
//  - Retirements matter only to launch decisions (they free slots). While no kernel
//    waits to launch, the GPCs keep them; when one arrives, every GPC is first told
//    to retire what ended by then. So an idle stretch costs one step per GPC, not one
//    per CTA.
//  - When one GPC alone retires CTAs at a time the head kernel can launch, the
//    retirement and the launch go to that GPC as one gpc_step ("launch if you now
//    beat the others"): the common case on a full GPU.
#ifndef GD_GPU2GPC_HPP
#define GD_GPU2GPC_HPP

#include <deque>
#include <memory>
#include <queue>
#include <utility>
#include <string>
#include <vector>

#include <systemc>
#include <tlm>
#include <tlm_utils/simple_initiator_socket.h>
#include <tlm_utils/simple_target_socket.h>

#include "admission.h"
#include "cga.h"
#include "cwd.h"
#include "cwd_msg.hpp"
#include "domain.hpp"
#include "gd_msg.hpp"
#include "sc_compat.hpp"
#include "pp_msg.hpp"
#include "progress.hpp"
#include "select_msg.hpp"
#include "stats.h"

namespace gd {

class gpu2gpc : public sc_core::sc_module {
public:
    tlm_utils::simple_target_socket<gpu2gpc> dispatch_in;    // kernels from the packet processor
    tlm_utils::simple_initiator_socket<gpu2gpc> done_out;    // kernel completions to the packet processor
    std::vector<std::unique_ptr<tlm_utils::simple_initiator_socket<gpu2gpc>>> gpc_out;  // one per GPC
    // the module selector (gpc2sm.select=weighted|power); optional: lake does not ask it
    tlm_utils::simple_initiator_socket_optional<gpu2gpc> select_out;

    GD_SC_HAS_PROCESS(gpu2gpc);
    // err (may be null): where a replay that cannot go on says why; dom: the event domain
    // of its GPU (null: one of its own)
    gpu2gpc(sc_core::sc_module_name name, const gd_config &cfg, gd_stats *stats,
            progress_meter *progress = nullptr, gd_err *err = nullptr, domain *dom = nullptr);
    ~gpu2gpc() override;

    uint64_t peak_resident_kernels() const { return peak_resident_; }
    // Time the distributor held at least one kernel (dispatch to completion), and the
    // stretches between the first dispatch and the last completion when it held none.
    gd_time_ps resident_ps() const { return resident_ps_; }
    gd_time_ps idle_ps() const { return idle_ps_; }
    gd_time_ps longest_idle_ps() const { return longest_idle_ps_; }
    // Waveforms (--vcd): resident_kernels, ctas_launched and launch_steps (counts so far).
    void trace(sc_core::sc_trace_file *tf) const
    {
        const std::string p = std::string(name()) + ".";
        sc_core::sc_trace(tf, resident_, p + "resident_kernels");
        sc_core::sc_trace(tf, ctas_launched_, p + "ctas_launched");
        sc_core::sc_trace(tf, steps_, p + "launch_steps");
    }
    const uint64_t *ctas_done_counter() const { return &ctas_done_; }
    const uint64_t *ctas_launched_counter() const { return &ctas_launched_; }
    // After the run: have the GPCs retire what they still hold, so their statistics
    // count every CTA.
    void flush();

private:
    struct completion {
        gd_time_ps end;
        uint64_t index;  // kernel_index: same-time completions in dispatch order
        gd_kernel_run *run;
        bool operator>(const completion &o) const { return end > o.end || (end == o.end && index > o.index); }
    };

    void wake(gd_time_ps t);  // its wake-up in the domain, at time t
    bool dispatch(op_code code, void *body, sc_core::sc_time &delay);  // a kernel from the packet processor
    direct_port<gpu2gpc> dispatch_port_{this, &gpu2gpc::dispatch};
    void b_transport(tlm::tlm_generic_payload &p, sc_core::sc_time &delay) { dispatch_port_.serve(p, delay); }
    bool dispatch_dmi(tlm::tlm_generic_payload &p, tlm::tlm_dmi &d) { return dispatch_port_.grant(p, d); }

    void advance(gd_time_ps now, gd_time_ps limit, bool inclusive);
    // cwd.policy=cga: seed 003's distributor (docs/MODEL.md, 'Clusters'). Its events are
    // kernel completions and launch steps; CTA retirements are handed to the GPCs at the
    // steps (and decide when a step that found no room is tried again).
    void advance_cga(gd_time_ps now, gd_time_ps limit, bool inclusive);
    gd_time_ps step_time() const;
    void cga_step(gd_time_ps now, gd_time_ps t);
    // take: CTAs per SM of GPC g, or null: the lake's share (level, extra; gpc_launch_body)
    void launch_mask(gd_time_ps now, gd_time_ps at, uint32_t g, const uint32_t *take, bool cga,
                     uint32_t level = 0, uint32_t extra = 0);
    void complete_launch(gd_time_ps now, gd_time_ps t);
    bool refill_step(gd_time_ps now, gd_time_ps t);  // the step as a refill, if it is one (docs/MODEL.md)
    void step_failed(gd_time_ps now, gd_time_ps t);  // it found no room: the kernel waits
    void set_waiting(gd_time_ps now, gd_time_ps t, bool waiting);
    gd_time_ps launch_ready() const;
    void admit(gd_time_ps now, gd_time_ps t);  // cwd.admission=channels: the step's kernel
    gd_time_ps launch_time() const;
    gd_time_ps retire_time() const;
    gd_time_ps completion_time() const { return completions_.empty() ? GD_TIME_NEVER : completions_.top().end; }
    void set_gpc_state(uint32_t g, uint32_t max_free, gd_time_ps next_retire);
    template <class Answer>  // what a GPC's operation answers about it (gpc_step, gpc_launch, gpc_refill)
    void set_gpc_state(uint32_t g, const Answer &a)
    {
        set_gpc_state(g, a.max_free, a.next_retire);
        free_held_[g] = a.free_held;
        hint_[g] = a.hint;
        hint_known_[g] = 1;
    }
    gd_time_ps next_event() const;
    void step(gd_time_ps now, gd_time_ps t, uint32_t g, gd_kernel_run *launch, bool conditional,
              uint32_t beat_free, uint32_t beat_gpc);
    void first_launch(gd_kernel_run *k, gd_time_ps t, gd_time_ps at, gd_time_ps pace);
    void launched(gd_time_ps now, gd_time_ps t, gd_time_ps end);
    gd_time_ps kernel_completes(gd_time_ps t);
    void select_head(gd_time_ps now, gd_time_ps t);
    void schedule(gd_time_ps now);
    // A kernel may launch CTAs once it is set up and, if programmatic, from its primary's
    // end less pp.gap_programmatic_lead_ns (docs/MODEL.md): launch_from, set on arrival.
    static gd_time_ps setup_done(const gd_kernel_run *k) { return k->launch_from; }
    void link_primary(gd_kernel_run *k);          // on arrival: its queue's kernel before it
    void release_dependent(gd_kernel_run *k);     // k launched its last CTA: its end is known
    void arm_dependent(gd_kernel_run *d, gd_time_ps end);

    const uint32_t ngpc_;
    const gd_time_ps grid_launch_ps_, cta_launch_ps_, pdl_lead_ps_;
    const bool pdl_;  // cs.policy=aql: the packet processor releases a programmatic kernel early (pp.h)
    std::vector<gd_kernel_run *> queue_last_;     // per hardware queue: its last kernel in the distributor
    const uint32_t max_resident_;
    const bool shortcuts_;                   // sim.shortcuts
    const bool cga_;                         // cwd.policy=cga
    const gd_time_ps query_ps_, mask_ps_, broadcast_ps_;
    const uint32_t scan_limit_, sms_per_tpc_;
    progress_meter *progress_;               // may be null

    std::deque<gd_kernel_run *> launch_q_;   // kernels with CTAs left to launch; front = head
    gd_kernel_run *head_ = nullptr;          // launch_q_.front(), or null
    mutable gd_gpc_view view_;  // per GPC: free slots for the head kernel, next retirement (settled when read)
    // The GPC with the most free slots (gd_gpc_view_best), kept up to date, or found again
    // when next asked for once it lost slots (a lake's masks take them from GPC after GPC)
    mutable uint32_t best_gpc_ = UINT32_MAX;
    mutable bool best_stale_ = false;
    uint32_t best_gpc() const
    {
        if (best_stale_) {
            best_gpc_ = gd_gpc_view_best(&view_, UINT32_MAX);
            best_stale_ = false;
        }
        return best_gpc_;
    }
    gd_time_ps t_cur_ = 0;                   // time of the last event processed
    gd_time_ps next_launch_ = 0;             // the launch rate allows the next CTA from here
    std::priority_queue<completion, std::vector<completion>, std::greater<completion>> completions_;
    std::deque<std::pair<gd_time_ps, gd_kernel_run *>> outputs_;  // completions to deliver
    gpc_step_body body_;
    std::vector<direct_if *> gpc_direct_;    // per GPC: its direct transport (null: transactions)
    bool gpc_direct_asked_ = false;
    // An operation on GPC g, through its direct transport when it granted one.
    void gpc_call(uint32_t g, op_code code, void *body, sc_core::sc_time &delay)
    {
        if (__builtin_expect(!gpc_direct_asked_, 0))
            ask_gpc_direct();
        if (__builtin_expect(wait_told_late_, 0) && code != op::gpc_refill)
            tell_waiting_late();
        if (code != op::gpc_refill)  // (a refill answers with a new hint; a check changes nothing)
            hint_known_[g] = 0;
        gpc_ch_.call(*gpc_out[g], gpc_direct_[g], code, body, delay);
    }
    void ask_gpc_direct();
    void gpc_prefetch(uint32_t g) const
    {
        if (g < ngpc_ && gpc_direct_asked_ && gpc_direct_[g])
            gpc_direct_[g]->prefetch();
    }
    channel gpc_ch_;
    link done_ch_;

    // cwd.policy=cga
    gd_time_ps next_step_ = 0;               // the front end is free from here
    gd_time_ps step_t_ = 0;                  // the time of the step being made
    bool stalled_ = false;                   // the last step found no room for the head kernel
    bool waiting_ = false;                   // the GPCs were told a CGA waits (or will be: wait_told_late_)
    // A wait that begins while no GPC has a free slot for the head kernel strands nothing
    // until some GPC's state changes, which only an operation of ours does: the GPCs are
    // told of it (at its time) just before the next operation that is not a refill's, and
    // not at all if it ends first (sim.shortcuts; docs/MODEL.md *Refills*).
    bool wait_told_late_ = false;
    gd_time_ps wait_since_ = 0;
    void tell_waiting(gd_time_ps t, sc_core::sc_time &d, bool waiting);
    void tell_waiting_late();
    std::vector<uint32_t> all_free_, all_take_;  // per SM of the GPU, for the module selector
    std::vector<uint32_t> lake_extra_;           // per GPC: its CTAs at the lake's water line
    std::vector<uint32_t> gpc_start_;            // per GPC: its first SM in all_free_ (and the end)
    std::vector<gd_lake_gpc> lake_;              // per GPC: its free-slot levels, for the lake
    bool lake_known_ = false;                    // lake_ holds where each GPC's level masks are (asked once)
    std::vector<int32_t> gpc_speed_;             // per GPC: its answer to a query
    uint64_t receive_[GD_GPC_WORDS];             // bit g % 64 of word g / 64: GPC g gets CTAs this step
    std::vector<gpc_query_body> gpc_query_;      // per GPC: the query and its answer
    std::vector<gd_gpc_shadow> gpc_shadow_;      // per GPC: the query model of a GPU-CGA's passes
    std::vector<uint32_t> part_gpc_, part_take_; // a GPU-CGA's parts
    std::vector<uint32_t> cga_scratch_;          // gd_gpu_cga_place's snapshot (grown once)
    gpc_launch_body launch_body_;
    std::vector<uint32_t> refill_gpcs_;      // a refill step's GPCs
    std::vector<uint8_t> free_held_;         // per GPC: its last answer's free_held (a refill's prefilter)
    // per GPC: its last answer's refill hint, and whether it still holds (no other operation since)
    std::vector<gpc_refill_hint> hint_;
    std::vector<uint8_t> hint_known_;
    uint64_t steps_cga_ = 0, failed_steps_ = 0, masks_ = 0, frontend_cycles_ = 0;
    const uint32_t cta_launch_cycles_, query_cycles_, mask_cycles_, broadcast_cycles_;

    // cwd.admission=channels (seed 001 emb. 1): every resident kernel is a channel
    const bool channels_;
    const bool select_;                      // gpc2sm.select=weighted|power: the module selector places CTAs
    std::vector<gd_sm_res> res_;             // a step's copy of every SM's free resources
    uint32_t select_picks(gd_time_ps now, gd_time_ps t, gd_kernel_run *k, uint32_t n, uint64_t left);
    channel select_ch_;
    gd_time_ps select_ps_ = 0;               // the step's selector latency
    gd_adm adm_;
    std::vector<gd_kernel_run *> channel_;   // by channel slot: its kernel, or null
    std::vector<uint8_t> cand_, level_;      // a round's candidates and their priority levels
    uint64_t switches_ = 0;                  // steps that served another kernel than the oldest
    gd_time_ps arrival_ = GD_TIME_NEVER;     // a kernel arrived after a step found no room: its setup time
    gd_time_ps cycle_ps_;

    // sm.alloc=contiguous: the block finder's refresh before each launch step, and the
    // waits of the head CTA for contiguous room that the counted rules would have found
    const gd_time_ps finder_ps_;
    const uint32_t finder_cycles_;
    const bool contiguous_;
    // The CTA cost every GPC selected last (op::gpc_select); with counts only (no placed
    // warps) a new head kernel of that cost needs no new selection.
    const bool counted_;
    gd_cta_cost selected_{};
    bool have_selected_ = false;
    const std::string finder_name_;
    gd_err *err_;
    void fragment_update(gd_time_ps now, gd_time_ps t);
    void fragment_close(gd_time_ps now, gd_time_ps t);
    gd_kernel_run *frag_head_ = nullptr;     // the kernel whose CTA waits, or null
    gd_time_ps frag_since_ = 0;
    uint64_t frag_ctas_ = 0, frag_wait_ns_ = 0, frag_rem_ps_ = 0, finder_total_ = 0;

    // cwd.split_after (seed 001 emb. 3): a kernel's CTA cost, or one warp's while its
    // head CTA is split; rounds repeat every cwd.query_cycles while nothing fits
    static const gd_cta_cost *cost_of(const gd_kernel_run *k)
    {
        return k->split_left ? &k->desc->sub_cost : &k->desc->occ.cost;
    }
    bool splittable(const gd_kernel_run *k) const
    {
        return split_after_ && !k->split_left && (k->cmd_flags & GD_CMD_INDEPENDENT) && k->desc->occ.cost.warps > 1 &&
               !gd_cluster_is_cga(&k->cluster);
    }
    void reselect(gd_time_ps now, gd_time_ps t);  // the GPCs count free slots for cost_of(head_)
    bool fits(gd_time_ps now, gd_time_ps t, gd_kernel_run *k);
    const uint64_t split_after_;
    const gd_time_ps round_ps_;
    gd_time_ps fail_since_ = GD_TIME_NEVER;  // the first of the rounds in a row that fitted nobody
    gd_time_ps split_at_ = GD_TIME_NEVER;    // when the failed rounds pass cwd.split_after (a splittable head waits)
    uint64_t split_ctas_ = 0;                 // CTAs split

    uint64_t resident_ = 0, peak_resident_ = 0;
    gd_time_ps resident_since_ = 0, empty_since_ = 0, resident_ps_ = 0, idle_ps_ = 0, longest_idle_ps_ = 0;
    uint64_t kernels_ = 0, ctas_launched_ = 0, ctas_done_ = 0, rejected_ = 0, wakes_ = 0, steps_ = 0;
    domain_ref dom_;       // its GPU's event domain (or its own)
    domain::event wake_;   // its wake-up there
};

}  // namespace gd

#endif
