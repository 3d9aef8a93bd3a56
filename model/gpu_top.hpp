// gpu_top.hpp - the top-level module: builds the blocks from a resolved
// configuration and wires them with TLM-2.0 sockets:
//
//   host --doorbell--> packet_processor --dispatch--> command_scheduler --dispatch--> meta_scheduler --dispatch--> gpu2gpc --gpc_out[g]--> gpc2sm[g] --sm_out[i]--> sm[..]
//   host <--space----- packet_processor <--done------ command_scheduler <--done------ meta_scheduler <--done------ gpu2gpc
//                                 | rsb_out
//                                 v pp_in
//                          reference_state_buffer
//
// The host is not part of the GPU: whoever builds gpu_top binds a host to the packet
// processor's doorbell_in / space_out (the C API's replay: trace_source, reading a
// trace file; gdsim::gpu: hw_queues, reading AQL queues in a platform's memory).
// Each block lives in its own folder (model/BLOCK/); inserting a block between two
// others changes only this wiring.
#ifndef GD_GPU_TOP_HPP
#define GD_GPU_TOP_HPP

#include <memory>
#include <vector>

#include <systemc>

#include "command_scheduler.hpp"
#include "domain.hpp"
#include "gpc2sm.hpp"
#include "gpu2gpc.hpp"
#include "meta_scheduler.hpp"
#include "module_selector.hpp"
#include "packet_processor.hpp"
#include "reference_state_buffer.hpp"
#include "sm.hpp"
#include "progress.hpp"
#include "report.h"

struct gd_cta_log;

namespace gd {

// What the device's blocks need from whoever builds them.
struct device_env {
    gd_report *report = nullptr;           // the kernel table
    gd_err *err = nullptr;                 // first error of the run
    struct gd_cta_log *cta_log = nullptr;  // --cta-log (for the GPC2SM distributors), or null
    std::FILE *meta_log = nullptr;         // --meta-log (for the meta-scheduler), or null
    launch_watcher *watch = nullptr;       // sees every group of CTAs started (--occupancy-csv, --timeline), or null
    const char *source = nullptr;          // where the packets come from (a trace's path), for messages, or null
    progress_meter progress;
};

class gpu_top : public sc_core::sc_module {
public:
    gpu_top(sc_core::sc_module_name name, const gd_config &cfg, device_env &env, gd_stats *stats);
    // Waveforms (--vcd): the packet processor's and the GPU2GPC distributor's signals
    // into tf (hardware queues 0..queues-1), and the event domain in lockstep with
    // SystemC time. Before the simulation starts. The GPCs' come from a gpc_waves probe
    // given to them as env.watch.
    void trace(sc_core::sc_trace_file *tf, uint32_t queues);

    // The event domain of the GPU's timed blocks (domain.hpp): one SystemC process runs
    // them all, ahead of SystemC time while nothing outside acts. A host may join it.
    domain events;
    packet_processor pp;
    reference_state_buffer rsb;
    command_scheduler cs;
    meta_scheduler meta;
    gpu2gpc cwd;
    module_selector selector;
    // Modules of nothing made just before the GPCs and SMs and removed first, so that
    // removing those is O(1) each (~gpu_top).
    struct anchor : sc_core::sc_module {
        explicit anchor(sc_core::sc_module_name n) : sc_core::sc_module(n) {}
    };
    std::vector<std::unique_ptr<anchor>> anchors_;
    std::vector<std::unique_ptr<gpc2sm>> gpcs;
    std::vector<sm_counters> sm_counters_;  // every SM's counters, side by side (sm_msg.hpp)
    std::vector<std::unique_ptr<sm>> sms;
    gd_power_windows power;  // power.window_ns: the SMs' power over time (power.n == 0: off)
    ~gpu_top() override;
    // The GPCs and SMs in the order that keeps each removal O(1) (~gpu_top), and the power
    // windows; what a constructor that threw built goes the same way.
    void teardown();
    void build_gpcs(const gd_config &cfg, device_env &env, gd_stats *stats);
    // After the run: the GPCs retire what they still hold, the command scheduler closes
    // its time accounts, the SMs' energy and the last power windows.
    void finish();
};

}  // namespace gd

#endif
