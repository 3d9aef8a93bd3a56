/* cta_rules.h - per-kernel CTA time rules (sm.cta_time_rules, `gdsim replay
 * --cta-time-rules FILE`; docs/WHATIF.md): a what-if that scales the CTA durations of
 * the kernels whose names match a pattern, for a user who knows how those kernels
 * would run elsewhere (another device, a faster GEMM library). Pure C.
 *
 * The file: one rule per line, `FACTOR PATTERN`: FACTOR a decimal from 0.001 to 1000
 * with at most 6 places (as sm.cta_time_scale), PATTERN the rest of the line, a shell
 * glob (fnmatch(3): * ? [...]) over the whole kernel name, case-sensitive, up to a
 * blank followed by '#' (a comment). Blank lines and lines whose first non-blank
 * character is '#' are skipped; a UTF-8 byte order mark at the start is too. A kernel takes the
 * first rule it matches; a kernel no rule matches keeps its time. Each rule counts the
 * kernels (descriptors) and dispatches it matched, for the report. */
#ifndef GD_CTA_RULES_H
#define GD_CTA_RULES_H

#include <stddef.h>
#include <stdint.h>

#include "gd_util.h"

#ifdef __cplusplus
extern "C" {
#endif

#define GD_CTA_RULES_FILE_MAX (1u << 20)  /* bytes: a rules file is a few lines */
#define GD_CTA_RULES_MAX 4096             /* rules in one file */
#define GD_CTA_RULE_MIN_PPM 1000u         /* 0.001 */
#define GD_CTA_RULE_MAX_PPM 1000000000u   /* 1000 */

typedef struct gd_cta_rule {
    char *pattern;
    uint32_t ppm;                 /* the factor, in millionths */
    uint32_t line;                /* where it is in the file */
    uint64_t kernels, dispatches; /* what it matched in the last replay */
} gd_cta_rule;

typedef struct gd_cta_rules {
    char *path;                   /* the file (as given) */
    gd_cta_rule *rule;
    uint32_t n;
    uint64_t unmatched_kernels, unmatched_dispatches;
} gd_cta_rules;

/* Parse text (len bytes; name for messages) into *out (empty before). 0, or
 * GD_ECONFIG with "NAME:LINE: what is wrong", GD_ENOMEM. On an error *out is left
 * empty. */
int gd_cta_rules_parse(gd_cta_rules *out, const char *text, size_t len, const char *name, gd_err *err);
/* Read and parse the file at path. 0, GD_EIO (cannot open or read, or larger than
 * GD_CTA_RULES_FILE_MAX), or gd_cta_rules_parse's errors. */
int gd_cta_rules_load(gd_cta_rules *out, const char *path, gd_err *err);
void gd_cta_rules_free(gd_cta_rules *r);  /* NULL-safe; leaves it empty */
/* The first rule name matches (its index), or -1. */
int gd_cta_rules_match(const gd_cta_rules *r, const char *name);
/* Zero every count (before a replay). */
void gd_cta_rules_reset(gd_cta_rules *r);

#ifdef __cplusplus
}
#endif

#endif
