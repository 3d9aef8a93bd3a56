#include "waves.h"

void gd_wave_split(uint32_t wx, uint32_t q, uint32_t out[GD_MAX_SUBPARTITIONS])
{
    uint32_t wy = wx / q, wz = wx % q;
    for (uint32_t t = 0; t < q; t++)
        out[t] = t < wz ? wy + 1 : wy;
}

void gd_wave_rotation(int pointer, uint32_t t1, uint32_t wx, uint32_t q, uint32_t *su, uint32_t *t)
{
    *t = (t1 + (pointer == GD_WAVE_HEAD ? 1 : 0) + wx) % q;
    *su = pointer == GD_WAVE_HEAD ? *t : *t + 1;
}

void gd_wave_place(uint32_t wx, uint32_t q, uint32_t su, uint32_t out[GD_MAX_SUBPARTITIONS])
{
    uint32_t init[GD_MAX_SUBPARTITIONS];
    gd_wave_split(wx, q, init);
    for (uint32_t t = 0; t < q; t++)
        out[(t + su) % q] = init[t];
}
