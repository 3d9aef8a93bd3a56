/* report.h - results of a replay: the per-kernel CSV (rows in dispatch order,
 * streamed to a temporary file so memory does not grow with the trace), the
 * summary, block statistics (declared by each block, dumped by one writer), and
 * the text and JSON writers. */
#ifndef GD_REPORT_H
#define GD_REPORT_H

#include <stdint.h>
#include <stdio.h>

#include "config.h"
#include "gdsim.h"
#include "hist.h"
#include "pp.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ---- statistics registry ---- */

typedef struct gd_stat {
    char *block;          /* block instance, e.g. "gpc2sm[3]" */
    const char *name;     /* e.g. "ctas_launched" */
    const char *unit;
    const char *desc;
    const uint64_t *src;  /* live counter while the model runs */
    uint64_t value;       /* frozen value */
} gd_stat;

typedef struct gd_stats {
    gd_stat *v;
    size_t n, cap;
} gd_stats;

void gd_stats_init(gd_stats *s);
void gd_stats_destroy(gd_stats *s);
int gd_stats_add(gd_stats *s, const char *block, const char *name, const char *unit, const char *desc,
                 const uint64_t *src);
/* The value of a block's counter (live or frozen); 0 when there is none. */
uint64_t gd_stats_get(const gd_stats *s, const char *block, const char *name);
/* Copy every live counter into its frozen value and forget the sources. */
void gd_stats_freeze(gd_stats *s);

/* ---- the report ---- */

typedef struct gd_report {
    gd_config cfg;
    uint64_t origin_ns;        /* trace time of sim time 0 */
    FILE *csv;                 /* temporary file with the CSV rows */
    gd_kernel_run **pending;   /* completed runs waiting for earlier ones (reorder ring) */
    uint64_t pend_cap, next_index;
    gd_run_pool *pool;         /* where written runs go back */
    /* summary accumulators */
    uint64_t kernels, ctas;
    gd_time_ps first_cta, last_end, last_completion;
    double latency_sum_ps;
    unsigned __int128 warp_ps;
    gd_hist stages[GD_STAGES]; /* per-kernel stage durations, ps */
    int io_error;
    int nomem;                 /* a kernel's row or statistics were lost: the replay fails */
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

/* The per-CTA log (gdsim replay --cta-log): one row per CTA, written as it launches
 * (its end is known then). */
typedef struct gd_cta_log {
    FILE *f;
    const uint64_t *origin_ns;  /* the report's origin (set before the first CTA) */
    int io_error;
} gd_cta_log;

extern const char GD_CTA_LOG_HEADER[];
void gd_cta_log_row(gd_cta_log *log, uint64_t kernel_index, uint64_t cta_id, const uint32_t xyz[3], uint64_t cga_id,
                    uint32_t cga_cta_id, uint32_t gpc, uint32_t sm, gd_time_ps launch, gd_time_ps end);

/* A stage's statistics (enum gd_stage). */
void gd_report_stage_stats(const gd_report *r, int stage, gd_stage_stats *out);
/* "submit -> fetched" and so on, for the text report. */
const char *gd_stage_label(int stage);

/* Fill the summary from the accumulators (+ counters the model keeps). */
void gd_report_summary(const gd_report *r, gd_summary *out);

/* Copy the CSV (header + rows) to path. */
int gd_report_write_csv(const gd_report *r, const char *path, gd_err *err);

/* What a replay ran on, for the text and JSON reports. */
typedef struct gd_run_info {
    const char *trace_path;
    const char *trace_producer;
    const gd_trace_device *trace_device;
    uint64_t records;
    const gd_report *report;   /* stage statistics; NULL: none */
    const gd_stats *stats;     /* block statistics; NULL: none */
} gd_run_info;

int gd_write_summary_text(FILE *f, const gd_config *cfg, const gd_summary *s, const gd_run_info *info);
int gd_write_summary_json(FILE *f, const gd_config *cfg, const gd_summary *s, const gd_run_info *info,
                          const gd_stats *stats);

#ifdef __cplusplus
}
#endif

#endif
