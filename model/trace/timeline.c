#include "timeline.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "gdsim.h"
#include "stats.h"

enum { PID_QUEUES = 1, PID_QUEUED = 2, PID_GPCS = 3, PID_MEASURED = 4, PID_COUNTERS = 5 };
#define LANE_BITS 12u  /* tid = track << LANE_BITS | lane */

static const char *const PROCESS_NAMES[] = {"", "hardware queues (replayed)", "queued packets (replayed)",
                                            "kernels per GPC (replayed)", "hardware queues (measured)", "counters"};

/* A time as microseconds with six decimals: base_ns + ps. */
static void put_us(FILE *f, uint64_t base_ns, gd_time_ps ps)
{
    uint64_t ns = base_ns + ps / 1000u;
    fprintf(f, "%" PRIu64 ".%03u%03u", ns / 1000u, (unsigned)(ns % 1000u), (unsigned)(ps % 1000u));
}

static void begin_event(gd_timeline *tl)
{
    fputs(tl->first ? "\n" : ",\n", tl->f);
    tl->first = 0;
    tl->events++;
}

static void meta(gd_timeline *tl, const char *what, int pid, uint32_t tid, const char *name, int sort)
{
    begin_event(tl);
    fprintf(tl->f, "{\"ph\": \"M\", \"name\": \"%s\", \"pid\": %d, \"tid\": %" PRIu32 ", \"args\": {\"name\": ", what,
            pid, tid);
    gd_json_str(tl->f, name);
    fputs("}}", tl->f);
    begin_event(tl);
    fprintf(tl->f, "{\"ph\": \"M\", \"name\": \"%s_sort_index\", \"pid\": %d, \"tid\": %" PRIu32
                   ", \"args\": {\"sort_index\": %d}}",
            strcmp(what, "process_name") == 0 ? "process" : "thread", pid, tid, sort);
}

int gd_timeline_open(gd_timeline *tl, FILE *f, uint32_t ngpc, int absolute)
{
    memset(tl, 0, sizeof *tl);
    tl->f = f;
    tl->ngpc = ngpc;
    tl->absolute = absolute;
    tl->first = 1;
    tl->gpc_lanes = calloc(ngpc ? ngpc : 1, sizeof *tl->gpc_lanes);
    if (!tl->gpc_lanes) {
        tl->nomem = 1;
        return GD_ENOMEM;
    }
    fputs("{\"displayTimeUnit\": \"ns\", \"otherData\": {\"producer\": \"gdsim " GD_VERSION_STRING "\"}, "
          "\"traceEvents\": [",
          f);
    for (int p = PID_QUEUES; p <= PID_COUNTERS; p++)
        meta(tl, "process_name", p, 0, PROCESS_NAMES[p], p);
    return ferror(f) ? GD_EIO : GD_OK;
}

void gd_timeline_set_origin(gd_timeline *tl, uint64_t origin_ns, uint64_t base_ns)
{
    tl->origin_ns = origin_ns;
    tl->base_ns = base_ns;
}

/* Lanes of track `track` in *arr (grown to hold it): the first lane free at start
 * takes [start, end); a new lane is named. Returns the tid. */
static uint32_t lane_for(gd_timeline *tl, gd_lanes **arr, uint32_t *n, uint32_t track, gd_time_ps start,
                         gd_time_ps end, int pid, const char *what)
{
    if (track >= *n) {
        uint32_t m = track + 1 > 2 * *n ? track + 1 : 2 * *n;
        gd_lanes *a = realloc(*arr, m * sizeof *a);
        if (!a) {
            tl->nomem = 1;
            return 0;
        }
        memset(a + *n, 0, (m - *n) * sizeof *a);
        *arr = a;
        *n = m;
    }
    gd_lanes *l = &(*arr)[track];
    uint32_t i = 0;
    while (i < l->n && l->end[i] > start)
        i++;
    if (i == l->n && i == (1u << LANE_BITS) - 1)  /* lanes enough: the last one takes the overlap */
        i = l->n - 1;
    if (i == l->n) {
        if (l->n == l->cap) {
            uint32_t c = l->cap ? 2 * l->cap : 4;
            gd_time_ps *e = realloc(l->end, c * sizeof *e);
            if (!e) {
                tl->nomem = 1;
                return 0;
            }
            l->end = e;
            l->cap = c;
        }
        l->n++;
        char name[64];
        if (i == 0)
            snprintf(name, sizeof name, "%s %" PRIu32, what, track);
        else
            snprintf(name, sizeof name, "%s %" PRIu32 " (%" PRIu32 ")", what, track, i + 1);
        meta(tl, "thread_name", pid, track << LANE_BITS | i, name, (int)(track << LANE_BITS | i));
    }
    l->end[i] = end;
    return track << LANE_BITS | i;
}

static void slice(gd_timeline *tl, int pid, uint32_t tid, const char *name, uint64_t base_ns, gd_time_ps start,
                  gd_time_ps end, const gd_kernel_run *k, uint64_t ctas)
{
    begin_event(tl);
    fprintf(tl->f, "{\"ph\": \"X\", \"pid\": %d, \"tid\": %" PRIu32 ", \"ts\": ", pid, tid);
    put_us(tl->f, base_ns, start);
    fputs(", \"dur\": ", tl->f);
    put_us(tl->f, 0, end - start);
    fputs(", \"name\": ", tl->f);
    gd_json_str(tl->f, name);
    if (k) {
        fprintf(tl->f, ", \"args\": {\"kernel_index\": %" PRIu64, k->index);
        if (ctas)
            fprintf(tl->f, ", \"ctas\": %" PRIu64, ctas);
        fputc('}', tl->f);
    }
    fputc('}', tl->f);
}

static void counter(gd_timeline *tl, const char *name, gd_time_ps t, double v)
{
    begin_event(tl);
    fprintf(tl->f, "{\"ph\": \"C\", \"pid\": %d, \"tid\": 0, \"ts\": ", PID_COUNTERS);
    put_us(tl->f, tl->base_ns, t);
    fputs(", \"name\": ", tl->f);
    gd_json_str(tl->f, name);
    fprintf(tl->f, ", \"args\": {\"value\": %.4f}}", v);
}

/* Queue q's depth at each fetch up to t (all of them when t is UINT64_MAX). */
static void fetches_until(gd_timeline *tl, uint32_t q, gd_time_ps t)
{
    gd_fetch_q *fq = &tl->fetch[q];
    char name[48];
    snprintf(name, sizeof name, "queue %" PRIu32 " depth", q);
    while (fq->n && fq->t[fq->head] <= t) {
        gd_time_ps at = fq->t[fq->head];
        fq->head = (fq->head + 1) % fq->cap;
        fq->n--;
        fq->depth--;
        counter(tl, name, at, (double)fq->depth);
    }
}

static void queue_depth(gd_timeline *tl, uint32_t q, gd_time_ps submit, gd_time_ps fetched)
{
    if (q >= tl->nfetch) {
        uint32_t m = q + 1 > 2 * tl->nfetch ? q + 1 : 2 * tl->nfetch;
        gd_fetch_q *a = realloc(tl->fetch, m * sizeof *a);
        if (!a) {
            tl->nomem = 1;
            return;
        }
        memset(a + tl->nfetch, 0, (m - tl->nfetch) * sizeof *a);
        tl->fetch = a;
        tl->nfetch = m;
    }
    fetches_until(tl, q, submit);
    gd_fetch_q *fq = &tl->fetch[q];
    if (fq->n == fq->cap) {  /* grow the ring, unrolled from its head */
        size_t c = fq->cap ? 2 * fq->cap : 16;
        gd_time_ps *t = malloc(c * sizeof *t);
        if (!t) {
            tl->nomem = 1;
            return;
        }
        for (size_t i = 0; i < fq->n; i++)
            t[i] = fq->t[(fq->head + i) % fq->cap];
        free(fq->t);
        fq->t = t;
        fq->head = 0;
        fq->cap = c;
    }
    fq->t[(fq->head + fq->n++) % fq->cap] = fetched;
    fq->depth++;
    char name[48];
    snprintf(name, sizeof name, "queue %" PRIu32 " depth", q);
    counter(tl, name, submit, (double)fq->depth);
}

void gd_timeline_kernel(gd_timeline *tl, const gd_kernel_run *k)
{
    if (tl->nomem)
        return;
    const char *name = k->desc && k->desc->name ? k->desc->name : "packet";
    gd_time_ps done = k->completion > k->end ? k->completion : k->end;
    gd_time_ps head = k->fetched >= k->submit && k->fetched <= done ? k->fetched : k->submit;
    /* the wait in the queue, on the queued packets' tracks (many wait at once when the
     * host runs ahead); the packet from its fetch on, on its queue's track */
    if (head > k->submit) {
        uint32_t wt = lane_for(tl, &tl->wait_lanes, &tl->nwait, k->queue, k->submit, head, PID_QUEUED, "queue");
        if (tl->nomem)
            return;
        slice(tl, PID_QUEUED, wt, name, tl->base_ns, k->submit, head, k, 0);
    }
    uint32_t tid = lane_for(tl, &tl->queue_lanes, &tl->nqueue, k->queue, head, done, PID_QUEUES, "queue");
    if (tl->nomem)
        return;
    slice(tl, PID_QUEUES, tid, name, tl->base_ns, head, done, k, k->ctas);
    const struct {
        const char *name;
        gd_time_ps a, b;
    } st[] = {{"decode", k->fetched, k->decoded},       {"waiting for dependencies", k->decoded, k->ready},
              {"launching", k->ready, k->first_cta}, {"running", k->first_cta, k->end},
              {"completion", k->end, k->completion}};
    for (size_t i = 0; i < sizeof st / sizeof st[0]; i++)
        if (st[i].b > st[i].a && st[i].a >= head && st[i].b <= done)
            slice(tl, PID_QUEUES, tid, st[i].name, tl->base_ns, st[i].a, st[i].b, NULL, 0);
    if (k->measured_start_ns != GD_UNKNOWN && k->measured_dur_ns != GD_UNKNOWN &&
        k->measured_start_ns >= tl->origin_ns && k->measured_dur_ns < UINT64_MAX / 2000u) {
        /* the capture's times, in the same time base as the replayed ones */
        gd_time_ps ms = (k->measured_start_ns - tl->origin_ns) * GD_PS_PER_NS;
        gd_time_ps me = ms + k->measured_dur_ns * GD_PS_PER_NS;
        uint32_t mt = lane_for(tl, &tl->measured_lanes, &tl->nmeasured, k->trace_queue, ms, me, PID_MEASURED,
                               "trace queue");
        if (!tl->nomem)
            slice(tl, PID_MEASURED, mt, name, tl->base_ns, ms, me, k, k->ctas);
    }
    queue_depth(tl, k->queue, k->submit, k->fetched);
}

void gd_timeline_gpc(gd_timeline *tl, const gd_kernel_run *k, uint32_t gpc, uint64_t ctas, gd_time_ps start,
                     gd_time_ps end)
{
    if (tl->nomem || gpc >= tl->ngpc)
        return;
    uint32_t n = tl->ngpc;
    uint32_t tid = lane_for(tl, &tl->gpc_lanes, &n, gpc, start, end, PID_GPCS, "GPC");
    if (!tl->nomem)
        slice(tl, PID_GPCS, tid, k->desc && k->desc->name ? k->desc->name : "kernel", tl->base_ns, start, end, k,
              ctas);
}

void gd_timeline_warps(gd_timeline *tl, gd_time_ps start, const double *gpc)
{
    if (tl->nomem)
        return;
    char name[48];
    for (uint32_t g = 0; g < tl->ngpc; g++) {
        snprintf(name, sizeof name, "GPC %" PRIu32 " resident warps", g);
        counter(tl, name, start, gpc[g]);
    }
}

int gd_timeline_close(gd_timeline *tl)
{
    for (uint32_t q = 0; q < tl->nfetch && !tl->nomem; q++)
        fetches_until(tl, q, UINT64_MAX);
    fputs("\n]}\n", tl->f);
    if (tl->nomem)
        return GD_ENOMEM;
    return ferror(tl->f) ? GD_EIO : GD_OK;
}

void gd_timeline_destroy(gd_timeline *tl)
{
    gd_lanes *sets[4] = {tl->queue_lanes, tl->gpc_lanes, tl->measured_lanes, tl->wait_lanes};
    uint32_t ns[4] = {tl->nqueue, tl->ngpc, tl->nmeasured, tl->nwait};
    for (int s = 0; s < 4; s++) {
        for (uint32_t i = 0; sets[s] && i < ns[s]; i++)
            free(sets[s][i].end);
        free(sets[s]);
    }
    for (uint32_t q = 0; q < tl->nfetch; q++)
        free(tl->fetch[q].t);
    free(tl->fetch);
    memset(tl, 0, sizeof *tl);
}
