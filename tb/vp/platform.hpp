// platform.hpp - the parts of a small virtual platform around gdsim::gpu: a memory,
// an address router (bus) and a free-running clocked module. Plain SystemC/TLM-2.0;
// nothing here knows gdsim.
#ifndef VP_PLATFORM_HPP
#define VP_PLATFORM_HPP

#include <cstdint>
#include <cstring>
#include <vector>

#include <systemc>
#include <tlm>
#include <tlm_utils/multi_passthrough_initiator_socket.h>
#include <tlm_utils/multi_passthrough_target_socket.h>
#include <tlm_utils/simple_target_socket.h>

namespace vp {

// RAM: loosely timed, each access annotated with `latency`; grants DMI when `dmi`.
struct memory : sc_core::sc_module {
    tlm_utils::simple_target_socket<memory> socket;
    std::vector<uint8_t> bytes;
    sc_core::sc_time latency;
    bool dmi;
    uint64_t accesses = 0;
    memory(sc_core::sc_module_name n, size_t size, sc_core::sc_time lat, bool allow_dmi)
        : sc_module(n), socket("socket"), bytes(size, 0), latency(lat), dmi(allow_dmi)
    {
        socket.register_b_transport(this, &memory::b_transport);
        socket.register_get_direct_mem_ptr(this, &memory::get_dmi);
        socket.register_transport_dbg(this, &memory::debug);
    }
    bool in_range(uint64_t a, unsigned len) const { return a < bytes.size() && len <= bytes.size() - a; }
    void b_transport(tlm::tlm_generic_payload &p, sc_core::sc_time &delay)
    {
        accesses++;
        if (!in_range(p.get_address(), p.get_data_length())) {
            p.set_response_status(tlm::TLM_ADDRESS_ERROR_RESPONSE);
            return;
        }
        if (p.get_byte_enable_ptr() || p.get_streaming_width() < p.get_data_length()) {
            p.set_response_status(tlm::TLM_BYTE_ENABLE_ERROR_RESPONSE);
            return;
        }
        uint8_t *m = &bytes[p.get_address()];
        if (p.is_read())
            std::memcpy(p.get_data_ptr(), m, p.get_data_length());
        else if (p.is_write())
            std::memcpy(m, p.get_data_ptr(), p.get_data_length());
        delay += latency;
        p.set_dmi_allowed(dmi);
        p.set_response_status(tlm::TLM_OK_RESPONSE);
    }
    bool get_dmi(tlm::tlm_generic_payload &, tlm::tlm_dmi &d)
    {
        if (!dmi)
            return false;
        d.set_dmi_ptr(bytes.data());
        d.set_start_address(0);
        d.set_end_address(bytes.size() - 1);
        d.allow_read_write();
        d.set_read_latency(latency);
        d.set_write_latency(latency);
        return true;
    }
    unsigned debug(tlm::tlm_generic_payload &p)
    {
        if (!in_range(p.get_address(), p.get_data_length()))
            return 0;
        uint8_t *m = &bytes[p.get_address()];
        if (p.is_read())
            std::memcpy(p.get_data_ptr(), m, p.get_data_length());
        else
            std::memcpy(m, p.get_data_ptr(), p.get_data_length());
        return p.get_data_length();
    }
};

// A bus: every initiator reaches every target by address; a target sees addresses
// relative to its window.
struct router : sc_core::sc_module {
    tlm_utils::multi_passthrough_target_socket<router> in;
    tlm_utils::multi_passthrough_initiator_socket<router> out;
    struct window { uint64_t base, size; };
    std::vector<window> map;  // one per out binding, in binding order
    explicit router(sc_core::sc_module_name n) : sc_module(n), in("in"), out("out")
    {
        in.register_b_transport(this, &router::b_transport);
        in.register_get_direct_mem_ptr(this, &router::get_dmi);
        in.register_transport_dbg(this, &router::debug);
        out.register_invalidate_direct_mem_ptr(this, &router::invalidate);
    }
    int decode(tlm::tlm_generic_payload &p)
    {
        for (size_t i = 0; i < map.size(); i++)
            if (p.get_address() >= map[i].base && p.get_address() - map[i].base < map[i].size) {
                p.set_address(p.get_address() - map[i].base);
                return (int)i;
            }
        return -1;
    }
    void b_transport(int, tlm::tlm_generic_payload &p, sc_core::sc_time &delay)
    {
        uint64_t a = p.get_address();
        int t = decode(p);
        if (t < 0) {
            p.set_response_status(tlm::TLM_ADDRESS_ERROR_RESPONSE);
            return;
        }
        out[t]->b_transport(p, delay);
        p.set_address(a);
    }
    bool get_dmi(int, tlm::tlm_generic_payload &p, tlm::tlm_dmi &d)
    {
        int t = decode(p);
        if (t < 0 || !out[t]->get_direct_mem_ptr(p, d))
            return false;
        d.set_start_address(d.get_start_address() + map[t].base);
        d.set_end_address(d.get_end_address() + map[t].base);
        return true;
    }
    unsigned debug(int, tlm::tlm_generic_payload &p)
    {
        int t = decode(p);
        return t < 0 ? 0 : out[t]->transport_dbg(p);
    }
    void invalidate(int t, sc_dt::uint64 s, sc_dt::uint64 e)
    {
        for (unsigned i = 0; i < in.size(); i++)
            in[i]->invalidate_direct_mem_ptr(s + map[t].base, e + map[t].base);
    }
};

// SystemC 2.3 needs SC_HAS_PROCESS in a module whose constructor registers processes
// but was not declared with SC_CTOR; IEEE 1666-2023 (SystemC 3) deprecates it.
#if defined(IEEE_1666_SYSTEMC) && IEEE_1666_SYSTEMC >= 202301L
#define VP_HAS_PROCESS(module) static_assert(true, "")
#else
#define VP_HAS_PROCESS(module) SC_HAS_PROCESS(module)
#endif

// Free-running: counts rising edges of its clock for the whole simulation.
struct heartbeat : sc_core::sc_module {
    sc_core::sc_in<bool> clk;
    uint64_t ticks = 0;
    VP_HAS_PROCESS(heartbeat);
    explicit heartbeat(sc_core::sc_module_name n) : sc_module(n), clk("clk")
    {
        SC_METHOD(tick);
        sensitive << clk.pos();
        dont_initialize();
    }
    void tick() { ticks++; }
};

}  // namespace vp

#endif
