// gd_msg.hpp - the gdsim TLM extension: every transaction between blocks is a
// generic payload (TLM_IGNORE_COMMAND) carrying one gd::msg that names the
// operation and points at its body. Bodies are plain structs declared by the block
// that receives them (its *_msg.hpp); the callee fills their response fields.
// Timed operations use the b_transport delay argument (TLM-2.0 loosely-timed
// temporal decoupling): the operation happens at sc_time_stamp() + delay. Per-CTA bodies also carry that time as `at` (ps), so
// callees need no out-of-line sc_time_stamp() call per CTA.
#ifndef GD_MSG_HPP
#define GD_MSG_HPP

#include <cstdint>
#include <cstdio>
#include <cstring>
#include <systemc>
#include <tlm>

#include "gd_util.h"

namespace gd {

// What a transaction asks of its target. Each block declares the operations it
// accepts, with their message bodies, in its own header (namespace gd::op, codes
// made by op_code_of from the block's two letters), so a new block adds its own
// operations without touching this file; a target rejects a code it does not know.
using op_code = uint32_t;
constexpr op_code op_code_of(char a, char b, unsigned n)
{
    return (uint32_t)(uint8_t)a << 24 | (uint32_t)(uint8_t)b << 16 | (n & 0xffffu);
}

struct msg : tlm::tlm_extension<msg> {
    op_code code = 0;
    void *body = nullptr;
    tlm::tlm_extension_base *clone() const override { return new msg(*this); }
    void copy_from(const tlm::tlm_extension_base &e) override { *this = static_cast<const msg &>(e); }
};

// A target's direct transport, granted once through TLM-2.0's direct-memory-access
// interface (get_direct_mem_ptr on a payload whose gdsim extension has op::direct and,
// as its body, a direct_if * the target fills): the same operations and bodies as its
// b_transport, called without a generic payload and extension per call. As with DMI, a
// block in between (an interconnect, a monitor) sees the request and grants it only by
// forwarding it on purpose; one that does not (a simple_target_socket without a DMI
// callback answers false) keeps seeing every transaction. transport returns false for
// an operation the target refuses.
struct direct_if {
    virtual bool transport(op_code code, void *body, sc_core::sc_time &delay) = 0;
    // A hint: transport will soon be called (the target may start loading its state).
    virtual void prefetch() const {}
  protected:
    ~direct_if() = default;
};
namespace op {
constexpr op_code direct = op_code_of('g', 'd', 1);  // initiator -> target (get_direct_mem_ptr): grant
                                                     // your direct transport
}  // namespace op

// One reusable payload with its extension attached: a block keeps one per
// outgoing socket, so a transaction allocates nothing.
struct channel {
    tlm::tlm_generic_payload p;
    msg m;
    channel() { p.set_command(tlm::TLM_IGNORE_COMMAND); p.set_extension(&m); }
    ~channel() { p.clear_extension(&m); }
    channel(const channel &) = delete;
    channel &operator=(const channel &) = delete;

    // A transaction the target refuses (an operation it does not know, an address
    // it does not have) is a model error: SC_REPORT_ERROR names the socket and code.
    template <typename Socket>
    void call(Socket &s, op_code code, void *body, sc_core::sc_time &delay)
    {
        if (__builtin_expect(!try_call(s, code, body, delay), 0))
            refused(s.name(), code, p.get_response_string().c_str());
    }

    // The same for an operation the target may not offer (an optional interface):
    // whether it accepted.
    template <typename Socket>
    bool try_call(Socket &s, op_code code, void *body, sc_core::sc_time &delay)
    {
        m.code = code;
        m.body = body;
        p.set_response_status(tlm::TLM_INCOMPLETE_RESPONSE);
        s->b_transport(p, delay);
        return p.is_response_ok();
    }

    // Through the target's direct transport when it granted one (asked for once per
    // target by ask_direct), else as a transaction.
    template <typename Socket>
    void call(Socket &s, direct_if *d, op_code code, void *body, sc_core::sc_time &delay)
    {
        if (__builtin_expect(d == nullptr, 0))
            return call(s, code, body, delay);
        if (__builtin_expect(!d->transport(code, body, delay), 0))
            refused(s.name(), code, "refused by its direct transport");
    }
    template <typename Socket>
    direct_if *ask_direct(Socket &s)
    {
        direct_if *d = nullptr;
        m.code = op::direct;
        m.body = &d;
        tlm::tlm_dmi dmi;
        return s->get_direct_mem_ptr(p, dmi) ? d : nullptr;
    }
    // A target's answer to ask_direct (its get_direct_mem_ptr): grants d.
    static bool grant_direct(tlm::tlm_generic_payload &p, direct_if *d)
    {
        msg *m = nullptr;
        p.get_extension(m);
        if (!m || m->code != op::direct)
            return false;
        *static_cast<direct_if **>(m->body) = d;
        return true;
    }

    [[gnu::cold, gnu::noinline]] static void refused(const char *socket, op_code code, const char *why)
    {
        char buf[256];
        std::snprintf(buf, sizeof buf, "%s: operation '%c%c' %u refused (%s)", socket, (char)(code >> 24),
                      (char)(code >> 16), code & 0xffffu, why);
        SC_REPORT_ERROR("gdsim", buf);
    }
};

// A channel that uses the target's direct transport once it has asked for it (at
// the first call; a target that grants none gets transactions).
struct link {
    channel ch;
    direct_if *d = nullptr;
    bool asked = false;
    template <typename Socket>
    void call(Socket &s, op_code code, void *body, sc_core::sc_time &delay)
    {
        if (__builtin_expect(!asked, 0)) {
            asked = true;
            d = ch.ask_direct(s);
        }
        ch.call(s, d, code, body, delay);
    }
};

// The direct transport of one target socket of a block: its handler
// (obj->*fn)(code, body, delay), the one the socket's b_transport calls, which answers
// false for an operation the socket does not take. serve() is that b_transport, grant()
// the socket's get_direct_mem_ptr.
template <class T>
struct direct_port final : direct_if {
    using fn_t = bool (T::*)(op_code, void *, sc_core::sc_time &);
    T *obj;
    fn_t fn;
    direct_port(T *o, fn_t f) : obj(o), fn(f) {}
    bool transport(op_code code, void *body, sc_core::sc_time &delay) override { return (obj->*fn)(code, body, delay); }
    void serve(tlm::tlm_generic_payload &p, sc_core::sc_time &delay)
    {
        msg *m = nullptr;
        p.get_extension(m);
        const bool ok = m && (obj->*fn)(m->code, m->body, delay);
        p.set_response_status(ok ? tlm::TLM_OK_RESPONSE : tlm::TLM_COMMAND_ERROR_RESPONSE);
    }
    bool grant(tlm::tlm_generic_payload &p, tlm::tlm_dmi &) { return channel::grant_direct(p, this); }
};

// Base of blocks whose per-CTA target socket is bound to the block itself (the
// canonical TLM-2.0 binding: the initiator's b_transport is one virtual call into
// the block, without simple_target_socket's callback indirection). Only the
// blocking transport is offered.
struct fw_target : tlm::tlm_fw_transport_if<> {
    tlm::tlm_sync_enum nb_transport_fw(tlm::tlm_generic_payload &p, tlm::tlm_phase &, sc_core::sc_time &) override
    {
        p.set_response_status(tlm::TLM_COMMAND_ERROR_RESPONSE);
        return tlm::TLM_COMPLETED;
    }
    bool get_direct_mem_ptr(tlm::tlm_generic_payload &, tlm::tlm_dmi &) override { return false; }
    unsigned int transport_dbg(tlm::tlm_generic_payload &) override { return 0; }
};

inline msg &msg_of(tlm::tlm_generic_payload &p)
{
    msg *m = nullptr;
    p.get_extension(m);
    return *m;
}

// Simulated time <-> picoseconds. The model counts time in picoseconds; SystemC
// counts it in units of the context's time resolution. gdsim's own replays run at
// 1 ps (the scale is 1:1 and the conversions are copies); a platform that embeds the
// GPU (gdsim::gpu) may use any resolution: its constructor sets the scale from
// sc_get_time_resolution() and checks that every latency of the configuration is a
// whole number of resolution units. A time that is not (a value computed at run
// time) is rounded up, so an event never fires before its time, and counted.
struct time_scale {
    bool on = false;        // the resolution is not 1 ps
    uint64_t mul = 1;       // SystemC units = ps * mul / div
    uint64_t div = 1;
    uint64_t inexact = 0;   // conversions rounded up since the scale was set
};
inline time_scale g_time_scale;

[[gnu::cold, gnu::noinline]] inline sc_core::sc_time::value_type scaled_value(gd_time_ps ps)
{
    time_scale &s = g_time_scale;
    if (s.div > 1) {
        uint64_t q = ps / s.div, r = ps % s.div;
        if (r) {
            s.inexact++;
            q++;
        }
        return q;
    }
    return ps * s.mul;
}
[[gnu::cold, gnu::noinline]] inline gd_time_ps scaled_ps(sc_core::sc_time::value_type v)
{
    const time_scale &s = g_time_scale;
    if (s.div > 1)  // saturates far beyond any simulated time (years), never wraps
        return v > (UINT64_MAX >> 2) / s.div ? (UINT64_MAX >> 2) : v * s.div;
    return v / s.mul;
}

// A SystemC time (a delay, a time stamp) in picoseconds.
inline gd_time_ps ps_of(const sc_core::sc_time &t)
{
    if (__builtin_expect(g_time_scale.on, 0))
        return scaled_ps(t.value());
    return t.value();
}
inline gd_time_ps now_ps() { return ps_of(sc_core::sc_time_stamp()); }

// sc_time from a picosecond count. sc_time::from_value is an out-of-line library
// call that showed up at 3 % of a replay's instructions; sc_time holds nothing but
// its value, so the value is copied in directly. time_layout_ok() (checked once per
// replay by gpu_top) confirms the layout against from_value.
static_assert(sizeof(sc_core::sc_time) == sizeof(sc_core::sc_time::value_type),
              "sc_time is expected to hold only its value");
inline sc_core::sc_time ps_time(gd_time_ps ps)
{
    sc_core::sc_time t;
    sc_core::sc_time::value_type v = __builtin_expect(g_time_scale.on, 0) ? scaled_value(ps) : ps;
    std::memcpy(static_cast<void *>(&t), &v, sizeof v);
    return t;
}
inline bool time_layout_ok()
{
    sc_core::sc_time t;
    sc_core::sc_time::value_type v = 123456789;
    std::memcpy(static_cast<void *>(&t), &v, sizeof v);
    return t.value() == 123456789 && t == sc_core::sc_time::from_value(123456789);
}

}  // namespace gd

#endif
