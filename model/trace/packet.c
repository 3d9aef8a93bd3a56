#include "packet.h"

#include <stdlib.h>
#include <string.h>

#define RUNS_PER_BLOCK 256

struct gd_run_block {
    gd_run_block *next;
    gd_kernel_run runs[RUNS_PER_BLOCK];
};

gd_kernel_run *gd_run_alloc(gd_run_pool *p)
{
    if (!p->free) {
        gd_run_block *b = malloc(sizeof *b);
        if (!b)
            return NULL;
        b->next = p->blocks;
        p->blocks = b;
        for (int i = RUNS_PER_BLOCK - 1; i >= 0; i--) {
            b->runs[i].next_free = p->free;
            p->free = &b->runs[i];
        }
    }
    gd_kernel_run *r = p->free;
    p->free = r->next_free;
    memset(r, 0, sizeof *r);
    if (++p->live > p->peak)
        p->peak = p->live;
    return r;
}

void gd_run_release(gd_run_pool *p, gd_kernel_run *r)
{
    r->next_free = p->free;
    p->free = r;
    p->live--;
}

void gd_run_pool_destroy(gd_run_pool *p)
{
    while (p->blocks) {
        gd_run_block *n = p->blocks->next;
        free(p->blocks);
        p->blocks = n;
    }
    p->free = NULL;
    p->live = 0;
}
