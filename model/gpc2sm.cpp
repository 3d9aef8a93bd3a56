#include "gpc2sm.hpp"

#include <new>
#include <string>

namespace gd {

gpc2sm::gpc2sm(sc_core::sc_module_name name, uint32_t nsm, const gd_config &cfg, gd_stats *stats)
    : sc_module(name), cwd_in("cwd_in")
{
    cwd_in.bind(*this);
    for (uint32_t i = 0; i < nsm; i++)
        sm_out.emplace_back(new tlm_utils::simple_initiator_socket<gpc2sm>(("sm_out_" + std::to_string(i)).c_str()));
    gd_gpc_init(&trk_, nsm, &cfg.sm);
    gd_cal_init(&calendar_);
    uint32_t cap = nsm * cfg.sm.max_ctas;
    ctas_.resize(cap);
    free_.reserve(cap);
    for (uint32_t i = cap; i-- > 0;)
        free_.push_back(i);
    if (stats) {
        gd_stats_add(stats, basename(), "ctas_launched", "CTAs", "CTAs placed on this GPC's SMs", &launched_);
        gd_stats_add(stats, basename(), "ctas_retired", "CTAs", "CTAs retired from this GPC's SMs", &retired_);
        gd_stats_add(stats, basename(), "peak_resident_ctas", "CTAs", "most CTAs resident in this GPC at once",
                     &peak_resident_);
    }
}

gpc2sm::~gpc2sm() { gd_cal_free(&calendar_); }

void gpc2sm::b_transport(tlm::tlm_generic_payload &p, sc_core::sc_time &delay)
{
    msg &m = msg_of(p);
    switch (m.code) {
    case op::gpc_select: {
        auto *b = static_cast<gpc_select_body *>(m.body);
        b->max_free = gd_gpc_select(&trk_, b->cost);
        break;
    }
    case op::gpc_step:
        step(static_cast<gpc_step_body *>(m.body), delay);
        break;
    default:
        p.set_response_status(tlm::TLM_COMMAND_ERROR_RESPONSE);
        return;
    }
    p.set_response_status(tlm::TLM_OK_RESPONSE);
}

void gpc2sm::step(gpc_step_body *b, sc_core::sc_time &delay)
{
    const gd_time_ps t = b->at;  // == sc_time_stamp() + delay
    // 1. CTA-complete messages due by t: give the resources back. A retirement may be
    //    handed over after its time while no launch decision depends on it (gpu2gpc.hpp);
    //    it only frees resources, so it references the kernel's descriptor, never the
    //    kernel's run record (which is recycled once the kernel has completed).
    uint64_t n = 0;
    while (gd_cal_size(&calendar_) && gd_cal_top(&calendar_)->time <= t) {
        uint32_t idx = (uint32_t)(gd_cal_top(&calendar_)->key & 0xffff);
        gd_cal_pop(&calendar_);
        cta &c = ctas_[idx];
        gd_gpc_release(&trk_, c.sm, c.cost, &c.alloc);
        free_.push_back(idx);
        n++;
    }
    retired_ += n;
    b->retired = n;
    // 2. Launch one CTA of the selected kernel on the SM with the most free slots.
    b->launched = false;
    uint32_t mf = trk_.max_free;
    if (b->launch && mf > 0 &&
        (!b->conditional || mf > b->beat_free || (mf == b->beat_free && b->gpc < b->beat_gpc))) {
        uint32_t idx = free_.back();
        free_.pop_back();
        cta &c = ctas_[idx];
        c.cost = &b->launch->desc->occ.cost;
        c.sm = gd_gpc_place(&trk_, &c.alloc);
        sm_launch_body sb{t, b->launch, 0};
        ch_.call(*sm_out[c.sm], op::sm_launch, &sb, delay);
        if (gd_cal_push(&calendar_, b->launch, sb.end, (seq_++ << 16) | idx))
            throw std::bad_alloc();
        launched_++;
        uint64_t resident = launched_ - retired_;
        if (resident > peak_resident_)
            peak_resident_ = resident;
        b->launched = true;
        b->sm = c.sm;
        b->end = sb.end;
    }
    b->max_free = trk_.max_free;
    b->next_retire = gd_cal_top_time(&calendar_);
}

}  // namespace gd
