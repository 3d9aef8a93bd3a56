#include "trace_source.hpp"

#include <cinttypes>
#include <cstdio>
#include <cstring>

#include "exec.h"

namespace gd {

namespace {
void host_text(FILE *f, const gd_section_ctx *c)
{
    const uint64_t threads = gd_stats_get(c->stats, c->block, "threads");
    if (!threads) {
        std::fprintf(f, "  host                open loop: every packet at its captured submit time%s\n",
                     std::strcmp(c->cfg->host_mode, "open") == 0 ? " (host.mode=open)" : " (no host threads in the trace)");
        return;
    }
    std::fprintf(f, "  host                closed loop: %" PRIu64 " thread%s, %" PRIu64 " calls, %" PRIu64
                 " waits; CPU between calls %.3f us, waiting for the GPU %.3f us (summed over threads)\n",
                 threads, threads == 1 ? "" : "s", gd_stats_get(c->stats, c->block, "calls"),
                 gd_stats_get(c->stats, c->block, "waits"), gd_stats_get(c->stats, c->block, "cpu") * 1e-6,
                 gd_stats_get(c->stats, c->block, "waited") * 1e-6);
}

void host_json(FILE *f, const gd_section_ctx *c)
{
    const uint64_t threads = gd_stats_get(c->stats, c->block, "threads");
    std::fprintf(f, "  \"host\": {\"mode\": \"%s\", \"threads\": %" PRIu64 ", \"calls\": %" PRIu64
                 ", \"waits\": %" PRIu64 ", \"cpu_us\": %.3f, \"waited_us\": %.3f},\n",
                 threads ? "closed" : "open", threads, gd_stats_get(c->stats, c->block, "calls"),
                 gd_stats_get(c->stats, c->block, "waits"), gd_stats_get(c->stats, c->block, "cpu") * 1e-6,
                 gd_stats_get(c->stats, c->block, "waited") * 1e-6);
}
// The bounds section (bounds.h): the verdict, the critical path by category, the GPU's
// time by state and the floors. Text in us to the ns below, as the simulated time.
double us(gd_time_ps ps) { return (double)(ps / GD_PS_PER_NS) * 1e-3; }

void bounds_text(FILE *f, const gd_section_ctx *c)
{
    const double span = (double)gd_stats_get(c->stats, c->block, "span");
    if (span <= 0) {
        std::fprintf(f, "  bounds              none: no packet completed\n");
        return;
    }
    gd_path end{};
    end.at = (gd_time_ps)span;
    for (int i = 0; i < GD_PATH_CATS; i++)
        end.cat[i] = gd_stats_get(c->stats, c->block, gd_path_cat_key(i));
    gd_time_ps share[3];
    const int v = gd_bounds_verdict(&end, share);
    const char *side[] = {"the host", "the front end", "the GPU"};
    const double hf = (double)gd_stats_get(c->stats, c->block, "host_floor");
    const double gf = (double)gd_stats_get(c->stats, c->block, "gpu_floor");
    std::fprintf(f, "  bounds              %s-bound: %s holds %.1f %% of the critical path (host %.1f %%, front end "
                 "%.1f %%, GPU %.1f %%)", gd_bound_name(v), side[v], 100.0 * (double)share[v] / span,
                 100.0 * (double)share[0] / span, 100.0 * (double)share[1] / span, 100.0 * (double)share[2] / span);
    if (v == GD_BOUND_HOST && gf >= GD_BOUNDS_CLOSE * span)  // the other side's floor near the span
        std::fprintf(f, "; the GPU close behind (its floor %.1f %% of the span)", 100.0 * gf / span);
    else if (v != GD_BOUND_HOST && hf >= GD_BOUNDS_CLOSE * span)
        std::fprintf(f, "; the host close behind (its floor %.1f %% of the span)", 100.0 * hf / span);
    std::fprintf(f, "\n");
    std::fprintf(f, "  critical path, us  ");
    for (int i = 0; i < GD_PATH_CATS; i++)
        std::fprintf(f, "%s %s %.3f", i ? "," : "", gd_path_cat_name(i), us(end.cat[i]));
    std::fprintf(f, "\n");
    double g[GD_GPU_STATES];
    for (int i = 0; i < GD_GPU_STATES; i++)
        g[i] = 100.0 * (double)gd_stats_get(c->stats, c->block, gd_gpu_state_key(i)) / span;
    std::fprintf(f, "  GPU time            busy %.1f %% (kernels %.1f %%, copies alone %.1f %%); idle %.1f %%: front end "
                 "%.1f %%, waiting on a dependency %.1f %%, nothing submitted %.1f %%\n", g[0] + g[1], g[0], g[1],
                 g[2] + g[3] + g[4], g[2], g[3], g[4]);
    std::fprintf(f, "  floors              host %.3f us (every GPU-side duration zero), GPU %.3f us (every host gap "
                 "zero): a faster GPU shortens the span by at most %.1f %%, a faster host by at most %.1f %%\n",
                 us((gd_time_ps)hf), us((gd_time_ps)gf), 100.0 * (span - hf) / span, 100.0 * (span - gf) / span);
}

void bounds_json(FILE *f, const gd_section_ctx *c)
{
    const gd_time_ps span = gd_stats_get(c->stats, c->block, "span");
    gd_path end{};
    end.at = span;
    for (int i = 0; i < GD_PATH_CATS; i++)
        end.cat[i] = gd_stats_get(c->stats, c->block, gd_path_cat_key(i));
    gd_time_ps share[3];
    const int v = gd_bounds_verdict(&end, share);
    std::fprintf(f, "  \"bounds\": {\"verdict\": \"%s\", \"span_us\": %.6f, \"critical_path_us\": {",
                 span ? gd_bound_name(v) : "none", (double)span * 1e-6);
    for (int i = 0; i < GD_PATH_CATS; i++)
        std::fprintf(f, "%s\"%s\": %.6f", i ? ", " : "", gd_path_cat_key(i), (double)end.cat[i] * 1e-6);
    std::fprintf(f, "}, \"gpu_us\": {");
    for (int i = 0; i < GD_GPU_STATES; i++)
        std::fprintf(f, "%s\"%s\": %.6f", i ? ", " : "", gd_gpu_state_key(i),
                     (double)gd_stats_get(c->stats, c->block, gd_gpu_state_key(i)) * 1e-6);
    std::fprintf(f, "}, \"host_floor_us\": %.6f, \"gpu_floor_us\": %.6f},\n",
                 (double)gd_stats_get(c->stats, c->block, "host_floor") * 1e-6,
                 (double)gd_stats_get(c->stats, c->block, "gpu_floor") * 1e-6);
}
}  // namespace

trace_source::trace_source(sc_core::sc_module_name name, host_env &env, const gd_config &cfg, domain *dom,
                           gd_stats *stats)
    : sc_module(name), doorbell_out("doorbell_out"), space_in("space_in"), env_(env),
      condensed_overlap_(std::strcmp(cfg.pp_condensed_overlap, "on") == 0), physical_queues_(cfg.cs_physical_queues),
      dom_(dom), wake_(*dom_, this, &domain::call<trace_source, &trace_source::wake>),
      closed_wanted_(std::strcmp(cfg.host_mode, "closed") == 0), cta_time_ppm_(cfg.sm_cta_time_ppm)
{
    const uint32_t max_lookahead = cfg.host_max_lookahead;
    gd_host_init(&host_, max_lookahead);
    host_.cpu_ppm = cfg.host_cpu_time_ppm;
    if (gd_bounds_init(&bounds_))
        throw std::bad_alloc();  // the replay ends with GD_ENOMEM
    if (physical_queues_)
        gd_bounds_map_queues(&bounds_);
    host_.bounds = &bounds_;
    space_in.register_b_transport(this, &trace_source::space_bt);
    space_in.register_get_direct_mem_ptr(this, &trace_source::space_dmi);  // its direct transport
    if (stats) {
        gd_stats_add(stats, basename(), "threads", "threads", "host threads of the captured program (closed loop)",
                     &host_.declared);
        gd_stats_add(stats, basename(), "calls", "calls", "host calls issued (closed loop)", &host_.calls);
        gd_stats_add(stats, basename(), "waits", "waits", "host waits for the GPU (closed loop)", &host_.waits);
        gd_stats_add(stats, basename(), "cpu", "ps", "the threads' CPU time between their calls (closed loop)",
                     &host_.cpu_ps);
        gd_stats_add(stats, basename(), "waited", "ps",
                     "the threads' time in waits for the GPU, to their completion (closed loop)", &host_.waited_ps);
        gd_stats_add_section(stats, basename(), host_text, host_json);
        static const char *const state_desc[GD_GPU_STATES] = {
            "time a kernel's CTAs were on the SMs", "time only copies or other commands ran",
            "idle time with a packet in the front end (dependencies met, not launched; or completing)",
            "idle time with packets submitted, each waiting for another's completion",
            "idle time with nothing submitted and not completed"};
        gd_stats_add(stats, "bounds", "span", "ps", "the critical path: first submit to last completion",
                     &bounds_.end.at);
        for (int i = 0; i < GD_PATH_CATS; i++)
            gd_stats_add(stats, "bounds", gd_path_cat_key(i), "ps", "the critical path's time in this category",
                         &bounds_.end.cat[i]);
        for (int i = 0; i < GD_GPU_STATES; i++)
            gd_stats_add(stats, "bounds", gd_gpu_state_key(i), "ps", state_desc[i], &bounds_.gpu[i]);
        gd_stats_add(stats, "bounds", "host_floor", "ps", "the span with every GPU-side duration zero",
                     &bounds_.host_floor);
        gd_stats_add(stats, "bounds", "gpu_floor", "ps", "the span with every host duration zero",
                     &bounds_.gpu_floor);
        gd_stats_add_section(stats, "bounds", bounds_text, bounds_json);
    }
    wake_.notify(0);  // the first packets
}

trace_source::~trace_source()
{
    gd_host_destroy(&host_);
    gd_bounds_destroy(&bounds_);
}

bool trace_source::submitted(gd_kernel_run *r, const gd_path *issued)
{
    if (gd_bounds_submitted(&bounds_, r, issued) == 0)
        return true;
    gd_err_set(env_.err, GD_ENOMEM, "out of memory");
    fail(GD_ENOMEM);
    return false;
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
        if (gd_bounds_completed(&bounds_, b->run, nullptr)) {
            gd_err_set(env_.err, GD_ENOMEM, "out of memory");
            fail(GD_ENOMEM);
            return true;
        }
        if (mode_ == CLOSED) {  // a thread waiting for it may go on
            gd_time_ps at = gd_host_completed(&host_, b->run, now_ps() + ps_of(delay));
            if (at != GD_TIME_NEVER) {
                next_kept_ = false;  // a wait ended: the choice changes
                wake_.notify(at);
            }
        }
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
    if (mode_ == CLOSED) {  // threads stalled on a full queue try again
        bool any = false;
        for (uint32_t i = 0; i < host_.nthreads; i++) {
            any |= host_.t[i].stalled != 0;
            host_.t[i].stalled = 0;
        }
        if (any) {
            next_kept_ = false;
            wake_.notify(now_ps() + ps_of(delay));
        }
    }
    return true;
}

// A dispatch's CTA time: sm.cta_time_scale, then the first of sm.cta_time_rules its
// kernel's name matches (each kernel matched once, each dispatch counted).
gd_time_ps trace_source::cta_time(const gd_trace_dispatch &d)
{
    const gd_time_ps t = gd_cta_time_scaled(d.cta_ps, cta_time_ppm_);
    gd_cta_rules *rules = env_.rules;
    if (!rules)
        return t;
    auto it = rule_of_.find(d.kernel);
    if (it == rule_of_.end()) {
        int32_t k = gd_cta_rules_match(rules, d.kernel->name ? d.kernel->name : "");
        it = rule_of_.emplace(d.kernel, k).first;
        if (k < 0)
            rules->unmatched_kernels++;
        else
            rules->rule[k].kernels++;
    }
    if (it->second < 0) {
        rules->unmatched_dispatches++;
        return t;
    }
    gd_cta_rule &r = rules->rule[it->second];
    r.dispatches++;
    return gd_cta_time_scaled(t, r.ppm);
}

// A kernel dispatch's run (r->index is set by the caller).
void trace_source::fill_dispatch(gd_kernel_run *r, const gd_trace_dispatch &d)
{
    r->kind = GD_PKT_KERNEL;
    r->queue = d.queue;
    r->barrier = gd_aql_barrier(d.pkt.header);
    r->graph = (uint8_t)d.graph;
    r->programmatic = (uint8_t)d.programmatic;
    r->completion_signal = d.pkt.completion_signal;
    r->signal = d.signal;
    r->desc = d.kernel;
    for (int i = 0; i < 3; i++)
        r->grid[i] = d.grid_ctas[i];
    r->ctas = d.ctas;
    r->cluster = d.cluster;
    r->cta_ps = cta_time(d);
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

// The next record into rec_: 1, or 0 at the trace's end, -1 on an error or a stop (the
// replay stops). Kernel descriptors are kept by the reader (a progress tick each).
int trace_source::next_record()
{
    int rc = gd_trace_next(env_.reader, &rec_, env_.err);
    if (rc < 0) {
        fail(rc);
        return -1;
    }
    if (rc == 0)
        return 0;
    if (rec_.type == GD_REC_KERNEL && !env_.progress->tick(dom_->now()))
        return -1;  // interrupted, or past the timeout: the replay stops
    return 1;
}

// The runs of the packet record in rec_ into batch_: one, or one per kernel of a
// condensed packet (seed 000: they enter the queue as one packet). False when out of
// memory (the replay stops).
bool trace_source::take_packet()
{
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

// The next packet record's runs (open loop): false at the end or on an error. The host
// model's records (format 1.10) are read and checked, and passed over.
bool trace_source::read_packet()
{
    for (;;) {
        if (have_rec_) {
            have_rec_ = false;
        } else {
            int rc = next_record();
            if (rc <= 0) {
                if (rc == 0)
                    finished_ = true;
                return false;
            }
        }
        if (gd_record_is_packet(rec_.type))
            return take_packet();
    }
}

// At the first wake-up: closed loop when host.mode=closed and the trace declares host
// threads (they come before every packet, call and wait), else open loop (the record
// read to decide is the open loop's first). False on an error or a stop.
bool trace_source::decide_mode()
{
    for (;;) {
        int rc = next_record();
        if (rc < 0)
            return false;
        if (rc == 0) {
            finished_ = true;
            mode_ = OPEN;
            return false;
        }
        if (rec_.type == GD_REC_KERNEL)
            continue;
        if (rec_.type == GD_REC_HOST_THREAD && closed_wanted_) {
            if (gd_host_declare(&host_, &rec_.host_thread)) {
                gd_err_set(env_.err, GD_ENOMEM, "out of memory");
                fail(GD_ENOMEM);
                return false;
            }
            continue;
        }
        if (rec_.type == GD_REC_HOST_THREAD)
            continue;
        mode_ = host_.declared ? CLOSED : OPEN;
        bounds_.host_waits = mode_ == CLOSED;
        have_rec_ = true;
        return true;
    }
}

// Closed loop: one record for the host threads (host.h). False on an error or a stop.
bool trace_source::read_closed()
{
    int rc;
    if (have_rec_) {
        have_rec_ = false;
        rc = 1;
    } else if ((rc = next_record()) < 0) {
        return false;
    }
    int nomem = 0;
    if (rc == 0) {
        gd_host_eof(&host_);
    } else if (rec_.type == GD_REC_HOST_CALL) {
        nomem = gd_host_call(&host_, &rec_.host_call);
    } else if (rec_.type == GD_REC_HOST_WAIT) {
        nomem = gd_host_wait(&host_, &rec_.host_wait);
    } else if (gd_record_is_packet(rec_.type)) {
        if (!take_packet())
            return false;
        if (!host_.have_origin)
            gd_host_origin(&host_, origin_ns_);
        for (gd_kernel_run *r : batch_)
            gd_host_add_run(&host_, r);
        batch_.clear();
        gd_host_packet_read(&host_);
    }
    if (nomem) {
        gd_err_set(env_.err, GD_ENOMEM, "out of memory");
        fail(GD_ENOMEM);
        return false;
    }
    return true;
}

// Closed loop: submit the head call's runs of thread at now (a full queue stalls the
// thread, which tries again on room); true when they are all in.
bool trace_source::issue_call(uint32_t thread, gd_time_ps now)
{
    gd_host_item *it = gd_host_head(&host_, thread);
    while (gd_kernel_run *r = it->runs) {
        if (!gd_host_in_order(&host_, r))
            return false;  // another thread's earlier packet of its queue first
        submit_body b{r, false};  // (the packet processor stamps its submit time when it takes it)
        sc_core::sc_time d = dom_->delay_to(now);
        const gd_path *issued = gd_host_issue_path(&host_, thread, now);
        ch_.call(doorbell_out, op::submit, &b, d);
        if (!b.accepted) {
            host_.t[thread].stalled = 1;  // the packet processor calls space() when there is room
            return false;
        }
        if (!submitted(r, issued))
            return false;
        if (gd_host_submitted(&host_, r)) {
            gd_err_set(env_.err, GD_ENOMEM, "out of memory");
            fail(GD_ENOMEM);
            return false;
        }
        it->runs = r->host_next;
    }
    gd_host_call_done(&host_, thread, now);
    return true;
}

void trace_source::wake_closed(gd_time_ps now)
{
    for (;;) {
        if (!env_.progress->tick(now))
            return;  // interrupted, or past the timeout: the domain stops the replay
        uint32_t th;
        gd_time_ps due = 0;
        int what;
        if (next_kept_) {  // nothing it reads changed since (gd_host_next: about 100 instructions)
            next_kept_ = false;
            th = next_thread_;
            due = next_due_;
            what = GD_HOST_ISSUE;
        } else {
            what = gd_host_next(&host_, &th, &due);
        }
        if (what == GD_HOST_READ) {
            do {  // (an open call's packets all at once: gd_host_next would say so for each)
                if (gd_host_full(&host_)) {
                    const char *name = th < host_.nthreads ? host_.t[th].name : "";
                    gd_err_set(env_.err, GD_ELIMIT, "%s: record %" PRIu64 ": closed-loop host: %" PRIu64 " packets "
                               "read ahead and host thread %u (\"%s\") has no next call or wait yet "
                               "(host.max_lookahead is %" PRIu64 "; raise it, or replay with host.mode=open)",
                               gd_trace_path(env_.reader), rec_.index, host_.buffered, th, name, host_.max_buffered);
                    fail(GD_ELIMIT);
                    return;
                }
                if (!read_closed())
                    return;
                th = UINT32_MAX;
            } while (!host_.eof && host_.open_thread != UINT32_MAX);
            continue;
        }
        if (what == GD_HOST_IDLE) {
            while (!host_.eof && gd_host_all_ended(&host_))  // the rest of the trace, to its end record
                if (!read_closed())
                    return;
            if (gd_host_done(&host_))
                finished_ = true;
            return;  // a completion or room in a queue wakes it
        }
        if (due > now) {
            next_kept_ = true;
            next_thread_ = th;
            next_due_ = due;
            wake_.notify(due);
            return;
        }
        gd_host_item *it = gd_host_head(&host_, th);
        if (it->is_wait) {
            if (gd_host_begin_wait(&host_, th, now) < 0) {
                gd_err_set(env_.err, GD_ENOMEM, "out of memory");
                fail(GD_ENOMEM);
                return;
            }
        } else if (!issue_call(th, now) && finished_) {
            return;  // an error
        }
    }
}

void trace_source::wake(gd_time_ps now)
{
    if (finished_)
        return;
    if (mode_ == UNDECIDED && !decide_mode())
        return;
    if (mode_ == CLOSED) {
        wake_closed(now);
        return;
    }
    if (blocked_)
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
        pending_->host_at = pending_->submit;  // the captured submit time: the host's
        ch_.call(doorbell_out, op::submit, &b, d);
        if (!b.accepted) {
            blocked_ = true;  // the packet processor calls space() when there is room
            return;
        }
        if (!submitted(pending_, nullptr))
            return;
        pending_ = nullptr;
        batch_pos_++;
    }
}

}  // namespace gd
