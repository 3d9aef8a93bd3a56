// vp_coexist.cpp - the C API's own replays in a program that has a SystemC
// simulation of its own: a replay before sc_start works and leaves the program's
// context, time and report settings as they were; a replay while the program's
// simulation is running (started, not ended) is refused with GD_ESTATE and a message,
// and nothing changes. Usage: vp_coexist TRACE
#include <cstdio>
#include <cstring>

#include <systemc>

#include "gdsim.h"

using namespace sc_core;

namespace {
int failures = 0;
void check(bool ok, const char *what)
{
    if (!ok) {
        std::fprintf(stderr, "FAILED: %s\n", what);
        failures++;
    }
}

struct counter : sc_module {
    sc_in<bool> clk;
    unsigned ticks = 0;
    SC_CTOR(counter) : clk("clk")
    {
        SC_METHOD(tick);
        sensitive << clk.pos();
        dont_initialize();
    }
    void tick() { ticks++; }
};
}  // namespace

int sc_main(int argc, char **argv)
{
    if (argc != 2) {
        std::fprintf(stderr, "usage: %s TRACE\n", argv[0]);
        return 2;
    }
    sc_set_time_resolution(1, SC_NS);
    sc_clock clk("clk", 10, SC_NS);
    counter c("counter");
    c.clk(clk);
    const sc_actions mine = SC_DISPLAY | SC_LOG;
    sc_report_handler::set_actions(SC_WARNING, mine);
    sc_simcontext *ctx = sc_get_curr_simcontext();

    gd_sim *sim;
    check(gd_sim_new(&sim, NULL) == GD_OK, "gd_sim_new");
    gd_summary before, during;
    check(gd_sim_replay_file(sim, argv[1]) == GD_OK, "a replay before sc_start");
    check(gd_sim_summary(sim, &before) == GD_OK && before.kernels > 0, "its summary");
    check(sc_get_curr_simcontext() == ctx, "the program's context is back");
    check(sc_report_handler::set_actions(SC_WARNING, mine) == mine, "the report actions are the program's");

    sc_start(2500, SC_NS);
    check(sc_time_stamp() == sc_time(2500, SC_NS), "the program's simulation runs at its own resolution");
    int rc = gd_sim_replay_file(sim, argv[1]);
    check(rc == GD_ESTATE, "a replay while the program's simulation runs is refused");
    check(std::strstr(gd_sim_errmsg(sim), "cannot replay while the calling program's SystemC simulation is "
                                            "running") != NULL, "the refusal says why");
    std::printf("refused: %s\n", gd_sim_errmsg(sim));
    check(gd_sim_summary(sim, &during) == GD_OK && during.kernels == before.kernels,
          "the earlier results are kept");
    sc_start(500, SC_NS);
    check(sc_time_stamp() == sc_time(3000, SC_NS) && c.ticks == 300, "the program's simulation goes on: 3000 ns, "
                                                                       "300 clock edges");
    std::printf("program time %s, %u clock edges, replay of %llu kernels before sc_start\n",
                sc_time_stamp().to_string().c_str(), c.ticks, (unsigned long long)before.kernels);
    gd_sim_free(sim);
    return failures ? 1 : 0;
}
