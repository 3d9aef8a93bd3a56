#include "cga.h"

#include <string.h>

/* CTAs needed to bring every SM down to `level` free slots. */
static uint64_t lake_volume(const uint32_t *free_slots, uint32_t n, uint32_t level)
{
    uint64_t v = 0;
    for (uint32_t i = 0; i < n; i++)
        if (free_slots[i] > level)
            v += free_slots[i] - level;
    return v;
}

/* The lake's volume at each level from a histogram of the SMs' free slots: vol(level) =
 * S1 - level x S0 over the SMs above the level (S0 their count, S1 their free slots),
 * suffix sums over the levels; the same numbers as lake_volume, in O(1) per probe. */
typedef struct lake_hist {
    uint32_t top;                 /* the deepest SM's free slots */
    uint64_t s0[258], s1[258];    /* over the SMs with more than `level` free slots (top <= 256) */
    const uint32_t *free_slots;   /* top > 256: no sums, lake_volume over these n SMs */
    uint32_t n;
} lake_hist;

/* The suffix sums from the count of SMs at each level 0..deepest (<= 256). */
static void lake_hist_sums(lake_hist *h, const uint32_t *cnt, uint32_t deepest)
{
    h->free_slots = NULL;
    h->top = deepest;
    h->s0[deepest] = h->s1[deepest] = 0;
    for (uint32_t v = deepest; v-- > 0;) {
        h->s0[v] = h->s0[v + 1] + cnt[v + 1];
        h->s1[v] = h->s1[v + 1] + (uint64_t)cnt[v + 1] * (v + 1);
    }
}

/* The histogram and the deepest SM in one pass. */
static void lake_hist_init(lake_hist *h, const uint32_t *restrict free_slots, uint32_t n)
{
    uint32_t cnt[257], deepest = 0;
    memset(cnt, 0, sizeof cnt);
    for (uint32_t i = 0; i < n; i++) {
        uint32_t f = free_slots[i];
        cnt[f < 256 ? f : 256]++;
        deepest = f > deepest ? f : deepest;
    }
    if (deepest <= 256) {
        lake_hist_sums(h, cnt, deepest);
        return;
    }
    h->top = deepest;
    h->free_slots = free_slots;
    h->n = n;
}

static uint64_t lake_hist_volume(const lake_hist *h, uint32_t level)
{
    if (h->free_slots)
        return lake_volume(h->free_slots, h->n, level);
    return level >= h->top ? 0 : h->s1[level] - (uint64_t)level * h->s0[level];
}

/* The final water level ([0155]): scanning down from the deepest SM while the next
 * level still holds no more than k, or, for a lake deeper than scan_limit, a binary
 * search for the smallest level whose filling takes no more than k. */
static uint32_t lake_level(const lake_hist *h, uint32_t k, uint32_t scan_limit, uint32_t *probes)
{
    uint32_t level;
    if (h->top <= scan_limit) {
        level = h->top;
        *probes = 1;
        while (level > 0 && lake_hist_volume(h, level - 1) <= k) {
            level--;
            (*probes)++;
        }
        return level;
    }
    uint32_t lo = 0, hi = h->top;
    while (lo < hi) {
        uint32_t mid = lo + (hi - lo) / 2;
        (*probes)++;
        if (lake_hist_volume(h, mid) <= k)
            hi = mid;
        else
            lo = mid + 1;
    }
    return lo;
}

void gd_lake_fill(const uint32_t *restrict free_slots, uint32_t n, uint32_t k, uint32_t scan_limit,
                  uint32_t *restrict take, gd_lake_result *res)
{
    memset(res, 0, sizeof *res);
    lake_hist h;
    lake_hist_init(&h, free_slots, n);
    const uint32_t level = lake_level(&h, k, scan_limit, &res->probes);
    const uint64_t filled = lake_hist_volume(&h, level);
    for (uint32_t i = 0; i < n; i++)
        take[i] = free_slots[i] > level ? free_slots[i] - level : 0;
    /* The CTAs left go to the SMs at the water line, highest priority first: those
     * whose population count of water-line SMs before them is below the number left. */
    uint32_t left = level > 0 ? (uint32_t)(k - filled) : 0;
    for (uint32_t i = 0; i < n && res->extra < left; i++) {
        if (free_slots[i] >= level) {
            take[i]++;
            res->extra++;
        }
    }
    res->placed = (uint32_t)filled + res->extra;
    res->level = level;
}

void gd_lake_fill_gpcs(const gd_lake_gpc *gpcs, uint32_t ngpc, uint32_t k, uint32_t scan_limit, uint32_t *extra,
                       uint64_t *receive, gd_lake_result *res)
{
    memset(res, 0, sizeof *res);
    memset(receive, 0, (ngpc + 63) / 64 * sizeof *receive);
    uint32_t deepest = 0;
    for (uint32_t g = 0; g < ngpc; g++) {
        const uint32_t top = gpcs[g].max_free < 256 ? gpcs[g].max_free : 256;
        deepest = top > deepest ? top : deepest;
    }
    uint32_t level;
    uint64_t filled;
    if (deepest <= scan_limit) {
        /* lake_level's scan down from the deepest SM, with each level's SMs counted
         * only when the scan reaches it (a population count per GPC): a small launch
         * on a GPU with room stops at the first level or two */
        uint64_t s0 = 0, s1 = 0;  /* SMs above `level` and their free slots */
        level = deepest;
        res->probes = 1;
        while (level > 0) {
            uint64_t c = 0;
            for (uint32_t g = 0; g < ngpc; g++)
                if (gpcs[g].max_free >= level)
                    c += gd_popcount64(gpcs[g].level[level]);
            const uint64_t n0 = s0 + c, n1 = s1 + c * level;
            if (n1 - (uint64_t)(level - 1) * n0 > k)  /* the volume down to level - 1 */
                break;
            s0 = n0;
            s1 = n1;
            level--;
            res->probes++;
        }
        filled = s1 - (uint64_t)level * s0;
    } else {
        /* the histogram of free slots: the SMs at each level are a population count */
        uint32_t cnt[257];
        memset(cnt, 0, sizeof cnt);
        for (uint32_t g = 0; g < ngpc; g++) {
            const uint32_t top = gpcs[g].max_free < 256 ? gpcs[g].max_free : 256;
            for (uint32_t f = 1; f <= top; f++)  /* the SMs without a free slot do not count */
                if (gpcs[g].level[f])            /* most levels are empty */
                    cnt[f] += gd_popcount64(gpcs[g].level[f]);
        }
        lake_hist h;
        lake_hist_sums(&h, cnt, deepest);
        level = lake_level(&h, k, scan_limit, &res->probes);
        filled = lake_hist_volume(&h, level);
    }
    const uint32_t left = level > 0 ? (uint32_t)(k - filled) : 0;
    /* The SMs above the water line receive CTAs, and at the line the first `left` in
     * priority order (GPC by GPC): a GPC's SMs at the line are a population count. */
    for (uint32_t g = 0; g < ngpc; g++) {
        const gd_lake_gpc *c = &gpcs[g];
        const uint32_t top = c->max_free < 256 ? c->max_free : 256;
        uint32_t e = 0;
        if (level > 0 && top >= level && res->extra < left) {
            uint32_t line = 0;
            for (uint32_t f = level; f <= top; f++)
                line += gd_popcount64(c->level[f]);
            e = line < left - res->extra ? line : left - res->extra;
            res->extra += e;
        }
        if (top > level || e) {
            receive[g / 64] |= 1ull << (g % 64);
            extra[g] = e;
        }
    }
    res->placed = (uint32_t)filled + res->extra;
    res->level = level;
}

uint32_t gd_lake_gpc_groups(const uint64_t *level_masks, uint32_t max_free, uint32_t level, uint32_t extra,
                            gd_lake_group *out)
{
    const uint32_t top = max_free < 256 ? max_free : 256;
    if (top < level)
        return 0;
    /* the SMs at the line that take one more: the first `extra` of those with at least
     * `level` free slots */
    uint64_t ext = 0;
    if (extra) {
        uint64_t line = 0;
        for (uint32_t f = level; f <= top; f++)
            line |= level_masks[f];
        const uint32_t n = gd_popcount64(line);
        if (extra >= n) {
            ext = line;  /* all of them (the common case) */
        } else if (extra <= n / 2) {
            for (; extra; line &= line - 1, extra--)
                ext |= line & -line;
        } else {         /* all but the last n - extra */
            ext = line;
            for (uint32_t drop = n - extra; drop; drop--)
                ext &= ~(1ull << (63 - __builtin_clzll(ext)));
        }
    }
    /* by count: an SM with f free slots takes f - level, or one more */
    uint64_t by[GD_LAKE_MAX_COUNTS];
    const uint32_t ncount = top - level + 2;  /* counts 0 .. top - level + 1 */
    memset(by, 0, ncount * sizeof *by);
    for (uint32_t f = level; f <= top; f++) {
        const uint64_t m = level_masks[f];
        by[f - level] |= m & ~ext;
        by[f - level + 1] |= m & ext;
    }
    uint32_t n = 0;
    for (uint32_t c = 1; c < ncount; c++) {
        if (!by[c])
            continue;
        /* in the order of their lowest SM (insertion: few groups) */
        uint32_t i = n++;
        for (; i > 0 && __builtin_ctzll(out[i - 1].sms) > __builtin_ctzll(by[c]); i--)
            out[i] = out[i - 1];
        out[i].sms = by[c];
        out[i].count = c;
    }
    return n;
}

void gd_lake_fill_levels(const gd_lake_gpc *gpcs, uint32_t ngpc, uint32_t k, uint32_t scan_limit, uint32_t *take,
                         uint64_t *receive, gd_lake_result *res)
{
    uint32_t extra[GD_MAX_GPCS];
    gd_lake_fill_gpcs(gpcs, ngpc, k, scan_limit, extra, receive, res);
    uint32_t off = 0;
    for (uint32_t g = 0; g < ngpc; off += gpcs[g].nsm, g++) {
        if (!(receive[g / 64] >> (g % 64) & 1))
            continue;
        uint32_t *t = take + off;
        memset(t, 0, gpcs[g].nsm * sizeof *t);
        gd_lake_group grp[64];
        const uint32_t n = gd_lake_gpc_groups(gpcs[g].level, gpcs[g].max_free, res->level, extra[g], grp);
        for (uint32_t i = 0; i < n; i++)
            for (uint64_t m = grp[i].sms; m; m &= m - 1)
                t[__builtin_ctzll(m)] = grp[i].count;
    }
}

int gd_multicast_pick(const uint32_t *free_slots, uint32_t n, uint32_t sms_per_tpc, uint32_t m, uint32_t *take)
{
    uint32_t cand[GD_MAX_SMS_PER_GPC], key_class[GD_MAX_SMS_PER_GPC], nc = 0;
    if (!sms_per_tpc)
        sms_per_tpc = 1;
    for (uint32_t i = 0; i < n; i++) {
        if (!free_slots[i])
            continue;
        uint32_t t0 = i - i % sms_per_tpc, whole = 1;
        for (uint32_t j = t0; j < t0 + sms_per_tpc && j < n; j++)
            whole &= free_slots[j] > 0;
        /* insertion by (whole TPC first, most free slots, lowest index) */
        uint32_t c = whole ? 0 : 1, pos = nc;
        while (pos > 0) {
            uint32_t q = cand[pos - 1];
            if (key_class[pos - 1] < c || (key_class[pos - 1] == c && free_slots[q] >= free_slots[i]))
                break;
            cand[pos] = q;
            key_class[pos] = key_class[pos - 1];
            pos--;
        }
        cand[pos] = i;
        key_class[pos] = c;
        nc++;
    }
    if (nc < m)
        return 0;
    memset(take, 0, n * sizeof *take);
    for (uint32_t j = 0; j < m; j++)
        take[cand[j]] = 1;
    return 1;
}

int32_t gd_gpc_query(const uint32_t *free_slots, uint32_t n, uint32_t ctas, gd_cga_mode mode, uint32_t sms_per_tpc,
                     uint32_t scan_limit, uint32_t *take)
{
    uint32_t t[GD_MAX_SMS_PER_GPC];
    if (mode == GD_CGA_MULTICAST) {
        if (!gd_multicast_pick(free_slots, n, sms_per_tpc, ctas, t))
            return -1;
    } else {
        if (lake_volume(free_slots, n, 0) < ctas)
            return -1;
        gd_lake_result r;
        gd_lake_fill(free_slots, n, ctas, scan_limit, t, &r);
    }
    uint32_t speed = UINT32_MAX;
    for (uint32_t i = 0; i < n; i++)
        if (t[i] && free_slots[i] - t[i] < speed)
            speed = free_slots[i] - t[i];
    memcpy(take, t, n * sizeof *take);
    return speed == UINT32_MAX ? -1 : (int32_t)speed;
}

uint32_t gd_gpu_pick(const int32_t *speed, uint32_t ngpc, uint64_t *mask)
{
    int32_t best = -1;
    for (uint32_t g = 0; g < ngpc; g++)
        if (speed[g] > best)
            best = speed[g];
    memset(mask, 0, (ngpc + 63) / 64 * sizeof *mask);
    uint32_t n = 0;
    if (best < 0)
        return 0;
    for (uint32_t g = 0; g < ngpc; g++)
        if (speed[g] == best) {
            mask[g / 64] |= 1ull << (g % 64);
            n++;
        }
    return n;
}

size_t gd_gpu_cga_scratch_size(uint32_t ngpc)
{
    return ngpc * (sizeof(gd_gpc_shadow) + GD_MAX_SMS_PER_GPC * sizeof(uint32_t) + sizeof(int32_t));
}

int gd_gpu_cga_place(gd_gpc_shadow *gpcs, uint32_t ngpc, uint32_t parts, uint32_t ctas, gd_cga_mode mode,
                     uint32_t sms_per_tpc, uint32_t scan_limit, uint32_t *gpc_of, uint32_t *take, void *scratch)
{
    /* Pass 1 on a snapshot: every query iteration asks each GPC that may still take a
     * GPC-CGA; those that answer valid take one part each, best speed first (lowest
     * index on a tie), until all parts have a home or an iteration finds none. */
    gd_gpc_shadow *shadow = scratch;  /* all members are uint32_t: 4-byte aligned, as are the next two */
    uint32_t (*t)[GD_MAX_SMS_PER_GPC] = (void *)(shadow + ngpc);
    int32_t *speed = (int32_t *)(t + ngpc);
    memcpy(shadow, gpcs, ngpc * sizeof *gpcs);
    uint32_t done = 0;
    while (done < parts) {
        uint32_t valid = 0;
        for (uint32_t g = 0; g < ngpc; g++) {
            speed[g] = -1;
            if (shadow[g].cgas_left && shadow[g].ids_left)
                speed[g] = gd_gpc_query(shadow[g].free_slots, shadow[g].nsm, ctas, mode, sms_per_tpc, scan_limit,
                                        t[g]);
            valid += speed[g] >= 0;
        }
        if (!valid)
            return 0;
        for (; valid && done < parts; valid--) {
            uint32_t best = UINT32_MAX;
            for (uint32_t g = 0; g < ngpc; g++)
                if (speed[g] >= 0 && (best == UINT32_MAX || speed[g] > speed[best]))
                    best = g;
            gd_gpc_shadow *s = &shadow[best];
            for (uint32_t i = 0; i < s->nsm; i++) {
                s->free_slots[i] -= t[best][i];
                take[(uint64_t)done * GD_MAX_SMS_PER_GPC + i] = t[best][i];
            }
            s->cgas_left--;
            s->ids_left--;
            gpc_of[done++] = best;
            speed[best] = -1;
        }
    }
    /* Pass 2: reset, then launch the parts one by one; the queries repeat pass 1's
     * answers, so the committed state is the snapshot's. */
    memcpy(gpcs, shadow, ngpc * sizeof *gpcs);
    return 1;
}

void gd_raster_init(gd_raster *r, const uint32_t dim[3])
{
    memcpy(r->dim, dim, sizeof r->dim);
    memset(r->cur, 0, sizeof r->cur);
}

void gd_raster_advance(gd_raster *r, uint64_t delta)
{
    const uint64_t xy = (uint64_t)r->dim[0] * r->dim[1];
    uint64_t zd = delta / xy, t = delta % xy;
    uint64_t yd = t / r->dim[0], xd = t % r->dim[0];
    uint64_t x = r->cur[0] + xd, c = x >= r->dim[0];
    if (c)
        x -= r->dim[0];
    uint64_t y = r->cur[1] + yd + c;
    c = y >= r->dim[1];
    if (c)
        y -= r->dim[1];
    r->cur[0] = (uint32_t)x;
    r->cur[1] = (uint32_t)y;
    r->cur[2] = (uint32_t)(r->cur[2] + zd + c);
}

void gd_raster_direct(const uint32_t dim[3], uint64_t linear, uint32_t out[3])
{
    out[0] = (uint32_t)(linear % dim[0]);
    out[1] = (uint32_t)(linear / dim[0] % dim[1]);
    out[2] = (uint32_t)(linear / ((uint64_t)dim[0] * dim[1]));
}

void gd_cga_ids_init(gd_cga_ids *ids, uint32_t n)
{
    memset(ids, 0, sizeof *ids);
    ids->n = n > GD_MAX_CGA_IDS ? GD_MAX_CGA_IDS : n;
}

uint32_t gd_cga_ids_take(gd_cga_ids *ids)
{
    for (uint32_t w = 0; w < GD_CGA_ID_WORDS; w++) {
        uint64_t freew = ~ids->used[w];
        if (!freew)
            continue;
        uint32_t id = w * 64 + (uint32_t)__builtin_ctzll(freew);
        if (id >= ids->n)
            return UINT32_MAX;
        ids->used[w] |= 1ull << (id % 64);
        ids->in_use++;
        return id;
    }
    return UINT32_MAX;
}

void gd_cga_ids_release(gd_cga_ids *ids, uint32_t id)
{
    ids->used[id / 64] &= ~(1ull << (id % 64));
    ids->in_use--;
}
