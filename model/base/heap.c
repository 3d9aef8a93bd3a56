#include "heap.h"

#include <stdlib.h>

static inline int less(const gd_heap_entry *a, const gd_heap_entry *b)
{
    return a->time < b->time || (a->time == b->time && a->key < b->key);
}

void gd_heap_init(gd_heap *h)
{
    h->e = NULL;
    h->n = h->cap = 0;
}

void gd_heap_free(gd_heap *h)
{
    free(h->e);
    gd_heap_init(h);
}

int gd_heap_push(gd_heap *h, uint64_t time, uint64_t key)
{
    if (h->n == h->cap) {
        size_t ncap = h->cap ? h->cap * 2 : 64;
        gd_heap_entry *ne = realloc(h->e, ncap * sizeof *ne);
        if (!ne)
            return -1;
        h->e = ne;
        h->cap = ncap;
    }
    gd_heap_entry x = {time, key};
    size_t i = h->n++;
    while (i) {
        size_t p = (i - 1) / 2;
        if (!less(&x, &h->e[p]))
            break;
        h->e[i] = h->e[p];
        i = p;
    }
    h->e[i] = x;
    return 0;
}

void gd_heap_pop(gd_heap *h)
{
    gd_heap_entry x = h->e[--h->n];
    size_t n = h->n, i = 0;
    for (;;) {
        size_t c = 2 * i + 1;
        if (c >= n)
            break;
        if (c + 1 < n && less(&h->e[c + 1], &h->e[c]))
            c++;
        if (!less(&h->e[c], &x))
            break;
        h->e[i] = h->e[c];
        i = c;
    }
    if (n)
        h->e[i] = x;
}
