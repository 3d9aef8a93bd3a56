#include "hw_queues.hpp"

#include <cinttypes>
#include <cstdio>
#include <cstring>

namespace gd {

hw_queues::hw_queues(sc_core::sc_module_name name, const gd_config &cfg, tlm::tlm_initiator_socket<> &mem,
                     sc_core::sc_out<bool> &irq, gd_run_pool *pool, gd_stats *stats)
    : sc_module(name), doorbell_out("doorbell_out"), space_in("space_in"), cfg_(cfg), mem_(mem), irq_(irq),
      pool_(pool)
{
    if (gd_hwq_init(&regs_, cfg.vp_queues))
        throw std::bad_alloc();
    blocked_.assign(cfg.vp_queues, 0);
    pending_.assign(cfg.vp_queues, nullptr);
    rung_.assign(cfg.vp_queues, 0);
    waits_.resize(cfg.vp_queues);
    space_in.register_b_transport(this, &hw_queues::space);
    SC_THREAD(fetcher);
    SC_METHOD(drive_irq);
    sensitive << irq_ev_;
    dont_initialize();
    if (stats) {
        gd_stats_add(stats, basename(), "packets_read", "packets", "AQL packets read from the rings in memory",
                     &packets_read_);
        gd_stats_add(stats, basename(), "descriptor_reads", "descriptors",
                     "kernel descriptors read from memory (once per address)", &desc_reads_);
        gd_stats_add(stats, basename(), "signal_writes", "signals", "completion signals decremented in memory",
                     &signal_writes_);
        gd_stats_add(stats, basename(), "interrupts", "interrupts",
                     "completion signals whose event word raised the interrupt", &interrupts_);
        gd_stats_add(stats, basename(), "dmi_accesses", "accesses", "memory accesses made through a DMI pointer",
                     &dmi_accesses_);
    }
}

hw_queues::~hw_queues()
{
    for (auto &d : descs_) {
        std::free(d.second->name);
        delete d.second;
    }
    gd_hwq_destroy(&regs_);
}

uint64_t hw_queues::queued() const
{
    uint64_t n = 0;
    for (uint32_t i = 0; i < regs_.nqueues; i++)
        if (regs_.q[i].enabled && !regs_.q[i].stopped)
            n += regs_.q[i].write - regs_.q[i].read;
    return n;
}

uint64_t hw_queues::kernels_completed_by(const sc_core::sc_time &t) const
{
    uint64_t n = kernels_done_;
    for (const notice &x : notices_) {
        if (x.at > t)
            break;
        n += x.completed && x.kernel;
    }
    return n;
}

void hw_queues::update_busy() { regs_.busy = in_flight_ + queued(); }

// The line is driven by one process (drive_irq), whichever process changed a cause.
void hw_queues::update_irq() { irq_ev_.notify(); }

void hw_queues::drive_irq()
{
    bool level = gd_hwq_irq(&regs_) != 0;
    if (irq_.get_interface() && irq_.read() != level)
        irq_.write(level);
}

// Called by the fetcher only (register errors are the C core's): the error, and its
// interrupt, come after the memory accesses that found it.
void hw_queues::fail(uint32_t qi, enum gd_hwq_error code, uint64_t pkt, const std::string &why)
{
    sync();
    bool first = regs_.error == 0;
    gd_hwq_fail(&regs_, qi, code, pkt);
    if (first || error_.empty()) {
        char buf[96];
        std::snprintf(buf, sizeof buf, "%s: queue %u, packet %" PRIu64 ": ", name(), qi, pkt);
        error_ = buf + why;
    }
    update_irq();
}

// Register accesses: 4 or 8 bytes, naturally aligned, no byte enables (TLM-2.0 base
// protocol responses otherwise). Registers take no time.
void hw_queues::reg_transport(tlm::tlm_generic_payload &p, sc_core::sc_time &delay)
{
    const uint64_t addr = p.get_address();
    const unsigned len = p.get_data_length();
    if (p.get_command() == tlm::TLM_IGNORE_COMMAND) {
        p.set_response_status(tlm::TLM_OK_RESPONSE);
        return;
    }
    if (p.get_byte_enable_ptr()) {
        p.set_response_status(tlm::TLM_BYTE_ENABLE_ERROR_RESPONSE);
        return;
    }
    if ((len != 4 && len != 8) || (addr % len) || p.get_streaming_width() < len) {
        p.set_response_status(tlm::TLM_BURST_ERROR_RESPONSE);
        return;
    }
    const uint64_t reg = addr & ~7ull;
    const unsigned shift = (unsigned)(addr & 4) * 8;
    const uint64_t mask = len == 8 ? ~0ull : 0xffffffffull << shift;
    apply_notices(sc_core::sc_time_stamp() + delay);  // the registers as of the access's time
    if (!done_.empty())
        wake_.notify(delay);  // completion signals to write
    update_busy();
    uint64_t v;
    if (p.get_command() == tlm::TLM_READ_COMMAND) {
        if (gd_hwq_read(&regs_, reg, &v)) {
            p.set_response_status(tlm::TLM_ADDRESS_ERROR_RESPONSE);
            return;
        }
        v >>= shift;
        std::memcpy(p.get_data_ptr(), &v, len);  // little-endian hosts (x86-64, AArch64)
        p.set_response_status(tlm::TLM_OK_RESPONSE);
        return;
    }
    v = 0;
    std::memcpy(&v, p.get_data_ptr(), len);
    v <<= shift;
    gd_hwq_effect eff;
    char why[256] = "";
    const uint64_t err_before = regs_.error;
    int rc = gd_hwq_write(&regs_, reg, v, mask, &eff, why, sizeof why);
    if (rc) {
        p.set_response_status(rc == -1 ? tlm::TLM_ADDRESS_ERROR_RESPONSE : tlm::TLM_COMMAND_ERROR_RESPONSE);
        return;
    }
    if (!err_before && regs_.error) {  // a bad ring setting or doorbell stopped the queue
        error_ = std::string(name()) + ": " + why;
    }
    if (eff.acknowledged)  // the driver cleared the error's cause: error() follows the register
        error_.clear();
    if (eff.enabled) {  // both indices back to 0: what was rung before is gone
        const uint32_t qi = (uint32_t)eff.doorbell;
        rung_[qi] = 0;
        waits_[qi].clear();
        for (size_t i = 0; i < bells_.size();)
            if (bells_[i].queue == qi)
                bells_.erase(bells_.begin() + (long)i);
            else
                i++;
    }
    if (eff.doorbell >= 0) {
        // takes effect at the write's time (now + the initiator's annotated delay): the
        // packets it announces are read from then on, not with an earlier doorbell's
        const uint32_t qi = (uint32_t)eff.doorbell;
        bells_.push_back(ring_bell{qi, sc_core::sc_time_stamp() + delay, regs_.q[qi].write});
        kick_ = true;
        wake_.notify(delay);
    }
    if (eff.irq_changed)
        update_irq();
    p.set_response_status(tlm::TLM_OK_RESPONSE);
}

unsigned hw_queues::reg_debug(tlm::tlm_generic_payload &p)
{
    // reads only: a debugger's view of the registers, without side effects
    const uint64_t addr = p.get_address();
    const unsigned len = p.get_data_length();
    if (p.get_command() != tlm::TLM_READ_COMMAND || (len != 4 && len != 8) || (addr % len))
        return 0;
    update_busy();
    uint64_t v;
    if (gd_hwq_read(&regs_, addr & ~7ull, &v))
        return 0;
    v >>= (unsigned)(addr & 4) * 8;
    std::memcpy(p.get_data_ptr(), &v, len);
    return len;
}

void hw_queues::invalidate_dmi(uint64_t start, uint64_t end)
{
    if (dmi_valid_ && start <= dmi_.get_end_address() && end >= dmi_.get_start_address())
        dmi_valid_ = false;
}

// One memory access through the device's port: through the DMI pointer the memory
// granted when it covers the range, else b_transport with the time offset not yet
// waited out (updated by the target's annotation). False (and the queue stopped) when
// the memory refuses.
bool hw_queues::mem_access(tlm::tlm_command cmd, uint64_t addr, uint8_t *data, unsigned len, uint32_t qi,
                           uint64_t pkt)
{
    const bool rd = cmd == tlm::TLM_READ_COMMAND;
    if (dmi_valid_ && addr >= dmi_.get_start_address() && addr + len - 1 <= dmi_.get_end_address() &&
        (rd ? dmi_.is_read_allowed() : dmi_.is_write_allowed())) {
        uint8_t *m = dmi_.get_dmi_ptr() + (addr - dmi_.get_start_address());
        if (rd)
            std::memcpy(data, m, len);
        else
            std::memcpy(m, data, len);
        qk_.inc(rd ? dmi_.get_read_latency() : dmi_.get_write_latency());
        dmi_accesses_++;
        if (qk_.need_sync())
            sync();
        return true;
    }
    mp_.set_command(cmd);
    mp_.set_address(addr);
    mp_.set_data_ptr(data);
    mp_.set_data_length(len);
    mp_.set_streaming_width(len);
    mp_.set_byte_enable_ptr(nullptr);
    mp_.set_byte_enable_length(0);
    mp_.set_dmi_allowed(false);
    mp_.set_response_status(tlm::TLM_INCOMPLETE_RESPONSE);
    sc_core::sc_time local = qk_.get_local_time();
    mem_->b_transport(mp_, local);
    qk_.set(local);
    if (qk_.need_sync())
        sync();
    if (!mp_.is_response_ok()) {
        char buf[160];
        std::snprintf(buf, sizeof buf, "the memory refused a %u-byte %s at 0x%" PRIx64 " (%s)", len,
                      rd ? "read" : "write", addr, mp_.get_response_string().c_str());
        fail(qi, GD_HWQ_EMEMORY, pkt, buf);
        return false;
    }
    if (mp_.is_dmi_allowed() && !dmi_valid_) {
        dmi_.init();
        mp_.set_address(addr);
        dmi_valid_ = mem_->get_direct_mem_ptr(mp_, dmi_);
    }
    return true;
}

// The kernel descriptor at addr (read once, then kept), or null (the queue stopped).
const gd_kernel_desc *hw_queues::descriptor(uint64_t addr, uint32_t qi, uint64_t pkt)
{
    auto it = descs_.find(addr);
    if (it != descs_.end())
        return it->second;
    uint8_t h[GD_HWQ_DESC_HEADER];
    char why[512];
    uint32_t len;
    if (!mem_access(tlm::TLM_READ_COMMAND, addr, h, sizeof h, qi, pkt))
        return nullptr;
    std::string where;
    {
        char buf[64];
        std::snprintf(buf, sizeof buf, "kernel_object 0x%" PRIx64 ": ", addr);
        where = buf;
    }
    if (gd_hwq_desc_header(h, &len, why, sizeof why)) {
        fail(qi, GD_HWQ_EDESC, pkt, where + why);
        return nullptr;
    }
    std::vector<uint8_t> body(len);
    if (!mem_access(tlm::TLM_READ_COMMAND, addr + GD_HWQ_DESC_HEADER, body.data(), len, qi, pkt))
        return nullptr;
    desc_reads_++;
    gd_kernel_desc k;
    int rc = gd_kernel_desc_decode(&k, body.data(), len, GD_TRACE_VERSION_MINOR, &cfg_.sm, why, sizeof why);
    if (rc) {
        fail(qi, GD_HWQ_EDESC, pkt, where + (rc == GD_ENOMEM ? "out of memory" : why));
        return nullptr;
    }
    auto *d = new gd_kernel_desc(k);
    descs_.emplace(addr, d);
    return d;
}

uint32_t hw_queues::signal_number(uint64_t handle)
{
    auto it = signals_.find(handle);
    if (it != signals_.end())
        return it->second;
    uint32_t n = (uint32_t)signals_.size();
    signals_.emplace(handle, n);
    return n;
}

// Read the packet at queue qi's read index and hand it to the packet processor.
// False when the queue cannot go on now (empty, stopped, or the packet processor's
// queue is full: it says when there is room).
bool hw_queues::fetch_one(uint32_t qi)
{
    gd_hwq_queue &q = regs_.q[qi];
    if (!q.enabled || q.stopped || blocked_[qi])
        return false;
    gd_kernel_run *r = pending_[qi];
    const uint64_t idx = q.read;
    if (!r) {
        if (q.read >= rung_[qi])
            return false;
        uint8_t pkt[GD_AQL_PACKET_SIZE];
        if (!mem_access(tlm::TLM_READ_COMMAND, gd_hwq_slot(&q, idx), pkt, sizeof pkt, qi, idx))
            return false;
        packets_read_++;
        char why[512];
        const uint16_t header = gd_get16(pkt);
        const unsigned type = gd_aql_type(header);
        if (!(r = gd_run_alloc(pool_))) {
            fail(qi, GD_HWQ_EPACKET, idx, "out of memory");
            return false;
        }
        r->record = idx;
        r->queue = r->trace_queue = qi;
        r->barrier = gd_aql_barrier(header);
        r->source_id = r->measured_start_ns = r->measured_dur_ns = GD_UNKNOWN;
        r->cluster = gd_cluster_none();
        if (type == GD_AQL_TYPE_KERNEL_DISPATCH) {
            gd_aql_dispatch a;
            gd_aql_decode(&a, pkt);
            const gd_kernel_desc *k = descriptor(a.kernel_object, qi, idx);
            if (!k) {
                gd_run_release(pool_, r);
                return false;
            }
            if (gd_hwq_dispatch_check(&a, k, cfg_.max_grid, r->grid, &r->ctas, &r->cta_ps, why, sizeof why)) {
                gd_run_release(pool_, r);
                fail(qi, GD_HWQ_EPACKET, idx, std::string("kernel dispatch: ") + why);
                return false;
            }
            if (g_time_scale.div > 1 && r->cta_ps % g_time_scale.div) {
                std::snprintf(why, sizeof why, "kernel '%s': a CTA duration of %" PRIu64 " ps is not a whole number "
                              "of the simulation's time resolution (%" PRIu64 " ps)", k->name, r->cta_ps,
                              g_time_scale.div);
                gd_run_release(pool_, r);
                fail(qi, GD_HWQ_ETIME, idx, why);
                return false;
            }
            r->kind = GD_PKT_KERNEL;
            r->desc = k;
            r->has_insn = k->has_insn;
            r->completion_signal = a.completion_signal;
            r->index = next_index_++;
        } else if (type == GD_AQL_TYPE_BARRIER_AND || type == GD_AQL_TYPE_BARRIER_OR) {
            gd_aql_barrier_pkt b;
            gd_aql_barrier_decode(&b, pkt);
            if (gd_hwq_barrier_check(&b, why, sizeof why)) {
                gd_run_release(pool_, r);
                fail(qi, GD_HWQ_EPACKET, idx, std::string(type == 3 ? "barrier-AND: " : "barrier-OR: ") + why);
                return false;
            }
            const char *kind = type == GD_AQL_TYPE_BARRIER_OR ? "barrier-OR" : "barrier-AND";
            for (uint64_t h : b.dep_signal)
                if (h && h == b.completion_signal) {  // it would wait for itself
                    gd_run_release(pool_, r);
                    std::snprintf(why, sizeof why, "%s: dependency signal 0x%" PRIx64 " is its own completion "
                                  "signal: it would wait for itself for ever", kind, h);
                    fail(qi, GD_HWQ_EPACKET, idx, why);
                    return false;
                }
            r->kind = type == GD_AQL_TYPE_BARRIER_OR ? GD_PKT_BARRIER_OR : GD_PKT_BARRIER_AND;
            for (uint64_t h : b.dep_signal)
                if (h)
                    r->dep[r->ndeps++] = signal_number(h);
            r->completion_signal = b.completion_signal;
            if (r->kind == GD_PKT_BARRIER_AND)  // a later packet of this queue must not complete these
                for (uint32_t i = 0; i < r->ndeps; i++)
                    waits_[qi].emplace_back(r->dep[i], idx);
        } else {
            gd_run_release(pool_, r);
            std::snprintf(why, sizeof why, "packet type %u is %s", type,
                          type == GD_AQL_TYPE_INVALID ? "INVALID (the doorbell was rung before the packet's header "
                                                        "was written)"
                                                      : "not one this GPU runs (kernel dispatch 2, barrier-AND 3, "
                                                        "barrier-OR 5)");
            fail(qi, GD_HWQ_EPACKET, idx, why);
            return false;
        }
        r->signal = r->completion_signal ? signal_number(r->completion_signal) : GD_NO_SIGNAL;
        if (r->completion_signal && !signalled(r->signal))  // no earlier packet could complete it
            for (const auto &w : waits_[qi])
                if (w.first == r->signal && w.second != idx) {
                    std::snprintf(why, sizeof why, "its completion signal 0x%" PRIx64 " is one the barrier-AND before "
                                  "it in the same queue (packet %" PRIu64 ") waits for: the barrier holds the queue, "
                                  "so neither would ever run", r->completion_signal, w.second);
                    gd_run_release(pool_, r);
                    fail(qi, GD_HWQ_EPACKET, idx, why);
                    return false;
                }
        if (r->completion_signal) {
            if (signalled_.size() <= r->signal)
                signalled_.resize(r->signal + 1, 0);
            signalled_[r->signal] = 1;
        }
        gd_tenant t = gd_tenant_default(qi, r->barrier);
        r->vid = t.vid;
        r->cmd_flags = t.flags;
        r->priority = t.priority;
    }
    // the packet enters the packet processor once the memory's delays have passed
    if (qk_.get_local_time() != sc_core::SC_ZERO_TIME) {
        sync();
        if (!q.enabled || q.stopped) {  // the driver stopped the queue meanwhile
            pending_[qi] = r;
            return false;
        }
    }
    submit_body b{r, false};
    sc_core::sc_time d = sc_core::SC_ZERO_TIME;
    ch_.call(doorbell_out, op::submit, &b, d);
    if (!b.accepted) {
        pending_[qi] = r;
        blocked_[qi] = 1;
        return false;
    }
    pending_[qi] = nullptr;
    q.read++;
    in_flight_++;
    return true;
}

void hw_queues::signal_completion(const done_signal &s)
{
    uint8_t sig[16];
    if (!mem_access(tlm::TLM_READ_COMMAND, s.handle, sig, sizeof sig, s.queue, s.packet))
        return;
    uint64_t value = gd_get64(sig) - 1, event = gd_get64(sig + 8);
    gd_put64(sig, value);
    if (!mem_access(tlm::TLM_WRITE_COMMAND, s.handle, sig, 8, s.queue, s.packet))
        return;
    signal_writes_++;
    if (event) {
        sync();  // the interrupt follows the write
        regs_.event = event;
        regs_.int_cause |= 1ull << s.queue;
        interrupts_++;
        update_irq();
    }
}

void hw_queues::space(tlm::tlm_generic_payload &p, sc_core::sc_time &delay)
{
    const msg &m = msg_of(p);
    notice n{sc_core::sc_time_stamp() + delay, false, false, 0, done_signal{0, 0, 0}};
    if (m.code == op::queue_space) {
        n.queue = static_cast<queue_space_body *>(m.body)->queue;
    } else if (m.code == op::packet_completed) {
        const gd_kernel_run *r = static_cast<packet_completed_body *>(m.body)->run;
        n.completed = true;
        n.kernel = r->kind == GD_PKT_KERNEL;
        n.sig = done_signal{r->queue, r->completion_signal, r->record};
    } else {
        p.set_response_status(tlm::TLM_COMMAND_ERROR_RESPONSE);
        return;
    }
    notices_.push_back(n);
    if (delay == sc_core::SC_ZERO_TIME) {
        apply_notices(sc_core::sc_time_stamp());
        kick_ = true;
    }
    wake_.notify(delay);
    p.set_response_status(tlm::TLM_OK_RESPONSE);
}

// The packet processor's notices whose time has come by `by`.
void hw_queues::apply_notices(const sc_core::sc_time &by)
{
    while (!notices_.empty() && notices_.front().at <= by) {
        const notice n = notices_.front();
        notices_.pop_front();
        if (!n.completed) {
            if (n.queue < blocked_.size())
                blocked_[n.queue] = 0;
            continue;
        }
        regs_.completed++;
        kernels_done_ += n.kernel;
        in_flight_--;
        auto &w = waits_[n.sig.queue];  // a barrier-AND that completed waits no more
        for (size_t i = 0; i < w.size();)
            if (w[i].second == n.sig.packet)
                w.erase(w.begin() + (long)i);
            else
                i++;
        if (n.sig.handle)
            done_.push_back(n.sig);
    }
}

// Completion signals first (in completion order), then the doorbells in the order
// they were rung: each queue's packets are read until its ring is empty or the packet
// processor's queue is full (its doorbell is kept and served when there is room).
void hw_queues::sync()
{
    if (qk_.get_local_time() != sc_core::SC_ZERO_TIME)
        qk_.sync();  // waits, and starts the next quantum
}

void hw_queues::fetcher()
{
    qk_.reset();
    for (;;) {
        kick_ = false;
        apply_notices(sc_core::sc_time_stamp());
        while (!done_.empty()) {
            done_signal s = done_.front();
            done_.pop_front();
            signal_completion(s);
        }
        const sc_core::sc_time now = sc_core::sc_time_stamp();
        // the earliest doorbell or notice still ahead (zero: none)
        sc_core::sc_time next = notices_.empty() ? sc_core::SC_ZERO_TIME : notices_.front().at;
        for (size_t i = 0; i < bells_.size();) {
            const ring_bell b = bells_[i];
            if (b.at > now) {  // a write annotated with a delay: it rings then
                if (next == sc_core::SC_ZERO_TIME || b.at < next)
                    next = b.at;
                i++;
                continue;
            }
            if (b.write > rung_[b.queue])
                rung_[b.queue] = b.write;
            while (fetch_one(b.queue)) {
            }
            const gd_hwq_queue &q = regs_.q[b.queue];
            if (!q.enabled || q.stopped || (q.read >= rung_[b.queue] && !pending_[b.queue]))
                bells_.erase(bells_.begin() + (long)i);
            else
                i++;
            if (!done_.empty())
                break;
        }
        if (!done_.empty() || kick_ || (next != sc_core::SC_ZERO_TIME && next <= sc_core::sc_time_stamp()))
            continue;
        if (qk_.get_local_time() != sc_core::SC_ZERO_TIME) {  // in time before idling
            sync();
            continue;
        }
        if (next != sc_core::SC_ZERO_TIME)
            sc_core::wait(next - sc_core::sc_time_stamp(), wake_);
        else
            sc_core::wait(wake_);
        qk_.reset();  // the quantum starts when there is work again, not where it idled
    }
}

}  // namespace gd
