// gdsim/gpu.hpp - the gdsim GPU as a SystemC/TLM-2.0 device for virtual platforms.
//
// A platform instantiates gdsim::gpu in its own simulation, maps `regs` on its bus,
// binds `mem` to its memory (or bus) and `irq` to a signal, and drives it like an
// HSA/AQL device: the driver writes 64-byte AQL packets into ring buffers in memory,
// programs each queue's base, size and enable register, and writes the doorbell; the
// GPU reads the packets (and the kernel descriptors they name) through `mem`, runs
// them through the dispatch front-end model, decrements completion signals in
// memory and raises `irq` for a signal that carries an event. docs/VP.md has the
// register map, the memory layout of descriptors and signals, and a full example.
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

#include <cstdint>
#include <map>
#include <memory>
#include <string>

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
    // annotations honoured; DMI used when the target grants it.
    tlm_utils::simple_initiator_socket<gpu> mem;
    // Raised while an enabled interrupt cause is set (INT_CAUSE & INT_ENABLE).
    sc_core::sc_out<bool> irq;

    // Configuration: the keys of the C API and the command line (docs/CONFIG.md);
    // gpu.preset must name a device (v100, a100, h100, mi250). Throws
    // std::invalid_argument with the library's message when a key or value is bad or
    // a latency is not a whole number of the context's time resolution.
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

    // Results so far (complete for every kernel that has completed):
    uint64_t kernels_dispatched() const;   // kernel dispatch packets taken from the rings
    uint64_t kernels_completed() const;
    // The first error in what the driver wrote (queue, packet, what), "" if none.
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

}  // namespace gdsim

#endif
