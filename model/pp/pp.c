#include "pp.h"

#include <stdlib.h>
#include <string.h>

void gd_pp_queue_init(gd_pp_queue *q, uint32_t limit)
{
    memset(q, 0, sizeof *q);
    q->limit = limit;
}

void gd_pp_queue_destroy(gd_pp_queue *q)
{
    free(q->ring);
    q->ring = NULL;
    q->cap = q->count = q->head = 0;
}

int gd_pp_queue_push(gd_pp_queue *q, gd_kernel_run *r)
{
    if (!r->in_packet && q->packets + q->held >= q->limit)
        return 1;
    if (q->count == q->cap) {
        /* Grow (up to the limit) so that memory follows the packets actually queued. */
        uint32_t ncap = q->cap ? q->cap * 2 : 16;
        gd_kernel_run **nr = malloc(ncap * sizeof *nr);
        if (!nr)
            return -1;
        for (uint32_t i = 0; i < q->count; i++)
            nr[i] = q->ring[(q->head + i) % q->cap];
        free(q->ring);
        q->ring = nr;
        q->cap = ncap;
        q->head = 0;
    }
    q->ring[(q->head + q->count) % q->cap] = r;
    q->count++;
    q->pushed++;
    if (!r->in_packet)
        q->packets++;
    q->used = 1;
    return 0;
}

void gd_pp_queue_pop(gd_pp_queue *q)
{
    if (!q->ring[q->head]->in_packet)
        q->packets--;
    q->head = (q->head + 1) % q->cap;
    q->count--;
    q->popped++;
    q->state = GD_PQ_IDLE;
}

uint32_t gd_pp_pick(const gd_pp_queue *qs, const uint32_t *ids, uint32_t n, uint32_t start, int state)
{
    for (uint32_t k = 0; k < n; k++) {
        const gd_pp_queue *q = &qs[ids[(start + k) % n]];
        if (q->count && q->state == state)
            return k;
    }
    return UINT32_MAX;
}

int gd_pp_barrier_satisfied(const gd_kernel_run *b, const uint32_t *values)
{
    if (b->kind == GD_PKT_BARRIER_OR) {
        for (uint32_t i = 0; i < b->ndeps; i++)
            if (values[b->dep[i]] == 0)
                return 1;
        return 0;
    }
    for (uint32_t i = 0; i < b->ndeps; i++)
        if (values[b->dep[i]] != 0)
            return 0;
    return 1;
}

void gd_pp_barrier_park(gd_pp_queue *q, gd_kernel_run *b)
{
    gd_pp_queue_pop(q);
    q->outstanding++;
    q->barriers_pending++;
    b->next_barrier = NULL;
    if (q->bar_tail)
        q->bar_tail->next_barrier = b;
    else
        q->bar_head = b;
    q->bar_tail = b;
}

gd_kernel_run *gd_pp_barrier_ready(const gd_pp_queue *q, const uint32_t *values)
{
    gd_kernel_run *b = q->bar_head;
    if (!b || q->barriers_resolved)
        return NULL;
    /* Nothing behind a waiting barrier launches, so what is outstanding besides the
     * barriers themselves came before them. */
    if (b->barrier && q->outstanding != q->barriers_pending)
        return NULL;
    return gd_pp_barrier_satisfied(b, values) ? b : NULL;
}

void gd_pp_barrier_resolved(gd_pp_queue *q)
{
    gd_kernel_run *b = q->bar_head;
    q->bar_head = b->next_barrier;
    if (!q->bar_head)
        q->bar_tail = NULL;
    b->next_barrier = NULL;
    q->barriers_resolved++;
}

void gd_pp_barrier_completed(gd_pp_queue *q)
{
    q->barriers_resolved--;
    q->barriers_pending--;
    q->outstanding--;
}

static int gap_kind(const gd_kernel_run *r)
{
    switch (r->kind) {
    case GD_PKT_KERNEL: return GD_GAP_IS_KERNEL;
    case GD_PKT_COMMAND: return GD_GAP_IS_COPY;
    case GD_PKT_BARRIER_AND:
    case GD_PKT_BARRIER_OR: return GD_GAP_IS_BARRIER;
    default: return GD_GAP_IS_OTHER;
    }
}

void gd_pp_completed(gd_pp_queue *q, const gd_kernel_run *r, gd_time_ps now)
{
    q->last_kind = (uint8_t)gap_kind(r);
    q->have_last = 1;
    q->last_done = now;
}

gd_time_ps gd_pp_wake_ps(const gd_kernel_run *head, const gd_gap_model *m)
{
    return gd_gap_wake_ps(m, gap_kind(head));
}

gd_time_ps gd_pp_release_time(const gd_pp_queue *q, const gd_kernel_run *head, const gd_gap_model *m)
{
    if (!head->barrier || head->in_packet || !q->have_last || head->decoded > q->last_done ||
        (head->programmatic && q->outstanding))   /* (released by its primary's dispatch, not a completion) */
        return 0;
    int succ = gap_kind(head);
    int cls = gd_gap_class(q->last_kind, succ, head->graph);
    if (cls == GD_GAP_NONE)
        return 0;
    return q->last_done + gd_gap_hold_ps(m, cls, succ);
}
