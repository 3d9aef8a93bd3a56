// gpc2sm.hpp - the GPC2SM work distributor of one GPC: places CTAs on the GPC's
// SMs (the SM with the most free slots, cwd.h) and keeps the GPC's retirement
// calendar of CTA-complete messages.
#ifndef GD_GPC2SM_HPP
#define GD_GPC2SM_HPP

#include <memory>
#include <queue>
#include <utility>
#include <vector>

#include <systemc>
#include <tlm>
#include <tlm_utils/simple_initiator_socket.h>

#include "alloc.h"
#include "calendar.h"
#include "cga.h"
#include "cta_log.h"
#include "cwd.h"
#include "cwd_msg.hpp"
#include "gd_msg.hpp"
#include "sm_msg.hpp"
#include "stats.h"

namespace gd {

// An observer of every group of CTAs a GPC starts (the occupancy series, the timeline):
// on SM sm (global index) of GPC gpc, ctas CTAs of kernel k, of warps warps each, run
// from start to end. Called in order of start time across the GPU.
struct launch_watcher {
    virtual void launched(const gd_kernel_run *k, uint32_t gpc, uint32_t sm, uint32_t ctas, uint32_t warps,
                          gd_time_ps start, gd_time_ps end) = 0;

protected:
    ~launch_watcher() = default;
};

class gpc2sm : public sc_core::sc_module, public fw_target, private direct_if {
public:
    tlm::tlm_target_socket<> cwd_in;  // from the GPU2GPC distributor
    std::vector<std::unique_ptr<tlm_utils::simple_initiator_socket<gpc2sm>>> sm_out;  // one per SM

    // gpc: this GPC's index; first_sm: the global index of its SM 0; cta_log, watch: may be null.
    gpc2sm(sc_core::sc_module_name name, uint32_t gpc, uint32_t first_sm, uint32_t nsm, const gd_config &cfg,
           gd_stats *stats, gd_cta_log *cta_log = nullptr, launch_watcher *watch = nullptr);
    ~gpc2sm() override;

private:
    // A record of resident CTAs: count CTAs of one launch step on each SM of sms (bit i:
    // SM i), whose registers went to the same sub-partitions on each, chained (next) to
    // the records that retire with it in one calendar entry. Under gpc2sm.group_ctas=off
    // or with placement state, one CTA on one SM with its own allocation (own_alloc).
    // A record fills one cache line (a GPU of thousands of SMs touches one per GPC and
    // operation); a CTA with its own allocation keeps it in alloc_ at the same index.
    struct alignas(64) cta {
        const gd_cta_cost *cost;  // the kernel descriptor's (lives for the whole replay)
        uint64_t sms;
        uint64_t chain_ctas;      // a refill chain's first record (refill): the chain's CTAs
        // Starts by masks of counters only and refills not yet counted on the SMs (the
        // counters are read once the replay is done): how many, and the sum of their warps x
        // time per CTA. Counted when the record is given up (count_pending: it retires and
        // frees its resources, a held record is released, the end-of-run flush) or before a
        // start that may change its SMs.
        uint64_t pend_wd;
        uint32_t pend_n;
        uint32_t count, next;
        bool own_alloc;           // a CTA with its own allocation (alloc_)
        bool even;                // placed by gd_gpc_place_mask: the same registers on each sub-partition
        bool refill;              // a chain's first record: every record of the chain is even, counted
                                  // CTAs of one cost (op::gpc_refill may start them again as they are)
        uint16_t sub_warps[GD_MAX_SUBPARTITIONS];  // warps per register sub-partition, all count CTAs of one SM
    };
    static_assert(sizeof(cta) == 64, "a CTA record is one cache line");
    static uint64_t ctas_in(const cta &c) { return (uint64_t)c.count * gd_popcount64(c.sms); }
    void count_pending(cta &c)  // (nothing when none is pending)
    {
        if (!c.pend_n)
            return;
        for (uint64_t m = c.sms; m; m &= m - 1)
            direct_[__builtin_ctzll(m)].counters->add_sum((uint64_t)c.count * c.pend_n, c.count * c.pend_wd);
        c.pend_n = 0;
        c.pend_wd = 0;
    }
    static constexpr uint32_t none = UINT32_MAX;
    uint32_t take_record(const gd_cta_cost *cost, uint64_t sms, uint32_t count, bool own_alloc);
    void launched_on(gpc_launch_body *b, uint32_t sm, uint32_t count, gd_time_ps end, uint64_t base);
    void book(uint32_t idx, const gd_kernel_run *run, gd_time_ps end);  // into the open chain
    void close_chain();                                              // its calendar entry

    void b_transport(tlm::tlm_generic_payload &p, sc_core::sc_time &delay) override;
    // the direct transport, asked for through TLM-2.0's DMI interface (op::direct)
    bool get_direct_mem_ptr(tlm::tlm_generic_payload &p, tlm::tlm_dmi &) override
    {
        return channel::grant_direct(p, this);
    }
    // every operation, from b_transport or the direct transport it grants (op::direct)
    bool transport(op_code code, void *body, sc_core::sc_time &delay) override;
    void prefetch() const override
    {
        const char *h = reinterpret_cast<const char *>(&calendar_);
        __builtin_prefetch(h);
        __builtin_prefetch(h + 64);
        __builtin_prefetch(h + 128);
        __builtin_prefetch(h + 192);
        __builtin_prefetch(&trk_.max_free);
    }
    void step(gpc_step_body *b, sc_core::sc_time &delay);
    uint64_t retire(gd_time_ps t);                       // CTA-complete messages and CGA releases due by t
    [[gnu::noinline]] void launch_mask(gpc_launch_body *b, sc_core::sc_time &delay);  // out of line: the transport switch stays small
    [[gnu::noinline]] void refill(gpc_refill_body *b);   // op::gpc_refill
    void account_wait(gd_time_ps t);                     // stranded free slots while a CGA waits
    void account_fragment(gd_time_ps t);                 // stranded by fragmentation while a CTA waits
    void measure_fragment();
    // A CTA's ids (seed 003 [0172]-[0191], [0228]): the SM rasterizes the position of its
    // CGA (unit) in the grid of CGAs from the launch sequence; cga_cta_id is the CTA's
    // index inside it. Logged and/or checked against the direct computation.
    void note_cta(uint32_t sm, const gd_kernel_run *k, uint64_t unit, uint32_t cga_cta_id, gd_time_ps at,
                  gd_time_ps end);
    gd_time_ps next_retire() const;
    void hint(gpc_refill_hint &h) const;
    template <class Answer>  // what an operation answers about the GPC (gpc_step, gpc_launch, gpc_refill)
    void answer(Answer *b) const
    {
        b->max_free = trk_.max_free;
        b->next_retire = next_retire();
        b->free_held = free_held();
        hint(b->hint);
    }
    uint32_t free_total() const;

    alignas(64) gd_gpc_tracker trk_;  // each SM's gd_sm_res in one cache line

    // What every retirement, launch and refill reads or writes, side by side (a few cache
    // lines: a GPU of thousands of SMs finds few of its GPCs in the cache).
    alignas(64) gd_calendar calendar_;  // CTA-complete messages: (end time, seq << 16 | first record's index)
    std::vector<cta> ctas_;       // records of resident CTAs, indexed by the calendar key's low bits
    std::vector<uint32_t> free_;  // unused indices of ctas_
    // Records whose CTAs retired and gave their free slots back (gd_gpc_release_levels)
    // while the SMs' resource counts still hold them: a launch of the same CTAs on the
    // same SMs takes them back as they are (gd_gpc_place_levels); anything that reads
    // the resources first gives them back (release_held).
    std::vector<uint32_t> held_;
    uint64_t held_ctas_ = 0;          // their CTAs
    uint64_t seq_ = 0;
    uint64_t launched_ = 0, retired_ = 0, peak_resident_ = 0;
    const gd_kernel_run *chain_run_ = nullptr;
    gd_time_ps chain_end_ = 0;
    uint32_t chain_head_ = none, chain_tail_ = none;
    uint32_t last_head_ = none;   // the first record of the last chain closed
    const bool group_;            // gpc2sm.group_ctas=on
    const bool rasterize_;        // CTA ids are rasterized (a CTA log, cwd.raster_check)
    bool all_direct_ = false;     // every SM granted the interface and needs nothing else
    bool refill_ready_ = false;   // ... and nothing that a refill cannot do is asked of the GPC
    bool waiting_ = false;        // a CGA waits for room (account_wait)
    gd_time_ps wait_t_ = 0;
    uint64_t wait_free_ = 0;
    // sm.alloc=contiguous: while a CTA (of frag_cost_) waits for contiguous room, the SMs where
    // the counted rules fit it strand their free slots and units
    const gd_cta_cost *frag_cost_ = nullptr;
    // Each SM's direct interface (sm_msg.hpp), asked for at the first CTA start: CTAs
    // that need only the SM's counters start without a transaction.
    std::vector<sm_direct> direct_;
    std::vector<gd_sm_place> place_;     // per SM, when placed (gd_alloc_cfg_placed)
    std::priority_queue<std::pair<gd_time_ps, uint32_t>, std::vector<std::pair<gd_time_ps, uint32_t>>,
                        std::greater<std::pair<gd_time_ps, uint32_t>>> releases_;  // GPC-CGAs: (flush done, id)
    launch_watcher *watch_;

    std::vector<gd_cta_alloc> alloc_;  // beside ctas_: a record's own allocation (own_alloc)
    uint32_t records_max_;        // at most one per CTA slot
    void grow_records();
    gd_alloc_cfg alloc_cfg_;             // sm.alloc, sm.wave_placement, the block finder
    gd_time_ps frag_t_ = 0;
    uint64_t frag_slots_ = 0, frag_reg_units_ = 0, frag_smem_units_ = 0;   // now
    uint64_t frag_slot_ns_ = 0, frag_reg_unit_ns_ = 0, frag_smem_unit_ns_ = 0, frag_rem_ps_[3] = {0, 0, 0};
    bool free_held() const { return trk_.free_total == held_ctas_; }  // every free slot is a held record's
    void release_held(uint64_t sms);  // those on any SM of sms
    void release_held() { if (!held_.empty()) release_held(~0ull); }
    channel ch_;
    void start_on(uint32_t sm, sm_launch_body &sb, sc_core::sc_time &delay)
    {
        if (__builtin_expect(direct_.empty(), 0))
            ask_direct(delay);
        if (!sm_direct_launch(direct_[sm], sb))
            ch_.call(*sm_out[sm], op::sm_launch, &sb, delay);
    }
    void ask_direct(sc_core::sc_time &delay);
    bool can_refill() const { return refill_ready_ && !frag_cost_; }  // (nor is a CTA waiting for contiguous room)
    // cwd.policy=cga: GPC-CGA bookkeeping (seed 003 [0211], [0227], [0231]-[0233])
    const uint32_t sms_per_tpc_, scan_limit_;
    const gd_time_ps flush_ps_;
    uint32_t cgas_left_;                                  // GPC-CGAs it may still take
    gd_cga_ids ids_;                                      // gpc_local_cga_id free list
    uint64_t cgas_ = 0, failed_queries_ = 0, stranded_slot_ns_ = 0, stranded_rem_ps_ = 0;
    // CTA ids: per SM, the kernel it last rasterized for, its position and launch count
    struct sm_raster {
        uint64_t kernel = UINT64_MAX;
        gd_raster r;
        uint64_t unit = 0;
    };
    const uint32_t gpc_, first_sm_;
    gd_cta_log *log_;
    const bool check_;
    std::vector<sm_raster> raster_;
};

}  // namespace gd

#endif
