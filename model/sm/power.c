#include "power.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

int gd_power_init(gd_power_windows *p, uint32_t nsm, gd_time_ps window)
{
    memset(p, 0, sizeof *p);
    p->nsm = nsm ? nsm : 1;
    p->window = window ? window : 1;
    gd_hist_init(&p->cov_ppm);
    p->cap = 64;
    p->e = calloc((size_t)p->cap * p->nsm, sizeof *p->e);
    return p->e ? 0 : -1;
}

void gd_power_free(gd_power_windows *p)
{
    free(p->e);
    gd_hist_free(&p->cov_ppm);
    memset(p, 0, sizeof *p);
}

static double *row(gd_power_windows *p, uint32_t k) { return p->e + (size_t)((p->head + k) % p->cap) * p->nsm; }

/* Close the ring's first open window. */
static void close_first(gd_power_windows *p)
{
    double *e = row(p, 0);
    double sum = 0, sum2 = 0, max = 0;
    for (uint32_t i = 0; i < p->nsm; i++) {
        sum += e[i];
        sum2 += e[i] * e[i];
        if (e[i] > max)
            max = e[i];
    }
    if (sum > 0) {
        double mean = sum / p->nsm, var = sum2 / p->nsm - mean * mean;
        double cov = var > 0 ? sqrt(var) / mean : 0.0;
        if (gd_hist_add(&p->cov_ppm, (uint64_t)llround(cov * 1e6)))
            p->nomem = 1;
        uint64_t ratio = (uint64_t)llround(max / mean * 1e6);
        if (ratio > p->max_ratio_ppm)
            p->max_ratio_ppm = ratio;
        p->windows++;
    }
    memset(e, 0, (size_t)p->nsm * sizeof *e);
    p->head = (p->head + 1) % p->cap;
    p->count--;
    p->first++;
}

/* Make window index w open (grow the ring). */
static int open_to(gd_power_windows *p, uint64_t w)
{
    while (w >= p->first + p->count) {
        if (p->count == p->cap) {
            uint32_t nc = p->cap * 2;
            double *ne = calloc((size_t)nc * p->nsm, sizeof *ne);
            if (!ne)
                return -1;
            for (uint32_t k = 0; k < p->count; k++)
                memcpy(ne + (size_t)k * p->nsm, row(p, k), (size_t)p->nsm * sizeof *ne);
            free(p->e);
            p->e = ne;
            p->head = 0;
            p->cap = nc;
        }
        p->count++;  /* the new window's row is zero */
    }
    return 0;
}

void gd_power_add(gd_power_windows *p, uint32_t sm, gd_time_ps start, gd_time_ps end, uint64_t energy_fj)
{
    if (sm >= p->nsm || !energy_fj)
        return;
    uint64_t ws = start / p->window;
    while (p->count && p->first < ws)  /* windows that end by `start` can get nothing more */
        close_first(p);
    if (p->count == 0 && p->first < ws)
        p->first = ws;
    if (ws < p->first) {  /* out of order: into the first open window */
        p->late++;
        ws = p->first;
        if (start < ws * p->window)
            start = ws * p->window;
    }
    if (end <= start)
        end = start + 1;
    uint64_t we = (end - 1) / p->window;
    if (open_to(p, we)) {
        p->nomem = 1;
        return;
    }
    double per_ps = (double)energy_fj / (double)(end - start);
    for (uint64_t w = ws; w <= we; w++) {
        gd_time_ps a = w * p->window > start ? w * p->window : start;
        gd_time_ps b = (w + 1) * p->window < end ? (w + 1) * p->window : end;
        row(p, (uint32_t)(w - p->first))[sm] += per_ps * (double)(b - a);
    }
}

void gd_power_finish(gd_power_windows *p)
{
    while (p->count)
        close_first(p);
}
