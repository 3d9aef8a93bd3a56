/* gap.h - the launch-gap model, pure C: how long the front end takes from the end of a
 * packet (a kernel's last CTA retiring, a copy ending) to the start of the next packet
 * of the same hardware queue when that packet was already waiting there, decoded, for
 * its barrier bit (a "busy queue"). The time depends on the pair, which captures show
 * (docs/MODEL.md, 'Launch gaps'): kernel or copy before, kernel or copy after, whether
 * the packet after was launched as part of a CUDA graph, and whether a cross-stream
 * wait (a barrier packet) released it. Each class is a configuration key in ns
 * (pp.gap_*_ns), the whole end-to-start time; the model spends part of it anyway (the
 * completion signal, the grid or command launch, a barrier's own time) and the packet
 * processor holds the released packet for the rest. */
#ifndef GD_GAP_H
#define GD_GAP_H

#include <stdint.h>

#include "config.h"
#include "gd_util.h"

#ifdef __cplusplus
extern "C" {
#endif

enum gd_gap_class {
    GD_GAP_KERNEL_KERNEL = 0,   /* stream-launched: predecessor kernel, successor kernel */
    GD_GAP_KERNEL_COPY,
    GD_GAP_COPY_KERNEL,
    GD_GAP_COPY_COPY,
    GD_GAP_GRAPH_KERNEL_KERNEL, /* the successor was launched as part of a CUDA graph */
    GD_GAP_GRAPH_KERNEL_COPY,
    GD_GAP_GRAPH_COPY_KERNEL,
    GD_GAP_GRAPH_COPY_COPY,
    GD_GAP_AFTER_WAIT,          /* released by a barrier packet (a cross-stream wait) */
    GD_GAP_CLASSES,
    GD_GAP_NONE = -1            /* no gap applies */
};

/* The configuration key of a class ("pp.gap_kernel_kernel_ns", ...). */
const char *gd_gap_class_key(int cls);

typedef struct gd_gap_model {
    gd_time_ps gap_ps[GD_GAP_CLASSES];  /* the keys, in ps */
    gd_time_ps completion_ps;           /* pp.completion_cycles */
    gd_time_ps barrier_ps;              /* pp.barrier_cycles */
    gd_time_ps grid_launch_ps;          /* cwd.grid_launch_cycles */
    gd_time_ps command_launch_ps;       /* pp.command_launch_cycles */
    gd_time_ps idle_launch_ps;          /* pp.idle_launch_ns (0: the sum of the stages) */
    gd_time_ps doorbell_ps;             /* pp.doorbell_cycles */
    gd_time_ps fetch_ps;                /* pp.fetch_cycles */
    gd_time_ps decode_ps;               /* pp.decode_cycles */
} gd_gap_model;

void gd_gap_model_init(gd_gap_model *m, const gd_config *cfg);

/* Packet kinds the model tells apart here (trace/packet.h's gd_packet_kind, reduced). */
enum gd_gap_kind { GD_GAP_IS_KERNEL = 0, GD_GAP_IS_COPY, GD_GAP_IS_BARRIER, GD_GAP_IS_OTHER };

/* The class of the gap before a successor of kind succ (kernel or copy; graph: it was
 * graph-launched) released by the completion of a predecessor of kind pred (kernel,
 * copy or barrier packet). GD_GAP_NONE when the pair has no class (a pipeline launch,
 * a barrier packet as successor). */
int gd_gap_class(int pred, int succ, int graph);

/* What the model spends between the predecessor's end and the successor's start
 * without any hold: the completion latency, then (after a wait) the barrier packet's
 * own time, then the successor's grid launch (kernel) or engine start (copy). */
gd_time_ps gd_gap_fixed_ps(const gd_gap_model *m, int cls, int succ);

/* How long the packet processor holds the successor after the predecessor's
 * completion released it: the class's gap less the fixed part, 0 when the gap is
 * shorter than the fixed part (the model cannot be faster than its own latencies). */
gd_time_ps gd_gap_hold_ps(const gd_gap_model *m, int cls, int succ);

/* Idle launch latency: the time from the doorbell of a packet of kind succ written into
 * an idle queue (nothing left in it or in flight) to the packet fetched, the packet
 * processor's wake-up and fetch together: pp.doorbell_cycles + pp.fetch_cycles; with
 * pp.idle_launch_ns set (a kernel or a copy), what the decode and the grid or command
 * launch leave of it, 0 when they take it all (docs/MODEL.md, 'Idle launch latency'). */
gd_time_ps gd_gap_wake_ps(const gd_gap_model *m, int succ);

#ifdef __cplusplus
}
#endif

#endif
