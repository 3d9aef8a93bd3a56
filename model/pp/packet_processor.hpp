// packet_processor.hpp - the packet processor: one hardware queue per trace queue,
// packets processed in order per queue:
//   doorbell (submit; the packet's completion signal goes up by one) -> fetch
//   (pp.fetch_cycles, per queue, once the packet is at the head) -> decode
//   (pp.decode_cycles, one decoder shared round-robin by the queues; a reference
//   packet then installs its entry in the reference state buffer, a condensed
//   packet's kernel looks its entry up: one transaction on rsb_out, which takes
//   the buffer's access time) -> barrier
//   bit (wait until every earlier packet of the queue completed) -> then by kind:
//   - kernel dispatch: to the GPU2GPC distributor (waits while it holds
//     cwd.max_resident_kernels) -> ... -> last CTA retired -> completion
//     signalled (pp.completion_cycles);
//   - barrier-AND/-OR: leaves the head once decoded (the packets behind it are
//     fetched and decoded meanwhile) and resolves when its dependency signals are
//     satisfied (and, with the barrier bit, every earlier packet of its queue has
//     completed); it completes pp.barrier_cycles later; no later packet of its
//     queue launches before that;
//   - non-kernel command: its engine starts it after pp.command_launch_cycles,
//     it runs for its duration, completion after pp.completion_cycles.
// A packet released by its barrier bit while it waited decoded (a busy queue) is held
// for the rest of its launch-gap class's time (gap.h, pp.gap_*_ns) before it goes.
// With cs.policy=inorder|waitqueue the barrier bit is the command scheduler's
// business (its commands' sync/conditional flags): a decoded kernel or non-kernel
// command goes to the scheduler at once (unless a barrier packet holds its queue),
// which runs it and reports its completion; it keeps its queue slot until it leaves
// the scheduler's physical queue.
// Completion decrements the packet's completion signal. The queue slot is freed
// when the packet leaves the head; a host blocked on a full queue is told then.
// Its own timed events live in a C calendar; the GPU's event domain wakes it
// (domain.hpp).
#ifndef GD_PACKET_PROCESSOR_HPP
#define GD_PACKET_PROCESSOR_HPP

#include <string>
#include <vector>

#include <systemc>
#include <tlm>
#include <tlm_utils/simple_initiator_socket.h>
#include <tlm_utils/simple_target_socket.h>

#include "cwd_msg.hpp"
#include "domain.hpp"
#include "gd_msg.hpp"
#include "sc_compat.hpp"
#include "heap.h"
#include "host_msg.hpp"
#include "pp.h"
#include "pp_msg.hpp"
#include "report.h"
#include "rsb_msg.hpp"
#include "sched_msg.hpp"
#include "stats.h"

namespace gd {

class packet_processor : public sc_core::sc_module {
public:
    tlm_utils::simple_target_socket<packet_processor> doorbell_in;     // packets from the host
    tlm_utils::simple_initiator_socket<packet_processor> space_out;    // "queue has room", "packet completed" to the host
    tlm_utils::simple_initiator_socket<packet_processor> dispatch_out; // kernels to GPU2GPC
    tlm_utils::simple_target_socket<packet_processor> done_in;         // kernel completions from GPU2GPC
    // the reference state buffer (reference and condensed packets); optional: a packet
    // processor without one replays traces without such packets
    tlm_utils::simple_initiator_socket_optional<packet_processor> rsb_out;

    GD_SC_HAS_PROCESS(packet_processor);
    // dom: the event domain of its GPU (null: one of its own)
    packet_processor(sc_core::sc_module_name name, const gd_config &cfg, gd_report *report, gd_stats *stats,
                     domain *dom = nullptr);
    ~packet_processor() override;

    uint64_t packets() const { return packets_; }
    // Waveforms (--vcd): hardware queues 0..n-1 as signals queueN.depth (packets in the
    // ring), .write_index and .read_index (entries written and read, ever) and
    // .in_flight (taken from the queue, not yet completed). Before the simulation starts.
    void trace(sc_core::sc_trace_file *tf, uint32_t n);
    uint64_t host_stalls() const { return host_stalls_; }
    uint64_t queues_used() const { return used_.size(); }
    uint64_t outstanding() const { return outstanding_; }
    // After the simulation: "" if every queue drained, else what is stuck where.
    std::string stuck() const;

private:
    enum ev_type : uint8_t { FETCH_DONE, DECODE_DONE, COMPLETE, GAP_HELD };
    struct ev {
        ev_type type;
        uint32_t queue;
        gd_kernel_run *run;
    };

    void wake(gd_time_ps now);  // its wake-up in the domain
    bool doorbell(op_code code, void *body, sc_core::sc_time &delay);
    bool done(op_code code, void *body, sc_core::sc_time &delay);
    direct_port<packet_processor> doorbell_port_{this, &packet_processor::doorbell},
        done_port_{this, &packet_processor::done};
    void doorbell_bt(tlm::tlm_generic_payload &p, sc_core::sc_time &delay) { doorbell_port_.serve(p, delay); }
    void done_bt(tlm::tlm_generic_payload &p, sc_core::sc_time &delay) { done_port_.serve(p, delay); }
    bool doorbell_dmi(tlm::tlm_generic_payload &p, tlm::tlm_dmi &d) { return doorbell_port_.grant(p, d); }
    bool done_dmi(tlm::tlm_generic_payload &p, tlm::tlm_dmi &d) { return done_port_.grant(p, d); }
    void post(gd_time_ps t, ev e);
    void handle(const ev &e, gd_time_ps now);
    void issue(gd_time_ps now);
    void leave_head(uint32_t qi, gd_pp_queue &q, gd_time_ps now);
    void taken(uint32_t qi, gd_pp_queue &q, gd_time_ps now);
    void space(uint32_t qi, gd_pp_queue &q, gd_time_ps now);
    bool barriers_waiting() const;
    uint64_t barrier_packets_ = 0;        // barrier packets submitted and not yet completed
    void settle_barriers(gd_time_ps now);
    gd_time_ps rsb_access(const gd_kernel_run *r, gd_time_ps now, gd_time_ps after);

    const gd_time_ps fetch_ps_, decode_ps_, completion_ps_, barrier_ps_, command_launch_ps_;
    const uint32_t queue_packets_;
    gd_gap_model gap_;                  // the launch-gap classes (gap.h)
    std::vector<gd_time_ps> hold_posted_;  // per queue: the release time a GAP_HELD wake is posted for
    gd_report *report_;
    std::vector<gd_pp_queue> queues_;   // indexed by queue id (grown on first use)
    std::vector<uint32_t> used_;        // queue ids seen, ascending
    std::vector<uint32_t> signals_;     // completion signal values, by signal number
    gd_heap calendar_;
    std::vector<ev> evs_;
    std::vector<uint32_t> ev_free_;
    uint64_t seq_ = 0;
    bool decoder_busy_ = false;
    // What issue() has to look at: queues whose head is decoded, and whether one may
    // have become dispatchable since the last pass (a head decoded, a packet completed,
    // a hold ended, room in the distributor: the dispatch pass); queues whose head is
    // fetched (the decoder); whether a queue may have become idle with packets in it (a
    // head left, or a packet came to an empty queue: the fetch pass). Skipping a pass
    // with nothing to do changes nothing but its cost.
    uint32_t decoded_n_ = 0, fetched_n_ = 0;
    bool dispatch_scan_ = false, fetch_scan_ = false;
    uint32_t decode_rr_ = 0, dispatch_rr_ = 0;
    bool cwd_full_ = false;
    link dispatch_ch_, space_ch_;
    channel rsb_ch_;
    uint64_t packets_ = 0, host_stalls_ = 0, cwd_waits_ = 0, outstanding_ = 0, completions_ = 0;
    uint64_t barriers_ = 0, barrier_wait_ps_ = 0, commands_ = 0, command_bytes_ = 0;
    uint64_t gap_holds_ = 0, gap_hold_ps_ = 0;  // packets the launch-gap model held, and for how long
    // front-end overhead (seed 000): AQL packets fetched and their bytes, RSB accesses,
    // and the time spent fetching, decoding, in the RSB and cleaning up (ps)
    uint64_t packets_fetched_ = 0, bytes_fetched_ = 0, rsb_accesses_ = 0, rsb_kernels_ = 0, overhead_ps_ = 0;
    uint64_t enqueued_ = 0, fetch_time_ps_ = 0, decode_time_ps_ = 0, rsb_time_ps_ = 0, cleanup_time_ps_ = 0;
    const bool condensed_overlap_;
    // cs.policy=inorder|waitqueue: kernels and non-kernel commands go to the command
    // scheduler's physical queue when decoded (the scheduler decides their dependencies;
    // they keep their queue slot until they leave it: op::pq_left)
    const bool sched_;
    domain_ref dom_;      // its GPU's event domain (or its own)
    domain::event wake_;  // its wake-up there
    struct vcd_queue {
        uint64_t depth = 0, write_index = 0, read_index = 0, in_flight = 0;
    };
    std::vector<vcd_queue> vcd_;  // empty unless traced
    void sync_vcd();
    struct vcd_sync {  // brings the traced values up to date when an entry point returns
        packet_processor *pp;
        ~vcd_sync()
        {
            if (!pp->vcd_.empty())
                pp->sync_vcd();
        }
    };
};

}  // namespace gd

#endif
