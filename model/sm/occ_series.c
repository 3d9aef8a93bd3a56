#include "occ_series.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "gdsim.h"

int gd_occ_series_init(gd_occ_series *s, FILE *f, uint32_t nsm, uint32_t ngpc, const uint32_t *gpc_of,
                       gd_time_ps interval, uint64_t base_ns)
{
    memset(s, 0, sizeof *s);
    s->f = f;
    s->nsm = nsm;
    s->ngpc = ngpc;
    s->gpc_of = gpc_of;
    s->interval = interval ? interval : 1;
    s->base_ns = base_ns;
    s->bin_end = s->interval;
    s->cur = calloc(nsm ? nsm : 1, sizeof *s->cur);
    s->last = calloc(nsm ? nsm : 1, sizeof *s->last);
    s->acc = calloc(nsm ? nsm : 1, sizeof *s->acc);
    s->gpc_sum = calloc(ngpc ? ngpc : 1, sizeof *s->gpc_sum);
    if (!s->cur || !s->last || !s->acc || !s->gpc_sum) {
        s->nomem = 1;
        return GD_ENOMEM;
    }
    if (!f)
        return GD_OK;
    fputs("start_ns,gpu", f);
    for (uint32_t g = 0; g < ngpc; g++)
        fprintf(f, ",gpc%" PRIu32, g);
    for (uint32_t i = 0; i < nsm; i++)
        fprintf(f, ",sm%" PRIu32, i);
    if (fputc('\n', f) == EOF)
        s->io_error = 1;
    return s->io_error ? GD_EIO : GD_OK;
}

void gd_occ_series_destroy(gd_occ_series *s)
{
    free(s->cur);
    free(s->last);
    free(s->acc);
    free(s->gpc_sum);
    free(s->heap);
    memset(s, 0, sizeof *s);
}

/* The current interval ends: every SM's warps up to its end, a row if any warp was
 * resident in it, then the next interval. */
static void close_bin(gd_occ_series *s)
{
    if (s->dirty || s->total) {
        double gpu = 0, inv = 1.0 / (double)s->interval;
        uint64_t any = 0;
        for (uint32_t g = 0; g < s->ngpc; g++)
            s->gpc_sum[g] = 0;
        for (uint32_t i = 0; i < s->nsm; i++) {
            if (s->last[i] < s->bin_start)
                s->last[i] = s->bin_start;
            s->acc[i] += (uint64_t)s->cur[i] * (s->bin_end - s->last[i]);
            s->last[i] = s->bin_end;
            any |= s->acc[i];
            double v = (double)s->acc[i] * inv;
            s->gpc_sum[s->gpc_of[i]] += v;
            gpu += v;
        }
        if (!any)  /* warps came and went at one instant: no row */
            goto next;
        if (s->on_row)
            s->on_row(s->on_row_ctx, s->bin_start, s->gpc_sum);
        if (s->f) {
            fprintf(s->f, "%" PRIu64 ".%03u,%.4f", s->base_ns + s->bin_start / 1000u,
                    (unsigned)(s->bin_start % 1000u), gpu);
            for (uint32_t g = 0; g < s->ngpc; g++)
                fprintf(s->f, ",%.4f", s->gpc_sum[g]);
            for (uint32_t i = 0; i < s->nsm; i++)
                fprintf(s->f, ",%.4f", (double)s->acc[i] * inv);
            if (fputc('\n', s->f) == EOF)
                s->io_error = 1;
        }
        for (uint32_t i = 0; i < s->nsm; i++)
            s->acc[i] = 0;
        s->rows++;
    }
next:
    s->dirty = s->total != 0;
    s->bin_start = s->bin_end;
    s->bin_end += s->interval;
}

/* sm's warps change by +warps (up) or -warps at t, t at or after every earlier change. */
static void change(gd_occ_series *s, uint32_t sm, uint32_t warps, int up, gd_time_ps t)
{
    while (t >= s->bin_end) {
        if (!s->total && !s->dirty) {  /* an idle GPU: straight to t's interval */
            s->bin_start = t - t % s->interval;
            s->bin_end = s->bin_start + s->interval;
            break;
        }
        close_bin(s);
    }
    if (s->last[sm] < s->bin_start)
        s->last[sm] = s->bin_start;
    s->acc[sm] += (uint64_t)s->cur[sm] * (t - s->last[sm]);
    s->last[sm] = t;
    if (up) {
        s->cur[sm] += warps;
        s->total += warps;
        s->dirty = 1;
    } else {
        s->cur[sm] -= warps;
        s->total -= warps;
    }
}

static void heap_pop_until(gd_occ_series *s, gd_time_ps t, int all)
{
    while (s->nheap && (all || s->heap[0].end <= t)) {
        gd_occ_end e = s->heap[0];
        gd_occ_end last = s->heap[--s->nheap];
        size_t i = 0;
        for (;;) {  /* sift the last entry down from the root */
            size_t c = 2 * i + 1;
            if (c >= s->nheap)
                break;
            if (c + 1 < s->nheap && s->heap[c + 1].end < s->heap[c].end)
                c++;
            if (s->heap[c].end >= last.end)
                break;
            s->heap[i] = s->heap[c];
            i = c;
        }
        if (s->nheap)
            s->heap[i] = last;
        change(s, e.sm, e.warps, 0, e.end);
    }
}

void gd_occ_series_add(gd_occ_series *s, uint32_t sm, uint32_t warps, gd_time_ps start, gd_time_ps end)
{
    if (s->nomem || !warps || sm >= s->nsm)
        return;
    if (start < s->frontier) {
        s->order_error = 1;
        return;
    }
    s->frontier = start;
    heap_pop_until(s, start, 0);  /* the ends up to start come first */
    if (end <= start)
        return;
    change(s, sm, warps, 1, start);
    if (s->nheap == s->capheap) {
        size_t cap = s->capheap ? 2 * s->capheap : 256;
        gd_occ_end *h = realloc(s->heap, cap * sizeof *h);
        if (!h) {
            s->nomem = 1;
            return;
        }
        s->heap = h;
        s->capheap = cap;
    }
    size_t i = s->nheap++;
    while (i && s->heap[(i - 1) / 2].end > end) {
        s->heap[i] = s->heap[(i - 1) / 2];
        i = (i - 1) / 2;
    }
    s->heap[i] = (gd_occ_end){end, sm, warps};
}

int gd_occ_series_finish(gd_occ_series *s)
{
    if (s->nomem)
        return GD_ENOMEM;
    heap_pop_until(s, 0, 1);
    if (s->dirty)
        close_bin(s);
    if (s->order_error)
        return GD_EINTERNAL;
    return s->io_error || (s->f && ferror(s->f)) ? GD_EIO : GD_OK;
}
