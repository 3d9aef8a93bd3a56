/* topology.h - a pipeline topology (seed 002, [0033]-[0056], fig 1): kernels
 * connected by bounded buffers, which the meta-scheduler runs on the GPU like a Kahn
 * process network ([0092]); its text format (traces/TOPOLOGY.md) and its validation
 * before anything runs, the host-side compiler's checks ([0057]-[0064], [0097]-[0099]).
 * Pure C.
 *
 * Semantics (the seed leaves them open; gdsim fixes them, TOPOLOGY.md):
 *  - a buffer holds up to `length` entries of `width` bytes, one item each; 1-D, or
 *    2-D with dims W x H ([0053]);
 *  - a CTA of a kernel consumes `items` items (a W x H block from a 2-D buffer) from
 *    *each* of its input buffers (a join, as a Kahn process reads a token from each
 *    input channel) and, when it ends, writes `out_items` items into each output;
 *    its amplification factor bounds that: out_items <= items x amplification
 *    ([0034], [0054]), and it is what the meta-scheduler reserves at launch so that
 *    no buffer overflows ([0098]);
 *  - the host writes a buffer's `initial` items before the pipeline starts; a buffer
 *    marked `drain` is read by the host (the pipeline's result), not by a kernel. */
#ifndef GD_TOPOLOGY_H
#define GD_TOPOLOGY_H

#include <stddef.h>
#include <stdint.h>

#include "gd_util.h"

#ifdef __cplusplus
extern "C" {
#endif

#define GD_META_MAX_KERNELS 64
#define GD_META_MAX_BUFFERS 64
#define GD_META_MAX_PORTS 8     /* input or output buffers of one kernel */
#define GD_META_NAME 32         /* names: at most 31 characters */
#define GD_META_MAX_TEXT (1u << 20)  /* a topology file: at most 1 MiB */

/* meta.policy ([0106]-[0109]) */
enum gd_meta_policy {
    GD_META_ROUND_ROBIN = 0, /* buffers checked in turn; every consumer of one with data runs */
    GD_META_PRIORITY = 1,    /* the most important kernel with data first */
    GD_META_MOST_DATA = 2    /* the consumer of the fullest buffer first */
};
const char *gd_meta_policy_name(int policy);
/* -1 if name is no policy */
int gd_meta_policy_parse(const char *name);

typedef struct gd_meta_buffer {
    char name[GD_META_NAME];
    uint32_t width;      /* bytes per entry */
    uint32_t dim[2];     /* entries per dimension (1-D: dim[1] = 1) */
    uint64_t length;     /* entries, dim[0] x dim[1] */
    uint64_t initial;    /* items the host writes before the pipeline starts */
    uint8_t drain;       /* the host reads it: it needs no consumer kernel */
    uint8_t two_d;       /* declared with dims= */
    uint32_t line;       /* where it is declared */
} gd_meta_buffer;

typedef struct gd_meta_kernel {
    char name[GD_META_NAME];
    uint32_t threads, regs, smem;  /* one CTA: threads, registers per thread, shared memory bytes */
    uint32_t block[2];             /* items one CTA consumes from each input: block[0] x block[1] */
    uint64_t items;                /* block[0] x block[1] */
    uint8_t block_2d;              /* items given as W x H */
    uint32_t amplification;        /* most items written per item consumed, into each output */
    uint64_t out_items;            /* items one CTA writes into each output (<= items x amplification) */
    uint64_t cta_ns, ns_per_item;  /* a CTA runs cta_ns + ns_per_item x items */
    uint32_t importance;           /* higher: more important ([0055], [0095]) */
    uint32_t nin, nout;
    char in_name[GD_META_MAX_PORTS][GD_META_NAME], out_name[GD_META_MAX_PORTS][GD_META_NAME];
    int16_t in[GD_META_MAX_PORTS], out[GD_META_MAX_PORTS];  /* buffer indices; -1: no such buffer */
    uint32_t line;
} gd_meta_kernel;

typedef struct gd_topology {
    char source[256];    /* the file (for messages) */
    char name[GD_META_NAME];
    int policy;          /* enum gd_meta_policy, or -1: not in the file (meta.policy decides) */
    uint32_t nkernels, nbuffers;
    gd_meta_kernel k[GD_META_MAX_KERNELS];
    gd_meta_buffer b[GD_META_MAX_BUFFERS];
} gd_topology;

/* Parse a topology from text (len bytes; need not be NUL-terminated). source names it
 * in messages. On a syntax error returns GD_EFORMAT with err = "SOURCE:LINE: what";
 * names of buffers that kernels use are resolved (-1 where none is declared: the
 * validation reports it). */
int gd_topology_parse(gd_topology *t, const char *text, size_t len, const char *source, gd_err *err);

/* Read and parse a file (at most GD_META_MAX_TEXT bytes). GD_EIO if it cannot be read. */
int gd_topology_load(gd_topology *t, const char *path, gd_err *err);

/* The validation rules (TOPOLOGY.md names each). */
enum gd_topo_rule {
    GD_TOPO_UNKNOWN_BUFFER = 0, /* a kernel reads or writes a buffer that is not declared ([0099]) */
    GD_TOPO_UNCONNECTED,        /* a buffer no kernel reads or writes ([0099]) */
    GD_TOPO_NO_CONSUMER,        /* a buffer that receives items but that nothing reads (not drain) */
    GD_TOPO_NO_INPUT,           /* a kernel without an input buffer: nothing would launch it ([0092]) */
    GD_TOPO_OUT_OF_RANGE,       /* a CTA reads more items, or a larger block, than its buffer holds ([0099]) */
    GD_TOPO_OVERFLOW,           /* a CTA may write more than its output holds, or more initial items than entries ([0057]) */
    GD_TOPO_STARVED,            /* a kernel whose input can never receive one CTA's items ([0057]) */
    GD_TOPO_DEADLOCK,           /* a buffer too short for its producer and consumer, or a cycle whose buffers can all fill ([0057], [0098]) */
    GD_TOPO_ENDLESS_LOOP,       /* a cycle that returns at least as many items as enter it ([0063]) */
    GD_TOPO_RULES
};
const char *gd_topo_rule_name(int rule);

typedef struct gd_topo_verdict {
    int rule;          /* enum gd_topo_rule */
    uint32_t line;     /* line of the part it names */
    char part[GD_META_NAME + 8];  /* "kernel K2", "buffer F3" */
    char text[320];
} gd_topo_verdict;

/* What the validation needs of the device and configuration. */
typedef struct gd_topo_limits {
    uint32_t simd_width;  /* meta.simd_width: items a consumer waits for ([0097]) */
} gd_topo_limits;

/* Check a parsed topology. Stores up to cap verdicts (in a fixed order: rule by rule,
 * parts in declaration order) and returns how many errors there are (0: valid; more
 * than cap: the rest are counted, not stored). */
size_t gd_topology_validate(const gd_topology *t, const gd_topo_limits *lim, gd_topo_verdict *v, size_t cap);

/* What one CTA of k may write into each output: the meta-scheduler reserves it at launch. */
static inline uint64_t gd_meta_reserve(const gd_meta_kernel *k) { return k->items * k->amplification; }

#ifdef __cplusplus
}
#endif

#endif
