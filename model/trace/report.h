/* report.h - the kernel table: what the host records of each kernel it submitted
 * (the profiler's view): the per-kernel CSV (rows in dispatch order, streamed to a
 * temporary file so memory does not grow with the trace, kept binary there and
 * formatted only when the table is written), the duration of each
 * stage of a kernel's launch (histograms, registered with the statistics registry
 * as distributions with their report section) and the run's summary figures. */
#ifndef GD_REPORT_H
#define GD_REPORT_H

#include <stdint.h>
#include <stdio.h>

#include "config.h"
#include "gdsim.h"
#include "hist.h"
#include "occupancy.h"
#include "packet.h"
#include "stats.h"

#ifdef __cplusplus
extern "C" {
#endif

/* What the host records per tenant (VID): commands (kernels and non-kernel
 * commands), how they ended, launch latency (submit -> first CTA or copy start) and
 * busy span (first start -> last end). */
typedef struct gd_vid_acc {
    uint64_t commands, failed, noop;
    gd_hist latency;
    gd_time_ps first, last;
    uint64_t busy_span;        /* ps, filled when registered */
} gd_vid_acc;

typedef struct gd_report {
    gd_config cfg;
    uint64_t origin_ns;        /* trace time of sim time 0: the first submit */
    int absolute_times;        /* outputs in the trace's own clock (else relative to origin_ns) */
    uint64_t time_base_ns;     /* added to sim times in outputs: origin_ns when absolute_times, else 0 */
    FILE *csv;                 /* temporary file with the rows (binary, formatted when written), made
                                  when the first rows go to it */
    unsigned char *rows;       /* rows not yet written to it (GD_REPORT_ROW_BUFFER bytes) */
    size_t rows_len;
    int no_rows;               /* keep no table (gd_sim_set_kernel_table(sim, 0)): rows are only told to on_row */
    int tmp_errno;             /* the temporary file could not be made: why */
    gd_kernel_run **pending;   /* completed runs waiting for earlier ones (reorder ring) */
    uint64_t pend_cap, next_index;
    gd_run_pool *pool;         /* where written runs go back */
    /* summary accumulators */
    uint64_t kernels, ctas;
    gd_time_ps first_cta, last_end, last_completion;
    double latency_sum_ps;
    unsigned __int128 warp_ps;
    gd_hist stages[GD_STAGES]; /* per-kernel stage durations, ps */
    gd_vid_acc *vids;          /* by VID (grown as they appear) */
    uint32_t nvids;
    int io_error;
    int nomem;                 /* a kernel's row or statistics were lost: the replay fails */
    /* optional: told each kernel's row as it is written (kernel order, at completion) */
    void (*on_row)(void *ctx, const gd_kernel_run *k);
    void *on_row_ctx;
} gd_report;

int gd_report_init(gd_report *r, const gd_config *cfg, gd_run_pool *pool, gd_err *err);
void gd_report_destroy(gd_report *r);
/* A kernel completed: its row is written once every earlier kernel's is. The run
 * goes back to the pool after writing. GD_ENOMEM (also remembered: the replay then
 * fails in gd_report_finish). */
int gd_report_kernel_done(gd_report *r, gd_kernel_run *run);
/* A barrier packet or non-kernel command completed (not a CSV row): the run goes
 * back to the pool. */
void gd_report_packet_done(gd_report *r, gd_kernel_run *run);
/* After the replay: every dispatched kernel must have completed. */
int gd_report_finish(gd_report *r, gd_err *err);

extern const char GD_KERNELS_CSV_HEADER[];

/* Register the stage durations (block "kernels", one distribution per enum gd_stage,
 * in ps) and their report section: the text summary's stage table and the JSON
 * summary's "stages". 0, or -1 when out of memory. */
int gd_report_register_stats(gd_report *r, gd_stats *stats);

/* After the replay: register each tenant's figures (block "vid_N": counters
 * commands, failed, noop, busy_span in ps; distribution launch_latency in ps), for
 * the command scheduler's report section. 0, or -1 when out of memory. */
int gd_report_register_vids(gd_report *r, gd_stats *stats);

/* A stage's statistics (enum gd_stage). */
void gd_report_stage_stats(const gd_report *r, int stage, gd_stage_stats *out);
/* "submit -> fetched" and so on, for the text report. */
const char *gd_stage_label(int stage);

/* Fill the summary from the accumulators (+ counters the model keeps). */
void gd_report_summary(const gd_report *r, gd_summary *out);
/* The time kernels were resident in the distributor and the idle stretches between
 * (ps): into *out, with the occupancy over the resident time. */
void gd_report_resident(const gd_report *r, gd_summary *out, gd_time_ps resident, gd_time_ps idle,
                        gd_time_ps longest_idle);

/* What may stop a long write (a kernel table of millions of rows takes seconds): the
 * flag *interrupt set (GD_EINTERRUPTED; read at every row), or the CLOCK_MONOTONIC
 * time deadline passed (GD_ELIMIT; 0: none; read every 1,024th row; timeout_s names
 * it in the message). A write stopped leaves no file. */
typedef struct gd_write_guard {
    const volatile int *interrupt;
    double deadline, timeout_s;
    /* progress (NULL: none): told the rows written of the table's, about every
     * `every` seconds (read every 1,024th row) and once at the end */
    void (*report)(void *ctx, uint64_t done, uint64_t of);
    void *ctx;
    double every, last;
} gd_write_guard;

/* Copy the CSV (header + rows) to path. guard may be NULL. */
int gd_report_write_csv(gd_report *r, const char *path, gd_write_guard *guard, gd_err *err);

#ifdef __cplusplus
}
#endif

#endif
