// tb_blocks.cpp - SystemC testbenches of single blocks: each block is bound to
// stub neighbours that drive its sockets and record what comes back.
#include <cstdlib>
#include <cstring>
#include <functional>
#include <initializer_list>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include <systemc>
#include <tlm>
#include <tlm_utils/simple_initiator_socket.h>
#include <tlm_utils/simple_target_socket.h>

#include "config.h"
#include "domain.hpp"
#include "gpc2sm.hpp"
#include "gpu2gpc.hpp"
#include "packet_processor.hpp"
#include "reference_state_buffer.hpp"
#include "sc_compat.hpp"
#include "sm.hpp"

// After the C++ headers: check.h defines a fail() macro that libstdc++ headers trip over.
#include <check.h>
#include "tb_util.h"

using namespace sc_core;

// libsystemc needs an sc_main; this program drives the kernel from Check's main.
extern "C" int sc_main(int, char **) { return 0; }

// Each test gets its own simulation context (Check forks per test by default; this
// also keeps the tests independent when run without fork).
static void fresh_context()
{
    setenv("SYSTEMC_DISABLE_COPYRIGHT_MESSAGE", "1", 1);
    sc_curr_simcontext = new sc_simcontext;
    sc_default_global_context = sc_curr_simcontext;
    sc_report_handler::set_actions(SC_INFO, SC_DO_NOTHING);
    sc_report_handler::set_actions(SC_WARNING, SC_DO_NOTHING);
}

static gd_config small_config(uint32_t sms, std::initializer_list<std::pair<const char *, const char *>> more = {})
{
    gd_settings *s = gd_settings_new();
    for (const auto &kv : more)
        gd_settings_set(s, kv.first, kv.second, nullptr);
    char n[16];
    snprintf(n, sizeof n, "%u", sms);
    gd_settings_set(s, "gpu.preset", "h100", nullptr);
    gd_settings_set(s, "gpu.gpcs", "1", nullptr);
    gd_settings_set(s, "gpu.sms_per_gpc", n, nullptr);
    gd_settings_set(s, "frontend.clock_mhz", "1000", nullptr);
    gd_settings_set(s, "pp.fetch_cycles", "100", nullptr);
    gd_settings_set(s, "pp.decode_cycles", "10", nullptr);
    gd_settings_set(s, "pp.completion_cycles", "50", nullptr);
    gd_settings_set(s, "cwd.grid_launch_cycles", "200", nullptr);
    for (const char *g : {"pp.gap_kernel_kernel_ns", "pp.gap_kernel_copy_ns", "pp.gap_copy_kernel_ns", "pp.gap_copy_copy_ns", "pp.gap_graph_kernel_kernel_ns", "pp.gap_graph_kernel_copy_ns", "pp.gap_graph_copy_kernel_ns", "pp.gap_graph_copy_copy_ns", "pp.gap_after_wait_ns"})
        gd_settings_set(s, g, "0", nullptr);  // a queued packet goes as soon as its barrier bit lets it
    gd_config c;
    ck_assert_int_eq(gd_config_resolve(&c, s, nullptr, nullptr), GD_OK);
    gd_settings_free(s);
    return c;
}

static gd_kernel_desc kernel(uint32_t threads, uint32_t regs, uint64_t cta_ns, const gd_config &c)
{
    gd_kernel_desc k;
    std::memset(&k, 0, sizeof k);
    k.name = (char *)"k";
    k.threads_per_cta = threads;
    k.regs_per_thread = regs;
    k.exec_model = GD_EXEC_FIXED_CTA;
    k.cta_duration_ps = cta_ns * 1000;
    gd_cta_shape shape = {threads, regs, 0};
    gd_occupancy_compute(&k.occ, &c.sm, &shape, c.sm.smem_per_cta_optin, nullptr);
    return k;
}

// A kernel's run record as the distributor makes it: its descriptor and CTA time.
static gd_kernel_run run_of(const gd_kernel_desc &k)
{
    gd_kernel_run run;
    std::memset(&run, 0, sizeof run);
    run.desc = &k;
    run.cta_ps = k.cta_duration_ps;
    return run;
}

// ---------------------------------------------------------------------------
// SM: answers a CTA start with start + duration, counts CTAs and warp-time.

struct driver : sc_module {
    tlm_utils::simple_initiator_socket<driver> out{"out"};
    gd::channel ch;
    explicit driver(sc_module_name n) : sc_module(n) {}
};

// ---------------------------------------------------------------------------
// The event domain (domain.hpp): wake-ups in time order and, at one time, in the order
// asked for; the earliest request stands; a cancelled one does not run; it runs ahead
// of SystemC time until something outside the domain has activity, and a block that
// told something outside (touched) makes it look again.

struct dom_member {
    gd::domain::event ev;
    const char *name;
    std::vector<std::string> *log;
    std::function<void(gd_time_ps)> then;
    dom_member(gd::domain &d, const char *n, std::vector<std::string> *l)
        : ev(d, this, &gd::domain::call<dom_member, &dom_member::wake>), name(n), log(l)
    {
    }
    void wake(gd_time_ps t)
    {
        log->push_back(std::string(name) + "@" + std::to_string(t) + "/" + std::to_string(gd::now_ps()));
        if (then)
            then(t);
    }
};

struct dom_outsider : sc_module {
    std::vector<std::string> *log;
    sc_event ev;
    GD_SC_HAS_PROCESS(dom_outsider);
    dom_outsider(sc_module_name n, std::vector<std::string> *l) : sc_module(n), log(l)
    {
        SC_METHOD(run);
        sensitive << ev;
        dont_initialize();
    }
    void run() { log->push_back("out@" + std::to_string(gd::now_ps())); }
};

START_TEST(event_domain_orders_and_runs_ahead)
{
    fresh_context();
    std::vector<std::string> log;
    gd::domain d("events");
    dom_member a(d, "a", &log), b(d, "b", &log), c(d, "c", &log);
    dom_outsider out("out", &log);
    a.ev.notify(100);
    b.ev.notify(100);
    a.ev.notify(50);   // the earliest request stands: a runs at 50, not 100
    c.ev.notify(70);
    c.ev.cancel();     // c does not run
    b.ev.notify(120);  // later than b's pending 100: ignored
    a.then = [&](gd_time_ps t) {
        if (t == 50)
            a.ev.notify(100);  // asked for after b's: runs after b at 100
    };
    b.then = [&](gd_time_ps t) {
        if (t == 100) {
            out.ev.notify(gd::ps_time(150 - gd::now_ps()));  // something outside the domain at 150
            d.touched();
            b.ev.notify(200);  // after the outsider: the domain stops before 150
        }
    };
    sc_start();
    // the domain's process wakes at its first wake-up (50); b and a at 100 run ahead of
    // SystemC time (still 50); b at 200 is not run ahead past the outsider at 150: the
    // process wakes again at 200
    const std::vector<std::string> want = {"a@50/50", "b@100/50", "a@100/50", "out@150", "b@200/200"};
    ck_assert_uint_eq(log.size(), want.size());
    for (size_t i = 0; i < want.size(); i++)
        ck_assert_str_eq(log[i].c_str(), want[i].c_str());
    ck_assert_uint_eq(*d.activations(), 2);
    ck_assert_uint_eq(*d.wakeups(), 4);
    ck_assert_uint_eq(d.last(), 200);
}
END_TEST

START_TEST(sm_runs_cta)
{
    fresh_context();
    gd_config c = small_config(1);
    gd_kernel_desc k = kernel(256, 64, 1500, c);
    gd_kernel_run run = run_of(k);
    driver d("d");
    gd::sm s("sm", 0, nullptr);
    d.out.bind(s.launch_in);
    gd::sm_launch_body b{7000, &run, &k.occ.cost, 0, nullptr, 1};
    sc_time delay = gd::ps_time(7000);
    d.ch.call(d.out, gd::op::sm_launch, &b, delay);
    ck_assert_uint_eq(b.end, 7000 + 1500000);
    ck_assert_uint_eq(s.ctas(), 1);
    ck_assert_uint_eq(s.warp_ps(), 8ull * 1500000);
}
END_TEST

// ---------------------------------------------------------------------------
// GPC2SM: placement order, the retirement calendar, grouping, conditional launch.

struct gpc_bench {
    driver d{"d"};
    gd::gpc2sm gpc;
    std::vector<std::unique_ptr<gd::sm>> sms;
    gpc_bench(const gd_config &c, uint32_t n) : gpc("gpc", 0, 0, n, c, nullptr)
    {
        d.out.bind(gpc.cwd_in);
        for (uint32_t i = 0; i < n; i++) {
            sms.emplace_back(new gd::sm(("sm" + std::to_string(i)).c_str(), i, nullptr));
            gpc.sm_out[i]->bind(sms[i]->launch_in);
        }
    }
    uint32_t select(const gd_kernel_desc &k)
    {
        gd::gpc_select_body b{&k.occ.cost, 0};
        sc_time z = SC_ZERO_TIME;
        d.ch.call(d.out, gd::op::gpc_select, &b, z);
        return b.max_free;
    }
    gd::gpc_step_body step(gd_time_ps at, gd_kernel_run *launch, bool cond = false, uint32_t beat_free = 0,
                           uint32_t beat_gpc = 0)
    {
        gd::gpc_step_body b;
        std::memset(&b, 0, sizeof b);
        b.at = at;
        b.launch = launch;
        b.conditional = cond;
        b.beat_free = beat_free;
        b.beat_gpc = beat_gpc;
        b.gpc = 1;
        sc_time delay = gd::ps_time(at);
        d.ch.call(d.out, gd::op::gpc_step, &b, delay);
        return b;
    }
};

START_TEST(gpc2sm_places_and_retires)
{
    fresh_context();
    gd_config c = small_config(3);
    gd_kernel_desc k = kernel(1024, 32, 1000, c); // 2 per SM
    gd_kernel_run run = run_of(k);
    gpc_bench t(c, 3);
    ck_assert_uint_eq(t.select(k), 2);
    uint32_t expect_sm[] = {0, 1, 2, 0, 1, 2};
    for (int i = 0; i < 6; i++) {
        gd::gpc_step_body b = t.step(100 + i, &run);
        ck_assert(b.launched);
        ck_assert_uint_eq(b.sm, expect_sm[i]);
        ck_assert_uint_eq(b.end, 100 + i + 1000000);
        ck_assert_uint_eq(b.next_retire, 100 + 1000000);
        ck_assert_uint_eq(b.max_free, i < 2 ? 2 : i < 5 ? 1 : 0);
    }
    gd::gpc_step_body full = t.step(200, &run);
    ck_assert(!full.launched); // no free slot
    // Retire everything that ends by 1000102: three CTAs.
    gd::gpc_step_body r = t.step(1000102, nullptr);
    ck_assert_uint_eq(r.retired, 3);
    ck_assert_uint_eq(r.max_free, 1);
    ck_assert_uint_eq(r.next_retire, 1000103);
    // Conditional launch: refused when another GPC has as many free slots and a lower index ...
    gd::gpc_step_body c1 = t.step(1000103, &run, true, 2, 0);
    ck_assert(!c1.launched);
    ck_assert_uint_eq(c1.retired, 1); // the retirement at 1000103 still happened
    // ... accepted when this GPC beats the others.
    gd::gpc_step_body c2 = t.step(1000104, &run, true, 1, 0);
    ck_assert(c2.launched);
    ck_assert_uint_eq(c2.sm, 0); // SM0 and SM1 had 2 free after the retirements, SM2 1
    // A retirement handed over late (at a later time) still frees its slot.
    gd::gpc_step_body late = t.step(5000000, nullptr);
    ck_assert_uint_eq(late.retired, 2); // the CTAs that ended at 1000105 and 2000104
    ck_assert_uint_eq(late.next_retire, UINT64_MAX);
    ck_assert_uint_eq(late.max_free, 2);
}
END_TEST

// GPC2SM starts CTAs through each SM's direct interface (sm_msg.hpp) where the SM grants
// one, and by sm_launch transactions where it does not: an SM model that knows only
// sm_launch (here SM 1) still gets every CTA, and the gdsim SMs count theirs the same.
struct plain_sm : sc_module, gd::fw_target {
    tlm::tlm_target_socket<> launch_in{"launch_in"};
    int launches = 0, refused = 0;
    gd_time_ps extra = 0;  // an SM model of its own timing: its CTAs run this much longer
    explicit plain_sm(sc_module_name n) : sc_module(n) { launch_in.bind(*this); }
    void b_transport(tlm::tlm_generic_payload &p, sc_time &) override
    {
        gd::msg &m = gd::msg_of(p);
        if (m.code != gd::op::sm_launch) {
            refused++;
            p.set_response_status(tlm::TLM_COMMAND_ERROR_RESPONSE);
            return;
        }
        auto *b = static_cast<gd::sm_launch_body *>(m.body);
        b->end = b->at + b->run->cta_ps + extra;
        launches += (int)b->count;
        p.set_response_status(tlm::TLM_OK_RESPONSE);
    }
};

START_TEST(gpc2sm_direct_and_transaction_starts)
{
    fresh_context();
    gd_config c = small_config(3);
    gd_kernel_desc k = kernel(1024, 32, 1000, c);  // 2 per SM
    gd_kernel_run run = run_of(k);
    driver d("d");
    gd::gpc2sm gpc("gpc", 0, 0, 3, c, nullptr);
    d.out.bind(gpc.cwd_in);
    gd::sm_counters kept;  // SM 2 counts where its GPU keeps SMs' counters side by side
    gd::sm s0("sm0", 0, nullptr), s2("sm2", 2, nullptr, nullptr, nullptr, 0, &kept);
    plain_sm s1("sm1");
    gpc.sm_out[0]->bind(s0.launch_in);
    gpc.sm_out[1]->bind(s1.launch_in);
    gpc.sm_out[2]->bind(s2.launch_in);
    gd::gpc_select_body sel{&k.occ.cost, 0};
    sc_time z = SC_ZERO_TIME;
    d.ch.call(d.out, gd::op::gpc_select, &sel, z);
    for (int i = 0; i < 6; i++) {  // SMs 0, 1, 2, 0, 1, 2
        gd::gpc_step_body b;
        std::memset(&b, 0, sizeof b);
        b.at = 100 + i;
        b.launch = &run;
        sc_time delay = gd::ps_time(b.at);
        d.ch.call(d.out, gd::op::gpc_step, &b, delay);
        ck_assert(b.launched);
        ck_assert_uint_eq(b.end, 100 + i + 1000000);
    }
    // all six end by 1000105; then an SM mask of two CTAs on each SM at 2000000 (under
    // gpc2sm.group_ctas=on one record for SMs 0 and 2, which end together, and one for
    // SM 1, whose model runs its CTAs 500 ps longer)
    s1.extra = 500;
    const uint32_t take[3] = {2, 2, 2};
    gd::gpc_launch_body l;
    std::memset(&l, 0, sizeof l);
    l.at = 2000000;
    l.run = &run;
    l.cost = &k.occ.cost;
    l.take = take;
    sc_time delay = gd::ps_time(l.at);
    d.ch.call(d.out, gd::op::gpc_launch, &l, delay);
    ck_assert_uint_eq(l.launched, 6);
    ck_assert_uint_eq(l.end, 3000500);
    ck_assert_uint_eq(l.warp_ps, 32ull * 2 * (2 * 1000000 + 1000500));
    ck_assert_uint_eq(l.next_retire, 3000000);
    ck_assert_int_eq(s1.refused, 1);  // asked once for a direct interface
    ck_assert_int_eq(s1.launches, 4);
    ck_assert_uint_eq(s0.ctas(), 4);
    ck_assert_uint_eq(s2.ctas(), 4);
    ck_assert_uint_eq(s0.warp_ps(), 4 * 32ull * 1000000);  // 32 warps each
    ck_assert_uint_eq(s2.warp_ps(), 4 * 32ull * 1000000);
    ck_assert_uint_eq(kept.ctas, 4);
    ck_assert_uint_eq(kept.warp_ps, 4 * 32ull * 1000000);
    // SMs 0 and 2 retire theirs at 3000000, SM 1 at 3000500
    gd::gpc_step_body r;
    std::memset(&r, 0, sizeof r);
    r.at = 3000000;
    delay = gd::ps_time(r.at);
    d.ch.call(d.out, gd::op::gpc_step, &r, delay);
    ck_assert_uint_eq(r.retired, 4);
    ck_assert_uint_eq(r.max_free, 2);
    ck_assert_uint_eq(r.next_retire, 3000500);
    r.at = 3000500;
    delay = gd::ps_time(r.at);
    d.ch.call(d.out, gd::op::gpc_step, &r, delay);
    ck_assert_uint_eq(r.retired, 2);
    ck_assert_uint_eq(r.next_retire, GD_TIME_NEVER);
}
END_TEST

// GPC2SM's CGA operations (cwd.policy=cga): the query answers without changing
// anything; an SM mask starts all its CTAs at one time; a GPC-CGA holds its
// gpc_local_cga_id until its last CTA has ended and the flush (100 cycles) is done.
START_TEST(gpc2sm_cga_query_and_launch)
{
    fresh_context();
    gd_config c = small_config(4, {{"cwd.policy", "cga"}, {"cwd.gpc_cga_ids", "1"}, {"cwd.cga_flush_cycles", "100"}});
    gd_kernel_desc k = kernel(1024, 32, 1000, c);  // 2 per SM
    gd_kernel_run run = run_of(k);
    run.cluster = gd_cluster_none();
    gpc_bench t(c, 4);
    ck_assert_uint_eq(t.select(k), 2);
    gd::gpc_query_body q;
    std::memset(&q, 0, sizeof q);
    q.ctas = 3;
    q.mode = GD_CGA_MULTICAST;
    q.cga = true;
    sc_time z = SC_ZERO_TIME;
    t.d.ch.call(t.d.out, gd::op::gpc_query, &q, z);
    ck_assert_int_eq(q.speed, 1);  // SMs 0-2, one CTA each, 1 slot left on each
    ck_assert_uint_eq(q.take[0] + q.take[1] + q.take[2], 3);
    ck_assert_uint_eq(q.take[3], 0);
    gd::gpc_launch_body l;
    std::memset(&l, 0, sizeof l);
    l.at = 500;
    l.run = &run;
    l.cost = &k.occ.cost;
    l.take = q.take;
    l.cga = true;
    sc_time d = gd::ps_time(500);
    t.d.ch.call(t.d.out, gd::op::gpc_launch, &l, d);
    ck_assert_uint_eq(l.launched, 3);
    ck_assert_uint_eq(l.end, 500 + 1000000);
    ck_assert_uint_eq(l.warp_ps, 3ull * 32 * 1000000);
    ck_assert_uint_eq(l.max_free, 2);  // SM3
    // the only id is taken: the next query finds no room, whatever the slots
    t.d.ch.call(t.d.out, gd::op::gpc_query, &q, z);
    ck_assert_int_eq(q.speed, -1);
    // the CTAs retire at 1000500, the id comes back 100 cycles later
    gd::gpc_step_body r = t.step(1000500, nullptr);
    ck_assert_uint_eq(r.retired, 3);
    ck_assert_uint_eq(r.next_retire, 1000500 + 100000);
    t.d.ch.call(t.d.out, gd::op::gpc_query, &q, z);
    ck_assert_int_eq(q.speed, -1);
    r = t.step(1100500, nullptr);
    ck_assert_uint_eq(r.next_retire, UINT64_MAX);
    t.d.ch.call(t.d.out, gd::op::gpc_query, &q, z);
    ck_assert_int_eq(q.speed, 1);
}
END_TEST

// ---------------------------------------------------------------------------
// GPU2GPC with real GPC2SM and SMs, driven by a stub packet processor.

struct stub_pp : sc_module {
    tlm_utils::simple_initiator_socket<stub_pp> dispatch_out{"dispatch_out"};
    tlm_utils::simple_target_socket<stub_pp> done_in{"done_in"};
    std::vector<std::pair<gd_time_ps, gd_kernel_run *>> done;
    std::vector<gd_kernel_run *> to_send;
    std::vector<gd_time_ps> send_at;
    std::vector<bool> accepted;
    gd::channel ch;
    sc_event ev;
    size_t next = 0;
    GD_SC_HAS_PROCESS(stub_pp);
    explicit stub_pp(sc_module_name n) : sc_module(n)
    {
        done_in.register_b_transport(this, &stub_pp::on_done);
        SC_METHOD(send);
        sensitive << ev;
    }
    void send()
    {
        while (next < to_send.size() && send_at[next] <= gd::now_ps()) {
            gd::dispatch_body b{to_send[next], false};
            sc_time z = SC_ZERO_TIME;
            ch.call(dispatch_out, gd::op::dispatch, &b, z);
            accepted.push_back(b.accepted);
            next++;
        }
        if (next < to_send.size())
            ev.notify(gd::ps_time(send_at[next] - gd::now_ps()));
    }
    void on_done(tlm::tlm_generic_payload &p, sc_time &delay)
    {
        auto *b = static_cast<gd::kernel_done_body *>(gd::msg_of(p).body);
        done.emplace_back(gd::now_ps() + gd::ps_of(delay), b->run);  // at sc_time_stamp() + delay (TLM-2.0 LT)
        p.set_response_status(tlm::TLM_OK_RESPONSE);
    }
};

START_TEST(gpu2gpc_runs_kernels)
{
    fresh_context();
    gd_config c = small_config(2, {{"cwd.policy", "baseline"}});
    c.cwd_max_resident_kernels = 2;
    gd_kernel_desc k = kernel(1024, 32, 1000, c);
    gd_kernel_run runs[3];
    std::memset(runs, 0, sizeof runs);
    uint32_t ctas[3] = {5, 1, 1};
    stub_pp pp("pp");
    gd::gpu2gpc cwd("cwd", c, nullptr);
    gd::gpc2sm gpc("gpc", 0, 0, 2, c, nullptr);
    gd::sm s0("s0", 0, nullptr), s1("s1", 1, nullptr);
    pp.dispatch_out.bind(cwd.dispatch_in);
    cwd.done_out.bind(pp.done_in);
    cwd.gpc_out[0]->bind(gpc.cwd_in);
    gpc.sm_out[0]->bind(s0.launch_in);
    gpc.sm_out[1]->bind(s1.launch_in);
    for (int i = 0; i < 3; i++) {
        runs[i].desc = &k;
        runs[i].cta_ps = k.cta_duration_ps;
        runs[i].ctas = ctas[i];
        runs[i].index = i;
        pp.to_send.push_back(&runs[i]);
        pp.send_at.push_back(i == 0 ? 0 : 10000); // the third finds two kernels resident
    }
    sc_start();
    // Kernel 0: CTAs at 200..203 ps*1000, the fifth at 1200 after the first retirement.
    ck_assert_uint_eq(runs[0].first_cta, 200000);
    ck_assert_uint_eq(runs[0].last_cta, 1200000);
    ck_assert_uint_eq(runs[0].end, 2200000);
    ck_assert_uint_eq(pp.accepted.size(), 3);
    ck_assert(pp.accepted[0] && pp.accepted[1] && !pp.accepted[2]);
    // Kernel 1 queued behind kernel 0: its CTA takes the slot freed at 1201 ns.
    ck_assert_uint_eq(runs[1].first_cta, 1201000);
    ck_assert_uint_eq(pp.done.size(), 2); // completions in time order
    ck_assert_uint_eq(pp.done[0].first, 2200000);
    ck_assert_ptr_eq(pp.done[0].second, &runs[0]);
    ck_assert_uint_eq(pp.done[1].first, 2201000);
    ck_assert_ptr_eq(pp.done[1].second, &runs[1]);
    ck_assert_uint_eq(runs[1].end, 2201000);
}
END_TEST

// ---------------------------------------------------------------------------
// Packet processor with a stub host and a stub distributor.

struct stub_host : sc_module {
    tlm_utils::simple_initiator_socket<stub_host> doorbell_out{"doorbell_out"};
    tlm_utils::simple_target_socket<stub_host> space_in{"space_in"};
    gd::channel ch;
    int spaces = 0, completed = 0;
    explicit stub_host(sc_module_name n) : sc_module(n)
    {
        space_in.register_b_transport(this, &stub_host::on_space);
    }
    void on_space(tlm::tlm_generic_payload &p, sc_time &)
    {
        (gd::msg_of(p).code == gd::op::packet_completed ? completed : spaces)++;
        p.set_response_status(tlm::TLM_OK_RESPONSE);
    }
    bool submit(gd_kernel_run *r)
    {
        gd::submit_body b{r, false};
        sc_time z = SC_ZERO_TIME;
        ch.call(doorbell_out, gd::op::submit, &b, z);
        return b.accepted;
    }
};

struct stub_cwd : sc_module {
    tlm_utils::simple_target_socket<stub_cwd> dispatch_in{"dispatch_in"};
    tlm_utils::simple_initiator_socket<stub_cwd> done_out{"done_out"};
    std::vector<std::pair<gd_time_ps, gd_kernel_run *>> got;
    gd::channel ch;
    sc_event ev;
    std::vector<gd_kernel_run *> finishing;
    GD_SC_HAS_PROCESS(stub_cwd);
    explicit stub_cwd(sc_module_name n) : sc_module(n)
    {
        dispatch_in.register_b_transport(this, &stub_cwd::on_dispatch);
        SC_METHOD(finish);
        sensitive << ev;
        dont_initialize();
    }
    // Every kernel runs 1000 ns from its dispatch (at sc_time_stamp() + delay: TLM-2.0 LT).
    void on_dispatch(tlm::tlm_generic_payload &p, sc_time &delay)
    {
        auto *b = static_cast<gd::dispatch_body *>(gd::msg_of(p).body);
        const gd_time_ps t = gd::now_ps() + gd::ps_of(delay);
        got.emplace_back(t, b->run);
        b->run->dispatched = t;
        b->run->end = t + 1000000;
        b->accepted = true;
        finishing.push_back(b->run);
        ev.notify(gd::ps_time(b->run->end - gd::now_ps()));
        p.set_response_status(tlm::TLM_OK_RESPONSE);
    }
    void finish()
    {
        for (auto it = finishing.begin(); it != finishing.end();) {
            if ((*it)->end <= gd::now_ps()) {
                gd::kernel_done_body b{*it};
                sc_time z = SC_ZERO_TIME;
                ch.call(done_out, gd::op::kernel_done, &b, z);
                it = finishing.erase(it);
            } else {
                ++it;
            }
        }
    }
};

struct pp_host_driver : sc_module {
    stub_host &host;
    std::vector<gd_kernel_run *> runs;
    std::vector<bool> accepted;
    GD_SC_HAS_PROCESS(pp_host_driver);
    pp_host_driver(sc_module_name n, stub_host &h) : sc_module(n), host(h) { SC_METHOD(go); }
    void go()
    {
        for (auto *r : runs)
            accepted.push_back(host.submit(r));
    }
};

START_TEST(packet_processor_orders_and_barriers)
{
    fresh_context();
    gd_config c = small_config(1);
    c.pp_queue_packets = 2;
    gd_run_pool pool;
    std::memset(&pool, 0, sizeof pool);
    gd_report rep;
    ck_assert_int_eq(gd_report_init(&rep, &c, &pool, nullptr), GD_OK);
    gd_kernel_desc k = kernel(256, 32, 1000, c);
    stub_host host("host");
    stub_cwd cwd("cwd");
    gd::packet_processor pp("pp", c, &rep, nullptr);
    host.doorbell_out.bind(pp.doorbell_in);
    pp.space_out.bind(host.space_in);
    pp.dispatch_out.bind(cwd.dispatch_in);
    cwd.done_out.bind(pp.done_in);
    pp_host_driver drv("drv", host);
    // q0: A (barrier), B (barrier); q0 is full for C. q1: D without barrier.
    gd_kernel_run *r[4];
    uint32_t q[4] = {0, 0, 0, 1};
    for (int i = 0; i < 4; i++) {
        r[i] = gd_run_alloc(&pool);
        r[i]->desc = &k;
        r[i]->cta_ps = k.cta_duration_ps;
        r[i]->ctas = 1;
        r[i]->index = i;
        r[i]->queue = q[i];
        r[i]->barrier = i < 3;
        drv.runs.push_back(r[i]);
    }
    std::vector<gd_kernel_run *> seen(r, r + 4);
    sc_start();
    ck_assert(drv.accepted[0] && drv.accepted[1] && !drv.accepted[2] && drv.accepted[3]);
    ck_assert_int_eq(host.spaces, 1); // told when A left q0
    ck_assert_int_eq(host.completed, 3); // A, D, B completed
    ck_assert_uint_eq(cwd.got.size(), 3);
    // A: fetched 100, decoded 110 (q0 decodes first), dispatched 110.
    ck_assert_ptr_eq(cwd.got[0].second, seen[0]);
    ck_assert_uint_eq(cwd.got[0].first, 110000);
    // D (q1): fetched 100, decoded after A at 120, no barrier: dispatched 120.
    ck_assert_ptr_eq(cwd.got[1].second, seen[3]);
    ck_assert_uint_eq(cwd.got[1].first, 120000);
    // B: fetched 210, decoded 220, waits for A's completion signal at 1110 + 50.
    ck_assert_ptr_eq(cwd.got[2].second, seen[1]);
    ck_assert_uint_eq(cwd.got[2].first, 1160000);
    ck_assert_uint_eq(pp.packets(), 3);
    ck_assert_uint_eq(pp.host_stalls(), 1);
    ck_assert_uint_eq(rep.kernels, 3);
    gd_report_destroy(&rep);
    gd_run_pool_destroy(&pool);
}
END_TEST

// ---------------------------------------------------------------------------
// A packet processor with a stub host and a stub distributor, and a reference state
// buffer bound to it when `with_rsb`.
struct pp_rsb_bench {
    gd_run_pool pool;
    gd_report rep;
    gd_kernel_desc k;
    stub_host host{"host"};
    stub_cwd cwd{"cwd"};
    gd::packet_processor pp;
    std::unique_ptr<gd::reference_state_buffer> rsb;
    pp_host_driver drv{"drv", host};
    pp_rsb_bench(const gd_config &c, bool with_rsb) : pp("pp", c, init(c), nullptr)
    {
        k = kernel(256, 32, 1000, c);
        host.doorbell_out.bind(pp.doorbell_in);
        pp.space_out.bind(host.space_in);
        pp.dispatch_out.bind(cwd.dispatch_in);
        cwd.done_out.bind(pp.done_in);
        if (with_rsb) {
            rsb.reset(new gd::reference_state_buffer("rsb", c));
            pp.rsb_out.bind(rsb->pp_in);
        }
    }
    ~pp_rsb_bench()
    {
        gd_report_destroy(&rep);
        gd_run_pool_destroy(&pool);
    }
    gd_report *init(const gd_config &c)
    {
        std::memset(&pool, 0, sizeof pool);
        ck_assert_int_eq(gd_report_init(&rep, &c, &pool, nullptr), GD_OK);
        return &rep;
    }
    gd_kernel_run *run(uint64_t index, uint8_t access, uint8_t ref_num)
    {
        gd_kernel_run *r = gd_run_alloc(&pool);
        r->desc = &k;
        r->cta_ps = k.cta_duration_ps;
        r->ctas = 1;
        r->index = index;
        r->record = 10 + index;
        r->rsb_access = access;
        r->ref_num = ref_num;
        r->ref_pkt.kernel_object = 0x40 + index;
        return r;
    }
    // sc_start; the message of the SystemC error it ends with ("" if none)
    std::string start_expecting_error()
    {
        sc_report_handler::set_actions(SC_ERROR, SC_THROW);
        try {
            sc_start();
        } catch (const sc_report &e) {
            return e.what();
        }
        return "";
    }
};

// Packet processor and reference state buffer, bound by a socket: on one queue a
// reference packet R (ref 3) and two kernels of condensed packets, K (ref 3) and M
// (ref 5, an entry nothing installed), none with the barrier bit. Each RSB access
// takes rsb.access_cycles = 10 ns after decoding: R fetched 100, decoded 110,
// installs its entry 110..120, dispatched 120; K fetched 120..220 (when R left the
// queue), decoded 230, looks up 230..240; M fetched 240..340, decoded 350, looks up
// (a miss) 350..360.
START_TEST(packet_processor_reaches_rsb)
{
    fresh_context();
    gd_config c = small_config(1, {{"rsb.access_cycles", "10"}, {"rsb.entries", "8"}});
    pp_rsb_bench t(c, true);
    t.drv.runs = {t.run(0, 1, 3), t.run(1, 2, 3), t.run(2, 2, 5)};
    sc_start();
    ck_assert_uint_eq(t.cwd.got.size(), 3);
    ck_assert_uint_eq(t.cwd.got[0].first, 120000);
    ck_assert_uint_eq(t.cwd.got[1].first, 240000);
    ck_assert_uint_eq(t.cwd.got[2].first, 360000);
    const gd_rsb &r = t.rsb->table();
    ck_assert_uint_eq(r.installs, 1);
    ck_assert_uint_eq(r.lookups, 2);
    ck_assert_uint_eq(r.misses, 1);
    ck_assert(r.rst.valid[3] && !r.rst.valid[5]);
    ck_assert_uint_eq(r.rst.entry[3].kernel_object, 0x40);
    ck_assert_uint_eq(r.rst.entry[3].reserved0, 3);
}
END_TEST

// Without a reference state buffer bound, a reference packet is an error that
// names its record (a packet processor alone still replays other packets:
// packet_processor_orders_and_barriers binds none).
START_TEST(packet_processor_without_rsb)
{
    fresh_context();
    gd_config c = small_config(1);
    pp_rsb_bench t(c, false);
    t.drv.runs = {t.run(0, 1, 3)};
    std::string what = t.start_expecting_error();
    ck_assert_msg(what.find("record 10: a reference packet needs a reference state buffer and none is bound") !=
                      std::string::npos, "%s", what.c_str());
}
END_TEST

// A transaction its target refuses is a model error naming the socket and the
// operation: here an install beyond a 4-entry buffer (the trace reader refuses such
// a trace first; this is the block's own guard).
START_TEST(rsb_refuses_entry_beyond_table)
{
    fresh_context();
    gd_config c = small_config(1, {{"rsb.entries", "4"}});
    pp_rsb_bench t(c, true);
    t.drv.runs = {t.run(0, 1, 6)};
    std::string what = t.start_expecting_error();
    ck_assert_msg(what.find("pp.rsb_out: operation 'rs' 1 refused (TLM_ADDRESS_ERROR_RESPONSE)") != std::string::npos,
                  "%s", what.c_str());
    ck_assert_uint_eq(t.rsb->table().installs, 0);
}
END_TEST

int main()
{
    Suite *s = suite_create("blocks");
    TCase *tc = tcase_create("testbenches");
    tcase_add_test(tc, event_domain_orders_and_runs_ahead);
    tcase_add_test(tc, sm_runs_cta);
    tcase_add_test(tc, gpc2sm_places_and_retires);
    tcase_add_test(tc, gpc2sm_direct_and_transaction_starts);
    tcase_add_test(tc, gpc2sm_cga_query_and_launch);
    tcase_add_test(tc, gpu2gpc_runs_kernels);
    tcase_add_test(tc, packet_processor_orders_and_barriers);
    tcase_add_test(tc, packet_processor_reaches_rsb);
    tcase_add_test(tc, packet_processor_without_rsb);
    tcase_add_test(tc, rsb_refuses_entry_beyond_table);
    suite_add_tcase(s, tc);
    return tb_run_suite(s);
}
