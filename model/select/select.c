#include "select.h"

#include <stdlib.h>
#include <string.h>

double gd_select_weight(const gd_sm_res *res, const gd_sm_limits *sm, const uint32_t *a)
{
    uint64_t regs = 0;
    for (uint32_t s = 0; s < res->nsub; s++)
        regs += res->regs[s];
    double w = 0;
    w += (double)a[GD_RES_WARPS] * res->warps / (sm->max_warps ? sm->max_warps : 1);
    w += (double)a[GD_RES_CTAS] * res->ctas / (sm->max_ctas ? sm->max_ctas : 1);
    w += (double)a[GD_RES_SMEM] * res->smem / (sm->smem ? sm->smem : 1);
    w += (double)a[GD_RES_REGS] * (double)regs / (sm->regs ? sm->regs : 1);
    return w;
}

int32_t gd_select_weighted(const uint32_t *free_slots, const gd_sm_res *res, uint32_t n, const gd_sm_limits *sm,
                           const uint32_t *a)
{
    int32_t best = -1;
    double bw = 0;
    for (uint32_t i = 0; i < n; i++) {
        if (!free_slots[i])
            continue;
        double w = gd_select_weight(&res[i], sm, a);
        if (best < 0 || w > bw) {
            best = (int32_t)i;
            bw = w;
        }
    }
    return best;
}

void gd_ehist_init(gd_energy_hist *h) { memset(h, 0, sizeof *h); }

void gd_ehist_free(gd_energy_hist *h)
{
    free(h->v);
    memset(h, 0, sizeof *h);
}

int gd_ehist_add(gd_energy_hist *h, gd_time_ps start, gd_time_ps end, uint64_t energy_fj)
{
    if (h->n == h->cap) {
        size_t nc = h->cap ? h->cap * 2 : 16;
        gd_energy_seg *nv = realloc(h->v, nc * sizeof *nv);
        if (!nv)
            return -1;
        h->v = nv;
        h->cap = nc;
    }
    gd_energy_seg s = {start, end > start ? end : start + 1, energy_fj};
    h->v[h->n++] = s;
    return 0;
}

double gd_ehist_window(gd_energy_hist *h, gd_time_ps now, gd_time_ps window)
{
    gd_time_ps lo = now > window ? now - window : 0;
    double e = 0;
    size_t keep = 0;
    for (size_t i = 0; i < h->n; i++) {
        gd_energy_seg *s = &h->v[i];
        if (s->end <= lo)
            continue;  /* over before the window: dropped */
        h->v[keep++] = *s;
        gd_time_ps a = s->start > lo ? s->start : lo, b = s->end < now ? s->end : now;
        if (b > a)
            e += (double)s->energy_fj * (double)(b - a) / (double)(s->end - s->start);
    }
    h->n = keep;
    return e;
}

int32_t gd_select_power(const uint32_t *free_slots, const double *recent_fj, const double *pending, uint32_t n)
{
    int32_t best = -1;
    double be = 0;
    for (uint32_t i = 0; i < n; i++) {
        if (!free_slots[i])
            continue;
        double e = recent_fj[i] + pending[i];
        if (best < 0 || e < be) {
            best = (int32_t)i;
            be = e;
        }
    }
    return best;
}
