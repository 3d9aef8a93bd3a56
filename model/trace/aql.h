/* aql.h - HSA AQL packets in their 64-byte in-memory layout (HSA Platform System
 * Architecture Specification 1.2, section 2.9; seed 000 table 1).
 *
 *  offset size field
 *   0     2    header: bits 0-7 packet type, bit 8 barrier, bits 9-10 acquire fence
 *              scope, bits 11-12 release fence scope (seed 000 calls bits 8-15
 *              "synch_scopes")
 *   2     2    setup: bits 0-1 number of grid dimensions
 *   4     6    workgroup_size_x, _y, _z (work-items)
 *  10     2    reserved0 (seed 000: ref_num of a reference packet)
 *  12    12    grid_size_x, _y, _z (work-items)
 *  24     4    private_segment_size (bytes per work-item)
 *  28     4    group_segment_size (bytes per work-group, static + dynamic)
 *  32     8    kernel_object (gdsim: the id of a kernel descriptor record)
 *  40     8    kernarg_address
 *  48     8    reserved2
 *  56     8    completion_signal (handle; 0 = none)
 * All fields little-endian. */
#ifndef GD_AQL_H
#define GD_AQL_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define GD_AQL_PACKET_SIZE 64

enum {
    GD_AQL_TYPE_VENDOR_SPECIFIC = 0,
    GD_AQL_TYPE_INVALID = 1,
    GD_AQL_TYPE_KERNEL_DISPATCH = 2,
    GD_AQL_TYPE_BARRIER_AND = 3,
    GD_AQL_TYPE_AGENT_DISPATCH = 4,
    GD_AQL_TYPE_BARRIER_OR = 5
};

#define GD_AQL_HEADER_TYPE_MASK 0xffu
#define GD_AQL_HEADER_BARRIER (1u << 8)
#define GD_AQL_HEADER_ACQUIRE_SHIFT 9
#define GD_AQL_HEADER_RELEASE_SHIFT 11
#define GD_AQL_FENCE_SCOPE_MASK 3u  /* 0 none, 1 agent, 2 system, 3 reserved */

typedef struct gd_aql_dispatch {
    uint16_t header;
    uint16_t setup;
    uint16_t workgroup_size[3];
    uint16_t reserved0;
    uint32_t grid_size[3];
    uint32_t private_segment_size;
    uint32_t group_segment_size;
    uint64_t kernel_object;
    uint64_t kernarg_address;
    uint64_t reserved2;
    uint64_t completion_signal;
} gd_aql_dispatch;

/* Barrier-AND and barrier-OR packets (HSA 1.2, section 2.9.6-2.9.7):
 *  offset size field
 *   0     2    header (type 3 = barrier-AND, 5 = barrier-OR; barrier bit, fences)
 *   2     2    reserved0
 *   4     4    reserved1
 *   8     40   dep_signal[5] (handles; 0 = none: satisfied for AND, never for OR)
 *  48     8    reserved2
 *  56     8    completion_signal */
typedef struct gd_aql_barrier {
    uint16_t header;
    uint16_t reserved0;
    uint32_t reserved1;
    uint64_t dep_signal[5];
    uint64_t reserved2;
    uint64_t completion_signal;
} gd_aql_barrier_pkt;

void gd_aql_encode(uint8_t out[GD_AQL_PACKET_SIZE], const gd_aql_dispatch *p);
void gd_aql_barrier_encode(uint8_t out[GD_AQL_PACKET_SIZE], const gd_aql_barrier_pkt *p);
void gd_aql_barrier_decode(gd_aql_barrier_pkt *p, const uint8_t in[GD_AQL_PACKET_SIZE]);
void gd_aql_decode(gd_aql_dispatch *p, const uint8_t in[GD_AQL_PACKET_SIZE]);

static inline unsigned gd_aql_type(uint16_t header) { return header & GD_AQL_HEADER_TYPE_MASK; }
static inline int gd_aql_barrier(uint16_t header) { return (header & GD_AQL_HEADER_BARRIER) != 0; }
static inline unsigned gd_aql_dims(uint16_t setup) { return setup & 3u; }

/* Little-endian field access used by the trace codec too. */
static inline void gd_put16(uint8_t *p, uint16_t v) { p[0] = (uint8_t)v; p[1] = (uint8_t)(v >> 8); }
static inline void gd_put32(uint8_t *p, uint32_t v) { gd_put16(p, (uint16_t)v); gd_put16(p + 2, (uint16_t)(v >> 16)); }
static inline void gd_put64(uint8_t *p, uint64_t v) { gd_put32(p, (uint32_t)v); gd_put32(p + 4, (uint32_t)(v >> 32)); }
static inline uint16_t gd_get16(const uint8_t *p) { return (uint16_t)(p[0] | (p[1] << 8)); }
static inline uint32_t gd_get32(const uint8_t *p) { return gd_get16(p) | ((uint32_t)gd_get16(p + 2) << 16); }
static inline uint64_t gd_get64(const uint8_t *p) { return gd_get32(p) | ((uint64_t)gd_get32(p + 4) << 32); }

#ifdef __cplusplus
}
#endif

#endif
