/* hwq.c - the hardware queues' registers and the checks of what the GPU reads from a
 * platform's memory (hwq.h). */
#include "hwq.h"
#include "gdsim.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int gd_hwq_init(gd_hwq_regs *r, uint32_t nqueues)
{
    memset(r, 0, sizeof *r);
    if (nqueues == 0 || nqueues > GD_HWQ_MAX_QUEUES)
        return GD_EINVAL;
    if (!(r->q = calloc(nqueues, sizeof *r->q)))
        return GD_ENOMEM;
    r->nqueues = nqueues;
    return GD_OK;
}

void gd_hwq_destroy(gd_hwq_regs *r)
{
    free(r->q);
    r->q = NULL;
    r->nqueues = 0;
}

uint64_t gd_hwq_span(const gd_hwq_regs *r) { return GD_HWQ_QUEUE0 + (uint64_t)r->nqueues * GD_HWQ_QUEUE_STRIDE; }

/* The queue and per-queue offset of a queue register; -1 for the global block or a
 * hole. */
static int queue_reg(const gd_hwq_regs *r, uint64_t offset, uint32_t *q, uint64_t *reg)
{
    if (offset < GD_HWQ_QUEUE0 || offset >= gd_hwq_span(r))
        return -1;
    *q = (uint32_t)((offset - GD_HWQ_QUEUE0) / GD_HWQ_QUEUE_STRIDE);
    *reg = (offset - GD_HWQ_QUEUE0) % GD_HWQ_QUEUE_STRIDE;
    return *reg <= GD_HWQ_Q_ENABLE ? 0 : -1;
}

int gd_hwq_read(const gd_hwq_regs *r, uint64_t offset, uint64_t *value)
{
    uint32_t qi;
    uint64_t reg;
    if (queue_reg(r, offset, &qi, &reg) == 0) {
        const gd_hwq_queue *q = &r->q[qi];
        switch (reg) {
        case GD_HWQ_Q_BASE: *value = q->base; return 0;
        case GD_HWQ_Q_SIZE: *value = q->size; return 0;
        case GD_HWQ_Q_DOORBELL: *value = q->write; return 0;
        case GD_HWQ_Q_READ: *value = q->read; return 0;
        case GD_HWQ_Q_ENABLE: *value = (uint64_t)q->enabled; return 0;
        }
    }
    switch (offset) {
    case GD_HWQ_ID: *value = GD_HWQ_ID_VALUE; return 0;
    case GD_HWQ_STATUS:
        *value = (r->busy ? GD_HWQ_STATUS_BUSY : 0) | (gd_hwq_irq(r) ? GD_HWQ_STATUS_IRQ : 0) |
                 (r->error ? GD_HWQ_STATUS_ERROR : 0);
        return 0;
    case GD_HWQ_INT_CAUSE: *value = r->int_cause; return 0;
    case GD_HWQ_INT_ENABLE: *value = r->int_enable; return 0;
    case GD_HWQ_ERROR: *value = r->error; return 0;
    case GD_HWQ_QUEUES: *value = r->nqueues; return 0;
    case GD_HWQ_EVENT: *value = r->event; return 0;
    case GD_HWQ_COMPLETED: *value = r->completed; return 0;
    }
    return -1;
}

void gd_hwq_fail(gd_hwq_regs *r, uint32_t q, enum gd_hwq_error code, uint64_t packet)
{
    if (q < r->nqueues)
        r->q[q].stopped = 1;
    if (!r->error)
        r->error = (uint64_t)code | (uint64_t)(q & 0xffffu) << 16 | (packet & 0xffffffffu) << 32;
    r->int_cause |= 1ull << GD_HWQ_CAUSE_ERROR;
}

int gd_hwq_write(gd_hwq_regs *r, uint64_t offset, uint64_t value, uint64_t mask, gd_hwq_effect *eff, char *why,
                 size_t n)
{
    eff->doorbell = -1;
    eff->enabled = 0;
    eff->irq_changed = 0;
    eff->acknowledged = 0;
    uint32_t qi;
    uint64_t reg, old;
    if (gd_hwq_read(r, offset, &old))
        return snprintf(why, n, "no register at offset 0x%" PRIx64, offset), -1;
    uint64_t v = (old & ~mask) | (value & mask);
    if (queue_reg(r, offset, &qi, &reg) == 0) {
        gd_hwq_queue *q = &r->q[qi];
        switch (reg) {
        case GD_HWQ_Q_BASE:
        case GD_HWQ_Q_SIZE:
            if (q->enabled)
                return snprintf(why, n, "queue %u: the ring's %s cannot change while the queue is enabled", qi,
                                reg == GD_HWQ_Q_BASE ? "base" : "size"), -2;
            *(reg == GD_HWQ_Q_BASE ? &q->base : &q->size) = v;
            return 0;
        case GD_HWQ_Q_DOORBELL:
            if (q->enabled && !q->stopped && v < q->write && v >= q->read) {
                char which[64];
                if (v + 1 == q->write)
                    snprintf(which, sizeof which, "packet %" PRIu64 " was", v);
                else
                    snprintf(which, sizeof which, "packets %" PRIu64 " to %" PRIu64 " were", v, q->write - 1);
                snprintf(why, n, "queue %u: doorbell write index %" PRIu64 " is behind the last one written (%" PRIu64
                         "): %s announced and would never run (a doorbell only moves forward)", qi, v, q->write,
                         which);
                gd_hwq_fail(r, qi, GD_HWQ_ERING, v);
                eff->irq_changed = 1;
                return 0;
            }
            if (q->enabled && !q->stopped && (v < q->read || v - q->read > q->size)) {
                snprintf(why, n, "queue %u: doorbell write index %" PRIu64 " is %s (read index %" PRIu64
                         ", ring of %" PRIu64 " packets)", qi, v, v < q->read ? "behind the read index" :
                         "more than a ring beyond the read index", q->read, q->size);
                gd_hwq_fail(r, qi, GD_HWQ_ERING, v);
                eff->irq_changed = 1;
                return 0;
            }
            q->write = v;
            eff->doorbell = (int32_t)qi;
            return 0;
        case GD_HWQ_Q_READ:
            return snprintf(why, n, "queue %u: the read index is read-only", qi), -2;
        case GD_HWQ_Q_ENABLE:
            if (!(v & 1)) {
                q->enabled = 0;
                return 0;
            }
            if (q->enabled)
                return 0;
            q->read = q->write = 0;
            q->stopped = 0;
            if (q->size == 0 || (q->size & (q->size - 1)) || q->size > (1ull << 32) || (q->base % GD_AQL_PACKET_SIZE)) {
                snprintf(why, n, "queue %u: cannot enable a ring of %" PRIu64 " packets at 0x%" PRIx64 " (the size "
                         "must be a power of two up to 2^32, the base 64-byte aligned)", qi, q->size, q->base);
                gd_hwq_fail(r, qi, GD_HWQ_ERING, 0);
                eff->irq_changed = 1;
                return 0;
            }
            q->enabled = 1;
            eff->doorbell = (int32_t)qi;
            eff->enabled = 1;
            return 0;
        }
    }
    switch (offset) {
    case GD_HWQ_INT_CAUSE:  /* write 1 to clear */
        r->int_cause &= ~(value & mask);
        if (!(r->int_cause >> GD_HWQ_CAUSE_ERROR & 1) && r->error) {
            r->error = 0;  /* the error is acknowledged: the next one is recorded */
            eff->acknowledged = 1;
        }
        eff->irq_changed = 1;
        return 0;
    case GD_HWQ_INT_ENABLE:
        r->int_enable = v;
        eff->irq_changed = 1;
        return 0;
    }
    return snprintf(why, n, "the register at offset 0x%" PRIx64 " is read-only", offset), -2;
}

int gd_hwq_desc_header(const uint8_t h[GD_HWQ_DESC_HEADER], uint32_t *len, char *why, size_t n)
{
    uint32_t magic = gd_get32(h);
    *len = gd_get32(h + 4);
    if (magic != GD_HWQ_DESC_MAGIC)
        return snprintf(why, n, "no kernel descriptor there (magic 0x%08x, expected 0x%08x \"GDKD\")", magic,
                        GD_HWQ_DESC_MAGIC), -1;
    if (*len == 0 || *len > GD_HWQ_DESC_MAX)
        return snprintf(why, n, "kernel descriptor body of %u bytes (1 to %u)", *len, GD_HWQ_DESC_MAX), -1;
    return 0;
}

static int fences_ok(uint16_t header)
{
    return (header >> 13) == 0 && ((header >> GD_AQL_HEADER_ACQUIRE_SHIFT) & GD_AQL_FENCE_SCOPE_MASK) != 3 &&
           ((header >> GD_AQL_HEADER_RELEASE_SHIFT) & GD_AQL_FENCE_SCOPE_MASK) != 3;
}

int gd_hwq_dispatch_check(const gd_aql_dispatch *a, const gd_kernel_desc *k, const uint32_t max_grid[3],
                          uint32_t grid_ctas[3], uint64_t *ctas, gd_time_ps *cta_ps, char *why, size_t n)
{
    static const char dim_name[] = "xyz";
    if (!fences_ok(a->header))
        return snprintf(why, n, "header 0x%04x uses a reserved fence scope or bit", a->header), -1;
    unsigned dims = gd_aql_dims(a->setup);
    if (dims == 0 || (a->setup >> 2))
        return snprintf(why, n, "setup 0x%04x does not give 1 to 3 dimensions", a->setup), -1;
    if (a->reserved0)
        return snprintf(why, n, "reserved0 is %u, not 0", a->reserved0), -1;
    uint64_t threads = 1;
    *ctas = 1;
    for (unsigned i = 0; i < 3; i++) {
        uint32_t wg = a->workgroup_size[i], gs = a->grid_size[i];
        if (i >= dims && (wg != 1 || gs != 1))
            return snprintf(why, n, "a %u-dimensional grid must have workgroup_size_%c and grid_size_%c 1 (found %u "
                            "and %u)", dims, dim_name[i], dim_name[i], wg, gs), -1;
        if (wg == 0 || gs == 0)
            return snprintf(why, n, "%s_%c is 0", wg ? "grid_size" : "workgroup_size", dim_name[i]), -1;
        threads *= wg;
        grid_ctas[i] = (uint32_t)gd_div_ceil(gs, wg);
        if (grid_ctas[i] > max_grid[i])
            return snprintf(why, n, "%u CTAs along %c exceed the device's grid limit of %u", grid_ctas[i],
                            dim_name[i], max_grid[i]), -1;
        *ctas *= grid_ctas[i];
    }
    if (threads != k->threads_per_cta)
        return snprintf(why, n, "workgroup of %" PRIu64 " work-items but kernel '%s' is described with %u threads per "
                        "CTA", threads, k->name, k->threads_per_cta), -1;
    if ((uint64_t)a->group_segment_size != (uint64_t)k->static_smem + k->dynamic_smem)
        return snprintf(why, n, "group_segment_size %u but kernel '%s' uses %u bytes of shared memory (static %u + "
                        "dynamic %u)", a->group_segment_size, k->name, k->static_smem + k->dynamic_smem,
                        k->static_smem, k->dynamic_smem), -1;
    if (k->exec_model == GD_EXEC_PER_DISPATCH) {
        if (!a->reserved2)
            return snprintf(why, n, "kernel '%s' takes its CTA duration from each dispatch (execution-time model 2) "
                            "and reserved2 gives none", k->name), -1;
        *cta_ps = a->reserved2;
    } else {
        if (a->reserved2)
            return snprintf(why, n, "reserved2 is %" PRIu64 " but kernel '%s' has a fixed CTA duration (execution-time "
                            "model 1): 0 expected", a->reserved2, k->name), -1;
        *cta_ps = k->cta_duration_ps;
    }
    return 0;
}

int gd_hwq_barrier_check(const gd_aql_barrier_pkt *b, char *why, size_t n)
{
    if (!fences_ok(b->header))
        return snprintf(why, n, "header 0x%04x uses a reserved fence scope or bit", b->header), -1;
    if (b->reserved0 || b->reserved1 || b->reserved2)
        return snprintf(why, n, "a reserved field is not 0"), -1;
    return 0;
}
