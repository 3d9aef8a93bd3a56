/* meta.c - the meta-scheduler's decisions (meta.h). */
#include "meta.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

const char *gd_meta_event_name(int ev)
{
    static const char *const names[] = {"launch", "take", "reserve", "end", "write", "free"};
    return ev >= 0 && ev <= GD_META_EV_FREE ? names[ev] : "?";
}

static uint64_t min64(uint64_t a, uint64_t b) { return a < b ? a : b; }

static uint64_t need_of(const gd_meta *m, const gd_meta_kernel *k)
{
    return k->items > m->p.simd_width ? k->items : m->p.simd_width;
}

static uint64_t free_of(const gd_meta_bstate *b) { return b->length - b->fill - b->reading - b->incoming; }

/* Whether each input of kernel i holds one CTA's items. */
static int has_cta(const gd_meta *m, const gd_meta_kernel *k)
{
    for (uint32_t j = 0; j < k->nin; j++)
        if (m->b[k->in[j]].fill < k->items)
            return 0;
    return 1;
}

/* The kernels that can still write: those running, those whose inputs hold a CTA's
 * items, and everything downstream of them. */
static void active_set(const gd_meta *m, uint8_t *active)
{
    const gd_topology *t = m->t;
    for (uint32_t i = 0; i < t->nkernels; i++)
        active[i] = m->k[i].running > 0 || has_cta(m, &t->k[i]);
    for (int changed = 1; changed;) {
        changed = 0;
        for (uint32_t i = 0; i < t->nkernels; i++) {
            if (!active[i])
                continue;
            for (uint32_t o = 0; o < t->k[i].nout; o++)
                for (uint32_t c = 0; c < t->nkernels; c++) {
                    if (active[c])
                        continue;
                    for (uint32_t j = 0; j < t->k[c].nin; j++)
                        if (t->k[c].in[j] == t->k[i].out[o]) {
                            active[c] = 1;
                            changed = 1;
                            break;
                        }
                }
        }
    }
}

/* Whether no kernel that can still write buffer b exists. */
static int producers_done(const gd_meta *m, const uint8_t *active, int b)
{
    const gd_topology *t = m->t;
    for (uint32_t i = 0; i < t->nkernels; i++)
        for (uint32_t o = 0; o < t->k[i].nout; o++)
            if (t->k[i].out[o] == b && active[i])
                return 0;
    return 1;
}

/* Whether kernel i's inputs let one CTA launch (threshold included). */
static int inputs_ready(const gd_meta *m, const uint8_t *active, uint32_t i)
{
    const gd_meta_kernel *k = &m->t->k[i];
    for (uint32_t j = 0; j < k->nin; j++) {
        uint64_t f = m->b[k->in[j]].fill;
        if (f < k->items || (!m->relaxed && f < need_of(m, k) && !producers_done(m, active, k->in[j])))
            return 0;
    }
    return 1;
}

/* The CTAs kernel i may launch now (0: none), and the SMs they are counted to hold. */
static uint64_t launchable(const gd_meta *m, const uint8_t *active, uint32_t i, uint32_t *sms)
{
    const gd_topology *t = m->t;
    const gd_meta_kernel *k = &t->k[i];
    const gd_meta_kstate *ks = &m->k[i];
    *sms = 0;
    if (!inputs_ready(m, active, i))
        return 0;
    if (m->p.debug && m->in_flight)
        return 0;
    if (m->p.concurrency == GD_META_SEQUENTIAL && m->in_flight)
        return 0;
    if (m->p.protect)
        for (uint32_t j = 0; j < t->nkernels; j++)
            if (m->k[j].running && t->k[j].importance > k->importance)
                return 0;
    uint64_t g = UINT64_MAX;
    for (uint32_t j = 0; j < k->nin; j++)
        g = min64(g, m->b[k->in[j]].fill / k->items);
    uint64_t r = gd_meta_reserve(k);
    if (r)
        for (uint32_t o = 0; o < k->nout; o++)
            g = min64(g, free_of(&m->b[k->out[o]]) / r);
    uint64_t wave = (uint64_t)m->p.sms * ks->max_ctas_per_sm;
    g = min64(g, m->p.launch_ctas ? m->p.launch_ctas : wave);
    if (m->p.debug)
        g = min64(g, 1);
    if (m->p.concurrency == GD_META_AUTO && m->in_flight) {
        uint32_t left = m->sms_held < m->p.sms ? m->p.sms - m->sms_held : 0;
        g = min64(g, (uint64_t)left * ks->max_ctas_per_sm);
    }
    if (g) {
        uint64_t n = (g + ks->max_ctas_per_sm - 1) / ks->max_ctas_per_sm;
        *sms = n > m->p.sms ? m->p.sms : (uint32_t)n;
    }
    return g;
}

static void logev(const gd_meta *m, gd_time_ps t, int ev, uint32_t k, int b, uint64_t items, uint64_t fill)
{
    if (m->log)
        m->log(m->log_ctx, t, ev, k, b, items, fill);
}

/* Recompute the flags the time integrals use (after every change). */
static void flags(gd_meta *m, gd_time_ps now)
{
    const gd_topology *t = m->t;
    uint8_t active[GD_META_MAX_KERNELS];
    active_set(m, active);
    for (uint32_t b = 0; b < t->nbuffers; b++)
        m->b[b].full = m->b[b].empty = 0;
    for (uint32_t i = 0; i < t->nkernels; i++) {
        const gd_meta_kernel *k = &t->k[i];
        gd_meta_kstate *ks = &m->k[i];
        int ready = inputs_ready(m, active, i);
        if (ready && !ks->running && !ks->waiting) {
            ks->waiting = 1;
            ks->waiting_since = now;
        } else if ((!ready || ks->running) && ks->waiting) {
            ks->waiting = 0;
        }
        uint64_t r = gd_meta_reserve(k);
        for (uint32_t o = 0; o < k->nout; o++)
            if (ready && r && free_of(&m->b[k->out[o]]) < r)
                m->b[k->out[o]].full = 1;
        for (uint32_t j = 0; j < k->nin; j++) {
            const gd_meta_bstate *bs = &m->b[k->in[j]];
            uint64_t need = producers_done(m, active, k->in[j]) ? k->items : need_of(m, k);
            if (bs->fill < need && active[i] && !ks->running)
                m->b[k->in[j]].empty = 1;
        }
    }
}

void gd_meta_account(gd_meta *m, gd_time_ps now)
{
    if (now <= m->last_t)
        return;
    gd_time_ps dt = now - m->last_t;
    const gd_topology *t = m->t;
    for (uint32_t b = 0; b < t->nbuffers; b++) {
        gd_meta_bstate *bs = &m->b[b];
        bs->fill_ps += (double)bs->fill * (double)dt;
        if (bs->full)
            bs->full_ps += dt;
        if (bs->empty)
            bs->empty_ps += dt;
    }
    for (uint32_t i = 0; i < t->nkernels; i++) {
        if (m->k[i].running)
            m->k[i].busy_ps += dt;
        if (m->k[i].waiting)
            m->k[i].wait_ps += dt;
    }
    m->last_t = now;
}

uint64_t gd_meta_debug_length(const gd_topology *t, uint32_t b, uint32_t simd_width)
{
    const gd_meta_buffer *bf = &t->b[b];
    /* a buffer on a loop keeps its length: the loop rule counted it */
    uint8_t reach[GD_META_MAX_KERNELS][GD_META_MAX_KERNELS];
    memset(reach, 0, sizeof reach);
    for (uint32_t i = 0; i < t->nkernels; i++)
        for (uint32_t o = 0; o < t->k[i].nout; o++)
            for (uint32_t c = 0; c < t->nkernels; c++)
                for (uint32_t j = 0; j < t->k[c].nin; j++)
                    if (t->k[c].in[j] == t->k[i].out[o])
                        reach[i][c] = 1;
    for (uint32_t v = 0; v < t->nkernels; v++)
        for (uint32_t i = 0; i < t->nkernels; i++)
            if (reach[i][v])
                for (uint32_t c = 0; c < t->nkernels; c++)
                    if (reach[v][c])
                        reach[i][c] = 1;
    uint64_t p = 0, c = 0;
    for (uint32_t i = 0; i < t->nkernels; i++) {
        for (uint32_t o = 0; o < t->k[i].nout; o++)
            if (t->k[i].out[o] == (int)b && gd_meta_reserve(&t->k[i]) > p)
                p = gd_meta_reserve(&t->k[i]);
        for (uint32_t j = 0; j < t->k[i].nin; j++)
            if (t->k[i].in[j] == (int)b) {
                uint64_t need = t->k[i].items > simd_width ? t->k[i].items : simd_width;
                if (need > c)
                    c = need;
            }
    }
    for (uint32_t pi = 0; pi < t->nkernels; pi++)
        for (uint32_t o = 0; o < t->k[pi].nout; o++)
            if (t->k[pi].out[o] == (int)b)
                for (uint32_t ci = 0; ci < t->nkernels; ci++)
                    for (uint32_t j = 0; j < t->k[ci].nin; j++)
                        if (t->k[ci].in[j] == (int)b && (reach[ci][pi] || ci == pi))
                            return bf->length;
    uint64_t n = p + c > 1 ? p + c - 1 : 1;
    if (n < bf->initial)
        n = bf->initial;
    return n < bf->length ? n : bf->length;
}

void gd_meta_init(gd_meta *m, const gd_topology *t, const gd_meta_params *p, const uint32_t *max_ctas_per_sm,
                  gd_time_ps now)
{
    gd_meta_log_fn log = m->log;
    void *ctx = m->log_ctx;
    memset(m, 0, sizeof *m);
    m->log = log;
    m->log_ctx = ctx;
    m->t = t;
    m->p = *p;
    if (!m->p.sms)
        m->p.sms = 1;
    m->last_t = now;
    for (uint32_t i = 0; i < t->nkernels; i++)
        m->k[i].max_ctas_per_sm = max_ctas_per_sm[i] ? max_ctas_per_sm[i] : 1;
    for (uint32_t b = 0; b < t->nbuffers; b++) {
        gd_meta_bstate *bs = &m->b[b];
        bs->length = p->debug ? gd_meta_debug_length(t, b, p->simd_width) : t->b[b].length;
        bs->fill = bs->max_fill = t->b[b].initial;
    }
    flags(m, now);
}

static void launch(gd_meta *m, gd_time_ps now, uint32_t i, uint64_t g, uint32_t sms, gd_meta_launch *out)
{
    const gd_meta_kernel *k = &m->t->k[i];
    gd_meta_kstate *ks = &m->k[i];
    out->kernel = i;
    out->ctas = g;
    out->sms = sms;
    out->seq = m->seq++;
    logev(m, now, GD_META_EV_LAUNCH, i, -1, g, 0);
    for (uint32_t j = 0; j < k->nin; j++) {
        gd_meta_bstate *bs = &m->b[k->in[j]];
        bs->fill -= g * k->items;
        bs->reading += g * k->items;
        logev(m, now, GD_META_EV_TAKE, i, k->in[j], g * k->items, bs->fill);
    }
    for (uint32_t o = 0; o < k->nout; o++) {
        gd_meta_bstate *bs = &m->b[k->out[o]];
        bs->incoming += g * gd_meta_reserve(k);
        logev(m, now, GD_META_EV_RESERVE, i, k->out[o], g * gd_meta_reserve(k), bs->fill);
    }
    ks->running++;
    if (ks->waiting) {
        ks->latency_ps += now - ks->waiting_since;
        ks->waiting = 0;
    }
    ks->launches++;
    ks->ctas += g;
    ks->items_in += g * k->items;
    m->in_flight++;
    m->sms_held += sms;
}

/* One pass of a round in the policy's order; the launches it makes. */
static size_t policy_pass(gd_meta *m, gd_time_ps now, gd_meta_launch *out, size_t cap)
{
    const gd_topology *t = m->t;
    uint8_t active[GD_META_MAX_KERNELS];
    uint8_t tried[GD_META_MAX_KERNELS];
    memset(tried, 0, sizeof tried);
    size_t n = 0;
    uint32_t order[GD_META_MAX_BUFFERS > GD_META_MAX_KERNELS ? GD_META_MAX_BUFFERS : GD_META_MAX_KERNELS];
    if (m->p.policy == GD_META_PRIORITY) {
        /* kernels by importance, highest first; ties in declaration order */
        for (uint32_t i = 0; i < t->nkernels; i++)
            order[i] = i;
        for (uint32_t i = 1; i < t->nkernels; i++)
            for (uint32_t j = i; j > 0 && t->k[order[j]].importance > t->k[order[j - 1]].importance; j--) {
                uint32_t x = order[j];
                order[j] = order[j - 1];
                order[j - 1] = x;
            }
        for (uint32_t x = 0; x < t->nkernels && n < cap; x++) {
            uint32_t i = order[x], sms;
            active_set(m, active);
            uint64_t g = launchable(m, active, i, &sms);
            if (g)
                launch(m, now, i, g, sms, &out[n++]);
        }
    } else {
        /* buffers in turn from rr (round_robin), or fullest first (most_data) */
        uint32_t nb = t->nbuffers;
        for (uint32_t x = 0; x < nb; x++)
            order[x] = (m->rr + x) % nb;
        if (m->p.policy == GD_META_MOST_DATA) {
            for (uint32_t x = 0; x < nb; x++)
                order[x] = x;
            for (uint32_t i = 1; i < nb; i++)
                for (uint32_t j = i; j > 0 && m->b[order[j]].fill > m->b[order[j - 1]].fill; j--) {
                    uint32_t y = order[j];
                    order[j] = order[j - 1];
                    order[j - 1] = y;
                }
        }
        for (uint32_t x = 0; x < nb && n < cap; x++) {
            uint32_t b = order[x];
            if (!m->b[b].fill)
                continue;
            size_t before = n;
            for (uint32_t i = 0; i < t->nkernels && n < cap; i++) {
                if (tried[i])
                    continue;
                const gd_meta_kernel *k = &t->k[i];
                int reads = 0;
                for (uint32_t j = 0; j < k->nin; j++)
                    reads |= k->in[j] == (int)b;
                if (!reads)
                    continue;
                tried[i] = 1;
                uint32_t sms;
                active_set(m, active);
                uint64_t g = launchable(m, active, i, &sms);
                if (g)
                    launch(m, now, i, g, sms, &out[n++]);
            }
            if (m->p.policy == GD_META_MOST_DATA && n > before)
                break;  /* the fullest buffer's consumers only */
        }
    }
    return n;
}

size_t gd_meta_round(gd_meta *m, gd_time_ps now, gd_meta_launch *out, size_t cap)
{
    gd_meta_account(m, now);
    m->rounds++;
    size_t n = policy_pass(m, now, out, cap);
    if (!n && !m->in_flight) {
        /* nothing runs that could bring an input up to the SIMD width: launch with
         * what there is rather than stop (meta.h) */
        m->relaxed = 1;
        n = policy_pass(m, now, out, cap);
        m->relaxed = 0;
    }
    if (m->p.policy != GD_META_PRIORITY && m->t->nbuffers)
        m->rr = (m->rr + 1) % m->t->nbuffers;
    flags(m, now);
    return n;
}

void gd_meta_unlaunch(gd_meta *m, gd_time_ps now, const gd_meta_launch *l)
{
    const gd_meta_kernel *k = &m->t->k[l->kernel];
    gd_meta_kstate *ks = &m->k[l->kernel];
    gd_meta_account(m, now);
    for (uint32_t j = 0; j < k->nin; j++) {
        gd_meta_bstate *bs = &m->b[k->in[j]];
        bs->fill += l->ctas * k->items;
        bs->reading -= l->ctas * k->items;
    }
    for (uint32_t o = 0; o < k->nout; o++)
        m->b[k->out[o]].incoming -= l->ctas * gd_meta_reserve(k);
    ks->running--;
    ks->launches--;
    ks->ctas -= l->ctas;
    ks->items_in -= l->ctas * k->items;
    m->in_flight--;
    m->sms_held -= l->sms;
    m->seq--;
    flags(m, now);
}

void gd_meta_ended(gd_meta *m, gd_time_ps now, const gd_meta_launch *l)
{
    const gd_meta_kernel *k = &m->t->k[l->kernel];
    gd_meta_kstate *ks = &m->k[l->kernel];
    gd_meta_account(m, now);
    logev(m, now, GD_META_EV_END, l->kernel, -1, l->ctas, 0);
    for (uint32_t o = 0; o < k->nout; o++) {
        gd_meta_bstate *bs = &m->b[k->out[o]];
        uint64_t w = l->ctas * k->out_items;
        bs->incoming -= l->ctas * gd_meta_reserve(k);
        bs->fill += w;
        bs->written += w;
        if (bs->fill > bs->max_fill)
            bs->max_fill = bs->fill;
        logev(m, now, GD_META_EV_WRITE, l->kernel, k->out[o], w, bs->fill);
    }
    for (uint32_t j = 0; j < k->nin; j++) {
        gd_meta_bstate *bs = &m->b[k->in[j]];
        bs->reading -= l->ctas * k->items;
        bs->consumed += l->ctas * k->items;
        logev(m, now, GD_META_EV_FREE, l->kernel, k->in[j], l->ctas * k->items, bs->fill);
    }
    ks->items_out += l->ctas * k->out_items * k->nout;
    ks->running--;
    m->in_flight--;
    m->sms_held -= l->sms;
    flags(m, now);
}

int gd_meta_stuck(const gd_meta *m, char *buf, size_t size)
{
    const gd_topology *t = m->t;
    for (uint32_t i = 0; i < t->nkernels; i++) {
        const gd_meta_kernel *k = &t->k[i];
        if (!has_cta(m, k))
            continue;
        uint64_t r = gd_meta_reserve(k);
        for (uint32_t o = 0; o < k->nout; o++) {
            const gd_meta_bstate *bs = &m->b[k->out[o]];
            if (r && free_of(bs) < r) {
                snprintf(buf, size, "kernel %s has items for a CTA but buffer %s has no room for its %" PRIu64
                         " (%" PRIu64 " of %" PRIu64 " entries hold items nothing will read)", k->name,
                         t->b[k->out[o]].name, r, bs->fill, bs->length);
                return 1;
            }
        }
        snprintf(buf, size, "kernel %s has items for a CTA but cannot launch", k->name);
        return 1;
    }
    if (size)
        buf[0] = '\0';
    return 0;
}
