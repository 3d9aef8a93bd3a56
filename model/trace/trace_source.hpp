// trace_source.hpp - the host: streams a gdsim trace and writes each packet
// (kernel dispatch, barrier-AND/-OR, non-kernel command) into its hardware queue.
// Open loop (a trace without host threads, or host.mode=open): at the packet's host
// submit time (relative to the first packet, which is simulated time 0). Closed loop
// (host.mode=closed, the default, on a trace with host threads, format 1.10): the
// captured program's threads issue their calls and waits as host.h decides, each call
// its gap after the thread's previous return, each wait returning when what it waited
// for has completed. Kernel descriptors are loaded as they stream past. A submit that
// finds its queue full waits (its thread, in closed loop) until the packet processor
// says there is room. Reading errors stop the simulation with the reader's message.
#ifndef GD_TRACE_SOURCE_HPP
#define GD_TRACE_SOURCE_HPP

#include <unordered_map>
#include <vector>

#include <systemc>
#include <tlm>
#include <tlm_utils/simple_initiator_socket.h>
#include <tlm_utils/simple_target_socket.h>

#include "bounds.h"
#include "config.h"
#include "cta_rules.h"
#include "domain.hpp"
#include "gd_msg.hpp"
#include "sc_compat.hpp"
#include "gdsim.h"
#include "host.h"
#include "host_msg.hpp"
#include "packet.h"
#include "pp_msg.hpp"
#include "progress.hpp"
#include "report.h"
#include "trace.h"

namespace gd {

// What the host needs from the C API shim.
struct host_env {
    gd_trace_reader *reader = nullptr;
    gd_run_pool *pool = nullptr;
    gd_report *report = nullptr;
    gd_err *err = nullptr;  // first error of the replay
    progress_meter *progress = nullptr;
    gd_cta_rules *rules = nullptr;  // sm.cta_time_rules (null: none): counted as dispatches match
};

class trace_source : public sc_core::sc_module {
public:
    tlm_utils::simple_initiator_socket<trace_source> doorbell_out;  // to the packet processor
    tlm_utils::simple_target_socket<trace_source> space_in;         // "queue has room"

    GD_SC_HAS_PROCESS(trace_source);
    // cfg: pp.condensed_overlap, cs.physical_queues, host.mode (closed applies to traces
    // with host threads), host.max_lookahead, host.cpu_time_scale, sm.cta_time_scale; dom:
    // an event domain to join (the GPU's: the whole replay then runs in one), or null: one
    // of its own; stats: the host's and the bounds' report sections, or null
    trace_source(sc_core::sc_module_name name, host_env &env, const gd_config &cfg, domain *dom = nullptr,
                 gd_stats *stats = nullptr);
    ~trace_source() override;

    bool finished() const { return finished_; }
    uint64_t dispatches() const { return next_index_; }  // kernel dispatches submitted
    bool closed() const { return mode_ == CLOSED; }
    const gd_host &host() const { return host_; }
    const gd_bounds &bounds() const { return bounds_; }

private:
    void wake(gd_time_ps now);  // its wake-up in the domain (and once at start)
    bool space(op_code code, void *body, sc_core::sc_time &delay);
    direct_port<trace_source> space_port_{this, &trace_source::space};
    void space_bt(tlm::tlm_generic_payload &p, sc_core::sc_time &delay) { space_port_.serve(p, delay); }
    bool space_dmi(tlm::tlm_generic_payload &p, tlm::tlm_dmi &d) { return space_port_.grant(p, d); }
    void fail(int code);
    int next_record();
    bool take_packet();
    bool read_packet();
    bool decide_mode();
    bool read_closed();
    void wake_closed(gd_time_ps now);
    bool issue_call(uint32_t thread, gd_time_ps now);
    void fill_dispatch(gd_kernel_run *r, const gd_trace_dispatch &d);
    void set_times(gd_kernel_run *r, uint64_t submit_ns, const gd_launch_info *info);
    void set_tenant(gd_kernel_run *r, const gd_tenant &t);

    host_env &env_;
    gd_trace_record rec_;
    gd_kernel_run *pending_ = nullptr;  // read, not yet submitted
    std::vector<gd_kernel_run *> batch_;  // the runs of the packet being submitted (a condensed packet: several)
    size_t batch_pos_ = 0;
    bool condensed_overlap_ = false;    // pp.condensed_overlap
    uint32_t physical_queues_ = 0;      // cs.physical_queues
    std::vector<int32_t> pq_of_;        // trace queue -> hardware (physical) queue, once seen
    uint32_t queues_seen_ = 0;
    bool blocked_ = false, finished_ = false, have_origin_ = false;
    uint64_t origin_ns_ = 0, next_index_ = 0;
    link ch_;
    domain_ref dom_;      // the event domain it belongs to
    domain::event wake_;  // its wake-up there
    // the closed-loop host (host.h): decided at the first wake-up from the trace's first records
    enum { UNDECIDED, OPEN, CLOSED } mode_ = UNDECIDED;
    bool closed_wanted_ = false;
    uint32_t cta_time_ppm_ = 1000000;  // sm.cta_time_scale
    std::unordered_map<const gd_kernel_desc *, int32_t> rule_of_;  // sm.cta_time_rules: each kernel's (-1: none)
    gd_time_ps cta_time(const gd_trace_dispatch &d);
    bool have_rec_ = false;  // rec_ holds a packet the open loop has not taken yet
    gd_host host_;
    // wake_closed's last choice, a call due later than then (gd_host_next, kept until that wake-up:
    // what the choice reads changes only when a wait ends or a stalled thread may try again, and
    // those clear it)
    bool next_kept_ = false;
    uint32_t next_thread_ = 0;
    gd_time_ps next_due_ = 0;
    gd_bounds bounds_;  // what bounds the replay (bounds.h): its report section
    bool submitted(gd_kernel_run *r, const gd_path *issued);  // a packet went in (false: out of memory)
};

}  // namespace gd

#endif
