#include "alloc.h"

#include <string.h>

/* ---- 256-bit words ---- */

typedef struct { uint64_t w[GD_UMAP_WORDS]; } bits;

static int bit_get(const uint64_t *w, uint32_t i) { return (int)((w[i >> 6] >> (i & 63)) & 1u); }
static void bit_set(uint64_t *w, uint32_t i) { w[i >> 6] |= 1ull << (i & 63); }
static void bit_clear(uint64_t *w, uint32_t i) { w[i >> 6] &= ~(1ull << (i & 63)); }

/* x >> s (towards bit 0: the vacated high bits are 0, occupied). */
static bits shr(const bits *x, uint32_t s)
{
    bits r;
    memset(&r, 0, sizeof r);
    uint32_t ws = s >> 6, bs = s & 63;
    for (uint32_t i = 0; i + ws < GD_UMAP_WORDS; i++) {
        uint64_t lo = x->w[i + ws] >> bs;
        uint64_t hi = (bs && i + ws + 1 < GD_UMAP_WORDS) ? x->w[i + ws + 1] << (64 - bs) : 0;
        r.w[i] = lo | hi;
    }
    return r;
}

static void band(bits *a, const bits *b)
{
    for (int i = 0; i < GD_UMAP_WORDS; i++)
        a->w[i] &= b->w[i];
}

static int any(const bits *a)
{
    uint64_t o = 0;
    for (int i = 0; i < GD_UMAP_WORDS; i++)
        o |= a->w[i];
    return o != 0;
}

static bits of_map(const gd_umap *m)
{
    bits b;
    memcpy(b.w, m->w, sizeof b.w);
    return b;
}

/* ---- the map ---- */

void gd_umap_init(gd_umap *m, uint32_t n)
{
    memset(m, 0, sizeof *m);
    m->n = n > GD_UMAP_MAX ? GD_UMAP_MAX : n;
    for (uint32_t i = 0; i < m->n; i++)
        bit_set(m->w, i);
}

uint32_t gd_umap_free_units(const gd_umap *m)
{
    uint32_t c = 0;
    for (int i = 0; i < GD_UMAP_WORDS; i++)
        c += (uint32_t)__builtin_popcountll(m->w[i]);
    return c;
}

int32_t gd_umap_alloc(gd_umap *m, uint32_t len)
{
    if (!len || len > m->n)
        return len ? -1 : 0;
    uint32_t run = 0;
    for (uint32_t i = 0; i < m->n; i++) {
        run = bit_get(m->w, i) ? run + 1 : 0;
        if (run == len) {
            uint32_t start = i + 1 - len;
            for (uint32_t j = start; j <= i; j++)
                bit_clear(m->w, j);
            return (int32_t)start;
        }
    }
    return -1;
}

void gd_umap_release(gd_umap *m, uint32_t start, uint32_t len)
{
    for (uint32_t j = start; j < start + len && j < m->n; j++)
        bit_set(m->w, j);
}

uint32_t gd_maxrun_scan(const gd_umap *m)
{
    uint32_t best = 0, run = 0;
    for (uint32_t i = 0; i < m->n; i++) {
        run = bit_get(m->w, i) ? run + 1 : 0;
        if (run > best)
            best = run;
    }
    return best;
}

/* ---- embodiment 4 ---- */

/* sar_i for every i (out[i]), over an n-bit word: sa_i = s_0 & ... & s_i. */
static void shift_reduce(const bits *s0, uint32_t n, uint8_t *sar)
{
    bits sa = *s0;
    uint32_t i = 0;
    for (; i < n; i++) {
        if (i) {
            bits si = shr(s0, i);
            band(&sa, &si);
        }
        if (!(sar[i] = (uint8_t)any(&sa)))
            break;  /* once empty, every later sa_i is empty too: the rest of sar is 0 */
    }
    for (; i < n; i++)
        sar[i] = 0;
}

/* From sar_{n-1} backwards, the first 1 at i': i' + 1 (0 if none) (steps d432-d433). */
static uint32_t first_one_back(const uint8_t *sar, uint32_t n)
{
    for (uint32_t i = n; i-- > 0;)
        if (sar[i])
            return i + 1;
    return 0;
}

uint32_t gd_maxrun_shift(const gd_umap *m)
{
    uint8_t sar[GD_UMAP_MAX];
    bits s0 = of_map(m);
    shift_reduce(&s0, m->n, sar);
    return first_one_back(sar, m->n);
}

/* ---- embodiment 5 ---- */

uint32_t gd_maxrun_groups(const gd_umap *m, uint32_t z)
{
    if (!z || z > m->n || m->n % z)
        return 0;
    uint32_t g = m->n / z;
    bits f0;
    memset(&f0, 0, sizeof f0);
    for (uint32_t u = 0; u < z; u++) {  /* step e2: each group ANDed into one bit */
        int all = 1;
        for (uint32_t j = u * g; j < (u + 1) * g; j++)
            all &= bit_get(m->w, j);
        if (all)
            bit_set(f0.w, u);
    }
    uint8_t far[GD_UMAP_MAX];
    shift_reduce(&f0, z, far);             /* steps e31-e33 */
    return first_one_back(far, z) * g;     /* x = j' * (n / z) */
}

/* ---- embodiment 6 ---- */

int gd_samples_ok(const uint32_t *k, uint32_t w)
{
    for (uint32_t i = 1; i < w; i++) {
        if (k[i] <= k[i - 1])
            return 0;
        if (i >= 2 && k[i] - k[i - 1] < k[i - 1] - k[i - 2])
            return 0;
    }
    return 1;
}

uint32_t gd_maxrun_sampled(const gd_umap *m, const uint32_t *k, uint32_t w)
{
    bits s0 = of_map(m);
    uint32_t best = 0;
    for (uint32_t a = 0; a < w; a++) {
        if (k[a] >= m->n)
            break;
        bits sa = s0;  /* s_0 & ... & s_k */
        for (uint32_t i = 1; i <= k[a]; i++) {
            bits si = shr(&s0, i);
            band(&sa, &si);
        }
        if (any(&sa))
            best = k[a] + 1;  /* the last sampled k with sar_k = 1, read backwards: k' + 1 */
    }
    return best;
}

/* ---- embodiment 7 ---- */

uint32_t gd_maxrun_shared(const gd_umap *const *maps, uint32_t r, uint32_t width, uint32_t *out)
{
    if (width > GD_UMAP_MAX)
        width = GD_UMAP_MAX;
    uint32_t periods = 0, first = 0;
    while (first < r) {
        /* step g2: the maps of this period, packed from bit 0 */
        uint32_t off[GD_UMAP_MAX], last = first, used = 0;
        while (last < r && used + maps[last]->n <= width) {
            off[last - first] = used;
            used += maps[last]->n;
            last++;
        }
        if (last == first) {  /* wider than the unit: not possible by the caller's contract */
            out[first] = gd_maxrun_scan(maps[first]);
            first++;
            periods++;
            continue;
        }
        bits d0;
        memset(&d0, 0, sizeof d0);
        for (uint32_t q = first; q < last; q++)
            for (uint32_t j = 0; j < maps[q]->n; j++)
                if (bit_get(maps[q]->w, j))
                    bit_set(d0.w, off[q - first] + j);
        /* steps g32-g34: shift by e, each group's last e bits occupied (the m(i) masks) */
        bits dae = d0;
        for (uint32_t q = first; q < last; q++)
            out[q] = 0;
        for (uint32_t e = 0; e < used; e++) {
            if (e) {
                bits de = shr(&d0, e);
                for (uint32_t q = first; q < last; q++) {
                    uint32_t end = off[q - first] + maps[q]->n;
                    for (uint32_t j = (end >= e ? end - e : 0); j < end; j++)
                        if (j >= off[q - first])
                            bit_clear(de.w, j);
                }
                band(&dae, &de);
            }
            for (uint32_t q = first; q < last; q++) {
                if (e >= maps[q]->n)
                    continue;
                int hit = 0;
                for (uint32_t j = off[q - first]; j < off[q - first] + maps[q]->n && !hit; j++)
                    hit = bit_get(dae.w, j);
                if (hit)
                    out[q] = e + 1;  /* read backwards, the first 1: e' + 1 */
            }
        }
        periods++;
        first = last;
    }
    return periods;
}
