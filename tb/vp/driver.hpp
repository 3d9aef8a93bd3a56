// driver.hpp - the platform's "CPU": writes AQL packets, kernel descriptors and
// completion signals into memory and programs gdsim::gpu through its registers, all
// through one initiator socket on the bus (loosely timed; each access's annotated
// delay is waited out). Only the public header include/gdsim/gpu.hpp is used.
#ifndef VP_DRIVER_HPP
#define VP_DRIVER_HPP

#include <array>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include <systemc>
#include <tlm>
#include <tlm_utils/simple_initiator_socket.h>

#include "gdsim/gpu.hpp"
#include "platform.hpp"

namespace vp {

struct driver_base : sc_core::sc_module {
    tlm_utils::simple_initiator_socket<driver_base> bus;
    uint64_t gpu_base;  // where the GPU's registers are mapped
    int failures = 0;

    driver_base(sc_core::sc_module_name n, uint64_t gpu_regs) : sc_module(n), bus("bus"), gpu_base(gpu_regs) {}

    void access(tlm::tlm_command cmd, uint64_t addr, void *data, unsigned len)
    {
        tlm::tlm_generic_payload p;
        sc_core::sc_time d = sc_core::SC_ZERO_TIME;
        p.set_command(cmd);
        p.set_address(addr);
        p.set_data_ptr(static_cast<unsigned char *>(data));
        p.set_data_length(len);
        p.set_streaming_width(len);
        p.set_response_status(tlm::TLM_INCOMPLETE_RESPONSE);
        bus->b_transport(p, d);
        if (!p.is_response_ok()) {
            std::fprintf(stderr, "%s: %s of %u bytes at 0x%llx failed: %s\n", name(),
                         cmd == tlm::TLM_READ_COMMAND ? "read" : "write", len, (unsigned long long)addr,
                         p.get_response_string().c_str());
            std::exit(2);
        }
        if (d != sc_core::SC_ZERO_TIME)
            wait(d);
    }
    void write(uint64_t addr, const void *data, unsigned len)
    {
        access(tlm::TLM_WRITE_COMMAND, addr, const_cast<void *>(data), len);
    }
    void write64(uint64_t addr, uint64_t v) { write(addr, &v, 8); }  // little-endian hosts
    uint64_t read64(uint64_t addr)
    {
        uint64_t v = 0;
        access(tlm::TLM_READ_COMMAND, addr, &v, 8);
        return v;
    }
    void reg_write(uint64_t off, uint64_t v) { write64(gpu_base + off, v); }
    uint64_t reg_read(uint64_t off) { return read64(gpu_base + off); }
    static uint64_t qreg(unsigned q, uint64_t r) { return gdsim::gpu::QUEUE0 + q * gdsim::gpu::QUEUE_STRIDE + r; }

    // A kernel descriptor at addr with a fixed CTA duration.
    void put_descriptor(uint64_t addr, uint32_t id, uint32_t threads, uint32_t regs, uint32_t smem, uint64_t cta_ps,
                        const std::string &name)
    {
        gdsim::kernel_descriptor k;
        k.id = id;
        k.threads_per_cta = threads;
        k.registers_per_thread = regs;
        k.static_shared_bytes = smem;
        k.cta_ps = cta_ps;
        k.name = name;
        std::vector<uint8_t> b = k.bytes();
        write(addr, b.data(), (unsigned)b.size());
    }
    // An AQL packet into its ring slot, the header (its first two bytes) last.
    void put_packet(uint64_t slot, const std::array<uint8_t, 64> &p)
    {
        write(slot + 2, p.data() + 2, 62);
        write(slot, p.data(), 2);
    }
    // A 1-D kernel dispatch.
    void put_dispatch(uint64_t slot, bool barrier, uint16_t wg, uint32_t grid, uint64_t kernel_object,
                      uint32_t group_segment, uint64_t signal)
    {
        gdsim::dispatch_packet d;
        d.barrier = barrier;
        d.workgroup[0] = wg;
        d.grid[0] = grid;
        d.group_segment_bytes = group_segment;
        d.kernel_object = kernel_object;
        d.completion_signal = signal;
        put_packet(slot, d.bytes());
    }
    // A barrier-AND packet on up to five signals.
    void put_barrier_and(uint64_t slot, const std::vector<uint64_t> &deps, uint64_t signal)
    {
        gdsim::barrier_packet b;
        for (size_t i = 0; i < deps.size() && i < 5; i++)
            b.dep_signal[i] = deps[i];
        b.completion_signal = signal;
        put_packet(slot, b.bytes());
    }
    void check(bool ok, const char *what)
    {
        if (!ok) {
            std::fprintf(stderr, "%s: FAILED: %s (at %s)\n", name(), what, sc_core::sc_time_stamp().to_string().c_str());
            failures++;
        }
    }
};

// The platform's wiring: the driver and the GPU's memory port are the bus's
// initiators; the memory (at 0) and the GPU's registers (at gpu_regs) its targets.
inline void wire(driver_base &cpu, router &bus, memory &ram, gdsim::gpu &gpu, sc_core::sc_signal<bool> &irq)
{
    cpu.bus.bind(bus.in);
    gpu.mem.bind(bus.in);
    bus.out.bind(ram.socket);
    bus.map.push_back({0, ram.bytes.size()});
    bus.out.bind(gpu.regs);
    bus.map.push_back({cpu.gpu_base, gpu.regs_size()});
    gpu.irq(irq);
}

}  // namespace vp

#endif
