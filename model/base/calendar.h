/* calendar.h - a calendar of timed entries built for CTA retirements: the entries
 * of one stream (one kernel: every CTA runs the same time) arrive in time order,
 * so each stream keeps a FIFO and the calendar only compares the FIFO heads. An
 * entry that would go back in time within its stream opens a new FIFO, so the
 * calendar is exact for any times; it is fast when streams are in order.
 * Order: by time, then by key (put a sequence number in the key's high bits to
 * get same-time entries in the order they were added). */
#ifndef GD_CALENDAR_H
#define GD_CALENDAR_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct gd_cal_item {
    uint64_t time, key;
} gd_cal_item;

typedef struct gd_cal_fifo {
    const void *stream;
    gd_cal_item *items;
    uint32_t head, count, cap;
} gd_cal_fifo;

/* The FIFOs start in the calendar itself (one; most calendars never hold more), so
 * its first entry is two dependent loads away, not three: a calendar is not to be
 * copied or moved once initialized. */
typedef struct gd_calendar {
    gd_cal_fifo *fifos;  /* &first, or an array of cap FIFOs */
    uint32_t n, cap;
    uint32_t min;      /* index of the FIFO with the smallest head (valid when n > 0) */
    uint64_t size;     /* entries held */
    gd_cal_fifo first;
} gd_calendar;

void gd_cal_init(gd_calendar *c);
void gd_cal_free(gd_calendar *c);
/* Returns 0, or -1 when out of memory. */
int gd_cal_push_any(gd_calendar *c, const void *stream, uint64_t time, uint64_t key);
static inline int gd_cal_push(gd_calendar *c, const void *stream, uint64_t time, uint64_t key)
{
    if (c->size == 0 && c->cap && c->fifos[0].cap) {  /* empty (often, one entry at a time): the first FIFO */
        gd_cal_fifo *f = &c->fifos[0];
        f->stream = stream;
        f->head = 0;
        f->count = 1;
        f->items[0].time = time;
        f->items[0].key = key;
        c->n = 1;
        c->min = 0;
        c->size = 1;
        return 0;
    }
    if (c->n) {  /* the newest FIFO is this stream's and the entry goes last: append (its head stays) */
        gd_cal_fifo *f = &c->fifos[c->n - 1];
        const gd_cal_item *tail = &f->items[(f->head + f->count - 1) & (f->cap - 1)];
        if (f->stream == stream && f->count < f->cap &&
            (time > tail->time || (time == tail->time && key >= tail->key))) {
            gd_cal_item *x = &f->items[(f->head + f->count) & (f->cap - 1)];
            x->time = time;
            x->key = key;
            f->count++;
            c->size++;
            return 0;
        }
    }
    return gd_cal_push_any(c, stream, time, key);
}
static inline uint64_t gd_cal_size(const gd_calendar *c) { return c->size; }
/* The smallest entry; the calendar must not be empty. */
static inline const gd_cal_item *gd_cal_top(const gd_calendar *c)
{
    const gd_cal_fifo *f = &c->fifos[c->min];
    return &f->items[f->head];
}
static inline uint64_t gd_cal_top_time(const gd_calendar *c) { return c->size ? gd_cal_top(c)->time : UINT64_MAX; }
void gd_cal_pop_any(gd_calendar *c);
static inline void gd_cal_pop(gd_calendar *c)
{
    if (c->n == 1) {  /* one FIFO: no other to compare */
        gd_cal_fifo *f = &c->fifos[0];
        f->head = (f->head + 1) & (f->cap - 1);
        f->count--;
        c->size--;
        if (!f->count)
            c->n = 0;
        return;
    }
    gd_cal_pop_any(c);
}
/* The entries whose time is at most t, without popping: how many there are, and up
 * to max of them in out (FIFO by FIFO, each in time order). */
uint32_t gd_cal_due(const gd_calendar *c, uint64_t t, gd_cal_item *out, uint32_t max);
/* The time of the entry that follows the smallest (UINT64_MAX with fewer than two). */
uint64_t gd_cal_second_time_any(const gd_calendar *c);
static inline uint64_t gd_cal_second_time(const gd_calendar *c)
{
    if (c->size < 2)
        return UINT64_MAX;
    if (c->n == 1) {  /* one FIFO: its second entry */
        const gd_cal_fifo *f = &c->fifos[0];
        return f->items[(f->head + 1) & (f->cap - 1)].time;
    }
    return gd_cal_second_time_any(c);
}

#ifdef __cplusplus
}
#endif

#endif
