#include "packet_processor.hpp"

#include <new>

#include <algorithm>
#include <cinttypes>
#include <cstdio>
#include <string>

namespace gd {

namespace {

// The front end's line in the text summary and its object in the JSON summary: the
// packets and bytes fetched, the kernels launched from the reference state table
// and the packet processor's overhead (seed 000's what-if).
void frontend_text(FILE *f, const gd_section_ctx *c)
{
    const gd_stats *st = c->stats;
    uint64_t fk = gd_stats_get(st, c->block, "rsb_kernels"), kernels = c->summary->kernels;
    fprintf(f, "  front end           %" PRIu64 " packets fetched (%" PRIu64 " bytes), %" PRIu64
               " kernels from the reference state table (%.1f %%), overhead %.3f us\n",
            gd_stats_get(st, c->block, "packets_fetched"), gd_stats_get(st, c->block, "bytes_fetched"), fk,
            kernels ? 100.0 * (double)fk / (double)kernels : 0.0,
            gd_stats_get(st, c->block, "frontend_overhead") / 1e6);
}

void frontend_json(FILE *f, const gd_section_ctx *c)
{
    const gd_stats *st = c->stats;
    uint64_t fk = gd_stats_get(st, c->block, "rsb_kernels"), kernels = c->summary->kernels;
    fprintf(f, "  \"frontend\": {\"packets_processed\": %" PRIu64 ", \"bytes_fetched\": %" PRIu64
               ", \"frontend_overhead_ns\": %.3f, \"rsb_accesses\": %" PRIu64 ", \"rst_kernels\": %" PRIu64
               ", \"rst_hit_rate\": %.6f, \"mean_launch_latency_ns\": %.3f},\n",
            gd_stats_get(st, c->block, "packets_fetched"), gd_stats_get(st, c->block, "bytes_fetched"),
            gd_stats_get(st, c->block, "frontend_overhead") / 1000.0, gd_stats_get(st, c->block, "rsb_accesses"), fk,
            kernels ? (double)fk / (double)kernels : 0.0, c->summary->mean_launch_latency_ns);
}

}  // namespace

packet_processor::packet_processor(sc_core::sc_module_name name, const gd_config &cfg, gd_report *report,
                                   gd_stats *stats, domain *dom)
    : sc_module(name),
      doorbell_in("doorbell_in"),
      space_out("space_out"),
      dispatch_out("dispatch_out"),
      done_in("done_in"),
      rsb_out("rsb_out"),
      fetch_ps_(gd_cycles_to_ps(cfg.pp_fetch_cycles, cfg.clock_mhz)),
      decode_ps_(gd_cycles_to_ps(cfg.pp_decode_cycles, cfg.clock_mhz)),
      completion_ps_(gd_cycles_to_ps(cfg.pp_completion_cycles, cfg.clock_mhz)),
      barrier_ps_(gd_cycles_to_ps(cfg.pp_barrier_cycles, cfg.clock_mhz)),
      command_launch_ps_(gd_cycles_to_ps(cfg.pp_command_launch_cycles, cfg.clock_mhz)),
      queue_packets_(cfg.pp_queue_packets),
      report_(report),
      condensed_overlap_(std::string(cfg.pp_condensed_overlap) == "on"),
      sched_(std::string(cfg.cs_policy) != "aql"),
      dom_(dom),
      wake_(*dom_, this, &domain::call<packet_processor, &packet_processor::wake>)
{
    gd_gap_model_init(&gap_, &cfg);
    doorbell_in.register_b_transport(this, &packet_processor::doorbell_bt);
    done_in.register_b_transport(this, &packet_processor::done_bt);
    doorbell_in.register_get_direct_mem_ptr(this, &packet_processor::doorbell_dmi);  // their direct transports
    done_in.register_get_direct_mem_ptr(this, &packet_processor::done_dmi);
    gd_heap_init(&calendar_);
    if (stats) {
        gd_stats_add(stats, basename(), "packets", "packets", "kernel dispatch packets dispatched", &packets_);
        gd_stats_add(stats, basename(), "completions", "kernels", "kernel completions signalled", &completions_);
        gd_stats_add(stats, basename(), "barrier_packets", "packets", "barrier-AND/-OR packets completed", &barriers_);
        gd_stats_add(stats, basename(), "barrier_wait", "ps",
                     "time barrier packets spent decoded at the head of their queue waiting for their "
                     "dependencies", &barrier_wait_ps_);
        gd_stats_add(stats, basename(), "commands", "commands", "non-kernel commands (memcpy, memset) completed",
                     &commands_);
        gd_stats_add(stats, basename(), "command_bytes", "bytes", "bytes the non-kernel commands moved or set",
                     &command_bytes_);
        gd_stats_add(stats, basename(), "gap_holds", "packets",
                     "packets held after their barrier bit released them on a busy queue, for the rest of their "
                     "launch-gap class (pp.gap_*_ns)", &gap_holds_);
        gd_stats_add(stats, basename(), "gap_hold_time", "ps", "time those packets were held, summed", &gap_hold_ps_);
        gd_stats_add(stats, basename(), "host_stalls", "submits", "submits that found their queue full", &host_stalls_);
        gd_stats_add(stats, basename(), "distributor_full_waits", "dispatches",
                     "dispatches that waited for room in the distributor", &cwd_waits_);
        gd_stats_add(stats, basename(), "packets_fetched", "packets",
                     "AQL packets fetched (a condensed packet once for all its kernels)", &packets_fetched_);
        gd_stats_add(stats, basename(), "bytes_fetched", "bytes", "bytes of AQL packets fetched (64 per packet)",
                     &bytes_fetched_);
        gd_stats_add(stats, basename(), "rsb_accesses", "accesses",
                     "reference state buffer writes (reference packets) and lookups (condensed kernels)",
                     &rsb_accesses_);
        gd_stats_add(stats, basename(), "rsb_kernels", "kernels", "kernels launched from a condensed packet",
                     &rsb_kernels_);
        gd_stats_add(stats, basename(), "frontend_overhead", "ps",
                     "packet-processor time per packet and kernel: fetch, decode, RSB access and cleanup "
                     "(completion) latency, summed", &overhead_ps_);
        gd_stats_add(stats, basename(), "packets_enqueued", "packets",
                     "AQL packets the host wrote into queues (a condensed packet once)", &enqueued_);
        gd_stats_add(stats, basename(), "fetch_time", "ps", "front-end overhead: packet fetches", &fetch_time_ps_);
        gd_stats_add(stats, basename(), "decode_time", "ps", "front-end overhead: packet decoding (process)",
                     &decode_time_ps_);
        gd_stats_add(stats, basename(), "rsb_time", "ps", "front-end overhead: reference state buffer accesses",
                     &rsb_time_ps_);
        gd_stats_add(stats, basename(), "cleanup_time", "ps", "front-end overhead: cleanup (completion) latency",
                     &cleanup_time_ps_);
        gd_stats_add_section(stats, basename(), frontend_text, frontend_json);
    }
}

packet_processor::~packet_processor()
{
    for (auto &q : queues_)
        gd_pp_queue_destroy(&q);
    gd_heap_free(&calendar_);
}

void packet_processor::post(gd_time_ps t, ev e)
{
    uint32_t idx;
    if (!ev_free_.empty()) {
        idx = ev_free_.back();
        ev_free_.pop_back();
        evs_[idx] = e;
    } else {
        idx = (uint32_t)evs_.size();
        evs_.push_back(e);
    }
    if (gd_heap_push(&calendar_, t, (seq_++ << 24) | idx))
        throw std::bad_alloc();  // the replay ends with GD_ENOMEM
}

bool packet_processor::doorbell(op_code code, void *body, sc_core::sc_time &delay)
{
    if (code != op::submit)
        return false;
    auto *b = static_cast<submit_body *>(body);
    gd_kernel_run *r = b->run;
    vcd_sync sync{this};
    if (r->queue >= queues_.size()) {
        size_t old = queues_.size();
        queues_.resize(r->queue + 1);
        for (size_t i = old; i < queues_.size(); i++) {
            gd_pp_queue_init(&queues_[i], queue_packets_);
            queues_[i].programmatic_early = !sched_;
        }
        hold_posted_.resize(queues_.size(), 0);
    }
    gd_pp_queue &q = queues_[r->queue];
    if (!q.used)
        used_.insert(std::upper_bound(used_.begin(), used_.end(), r->queue), r->queue);
    const bool was_empty = q.count == 0;
    int rc = gd_pp_queue_push(&q, r);
    if (rc < 0)
        throw std::bad_alloc();  // the replay ends with GD_ENOMEM (as a std::vector that cannot grow)
    if (rc) {  // full: the host waits
        b->accepted = false;
        q.space_waiter = 1;
        host_stalls_++;
    } else {
        b->accepted = true;
        enqueued_ += r->in_packet == 0;
        if (r->kind == GD_PKT_BARRIER_AND || r->kind == GD_PKT_BARRIER_OR)
            barrier_packets_++;
        r->submit = now_ps() + ps_of(delay);
        r->woke = was_empty && q.outstanding == 0 && !r->in_packet;  // (an idle queue: nothing in flight either)
        if (r->signal != GD_NO_SIGNAL) {  // the host arms the packet's completion signal
            if (r->signal >= signals_.size())
                signals_.resize(r->signal + 1, 0);
            signals_[r->signal]++;
        }
        // issue() sees the packet only if it is the queue's head now, or if a waiting
        // barrier packet may depend on its signal (or the command scheduler decides);
        // otherwise a wake now would change nothing and costs a SystemC activation
        fetch_scan_ |= was_empty;
        if (was_empty || sched_ || (r->signal != GD_NO_SIGNAL && barriers_waiting()))
            wake_.notify(r->submit);
    }
    return true;
}

bool packet_processor::done(op_code code, void *body, sc_core::sc_time &delay)
{
    vcd_sync sync{this};
    if (code == op::pq_left) {  // the command scheduler took it from its physical queue
        gd_kernel_run *r = static_cast<pq_left_body *>(body)->run;
        gd_pp_queue &q = queues_[r->queue];
        if (!r->in_packet)
            q.held--;
        space(r->queue, q, now_ps() + ps_of(delay));
        return true;
    }
    if (code != op::kernel_done)
        return false;
    auto *b = static_cast<kernel_done_body *>(body);
    gd_time_ps cleanup = b->run->skip_cleanup ? 0 : completion_ps_;
    overhead_ps_ += cleanup;
    cleanup_time_ps_ += cleanup;
    const gd_time_ps now = now_ps() + ps_of(delay), at = now + cleanup;
    post(at, ev{COMPLETE, b->run->queue, b->run});
    // Room in the distributor again: a kernel it refused may go now. Otherwise nothing
    // changes before the completion, so the block wakes then (the earlier of that and
    // its pending wake: the earliest notification stands).
    wake_.notify(cwd_full_ || sched_ ? now : at);
    dispatch_scan_ |= cwd_full_;
    cwd_full_ = false;
    return true;
}

// A barrier packet parked in some queue (its dependencies may be any signal).
bool packet_processor::barriers_waiting() const
{
    if (!barrier_packets_)
        return false;
    for (uint32_t qi : used_)
        if (queues_[qi].bar_head)
            return true;
    return false;
}

void packet_processor::handle(const ev &e, gd_time_ps now)
{
    switch (e.type) {
    case FETCH_DONE: {
        gd_pp_queue &q = queues_[e.queue];
        gd_pp_queue_head(&q)->fetched = now;
        q.state = GD_PQ_FETCHED;
        fetched_n_++;
        break;
    }
    case DECODE_DONE: {
        gd_pp_queue &q = queues_[e.queue];
        gd_pp_queue_head(&q)->decoded = now;
        q.state = GD_PQ_DECODED;
        decoded_n_++;
        dispatch_scan_ = true;
        decoder_busy_ = false;
        break;
    }
    case GAP_HELD:  // a held packet may go now (issue() checks it)
        dispatch_scan_ = true;
        break;
    case COMPLETE: {
        gd_kernel_run *r = e.run;
        gd_pp_queue &q = queues_[r->queue];
        r->completion = now;
        gd_pp_completed(&q, r, now);
        dispatch_scan_ = true;
        if (r->kind == GD_PKT_BARRIER_AND || r->kind == GD_PKT_BARRIER_OR) {
            gd_pp_barrier_completed(&q);
            barrier_packets_--;
        } else {
            q.outstanding--;
            q.outstanding_kernels -= r->kind == GD_PKT_KERNEL;
        }
        outstanding_--;
        if (r->signal != GD_NO_SIGNAL)
            signals_[r->signal]--;
        {  // the host lowers the completion signal where it lives (a platform's memory)
            packet_completed_body pb{r, &*dom_, false};
            sc_core::sc_time d = dom_->delay_to(now);
            space_ch_.call(space_out, op::packet_completed, &pb, d);
            if (!pb.same_domain)
                dom_->touched();  // a host outside the domain may act before its next wake-up
        }
        if (r->kind == GD_PKT_KERNEL || r->kind == GD_PKT_PIPELINE) {  // a row of the kernel table
            completions_++;
            gd_report_kernel_done(report_, r);  // may give r back to the pool
        } else {
            if (r->kind == GD_PKT_COMMAND) {
                commands_++;
                command_bytes_ += r->bytes;
            } else {
                barriers_++;
            }
            gd_report_packet_done(report_, r);  // gives r back to the pool
        }
        break;
    }
    }
}

// The head packet leaves its queue: a kernel dispatched or a command started (or,
// with the command scheduler deciding, either handed to its physical queue, where it
// keeps its queue slot until the scheduler takes it: op::pq_left).
void packet_processor::leave_head(uint32_t qi, gd_pp_queue &q, gd_time_ps now)
{
    bool held = sched_ && !gd_pp_queue_head(&q)->in_packet;
    q.outstanding_kernels += gd_pp_queue_head(&q)->kind == GD_PKT_KERNEL;
    gd_pp_queue_pop(&q);  // (its head was decoded)
    decoded_n_--;
    fetch_scan_ = true;
    q.outstanding++;
    if (held) {
        q.held++;
        outstanding_++;
    } else {
        taken(qi, q, now);
    }
}

// A packet left queue qi (popped by the caller): it is outstanding until it
// completes, and a host waiting for room in the queue is told (once the packet has
// left the command scheduler's physical queue, when it went there).
void packet_processor::taken(uint32_t qi, gd_pp_queue &q, gd_time_ps now)
{
    outstanding_++;
    space(qi, q, now);
}

void packet_processor::space(uint32_t qi, gd_pp_queue &q, gd_time_ps now)
{
    if (q.space_waiter) {
        q.space_waiter = 0;
        queue_space_body sb{qi, &*dom_, false};
        sc_core::sc_time d = dom_->delay_to(now);
        space_ch_.call(space_out, op::queue_space, &sb, d);
        if (!sb.same_domain)
            dom_->touched();  // a host outside the domain may act before its next wake-up
    }
}

// Barrier packets: a decoded one leaves the head (the packets behind it are fetched
// and decoded meanwhile) and resolves when its dependencies allow.
void packet_processor::settle_barriers(gd_time_ps now)
{
    for (uint32_t qi : used_) {
        gd_pp_queue &q = queues_[qi];
        gd_kernel_run *r;
        if (q.state == GD_PQ_DECODED &&  // (a decoded head exists)
            ((r = gd_pp_queue_head(&q))->kind == GD_PKT_BARRIER_AND || r->kind == GD_PKT_BARRIER_OR)) {
            gd_pp_barrier_park(&q, r);  // (pops it)
            decoded_n_--;
            fetch_scan_ = true;
            taken(qi, q, now);
        }
        if (q.bar_head && (r = gd_pp_barrier_ready(&q, signals_.data())) != nullptr) {
            gd_pp_barrier_resolved(&q);
            r->ready = r->first_cta = r->last_cta = r->end = now;
            barrier_wait_ps_ += now - r->decoded;
            post(now + barrier_ps_, ev{COMPLETE, qi, r});
        }
    }
}

void packet_processor::issue(gd_time_ps now)
{
    const uint32_t n = (uint32_t)used_.size();
    // Launch decoded packets whose barrier bit is satisfied, round-robin over queues.
    // Kernels go to the distributor (while it has room); barrier packets resolve
    // when their dependencies are; commands go to their engines.
    bool refused = false;
    // j = (dispatch_rr_ + k) % n without a division per queue (dispatch_rr_ < n: it is
    // only ever set to such a j, and n never shrinks)
    const bool scan = decoded_n_ && (dispatch_scan_ || sched_);  // (the scheduler may take one any time)
    dispatch_scan_ = false;
    for (uint32_t k = 0, j = dispatch_rr_; scan && k < n; k++, j = j + 1 == n ? 0 : j + 1) {
        uint32_t qi = used_[j];
        gd_pp_queue &q = queues_[qi];
        if (sched_) {  // the scheduler applies the dependencies; only barrier packets hold the queue here
            gd_kernel_run *r = gd_pp_queue_head(&q);
            if (!r || q.state != GD_PQ_DECODED || q.barriers_pending ||
                (r->kind != GD_PKT_KERNEL && r->kind != GD_PKT_COMMAND && r->kind != GD_PKT_PIPELINE))
                continue;
            dispatch_body b{r, false};
            sc_core::sc_time d = dom_->delay_to(now);
            dispatch_ch_.call(dispatch_out, op::dispatch, &b, d);
            if (!b.accepted)
                continue;
            packets_ += r->kind != GD_PKT_COMMAND;
            leave_head(qi, q, now);
            continue;
        }
        if (!gd_pp_can_dispatch(&q))
            continue;
        gd_kernel_run *r = gd_pp_queue_head(&q);
        gd_time_ps release = gd_pp_release_time(&q, r, &gap_);
        if (release > now) {  // a busy queue: held for the rest of its launch gap
            if (hold_posted_[qi] != release) {
                hold_posted_[qi] = release;
                gap_holds_++;
                gap_hold_ps_ += release - now;
                post(release, ev{GAP_HELD, qi, nullptr});
            }
            continue;
        }
        if (r->kind == GD_PKT_KERNEL || r->kind == GD_PKT_PIPELINE) {  // a pipeline goes to the meta-scheduler
            if (cwd_full_)
                continue;
            if (!r->ready)
                r->ready = now;
            dispatch_body b{r, false};
            sc_core::sc_time d = dom_->delay_to(now);
            dispatch_ch_.call(dispatch_out, op::dispatch, &b, d);
            if (!b.accepted) {
                cwd_full_ = true;
                cwd_waits_++;
                if (!refused)
                    dispatch_rr_ = j;  // this queue goes first next time
                refused = true;
                continue;
            }
            packets_++;
            leave_head(qi, q, now);
        } else if (r->kind == GD_PKT_COMMAND) {
            r->ready = now;
            r->first_cta = now + command_launch_ps_;
            r->last_cta = r->first_cta;
            r->end = r->first_cta + r->cta_ps;
            leave_head(qi, q, now);
            overhead_ps_ += completion_ps_;
            cleanup_time_ps_ += completion_ps_;
            post(r->end + completion_ps_, ev{COMPLETE, qi, r});
        }
    }
    if (barrier_packets_)  // (none submitted and not completed: no queue holds one)
        settle_barriers(now);
    // Start fetching the head packet of every idle queue.
    const uint32_t m = fetch_scan_ ? (uint32_t)used_.size() : 0;
    fetch_scan_ = false;
    for (uint32_t i = 0; i < m; i++) {
        uint32_t qi = used_[i];
        gd_pp_queue &q = queues_[qi];
        if (q.count && q.state == GD_PQ_IDLE) {
            q.state = GD_PQ_FETCHING;
            // a condensed packet's later kernels came with its first: nothing to fetch
            const gd_kernel_run *h = gd_pp_queue_head(&q);
            gd_time_ps f = h->in_packet ? 0 : fetch_ps_;
            if (!h->in_packet) {
                packets_fetched_++;
                bytes_fetched_ += GD_AQL_PACKET_SIZE;
            }
            overhead_ps_ += f;
            fetch_time_ps_ += f;
            if (h->woke) {  // the packet processor wakes for the queue first (pp.idle_launch_ns: in its place)
                const gd_time_ps w = gd_pp_wake_ps(h, &gap_);
                overhead_ps_ = overhead_ps_ - f + w;
                if (w < f)
                    fetch_time_ps_ -= f - w;
                f = w;
            }
            post(now + f, ev{FETCH_DONE, qi, nullptr});
        }
    }
    // One decoder, shared round-robin.
    uint32_t k;
    if (!decoder_busy_ && fetched_n_ &&
        (k = gd_pp_pick(queues_.data(), used_.data(), n, decode_rr_, GD_PQ_FETCHED)) != UINT32_MAX) {
        uint32_t qi = used_[(decode_rr_ + k) % n];
        queues_[qi].state = GD_PQ_DECODING;
        fetched_n_--;
        decoder_busy_ = true;
        decode_rr_ = (decode_rr_ + k + 1) % n;
        // a condensed packet is decoded once; each of its kernels then reads its RSB entry
        // (a reference packet writes its entry)
        const gd_kernel_run *h = gd_pp_queue_head(&queues_[qi]);
        gd_time_ps dec = h->in_packet ? 0 : decode_ps_;
        gd_time_ps rsb = h->rsb_access ? rsb_access(h, now, dec) : 0;
        gd_time_ps d = dec + rsb;
        rsb_accesses_ += h->rsb_access != 0;
        rsb_kernels_ += h->rsb_access == 2;
        overhead_ps_ += d;
        decode_time_ps_ += h->in_packet ? 0 : decode_ps_;
        rsb_time_ps_ += rsb;
        post(now + d, ev{DECODE_DONE, qi, nullptr});
    }
}

// A decoded reference packet installs its entry in the reference state buffer; a
// condensed packet's kernel looks its entry up, once decoded (`after` from now: the
// transaction's delay, TLM-2.0 temporal decoupling). Returns how long the access
// takes.
gd_time_ps packet_processor::rsb_access(const gd_kernel_run *r, gd_time_ps now, gd_time_ps after)
{
    static const char *const what[] = {"", "reference packet", "condensed packet"};
    char buf[160];
    if (rsb_out.size() == 0) {
        std::snprintf(buf, sizeof buf, "record %" PRIu64 ": a %s needs a reference state buffer and none is bound",
                      r->record, what[r->rsb_access]);
        SC_REPORT_ERROR("gdsim", buf);
        return 0;
    }
    rsb_body b{r->ref_num, &r->ref_pkt, false, nullptr};
    const gd_time_ps at = now + after;  // the access starts then
    sc_core::sc_time d = dom_->delay_to(at);
    rsb_ch_.call(rsb_out, r->rsb_access == 1 ? op::rsb_install : op::rsb_lookup, &b, d);
    return now_ps() + ps_of(d) - at;
}

void packet_processor::wake(gd_time_ps now)
{
    vcd_sync sync{this};
    while (gd_heap_size(&calendar_) && gd_heap_top(&calendar_)->time <= now) {
        uint32_t idx = (uint32_t)(gd_heap_top(&calendar_)->key & 0xffffff);
        gd_heap_pop(&calendar_);
        ev e = evs_[idx];
        ev_free_.push_back(idx);
        handle(e, now);
    }
    issue(now);
    gd_time_ps t = gd_heap_top_time(&calendar_);
    wake_.cancel();
    if (t != GD_TIME_NEVER)
        wake_.notify(t);
}

}  // namespace gd

namespace gd {

void packet_processor::trace(sc_core::sc_trace_file *tf, uint32_t n)
{
    vcd_.assign(n, vcd_queue());
    for (uint32_t q = 0; q < n; q++) {
        const std::string p = std::string(name()) + ".queue" + std::to_string(q) + ".";
        sc_core::sc_trace(tf, vcd_[q].depth, p + "depth");
        sc_core::sc_trace(tf, vcd_[q].write_index, p + "write_index");
        sc_core::sc_trace(tf, vcd_[q].read_index, p + "read_index");
        sc_core::sc_trace(tf, vcd_[q].in_flight, p + "in_flight");
    }
}

void packet_processor::sync_vcd()
{
    for (size_t q = 0; q < vcd_.size() && q < queues_.size(); q++) {
        const gd_pp_queue &pq = queues_[q];
        vcd_[q] = vcd_queue{pq.count, pq.pushed, pq.popped, pq.outstanding};
    }
}

std::string packet_processor::stuck() const
{
    static const char *const kinds[] = {"kernel dispatch", "barrier-AND", "barrier-OR", "non-kernel command"};
    std::string out;
    char buf[256];
    for (uint32_t qi : used_) {
        const gd_pp_queue &q = queues_[qi];
        const gd_kernel_run *r = q.bar_head ? q.bar_head : q.count ? q.ring[q.head] : nullptr;
        if (!r)
            continue;
        std::snprintf(buf, sizeof buf, "%squeue %u: %u packet(s) not taken, the first waiting is the %s packet of "
                      "record %" PRIu64, out.empty() ? "" : "; ", qi, q.count, kinds[r->kind], r->record);
        out += buf;
        if (r->kind == GD_PKT_BARRIER_AND || r->kind == GD_PKT_BARRIER_OR) {
            for (uint32_t i = 0; i < r->ndeps; i++) {
                std::snprintf(buf, sizeof buf, "%s signal #%u = %u", i ? "," : ", waiting on", r->dep[i],
                              r->dep[i] < signals_.size() ? signals_[r->dep[i]] : 0);
                out += buf;
            }
        }
    }
    return out;
}

}  // namespace gd
