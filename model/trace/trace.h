/* trace.h - gdsim trace format v1: streaming reader and writer (spec: traces/FORMAT.md).
 *
 * A trace is a gzip stream of a 16-byte file header followed by framed records
 * {u16 type, u16 flags, u32 length, payload}. The reader validates every record
 * as it streams and reports the first problem with the file name, the record
 * index and the record's byte offset in the uncompressed stream. Memory is
 * bounded by the number of distinct kernel descriptors, never by trace length. */
#ifndef GD_TRACE_H
#define GD_TRACE_H

#include <stdint.h>

#include "aql.h"
#include "condensed.h"
#include "config.h"
#include "gd_util.h"
#include "occupancy.h"
#include "topology.h"

#ifdef __cplusplus
extern "C" {
#endif

#define GD_TRACE_MAGIC "\x89GDT\r\n\x1a\n"
#define GD_TRACE_VERSION_MAJOR 1
#define GD_TRACE_VERSION_MINOR 12
#define GD_TRACE_FILE_HEADER_SIZE 16
#define GD_TRACE_FRAME_SIZE 8
#define GD_TRACE_MAX_RECORD (1u << 20)  /* largest payload accepted, bytes */
#define GD_TRACE_MAX_QUEUES 1024        /* queue ids 0..1023 */
#define GD_TRACE_MAX_NAME 65535
#define GD_TRACE_MAX_THREADS 4096       /* host thread ids 0..4095 (format 1.10) */
#define GD_TRACE_MAX_CALL_PACKETS 65535 /* packets one host call submits */

enum gd_record_type {
    GD_REC_HEADER = 1,
    GD_REC_KERNEL = 2,
    GD_REC_DISPATCH = 3,
    GD_REC_BARRIER_AND = 4,   /* format 1.2 */
    GD_REC_BARRIER_OR = 5,    /* format 1.2 */
    GD_REC_CONDENSED = 6,     /* format 1.5: a condensed dispatch packet (seed 000) */
    GD_REC_MT_COMMAND = 7,    /* reserved: later version */
    GD_REC_NONKERNEL = 8,     /* format 1.2 */
    GD_REC_PIPELINE = 9,      /* format 1.8: a pipeline-launch packet (seed 002; an AQL vendor-specific packet) */
    GD_REC_CALIBRATION = 10,  /* format 1.9: the launch-gap fit of the capture the trace came from (record 1 only) */
    GD_REC_HOST_THREAD = 11,  /* format 1.10: a host thread of the captured program (before the first packet) */
    GD_REC_HOST_CALL = 12,    /* format 1.10: a host thread's call that submits the next packet records */
    GD_REC_HOST_WAIT = 13,    /* format 1.10: a host thread waits for the GPU (a synchronize, a blocking copy) */
    GD_REC_END = 15
};

const char *gd_record_type_name(unsigned type);

/* Whether a record type is a packet (goes into a hardware queue; the end record counts
 * them): dispatch, barrier-AND/-OR, condensed, non-kernel command, pipeline launch. */
static inline int gd_record_is_packet(unsigned type)
{
    return type == GD_REC_DISPATCH || type == GD_REC_BARRIER_AND || type == GD_REC_BARRIER_OR ||
           type == GD_REC_CONDENSED || type == GD_REC_NONKERNEL || type == GD_REC_PIPELINE;
}

/* Execution-time models of a kernel descriptor. */
enum {
    GD_EXEC_FIXED_CTA = 1,     /* every CTA runs the descriptor's cta_duration_ps */
    GD_EXEC_PER_DISPATCH = 2   /* each dispatch gives its CTAs' duration (launch info) */
};

/* A value of the launch info that is not known. */
#define GD_UNKNOWN UINT64_MAX

/* What a v1.1 dispatch record may say besides the AQL packet (all GD_UNKNOWN when
 * absent): its CTAs' duration, and where it came from (the source's id, e.g. the
 * profiler's correlation id, and the measured start and duration in trace time).
 * v1.3 dispatches may add wait_until_ns: the dispatch's CTAs run at least until then
 * (trace time), for a kernel that waits inside for work outside the modelled GPU,
 * such as a collective waiting for its peer GPUs (GD_UNKNOWN or 0: none). */
typedef struct gd_launch_info {
    gd_time_ps cta_duration_ps;  /* overrides the descriptor's model when known */
    uint64_t source_id;
    uint64_t measured_start_ns;
    uint64_t measured_dur_ns;
    uint64_t wait_until_ns;      /* dispatches only */
} gd_launch_info;

static inline gd_launch_info gd_launch_info_unknown(void)
{
    gd_launch_info i = {GD_UNKNOWN, GD_UNKNOWN, GD_UNKNOWN, GD_UNKNOWN, GD_UNKNOWN};
    return i;
}

/* Whether a launch info's wait_until_ns names a time. */
static inline int gd_launch_info_waits(const gd_launch_info *i)
{
    return i->wait_until_ns != GD_UNKNOWN && i->wait_until_ns != 0;
}

/* A multi-tenant command's virtual queue and flags (format 1.6; seed 004 fig 4: the
 * VID and FLG fields). A packet record without them has VID = its queue, is a sync,
 * and is conditional when its AQL barrier bit is set (gd_tenant_default). */
#define GD_CMD_SYNC 1u   /* starts a dependency chain: later conditional commands of its VID wait for it */
#define GD_CMD_COND 2u   /* waits for the latest sync command of its VID */
#define GD_CMD_FAILS 4u  /* its engine reports an error when it completes (failure injection) */
#define GD_CMD_INDEPENDENT 8u  /* 1.7, kernels: its CTAs' warps are independent: a CTA may be split into
                                  one-warp sub-workgroups (seed 001 emb. 3) */
#define GD_CMD_FLAGS 15u
#define GD_MAX_VIDS 65536u

#define GD_PRIORITY_LEVELS 8u  /* priority levels 0 (highest) .. 7 (seed 001's task-group priority) */

typedef struct gd_tenant {
    uint32_t vid;     /* virtual queue (tenant) id, below GD_MAX_VIDS */
    uint8_t flags;    /* GD_CMD_* */
    uint8_t priority; /* 0 (highest) .. GD_PRIORITY_LEVELS - 1 */
    uint8_t given;    /* the record gave them (else derived) */
} gd_tenant;

static inline gd_tenant gd_tenant_default(uint32_t queue, int barrier)
{
    gd_tenant t = {queue, (uint8_t)(GD_CMD_SYNC | (barrier ? GD_CMD_COND : 0)), 0, 0};
    return t;
}

/* Instruction classes of a kernel's instruction mix (format 1.6; seed 001 emb. 10's
 * instruction classes): warp instructions per CTA. */
enum gd_insn_class {
    GD_INSN_FP32 = 0, GD_INSN_FP16, GD_INSN_INT, GD_INSN_LDST, GD_INSN_SFU, GD_INSN_TENSOR,
    GD_INSN_CLASSES
};
const char *gd_insn_class_name(unsigned c);

/* A kernel descriptor: one launch configuration of a kernel. */
typedef struct gd_kernel_desc {
    uint32_t id;                /* referenced by a dispatch packet's kernel_object */
    uint32_t threads_per_cta;
    uint32_t regs_per_thread;
    uint32_t static_smem;       /* bytes */
    uint32_t dynamic_smem;      /* bytes */
    uint32_t exec_model;        /* GD_EXEC_FIXED_CTA or GD_EXEC_PER_DISPATCH */
    gd_time_ps cta_duration_ps; /* GD_EXEC_FIXED_CTA: each CTA runs this long */
    char *name;
    uint64_t insn[GD_INSN_CLASSES];  /* format 1.6: warp instructions per CTA by class (has_insn) */
    uint8_t has_insn;                /* 0: no instruction mix (one generic class, power.insn_energy_fj) */
    /* Filled by the reader once device limits are known: */
    gd_occupancy occ;           /* with the opt-in shared memory limit */
    gd_occupancy occ_default;   /* with the per-CTA limit without opt-in (the profiler's convention) */
    gd_cta_cost sub_cost;       /* one warp of a split CTA (seed 001 emb. 3; cwd.split_after) */
    uint64_t record;            /* record index that defined it */
} gd_kernel_desc;

/* A kernel descriptor's bytes (the body of a type-2 record, traces/FORMAT.md; also
 * what a gdsim::gpu reads from a platform's memory) decoded into out and checked
 * against the device, its occupancy filled in and its name allocated (the caller
 * frees out->name). minor: the trace format's minor version (an instruction mix needs
 * 6). 0; -1 with why saying what is wrong; GD_ENOMEM. */
int gd_kernel_desc_decode(gd_kernel_desc *out, const uint8_t *p, uint32_t len, unsigned minor,
                          const gd_sm_limits *l, char *why, size_t n);

/* Completion signals. The reader numbers the distinct completion-signal handles
 * in the order they first appear (0, 1, ...), so the model keeps signal values in
 * an array; memory grows with the number of distinct handles. */
#define GD_NO_SIGNAL UINT32_MAX
#define GD_AQL_MAX_DEPS 5

/* A dispatch's cluster shape (format 1.4; seed 003): the grid is an array of
 * GPC-CGAs of dim[0] x dim[1] x dim[2] CTAs, which launch together inside one GPC,
 * and gpu_cga consecutive GPC-CGAs (in grid order) form a GPU-CGA that launches
 * together on the GPU. A dispatch without one is a grid of one-CTA CGAs. */
typedef struct gd_cluster {
    uint16_t dim[3];   /* CTAs per GPC-CGA in x, y, z (1, 1, 1: none) */
    uint16_t gpu_cga;  /* GPC-CGAs per GPU-CGA (1: none) */
    uint8_t mode;      /* enum gd_cga_mode (cga.h): 0 load balance, 1 multicast */
} gd_cluster;

static inline gd_cluster gd_cluster_none(void)
{
    gd_cluster c = {{1, 1, 1}, 1, 0};
    return c;
}

static inline int gd_cluster_equal(const gd_cluster *a, const gd_cluster *b)
{
    return a->dim[0] == b->dim[0] && a->dim[1] == b->dim[1] && a->dim[2] == b->dim[2] && a->gpu_cga == b->gpu_cga &&
           a->mode == b->mode;
}

/* Whether a dispatch is launched as real CGAs (anything but one-CTA CGAs in
 * load-balancing mode). */
static inline int gd_cluster_is_cga(const gd_cluster *c)
{
    return c->dim[0] * c->dim[1] * c->dim[2] > 1 || c->gpu_cga > 1 || c->mode != 0;
}

/* A kernel dispatch packet on a queue, with its host submit time. */
typedef struct gd_trace_dispatch {
    uint32_t queue;
    uint64_t submit_ns;
    gd_aql_dispatch pkt;
    uint32_t signal;               /* number of pkt.completion_signal, GD_NO_SIGNAL if 0 */
    const gd_kernel_desc *kernel;  /* resolved kernel_object (owned by the reader) */
    uint32_t grid_ctas[3];         /* CTAs per dimension: ceil(grid_size / workgroup_size) */
    uint64_t ctas;                 /* total CTAs */
    gd_launch_info info;           /* GD_UNKNOWN fields when the record has none */
    gd_time_ps cta_ps;             /* what each CTA runs: info.cta_duration_ps, else the descriptor's */
    gd_cluster cluster;            /* gd_cluster_none() when the record has none */
    int ref_num;                   /* a reference packet (format 1.5): its RST index; -1 otherwise */
    gd_tenant tenant;              /* format 1.6, else VID = queue, sync, conditional = barrier bit */
    int graph;                     /* format 1.9: launched as part of a CUDA graph (flags bit 1) */
    int programmatic;              /* format 1.11: a programmatic dependent launch (flags bit 2) */
} gd_trace_dispatch;

/* A barrier-AND or barrier-OR packet (HSA): holds its queue until its dependency
 * signals are satisfied (AND: every non-null one is 0; OR: any non-null one is 0). */
typedef struct gd_trace_barrier {
    uint32_t queue;
    uint64_t submit_ns;
    gd_aql_barrier_pkt pkt;
    uint32_t ndeps;                     /* non-null dependencies */
    uint32_t dep[GD_AQL_MAX_DEPS];      /* their signal numbers */
    uint32_t signal;                    /* number of pkt.completion_signal, GD_NO_SIGNAL if 0 */
    gd_launch_info info;                /* source id; cta_duration_ps always unknown */
    gd_tenant tenant;                   /* format 1.6, else derived */
} gd_trace_barrier;

/* Kinds of non-kernel command (what the copy or fill engine does). */
enum gd_command_kind {
    GD_CMD_OTHER = 0,
    GD_CMD_MEMCPY_HTOD = 1,
    GD_CMD_MEMCPY_DTOH = 2,
    GD_CMD_MEMCPY_DTOD = 3,
    GD_CMD_MEMCPY_HTOH = 4,
    GD_CMD_MEMCPY_PEER = 5,
    GD_CMD_MEMSET = 6,
    GD_CMD_KINDS
};
const char *gd_command_kind_name(unsigned kind);

/* A non-kernel command (memcpy, memset) on a queue: takes duration_ps on an
 * engine of its own, in its queue's order. */
typedef struct gd_trace_command {
    uint32_t queue;
    uint32_t kind;                      /* enum gd_command_kind */
    int barrier;                        /* waits for every earlier packet of its queue */
    uint64_t submit_ns;
    gd_time_ps duration_ps;
    uint64_t bytes;
    uint64_t completion_signal;
    uint32_t signal;                    /* number of completion_signal, GD_NO_SIGNAL if 0 */
    gd_launch_info info;                /* source id, measured start and duration */
    gd_tenant tenant;                   /* format 1.6 (written when tenant.given), else derived */
    int graph;                          /* format 1.9: launched as part of a CUDA graph (flags bit 1) */
} gd_trace_command;

/* A condensed dispatch packet (format 1.5; seed 000, condensed.h): launches its
 * kernels, each a reference-state-table entry with the fields its diff changes. The
 * reader keeps the table as the trace's reference packets fill it and expands the
 * packet into the dispatches it launches, each checked like any dispatch. */
typedef struct gd_trace_condensed {
    uint32_t queue;
    uint64_t submit_ns;
    gd_condensed_pkt pkt;
    uint32_t n;                                      /* kernels */
    gd_trace_dispatch kernel[GD_CONDENSED_WORDS];    /* kernel[k].ref_num: the RST entry it used */
} gd_trace_condensed;

/* A pipeline-launch packet (format 1.8; seed 002): an AQL vendor-specific packet that
 * hands a pipeline topology (topology.h, traces/TOPOLOGY.md) to the meta-scheduler,
 * which runs it on the GPU; the packet completes when the pipeline has. The reader
 * parses and validates the topology and checks every kernel against the device. */
typedef struct gd_pipeline_def {
    gd_topology topo;
    gd_kernel_desc desc[GD_META_MAX_KERNELS];  /* its kernels, with their occupancy on the device */
    gd_kernel_desc row;                        /* the packet's row in the kernel table: named "pipeline NAME",
                                                  with its first kernel's CTA shape */
    char row_name[GD_META_NAME + 16];
    char *text;                                /* the topology as the record holds it (text_len bytes) */
    uint32_t text_len;
    uint64_t record, offset;                   /* the pipeline-launch packet's record: index, byte offset */
    struct gd_pipeline_def *next;              /* the reader's list */
} gd_pipeline_def;

typedef struct gd_trace_pipeline {
    uint32_t queue;
    uint64_t submit_ns;
    int barrier;                        /* waits for every earlier packet of its queue */
    uint64_t completion_signal;
    uint32_t signal;                    /* number of completion_signal, GD_NO_SIGNAL if 0 */
    gd_tenant tenant;                   /* derived (VID = queue) */
    const gd_pipeline_def *def;         /* owned by the reader until it is closed */
} gd_trace_pipeline;

/* The host model (format 1.10; traces/FORMAT.md, 'Host threads'): the captured program's
 * threads, each a sequence of calls that submit packets and of waits for the GPU, with
 * the CPU time between them. A closed-loop replay (host.mode=closed) issues each call
 * or wait its gap after the thread's previous one returned; a wait returns when the
 * awaited work ended in the replay, plus its tail (no earlier than its completion). */
#define GD_HOST_LAST 1u      /* call and wait flags: the thread's last record */
#define GD_HOST_POLLING 2u   /* wait flags: a polling loop (cudaEventQuery ... until done), not a blocking call */
enum gd_host_wait_kind {
    GD_WAIT_SIGNAL = 1,  /* until the completion signal's value is 0 (every packet carrying it submitted so far
                            has completed): cudaEventSynchronize, a blocking copy */
    GD_WAIT_QUEUE = 2,   /* until every packet submitted to the queue so far has completed: cudaStreamSynchronize */
    GD_WAIT_DEVICE = 3   /* until every packet submitted so far has completed: cudaDeviceSynchronize */
};
const char *gd_host_wait_kind_name(unsigned kind);

typedef struct gd_trace_host_thread {
    uint32_t thread;      /* below GD_TRACE_MAX_THREADS, declared once */
    uint64_t start_ns;    /* trace time when the thread's gap to its first record starts */
    char name[64];        /* e.g. "pid 4242 tid 4251" (cut, control characters as '?') */
} gd_trace_host_thread;

typedef struct gd_trace_host_call {
    uint32_t thread;
    uint32_t packets;     /* the next packet records are this call's (1 .. GD_TRACE_MAX_CALL_PACKETS) */
    uint64_t gap_ns;      /* CPU time from the thread's previous return (or its start) to this call's doorbell */
    uint32_t flags;       /* GD_HOST_LAST */
} gd_trace_host_call;

typedef struct gd_trace_host_wait {
    uint32_t thread;
    uint32_t kind;        /* enum gd_host_wait_kind */
    uint32_t flags;       /* GD_HOST_LAST, GD_HOST_POLLING */
    uint64_t target;      /* the signal handle (GD_WAIT_SIGNAL) or the queue (GD_WAIT_QUEUE); 0 */
    uint32_t signal;      /* GD_WAIT_SIGNAL: the handle's signal number; else GD_NO_SIGNAL */
    uint64_t time_ns;     /* the captured start of the wait call (trace time; non-decreasing with submit times) */
    uint64_t gap_ns;      /* CPU time from the thread's previous return (or its start) to the wait call */
    uint64_t tail_ns;     /* from the awaited work's end (last CTA, or copy) to the call's return */
} gd_trace_host_wait;

typedef struct gd_trace_record {
    unsigned type;      /* GD_REC_KERNEL, GD_REC_DISPATCH, GD_REC_BARRIER_AND/OR, GD_REC_NONKERNEL, ... or GD_REC_END */
    uint64_t index;     /* record index, header = 0 */
    uint64_t offset;    /* byte offset of the record frame in the uncompressed stream */
    const gd_kernel_desc *kernel;   /* GD_REC_KERNEL */
    gd_trace_dispatch dispatch;     /* GD_REC_DISPATCH */
    gd_trace_barrier barrier;       /* GD_REC_BARRIER_AND, GD_REC_BARRIER_OR */
    gd_trace_command command;       /* GD_REC_NONKERNEL */
    gd_trace_condensed condensed;   /* GD_REC_CONDENSED */
    gd_trace_pipeline pipeline;     /* GD_REC_PIPELINE */
    gd_trace_host_thread host_thread;  /* GD_REC_HOST_THREAD */
    gd_trace_host_call host_call;      /* GD_REC_HOST_CALL */
    gd_trace_host_wait host_wait;      /* GD_REC_HOST_WAIT */
} gd_trace_record;

typedef struct gd_trace_reader gd_trace_reader;

/* Open a trace and read its file header and header record. */
int gd_trace_open(gd_trace_reader **out, const char *path, gd_err *err);
void gd_trace_close_reader(gd_trace_reader *r);

const gd_trace_device *gd_trace_device_of(const gd_trace_reader *r);
const char *gd_trace_producer(const gd_trace_reader *r);
const char *gd_trace_path(const gd_trace_reader *r);

/* Device limits that descriptors and dispatches are checked against. Until set,
 * the reader uses limits derived from the trace's own device description. */
void gd_trace_set_limits(gd_trace_reader *r, const gd_sm_limits *sm, const uint32_t max_grid[3]);

/* What the modelled GPU offers clusters: with it set, a dispatch whose CGAs could
 * never launch on it, even idle, is an error naming the kernel and the reason. */
typedef struct gd_cluster_limits {
    uint32_t gpcs;
    const uint32_t *sms_per_gpc;  /* gpcs entries */
    uint32_t sms_per_tpc;
    uint32_t gpc_cgas_per_sm;     /* a GPC may hold its SMs x this GPC-CGAs at once */
    uint32_t cga_ids;             /* gpc_local_cga_ids per GPC */
    uint32_t scan_limit;          /* cwd.lake_scan_limit */
} gd_cluster_limits;
void gd_trace_set_cluster_limits(gd_trace_reader *r, const gd_cluster_limits *cl);
/* sim.max_descriptor_mib in bytes (0: no limit, the default without this call): a kernel
 * descriptor that would take the descriptors kept, names included, past it is an error
 * naming it (the count limit, sim.max_kernel_descriptors, lets 64 KiB names through). */
void gd_trace_set_descriptor_bytes(gd_trace_reader *r, uint64_t max_bytes);
/* meta.simd_width for the validation of pipeline topologies (0: the device's warp size). */
void gd_trace_set_simd_width(gd_trace_reader *r, uint32_t simd_width);
/* The replay's limits (sim.max_sim_time_s, sim.max_ctas; 0: no CTA limit): a record
 * whose submit time (from the first packet's), CTA duration or wait-until time passes
 * the first, or whose dispatch takes the CTAs read past the second, is an error naming
 * it. Without this call: times up to GD_TIME_LIMIT_PS, no CTA limit. */
void gd_trace_set_run_limits(gd_trace_reader *r, uint32_t max_sim_time_s, uint64_t max_ctas, uint32_t max_descs,
                             uint32_t max_signals);
/* Read ahead (sim.read_ahead): when on and the trace is a gzip regular file, a second
 * thread inflates the next 256 KiB while the caller reads the last; records, errors and
 * their order are the same as without it. The thread blocks every signal and ends at
 * the end of the input, at its first error, or in gd_trace_close_reader. Where no thread
 * can be started the reader inflates in turn, as when off. */
void gd_trace_set_read_ahead(gd_trace_reader *r, int on);
/* CTAs of the dispatches read so far. */
uint64_t gd_trace_ctas_read(const gd_trace_reader *r);
/* The reference state table's entries (rsb.entries; default and most: 8). */
void gd_trace_set_rsb(gd_trace_reader *r, uint32_t entries);

/* The calibration record (format 1.9, traces/FORMAT.md; the struct is config.h's):
 * where the fit came from and its KEY = VALUE settings (launch-gap keys, pp.gap_*),
 * which gpu.preset=trace applies over the preset. NULL when the trace has none.
 * gd_trace_open reads it. */
const gd_trace_calibration *gd_trace_calibration_of(const gd_trace_reader *r);

/* Read the next record. Returns 1 with *rec filled, 0 after the END record has
 * been read and checked (the trace is complete and valid), or a negative GD_E*
 * code with err naming the file, record and offset. */
int gd_trace_next(gd_trace_reader *r, gd_trace_record *rec, gd_err *err);

/* Counters so far. */
uint64_t gd_trace_records_read(const gd_trace_reader *r);
/* Share of the trace file's compressed bytes read so far (0..1); -1 when unknown
 * (not a regular file). A progress estimate: the reader runs a little ahead. */
double gd_trace_input_fraction(const gd_trace_reader *r);
uint64_t gd_trace_dispatches_read(const gd_trace_reader *r);
/* Packet records so far: kernel dispatches, barriers and non-kernel commands. */
uint64_t gd_trace_packets_read(const gd_trace_reader *r);
/* Distinct completion signals so far (signal numbers are below this). */
uint32_t gd_trace_signals(const gd_trace_reader *r);
/* Host threads declared so far (format 1.10; all are declared before the first packet). */
uint32_t gd_trace_host_threads(const gd_trace_reader *r);

/* ---- writer ---- */

typedef struct gd_trace_writer gd_trace_writer;

/* Create a trace; writes the file header and the header record. level: zlib
 * compression level 1..9 (0: default 6). */
int gd_trace_create(gd_trace_writer **out, const char *path, const gd_trace_device *dev,
                    const char *producer, int level, gd_err *err);
int gd_trace_write_kernel(gd_trace_writer *w, const gd_kernel_desc *k, gd_err *err);
/* info may be NULL: a version 1.0 dispatch record without launch info. */
/* A reference packet (format 1.5, seed 000 table 2): a dispatch whose reserved0
 * is its ref_num; it fills that entry of the reference state table. */
int gd_trace_write_reference(gd_trace_writer *w, uint32_t queue, uint64_t submit_ns, const gd_aql_dispatch *pkt,
                             const gd_launch_info *info, gd_err *err);
/* A condensed packet (format 1.5); infos: its kernels' launch info (num_kernels
 * entries, wait-until not allowed), or NULL. */
int gd_trace_write_condensed(gd_trace_writer *w, uint32_t queue, uint64_t submit_ns, const gd_condensed_pkt *pkt,
                             const gd_launch_info *infos, gd_err *err);
/* A dispatch with a cluster shape (format 1.4): written with launch info (unknown
 * fields when info is NULL) and a wait-until field (none unless info gives one). */
int gd_trace_write_dispatch_cluster(gd_trace_writer *w, uint32_t queue, uint64_t submit_ns,
                                    const gd_aql_dispatch *pkt, const gd_launch_info *info,
                                    const gd_cluster *cluster, gd_err *err);
/* A dispatch with a tenant field (format 1.6): as gd_trace_write_dispatch_cluster
 * (cluster NULL: none), plus the command's VID and flags (tenant NULL: none). */
int gd_trace_write_dispatch_tenant(gd_trace_writer *w, uint32_t queue, uint64_t submit_ns,
                                   const gd_aql_dispatch *pkt, const gd_launch_info *info,
                                   const gd_cluster *cluster, const gd_tenant *tenant, gd_err *err);
int gd_trace_write_dispatch(gd_trace_writer *w, uint32_t queue, uint64_t submit_ns,
                            const gd_aql_dispatch *pkt, const gd_launch_info *info, gd_err *err);
/* A plain dispatch as the reader decoded it: its launch info, wait-until time, cluster
 * shape, tenant field and graph-launched flag (format 1.9), in the shortest layout
 * that holds them. */
int gd_trace_write_dispatch_rec(gd_trace_writer *w, const gd_trace_dispatch *d, gd_err *err);
int gd_trace_write_barrier(gd_trace_writer *w, unsigned type, uint32_t queue, uint64_t submit_ns,
                           const gd_aql_barrier_pkt *pkt, const gd_launch_info *info, gd_err *err);
/* A barrier packet with a tenant field (format 1.6; NULL: none). */
int gd_trace_write_barrier_tenant(gd_trace_writer *w, unsigned type, uint32_t queue, uint64_t submit_ns,
                                  const gd_aql_barrier_pkt *pkt, const gd_launch_info *info, const gd_tenant *tenant,
                                  gd_err *err);
int gd_trace_write_command(gd_trace_writer *w, const gd_trace_command *c, gd_err *err);
/* The calibration record (format 1.9): right after the header, before any other
 * record; the settings' text is written as given. */
int gd_trace_write_calibration(gd_trace_writer *w, const gd_trace_calibration *cal, gd_err *err);
/* A pipeline-launch packet (format 1.8): the topology's text (len bytes), unchecked here. */
int gd_trace_write_pipeline(gd_trace_writer *w, uint32_t queue, uint64_t submit_ns, int barrier,
                            uint64_t completion_signal, const char *text, uint32_t len, gd_err *err);
/* The host model (format 1.10): a thread (name may be NULL), a call that submits the
 * next `packets` packet records, a wait. Unchecked here; the reader checks them. */
int gd_trace_write_host_thread(gd_trace_writer *w, const gd_trace_host_thread *t, gd_err *err);
int gd_trace_write_host_call(gd_trace_writer *w, const gd_trace_host_call *c, gd_err *err);
int gd_trace_write_host_wait(gd_trace_writer *w, const gd_trace_host_wait *h, gd_err *err);
/* Any record, unchecked (tests use it to build malformed traces). */
int gd_trace_write_raw(gd_trace_writer *w, unsigned type, const void *payload, uint32_t len, gd_err *err);
/* Write the END record and close. Frees w even on error. */
int gd_trace_finish(gd_trace_writer *w, gd_err *err);
/* Close without an END record (tests: a trace cut short). Frees w. */
void gd_trace_abandon(gd_trace_writer *w);

#ifdef __cplusplus
}
#endif

#endif
