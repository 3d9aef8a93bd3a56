/* packet.h - one packet on its way through the model (gd_kernel_run): what the host
 * read from the trace (kind, queue, kernel descriptor, grid, cluster shape, signals),
 * the time of every stage each block stamps on it, and its results (a kernel's
 * becomes a row of the kernel table, report.h). The host allocates it from a pool;
 * the TLM messages between blocks carry a pointer to it. Pure C. */
#ifndef GD_PACKET_H
#define GD_PACKET_H

#include <stdint.h>

#include "aql.h"
#include "gd_util.h"
#include "trace.h"

#ifdef __cplusplus
extern "C" {
#endif

/* What a packet is. */
enum gd_packet_kind {
    GD_PKT_KERNEL = 0,      /* AQL kernel dispatch */
    GD_PKT_BARRIER_AND,     /* AQL barrier-AND */
    GD_PKT_BARRIER_OR,      /* AQL barrier-OR */
    GD_PKT_COMMAND,         /* non-kernel command (memcpy, memset) */
    GD_PKT_PIPELINE         /* pipeline launch (AQL vendor-specific packet, seed 002): the meta-scheduler runs it */
};

/* The account of a path to an event (bounds.h): when the event happened and how the
 * time before it splits along its critical path by category (enum gd_path_cat, the
 * categories summing to at), with the event's time under two what-ifs: every GPU-side
 * duration zero (host_floor) and every host duration zero (gpu_floor). */
enum gd_path_cat {
    GD_PATH_HOST_CPU = 0,   /* a host thread's CPU time between calls (open loop: to the captured submit time) */
    GD_PATH_HOST_SYNC,      /* a host wait's return: from the awaited work's completion to the call's return */
    GD_PATH_HELD,           /* a host call held back: its queue full, or another thread's earlier packet of it not in */
    GD_PATH_FRONT_END,      /* dependencies met -> first CTA, and last CTA's end -> completion signalled */
    GD_PATH_SMS_FULL,       /* the distributor's next kernel, ready to launch, waiting for room on the SMs */
    GD_PATH_KERNELS,        /* first CTA launched -> last CTA done */
    GD_PATH_COPIES,         /* a copy or another non-kernel command running on its engine */
    GD_PATH_CATS
};
typedef struct gd_path {
    gd_time_ps at;
    gd_time_ps cat[GD_PATH_CATS];
    gd_time_ps host_floor, gpu_floor;
} gd_path;

/* One packet on its way through the model; times in ps since the trace origin.
 * For a non-kernel command first_cta is when its engine starts it and end when
 * it finishes; a barrier packet has only the packet-processor stages. */
typedef struct gd_kernel_run {
    uint64_t index;             /* kernels: kernel_index, position among the trace's dispatches */
    uint64_t record;            /* trace record index of the packet */
    uint32_t queue;
    uint8_t kind;               /* enum gd_packet_kind */
    uint8_t ndeps;              /* barriers: non-null dependencies */
    uint8_t cmd_kind;           /* commands: enum gd_command_kind */
    uint8_t in_packet;          /* kernels of a condensed packet: position in it (0: first, or a plain packet) */
    uint8_t rsb_access;         /* the RSB access it makes when decoded: 1 a reference packet installs its
                                   entry, 2 a condensed packet's kernel looks its entry up (0: none) */
    uint8_t ref_num;            /* rsb_access: the entry (reference state table index) */
    uint8_t skip_cleanup;       /* no completion (cleanup) latency: a condensed packet's kernel before its
                                   last whose cleanup information needs none (seed 000 fig 7) */
    int barrier;                /* AQL header barrier bit */
    uint64_t completion_signal;
    uint32_t signal;            /* number of the completion signal (trace.h), GD_NO_SIGNAL if none */
    uint32_t dep[GD_AQL_MAX_DEPS];  /* barriers: signal numbers they depend on */
    uint64_t bytes;             /* commands: bytes moved or set */
    struct gd_kernel_run *next_barrier;  /* barriers: the next one waiting in its queue */
    const gd_kernel_desc *desc;
    const gd_pipeline_def *pipeline;  /* GD_PKT_PIPELINE: its topology (desc: its kernel-table row) */
    void *meta;                 /* a kernel the meta-scheduler launched: its launch (else null) */
    uint32_t grid[3];           /* CTAs per dimension */
    uint64_t ctas;
    gd_cluster cluster;         /* kernels: the cluster shape (gd_cluster_none(): one-CTA CGAs) */
    uint64_t cgas_launched;     /* kernels, cwd.policy=cga: GPC-CGAs launched so far */
    uint32_t channel;           /* kernels, cwd.admission=channels: its task channel (distributor slot) */
    uint32_t split_left;        /* kernels, cwd.split_after: one-warp sub-workgroups of its next CTA (split by
                                   seed 001 emb. 3) still to launch; 0: its CTAs launch whole */
    uint64_t cta_energy_fj;     /* kernels with an instruction mix: one CTA's energy (the SM's, once computed) */
    gd_time_ps cta_ps;          /* each CTA runs this long (commands: the command's duration) */
    gd_time_ps wait_until;      /* kernels: each CTA runs at least until then (0: no such wait; exec.h) */
    uint64_t source_id;         /* GD_UNKNOWN fields: not known */
    uint64_t measured_start_ns, measured_dur_ns;
    gd_time_ps submit, fetched, decoded, ready, dispatched;
    gd_time_ps first_cta, last_cta, end, completion;
    uint64_t ctas_launched;
    uint64_t warp_ps;           /* sum over CTAs of warps x residency (ps) */
    struct gd_kernel_run *next_free;
    struct gd_kernel_run *host_next;  /* the closed-loop host (host.h): the next run of its call */
    uint64_t host_qseq;         /* the closed-loop host: its place among its trace queue's runs, in trace order */
    gd_time_ps host_at;         /* open loop: its captured submit time (bounds.h: its path's start) */
    uint64_t bseq;              /* its place in submit order (bounds.h) */
    gd_time_ps head_at;         /* kernels: when it first became the distributor's next to launch (0: not yet) */
    gd_time_ps launch_from;     /* kernels in the distributor: set up (dispatched + cwd.grid_launch_cycles) and, if
                                   programmatic, at its primary's end less pp.gap_programmatic_lead_ns
                                   (GD_TIME_NEVER while the primary launches) */
    struct gd_kernel_run *pdl_next;  /* kernels still launching: the programmatic kernel waiting for its end */
    gd_time_ps room_wait;       /* kernels: from ready to launch as the distributor's next to its first CTA's step */
    gd_aql_dispatch ref_pkt;    /* rsb_access 1: the dispatch the reference packet installs */
    /* multi-tenant command (seed 004): from the trace, or derived (trace.h gd_tenant_default) */
    uint32_t vid;               /* virtual queue (tenant) */
    uint32_t trace_queue;       /* the trace's queue (queue is the hardware queue it was mapped to) */
    uint8_t graph;              /* kernels and commands: launched as part of a CUDA graph (launch-gap class) */
    uint8_t programmatic;       /* kernels: a programmatic dependent launch (docs/MODEL.md) */
    uint8_t woke;               /* written into an idle queue (nothing in it or in flight): its fetch waits
                                   pp.doorbell_cycles */
    uint8_t launching;          /* kernels: its first CTA (or sub-workgroup) has launched */
    uint8_t has_insn;           /* kernels: desc->has_insn (the SM reads it per CTA with cta_ps) */
    uint8_t cmd_flags;          /* GD_CMD_SYNC | GD_CMD_COND | GD_CMD_FAILS | GD_CMD_INDEPENDENT */
    uint8_t priority;           /* kernels: seed 001's priority level, 0 (highest) .. 7 (cwd.admission=channels) */
    uint8_t status;             /* enum gd_cmd_status, once completed */
    /* the command scheduler's bookkeeping (sched/cs.h) */
    uint8_t cs_state;           /* enum gd_cs_state */
    uint8_t cs_held;            /* it was ready while a command of another VID held its PQ (a false dependency) */
    uint8_t cs_waited;          /* it waited at its PQ's head: bit 0 for a free WQ, bit 1 for room in a full WQ */
    uint32_t pq;                /* its physical queue */
    int32_t wq, engine;         /* the wait queue it went through and the engine it ran on (-1: none) */
    int32_t cs_own_wq;          /* a running sync: the wait queue bound to it (-1: none) */
    uint64_t cs_seq;            /* when it was picked from its PQ */
    struct gd_kernel_run *cs_next;  /* next in its PQ or WQ */
} gd_kernel_run;

/* What became of a command. */
enum gd_cmd_status {
    GD_STATUS_OK = 0,     /* ran and completed */
    GD_STATUS_FAILED,     /* ran; its engine reported an error */
    GD_STATUS_NOOP        /* completed as a no-op: the sync it depended on failed */
};

/* A pool of runs, allocated in blocks and recycled through a free list, so memory
 * is bounded by the kernels in flight and everything is freed at once at the end
 * (also when a replay stops on an error with kernels still in flight). */
typedef struct gd_run_block gd_run_block;
typedef struct gd_run_pool {
    gd_kernel_run *free;
    gd_run_block *blocks;
    uint64_t live, peak;
} gd_run_pool;

gd_kernel_run *gd_run_alloc(gd_run_pool *p);
void gd_run_release(gd_run_pool *p, gd_kernel_run *r);
void gd_run_pool_destroy(gd_run_pool *p);

#ifdef __cplusplus
}
#endif

#endif
