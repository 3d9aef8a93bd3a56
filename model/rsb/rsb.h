/* rsb.h - the reference state buffer's decisions, pure C (seed 000 [0090]-[0093],
 * table 3): a reference state table (RST) of rsb.entries entries, indexed by the
 * ref_num of a reference packet. A reference packet installs its dispatch into its
 * entry (replacing, that is evicting, what the entry held); a condensed packet's
 * kernel looks its entry up; an entry may be evicted (invalidated) on its own.
 * The packet processor reaches the buffer through the SystemC module
 * (reference_state_buffer.hpp), one transaction per operation. */
#ifndef GD_RSB_H
#define GD_RSB_H

#include <stdint.h>

#include "aql.h"
#include "condensed.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct gd_rsb {
    gd_rst rst;                   /* the table (size = rsb.entries, at most GD_RST_MAX) */
    uint64_t installs, evictions, lookups, misses;
} gd_rsb;

void gd_rsb_init(gd_rsb *b, uint32_t entries);

/* Install a reference packet's dispatch at ref_num. Returns 1 when the entry held
 * another dispatch (evicted: copied to *evicted unless NULL), 0 when it was empty,
 * -1 when ref_num is beyond the table (nothing changes). The stored entry keeps
 * reserved0 = ref_num. */
int gd_rsb_install(gd_rsb *b, uint32_t ref_num, const gd_aql_dispatch *pkt, gd_aql_dispatch *evicted);

/* The dispatch stored at ref_num, or NULL when the entry is empty or beyond the
 * table (a miss, counted). */
const gd_aql_dispatch *gd_rsb_lookup(gd_rsb *b, uint32_t ref_num);

/* Invalidate the entry at ref_num. 1 when it held a dispatch, 0 when it was empty,
 * -1 when ref_num is beyond the table. */
int gd_rsb_evict(gd_rsb *b, uint32_t ref_num);

#ifdef __cplusplus
}
#endif

#endif
