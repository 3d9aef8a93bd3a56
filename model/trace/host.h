/* host.h - the closed-loop host (issue 41; DESIGN.md 'The host: closed loop'): the
 * decisions of a replay that runs a captured program rather than its timestamps. The
 * trace's host threads (format 1.10, traces/FORMAT.md) each issue their calls and waits
 * in order: a call (the packets it submits) its gap after the thread's previous call
 * or wait returned, a wait its tail after what it waited for ended (the tail holds the
 * real completion signal's latency; nothing goes before the model's completion, though).
 * Threads are independent except through the GPU. Pure C; trace_source.cpp
 * (the host's SystemC module) reads the records, asks what comes next and when, and
 * submits.
 *
 * Reading ahead: the next item of every thread that may act must be known before the
 * earliest can be chosen, so records are read until each such thread has one (memory:
 * the records between one thread's consecutive calls, bounded by host.max_lookahead
 * runs). Wait conditions count packets: a queue's (or a signal's) packets submitted
 * before the wait began have completed when as many of that queue's (signal's) packets
 * have completed (a queue's packets complete in order: a CUDA stream's have the
 * barrier bit).
 *
 * Packets of one queue enter it in the trace's order, whichever thread submits them: a
 * thread that would overtake another's earlier packet on a shared queue waits for it.
 * The capture shows that order but not what kept it (a lock, a condition variable: the
 * main thread of a PyTorch step waits on its CPU for the autograd thread, whose
 * launches go to the same streams). With the threads' own orders and the barriers'
 * dependencies, which the trace also gives in its order, it leaves no cycle: the first
 * packet of the trace not yet submitted can always go once what it waits for completes. */
#ifndef GD_HOST_H
#define GD_HOST_H

#include <stdint.h>

#include "bounds.h"
#include "gd_util.h"
#include "packet.h"
#include "trace.h"

#ifdef __cplusplus
extern "C" {
#endif

/* A call (the runs of the packets it submits, linked by host_next) or a wait. */
typedef struct gd_host_item {
    uint64_t seq;               /* order in the trace */
    gd_time_ps gap;             /* CPU time from the thread's previous return */
    gd_kernel_run *runs, *runs_tail;  /* a call's runs, in submit order (NULL: a wait) */
    uint32_t packets_left;      /* a call: packet records still to be read */
    uint32_t target;            /* a wait: the trace queue or the signal number */
    uint8_t is_wait, kind;
    gd_time_ps tail;            /* a wait: from the awaited work's end to the return */
} gd_host_item;

/* One (trace queue or signal, count) condition of a wait: satisfied when count of its
 * packets have completed. */
typedef struct gd_host_cond {
    uint32_t what;              /* queue, or GD_HOST_SIGNAL_BIT | signal number */
    uint64_t count;
} gd_host_cond;
#define GD_HOST_SIGNAL_BIT 0x80000000u

typedef struct gd_host_thread {
    gd_host_item *q;            /* its items not yet issued: a ring of cap */
    uint32_t head, len, cap;
    gd_time_ps ready;           /* when its previous call or wait returned (its start before the first) */
    uint64_t start_ns;          /* declared start, trace time */
    uint8_t declared, ended;    /* ended: its last record has been read */
    uint8_t waiting;            /* in a wait: conds[0..nconds) not all satisfied */
    uint8_t stalled;            /* a submit found its queue full: retried on room */
    gd_host_cond *conds;
    uint32_t nconds, capconds;
    gd_time_ps wait_began;      /* the wait in progress: when it was issued */
    gd_time_ps wait_tail;
    uint32_t wait_target;       /* the wait in progress: what it waits for (gd_bounds_awaited) */
    uint8_t wait_kind;
    gd_path path;               /* its path to ready (bounds.h) */
    char name[64];
    /* what it did (the report's host section) */
    uint64_t calls, waits;
    gd_time_ps cpu_ps, waited_ps, tail_ps;
} gd_host_thread;

typedef struct gd_host {
    gd_host_thread *t;          /* by thread id */
    uint32_t nthreads;          /* ids below this exist (declared or not) */
    uint64_t declared;          /* threads declared (a counter of the report's host section) */
    uint64_t sub_q[GD_TRACE_MAX_QUEUES], done_q[GD_TRACE_MAX_QUEUES];  /* runs submitted / completed per trace queue */
    uint64_t read_q[GD_TRACE_MAX_QUEUES];  /* runs read per trace queue (their host_qseq) */
    uint64_t *sub_sig, *done_sig;  /* per signal number (grown) */
    uint32_t nsig;
    uint32_t open_thread;       /* the call whose packets are being read (UINT32_MAX: none) */
    gd_host_item *open_item;    /* that call (its thread's last item) */
    uint32_t nwaiting;          /* threads in a wait */
    uint64_t buffered;          /* runs read and not yet submitted */
    uint64_t max_buffered;      /* host.max_lookahead */
    uint64_t seq;
    int eof;                    /* the trace has no more records */
    uint64_t origin_ns;
    int have_origin;
    gd_bounds *bounds;          /* the paths of what waits wait for (null: the paths are not kept) */
    uint32_t cpu_ppm;           /* host.cpu_time_scale: gaps and tails times this (millionths) */
    /* what the threads did, together (the report's host section) */
    uint64_t calls, waits;
    gd_time_ps cpu_ps, waited_ps;
} gd_host;

int gd_host_init(gd_host *h, uint64_t max_buffered);  /* (cpu_ppm: 1000000, unscaled) */
void gd_host_destroy(gd_host *h);
/* Records as they are read. 0, or -1 when out of memory. */
int gd_host_declare(gd_host *h, const gd_trace_host_thread *t);
int gd_host_call(gd_host *h, const gd_trace_host_call *c);
/* A run of the open call's packet (each kernel of a condensed packet is one). */
void gd_host_add_run(gd_host *h, gd_kernel_run *r);
/* The open call's packet record has been read (after its runs). */
void gd_host_packet_read(gd_host *h);
int gd_host_wait(gd_host *h, const gd_trace_host_wait *w);
/* The first packet's submit time: threads start at their declared start, from it. */
void gd_host_origin(gd_host *h, uint64_t origin_ns);
void gd_host_eof(gd_host *h);
/* Whether the runs read ahead have reached host.max_lookahead. */
static inline int gd_host_full(const gd_host *h) { return h->max_buffered && h->buffered >= h->max_buffered; }

/* What comes next. GD_HOST_ISSUE: *thread's head item, due at *due: the earliest (ready
 * + gap; ties in trace order) of the threads not waiting or stalled, and no earlier
 * than any thread whose next item is not read yet may act (its next item is due no
 * earlier than its ready time: a thread that starts late, or is busy on its CPU, lets
 * the others go on without reading ahead to it). GD_HOST_READ: read another record
 * first (*thread: the thread it is read for, UINT32_MAX for an open call's packets).
 * GD_HOST_IDLE: nothing can act until a completion or room in a queue (or all done).
 * A call whose next run is not next in its queue (gd_host_in_order) waits too. */
enum { GD_HOST_IDLE = 0, GD_HOST_ISSUE = 1, GD_HOST_READ = 2 };
int gd_host_next(const gd_host *h, uint32_t *thread, gd_time_ps *due);
static inline gd_host_item *gd_host_head(gd_host *h, uint32_t thread)
{
    gd_host_thread *t = &h->t[thread];
    return &t->q[t->head];
}
/* Whether run r is the next of its trace queue to go in (every earlier one of the
 * queue, in trace order, has been submitted). */
static inline int gd_host_in_order(const gd_host *h, const gd_kernel_run *r)
{
    return r->host_qseq == h->sub_q[r->trace_queue];
}
/* A run was submitted (its counts rise), or completed (they fall; waits it satisfies
 * end: the earliest time a thread is ready again, else GD_TIME_NEVER). */
int gd_host_submitted(gd_host *h, const gd_kernel_run *r);  /* 0, or -1 when out of memory */
gd_time_ps gd_host_completed(gd_host *h, const gd_kernel_run *r, gd_time_ps now);
/* The path of the head call of thread to a submit at now (its gap, then held back
 * until now): the thread's own, valid until it next changes. */
const gd_path *gd_host_issue_path(gd_host *h, uint32_t thread, gd_time_ps now);
/* The head call of thread has submitted all its runs at now: it returns. */
void gd_host_call_done(gd_host *h, uint32_t thread, gd_time_ps now);
/* Issue the head wait of thread at now: 1 when it is satisfied at once (the thread is
 * ready at now + tail), 0 when it waits; -1 when out of memory. */
int gd_host_begin_wait(gd_host *h, uint32_t thread, gd_time_ps now);
/* Every item issued (waits may still be on: they submit nothing). */
int gd_host_done(const gd_host *h);
/* Every declared thread has read its last record: what the trace holds after that can
 * only be kernel descriptors and its end, which are read to check it. */
int gd_host_all_ended(const gd_host *h);

#ifdef __cplusplus
}
#endif

#endif
