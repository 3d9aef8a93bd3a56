#include "module_selector.hpp"

#include <algorithm>
#include <cstring>
#include <new>

#include "exec.h"

namespace gd {

module_selector::module_selector(sc_core::sc_module_name name, const gd_config &cfg, gd_stats *stats)
    : sc_module(name),
      cwd_in("cwd_in"),
      policy_(!std::strcmp(cfg.gpc2sm_select, "weighted") ? GD_SELECT_WEIGHTED
              : !std::strcmp(cfg.gpc2sm_select, "power") ? GD_SELECT_POWER
                                                         : GD_SELECT_LAKE),
      limits_(cfg.sm),
      pick_ps_(gd_cycles_to_ps(cfg.select_cycles, cfg.clock_mhz)),
      window_ps_(gd_cycles_to_ps(cfg.select_window_cycles, cfg.clock_mhz))
{
    std::memcpy(weights_, cfg.select_resource_weights, sizeof weights_);
    std::memcpy(insn_fj_, cfg.power_insn_fj, sizeof insn_fj_);
    hist_.resize(cfg.sms);
    for (auto &h : hist_)
        gd_ehist_init(&h);
    recent_.assign(cfg.sms, 0.0);
    pending_.assign(cfg.sms, 0.0);
    cwd_in.register_b_transport(this, &module_selector::b_transport);
    if (stats && policy_ != GD_SELECT_LAKE)
        gd_stats_add(stats, basename(), "picks", "CTAs", "SM choices made for CTAs of launch steps", &picks_);
}

module_selector::~module_selector()
{
    for (auto &h : hist_)
        gd_ehist_free(&h);
}

uint64_t module_selector::cta_energy(const gd_kernel_run *run, gd_time_ps dur) const
{
    const gd_kernel_desc *d = run->desc;
    if (!d->has_insn)
        return (uint64_t)d->occ.cost.warps * (dur / GD_PS_PER_NS) * insn_fj_[GD_INSN_CLASSES];
    uint64_t e = 0;
    for (int c = 0; c < GD_INSN_CLASSES; c++)
        e += d->insn[c] * insn_fj_[c];
    return e;
}

void module_selector::b_transport(tlm::tlm_generic_payload &p, sc_core::sc_time &delay)
{
    msg &m = msg_of(p);
    if (m.code == op::select_pick) {
        auto *b = static_cast<select_pick_body *>(m.body);
        if (b->n > hist_.size()) {
            p.set_response_status(tlm::TLM_ADDRESS_ERROR_RESPONSE);
            return;
        }
        if (policy_ == GD_SELECT_POWER) {
            if (b->first) {  // the energy of the last nx cycles, once per step
                for (uint32_t i = 0; i < b->n; i++) {
                    recent_[i] = gd_ehist_window(&hist_[i], b->at, window_ps_);
                    pending_[i] = 0;
                }
            }
            b->sm = gd_select_power(b->free_slots, recent_.data(), pending_.data(), b->n);
            if (b->sm >= 0) {  // what this CTA will add to the next window
                gd_time_ps dur = gd_cta_exec_time(b->run, b->at);
                double share = dur > window_ps_ ? (double)window_ps_ / (double)dur : 1.0;
                pending_[b->sm] += (double)cta_energy(b->run, dur) * share;
            }
        } else {
            b->sm = gd_select_weighted(b->free_slots, b->res, b->n, &limits_, weights_);
        }
        picks_++;
        delay += ps_time(pick_ps_);
    } else if (m.code == op::select_placed) {
        auto *b = static_cast<select_placed_body *>(m.body);
        if (b->sm >= hist_.size()) {
            p.set_response_status(tlm::TLM_ADDRESS_ERROR_RESPONSE);
            return;
        }
        if (policy_ == GD_SELECT_POWER &&
            gd_ehist_add(&hist_[b->sm], b->start, b->end, cta_energy(b->run, b->end - b->start) * b->count))
            throw std::bad_alloc();
    } else {
        p.set_response_status(tlm::TLM_COMMAND_ERROR_RESPONSE);
        return;
    }
    p.set_response_status(tlm::TLM_OK_RESPONSE);
}

}  // namespace gd
