/* cs.h - the command scheduler's decisions (seed 004, [0049]-[0099], figs 3-8), pure C.
 *
 * Commands (kernel dispatches and non-kernel commands) carry a virtual-queue id (VID,
 * one per tenant) and flags: a *sync* command starts a dependency chain, a
 * *conditional* command depends on the latest sync of its VID (seed fig 4); gdsim
 * also allows both at once (a serial CUDA stream: each command waits for the previous
 * one and is waited on) and neither (an independent command nothing waits on). The
 * scheduler picks commands from physical queues (PQ) and wait queues (WQ) and
 * dispatches them to engines. It keeps the seed's tables:
 *  - the running-command status table (fig 5): per engine the command it runs, the PQ
 *    and WQ it came from, its VID, the latest-sync mark and its status;
 *  - the physical-queue table: per WQ the PQ it serves (or free);
 *  - the sync-command table: per WQ the sync command its commands wait for, and the
 *    engine running it;
 *  - the virtual-queue command status table: per VID whether its chain failed.
 * Policies (cs.policy): GD_CS_WAITQUEUE is the seed's method 800; GD_CS_INORDER the
 * prior art (each PQ strictly in order: a head whose dependency has not completed
 * blocks its PQ). The meaning of a dependency is exact wherever commands wait: a
 * conditional command never starts before the sync it depends on (the latest sync of
 * its VID picked before it, running or itself waiting in a WQ) has completed.
 *
 * The caller (the SystemC module) keeps time: it calls gd_cs_step for the next
 * action, carries it out, and reports completions with gd_cs_complete. */
#ifndef GD_CS_H
#define GD_CS_H

#include <stdint.h>

#include "packet.h"

#ifdef __cplusplus
extern "C" {
#endif

enum gd_cs_policy {
    GD_CS_AQL = 0,      /* no scheduling here: the packet processor applies the AQL barrier bit (default) */
    GD_CS_INORDER = 1,  /* prior art: each PQ in order, a waiting head blocks it */
    GD_CS_WAITQUEUE = 2 /* seed 004: conditional commands wait in wait queues bound to their sync */
};

/* Where a command is (gd_kernel_run.cs_state). */
enum gd_cs_state {
    GD_CS_NONE = 0,
    GD_CS_IN_PQ,       /* in its physical queue */
    GD_CS_IN_WQ,       /* in a wait queue */
    GD_CS_RUNNING,     /* on an engine */
    GD_CS_DONE         /* completed, failed, or completed as a no-op */
};

/* What a step decided. */
enum gd_cs_action {
    GD_CS_DISPATCH = 1,  /* start cmd on engine `engine` */
    GD_CS_PUSH,          /* cmd left its PQ for wait queue `wq` */
    GD_CS_NOOP           /* cmd completes at once as a no-op: its chain failed */
};

typedef struct gd_cs_decision {
    int action;              /* enum gd_cs_action */
    gd_kernel_run *cmd;
    int32_t engine, wq;      /* engine (DISPATCH), wait queue (PUSH; or the WQ it came from) */
    int from_wq;             /* picked from a wait queue (else from its PQ) */
} gd_cs_decision;

typedef struct gd_cs_fifo {
    gd_kernel_run *head, *tail;
    uint32_t n;
} gd_cs_fifo;

/* Running-command status table entry (seed fig 5), one per engine. */
typedef struct gd_cs_entry {
    gd_kernel_run *cmd;   /* NULL: the engine is free */
    int32_t pq_id;        /* the PQ the command came from */
    int32_t wq_id;        /* the WQ it came from, -1: straight from its PQ */
    uint32_t vid;
    uint8_t latest_sync;  /* the latest sync command of its VID */
    uint8_t status;       /* enum gd_cmd_status once it completes */
} gd_cs_entry;

/* A wait queue: its physical-queue table entry (pq) and sync-command table entry
 * (sync, sync_engine), and the conditional commands waiting in it. */
typedef struct gd_cs_wq {
    int32_t pq;              /* the PQ it serves; -1: free */
    gd_kernel_run *sync;     /* the sync command its head waits for */
    int32_t sync_engine;     /* ... running on this engine; -1 once completed */
    uint8_t sync_failed;     /* the completed sync failed: its waiters complete as no-ops */
    gd_cs_fifo q;
} gd_cs_wq;

/* Virtual-queue command status table entry. */
typedef struct gd_cs_vq {
    gd_kernel_run *latest;   /* the latest sync of the VID not yet completed (running or waiting), or NULL */
    uint8_t failed;          /* the VID's chain failed (its latest completed sync failed) */
} gd_cs_vq;

typedef struct gd_cs {
    int policy;
    uint32_t nkernel_engines, ncopy_engines;  /* engines [0, k) run kernels, [k, k + c) copies */
    gd_cs_entry *eng;
    uint32_t nwq, wq_depth;
    gd_cs_wq *wq;
    gd_cs_fifo *pq;
    uint32_t npq;
    gd_cs_vq *vq;
    uint32_t nvq;
    uint32_t wq_rr, pq_rr;                    /* round-robin positions */
    uint64_t seq;                             /* commands picked from physical queues */
    uint32_t busy_kernel, busy_copy;          /* engines in use */
    uint64_t in_wq;                           /* commands in wait queues now */
    /* statistics */
    uint64_t from_pq, from_wq, pushed, noops, failed;
    uint64_t no_wq_waits, wq_full_waits;      /* commands that waited at their PQ's head for a WQ / room in one */
    uint64_t max_in_wq;
} gd_cs;

/* policy: enum gd_cs_policy (GD_CS_INORDER or GD_CS_WAITQUEUE); wait_queues and
 * wq_depth matter to GD_CS_WAITQUEUE. 0, or -1 when out of memory. */
int gd_cs_init(gd_cs *cs, int policy, uint32_t kernel_engines, uint32_t copy_engines, uint32_t wait_queues,
               uint32_t wq_depth);
void gd_cs_destroy(gd_cs *cs);

/* A decoded command enters its physical queue (cmd->pq, cmd->vid, cmd->cmd_flags,
 * cmd->kind set). 0, or -1 when out of memory. */
int gd_cs_enqueue(gd_cs *cs, gd_kernel_run *cmd);

/* The next action, committed to the tables: wait queues first (round-robin over the
 * active ones whose sync has completed), then the heads of the physical queues
 * (round-robin; fig 8 from step 801). Returns 1 with *d filled, or 0 when no command
 * can act now (everything waits for a completion, a free engine or a free WQ). */
int gd_cs_step(gd_cs *cs, gd_cs_decision *d);

/* The command on engine e (or a no-op, e = -1) completed; failed: its engine reported
 * an error. Frees the engine; a sync's wait queue may now be served. */
void gd_cs_complete(gd_cs *cs, gd_kernel_run *cmd, int failed);

/* Head-of-line blocking now, for the module's time accounting: whether physical
 * queue p's head cannot act for a reason of its own (a dependency under
 * GD_CS_INORDER, no free or a full wait queue under GD_CS_WAITQUEUE) while an engine
 * is free and a command of another VID behind it could act; such commands are marked
 * (cs_held) as having met a false dependency. */
int gd_cs_head_blocks(gd_cs *cs, uint32_t p);

/* Can cmd act now if it were picked (a dry run of fig 8)? */
int gd_cs_can_act(const gd_cs *cs, const gd_kernel_run *cmd);

const char *gd_cs_policy_name(int policy);

#ifdef __cplusplus
}
#endif

#endif
