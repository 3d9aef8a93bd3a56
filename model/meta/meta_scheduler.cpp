#include "meta_scheduler.hpp"

#include "exec.h"

#include <cinttypes>
#include <cstring>
#include <new>
#include <string>

namespace gd {

const char META_LOG_HEADER[] = "time_ns,pipeline,event,kernel,buffer,items,fill\n";

namespace {

int policy_cfg(const char *s)
{
    return std::strcmp(s, "topology") == 0 ? -1 : gd_meta_policy_parse(s);
}

int concurrency_of(const char *s)
{
    if (!std::strcmp(s, "parallel"))
        return GD_META_PARALLEL;
    if (!std::strcmp(s, "sequential"))
        return GD_META_SEQUENTIAL;
    return GD_META_AUTO;
}

// Statistics per pipeline, kernel and buffer (times in ps).
const char *const KSTAT[] = {"launches", "ctas", "items", "busy", "waiting", "latency"};
const char *const KSTAT_DESC[] = {"launches of the kernel", "CTAs launched", "items consumed (from each input)",
                                  "time with a launch in flight", "time with a CTA's items but nothing running",
                                  "sum over launches of the time from its items being ready to its launch"};
const char *const KSTAT_UNIT[] = {"launches", "CTAs", "items", "ps", "ps", "ps"};
const char *const BSTAT[] = {"length", "initial", "written", "consumed", "left", "max_fill", "fill_integral",
                             "full", "empty"};
const char *const BSTAT_DESC[] = {"entries in force", "items the host wrote before the pipeline started",
                                  "items kernels wrote", "items kernels consumed", "items left at the end",
                                  "most items it held", "integral of its fill over time (items x ns)",
                                  "time a producer with items waited for room in it",
                                  "time a consumer that could still run waited for items in it"};
const char *const BSTAT_UNIT[] = {"entries", "items", "items", "items", "items", "items", "items x ns", "ps", "ps"};
const char *const PSTAT[] = {"span", "launches", "rounds", "ctas", "items_in", "items_left"};
const char *const PSTAT_DESC[] = {"from the packet's dispatch to its last launch's end", "launches issued",
                                  "decision rounds", "CTAs launched", "items the host wrote into its buffers",
                                  "items left in its buffers at the end"};
const char *const PSTAT_UNIT[] = {"ps", "launches", "rounds", "CTAs", "items", "items"};
constexpr size_t NK = sizeof KSTAT / sizeof *KSTAT, NB = sizeof BSTAT / sizeof *BSTAT,
                 NP = sizeof PSTAT / sizeof *PSTAT;

// a pipeline's block: "meta_scheduler.pN[:NAME]" (its kernels' and buffers' blocks add "/kernel/K", "/buffer/B")
bool is_pipeline_block(const char *b) { return !std::strncmp(b, "meta_scheduler.p", 16) && !std::strchr(b, '/'); }

template <typename Fn>
void each_block(const gd_stats *st, const std::string &prefix, const char *first, Fn fn)
{
    for (size_t i = 0; i < st->n; i++)
        if (!std::strncmp(st->v[i].block, prefix.c_str(), prefix.size()) && !std::strcmp(st->v[i].name, first))
            fn(st->v[i].block, st->v[i].block + prefix.size());
}

double us(uint64_t ps) { return (double)ps / 1e6; }

void meta_text(FILE *f, const gd_section_ctx *c)
{
    const gd_stats *st = c->stats;
    for (size_t i = 0; i < st->n; i++) {
        const char *p = st->v[i].block;
        if (!is_pipeline_block(p) || std::strcmp(st->v[i].name, "span"))
            continue;
        std::fprintf(f, "  pipeline %-10s span %.3f us, %" PRIu64 " launches (%" PRIu64 " CTAs) in %" PRIu64
                        " rounds; items %" PRIu64 " in, %" PRIu64 " left\n",
                     p + 15, us(gd_stats_get(st, p, "span")), gd_stats_get(st, p, "launches"),
                     gd_stats_get(st, p, "ctas"), gd_stats_get(st, p, "rounds"), gd_stats_get(st, p, "items_in"),
                     gd_stats_get(st, p, "items_left"));
        std::fprintf(f, "    %-14s %9s %9s %11s %10s %10s %11s\n", "kernel", "launches", "CTAs", "items", "busy us",
                     "wait us", "latency us");
        each_block(st, std::string(p) + "/kernel/", "launches", [&](const char *b, const char *name) {
            uint64_t n = gd_stats_get(st, b, "launches");
            std::fprintf(f, "    %-14s %9" PRIu64 " %9" PRIu64 " %11" PRIu64 " %10.3f %10.3f %11.3f\n", name, n,
                         gd_stats_get(st, b, "ctas"), gd_stats_get(st, b, "items"), us(gd_stats_get(st, b, "busy")),
                         us(gd_stats_get(st, b, "waiting")), n ? us(gd_stats_get(st, b, "latency")) / (double)n : 0.0);
        });
        double span_ns = (double)gd_stats_get(st, p, "span") / GD_PS_PER_NS;
        std::fprintf(f, "    %-14s %9s %9s %9s %9s %10s %9s %10s %10s\n", "buffer", "entries", "written", "consumed",
                     "left", "mean fill", "max fill", "full us", "empty us");
        each_block(st, std::string(p) + "/buffer/", "length", [&](const char *b, const char *name) {
            std::fprintf(f, "    %-14s %9" PRIu64 " %9" PRIu64 " %9" PRIu64 " %9" PRIu64 " %10.2f %9" PRIu64
                            " %10.3f %10.3f\n",
                         name, gd_stats_get(st, b, "length"), gd_stats_get(st, b, "written"),
                         gd_stats_get(st, b, "consumed"), gd_stats_get(st, b, "left"),
                         span_ns > 0 ? (double)gd_stats_get(st, b, "fill_integral") / span_ns : 0.0,
                         gd_stats_get(st, b, "max_fill"), us(gd_stats_get(st, b, "full")),
                         us(gd_stats_get(st, b, "empty")));
        });
    }
}

void meta_json(FILE *f, const gd_section_ctx *c)
{
    const gd_stats *st = c->stats;
    unsigned np = 0;
    for (size_t i = 0; i < st->n; i++) {
        const char *p = st->v[i].block;
        if (!is_pipeline_block(p) || std::strcmp(st->v[i].name, "span"))
            continue;
        std::fprintf(f, "%s\n    {\"name\": ", np++ ? "," : "  \"meta\": {\"pipelines\": [");
        gd_json_str(f, p + 15);
        std::fprintf(f, ", \"span_ns\": %.3f, \"launches\": %" PRIu64 ", \"rounds\": %" PRIu64 ", \"ctas\": %" PRIu64
                        ", \"items_in\": %" PRIu64 ", \"items_left\": %" PRIu64 ", \"kernels\": [",
                     gd_stats_get(st, p, "span") / 1000.0, gd_stats_get(st, p, "launches"),
                     gd_stats_get(st, p, "rounds"), gd_stats_get(st, p, "ctas"), gd_stats_get(st, p, "items_in"),
                     gd_stats_get(st, p, "items_left"));
        unsigned n = 0;
        each_block(st, std::string(p) + "/kernel/", "launches", [&](const char *b, const char *name) {
            uint64_t l = gd_stats_get(st, b, "launches");
            std::fprintf(f, "%s\n      {\"name\": ", n++ ? "," : "");
            gd_json_str(f, name);
            std::fprintf(f, ", \"launches\": %" PRIu64 ", \"ctas\": %" PRIu64 ", \"items\": %" PRIu64
                            ", \"busy_ns\": %.3f, \"waiting_ns\": %.3f, \"mean_launch_latency_ns\": %.3f}",
                         l, gd_stats_get(st, b, "ctas"), gd_stats_get(st, b, "items"),
                         gd_stats_get(st, b, "busy") / 1000.0, gd_stats_get(st, b, "waiting") / 1000.0,
                         l ? gd_stats_get(st, b, "latency") / 1000.0 / (double)l : 0.0);
        });
        std::fprintf(f, "], \"buffers\": [");
        double span_ns = (double)gd_stats_get(st, p, "span") / GD_PS_PER_NS;
        n = 0;
        each_block(st, std::string(p) + "/buffer/", "length", [&](const char *b, const char *name) {
            std::fprintf(f, "%s\n      {\"name\": ", n++ ? "," : "");
            gd_json_str(f, name);
            std::fprintf(f, ", \"length\": %" PRIu64 ", \"initial\": %" PRIu64 ", \"written\": %" PRIu64
                            ", \"consumed\": %" PRIu64 ", \"left\": %" PRIu64 ", \"mean_fill\": %.6f, \"max_fill\": %"
                            PRIu64 ", \"full_ns\": %.3f, \"empty_ns\": %.3f}",
                         gd_stats_get(st, b, "length"), gd_stats_get(st, b, "initial"), gd_stats_get(st, b, "written"),
                         gd_stats_get(st, b, "consumed"), gd_stats_get(st, b, "left"),
                         span_ns > 0 ? (double)gd_stats_get(st, b, "fill_integral") / span_ns : 0.0,
                         gd_stats_get(st, b, "max_fill"), gd_stats_get(st, b, "full") / 1000.0,
                         gd_stats_get(st, b, "empty") / 1000.0);
        });
        std::fprintf(f, "]}");
    }
    if (np)
        std::fprintf(f, "\n  ]},\n");
}

}  // namespace

meta_scheduler::meta_scheduler(sc_core::sc_module_name name, const gd_config &cfg, gd_stats *stats, std::FILE *log,
                               gd_err *err, const char *source, domain *dom)
    : sc_module(name),
      cs_in("cs_in"),
      cwd_out("cwd_out"),
      done_in("done_in"),
      cs_out("cs_out"),
      stats_(stats),
      err_(err),
      source_(source ? source : "trace"),
      log_(log),
      policy_cfg_(policy_cfg(cfg.meta_policy)), cta_time_ppm_(cfg.sm_cta_time_ppm),
      check_ps_(gd_cycles_to_ps(cfg.meta_check_cycles, cfg.clock_mhz)),
      launch_ps_(gd_cycles_to_ps(cfg.meta_launch_cycles, cfg.clock_mhz)),
      sm_(cfg.sm),
      dom_(dom),
      wake_(*dom_, this, &domain::call<meta_scheduler, &meta_scheduler::wake>)
{
    std::memset(&params_, 0, sizeof params_);
    params_.simd_width = cfg.meta_simd_width ? cfg.meta_simd_width : cfg.sm.warp_size;
    params_.protect = std::strcmp(cfg.meta_protect_important, "on") == 0;
    params_.debug = std::strcmp(cfg.meta_debug, "on") == 0;
    params_.concurrency = (uint8_t)concurrency_of(cfg.meta_concurrency);
    params_.sms = cfg.sms;
    params_.launch_ctas = cfg.meta_launch_ctas;
    cs_in.register_b_transport(this, &meta_scheduler::dispatch_bt);
    done_in.register_b_transport(this, &meta_scheduler::done_bt);
    cs_in.register_get_direct_mem_ptr(this, &meta_scheduler::dispatch_dmi);  // their direct transports
    done_in.register_get_direct_mem_ptr(this, &meta_scheduler::done_dmi);
    if (stats && gd_stats_add_section(stats, basename(), meta_text, meta_json))
        throw std::bad_alloc();
}

meta_scheduler::~meta_scheduler() { gd_run_pool_destroy(&pool_); }

void meta_scheduler::log_event(void *ctx, gd_time_ps t, int ev, uint32_t k, int b, uint64_t items, uint64_t fill)
{
    auto *self = static_cast<meta_scheduler *>(ctx);
    const pipe &p = *self->pipes_[self->log_pipe_];
    const gd_topology *topo = p.m.t;
    char tn[32];
    gd_format_ns(tn, sizeof tn, 0, t);
    int rc;
    if (b < 0)
        rc = std::fprintf(self->log_, "%s,%u,%s,%s,,%" PRIu64 ",\n", tn, p.id, gd_meta_event_name(ev),
                          topo->k[k].name, items);
    else
        rc = std::fprintf(self->log_, "%s,%u,%s,%s,%s,%" PRIu64 ",%" PRIu64 "\n", tn, p.id, gd_meta_event_name(ev),
                          topo->k[k].name, topo->b[b].name, items, fill);
    if (rc < 0)
        self->log_error_ = true;
}

bool meta_scheduler::dispatch(op_code code, void *body, sc_core::sc_time &delay)
{
    if (code != op::dispatch)
        return false;
    auto *b = static_cast<dispatch_body *>(body);
    if (b->run->kind != GD_PKT_PIPELINE) {
        cwd_ch_.call(cwd_out, op::dispatch, b, delay);  // any other kernel: straight to the distributor
        return true;
    }
    start(b->run, now_ps() + ps_of(delay));
    b->accepted = true;
    return true;
}

bool meta_scheduler::done(op_code code, void *body, sc_core::sc_time &delay)
{
    if (code != op::kernel_done)
        return false;
    auto *b = static_cast<kernel_done_body *>(body);
    gd_kernel_run *r = b->run;
    if (!r->meta) {
        const gd_time_ps t = now_ps() + ps_of(delay);
        cs_ch_.call(cs_out, op::kernel_done, b, delay);
        retry_refused(t);  // the distributor has room again
        return true;
    }
    ended_.push_back(static_cast<launch *>(r->meta));  // handled by wake(), outside the distributor's call
    wake_.notify(now_ps() + ps_of(delay));
    return true;
}

void meta_scheduler::start(gd_kernel_run *r, gd_time_ps t)
{
    const gd_pipeline_def *def = r->pipeline;
    const gd_topology *topo = &def->topo;
    std::unique_ptr<pipe> pp(new pipe);
    pipe &p = *pp;
    p.id = (uint32_t)pipes_.size();
    p.run = r;
    r->dispatched = t;
    gd_meta_params par = params_;
    par.policy = policy_cfg_ >= 0 ? policy_cfg_ : topo->policy >= 0 ? topo->policy : GD_META_ROUND_ROBIN;
    uint32_t per_sm[GD_META_MAX_KERNELS];
    for (uint32_t i = 0; i < topo->nkernels; i++)
        per_sm[i] = def->desc[i].occ.max_ctas;
    std::memset(&p.m, 0, sizeof p.m);
    if (log_) {
        p.m.log = log_event;
        p.m.log_ctx = this;
    }
    pipes_.push_back(std::move(pp));
    log_pipe_ = p.id;
    gd_meta_init(&p.m, topo, &par, per_sm, t);
    // the statistics (registered now: a trace without pipelines reports what it did before)
    p.kstat.assign(topo->nkernels * NK, 0);
    p.bstat.assign(topo->nbuffers * NB, 0);
    std::string pblk = "meta_scheduler.p" + std::to_string(p.id) + (topo->name[0] ? std::string(":") + topo->name : "");
    if (stats_) {
        int bad = 0;
        const uint64_t *pv[NP] = {&p.span_ps, &p.launches, &p.rounds, &p.ctas, &p.items_in, &p.items_left};
        for (size_t s = 0; s < NP; s++)
            bad |= gd_stats_add(stats_, pblk.c_str(), PSTAT[s], PSTAT_UNIT[s], PSTAT_DESC[s], pv[s]);
        for (uint32_t k = 0; k < topo->nkernels; k++)
            for (size_t s = 0; s < NK; s++)
                bad |= gd_stats_add(stats_, (pblk + "/kernel/" + topo->k[k].name).c_str(), KSTAT[s], KSTAT_UNIT[s],
                                    KSTAT_DESC[s], &p.kstat[k * NK + s]);
        for (uint32_t b = 0; b < topo->nbuffers; b++)
            for (size_t s = 0; s < NB; s++)
                bad |= gd_stats_add(stats_, (pblk + "/buffer/" + topo->b[b].name).c_str(), BSTAT[s], BSTAT_UNIT[s],
                                    BSTAT_DESC[s], &p.bstat[b * NB + s]);
        if (bad)
            throw std::bad_alloc();
    }
    for (uint32_t b = 0; b < topo->nbuffers; b++)
        p.items_in += topo->b[b].initial;
    want_round(p, t);
    wake_.notify(t);
}

// A round is due once the state changed: after the round (and the launches it
// issues) in progress, plus the check of every buffer.
void meta_scheduler::want_round(pipe &p, gd_time_ps t)
{
    if (p.done || p.next_round != GD_TIME_NEVER)
        return;
    gd_time_ps from = t > p.busy_until ? t : p.busy_until;
    p.next_round = from + check_ps_ * p.m.t->nbuffers;
}

void meta_scheduler::retry_refused(gd_time_ps now)
{
    bool any = false;
    for (auto &pp : pipes_)
        if (pp->refused) {
            pp->refused = false;
            want_round(*pp, now);
            any = true;
        }
    if (any)
        wake_.notify(now);
}

void meta_scheduler::round(pipe &p, gd_time_ps now)
{
    p.next_round = GD_TIME_NEVER;
    gd_meta_launch l[GD_META_MAX_KERNELS];
    log_pipe_ = p.id;
    size_t n = gd_meta_round(&p.m, now, l, GD_META_MAX_KERNELS);
    p.rounds++;
    for (size_t i = 0; i < n; i++) {
        launch *x;
        if (!free_launches_.empty()) {
            x = free_launches_.back();
            free_launches_.pop_back();
        } else {
            launches_.emplace_back(new launch);
            x = launches_.back().get();
        }
        x->l = l[i];
        x->owner = &p;
        x->run = nullptr;
        x->at = now + launch_ps_ * (i + 1);
        p.issue.push_back(x);
    }
    p.busy_until = now + launch_ps_ * n;
    if (n) {
        want_round(p, p.busy_until);  // what the launches leave may let more launch
        return;
    }
    if (p.m.in_flight == 0 && p.issue.empty() && !p.refused)
        finish(p, now);
}

// Issue the launches due by now to the distributor.
void meta_scheduler::issue(pipe &p, gd_time_ps now)
{
    while (!p.issue.empty() && p.issue.front()->at <= now) {
        launch *x = p.issue.front();
        if (over_cta_limit(p, *x))
            return;
        const gd_kernel_desc *d = &p.run->pipeline->desc[x->l.kernel];
        gd_kernel_run *r = gd_run_alloc(&pool_);
        if (!r)
            throw std::bad_alloc();
        r->kind = GD_PKT_KERNEL;
        r->index = (UINT64_C(1) << 62) + next_index_++;  // apart from the trace's kernels (same-time order)
        r->record = p.run->record;
        r->queue = p.run->queue;
        r->trace_queue = p.run->trace_queue;
        r->vid = p.run->vid;
        r->priority = p.run->priority;
        r->desc = d;
        r->grid[0] = (uint32_t)x->l.ctas;
        r->grid[1] = r->grid[2] = 1;
        r->ctas = x->l.ctas;
        r->cluster = gd_cluster_none();
        r->cta_ps = gd_cta_time_scaled(d->cta_duration_ps, cta_time_ppm_);
        r->submit = r->fetched = r->decoded = r->ready = now;
        r->wq = r->engine = -1;
        r->meta = x;
        x->run = r;
        dispatch_body b{r, false};
        sc_core::sc_time z = dom_->delay_to(now);
        cwd_ch_.call(cwd_out, op::dispatch, &b, z);
        if (!b.accepted) {  // the distributor holds as many kernels as it can: undo this and the rest
            log_pipe_ = p.id;
            gd_run_release(&pool_, r);
            while (!p.issue.empty()) {
                launch *y = p.issue.back();
                p.issue.pop_back();
                gd_meta_unlaunch(&p.m, now, &y->l);
                free_launches_.push_back(y);
            }
            p.refused = true;
            p.busy_until = now;
            return;
        }
        p.issue.pop_front();
        pipe_ctas_ += x->l.ctas;
        p.launches++;
        if (p.first_launch == GD_TIME_NEVER)
            p.first_launch = now;
        p.last_launch = now;
    }
}

// Whether launch x of pipeline p would take the replay past sim.max_ctas; if so the
// replay stops with an error (the reader refuses a dispatch that would, where it is read).
bool meta_scheduler::over_cta_limit(pipe &p, const launch &x)
{
    if (!max_ctas_)
        return false;
    uint64_t read = meter_ && meter_->ctas_read ? meter_->ctas_read(meter_->records_src) : 0;
    if (read + pipe_ctas_ + x.l.ctas <= max_ctas_)
        return false;
    char buf[512];
    std::snprintf(buf, sizeof buf, "%s: record %" PRIu64 " (offset %" PRIu64 "): pipeline '%s': a launch of %" PRIu64
                  " CTAs of kernel '%s' takes the replay past %" PRIu64 " CTAs (sim.max_ctas; 0: no limit): %" PRIu64
                  " launched by pipelines, %" PRIu64 " in the dispatches read", source_, p.run->pipeline->record,
                  p.run->pipeline->offset,
                  p.m.t->name[0] ? p.m.t->name : "(unnamed)", x.l.ctas, p.m.t->k[x.l.kernel].name, max_ctas_,
                  pipe_ctas_, read);
    if (err_ && err_->code == GD_OK)
        gd_err_set(err_, GD_ELIMIT, "%s", buf);
    SC_REPORT_ERROR("gdsim/meta_scheduler", buf);
    return true;
}

void meta_scheduler::wake(gd_time_ps now)
{
    while (!ended_.empty()) {
        launch *x = ended_.front();
        ended_.pop_front();
        pipe &p = *x->owner;
        log_pipe_ = p.id;
        gd_meta_ended(&p.m, now, &x->l);
        p.ctas += x->run->ctas_launched;
        p.warp_ps += x->run->warp_ps;
        if (x->run->end > p.last_end)
            p.last_end = x->run->end;
        gd_run_release(&pool_, x->run);
        free_launches_.push_back(x);
        want_round(p, now);
    }
    gd_time_ps next = GD_TIME_NEVER;
    for (auto &pp : pipes_) {
        pipe &p = *pp;
        if (p.done)
            continue;
        issue(p, now);
        if (p.next_round <= now)
            round(p, now);
        issue(p, now);  // a round without launch latency issues at once
        if (p.next_round < next)
            next = p.next_round;
        if (!p.issue.empty() && p.issue.front()->at < next)
            next = p.issue.front()->at;
    }
    wake_.cancel();
    if (next != GD_TIME_NEVER)
        wake_.notify(next);
}

void meta_scheduler::publish(pipe &p)
{
    const gd_topology *t = p.m.t;
    for (uint32_t k = 0; k < t->nkernels; k++) {
        const gd_meta_kstate &s = p.m.k[k];
        uint64_t v[NK] = {s.launches, s.ctas, s.items_in, s.busy_ps, s.wait_ps, s.latency_ps};
        std::memcpy(&p.kstat[k * NK], v, sizeof v);
    }
    for (uint32_t b = 0; b < t->nbuffers; b++) {
        const gd_meta_bstate &s = p.m.b[b];
        uint64_t v[NB] = {s.length, t->b[b].initial, s.written, s.consumed, s.fill, s.max_fill,
                          (uint64_t)(s.fill_ps / GD_PS_PER_NS + 0.5), s.full_ps, s.empty_ps};
        std::memcpy(&p.bstat[b * NB], v, sizeof v);
        p.items_left += s.fill;
    }
}

void meta_scheduler::finish(pipe &p, gd_time_ps now)
{
    char why[320];
    if (gd_meta_stuck(&p.m, why, sizeof why)) {
        char tn[32];
        gd_format_ns(tn, sizeof tn, 0, now);
        char buf[512];
        std::snprintf(buf, sizeof buf, "%s: record %" PRIu64 ": pipeline '%s' deadlocked at %s ns: %s", source_,
                      p.run->record, p.m.t->name[0] ? p.m.t->name : "(unnamed)", tn, why);
        if (err_ && err_->code == GD_OK)
            gd_err_set(err_, GD_EFORMAT, "%s", buf);
        SC_REPORT_ERROR("gdsim/meta_scheduler", buf);
        return;
    }
    p.done = true;
    gd_meta_account(&p.m, p.last_end > p.m.last_t ? p.last_end : p.m.last_t);
    publish(p);
    gd_kernel_run *r = p.run;
    r->first_cta = p.first_launch == GD_TIME_NEVER ? now : p.first_launch;
    r->last_cta = p.first_launch == GD_TIME_NEVER ? now : p.last_launch;
    r->end = p.first_launch == GD_TIME_NEVER ? now : p.last_end;
    r->ctas = r->ctas_launched = p.ctas;
    r->grid[0] = (uint32_t)(p.ctas > UINT32_MAX ? UINT32_MAX : p.ctas);
    r->grid[1] = r->grid[2] = 1;
    r->warp_ps = p.warp_ps;
    p.span_ps = r->end - r->dispatched;  // ps (the statistic's unit)
    kernel_done_body b{r};
    sc_core::sc_time z = dom_->delay_to(now);
    cs_ch_.call(cs_out, op::kernel_done, &b, z);
}

}  // namespace gd
