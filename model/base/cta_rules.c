#include "cta_rules.h"

#include <fnmatch.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "config.h"
#include "gdsim.h"

void gd_cta_rules_free(gd_cta_rules *r)
{
    if (!r)
        return;
    for (uint32_t i = 0; i < r->n; i++)
        free(r->rule[i].pattern);
    free(r->rule);
    free(r->path);
    memset(r, 0, sizeof *r);
}

void gd_cta_rules_reset(gd_cta_rules *r)
{
    for (uint32_t i = 0; i < r->n; i++)
        r->rule[i].kernels = r->rule[i].dispatches = 0;
    r->unmatched_kernels = r->unmatched_dispatches = 0;
}

int gd_cta_rules_match(const gd_cta_rules *r, const char *name)
{
    for (uint32_t i = 0; i < r->n; i++)
        if (fnmatch(r->rule[i].pattern, name, 0) == 0)
            return (int)i;
    return -1;
}

static int is_blank(char c) { return c == ' ' || c == '\t' || c == '\r'; }

/* One line (NUL-terminated, no newline) into a rule, or a message in why. 1: a rule,
 * 0: nothing (blank, a comment), -1: bad (why says), -2: out of memory. */
static int parse_line(char *s, gd_cta_rule *out, char *why, size_t n)
{
    while (is_blank(*s))
        s++;
    size_t len = strlen(s);
    while (len && is_blank(s[len - 1]))
        s[--len] = '\0';
    if (!*s || *s == '#')
        return 0;
    for (char *p = s; *p; p++)  /* a blank then '#' starts a comment */
        if (*p == '#' && p > s && is_blank(p[-1])) {
            *p = '\0';
            while (p > s && is_blank(p[-1]))
                *--p = '\0';
            break;
        }
    len = strlen(s);
    for (const char *p = s; *p; p++)
        if (((unsigned char)*p < 0x20 && *p != '\t') || *p == 0x7f) {
            snprintf(why, n, "a control character (byte 0x%02x)", (unsigned char)*p);
            return -1;
        }
    if (!gd_utf8_valid(s, len)) {
        snprintf(why, n, "not UTF-8 text");
        return -1;
    }
    char *pat = s;
    while (*pat && !is_blank(*pat))
        pat++;
    if (!*pat) {
        snprintf(why, n, "'%.40s' has no pattern: each line is FACTOR PATTERN, e.g. '0.5 *gemm*'", s);
        return -1;
    }
    *pat++ = '\0';
    while (is_blank(*pat))
        pat++;
    uint64_t ppm;
    if (gd_scale_parse(s, &ppm) || ppm < GD_CTA_RULE_MIN_PPM || ppm > GD_CTA_RULE_MAX_PPM) {
        snprintf(why, n, "bad factor '%.40s': a decimal from 0.001 to 1000 with at most 6 places", s);
        return -1;
    }
    if (!(out->pattern = strdup(pat)))
        return -2;
    out->ppm = (uint32_t)ppm;
    return 1;
}

int gd_cta_rules_parse(gd_cta_rules *out, const char *text, size_t len, const char *name, gd_err *err)
{
    memset(out, 0, sizeof *out);
    if (memchr(text, '\0', len))
        return gd_err_set(err, GD_ECONFIG, "%s: a NUL byte: not a rules file (each line FACTOR PATTERN)", name);
    char *buf = malloc(len + 1);
    if (!buf)
        return gd_err_set(err, GD_ENOMEM, "out of memory");
    memcpy(buf, text, len);
    buf[len] = '\0';
    char *start = buf;
    if (len >= 3 && memcmp(buf, "\xef\xbb\xbf", 3) == 0)  /* a UTF-8 byte order mark */
        start += 3;
    int rc = 0;
    uint32_t line = 0, cap = 0;
    for (char *s = start; s && !rc; line++) {
        char *nl = strchr(s, '\n');
        if (nl)
            *nl = '\0';
        gd_cta_rule r = {0};
        char why[160];
        int got = parse_line(s, &r, why, sizeof why);
        if (got == -1) {
            rc = gd_err_set(err, GD_ECONFIG, "%s:%u: %s", name, line + 1, why);
        } else if (got == -2) {
            rc = gd_err_set(err, GD_ENOMEM, "out of memory");
        } else if (got == 1) {
            if (out->n == GD_CTA_RULES_MAX) {
                free(r.pattern);
                rc = gd_err_set(err, GD_ECONFIG, "%s:%u: more than %u rules", name, line + 1, GD_CTA_RULES_MAX);
            } else if (out->n == cap) {
                cap = cap ? 2 * cap : 8;
                gd_cta_rule *g = realloc(out->rule, cap * sizeof *g);
                if (!g) {
                    free(r.pattern);
                    rc = gd_err_set(err, GD_ENOMEM, "out of memory");
                } else {
                    out->rule = g;
                }
            }
            if (!rc) {
                r.line = line + 1;
                out->rule[out->n++] = r;
            }
        }
        s = nl ? nl + 1 : NULL;
    }
    free(buf);
    if (!rc && !out->n)
        rc = gd_err_set(err, GD_ECONFIG, "%s: no rules (each line FACTOR PATTERN, e.g. '0.5 *gemm*')", name);
    if (!rc && !(out->path = strdup(name)))
        rc = gd_err_set(err, GD_ENOMEM, "out of memory");
    if (rc)
        gd_cta_rules_free(out);
    return rc;
}

int gd_cta_rules_load(gd_cta_rules *out, const char *path, gd_err *err)
{
    memset(out, 0, sizeof *out);
    char *text;
    size_t n;
    int rc = gd_read_small_file(path, GD_CTA_RULES_FILE_MAX, &text, &n, err);
    if (!rc && n > GD_CTA_RULES_FILE_MAX)
        rc = gd_err_set(err, GD_EIO, "%s: larger than %u bytes: not a rules file", path, GD_CTA_RULES_FILE_MAX);
    else if (!rc)
        rc = gd_cta_rules_parse(out, text, n, path, err);
    free(text);
    return rc;
}
