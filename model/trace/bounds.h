/* bounds.h - what bounds a replay (issue 41; docs/WHATIF.md): the critical path to its
 * last completion, the GPU's busy and idle time by cause, and the two floors no
 * what-if can beat. Pure C, fed by the host (trace_source.cpp, host.c) as packets are
 * submitted and complete; its memory holds what was submitted since the oldest packet
 * still in flight (below), a fixed table of signals and a path per queue.
 *
 * The critical path. Every event carries a gd_path (packet.h): its time, that time
 * split by category along the chain of events that decided it, and its time under
 * two reweightings of that chain. A packet's dependencies are met when the latest of
 * its submit, its queue's earlier packets (the barrier bit) and the packets of the
 * signals it waits on (a barrier packet) have completed: the latest one is its
 * predecessor on the path. From there the path runs through the front end (and the
 * distributor's wait for room on the SMs, gd_kernel_run.room_wait) to its first
 * CTA, its execution (kernels, or a copy), and the front end again to its completion.
 * A host thread's path runs through its CPU gaps, its calls held back, and through the
 * waits: a wait's predecessor is the latest of the thread itself and what it waited
 * for, then its tail. The categories of the last completion's path sum to the span.
 *
 * The floors: host_floor is the longest chain with every GPU-side segment zero (the
 * span an infinitely fast GPU would give: the host's CPU and sync tails alone);
 * gpu_floor the longest with every host segment zero (the GPU's chains with their
 * replayed durations, the host submitting at once). Both are longest paths through
 * the dependencies of this replay with its durations kept, not replays of their own:
 * the span is at least each of them, and a what-if on one side cannot take the span
 * below the other side's floor.
 *
 * The GPU's time: a sweep over every packet's stages, in time order (a completed
 * packet's are held until no packet in flight can still add an earlier one: memory
 * bounded by the packets in flight and their time): busy while a kernel runs
 * (or only a copy), otherwise idle because a packet is in the front end, or one waits
 * for a dependency, or nothing is submitted (the host). */
#ifndef GD_BOUNDS_H
#define GD_BOUNDS_H

#include <stdint.h>

#include "heap.h"  /* gd_heap_entry */
#include "packet.h"
#include "trace.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The categories of the host (the rest are the GPU's: a queue held full is the GPU's
 * doing). */
#define GD_PATH_HOST_MASK ((1u << GD_PATH_HOST_CPU) | (1u << GD_PATH_HOST_SYNC))

/* A path starting at 0 reaching t as the host's own time (a thread's start, an
 * open-loop packet's captured submit time). */
void gd_path_start(gd_path *p, gd_time_ps t);

/* The path goes on to t (no earlier than p->at) in category cat. */
static inline void gd_path_extend(gd_path *p, gd_time_ps t, int cat)
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

/* p joins q: the later of the two is the predecessor (p on a tie); each floor is the
 * larger. */
static inline void gd_path_join(gd_path *p, const gd_path *q)
{
    gd_time_ps hf = p->host_floor > q->host_floor ? p->host_floor : q->host_floor;
    gd_time_ps gf = p->gpu_floor > q->gpu_floor ? p->gpu_floor : q->gpu_floor;
    if (q->at > p->at)
        *p = *q;
    p->host_floor = hf;
    p->gpu_floor = gf;
}

/* What the GPU did over the span (ps). */
enum gd_gpu_state {
    GD_GPU_KERNELS = 0,     /* a kernel's CTAs on the SMs */
    GD_GPU_COPIES,          /* no kernel; a copy or another command running */
    GD_GPU_FRONT_END,       /* idle; a packet between its dependencies met and its first CTA, or completing */
    GD_GPU_DEPENDENCY,      /* idle; packets submitted, each waiting for another's completion */
    GD_GPU_NOTHING,         /* idle; nothing submitted and not completed (the host) */
    GD_GPU_STATES
};

/* A signal's completed packets' paths joined. Signals share GD_BOUNDS_SIG_SLOTS slots
 * by number (memory flat whatever the trace's count): exact while no two signals in
 * use share a slot; a later signal takes it over, and a dependency on the signal it
 * held no longer counts (its completion then lies far back, seldom the binding one). A
 * barrier packet joins a signal's path only when its latest completion came before the
 * barrier was ready (one completed since, by a later packet, hides the earlier). A
 * converted capture gives a signal only to the one packet something waits on
 * (docs/KINETO.md), where neither happens. */
#define GD_BOUNDS_SIG_SLOTS 1024
typedef struct gd_bounds_sig {
    uint32_t signal;            /* the signal's number + 1; 0: empty (GD_NO_SIGNAL is never kept) */
    gd_path path;
} gd_bounds_sig;

/* A hardware queue's packets in flight (the sweep's limit: only the oldest can still
 * add an event earlier than now, no earlier than its submit and, with the barrier bit
 * on every one in flight, than the completion of every packet before it). */
typedef struct gd_bounds_queue {
    uint64_t *seq;              /* their bseq, a ring from head */
    uint32_t head, len, cap;
    uint32_t active;            /* its place in gd_bounds.active while len */
    uint32_t no_barrier;        /* of them without the barrier bit, or programmatic: may start before the rest */
    gd_path prefix;             /* the paths of its completed packets before the oldest in flight, joined:
                                   what a packet with the barrier bit waited for */
} gd_bounds_queue;

typedef struct gd_bounds {
    gd_path *qpath;             /* by hardware queue: its completed packets' paths joined (a host wait's) */
    gd_path *tqpath;            /* by trace queue (the host's waits); qpath itself while trace queues are
                                   the hardware queues (gd_bounds_map_queues not called) */
    gd_bounds_sig *sig;         /* the signals' paths, GD_BOUNDS_SIG_SLOTS of them (direct-mapped) */
    int host_waits;             /* a closed-loop host waits: keep the paths its waits need (qpath, tqpath) */
    gd_path all;                /* every completed packet's (a device-wide wait): made from end when asked */
    gd_time_ps host_floor, gpu_floor;  /* the largest of every completion's: the run's floors */
    gd_path end;                /* the latest completion's: the critical path */
    uint64_t completed;
    /* the sweep: submit events from the ring (in submit order, which is time order),
       the other events of completed packets from held (kept sorted: they come nearly
       in time order, completions in theirs), merged */
    gd_time_ps *ring;           /* submit times by bseq, from the oldest not swept */
    gd_path *issued;            /* closed loop: by bseq, the paths of the calls that submitted them (NULL
                                   until the first) */
    gd_path *early;             /* by bseq, the paths of packets that completed while an earlier one of
                                   their queue was in flight (no barrier bit; NULL until the first) */
    uint8_t *done;              /* by bseq: completed (bit 0), the barrier bit (bit 1) */
    gd_bounds_queue *q;         /* by hardware queue: its packets in flight */
    uint32_t nqueues;           /* the queues used: ids below this */
    void *tables;               /* the mapping q, qpath, tqpath, sig and active live in (bounds.c) */
    uint32_t *active, nactive;  /* the queues with packets in flight */
    uint64_t swept_sub, head, next;  /* bseq of the first submit not swept / the oldest in flight / the next */
    uint64_t cap;               /* ring size (a power of two) */
    gd_heap_entry *held;        /* (time, code << 1 | copy), sorted by time, from held_first */
    uint64_t held_first, held_n, held_cap;
    gd_time_ps swept;           /* the sweep has accounted up to here */
    int64_t pending, front, kernels, copies;  /* packets in each state at swept */
    gd_time_ps gpu[GD_GPU_STATES];
    int nomem;
} gd_bounds;

int gd_bounds_init(gd_bounds *b);  /* 0, or -1 when out of memory */
/* Trace queues are spread over fewer hardware queues (cs.physical_queues): keep their
 * paths apart (in the room gd_bounds_init kept for them). */
void gd_bounds_map_queues(gd_bounds *b);
void gd_bounds_destroy(gd_bounds *b);
/* A packet went into its queue (r->submit stamped): issued is the path of the call
 * that submitted it (closed loop: its thread's, gd_host_issue_path), or NULL for a
 * packet at its captured submit time, r->host_at (open loop). Its path to the submit
 * adds the time it was held back until r->submit. 0, or -1 when out of memory (also
 * remembered in nomem). */
int gd_bounds_submitted(gd_bounds *b, gd_kernel_run *r, const gd_path *issued);
/* A packet completed: its path to the completion (into *out if not null), the
 * queues', signal's and the critical path's updated, the sweep advanced. 0, or -1
 * when out of memory. */
int gd_bounds_completed(gd_bounds *b, const gd_kernel_run *r, gd_path *out);
/* The path of what a host wait waits for: a trace queue's packets, a signal's, or the
 * device's (enum gd_wait_kind). The queues' are kept once host_waits is set (before the
 * first packet is submitted). Valid until the next completion. */
const gd_path *gd_bounds_awaited(gd_bounds *b, int kind, uint32_t target);

/* The verdict: which of the host (CPU, sync tails), the front end and the GPU
 * (kernels, copies, waiting for SMs, holding the host back on a full queue) holds the
 * most of the critical path. */
enum { GD_BOUND_HOST = 0, GD_BOUND_FRONT_END, GD_BOUND_GPU };
/* The report names the other side "close behind" when its floor is at least this
 * share of the span (a what-if on the verdict's side alone then gains little). */
#define GD_BOUNDS_CLOSE 0.8
int gd_bounds_verdict(const gd_path *end, gd_time_ps *share);  /* share[3]: each side's time */
const char *gd_bound_name(int verdict);  /* "host", "front-end", "GPU" */
const char *gd_path_cat_name(int cat);   /* "host CPU", ... (the report's words) */
const char *gd_path_cat_key(int cat);    /* "host_cpu", ... (JSON) */
const char *gd_gpu_state_key(int state); /* "kernels", ... (JSON) */

#ifdef __cplusplus
}
#endif

#endif
