// hw_queues.hpp - the host side of a GPU embedded in a virtual platform: the
// hardware queues a driver programs through the register block (hwq.h, docs/VP.md),
// in the platform's memory. A doorbell write makes the GPU read the new 64-byte AQL
// packets from the ring (and a dispatch's kernel descriptor, the first time it sees
// it) through the memory port, and hand them to the packet processor as its queue
// has room (the read index then advances); a completed packet's completion signal is
// decremented in memory, and one whose event word is not 0 raises the interrupt.
// Memory delays annotated by the platform are waited out before a packet enters the
// packet processor (the GPU syncs at each packet, loosely timed). An error (a packet
// or descriptor that cannot run, a failed memory access, a bad ring) stops its queue,
// sets the error register and cause, and is kept as text; nothing is thrown and the
// simulation is never stopped.
//
// The memory port and the interrupt line belong to the device's boundary
// (gdsim::gpu); this block is given them.
#ifndef GD_HW_QUEUES_HPP
#define GD_HW_QUEUES_HPP

#include <deque>
#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

#include <systemc>
#include <tlm>
#include <tlm_utils/tlm_quantumkeeper.h>
#include <tlm_utils/simple_initiator_socket.h>
#include <tlm_utils/simple_target_socket.h>

#include "config.h"
#include "gd_msg.hpp"
#include "sc_compat.hpp"
#include "host_msg.hpp"
#include "hwq.h"
#include "packet.h"
#include "pp_msg.hpp"
#include "report.h"
#include "stats.h"

namespace gd {

class hw_queues : public sc_core::sc_module {
public:
    tlm_utils::simple_initiator_socket<hw_queues> doorbell_out;  // packets to the packet processor
    tlm_utils::simple_target_socket<hw_queues> space_in;         // queue space, packet completions

    GD_SC_HAS_PROCESS(hw_queues);
    hw_queues(sc_core::sc_module_name name, const gd_config &cfg, tlm::tlm_initiator_socket<> &mem,
              sc_core::sc_out<bool> &irq, gd_run_pool *pool, gd_stats *stats);
    ~hw_queues() override;

    // The register block: a platform's access (b_transport on the device's register
    // socket; offsets from the block's start) and its debug access (no side effects
    // beyond the write itself).
    void reg_transport(tlm::tlm_generic_payload &p, sc_core::sc_time &delay);
    unsigned reg_debug(tlm::tlm_generic_payload &p);
    // The platform revoked DMI for [start, end].
    void invalidate_dmi(uint64_t start, uint64_t end);

    // The error not yet acknowledged (the driver clears INT_CAUSE's error bit), as text;
    // "" when none.
    const std::string &error() const { return error_; }
    uint64_t dispatches() const { return next_index_; }
    // Kernels completed by time t (SystemC time, the registers' view): the model may have
    // run ahead of SystemC's time, its completions noticed only when their time comes.
    uint64_t kernels_completed_by(const sc_core::sc_time &t) const;
    uint64_t completed() const { return regs_.completed; }
    uint64_t outstanding() const { return in_flight_; }
    uint64_t queued() const;  // packets in rings not yet taken

private:
    struct ring_bell { uint32_t queue; sc_core::sc_time at; uint64_t write; };  // the index it announces
    void fetcher();  // SC_THREAD
    void space(tlm::tlm_generic_payload &p, sc_core::sc_time &delay);
    bool fetch_one(uint32_t qi);  // false: the queue cannot go on now
    bool mem_access(tlm::tlm_command cmd, uint64_t addr, uint8_t *data, unsigned len, uint32_t qi, uint64_t pkt);
    const gd_kernel_desc *descriptor(uint64_t addr, uint32_t qi, uint64_t pkt);
    uint32_t signal_number(uint64_t handle);
    void fail(uint32_t qi, enum gd_hwq_error code, uint64_t pkt, const std::string &why);
    void update_irq();
    void drive_irq();  // SC_METHOD on irq_ev_
    void update_busy();  // STATUS.busy, derived when STATUS is read

    const gd_config &cfg_;
    tlm::tlm_initiator_socket<> &mem_;
    sc_core::sc_out<bool> &irq_;
    gd_run_pool *pool_;
    gd_hwq_regs regs_;
    std::deque<ring_bell> bells_;           // doorbells rung, in order, not yet served
    std::vector<uint8_t> blocked_;          // per queue: the packet processor's queue is full
    std::vector<gd_kernel_run *> pending_;  // per queue: read from the ring, not yet accepted
    std::vector<uint64_t> rung_;            // per queue: the write index of the doorbells whose time has come
    // per queue: the signals barrier-AND packets read and not yet completed wait for
    // (signal number, the barrier's packet index), to catch a later packet of the same
    // queue that would be the first to complete one (the barrier holds the queue:
    // neither would run; a signal some earlier packet completes may be reused)
    std::vector<std::vector<std::pair<uint32_t, uint64_t>>> waits_;
    std::vector<uint8_t> signalled_;  // by signal number: some packet read carries it as its completion signal
    bool signalled(uint32_t n) const { return n < signalled_.size() && signalled_[n]; }
    struct done_signal { uint32_t queue; uint64_t handle, packet; };  // packet: its index in the ring
    std::deque<done_signal> done_;           // completion signals to write
    void signal_completion(const done_signal &s);
    // What the packet processor said (a queue has room, a packet completed), at the time
    // it happened: its annotated delay ahead of SystemC time when it runs ahead (its
    // event domain, domain.hpp). Applied once that time is reached (apply_notices).
    struct notice { sc_core::sc_time at; bool completed, kernel; uint32_t queue; done_signal sig; };
    std::deque<notice> notices_;             // in time order
    void apply_notices(const sc_core::sc_time &by);
    std::unordered_map<uint64_t, gd_kernel_desc *> descs_;  // by address
    std::unordered_map<uint64_t, uint32_t> signals_;        // handle -> signal number
    std::string error_;
    sc_core::sc_event wake_, irq_ev_;
    // the memory's annotated delays not yet waited out (loosely timed): synced when the
    // platform's global quantum is reached, before a packet enters the packet
    // processor, before the interrupt, and before the fetcher idles
    tlm_utils::tlm_quantumkeeper qk_;
    void sync();  // wait out qk_'s local time, if any
    channel ch_;
    tlm::tlm_generic_payload mp_;           // memory transactions
    tlm::tlm_dmi dmi_;
    bool dmi_valid_ = false;
    bool kick_ = false;                     // something changed while the fetcher was busy: look again
    uint64_t next_index_ = 0, in_flight_ = 0, kernels_done_ = 0;  // kernels_done_: noticed
    uint64_t packets_read_ = 0, desc_reads_ = 0, signal_writes_ = 0, interrupts_ = 0, dmi_accesses_ = 0;
};

}  // namespace gd

#endif
