// command_scheduler.hpp - the command scheduler (seed 004, [0049]-[0099], figs 3-8)
// between the packet processor and the GPU2GPC distributor.
//
// cs.policy=aql (the default): the packet processor applies the HSA barrier bit
// itself and this block passes dispatches and completions straight through.
//
// cs.policy=inorder | waitqueue: the packet processor hands each decoded kernel
// dispatch and non-kernel command to this block's physical queue (PQ) of its
// hardware queue (the command keeps its queue slot until it leaves the PQ:
// op::pq_left). The controller picks one command at a time (cs.pick_cycles +
// cs.decode_cycles each), wait queues (WQ) before PQs, and decides as fig 8 (the
// decisions are cs.h's): dispatch it to an engine (kernels: a dispatch slot of
// GPU2GPC, at most cs.engines; non-kernel commands: one of cs.copy_engines copy
// engines, which start it after pp.command_launch_cycles and run it for its
// duration), push it into the wait queue of the sync it depends on, or complete it
// as a no-op (its chain failed). Completions update the tables (a command marked
// to fail in the trace fails) and go on to the packet processor, which signals
// them. The block measures head-of-line blocking, false dependencies and wait-queue
// occupancy over time.
#ifndef GD_COMMAND_SCHEDULER_HPP
#define GD_COMMAND_SCHEDULER_HPP

#include <deque>
#include <queue>
#include <tuple>
#include <utility>
#include <vector>

#include <systemc>
#include <tlm>
#include <tlm_utils/simple_initiator_socket.h>
#include <tlm_utils/simple_target_socket.h>

#include "config.h"
#include "cs.h"
#include "cwd_msg.hpp"
#include "domain.hpp"
#include "gd_msg.hpp"
#include "sc_compat.hpp"
#include "pp_msg.hpp"
#include "sched_msg.hpp"
#include "stats.h"

namespace gd {

class command_scheduler : public sc_core::sc_module {
public:
    tlm_utils::simple_target_socket<command_scheduler> pp_in;        // commands from the packet processor
    tlm_utils::simple_initiator_socket<command_scheduler> cwd_out;   // kernels to GPU2GPC
    tlm_utils::simple_target_socket<command_scheduler> done_in;      // kernel completions from GPU2GPC
    tlm_utils::simple_initiator_socket<command_scheduler> pp_out;    // completions and pq_left to the packet processor

    GD_SC_HAS_PROCESS(command_scheduler);
    // dom: the event domain of its GPU (null: one of its own)
    command_scheduler(sc_core::sc_module_name name, const gd_config &cfg, gd_stats *stats, domain *dom = nullptr);
    ~command_scheduler() override;

    int policy() const { return cs_.policy; }
    // After the run: close the time accounts (head-of-line blocking, WQ occupancy).
    void finish();

private:
    void wake(gd_time_ps now);  // its wake-up in the domain (seed policies)
    bool dispatch(op_code code, void *body, sc_core::sc_time &delay);
    bool done(op_code code, void *body, sc_core::sc_time &delay);
    direct_port<command_scheduler> dispatch_port_{this, &command_scheduler::dispatch},
        done_port_{this, &command_scheduler::done};
    void dispatch_bt(tlm::tlm_generic_payload &p, sc_core::sc_time &delay) { dispatch_port_.serve(p, delay); }
    void done_bt(tlm::tlm_generic_payload &p, sc_core::sc_time &delay) { done_port_.serve(p, delay); }
    bool dispatch_dmi(tlm::tlm_generic_payload &p, tlm::tlm_dmi &d) { return dispatch_port_.grant(p, d); }
    bool done_dmi(tlm::tlm_generic_payload &p, tlm::tlm_dmi &d) { return done_port_.grant(p, d); }
    void account(gd_time_ps now);
    void carry_out(const gd_cs_decision &d, gd_time_ps now);
    void completed(gd_kernel_run *r, gd_time_ps now);
    void left_pq(gd_kernel_run *r, gd_time_ps now);

    gd_cs cs_;
    const gd_time_ps step_ps_, command_launch_ps_;
    link cwd_ch_, pp_ch_;
    std::deque<gd_kernel_run *> kernel_done_;  // completions from GPU2GPC, not yet handled
    using copy_end = std::tuple<gd_time_ps, uint64_t, gd_kernel_run *>;  // (end, seq, command)
    std::priority_queue<copy_end, std::vector<copy_end>, std::greater<copy_end>> copies_;  // running copies
    uint64_t copy_seq_ = 0;
    bool pending_ = false;                     // a decision being carried out (the controller is busy)
    gd_cs_decision pend_{};
    gd_time_ps pend_at_ = 0;
    gd_time_ps last_t_ = 0;                    // time accounts are closed up to here
    // statistics (the decisions' counters are cs_'s)
    uint64_t hol_ps_ = 0, false_deps_ = 0, wq_occ_ps_ = 0, commands_ = 0;
    domain_ref dom_;      // its GPU's event domain (or its own)
    domain::event wake_;  // its wake-up there
};

}  // namespace gd

#endif
