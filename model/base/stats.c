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
        return -1;
    st->src = src;
    return 0;
}

int gd_stats_add_dist(gd_stats *s, const char *block, const char *name, const char *unit, const char *desc,
                      const gd_hist *h)
{
    gd_stat *st = add(s, block, name, unit, desc);
    if (!st)
        return -1;
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
            return -1;
        s->sec = nv;
        s->capsec = ncap;
    }
    gd_section *sec = &s->sec[s->nsec];
    if (!(sec->block = strdup(block)))
        return -1;
    sec->text = text;
    sec->json = json;
    s->nsec++;
    return 0;
}

const gd_stat *gd_stats_find(const gd_stats *s, const char *block, const char *name)
{
    for (size_t i = 0; i < s->n; i++)
        if (!strcmp(s->v[i].block, block) && !strcmp(s->v[i].name, name))
            return &s->v[i];
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
