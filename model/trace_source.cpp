#include "trace_source.hpp"

namespace gd {

trace_source::trace_source(sc_core::sc_module_name name, host_env &env, gd_stats *stats)
    : sc_module(name), doorbell_out("doorbell_out"), space_in("space_in"), env_(env)
{
    space_in.register_b_transport(this, &trace_source::space);
    SC_METHOD(run);
    sensitive << wake_;
    (void)stats;
}

void trace_source::fail(int code)
{
    (void)code;
    finished_ = true;
    sc_core::sc_stop();
}

void trace_source::space(tlm::tlm_generic_payload &p, sc_core::sc_time &)
{
    if (blocked_) {
        blocked_ = false;
        wake_.notify(sc_core::SC_ZERO_TIME);
    }
    p.set_response_status(tlm::TLM_OK_RESPONSE);
}

void trace_source::run()
{
    if (finished_ || blocked_)
        return;
    for (unsigned n = 0;; n++) {
        (void)n;
        env_.progress.tick(now_ps());
        if (!pending_) {
            int rc = gd_trace_next(env_.reader, &rec_, env_.err);
            if (rc < 0)
                return fail(rc);
            if (rc == 0) {
                finished_ = true;
                return;
            }
            if (rec_.type == GD_REC_KERNEL)
                continue;  // kernel descriptors are kept by the reader
            gd_kernel_run *r = gd_run_alloc(env_.pool);
            if (!r) {
                gd_err_set(env_.err, GD_ENOMEM, "out of memory");
                return fail(GD_ENOMEM);
            }
            r->record = rec_.index;
            uint64_t submit_ns;
            const gd_launch_info *info;
            if (rec_.type == GD_REC_DISPATCH) {
                const gd_trace_dispatch &d = rec_.dispatch;
                r->kind = GD_PKT_KERNEL;
                r->index = next_index_++;
                r->queue = d.queue;
                r->barrier = gd_aql_barrier(d.pkt.header);
                r->completion_signal = d.pkt.completion_signal;
                r->signal = d.signal;
                r->desc = d.kernel;
                for (int i = 0; i < 3; i++)
                    r->grid[i] = d.grid_ctas[i];
                r->ctas = d.ctas;
                r->cluster = d.cluster;
                r->cta_ps = d.cta_ps;
                submit_ns = d.submit_ns;
                info = &d.info;
            } else if (rec_.type == GD_REC_NONKERNEL) {
                const gd_trace_command &c = rec_.command;
                r->kind = GD_PKT_COMMAND;
                r->queue = c.queue;
                r->barrier = c.barrier;
                r->cmd_kind = (uint8_t)c.kind;
                r->completion_signal = c.completion_signal;
                r->signal = c.signal;
                r->cta_ps = c.duration_ps;
                r->bytes = c.bytes;
                submit_ns = c.submit_ns;
                info = &c.info;
            } else {  // barrier-AND / barrier-OR
                const gd_trace_barrier &b = rec_.barrier;
                r->kind = rec_.type == GD_REC_BARRIER_OR ? GD_PKT_BARRIER_OR : GD_PKT_BARRIER_AND;
                r->queue = b.queue;
                r->barrier = gd_aql_barrier(b.pkt.header);
                r->completion_signal = b.pkt.completion_signal;
                r->signal = b.signal;
                r->ndeps = (uint8_t)b.ndeps;
                for (uint32_t i = 0; i < b.ndeps; i++)
                    r->dep[i] = b.dep[i];
                submit_ns = b.submit_ns;
                info = &b.info;
            }
            r->source_id = info->source_id;
            r->measured_start_ns = info->measured_start_ns;
            r->measured_dur_ns = info->measured_dur_ns;
            if (!have_origin_) {
                have_origin_ = true;
                origin_ns_ = submit_ns;
                env_.report->origin_ns = origin_ns_;
            }
            r->submit = (submit_ns - origin_ns_) * GD_PS_PER_NS;
            r->wait_until = 0;
            if (gd_launch_info_waits(info) && info->wait_until_ns > origin_ns_)
                r->wait_until = (info->wait_until_ns - origin_ns_) * GD_PS_PER_NS;
            pending_ = r;
        }
        gd_time_ps now = now_ps();
        if (pending_->submit > now) {
            wake_.notify(ps_time(pending_->submit - now));
            return;
        }
        submit_body b{pending_, false};
        sc_core::sc_time d = sc_core::SC_ZERO_TIME;
        ch_.call(doorbell_out, op::submit, &b, d);
        if (!b.accepted) {
            blocked_ = true;  // the packet processor calls space() when there is room
            return;
        }
        pending_ = nullptr;
    }
}

}  // namespace gd
