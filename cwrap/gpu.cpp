// gpu.cpp - gdsim::gpu (include/gdsim/gpu.hpp): the GPU as a device in the caller's
// SystemC simulation. It builds the device's blocks (gpu_top) and the hardware-queue
// host (model/hwq/) in the caller's context, sets the model's time scale from the
// context's resolution after checking that every latency of the configuration is a
// whole number of it, and forwards the device's sockets to the queues.
#include "gdsim/gpu.hpp"

#include <cinttypes>
#include <cstdio>
#include <cstring>
#include <stdexcept>

#include "config.h"
#include "gpu_top.hpp"
#include "hw_queues.hpp"
#include "report.h"
#include "stats.h"

namespace gdsim {

static_assert(gpu::REG_ID == GD_HWQ_ID && gpu::REG_STATUS == GD_HWQ_STATUS && gpu::REG_INT_CAUSE == GD_HWQ_INT_CAUSE &&
                  gpu::REG_INT_ENABLE == GD_HWQ_INT_ENABLE && gpu::REG_ERROR == GD_HWQ_ERROR &&
                  gpu::REG_QUEUES == GD_HWQ_QUEUES && gpu::REG_EVENT == GD_HWQ_EVENT &&
                  gpu::REG_COMPLETED == GD_HWQ_COMPLETED && gpu::QUEUE0 == GD_HWQ_QUEUE0 &&
                  gpu::QUEUE_STRIDE == GD_HWQ_QUEUE_STRIDE && gpu::Q_BASE == GD_HWQ_Q_BASE &&
                  gpu::Q_SIZE == GD_HWQ_Q_SIZE && gpu::Q_DOORBELL == GD_HWQ_Q_DOORBELL &&
                  gpu::Q_READ == GD_HWQ_Q_READ && gpu::Q_ENABLE == GD_HWQ_Q_ENABLE &&
                  gpu::ID_VALUE == GD_HWQ_ID_VALUE && gpu::STATUS_BUSY == GD_HWQ_STATUS_BUSY &&
                  gpu::STATUS_IRQ == GD_HWQ_STATUS_IRQ && gpu::STATUS_ERROR == GD_HWQ_STATUS_ERROR &&
                  gpu::CAUSE_ERROR == GD_HWQ_CAUSE_ERROR && gpu::DESC_MAGIC == GD_HWQ_DESC_MAGIC &&
                  gpu::DESC_HEADER == GD_HWQ_DESC_HEADER && (int)gpu::ERR_TIME == (int)GD_HWQ_ETIME,
              "the public register map matches model/hwq/hwq.h");

namespace {

[[noreturn]] void refuse(const char *who, const std::string &what)
{
    throw std::invalid_argument(std::string(who) + ": " + what);
}

// The model's time scale for the context's resolution; refuses a configuration with
// a latency that is not a whole number of resolution units.
gd::time_scale scale_for(const char *who, const gd_settings *settings, const gd_config &cfg)
{
    const double res_ps = sc_core::sc_get_time_resolution().to_seconds() * 1e12;
    gd::time_scale s;
    if (res_ps >= 1.0) {
        s.div = (uint64_t)(res_ps + 0.5);
    } else {
        s.mul = (uint64_t)(1.0 / res_ps + 0.5);
    }
    s.on = s.mul != 1 || s.div != 1;
    if (s.div <= 1)
        return s;
    char res[32], buf[512];
    std::snprintf(res, sizeof res, "%s", sc_core::sc_get_time_resolution().to_string().c_str());
    const gd_time_ps cycle = gd_cycles_to_ps(1, cfg.clock_mhz);
    if (cycle % s.div) {
        std::snprintf(buf, sizeof buf, "frontend.clock_mhz=%u gives a cycle of %" PRIu64 " ps, which the time "
                      "resolution (%s) cannot represent: set a finer resolution with sc_set_time_resolution or a "
                      "clock whose cycle is a whole number of it (1000 MHz: 1 ns)", cfg.clock_mhz, cycle, res);
        refuse(who, buf);
    }
    for (size_t i = 0;; i++) {
        const char *key, *def, *doc, *src;
        if (gd_config_key(&key, &def, &doc, &src, i) != GD_OK)
            break;
        size_t n = std::strlen(key);
        bool cycles = n > 7 && std::strcmp(key + n - 7, "_cycles") == 0, ns = n > 3 && std::strcmp(key + n - 3, "_ns") == 0;
        if (!cycles && !ns)
            continue;
        char val[256];
        gd_err err;
        std::memset(&err, 0, sizeof err);
        if (gd_settings_effective(val, sizeof val, settings, key, &err) != GD_OK)
            continue;
        char *end;
        unsigned long long v = std::strtoull(val, &end, 10);
        if (end == val || *end)
            continue;  // not a number (a list, "off")
        gd_time_ps ps = cycles ? gd_cycles_to_ps(v, cfg.clock_mhz) : (gd_time_ps)v * GD_PS_PER_NS;
        if (ps % s.div) {
            std::snprintf(buf, sizeof buf, "%s=%llu is %" PRIu64 " ps, which the time resolution (%s) cannot "
                          "represent: set a finer resolution with sc_set_time_resolution or change the key", key, v,
                          ps, res);
            refuse(who, buf);
        }
    }
    return s;
}

}  // namespace

struct gpu::impl {
    gd_settings *settings = nullptr;
    gd_config cfg;
    gd_err err;
    gd_run_pool pool;
    gd_stats stats;
    gd_report report;
    bool report_live = false;
    gd::device_env env;
    std::unique_ptr<gd::gpu_top> top;
    std::unique_ptr<gd::hw_queues> queues;
    std::string io_error;

    impl()
    {
        std::memset(&err, 0, sizeof err);
        std::memset(&pool, 0, sizeof pool);
        gd_stats_init(&stats);
    }
    ~impl()
    {
        queues.reset();
        top.reset();
        if (report_live)
            gd_report_destroy(&report);
        gd_run_pool_destroy(&pool);
        gd_stats_destroy(&stats);
        gd_settings_free(settings);
    }
};

gpu::gpu(sc_core::sc_module_name name, const config &cfg)
    : sc_module(name), regs("regs"), mem("mem"), irq("irq"), impl_(new impl)
{
    impl &m = *impl_;
    if (!(m.settings = gd_settings_new()))
        throw std::bad_alloc();
    bool preset = false;
    for (const auto &kv : cfg) {
        if (gd_settings_set(m.settings, kv.first.c_str(), kv.second.c_str(), &m.err) != GD_OK)
            refuse(this->name(), m.err.msg);
        preset |= kv.first == "gpu.preset" && kv.second != "trace";
    }
    if (!preset)
        refuse(this->name(), "set gpu.preset to the device to model (v100, a100, h100, mi250, mi210, mi250x, "
                             "mi300x, mi300a): a platform has no trace to describe it");
    if (gd_config_resolve(&m.cfg, m.settings, nullptr, &m.err) != GD_OK)
        refuse(this->name(), m.err.msg);
    const gd::time_scale scale = scale_for(this->name(), m.settings, m.cfg);
    gd::g_time_scale = scale;
    if (gd_report_init(&m.report, &m.cfg, &m.pool, &m.err) != GD_OK)
        refuse(this->name(), m.err.msg);
    m.report_live = true;
    m.report.origin_ns = 0;  // kernel times are the simulation's own
    m.env.report = &m.report;
    m.env.err = &m.err;
    m.env.source = this->name();
    m.env.progress.kernels_done = &m.report.kernels;
    m.top.reset(new gd::gpu_top("gpu", m.cfg, m.env, &m.stats));
    if (gd_report_register_stats(&m.report, &m.stats))
        throw std::bad_alloc();
    m.queues.reset(new gd::hw_queues("queues", m.cfg, mem, irq, &m.pool, &m.stats));
    m.queues->doorbell_out.bind(m.top->pp.doorbell_in);
    m.top->pp.space_out.bind(m.queues->space_in);
    regs.register_b_transport(this, &gpu::reg_b_transport);
    regs.register_transport_dbg(this, &gpu::reg_transport_dbg);
    mem.register_invalidate_direct_mem_ptr(this, &gpu::mem_invalidate);
}

gpu::~gpu() = default;

uint64_t gpu::regs_size() const { return GD_HWQ_QUEUE0 + (uint64_t)impl_->cfg.vp_queues * GD_HWQ_QUEUE_STRIDE; }

void gpu::reg_b_transport(tlm::tlm_generic_payload &p, sc_core::sc_time &delay)
{
    impl_->queues->reg_transport(p, delay);
}

unsigned gpu::reg_transport_dbg(tlm::tlm_generic_payload &p) { return impl_->queues->reg_debug(p); }

void gpu::mem_invalidate(sc_dt::uint64 start, sc_dt::uint64 end) { impl_->queues->invalidate_dmi(start, end); }

uint64_t gpu::kernels_dispatched() const { return impl_->queues->dispatches(); }
// as of SystemC's time: the model may run ahead of it between the platform's accesses
uint64_t gpu::kernels_completed() const { return impl_->queues->kernels_completed_by(sc_core::sc_time_stamp()); }
const std::string &gpu::error() const { return impl_->queues->error(); }
const std::string &gpu::last_io_error() const { return impl_->io_error; }

int gpu::write_kernels_csv(const std::string &path) const
{
    gd_err err;
    std::memset(&err, 0, sizeof err);
    int rc = gd_report_write_csv(&impl_->report, path.c_str(), nullptr, &err);
    impl_->io_error = rc == GD_OK ? "" : err.msg;
    return rc;
}

}  // namespace gdsim
