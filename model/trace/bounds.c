#include "bounds.h"

#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

void gd_path_start(gd_path *p, gd_time_ps t)
{
    memset(p, 0, sizeof *p);
    p->at = p->cat[GD_PATH_HOST_CPU] = p->host_floor = t;
}

/* The tables by queue and by signal slot, in one zero-filled mapping of their own
 * (364 KiB): a replay faults in only the pages its queues and signals touch
 * (allocated and zeroed with calloc, every page was touched: about 100 page faults,
 * over a millisecond on a VM where one costs 10 us, for a replay of a few queues). */
static size_t tables_size(void)
{
    return 2 * GD_TRACE_MAX_QUEUES * sizeof(gd_path) + GD_BOUNDS_SIG_SLOTS * sizeof(gd_bounds_sig) +
           GD_TRACE_MAX_QUEUES * (sizeof(gd_bounds_queue) + sizeof(uint32_t));
}

int gd_bounds_init(gd_bounds *b)
{
    memset(b, 0, sizeof *b);
    void *m = mmap(NULL, tables_size(), PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (m == MAP_FAILED)
        return -1;
    b->tables = m;
    b->q = m;  /* (the largest alignment first) */
    b->qpath = b->tqpath = (gd_path *)(b->q + GD_TRACE_MAX_QUEUES);
    b->sig = (gd_bounds_sig *)(b->qpath + 2 * GD_TRACE_MAX_QUEUES);  /* (tqpath's room between) */
    b->active = (uint32_t *)(b->sig + GD_BOUNDS_SIG_SLOTS);
    return 0;
}

void gd_bounds_map_queues(gd_bounds *b) { b->tqpath = b->qpath + GD_TRACE_MAX_QUEUES; }

void gd_bounds_destroy(gd_bounds *b)
{
    for (uint32_t i = 0; b->q && i < b->nqueues; i++)  /* (the queues used: the others' pages untouched) */
        free(b->q[i].seq);
    free(b->early);
    if (b->tables)
        munmap(b->tables, tables_size());
    free(b->ring);
    free(b->done);
    free(b->issued);
    free(b->held);
    memset(b, 0, sizeof *b);
}

static int nomem(gd_bounds *b)
{
    b->nomem = 1;
    return -1;
}

/* A packet in flight joins its queue's list. */
static int queue_push(gd_bounds *b, const gd_kernel_run *r)
{
    if (r->queue >= GD_TRACE_MAX_QUEUES)
        return 0;
    gd_bounds_queue *q = &b->q[r->queue];
    if (r->queue >= b->nqueues)
        b->nqueues = r->queue + 1;
    if (q->len == q->cap) {
        uint32_t cap = q->cap ? 2 * q->cap : 16;
        uint64_t *seq = malloc(cap * sizeof *seq);
        if (!seq)
            return nomem(b);
        for (uint32_t i = 0; i < q->len; i++)
            seq[i] = q->seq[(q->head + i) % q->cap];
        free(q->seq);
        q->seq = seq;
        q->cap = cap;
        q->head = 0;
    }
    q->seq[(q->head + q->len++) % q->cap] = r->bseq;
    q->no_barrier += !r->barrier || r->programmatic;
    if (q->len == 1) {
        q->active = b->nactive;
        b->active[b->nactive++] = r->queue;
    }
    return 0;
}

/* Packet r completed (its path p): the completed packets at the front of its queue's
 * list leave it, their paths joining the queue's prefix; one completed behind a packet
 * still in flight waits among the early ones. 0, or -1 when out of memory. */
static int queue_done(gd_bounds *b, const gd_kernel_run *r, const gd_path *p)
{
    if (r->queue >= GD_TRACE_MAX_QUEUES)
        return 0;
    gd_bounds_queue *q = &b->q[r->queue];
    q->no_barrier -= !r->barrier || r->programmatic;
    if (q->seq[q->head] != r->bseq) {  /* an earlier one is in flight: kept until then */
        if (!b->early && !(b->early = malloc(b->cap * sizeof *b->early)))
            return nomem(b);
        b->early[r->bseq & (b->cap - 1)] = *p;
        return 0;
    }
    gd_path_join(&q->prefix, p);
    q->head = (q->head + 1) % q->cap;
    q->len--;
    while (q->len && (b->done[q->seq[q->head] & (b->cap - 1)] & 1)) {
        gd_path_join(&q->prefix, &b->early[q->seq[q->head] & (b->cap - 1)]);
        q->head = (q->head + 1) % q->cap;
        q->len--;
    }
    if (!q->len) {  /* it leaves the active queues (the last one takes its place) */
        uint32_t moved = b->active[--b->nactive];
        b->active[q->active] = moved;
        b->q[moved].active = q->active;
    }
    return 0;
}

/* The earliest time a packet in flight can still add an event at (no later than t):
 * its queue's oldest, no earlier than its submit and, when every packet of the queue
 * in flight has the barrier bit, than the completion of every packet before it. */
static gd_time_ps limit_of(const gd_bounds *b, gd_time_ps t)
{
    for (uint32_t i = 0; i < b->nactive; i++) {
        const gd_bounds_queue *q = &b->q[b->active[i]];
        const uint64_t s = q->seq[q->head];
        gd_time_ps lb = b->ring[s & (b->cap - 1)];
        if (!q->no_barrier && q->prefix.at > lb)
            lb = q->prefix.at;
        if (lb < t)
            t = lb;
    }
    return t;
}

/* The ring (by bseq) twice as large, from first. */
static int grow_ring(gd_bounds *b, uint64_t first)
{
    uint64_t cap = b->cap ? 2 * b->cap : 256;
    gd_time_ps *ring = malloc(cap * sizeof *ring);
    uint8_t *done = malloc(cap);
    gd_path *issued = b->issued ? malloc(cap * sizeof *issued) : NULL;
    gd_path *early = b->early ? malloc(cap * sizeof *early) : NULL;
    if (!ring || !done || (b->issued && !issued) || (b->early && !early)) {
        free(ring);
        free(done);
        free(issued);
        free(early);
        return nomem(b);
    }
    for (uint64_t s = first; s < b->next; s++) {
        ring[s & (cap - 1)] = b->ring[s & (b->cap - 1)];
        done[s & (cap - 1)] = b->done[s & (b->cap - 1)];
        if (issued)
            issued[s & (cap - 1)] = b->issued[s & (b->cap - 1)];
        if (early)
            early[s & (cap - 1)] = b->early[s & (b->cap - 1)];
    }
    free(b->ring);
    free(b->done);
    free(b->issued);
    free(b->early);
    b->ring = ring;
    b->done = done;
    b->issued = issued;
    b->early = early;
    b->cap = cap;
    return 0;
}

/* Before a submit that finds the ring full, or the first with its call's path: the ring
 * grown, or the calls' paths kept from then on. Out of line: the common submit then
 * saves no registers for it. */
static __attribute__((noinline)) int make_room(gd_bounds *b, uint64_t first, const gd_path *issued)
{
    if (b->next - first == b->cap && grow_ring(b, first))
        return -1;
    if (issued && !b->issued) {  /* the first call's (packets before it, none in a replay: their submits) */
        if (!(b->issued = malloc(b->cap * sizeof *b->issued)))
            return nomem(b);
        for (uint64_t s = first; s < b->next; s++)
            gd_path_start(&b->issued[s & (b->cap - 1)], b->ring[s & (b->cap - 1)]);
    }
    return 0;
}

int gd_bounds_submitted(gd_bounds *b, gd_kernel_run *r, const gd_path *issued)
{
    const uint64_t first = b->head < b->swept_sub ? b->head : b->swept_sub;  /* the oldest entry still needed */
    if ((b->next - first == b->cap || (issued && !b->issued)) && make_room(b, first, issued))
        return -1;
    r->bseq = b->next++;
    const uint64_t mask = b->cap - 1;
    gd_time_ps t = r->submit;  /* (submits are in time order; kept so) */
    if (r->bseq && t < b->ring[(r->bseq - 1) & mask])
        t = b->ring[(r->bseq - 1) & mask];
    b->ring[r->bseq & mask] = t;
    b->done[r->bseq & mask] = r->barrier ? 2 : 0;
    if (b->issued) {
        if (issued)
            b->issued[r->bseq & mask] = *issued;
        else
            gd_path_start(&b->issued[r->bseq & mask], r->host_at);
    }
    return queue_push(b, r);
}

/* Signal s's path, or NULL when no completion of it is kept. */
static const gd_path *sig_path(const gd_bounds *b, uint32_t s)
{
    const gd_bounds_sig *k = &b->sig[s & (GD_BOUNDS_SIG_SLOTS - 1)];
    return s != GD_NO_SIGNAL && k->signal == s + 1 ? &k->path : NULL;
}

/* ---- the sweep ---- */

/* The codes of a packet's events (bit 0 of the heap key: a copy's). */
enum { EV_SUBMIT = 0, EV_MET, EV_FIRST, EV_END, EV_DONE };

static int gpu_state(const gd_bounds *b)
{
    if (b->kernels)
        return GD_GPU_KERNELS;
    if (b->copies)
        return GD_GPU_COPIES;
    if (b->front)
        return GD_GPU_FRONT_END;
    return b->pending ? GD_GPU_DEPENDENCY : GD_GPU_NOTHING;
}

static inline void sweep_event(gd_bounds *b, gd_time_ps t, uint64_t key)
{
    if (t > b->swept) {
        b->gpu[gpu_state(b)] += t - b->swept;
        b->swept = t;
    }
    int64_t *running = (key & 1) ? &b->copies : &b->kernels;
    switch (key >> 1) {
    case EV_SUBMIT: b->pending++; break;
    case EV_MET: b->pending--; b->front++; break;
    case EV_FIRST: b->front--; (*running)++; break;
    case EV_END: (*running)--; b->front++; break;
    default: b->front--; break;
    }
}

/* A completed packet's n events (in time order) into held, kept in time order: merged
 * in from the back, where they mostly belong (they come nearly in order). */
static int hold(gd_bounds *b, const gd_time_ps *t, const uint64_t *key, int n)
{
    if (b->held_first + b->held_n + (uint64_t)n > b->held_cap) {
        if (b->held_first && b->held_first >= b->held_n) {  /* half or more already out: move the rest down */
            memmove(b->held, b->held + b->held_first, b->held_n * sizeof *b->held);
            b->held_first = 0;
        }
        if (b->held_n + (uint64_t)n > b->held_cap - b->held_first) {
            uint64_t cap = b->held_cap ? 2 * b->held_cap : 256;
            gd_heap_entry *e = realloc(b->held, cap * sizeof *e);
            if (!e)
                return -1;
            b->held = e;
            b->held_cap = cap;
        }
    }
    gd_heap_entry *e = b->held + b->held_first;
    uint64_t i = b->held_n;  /* the old ones not yet moved: e[0 .. i) */
    b->held_n += (uint64_t)n;
    for (int j = n - 1; j >= 0; j--) {  /* the new ones from the last: each old one moves once */
        while (i && e[i - 1].time > t[j]) {
            e[i + (uint64_t)j] = e[i - 1];
            i--;
        }
        e[i + (uint64_t)j].time = t[j];
        e[i + (uint64_t)j].key = key[j];
    }
    return 0;
}

/* Account the submit events and held events up to t, in time order (a submit first
 * on a tie). */
static void sweep_to(gd_bounds *b, gd_time_ps t)
{
    const uint64_t mask = b->cap - 1, next = b->next;
    uint64_t sub = b->swept_sub;
    const gd_heap_entry *h = b->held + b->held_first, *const hend = h + b->held_n;
    gd_time_ps ts = sub < next ? b->ring[sub & mask] : GD_TIME_NEVER;
    gd_time_ps th = h < hend ? h->time : GD_TIME_NEVER;
    for (;;) {
        if (ts <= th) {
            if (ts > t)
                break;
            sweep_event(b, ts, EV_SUBMIT << 1);
            ts = ++sub < next ? b->ring[sub & mask] : GD_TIME_NEVER;
        } else {
            if (th > t)
                break;
            sweep_event(b, th, h->key);
            th = ++h < hend ? h->time : GD_TIME_NEVER;
        }
    }
    b->swept_sub = sub;
    b->held_n -= (uint64_t)(h - (b->held + b->held_first));
    b->held_first = (uint64_t)(h - b->held);
}

/* A completed packet's stages after its submit: held, then accounted up to the
 * submit of the oldest packet still in flight (none of its events can come earlier). */
static int sweep_packet(gd_bounds *b, const gd_kernel_run *r, gd_time_ps met)
{
    const uint64_t copy = r->kind == GD_PKT_COMMAND;
    gd_time_ps t[4] = {met, r->first_cta, r->end, r->completion};
    for (int i = 1; i < 4; i++)  /* (in order: a stage that ends before the previous one counts as 0 long) */
        if (t[i] < t[i - 1])
            t[i] = t[i - 1];
    const uint64_t key[4] = {EV_MET << 1 | copy, EV_FIRST << 1 | copy, EV_END << 1 | copy, EV_DONE << 1 | copy};
    if (hold(b, t, key, 4))
        return nomem(b);
    while (b->head < b->next && (b->done[b->head & (b->cap - 1)] & 1))
        b->head++;
    sweep_to(b, limit_of(b, r->completion));
    return 0;
}

/* ---- the critical path ---- */

/* When a packet's dependencies were met, its path to then joined into *p (the path of
 * its submitting call, or its captured submit time). */
static gd_time_ps dependencies(const gd_bounds *b, const gd_kernel_run *r, gd_path *p)
{
    gd_path_extend(p, r->submit, GD_PATH_HELD);  /* held back until its queue took it */
    const gd_time_ps ready = r->ready > r->submit ? r->ready : r->submit;
    if (r->barrier && r->queue < GD_TRACE_MAX_QUEUES)  /* every earlier packet of its queue */
        gd_path_join(p, &b->q[r->queue].prefix);
    for (uint32_t i = 0; i < r->ndeps; i++) {
        const gd_path *d = sig_path(b, r->dep[i]);
        if (d && d->at <= ready)
            gd_path_join(p, d);
    }
    return p->at;
}

int gd_bounds_completed(gd_bounds *b, const gd_kernel_run *r, gd_path *out)
{
    /* Closed loop, the path goes on from its call's where that is kept (no copy: the
       slot is not read again); open loop, from its captured submit time. */
    gd_path own, *const p = b->issued ? &b->issued[r->bseq & (b->cap - 1)] : &own;
    if (!b->issued)
        gd_path_start(p, r->host_at);
    gd_time_ps met = dependencies(b, r, p);
    if (r->kind == GD_PKT_KERNEL || r->kind == GD_PKT_PIPELINE) {
        gd_time_ps room = r->room_wait;
        if (r->first_cta > met && room > r->first_cta - met)
            room = r->first_cta - met;
        gd_path_extend(p, r->first_cta - room, GD_PATH_FRONT_END);
        gd_path_extend(p, r->first_cta, GD_PATH_SMS_FULL);
        gd_path_extend(p, r->end, GD_PATH_KERNELS);
    } else {
        gd_path_extend(p, r->first_cta, GD_PATH_FRONT_END);
        gd_path_extend(p, r->end, GD_PATH_COPIES);
    }
    gd_path_extend(p, r->completion, GD_PATH_FRONT_END);
    if (b->host_waits) {  /* what a host's queue wait waits for (a device wait's is end's: gd_bounds_awaited) */
        if (r->queue < GD_TRACE_MAX_QUEUES)
            gd_path_join(&b->qpath[r->queue], p);
        if (b->tqpath != b->qpath && r->trace_queue < GD_TRACE_MAX_QUEUES)
            gd_path_join(&b->tqpath[r->trace_queue], p);
    }
    if (p->host_floor > b->host_floor)
        b->host_floor = p->host_floor;
    if (p->gpu_floor > b->gpu_floor)
        b->gpu_floor = p->gpu_floor;
    if (r->signal != GD_NO_SIGNAL) {
        gd_bounds_sig *k = &b->sig[r->signal & (GD_BOUNDS_SIG_SLOTS - 1)];
        if (k->signal != r->signal + 1) {  /* (a signal that shared the slot gives it up) */
            k->signal = r->signal + 1;
            k->path = *p;
        } else {
            gd_path_join(&k->path, p);
        }
    }
    if (!b->completed++ || p->at > b->end.at)
        b->end = *p;
    if (out)
        *out = *p;
    b->done[r->bseq & (b->cap - 1)] |= 1;
    if (queue_done(b, r, p))
        return -1;
    return sweep_packet(b, r, met < r->submit ? r->submit : met);
}

const gd_path *gd_bounds_awaited(gd_bounds *b, int kind, uint32_t target)
{
    static const gd_path none;
    if (kind == GD_WAIT_SIGNAL) {
        const gd_path *p = sig_path(b, target);
        return p ? p : &none;
    }
    if (kind == GD_WAIT_QUEUE)
        return target < GD_TRACE_MAX_QUEUES ? &b->tqpath[target] : &none;
    /* Every completed packet's path joined: the latest (the first on a tie), end, with
       the largest floors, the run's (kept so rather than joined at each completion). */
    b->all = b->end;
    b->all.host_floor = b->host_floor;
    b->all.gpu_floor = b->gpu_floor;
    return &b->all;
}

/* ---- what the report says ---- */

int gd_bounds_verdict(const gd_path *end, gd_time_ps *share)
{
    share[GD_BOUND_HOST] = end->cat[GD_PATH_HOST_CPU] + end->cat[GD_PATH_HOST_SYNC];
    share[GD_BOUND_FRONT_END] = end->cat[GD_PATH_FRONT_END];
    share[GD_BOUND_GPU] = end->cat[GD_PATH_HELD] + end->cat[GD_PATH_SMS_FULL] + end->cat[GD_PATH_KERNELS] +
                          end->cat[GD_PATH_COPIES];
    int v = GD_BOUND_HOST;
    for (int i = 1; i < 3; i++)
        if (share[i] > share[v])
            v = i;
    return v;
}

const char *gd_bound_name(int verdict)
{
    static const char *const n[] = {"host", "front-end", "GPU"};
    return verdict >= 0 && verdict < 3 ? n[verdict] : "?";
}

const char *gd_path_cat_name(int cat)
{
    static const char *const n[GD_PATH_CATS] = {"host CPU", "host sync returns", "host held back",
                                                "front end", "waiting for SMs", "kernels", "copies"};
    return cat >= 0 && cat < GD_PATH_CATS ? n[cat] : "?";
}

const char *gd_path_cat_key(int cat)
{
    static const char *const n[GD_PATH_CATS] = {"host_cpu", "host_sync", "held", "front_end", "sms_full",
                                                "kernels", "copies"};
    return cat >= 0 && cat < GD_PATH_CATS ? n[cat] : "?";
}

const char *gd_gpu_state_key(int state)
{
    static const char *const n[GD_GPU_STATES] = {"busy_kernels", "busy_copies", "idle_front_end",
                                                 "idle_dependency", "idle_nothing_submitted"};
    return state >= 0 && state < GD_GPU_STATES ? n[state] : "?";
}
