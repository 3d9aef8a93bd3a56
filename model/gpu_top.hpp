// gpu_top.hpp - the top-level module: builds the blocks from a resolved
// configuration and wires them with TLM-2.0 sockets:
//
//   trace_source --doorbell--> packet_processor --dispatch--> command_scheduler --dispatch--> meta_scheduler --dispatch--> gpu2gpc --gpc_out[g]--> gpc2sm[g] --sm_out[i]--> sm[..]
//   trace_source <--space----- packet_processor <--done------ command_scheduler <--done------ meta_scheduler <--done------ gpu2gpc
//                                 | rsb_out
//                                 v pp_in
//                          reference_state_buffer
//
// Each block lives in its own folder (model/BLOCK/); inserting a block between two
// others changes only this wiring.
#ifndef GD_GPU_TOP_HPP
#define GD_GPU_TOP_HPP

#include <memory>
#include <vector>

#include <systemc>

#include "command_scheduler.hpp"
#include "gpc2sm.hpp"
#include "gpu2gpc.hpp"
#include "meta_scheduler.hpp"
#include "module_selector.hpp"
#include "packet_processor.hpp"
#include "reference_state_buffer.hpp"
#include "sm.hpp"
#include "trace_source.hpp"

namespace gd {

class gpu_top : public sc_core::sc_module {
public:
    gpu_top(sc_core::sc_module_name name, const gd_config &cfg, host_env &env, gd_stats *stats);

    trace_source host;
    packet_processor pp;
    reference_state_buffer rsb;
    command_scheduler cs;
    meta_scheduler meta;
    gpu2gpc cwd;
    module_selector selector;
    std::vector<std::unique_ptr<gpc2sm>> gpcs;
    std::vector<std::unique_ptr<sm>> sms;
    gd_power_windows power;  // power.window_ns: the SMs' power over time (power.n == 0: off)
    ~gpu_top() override;
    // After the run: the SMs' energy, the last power windows.
    void finish();
};

}  // namespace gd

#endif
