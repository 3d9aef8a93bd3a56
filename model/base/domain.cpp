#include "domain.hpp"

namespace gd {

domain::domain(sc_core::sc_module_name name) : sc_module(name)
{
    SC_METHOD(run);
    sensitive << ev_;
    dont_initialize();
}

void domain::sift_up(uint32_t i)
{
    event *e = heap_[i];
    while (i) {
        const uint32_t p = (i - 1) / 2;
        if (!before(e, heap_[p]))
            break;
        heap_[i] = heap_[p];
        heap_[i]->pos_ = i;
        i = p;
    }
    heap_[i] = e;
    e->pos_ = i;
}

void domain::sift_down(uint32_t i)
{
    event *e = heap_[i];
    const uint32_t n = (uint32_t)heap_.size();
    for (;;) {
        uint32_t c = 2 * i + 1;
        if (c >= n)
            break;
        if (c + 1 < n && before(heap_[c + 1], heap_[c]))
            c++;
        if (!before(heap_[c], e))
            break;
        heap_[i] = heap_[c];
        heap_[i]->pos_ = i;
        i = c;
    }
    heap_[i] = e;
    e->pos_ = i;
}

void domain::remove(event &e)
{
    const uint32_t i = e.pos_;
    event *last = heap_.back();
    heap_.pop_back();
    e.pos_ = UINT32_MAX;
    e.at_ = GD_TIME_NEVER;
    if (last == &e)
        return;
    heap_[i] = last;
    last->pos_ = i;
    sift_up(i);
    sift_down(last->pos_);
}

void domain::notify(event &e, gd_time_ps t)
{
    if (t >= e.at_)
        return;  // an earlier (or the same) wake-up is asked for already
    if (e.pos_ != UINT32_MAX)
        remove(e);
    e.at_ = t;
    e.seq_ = seq_++;
    heap_.push_back(&e);
    sift_up((uint32_t)heap_.size() - 1);
    if (!running_)
        schedule();
}

void domain::cancel(event &e)
{
    if (e.pos_ == UINT32_MAX)
        return;
    remove(e);
    if (!running_)
        schedule();
}

void domain::schedule()
{
    const gd_time_ps t = heap_.empty() || stopped_ ? GD_TIME_NEVER : heap_[0]->at_;
    if (t == ev_at_)
        return;
    ev_.cancel();
    ev_at_ = t;
    if (t == GD_TIME_NEVER)
        return;
    const gd_time_ps now = now_ps();
    ev_.notify(t > now ? ps_time(t - now) : sc_core::SC_ZERO_TIME);
}

gd_time_ps domain::limit()
{
    if (!sc_limit_valid_) {
        sc_limit_valid_ = true;
        const gd_time_ps now = now_ps();
        if (sc_core::sc_pending_activity_at_current_time())
            sc_limit_ = now + 1;  // what is due now still runs (as in a later delta cycle), nothing after
        else if (sc_core::sc_pending_activity_at_future_time())
            sc_limit_ = now + ps_of(sc_core::sc_time_to_pending_activity());
        else
            sc_limit_ = GD_TIME_NEVER;
    }
    const gd_time_ps next = heap_.empty() ? GD_TIME_NEVER : heap_[0]->at_;
    return next < sc_limit_ ? next : sc_limit_;
}

void domain::run()
{
    activations_++;
    ev_at_ = GD_TIME_NEVER;  // it fired
    const gd_time_ps now = now_ps();
    sc_limit_valid_ = false;
    running_ = true;
    try {
        while (!heap_.empty() && !stopped_) {
            event *e = heap_[0];
            const gd_time_ps t = e->at_;
            if (t > now) {
                if (!sc_limit_valid_)
                    limit();
                if (t >= sc_limit_)
                    break;  // SystemC has something to do first
            }
            remove(*e);
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
