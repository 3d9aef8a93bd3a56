/* hist.h - a histogram of durations (picoseconds) with bounded relative error, for
 * the summary's percentiles: exact below 256 ps, above that 128 buckets per power
 * of two, so a percentile is within 1/256 (0.39 %) of the true value. Memory: a row
 * of 128 counters (1 KiB) for each power of two that holds a value, allocated with its
 * first (a histogram of a replay's latencies spans a few: a table of all 58 rows,
 * zeroed up front, cost 15 page faults per histogram); mean, minimum and maximum are
 * exact. */
#ifndef GD_HIST_H
#define GD_HIST_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define GD_HIST_SUB_BITS 7
#define GD_HIST_ROWS (64 - GD_HIST_SUB_BITS + 1)
#define GD_HIST_BUCKETS (GD_HIST_ROWS * (1u << GD_HIST_SUB_BITS))

typedef struct gd_hist {
    uint64_t count;
    unsigned __int128 sum; /* exact: 2^64 values of up to 2^64 - 1 */
    uint64_t min, max;
    uint64_t *row[GD_HIST_ROWS]; /* bucket b's counter: row[b >> GD_HIST_SUB_BITS][b % 128]; NULL: all 0 */
} gd_hist;

void gd_hist_init(gd_hist *h);
void gd_hist_free(gd_hist *h);
/* 0, or -1 when out of memory (the value is then not counted). */
int gd_hist_add(gd_hist *h, uint64_t v);
/* Bucket of v, and the range [lo, hi] of values that share it. */
uint32_t gd_hist_bucket(uint64_t v);
void gd_hist_bucket_range(uint32_t b, uint64_t *lo, uint64_t *hi);
/* Nearest-rank percentile (0 < p <= 100): the midpoint of the bucket holding the
 * ceil(p/100 x count)-th smallest value, clamped to [min, max]; the exact minimum
 * or maximum for the first or last rank; 0 when empty. */
uint64_t gd_hist_percentile(const gd_hist *h, double p);
double gd_hist_mean(const gd_hist *h);

#ifdef __cplusplus
}
#endif

#endif
