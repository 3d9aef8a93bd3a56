/* cta_log.h - the CTA log (gdsim replay --cta-log): one CSV row per CTA, written by
 * the GPC2SM distributor as the CTA launches (its end is known then), with the ids
 * the SM rasterized. Pure C. */
#ifndef GD_CTA_LOG_H
#define GD_CTA_LOG_H

#include <stdint.h>
#include <stdio.h>

#include "gd_util.h"

#ifdef __cplusplus
extern "C" {
#endif

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

#ifdef __cplusplus
}
#endif

#endif
