/* pp.h - packet processor decisions, pure C: hardware queues of AQL packets, the
 * HSA barrier bit, decoder arbitration; and the per-kernel record (gd_kernel_run)
 * that travels with a dispatch through the model and becomes a CSV row. */
#ifndef GD_PP_H
#define GD_PP_H

#include <stdint.h>

#include "gd_util.h"
#include "trace.h"

#ifdef __cplusplus
extern "C" {
#endif

/* One kernel dispatch on its way through the model; times in ps since the trace origin. */
typedef struct gd_kernel_run {
    uint64_t index;             /* kernel_index: position among the trace's dispatches */
    uint64_t record;            /* trace record index of the dispatch */
    uint32_t queue;
    int barrier;                /* AQL header barrier bit */
    uint64_t completion_signal;
    const gd_kernel_desc *desc;
    uint32_t grid[3];           /* CTAs per dimension */
    uint64_t ctas;
    gd_time_ps cta_ps;          /* each CTA runs this long */
    uint64_t source_id;         /* GD_UNKNOWN fields: not known */
    uint64_t measured_start_ns, measured_dur_ns;
    gd_time_ps submit, fetched, decoded, ready, dispatched;
    gd_time_ps first_cta, last_cta, end, completion;
    uint64_t ctas_launched;
    uint64_t warp_ps;           /* sum over CTAs of warps x residency (ps) */
    struct gd_kernel_run *next_free;
} gd_kernel_run;

/* A pool of runs, allocated in blocks and recycled through a free list, so memory
 * is bounded by the kernels in flight and everything is freed at once at the end
 * (also when a replay stops on an error with kernels still in flight). */
typedef struct gd_run_block gd_run_block;
typedef struct gd_run_pool {
    gd_kernel_run *free;
    gd_run_block *blocks;
    uint64_t live, peak;
} gd_run_pool;

gd_kernel_run *gd_run_alloc(gd_run_pool *p);
void gd_run_release(gd_run_pool *p, gd_kernel_run *r);
void gd_run_pool_destroy(gd_run_pool *p);

/* State of the packet at the head of a queue. */
enum gd_pq_state {
    GD_PQ_IDLE = 0,   /* nothing started (or queue empty) */
    GD_PQ_FETCHING,   /* fetch in progress */
    GD_PQ_FETCHED,    /* waiting for the decoder */
    GD_PQ_DECODING,   /* in the decoder */
    GD_PQ_DECODED     /* waiting for its barrier or for room in the distributor */
};

typedef struct gd_pp_queue {
    gd_kernel_run **ring;
    uint32_t cap, head, count;
    uint32_t limit;        /* pp.queue_packets */
    int state;             /* enum gd_pq_state, for the head packet */
    uint32_t outstanding;  /* dispatched kernels not yet completed */
    int space_waiter;      /* a submit found this queue full */
    int used;
} gd_pp_queue;

void gd_pp_queue_init(gd_pp_queue *q, uint32_t limit);
void gd_pp_queue_destroy(gd_pp_queue *q);
/* 0: queued; 1: queue full; -1: out of memory. */
int gd_pp_queue_push(gd_pp_queue *q, gd_kernel_run *r);
static inline gd_kernel_run *gd_pp_queue_head(const gd_pp_queue *q) { return q->count ? q->ring[q->head] : 0; }
void gd_pp_queue_pop(gd_pp_queue *q);

/* May the head packet be dispatched? With the barrier bit set it waits until
 * every earlier packet of its queue has completed (HSA barrier bit). */
static inline int gd_pp_deps_ready(const gd_pp_queue *q, const gd_kernel_run *head)
{
    return !head->barrier || q->outstanding == 0;
}

/* May the head packet go to the distributor now: decoded and its barrier satisfied? */
static inline int gd_pp_can_dispatch(const gd_pp_queue *q)
{
    return q->count && q->state == GD_PQ_DECODED && gd_pp_deps_ready(q, q->ring[q->head]);
}

/* Round-robin over the queues ids[0..n): the first position k (0 <= k < n, counted
 * from position start) whose queue's head packet is in `state`; UINT32_MAX if none.
 * The shared decoder takes the next fetched packet this way. */
uint32_t gd_pp_pick(const gd_pp_queue *qs, const uint32_t *ids, uint32_t n, uint32_t start, int state);

#ifdef __cplusplus
}
#endif

#endif
