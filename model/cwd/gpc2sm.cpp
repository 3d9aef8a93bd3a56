#include "gpc2sm.hpp"

#include <algorithm>
#include <cstring>
#include <new>
#include <string>

namespace gd {

gpc2sm::gpc2sm(sc_core::sc_module_name name, uint32_t gpc, uint32_t first_sm, uint32_t nsm, const gd_config &cfg,
               gd_stats *stats, gd_cta_log *cta_log, launch_watcher *watch)
    : sc_module(name), cwd_in("cwd_in"), group_(std::string(cfg.gpc2sm_group_ctas) == "on"),
      rasterize_(cta_log || std::string(cfg.cwd_raster_check) == "on"), watch_(watch),
      sms_per_tpc_(cfg.sms_per_tpc), scan_limit_(cfg.cwd_lake_scan_limit),
      flush_ps_(gd_cycles_to_ps(cfg.cwd_cga_flush_cycles, cfg.clock_mhz)), cgas_left_(nsm * cfg.cwd_gpc_cgas_per_sm),
      gpc_(gpc), first_sm_(first_sm), log_(cta_log), check_(std::string(cfg.cwd_raster_check) == "on"),
      raster_(nsm)
{
    gd_cga_ids_init(&ids_, cfg.cwd_gpc_cga_ids);
    cwd_in.bind(*this);
    for (uint32_t i = 0; i < nsm; i++)
        sm_out.emplace_back(new tlm_utils::simple_initiator_socket<gpc2sm>(("sm_out_" + std::to_string(i)).c_str()));
    gd_gpc_init(&trk_, nsm, &cfg.sm);
    gd_alloc_cfg_init(&alloc_cfg_, &cfg);
    if (gd_alloc_cfg_placed(&alloc_cfg_)) {
        place_.resize(nsm);
        gd_gpc_set_placement(&trk_, &alloc_cfg_, place_.data());
    }
    gd_cal_init(&calendar_);
    records_max_ = nsm * cfg.sm.max_ctas;  // records grow to this as needed (grow_records)
    // The first records now, with the GPC: memory the GPU needs whatever it replays, paid
    // (page faults included: 10 to 13 us each on a virtual machine) once per GPC when it
    // is built, not by the first CTAs that land on it (docs/PERFORMANCE.md item 37)
    grow_records();
    if (stats) {
        gd_stats_add(stats, basename(), "ctas_launched", "CTAs", "CTAs placed on this GPC's SMs", &launched_);
        gd_stats_add(stats, basename(), "ctas_retired", "CTAs", "CTAs retired from this GPC's SMs", &retired_);
        gd_stats_add(stats, basename(), "peak_resident_ctas", "CTAs", "most CTAs resident in this GPC at once",
                     &peak_resident_);
        if (alloc_cfg_.contiguous) {
            gd_stats_add(stats, basename(), "frag_stranded_slot_ns", "slot x ns",
                         "sm.alloc=contiguous: CTA slots the counted rules had free on this GPC's SMs for a CTA "
                         "that waited for contiguous room, integrated over the wait", &frag_slot_ns_);
            gd_stats_add(stats, basename(), "frag_stranded_reg_unit_ns", "unit x ns",
                         "free register units (sm.reg_alloc_unit) on those SMs, integrated over the wait",
                         &frag_reg_unit_ns_);
            gd_stats_add(stats, basename(), "frag_stranded_smem_unit_ns", "unit x ns",
                         "free shared-memory units (sm.smem_alloc_unit) on those SMs, integrated over the wait",
                         &frag_smem_unit_ns_);
        }
        if (std::string(cfg.cwd_policy) == "cga") {
            gd_stats_add(stats, basename(), "cgas_launched", "CGAs", "GPC-CGAs (clusters) launched on this GPC",
                         &cgas_);
            gd_stats_add(stats, basename(), "failed_queries", "queries",
                         "speculative launches of a GPC-CGA on this GPC that found no room", &failed_queries_);
            gd_stats_add(stats, basename(), "stranded_slot_ns", "slot x ns",
                         "free slots of this GPC's SMs (for the waiting kernel) integrated over the time a CGA "
                         "waited for room on the GPU", &stranded_slot_ns_);
        }
    }
}

gpc2sm::~gpc2sm() { gd_cal_free(&calendar_); }

void gpc2sm::b_transport(tlm::tlm_generic_payload &p, sc_core::sc_time &delay)
{
    msg &m = msg_of(p);
    p.set_response_status(transport(m.code, m.body, delay) ? tlm::TLM_OK_RESPONSE : tlm::TLM_COMMAND_ERROR_RESPONSE);
}

bool gpc2sm::transport(op_code code, void *body, sc_core::sc_time &delay)
{
    if (code == op::gpc_refill) {  // most operations on a full GPU
        refill(static_cast<gpc_refill_body *>(body));
        return true;
    }
    // operations that read the SMs' resources see them with every retired CTA's given back
    if (code != op::gpc_launch && code != op::gpc_step && code != op::gpc_wait && code != op::gpc_query)
        release_held();
    switch (code) {
    case op::gpc_select: {
        auto *b = static_cast<gpc_select_body *>(body);
        b->max_free = gd_gpc_select(&trk_, b->cost);
        break;
    }
    case op::gpc_step:
        step(static_cast<gpc_step_body *>(body), delay);
        break;
    case op::gpc_query: {
        auto *b = static_cast<gpc_query_body *>(body);
        b->speed = -1;
        gd_gpc_sync(&trk_);
        if (!b->cga || (cgas_left_ && ids_.in_use < ids_.n))
            b->speed = gd_gpc_query(trk_.free_slots, trk_.nsm, b->ctas, b->mode, sms_per_tpc_, scan_limit_, b->take);
        if (b->speed < 0)
            failed_queries_++;
        break;
    }
    case op::gpc_free: {
        auto *b = static_cast<gpc_free_body *>(body);
        gd_gpc_sync(&trk_);
        b->free_slots = trk_.free_slots;
        b->nsm = trk_.nsm;
        b->res = trk_.res;
        b->level = trk_.level;
        b->max_free = trk_.max_free;
        b->cgas_left = cgas_left_;
        b->ids_left = ids_.n - ids_.in_use;
        break;
    }
    case op::gpc_fits: {
        auto *b = static_cast<gpc_fits_body *>(body);
        b->max_free = 0;
        for (uint32_t i = 0; i < trk_.nsm; i++) {
            uint32_t f = b->counted ? gd_sm_res_count_slots(&trk_.res[i], b->cost)
                                    : gd_sm_res_free_slots(&trk_.res[i], b->cost);
            if (f > b->max_free)
                b->max_free = f;
        }
        break;
    }
    case op::gpc_fragment: {
        auto *b = static_cast<gpc_fragment_body *>(body);
        account_fragment(b->at);
        frag_cost_ = b->cost;
        measure_fragment();
        break;
    }
    case op::gpc_launch:
        launch_mask(static_cast<gpc_launch_body *>(body), delay);
        break;
    case op::gpc_wait: {
        auto *b = static_cast<gpc_wait_body *>(body);
        account_wait(b->at);
        waiting_ = b->waiting;
        wait_t_ = b->at;
        wait_free_ = free_total();
        break;
    }
    default:
        return false;
    }
    return true;
}

void gpc2sm::note_cta(uint32_t sm, const gd_kernel_run *k, uint64_t unit, uint32_t cga_cta_id, gd_time_ps at,
                      gd_time_ps end)
{
    const gd_cluster &c = k->cluster;
    const uint32_t cd[3] = {c.dim[0], c.dim[1], c.dim[2]};
    const uint32_t units[3] = {k->grid[0] / cd[0], k->grid[1] / cd[1], k->grid[2] / cd[2]};
    sm_raster &st = raster_[sm];
    if (st.kernel != k->index || unit < st.unit) {
        // an SM new to this kernel is told the current position ([0222])
        gd_raster_init(&st.r, units);
        gd_raster_direct(units, unit, st.r.cur);
        st.kernel = k->index;
    } else if (unit > st.unit) {
        gd_raster_advance(&st.r, unit - st.unit);  // the launches it watched since its last id
    }
    st.unit = unit;
    if (check_) {
        uint32_t d[3];
        gd_raster_direct(units, unit, d);
        if (d[0] != st.r.cur[0] || d[1] != st.r.cur[1] || d[2] != st.r.cur[2])
            SC_REPORT_ERROR("gdsim/gpc2sm", "cwd.raster_check: a rasterized CTA id differs from the direct computation");
    }
    uint32_t in[3], xyz[3];
    gd_raster_direct(cd, cga_cta_id, in);
    for (int i = 0; i < 3; i++)
        xyz[i] = st.r.cur[i] * cd[i] + in[i];
    if (log_) {
        uint64_t cta_id = xyz[0] + (uint64_t)xyz[1] * k->grid[0] + (uint64_t)xyz[2] * k->grid[0] * k->grid[1];
        gd_cta_log_row(log_, k->index, cta_id, xyz, unit, cga_cta_id, gpc_, first_sm_ + sm, at, end);
    }
}

uint32_t gpc2sm::free_total() const { return trk_.free_total; }

// While a CGA waits for room, this GPC's free slots (for its kernel) are stranded.
void gpc2sm::account_wait(gd_time_ps t)
{
    if (waiting_ && t > wait_t_) {
        uint64_t ps = wait_free_ * (t - wait_t_) + stranded_rem_ps_;
        stranded_slot_ns_ += ps / GD_PS_PER_NS;
        stranded_rem_ps_ = ps % GD_PS_PER_NS;
    }
    wait_t_ = t;
}

// What a CTA of frag_cost_ that waits for contiguous room strands now: on every SM where
// the counted rules would fit it, the slots they count and the free units.
void gpc2sm::measure_fragment()
{
    frag_slots_ = frag_reg_units_ = frag_smem_units_ = 0;
    if (!frag_cost_)
        return;
    for (uint32_t i = 0; i < trk_.nsm; i++) {
        const gd_sm_res &r = trk_.res[i];
        uint32_t c = gd_sm_res_count_slots(&r, frag_cost_);
        if (!c)
            continue;
        frag_slots_ += c;
        for (uint32_t t = 0; t < r.nsub; t++)
            frag_reg_units_ += r.regs[t] / alloc_cfg_.reg_unit;
        frag_smem_units_ += r.smem / alloc_cfg_.smem_unit;
    }
}

void gpc2sm::account_fragment(gd_time_ps t)
{
    if (t == GD_TIME_NEVER)
        return;  // the end-of-run flush: no wait is open then
    if (frag_cost_ && t > frag_t_) {
        const uint64_t now[3] = {frag_slots_, frag_reg_units_, frag_smem_units_};
        uint64_t *sum[3] = {&frag_slot_ns_, &frag_reg_unit_ns_, &frag_smem_unit_ns_};
        for (int i = 0; i < 3; i++) {
            uint64_t ps = now[i] * (t - frag_t_) + frag_rem_ps_[i];
            *sum[i] += ps / GD_PS_PER_NS;
            frag_rem_ps_[i] = ps % GD_PS_PER_NS;
        }
    }
    frag_t_ = t;
}

gd_time_ps gpc2sm::next_retire() const
{
    gd_time_ps t = gd_cal_top_time(&calendar_);
    if (!releases_.empty() && releases_.top().first < t)
        t = releases_.top().first;
    return t;
}

// op::gpc_refill's check answered ahead (cwd_msg.hpp): what it would find for the
// selected cost as long as nothing changes the GPC.
inline void gpc2sm::hint(gpc_refill_hint &h) const
{
    h.ready = can_refill();
    h.held_ctas = held_ctas_;
    h.release = releases_.empty() ? GD_TIME_NEVER : releases_.top().first;
    h.first_ctas = 0;
    h.second = GD_TIME_NEVER;
    if (!h.ready || !gd_cal_size(&calendar_))
        return;
    const cta &c = ctas_[gd_cal_top(&calendar_)->key & 0xffff];
    if (c.refill && gd_cta_cost_equal(c.cost, &trk_.cost))
        h.first_ctas = c.chain_ctas;
    h.second = gd_cal_second_time(&calendar_);
}

// CTA-complete messages due by t give the resources back. A retirement may be handed
// over after its time while no launch decision depends on it (gpu2gpc.hpp); it only
// frees resources, so it references the kernel's descriptor, never the kernel's run
// record (which is recycled once the kernel has completed). GPC-CGAs whose flush is
// done by t give back their id and the GPC's counter.
uint64_t gpc2sm::retire(gd_time_ps t)
{
    account_wait(t);
    if (frag_cost_)
        account_fragment(t);
    uint64_t n = 0;
    while (gd_cal_size(&calendar_) && gd_cal_top(&calendar_)->time <= t) {
        uint32_t idx = (uint32_t)(gd_cal_top(&calendar_)->key & 0xffff);
        gd_cal_pop(&calendar_);
        do {  // the records that retire together
            cta &c = ctas_[idx];
            const uint32_t next = c.next;
            if (c.own_alloc) {
                count_pending(c);
                release_held();  // the SM's free slots are recounted from its resources
                gd_gpc_release(&trk_, (uint32_t)__builtin_ctzll(c.sms), c.cost, &alloc_[idx]);
                n++;
                free_.push_back(idx);
            } else if (c.even && gd_gpc_release_counted(&trk_, c.cost)) {
                gd_gpc_release_levels(&trk_, c.sms, c.count);  // the resources when needed
                n += ctas_in(c);  // (its CTAs counted on its SMs when it is given up)
                held_.push_back(idx);
                held_ctas_ += ctas_in(c);
            } else {
                count_pending(c);
                if (!gd_gpc_release_counted(&trk_, c.cost))
                    release_held();  // the SMs' free slots are recounted from their resources
                gd_gpc_release_mask(&trk_, c.sms, c.cost, c.count, c.sub_warps);
                n += ctas_in(c);
                free_.push_back(idx);
            }
            idx = next;
        } while (idx != none);
    }
    while (!releases_.empty() && releases_.top().first <= t) {
        gd_cga_ids_release(&ids_, releases_.top().second);
        releases_.pop();
        cgas_left_++;
    }
    retired_ += n;
    if (waiting_)
        wait_free_ = free_total();
    if (frag_cost_ && n)
        measure_fragment();
    return n;
}

// An SM mask: every CTA it names starts at b->at; as one GPC-CGA it holds a
// gpc_local_cga_id until its last CTA has ended and the shared memory is flushed.
uint32_t gpc2sm::take_record(const gd_cta_cost *cost, uint64_t sms, uint32_t count, bool own_alloc)
{
    if (__builtin_expect(free_.empty(), 0))
        grow_records();
    uint32_t idx = free_.back();
    free_.pop_back();
    cta &c = ctas_[idx];
    c.cost = cost;
    c.sms = sms;
    c.count = count;
    c.next = none;
    c.own_alloc = own_alloc;
    c.even = false;
    c.refill = false;
    c.pend_n = 0;
    c.pend_wd = 0;
    return idx;
}

void gpc2sm::release_held(uint64_t sms)
{
    size_t keep = 0;
    for (size_t i = 0; i < held_.size(); i++) {
        cta &c = ctas_[held_[i]];
        if (c.sms & sms) {
            count_pending(c);
            held_ctas_ -= ctas_in(c);
            gd_gpc_release_held(&trk_, c.sms, c.cost, c.count, c.sub_warps);
            free_.push_back(held_[i]);
        } else {
            held_[keep++] = held_[i];
        }
    }
    held_.resize(keep);
}

// Records that end at one time retire as one calendar entry: a launch step's records
// are chained while their end is the chain's (with uniform CTA times, all of them).
void gpc2sm::book(uint32_t idx, const gd_kernel_run *run, gd_time_ps end)
{
    if (chain_head_ != none && end != chain_end_)
        close_chain();
    if (chain_head_ == none) {
        chain_head_ = idx;
        chain_run_ = run;
        chain_end_ = end;
    } else {
        ctas_[chain_tail_].next = idx;
    }
    chain_tail_ = idx;
}

void gpc2sm::close_chain()
{
    if (chain_head_ == none)
        return;
    if (gd_cal_push(&calendar_, chain_run_, chain_end_, (seq_++ << 16) | chain_head_))
        throw std::bad_alloc();
    ctas_[chain_head_].refill = false;  // unless launch_mask says so
    last_head_ = chain_head_;
    chain_head_ = chain_tail_ = none;
}

// An SM mask: every CTA it names starts at b->at; as one GPC-CGA it holds a
// gpc_local_cga_id until its last CTA has ended and the shared memory is flushed.
// Under gpc2sm.group_ctas=on (counts only) the SMs that take the same number of CTAs,
// with the same registers per sub-partition and the same end, share one record, and
// the mask's records one calendar entry; off (or with placement state), each CTA has
// its own of both.
void gpc2sm::launch_mask(gpc_launch_body *b, sc_core::sc_time &delay)
{
    const gd_time_ps t = b->at;
    // The SMs that take CTAs, grouped by how many (the groups in the order of their
    // lowest SM): the lake's share of this GPC from its level masks, or the counts
    // per SM given.
    gd_lake_group grp[GD_MAX_SMS_PER_GPC];
    uint32_t ngrp = 0;
    uint64_t sms = 0;
    if (!b->take) {
        ngrp = gd_lake_gpc_groups(trk_.level, trk_.max_free, b->lake_level, b->lake_extra, grp);
        for (uint32_t r = 0; r < ngrp; r++)
            sms |= grp[r].sms;
    } else {
        uint32_t kmin = UINT32_MAX, kmax = 0;  // of the SMs that take CTAs
        for (uint32_t i = 0; i < trk_.nsm; i++) {  // without branches: most masks are a few SMs' counts
            const uint32_t k = b->take[i];
            sms |= (uint64_t)(k != 0) << i;
            kmax = k > kmax ? k : kmax;
            kmin = k && k < kmin ? k : kmin;
        }
        const bool uniform = kmin == kmax;  // every SM of the mask takes as many
        for (uint64_t left = sms; left;) {
            const uint32_t k = b->take[__builtin_ctzll(left)];
            uint64_t same = 0;
            if (uniform) {
                same = left;
            } else {
                for (uint64_t m = left; m; m &= m - 1)
                    if (b->take[__builtin_ctzll(m)] == k)
                        same |= m & -m;
            }
            left &= ~same;
            grp[ngrp++] = gd_lake_group{same, k};
        }
    }
    retire(t);
    b->end = 0;
    b->launched = 0;
    b->warp_ps = 0;
    const uint64_t base = b->run->ctas_launched;  // the kernel's CTAs launched before this mask
    const uint64_t seq0 = seq_;
    bool refillable = false;
    if (group_ && place_.empty()) {
        if (__builtin_expect(direct_.empty(), 0))
            ask_direct(delay);
        // Only the SMs' counters to update (sm_direct_launch on every SM), or a start on
        // each SM (by transaction where it needs more), which needs its record
        const bool counters_only = all_direct_ && !b->run->has_insn && !rasterize_ && !watch_;
        // 1. Resources, a record per group of SMs that take the same count with the same
        // registers per sub-partition (one group for most masks).
        uint32_t rec_of[GD_MAX_SMS_PER_GPC], recs[GD_MAX_SMS_PER_GPC], nrec = 0, k_of[GD_MAX_SMS_PER_GPC];
        for (uint32_t g = 0; g < ngrp; g++) {
            const uint64_t same = grp[g].sms;
            const uint32_t k = grp[g].count;
            if (!counters_only)
                for (uint64_t m = same; m; m &= m - 1)
                    k_of[__builtin_ctzll(m)] = k;
            // The CTAs of a record that retired here are placed again, as they were (a
            // wave refilling the slots the last one left: most launches of a busy GPU)
            size_t h = 0;
            while (h < held_.size() && !(ctas_[held_[h]].sms == same && ctas_[held_[h]].count == k &&
                                         gd_cta_cost_equal(ctas_[held_[h]].cost, b->cost)))
                h++;
            if (h < held_.size()) {
                const uint32_t idx = held_[h];
                held_ctas_ -= ctas_in(ctas_[idx]);
                held_[h] = held_.back();
                held_.pop_back();
                gd_gpc_place_levels(&trk_, same, k);
                cta &c = ctas_[idx];
                if (!counters_only)
                    count_pending(c);  // its SMs may leave it (an SM model's own end)
                c.cost = b->cost;
                c.next = none;
                recs[nrec++] = idx;
                if (!counters_only)
                    for (uint64_t m = same; m; m &= m - 1)
                        rec_of[__builtin_ctzll(m)] = idx;
                continue;
            }
            release_held(same);  // its SMs' resources as they are
            uint16_t sw[GD_MAX_SUBPARTITIONS] = {};
            const uint64_t even = gd_gpc_place_mask(&trk_, same, k, sw);
            if (even) {
                const uint32_t idx = take_record(b->cost, even, k, false);
                std::memcpy(ctas_[idx].sub_warps, sw, sizeof sw);
                ctas_[idx].even = true;
                recs[nrec++] = idx;
                if (!counters_only)
                    for (uint64_t m = even; m; m &= m - 1)
                        rec_of[__builtin_ctzll(m)] = idx;
            }
            for (uint64_t m = same & ~even; m; m &= m - 1) {  // CTA by CTA (gd_sm_res_take_n)
                const uint32_t i = (uint32_t)__builtin_ctzll(m), idx = take_record(b->cost, m & -m, k, false);
                std::memset(ctas_[idx].sub_warps, 0, sizeof ctas_[idx].sub_warps);
                gd_gpc_place_on_n(&trk_, i, k, ctas_[idx].sub_warps);
                recs[nrec++] = idx;
                rec_of[i] = idx;
            }
        }
        // 2. The SMs start their CTAs, in SM order. Every CTA of a dispatch runs the same
        // time (exec.h); an SM model that says otherwise gets a record of its own.
        const gd_time_ps expect = t + gd_cta_exec_time(b->run, t);
        uint32_t odd[GD_MAX_SMS_PER_GPC], nodd = 0;
        gd_time_ps odd_end[GD_MAX_SMS_PER_GPC];
        if (counters_only) {
            // counted on the records' SMs when the records are given up (count_pending)
            const uint64_t wd = (uint64_t)b->cost->warps * (expect - t);
            uint64_t launched = 0;
            for (uint32_t r = 0; r < nrec; r++) {
                cta &c = ctas_[recs[r]];
                if (__builtin_expect(c.pend_n == UINT32_MAX, 0))
                    count_pending(c);
                c.pend_n++;
                c.pend_wd += wd;
                launched += ctas_in(c);
            }
            b->launched += launched;
            b->warp_ps += wd * launched;
            if (expect > b->end)
                b->end = expect;
        } else {
            for (uint64_t m = sms; m; m &= m - 1) {
                const uint32_t i = (uint32_t)__builtin_ctzll(m), k = k_of[i], idx = rec_of[i];
                sm_launch_body sb{t, b->run, b->cost, 0, ctas_[idx].sub_warps, k};
                start_on(i, sb, delay);
                if (__builtin_expect(sb.end != expect, 0)) {
                    const uint32_t own = take_record(b->cost, m & -m, k, false);
                    std::memcpy(ctas_[own].sub_warps, ctas_[idx].sub_warps, sizeof ctas_[own].sub_warps);
                    ctas_[idx].sms &= ~(m & -m);
                    odd[nodd] = own;
                    odd_end[nodd++] = sb.end;
                }
                launched_on(b, i, k, sb.end, base);
                if (sb.end > b->end)
                    b->end = sb.end;
                b->warp_ps += (uint64_t)b->cost->warps * (sb.end - t) * k;
            }
        }
        // 3. The calendar: the records in one entry per end.
        for (uint32_t r = 0; r < nrec; r++) {
            if (ctas_[recs[r]].sms)
                book(recs[r], b->run, expect);
            else
                free_.push_back(recs[r]);
        }
        for (uint32_t r = 0; r < nodd; r++)
            book(odd[r], b->run, odd_end[r]);
        refillable = counters_only && !nodd && !b->cga && nrec;
        for (uint32_t r = 0; r < nrec && refillable; r++)
            refillable = ctas_[recs[r]].even;
    } else {
        release_held();  // the placement reads the SMs' resources
        const uint32_t nsub = trk_.res[0].nsub < GD_MAX_SUBPARTITIONS ? trk_.res[0].nsub : GD_MAX_SUBPARTITIONS;
        uint32_t k_of[GD_MAX_SMS_PER_GPC] = {};
        for (uint32_t g = 0; g < ngrp; g++)
            for (uint64_t m = grp[g].sms; m; m &= m - 1)
                k_of[__builtin_ctzll(m)] = grp[g].count;
        for (uint32_t i = 0; i < trk_.nsm; i++) {
            for (uint32_t r = 0; r < k_of[i]; r++) {
                uint32_t idx = take_record(b->cost, 1ull << i, 1, true);
                cta &c = ctas_[idx];
                std::memset(c.sub_warps, 0, sizeof c.sub_warps);
                gd_gpc_place_on(&trk_, i, &alloc_[idx]);
                for (uint32_t s = 0; s < nsub; s++)
                    c.sub_warps[s] = alloc_[idx].warps_in_sub[s];
                sm_launch_body sb{t, b->run, c.cost, 0, c.sub_warps, 1};
                start_on(i, sb, delay);
                if (group_) {
                    book(idx, b->run, sb.end);
                } else if (gd_cal_push(&calendar_, b->run, sb.end, (seq_++ << 16) | idx)) {
                    throw std::bad_alloc();
                }
                launched_on(b, i, 1, sb.end, base);
                if (sb.end > b->end)
                    b->end = sb.end;
                b->warp_ps += (uint64_t)c.cost->warps * (sb.end - t);
            }
        }
    }
    close_chain();
    if (refillable && seq_ == seq0 + 1) {  // one calendar entry of even records
        ctas_[last_head_].refill = true;
        ctas_[last_head_].chain_ctas = b->launched;
    }
    launched_ += b->launched;
    uint64_t resident = launched_ - retired_;
    if (resident > peak_resident_)
        peak_resident_ = resident;
    if (b->cga) {
        uint32_t id = gd_cga_ids_take(&ids_);
        if (id == UINT32_MAX || !cgas_left_)
            SC_REPORT_ERROR("gdsim/gpc2sm", "internal: a GPC-CGA launched without a free gpc_local_cga_id");
        cgas_left_--;
        cgas_++;
        releases_.push({b->end + flush_ps_, id});
    }
    if (waiting_)
        wait_free_ = free_total();
    answer(b);
}

// A GPU whose free slots are those its retired CTAs left refills them (gpu2gpc.hpp): the
// CTAs due by b->t retire and as many CTAs of b->run as they and the held records
// (retired earlier) leave start at b->at on the same SMs. That is what retire(b->t) and
// a launch_mask of the lake's share would do: the lake gives each SM the free slots its
// retired CTAs leave (counted slots of one cost add up), which a launch_mask takes back
// from the held records (or places evenly again: the same resources). So the records
// stay where they are (the held ones are placed again as they are), in one chain with
// the new end, and count the new CTAs for their SMs (the SMs' counters get them when the
// records are given up, as a launch_mask of counters only does: count_pending).
void gpc2sm::refill(gpc_refill_body *b)
{
    if (b->check) {
        // each entry due by t is a chain of even, counted records of the kernel's cost,
        // which a launch_mask of counters only would start again (what is due after t,
        // by `at`, retires as launch_mask's retire(at) would retire it), and the GPC's
        // free slots are those of its held records (retired, of the selected cost: each
        // has its free slots back, no placement came on its SMs since)
        enum { max_due = 16 };
        gd_cal_item due[max_due];
        const uint32_t n = gd_cal_due(&calendar_, b->t, due, max_due);
        b->ok = n <= max_due && can_refill() && !b->run->has_insn && gd_cta_cost_equal(b->cost, &trk_.cost) &&
                (releases_.empty() || releases_.top().first > b->at);
        b->ctas = 0;
        for (uint32_t i = 0; i < n && b->ok; i++) {
            const cta &h = ctas_[due[i].key & 0xffff];
            b->ok = h.refill && gd_cta_cost_equal(h.cost, b->cost);
            for (uint32_t idx = due[i].key & 0xffff; idx != none && b->ok; idx = ctas_[idx].next)
                b->ctas += ctas_in(ctas_[idx]);
        }
        // (held records are of the selected cost: selecting another gives them back)
        b->ok = b->ok && free_held() && b->ctas + held_ctas_;
        b->ctas += held_ctas_;
        return;
    }
    // retire(t): the chains' CTAs (their free slots and resources stay where they are)
    account_wait(b->t);
    uint32_t head = none, tail = none;
    uint64_t n = 0;
    while (gd_cal_size(&calendar_) && gd_cal_top(&calendar_)->time <= b->t) {
        const uint32_t first = (uint32_t)(gd_cal_top(&calendar_)->key & 0xffff);
        if (!ctas_[first].refill || !gd_cta_cost_equal(ctas_[first].cost, b->cost))
            SC_REPORT_ERROR("gdsim/gpc2sm", "internal: a refill of CTAs that a refill cannot take back");
        gd_cal_pop(&calendar_);
        if (head == none)
            head = first;
        else
            ctas_[tail].next = first;
        n += ctas_[first].chain_ctas;  // (a refill chain's first record counts them)
        for (tail = first; ctas_[tail].next != none;)
            tail = ctas_[tail].next;
    }
    retired_ += n;
    if (waiting_)
        wait_free_ = free_total();
    // the held records are placed again as they are (the lake gives their SMs their free
    // slots; a launch_mask takes them back, or places evenly again: the same resources)
    const uint64_t launched = n + held_ctas_;
    for (const uint32_t idx : held_) {
        cta &c = ctas_[idx];
        gd_gpc_place_levels(&trk_, c.sms, c.count);
        c.next = none;
        if (head == none)
            head = idx;
        else
            ctas_[tail].next = idx;
        tail = idx;
    }
    held_.clear();
    held_ctas_ = 0;
    // launch_mask at `at`: its retire(at) retires what else ends by then (the counted free
    // slots of an SM add up, so it finds them as it would with these CTAs placed again)
    const gd_time_ps at = b->at;
    if ((gd_cal_size(&calendar_) && gd_cal_top(&calendar_)->time <= at) || !releases_.empty())
        retire(at);
    else
        account_wait(at);  // all that retire(at) would do
    const gd_time_ps end = at + gd_cta_exec_time(b->run, at);
    const uint64_t wd = (uint64_t)b->cost->warps * (end - at);
    for (uint32_t idx = head; idx != none; idx = ctas_[idx].next) {
        cta &c = ctas_[idx];
        c.cost = b->cost;
        if (c.pend_n == UINT32_MAX)
            count_pending(c);
        c.pend_n++;  // counted on its SMs when the record is given up (count_pending)
        c.pend_wd += wd;
    }
    if (gd_cal_push(&calendar_, b->run, end, (seq_++ << 16) | head))
        throw std::bad_alloc();
    ctas_[head].refill = true;
    ctas_[head].chain_ctas = launched;
    b->end = end;
    b->launched = (uint32_t)launched;
    b->warp_ps = wd * launched;
    launched_ += launched;
    uint64_t resident = launched_ - retired_;
    if (resident > peak_resident_)
        peak_resident_ = resident;
    if (waiting_)
        wait_free_ = free_total();
    answer(b);
}

// count CTAs of b's mask started on SM sm and end at end: counted, and their ids
// rasterized (and logged) when asked for.
void gpc2sm::launched_on(gpc_launch_body *b, uint32_t sm, uint32_t count, gd_time_ps end, uint64_t base)
{
    const gd_time_ps t = b->at;
    if (watch_)
        watch_->launched(b->run, gpc_, first_sm_ + sm, count, b->cost->warps, t, end);
    if (!rasterize_) {
        b->launched += count;
        return;
    }
    for (uint32_t j = 0; j < count; j++, b->launched++) {
        if (b->cga)
            note_cta(sm, b->run, b->cga_seq, b->launched, t, end);
        else  // a split CTA's sub-workgroups all carry its id
            note_cta(sm, b->run, base + (b->sub ? 0 : b->launched), 0, t, end);
    }
}

// Records are made as CTAs need them, doubling, up to one per CTA slot of the GPC (a
// GPU of thousands of SMs would otherwise set up records it never uses); the unused
// indices are handed out lowest first, as a list made up front would.
void gpc2sm::grow_records()
{
    const size_t old = ctas_.size(), n = std::min<size_t>(old ? 2 * old : 64, records_max_);
    if (n <= old)
        SC_REPORT_FATAL("gdsim/gpc2sm", "internal: more CTA records than the GPC's CTA slots");
    ctas_.resize(n);
    alloc_.resize(n);
    for (size_t i = n; i-- > old;)
        free_.push_back((uint32_t)i);
}

void gpc2sm::ask_direct(sc_core::sc_time &delay)
{
    direct_.resize(sm_out.size());
    for (size_t i = 0; i < sm_out.size(); i++) {
        sm_direct d;
        if (ch_.try_call(*sm_out[i], op::sm_direct, &d, delay) && d.counters)
            direct_[i] = d;  // otherwise (an SM that offers none) every start is a transaction
    }
    all_direct_ = std::none_of(direct_.begin(), direct_.end(), [](const sm_direct &d) { return d.slow; });
    // (the selected cost is any: a refill's is the selected one)
    refill_ready_ = group_ && place_.empty() && all_direct_ && !direct_.empty() && !rasterize_ && !watch_ &&
                    gd_gpc_release_counted(&trk_, &trk_.cost);
}

void gpc2sm::step(gpc_step_body *b, sc_core::sc_time &delay)
{
    const gd_time_ps t = b->at;  // == sc_time_stamp() + delay
    // 1. CTA-complete messages (and GPC-CGA releases) due by t.
    b->retired = retire(t);
    if (t == GD_TIME_NEVER)  // the end-of-run flush: the held records' CTAs are counted on their SMs
        for (const uint32_t idx : held_)
            count_pending(ctas_[idx]);
    // 2. Launch one CTA of the selected kernel on the SM with the most free slots.
    b->launched = false;
    uint32_t mf = trk_.max_free;
    if (b->launch && mf > 0 &&
        (!b->conditional || mf > b->beat_free || (mf == b->beat_free && b->gpc < b->beat_gpc))) {
        release_held();  // the placement reads the SMs' resources
        uint32_t idx = take_record(&b->launch->desc->occ.cost, 0, 1, true);
        cta &c = ctas_[idx];
        const uint32_t sm = gd_gpc_place(&trk_, &alloc_[idx]);
        c.sms = 1ull << sm;
        for (uint32_t s = 0; s < GD_MAX_SUBPARTITIONS; s++)
            c.sub_warps[s] = alloc_[idx].warps_in_sub[s];
        sm_launch_body sb{t, b->launch, c.cost, 0, c.sub_warps, 1};
        start_on(sm, sb, delay);
        if (gd_cal_push(&calendar_, b->launch, sb.end, (seq_++ << 16) | idx))
            throw std::bad_alloc();
        if (watch_)
            watch_->launched(b->launch, gpc_, first_sm_ + sm, 1, c.cost->warps, t, sb.end);
        if (rasterize_) {  // the prior art numbers CTAs in launch order, clusters or not
            const gd_cluster &cl = b->launch->cluster;
            uint64_t per = (uint64_t)cl.dim[0] * cl.dim[1] * cl.dim[2], n = b->launch->ctas_launched;
            note_cta(sm, b->launch, n / per, (uint32_t)(n % per), t, sb.end);
        }
        launched_++;
        uint64_t resident = launched_ - retired_;
        if (resident > peak_resident_)
            peak_resident_ = resident;
        b->launched = true;
        b->sm = sm;
        b->end = sb.end;
    }
    answer(b);
}

}  // namespace gd
