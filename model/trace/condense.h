/* condense.h - the host side of seed 000: turn a trace's kernel dispatches into
 * reference packets and condensed packets, as a driver would (gdsim condense). */
#ifndef GD_CONDENSE_H
#define GD_CONDENSE_H

#include <stdint.h>

#include "gd_util.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct gd_condense_opts {
    uint32_t rsb_entries;  /* reference state table entries the encoder may use (1-8) */
    uint64_t window_ns;    /* a condensed packet holds dispatches submitted within this time of its first */
    int fifo;              /* replacement: 0 least recently used (default), 1 first in, first out */
} gd_condense_opts;

typedef struct gd_condense_stats {
    uint64_t dispatches;         /* kernel dispatches in the input */
    uint64_t references;         /* of those, written as reference packets (table misses) */
    uint64_t condensed_kernels;  /* written inside condensed packets (table hits) */
    uint64_t plain;              /* left as plain dispatches (cluster shape, wait-until time or tenant field) */
    uint64_t condensed_packets;
    uint64_t bytes_before, bytes_after;  /* 64 bytes per dispatch-carrying AQL packet */
} gd_condense_stats;

/* Read the trace at in and write out: kernel descriptors, barrier packets and
 * commands as they are; each dispatch either condensed against the reference state
 * table entry of the same kernel object that needs the fewest diff words (a hit), or
 * written as a reference packet into the least recently used entry (a miss; with
 * fifo, the entry loaded longest ago). Consecutive hits on one queue share a condensed packet
 * while their diffs fit its 62 bytes, no other packet comes between them in the
 * file, and they were submitted within window_ns of the first; the packet is
 * submitted with the last of them. A dispatch with a cluster shape or a wait-until
 * time stays a plain dispatch. */
int gd_condense_trace(const char *in, const char *out, const gd_condense_opts *o, gd_condense_stats *st,
                      gd_err *err);

#ifdef __cplusplus
}
#endif

#endif
