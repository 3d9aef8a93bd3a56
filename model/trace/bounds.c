#include "bounds.h"

#include <stdlib.h>
#include <string.h>

void gd_path_start(gd_path *p, gd_time_ps t)
{
    memset(p, 0, sizeof *p);
    p->at = p->cat[GD_PATH_HOST_CPU] = p->host_floor = t;
}

void gd_path_extend(gd_path *p, gd_time_ps t, int cat)
{
    if (t <= p->at)
        return;
    gd_time_ps d = t - p->at;
    p->at = t;
    p->cat[cat] += d;
    if ((GD_PATH_HOST_MASK >> cat) & 1)
        p->host_floor += d;
    else
        p->gpu_floor += d;
}

void gd_path_join(gd_path *p, const gd_path *q)
{
    gd_time_ps hf = p->host_floor > q->host_floor ? p->host_floor : q->host_floor;
    gd_time_ps gf = p->gpu_floor > q->gpu_floor ? p->gpu_floor : q->gpu_floor;
    if (q->at > p->at)
        *p = *q;
    p->host_floor = hf;
    p->gpu_floor = gf;
}

int gd_bounds_init(gd_bounds *b)
{
    memset(b, 0, sizeof *b);
    b->qpath = calloc(GD_TRACE_MAX_QUEUES, sizeof *b->qpath);
    b->tqpath = calloc(GD_TRACE_MAX_QUEUES, sizeof *b->tqpath);
    if (!b->qpath || !b->tqpath) {
        gd_bounds_destroy(b);
        return -1;
    }
    return 0;
}

void gd_bounds_destroy(gd_bounds *b)
{
    free(b->qpath);
    free(b->tqpath);
    free(b->sigpath);
    free(b->ring);
    free(b->done);
    free(b->held);
    memset(b, 0, sizeof *b);
}

static int nomem(gd_bounds *b)
{
    b->nomem = 1;
    return -1;
}

int gd_bounds_submitted(gd_bounds *b, gd_kernel_run *r)
{
    const uint64_t first = b->head < b->swept_sub ? b->head : b->swept_sub;  /* the oldest entry still needed */
    if (b->next - first == b->cap) {  /* the ring is full: twice the size, in bseq order */
        uint64_t cap = b->cap ? 2 * b->cap : 256;
        gd_time_ps *ring = malloc(cap * sizeof *ring);
        uint8_t *done = malloc(cap);
        if (!ring || !done) {
            free(ring);
            free(done);
            return nomem(b);
        }
        for (uint64_t s = first; s < b->next; s++) {
            ring[s & (cap - 1)] = b->ring[s & (b->cap - 1)];
            done[s & (cap - 1)] = b->done[s & (b->cap - 1)];
        }
        free(b->ring);
        free(b->done);
        b->ring = ring;
        b->done = done;
        b->cap = cap;
    }
    r->bseq = b->next++;
    gd_time_ps t = r->submit;  /* (submits are in time order; kept so) */
    if (r->bseq && t < b->ring[(r->bseq - 1) & (b->cap - 1)])
        t = b->ring[(r->bseq - 1) & (b->cap - 1)];
    b->ring[r->bseq & (b->cap - 1)] = t;
    b->done[r->bseq & (b->cap - 1)] = 0;
    return 0;
}

static gd_path *sig_path(gd_bounds *b, uint32_t s)
{
    if (s >= b->nsig) {
        uint32_t n = b->nsig ? b->nsig : 16;
        while (n <= s)
            n *= 2;
        gd_path *p = realloc(b->sigpath, n * sizeof *p);
        if (!p)
            return NULL;
        memset(p + b->nsig, 0, (n - b->nsig) * sizeof *p);
        b->sigpath = p;
        b->nsig = n;
    }
    return &b->sigpath[s];
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

static void sweep_event(gd_bounds *b, gd_time_ps t, uint64_t key)
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

/* A completed packet's event into held, in time order (from the back: they come
 * nearly in order). */
static int hold(gd_bounds *b, gd_time_ps t, uint64_t key)
{
    if (b->held_first + b->held_n == b->held_cap) {
        if (b->held_first && b->held_first >= b->held_n) {  /* half or more already out: move the rest down */
            memmove(b->held, b->held + b->held_first, b->held_n * sizeof *b->held);
            b->held_first = 0;
        } else {
            uint64_t cap = b->held_cap ? 2 * b->held_cap : 256;
            gd_heap_entry *e = realloc(b->held, cap * sizeof *e);
            if (!e)
                return -1;
            b->held = e;
            b->held_cap = cap;
        }
    }
    gd_heap_entry *e = b->held + b->held_first;
    uint64_t i = b->held_n++;
    while (i && e[i - 1].time > t) {
        e[i] = e[i - 1];
        i--;
    }
    e[i].time = t;
    e[i].key = key;
    return 0;
}

/* Account the submit events and held events up to t, in time order (a submit first
 * on a tie). */
static void sweep_to(gd_bounds *b, gd_time_ps t)
{
    for (;;) {
        const gd_time_ps ts = b->swept_sub < b->next ? b->ring[b->swept_sub & (b->cap - 1)] : GD_TIME_NEVER;
        const gd_time_ps th = b->held_n ? b->held[b->held_first].time : GD_TIME_NEVER;
        if (ts <= th && ts <= t) {
            sweep_event(b, ts, EV_SUBMIT << 1);
            b->swept_sub++;
        } else if (th < ts && th <= t) {
            sweep_event(b, th, b->held[b->held_first].key);
            b->held_first++;
            b->held_n--;
        } else {
            return;
        }
    }
}

/* A completed packet's stages after its submit: held, then accounted up to the
 * submit of the oldest packet still in flight (none of its events can come earlier). */
static int sweep_packet(gd_bounds *b, const gd_kernel_run *r, gd_time_ps met)
{
    const uint64_t copy = r->kind == GD_PKT_COMMAND;
    const gd_time_ps t[4] = {met, r->first_cta, r->end, r->completion};
    for (int i = 0; i < 4; i++)
        if (hold(b, t[i], (uint64_t)(EV_MET + i) << 1 | copy))
            return nomem(b);
    b->done[r->bseq & (b->cap - 1)] = 1;
    while (b->head < b->next && b->done[b->head & (b->cap - 1)])
        b->head++;
    const gd_time_ps oldest = b->head < b->next ? b->ring[b->head & (b->cap - 1)] : GD_TIME_NEVER;
    sweep_to(b, oldest < r->completion ? oldest : r->completion);
    return 0;
}

/* ---- the critical path ---- */

/* When a packet's dependencies were met, its path to then joined into *p. */
static gd_time_ps dependencies(const gd_bounds *b, const gd_kernel_run *r, gd_path *p)
{
    *p = r->path;
    const gd_time_ps ready = r->ready > r->submit ? r->ready : r->submit;
    if (r->barrier && r->queue < GD_TRACE_MAX_QUEUES && b->qpath[r->queue].at <= ready)
        gd_path_join(p, &b->qpath[r->queue]);
    for (uint32_t i = 0; i < r->ndeps; i++)
        if (r->dep[i] < b->nsig && b->sigpath[r->dep[i]].at <= ready)
            gd_path_join(p, &b->sigpath[r->dep[i]]);
    return p->at;
}

int gd_bounds_completed(gd_bounds *b, const gd_kernel_run *r, gd_path *out)
{
    gd_path p;
    gd_time_ps met = dependencies(b, r, &p);
    if (r->kind == GD_PKT_KERNEL || r->kind == GD_PKT_PIPELINE) {
        gd_time_ps room = r->room_wait;
        if (r->first_cta > met && room > r->first_cta - met)
            room = r->first_cta - met;
        gd_path_extend(&p, r->first_cta - room, GD_PATH_FRONT_END);
        gd_path_extend(&p, r->first_cta, GD_PATH_SMS_FULL);
        gd_path_extend(&p, r->end, GD_PATH_KERNELS);
    } else {
        gd_path_extend(&p, r->first_cta, GD_PATH_FRONT_END);
        gd_path_extend(&p, r->end, GD_PATH_COPIES);
    }
    gd_path_extend(&p, r->completion, GD_PATH_FRONT_END);
    if (r->queue < GD_TRACE_MAX_QUEUES)
        gd_path_join(&b->qpath[r->queue], &p);
    if (r->trace_queue < GD_TRACE_MAX_QUEUES)
        gd_path_join(&b->tqpath[r->trace_queue], &p);
    if (r->signal != GD_NO_SIGNAL) {
        gd_path *s = sig_path(b, r->signal);
        if (!s)
            return nomem(b);
        gd_path_join(s, &p);
    }
    gd_path_join(&b->all, &p);
    if (!b->completed++ || p.at > b->end.at)
        b->end = p;
    if (out)
        *out = p;
    return sweep_packet(b, r, met < r->submit ? r->submit : met);
}

const gd_path *gd_bounds_awaited(const gd_bounds *b, int kind, uint32_t target)
{
    static const gd_path none;
    if (kind == GD_WAIT_SIGNAL)
        return target < b->nsig ? &b->sigpath[target] : &none;
    if (kind == GD_WAIT_QUEUE)
        return target < GD_TRACE_MAX_QUEUES ? &b->tqpath[target] : &none;
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
