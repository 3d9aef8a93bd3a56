/* stats.h - the statistics registry every block reports through (the way gem5 and
 * VCML blocks declare their stats): a block registers its counters and
 * distributions by block instance and name, with a unit and a description, and
 * may register a report section (its lines in the text summary and its object in
 * the JSON summary). The writers (summary.h) know no block: they print what was
 * registered, in registration order. Pure C. */
#ifndef GD_STATS_H
#define GD_STATS_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "config.h"
#include "gdsim.h"
#include "hist.h"

#ifdef __cplusplus
extern "C" {
#endif

/* A distribution's figures, in the unit of the values added to its histogram. */
typedef struct gd_dist {
    uint64_t count;
    double mean, p50, p99, max;
} gd_dist;

typedef struct gd_stat {
    char *block;          /* block instance, e.g. "gpc2sm_3" */
    const char *name;     /* e.g. "ctas_launched" */
    const char *unit;
    const char *desc;
    const uint64_t *src;  /* counter: live while the model runs */
    uint64_t value;       /* counter: frozen value */
    const gd_hist *hist;  /* distribution: live while the model runs (NULL: a counter) */
    gd_dist dist;         /* distribution: frozen figures */
    int is_dist;
} gd_stat;

typedef struct gd_stats gd_stats;

/* What a report section is given. */
typedef struct gd_section_ctx {
    const char *block;          /* the block that registered it */
    const gd_stats *stats;      /* frozen */
    const gd_summary *summary;
    const gd_config *cfg;
} gd_section_ctx;

/* Writes a block's part of a report. A JSON section writes one or more members of
 * the top-level object, each `  "key": value,` followed by a newline. */
typedef void (*gd_section_fn)(FILE *f, const gd_section_ctx *c);

typedef struct gd_section {
    char *block;
    gd_section_fn text, json;   /* either may be NULL */
} gd_section;

struct gd_stats {
    gd_stat *v;
    size_t n, cap;
    gd_section *sec;
    size_t nsec, capsec;
    int nomem;  /* an add failed for want of memory: the registry is incomplete */
    uint32_t *index;      /* gd_stats_find's hash of (block, name) -> position + 1, built when needed */
    size_t index_size, index_n;  /* its slots; the entries it covers (rebuilt when n grows) */
};

void gd_stats_init(gd_stats *s);
void gd_stats_destroy(gd_stats *s);
/* A counter. The strings name, unit and desc must outlive the registry (literals);
 * block is copied. 0, or -1 when out of memory. */
int gd_stats_add(gd_stats *s, const char *block, const char *name, const char *unit, const char *desc,
                 const uint64_t *src);
/* A distribution of the values added to h. */
int gd_stats_add_dist(gd_stats *s, const char *block, const char *name, const char *unit, const char *desc,
                      const gd_hist *h);
/* A report section; the functions may read only the registry and the context. */
int gd_stats_add_section(gd_stats *s, const char *block, gd_section_fn text, gd_section_fn json);
/* A registered statistic, or NULL. */
const gd_stat *gd_stats_find(const gd_stats *s, const char *block, const char *name);
/* The value of a block's counter (live or frozen); 0 when there is none. */
uint64_t gd_stats_get(const gd_stats *s, const char *block, const char *name);
/* Copy every live counter and distribution into its frozen value and forget the
 * sources (the blocks that own them may then go). */
void gd_stats_freeze(gd_stats *s);

/* A JSON string literal of s (quotes and escapes). */
void gd_json_str(FILE *f, const char *s);

#ifdef __cplusplus
}
#endif

#endif
