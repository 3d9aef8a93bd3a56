/* heap.h - a binary min-heap of (time, key) pairs: the calendars of timed events
 * that blocks keep in C instead of one SystemC event each. Ties on time are broken
 * by key, so callers that put a sequence number in the key's high bits get events
 * in the order they were scheduled. */
#ifndef GD_HEAP_H
#define GD_HEAP_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct gd_heap_entry {
    uint64_t time;
    uint64_t key;
} gd_heap_entry;

typedef struct gd_heap {
    gd_heap_entry *e;
    size_t n, cap;
} gd_heap;

void gd_heap_init(gd_heap *h);
void gd_heap_free(gd_heap *h);
/* Returns 0, or -1 when out of memory. */
int gd_heap_push(gd_heap *h, uint64_t time, uint64_t key);
/* The smallest entry; the heap must not be empty. */
static inline const gd_heap_entry *gd_heap_top(const gd_heap *h) { return &h->e[0]; }
static inline uint64_t gd_heap_top_time(const gd_heap *h) { return h->n ? h->e[0].time : UINT64_MAX; }
static inline size_t gd_heap_size(const gd_heap *h) { return h->n; }
void gd_heap_pop(gd_heap *h);

#ifdef __cplusplus
}
#endif

#endif
