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
    VP_HAS_PROCESS(replay_driver);
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
        gdsim::kernel_descriptor d;
        d.id = k->id;
        d.threads_per_cta = k->threads_per_cta;
        d.registers_per_thread = k->regs_per_thread;
        d.static_shared_bytes = k->static_smem;
        d.dynamic_shared_bytes = k->dynamic_smem;
        d.per_dispatch_time = k->exec_model == GD_EXEC_PER_DISPATCH;
        d.cta_ps = k->cta_duration_ps;
        d.name = k->name;
        if (k->has_insn)
            d.instruction_mix.assign(k->insn, k->insn + GD_INSN_CLASSES);
        std::vector<uint8_t> b = d.bytes();
        write(next_desc, b.data(), (unsigned)b.size());
        desc_addr[k->id] = next_desc;
        next_desc = (next_desc + b.size() + 63) & ~63ull;
    }
    void put(uint32_t q, const std::array<uint8_t, 64> &pkt)
    {
        uint64_t slot = RING_BASE + q * RING_BYTES + (write_index[q] % RING_PACKETS) * 64;
        while (write_index[q] - reg_read(qreg(q, gdsim::gpu::Q_READ)) >= RING_PACKETS)
            wait(1, SC_US);  // the ring is full: wait for the GPU to take packets
        put_packet(slot, pkt);
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
            std::array<uint8_t, 64> pkt;
            uint64_t submit_ns;
            uint32_t q;
            if (rec.type == GD_REC_KERNEL) {
                descriptor(rec.kernel);
                continue;
            } else if (rec.type == GD_REC_HOST_THREAD || rec.type == GD_REC_HOST_CALL ||
                       rec.type == GD_REC_HOST_WAIT) {
                continue;  // the host model (format 1.10): this driver submits at the captured times
            } else if (rec.type == GD_REC_DISPATCH) {
                const gd_aql_dispatch &a = rec.dispatch.pkt;
                gdsim::dispatch_packet d;
                d.barrier = a.header & 1u << 8;
                d.dimensions = a.setup;
                for (int i = 0; i < 3; i++) {
                    d.workgroup[i] = a.workgroup_size[i];
                    d.grid[i] = a.grid_size[i];
                }
                d.private_segment_bytes = a.private_segment_size;
                d.group_segment_bytes = a.group_segment_size;
                d.kernel_object = desc_addr.at((uint32_t)a.kernel_object);
                d.kernarg_address = a.kernarg_address;
                // per-dispatch CTA durations (a converted capture's) travel in reserved2
                if (rec.dispatch.kernel->exec_model == GD_EXEC_PER_DISPATCH)
                    d.cta_ps = rec.dispatch.cta_ps;
                d.completion_signal = signal(a.completion_signal);
                pkt = d.bytes();
                submit_ns = rec.dispatch.submit_ns;
                q = rec.dispatch.queue;
            } else if (rec.type == GD_REC_BARRIER_AND || rec.type == GD_REC_BARRIER_OR) {
                const gd_aql_barrier_pkt &a = rec.barrier.pkt;
                gdsim::barrier_packet b;
                b.any = rec.type == GD_REC_BARRIER_OR;
                b.barrier = a.header & 1u << 8;
                for (int i = 0; i < 5; i++)
                    b.dep_signal[i] = signal(a.dep_signal[i]);
                b.completion_signal = signal(a.completion_signal);
                pkt = b.bytes();
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
            arm(signal(gd_get64(pkt.data() + 56)));
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
