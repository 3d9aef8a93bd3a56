// progress.hpp - progress reports during a replay (instrumentation, not a hardware
// block): blocks that do long stretches of work call tick(); at most about twice a
// second of wall time the user's callback gets the counters, read through pointers
// the shim sets (any may be null). A watchdog thread tells tick() when a report or the
// deadline is due, so that both come on time however long each tick's work is.
#ifndef GD_PROGRESS_HPP
#define GD_PROGRESS_HPP

#include <signal.h>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <exception>
#include <mutex>
#include <thread>

#include "gdsim.h"
#include "gd_util.h"

namespace gd {

struct progress_meter {
    gd_progress_fn fn = nullptr;
    void *ctx = nullptr;
    uint64_t (*records_read)(const void *src) = nullptr;  // trace records read so far
    const void *records_src = nullptr;
    double (*input_fraction)(const void *src) = nullptr;      // of the trace file read, -1 unknown
    uint64_t (*ctas_read)(const void *src) = nullptr;         // CTAs of the dispatches read so far
    const uint64_t *kernels_done = nullptr;
    const uint64_t *ctas_done = nullptr;
    // Guards: *interrupt set (gd_sim_interrupt, from a signal handler) or the wall-clock
    // deadline passed (the timeout; 0: none) stops the replay: tick() returns false and
    // stop says why.
    const volatile int *interrupt = nullptr;
    double deadline = 0;
    enum { RUNNING, INTERRUPTED, TIMED_OUT } stop = RUNNING;
    double start = now(), last = start;
    unsigned calls = 0;
    static constexpr double report_every = 0.5;  // seconds between the callback's reports
    // Set by the watchdog when a report or the deadline is due: tick() then reads the
    // clock. Without one (it could not start) the clock is read every 256th call.
    std::atomic<bool> due{false};

    static double now() { return gd_monotonic_s(); }
    gd_progress snapshot(gd_time_ps sim_time, double w) const
    {
        gd_progress p = {};  // rows_written, rows_total: 0 (a replay's report, not a write's)
        p.records_read = records_read ? records_read(records_src) : 0;
        p.kernels_done = kernels_done ? *kernels_done : 0;
        p.ctas_done = ctas_done ? *ctas_done : 0;
        p.sim_time_ns = sim_time / GD_PS_PER_NS;
        p.wall_seconds = w - start;
        p.input_fraction = input_fraction ? input_fraction(records_src) : -1.0;
        p.ctas_read = ctas_read ? ctas_read(records_src) : 0;
        return p;
    }
    // Cheap enough to call per event: the interrupt flag and the watchdog's are read
    // every call, the clock when the watchdog says something is due (and every 256th
    // call). False: stop the replay (stop says why).
    bool tick(gd_time_ps sim_time, bool force = false)
    {
        if (stop != RUNNING || (interrupt && *interrupt)) {
            if (stop == RUNNING)
                stop = INTERRUPTED;
            return false;
        }
        if ((!fn && !deadline) ||
            (!force && !due.load(std::memory_order_relaxed) && (++calls & 255) != 0))
            return true;
        bool timed = due.exchange(false, std::memory_order_relaxed);  // the watchdog's report time
        double w = now();
        if (deadline && w >= deadline) {
            stop = TIMED_OUT;
            return false;
        }
        if (!fn || (!force && !timed && w - last < report_every))
            return true;
        last = w;
        gd_progress p = snapshot(sim_time, w);
        fn(ctx, &p);
        return true;
    }
    // For event_domain::set_poll.
    static bool poll(void *self, gd_time_ps t) { return static_cast<progress_meter *>(self)->tick(t); }
};

// Thrown where a long step that is not a wake-up of the event domain (building the
// model of a device of thousands of SMs) finds tick() false: the replay stops there.
struct stopped_while_building : std::exception {
    uint32_t done, of;  // GPCs built, of how many
    stopped_while_building(uint32_t d, uint32_t n) : done(d), of(n) {}
    const char *what() const noexcept override { return "stopped while building the device"; }
};

// A thread that raises meter.due every report_every seconds (when there is a callback)
// and at the deadline (when there is one), from construction to destruction. It takes
// no signal (all blocked), touches nothing but the flag, and is joined before the
// meter goes. None starts when neither is set; if none can start, tick() falls back
// to reading the clock every 256th call.
class progress_watchdog {
public:
    explicit progress_watchdog(progress_meter &m) : m_(m)
    {
        if (!m.fn && !m.deadline)
            return;
        sigset_t all, old;
        sigfillset(&all);
        pthread_sigmask(SIG_SETMASK, &all, &old);
        try {
            thread_ = std::thread(&progress_watchdog::run, this);
        } catch (const std::system_error &) {  // no thread: the counted fallback
        }
        pthread_sigmask(SIG_SETMASK, &old, nullptr);
    }
    ~progress_watchdog()
    {
        if (!thread_.joinable())
            return;
        {
            std::lock_guard<std::mutex> g(mu_);
            done_ = true;
        }
        cv_.notify_one();
        thread_.join();
    }
    progress_watchdog(const progress_watchdog &) = delete;
    progress_watchdog &operator=(const progress_watchdog &) = delete;

private:
    void run()
    {
        using clk = std::chrono::steady_clock;  // CLOCK_MONOTONIC, as progress_meter::now()
        auto at = [&](double t) {
            return clk::time_point(std::chrono::duration_cast<clk::duration>(std::chrono::duration<double>(t)));
        };
        double next = m_.fn ? m_.start + progress_meter::report_every : 0;
        std::unique_lock<std::mutex> g(mu_);
        while (!done_) {
            double wake = next && (!m_.deadline || next < m_.deadline) ? next : m_.deadline;
            if (!wake)
                break;
            if (cv_.wait_until(g, at(wake), [this] { return done_; }))
                break;
            m_.due.store(true, std::memory_order_relaxed);
            double w = progress_meter::now();
            if (m_.deadline && w >= m_.deadline)
                break;  // the deadline is the last thing due: tick() stops the replay
            while (next && next <= w)
                next += progress_meter::report_every;
        }
    }
    progress_meter &m_;
    std::thread thread_;
    std::mutex mu_;
    std::condition_variable cv_;
    bool done_ = false;
};

}  // namespace gd

#endif
