// vp_example.cpp - a small virtual platform with gdsim::gpu in it (tb/test_vp.sh runs
// it at 1 ps and at 1 ns resolution and compares):
//
//   driver ---\                         /--> memory (16 MiB at 0)
//              >-- router (bus) ------<
//   gpu.mem --/                         \--> gpu.regs (at 0x10000000)
//   gpu.irq --> driver;   clock --> heartbeat (free-running)
//
// The driver writes a kernel descriptor, two rings and four AQL packets (queue 0: A,
// then B with the barrier bit; queue 1: a barrier-AND on A's signal, then C whose
// signal carries an event), rings the doorbells, waits for the interrupt, checks the
// signals, the registers and the simulated times, then writes an INVALID packet into
// queue 2 and checks the error the GPU reports. It stops the simulation itself; the
// heartbeat's clock would otherwise run for ever.
//
// usage: vp_example ps|ns [KERNELS_CSV]
//        vp_example ns-1980  (a 1980 MHz clock at 1 ns: the GPU refuses it; exit 3)
//        vp_example lat|lat-dmi|lat-quantum [KERNELS_CSV]  (at 1 ns, every memory
//            access annotated with 20 ns: through b_transport, through DMI, and
//            with a 1 us global quantum; all three give the same times)
#include <cstdio>
#include <cstring>
#include <stdexcept>
#include <string>

#include "driver.hpp"
#include "platform.hpp"

using namespace sc_core;

namespace {

const uint64_t GPU_REGS = 0x10000000, DESC = 0x1000, SIG = 0x3000, RING0 = 0x10000, RING1 = 0x20000, RING2 = 0x30000;

struct example_driver : vp::driver_base {
    sc_in<bool> irq;
    gdsim::gpu *gpu = nullptr;
    uint64_t irq_ns = 0, done_ns = 0;
    VP_HAS_PROCESS(example_driver);
    explicit example_driver(sc_module_name n) : driver_base(n, GPU_REGS), irq("irq") { SC_THREAD(run); }

    uint64_t now_ns() const { return (uint64_t)(sc_time_stamp().to_seconds() * 1e9 + 0.5); }
    uint64_t sig(int i) const { return SIG + 16 * (uint64_t)i; }

    void run()
    {
        using g = gdsim::gpu;
        check(reg_read(g::REG_ID) == g::ID_VALUE, "ID register");
        put_descriptor(DESC, 1, 256, 32, 0, 2000000, "vp_kernel");  // 256 threads, 2 us per CTA
        for (int i = 0; i < 4; i++) {
            write64(sig(i), 1);                          // armed: one packet will complete it
            write64(sig(i) + 8, i == 3 ? 0xC0DE : 0);    // C's signal asks for an interrupt
        }
        const uint64_t rings[3] = {RING0, RING1, RING2};
        for (unsigned q = 0; q < 3; q++) {
            reg_write(qreg(q, g::Q_BASE), rings[q]);
            reg_write(qreg(q, g::Q_SIZE), 8);
            reg_write(qreg(q, g::Q_ENABLE), 1);
        }
        reg_write(g::REG_INT_ENABLE, 0x3 | 1ull << g::CAUSE_ERROR);
        wait(1, SC_US);
        // queue 0: A (132 CTAs: one per SM), B behind it with the barrier bit
        put_dispatch(RING0 + 0 * 64, true, 256, 132 * 256, DESC, 0, sig(0));
        put_dispatch(RING0 + 1 * 64, true, 256, 132 * 256, DESC, 0, sig(1));
        // queue 1: barrier-AND on A's signal, then C
        put_barrier_and(RING1 + 0 * 64, {sig(0)}, sig(2));
        put_dispatch(RING1 + 1 * 64, false, 256, 132 * 256, DESC, 0, sig(3));
        reg_write(qreg(0, g::Q_DOORBELL), 2);
        reg_write(qreg(1, g::Q_DOORBELL), 2);
        check((reg_read(g::REG_STATUS) & g::STATUS_BUSY) != 0, "busy after the doorbells");

        wait(irq.posedge_event());
        irq_ns = now_ns();
        check(reg_read(g::REG_INT_CAUSE) == 2, "interrupt cause: queue 1");
        check(reg_read(g::REG_EVENT) == 0xC0DE, "event word of C's signal");
        check(read64(sig(3)) == 0, "C's signal is 0 when the interrupt comes");
        reg_write(g::REG_INT_CAUSE, 2);  // acknowledge
        wait(SC_ZERO_TIME);
        check(!irq.read(), "interrupt line low once acknowledged");
        while (reg_read(g::REG_COMPLETED) < 4)
            wait(100, SC_NS);
        done_ns = now_ns();
        for (int i = 0; i < 4; i++)
            check(read64(sig(i)) == 0, "every completion signal decremented to 0");
        check(reg_read(qreg(0, g::Q_READ)) == 2 && reg_read(qreg(1, g::Q_READ)) == 2, "read indices");
        check((reg_read(g::REG_STATUS) & g::STATUS_BUSY) == 0, "idle at the end");
        check(gpu->kernels_completed() == 3 && gpu->error().empty(), "three kernels, no error");

        // an INVALID packet in queue 2: the queue stops with an error
        uint8_t invalid[64] = {1, 0};
        write(RING2, invalid, 64);
        reg_write(qreg(2, g::Q_DOORBELL), 1);
        wait(irq.posedge_event());
        uint64_t err = reg_read(g::REG_ERROR);
        check(reg_read(g::REG_INT_CAUSE) == 1ull << g::CAUSE_ERROR, "interrupt cause: error");
        check((err & 0xffff) == g::ERR_PACKET && (err >> 16 & 0xffff) == 2 && (err >> 32) == 0,
              "error register: bad packet, queue 2, packet 0");
        check((reg_read(g::REG_STATUS) & g::STATUS_ERROR) != 0, "status shows the error");
        check(gpu->error().find("INVALID") != std::string::npos, "error text names the INVALID packet");
        reg_write(g::REG_INT_CAUSE, 1ull << g::CAUSE_ERROR);
        check(reg_read(g::REG_ERROR) == 0 && gpu->error().empty(), "error acknowledged");
        wait(1005, SC_NS);  // the platform goes on a little longer (between clock edges), then ends
        sc_stop();
    }
};

}  // namespace

int sc_main(int argc, char **argv)
{
    const std::string mode = argc > 1 ? argv[1] : "";
    if (mode != "ps" && mode != "ns" && mode != "ns-1980" && mode != "lat" && mode != "lat-dmi" &&
        mode != "lat-quantum") {
        std::fprintf(stderr, "usage: %s ps|ns|ns-1980|lat|lat-dmi|lat-quantum [KERNELS_CSV]\n", argv[0]);
        return 2;
    }
    sc_set_time_resolution(1, mode == "ps" ? SC_PS : SC_NS);
    if (mode == "ns-1980") {
        try {
            gdsim::gpu g("gpu", {{"gpu.preset", "h100"}});
        } catch (const std::invalid_argument &e) {
            std::printf("refused: %s\n", e.what());
            return 3;
        }
        return 1;
    }

    const bool lat = mode.compare(0, 3, "lat") == 0;
    vp::memory ram("ram", 16u << 20, lat ? sc_time(20, SC_NS) : SC_ZERO_TIME, mode != "lat" && mode != "lat-quantum");
    if (mode == "lat-quantum")
        tlm::tlm_global_quantum::instance().set(sc_time(1, SC_US));
    vp::router bus("bus");
    example_driver cpu("cpu");
    gdsim::gpu gpu("gpu", {{"gpu.preset", "h100"},
                           {"frontend.clock_mhz", "1000"},   // a 1 ns cycle: every latency is whole ns
                           {"pp.fetch_cycles", "50"},
                           {"pp.decode_cycles", "0"},
                           {"pp.completion_cycles", "0"},
                           {"pp.barrier_cycles", "0"},
                           {"cwd.grid_launch_cycles", "0"},
                           {"cwd.cta_launch_cycles", "0"},
                           {"cwd.query_cycles", "0"},
                           {"cwd.cga_flush_cycles", "0"},
                           {"cwd.id_broadcast_cycles", "0"},
                           {"cwd.mask_launch_cycles", "0"},
                           {"meta.check_cycles", "0"},
                           {"meta.launch_cycles", "0"},
                           // launch gaps no longer than the latencies above: a queued packet
                           // goes as soon as its barrier bit lets it (pp.gap_*_ns)
                           {"pp.gap_kernel_kernel_ns", "0"},
                           {"pp.gap_kernel_copy_ns", "0"},
                           {"pp.gap_copy_kernel_ns", "0"},
                           {"pp.gap_copy_copy_ns", "0"},
                           {"pp.gap_graph_kernel_kernel_ns", "0"},
                           {"pp.gap_graph_kernel_copy_ns", "0"},
                           {"pp.gap_graph_copy_kernel_ns", "0"},
                           {"pp.gap_graph_copy_copy_ns", "0"},
                           {"pp.gap_after_wait_ns", "0"}});
    sc_signal<bool> irq("irq");
    sc_clock clk("clk", 10, SC_NS);
    vp::heartbeat beat("beat");

    vp::wire(cpu, bus, ram, gpu, irq);
    cpu.irq(irq);
    cpu.gpu = &gpu;
    beat.clk(clk);

    sc_start();  // returns when the driver calls sc_stop

    const uint64_t end_ns = (uint64_t)(sc_time_stamp().to_seconds() * 1e9 + 0.5);
    std::printf("interrupt at %llu ns, all complete by %llu ns, simulation ended at %llu ns\n",
                (unsigned long long)cpu.irq_ns, (unsigned long long)cpu.done_ns, (unsigned long long)end_ns);
    std::printf("heartbeat: %llu rising edges (every 10 ns from 0)\n", (unsigned long long)beat.ticks);
    std::printf("gpu: %llu kernels dispatched, %llu completed; error: %s\n",
                (unsigned long long)gpu.kernels_dispatched(), (unsigned long long)gpu.kernels_completed(),
                gpu.error().c_str());
    if (beat.ticks != end_ns / 10 + 1) {
        std::fprintf(stderr, "the platform's clock did not keep running\n");
        return 1;
    }
    if (argc > 2 && gpu.write_kernels_csv(argv[2]) != GD_OK) {
        std::fprintf(stderr, "%s\n", gpu.last_io_error().c_str());
        return 1;
    }
    return cpu.failures ? 1 : 0;
}
