/* timeline.h - the replay as a timeline (--timeline FILE): Chrome trace-event JSON,
 * which Perfetto UI and chrome://tracing open, written as the replay runs.
 *
 * Processes and their tracks (docs/MODEL.md, "Timeline"):
 *   1 "hardware queues (replayed)": a track per hardware queue; each packet one slice
 *     from its fetch to its completion, named after the kernel, holding its stages as
 *     child slices (decode, waiting for dependencies, launching, running,
 *     completion). Packets that overlap in time on one queue (no barrier bit) go to
 *     the queue's further lanes ("queue 2 (2)").
 *   2 "queued packets (replayed)": each packet's wait in its queue, submit to fetch,
 *     lanes per queue as above (many packets wait at once when the host runs ahead).
 *   3 "kernels per GPC (replayed)": a track per GPC; for each kernel one slice from
 *     its first CTA launched there to its last CTA's end there, with the CTA count
 *     (aggregated: no event per CTA), lanes as above.
 *   4 "hardware queues (measured)": the capture's own kernel times (a converted
 *     capture's measured start and duration), a track per trace queue.
 *   5 "counters": resident warps per GPC (the occupancy series' intervals) and each
 *     hardware queue's depth (packets submitted and not yet fetched).
 * Times are microseconds with six decimals (exact to the picosecond) in the outputs'
 * time base (from the first submit, or the trace's clock). Memory: a lane end per
 * lane, the fetch times of packets still queued. */
#ifndef GD_TIMELINE_H
#define GD_TIMELINE_H

#include <stdint.h>
#include <stdio.h>

#include "gd_util.h"
#include "packet.h"
#include "trace.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct gd_lanes {
    gd_time_ps *end;           /* each lane's last slice end */
    uint32_t n, cap;
} gd_lanes;

typedef struct gd_fetch_q {   /* a hardware queue's packets submitted and not yet fetched */
    gd_time_ps *t;
    size_t head, n, cap;
    uint64_t depth;
} gd_fetch_q;

typedef struct gd_timeline {
    FILE *f;
    uint64_t base_ns;          /* added to sim times (the outputs' time base) */
    uint64_t origin_ns;        /* the trace time of sim time 0 (for measured times) */
    int absolute;              /* measured times in the trace's clock */
    int first;                 /* no event written yet */
    uint32_t ngpc;
    gd_lanes *queue_lanes, *gpc_lanes, *measured_lanes, *wait_lanes;
    uint32_t nqueue, nmeasured, nwait;
    gd_fetch_q *fetch;         /* per hardware queue */
    uint32_t nfetch;
    uint64_t events;
    int nomem, io_error;
} gd_timeline;

int gd_timeline_open(gd_timeline *tl, FILE *f, uint32_t ngpc, int absolute);
/* The time bases, once the first submit is known. */
void gd_timeline_set_origin(gd_timeline *tl, uint64_t origin_ns, uint64_t base_ns);
/* A kernel's row: its packet slices, its measured slice, its queue's depth. */
void gd_timeline_kernel(gd_timeline *tl, const gd_kernel_run *k);
/* Kernel k's CTAs on GPC gpc: ctas of them from start (first launch) to end (last end). */
void gd_timeline_gpc(gd_timeline *tl, const gd_kernel_run *k, uint32_t gpc, uint64_t ctas, gd_time_ps start,
                     gd_time_ps end);
/* Resident warps per GPC averaged over [start, start + interval) (ngpc values). */
void gd_timeline_warps(gd_timeline *tl, gd_time_ps start, const double *gpc);
/* Closes the JSON (the queue depths' last changes first). GD_OK, GD_EIO, GD_ENOMEM. */
int gd_timeline_close(gd_timeline *tl);
void gd_timeline_destroy(gd_timeline *tl);

#ifdef __cplusplus
}
#endif

#endif
