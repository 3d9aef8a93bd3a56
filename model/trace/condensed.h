/* condensed.h - seed 000's reference and condensed kernel dispatch packets, pure C.
 *
 * A reference packet is an AQL kernel dispatch whose reserved0 carries a ref_num
 * (seed 000 table 2): processing it stores its dispatch and cleanup information in
 * the reference state table (RST) of the reference state buffer (RSB) at that index
 * (table 3) and launches the kernel as usual. A condensed packet (table 4, 64 bytes)
 * then launches several kernels, each described as a reference entry plus the
 * fields that differ:
 *
 *  offset size field
 *   0     1    header: packet type GD_AQL_TYPE_CONDENSED_DISPATCH
 *   1     1    num_kernels
 *   2     62   diff_values[31], 16-bit words: per kernel a diff header
 *              {ref_num:3, diff_vector:13} (table 5; ref_num in the low bits) and
 *              then the new value of every field whose diff_vector bit is set, in
 *              bit order, in 16-bit words, the most significant word first (a
 *              64-bit field takes 4 words, a 32-bit one 2, a 16- or 8-bit one 1)
 *
 * The 13 diff_vector bits are table 1's fields in order, without the header's packet
 * type, reserved0 (the ref_num) and reserved2 (enum gd_diff_field); table 6's
 * example marks the completion signal with 0x1000 and the kernarg with 0x0800. A
 * diff header with no bit set launches the reference entry unchanged. */
#ifndef GD_CONDENSED_H
#define GD_CONDENSED_H

#include <stddef.h>
#include <stdint.h>

#include "aql.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Seed 000 names the packet type (hsa_packet_type_condensed_dispatch) without a
 * number; HSA 1.2 uses 0-5, gdsim takes the next one. */
#define GD_AQL_TYPE_CONDENSED_DISPATCH 6
#define GD_CONDENSED_WORDS 31          /* diff_values[31]: 62 bytes */
#define GD_RST_MAX 8                   /* a diff header's ref_num has 3 bits */

enum gd_diff_field {
    GD_DIFF_SYNCH_SCOPES = 0,  /* header bits 8-15: barrier bit, acquire and release fence scopes */
    GD_DIFF_SETUP,
    GD_DIFF_WORKGROUP_X,
    GD_DIFF_WORKGROUP_Y,
    GD_DIFF_WORKGROUP_Z,
    GD_DIFF_GRID_X,
    GD_DIFF_GRID_Y,
    GD_DIFF_GRID_Z,
    GD_DIFF_PRIVATE_SEGMENT,
    GD_DIFF_GROUP_SEGMENT,
    GD_DIFF_KERNEL_OBJECT,
    GD_DIFF_KERNARG,
    GD_DIFF_COMPLETION_SIGNAL,
    GD_DIFF_FIELDS
};

/* Words a field's new value takes in diff_values. */
unsigned gd_diff_field_words(unsigned field);
/* A field's name ("completion_signal", ...); NULL for an unknown field. */
const char *gd_diff_field_name(unsigned field);
/* A field's value in a dispatch, and setting it. */
uint64_t gd_diff_field_get(const gd_aql_dispatch *d, unsigned field);
void gd_diff_field_set(gd_aql_dispatch *d, unsigned field, uint64_t v);
/* The diff_vector bits of the fields in which d differs from ref. */
uint16_t gd_diff_vector(const gd_aql_dispatch *ref, const gd_aql_dispatch *d);

/* The reference state table: what reference packets stored, by ref_num. */
typedef struct gd_rst {
    uint32_t size;                 /* entries (rsb.entries, at most GD_RST_MAX usable by condensed packets) */
    uint8_t valid[GD_RST_MAX];
    gd_aql_dispatch entry[GD_RST_MAX];
} gd_rst;

void gd_rst_init(gd_rst *t, uint32_t size);
/* Store a reference packet's dispatch at its ref_num (its reserved0; the stored
 * entry keeps reserved0 = ref_num). -1 when the ref_num is beyond the table. */
int gd_rst_store(gd_rst *t, const gd_aql_dispatch *ref_pkt);

/* A condensed packet in its 64-byte form. */
typedef struct gd_condensed_pkt {
    uint8_t header;
    uint8_t num_kernels;
    uint16_t diff[GD_CONDENSED_WORDS];
} gd_condensed_pkt;

void gd_condensed_encode_bytes(uint8_t out[GD_AQL_PACKET_SIZE], const gd_condensed_pkt *p);
void gd_condensed_decode_bytes(gd_condensed_pkt *p, const uint8_t in[GD_AQL_PACKET_SIZE]);

/* Building a condensed packet kernel by kernel. */
typedef struct gd_condensed_builder {
    gd_condensed_pkt pkt;
    uint32_t used;                 /* words of diff_values used */
} gd_condensed_builder;

void gd_condensed_begin(gd_condensed_builder *b);
/* Add a kernel: dispatch d described against RST entry ref_num (which must hold
 * what the kernel agent will hold when it processes the packet). Returns 0, or -1
 * (nothing added) when its diff header and values do not fit the words left or the
 * packet already holds 31 kernels. Fields that cannot be expressed (reserved0 and
 * reserved2, the header's packet type) must equal the entry's: -2 otherwise. */
int gd_condensed_add(gd_condensed_builder *b, const gd_rst *t, uint32_t ref_num, const gd_aql_dispatch *d);
/* The words a kernel would take (its diff header included). */
uint32_t gd_condensed_cost(const gd_aql_dispatch *ref, const gd_aql_dispatch *d);

/* Seed 000 fig 6-7: does kernel k of the n a condensed packet launches need its own
 * cleanup (completion latency)? The last one always; an earlier one only when its
 * cleanup information asks for it: a completion signal or a release fence. */
int gd_condensed_needs_cleanup(const gd_aql_dispatch *d, uint32_t k, uint32_t n);

/* Decoding: the dispatches a condensed packet launches, in order. Returns the number
 * of kernels (filling out[0..n-1], reserved0 = the ref_num used, reserved2 = 0), or
 * -1 with why[] naming the problem: num_kernels 0 or above what 62 bytes can
 * describe (31), a ref_num never loaded, diff values running past the 62 bytes, a
 * result that is not a valid dispatch (workgroup or grid size 0, setup not 1-3
 * dimensions, a reserved fence scope or header bit). Words left after the last
 * kernel must be 0. */
int gd_condensed_decode(const gd_condensed_pkt *p, const gd_rst *t, gd_aql_dispatch out[GD_CONDENSED_WORDS],
                        char *why, size_t why_size);

#ifdef __cplusplus
}
#endif

#endif
