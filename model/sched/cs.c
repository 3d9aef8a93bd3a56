#include "cs.h"

#include <stdlib.h>
#include <string.h>

const char *gd_cs_policy_name(int policy)
{
    switch (policy) {
    case GD_CS_AQL: return "aql";
    case GD_CS_INORDER: return "inorder";
    case GD_CS_WAITQUEUE: return "waitqueue";
    default: return "?";
    }
}

int gd_cs_init(gd_cs *cs, int policy, uint32_t kernel_engines, uint32_t copy_engines, uint32_t wait_queues,
               uint32_t wq_depth)
{
    memset(cs, 0, sizeof *cs);
    cs->policy = policy;
    cs->nkernel_engines = kernel_engines;
    cs->ncopy_engines = copy_engines;
    cs->nwq = policy == GD_CS_WAITQUEUE ? wait_queues : 0;
    cs->wq_depth = wq_depth;
    cs->eng = calloc((size_t)kernel_engines + copy_engines + 1, sizeof *cs->eng);
    cs->wq = calloc((size_t)cs->nwq + 1, sizeof *cs->wq);
    if (!cs->eng || !cs->wq) {
        gd_cs_destroy(cs);
        return -1;
    }
    for (uint32_t w = 0; w < cs->nwq; w++)
        cs->wq[w].pq = -1;
    return 0;
}

void gd_cs_destroy(gd_cs *cs)
{
    free(cs->eng);
    free(cs->wq);
    free(cs->pq);
    free(cs->vq);
    memset(cs, 0, sizeof *cs);
}

static void fifo_push(gd_cs_fifo *f, gd_kernel_run *c)
{
    c->cs_next = NULL;
    if (f->tail)
        f->tail->cs_next = c;
    else
        f->head = c;
    f->tail = c;
    f->n++;
}

static gd_kernel_run *fifo_pop(gd_cs_fifo *f)
{
    gd_kernel_run *c = f->head;
    f->head = c->cs_next;
    if (!f->head)
        f->tail = NULL;
    f->n--;
    c->cs_next = NULL;
    return c;
}

/* Grow an array of n elements of size sz to hold index i. */
static int grow(void **a, uint32_t *n, uint32_t i, size_t sz)
{
    if (i < *n)
        return 0;
    uint32_t nn = *n ? *n : 8;
    while (nn <= i)
        nn *= 2;
    char *p = realloc(*a, (size_t)nn * sz);
    if (!p)
        return -1;
    memset(p + (size_t)*n * sz, 0, (size_t)(nn - *n) * sz);
    *a = p;
    *n = nn;
    return 0;
}

int gd_cs_enqueue(gd_cs *cs, gd_kernel_run *cmd)
{
    if (grow((void **)&cs->pq, &cs->npq, cmd->pq, sizeof *cs->pq) ||
        grow((void **)&cs->vq, &cs->nvq, cmd->vid, sizeof *cs->vq))
        return -1;
    cmd->cs_state = GD_CS_IN_PQ;
    cmd->wq = -1;
    cmd->engine = -1;
    cmd->cs_own_wq = -1;
    fifo_push(&cs->pq[cmd->pq], cmd);
    return 0;
}

static int is_copy(const gd_kernel_run *c) { return c->kind == GD_PKT_COMMAND; }

/* A free engine of the kind cmd needs, or -1. */
static int32_t free_engine(const gd_cs *cs, const gd_kernel_run *cmd)
{
    uint32_t lo = is_copy(cmd) ? cs->nkernel_engines : 0;
    uint32_t hi = is_copy(cmd) ? cs->nkernel_engines + cs->ncopy_engines : cs->nkernel_engines;
    if ((is_copy(cmd) ? cs->busy_copy : cs->busy_kernel) >= hi - lo)
        return -1;
    for (uint32_t e = lo; e < hi; e++)
        if (!cs->eng[e].cmd)
            return (int32_t)e;
    return -1;
}

static int32_t free_wq(const gd_cs *cs)
{
    for (uint32_t w = 0; w < cs->nwq; w++)
        if (cs->wq[w].pq < 0)
            return (int32_t)w;
    return -1;
}

/* The wait queue a conditional command of sync s's chain waits in: the one bound to
 * s when s runs, the one s itself waits in otherwise. */
static int32_t wq_of_sync(const gd_kernel_run *s) { return s->cs_state == GD_CS_RUNNING ? s->cs_own_wq : s->wq; }

/* Why a command picked now could not act; 0 when it can. */
enum { CAN = 0, WAIT_DEP, WAIT_WQ_FULL, WAIT_NO_WQ, WAIT_ENGINE };

/* Fig 8 for a command at the head of its PQ, as a dry run. */
static int pq_verdict(const gd_cs *cs, const gd_kernel_run *c)
{
    const gd_cs_vq *v = &cs->vq[c->vid];
    if ((c->cmd_flags & GD_CMD_COND) && v->latest) {       /* steps 809-811 */
        if (cs->policy == GD_CS_INORDER)
            return WAIT_DEP;
        int32_t w = wq_of_sync(v->latest);
        return cs->wq[w].q.n >= cs->wq_depth ? WAIT_WQ_FULL : CAN;
    }
    if ((c->cmd_flags & GD_CMD_COND) && v->failed)        /* steps 812-813: a no-op */
        return CAN;
    if ((c->cmd_flags & GD_CMD_SYNC) && cs->policy == GD_CS_WAITQUEUE && free_wq(cs) < 0)
        return WAIT_NO_WQ;                                 /* steps 803-804 */
    return free_engine(cs, c) < 0 ? WAIT_ENGINE : CAN;
}

/* Fig 8 (step 1) for the head of an active wait queue whose sync has completed. */
static int wq_verdict(const gd_cs *cs, const gd_cs_wq *w)
{
    if (w->sync_failed)
        return CAN;  /* a no-op */
    return free_engine(cs, w->q.head) < 0 ? WAIT_ENGINE : CAN;
}

int gd_cs_can_act(const gd_cs *cs, const gd_kernel_run *cmd)
{
    if (cmd->cs_state == GD_CS_IN_PQ)
        return pq_verdict(cs, cmd) == CAN;
    if (cmd->cs_state == GD_CS_IN_WQ) {
        const gd_cs_wq *w = &cs->wq[cmd->wq];
        return w->q.head == cmd && w->sync_engine < 0 && wq_verdict(cs, w) == CAN;
    }
    return 0;
}

/* Start c on engine e: the running-command status table entry (steps 805, 807, 814),
 * and for a sync the latest-sync mark (the older one of its VID cleared). */
static void start(gd_cs *cs, gd_kernel_run *c, int32_t e, int32_t from_wq)
{
    gd_cs_entry *en = &cs->eng[e];
    gd_cs_vq *v = &cs->vq[c->vid];
    memset(en, 0, sizeof *en);
    en->cmd = c;
    en->pq_id = (int32_t)c->pq;
    en->wq_id = from_wq;
    en->vid = c->vid;
    if (c->cmd_flags & GD_CMD_SYNC) {
        if (!v->latest || v->latest == c || c->cs_seq > v->latest->cs_seq) {  /* c is the newer sync */
            uint32_t n = cs->nkernel_engines + cs->ncopy_engines;
            for (uint32_t i = 0; i < n; i++)   /* clear the older latest-sync mark of this VID */
                if (cs->eng[i].cmd && cs->eng[i].vid == c->vid && cs->eng[i].latest_sync)
                    cs->eng[i].latest_sync = 0;
            en->latest_sync = 1;
            v->latest = c;
        }
    }
    c->cs_state = GD_CS_RUNNING;
    c->engine = e;
    if (is_copy(c))
        cs->busy_copy++;
    else
        cs->busy_kernel++;
}

static void noop(gd_cs *cs, gd_kernel_run *c)
{
    gd_cs_vq *v = &cs->vq[c->vid];
    c->cs_state = GD_CS_DONE;
    c->status = GD_STATUS_NOOP;
    if (v->latest == c) {  /* a sync whose chain failed: its VID's chain stays failed */
        v->latest = NULL;
        v->failed = 1;
    }
    cs->noops++;
}

static int step_wq(gd_cs *cs, gd_cs_decision *d)
{
    for (uint32_t k = 0; k < cs->nwq; k++) {
        uint32_t wi = (cs->wq_rr + k) % cs->nwq;
        gd_cs_wq *w = &cs->wq[wi];
        if (w->pq < 0 || !w->q.n || w->sync_engine >= 0 || wq_verdict(cs, w) != CAN)
            continue;
        gd_kernel_run *c = fifo_pop(&w->q);
        cs->in_wq--;
        memset(d, 0, sizeof *d);
        d->cmd = c;
        d->wq = (int32_t)wi;
        d->from_wq = 1;
        c->wq = (int32_t)wi;
        if (w->sync_failed) {
            noop(cs, c);
            d->action = GD_CS_NOOP;
            d->engine = -1;
        } else {
            int32_t e = free_engine(cs, c);
            start(cs, c, e, (int32_t)wi);
            d->action = GD_CS_DISPATCH;
            d->engine = e;
            if (c->cmd_flags & GD_CMD_SYNC) {
                /* the rest of this WQ depends on c (or on syncs behind it): it now waits for c */
                w->sync = c;
                w->sync_engine = e;
                c->cs_own_wq = (int32_t)wi;
            }
            cs->from_wq++;
        }
        if (!w->q.n && w->sync_engine < 0)
            w->pq = -1;  /* drained, its sync completed: free */
        cs->wq_rr = (wi + 1) % cs->nwq;
        return 1;
    }
    return 0;
}

static int step_pq(gd_cs *cs, gd_cs_decision *d)
{
    for (uint32_t k = 0; k < cs->npq; k++) {
        uint32_t p = (cs->pq_rr + k) % cs->npq;
        gd_kernel_run *c = cs->pq[p].head;
        if (!c)
            continue;
        int why = pq_verdict(cs, c);
        if (why == WAIT_NO_WQ && !(c->cs_waited & 1)) {  /* step 804, counted once per command */
            c->cs_waited |= 1;
            cs->no_wq_waits++;
        } else if (why == WAIT_WQ_FULL && !(c->cs_waited & 2)) {
            c->cs_waited |= 2;
            cs->wq_full_waits++;
        }
        if (why != CAN)
            continue;
        fifo_pop(&cs->pq[p]);
        c->cs_seq = ++cs->seq;  /* picked: the order that says which sync of a VID is the latest */
        gd_cs_vq *v = &cs->vq[c->vid];
        memset(d, 0, sizeof *d);
        d->cmd = c;
        d->wq = -1;
        d->engine = -1;
        if ((c->cmd_flags & GD_CMD_COND) && v->latest) {  /* step 811: into the sync's WQ */
            int32_t w = wq_of_sync(v->latest);
            fifo_push(&cs->wq[w].q, c);
            c->cs_state = GD_CS_IN_WQ;
            c->wq = w;
            if (c->cmd_flags & GD_CMD_SYNC)
                v->latest = c;  /* the chain's next sync, waiting */
            if (++cs->in_wq > cs->max_in_wq)
                cs->max_in_wq = cs->in_wq;
            cs->pushed++;
            d->action = GD_CS_PUSH;
            d->wq = w;
        } else if ((c->cmd_flags & GD_CMD_COND) && v->failed) {  /* step 813 */
            noop(cs, c);
            d->action = GD_CS_NOOP;
        } else {
            int32_t e = free_engine(cs, c);
            start(cs, c, e, -1);
            if ((c->cmd_flags & GD_CMD_SYNC) && cs->policy == GD_CS_WAITQUEUE) {  /* step 806 */
                int32_t w = free_wq(cs);
                gd_cs_wq *wq = &cs->wq[w];
                wq->pq = (int32_t)c->pq;
                wq->sync = c;
                wq->sync_engine = e;
                wq->sync_failed = 0;
                c->cs_own_wq = w;
            }
            d->action = GD_CS_DISPATCH;
            d->engine = e;
            cs->from_pq++;
        }
        cs->pq_rr = (p + 1) % cs->npq;
        return 1;
    }
    return 0;
}

int gd_cs_step(gd_cs *cs, gd_cs_decision *d)
{
    return step_wq(cs, d) || step_pq(cs, d);  /* wait queues outrank physical queues ([0099]) */
}

void gd_cs_complete(gd_cs *cs, gd_kernel_run *cmd, int failed)
{
    if (cmd->cs_state != GD_CS_RUNNING)
        return;  /* a no-op: already done */
    gd_cs_entry *en = &cs->eng[cmd->engine];
    en->status = failed ? GD_STATUS_FAILED : GD_STATUS_OK;
    en->cmd = NULL;
    en->latest_sync = 0;
    if (is_copy(cmd))
        cs->busy_copy--;
    else
        cs->busy_kernel--;
    cmd->cs_state = GD_CS_DONE;
    cmd->status = failed ? GD_STATUS_FAILED : GD_STATUS_OK;
    cs->failed += failed != 0;
    gd_cs_vq *v = &cs->vq[cmd->vid];
    if (v->latest == cmd) {  /* the virtual-queue command status table keeps the result */
        v->latest = NULL;
        v->failed = failed != 0;
    }
    if (cmd->cs_own_wq >= 0) {  /* the sync-command table: its WQ may now be served */
        gd_cs_wq *w = &cs->wq[cmd->cs_own_wq];
        if (w->sync == cmd) {
            w->sync_engine = -1;
            w->sync_failed = failed != 0;
            if (!w->q.n)
                w->pq = -1;
        }
    }
}

int gd_cs_head_blocks(gd_cs *cs, uint32_t p)
{
    if (p >= cs->npq || !cs->pq[p].head)
        return 0;
    gd_kernel_run *h = cs->pq[p].head;
    int why = pq_verdict(cs, h);
    if (why != WAIT_DEP && why != WAIT_WQ_FULL && why != WAIT_NO_WQ)
        return 0;
    int blocks = 0;
    for (gd_kernel_run *c = h->cs_next; c; c = c->cs_next)
        if (c->vid != h->vid && pq_verdict(cs, c) == CAN) {
            c->cs_held = 1;
            blocks = 1;
        }
    return blocks;
}
