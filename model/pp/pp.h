/* pp.h - packet processor decisions, pure C: hardware queues of packets, the HSA
 * barrier bit, barrier-AND/-OR dependencies on completion signals, decoder
 * arbitration. The packets themselves are trace/packet.h's gd_kernel_run. */
#ifndef GD_PP_H
#define GD_PP_H

#include <stdint.h>

#include "gap.h"
#include "gd_util.h"
#include "packet.h"

#ifdef __cplusplus
extern "C" {
#endif

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
    uint32_t packets;      /* packets in the ring: a condensed packet's kernels count once */
    uint32_t held;         /* packets taken from the ring that still hold their queue slot (in the
                              command scheduler's physical queue) */
    int state;             /* enum gd_pq_state, for the head packet */
    uint32_t outstanding;  /* packets taken from the queue and not yet completed */
    uint32_t outstanding_kernels;  /* of those, kernel dispatches */
    uint8_t programmatic_early;    /* a programmatic dependent launch may leave before its primary completes
                                      (not under the command scheduler's policies) */
    uint32_t barriers_pending;  /* barrier packets taken from the queue and not completed: nothing launches meanwhile */
    uint32_t barriers_resolved; /* of those, resolved and completing */
    struct gd_kernel_run *bar_head, *bar_tail;  /* taken, not yet resolved, oldest first */
    int space_waiter;      /* a submit found this queue full */
    uint64_t pushed, popped;  /* entries written into the ring and read from it, ever (the AQL write and read indices) */
    int used;
    /* the launch-gap model (gap.h): the packet of this queue that completed last */
    uint8_t last_kind;     /* enum gd_gap_kind */
    uint8_t have_last;
    gd_time_ps last_done;  /* when its completion was signalled */
} gd_pp_queue;

void gd_pp_queue_init(gd_pp_queue *q, uint32_t limit);
void gd_pp_queue_destroy(gd_pp_queue *q);
/* 0: queued; 1: queue full (packets + held reach the limit); -1: out of memory. The
 * kernels after the first of a condensed packet (in_packet > 0) go in with it: they
 * never find the queue full. */
int gd_pp_queue_push(gd_pp_queue *q, gd_kernel_run *r);
static inline gd_kernel_run *gd_pp_queue_head(const gd_pp_queue *q) { return q->count ? q->ring[q->head] : 0; }
void gd_pp_queue_pop(gd_pp_queue *q);

/* May the head packet be dispatched? With the barrier bit set it waits until
 * every earlier packet of its queue has completed (HSA barrier bit); no packet
 * launches while a barrier packet before it has not completed (HSA 2.9.6). A
 * programmatic dependent launch (CUDA's) waits only until every earlier packet still
 * outstanding is a kernel: the distributor launches kernels in arrival order, so its
 * CTAs follow its primary's, and it holds them until the primary's end less
 * pp.gap_programmatic_lead_ns (docs/MODEL.md, 'Programmatic dependent launch'). */
static inline int gd_pp_deps_ready(const gd_pp_queue *q, const gd_kernel_run *head)
{
    if ((!head->barrier || q->outstanding == 0) && q->barriers_pending == 0)
        return 1;
    return head->programmatic && q->programmatic_early && !q->barriers_pending &&
           q->outstanding == q->outstanding_kernels;
}

/* Are a barrier packet's dependencies satisfied, given the current value of every
 * completion signal (values[n]: packets carrying signal n submitted and not yet
 * completed)? Barrier-AND: every dependency is 0 (no dependency: satisfied);
 * barrier-OR: at least one is 0. Null dep_signal entries are not in dep[]: HSA
 * counts them satisfied for AND and never satisfied for OR. */
int gd_pp_barrier_satisfied(const gd_kernel_run *b, const uint32_t *values);

/* A decoded barrier packet leaves the head of its queue (so the packets behind it
 * are fetched and decoded meanwhile) and waits in the queue's barrier list; the
 * packets behind it do not launch until it completes. */
void gd_pp_barrier_park(gd_pp_queue *q, gd_kernel_run *b);

/* The oldest waiting barrier packet of q if it may resolve now, else NULL: no
 * earlier barrier is still completing, its barrier bit (if set) finds every
 * earlier packet of the queue completed, and its dependencies are satisfied. The
 * caller completes it after pp.barrier_cycles (gd_pp_barrier_resolved). */
gd_kernel_run *gd_pp_barrier_ready(const gd_pp_queue *q, const uint32_t *values);
void gd_pp_barrier_resolved(gd_pp_queue *q);
/* A resolved barrier packet completed. */
void gd_pp_barrier_completed(gd_pp_queue *q);

/* May the head packet go to the distributor now: decoded and its barrier satisfied? */
static inline int gd_pp_can_dispatch(const gd_pp_queue *q)
{
    return q->count && q->state == GD_PQ_DECODED && gd_pp_deps_ready(q, q->ring[q->head]);
}

/* A packet of q completed at `now` (its completion signalled, barrier-bit waiters
 * released): the launch-gap model remembers it. */
void gd_pp_completed(gd_pp_queue *q, const gd_kernel_run *r, gd_time_ps now);

/* The launch-gap model (gap.h): when may the head packet, whose barrier bit its queue
 * satisfies, leave? If it was already decoded and waiting when the packet that
 * released it completed (a busy queue), not before that completion plus the hold of
 * the pair's gap class; 0 when no gap applies (no barrier bit, an idle queue, a kernel
 * of a condensed packet after its first, a pipeline launch, the command scheduler's
 * policies, a programmatic dependent launch leaving before its primary completed). */
gd_time_ps gd_pp_release_time(const gd_pp_queue *q, const gd_kernel_run *head, const gd_gap_model *m);

/* The packet processor's wake-up and fetch of head, written into an idle queue (its
 * doorbell found nothing in it or in flight): gap.h gd_gap_wake_ps for its kind. */
gd_time_ps gd_pp_wake_ps(const gd_kernel_run *head, const gd_gap_model *m);

/* Round-robin over the queues ids[0..n): the first position k (0 <= k < n, counted
 * from position start) whose queue's head packet is in `state`; UINT32_MAX if none.
 * The shared decoder takes the next fetched packet this way. */
uint32_t gd_pp_pick(const gd_pp_queue *qs, const uint32_t *ids, uint32_t n, uint32_t start, int state);

#ifdef __cplusplus
}
#endif

#endif
