#include "calendar.h"

#include <stdlib.h>
#include <string.h>

static inline int before(const gd_cal_item *a, const gd_cal_item *b)
{
    return a->time < b->time || (a->time == b->time && a->key < b->key);
}

static inline const gd_cal_item *head_of(const gd_cal_fifo *f) { return &f->items[f->head]; }

static void find_min(gd_calendar *c)
{
    uint32_t m = 0;
    for (uint32_t i = 1; i < c->n; i++)
        if (before(head_of(&c->fifos[i]), head_of(&c->fifos[m])))
            m = i;
    c->min = m;
}

void gd_cal_init(gd_calendar *c)
{
    memset(c, 0, sizeof *c);
    c->fifos = &c->first;
    c->cap = 1;
}

void gd_cal_free(gd_calendar *c)
{
    for (uint32_t i = 0; i < c->cap; i++)
        free(c->fifos[i].items);
    if (c->fifos != &c->first)
        free(c->fifos);
    gd_cal_init(c);
}

int gd_cal_push_any(gd_calendar *c, const void *stream, uint64_t time, uint64_t key)
{
    gd_cal_fifo *f = NULL;
    gd_cal_item x = {time, key};
    /* The newest FIFO of this stream (streams are few; the newest is searched first). */
    for (uint32_t i = c->n; i-- > 0;) {
        if (c->fifos[i].stream == stream) {
            gd_cal_fifo *g = &c->fifos[i];
            const gd_cal_item *tail = &g->items[(g->head + g->count - 1) & (g->cap - 1)];
            if (!before(&x, tail))
                f = g;
            break;
        }
    }
    if (!f) {
        if (c->n == c->cap) {
            const int own = c->fifos == &c->first;  /* the calendar's own FIFO moves to the array */
            uint32_t ncap = own || !c->cap ? 8 : c->cap * 2;
            gd_cal_fifo *nf = own ? malloc(ncap * sizeof *nf) : realloc(c->fifos, ncap * sizeof *nf);
            if (!nf)
                return -1;
            if (own) {
                nf[0] = c->first;
                memset(&c->first, 0, sizeof c->first);
            }
            memset(nf + c->cap, 0, (ncap - c->cap) * sizeof *nf);
            c->fifos = nf;
            c->cap = ncap;
        }
        f = &c->fifos[c->n++];  /* reuses the item buffer a FIFO left behind */
        f->stream = stream;
        f->head = f->count = 0;
    }
    if (f->count == f->cap) {
        uint32_t ncap = f->cap ? f->cap * 2 : 64;  /* a power of two: indices wrap with a mask */
        gd_cal_item *ni = malloc(ncap * sizeof *ni);
        if (!ni)
            return -1;
        for (uint32_t i = 0; i < f->count; i++)
            ni[i] = f->items[(f->head + i) & (f->cap - 1)];
        free(f->items);
        f->items = ni;
        f->cap = ncap;
        f->head = 0;
    }
    f->items[(f->head + f->count) & (f->cap - 1)] = (gd_cal_item){time, key};
    f->count++;
    c->size++;
    uint32_t fi = (uint32_t)(f - c->fifos);
    if (c->size == 1 || (f->count == 1 && before(head_of(f), gd_cal_top(c))))
        c->min = fi;
    return 0;
}

void gd_cal_pop_any(gd_calendar *c)
{
    gd_cal_fifo *f = &c->fifos[c->min];
    f->head = (f->head + 1) & (f->cap - 1);
    f->count--;
    c->size--;
    if (!f->count) {
        /* Drop the empty FIFO: swap it with the last one, keeping both item buffers. */
        gd_cal_fifo last = c->fifos[c->n - 1];
        c->fifos[c->n - 1] = *f;
        *f = last;
        c->n--;
    }
    if (c->n > 1)
        find_min(c);
    else
        c->min = 0;
}

uint32_t gd_cal_due(const gd_calendar *c, uint64_t t, gd_cal_item *out, uint32_t max)
{
    uint32_t n = 0;
    for (uint32_t i = 0; i < c->n; i++) {
        const gd_cal_fifo *f = &c->fifos[i];
        for (uint32_t j = 0; j < f->count; j++) {
            const gd_cal_item *x = &f->items[(f->head + j) & (f->cap - 1)];
            if (x->time > t)
                break;  /* a FIFO is in time order */
            if (n < max)
                out[n] = *x;
            n++;
        }
    }
    return n;
}

uint64_t gd_cal_second_time_any(const gd_calendar *c)
{
    if (c->size < 2)
        return UINT64_MAX;
    const gd_cal_fifo *m = &c->fifos[c->min];
    const gd_cal_item *best = m->count > 1 ? &m->items[(m->head + 1) & (m->cap - 1)] : NULL;
    for (uint32_t i = 0; i < c->n; i++)
        if (i != c->min && (!best || before(head_of(&c->fifos[i]), best)))
            best = head_of(&c->fifos[i]);
    return best->time;
}
