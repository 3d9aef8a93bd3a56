#include "stats.h"

#include <stdlib.h>
#include <string.h>

void gd_stats_init(gd_stats *s) { memset(s, 0, sizeof *s); }

void gd_stats_destroy(gd_stats *s)
{
    for (size_t i = 0; i < s->n; i++)
        free(s->v[i].block);
    for (size_t i = 0; i < s->nsec; i++)
        free(s->sec[i].block);
    free(s->v);
    free(s->sec);
    free(s->index);
    memset(s, 0, sizeof *s);
}

static gd_stat *add(gd_stats *s, const char *block, const char *name, const char *unit, const char *desc)
{
    if (s->n == s->cap) {
        size_t ncap = s->cap ? s->cap * 2 : 64;
        gd_stat *nv = realloc(s->v, ncap * sizeof *nv);
        if (!nv)
            return NULL;
        s->v = nv;
        s->cap = ncap;
    }
    gd_stat *st = &s->v[s->n];
    memset(st, 0, sizeof *st);
    if (!(st->block = strdup(block)))
        return NULL;
    st->name = name;
    st->unit = unit;
    st->desc = desc;
    s->n++;
    return st;
}

int gd_stats_add(gd_stats *s, const char *block, const char *name, const char *unit, const char *desc,
                 const uint64_t *src)
{
    gd_stat *st = add(s, block, name, unit, desc);
    if (!st)
        return s->nomem = 1, -1;
    st->src = src;
    return 0;
}

int gd_stats_add_dist(gd_stats *s, const char *block, const char *name, const char *unit, const char *desc,
                      const gd_hist *h)
{
    gd_stat *st = add(s, block, name, unit, desc);
    if (!st)
        return s->nomem = 1, -1;
    st->hist = h;
    st->is_dist = 1;
    return 0;
}

int gd_stats_add_section(gd_stats *s, const char *block, gd_section_fn text, gd_section_fn json)
{
    if (s->nsec == s->capsec) {
        size_t ncap = s->capsec ? s->capsec * 2 : 8;
        gd_section *nv = realloc(s->sec, ncap * sizeof *nv);
        if (!nv)
            return s->nomem = 1, -1;
        s->sec = nv;
        s->capsec = ncap;
    }
    gd_section *sec = &s->sec[s->nsec];
    if (!(sec->block = strdup(block)))
        return s->nomem = 1, -1;
    sec->text = text;
    sec->json = json;
    s->nsec++;
    return 0;
}

static uint64_t key_hash(const char *block, const char *name)
{
    uint64_t h = 14695981039346656037ull;  /* FNV-1a over block, a separator, name */
    for (const char *p = block; *p; p++)
        h = (h ^ (unsigned char)*p) * 1099511628211ull;
    h = (h ^ 0xFF) * 1099511628211ull;
    for (const char *p = name; *p; p++)
        h = (h ^ (unsigned char)*p) * 1099511628211ull;
    return h;
}

/* The hash index of the entries (a report looks up every SM's figures: a linear search
 * made the report quadratic in the SM count). 0 when built, -1 out of memory. */
static int build_index(gd_stats *s)
{
    size_t size = 64;
    while (size < 2 * s->n)
        size *= 2;
    uint32_t *ix = calloc(size, sizeof *ix);
    if (!ix)
        return -1;
    for (size_t i = 0; i < s->n; i++) {
        size_t k = (size_t)key_hash(s->v[i].block, s->v[i].name) & (size - 1);
        while (ix[k])
            k = (k + 1) & (size - 1);
        ix[k] = (uint32_t)(i + 1);
    }
    free(s->index);
    s->index = ix;
    s->index_size = size;
    s->index_n = s->n;
    return 0;
}

const gd_stat *gd_stats_find(const gd_stats *cs, const char *block, const char *name)
{
    gd_stats *s = (gd_stats *)cs;  /* the index is a cache: the registry does not change */
    if (s->index_n != s->n && build_index(s) != 0) {
        for (size_t i = 0; i < s->n; i++)  /* no memory for the index: search */
            if (!strcmp(s->v[i].block, block) && !strcmp(s->v[i].name, name))
                return &s->v[i];
        return NULL;
    }
    if (!s->index)
        return NULL;
    size_t mask = s->index_size - 1;
    for (size_t k = (size_t)key_hash(block, name) & mask; s->index[k]; k = (k + 1) & mask) {
        const gd_stat *st = &s->v[s->index[k] - 1];
        if (!strcmp(st->block, block) && !strcmp(st->name, name))
            return st;
    }
    return NULL;
}

uint64_t gd_stats_get(const gd_stats *s, const char *block, const char *name)
{
    const gd_stat *st = gd_stats_find(s, block, name);
    if (!st || st->is_dist)
        return 0;
    return st->src ? *st->src : st->value;
}

static void freeze_dist(gd_dist *d, const gd_hist *h)
{
    d->count = h->count;
    d->mean = gd_hist_mean(h);
    d->p50 = (double)gd_hist_percentile(h, 50);
    d->p99 = (double)gd_hist_percentile(h, 99);
    d->max = (double)h->max;
}

void gd_stats_freeze(gd_stats *s)
{
    for (size_t i = 0; i < s->n; i++) {
        gd_stat *st = &s->v[i];
        if (st->src)
            st->value = *st->src;
        st->src = NULL;
        if (st->hist)
            freeze_dist(&st->dist, st->hist);
        st->hist = NULL;
    }
}

void gd_json_str(FILE *f, const char *s)
{
    fputc('"', f);
    for (; *s; s++) {
        unsigned char c = (unsigned char)*s;
        if (c == '"' || c == '\\')
            fprintf(f, "\\%c", c);
        else if (c < 0x20)
            fprintf(f, "\\u%04x", c);
        else if (c < 0x80)
            fputc(c, f);
        else {  /* valid UTF-8 as it is; each invalid byte becomes U+FFFD: the JSON stays valid */
            size_t n = gd_utf8_char_len(s);
            if (n)
                fwrite(s, 1, n, f), s += n - 1;
            else
                fputs("\\ufffd", f);
        }
    }
    fputc('"', f);
}
