/* compare.c - `gdsim compare A.json B.json`: two summary JSONs (--summary-json) side
 * by side: every figure of their "summary" objects with the difference and the ratio,
 * then the configuration keys whose values differ. The reader is a small JSON walker
 * (RFC 8259: objects, arrays, strings with escapes, numbers, literals; nesting to 64)
 * that keeps the members of the two top-level objects it needs; anything malformed is
 * an error naming the file and the byte offset. */
#include "compare.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { MAX_DEPTH = 64, MAX_FIELDS = 4096 };

typedef struct jfield {
    char *name;   /* "summary.kernels", "config.gpu.gpcs" */
    char *text;   /* the value's JSON text (a number, a string with its quotes, an array) */
} jfield;

typedef struct jdoc {
    const char *path;
    const char *s;
    size_t n, i;
    jfield f[MAX_FIELDS];
    size_t nf;
    char err[256];
} jdoc;

static int fail(jdoc *d, const char *what)
{
    if (!d->err[0])
        snprintf(d->err, sizeof d->err, "%s: byte %zu: %s", d->path, d->i, what);
    return -1;
}

static void ws(jdoc *d)
{
    while (d->i < d->n && (d->s[d->i] == ' ' || d->s[d->i] == '\t' || d->s[d->i] == '\n' || d->s[d->i] == '\r'))
        d->i++;
}

static int lit(jdoc *d, const char *w)
{
    size_t l = strlen(w);
    if (d->n - d->i < l || memcmp(d->s + d->i, w, l))
        return fail(d, "not a JSON value");
    d->i += l;
    return 0;
}

/* A string: its decoded text into *out (malloc'd) when out is not NULL. */
static int string(jdoc *d, char **out)
{
    if (d->i >= d->n || d->s[d->i] != '"')
        return fail(d, "expected a string");
    size_t start = ++d->i;
    while (d->i < d->n && d->s[d->i] != '"') {
        unsigned char c = (unsigned char)d->s[d->i];
        if (c < 0x20)
            return fail(d, "a control character in a string");
        if (c == '\\') {
            if (++d->i >= d->n)
                break;
            char e = d->s[d->i];
            if (e == 'u') {
                for (int k = 1; k <= 4; k++)
                    if (d->i + k >= d->n || !strchr("0123456789abcdefABCDEF", d->s[d->i + k]) || !d->s[d->i + k])
                        return fail(d, "a bad \\u escape");
                d->i += 4;
            } else if (!strchr("\"\\/bfnrt", e) || !e) {
                return fail(d, "a bad escape in a string");
            }
        }
        d->i++;
    }
    if (d->i >= d->n)
        return fail(d, "a string runs to the end of the file");
    if (out) {  /* names are plain in gdsim's JSON: the raw text, escapes kept */
        size_t l = d->i - start;
        if (!(*out = malloc(l + 1)))
            return fail(d, "out of memory");
        memcpy(*out, d->s + start, l);
        (*out)[l] = '\0';
    }
    d->i++;
    return 0;
}

static int number(jdoc *d)
{
    size_t j = d->i;
    if (j < d->n && d->s[j] == '-')
        j++;
    if (j >= d->n || d->s[j] < '0' || d->s[j] > '9')
        return fail(d, "not a JSON value");
    if (d->s[j] == '0')
        j++;
    else
        while (j < d->n && d->s[j] >= '0' && d->s[j] <= '9')
            j++;
    if (j < d->n && d->s[j] == '.') {
        if (++j >= d->n || d->s[j] < '0' || d->s[j] > '9')
            return fail(d, "a bad number");
        while (j < d->n && d->s[j] >= '0' && d->s[j] <= '9')
            j++;
    }
    if (j < d->n && (d->s[j] == 'e' || d->s[j] == 'E')) {
        j++;
        if (j < d->n && (d->s[j] == '+' || d->s[j] == '-'))
            j++;
        if (j >= d->n || d->s[j] < '0' || d->s[j] > '9')
            return fail(d, "a bad number");
        while (j < d->n && d->s[j] >= '0' && d->s[j] <= '9')
            j++;
    }
    char buf[64];  /* a gdsim summary's numbers are doubles: one past their range is not gdsim's */
    size_t len = j - d->i;
    if (len >= sizeof buf)
        return fail(d, "a number of more than 63 characters");
    memcpy(buf, d->s + d->i, len);
    buf[len] = '\0';
    errno = 0;
    double v = strtod(buf, NULL);
    if (errno == ERANGE && (v == HUGE_VAL || v == -HUGE_VAL))
        return fail(d, "a number out of the range of a double");
    d->i = j;
    return 0;
}

/* A value; members of the top-level "summary" and "config" objects are kept (prefix:
 * "summary." or "config." while inside one, NULL elsewhere). */
static int value(jdoc *d, int depth, const char *prefix);

static int object(jdoc *d, int depth, const char *prefix)
{
    d->i++;  /* '{' */
    ws(d);
    if (d->i < d->n && d->s[d->i] == '}') {
        d->i++;
        return 0;
    }
    for (;;) {
        char *name = NULL;
        ws(d);
        if (string(d, &name))
            return -1;
        ws(d);
        if (d->i >= d->n || d->s[d->i] != ':') {
            free(name);
            return fail(d, "expected ':'");
        }
        d->i++;
        ws(d);
        size_t at = d->i;
        const char *inner = NULL;
        if (depth == 1 && (!strcmp(name, "summary") || !strcmp(name, "config")))
            inner = !strcmp(name, "summary") ? "summary." : "config.";
        if (value(d, depth + 1, inner)) {
            free(name);
            return -1;
        }
        if (prefix && d->nf < MAX_FIELDS) {  /* a member of summary/config: its text */
            size_t pl = strlen(prefix), nl = strlen(name), vl = d->i - at;
            jfield *f = &d->f[d->nf];
            f->name = malloc(pl + nl + 1);
            f->text = malloc(vl + 1);
            if (!f->name || !f->text) {
                free(f->name);
                free(f->text);
                free(name);
                return fail(d, "out of memory");
            }
            memcpy(f->name, prefix, pl);
            memcpy(f->name + pl, name, nl + 1);
            memcpy(f->text, d->s + at, vl);
            f->text[vl] = '\0';
            d->nf++;
        }
        free(name);
        ws(d);
        if (d->i < d->n && d->s[d->i] == ',') {
            d->i++;
            continue;
        }
        if (d->i < d->n && d->s[d->i] == '}') {
            d->i++;
            return 0;
        }
        return fail(d, "expected ',' or '}'");
    }
}

static int value(jdoc *d, int depth, const char *prefix)
{
    if (depth > MAX_DEPTH)
        return fail(d, "nested too deeply");
    ws(d);
    if (d->i >= d->n)
        return fail(d, "the file ends where a value should be");
    char c = d->s[d->i];
    if (c == '{')
        return object(d, depth, depth == 2 ? prefix : NULL);
    if (c == '[') {
        d->i++;
        ws(d);
        if (d->i < d->n && d->s[d->i] == ']') {
            d->i++;
            return 0;
        }
        for (;;) {
            if (value(d, depth + 1, NULL))
                return -1;
            ws(d);
            if (d->i < d->n && d->s[d->i] == ',') {
                d->i++;
                continue;
            }
            if (d->i < d->n && d->s[d->i] == ']') {
                d->i++;
                return 0;
            }
            return fail(d, "expected ',' or ']'");
        }
    }
    if (c == '"')
        return string(d, NULL);
    if (c == 't')
        return lit(d, "true");
    if (c == 'f')
        return lit(d, "false");
    if (c == 'n')
        return lit(d, "null");
    return number(d);
}

int gd_compare_parse(gd_compare_doc **out, const char *path, const char *text, size_t len, char *err, size_t errsz)
{
    *out = NULL;
    jdoc *d = calloc(1, sizeof *d);
    if (!d) {
        snprintf(err, errsz, "out of memory");
        return -1;
    }
    d->path = path;
    d->s = text;
    d->n = len;
    ws(d);
    int rc = 0;
    if (d->i >= d->n || d->s[d->i] != '{')
        rc = fail(d, "not a JSON object (a gdsim summary JSON starts with '{')");
    else if (value(d, 1, NULL))
        rc = -1;
    else {
        ws(d);
        if (d->i != d->n)
            rc = fail(d, "text after the JSON object");
    }
    if (!rc) {
        int has_summary = 0;
        for (size_t k = 0; k < d->nf; k++)
            has_summary |= !strncmp(d->f[k].name, "summary.", 8);
        if (!has_summary)
            rc = fail(d, "no \"summary\" object: not a gdsim summary JSON (gdsim replay --summary-json)");
    }
    if (rc) {
        snprintf(err, errsz, "%s", d->err);
        gd_compare_free(d);
        return -1;
    }
    *out = d;
    return 0;
}

void gd_compare_free(gd_compare_doc *d)
{
    if (!d)
        return;
    for (size_t k = 0; k < d->nf; k++) {
        free(d->f[k].name);
        free(d->f[k].text);
    }
    free(d);
}

static const char *find(const gd_compare_doc *d, const char *name)
{
    for (size_t k = 0; k < d->nf; k++)
        if (!strcmp(d->f[k].name, name))
            return d->f[k].text;
    return NULL;
}

static int is_number(const char *t, double *v)
{
    char *end;
    errno = 0;
    *v = strtod(t, &end);
    return *t && *t != '"' && *t != '[' && !*end && !errno;
}

void gd_compare_print(FILE *f, const gd_compare_doc *a, const char *an, const gd_compare_doc *b, const char *bn)
{
    fprintf(f, "%-28s %18s %18s %18s %10s\n", "summary", "A", "B", "B - A", "B / A");
    fprintf(f, "  A: %s\n  B: %s\n", an, bn);
    for (size_t k = 0; k < a->nf; k++) {
        const jfield *x = &a->f[k];
        if (strncmp(x->name, "summary.", 8))
            continue;
        const char *y = find(b, x->name);
        double va, vb;
        if (!y) {
            fprintf(f, "%-28s %18s %18s\n", x->name + 8, x->text, "(none)");
        } else if (is_number(x->text, &va) && is_number(y, &vb)) {
            char ratio[32] = "-";
            if (va != 0)
                snprintf(ratio, sizeof ratio, "%.4f", vb / va);
            fprintf(f, "%-28s %18s %18s %18.12g %10s\n", x->name + 8, x->text, y, vb - va, ratio);
        } else {
            fprintf(f, "%-28s %18s %18s\n", x->name + 8, x->text, y);
        }
    }
    for (size_t k = 0; k < b->nf; k++)
        if (!strncmp(b->f[k].name, "summary.", 8) && !find(a, b->f[k].name))
            fprintf(f, "%-28s %18s %18s\n", b->f[k].name + 8, "(none)", b->f[k].text);
    size_t diffs = 0;
    for (int pass = 0; pass < 2; pass++) {
        const gd_compare_doc *p = pass ? b : a, *q = pass ? a : b;
        for (size_t k = 0; k < p->nf; k++) {
            const jfield *x = &p->f[k];
            if (strncmp(x->name, "config.", 7))
                continue;
            const char *y = find(q, x->name);
            if (pass && y)
                continue;  /* printed in the first pass */
            if (y && !strcmp(x->text, y))
                continue;
            if (!diffs++)
                fprintf(f, "configuration keys that differ:\n");
            fprintf(f, "  %-36s A %s  B %s\n", x->name + 7, pass ? "(none)" : x->text,
                    pass ? x->text : y ? y : "(none)");
        }
    }
    if (!diffs)
        fprintf(f, "configuration: the same\n");
}
