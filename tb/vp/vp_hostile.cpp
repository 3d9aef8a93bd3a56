// vp_hostile.cpp - what a driver can do wrong, or in an unusual way, to gdsim::gpu
// (issue 42, item 7; tb/test_vp.sh runs every case):
//
//   delayed-doorbell  a doorbell written with an annotated delay (the loosely-timed
//                     driver has not waited it out) rings at the write's time: the
//                     packet it announces does not enter earlier with another
//                     doorbell's packets, whatever the quantum
//   chunks            the platform runs sc_start in 250 ns chunks: kernels_completed()
//                     between them counts the kernels completed by then, as the
//                     COMPLETED register does, never the model's future
//   acknowledge       error() is the error not yet acknowledged: "" once the driver
//                     clears the error's interrupt cause, the next error's text after
//   self-barrier      a barrier-AND on its own completion signal: the queue stops with
//                     a packet error (it would wait for ever)
//   later-barrier     a barrier-AND on the signal of a later packet of its own queue:
//                     likewise, when that packet is read
//   backward-doorbell a doorbell below the last one written (packets announced would
//                     never run): the queue stops with a ring error
//
// usage: vp_hostile CASE   (exit 0: the case behaves as described)
#include <cstdio>
#include <cstring>
#include <fstream>
#include <sstream>
#include <string>

#include "driver.hpp"
#include "platform.hpp"

using namespace sc_core;

namespace {

const uint64_t GPU_REGS = 0x10000000, DESC = 0x1000, SIG = 0x3000, RING0 = 0x10000;
using g = gdsim::gpu;

struct hostile_driver : vp::driver_base {
    sc_in<bool> irq;
    gdsim::gpu *gpu = nullptr;
    std::string mode;
    bool finished = false;
    VP_HAS_PROCESS(hostile_driver);
    hostile_driver(sc_module_name n, const std::string &m) : driver_base(n, GPU_REGS), irq("irq"), mode(m)
    {
        SC_THREAD(run);
    }

    uint64_t sig(int i) const { return SIG + 16 * (uint64_t)i; }
    uint64_t now_ns() const { return (uint64_t)(sc_time_stamp().to_seconds() * 1e9 + 0.5); }

    // A register write whose delay the driver does not wait out (it goes on at once, as
    // a loosely-timed initiator ahead of SystemC's time does): it takes effect at now + d.
    void reg_write_annotated(uint64_t off, uint64_t v, const sc_time &d)
    {
        tlm::tlm_generic_payload p;
        sc_time delay = d;
        p.set_command(tlm::TLM_WRITE_COMMAND);
        p.set_address(gpu_base + off);
        p.set_data_ptr(reinterpret_cast<unsigned char *>(&v));
        p.set_data_length(8);
        p.set_streaming_width(8);
        p.set_response_status(tlm::TLM_INCOMPLETE_RESPONSE);
        bus->b_transport(p, delay);
        check(p.is_response_ok(), "annotated register write");
    }

    void setup()
    {
        check(reg_read(g::REG_ID) == g::ID_VALUE, "ID register");
        put_descriptor(DESC, 1, 256, 32, 0, 2000000, "vp_kernel");  // 2 us per CTA
        for (int i = 0; i < 8; i++) {
            write64(sig(i), 1);
            write64(sig(i) + 8, 0);
        }
        reg_write(qreg(0, g::Q_BASE), RING0);
        reg_write(qreg(0, g::Q_SIZE), 8);
        reg_write(qreg(0, g::Q_ENABLE), 1);
        reg_write(g::REG_INT_ENABLE, 1ull << g::CAUSE_ERROR);
    }

    // Waits for the error interrupt; checks the error register's code and packet and
    // that error() says `text`.
    void expect_error(unsigned code, uint64_t packet, const char *text)
    {
        if (!(reg_read(g::REG_INT_CAUSE) >> g::CAUSE_ERROR & 1))
            wait(irq.posedge_event() | timeout_);
        uint64_t err = reg_read(g::REG_ERROR);
        check(reg_read(g::REG_INT_CAUSE) >> g::CAUSE_ERROR & 1, "the error interrupt's cause is set");
        check((err & 0xffff) == code, "the error register's code");
        check((err >> 32) == packet, "the error register's packet index");
        check(gpu->error().find(text) != std::string::npos, "error() says what went wrong");
        std::printf("%s: error %llu at packet %llu: %s\n", mode.c_str(), (unsigned long long)(err & 0xffff),
                    (unsigned long long)(err >> 32), gpu->error().c_str());
    }
    sc_event timeout_;

    void run()
    {
        timeout_.notify(1, SC_MS);  // a case that hangs fails instead
        setup();
        wait(1, SC_US);
        if (mode == "delayed-doorbell") {
            // packet 0 rung now, packet 1 by a write whose time is 5 us later
            put_dispatch(RING0 + 0 * 64, false, 256, 256, DESC, 0, sig(0));
            put_dispatch(RING0 + 1 * 64, false, 256, 256, DESC, 0, sig(1));
            const uint64_t t0 = now_ns();
            reg_write(qreg(0, g::Q_DOORBELL), 1);
            reg_write_annotated(qreg(0, g::Q_DOORBELL), 2, sc_time(5, SC_US));
            while (reg_read(g::REG_COMPLETED) < 2)
                wait(100, SC_NS);
            rung_ns = t0 + 5000;
        } else if (mode == "chunks") {
            // one CTA of 2 us; the driver sleeps until its completion interrupt, so that
            // nothing outside the GPU acts meanwhile (its model may then run ahead)
            write64(sig(0) + 8, 0xE1);
            reg_write(g::REG_INT_ENABLE, 1 | 1ull << g::CAUSE_ERROR);
            put_dispatch(RING0, false, 256, 256, DESC, 0, sig(0));
            reg_write(qreg(0, g::Q_DOORBELL), 1);
            wait(irq.posedge_event() | timeout_);
            check(reg_read(g::REG_COMPLETED) == 1, "completed when the interrupt comes");
        } else if (mode == "acknowledge") {
            uint8_t invalid[64] = {1, 0};
            write(RING0, invalid, 64);
            reg_write(qreg(0, g::Q_DOORBELL), 1);
            expect_error(g::ERR_PACKET, 0, "INVALID");
            reg_write(g::REG_INT_CAUSE, 1ull << g::CAUSE_ERROR);  // acknowledged
            check(reg_read(g::REG_ERROR) == 0, "the error register is 0 once acknowledged");
            check(gpu->error().empty(), "error() is \"\" once acknowledged");
            // the queue again, and a second error: its own text
            reg_write(qreg(0, g::Q_ENABLE), 0);
            reg_write(qreg(0, g::Q_SIZE), 3);  // not a power of two
            reg_write(qreg(0, g::Q_ENABLE), 1);
            check(gpu->error().find("cannot enable a ring of 3 packets") != std::string::npos,
                  "error() gives the second error's text");
        } else if (mode == "self-barrier") {
            put_barrier_and(RING0, {sig(0)}, sig(0));
            reg_write(qreg(0, g::Q_DOORBELL), 1);
            expect_error(g::ERR_PACKET, 0, "its own completion signal");
        } else if (mode == "later-barrier") {
            put_barrier_and(RING0 + 0 * 64, {sig(1)}, sig(0));
            put_dispatch(RING0 + 1 * 64, false, 256, 256, DESC, 0, sig(1));
            reg_write(qreg(0, g::Q_DOORBELL), 2);
            expect_error(g::ERR_PACKET, 1, "barrier-AND before it in the same queue (packet 0) waits for");
        } else if (mode == "backward-doorbell") {
            put_dispatch(RING0 + 0 * 64, true, 256, 256, DESC, 0, sig(0));
            put_dispatch(RING0 + 1 * 64, true, 256, 256, DESC, 0, sig(1));
            put_dispatch(RING0 + 2 * 64, true, 256, 256, DESC, 0, sig(2));
            reg_write(qreg(0, g::Q_DOORBELL), 3);
            reg_write(qreg(0, g::Q_DOORBELL), 2);  // packet 2 was announced: it would never run
            expect_error(g::ERR_RING, 2, "behind the last one written (3)");
        }
        finished = true;
        sc_stop();
    }
    uint64_t rung_ns = 0;
};

// The kernel table's submit_ns column (times from the platform's start), row by row.
std::vector<double> submits(const char *path)
{
    std::ifstream f(path);
    std::string line;
    std::vector<double> out;
    std::getline(f, line);  // header: submit_ns is the 11th column
    while (std::getline(f, line)) {
        // a quoted name may hold commas: count the columns after its closing quote
        size_t q = line.find("\",");
        std::stringstream s(q == std::string::npos ? line : line.substr(q + 2));
        std::string cell;
        for (int c = q == std::string::npos ? 0 : 2; c <= 10 && std::getline(s, cell, ','); c++) {
        }
        out.push_back(std::stod(cell));
    }
    return out;
}

}  // namespace

int sc_main(int argc, char **argv)
{
    const std::string mode = argc > 1 ? argv[1] : "";
    if (mode != "delayed-doorbell" && mode != "chunks" && mode != "acknowledge" && mode != "self-barrier" &&
        mode != "later-barrier" && mode != "backward-doorbell") {
        std::fprintf(stderr, "usage: %s delayed-doorbell|chunks|acknowledge|self-barrier|later-barrier|"
                     "backward-doorbell [TMPDIR]\n", argv[0]);
        return 2;
    }
    sc_set_time_resolution(1, SC_NS);
    vp::memory ram("ram", 16u << 20, SC_ZERO_TIME, true);
    if (mode == "delayed-doorbell")  // a long quantum: the driver runs far ahead
        tlm::tlm_global_quantum::instance().set(sc_time(10, SC_US));
    vp::router bus("bus");
    hostile_driver cpu("cpu", mode);
    gdsim::gpu gpu("gpu", {{"gpu.preset", "h100"}, {"frontend.clock_mhz", "1000"}});
    sc_signal<bool> irq("irq");
    vp::wire(cpu, bus, ram, gpu, irq);
    cpu.irq(irq);
    cpu.gpu = &gpu;

    if (mode == "chunks") {
        // the platform advances in chunks and looks between them: what the GPU says it
        // completed agrees with its register at every chunk
        uint64_t seen_done_at = 0;
        for (int i = 0; i < 40 && !cpu.finished; i++) {
            sc_start(250, SC_NS);
            uint64_t regs = 0;
            tlm::tlm_generic_payload p;
            p.set_command(tlm::TLM_READ_COMMAND);
            p.set_address(GPU_REGS + g::REG_COMPLETED);
            p.set_data_ptr(reinterpret_cast<unsigned char *>(&regs));
            p.set_data_length(8);
            if (cpu.bus->transport_dbg(p) != 8) {  // a debugger's read, through the bus
                std::fprintf(stderr, "debug read of COMPLETED failed\n");
                return 1;
            }
            if (gpu.kernels_completed() != regs) {
                std::fprintf(stderr, "chunks: at %s kernels_completed() is %llu, the COMPLETED register %llu\n",
                             sc_time_stamp().to_string().c_str(), (unsigned long long)gpu.kernels_completed(),
                             (unsigned long long)regs);
                return 1;
            }
            if (regs && !seen_done_at)
                seen_done_at = (uint64_t)(sc_time_stamp().to_seconds() * 1e9 + 0.5);
        }
        std::printf("chunks: the kernel counted from the chunk ending at %llu ns on, in both\n",
                    (unsigned long long)seen_done_at);
        if (seen_done_at < 3000) {  // rung at 1 us, one CTA of 2 us
            std::fprintf(stderr, "chunks: completed at %llu ns, before its CTA ended\n",
                         (unsigned long long)seen_done_at);
            return 1;
        }
    } else {
        sc_start();
    }
    if (!cpu.finished) {
        std::fprintf(stderr, "%s: the driver did not finish (the GPU hung)\n", mode.c_str());
        return 1;
    }
    if (mode == "delayed-doorbell") {
        const std::string csv = std::string(argc > 2 ? argv[2] : "/tmp") + "/vp_hostile_kernels.csv";
        if (gpu.write_kernels_csv(csv) != GD_OK) {
            std::fprintf(stderr, "%s\n", gpu.last_io_error().c_str());
            return 1;
        }
        std::vector<double> s = submits(csv.c_str());
        std::remove(csv.c_str());
        std::printf("delayed-doorbell: packet 1 rung at %llu ns, entered the packet processor at %.0f ns\n",
                    (unsigned long long)cpu.rung_ns, s.size() > 1 ? s[1] : -1.0);
        if (s.size() != 2 || s[1] < (double)cpu.rung_ns) {
            std::fprintf(stderr, "delayed-doorbell: packet 1 entered before its doorbell's time\n");
            return 1;
        }
    }
    return cpu.failures ? 1 : 0;
}
