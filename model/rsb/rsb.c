#include "rsb.h"

#include <string.h>

void gd_rsb_init(gd_rsb *b, uint32_t entries)
{
    memset(b, 0, sizeof *b);
    gd_rst_init(&b->rst, entries);
}

int gd_rsb_install(gd_rsb *b, uint32_t ref_num, const gd_aql_dispatch *pkt, gd_aql_dispatch *evicted)
{
    if (ref_num >= b->rst.size)
        return -1;
    int held = b->rst.valid[ref_num];
    if (held && evicted)
        *evicted = b->rst.entry[ref_num];
    gd_aql_dispatch e = *pkt;
    e.reserved0 = (uint16_t)ref_num;
    gd_rst_store(&b->rst, &e);
    b->installs++;
    b->evictions += (uint64_t)held;
    return held;
}

const gd_aql_dispatch *gd_rsb_lookup(gd_rsb *b, uint32_t ref_num)
{
    b->lookups++;
    if (ref_num >= b->rst.size || !b->rst.valid[ref_num]) {
        b->misses++;
        return NULL;
    }
    return &b->rst.entry[ref_num];
}

int gd_rsb_evict(gd_rsb *b, uint32_t ref_num)
{
    if (ref_num >= b->rst.size)
        return -1;
    int held = b->rst.valid[ref_num];
    b->rst.valid[ref_num] = 0;
    b->evictions += (uint64_t)held;
    return held;
}
