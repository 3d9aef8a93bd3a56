/*
 * gdsim.h - the public C API of gdsim, a SystemC/TLM-2.0 model of a GPU's
 * kernel-dispatch front-end.
 *
 * Conventions (libgit2 / SQLite style):
 *   - every function returns an int status: GD_OK (0) or a negative GD_E* code;
 *   - out-parameters come first; handles are opaque;
 *   - gd_sim_errmsg() gives the text of the last error on a handle, naming what
 *     went wrong and where ("trace.gdt.gz: record 12 (offset 1400): ...");
 *   - gd_sim_free(NULL) is a no-op;
 *   - the library never prints: progress goes to the callback in gd_options.
 *
 * Threading and lifetime:
 *   - a gd_sim handle must not be used by two threads at once;
 *   - SystemC keeps one global simulation context per process, so replays from
 *     different handles (or threads) are serialised by a process-wide lock: any
 *     number of threads may replay at once, each on its own handle, and each replay
 *     waits for the lock, then gives the results it gives alone; they do not run in
 *     parallel. Use processes for parallel sweeps;
 *   - a replay called from a progress callback (on another handle: the same handle
 *     gives GD_ESTATE anyway) is refused with GD_ESTATE: its thread already holds
 *     the lock;
 *   - fork() while another thread replays waits for that replay to end (the library
 *     takes its lock around fork), so the child starts with no replay half done and
 *     may replay; a child forked from inside a progress callback is inside that
 *     replay and must not call the library (exec or _exit);
 *   - a replay runs the simulation on the calling thread; while it reads a gzip
 *     trace file, one more thread of its own (all signals blocked) decompresses the
 *     file ahead of it, ended before gd_sim_replay_file returns (sim.read_ahead=off:
 *     none);
 *   - a handle can replay several traces one after another (gd_sim_replay_file
 *     resets the previous results); configuration set with gd_sim_set persists;
 *   - a replay runs in a SystemC simulation context of its own: in a program with
 *     a SystemC simulation of its own, a replay before sc_start (or after that
 *     simulation ended) leaves the program's context, time and report settings as
 *     they were; while the program's simulation is running it is refused with
 *     GD_ESTATE (earlier results kept). A replay swaps SystemC's current context
 *     while it runs, so such a program replays on the thread that runs its
 *     simulation (or while no thread of it may call sc_start). To put the GPU in a
 *     SystemC platform, use the gdsim::gpu module (gdsim/gpu.hpp, docs/VP.md);
 *   - strings returned by the library stay valid until the next call on the same
 *     handle (gd_sim_errmsg) or forever (gd_strerror, gd_version).
 *   - no C++ exception ever leaves the library.
 */
#ifndef GDSIM_H
#define GDSIM_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Compile-time version; gd_version() gives the run-time one. */
#define GD_VERSION_MAJOR 0
#define GD_VERSION_MINOR 1
#define GD_VERSION_PATCH 0
#define GD_VERSION_STRING "0.1.0"

/* Status codes. */
#define GD_OK 0
#define GD_EINVAL (-1)   /* invalid argument (NULL pointer, bad options version) */
#define GD_ENOMEM (-2)   /* out of memory */
#define GD_EIO (-3)      /* a file could not be opened, read or written */
#define GD_EFORMAT (-4)  /* a trace is malformed, truncated or out of range */
#define GD_ECONFIG (-5)  /* unknown configuration key or bad value */
#define GD_ESTATE (-6)   /* call not valid now (e.g. summary before any replay) */
#define GD_EMODEL (-7)   /* the trace cannot run on the configured device */
#define GD_EINTERNAL (-8) /* internal error (a bug: please report it) */
#define GD_EINTERRUPTED (-9) /* gd_sim_interrupt stopped the replay (e.g. from a SIGINT handler) */
#define GD_ELIMIT (-10)  /* the replay reached a limit: the timeout (gd_sim_set_timeout) or the
                            simulated-time limit (sim.max_sim_time_s) */

/* Progress reports during a replay (about twice a second of wall time). */
typedef struct gd_progress {
    uint64_t records_read;   /* trace records read so far */
    uint64_t kernels_done;   /* kernels completed */
    uint64_t ctas_done;      /* CTAs launched so far (each then runs to its end) */
    uint64_t sim_time_ns;    /* simulated time reached */
    double wall_seconds;     /* wall time since the replay started */
    /* additions of version 0.1, second part */
    double input_fraction;   /* share of the trace file read (compressed bytes), 0..1; -1 when
                                unknown (not a regular file); the reader runs a little ahead */
    /* additions of version 0.1, third part */
    uint64_t ctas_read;      /* CTAs of the dispatches read so far (ctas_done / ctas_read is the share
                                done once the whole trace is read: one huge kernel, say) */
    /* additions of version 0.1, fourth part: gd_sim_write_kernels_csv reports too (a table
       of millions of rows takes seconds): rows_total is then its rows (else 0), rows_written
       those written so far, wall_seconds the time since the write started, the other
       fields the last replay's */
    uint64_t rows_written;
    uint64_t rows_total;
} gd_progress;

/* The callback runs inside the replay (or the kernel table's writing): it may call
 * gd_sim_get, gd_sim_interrupt and gd_sim_errmsg on the handle; every other call on it
 * returns GD_ESTATE and changes nothing. gd_sim_free called from it stops the replay (or
 * the write): the call then frees the handle and returns GD_EINTERRUPTED (the handle is
 * gone: do not use it again). Reports come about twice a second and once at the end. */
typedef void (*gd_progress_fn)(void *ctx, const gd_progress *progress);

#define GD_OPTIONS_VERSION 1

/* Options for gd_sim_new. Always initialise with gd_options_init. */
typedef struct gd_options {
    unsigned int version;        /* GD_OPTIONS_VERSION */
    gd_progress_fn progress;     /* optional progress callback, NULL for none */
    void *progress_ctx;          /* passed to progress */
} gd_options;

/* Results of the last replay. */
typedef struct gd_summary {
    uint64_t kernels;               /* kernels completed */
    uint64_t ctas;                  /* CTAs launched and retired */
    uint64_t sim_time_ns;           /* simulated time from the first submit to the last completion */
    double mean_sm_occupancy_pct;   /* resident warps / warp slots, averaged over all SMs
                                       and over the busy span (first CTA launch to last CTA end) */
    double mean_launch_latency_ns;  /* mean over kernels of first_cta_ns - submit_ns */
    /* additions of version 0.1 */
    uint64_t packets;               /* AQL packets processed */
    uint64_t queues;                /* hardware queues used */
    uint64_t busy_span_ns;          /* first CTA launch to last CTA end */
    uint64_t host_stalls;           /* submits that found their queue full */
    uint64_t max_resident_kernels;  /* most kernels resident in the distributor at once */
    /* additions of version 0.1, second part: the time kernels were resident */
    uint64_t resident_ns;           /* time the distributor held at least one kernel (dispatch to completion) */
    double resident_occupancy_pct;  /* resident warps / warp slots averaged over resident_ns */
    uint64_t idle_ns;               /* time between the first dispatch and the last completion with no kernel held */
    uint64_t longest_idle_ns;       /* the longest such stretch */
} gd_summary;

/* The stages of a kernel's launch, in order (docs/MODEL.md): each is the time from
 * one event of the kernel's way through the model to the next. */
enum gd_stage {
    GD_STAGE_FETCH = 0,      /* submit -> packet fetched */
    GD_STAGE_DECODE,         /* fetched -> decoded */
    GD_STAGE_DEPENDENCIES,   /* decoded -> dependencies satisfied (barrier bit, barrier packets before it) */
    GD_STAGE_FIRST_CTA,      /* dependencies satisfied -> first CTA launched (distributor room, grid launch) */
    GD_STAGE_LAST_CTA,       /* first CTA launched -> last CTA launched */
    GD_STAGE_DRAIN,          /* last CTA launched -> last CTA done */
    GD_STAGE_COMPLETION,     /* last CTA done -> completion signalled */
    GD_STAGE_LAUNCH_LATENCY, /* submit -> first CTA launched (the sum of the first four) */
    GD_STAGES
};

/* One stage's duration over the kernels of the last replay. Percentiles are within
 * 0.4 % of the exact value (a histogram with 128 buckets per power of two); the
 * mean and the maximum are exact. */
typedef struct gd_stage_stats {
    uint64_t kernels;
    double mean_ns, p50_ns, p99_ns, max_ns;
} gd_stage_stats;

typedef struct gd_sim gd_sim;

/* Fill *opts with defaults for the given version (pass GD_OPTIONS_VERSION). */
int gd_options_init(gd_options *opts, unsigned int version);

/* Create a simulation handle. opts may be NULL (defaults). */
int gd_sim_new(gd_sim **out, const gd_options *opts);

/* Free a handle. NULL is a no-op. */
void gd_sim_free(gd_sim *sim);

/* Set a configuration key (the same keys as the CLI's --set KEY=VALUE; list them
 * with gd_config_key / `gdsim keys`). An unknown key or a bad value is GD_ECONFIG
 * with a message naming the key and the accepted values; a NULL key or value GD_EINVAL. */
int gd_sim_set(gd_sim *sim, const char *key, const char *value);

/* Set the keys of a configuration file (the CLI's --config FILE): one KEY = VALUE a
 * line, '#' to the end of a line a comment, blanks around key and value ignored; at
 * most 1023 bytes a line and 1 MiB in all. Either every setting applies or none: a
 * file that cannot be read is GD_EIO, a bad line GD_ECONFIG, each with a message that
 * names the file and the line. */
int gd_sim_load_config(gd_sim *sim, const char *path);

/* Read a configuration value as it would be used now (text form). After a replay
 * or gd_sim_resolve_config, with no setting changed since, it is the value resolved
 * against the trace's device (gpu.preset then reads, e.g., "trace/h100"). Otherwise
 * device keys left at their defaults give the named preset's value, and under
 * gpu.preset=trace (the default) the text "(from the trace's device,
 * gpu.preset=trace)". The string lives until the next call on sim. */
int gd_sim_get(const char **out, gd_sim *sim, const char *key);

/* Resolve the configuration against a trace's device as a replay would (the preset
 * the trace's description selects, its calibration record), reading only the
 * trace's header: gd_sim_get then gives the values a replay of it would use.
 * Errors as gd_sim_replay_file's for the header, GD_ECONFIG for a bad value. */
int gd_sim_resolve_config(gd_sim *sim, const char *trace_path);

/* Write a per-CTA log during the next replays to path ("-": standard output; NULL:
 * none): a CSV with the header
 * kernel_index,cta_id,x,y,z,cga_id,cga_cta_id,gpc,sm,launch_ns,end_ns and one row
 * per CTA in launch order (cta_id = x + y*X + z*X*Y; cga_id: the CTA's cluster,
 * numbered per kernel; cga_cta_id: its index inside the cluster; gpc and sm are
 * numbered GPC by GPC; times as in the kernel CSV). GD_EINVAL if sim is NULL. */
int gd_sim_set_cta_log(gd_sim *sim, const char *path);

/* Write the meta-scheduler's log during the next replays to path ("-": standard
 * output; NULL: none): a CSV with the header
 * time_ns,pipeline,event,kernel,buffer,items,fill and one row per event of a
 * pipeline-launch packet's run (launch, take, reserve, end, write, free; see
 * traces/TOPOLOGY.md), in time order. GD_EINVAL if sim is NULL. */
int gd_sim_set_meta_log(gd_sim *sim, const char *path);

/* Write the SMs' occupancy over time during the next replays to path ("-": standard
 * output; NULL: none): a CSV with the header start_ns,gpu,gpc0,...,sm0,... and a row
 * per interval of interval_ns (from the first submit: [i x interval, (i+1) x
 * interval)) in which some warp was resident, each value the mean resident warps
 * over the interval of the whole GPU, each GPC and each SM (4 decimals). The rows'
 * gpu x interval sum to the warp-time behind the summary's mean occupancy. Times as
 * in the kernel CSV (gd_sim_set_absolute_times). Written to a temporary file beside it (PATH.part-XXXXXX) and renamed
 * when the replay succeeds (removed when it fails). GD_EINVAL if sim is NULL or
 * interval_ns is 0 or past 2^60 / 4000 (with a message). */
int gd_sim_set_occupancy_csv(gd_sim *sim, const char *path, uint64_t interval_ns);

/* Write the next replays' waveforms to path (NULL: none) as a VCD file, through
 * SystemC's own tracing (sc_create_vcd_trace_file; GTKWave and vcd2fst read it):
 * gpu.pp.queueN.{depth,write_index,read_index,in_flight} for hardware queues 0 to
 * queues-1, gpu.gpu2gpc.{resident_kernels,ctas_launched,launch_steps} and, per GPC,
 * gpu.gpc2sm_N.{resident_ctas,resident_warps,busy}; times in ps from the first submit.
 * The GPU's event domain then runs in lockstep with SystemC time, so every value
 * is sampled at its time: slower, same results.
 * Written to a temporary file beside it (PATH.part-XXXXXX.vcd) and renamed when the replay succeeds (removed when it
 * fails). GD_EINVAL if sim is NULL, path is "-" or queues is past 1024. */
int gd_sim_set_vcd(gd_sim *sim, const char *path, unsigned int queues);

/* Write the next replays as a timeline to path ("-": standard output; NULL: none):
 * Chrome trace-event JSON, which Perfetto UI (ui.perfetto.dev) and chrome://tracing
 * open: a track per hardware queue with each packet's stages as slices, a track per
 * GPC with each kernel's CTAs there as one slice (with their count), the capture's
 * measured kernel times beside the replayed ones when the trace has them, and counter
 * tracks for each GPC's resident warps (averaged over interval_ns, as
 * gd_sim_set_occupancy_csv's, whose interval wins when both are set) and each
 * queue's depth. Written as the replay runs (docs/MODEL.md, "Timeline") to a temporary file beside it (PATH.part-XXXXXX),
 * renamed when the replay succeeds (removed when it fails). GD_EINVAL
 * if sim is NULL or interval_ns is 0 or past 2^60 / 4000. */
int gd_sim_set_timeline(gd_sim *sim, const char *path, uint64_t interval_ns);

/* Whether the next replays keep the per-kernel table that gd_sim_write_kernels_csv
 * writes: keep != 0 (the default) keeps it (in a temporary file past 64 KiB); keep = 0
 * saves the time and the file (every other result and output is the same), and
 * gd_sim_write_kernels_csv after such a replay fails with GD_ESTATE. The gdsim CLI keeps
 * it only for --kernels-csv. GD_EINVAL if sim is NULL. */
int gd_sim_set_kernel_table(gd_sim *sim, int keep);

/* Times in the outputs of the next replays (kernel CSV, CTA log): absolute = 0 (the
 * default) gives them in nanoseconds from the trace's first submit, the simulation's
 * time 0, so that they stay exact as doubles; absolute != 0 gives them in the trace's
 * own clock (a capture's epoch nanoseconds), as the trace's submit times are. The
 * summary JSON records the first submit's trace time as "time_origin_ns" either way.
 * The meta-scheduler's log is always in simulation time. GD_EINVAL if sim is NULL. */
int gd_sim_set_absolute_times(gd_sim *sim, int absolute);

/* Write a trace record by record, human-readably, to out_path ("-": standard output):
 * the header, kernel descriptors, and every packet with its AQL fields decoded (what
 * `gdsim dump` prints). The records before a damaged one are written, then the error
 * (naming the file, record and offset) is returned. */
int gd_sim_dump_trace(gd_sim *sim, const char *trace_path, const char *out_path);

/* Check a pipeline topology (traces/TOPOLOGY.md) before anything runs, as the
 * meta-scheduler's compiler does (seed 002 [0057]-[0064], [0099]), and write the
 * verdicts to out_path ("-": standard output): a line per broken rule ("FILE:LINE:
 * kernel K2: starved: ..."), then "FILE: valid: ..." or "FILE: invalid: N errors"
 * (what `gdsim check-topology` prints). Returns GD_OK if the topology is valid,
 * GD_EFORMAT if it cannot be parsed (the message names the line), GD_EMODEL if it
 * breaks a rule (the message is the first verdict), GD_EIO if a file cannot be read
 * or written. Uses meta.simd_width (0: sm.warp_size of the preset, 32 without one). */
int gd_sim_check_topology(gd_sim *sim, const char *topology_path, const char *out_path);

/* What gd_sim_condense_trace did. */
typedef struct gd_condense_result {
    uint64_t dispatches;         /* kernel dispatches in the input */
    uint64_t references;         /* written as reference packets (reference state table misses) */
    uint64_t condensed_kernels;  /* written inside condensed packets (hits) */
    uint64_t plain;              /* left plain (a cluster shape or a wait-until time) */
    uint64_t condensed_packets;
    uint64_t bytes_before, bytes_after;  /* 64 bytes per AQL packet carrying dispatches */
} gd_condense_result;

/* Rewrite a trace with seed 000's reference and condensed packets, as a driver would
 * (what `gdsim condense` does; docs/MODEL.md): rsb_entries 1-8 (the reference state
 * table), window_ns: a condensed packet holds dispatches submitted within this time
 * of its first; replacement: "lru" or "fifo" (NULL: the rsb.replacement key, lru
 * unless set with gd_sim_set). */
int gd_sim_condense_trace(gd_condense_result *out, gd_sim *sim, const char *in_path, const char *out_path,
                          unsigned int rsb_entries, unsigned long long window_ns, const char *replacement);

/* Replay a whole trace (gdsim trace format v1, see traces/FORMAT.md) to completion.
 * A replay that fails (a bad record, a limit, an interrupt) writes no output: the
 * files it was writing (CTA log, meta-scheduler log, occupancy CSV, timeline, VCD)
 * are written to temporary files beside them (PATH.part-XXXXXX) and renamed only when it succeeds; the message says how
 * far it got. The handle stays usable. */
int gd_sim_replay_file(gd_sim *sim, const char *trace_path);

/* Stop the replay running on sim as soon as possible (within one event of the model):
 * it returns GD_EINTERRUPTED, writing nothing; likewise a gd_sim_write_kernels_csv
 * running (within a row). Safe to call from a signal handler or another thread (it
 * only sets a flag); a call while neither runs is forgotten when the next one starts.
 * GD_EINVAL if sim is NULL. */
int gd_sim_interrupt(gd_sim *sim);

/* Stop each later replay that runs longer than seconds of wall time (0: no limit, the
 * default): it returns GD_ELIMIT with a message saying how far it got, writing nothing.
 * The bound covers the whole call, the model of the device being built included (the
 * model is taken down after that, in well under a second for a device of thousands
 * of SMs). Each gd_sim_write_kernels_csv has the same bound of its own (a table of
 * millions of rows takes seconds). GD_EINVAL if sim is NULL or seconds is neither 0
 * nor from 0.001 to 10^7. */
int gd_sim_set_timeout(gd_sim *sim, double seconds);

/* Results of the last successful replay. */
int gd_sim_summary(gd_sim *sim, gd_summary *out);

/* Duration statistics of one stage (enum gd_stage) over the last replay's kernels.
 * *out is zeroed first, so it holds zeros when the call fails. */
int gd_sim_stage_stats(gd_stage_stats *out, gd_sim *sim, int stage);

/* Short name of a stage ("fetch", "decode", ...; NULL for an unknown stage). */
const char *gd_stage_name(int stage);

/* Per-kernel CSV of the last replay (header row, one row per kernel in dispatch order). */
int gd_sim_write_kernels_csv(gd_sim *sim, const char *path);

/* Summary as JSON (gdsim version, full resolved configuration, summary, block statistics). */
int gd_sim_write_summary_json(gd_sim *sim, const char *path);

/* Human-readable summary report (what `gdsim replay` prints). For these three
 * writers a path of "-" means standard output. */
int gd_sim_write_summary_text(gd_sim *sim, const char *path);

/* Text of the last error on sim ("" if none). Never NULL; sim may be NULL. */
const char *gd_sim_errmsg(gd_sim *sim);

/* Static text for a status code. */
const char *gd_strerror(int code);

/* Run-time version string, e.g. "0.1.0". */
const char *gd_version(void);

/* Enumerate configuration keys: index from 0 until it returns GD_EINVAL. Any
 * out-pointer may be NULL. All strings are static. *default_value is NULL for keys
 * whose default comes from the device preset (see `gdsim keys`). */
int gd_config_key(const char **name, const char **default_value, const char **doc,
                  const char **source, size_t index);

/* The values a configuration key accepts, in words ("an integer from 1 to 1024",
 * "count|contiguous", ...), by the same index as gd_config_key; GD_EINVAL past the
 * last key. The string is static. */
int gd_config_key_accepted(const char **accepted, size_t index);

#ifdef __cplusplus
}
#endif

#endif /* GDSIM_H */
