/* waves.h - balanced placement of a CTA's warps over an SM's sub-partitions (seed 001
 * embodiment 8, steps h1-h5, h101-h103), pure C.
 *
 * The split table maps a warp count wx (1 .. q x l, q sub-partitions, l warps each at
 * most) to the initial combination {qx_0 .. qx_q-1}: wy = wx / q, wz = wx mod q,
 * qx_t = wy + 1 for t < wz, else wy (h102). Each SM keeps a pointer; a CTA's
 * combination is the initial one rotated by su places (h3), and the SM that takes the
 * CTA moves its pointer (h5), so that over many CTAs the sub-partitions stay balanced:
 *  - tail pointer ([0232]): t = (t1 + wx) mod q; su = t + 1; the pointer starts at
 *    sub-partition 0;
 *  - head pointer ([0233]): t = (t1 + 1 + wx) mod q; su = t.
 * A rotation by su moves sub-partition t's count to (t + su) mod q. The seed adds "when
 * the remainder is 0, t = t1'": read literally with sub-partitions numbered from 0, the
 * pointer would then stick (q = 4, one-warp CTAs: 2, 3, 0, 0, 0, ...), which defeats
 * the embodiment's purpose; gdsim reads it as the wrap-around of a numbering from 1,
 * which the numbering from 0 does not need. */
#ifndef GD_WAVES_H
#define GD_WAVES_H

#include <stdint.h>

#include "config.h"

#ifdef __cplusplus
extern "C" {
#endif

enum gd_wave_pointer { GD_WAVE_TAIL = 0, GD_WAVE_HEAD = 1 };

/* The initial combination for wx warps over q sub-partitions (h102). */
void gd_wave_split(uint32_t wx, uint32_t q, uint32_t out[GD_MAX_SUBPARTITIONS]);

/* The rotation su and the pointer's next position t for a CTA of wx warps, given the
 * SM's pointer t1. */
void gd_wave_rotation(int pointer, uint32_t t1, uint32_t wx, uint32_t q, uint32_t *su, uint32_t *t);

/* The target combination: the initial one rotated by su. */
void gd_wave_place(uint32_t wx, uint32_t q, uint32_t su, uint32_t out[GD_MAX_SUBPARTITIONS]);

#ifdef __cplusplus
}
#endif

#endif
