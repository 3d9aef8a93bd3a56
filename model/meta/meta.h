/* meta.h - the meta-scheduler's decisions (seed 002 [0092]-[0118]): it runs a pipeline
 * topology (topology.h) on the GPU without the host, like a Kahn process network: it
 * watches every buffer's fill level, decides which consumer kernels to launch and
 * with how many CTAs, and credits the items a launch writes when its CTAs end.
 * Pure C: the SystemC module (meta_scheduler.hpp) gives it time and carries its
 * launches to the distributor.
 *
 * A buffer's entries are in one of three states: holding items ready to be read
 * (fill), holding items a running consumer launch is reading (reading: freed when
 * that launch ends), or reserved for what a running producer launch may write
 * (incoming: items x amplification per CTA, [0098]; what it really writes,
 * out_items per CTA, becomes fill when it ends and the rest of the reservation is
 * freed). A launch never needs more entries than are free, so no buffer overflows.
 *
 * A decision round ([0106]-[0109]) looks at every buffer and launches, in the
 * policy's order, every kernel that may launch (round_robin, priority) or the
 * consumers of the fullest buffer only (most_data). A kernel may launch when:
 *  - each input holds one CTA's items and at least simd_width items, unless the
 *    kernels writing that input are done (nothing running or able to run can write
 *    it any more) ([0097]); when nothing is in flight and a round under that rule
 *    launches nothing, the round is tried again without the threshold (items stay
 *    below it only because every kernel that could add to it waits too: a loop
 *    whose items dwindle below simd_width, or kernels waiting on each other), so
 *    the threshold never stops a pipeline;
 *  - each output has room for the launch's reservation ([0098]);
 *  - protect: no more important kernel is running ([0095]-[0096]);
 *  - concurrency ([0094]): sequential: nothing else runs; parallel: always; auto:
 *    nothing else runs, or the SMs the launches in flight hold leave room for it
 *    (its CTAs over its CTAs per SM; the launch shrinks to the SMs left);
 *  - debug ([0117]): one launch in flight at a time, of one CTA.
 * Its launch has as many CTAs as its inputs have items for and its outputs room
 * for, at most launch_ctas (0: one wave, the device's SMs x its CTAs per SM). */
#ifndef GD_META_H
#define GD_META_H

#include <stddef.h>
#include <stdint.h>

#include "gd_util.h"
#include "topology.h"

#ifdef __cplusplus
extern "C" {
#endif

/* meta.concurrency ([0094]) */
enum gd_meta_concurrency { GD_META_AUTO = 0, GD_META_PARALLEL = 1, GD_META_SEQUENTIAL = 2 };

typedef struct gd_meta_params {
    int policy;             /* enum gd_meta_policy */
    uint32_t simd_width;    /* items a consumer waits for unless its producers are done */
    uint8_t protect;        /* meta.protect_important */
    uint8_t debug;          /* meta.debug */
    uint8_t concurrency;    /* enum gd_meta_concurrency */
    uint32_t sms;           /* the device's SMs */
    uint64_t launch_ctas;   /* most CTAs per launch; 0: one wave of the kernel on the device */
} gd_meta_params;

/* One launch decided by a round: ctas CTAs of kernel `kernel` (topology index). */
typedef struct gd_meta_launch {
    uint32_t kernel;
    uint64_t ctas;
    uint32_t sms;           /* the SMs it is counted to hold (concurrency auto) */
    uint64_t seq;           /* launches of the pipeline so far, before it */
} gd_meta_launch;

/* Events of the meta log (meta.debug's trace of the data, --meta-log). */
enum gd_meta_event {
    GD_META_EV_LAUNCH = 0,  /* kernel launched: items = CTAs */
    GD_META_EV_TAKE,        /* a launch took items from its input buffer */
    GD_META_EV_RESERVE,     /* a launch reserved entries in its output buffer */
    GD_META_EV_END,         /* a launch's CTAs ended: items = CTAs */
    GD_META_EV_WRITE,       /* the ended launch wrote items into its output buffer */
    GD_META_EV_FREE         /* the ended launch freed the entries it had read */
};
const char *gd_meta_event_name(int ev);
typedef void (*gd_meta_log_fn)(void *ctx, gd_time_ps t, int event, uint32_t kernel, int buffer, uint64_t items,
                               uint64_t fill);

typedef struct gd_meta_kstate {
    uint32_t max_ctas_per_sm;   /* from the device's occupancy rules */
    uint32_t running;           /* launches in flight */
    uint8_t waiting;            /* its inputs hold a CTA's items, yet nothing of it runs */
    gd_time_ps waiting_since;
    /* statistics */
    uint64_t launches, ctas, items_in, items_out;
    gd_time_ps busy_ps;         /* time with a launch in flight */
    gd_time_ps wait_ps;         /* time waiting (above) */
    gd_time_ps latency_ps;      /* sum over launches of the time from its data being ready to its launch */
} gd_meta_kstate;

typedef struct gd_meta_bstate {
    uint64_t length;            /* entries in force (debug mode shrinks them) */
    uint64_t fill, reading, incoming;
    uint8_t full, empty;        /* a producer stalled for room in it; a consumer starved by it */
    /* statistics */
    uint64_t written, consumed, max_fill;
    double fill_ps;             /* integral of fill over time, items x ps */
    gd_time_ps full_ps, empty_ps;
} gd_meta_bstate;

typedef struct gd_meta {
    const gd_topology *t;
    gd_meta_params p;
    gd_meta_kstate k[GD_META_MAX_KERNELS];
    gd_meta_bstate b[GD_META_MAX_BUFFERS];
    uint32_t rr;                /* round_robin: the buffer checked first in the next round */
    uint32_t sms_held;          /* SMs the launches in flight are counted to hold */
    uint64_t in_flight, seq, rounds;
    uint8_t relaxed;            /* this round's retry without the SIMD-width threshold */
    gd_time_ps last_t;          /* the time integrals are closed up to here */
    gd_meta_log_fn log;         /* may be null */
    void *log_ctx;
} gd_meta;

/* Start a pipeline at `now`: buffers hold their initial items. max_ctas_per_sm: per
 * kernel, its CTAs per SM on the device (>= 1). */
void gd_meta_init(gd_meta *m, const gd_topology *t, const gd_meta_params *p, const uint32_t *max_ctas_per_sm,
                  gd_time_ps now);

/* The entries of buffer b in debug mode ([0117]: every buffer shrunk to the least it
 * can hold: one CTA's data for its producer and its consumer, the validation's
 * deadlock-free minimum, and at least its initial items). */
uint64_t gd_meta_debug_length(const gd_topology *t, uint32_t b, uint32_t simd_width);

/* One decision round at `now`: stores up to cap launches (in launch order) and
 * reserves their items and entries. Returns how many. */
size_t gd_meta_round(gd_meta *m, gd_time_ps now, gd_meta_launch *out, size_t cap);

/* A launch the distributor refused (no room for another kernel): undone. */
void gd_meta_unlaunch(gd_meta *m, gd_time_ps now, const gd_meta_launch *l);

/* A launch's CTAs all ended at `now`: its items are written, its entries freed. */
void gd_meta_ended(gd_meta *m, gd_time_ps now, const gd_meta_launch *l);

/* Close the time integrals at `now` (the statistics). */
void gd_meta_account(gd_meta *m, gd_time_ps now);

/* With no launch in flight and a round that launched nothing, the pipeline has
 * ended: 0 when nothing could run any more for want of items (done), or 1 when a
 * kernel holds a CTA's items but can never launch (deadlock, described in buf). */
int gd_meta_stuck(const gd_meta *m, char *buf, size_t size);

#ifdef __cplusplus
}
#endif

#endif
