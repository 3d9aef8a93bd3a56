#include "sm.hpp"

#include <cinttypes>
#include <cmath>
#include <cstring>
#include <vector>

#include "exec.h"

namespace gd {

namespace {

// The report's power figures, from every SM's energy (blocks "sm_N", stat "energy"):
// the total, the mean power over the busy span, and how unevenly it is spread over
// the SMs (max / mean, coefficient of variation).
struct power_figures {
    unsigned sms = 0;
    double total = 0, max = 0, cov = 0;
};

power_figures figures(const gd_stats *st)
{
    power_figures p;
    double sum2 = 0;
    for (size_t i = 0; i < st->n; i++) {
        if (std::strncmp(st->v[i].block, "sm_", 3) || std::strcmp(st->v[i].name, "energy"))
            continue;
        double e = (double)gd_stats_get(st, st->v[i].block, "energy");
        p.sms++;
        p.total += e;
        sum2 += e * e;
        if (e > p.max)
            p.max = e;
    }
    if (p.sms && p.total > 0) {
        double mean = p.total / p.sms;
        double var = sum2 / p.sms - mean * mean;
        p.cov = var > 0 ? std::sqrt(var) / mean : 0.0;
    }
    return p;
}

void power_text(FILE *f, const gd_section_ctx *c)
{
    power_figures p = figures(c->stats);
    double span = (double)c->summary->busy_span_ns;
    std::fprintf(f, "  power               %.3f mJ, %.3f W over the busy span; per SM max/mean %.4f, CoV %.4f\n",
                 p.total / 1e12, span > 0 ? p.total / span / 1e6 : 0.0,
                 p.total > 0 ? p.max / (p.total / p.sms) : 0.0, p.cov);
    const gd_stat *w = gd_stats_find(c->stats, c->block, "window_cov");
    if (w)
        std::fprintf(f, "  %-19s per %u ns window: CoV across SMs mean %.4f, p99 %.4f; max/mean at most %.4f (%" PRIu64
                        " windows)\n", "", c->cfg->power_window_ns, w->dist.mean / 1e6, w->dist.p99 / 1e6,
                     gd_stats_get(c->stats, c->block, "window_max_over_mean") / 1e6,
                     gd_stats_get(c->stats, c->block, "windows"));
}

void power_json(FILE *f, const gd_section_ctx *c)
{
    power_figures p = figures(c->stats);
    double span = (double)c->summary->busy_span_ns;
    std::fprintf(f, "  \"power\": {\"energy_uj\": %.6f, \"mean_power_w\": %.6f, \"per_sm_max_over_mean\": %.6f, "
                    "\"per_sm_cov\": %.6f",
                 p.total / 1e9, span > 0 ? p.total / span / 1e6 : 0.0, p.total > 0 ? p.max / (p.total / p.sms) : 0.0,
                 p.cov);
    const gd_stat *w = gd_stats_find(c->stats, c->block, "window_cov");
    if (w)
        std::fprintf(f, ", \"window_ns\": %u, \"windows\": %" PRIu64 ", \"window_cov_mean\": %.6f, "
                        "\"window_cov_p99\": %.6f, \"window_max_over_mean\": %.6f",
                     c->cfg->power_window_ns, gd_stats_get(c->stats, c->block, "windows"), w->dist.mean / 1e6,
                     w->dist.p99 / 1e6, gd_stats_get(c->stats, c->block, "window_max_over_mean") / 1e6);
    std::fprintf(f, "},\n");
}

// each sub-partition's statistic: warps resident there integrated over time
const char *const sub_names[GD_MAX_SUBPARTITIONS] = {"sub0_warp_ps", "sub1_warp_ps", "sub2_warp_ps", "sub3_warp_ps",
                                                     "sub4_warp_ps", "sub5_warp_ps", "sub6_warp_ps", "sub7_warp_ps"};

// The SMs' occupancy over the busy span (blocks "sm_N": warp_ps, and subK_warp_ps
// when sub-partitions are accounted), and how evenly it is spread.
struct spread {
    std::vector<double> v;  // occupancy, % of the warp slots
    double max_over_mean = 0, cov = 0;
    void finish()
    {
        double sum = 0, sum2 = 0, mx = 0;
        for (double x : v) {
            sum += x;
            sum2 += x * x;
            mx = x > mx ? x : mx;
        }
        if (v.empty() || sum <= 0)
            return;
        double mean = sum / (double)v.size(), var = sum2 / (double)v.size() - mean * mean;
        max_over_mean = mx / mean;
        cov = var > 0 ? std::sqrt(var) / mean : 0.0;
    }
};

void occupancy_of(const gd_section_ctx *c, spread *per_sm, spread *per_sub, uint32_t *subs)
{
    const gd_stats *st = c->stats;
    const double span = (double)c->summary->busy_span_ns * GD_PS_PER_NS;
    const uint32_t warps = c->cfg->sm.max_warps, nsub = c->cfg->sm.reg_subpartitions;
    *subs = 0;
    for (size_t i = 0; i < st->n; i++) {
        const char *b = st->v[i].block;
        if (std::strncmp(b, "sm_", 3) || std::strcmp(st->v[i].name, "warp_ps"))
            continue;
        per_sm->v.push_back(span > 0 ? (double)gd_stats_get(st, b, "warp_ps") / (warps * span) * 100.0 : 0.0);
        for (uint32_t t = 0; t < nsub && t < GD_MAX_SUBPARTITIONS; t++) {
            if (!gd_stats_find(st, b, sub_names[t]))
                break;
            *subs = t + 1;
            double cap = (double)warps / nsub * span;  // a sub-partition's share of the warp slots
            per_sub->v.push_back(cap > 0 ? (double)gd_stats_get(st, b, sub_names[t]) / cap * 100.0 : 0.0);
        }
    }
    per_sm->finish();
    per_sub->finish();
}

// Text: only when sub-partitions are accounted (placed warps).
void occupancy_text(FILE *f, const gd_section_ctx *c)
{
    spread sm_s, sub_s;
    uint32_t subs;
    occupancy_of(c, &sm_s, &sub_s, &subs);
    if (!subs)
        return;
    std::fprintf(f, "  occupancy spread    per SM max/mean %.4f, CoV %.4f; per sub-partition max/mean %.4f, CoV %.4f\n",
                 sm_s.max_over_mean, sm_s.cov, sub_s.max_over_mean, sub_s.cov);
}

void occupancy_json(FILE *f, const gd_section_ctx *c)
{
    spread sm_s, sub_s;
    uint32_t subs;
    occupancy_of(c, &sm_s, &sub_s, &subs);
    std::fprintf(f, "  \"occupancy\": {\"per_sm_max_over_mean\": %.6f, \"per_sm_cov\": %.6f, \"per_sm_pct\": [",
                 sm_s.max_over_mean, sm_s.cov);
    for (size_t i = 0; i < sm_s.v.size(); i++)
        std::fprintf(f, "%s%.4f", i ? ", " : "", sm_s.v[i]);
    std::fprintf(f, "]");
    if (subs) {
        std::fprintf(f, ", \"per_sub_partition_max_over_mean\": %.6f, \"per_sub_partition_cov\": %.6f, "
                        "\"per_sub_partition_pct\": [", sub_s.max_over_mean, sub_s.cov);
        for (size_t i = 0; i < sub_s.v.size(); i++) {  // one array per SM
            const char *open = i % subs ? ", " : i ? ", [" : "[";
            std::fprintf(f, "%s%.4f%s", open, sub_s.v[i], i % subs == subs - 1 ? "]" : "");
        }
        std::fprintf(f, "]");
    }
    std::fprintf(f, "},\n");
}

}  // namespace

sm::sm(sc_core::sc_module_name name, uint32_t id, gd_stats *stats, const uint32_t *insn_fj,
       gd_power_windows *windows, uint32_t subs, sm_counters *counters)
    : sc_module(name), launch_in("launch_in"), id_(id), c_(counters ? counters : &own_), slow_((insn_fj && windows) || subs), insn_fj_(insn_fj),
      windows_(insn_fj ? windows : nullptr), subs_(subs > GD_MAX_SUBPARTITIONS ? GD_MAX_SUBPARTITIONS : subs)
{
    launch_in.bind(*this);
    if (stats) {
        gd_stats_add(stats, basename(), "ctas", "CTAs", "CTAs run on this SM", &c_->ctas);
        gd_stats_add(stats, basename(), "warp_ps", "warp x ps", "resident warps integrated over time", &c_->warp_ps);
        for (uint32_t t = 0; t < subs_; t++)
            gd_stats_add(stats, basename(), sub_names[t], "warp x ps",
                         "warps resident in this register sub-partition integrated over time", &sub_warp_ps_[t]);
        if (id == 0)
            gd_stats_add_section(stats, "occupancy", occupancy_text, occupancy_json);
        if (insn_fj_) {
            gd_stats_add(stats, basename(), "energy", "fJ",
                         "energy of the CTAs run here (power.insn_energy_fj x their instruction mix)", &energy_fj_);
            if (id == 0) {
                gd_stats_add_section(stats, "power", power_text, power_json);
                if (windows_) {
                    gd_stats_add(stats, "power", "windows", "windows", "windows of power.window_ns with energy",
                                 &windows_->windows);
                    gd_stats_add_dist(stats, "power", "window_cov", "ppm",
                                      "per window: the coefficient of variation of the SMs' energy", &windows_->cov_ppm);
                    gd_stats_add(stats, "power", "window_max_over_mean", "ppm",
                                 "the largest max / mean of the SMs' energy in a window", &windows_->max_ratio_ppm);
                    gd_stats_add(stats, "power", "late_ctas", "CTAs",
                                 "CTAs that started in a window already closed (counted into the first open one)",
                                 &windows_->late);
                }
            }
        }
    }
}

void sm::b_transport(tlm::tlm_generic_payload &p, sc_core::sc_time &delay)
{
    msg &m = msg_of(p);
    (void)delay;  // b->at == sc_time_stamp() + delay
    if (__builtin_expect(m.code == op::sm_direct, 0)) {
        auto *d = static_cast<sm_direct *>(m.body);
        d->counters = c_;
        d->slow = slow_;
        p.set_response_status(tlm::TLM_OK_RESPONSE);
        return;
    }
    if (__builtin_expect(m.code != op::sm_launch, 0)) {
        p.set_response_status(tlm::TLM_COMMAND_ERROR_RESPONSE);
        return;
    }
    auto *b = static_cast<sm_launch_body *>(m.body);
    const uint64_t wd = sm_count_launch(*c_, *b);  // one CTA's warps x time
    // the energy of a kernel with an instruction mix, and power over time: off the
    // common path (a CTA without a mix needs only its warps x time, finish())
    if (__builtin_expect(b->run->has_insn || slow_, 0))
        account(b, b->end - b->at, wd);
    p.set_response_status(tlm::TLM_OK_RESPONSE);
}

void sm::account(const sm_launch_body *b, gd_time_ps dur, uint64_t wd)
{
    gd_kernel_run *k = b->run;
    const uint32_t warps = b->cost->warps;
    const gd_time_ps start = b->at;
    const uint32_t n = b->count;
    if (subs_ && b->sub_warps)
        for (uint32_t t = 0; t < subs_; t++)
            sub_warp_ps_[t] += (uint64_t)b->sub_warps[t] * dur;
    uint64_t e = 0;  // a CTA with a mix: its energy (a sub-workgroup: its warps' share)
    if (k->desc->has_insn && insn_fj_) {
        // a kernel with an instruction mix: its CTAs' energy (computed once per dispatch)
        if (!k->cta_energy_fj) {
            for (int c = 0; c < GD_INSN_CLASSES; c++)
                k->cta_energy_fj += k->desc->insn[c] * insn_fj_[c];
            k->cta_energy_fj += !k->cta_energy_fj;  // computed (a mix of no instructions: 1 fJ)
        }
        e = k->cta_energy_fj;
        if (warps != k->desc->occ.cost.warps)
            e = e * warps / k->desc->occ.cost.warps;
        mix_energy_fj_ += e * n;
        mix_warp_ps_ += wd * n;
    }
    if (windows_) {
        if (!k->desc->has_insn)
            e = wd / GD_PS_PER_NS * insn_fj_[GD_INSN_CLASSES];
        for (uint32_t i = 0; i < n; i++)  // CTA by CTA, as the windows round each one
            gd_power_add(windows_, id_, start, start + dur, e);
    }
}

void sm::finish()
{
    if (insn_fj_)
        energy_fj_ = mix_energy_fj_ + (c_->warp_ps - mix_warp_ps_) / GD_PS_PER_NS * insn_fj_[GD_INSN_CLASSES];
}

}  // namespace gd
