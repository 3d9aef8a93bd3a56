#include "command_scheduler.hpp"

#include <algorithm>
#include <cinttypes>
#include <cstring>
#include <new>

namespace gd {

namespace {

int policy_of(const char *s)
{
    if (!std::strcmp(s, "inorder"))
        return GD_CS_INORDER;
    if (!std::strcmp(s, "waitqueue"))
        return GD_CS_WAITQUEUE;
    return GD_CS_AQL;
}

uint32_t engines_of(const gd_config *cfg) { return cfg->cs_engines ? cfg->cs_engines : cfg->cwd_max_resident_kernels; }
uint32_t wait_queues(const gd_config *cfg) { return cfg->cs_wait_queues ? cfg->cs_wait_queues : engines_of(cfg); }

// The per-tenant figures the kernel table registered (blocks "vid_N").
template <typename Fn>
void each_vid(const gd_stats *st, Fn fn)
{
    for (size_t i = 0; i < st->n; i++)
        if (!std::strncmp(st->v[i].block, "vid_", 4) && !std::strcmp(st->v[i].name, "commands"))
            fn(st->v[i].block);
}

double ns_of(const gd_stat *s, double gd_dist::*f) { return s ? s->dist.*f / GD_PS_PER_NS : 0.0; }

// The scheduler's line in the text summary, then one line per tenant (at most 16;
// the JSON summary has them all).
void scheduler_text(FILE *f, const gd_section_ctx *c)
{
    const gd_stats *st = c->stats;
    const char *b = c->block;
    const gd_config *cfg = c->cfg;
    int pol = policy_of(cfg->cs_policy);
    unsigned vids = 0;
    each_vid(st, [&](const char *) { vids++; });
    char pqs[48];
    if (cfg->cs_physical_queues)
        std::snprintf(pqs, sizeof pqs, "%u physical queues", cfg->cs_physical_queues);
    else
        std::snprintf(pqs, sizeof pqs, "a physical queue per trace queue");
    if (pol == GD_CS_AQL) {
        std::fprintf(f, "  scheduler           aql (barrier bits held at the queue heads), %s; %u tenants\n", pqs, vids);
    } else {
        std::fprintf(f, "  scheduler           %s, %s", cfg->cs_policy, pqs);
        if (pol == GD_CS_WAITQUEUE)
            std::fprintf(f, ", %u wait queues", wait_queues(cfg));
        std::fprintf(f, "; %u tenants; %" PRIu64 " commands from PQs, %" PRIu64 " from WQs (%" PRIu64
                        " pushed), %" PRIu64 " no-ops, %" PRIu64 " failed\n",
                     vids, gd_stats_get(st, b, "from_pq"), gd_stats_get(st, b, "from_wq"), gd_stats_get(st, b, "pushed"),
                     gd_stats_get(st, b, "noops"), gd_stats_get(st, b, "failed"));
        double span = (double)c->summary->sim_time_ns * GD_PS_PER_NS;
        std::fprintf(f, "  %-19s head-of-line blocking %.3f us, %" PRIu64 " false dependencies", "",
                     gd_stats_get(st, b, "hol_blocking") / 1e6, gd_stats_get(st, b, "false_dependencies"));
        if (pol == GD_CS_WAITQUEUE)
            std::fprintf(f, "; WQ occupancy mean %.3f, max %" PRIu64 "; waits for a free WQ %" PRIu64 ", for room in one "
                            "%" PRIu64, span > 0 ? (double)gd_stats_get(st, b, "wq_occupancy") / span : 0.0,
                         gd_stats_get(st, b, "wq_max"), gd_stats_get(st, b, "no_wq_waits"),
                         gd_stats_get(st, b, "wq_full_waits"));
        std::fputc('\n', f);
    }
    if (vids < 2 && pol == GD_CS_AQL)
        return;
    std::fprintf(f, "  %-26s %9s %7s %7s %10s %10s %12s\n", "per tenant (VID)", "commands", "failed", "no-op",
                 "latency us", "p99 us", "busy span us");
    unsigned shown = 0;
    each_vid(st, [&](const char *v) {
        if (shown++ >= 16)
            return;
        const gd_stat *lat = gd_stats_find(st, v, "launch_latency");
        std::fprintf(f, "    %-24s %9" PRIu64 " %7" PRIu64 " %7" PRIu64 " %10.3f %10.3f %12.3f\n", v,
                     gd_stats_get(st, v, "commands"), gd_stats_get(st, v, "failed"), gd_stats_get(st, v, "noop"),
                     ns_of(lat, &gd_dist::mean) / 1000.0, ns_of(lat, &gd_dist::p99) / 1000.0,
                     gd_stats_get(st, v, "busy_span") / 1e6);
    });
    if (shown > 16)
        std::fprintf(f, "    ... %u more tenants in the JSON summary\n", shown - 16);
}

void scheduler_json(FILE *f, const gd_section_ctx *c)
{
    const gd_stats *st = c->stats;
    const char *b = c->block;
    const gd_config *cfg = c->cfg;
    double span = (double)c->summary->sim_time_ns * GD_PS_PER_NS;
    std::fprintf(f, "  \"scheduler\": {\"policy\": \"%s\", \"physical_queues\": %u, \"wait_queues\": %u, "
                    "\"from_pq\": %" PRIu64 ", \"from_wq\": %" PRIu64 ", \"pushed\": %" PRIu64 ", \"noops\": %" PRIu64
                    ", \"failed\": %" PRIu64 ", \"hol_blocking_ns\": %.3f, \"false_dependencies\": %" PRIu64
                    ", \"wq_occupancy_mean\": %.6f, \"wq_occupancy_max\": %" PRIu64 ", \"no_wq_waits\": %" PRIu64
                    ", \"wq_full_waits\": %" PRIu64 ", \"per_vid\": [",
                 cfg->cs_policy, cfg->cs_physical_queues, policy_of(cfg->cs_policy) == GD_CS_WAITQUEUE ? wait_queues(cfg) : 0,
                 gd_stats_get(st, b, "from_pq"), gd_stats_get(st, b, "from_wq"), gd_stats_get(st, b, "pushed"),
                 gd_stats_get(st, b, "noops"), gd_stats_get(st, b, "failed"), gd_stats_get(st, b, "hol_blocking") / 1000.0,
                 gd_stats_get(st, b, "false_dependencies"),
                 span > 0 ? (double)gd_stats_get(st, b, "wq_occupancy") / span : 0.0, gd_stats_get(st, b, "wq_max"),
                 gd_stats_get(st, b, "no_wq_waits"), gd_stats_get(st, b, "wq_full_waits"));
    unsigned n = 0;
    each_vid(st, [&](const char *v) {
        const gd_stat *lat = gd_stats_find(st, v, "launch_latency");
        std::fprintf(f, "%s\n    {\"vid\": %s, \"commands\": %" PRIu64 ", \"failed\": %" PRIu64 ", \"noop\": %" PRIu64
                        ", \"mean_latency_ns\": %.3f, \"p99_latency_ns\": %.3f, \"busy_span_ns\": %.3f}",
                     n++ ? "," : "", v + 4, gd_stats_get(st, v, "commands"), gd_stats_get(st, v, "failed"),
                     gd_stats_get(st, v, "noop"), ns_of(lat, &gd_dist::mean), ns_of(lat, &gd_dist::p99),
                     gd_stats_get(st, v, "busy_span") / 1000.0);
    });
    std::fprintf(f, "%s]},\n", n ? "\n  " : "");
}

}  // namespace

command_scheduler::command_scheduler(sc_core::sc_module_name name, const gd_config &cfg, gd_stats *stats, domain *dom)
    : sc_module(name),
      pp_in("pp_in"),
      cwd_out("cwd_out"),
      done_in("done_in"),
      pp_out("pp_out"),
      step_ps_(gd_cycles_to_ps((uint64_t)cfg.cs_pick_cycles + cfg.cs_decode_cycles, cfg.clock_mhz)),
      command_launch_ps_(gd_cycles_to_ps(cfg.pp_command_launch_cycles, cfg.clock_mhz)),
      dom_(dom),
      wake_(*dom_, this, &domain::call<command_scheduler, &command_scheduler::wake>)
{
    if (gd_cs_init(&cs_, policy_of(cfg.cs_policy), engines_of(&cfg), cfg.cs_copy_engines, wait_queues(&cfg),
                   cfg.cs_wq_depth))
        throw std::bad_alloc();
    pp_in.register_b_transport(this, &command_scheduler::dispatch_bt);
    done_in.register_b_transport(this, &command_scheduler::done_bt);
    pp_in.register_get_direct_mem_ptr(this, &command_scheduler::dispatch_dmi);  // their direct transports
    done_in.register_get_direct_mem_ptr(this, &command_scheduler::done_dmi);
    if (stats) {
        gd_stats_add(stats, basename(), "commands", "commands", "commands (kernels and non-kernel commands) scheduled",
                     &commands_);
        gd_stats_add(stats, basename(), "from_pq", "commands", "commands dispatched straight from their physical queue",
                     &cs_.from_pq);
        gd_stats_add(stats, basename(), "from_wq", "commands", "commands dispatched from a wait queue", &cs_.from_wq);
        gd_stats_add(stats, basename(), "pushed", "commands",
                     "conditional commands moved from their physical queue into a wait queue", &cs_.pushed);
        gd_stats_add(stats, basename(), "noops", "commands", "commands completed as no-ops (their chain had failed)",
                     &cs_.noops);
        gd_stats_add(stats, basename(), "failed", "commands", "commands whose engine reported an error", &cs_.failed);
        gd_stats_add(stats, basename(), "hol_blocking", "ps",
                     "physical-queue time during which the head could not go for a reason of its own (its dependency, "
                     "no free or a full wait queue) while an engine was free and a command of another tenant behind "
                     "it could have gone", &hol_ps_);
        gd_stats_add(stats, basename(), "false_dependencies", "commands",
                     "commands held at least once behind another tenant's command in their physical queue",
                     &false_deps_);
        gd_stats_add(stats, basename(), "wq_occupancy", "command x ps", "commands in wait queues integrated over time",
                     &wq_occ_ps_);
        gd_stats_add(stats, basename(), "wq_max", "commands", "most commands in wait queues at once", &cs_.max_in_wq);
        gd_stats_add(stats, basename(), "no_wq_waits", "commands",
                     "sync commands that waited at their physical queue's head for a free wait queue", &cs_.no_wq_waits);
        gd_stats_add(stats, basename(), "wq_full_waits", "commands",
                     "conditional commands that waited at their physical queue's head for room in a full wait queue",
                     &cs_.wq_full_waits);
        gd_stats_add_section(stats, basename(), scheduler_text, scheduler_json);
    }
}

command_scheduler::~command_scheduler() { gd_cs_destroy(&cs_); }

void command_scheduler::account(gd_time_ps now)
{
    if (now <= last_t_)
        return;
    gd_time_ps dt = now - last_t_;
    wq_occ_ps_ += cs_.in_wq * dt;
    for (uint32_t p = 0; p < cs_.npq; p++)
        if (gd_cs_head_blocks(&cs_, p))
            hol_ps_ += dt;
    last_t_ = now;
}

void command_scheduler::finish()
{
    if (cs_.policy != GD_CS_AQL)
        account(std::max(now_ps(), dom_->last()));  // where the simulation ended
}

bool command_scheduler::dispatch(op_code code, void *body, sc_core::sc_time &delay)
{
    if (code != op::dispatch)
        return false;
    auto *b = static_cast<dispatch_body *>(body);
    gd_kernel_run *r = b->run;
    r->pq = r->queue;
    if (cs_.policy == GD_CS_AQL) {  // a pass-through: the distributor answers
        r->wq = r->engine = -1;
        cwd_ch_.call(cwd_out, op::dispatch, b, delay);
        commands_ += b->accepted;
        return true;
    }
    const gd_time_ps t = now_ps() + ps_of(delay);
    account(t);
    if (gd_cs_enqueue(&cs_, r))
        throw std::bad_alloc();
    commands_++;
    b->accepted = true;  // in its physical queue
    wake_.notify(t);
    return true;
}

bool command_scheduler::done(op_code code, void *body, sc_core::sc_time &delay)
{
    if (code != op::kernel_done)
        return false;
    auto *b = static_cast<kernel_done_body *>(body);
    if (cs_.policy == GD_CS_AQL) {
        b->run->status = b->run->cmd_flags & GD_CMD_FAILS ? GD_STATUS_FAILED : GD_STATUS_OK;
        pp_ch_.call(pp_out, op::kernel_done, b, delay);
    } else {
        kernel_done_.push_back(b->run);  // handled by wake(), outside the distributor's call
        wake_.notify(now_ps() + ps_of(delay));
    }
    return true;
}

// A command left its physical queue: its queue slot is free.
void command_scheduler::left_pq(gd_kernel_run *r, gd_time_ps now)
{
    pq_left_body b{r};
    sc_core::sc_time d = dom_->delay_to(now);
    pp_ch_.call(pp_out, op::pq_left, &b, d);
}

// A running command (or a no-op) is done: the tables, then the packet processor.
void command_scheduler::completed(gd_kernel_run *r, gd_time_ps now)
{
    gd_cs_complete(&cs_, r, (r->cmd_flags & GD_CMD_FAILS) != 0);
    kernel_done_body b{r};
    sc_core::sc_time d = dom_->delay_to(now);
    pp_ch_.call(pp_out, op::kernel_done, &b, d);
}

void command_scheduler::carry_out(const gd_cs_decision &d, gd_time_ps now)
{
    gd_kernel_run *r = d.cmd;
    switch (d.action) {
    case GD_CS_DISPATCH:
        if (r->kind == GD_PKT_COMMAND) {  // a copy engine starts it
            r->first_cta = r->last_cta = now + command_launch_ps_;
            r->end = r->first_cta + r->cta_ps;
            copies_.emplace(r->end, copy_seq_++, r);
        } else {
            dispatch_body b{r, false};
            sc_core::sc_time z = dom_->delay_to(now);
            cwd_ch_.call(cwd_out, op::dispatch, &b, z);
            if (!b.accepted) {
                char buf[160];
                std::snprintf(buf, sizeof buf, "record %" PRIu64 ": the distributor refused a kernel the command "
                              "scheduler had an engine for (cs.engines above cwd.max_resident_kernels?)", r->record);
                SC_REPORT_ERROR("gdsim", buf);
            }
        }
        break;
    case GD_CS_NOOP:
        r->first_cta = r->last_cta = r->end = now;
        completed(r, now);
        break;
    default:  // GD_CS_PUSH: it waits in its wait queue
        break;
    }
}

void command_scheduler::wake(gd_time_ps now)
{
    account(now);
    while (!kernel_done_.empty()) {
        gd_kernel_run *r = kernel_done_.front();
        kernel_done_.pop_front();
        completed(r, now);
    }
    while (!copies_.empty() && std::get<0>(copies_.top()) <= now) {
        gd_kernel_run *r = std::get<2>(copies_.top());
        copies_.pop();
        completed(r, now);
    }
    for (;;) {
        if (pending_) {
            if (pend_at_ > now)
                break;
            pending_ = false;
            carry_out(pend_, now);
            continue;
        }
        gd_cs_decision d;
        if (!gd_cs_step(&cs_, &d))
            break;
        if (!d.from_wq) {
            false_deps_ += d.cmd->cs_held;
            left_pq(d.cmd, now);
        }
        if (d.action != GD_CS_PUSH)
            d.cmd->ready = now;  // its dependency is met: picked to go
        pend_ = d;
        pend_at_ = now + step_ps_;
        pending_ = true;
    }
    gd_time_ps t = pending_ ? pend_at_ : GD_TIME_NEVER;
    if (!copies_.empty() && std::get<0>(copies_.top()) < t)
        t = std::get<0>(copies_.top());
    wake_.cancel();
    if (t != GD_TIME_NEVER)
        wake_.notify(t);
}

}  // namespace gd
