#include "trace_source.hpp"

namespace gd {

trace_source::trace_source(sc_core::sc_module_name name, host_env &env, bool condensed_overlap,
                           uint32_t physical_queues, domain *dom)
    : sc_module(name), doorbell_out("doorbell_out"), space_in("space_in"), env_(env),
      condensed_overlap_(condensed_overlap), physical_queues_(physical_queues), dom_(dom),
      wake_(*dom_, this, &domain::call<trace_source, &trace_source::wake>)
{
    space_in.register_b_transport(this, &trace_source::space_bt);
    space_in.register_get_direct_mem_ptr(this, &trace_source::space_dmi);  // its direct transport
    wake_.notify(0);  // the first packets
}

void trace_source::fail(int code)
{
    (void)code;
    finished_ = true;
    dom_->stop();
    sc_core::sc_stop();
}

bool trace_source::space(op_code code, void *body, sc_core::sc_time &delay)
{
    if (code == op::packet_completed) {  // nothing to write back: the trace knows its completions
        auto *b = static_cast<packet_completed_body *>(body);
        b->same_domain = b->domain == &*dom_;
        return true;
    }
    if (code != op::queue_space)
        return false;
    auto *sb = static_cast<queue_space_body *>(body);
    sb->same_domain = sb->domain == &*dom_;
    if (blocked_) {
        blocked_ = false;
        wake_.notify(now_ps() + ps_of(delay));
    }
    return true;
}

// A kernel dispatch's run (r->index is set by the caller).
void trace_source::fill_dispatch(gd_kernel_run *r, const gd_trace_dispatch &d)
{
    r->kind = GD_PKT_KERNEL;
    r->queue = d.queue;
    r->barrier = gd_aql_barrier(d.pkt.header);
    r->graph = (uint8_t)d.graph;
    r->completion_signal = d.pkt.completion_signal;
    r->signal = d.signal;
    r->desc = d.kernel;
    for (int i = 0; i < 3; i++)
        r->grid[i] = d.grid_ctas[i];
    r->ctas = d.ctas;
    r->cluster = d.cluster;
    r->cta_ps = d.cta_ps;
    r->has_insn = d.kernel->has_insn;
    if (d.ref_num >= 0) {  // a reference packet installs its RSB entry
        r->rsb_access = 1;
        r->ref_num = (uint8_t)d.ref_num;
        r->ref_pkt = d.pkt;
    }
}

// A packet's tenant (VID and command flags, from the trace or derived from its queue
// and barrier bit), then the hardware queue it goes to: with cs.physical_queues = N
// the trace's queues are spread over N in the order they first appear, as CUDA
// spreads streams over its connections.
void trace_source::set_tenant(gd_kernel_run *r, const gd_tenant &t)
{
    r->trace_queue = r->queue;
    r->vid = t.given ? t.vid : r->queue;
    r->cmd_flags = t.given ? t.flags : (uint8_t)(GD_CMD_SYNC | (r->barrier ? GD_CMD_COND : 0));
    r->priority = t.given ? t.priority : 0;
    if (physical_queues_) {
        if (r->queue >= pq_of_.size())
            pq_of_.resize(r->queue + 1, -1);
        if (pq_of_[r->queue] < 0)
            pq_of_[r->queue] = (int32_t)(queues_seen_++ % physical_queues_);
        r->queue = (uint32_t)pq_of_[r->queue];
    }
}

void trace_source::set_times(gd_kernel_run *r, uint64_t submit_ns, const gd_launch_info *info)
{
    r->source_id = info->source_id;
    r->measured_start_ns = info->measured_start_ns;
    r->measured_dur_ns = info->measured_dur_ns;
    if (!have_origin_) {
        have_origin_ = true;
        origin_ns_ = submit_ns;
        env_.report->origin_ns = origin_ns_;
        env_.report->time_base_ns = env_.report->absolute_times ? origin_ns_ : 0;
    }
    r->submit = (submit_ns - origin_ns_) * GD_PS_PER_NS;
    r->wait_until = 0;
    if (gd_launch_info_waits(info) && info->wait_until_ns > origin_ns_)
        r->wait_until = (info->wait_until_ns - origin_ns_) * GD_PS_PER_NS;
}

// The runs of the next packet record: one, or one per kernel of a condensed packet
// (seed 000: they enter the queue as one packet). Returns false at the end or on an
// error (then the replay stops).
bool trace_source::read_packet()
{
    for (;;) {
        int rc = gd_trace_next(env_.reader, &rec_, env_.err);
        if (rc < 0) {
            fail(rc);
            return false;
        }
        if (rc == 0) {
            finished_ = true;
            return false;
        }
        // kernel descriptors are kept by the reader; the host model's records (format 1.10)
        // are read and checked, and the packets enter at their captured submit times
        if (rec_.type == GD_REC_KERNEL || rec_.type == GD_REC_HOST_THREAD || rec_.type == GD_REC_HOST_CALL ||
            rec_.type == GD_REC_HOST_WAIT) {
            if (!env_.progress->tick(dom_->now()))
                return false;  // interrupted, or past the timeout: the replay stops
            continue;
        }
        uint32_t n = rec_.type == GD_REC_CONDENSED ? rec_.condensed.n : 1;
        batch_.clear();
        batch_pos_ = 0;
        for (uint32_t k = 0; k < n; k++) {
            gd_kernel_run *r = gd_run_alloc(env_.pool);
            if (!r) {
                gd_err_set(env_.err, GD_ENOMEM, "out of memory");
                fail(GD_ENOMEM);
                return false;
            }
            r->record = rec_.index;
            batch_.push_back(r);
        }
        if (rec_.type == GD_REC_CONDENSED) {
            const gd_trace_condensed &c = rec_.condensed;
            for (uint32_t k = 0; k < n; k++) {
                gd_kernel_run *r = batch_[k];
                const gd_trace_dispatch &d = c.kernel[k];
                fill_dispatch(r, d);
                r->index = next_index_++;
                r->in_packet = (uint8_t)k;
                r->rsb_access = 2;  // looks its entry up
                // Seed 000 fig 6: each kernel after the previous one completes (unless
                // pp.condensed_overlap); cleanup where gd_condensed_needs_cleanup says.
                if (k > 0 && !condensed_overlap_)
                    r->barrier = 1;
                r->skip_cleanup = !gd_condensed_needs_cleanup(&d.pkt, k, n);
                set_times(r, c.submit_ns, &d.info);
                set_tenant(r, gd_tenant_default(d.queue, r->barrier));
            }
            return true;
        }
        gd_kernel_run *r = batch_[0];
        uint64_t submit_ns;
        const gd_launch_info *info;
        const gd_tenant *tenant;
        const gd_launch_info none = gd_launch_info_unknown();
        if (rec_.type == GD_REC_DISPATCH) {
            fill_dispatch(r, rec_.dispatch);
            r->index = next_index_++;
            submit_ns = rec_.dispatch.submit_ns;
            info = &rec_.dispatch.info;
            tenant = &rec_.dispatch.tenant;
        } else if (rec_.type == GD_REC_NONKERNEL) {
            const gd_trace_command &c = rec_.command;
            r->kind = GD_PKT_COMMAND;
            r->queue = c.queue;
            r->barrier = c.barrier;
            r->graph = (uint8_t)c.graph;
            r->cmd_kind = (uint8_t)c.kind;
            r->completion_signal = c.completion_signal;
            r->signal = c.signal;
            r->cta_ps = c.duration_ps;
            r->bytes = c.bytes;
            submit_ns = c.submit_ns;
            info = &c.info;
            tenant = &c.tenant;
        } else if (rec_.type == GD_REC_PIPELINE) {
            const gd_trace_pipeline &pl = rec_.pipeline;
            r->kind = GD_PKT_PIPELINE;
            r->index = next_index_++;  // a row of the kernel table
            r->queue = pl.queue;
            r->barrier = pl.barrier;
            r->completion_signal = pl.completion_signal;
            r->signal = pl.signal;
            r->pipeline = pl.def;
            r->desc = &pl.def->row;
            r->cluster = gd_cluster_none();
            r->wq = r->engine = -1;
            submit_ns = pl.submit_ns;
            info = &none;
            tenant = &pl.tenant;
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
            tenant = &b.tenant;
        }
        set_times(r, submit_ns, info);
        set_tenant(r, *tenant);
        return true;
    }
}

void trace_source::wake(gd_time_ps now)
{
    if (finished_ || blocked_)
        return;
    for (;;) {
        if (!env_.progress->tick(now))
            return;  // interrupted, or past the timeout: the domain stops the replay
        if (!pending_) {
            if (batch_pos_ >= batch_.size() && !read_packet())
                return;
            pending_ = batch_[batch_pos_];
        }
        if (pending_->submit > now) {
            wake_.notify(pending_->submit);
            return;
        }
        submit_body b{pending_, false};
        sc_core::sc_time d = dom_->delay_to(now);
        ch_.call(doorbell_out, op::submit, &b, d);
        if (!b.accepted) {
            blocked_ = true;  // the packet processor calls space() when there is room
            return;
        }
        pending_ = nullptr;
        batch_pos_++;
    }
}

}  // namespace gd
