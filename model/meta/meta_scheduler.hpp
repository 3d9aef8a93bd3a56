// meta_scheduler.hpp - the meta-scheduler (seed 002 [0092]-[0118]) between the command
// scheduler and the GPU2GPC distributor. A pipeline-launch packet (an AQL
// vendor-specific packet carrying a pipeline topology) reaches it like a kernel
// dispatch; it runs the pipeline on the GPU without the host: decision rounds
// (meta.check_cycles per buffer) decide which kernels to launch and with how many
// CTAs (meta.h, the C core), each launch is issued to GPU2GPC as a kernel dispatch
// (meta.launch_cycles each) and its completion credits the items it wrote. When
// nothing runs and nothing can launch, the packet completes (its kernel-table row
// spans the pipeline; its CTAs and warp residency are its launches'). Every other
// dispatch and completion passes through unchanged.
//
// Reports: per pipeline, kernel and buffer, registered with the statistics when a
// pipeline starts (a trace without pipelines reports exactly what it did before);
// --meta-log FILE writes every launch, fill and drain as CSV. A pipeline that
// stops with a kernel holding items but never able to launch is a model error
// naming the kernel and the buffer.
#ifndef GD_META_SCHEDULER_HPP
#define GD_META_SCHEDULER_HPP

#include <cstdio>
#include <deque>
#include <memory>
#include <vector>

#include <systemc>
#include <tlm>
#include <tlm_utils/simple_initiator_socket.h>
#include <tlm_utils/simple_target_socket.h>

#include "config.h"
#include "cwd_msg.hpp"
#include "domain.hpp"
#include "gd_msg.hpp"
#include "sc_compat.hpp"
#include "meta.h"
#include "packet.h"
#include "pp_msg.hpp"
#include "progress.hpp"
#include "stats.h"

namespace gd {

// The meta log's columns (--meta-log).
extern const char META_LOG_HEADER[];

class meta_scheduler : public sc_core::sc_module {
public:
    tlm_utils::simple_target_socket<meta_scheduler> cs_in;        // dispatches from the command scheduler
    tlm_utils::simple_initiator_socket<meta_scheduler> cwd_out;   // kernels to GPU2GPC
    tlm_utils::simple_target_socket<meta_scheduler> done_in;      // completions from GPU2GPC
    tlm_utils::simple_initiator_socket<meta_scheduler> cs_out;    // completions to the command scheduler

    GD_SC_HAS_PROCESS(meta_scheduler);
    // log: --meta-log (its header written), or null; err, source: where a pipeline that
    // deadlocks says so (the trace's path), or null
    // deadlocks says so (the trace's path), or null; dom: the event domain of its GPU
    // (null: one of its own)
    meta_scheduler(sc_core::sc_module_name name, const gd_config &cfg, gd_stats *stats, std::FILE *log = nullptr,
                   gd_err *err = nullptr, const char *source = nullptr, domain *dom = nullptr);
    ~meta_scheduler() override;

    bool log_failed() const { return log_error_; }
    // sim.max_ctas (0: none) over the replay: the CTAs of the trace's dispatches read so
    // far (meter->ctas_read, when set) and those the pipelines have launched. A launch
    // that would pass it stops the replay with an error naming the pipeline's record.
    void set_cta_limit(uint64_t max_ctas, const progress_meter *meter)
    {
        max_ctas_ = max_ctas;
        meter_ = meter;
    }

private:
    struct pipe;
    struct launch {
        gd_meta_launch l;
        gd_kernel_run *run;
        pipe *owner;
        gd_time_ps at;  // when it is issued
    };
    struct pipe {
        uint32_t id;
        gd_kernel_run *run;            // the pipeline-launch packet
        gd_meta m;
        gd_time_ps next_round = GD_TIME_NEVER, busy_until = 0;
        bool refused = false;          // a launch found the distributor full: wait for a completion
        bool done = false;
        std::deque<launch *> issue;    // decided, not yet issued
        gd_time_ps first_launch = GD_TIME_NEVER, last_launch = 0, last_end = 0;
        uint64_t ctas = 0, warp_ps = 0;
        std::vector<uint64_t> kstat, bstat;  // registered counters (frozen at the end)
        uint64_t span_ps = 0, launches = 0, rounds = 0, items_in = 0, items_left = 0;
    };

    void wake(gd_time_ps now);  // its wake-up in the domain
    bool dispatch(op_code code, void *body, sc_core::sc_time &delay);
    bool done(op_code code, void *body, sc_core::sc_time &delay);
    direct_port<meta_scheduler> dispatch_port_{this, &meta_scheduler::dispatch}, done_port_{this, &meta_scheduler::done};
    void dispatch_bt(tlm::tlm_generic_payload &p, sc_core::sc_time &delay) { dispatch_port_.serve(p, delay); }
    void done_bt(tlm::tlm_generic_payload &p, sc_core::sc_time &delay) { done_port_.serve(p, delay); }
    bool dispatch_dmi(tlm::tlm_generic_payload &p, tlm::tlm_dmi &d) { return dispatch_port_.grant(p, d); }
    bool done_dmi(tlm::tlm_generic_payload &p, tlm::tlm_dmi &d) { return done_port_.grant(p, d); }
    void start(gd_kernel_run *r, gd_time_ps t);
    void want_round(pipe &p, gd_time_ps t);
    void round(pipe &p, gd_time_ps now);
    void issue(pipe &p, gd_time_ps now);
    void finish(pipe &p, gd_time_ps now);
    void publish(pipe &p);
    void retry_refused(gd_time_ps now);
    static void log_event(void *ctx, gd_time_ps t, int ev, uint32_t k, int b, uint64_t items, uint64_t fill);

    gd_stats *stats_;
    gd_err *err_;
    const char *source_;
    std::FILE *log_;
    bool log_error_ = false;
    uint32_t log_pipe_ = 0;
    gd_meta_params params_;
    const int policy_cfg_;             // -1: the topology's
    const uint32_t cta_time_ppm_;      // sm.cta_time_scale
    const gd_time_ps check_ps_, launch_ps_;
    const gd_sm_limits sm_;
    std::vector<std::unique_ptr<pipe>> pipes_;
    std::deque<launch *> ended_;
    std::vector<launch *> free_launches_;
    std::vector<std::unique_ptr<launch>> launches_;
    gd_run_pool pool_{};
    link cwd_ch_, cs_ch_;
    uint64_t next_index_ = 0;
    uint64_t max_ctas_ = 0, pipe_ctas_ = 0;  // set_cta_limit; the CTAs pipelines launched
    const progress_meter *meter_ = nullptr;
    bool over_cta_limit(pipe &p, const launch &x);
    domain_ref dom_;      // its GPU's event domain (or its own)
    domain::event wake_;  // its wake-up there
};

}  // namespace gd

#endif
