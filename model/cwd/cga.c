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
    uint32_t top;                 /* the deepest SM's free slots (<= 256) */
    uint64_t s0[258], s1[258];    /* over the SMs with more than `level` free slots */
} lake_hist;

/* The histogram and the deepest SM in one pass; 0 if some SM has more than 256 free
 * slots (then lake_volume serves). */
static int lake_hist_init(lake_hist *h, const uint32_t *restrict free_slots, uint32_t n, uint32_t *deepest_out)
{
    uint32_t cnt[257], deepest = 0;
    memset(cnt, 0, sizeof cnt);
    for (uint32_t i = 0; i < n; i++) {
        uint32_t f = free_slots[i];
        cnt[f < 256 ? f : 256]++;
        deepest = f > deepest ? f : deepest;
    }
    *deepest_out = deepest;
    h->top = deepest;
    if (deepest > 256)
        return 0;
    h->s0[deepest] = h->s1[deepest] = 0;
    for (uint32_t v = deepest; v-- > 0;) {
        h->s0[v] = h->s0[v + 1] + cnt[v + 1];
        h->s1[v] = h->s1[v + 1] + (uint64_t)cnt[v + 1] * (v + 1);
    }
    return 1;
}

static uint64_t lake_hist_volume(const lake_hist *h, uint32_t level)
{
    return level >= h->top ? 0 : h->s1[level] - (uint64_t)level * h->s0[level];
}

void gd_lake_fill(const uint32_t *restrict free_slots, uint32_t n, uint32_t k, uint32_t scan_limit,
                  uint32_t *restrict take, gd_lake_result *res)
{
    uint32_t deepest;
    memset(res, 0, sizeof *res);
    lake_hist h;
    const int hist = lake_hist_init(&h, free_slots, n, &deepest);
#define VOLUME(l) (hist ? lake_hist_volume(&h, (l)) : lake_volume(free_slots, n, (l)))
    uint32_t level;
    if (deepest <= scan_limit) {
        /* scan down from the deepest SM while the next level still holds no more than k */
        level = deepest;
        res->probes = 1;
        while (level > 0 && VOLUME(level - 1) <= k) {
            level--;
            res->probes++;
        }
    } else {
        /* binary search for the smallest level whose filling takes no more than k */
        uint32_t lo = 0, hi = deepest;
        while (lo < hi) {
            uint32_t mid = lo + (hi - lo) / 2;
            res->probes++;
            if (VOLUME(mid) <= k)
                hi = mid;
            else
                lo = mid + 1;
        }
        level = lo;
    }
    uint64_t filled = VOLUME(level);
#undef VOLUME
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

uint64_t gd_gpu_pick(const int32_t *speed, uint32_t ngpc)
{
    int32_t best = -1;
    for (uint32_t g = 0; g < ngpc; g++)
        if (speed[g] > best)
            best = speed[g];
    uint64_t mask = 0;
    if (best < 0)
        return 0;
    for (uint32_t g = 0; g < ngpc; g++)
        if (speed[g] == best)
            mask |= 1ull << g;
    return mask;
}

int gd_gpu_cga_place(gd_gpc_shadow *gpcs, uint32_t ngpc, uint32_t parts, uint32_t ctas, gd_cga_mode mode,
                     uint32_t sms_per_tpc, uint32_t scan_limit, uint32_t *gpc_of, uint32_t *take)
{
    /* Pass 1 on a snapshot: every query iteration asks each GPC that may still take a
     * GPC-CGA; those that answer valid take one part each, best speed first (lowest
     * index on a tie), until all parts have a home or an iteration finds none. */
    static _Thread_local gd_gpc_shadow shadow[GD_MAX_GPCS];
    memcpy(shadow, gpcs, ngpc * sizeof *gpcs);
    uint32_t done = 0;
    while (done < parts) {
        int32_t speed[GD_MAX_GPCS];
        uint32_t t[GD_MAX_GPCS][GD_MAX_SMS_PER_GPC];
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
