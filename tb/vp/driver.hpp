// driver.hpp - the platform's "CPU": writes AQL packets, kernel descriptors and
// completion signals into memory and programs gdsim::gpu through its registers, all
// through one initiator socket on the bus (loosely timed; each access's annotated
// delay is waited out). Only the public header include/gdsim/gpu.hpp is used.
#ifndef VP_DRIVER_HPP
#define VP_DRIVER_HPP

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

    // A kernel descriptor at addr: the header, then a trace kernel-descriptor body
    // (traces/FORMAT.md, type 2) with a fixed CTA duration.
    void put_descriptor(uint64_t addr, uint32_t id, uint32_t threads, uint32_t regs, uint32_t smem, uint64_t cta_ps,
                        const std::string &name)
    {
        std::vector<uint8_t> b(8 + 34 + name.size());
        auto put32 = [&](size_t o, uint32_t v) { for (int i = 0; i < 4; i++) b[o + i] = (uint8_t)(v >> 8 * i); };
        put32(0, gdsim::gpu::DESC_MAGIC);
        put32(4, (uint32_t)(34 + name.size()));
        put32(8, id);
        put32(12, threads);
        put32(16, regs);
        put32(20, smem);
        put32(24, 0);
        put32(28, 1);  // execution-time model 1: fixed per-CTA duration
        put32(32, (uint32_t)cta_ps);
        put32(36, (uint32_t)(cta_ps >> 32));
        b[40] = (uint8_t)name.size();
        b[41] = (uint8_t)(name.size() >> 8);
        std::copy(name.begin(), name.end(), b.begin() + 42);
        write(addr, b.data(), (unsigned)b.size());
    }
    // A 1-D kernel dispatch packet (HSA AQL, 64 bytes), header written last.
    void put_dispatch(uint64_t slot, bool barrier, uint16_t wg, uint32_t grid, uint64_t kernel_object,
                      uint32_t group_segment, uint64_t signal)
    {
        uint8_t p[64] = {0};
        auto put = [&](size_t o, uint64_t v, int n) { for (int i = 0; i < n; i++) p[o + i] = (uint8_t)(v >> 8 * i); };
        put(2, 1, 2);  // setup: 1 dimension
        put(4, wg, 2);
        put(6, 1, 2);
        put(8, 1, 2);
        put(12, grid, 4);
        put(16, 1, 4);
        put(20, 1, 4);
        put(28, group_segment, 4);
        put(32, kernel_object, 8);
        put(56, signal, 8);
        write(slot + 2, p + 2, 62);
        uint16_t header = (uint16_t)(2 | (barrier ? 1u << 8 : 0) | 2u << 9 | 2u << 11);  // system-scope fences
        write(slot, &header, 2);
    }
    // A barrier-AND packet on up to five signals.
    void put_barrier_and(uint64_t slot, const std::vector<uint64_t> &deps, uint64_t signal)
    {
        uint8_t p[64] = {0};
        for (size_t i = 0; i < deps.size() && i < 5; i++)
            for (int k = 0; k < 8; k++)
                p[8 + 8 * i + k] = (uint8_t)(deps[i] >> 8 * k);
        for (int k = 0; k < 8; k++)
            p[56 + k] = (uint8_t)(signal >> 8 * k);
        write(slot + 2, p + 2, 62);
        uint16_t header = (uint16_t)(3 | 2u << 9 | 2u << 11);
        write(slot, &header, 2);
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
