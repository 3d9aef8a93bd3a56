/* hwq.h - the hardware queues of an embedded GPU (gdsim::gpu, include/gdsim/gpu.hpp):
 * the register block a platform's driver programs (per queue a ring buffer of 64-byte
 * AQL packets in the platform's memory, its doorbell and read index; a status and an
 * interrupt-cause register) and the checks of what the GPU reads from memory (AQL
 * packets, kernel descriptors, completion signals). Pure C; the SystemC module
 * (hw_queues.hpp) moves the transactions. docs/VP.md documents the map. */
#ifndef GD_HWQ_H
#define GD_HWQ_H

#include <stddef.h>
#include <stdint.h>

#include "aql.h"
#include "trace.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Register offsets (64-bit registers; 4- and 8-byte accesses, naturally aligned). */
enum {
    GD_HWQ_ID = 0x00,          /* RO: GD_HWQ_ID_VALUE */
    GD_HWQ_STATUS = 0x08,      /* RO: GD_HWQ_STATUS_* bits */
    GD_HWQ_INT_CAUSE = 0x10,   /* RO, write 1 to clear: bit q = queue q wrote a completion signal with an event;
                                  bit GD_HWQ_CAUSE_ERROR = a queue stopped on an error */
    GD_HWQ_INT_ENABLE = 0x18,  /* RW: the INT_CAUSE bits that raise the interrupt line */
    GD_HWQ_ERROR = 0x20,       /* RO: the first error: code (bits 0-15), queue (16-31), packet index (32-63) */
    GD_HWQ_QUEUES = 0x28,      /* RO: number of hardware queues */
    GD_HWQ_EVENT = 0x30,       /* RO: event word of the last completion signal that raised an interrupt */
    GD_HWQ_COMPLETED = 0x38,   /* RO: packets completed */
    GD_HWQ_QUEUE0 = 0x100,     /* queue q's registers at GD_HWQ_QUEUE0 + q * GD_HWQ_QUEUE_STRIDE */
    GD_HWQ_QUEUE_STRIDE = 0x40
};
/* Per-queue register offsets. */
enum {
    GD_HWQ_Q_BASE = 0x00,      /* RW while disabled: ring base address (64-byte aligned) */
    GD_HWQ_Q_SIZE = 0x08,      /* RW while disabled: ring size in packets (a power of two) */
    GD_HWQ_Q_DOORBELL = 0x10,  /* RW: write index (packets written so far); a write rings the doorbell */
    GD_HWQ_Q_READ = 0x18,      /* RO: read index (packets the GPU has taken from the ring) */
    GD_HWQ_Q_ENABLE = 0x20     /* RW: 1 = active (enabling sets both indices to 0), 0 = stopped */
};
#define GD_HWQ_ID_VALUE 0x4744534d00010000ull  /* "GDSM", register map version 1.0 */
#define GD_HWQ_STATUS_BUSY 1u    /* packets not yet completed (in a ring or in the GPU) */
#define GD_HWQ_STATUS_IRQ 2u     /* the interrupt line is raised */
#define GD_HWQ_STATUS_ERROR 4u   /* a queue stopped on an error (GD_HWQ_ERROR) */
#define GD_HWQ_CAUSE_ERROR 63
#define GD_HWQ_MAX_QUEUES 63     /* INT_CAUSE has a bit per queue below GD_HWQ_CAUSE_ERROR */

/* Error codes (GD_HWQ_ERROR bits 0-15). */
enum gd_hwq_error {
    GD_HWQ_OK = 0,
    GD_HWQ_EPACKET = 1,      /* an AQL packet the GPU cannot run (type, fields) */
    GD_HWQ_EDESC = 2,        /* a kernel descriptor that is malformed or does not fit the device */
    GD_HWQ_EMEMORY = 3,      /* a read or write through the memory socket failed */
    GD_HWQ_ERING = 4,        /* a ring that cannot be (enable: size, alignment; doorbell: beyond the ring) */
    GD_HWQ_ETIME = 5         /* a CTA duration the platform's time resolution cannot represent */
};

typedef struct gd_hwq_queue {
    uint64_t base, size, write, read;
    int enabled;
    int stopped;             /* stopped on an error: fetches nothing until enabled again */
} gd_hwq_queue;

typedef struct gd_hwq_regs {
    uint32_t nqueues;
    gd_hwq_queue *q;
    uint64_t int_cause, int_enable, error, event, completed;
    uint64_t busy;           /* set by the module: packets not yet completed */
} gd_hwq_regs;

/* What a register write asks of the module. */
typedef struct gd_hwq_effect {
    int32_t doorbell;        /* the queue whose doorbell rang or that was enabled (-1: none) */
    int enabled;             /* ... it was enabled (both indices back to 0) */
    int irq_changed;         /* INT_CAUSE or INT_ENABLE changed: recompute the line */
    int acknowledged;        /* INT_CAUSE's error bit cleared: GD_HWQ_ERROR back to 0 */
} gd_hwq_effect;

int gd_hwq_init(gd_hwq_regs *r, uint32_t nqueues);
void gd_hwq_destroy(gd_hwq_regs *r);
/* Size of the register block in bytes. */
uint64_t gd_hwq_span(const gd_hwq_regs *r);
/* Read the 64-bit register at offset (8-byte aligned). 0, or -1 for an address with
 * no register. */
int gd_hwq_read(const gd_hwq_regs *r, uint64_t offset, uint64_t *value);
/* Write the bits of mask of the 64-bit register at offset (8-byte aligned). 0; -1 for
 * an address with no register; -2 for a read-only register or one that cannot be
 * written now (a ring's base or size while it is enabled). A bad ring setting or
 * doorbell value (behind the last one written, which would leave packets announced
 * unrun; behind the read index; more than a ring beyond it) stops the queue with
 * GD_HWQ_ERING (returns 0: the write itself was fine); why says what. */
int gd_hwq_write(gd_hwq_regs *r, uint64_t offset, uint64_t value, uint64_t mask, gd_hwq_effect *eff, char *why,
                 size_t n);
/* The interrupt line: some enabled cause is set. */
static inline int gd_hwq_irq(const gd_hwq_regs *r) { return (r->int_cause & r->int_enable) != 0; }
/* Stop queue q on an error (the first error is the one GD_HWQ_ERROR keeps). */
void gd_hwq_fail(gd_hwq_regs *r, uint32_t q, enum gd_hwq_error code, uint64_t packet);
/* The address of the packet at index i of queue q. */
static inline uint64_t gd_hwq_slot(const gd_hwq_queue *q, uint64_t i)
{
    return q->base + (i & (q->size - 1)) * GD_AQL_PACKET_SIZE;
}

/* A kernel descriptor in the platform's memory (what a dispatch's kernel_object
 * points at): an 8-byte header, then the body of a trace's kernel descriptor record
 * (traces/FORMAT.md, type 2). */
#define GD_HWQ_DESC_MAGIC 0x444b4447u  /* "GDKD" */
#define GD_HWQ_DESC_HEADER 8           /* u32 magic, u32 length of the body */
#define GD_HWQ_DESC_MAX 4096           /* longest body */
/* Check a descriptor header: 0 and the body's length, or -1 with why. */
int gd_hwq_desc_header(const uint8_t h[GD_HWQ_DESC_HEADER], uint32_t *len, char *why, size_t n);

/* Check a kernel dispatch packet against its descriptor and the device; fill the grid
 * in CTAs and each CTA's duration (the descriptor's, or for an execution time per
 * dispatch the packet's reserved2, in ps). 0, or -1 with why. */
int gd_hwq_dispatch_check(const gd_aql_dispatch *a, const gd_kernel_desc *k, const uint32_t max_grid[3],
                          uint32_t grid_ctas[3], uint64_t *ctas, gd_time_ps *cta_ps, char *why, size_t n);
/* Check a barrier-AND/-OR packet's header. 0, or -1 with why. */
int gd_hwq_barrier_check(const gd_aql_barrier_pkt *b, char *why, size_t n);

#ifdef __cplusplus
}
#endif

#endif
