#include "domain.hpp"

namespace gd {

domain::domain(sc_core::sc_module_name name) : sc_module(name)
{
    SC_METHOD(run);
    sensitive << ev_;
    dont_initialize();
}

void domain::add(event &e)
{
    e.slot_ = (uint32_t)events_.size();
    events_.push_back(&e);
}

void domain::drop(event &e)
{
    // the events of a domain are few (its blocks): a slot is given up by moving the last in
    events_[e.slot_] = events_.back();
    events_[e.slot_]->slot_ = e.slot_;
    events_.pop_back();
    first_valid_ = false;
}

domain::event *domain::first()
{
    if (first_valid_)
        return first_;
    event *best = nullptr;
    for (event *e : events_)
        if (e->at_ != GD_TIME_NEVER && (!best || before(e, best)))
            best = e;
    first_ = best;
    first_valid_ = true;
    return best;
}

void domain::notify(event &e, gd_time_ps t)
{
    if (t >= e.at_)
        return;  // an earlier (or the same) wake-up is asked for already
    e.at_ = t;
    e.seq_ = seq_++;
    if (first_valid_ && (!first_ || first_ == &e || before(&e, first_)))
        first_ = &e;  // it only moved earlier
    if (!running_)
        schedule();
}

void domain::cancel(event &e)
{
    if (e.at_ == GD_TIME_NEVER)
        return;
    e.at_ = GD_TIME_NEVER;
    if (first_ == &e)
        first_valid_ = false;
    if (!running_)
        schedule();
}

void domain::schedule()
{
    const event *f = stopped_ ? nullptr : first();
    const gd_time_ps t = f ? f->at_ : GD_TIME_NEVER;
    if (t == ev_at_)
        return;
    ev_.cancel();
    ev_at_ = t;
    if (t == GD_TIME_NEVER)
        return;
    const gd_time_ps now = now_ps();
    ev_.notify(t > now ? ps_time(t - now) : sc_core::SC_ZERO_TIME);
}

gd_time_ps domain::sc_limit()
{
    if (!sc_limit_valid_) {
        sc_limit_valid_ = true;
        if (sc_core::sc_pending_activity_at_current_time())
            sc_limit_ = sc_now_ + 1;  // what is due now still runs (as in a later delta cycle), nothing after
        else if (sc_core::sc_pending_activity_at_future_time())
            sc_limit_ = sc_now_ + ps_of(sc_core::sc_time_to_pending_activity());
        else
            sc_limit_ = GD_TIME_NEVER;
    }
    return sc_limit_;
}

gd_time_ps domain::limit()
{
    const event *f = first();
    const gd_time_ps next = f ? f->at_ : GD_TIME_NEVER,
                     l = lockstep_ ? (running_ ? sc_now_ : now_ps()) + 1 : sc_limit();
    return next < l ? next : l;
}

void domain::halt()
{
    if (stopped_)
        return;
    stopped_ = true;
    sc_core::sc_stop();
}

void domain::run()
{
    activations_++;
    ev_at_ = GD_TIME_NEVER;  // it fired
    sc_now_ = now_ps();
    sc_limit_valid_ = false;
    running_ = true;
    try {
        while (!stopped_) {
            event *e = first();
            if (!e)
                break;
            const gd_time_ps t = e->at_;
            if (t > sc_now_ && (lockstep_ || t >= sc_limit()))
                break;  // SystemC has something to do first (in lockstep: its time is to reach t)
            if (!guard(t))
                break;  // past sim.max_sim_time_s, interrupted or past the timeout
            e->at_ = GD_TIME_NEVER;
            first_valid_ = false;
            local_ = last_ = t;
            wakeups_++;
            e->fn_(e->obj_, t);
        }
    } catch (...) {
        running_ = false;
        throw;
    }
    running_ = false;
    schedule();
}

}  // namespace gd
