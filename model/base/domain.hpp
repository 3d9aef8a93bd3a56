// domain.hpp - an event domain: the timed wake-ups of several blocks run by one
// SystemC process, in time order, ahead of SystemC's own time while nothing outside
// the domain can act (TLM-2.0 loosely-timed temporal decoupling).
//
// A block in a domain keeps its own calendar of what happens when (in C) and asks the
// domain to wake it at a time, as it would notify an sc_event driving its method
// process. The domain's process runs the wake-ups in order of time (and, at one time,
// in the order they were asked for: a wake-up asked for at the current time runs after
// those already due then, as a delta notification does), and goes on to later ones
// without returning to SystemC as long as SystemC has nothing else to do before them.
// SystemC time stays where the domain's process was woken; a wake-up at a later time t
// sends its transactions with the delay t - sc_time_stamp(), and a block receiving one
// takes its time as sc_time_stamp() + delay. Blocks outside the domain that a block in
// it calls must honour those delays too (they are told of operations ahead of SystemC
// time); the caller then says so (touched()), so that the domain stops before anything
// they start.
//
// So a GPU whose blocks share a domain costs SystemC one activation for a whole stretch
// of its events instead of one per block and time (docs/PERFORMANCE.md). A block built
// alone (a testbench) gets a domain of its own and behaves as with an sc_event.
#ifndef GD_DOMAIN_HPP
#define GD_DOMAIN_HPP

#include <cstdint>
#include <memory>
#include <vector>

#include <systemc>

#include "gd_msg.hpp"
#include "sc_compat.hpp"

namespace gd {

class domain : public sc_core::sc_module {
public:
    GD_SC_HAS_PROCESS(domain);
    explicit domain(sc_core::sc_module_name name);

    // A block's wake-up: run(obj, t) at time t (ps). notify(t) asks for it at t (not
    // before the domain's current time); the earliest of several requests stands, as
    // with sc_event::notify.
    class event {
    public:
        using fn_t = void (*)(void *obj, gd_time_ps t);
        event(domain &d, void *obj, fn_t fn) : d_(d), obj_(obj), fn_(fn) { d_.add(*this); }
        ~event()
        {
            cancel();
            d_.drop(*this);
        }
        event(const event &) = delete;
        event &operator=(const event &) = delete;
        void notify(gd_time_ps t) { d_.notify(*this, t); }
        void cancel() { d_.cancel(*this); }
        gd_time_ps pending() const { return at_; }  // GD_TIME_NEVER: none
        domain &owner() const { return d_; }

    private:
        friend class domain;
        domain &d_;
        void *obj_;
        fn_t fn_;
        gd_time_ps at_ = GD_TIME_NEVER;
        uint64_t seq_ = 0;
        uint32_t slot_ = 0;  // in the domain's events
    };

    // event's fn for a member function: domain::event wake{d, this, &domain::call<block, &block::wake>}
    template <class T, void (T::*M)(gd_time_ps)>
    static void call(void *obj, gd_time_ps t)
    {
        (static_cast<T *>(obj)->*M)(t);
    }

    // The time of the wake-up being run; SystemC's time outside one.
    gd_time_ps now() const { return running_ ? local_ : now_ps(); }
    // The b_transport delay of an operation at time t (t >= SystemC's time).
    sc_core::sc_time delay_to(gd_time_ps t) const { return ps_time(t - (running_ ? sc_now_ : now_ps())); }
    // How far the wake-up being run may process its own calendar (exclusive): to the
    // next wake-up of the domain, or to SystemC's next activity outside it.
    gd_time_ps limit();
    // A block of the domain told something outside it of an operation: that may act
    // before the domain's next wake-up.
    void touched() { sc_limit_valid_ = false; }
    // The simulation stops (sc_stop): no further wake-up runs.
    void stop() { stopped_ = true; }
    // A replay's guards: no wake-up later than max_ps runs (the domain stops SystemC and
    // time_limit_hit() says so; sim.max_sim_time_s), and poll(ctx, t) is asked before the
    // first wake-up and then before every poll_every-th whether to go on (false: stop
    // likewise, for an interrupt or a timeout; a wake-up or step costs about a
    // microsecond or less, so an interrupt still stops the replay at once).
    void set_time_limit(gd_time_ps max_ps) { max_ps_ = max_ps; }
    void set_poll(bool (*poll)(void *ctx, gd_time_ps t), void *ctx)
    {
        poll_ = poll;
        poll_ctx_ = ctx;
    }
    // A block running its own calendar asks before each of its steps at time t whether
    // to go on (false: the domain has stopped; the block returns at once).
    bool guard(gd_time_ps t)
    {
        if (t > reached_)
            reached_ = t;
        if (t > max_ps_) {
            limit_hit_ = true;
            limit_at_ = t;
            halt();
            return false;
        }
        if (poll_ && !--poll_in_) {
            poll_in_ = poll_every;
            if (!poll_(poll_ctx_, t)) {
                halt();
                return false;
            }
        }
        return !stopped_;
    }
    bool time_limit_hit() const { return limit_hit_; }
    gd_time_ps time_limit_at() const { return limit_at_; }  // the wake-up that passed it
    gd_time_ps reached() const { return reached_; }  // the latest time a wake-up or a block's step was asked for
    // Lockstep (for waveforms): every wake-up runs at its own SystemC time and no block
    // runs its own calendar past SystemC's time, so that what SystemC samples at a time
    // is the state at that time. Slower; results are the same.
    void set_lockstep(bool on) { lockstep_ = on; }
    // SystemC activations of the domain's process, and wake-ups run.
    const uint64_t *activations() const { return &activations_; }
    const uint64_t *wakeups() const { return &wakeups_; }
    // The time of the last wake-up run (where the simulation ended, once it has).
    gd_time_ps last() const { return last_; }

private:
    void run();  // SC_METHOD on ev_
    void add(event &e);
    void drop(event &e);
    void notify(event &e, gd_time_ps t);
    void cancel(event &e);
    void schedule();  // ev_ for the first wake-up, outside run()
    event *first();  // the wake-up due first: (time, order asked); null: none
    event *first_ = nullptr;  // ... when first_valid_
    bool first_valid_ = false;
    gd_time_ps sc_limit();  // SystemC's next activity outside the domain (from run())
    static bool before(const event *a, const event *b) { return a->at_ < b->at_ || (a->at_ == b->at_ && a->seq_ < b->seq_); }

    std::vector<event *> events_;  // every block's wake-up (a handful: a linear scan finds the first)
    uint64_t seq_ = 0;
    bool running_ = false, stopped_ = false, lockstep_ = false, limit_hit_ = false;
    gd_time_ps max_ps_ = GD_TIME_NEVER, limit_at_ = 0, reached_ = 0;
    bool (*poll_)(void *, gd_time_ps) = nullptr;
    enum { poll_every = 16 };
    unsigned poll_in_ = 1;  // guards until the next poll
    void *poll_ctx_ = nullptr;
    void halt();  // stopped by a guard
    gd_time_ps local_ = 0, last_ = 0, sc_now_ = 0;
    bool sc_limit_valid_ = false;
    gd_time_ps sc_limit_ = GD_TIME_NEVER;
    sc_core::sc_event ev_;
    gd_time_ps ev_at_ = GD_TIME_NEVER;  // when ev_ is notified for
    uint64_t activations_ = 0, wakeups_ = 0;
};

// A block's domain: the one it is given (its GPU's), or one of its own (a block built
// alone, as a testbench does), a child module named "events".
class domain_ref {
public:
    explicit domain_ref(domain *d) : own_(d ? nullptr : new domain("events")), d_(d ? *d : *own_) {}
    domain &operator*() const { return d_; }
    domain *operator->() const { return &d_; }

private:
    std::unique_ptr<domain> own_;
    domain &d_;
};

}  // namespace gd

#endif
