#include "packet_processor.hpp"

#include <algorithm>

namespace gd {

packet_processor::packet_processor(sc_core::sc_module_name name, const gd_config &cfg, gd_report *report,
                                   gd_stats *stats)
    : sc_module(name),
      doorbell_in("doorbell_in"),
      space_out("space_out"),
      dispatch_out("dispatch_out"),
      done_in("done_in"),
      fetch_ps_(gd_cycles_to_ps(cfg.pp_fetch_cycles, cfg.clock_mhz)),
      decode_ps_(gd_cycles_to_ps(cfg.pp_decode_cycles, cfg.clock_mhz)),
      completion_ps_(gd_cycles_to_ps(cfg.pp_completion_cycles, cfg.clock_mhz)),
      queue_packets_(cfg.pp_queue_packets),
      report_(report)
{
    doorbell_in.register_b_transport(this, &packet_processor::doorbell);
    done_in.register_b_transport(this, &packet_processor::done);
    gd_heap_init(&calendar_);
    SC_METHOD(run);
    sensitive << wake_;
    dont_initialize();
    if (stats) {
        gd_stats_add(stats, basename(), "packets", "packets", "kernel dispatch packets dispatched", &packets_);
        gd_stats_add(stats, basename(), "completions", "kernels", "completions signalled", &completions_);
        gd_stats_add(stats, basename(), "host_stalls", "submits", "submits that found their queue full", &host_stalls_);
        gd_stats_add(stats, basename(), "distributor_full_waits", "dispatches",
                     "dispatches that waited for room in the distributor", &cwd_waits_);
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
    gd_heap_push(&calendar_, t, (seq_++ << 24) | idx);
}

void packet_processor::doorbell(tlm::tlm_generic_payload &p, sc_core::sc_time &)
{
    auto *b = static_cast<submit_body *>(msg_of(p).body);
    gd_kernel_run *r = b->run;
    if (r->queue >= queues_.size()) {
        size_t old = queues_.size();
        queues_.resize(r->queue + 1);
        for (size_t i = old; i < queues_.size(); i++)
            gd_pp_queue_init(&queues_[i], queue_packets_);
    }
    gd_pp_queue &q = queues_[r->queue];
    if (!q.used)
        used_.insert(std::upper_bound(used_.begin(), used_.end(), r->queue), r->queue);
    int rc = gd_pp_queue_push(&q, r);
    if (rc) {  // full (or out of memory: the host simply waits too)
        b->accepted = false;
        q.space_waiter = 1;
        host_stalls_++;
    } else {
        b->accepted = true;
        r->submit = now_ps();
        wake_.notify(sc_core::SC_ZERO_TIME);
    }
    p.set_response_status(tlm::TLM_OK_RESPONSE);
}

void packet_processor::done(tlm::tlm_generic_payload &p, sc_core::sc_time &delay)
{
    auto *b = static_cast<kernel_done_body *>(msg_of(p).body);
    post(now_ps() + delay.value() + completion_ps_, ev{COMPLETE, b->run->queue, b->run});
    cwd_full_ = false;  // room in the distributor again
    wake_.notify(sc_core::SC_ZERO_TIME);
    p.set_response_status(tlm::TLM_OK_RESPONSE);
}

void packet_processor::handle(const ev &e, gd_time_ps now)
{
    switch (e.type) {
    case FETCH_DONE: {
        gd_pp_queue &q = queues_[e.queue];
        gd_pp_queue_head(&q)->fetched = now;
        q.state = GD_PQ_FETCHED;
        break;
    }
    case DECODE_DONE: {
        gd_pp_queue &q = queues_[e.queue];
        gd_pp_queue_head(&q)->decoded = now;
        q.state = GD_PQ_DECODED;
        decoder_busy_ = false;
        break;
    }
    case COMPLETE: {
        gd_kernel_run *r = e.run;
        r->completion = now;
        queues_[r->queue].outstanding--;
        outstanding_--;
        completions_++;
        gd_report_kernel_done(report_, r);  // may give r back to the pool
        break;
    }
    }
}

void packet_processor::issue(gd_time_ps now)
{
    const uint32_t n = (uint32_t)used_.size();
    // Dispatch decoded packets whose barrier is satisfied, round-robin over queues.
    for (uint32_t k = 0; k < n && !cwd_full_; k++) {
        uint32_t qi = used_[(dispatch_rr_ + k) % n];
        gd_pp_queue &q = queues_[qi];
        if (!gd_pp_can_dispatch(&q))
            continue;
        gd_kernel_run *r = gd_pp_queue_head(&q);
        if (!r->ready)
            r->ready = now;
        dispatch_body b{r, false};
        sc_core::sc_time d = sc_core::SC_ZERO_TIME;
        dispatch_ch_.call(dispatch_out, op::dispatch, &b, d);
        if (!b.accepted) {
            cwd_full_ = true;
            cwd_waits_++;
            dispatch_rr_ = (dispatch_rr_ + k) % n;  // this queue goes first next time
            break;
        }
        gd_pp_queue_pop(&q);
        q.outstanding++;
        outstanding_++;
        packets_++;
        if (q.space_waiter) {
            q.space_waiter = 0;
            queue_space_body sb{qi};
            space_ch_.call(space_out, op::queue_space, &sb, d);
        }
    }
    // Start fetching the head packet of every idle queue.
    for (uint32_t qi : used_) {
        gd_pp_queue &q = queues_[qi];
        if (q.count && q.state == GD_PQ_IDLE) {
            q.state = GD_PQ_FETCHING;
            post(now + fetch_ps_, ev{FETCH_DONE, qi, nullptr});
        }
    }
    // One decoder, shared round-robin.
    uint32_t k;
    if (!decoder_busy_ && n && (k = gd_pp_pick(queues_.data(), used_.data(), n, decode_rr_, GD_PQ_FETCHED)) != UINT32_MAX) {
        uint32_t qi = used_[(decode_rr_ + k) % n];
        queues_[qi].state = GD_PQ_DECODING;
        decoder_busy_ = true;
        decode_rr_ = (decode_rr_ + k + 1) % n;
        post(now + decode_ps_, ev{DECODE_DONE, qi, nullptr});
    }
}

void packet_processor::run()
{
    gd_time_ps now = now_ps();
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
        wake_.notify(ps_time(t - now));
}

}  // namespace gd
