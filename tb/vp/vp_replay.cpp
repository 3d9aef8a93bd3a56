// vp_replay.cpp - replay equivalence (issue: per-kernel times through the sockets
// equal the C API's replay): a platform whose driver takes the packets of a gdsim
// trace and writes them, at their submit times, into rings in memory (one ring per
// trace queue), with the trace's kernel descriptors in memory and a 16-byte signal per
// completion-signal handle; then writes gdsim::gpu's kernel table. tb/test_vp.sh
// compares it with `gdsim replay --kernels-csv` of the same trace, kernel by kernel.
// The trace reader is gdsim's internal one (a test may use it; the platform parts use
// only include/gdsim/gpu.hpp).
//
// usage: vp_replay TRACE KERNELS_CSV [key=value ...]
#include <cstdio>
#include <cstring>
#include <map>
#include <string>
#include <vector>

#include "driver.hpp"
#include "platform.hpp"
#include "trace.h"

using namespace sc_core;

namespace {

const uint64_t GPU_REGS = 0x40000000, DESC_BASE = 0x1000, SIG_BASE = 0x200000, RING_BASE = 0x400000,
               RING_PACKETS = 1024, RING_BYTES = RING_PACKETS * 64;

struct replay_driver : vp::driver_base {
    gd_trace_reader *reader;
    uint32_t nqueues;
    std::map<uint32_t, uint64_t> desc_addr;   // descriptor id -> address
    std::map<uint64_t, uint64_t> sig_addr;    // trace handle -> address
    std::vector<uint64_t> write_index;
    uint64_t next_desc = DESC_BASE, packets = 0;
    int error = 0;
    SC_HAS_PROCESS(replay_driver);
    replay_driver(sc_module_name n, gd_trace_reader *r, uint32_t queues)
        : driver_base(n, GPU_REGS), reader(r), nqueues(queues), write_index(queues, 0)
    {
        SC_THREAD(run);
    }

    uint64_t signal(uint64_t handle)
    {
        if (!handle)
            return 0;
        auto it = sig_addr.find(handle);
        if (it != sig_addr.end())
            return it->second;
        uint64_t a = SIG_BASE + 16 * sig_addr.size();
        sig_addr.emplace(handle, a);
        return a;
    }
    void arm(uint64_t addr)
    {
        if (addr)
            write64(addr, read64(addr) + 1);  // the host raises a signal for each packet that will lower it
    }
    void descriptor(const gd_kernel_desc *k)
    {
        std::vector<uint8_t> b(8 + 34);
        auto put = [&](size_t o, uint64_t v, int w) { for (int i = 0; i < w; i++) b[o + i] = (uint8_t)(v >> 8 * i); };
        size_t nl = std::strlen(k->name);
        put(8, k->id, 4);
        put(12, k->threads_per_cta, 4);
        put(16, k->regs_per_thread, 4);
        put(20, k->static_smem, 4);
        put(24, k->dynamic_smem, 4);
        put(28, k->exec_model, 4);
        put(32, k->cta_duration_ps, 8);
        put(40, nl, 2);
        b.insert(b.end(), k->name, k->name + nl);
        if (k->has_insn)
            for (int c = 0; c < GD_INSN_CLASSES; c++)
                for (int i = 0; i < 8; i++)
                    b.push_back((uint8_t)(k->insn[c] >> 8 * i));
        put(0, gdsim::gpu::DESC_MAGIC, 4);
        put(4, b.size() - 8, 4);
        write(next_desc, b.data(), (unsigned)b.size());
        desc_addr[k->id] = next_desc;
        next_desc = (next_desc + b.size() + 63) & ~63ull;
    }
    void put(uint32_t q, const uint8_t pkt[64])
    {
        uint64_t slot = RING_BASE + q * RING_BYTES + (write_index[q] % RING_PACKETS) * 64;
        while (write_index[q] - reg_read(qreg(q, gdsim::gpu::Q_READ)) >= RING_PACKETS)
            wait(1, SC_US);  // the ring is full: wait for the GPU to take packets
        write(slot + 2, pkt + 2, 62);
        write(slot, pkt, 2);  // the header last
        reg_write(qreg(q, gdsim::gpu::Q_DOORBELL), ++write_index[q]);
        packets++;
    }
    void run()
    {
        for (uint32_t q = 0; q < nqueues; q++) {
            reg_write(qreg(q, gdsim::gpu::Q_BASE), RING_BASE + q * RING_BYTES);
            reg_write(qreg(q, gdsim::gpu::Q_SIZE), RING_PACKETS);
            reg_write(qreg(q, gdsim::gpu::Q_ENABLE), 1);
        }
        gd_trace_record rec;
        gd_err err;
        std::memset(&err, 0, sizeof err);
        bool have_origin = false;
        uint64_t origin = 0;
        int rc;
        while ((rc = gd_trace_next(reader, &rec, &err)) > 0) {
            uint8_t pkt[64];
            uint64_t submit_ns;
            uint32_t q;
            if (rec.type == GD_REC_KERNEL) {
                descriptor(rec.kernel);
                continue;
            } else if (rec.type == GD_REC_DISPATCH) {
                gd_aql_dispatch a = rec.dispatch.pkt;
                a.kernel_object = desc_addr.at((uint32_t)a.kernel_object);
                a.completion_signal = signal(a.completion_signal);
                gd_aql_encode(pkt, &a);
                submit_ns = rec.dispatch.submit_ns;
                q = rec.dispatch.queue;
            } else if (rec.type == GD_REC_BARRIER_AND || rec.type == GD_REC_BARRIER_OR) {
                gd_aql_barrier_pkt b = rec.barrier.pkt;
                for (uint64_t &d : b.dep_signal)
                    d = signal(d);
                b.completion_signal = signal(b.completion_signal);
                gd_aql_barrier_encode(pkt, &b);
                submit_ns = rec.barrier.submit_ns;
                q = rec.barrier.queue;
            } else {
                std::fprintf(stderr, "vp_replay: record %llu: only kernel dispatches and barriers go through the "
                             "sockets\n", (unsigned long long)rec.index);
                error = 1;
                break;
            }
            if (q >= nqueues) {
                std::fprintf(stderr, "vp_replay: record %llu: queue %u beyond vp.queues\n",
                             (unsigned long long)rec.index, q);
                error = 1;
                break;
            }
            if (!have_origin) {
                have_origin = true;
                origin = submit_ns;
            }
            sc_time at((double)(submit_ns - origin), SC_NS);
            if (at > sc_time_stamp())
                wait(at - sc_time_stamp());
            arm(signal(gd_get64(pkt + 56)));
            put(q, pkt);
        }
        if (rc < 0) {
            std::fprintf(stderr, "vp_replay: %s\n", err.msg);
            error = 1;
        }
        while (!error && reg_read(gdsim::gpu::REG_COMPLETED) < packets &&
               !(reg_read(gdsim::gpu::REG_STATUS) & gdsim::gpu::STATUS_ERROR))
            wait(1, SC_US);
        sc_stop();
    }
};

}  // namespace

int sc_main(int argc, char **argv)
{
    if (argc < 3) {
        std::fprintf(stderr, "usage: %s TRACE KERNELS_CSV [key=value ...]\n", argv[0]);
        return 2;
    }
    gd_trace_reader *reader;
    gd_err err;
    std::memset(&err, 0, sizeof err);
    if (gd_trace_open(&reader, argv[1], &err) != GD_OK) {
        std::fprintf(stderr, "%s\n", err.msg);
        return 1;
    }
    gdsim::gpu::config cfg{{"gpu.preset", "h100"}};
    for (int i = 3; i < argc; i++) {
        const char *eq = std::strchr(argv[i], '=');
        if (!eq) {
            std::fprintf(stderr, "%s: expected key=value\n", argv[i]);
            return 2;
        }
        cfg[std::string(argv[i], (size_t)(eq - argv[i]))] = eq + 1;
    }
    vp::memory ram("ram", 64u << 20, SC_ZERO_TIME, true);
    vp::router bus("bus");
    gdsim::gpu gpu("gpu", cfg);
    replay_driver cpu("cpu", reader, 8);
    sc_signal<bool> irq("irq");
    vp::wire(cpu, bus, ram, gpu, irq);
    sc_start();
    gd_trace_close_reader(reader);
    if (!gpu.error().empty()) {
        std::fprintf(stderr, "%s\n", gpu.error().c_str());
        return 1;
    }
    std::printf("%llu packets written, %llu kernels completed at %s\n", (unsigned long long)cpu.packets,
                (unsigned long long)gpu.kernels_completed(), sc_time_stamp().to_string().c_str());
    if (gpu.write_kernels_csv(argv[2]) != GD_OK) {
        std::fprintf(stderr, "%s\n", gpu.last_io_error().c_str());
        return 1;
    }
    return cpu.error;
}
