#include "aql.h"

#include <string.h>

void gd_aql_encode(uint8_t out[GD_AQL_PACKET_SIZE], const gd_aql_dispatch *p)
{
    memset(out, 0, GD_AQL_PACKET_SIZE);
    gd_put16(out + 0, p->header);
    gd_put16(out + 2, p->setup);
    for (int i = 0; i < 3; i++)
        gd_put16(out + 4 + 2 * i, p->workgroup_size[i]);
    gd_put16(out + 10, p->reserved0);
    for (int i = 0; i < 3; i++)
        gd_put32(out + 12 + 4 * i, p->grid_size[i]);
    gd_put32(out + 24, p->private_segment_size);
    gd_put32(out + 28, p->group_segment_size);
    gd_put64(out + 32, p->kernel_object);
    gd_put64(out + 40, p->kernarg_address);
    gd_put64(out + 48, p->reserved2);
    gd_put64(out + 56, p->completion_signal);
}

void gd_aql_decode(gd_aql_dispatch *p, const uint8_t in[GD_AQL_PACKET_SIZE])
{
    p->header = gd_get16(in + 0);
    p->setup = gd_get16(in + 2);
    for (int i = 0; i < 3; i++)
        p->workgroup_size[i] = gd_get16(in + 4 + 2 * i);
    p->reserved0 = gd_get16(in + 10);
    for (int i = 0; i < 3; i++)
        p->grid_size[i] = gd_get32(in + 12 + 4 * i);
    p->private_segment_size = gd_get32(in + 24);
    p->group_segment_size = gd_get32(in + 28);
    p->kernel_object = gd_get64(in + 32);
    p->kernarg_address = gd_get64(in + 40);
    p->reserved2 = gd_get64(in + 48);
    p->completion_signal = gd_get64(in + 56);
}

void gd_aql_barrier_encode(uint8_t out[GD_AQL_PACKET_SIZE], const gd_aql_barrier_pkt *p)
{
    gd_put16(out + 0, p->header);
    gd_put16(out + 2, p->reserved0);
    gd_put32(out + 4, p->reserved1);
    for (int i = 0; i < 5; i++)
        gd_put64(out + 8 + 8 * i, p->dep_signal[i]);
    gd_put64(out + 48, p->reserved2);
    gd_put64(out + 56, p->completion_signal);
}

void gd_aql_barrier_decode(gd_aql_barrier_pkt *p, const uint8_t in[GD_AQL_PACKET_SIZE])
{
    p->header = gd_get16(in + 0);
    p->reserved0 = gd_get16(in + 2);
    p->reserved1 = gd_get32(in + 4);
    for (int i = 0; i < 5; i++)
        p->dep_signal[i] = gd_get64(in + 8 + 8 * i);
    p->reserved2 = gd_get64(in + 48);
    p->completion_signal = gd_get64(in + 56);
}
