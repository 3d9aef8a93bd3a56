#include "gpu2gpc.hpp"

#include "alloc.h"
#include "exec.h"

#include <algorithm>
#include <cinttypes>
#include <cstring>
#include <new>
#include <string>

namespace gd {

namespace {

gd_alloc_cfg alloc_of(const gd_config &cfg)
{
    gd_alloc_cfg a;
    gd_alloc_cfg_init(&a, &cfg);
    return a;
}

uint32_t finder_cycles_of(const gd_config &cfg)
{
    const gd_alloc_cfg a = alloc_of(cfg);
    return gd_block_finder_cycles(&a);
}

bool placed_of(const gd_config &cfg)
{
    const gd_alloc_cfg a = alloc_of(cfg);
    return gd_alloc_cfg_placed(&a);
}

// What fragmentation stranded, summed over the GPC2SM distributors.
struct fragment {
    uint64_t slot_ns = 0, reg_ns = 0, smem_ns = 0;
};

fragment fragment_of(const gd_stats *st)
{
    fragment r;
    for (size_t i = 0; i < st->n; i++) {
        if (std::strcmp(st->v[i].name, "frag_stranded_slot_ns"))
            continue;
        const char *gpc = st->v[i].block;
        r.slot_ns += gd_stats_get(st, gpc, "frag_stranded_slot_ns");
        r.reg_ns += gd_stats_get(st, gpc, "frag_stranded_reg_unit_ns");
        r.smem_ns += gd_stats_get(st, gpc, "frag_stranded_smem_unit_ns");
    }
    return r;
}

// The JSON "admission" object: which kernel a step serves and how CTAs are placed.
void distributor_json(FILE *f, const gd_section_ctx *c)
{
    const gd_stats *st = c->stats;
    const gd_config *cfg = c->cfg;
    const char *b = c->block;
    fragment fr = fragment_of(st);
    std::fprintf(f, "  \"admission\": {\"policy\": \"%s\", \"rounds\": %" PRIu64 ", \"failed_rounds\": %" PRIu64
                    ", \"ties\": %" PRIu64 ", \"window_lifts\": %" PRIu64 ", \"switches\": %" PRIu64
                    ", \"split_ctas\": %" PRIu64
                    ", \"alloc\": \"%s\", \"wave_placement\": \"%s\", \"block_finder\": \"%s\", \"finder_cycles\": %" PRIu64
                    ", \"frag_delayed_ctas\": %" PRIu64 ", \"frag_wait_ns\": %" PRIu64 ", \"frag_stranded_slot_ns\": %" PRIu64
                    ", \"frag_stranded_reg_unit_ns\": %" PRIu64 ", \"frag_stranded_smem_unit_ns\": %" PRIu64 "},\n",
                 cfg->cwd_admission, gd_stats_get(st, b, "admission_rounds"), gd_stats_get(st, b, "admission_failed_rounds"),
                 gd_stats_get(st, b, "admission_ties"), gd_stats_get(st, b, "admission_lifts"),
                 gd_stats_get(st, b, "admission_switches"), gd_stats_get(st, b, "admission_splits"), cfg->sm_alloc,
                 cfg->sm_wave_placement,
                 !std::strcmp(cfg->sm_alloc, "contiguous") ? cfg->sm_block_finder : "none",
                 gd_stats_get(st, b, "finder_cycles"), gd_stats_get(st, b, "frag_delayed_ctas"),
                 gd_stats_get(st, b, "frag_wait_ns"), fr.slot_ns, fr.reg_ns, fr.smem_ns);
}

// The distributor's line in the text summary (CTAs per front-end cycle) and, for
// traces with clusters, the per-GPC table of the GPC2SM distributors' CGA
// statistics (every block that registered "cgas_launched", in registration order).
void distributor_text(FILE *f, const gd_section_ctx *c)
{
    const gd_stats *st = c->stats;
    const bool cga = !std::strcmp(c->cfg->cwd_policy, "cga");
    uint64_t ctas = gd_stats_get(st, c->block, "ctas_launched");
    uint64_t cycles = gd_stats_get(st, c->block, "frontend_cycles");
    if (cga)
        std::fprintf(f, "  distributor         cga: %" PRIu64 " CTAs in %" PRIu64 " launch steps (%" PRIu64
                        " found no room), %" PRIu64 " front-end cycles", ctas, gd_stats_get(st, c->block, "launch_steps"),
                     gd_stats_get(st, c->block, "failed_steps"), cycles);
    else
        std::fprintf(f, "  distributor         baseline: %" PRIu64 " CTAs in %" PRIu64 " front-end cycles", ctas, cycles);
    if (cycles)
        std::fprintf(f, " (%.2f CTAs per cycle)", (double)ctas / (double)cycles);
    std::fputc('\n', f);
    const gd_config *cfg = c->cfg;
    if (!std::strcmp(cfg->cwd_admission, "channels"))
        std::fprintf(f, "  admission           channels: %" PRIu64 " rounds (%" PRIu64 " fitted nobody), %" PRIu64
                        " decided by the per-channel marks, %" PRIu64 " by a priority window; %" PRIu64
                        " steps served another kernel than the oldest; %" PRIu64 " CTAs split\n",
                     gd_stats_get(st, c->block, "admission_rounds"), gd_stats_get(st, c->block, "admission_failed_rounds"),
                     gd_stats_get(st, c->block, "admission_ties"), gd_stats_get(st, c->block, "admission_lifts"),
                     gd_stats_get(st, c->block, "admission_switches"), gd_stats_get(st, c->block, "admission_splits"));
    if (!std::strcmp(cfg->sm_alloc, "contiguous")) {
        fragment f3 = fragment_of(st);
        std::fprintf(f, "  allocation          contiguous, %s finder (%u cycle%s per launch step), %s wave placement: %" PRIu64
                        " CTAs waited %.3f us for contiguous room; stranded %.3f slot x us, %.3f register-unit x us, "
                        "%.3f shared-memory-unit x us\n",
                     cfg->sm_block_finder, finder_cycles_of(*cfg), finder_cycles_of(*cfg) == 1 ? "" : "s", cfg->sm_wave_placement,
                     gd_stats_get(st, c->block, "frag_delayed_ctas"), gd_stats_get(st, c->block, "frag_wait_ns") / 1000.0,
                     f3.slot_ns / 1000.0, f3.reg_ns / 1000.0, f3.smem_ns / 1000.0);
    } else if (std::strcmp(cfg->sm_wave_placement, "pooled")) {
        std::fprintf(f, "  allocation          counted, %s wave placement\n", cfg->sm_wave_placement);
    }
    uint64_t cga_activity = 0;
    for (size_t i = 0; i < st->n; i++)
        if (!std::strcmp(st->v[i].name, "cgas_launched"))
            cga_activity += gd_stats_get(st, st->v[i].block, "cgas_launched") + gd_stats_get(st, st->v[i].block, "failed_queries");
    if (!cga || !cga_activity)  // only traces with clusters
        return;
    std::fprintf(f, "  %-26s %13s %13s %13s\n", "per GPC", "CGAs", "failed", "stranded");
    std::fprintf(f, "  %-26s %13s %13s %13s\n", "", "launched", "queries", "slot x us");
    for (size_t i = 0; i < st->n; i++) {
        const char *gpc = st->v[i].block;
        if (std::strcmp(st->v[i].name, "cgas_launched"))
            continue;
        std::fprintf(f, "    %-24s %13" PRIu64 " %13" PRIu64 " %13.3f\n", gpc, gd_stats_get(st, gpc, "cgas_launched"),
                     gd_stats_get(st, gpc, "failed_queries"), gd_stats_get(st, gpc, "stranded_slot_ns") / 1000.0);
    }
}

}  // namespace

gpu2gpc::gpu2gpc(sc_core::sc_module_name name, const gd_config &cfg, gd_stats *stats, progress_meter *progress,
                 gd_err *err, domain *dom)
    : sc_module(name),
      dispatch_in("dispatch_in"),
      done_out("done_out"),
      select_out("select_out"),
      ngpc_(cfg.gpcs),
      grid_launch_ps_(gd_cycles_to_ps(cfg.cwd_grid_launch_cycles, cfg.clock_mhz)),
      cta_launch_ps_(gd_cycles_to_ps(cfg.cwd_cta_launch_cycles, cfg.clock_mhz)),
      pdl_lead_ps_((gd_time_ps)cfg.pp_gap_programmatic_lead_ns * 1000),
      pdl_(std::string(cfg.cs_policy) == "aql"),
      max_resident_(cfg.cwd_max_resident_kernels),
      shortcuts_(std::string(cfg.sim_shortcuts) == "on"),
      cga_(std::string(cfg.cwd_policy) == "cga"),
      query_ps_(gd_cycles_to_ps(cfg.cwd_query_cycles, cfg.clock_mhz)),
      mask_ps_(gd_cycles_to_ps(cfg.cwd_mask_launch_cycles, cfg.clock_mhz)),
      broadcast_ps_(gd_cycles_to_ps(cfg.cwd_id_broadcast_cycles, cfg.clock_mhz)),
      scan_limit_(cfg.cwd_lake_scan_limit),
      sms_per_tpc_(cfg.sms_per_tpc),
      progress_(progress),
      cta_launch_cycles_(cfg.cwd_cta_launch_cycles),
      query_cycles_(cfg.cwd_query_cycles),
      mask_cycles_(cfg.cwd_mask_launch_cycles),
      broadcast_cycles_(cfg.cwd_id_broadcast_cycles),
      channels_(cga_ && std::string(cfg.cwd_admission) == "channels"),
      select_(cga_ && std::string(cfg.gpc2sm_select) != "lake"),
      cycle_ps_(gd_cycles_to_ps(1, cfg.clock_mhz)),
      finder_ps_(gd_cycles_to_ps(finder_cycles_of(cfg), cfg.clock_mhz)),
      finder_cycles_(finder_cycles_of(cfg)),
      contiguous_(std::string(cfg.sm_alloc) == "contiguous"),
      counted_(!placed_of(cfg)),
      finder_name_(cfg.sm_block_finder),
      err_(err),
      split_after_(cga_ && std::string(cfg.cwd_admission) == "channels" ? cfg.cwd_split_after : 0),
      round_ps_(gd_cycles_to_ps(cfg.cwd_query_cycles ? cfg.cwd_query_cycles : 1, cfg.clock_mhz)),
      dom_(dom),
      wake_(*dom_, this, &domain::call<gpu2gpc, &gpu2gpc::wake>)
{
    std::memset(&adm_, 0, sizeof adm_);
    if (channels_) {
        uint64_t win[8];
        for (uint32_t i = 0; i < cfg.cwd_windows; i++)
            win[i] = cfg.cwd_window_cycles[i];
        if (gd_adm_init(&adm_, max_resident_, win, cfg.cwd_windows, split_after_))
            throw std::bad_alloc();
        channel_.assign(max_resident_, nullptr);
        cand_.assign(max_resident_, 0);
        level_.assign(max_resident_, 0);
    }
    all_free_.resize(cfg.sms);
    res_.resize(cfg.sms);
    all_take_.resize(cfg.sms);
    gpc_start_.resize(ngpc_ + 1);
    lake_.resize(ngpc_);
    lake_extra_.resize(ngpc_);
    free_held_.assign(ngpc_, 0);
    refill_gpcs_.assign(ngpc_, 0);
    hint_.assign(ngpc_, gpc_refill_hint{});
    hint_known_.assign(ngpc_, 0);
    gpc_speed_.resize(ngpc_);
    gpc_query_.resize(ngpc_);
    gpc_shadow_.resize(ngpc_);
    dispatch_in.register_b_transport(this, &gpu2gpc::b_transport);
    dispatch_in.register_get_direct_mem_ptr(this, &gpu2gpc::dispatch_dmi);  // its direct transport
    gd_gpc_view_init(&view_, ngpc_);
    for (uint32_t g = 0; g < ngpc_; g++)
        gpc_out.emplace_back(new tlm_utils::simple_initiator_socket<gpu2gpc>(("gpc_out_" + std::to_string(g)).c_str()));
    if (stats) {
        gd_stats_add(stats, basename(), "kernels", "kernels", "kernels accepted from the packet processor", &kernels_);
        gd_stats_add(stats, basename(), "ctas_launched", "CTAs", "CTAs handed to GPCs", &ctas_launched_);
        gd_stats_add(stats, basename(), "ctas_done", "CTAs", "CTAs of completed kernels", &ctas_done_);
        gd_stats_add(stats, basename(), "peak_resident_kernels", "kernels",
                     "most kernels held at once (launching or with CTAs resident)", &peak_resident_);
        gd_stats_add(stats, basename(), "dispatches_refused", "dispatches",
                     "dispatches refused because cwd.max_resident_kernels were held", &rejected_);
        gd_stats_add(stats, basename(), "gpc_steps", "steps", "gpc_step transactions sent to GPCs", &steps_);
        gd_stats_add(stats, basename(), "wakeups", "events", "wake-ups of this block in its event domain", &wakes_);
        if (cga_) {
            gd_stats_add(stats, basename(), "launch_steps", "steps",
                         "launch steps that launched CTAs (query, then SM masks)", &steps_cga_);
            gd_stats_add(stats, basename(), "failed_steps", "steps",
                         "launch steps whose speculative launch found no room (the CGA waited for CTAs to "
                         "complete)", &failed_steps_);
            gd_stats_add(stats, basename(), "sm_masks", "masks", "SM masks (launch packets) sent to GPCs", &masks_);
        }
        if (channels_) {
            gd_stats_add(stats, basename(), "admission_rounds", "rounds",
                         "launch steps that matched every channel's next CTA against the SMs", &adm_.rounds);
            gd_stats_add(stats, basename(), "admission_failed_rounds", "rounds",
                         "of those, rounds in which no channel's CTA fitted", &adm_.failed_total);
            gd_stats_add(stats, basename(), "admission_ties", "rounds",
                         "rounds decided among several channels of the same priority (the per-channel marks)", &adm_.ties);
            gd_stats_add(stats, basename(), "admission_switches", "steps",
                         "steps that served another kernel than the oldest with CTAs left", &switches_);
            gd_stats_add(stats, basename(), "admission_lifts", "rounds",
                         "rounds a priority window decided (its level won over a higher one)", &adm_.lifts);
            gd_stats_add(stats, basename(), "admission_splits", "CTAs",
                         "CTAs of independent kernels split into one-warp sub-workgroups after cwd.split_after "
                         "rounds that fitted nobody", &split_ctas_);  // seed 001 emb. 3
        }
        if (contiguous_) {
            gd_stats_add(stats, basename(), "frag_delayed_ctas", "CTAs",
                         "sm.alloc=contiguous: CTAs that waited to launch while the counted rules had room for "
                         "them (their blocks were not contiguous)", &frag_ctas_);
            gd_stats_add(stats, basename(), "frag_wait_ns", "ns", "the time those CTAs waited", &frag_wait_ns_);
            gd_stats_add(stats, basename(), "finder_cycles", "cycles",
                         "front-end cycles the block finder took (sm.block_finder, before each launch step)",
                         &finder_total_);
        }
        gd_stats_add(stats, basename(), "frontend_cycles", "cycles",
                     "front-end cycles spent launching CTAs (baseline: cwd.cta_launch_cycles per CTA; cga: "
                     "cwd.query_cycles per step and cwd.mask_launch_cycles per SM mask)", &frontend_cycles_);
        gd_stats_add_section(stats, basename(), distributor_text, distributor_json);
    }
}

gpu2gpc::~gpu2gpc() { gd_adm_destroy(&adm_); }

// gpc2sm.select=weighted|power: the step's CTAs one by one, each on the SM the module
// selector picks among those with room (seed 001 emb. 9, 10), instead of the lake
// fill. all_take_ receives the CTAs per SM; returns how many were placed.
uint32_t gpu2gpc::select_picks(gd_time_ps now, gd_time_ps t, gd_kernel_run *k, uint32_t n, uint64_t left)
{
    std::fill(all_take_.begin(), all_take_.begin() + n, 0);
    select_ps_ = 0;  // the selector's answers take select.cycles each (their delays)
    uint32_t placed = 0;
    select_pick_body b{};
    b.at = t;
    b.run = k;
    b.n = n;
    b.free_slots = all_free_.data();
    b.res = res_.data();
    gd_cta_alloc alloc;
    for (; placed < left; placed++) {
        b.first = placed == 0;
        sc_core::sc_time d = ps_time(t - now);
        select_ch_.call(select_out, op::select_pick, &b, d);
        select_ps_ += ps_of(d) - (t - now);
        if (b.sm < 0)
            break;
        uint32_t s = (uint32_t)b.sm;
        all_take_[s]++;
        all_free_[s]--;
        gd_sm_res_take(&res_[s], cost_of(k), &alloc);
    }
    return placed;
}

// cwd.admission=channels, at a step at time t (the GPCs have retired what ended by
// then): a round of seed 001's admission over every resident kernel set up by t (a
// channel whose next CTA fits on some SM is a candidate, at its kernel's priority
// level; ties by a42's marks, so equal kernels take turns). The winner becomes the kernel
// the step serves; nobody fitting leaves the oldest, whose step then finds no room.
void gpu2gpc::admit(gd_time_ps now, gd_time_ps t)
{
    arrival_ = GD_TIME_NEVER;
    if (launch_q_.size() < 2 && !splittable(launch_q_.front()))
        return;  // one kernel, and no split to count rounds for
    std::fill(cand_.begin(), cand_.end(), 0);
    for (gd_kernel_run *k : launch_q_) {
        if (setup_done(k) > t)
            continue;
        cand_[k->channel] = fits(now, t, k);
        level_[k->channel] = k->split_left ? GD_ADM_LEVELS - 1 : k->priority;
    }
    int32_t win = gd_adm_round(&adm_, cand_.data(), level_.data(), t / cycle_ps_);
    if (win < 0 && split_after_) {
        // c2: the rounds since the first of those in a row that fitted nobody; the hardware
        // repeats a round every cwd.query_cycles while nothing changes, the model evaluates
        // the ones at which something may have changed
        if (fail_since_ == GD_TIME_NEVER)
            fail_since_ = t;
        gd_adm_set_failed_rounds(&adm_, 1 + (t - fail_since_) / round_ps_);
        gd_kernel_run *s = nullptr;  // c3: the independent head of the highest priority, the oldest on a tie
        if (gd_adm_should_split(&adm_))
            for (gd_kernel_run *k : launch_q_)
                if (setup_done(k) <= t && splittable(k) && (!s || k->priority < s->priority))
                    s = k;
        if (s) {
            // c3, c95-c99: its head CTA becomes one-warp sub-workgroups of the lowest priority,
            // the channel's heads from now on; the counter restarts and a new round begins
            s->split_left = s->desc->occ.cost.warps;
            split_ctas_++;
            gd_adm_split_done(&adm_);
            if (s == head_)
                reselect(now, t);
            cand_[s->channel] = fits(now, t, s);
            level_[s->channel] = GD_ADM_LEVELS - 1;
            win = gd_adm_round(&adm_, cand_.data(), level_.data(), t / cycle_ps_);
            fail_since_ = win < 0 ? t : GD_TIME_NEVER;
        }
    }
    split_at_ = GD_TIME_NEVER;
    if (win >= 0) {
        fail_since_ = GD_TIME_NEVER;
    } else if (split_after_) {
        for (gd_kernel_run *k : launch_q_)
            if (splittable(k))  // the failed rounds will pass the threshold then
                split_at_ = fail_since_ + split_after_ * round_ps_;
    }
    if (win < 0 || channel_[win] == head_)
        return;
    switches_++;
    set_waiting(now, t, false);
    head_ = channel_[win];
    if (!head_->head_at)
        head_->head_at = t;
    stalled_ = false;
    reselect(now, t);
}

// Whether kernel k's next CTA (or sub-workgroup) fits some SM now (the head's: from the
// GPCs' counts for it).
bool gpu2gpc::fits(gd_time_ps now, gd_time_ps t, gd_kernel_run *k)
{
    if (k == head_)
        return best_gpc() != UINT32_MAX;
    gpc_fits_body fb{cost_of(k), 0};
    sc_core::sc_time d = ps_time(t - now);
    for (uint32_t g = 0; g < ngpc_; g++) {
        gpc_call(g, op::gpc_fits, &fb, d);
        if (fb.max_free > 0)
            return true;
    }
    return false;
}

void gpu2gpc::reselect(gd_time_ps now, gd_time_ps t)
{
    gpc_select_body b{cost_of(head_), 0};
    // Counts only, and every GPC already selected this cost: each would answer with the
    // free slots the view holds (gd_gpc_select keeps its levels), so nobody is asked.
    if (!counted_ || !have_selected_ || !gd_cta_cost_equal(b.cost, &selected_)) {
        sc_core::sc_time d = ps_time(t - now);
        for (uint32_t g = 0; g < ngpc_; g++) {
            gpc_call(g, op::gpc_select, &b, d);
            gd_gpc_view_set_free(&view_, g, b.max_free);
        }
        selected_ = *b.cost;
        have_selected_ = true;
    }
    best_gpc_ = gd_gpc_view_best(&view_, UINT32_MAX);
    best_stale_ = false;
}

// sm.alloc=contiguous, after every event: does the head kernel's next CTA wait for room
// that the counted rules would find (fragmentation)? Such a wait opens once it is set
// up and there is no room, and closes when it launches or another kernel becomes the
// head; the GPCs integrate what it strands meanwhile.
void gpu2gpc::fragment_close(gd_time_ps now, gd_time_ps t)
{
    if (t > frag_since_) {
        frag_ctas_++;
        uint64_t ps = (t - frag_since_) + frag_rem_ps_;
        frag_wait_ns_ += ps / GD_PS_PER_NS;
        frag_rem_ps_ = ps % GD_PS_PER_NS;
    }
    frag_head_ = nullptr;
    gpc_fragment_body b{t, nullptr};
    sc_core::sc_time d = ps_time(t - now);
    for (uint32_t g = 0; g < ngpc_; g++)
        gpc_call(g, op::gpc_fragment, &b, d);
}

void gpu2gpc::fragment_update(gd_time_ps now, gd_time_ps t)
{
    const bool wait = head_ && (cga_ ? stalled_ : best_gpc() == UINT32_MAX);
    if (frag_head_ && (!wait || frag_head_ != head_))
        fragment_close(now, t);
    if (wait && view_.retire[gd_gpc_view_first(&view_)] == GD_TIME_NEVER) {
        // no CTA resident anywhere and still no room: this kernel can never launch
        gd_kernel_run *k = head_;
        if (err_ && err_->code == GD_OK)
            gd_err_set(err_, GD_ECONFIG,
                       "kernel %" PRIu64 " (%s): its CTA fits no SM even when the GPU is empty: sm.alloc=contiguous "
                       "with sm.block_finder=%s sees no free block large enough (%u warps, %u registers per warp, %u "
                       "bytes of shared memory); choose a finder that sees larger blocks (shift is exact)",
                       k->index, k->desc->name ? k->desc->name : "?", finder_name_.c_str(), k->desc->occ.cost.warps,
                       k->desc->occ.cost.regs_per_warp, k->desc->occ.cost.smem);
        SC_REPORT_ERROR("gdsim/gpu2gpc", "a kernel's CTA fits no SM of the empty GPU");
    }
    if (!wait || frag_head_)
        return;
    const gd_cta_cost *cost = cost_of(head_);
    gpc_fits_body fb{cost, 0, true};
    sc_core::sc_time d = ps_time(t - now);
    bool counted = false;
    for (uint32_t g = 0; g < ngpc_ && !counted; g++) {
        gpc_call(g, op::gpc_fits, &fb, d);
        counted = fb.max_free > 0;
    }
    if (!counted)
        return;  // a wait for room the counted rules would not find either
    frag_head_ = head_;
    frag_since_ = cga_ ? t : std::max(t, launch_ready());
    gpc_fragment_body b{frag_since_, cost};
    d = ps_time(frag_since_ - now);
    for (uint32_t g = 0; g < ngpc_; g++)
        gpc_call(g, op::gpc_fragment, &b, d);
}

gd_time_ps gpu2gpc::launch_ready() const
{
    return std::max({t_cur_, setup_done(head_), next_launch_});
}

gd_time_ps gpu2gpc::launch_time() const
{
    if (!head_ || best_gpc() == UINT32_MAX)
        return GD_TIME_NEVER;  // nothing to launch, or no free slot anywhere: wait for a retirement
    return launch_ready();
}

// Retirements are events only while a kernel waits to launch (they free its slots),
// or always with sim.shortcuts=off.
gd_time_ps gpu2gpc::retire_time() const
{
    return head_ || !shortcuts_ ? view_.retire[gd_gpc_view_first(&view_)] : GD_TIME_NEVER;
}

void gpu2gpc::set_gpc_state(uint32_t g, uint32_t max_free, gd_time_ps next_retire)
{
    uint32_t old_free = view_.max_free[g];
    gd_gpc_view_set_free(&view_, g, max_free);
    if (best_stale_) {
        // found again when asked for
    } else if (best_gpc_ == g) {
        best_stale_ = max_free < old_free;
    } else if (max_free && (best_gpc_ == UINT32_MAX || max_free > view_.max_free[best_gpc_] ||
                            (max_free == view_.max_free[best_gpc_] && g < best_gpc_))) {
        best_gpc_ = g;
    }
    if (view_.retire[g] != next_retire)
        gd_gpc_view_set_retire(&view_, g, next_retire);
}

gd_time_ps gpu2gpc::next_event() const
{
    if (cga_)
        return std::min(completion_time(), step_time());
    return std::min({retire_time(), completion_time(), launch_time()});
}

// The head kernel changed at time t (SystemC time now): every GPC first retires what
// ended by t (while no kernel waited to launch, retirements stayed with the GPCs),
// then counts free slots for the new head.
void gpu2gpc::select_head(gd_time_ps now, gd_time_ps t)
{
    head_ = launch_q_.empty() ? nullptr : launch_q_.front();
    stalled_ = false;
    if (!head_)
        return;
    if (!head_->head_at)
        head_->head_at = t;
    for (uint32_t g = 0; g < ngpc_; g++) {
        if (view_.retire[g] <= t) {
            gpc_prefetch(g + 1);
            step(now, t, g, nullptr, false, 0, 0);
            set_gpc_state(g, body_);
        }
    }
    reselect(now, t);
}

// A kernel's first CTA launches at `at`, from a step at t: the time it waited for
// room before that step, from when it was ready to launch as the next kernel (set up,
// the front end's previous launch or step done: pace), for the run's bounds (bounds.h).
void gpu2gpc::first_launch(gd_kernel_run *k, gd_time_ps t, gd_time_ps at, gd_time_ps pace)
{
    k->first_cta = at;
    const gd_time_ps ready = std::max({setup_done(k), k->head_at, pace});
    k->room_wait = t > ready ? t - ready : 0;
}

void gpu2gpc::launched(gd_time_ps now, gd_time_ps t, gd_time_ps end)
{
    gd_kernel_run *k = head_;
    if (k->ctas_launched++ == 0)
        first_launch(k, t, t, next_launch_);
    k->last_cta = t;
    if (end > k->end)
        k->end = end;
    k->warp_ps += (uint64_t)k->desc->occ.cost.warps * (end - t);
    ctas_launched_++;
    frontend_cycles_ += cta_launch_cycles_;
    frontend_cycles_ += finder_cycles_;
    finder_total_ += finder_cycles_;
    next_launch_ = t + cta_launch_ps_ + finder_ps_;
    if (k->ctas_launched == k->ctas) {
        completions_.push(completion{k->end, k->index, k});  // its last CTA ends then
        release_dependent(k);
        launch_q_.pop_front();
        select_head(now, t);
    }
}

// A kernel arrived: the kernel of its queue before it that is still in the distributor
// is its primary if it is programmatic (the packet processor let it go before that one
// completed). Its CTAs may launch from the primary's end less the lead: known once the
// primary has launched its last CTA (the distributor launches kernels in arrival order,
// so a programmatic kernel becomes the next to launch after that; with
// cwd.admission=channels it waits for it).
void gpu2gpc::link_primary(gd_kernel_run *k)
{
    if (k->queue >= queue_last_.size())
        queue_last_.resize(k->queue + 1, nullptr);
    gd_kernel_run *p = queue_last_[k->queue];
    queue_last_[k->queue] = k;
    // (under the command scheduler's policies the barrier bit holds it as any kernel, and
    // kernels of other tenants share its hardware queue: the last to arrive is not its
    // primary)
    if (!k->programmatic || !p || !pdl_)
        return;
    if (p->ctas_launched >= p->ctas) {
        arm_dependent(k, p->end);
    } else {
        k->launch_from = GD_TIME_NEVER;
        p->pdl_next = k;
    }
}

void gpu2gpc::release_dependent(gd_kernel_run *k)
{
    if (gd_kernel_run *d = k->pdl_next) {
        arm_dependent(d, k->end);
        k->pdl_next = nullptr;
    }
}

// Its primary ends at `end`: its CTAs may launch from end less the lead, and each waits
// there for the primary's work (cudaGridDependencySynchronize at its start), then runs
// its own time (the converter gives a programmatic kernel the time it ran after its
// primary ended): a CTA launched at t ends at max(t, end) + its time (sm/exec.h).
void gpu2gpc::arm_dependent(gd_kernel_run *d, gd_time_ps end)
{
    const gd_time_ps setup = d->dispatched + grid_launch_ps_;
    d->launch_from = std::max(setup, end > pdl_lead_ps_ ? end - pdl_lead_ps_ : 0);
    if (end + d->cta_ps > d->wait_until)
        d->wait_until = end + d->cta_ps;
}

// The earliest completion, due at t, becomes an output for the packet processor.
gd_time_ps gpu2gpc::kernel_completes(gd_time_ps t)
{
    gd_kernel_run *k = completions_.top().run;
    completions_.pop();
    if (k->queue < queue_last_.size() && queue_last_[k->queue] == k)
        queue_last_[k->queue] = nullptr;  // a programmatic kernel arriving from now has no primary here
    ctas_done_ += k->ctas;
    if (--resident_ == 0) {  // the GPU holds no kernel from t: a resident stretch ends
        resident_ps_ += t - resident_since_;
        empty_since_ = t;
    }
    outputs_.emplace_back(t, k);
    return t;
}

// One gpc_step to GPC g at time t: retire what ends by t there, then launch one CTA
// of `launch` (if not null; if conditional, only when g then beats beat_free/beat_gpc).
void gpu2gpc::step(gd_time_ps now, gd_time_ps t, uint32_t g, gd_kernel_run *launch, bool conditional,
                   uint32_t beat_free, uint32_t beat_gpc)
{
    gpc_step_body &b = body_;
    b.at = t;
    b.launch = launch;
    b.conditional = conditional;
    b.beat_free = beat_free;
    b.beat_gpc = beat_gpc;
    b.gpc = g;
    sc_core::sc_time d = ps_time(t - now);
    gpc_call(g, op::gpc_step, &b, d);
    steps_++;
}

void gpu2gpc::advance(gd_time_ps now, gd_time_ps limit, bool inclusive)
{
    if (cga_)
        return advance_cga(now, limit, inclusive);
    gd_time_ps out_t = outputs_.empty() ? GD_TIME_NEVER : outputs_.back().first;
    for (;;) {
        gd_time_ps tr = retire_time(), tc = completion_time(), tl = launch_time();
        gd_time_ps t = std::min({tr, tc, tl});
        if (t == GD_TIME_NEVER || (inclusive ? t > limit : t >= limit))
            break;
        if (out_t != GD_TIME_NEVER && t > out_t)
            break;  // finish the time step that completed a kernel, then hand it over
        if (t < t_cur_)  // an invariant: every event due earlier was handed over then
            SC_REPORT_ERROR("gdsim/gpu2gpc", "internal: event time went backwards");
        t_cur_ = t;
        if (!dom_->guard(t))
            break;  // the replay stops (a limit, an interrupt): the domain has stopped SystemC
        if (tr == t) {
            // Retirement in GPC g. Fuse the head's next launch into the same step when it
            // is due now and no other GPC retires by now (so every retirement at t comes
            // first); g then launches only if it beats the best other GPC.
            uint32_t g = gd_gpc_view_first(&view_), g2, beat = UINT32_MAX;
            gd_kernel_run *fuse = (shortcuts_ && head_ && tc > t && launch_ready() <= t) ? head_ : nullptr;
            if (fuse && gd_gpc_view_second(&view_, &g2) <= t)
                fuse = nullptr;
            if (fuse)
                beat = gd_gpc_view_best(&view_, g);
            step(now, t, g, fuse, true, beat == UINT32_MAX ? 0 : view_.max_free[beat], beat);
            set_gpc_state(g, body_);
            if (body_.launched)
                launched(now, t, body_.end);
        } else if (tc == t) {
            out_t = kernel_completes(t);
        } else {
            uint32_t bg = best_gpc();
            step(now, t, bg, head_, false, 0, 0);
            set_gpc_state(bg, body_);
            if (!body_.launched)
                SC_REPORT_ERROR("gdsim/gpu2gpc", "a GPC with free slots refused a CTA launch");
            launched(now, t, body_.end);
        }
        if (contiguous_)
            fragment_update(now, t);
    }
}

// ---- cwd.policy=cga ----

// A step for the head kernel: once it is set up and the front end is free; after a
// step that found no room, when CTAs retire or a GPC-CGA's id comes back.
gd_time_ps gpu2gpc::step_time() const
{
    if (!head_)
        return GD_TIME_NEVER;
    gd_time_ps t = std::max({t_cur_, setup_done(head_), next_step_});
    if (stalled_) {
        gd_time_ps r = view_.retire[gd_gpc_view_first(&view_)];
        if (arrival_ < r)  // channels: a kernel that arrived since may fit
            r = std::max(arrival_, t_cur_);
        if (split_at_ < r)  // channels: the failed rounds pass cwd.split_after
            r = std::max(split_at_, t_cur_);
        if (r == GD_TIME_NEVER)
            return GD_TIME_NEVER;
        t = std::max(t, r);
    }
    return t;
}

void gpu2gpc::advance_cga(gd_time_ps now, gd_time_ps limit, bool inclusive)
{
    gd_time_ps out_t = outputs_.empty() ? GD_TIME_NEVER : outputs_.back().first;
    for (;;) {
        gd_time_ps tc = completion_time(), ts = step_time();
        gd_time_ps t = std::min(tc, ts);
        if (t == GD_TIME_NEVER || (inclusive ? t > limit : t >= limit))
            break;
        if (out_t != GD_TIME_NEVER && t > out_t)
            break;  // finish the time step that completed a kernel, then hand it over
        if (t < t_cur_)
            SC_REPORT_ERROR("gdsim/gpu2gpc", "internal: event time went backwards");
        t_cur_ = t;
        if (!dom_->guard(t))
            break;  // the replay stops (a limit, an interrupt): the domain has stopped SystemC
        if (tc == t)
            out_t = kernel_completes(t);
        else
            cga_step(now, t);
        if (contiguous_)
            fragment_update(now, t);
    }
}

void gpu2gpc::set_waiting(gd_time_ps now, gd_time_ps t, bool waiting)
{
    if (waiting_ == waiting)
        return;
    waiting_ = waiting;
    if (wait_told_late_) {  // !waiting: it ended before any GPC changed (and stranded nothing)
        wait_told_late_ = false;
        return;
    }
    if (waiting && shortcuts_ && !view_.top) {  // no GPC has a free slot: nothing is stranded yet
        wait_told_late_ = true;
        wait_since_ = t;
        return;
    }
    sc_core::sc_time d = ps_time(t - now);
    tell_waiting(t, d, waiting);
}

// Not through gpc_call: a wait changes nothing a hint says, and is itself what a late
// wait becomes.
void gpu2gpc::tell_waiting(gd_time_ps t, sc_core::sc_time &d, bool waiting)
{
    if (!gpc_direct_asked_)
        ask_gpc_direct();
    gpc_wait_body b{t, waiting};
    for (uint32_t g = 0; g < ngpc_; g++)
        gpc_ch_.call(*gpc_out[g], gpc_direct_[g], op::gpc_wait, &b, d);
}

// The GPCs learn of the wait that began at wait_since_ before an operation that may
// change them: they account it from then as if told then (their free slots stayed 0).
void gpu2gpc::tell_waiting_late()
{
    wait_told_late_ = false;
    const gd_time_ps sc = now_ps();
    sc_core::sc_time d = ps_time(wait_since_ > sc ? wait_since_ - sc : 0);
    tell_waiting(wait_since_, d, true);
}

// One SM mask to GPC g: its CTAs start at `at`.
void gpu2gpc::launch_mask(gd_time_ps now, gd_time_ps at, uint32_t g, const uint32_t *take, bool cga, uint32_t level,
                          uint32_t extra)
{
    gd_kernel_run *k = head_;
    set_waiting(now, step_t_, false);  // room was found at the step's time
    if (frag_head_)
        fragment_close(now, step_t_);
    gpc_launch_body &b = launch_body_;
    b.at = at;
    b.run = k;
    b.cost = cost_of(k);
    b.sub = k->split_left != 0;
    b.take = take;
    b.lake_level = level;
    b.lake_extra = extra;
    b.cga = cga;
    b.cga_seq = k->cgas_launched;
    sc_core::sc_time d = ps_time(at - now);
    gpc_call(g, op::gpc_launch, &b, d);
    set_gpc_state(g, b);
    if (!b.launched)
        return;
    if (!k->launching) {
        first_launch(k, step_t_, at, next_step_);
        k->launching = 1;
    }
    if (b.sub) {  // a split CTA has launched when its last sub-workgroup has
        k->split_left -= b.launched;
        if (!k->split_left) {
            k->ctas_launched++;
            ctas_launched_++;
        }
    } else {
        k->ctas_launched += b.launched;
        ctas_launched_ += b.launched;
    }
    k->last_cta = at;
    if (b.end > k->end)
        k->end = b.end;
    k->warp_ps += b.warp_ps;
    if (cga)
        k->cgas_launched++;
    masks_++;
}

// After a step's masks: a kernel whose CTAs have all launched completes when its last
// CTA ends; the next kernel becomes the head.
void gpu2gpc::complete_launch(gd_time_ps now, gd_time_ps t)
{
    gd_kernel_run *k = head_;
    if (k->ctas_launched < k->ctas)
        return;
    completions_.push(completion{k->end, k->index, k});
    release_dependent(k);
    if (channels_) {  // any channel may have been served: it leaves the queue wherever it is
        launch_q_.erase(std::find(launch_q_.begin(), launch_q_.end(), k));
        channel_[k->channel] = nullptr;
    } else {
        launch_q_.pop_front();
    }
    select_head(now, t);
}

// A refill (docs/MODEL.md *Refills*): the head kernel is a plain grid, and the GPU's free
// slots for it are those that CTAs of its cost left when they retired (held by their
// GPCs) or leave now. Its step at t retires what is due by t, and the lake then sees on
// each SM exactly the free slots those CTAs leave; with at least that many CTAs left it
// fills them all (water line 0): each GPC with free slots gets a mask starting as many
// on the same SMs, which the GPC's held records (or an even placement, the same
// resources) take. When every such GPC can say so (op::gpc_refill: only counted, evenly
// placed CTAs of the kernel's cost are due or held, nothing else is free, nothing else
// due by the masks' start), that is what each does, without the lake and the placement:
// the same masks, counts, times and statistics. False, with nothing changed, otherwise.
bool gpu2gpc::refill_step(gd_time_ps now, gd_time_ps t)
{
    gd_kernel_run *k = head_;
    if (k->split_left || !shortcuts_ || select_ || channels_ || contiguous_ || gd_cluster_is_cga(&k->cluster))
        return false;
    const uint64_t left = k->ctas - k->ctas_launched;
    if (left <= 1)
        return false;  // one CTA goes by the best GPC, not the lake
    gpc_refill_body b;
    b.t = t;
    b.run = k;
    b.cost = cost_of(k);
    b.check = true;
    sc_core::sc_time d = ps_time(t - now);
    // the GPCs the lake gives CTAs: those with free slots or CTAs due
    uint32_t *const gs = refill_gpcs_.data(), masks = 0;
    const uint8_t *const held = free_held_.data();
    for (uint32_t g = 0; g < ngpc_; g++) {
        if (view_.max_free[g]) {
            if (!held[g])
                return false;  // room that no retired CTA left (its last answer; the check is exact)
            gs[masks++] = g;
        } else if (view_.retire[g] <= t) {
            gs[masks++] = g;
        }
    }
    if (!masks)
        return false;
    const gd_time_ps at = t + finder_ps_ + query_ps_ + mask_ps_ * masks + broadcast_ps_ + select_ps_;
    b.at = at;
    // Each GPC's last answer says what its check would (its hint; nothing changed it since),
    // unless more than one of its calendar entries is due: then it is asked.
    uint64_t ctas = 0;
    bool ask = !have_selected_ || !gd_cta_cost_equal(b.cost, &selected_) || k->has_insn;
    for (uint32_t i = 0; i < masks; i++) {
        const uint32_t g = gs[i];
        const gpc_refill_hint &h = hint_[g];
        const bool due = view_.retire[g] <= t;
        if (ask || !hint_known_[g] || (due && h.second <= t)) {
            ask = true;
            break;
        }
        const uint64_t n = (due ? h.first_ctas : 0) + h.held_ctas;
        if (!h.ready || h.release <= at || !held[g] || (due && !h.first_ctas) || !n)
            return false;
        ctas += n;
    }
    if (ask) {
        ctas = 0;
        for (uint32_t i = 0; i < masks; i++) {
            gpc_call(gs[i], op::gpc_refill, &b, d);
            if (!b.ok)
                return false;
            ctas += b.ctas;
        }
    }
    if (ctas > left)
        return false;  // the lake places fewer
    // As cga_step: the GPCs with CTAs due were stepped (they retired), then each got its mask.
    for (uint32_t i = 0; i < masks; i++)
        steps_ += view_.retire[gs[i]] <= t;
    set_waiting(now, t, false);
    b.check = false;
    for (uint32_t i = 0; i < masks; i++) {
        const uint32_t g = gs[i];
        gpc_call(g, op::gpc_refill, &b, d);
        set_gpc_state(g, b);
        k->ctas_launched += b.launched;
        ctas_launched_ += b.launched;
        if (b.end > k->end)
            k->end = b.end;
        k->warp_ps += b.warp_ps;
        masks_++;
    }
    if (!k->launching) {
        first_launch(k, t, at, next_step_);
        k->launching = 1;
    }
    k->last_cta = at;
    steps_cga_++;
    stalled_ = false;
    finder_total_ += finder_cycles_;
    frontend_cycles_ += finder_cycles_ + query_cycles_ + (uint64_t)mask_cycles_ * masks + broadcast_cycles_;
    next_step_ = at;
    complete_launch(now, t);
    return true;
}

// Nothing fits: the CGA waits for CTAs to complete; the speculation changed nothing.
void gpu2gpc::step_failed(gd_time_ps now, gd_time_ps t)
{
    failed_steps_++;
    stalled_ = true;
    set_waiting(now, t, true);
}

void gpu2gpc::cga_step(gd_time_ps now, gd_time_ps t)
{
    step_t_ = t;
    if (!view_.top && lake_known_ && !select_ && !channels_ && view_.retire[gd_gpc_view_first(&view_)] > t &&
        !gd_cluster_is_cga(&head_->cluster)) {
        // A plain grid, no free slot for it in any GPC and nothing due: the step below
        // would retire nothing and place nothing (on a full GPU, the step after a refill)
        step_failed(now, t);
        return;
    }
    if (refill_step(now, t))
        return;
    // Every GPC first retires what ended by t (and takes back the ids of GPC-CGAs
    // flushed by then): the query model then holds the GPCs' state at t.
    for (uint32_t g = 0; g < ngpc_; g++) {
        if (view_.retire[g] <= t) {
            gpc_prefetch(g + 1);
            step(now, t, g, nullptr, false, 0, 0);
            set_gpc_state(g, body_);
        }
    }
    if (channels_)
        admit(now, t);
    gd_kernel_run *k = head_;
    const gd_cluster &c = k->cluster;
    const uint32_t per_cga = (uint32_t)c.dim[0] * c.dim[1] * c.dim[2];
    uint32_t masks = 0;
    gd_time_ps at = 0;
    if (!gd_cluster_is_cga(&c) && !select_ && lake_known_ && !view_.top) {
        // A plain grid and no GPC with a free slot for it (the view holds each GPC's most
        // free slots): the lake places nothing.
        masks = 0;
    } else if (!gd_cluster_is_cga(&c)) {
        // A plain grid: fill the GPU's lake with as many of its CTAs as there are free
        // slots, all SMs at once (seed 003 [0145]-[0157], [0161]).
        uint32_t off = 0;
        std::vector<uint32_t> &start = gpc_start_;
        if (select_ || !lake_known_) {
            lake_known_ = true;
            for (uint32_t g = 0; g < ngpc_; g++) {
                gpc_free_body fb{};
                sc_core::sc_time d = ps_time(t - now);
                gpc_call(g, op::gpc_free, &fb, d);
                if (select_) {  // counts only: the selector weighs them; the SMs' placement stays theirs
                    std::copy(fb.free_slots, fb.free_slots + fb.nsm, all_free_.begin() + off);
                    std::copy(fb.res, fb.res + fb.nsm, res_.begin() + off);
                    for (uint32_t i = 0; i < fb.nsm; i++)
                        res_[off + i].place = nullptr;
                }
                lake_[g] = gd_lake_gpc{fb.level, fb.max_free, fb.nsm};
                start[g] = off;
                off += fb.nsm;
            }
            start[ngpc_] = off;
        } else {
            // The GPCs' level masks stay where they are, and each GPC's most free slots
            // are the view's (every GPC operation answers with them): no transaction.
            for (uint32_t g = 0; g < ngpc_; g++)
                lake_[g].max_free = view_.max_free[g];
            off = start[ngpc_];
        }
        const bool sub = k->split_left != 0;  // a split CTA's one-warp sub-workgroups
        uint64_t left = sub ? k->split_left : k->ctas - k->ctas_launched;
        gd_lake_result r;
        select_ps_ = 0;
        uint64_t *receive = receive_;  // one SM mask per GPC that gets CTAs
        const uint32_t words = (ngpc_ + 63) / 64;
        if (select_) {  // seed 001's module selector, CTA by CTA
            std::fill(receive, receive + words, 0);
            r.placed = select_picks(now, t, k, off, left);
            for (uint32_t g = 0; g < ngpc_ && r.placed; g++)
                if (std::any_of(all_take_.begin() + start[g], all_take_.begin() + start[g + 1],
                                [](uint32_t n) { return n != 0; }))
                    receive[g / 64] |= 1ull << (g % 64);
        } else if (left == 1) {
            // One CTA (a kernel's last, or a one-CTA kernel): the lake puts it on the SM with
            // the most free slots, the lowest GPC and SM deciding a tie; that GPC's water line
            // is its most free slots, with the CTA at the line on its first SM there.
            std::fill(receive, receive + words, 0);
            const uint32_t g = gd_gpc_view_best(&view_, UINT32_MAX);
            r.level = 0;
            if (g != UINT32_MAX) {
                r.level = view_.max_free[g];
                lake_extra_[g] = 1;
                receive[g / 64] |= 1ull << (g % 64);
            }
        } else {  // from the GPCs' free-slot levels: each GPC gets the water line and its CTAs at it
            gd_lake_fill_gpcs(lake_.data(), ngpc_, left > UINT32_MAX ? UINT32_MAX : (uint32_t)left, scan_limit_,
                              lake_extra_.data(), receive, &r);
        }
        masks = 0;
        for (uint32_t w = 0; w < words; w++)
            masks += gd_popcount64(receive[w]);
        at = t + finder_ps_ + query_ps_ + mask_ps_ * masks + broadcast_ps_ + select_ps_;
        for (uint32_t w = 0; w < words; w++)
            for (uint64_t m = receive[w]; m; m &= m - 1) {
                uint32_t g = w * 64 + (uint32_t)__builtin_ctzll(m);
                gpc_prefetch(g + 1);
                if (select_)
                    launch_mask(now, at, g, all_take_.data() + start[g], false);
                else
                    launch_mask(now, at, g, nullptr, false, r.level, lake_extra_[g]);
            }
        if (sub && !k->split_left && k->ctas_launched < k->ctas)
            reselect(now, t);  // the split CTA is out: its next CTAs launch whole
        if (select_ && masks) {  // the selector keeps each SM's energy history
            gd_time_ps end = at + gd_cta_exec_time(k, at);
            for (uint32_t i = 0; i < off; i++) {
                if (!all_take_[i])
                    continue;
                select_placed_body pb{k, i, all_take_[i], at, end};
                sc_core::sc_time d = ps_time(t - now);
                select_ch_.call(select_out, op::select_placed, &pb, d);
            }
        }
    } else if (c.gpu_cga == 1) {
        // GPC-CGAs: query every GPC's model; every GPC of the best speed receives one
        // (seed 003 [0166]-[0171]).
        std::vector<gpc_query_body> &q = gpc_query_;
        std::vector<int32_t> &speed = gpc_speed_;
        for (uint32_t g = 0; g < ngpc_; g++) {
            q[g].ctas = per_cga;
            q[g].mode = (gd_cga_mode)c.mode;
            q[g].cga = true;
            sc_core::sc_time d = ps_time(t - now);
            gpc_call(g, op::gpc_query, &q[g], d);
            speed[g] = q[g].speed;
        }
        uint64_t *pick = receive_;
        uint64_t m = gd_gpu_pick(speed.data(), ngpc_, pick);
        uint64_t cgas_left = (k->ctas - k->ctas_launched) / per_cga;
        if (m > cgas_left)
            m = cgas_left;
        if (m) {  // the lowest-numbered m of the GPCs picked
            masks = (uint32_t)m;
            at = t + finder_ps_ + query_ps_ + mask_ps_ * masks + broadcast_ps_;
            uint64_t n = 0;
            for (uint32_t w = 0; w < (ngpc_ + 63) / 64 && n < m; w++)
                for (uint64_t p = pick[w]; p && n < m; p &= p - 1, n++) {
                    uint32_t g = w * 64 + (uint32_t)__builtin_ctzll(p);
                    launch_mask(now, at, g, q[g].take, true);
                }
        }
    } else {
        // A GPU-CGA: both passes on the GPCs' models (seed 003 [0206]-[0221]).
        std::vector<gd_gpc_shadow> &sh = gpc_shadow_;
        for (uint32_t g = 0; g < ngpc_; g++) {
            gpc_free_body fb{};
            sc_core::sc_time d = ps_time(t - now);
            gpc_call(g, op::gpc_free, &fb, d);
            sh[g].nsm = fb.nsm;
            std::copy(fb.free_slots, fb.free_slots + fb.nsm, sh[g].free_slots);
            sh[g].cgas_left = fb.cgas_left;
            sh[g].ids_left = fb.ids_left;
        }
        part_gpc_.resize(c.gpu_cga);
        part_take_.resize((size_t)c.gpu_cga * GD_MAX_SMS_PER_GPC);
        cga_scratch_.resize(gd_gpu_cga_scratch_size(ngpc_) / sizeof(uint32_t));
        if (gd_gpu_cga_place(sh.data(), ngpc_, c.gpu_cga, per_cga, (gd_cga_mode)c.mode, sms_per_tpc_, scan_limit_,
                             part_gpc_.data(), part_take_.data(), cga_scratch_.data())) {
            masks = c.gpu_cga;
            // pass 1 (query), pass 2 (query + launch)
            at = t + finder_ps_ + 2 * query_ps_ + mask_ps_ * masks + broadcast_ps_;
            for (uint32_t p = 0; p < c.gpu_cga; p++)
                launch_mask(now, at, part_gpc_[p], part_take_.data() + (size_t)p * GD_MAX_SMS_PER_GPC, true);
        }
    }
    if (!masks) {
        step_failed(now, t);
        return;
    }
    steps_cga_++;
    stalled_ = false;
    finder_total_ += finder_cycles_;
    frontend_cycles_ += finder_cycles_ + (uint64_t)query_cycles_ * (c.gpu_cga > 1 ? 2 : 1) +
                        (uint64_t)mask_cycles_ * masks + broadcast_cycles_;
    next_step_ = at;
    complete_launch(now, t);
}

void gpu2gpc::schedule(gd_time_ps now)
{
    (void)now;
    gd_time_ps t = outputs_.empty() ? next_event() : outputs_.front().first;
    if (t == wake_.pending())
        return;  // already asked for then
    wake_.cancel();
    if (t != GD_TIME_NEVER)
        wake_.notify(t);
}

// The domain runs it at t: the completions due are handed over (each at its time),
// then its events up to the domain's next other wake-up or SystemC's next activity.
void gpu2gpc::wake(gd_time_ps t)
{
    wakes_++;
    const gd_time_ps now = now_ps();  // SystemC's time: the operations' delays count from it
    while (!outputs_.empty() && outputs_.front().first <= t) {
        kernel_done_body b{outputs_.front().second};
        sc_core::sc_time d = ps_time(outputs_.front().first - now);
        outputs_.pop_front();
        done_ch_.call(done_out, op::kernel_done, &b, d);
        dom_->touched();
    }
    advance(now, dom_->limit(), false);
    schedule(now);
}

bool gpu2gpc::dispatch(op_code code, void *body, sc_core::sc_time &delay)
{
    if (code != op::dispatch)
        return false;
    auto *b = static_cast<dispatch_body *>(body);
    gd_time_ps now = now_ps(), t = now + ps_of(delay);
    advance(now, t, true);  // events up to and including t come first
    if (resident_ >= max_resident_) {
        b->accepted = false;
        rejected_++;
        schedule(now);
        return true;
    }
    gd_kernel_run *k = b->run;
    k->dispatched = t;
    k->launch_from = t + grid_launch_ps_;
    link_primary(k);
    launch_q_.push_back(k);
    if (channels_) {  // its task channel: the lowest free slot
        uint32_t c = 0;
        while (channel_[c])
            c++;
        channel_[c] = k;
        k->channel = c;
        if (stalled_ && setup_done(k) < arrival_)
            arrival_ = setup_done(k);  // the stalled step is tried again once it is set up
    }
    if (resident_ == 0) {  // a resident stretch starts at t; the idle one before it (if any) ends
        resident_since_ = t;
        if (kernels_) {
            idle_ps_ += t - empty_since_;
            longest_idle_ps_ = std::max(longest_idle_ps_, t - empty_since_);
        }
    }
    if (++resident_ > peak_resident_)
        peak_resident_ = resident_;
    kernels_++;
    if (!head_) {
        select_head(now, t);
        if (contiguous_)
            fragment_update(now, t);
    }
    b->accepted = true;
    schedule(now);
    return true;
}

// Each GPC2SM distributor's direct transport, asked for once (before the first
// operation, when every socket is bound); a GPC that grants none gets transactions.
void gpu2gpc::ask_gpc_direct()
{
    gpc_direct_asked_ = true;
    gpc_direct_.assign(ngpc_, nullptr);
    for (uint32_t g = 0; g < ngpc_; g++)
        gpc_direct_[g] = gpc_ch_.ask_direct(*gpc_out[g]);
}

void gpu2gpc::flush()
{
    for (uint32_t g = 0; g < ngpc_; g++) {  // every GPC: one with nothing due still counts its held CTAs
        const bool due = view_.retire[g] != GD_TIME_NEVER;
        gpc_step_body &b = body_;
        b.at = GD_TIME_NEVER;  // no launch: nothing happens at this time, all is retired
        b.launch = nullptr;
        b.conditional = false;
        b.gpc = g;
        sc_core::sc_time d = sc_core::SC_ZERO_TIME;
        gpc_call(g, op::gpc_step, &b, d);
        if (due)
            set_gpc_state(g, b);
    }
}

}  // namespace gd
