#include "cwd.h"

#include <string.h>

#include "alloc.h"

#include <stddef.h>

/* Four lanes of 32 bits (GCC's and Clang's vector extension; SSE2 on x86-64): an SM's
 * warps, CTA slots, shared memory and sub-partition count, or its four sub-partitions'
 * registers, updated in one operation on the presets' four sub-partitions. */
typedef uint32_t gd_u32x4 __attribute__((vector_size(16)));
_Static_assert(offsetof(gd_sm_res, ctas) == 4 && offsetof(gd_sm_res, smem) == 8 && offsetof(gd_sm_res, nsub) == 12 &&
                   offsetof(gd_sm_res, regs) == 16,
               "gd_sm_res: warps, ctas, smem, nsub, regs[] in a row (the four-lane updates)");
static inline gd_u32x4 load4(const void *p)
{
    gd_u32x4 v;
    memcpy(&v, p, sizeof v);
    return v;
}
static inline void store4(void *p, gd_u32x4 v) { memcpy(p, &v, sizeof v); }
static inline int any4(gd_u32x4 v)
{
    uint64_t w[2];
    memcpy(w, &v, sizeof w);
    return (w[0] | w[1]) != 0;
}

#define NONEMPTY_WORDS ((GD_MAX_FREE_LEVELS + 63) / 64)

/* The highest level with an SM (0 when none), no higher than `from`. */
static inline uint32_t top_level_from(const gd_gpc_tracker *g, uint32_t from)
{
    uint32_t w = from / 64;
    uint64_t b = g->nonempty[w] & (~0ull >> (63 - from % 64));
    for (;;) {
        if (b)
            return w * 64 + 63 - (uint32_t)__builtin_clzll(b);
        if (!w)
            return 0;
        b = g->nonempty[--w];
    }
}
static inline uint32_t top_level(const gd_gpc_tracker *g) { return top_level_from(g, GD_MAX_FREE_LEVELS - 1); }

static inline void level_add(gd_gpc_tracker *g, uint32_t f, uint64_t sms)
{
    g->level[f] |= sms;
    g->nonempty[f / 64] |= 1ull << (f % 64);
}

static inline void level_remove(gd_gpc_tracker *g, uint32_t f, uint64_t sms)
{
    g->level[f] &= ~sms;
    if (!g->level[f])
        g->nonempty[f / 64] &= ~(1ull << (f % 64));
}

uint32_t gd_gpc_free_slots_of(const gd_gpc_tracker *g, uint32_t sm)
{
    if (!(g->stale >> sm & 1))
        return g->free_slots[sm];
    for (uint32_t w = 0; w < NONEMPTY_WORDS; w++)
        for (uint64_t b = g->nonempty[w]; b; b &= b - 1) {
            const uint32_t f = w * 64 + (uint32_t)__builtin_ctzll(b);
            if (g->level[f] >> sm & 1)
                return f;
        }
    return 0;  /* not reached: every SM is at some level */
}

void gd_gpc_sync(gd_gpc_tracker *g)
{
    for (uint32_t w = 0; w < NONEMPTY_WORDS && g->stale; w++)
        for (uint64_t b = g->nonempty[w]; b && g->stale; b &= b - 1) {
            const uint32_t f = w * 64 + (uint32_t)__builtin_ctzll(b);
            for (uint64_t a = g->level[f] & g->stale; a; a &= a - 1)
                g->free_slots[__builtin_ctzll(a)] = f;
            g->stale &= ~g->level[f];
        }
}

/* The SMs of the mask sms (counts only, the selected cost) have n fewer (take) or n
 * more free slots: the SMs at each level move together (their free_slots entries go
 * stale), and max_free follows. */
static inline __attribute__((always_inline)) void move_levels(gd_gpc_tracker *g, uint64_t sms, uint32_t n, int take)
{
    uint64_t m = sms;
    uint32_t top = g->max_free;  /* no level above it has an SM but those moved to */
    for (uint32_t w = 0; w < NONEMPTY_WORDS && m; w++) {
        for (uint64_t b = g->nonempty[w]; b && m; b &= b - 1) {
            const uint32_t from = w * 64 + (uint32_t)__builtin_ctzll(b);
            const uint64_t at = m & g->level[from];
            if (!at)
                continue;
            uint32_t to = take ? from - n : from + n;
            if (to >= GD_MAX_FREE_LEVELS)
                to = GD_MAX_FREE_LEVELS - 1;
            level_remove(g, from, at);
            level_add(g, to, at);
            g->free_total += (to - from) * (uint32_t)gd_popcount64(at);  /* modulo 2^32: a decrease too */
            top = to > top ? to : top;
            m &= ~at;
        }
    }
    g->stale |= sms;
    g->max_free = top_level_from(g, top);
}

static inline void set_level(gd_gpc_tracker *g, uint32_t sm, uint32_t slots)
{
    const uint32_t from = gd_gpc_free_slots_of(g, sm);
    level_remove(g, from, 1ull << sm);
    g->free_total += slots - from;
    g->free_slots[sm] = slots;
    g->stale &= ~(1ull << sm);
    level_add(g, slots, 1ull << sm);
}

void gd_gpc_init(gd_gpc_tracker *g, uint32_t nsm, const gd_sm_limits *sm)
{
    memset(g, 0, sizeof *g);
    g->nsm = nsm;
    for (uint32_t i = 0; i < nsm; i++)
        gd_sm_res_init(&g->res[i], sm);
    level_add(g, 0, nsm == 64 ? ~0ull : (1ull << nsm) - 1);  /* until a kernel is selected */
}

void gd_gpc_set_placement(gd_gpc_tracker *g, const gd_alloc_cfg *cfg, gd_sm_place *place)
{
    for (uint32_t i = 0; i < g->nsm; i++) {
        gd_sm_place_init(&place[i], cfg);
        g->res[i].place = &place[i];
    }
}

/* Two SMs whose free resources are the same (counts only) have the same free slots. */
static int same_counts(const gd_sm_res *a, const gd_sm_res *b)
{
    if (a->place || b->place)
        return 0;
    if (a->nsub == 4 && b->nsub == 4)  /* every preset: warps, CTAs, shared memory, nsub; the four registers */
        return !any4(load4(&a->warps) ^ load4(&b->warps)) && !any4(load4(a->regs) ^ load4(b->regs));
    if (a->warps != b->warps || a->ctas != b->ctas || a->smem != b->smem)
        return 0;
    for (uint32_t t = 0; t < a->nsub && t < GD_MAX_SUBPARTITIONS; t++)
        if (a->regs[t] != b->regs[t])
            return 0;
    return 1;
}

uint32_t gd_gpc_select(gd_gpc_tracker *g, const gd_cta_cost *cost)
{
    /* Counts only, the same cost: free slots and levels are already counted for it
     * (settle_take / settle_release keep them exact), so nothing changes. */
    if (g->selected && !g->res[0].place && gd_cta_cost_equal(cost, &g->cost))
        return g->max_free;
    g->cost = *cost;
    g->selected = 1;
    for (uint32_t w = 0; w < NONEMPTY_WORDS; w++) {  /* the levels that hold SMs, not all of them */
        for (uint64_t b = g->nonempty[w]; b; b &= b - 1)
            g->level[w * 64 + (uint32_t)__builtin_ctzll(b)] = 0;
        g->nonempty[w] = 0;
    }
    g->stale = 0;
    g->max_free = 0;
    g->free_total = 0;
    for (uint32_t i = 0; i < g->nsm; i++) {
        /* an SM in the same state as the one before it (idle SMs, evenly loaded ones)
         * has its free slots: the divisions of the occupancy rules once per state */
        uint32_t f = i && same_counts(&g->res[i], &g->res[i - 1]) ? g->free_slots[i - 1]
                                                                    : gd_sm_res_free_slots(&g->res[i], cost);
        if (f >= GD_MAX_FREE_LEVELS)
            f = GD_MAX_FREE_LEVELS - 1;
        g->free_slots[i] = f;
        g->free_total += f;
        level_add(g, f, 1ull << i);
        if (f > g->max_free)
            g->max_free = f;
    }
    return g->max_free;
}

uint32_t gd_gpc_place(gd_gpc_tracker *g, gd_cta_alloc *alloc)
{
    uint32_t m = g->max_free;
    uint32_t best = (uint32_t)__builtin_ctzll(g->level[m]);
    gd_sm_res_take(&g->res[best], &g->cost, alloc);
    /* Taking one CTA of the selected cost removes exactly one of its free slots. */
    set_level(g, best, m - 1);
    g->max_free = top_level(g);
    return best;
}

/* After n CTAs of the selected kernel were placed on SM sm: n fewer free slots. */
static void settle_take(gd_gpc_tracker *g, uint32_t sm, uint32_t n)
{
    set_level(g, sm, gd_gpc_free_slots_of(g, sm) - n);
    g->max_free = top_level(g);
}

void gd_gpc_place_on(gd_gpc_tracker *g, uint32_t sm, gd_cta_alloc *alloc)
{
    gd_sm_res_take(&g->res[sm], &g->cost, alloc);
    settle_take(g, sm, 1);
}

void gd_gpc_place_on_n(gd_gpc_tracker *g, uint32_t sm, uint32_t n, uint16_t *warps_in_sub)
{
    gd_sm_res_take_n(&g->res[sm], &g->cost, n, warps_in_sub);
    settle_take(g, sm, n);
}

uint64_t gd_gpc_place_mask(gd_gpc_tracker *g, uint64_t sms, uint32_t n, uint16_t *warps_in_sub)
{
    const gd_cta_cost *cost = &g->cost;
    const uint32_t nsub = g->res[0].nsub, rpw = cost->regs_per_warp;
    if (g->res[0].place || nsub > GD_MAX_SUBPARTITIONS || g->nsm > 64 || (rpw && cost->sub_extra))
        return 0;
    const uint64_t need64 = (uint64_t)n * cost->sub_warps * rpw;
    if (need64 > UINT32_MAX)
        return 0;
    const uint32_t need = (uint32_t)need64, warps = n * cost->warps, smem = n * cost->smem;
    uint64_t done = 0;
    if (nsub == 4) {  /* every preset: four lanes at once */
        const gd_u32x4 head = {warps, n, smem, 0}, needv = {need, need, need, need};
        for (uint64_t m = sms; m; m &= m - 1) {
            gd_sm_res *r = &g->res[__builtin_ctzll(m)];
            const gd_u32x4 regs = load4(r->regs);
            if (any4((gd_u32x4)(regs < needv)))
                continue;  /* a sub-partition short of its share: CTA by CTA */
            store4(r->regs, regs - needv);
            store4(&r->warps, load4(&r->warps) - head);
            done |= m & -m;
        }
    } else {
        for (uint64_t m = sms; m; m &= m - 1) {
            gd_sm_res *r = &g->res[__builtin_ctzll(m)];
            if (rpw) {
                uint32_t t = 0;
                while (t < nsub && r->regs[t] >= need)
                    t++;
                if (t < nsub)
                    continue;
                for (t = 0; t < nsub; t++)
                    r->regs[t] -= need;
            }
            r->warps -= warps;
            r->ctas -= n;
            r->smem -= smem;
            done |= m & -m;
        }
    }
    if (rpw)
        for (uint32_t t = 0; t < nsub; t++)
            warps_in_sub[t] = (uint16_t)(warps_in_sub[t] + n * cost->sub_warps);
    gd_gpc_place_levels(g, done, n);
    return done;
}

void gd_gpc_place_levels(gd_gpc_tracker *g, uint64_t sms, uint32_t n) { move_levels(g, sms, n, 1); }

/* After CTAs of cost retired from SM sm (resources already given back): its free
 * slots for the selected kernel, counted (same cost, no placement: exactly n more)
 * or recomputed, and the levels. */
static void settle_release(gd_gpc_tracker *g, uint32_t sm, const gd_cta_cost *cost, uint32_t n)
{
    uint32_t f;
    if (!g->res[sm].place && gd_cta_cost_equal(cost, &g->cost))
        f = gd_gpc_free_slots_of(g, sm) + n;
    else
        f = gd_sm_res_free_slots(&g->res[sm], &g->cost);
    if (f >= GD_MAX_FREE_LEVELS)
        f = GD_MAX_FREE_LEVELS - 1;
    set_level(g, sm, f);
    g->max_free = top_level(g);
}

void gd_gpc_release(gd_gpc_tracker *g, uint32_t sm, const gd_cta_cost *cost, const gd_cta_alloc *alloc)
{
    gd_sm_res_give(&g->res[sm], cost, alloc);
    settle_release(g, sm, cost, 1);
}

void gd_gpc_release_n(gd_gpc_tracker *g, uint32_t sm, const gd_cta_cost *cost, uint32_t n,
                      const uint16_t *warps_in_sub)
{
    gd_sm_res_give_n(&g->res[sm], cost, n, warps_in_sub);
    settle_release(g, sm, cost, n);
}

void gd_gpc_release_mask(gd_gpc_tracker *g, uint64_t sms, const gd_cta_cost *cost, uint32_t n,
                         const uint16_t *warps_in_sub)
{
    if (!gd_gpc_release_counted(g, cost)) {
        for (; sms; sms &= sms - 1)
            gd_gpc_release_n(g, (uint32_t)__builtin_ctzll(sms), cost, n, warps_in_sub);
        return;
    }
    /* Counts only, the selected cost: every SM of the mask has exactly n more free slots. */
    gd_gpc_release_held(g, sms, cost, n, warps_in_sub);
    gd_gpc_release_levels(g, sms, n);
}

int gd_gpc_release_counted(const gd_gpc_tracker *g, const gd_cta_cost *cost)
{
    return !g->res[0].place && gd_cta_cost_equal(cost, &g->cost) && g->nsm <= 64 &&
           g->res[0].nsub <= GD_MAX_SUBPARTITIONS;
}

void gd_gpc_release_levels(gd_gpc_tracker *g, uint64_t sms, uint32_t n) { move_levels(g, sms, n, 0); }

void gd_gpc_release_held(gd_gpc_tracker *g, uint64_t sms, const gd_cta_cost *cost, uint32_t n,
                         const uint16_t *warps_in_sub)
{
    const uint32_t warps = n * cost->warps, smem = n * cost->smem, nsub = g->res[0].nsub, rpw = cost->regs_per_warp;
    if (nsub == 4) {  /* every preset: four lanes at once */
        const gd_u32x4 head = {warps, n, smem, 0},
                       back = {warps_in_sub[0] * rpw, warps_in_sub[1] * rpw, warps_in_sub[2] * rpw,
                               warps_in_sub[3] * rpw};
        for (uint64_t m = sms; m; m &= m - 1) {
            gd_sm_res *r = &g->res[__builtin_ctzll(m)];
            store4(&r->warps, load4(&r->warps) + head);
            store4(r->regs, load4(r->regs) + back);
        }
    } else {
        uint32_t regs[GD_MAX_SUBPARTITIONS];
        for (uint32_t t = 0; t < nsub; t++)
            regs[t] = warps_in_sub[t] * rpw;
        for (uint64_t m = sms; m; m &= m - 1) {
            gd_sm_res *r = &g->res[__builtin_ctzll(m)];
            r->warps += warps;
            r->ctas += n;
            r->smem += smem;
            for (uint32_t t = 0; t < nsub; t++)
                r->regs[t] += regs[t];
        }
    }
}

static inline int view_before(const gd_gpc_view *v, uint32_t a, uint32_t b)
{
    return v->retire[a] < v->retire[b] || (v->retire[a] == v->retire[b] && a < b);
}

static void view_swap(gd_gpc_view *v, uint32_t i, uint32_t j)
{
    uint32_t a = v->heap[i], b = v->heap[j];
    v->heap[i] = b;
    v->heap[j] = a;
    v->pos[b] = i;
    v->pos[a] = j;
}

void gd_gpc_view_init(gd_gpc_view *v, uint32_t n)
{
    memset(v, 0, sizeof *v);
    v->n = n;
    for (uint32_t g = 0; g < n; g++) {
        v->retire[g] = UINT64_MAX;
        v->heap[g] = g;
        v->pos[g] = g;
    }
    v->first = n ? 0 : UINT32_MAX;  /* all never, ties to the lower index */
    v->second = n > 1 ? 1 : UINT32_MAX;
}

void gd_gpc_view_set_retire(gd_gpc_view *v, uint32_t g, uint64_t t)
{
    if (v->n <= GD_VIEW_SCAN) {  /* found by a scan when asked for */
        v->retire[g] = t;
        v->ndirty = 1;
        return;
    }
    if (!v->is_dirty[g]) {
        v->is_dirty[g] = 1;
        v->dirty_was[v->ndirty] = v->retire[g];
        v->dirty[v->ndirty++] = g;
    }
    v->retire[g] = t;
}

static void view_sift_down(gd_gpc_view *v, uint32_t i)
{
    for (;;) {
        uint32_t c = 2 * i + 1;
        if (c >= v->n)
            break;
        if (c + 1 < v->n && view_before(v, v->heap[c + 1], v->heap[c]))
            c++;
        if (!view_before(v, v->heap[c], v->heap[i]))
            break;
        view_swap(v, i, c);
        i = c;
    }
}

/* GPC g's retire changed in a heap that is valid for every other GPC: sift it. */
static void view_fix(gd_gpc_view *v, uint32_t g)
{
    uint32_t i = v->pos[g];
    while (i && view_before(v, v->heap[i], v->heap[(i - 1) / 2])) {
        view_swap(v, i, (i - 1) / 2);
        i = (i - 1) / 2;
    }
    view_sift_down(v, i);
}

/* The heap after the retirements that changed since it was settled: each changed GPC
 * sifted in turn (the others back at the retire they had, so that the heap is valid but
 * for the one being sifted), or, when many changed, the heap rebuilt bottom-up (O(n)).
 * Any heap of the total order (retire, index) has the same earliest, and the same
 * second (a child of the root), so how it was built changes nothing. */
void gd_gpc_view_settle(gd_gpc_view *v)
{
    if (v->n <= GD_VIEW_SCAN) {
        uint32_t a = UINT32_MAX, b = UINT32_MAX;
        for (uint32_t g = 0; g < v->n; g++) {
            if (a == UINT32_MAX || v->retire[g] < v->retire[a]) {
                b = a;
                a = g;
            } else if (b == UINT32_MAX || v->retire[g] < v->retire[b]) {
                b = g;
            }
        }
        v->first = a;
        v->second = b;
        v->ndirty = 0;
        return;
    }
    if (v->ndirty > 2 && v->ndirty >= v->n / 8) {
        for (uint32_t i = v->n / 2; i-- > 0;)
            view_sift_down(v, i);
    } else {
        for (uint32_t d = 0; d < v->ndirty; d++) {  /* back to the settled heap's state */
            const uint32_t g = v->dirty[d];
            const uint64_t now = v->retire[g];
            v->retire[g] = v->dirty_was[d];
            v->dirty_was[d] = now;
        }
        for (uint32_t d = 0; d < v->ndirty; d++) {  /* then one change at a time */
            v->retire[v->dirty[d]] = v->dirty_was[d];
            view_fix(v, v->dirty[d]);
        }
    }
    for (uint32_t d = 0; d < v->ndirty; d++)
        v->is_dirty[v->dirty[d]] = 0;
    v->ndirty = 0;
    v->first = v->heap[0];
    v->second = UINT32_MAX;
    for (uint32_t c = 1; c <= 2 && c < v->n; c++)  /* the second is a child of the root */
        if (v->second == UINT32_MAX || view_before(v, v->heap[c], v->second))
            v->second = v->heap[c];
}

uint64_t gd_gpc_view_second(gd_gpc_view *v, uint32_t *gpc)
{
    if (v->ndirty)
        gd_gpc_view_settle(v);
    *gpc = v->second;
    return v->second == UINT32_MAX ? UINT64_MAX : v->retire[v->second];
}

uint32_t gd_gpc_view_best(const gd_gpc_view *v, uint32_t except)
{
    for (uint32_t level = v->top; level; level--) {
        const uint32_t c = v->count[level];
        if (!c || (c == 1 && except < v->n && v->max_free[except] == level))
            continue;  /* nobody, or only the GPC to ignore */
        for (uint32_t w = 0; w < (v->n + 63) / 64; w++) {
            uint64_t m = v->at[level][w];
            if (except / 64 == w)
                m &= ~(1ull << (except % 64));
            if (m)
                return w * 64 + (uint32_t)__builtin_ctzll(m);
        }
    }
    return UINT32_MAX;
}
