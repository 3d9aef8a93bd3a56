#include "hist.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define SUB (1u << GD_HIST_SUB_BITS)

void gd_hist_init(gd_hist *h) { memset(h, 0, sizeof *h); }

void gd_hist_free(gd_hist *h)
{
    for (uint32_t r = 0; r < GD_HIST_ROWS; r++)
        free(h->row[r]);
    gd_hist_init(h);
}

uint32_t gd_hist_bucket(uint64_t v)
{
    if (v < 2 * SUB)
        return (uint32_t)v;
    unsigned e = 63u - (unsigned)__builtin_clzll(v); /* >= GD_HIST_SUB_BITS + 1 */
    unsigned shift = e - GD_HIST_SUB_BITS;
    return SUB * (shift + 1) + (uint32_t)((v >> shift) - SUB);
}

void gd_hist_bucket_range(uint32_t b, uint64_t *lo, uint64_t *hi)
{
    if (b < 2 * SUB) {
        *lo = *hi = b;
        return;
    }
    unsigned shift = b / SUB - 1;
    uint64_t top = SUB + b % SUB;
    *lo = top << shift;
    *hi = *lo + ((1ull << shift) - 1);
}

/* Value v counted in its bucket b's row. */
static inline void count(gd_hist *h, uint64_t *row, uint32_t b, uint64_t v)
{
    row[b % SUB]++;
    if (!h->count) {
        h->min = h->max = v;
    } else if (v < h->min) {
        h->min = v;
    } else if (v > h->max) {
        h->max = v;
    }
    h->count++;
    h->sum += v;
}

/* The first value of bucket b's row: the row allocated, then v counted. Out of line and
 * reached by a tail call, so that the common path (the row there) calls nothing and
 * saves no registers (a replay adds about six values per packet). */
static __attribute__((noinline)) int add_in_new_row(gd_hist *h, uint64_t v, uint32_t b)
{
    uint64_t *row = h->row[b / SUB] = calloc(SUB, sizeof *row);
    if (!row)
        return -1;
    count(h, row, b, v);
    return 0;
}

int gd_hist_add(gd_hist *h, uint64_t v)
{
    const uint32_t b = gd_hist_bucket(v);
    uint64_t *row = h->row[b / SUB];
    if (!row)
        return add_in_new_row(h, v, b);
    count(h, row, b, v);
    return 0;
}

uint64_t gd_hist_percentile(const gd_hist *h, double p)
{
    if (!h->count)
        return 0;
    uint64_t rank = (uint64_t)ceil(p / 100.0 * (double)h->count);
    if (rank < 1)
        rank = 1;
    if (rank >= h->count)
        return h->max; /* the largest value is known exactly, as is the smallest */
    if (rank == 1)
        return h->min;
    uint64_t seen = 0;
    for (uint32_t b = 0; b < GD_HIST_BUCKETS; b++) {
        if (!h->row[b / SUB]) {
            b += SUB - 1;  /* (a row without a value) */
            continue;
        }
        seen += h->row[b / SUB][b % SUB];
        if (seen >= rank) {
            uint64_t lo, hi;
            gd_hist_bucket_range(b, &lo, &hi);
            uint64_t mid = lo + (hi - lo) / 2;
            return mid < h->min ? h->min : mid > h->max ? h->max : mid;
        }
    }
    return h->max;
}

double gd_hist_mean(const gd_hist *h) { return h->count ? (double)(h->sum / (long double)h->count) : 0.0; }
