/* power.h - the SMs' power over time, pure C: every CTA's energy spread evenly over its
 * run into windows of equal length, and, for each window once no CTA can add to it any
 * more, how unevenly the SMs share it (the coefficient of variation of the SMs'
 * energies in that window, as parts per million into a histogram; max / mean). Memory
 * follows the windows still open, not the trace: a window closes once CTAs start after
 * its end (CTAs start in time order, the distributor's launch order). */
#ifndef GD_POWER_H
#define GD_POWER_H

#include <stdint.h>

#include "gd_util.h"
#include "hist.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct gd_power_windows {
    uint32_t nsm;
    gd_time_ps window;       /* window length, ps */
    double *e;               /* ring of open windows: cap x nsm energies (fJ) */
    uint64_t first;          /* window index of the ring's first open window */
    uint32_t head, count, cap;
    gd_hist cov_ppm;         /* per closed window with energy: CoV across the SMs, ppm */
    uint64_t windows;        /* closed windows with energy */
    uint64_t max_ratio_ppm;  /* the largest max / mean of a closed window, ppm */
    uint64_t late;           /* CTAs that started in a closed window (none when launches are in order) */
    int nomem;
} gd_power_windows;

int gd_power_init(gd_power_windows *p, uint32_t nsm, gd_time_ps window);
void gd_power_free(gd_power_windows *p);
/* A CTA on SM sm, [start, end), energy fJ. Closes the windows that end by `start`. */
void gd_power_add(gd_power_windows *p, uint32_t sm, gd_time_ps start, gd_time_ps end, uint64_t energy_fj);
/* Close every open window (after the run). */
void gd_power_finish(gd_power_windows *p);

#ifdef __cplusplus
}
#endif

#endif
