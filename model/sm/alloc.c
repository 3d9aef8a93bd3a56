#include "alloc.h"

#include <string.h>

#include "waves.h"

/* ---- 256-bit words ---- */

typedef struct { uint64_t w[GD_UMAP_WORDS]; } bits;

static int bit_get(const uint64_t *w, uint32_t i) { return (int)((w[i >> 6] >> (i & 63)) & 1u); }
static void bit_set(uint64_t *w, uint32_t i) { w[i >> 6] |= 1ull << (i & 63); }
static void bit_clear(uint64_t *w, uint32_t i) { w[i >> 6] &= ~(1ull << (i & 63)); }

/* The words an n-bit row uses: the ops below touch only those (the rest stay 0). */
static uint32_t words_of(uint32_t n) { return (n + 63) / 64; }

/* x >> s over nw words (towards bit 0: the vacated high bits are 0, occupied). */
static void shr(bits *r, const bits *x, uint32_t s, uint32_t nw)
{
    uint32_t ws = s >> 6, bs = s & 63;
    for (uint32_t i = 0; i < nw; i++) {
        uint64_t lo = i + ws < nw ? x->w[i + ws] >> bs : 0;
        uint64_t hi = (bs && i + ws + 1 < nw) ? x->w[i + ws + 1] << (64 - bs) : 0;
        r->w[i] = lo | hi;
    }
}

static void band(bits *a, const bits *b, uint32_t nw)
{
    for (uint32_t i = 0; i < nw; i++)
        a->w[i] &= b->w[i];
}

static int any(const bits *a, uint32_t nw)
{
    uint64_t o = 0;
    for (uint32_t i = 0; i < nw; i++)
        o |= a->w[i];
    return o != 0;
}

static void of_map(bits *b, const gd_umap *m)
{
    memcpy(b->w, m->w, sizeof b->w);
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
    for (uint32_t i = 0; i < words_of(m->n); i++)
        c += gd_popcount64(m->w[i]);
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
    const uint32_t nw = words_of(n);
    bits sa = *s0, si;
    uint32_t i = 0;
    for (; i < n; i++) {
        if (i) {
            shr(&si, s0, i, nw);
            band(&sa, &si, nw);
        }
        if (!(sar[i] = (uint8_t)any(&sa, nw)))
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
    bits s0;
    of_map(&s0, m);
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
    bits s0, si;
    of_map(&s0, m);
    const uint32_t nw = words_of(m->n);
    uint32_t best = 0;
    for (uint32_t a = 0; a < w; a++) {
        if (k[a] >= m->n)
            break;
        bits sa = s0;  /* s_0 & ... & s_k */
        for (uint32_t i = 1; i <= k[a]; i++) {
            shr(&si, &s0, i, nw);
            band(&sa, &si, nw);
        }
        if (any(&sa, nw))
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
        bits dae = d0, de;
        const uint32_t nw = words_of(used);
        for (uint32_t q = first; q < last; q++)
            out[q] = 0;
        for (uint32_t e = 0; e < used; e++) {
            if (e) {
                shr(&de, &d0, e, nw);
                for (uint32_t q = first; q < last; q++) {
                    uint32_t end = off[q - first] + maps[q]->n;
                    for (uint32_t j = (end >= e ? end - e : 0); j < end; j++)
                        if (j >= off[q - first])
                            bit_clear(de.w, j);
                }
                band(&dae, &de, nw);
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

/* ---- word-wide helpers for the model ---- */

/* The first position >= from whose bit is `one`, or m->n. */
static uint32_t find_next(const gd_umap *m, uint32_t from, int one)
{
    if (from >= m->n)
        return m->n;
    const uint32_t nw = words_of(m->n);
    uint32_t i = from >> 6;
    uint64_t w = (one ? m->w[i] : ~m->w[i]) & (~0ull << (from & 63));
    for (;;) {
        if (w) {
            uint32_t p = i * 64 + (uint32_t)__builtin_ctzll(w);
            return p < m->n ? p : m->n;
        }
        if (++i >= nw)
            return m->n;
        w = one ? m->w[i] : ~m->w[i];
    }
}

/* Bits [lo, hi) set (free) or cleared (taken). */
static void range_set(gd_umap *m, uint32_t lo, uint32_t hi, int free_)
{
    while (lo < hi) {
        uint32_t i = lo >> 6, b = lo & 63, nb = 64 - b;
        if (nb > hi - lo)
            nb = hi - lo;
        uint64_t mask = (nb == 64 ? ~0ull : ((1ull << nb) - 1)) << b;
        if (free_)
            m->w[i] |= mask;
        else
            m->w[i] &= ~mask;
        lo += nb;
    }
}

static int range_free(const gd_umap *m, uint32_t lo, uint32_t hi)
{
    return find_next(m, lo, 0) >= hi;
}

uint32_t gd_maxrun_fast(const gd_umap *m)
{
    uint32_t best = 0, p = 0, s;
    while ((s = find_next(m, p, 1)) < m->n) {
        uint32_t e = find_next(m, s, 0);
        if (e - s > best)
            best = e - s;
        p = e;
    }
    return best;
}

/* First fit, word-wide: the start of the first free block of len units, or -1. */
static int32_t alloc_fast(gd_umap *m, uint32_t len)
{
    if (!len)
        return 0;
    uint32_t p = 0, s;
    while ((s = find_next(m, p, 1)) < m->n) {
        uint32_t e = find_next(m, s, 0);
        if (e - s >= len) {
            range_set(m, s, s + len, 0);
            return (int32_t)s;
        }
        p = e;
    }
    return -1;
}

/* ---- the SM's placement ---- */

void gd_alloc_cfg_init(gd_alloc_cfg *a, const gd_config *cfg)
{
    memset(a, 0, sizeof *a);
    const gd_sm_limits *sm = &cfg->sm;
    a->contiguous = !strcmp(cfg->sm_alloc, "contiguous");
    a->placement = !strcmp(cfg->sm_wave_placement, "tail") ? GD_PLACE_TAIL
                   : !strcmp(cfg->sm_wave_placement, "head") ? GD_PLACE_HEAD
                                                             : GD_PLACE_POOLED;
    static const char *const finders[] = {"scan", "shift", "groups", "sampled", "shared"};
    for (int f = 0; f < 5; f++)
        if (!strcmp(cfg->sm_block_finder, finders[f]))
            a->finder = f;
    a->groups = cfg->sm_finder_groups;
    a->nsamples = cfg->sm_finder_nsamples;
    memcpy(a->samples, cfg->sm_finder_k, sizeof a->samples);
    a->width = cfg->sm_finder_width;
    a->finder_cycles = cfg->sm_finder_cycles;
    a->scan_bits = cfg->sm_scan_bits_per_cycle;
    a->nsub = sm->reg_subpartitions;
    a->reg_unit = sm->reg_alloc_unit;
    a->reg_units = sm->regs / sm->reg_subpartitions / sm->reg_alloc_unit;
    a->smem_unit = sm->smem_alloc_unit;
    a->smem_units = sm->smem / sm->smem_alloc_unit;
    a->max_warps = sm->max_warps;
}

void gd_sm_place_init(gd_sm_place *p, const gd_alloc_cfg *cfg)
{
    memset(p, 0, sizeof *p);
    p->cfg = cfg;
    for (uint32_t t = 0; t < cfg->nsub; t++)  /* warp slots: max_warps over the sub-partitions */
        p->warps[t] = cfg->max_warps / cfg->nsub + (t < cfg->max_warps % cfg->nsub ? 1 : 0);
    if (!cfg->contiguous)
        return;
    for (uint32_t i = 0; i < cfg->nsub; i++)
        gd_umap_init(&p->regs[i], cfg->reg_units);
    gd_umap_init(&p->smem, cfg->smem_units);
}

uint32_t gd_block_finder_max(const gd_alloc_cfg *a, const gd_umap *m)
{
    if (a->finder == GD_FINDER_GROUPS) {
        /* emb. 5: the longest row of wholly free groups, in units */
        const uint32_t z = a->groups, g = m->n / z;
        uint32_t run = 0, best = 0;
        for (uint32_t u = 0; u < z; u++) {
            run = range_free(m, u * g, (u + 1) * g) ? run + 1 : 0;
            if (run > best)
                best = run;
        }
        return best * g;
    }
    uint32_t x = gd_maxrun_fast(m);
    if (a->finder == GD_FINDER_SAMPLED) {
        /* emb. 6: sar_k = 1 exactly when a free block of k + 1 units exists */
        uint32_t best = 0;
        for (uint32_t i = 0; i < a->nsamples; i++)
            if (a->samples[i] < m->n && a->samples[i] + 1 <= x)
                best = a->samples[i] + 1;
        return best;
    }
    return x;
}

uint32_t gd_block_finder_cycles(const gd_alloc_cfg *a)
{
    if (!a->contiguous)
        return 0;
    uint32_t longest = a->reg_units > a->smem_units ? a->reg_units : a->smem_units;
    switch (a->finder) {
    case GD_FINDER_SCAN:
        return (longest + a->scan_bits - 1) / a->scan_bits;
    case GD_FINDER_SHARED: {
        /* the packing of gd_maxrun_shared: the register maps, then the shared memory's */
        uint32_t periods = 1, used = 0;
        for (uint32_t i = 0; i <= a->nsub; i++) {
            uint32_t n = i < a->nsub ? a->reg_units : a->smem_units;
            if (used + n > a->width && used) {
                periods++;
                used = 0;
            }
            used += n;
        }
        return periods * a->finder_cycles;
    }
    default:
        return a->finder_cycles;
    }
}

/* The combination of a CTA of w warps on this SM (emb. 8, or pooled: the h102 split
 * with its extra warps on the sub-partitions with the largest free register blocks)
 * and the pointer after it. */
static void combination(const gd_sm_res *res, uint32_t w, uint32_t *combo, uint32_t *next_pointer)
{
    const gd_sm_place *p = res->place;
    const gd_alloc_cfg *a = p->cfg;
    const uint32_t q = res->nsub;
    *next_pointer = p->pointer;
    if (a->placement != GD_PLACE_POOLED) {
        uint32_t su;
        gd_wave_rotation(a->placement == GD_PLACE_HEAD ? GD_WAVE_HEAD : GD_WAVE_TAIL, p->pointer, w, q, &su,
                         next_pointer);
        gd_wave_place(w, q, su, combo);
        return;
    }
    uint32_t wy = w / q, wz = w % q, room[GD_MAX_SUBPARTITIONS];
    for (uint32_t t = 0; t < q; t++) {
        combo[t] = wy;
        room[t] = a->contiguous ? gd_block_finder_max(a, &p->regs[t]) : res->regs[t];
    }
    while (wz--) {
        uint32_t best = UINT32_MAX;
        for (uint32_t t = 0; t < q; t++)
            if (combo[t] == wy && (best == UINT32_MAX || room[t] > room[best]))
                best = t;
        combo[best]++;
    }
}

int gd_sm_place_take(gd_sm_res *res, const gd_cta_cost *cost, gd_cta_alloc *alloc)
{
    gd_sm_place *p = res->place;
    const gd_alloc_cfg *a = p->cfg;
    const uint32_t q = res->nsub, rpw = cost->regs_per_warp;
    if (res->warps < cost->warps || !res->ctas || res->smem < cost->smem)
        return 0;
    uint32_t combo[GD_MAX_SUBPARTITIONS], next;
    combination(res, cost->warps, combo, &next);
    /* a32, a41: every share fits its sub-partition, the shared memory fits the SM */
    const uint32_t upw = rpw / a->reg_unit, smem_units = cost->smem / a->smem_unit;
    for (uint32_t t = 0; t < q; t++) {
        if (combo[t] > p->warps[t])
            return 0;
        if (!combo[t] || !rpw)
            continue;
        if (a->contiguous ? gd_block_finder_max(a, &p->regs[t]) < combo[t] * upw : res->regs[t] < combo[t] * rpw)
            return 0;
    }
    if (a->contiguous && smem_units && gd_block_finder_max(a, &p->smem) < smem_units)
        return 0;
    /* a43-a45: the first free block of each, then the counted resources */
    for (uint32_t t = 0; t < q; t++) {
        alloc->warps_in_sub[t] = (uint8_t)combo[t];
        alloc->reg_start[t] = 0;
        if (a->contiguous && combo[t] && rpw)
            alloc->reg_start[t] = (uint16_t)alloc_fast(&p->regs[t], combo[t] * upw);
        res->regs[t] -= combo[t] * rpw;
        p->warps[t] -= combo[t];
    }
    alloc->smem_start = a->contiguous && smem_units ? (uint16_t)alloc_fast(&p->smem, smem_units) : 0;
    res->warps -= cost->warps;
    res->ctas -= 1;
    res->smem -= cost->smem;
    p->pointer = next;  /* h5: the SM chosen moves its pointer */
    return 1;
}

void gd_sm_place_give(gd_sm_res *res, const gd_cta_cost *cost, const gd_cta_alloc *alloc)
{
    gd_sm_place *p = res->place;
    const gd_alloc_cfg *a = p->cfg;
    const uint32_t rpw = cost->regs_per_warp, upw = rpw / a->reg_unit;
    for (uint32_t t = 0; t < res->nsub; t++) {
        uint32_t w = alloc->warps_in_sub[t];
        if (a->contiguous && w && rpw)
            range_set(&p->regs[t], alloc->reg_start[t], alloc->reg_start[t] + w * upw, 1);
        res->regs[t] += w * rpw;
        p->warps[t] += w;
    }
    if (a->contiguous && cost->smem)
        range_set(&p->smem, alloc->smem_start, alloc->smem_start + cost->smem / a->smem_unit, 1);
    res->warps += cost->warps;
    res->ctas += 1;
    res->smem += cost->smem;
}

uint32_t gd_sm_place_free_slots(const gd_sm_res *res, const gd_cta_cost *cost)
{
    uint32_t cap = gd_sm_res_count_slots(res, cost);  /* each take lowers it by one */
    if (!cap)
        return 0;
    gd_sm_res r = *res;
    gd_sm_place p = *res->place;
    r.place = &p;
    gd_cta_alloc alloc;
    uint32_t n = 0;
    while (n < cap && gd_sm_place_take(&r, cost, &alloc))
        n++;
    return n;
}
