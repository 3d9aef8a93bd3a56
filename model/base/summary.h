/* summary.h - the replay's summary, as text and as JSON. The writers know no block:
 * after the run's own figures (gd_summary) they print each registered report
 * section in registration order, and the JSON ends with every counter of the
 * statistics registry (stats.h). */
#ifndef GD_SUMMARY_H
#define GD_SUMMARY_H

#include <stdint.h>
#include <stdio.h>

#include "config.h"
#include "cta_rules.h"
#include "gdsim.h"
#include "stats.h"

#ifdef __cplusplus
extern "C" {
#endif

/* What a replay ran on. */
typedef struct gd_run_info {
    const char *trace_path;
    const char *trace_producer;
    const gd_trace_device *trace_device;
    uint64_t records;
    const gd_stats *stats;     /* frozen block statistics and report sections; NULL: none */
    uint64_t origin_ns;        /* the trace time of the first submit (simulation time 0) */
    int absolute_times;        /* the CSV outputs are in the trace's clock (else from origin_ns) */
    const gd_cta_rules *cta_rules;  /* sm.cta_time_rules with what they matched; NULL: none */
} gd_run_info;

int gd_write_summary_text(FILE *f, const gd_config *cfg, const gd_summary *s, const gd_run_info *info);
int gd_write_summary_json(FILE *f, const gd_config *cfg, const gd_summary *s, const gd_run_info *info);

#ifdef __cplusplus
}
#endif

#endif
