#include "gap.h"

static const char *const KEYS[GD_GAP_CLASSES] = {
    "pp.gap_kernel_kernel_ns",       "pp.gap_kernel_copy_ns",       "pp.gap_copy_kernel_ns",
    "pp.gap_copy_copy_ns",           "pp.gap_graph_kernel_kernel_ns", "pp.gap_graph_kernel_copy_ns",
    "pp.gap_graph_copy_kernel_ns",   "pp.gap_graph_copy_copy_ns",   "pp.gap_after_wait_ns",
};

const char *gd_gap_class_key(int cls)
{
    return cls >= 0 && cls < GD_GAP_CLASSES ? KEYS[cls] : "";
}

void gd_gap_model_init(gd_gap_model *m, const gd_config *cfg)
{
    for (int c = 0; c < GD_GAP_CLASSES; c++)
        m->gap_ps[c] = (gd_time_ps)cfg->pp_gap_ns[c] * 1000;
    m->completion_ps = gd_cycles_to_ps(cfg->pp_completion_cycles, cfg->clock_mhz);
    m->barrier_ps = gd_cycles_to_ps(cfg->pp_barrier_cycles, cfg->clock_mhz);
    m->grid_launch_ps = gd_cycles_to_ps(cfg->cwd_grid_launch_cycles, cfg->clock_mhz);
    m->command_launch_ps = gd_cycles_to_ps(cfg->pp_command_launch_cycles, cfg->clock_mhz);
    m->idle_launch_ps = (gd_time_ps)cfg->pp_idle_launch_ns * 1000;
    m->doorbell_ps = gd_cycles_to_ps(cfg->pp_doorbell_cycles, cfg->clock_mhz);
    m->fetch_ps = gd_cycles_to_ps(cfg->pp_fetch_cycles, cfg->clock_mhz);
    m->decode_ps = gd_cycles_to_ps(cfg->pp_decode_cycles, cfg->clock_mhz);
}

int gd_gap_class(int pred, int succ, int graph)
{
    if (succ != GD_GAP_IS_KERNEL && succ != GD_GAP_IS_COPY)
        return GD_GAP_NONE;
    if (pred == GD_GAP_IS_BARRIER)
        return GD_GAP_AFTER_WAIT;
    if (pred != GD_GAP_IS_KERNEL && pred != GD_GAP_IS_COPY)
        return GD_GAP_NONE;
    int cls = (pred == GD_GAP_IS_COPY ? 2 : 0) + (succ == GD_GAP_IS_COPY ? 1 : 0);
    return graph ? cls + GD_GAP_GRAPH_KERNEL_KERNEL : cls;
}

gd_time_ps gd_gap_fixed_ps(const gd_gap_model *m, int cls, int succ)
{
    if (cls < 0 || cls >= GD_GAP_CLASSES)
        return 0;
    gd_time_ps launch = succ == GD_GAP_IS_COPY ? m->command_launch_ps : m->grid_launch_ps;
    return m->completion_ps + (cls == GD_GAP_AFTER_WAIT ? m->barrier_ps : 0) + launch;
}

gd_time_ps gd_gap_hold_ps(const gd_gap_model *m, int cls, int succ)
{
    if (cls < 0 || cls >= GD_GAP_CLASSES)
        return 0;
    gd_time_ps fixed = gd_gap_fixed_ps(m, cls, succ);
    return m->gap_ps[cls] > fixed ? m->gap_ps[cls] - fixed : 0;
}

gd_time_ps gd_gap_wake_ps(const gd_gap_model *m, int succ)
{
    if (!m->idle_launch_ps || (succ != GD_GAP_IS_KERNEL && succ != GD_GAP_IS_COPY))
        return m->doorbell_ps + m->fetch_ps;
    gd_time_ps rest = m->decode_ps + (succ == GD_GAP_IS_COPY ? m->command_launch_ps : m->grid_launch_ps);
    return m->idle_launch_ps > rest ? m->idle_launch_ps - rest : 0;
}
