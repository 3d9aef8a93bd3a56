#include "host.h"

#include <stdlib.h>
#include <string.h>

int gd_host_init(gd_host *h, uint64_t max_buffered)
{
    memset(h, 0, sizeof *h);
    h->open_thread = UINT32_MAX;
    h->max_buffered = max_buffered;
    h->cpu_ppm = 1000000;
    return 0;
}

void gd_host_destroy(gd_host *h)
{
    for (uint32_t i = 0; i < h->nthreads; i++) {
        free(h->t[i].q);
        free(h->t[i].conds);
    }
    free(h->t);
    free(h->sub_sig);
    free(h->done_sig);
    memset(h, 0, sizeof *h);
    h->open_thread = UINT32_MAX;
}

static gd_host_thread *thread_of(gd_host *h, uint32_t id)
{
    if (id >= h->nthreads) {
        uint32_t n = id + 1;
        gd_host_thread *t = realloc(h->t, n * sizeof *t);
        if (!t)
            return NULL;
        memset(t + h->nthreads, 0, (n - h->nthreads) * sizeof *t);
        h->t = t;
        h->nthreads = n;
    }
    return &h->t[id];
}

int gd_host_declare(gd_host *h, const gd_trace_host_thread *d)
{
    gd_host_thread *t = thread_of(h, d->thread);
    if (!t)
        return -1;
    t->declared = 1;
    t->start_ns = d->start_ns;
    memcpy(t->name, d->name, sizeof t->name);
    h->declared++;
    return 0;
}

void gd_host_origin(gd_host *h, uint64_t origin_ns)
{
    h->origin_ns = origin_ns;
    h->have_origin = 1;
    for (uint32_t i = 0; i < h->nthreads; i++) {
        h->t[i].ready = h->t[i].start_ns > origin_ns ? (h->t[i].start_ns - origin_ns) * GD_PS_PER_NS : 0;
        gd_path_start(&h->t[i].path, h->t[i].ready);
    }
}

/* A new item at the tail of thread's queue. */
static gd_host_item *push(gd_host *h, uint32_t thread, gd_time_ps gap, int last)
{
    gd_host_thread *t = &h->t[thread];
    if (t->len == t->cap) {
        uint32_t cap = t->cap ? 2 * t->cap : 4;
        gd_host_item *q = malloc(cap * sizeof *q);
        if (!q)
            return NULL;
        for (uint32_t i = 0; i < t->len; i++)
            q[i] = t->q[(t->head + i) % t->cap];
        free(t->q);
        t->q = q;
        t->cap = cap;
        t->head = 0;
    }
    gd_host_item *it = &t->q[(t->head + t->len) % t->cap];
    t->len++;
    memset(it, 0, sizeof *it);
    it->seq = h->seq++;
    it->gap = gap;
    if (last)
        t->ended = 1;
    return it;
}

static void pop(gd_host_thread *t)
{
    t->head = (t->head + 1) % t->cap;
    t->len--;
}

int gd_host_call(gd_host *h, const gd_trace_host_call *c)
{
    gd_host_item *it = push(h, c->thread, gd_scale_ps(c->gap_ns * GD_PS_PER_NS, h->cpu_ppm),
                            (c->flags & GD_HOST_LAST) != 0);
    if (!it)
        return -1;
    it->packets_left = c->packets;
    h->open_thread = c->thread;
    h->open_item = it;  /* (its thread's ring moves only at its next item, after these packets) */
    return 0;
}

void gd_host_add_run(gd_host *h, gd_kernel_run *r)
{
    gd_host_item *it = h->open_item;
    r->host_next = NULL;
    r->host_qseq = h->read_q[r->trace_queue]++;
    if (it->runs_tail)
        it->runs_tail->host_next = r;
    else
        it->runs = r;
    it->runs_tail = r;
    h->buffered++;
}

void gd_host_packet_read(gd_host *h)
{
    if (--h->open_item->packets_left == 0)
        h->open_thread = UINT32_MAX;
}

int gd_host_wait(gd_host *h, const gd_trace_host_wait *w)
{
    gd_host_item *it = push(h, w->thread, gd_scale_ps(w->gap_ns * GD_PS_PER_NS, h->cpu_ppm),
                            (w->flags & GD_HOST_LAST) != 0);
    if (!it)
        return -1;
    it->is_wait = 1;
    it->kind = (uint8_t)w->kind;
    it->target = w->kind == GD_WAIT_SIGNAL ? w->signal : (uint32_t)w->target;
    it->tail = gd_scale_ps(w->tail_ns * GD_PS_PER_NS, h->cpu_ppm);
    return 0;
}

void gd_host_eof(gd_host *h)
{
    h->eof = 1;
    for (uint32_t i = 0; i < h->nthreads; i++)
        h->t[i].ended = 1;
}

int gd_host_next(const gd_host *h, uint32_t *thread, gd_time_ps *due)
{
    if (!h->eof && h->open_thread != UINT32_MAX) {
        *thread = UINT32_MAX;
        return GD_HOST_READ;  /* the open call's packets first */
    }
    uint32_t best = UINT32_MAX, hungry = UINT32_MAX;
    gd_time_ps best_due = GD_TIME_NEVER, bound = GD_TIME_NEVER;
    uint64_t best_seq = UINT64_MAX;
    for (uint32_t i = 0; i < h->nthreads; i++) {
        const gd_host_thread *t = &h->t[i];
        if (!t->declared || t->waiting)
            continue;
        if (!t->len) {  /* its next item is not read: due no earlier than its ready time */
            if (!t->ended && t->ready < bound) {
                bound = t->ready;
                hungry = i;
            }
            continue;
        }
        const gd_host_item *it = &t->q[t->head];
        if (t->stalled || (it->runs && !gd_host_in_order(h, it->runs)))
            continue;  /* room in its queue, or another thread's earlier packet of its queue, first */
        gd_time_ps d = t->ready + it->gap;
        if (d < best_due || (d == best_due && it->seq < best_seq)) {
            best = i;
            best_due = d;
            best_seq = it->seq;
        }
    }
    if (hungry != UINT32_MAX && (best == UINT32_MAX || best_due > bound)) {
        *thread = hungry;
        return GD_HOST_READ;
    }
    if (best == UINT32_MAX)
        return GD_HOST_IDLE;
    *thread = best;
    *due = best_due;
    return GD_HOST_ISSUE;
}

static uint64_t *sig_slot(gd_host *h, uint64_t **arr, uint32_t s)
{
    if (s >= h->nsig) {
        uint32_t n = h->nsig ? h->nsig : 16;
        while (n <= s)
            n *= 2;
        uint64_t *a = realloc(h->sub_sig, n * sizeof *a), *b;
        if (!a)
            return NULL;
        h->sub_sig = a;
        if (!(b = realloc(h->done_sig, n * sizeof *b)))
            return NULL;
        h->done_sig = b;
        memset(h->sub_sig + h->nsig, 0, (n - h->nsig) * sizeof *a);
        memset(h->done_sig + h->nsig, 0, (n - h->nsig) * sizeof *b);
        h->nsig = n;
    }
    return &(*arr)[s];
}

int gd_host_submitted(gd_host *h, const gd_kernel_run *r)
{
    h->sub_q[r->trace_queue]++;
    if (h->buffered)
        h->buffered--;
    if (r->signal != GD_NO_SIGNAL) {
        uint64_t *v = sig_slot(h, &h->sub_sig, r->signal);
        if (!v)
            return -1;
        (*v)++;
    }
    return 0;
}

static int cond_met(const gd_host *h, const gd_host_cond *c)
{
    if (c->what & GD_HOST_SIGNAL_BIT) {
        uint32_t s = c->what & ~GD_HOST_SIGNAL_BIT;
        return s >= h->nsig || h->done_sig[s] >= c->count;
    }
    return h->done_q[c->what] >= c->count;
}

static int conds_met(const gd_host *h, const gd_host_thread *t)
{
    for (uint32_t i = 0; i < t->nconds; i++)
        if (!cond_met(h, &t->conds[i]))
            return 0;
    return 1;
}

static void wait_over(gd_host *h, gd_host_thread *t, gd_time_ps now, gd_time_ps end)
{
    if (h->bounds)  /* its predecessor: the later of itself and what it waited for */
        gd_path_join(&t->path, gd_bounds_awaited(h->bounds, t->wait_kind, t->wait_target));
    gd_path_extend(&t->path, now, GD_PATH_HELD);  /* (the awaited work completed at now) */
    /* its tail after the awaited work's end (or its own start, if that was later: the
     * converter's tail counts from the later of the two), even before the model signals
     * completion: the captured tail holds the real signal's latency (the next call goes
     * no earlier than now, gd_host_next) */
    const gd_time_ps ret = (end > t->wait_began ? end : t->wait_began) + t->wait_tail;
    gd_path_extend(&t->path, ret, GD_PATH_HOST_SYNC);
    t->waiting = 0;
    t->waited_ps += now - t->wait_began;
    h->waited_ps += now - t->wait_began;
    t->tail_ps += t->wait_tail;
    t->ready = ret;
}

gd_time_ps gd_host_completed(gd_host *h, const gd_kernel_run *r, gd_time_ps now)
{
    h->done_q[r->trace_queue]++;
    if (r->signal != GD_NO_SIGNAL && r->signal < h->nsig)
        h->done_sig[r->signal]++;
    gd_time_ps first = GD_TIME_NEVER;
    if (!h->nwaiting)
        return first;
    for (uint32_t i = 0; i < h->nthreads; i++) {
        gd_host_thread *t = &h->t[i];
        if (!t->waiting || !conds_met(h, t))
            continue;
        wait_over(h, t, now, r->end);
        h->nwaiting--;
        const gd_time_ps at = t->ready > now ? t->ready : now;
        if (at < first)
            first = at;
    }
    return first;
}

/* The thread's path to an item issued at now: its gap, then held back until now. */
static void issue_path(gd_host_thread *t, const gd_host_item *it, gd_time_ps now)
{
    gd_path_extend(&t->path, t->ready + it->gap, GD_PATH_HOST_CPU);
    gd_path_extend(&t->path, now, GD_PATH_HELD);
}

const gd_path *gd_host_issue_path(gd_host *h, uint32_t thread, gd_time_ps now)
{
    gd_host_thread *t = &h->t[thread];
    issue_path(t, &t->q[t->head], now);
    return &t->path;
}

void gd_host_call_done(gd_host *h, uint32_t thread, gd_time_ps now)
{
    gd_host_thread *t = &h->t[thread];
    issue_path(t, &t->q[t->head], now);
    t->cpu_ps += t->q[t->head].gap;
    h->cpu_ps += t->q[t->head].gap;
    t->calls++;
    h->calls++;
    t->ready = now;
    pop(t);
}

static int add_cond(gd_host_thread *t, uint32_t what, uint64_t count)
{
    if (t->nconds == t->capconds) {
        uint32_t cap = t->capconds ? 2 * t->capconds : 4;
        gd_host_cond *c = realloc(t->conds, cap * sizeof *c);
        if (!c)
            return -1;
        t->conds = c;
        t->capconds = cap;
    }
    t->conds[t->nconds].what = what;
    t->conds[t->nconds].count = count;
    t->nconds++;
    return 0;
}

int gd_host_begin_wait(gd_host *h, uint32_t thread, gd_time_ps now)
{
    gd_host_thread *t = &h->t[thread];
    gd_host_item it = t->q[t->head];
    issue_path(t, &it, now);
    pop(t);
    t->cpu_ps += it.gap;
    h->cpu_ps += it.gap;
    t->waits++;
    h->waits++;
    t->nconds = 0;
    int rc = 0;
    if (it.kind == GD_WAIT_SIGNAL) {
        if (it.target < h->nsig && h->done_sig[it.target] < h->sub_sig[it.target])
            rc = add_cond(t, GD_HOST_SIGNAL_BIT | it.target, h->sub_sig[it.target]);
    } else if (it.kind == GD_WAIT_QUEUE) {
        if (h->done_q[it.target] < h->sub_q[it.target])
            rc = add_cond(t, it.target, h->sub_q[it.target]);
    } else {  /* the device: every queue with work outstanding */
        for (uint32_t q = 0; q < GD_TRACE_MAX_QUEUES && !rc; q++)
            if (h->done_q[q] < h->sub_q[q])
                rc = add_cond(t, q, h->sub_q[q]);
    }
    if (rc)
        return -1;
    t->wait_began = now;
    t->wait_tail = it.tail;
    t->wait_kind = it.kind;
    t->wait_target = it.target;
    if (!t->nconds) {
        wait_over(h, t, now, now);
        return 1;
    }
    t->waiting = 1;
    h->nwaiting++;
    return 0;
}

int gd_host_done(const gd_host *h)
{
    if (!h->eof || h->open_thread != UINT32_MAX)
        return 0;  /* (the end record must be read: it checks the trace) */
    for (uint32_t i = 0; i < h->nthreads; i++)
        if (h->t[i].len)
            return 0;
    return 1;
}

int gd_host_all_ended(const gd_host *h)
{
    for (uint32_t i = 0; i < h->nthreads; i++)
        if (h->t[i].declared && !h->t[i].ended)
            return 0;
    return h->open_thread == UINT32_MAX;
}
