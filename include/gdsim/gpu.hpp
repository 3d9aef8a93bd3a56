// gdsim/gpu.hpp - the gdsim GPU as a SystemC/TLM-2.0 device for virtual platforms.
//
// A platform instantiates gdsim::gpu in its own simulation, maps `regs` on its bus,
// binds `mem` to its memory (or bus) and `irq` to a signal, and drives it like an
// HSA/AQL device: the driver writes 64-byte AQL packets into ring buffers in memory,
// programs each queue's base, size and enable register, and writes the doorbell; the
// GPU reads the packets (and the kernel descriptors they name) through `mem`, runs
// them through the dispatch front-end model, decrements completion signals in
// memory and raises `irq` for a signal that carries an event. Below the module,
// kernel_descriptor, dispatch_packet and barrier_packet make the byte images the
// driver writes. docs/VP.md has the register map, the memory layout of descriptors
// and signals, and a full example.
//
// Rules the module keeps: it lives in the caller's simulation context and is
// elaborated with the caller's modules; it works at the context's time resolution
// (a configuration whose latencies that resolution cannot represent is refused at
// construction, never rounded silently); it never changes SystemC's report settings
// and never calls sc_stop (the platform decides when its simulation ends); errors in
// what the driver wrote stop the queue, set the error register and interrupt cause
// and are kept as text (error()), without exceptions.
//
// Link with -lgdsim (pkg-config gdsim, or CMake find_package(gdsim)).
#ifndef GDSIM_GPU_HPP
#define GDSIM_GPU_HPP

#include <array>
#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include <systemc>
#include <tlm>
#include <tlm_utils/simple_initiator_socket.h>
#include <tlm_utils/simple_target_socket.h>

#include "gdsim.h"

namespace gdsim {

class gpu : public sc_core::sc_module {
public:
    // Registers (4- or 8-byte accesses, naturally aligned; offsets below). Blocking
    // transport; nb_transport is served through simple_target_socket's conversion;
    // debug transport reads registers; no DMI (registers have side effects).
    tlm_utils::simple_target_socket<gpu> regs;
    // The GPU's reads of packets, kernel descriptors and signals and its signal
    // writes: ordinary generic payloads, blocking transport, the target's delay
    // annotations honoured (a quantum keeper: synced at the global quantum, when a
    // packet enters, before an interrupt and before idling); DMI used when granted.
    tlm_utils::simple_initiator_socket<gpu> mem;
    // Raised while an enabled interrupt cause is set (INT_CAUSE & INT_ENABLE).
    sc_core::sc_out<bool> irq;

    // Configuration: the keys of the C API and the command line (docs/CONFIG.md);
    // gpu.preset must name a device (v100, a100, h100, mi250, mi210, mi250x, mi300x,
    // mi300a). Throws std::invalid_argument with the library's message when a key or
    // value is bad or a latency is not a whole number of the context's time resolution.
    using config = std::map<std::string, std::string>;
    gpu(sc_core::sc_module_name name, const config &cfg);
    ~gpu() override;
    gpu(const gpu &) = delete;
    gpu &operator=(const gpu &) = delete;

    // Register map (docs/VP.md). Global registers:
    static constexpr uint64_t REG_ID = 0x00;          // RO: ID_VALUE
    static constexpr uint64_t REG_STATUS = 0x08;      // RO: STATUS_* bits
    static constexpr uint64_t REG_INT_CAUSE = 0x10;   // RO, write 1 to clear: bit q = queue q, bit 63 = error
    static constexpr uint64_t REG_INT_ENABLE = 0x18;  // RW: causes that raise irq
    static constexpr uint64_t REG_ERROR = 0x20;       // RO: code (0-15), queue (16-31), packet index (32-63)
    static constexpr uint64_t REG_QUEUES = 0x28;      // RO: number of queues (vp.queues)
    static constexpr uint64_t REG_EVENT = 0x30;       // RO: event word of the last signal that interrupted
    static constexpr uint64_t REG_COMPLETED = 0x38;   // RO: packets completed
    // Queue q's registers at QUEUE0 + q * QUEUE_STRIDE + one of Q_*:
    static constexpr uint64_t QUEUE0 = 0x100, QUEUE_STRIDE = 0x40;
    static constexpr uint64_t Q_BASE = 0x00;      // RW while disabled: ring base (64-byte aligned)
    static constexpr uint64_t Q_SIZE = 0x08;      // RW while disabled: ring size in packets (power of two)
    static constexpr uint64_t Q_DOORBELL = 0x10;  // RW: write index; writing rings the doorbell
    static constexpr uint64_t Q_READ = 0x18;      // RO: read index (packets taken from the ring)
    static constexpr uint64_t Q_ENABLE = 0x20;    // RW: 1 starts the queue (indices reset to 0), 0 stops it
    static constexpr uint64_t ID_VALUE = 0x4744534d00010000ull;
    static constexpr uint64_t STATUS_BUSY = 1, STATUS_IRQ = 2, STATUS_ERROR = 4;
    static constexpr unsigned CAUSE_ERROR = 63;
    // Error codes (REG_ERROR bits 0-15).
    enum error_code { ERR_NONE = 0, ERR_PACKET = 1, ERR_DESCRIPTOR = 2, ERR_MEMORY = 3, ERR_RING = 4, ERR_TIME = 5 };
    // A kernel descriptor in memory (a dispatch's kernel_object is its address):
    // u32 DESC_MAGIC, u32 body length, then the body of a trace's kernel descriptor
    // record (traces/FORMAT.md, type 2). A completion signal (handle = address) is a
    // 64-bit value followed by a 64-bit event word (not 0: interrupt on completion).
    static constexpr uint32_t DESC_MAGIC = 0x444b4447u;  // "GDKD"
    static constexpr unsigned DESC_HEADER = 8;
    // The size of the register block in bytes.
    uint64_t regs_size() const;

    // Results so far (complete for every kernel that has completed), as of SystemC's
    // time (the model may run ahead of it; its completions count when their time comes):
    uint64_t kernels_dispatched() const;   // kernel dispatch packets taken from the rings
    uint64_t kernels_completed() const;
    // The error in what the driver wrote that REG_ERROR holds (queue, packet, what), ""
    // if none: it goes when the driver acknowledges it (clears INT_CAUSE's error bit).
    const std::string &error() const;
    // The kernel table (the C API's kernels CSV; times in ns of simulated time, and
    // trace_record = the packet's index in its ring). GD_OK or a GD_E* code, with
    // the message in last_io_error().
    int write_kernels_csv(const std::string &path) const;
    const std::string &last_io_error() const;

private:
    struct impl;
    std::unique_ptr<impl> impl_;
    void reg_b_transport(tlm::tlm_generic_payload &p, sc_core::sc_time &delay);
    unsigned reg_transport_dbg(tlm::tlm_generic_payload &p);
    void mem_invalidate(sc_dt::uint64 start, sc_dt::uint64 end);
};

// What a driver writes into the platform's memory for the GPU, as byte images
// (little-endian, HSA's byte order) ready for one write through the bus.
namespace detail {
inline void put_le(uint8_t *at, uint64_t v, int bytes)
{
    for (int i = 0; i < bytes; i++)
        at[i] = (uint8_t)(v >> 8 * i);
}
}  // namespace detail

// A kernel descriptor: the resources and CTA-time model of a kernel object. The
// bytes are DESC_MAGIC, the body's length, then the body of a trace's kernel
// descriptor record (traces/FORMAT.md, type 2).
struct kernel_descriptor {
    uint32_t id = 0;                    // any number: the kernel table's kernel id
    uint32_t threads_per_cta = 0;       // the dispatch's workgroup size must match
    uint32_t registers_per_thread = 0;
    uint32_t static_shared_bytes = 0;
    uint32_t dynamic_shared_bytes = 0;  // the dispatch's group_segment_size must be static + dynamic
    uint64_t cta_ps = 0;                // each CTA's duration (execution-time model 1)
    bool per_dispatch_time = false;     // model 2: each dispatch's reserved2 gives it (cta_ps must be 0)
    std::string name;                   // 1 to 4062 bytes (4014 with an instruction mix)
    // Optional: warp instructions per CTA of the classes fp32, fp16, int, ldst, sfu,
    // tensor, for the energy estimate and gpc2sm.select=power; empty: none.
    std::vector<uint64_t> instruction_mix;

    std::vector<uint8_t> bytes() const
    {
        const size_t body = 34 + name.size() + 8 * instruction_mix.size();
        std::vector<uint8_t> b(8 + body);
        auto put = [&b](size_t at, uint64_t v, int n) { detail::put_le(&b[at], v, n); };
        put(0, gpu::DESC_MAGIC, 4);
        put(4, body, 4);
        put(8, id, 4);
        put(12, threads_per_cta, 4);
        put(16, registers_per_thread, 4);
        put(20, static_shared_bytes, 4);
        put(24, dynamic_shared_bytes, 4);
        put(28, per_dispatch_time ? 2 : 1, 4);
        put(32, cta_ps, 8);
        put(40, name.size(), 2);
        for (size_t i = 0; i < name.size(); i++)
            b[42 + i] = (uint8_t)name[i];
        for (size_t c = 0; c < instruction_mix.size(); c++)
            put(42 + name.size() + 8 * c, instruction_mix[c], 8);
        return b;
    }
};

// The header of an AQL packet: its type, the barrier bit, system-scope acquire and
// release fences.
enum packet_type : uint16_t { PACKET_KERNEL_DISPATCH = 2, PACKET_BARRIER_AND = 3, PACKET_BARRIER_OR = 5 };
inline uint16_t packet_header(packet_type type, bool barrier)
{
    return (uint16_t)(type | (barrier ? 1u << 8 : 0u) | 2u << 9 | 2u << 11);
}

// An AQL kernel dispatch packet (64 bytes).
struct dispatch_packet {
    bool barrier = false;                          // wait for the queue's earlier packets
    uint16_t dimensions = 0;                       // setup: 1-3; 0: the highest with a size above 1
    std::array<uint16_t, 3> workgroup{{1, 1, 1}};  // work-items per CTA in x, y, z
    std::array<uint32_t, 3> grid{{1, 1, 1}};       // work-items in x, y, z
    uint32_t private_segment_bytes = 0;            // per work-item (not modelled)
    uint32_t group_segment_bytes = 0;              // the kernel's shared memory per CTA
    uint64_t kernel_object = 0;                    // the kernel descriptor's address
    uint64_t kernarg_address = 0;                  // not read: the descriptor gives the time model
    uint64_t cta_ps = 0;                           // reserved2: the CTA duration for a per_dispatch_time kernel
    uint64_t completion_signal = 0;                // the signal's address; 0: none

    std::array<uint8_t, 64> bytes() const
    {
        std::array<uint8_t, 64> b{};
        auto put = [&b](size_t at, uint64_t v, int n) { detail::put_le(&b[at], v, n); };
        unsigned dims = dimensions;
        for (unsigned d = 0; d < 3 && !dimensions; d++)
            if (d == 0 || workgroup[d] > 1 || grid[d] > 1)
                dims = d + 1;
        put(0, packet_header(PACKET_KERNEL_DISPATCH, barrier), 2);
        put(2, dims, 2);
        for (unsigned d = 0; d < 3; d++) {
            put(4 + 2 * d, workgroup[d], 2);
            put(12 + 4 * d, grid[d], 4);
        }
        put(24, private_segment_bytes, 4);
        put(28, group_segment_bytes, 4);
        put(32, kernel_object, 8);
        put(40, kernarg_address, 8);
        put(48, cta_ps, 8);
        put(56, completion_signal, 8);
        return b;
    }
};

// An AQL barrier-AND (all dependencies) or barrier-OR (any) packet (64 bytes).
struct barrier_packet {
    bool any = false;                            // barrier-OR
    bool barrier = false;
    std::array<uint64_t, 5> dep_signal{};        // signal addresses; 0: unused
    uint64_t completion_signal = 0;

    std::array<uint8_t, 64> bytes() const
    {
        std::array<uint8_t, 64> b{};
        auto put = [&b](size_t at, uint64_t v, int n) { detail::put_le(&b[at], v, n); };
        put(0, packet_header(any ? PACKET_BARRIER_OR : PACKET_BARRIER_AND, barrier), 2);
        for (unsigned i = 0; i < 5; i++)
            put(8 + 8 * i, dep_signal[i], 8);
        put(56, completion_signal, 8);
        return b;
    }
};

}  // namespace gdsim

#endif
