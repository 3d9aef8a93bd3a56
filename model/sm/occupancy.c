#include "occupancy.h"

#include <string.h>

#include "alloc.h"
#include "gdsim.h"

const char *gd_limiter_name(gd_limiter l)
{
    switch (l) {
    case GD_LIMIT_WARPS: return "warps";
    case GD_LIMIT_REGISTERS: return "registers";
    case GD_LIMIT_SHARED_MEMORY: return "shared_memory";
    case GD_LIMIT_CTA_SLOTS: return "cta_slots";
    }
    return "?";
}

int gd_occupancy_compute(gd_occupancy *out, const gd_sm_limits *sm, const gd_cta_shape *shape,
                         uint32_t smem_limit_per_cta, gd_err *err)
{
    memset(out, 0, sizeof *out);
    if (shape->threads == 0)
        return gd_err_set(err, GD_EINVAL, "a CTA of 0 threads");
    if (shape->threads > sm->max_threads_per_cta)
        return gd_err_set(err, GD_EINVAL, "%u threads per CTA is above the device limit of %u",
                          shape->threads, sm->max_threads_per_cta);
    if (shape->regs_per_thread > sm->max_regs_per_thread)
        return gd_err_set(err, GD_EINVAL, "%u registers per thread is above the device limit of %u",
                          shape->regs_per_thread, sm->max_regs_per_thread);

    uint32_t warps = (uint32_t)gd_div_ceil(shape->threads, sm->warp_size);
    out->cost.warps = warps;
    out->cost.sub_warps = warps / sm->reg_subpartitions;
    out->cost.sub_extra = warps % sm->reg_subpartitions;
    out->by_warps = sm->max_warps / warps;
    out->by_ctas = sm->max_ctas;

    /* A resource the CTA does not use does not limit it (UINT32_MAX), as in
     * cuda_occupancy.h; it must not tie with a real limit. */
    if (shape->regs_per_thread == 0) {
        out->by_regs = UINT32_MAX;
    } else {
        uint32_t rpw = (uint32_t)gd_round_up((uint64_t)shape->regs_per_thread * sm->warp_size, sm->reg_alloc_unit);
        uint32_t per_sub = sm->regs / sm->reg_subpartitions;
        out->cost.regs_per_warp = rpw;
        out->by_regs = (per_sub / rpw) * sm->reg_subpartitions / warps;
    }

    uint64_t smem = (uint64_t)shape->smem_bytes + sm->smem_reserved_per_cta;
    if (shape->smem_bytes > smem_limit_per_cta) {
        out->by_smem = 0;
        out->cost.smem = (uint32_t)gd_round_up(smem, sm->smem_alloc_unit);
    } else if (smem == 0) {
        out->by_smem = UINT32_MAX;
    } else {
        out->cost.smem = (uint32_t)gd_round_up(smem, sm->smem_alloc_unit);
        out->by_smem = sm->smem / out->cost.smem;
    }

    out->max_ctas = out->by_warps;
    out->limiter = GD_LIMIT_WARPS;
    if (out->by_regs < out->max_ctas) { out->max_ctas = out->by_regs; out->limiter = GD_LIMIT_REGISTERS; }
    if (out->by_smem < out->max_ctas) { out->max_ctas = out->by_smem; out->limiter = GD_LIMIT_SHARED_MEMORY; }
    if (out->by_ctas < out->max_ctas) { out->max_ctas = out->by_ctas; out->limiter = GD_LIMIT_CTA_SLOTS; }
    out->theoretical_pct = 100.0 * (double)out->max_ctas * warps / (double)sm->max_warps;
    return GD_OK;
}

float gd_kineto_occupancy(const gd_sm_limits *sm, uint32_t sms, uint64_t ctas, uint32_t threads,
                          uint32_t active_ctas)
{
    /* The profiler multiplies the grid's dimensions in 32-bit integers and converts to
     * float; the arithmetic below stays in float as it does there. */
    float blocks_per_sm = (float)(uint32_t)ctas / (float)sms;
    if ((float)active_ctas < blocks_per_sm)
        blocks_per_sm = (float)active_ctas;
    return blocks_per_sm * (float)threads / (float)(sm->max_warps * sm->warp_size);
}

int gd_kineto_occupancy_pct(const gd_sm_limits *sm, uint32_t sms, uint64_t ctas, uint32_t threads,
                            uint32_t active_ctas)
{
    return (int)(0.5 + gd_kineto_occupancy(sm, sms, ctas, threads, active_ctas) * 100.0);
}

void gd_sm_res_init(gd_sm_res *res, const gd_sm_limits *sm)
{
    memset(res, 0, sizeof *res);
    res->warps = sm->max_warps;
    res->ctas = sm->max_ctas;
    res->smem = sm->smem;
    res->nsub = sm->reg_subpartitions;
    for (uint32_t i = 0; i < res->nsub; i++)
        res->regs[i] = sm->regs / sm->reg_subpartitions;
}

uint32_t gd_sm_res_free_slots(const gd_sm_res *res, const gd_cta_cost *cost)
{
    if (res->place)
        return gd_sm_place_free_slots(res, cost);
    return gd_sm_res_count_slots(res, cost);
}

uint32_t gd_sm_res_count_slots(const gd_sm_res *res, const gd_cta_cost *cost)
{
    uint32_t n = res->warps / cost->warps;
    if (res->ctas < n)
        n = res->ctas;
    if (cost->smem) {
        uint32_t s = res->smem / cost->smem;
        if (s < n)
            n = s;
    }
    if (cost->regs_per_warp && n) {
        uint32_t wcap = 0;
        for (uint32_t i = 0; i < res->nsub; i++)
            wcap += res->regs[i] / cost->regs_per_warp;
        uint32_t r = wcap / cost->warps;
        if (r < n)
            n = r;
    }
    return n;
}

void gd_sm_res_take(gd_sm_res *res, const gd_cta_cost *cost, gd_cta_alloc *alloc)
{
    if (res->place) {
        gd_sm_place_take(res, cost, alloc);  /* the caller has checked free_slots > 0 */
        return;
    }
    res->warps -= cost->warps;
    res->ctas -= 1;
    res->smem -= cost->smem;
    /* nsub <= GD_MAX_SUBPARTITIONS (configuration check); said here for the compiler */
    const uint32_t rpw = cost->regs_per_warp, n = res->nsub < GD_MAX_SUBPARTITIONS ? res->nsub : GD_MAX_SUBPARTITIONS;
    memset(alloc->warps_in_sub, 0, sizeof alloc->warps_in_sub);
    if (!rpw)
        return;
    uint8_t *a = alloc->warps_in_sub;
    /* Warps go to sub-partitions round-robin, as warp slots map to SMSPs: each takes
     * warps / n and the warps % n left over go to the sub-partitions with the most
     * free registers (lowest index on a tie). Where a sub-partition cannot take its
     * share, the warps go one by one to the sub-partition with the most free
     * registers. Every warp lands where at least rpw registers are free, so each one
     * lowers sum(free / rpw) by exactly one and gd_sm_res_free_slots stays exact. */
    const uint32_t q = cost->sub_warps, share = q * rpw;
    uint32_t left = cost->sub_extra;
    const uint32_t need = share + (left ? rpw : 0);
    uint32_t i;
    uint32_t *r = res->regs;
    if (n == 4) {  /* every preset: a fixed-width path the compiler unrolls */
        i = ((r[0] >= need) & (r[1] >= need) & (r[2] >= need) & (r[3] >= need)) ? 4 : 0;
    } else {
        for (i = 0; i < n && r[i] >= need; i++)
            ;
    }
    if (i == n) {
        for (i = 0; i < n; i++) {
            res->regs[i] -= share;
            a[i] = (uint8_t)q;
        }
    } else {
        left = cost->warps;
    }
    while (left--) {
        uint32_t best = 0;
        for (i = 1; i < n; i++)
            if (res->regs[i] > res->regs[best])
                best = i;
        res->regs[best] -= rpw;
        a[best]++;
    }
}

void gd_sm_res_take_n(gd_sm_res *res, const gd_cta_cost *cost, uint32_t n, uint16_t *warps_in_sub)
{
    const uint32_t rpw = cost->regs_per_warp, ns = res->nsub < GD_MAX_SUBPARTITIONS ? res->nsub : GD_MAX_SUBPARTITIONS;
    const uint64_t share = (uint64_t)cost->sub_warps * rpw, need = n * share;
    int even = !rpw || cost->sub_extra == 0;
    if (even && rpw) {
        const uint32_t *r = res->regs;
        if (ns == 4)  /* every preset: a fixed-width path the compiler unrolls */
            even = (r[0] >= need) & (r[1] >= need) & (r[2] >= need) & (r[3] >= need);
        else
            for (uint32_t i = 0; even && i < ns; i++)
                even = r[i] >= need;
    }
    if (!even) {
        /* the warps do not split evenly, or some sub-partition runs short on the way:
         * CTA by CTA, as the hardware rule goes */
        gd_cta_alloc a;
        for (uint32_t c = 0; c < n; c++) {
            gd_sm_res_take(res, cost, &a);
            for (uint32_t i = 0; i < ns; i++)
                warps_in_sub[i] += a.warps_in_sub[i];
        }
        return;
    }
    /* Every CTA finds share free registers in every sub-partition (the most any of them
     * needs is n x share), so each takes the even split: n of them take n times it. */
    res->warps -= n * cost->warps;
    res->ctas -= n;
    res->smem -= n * cost->smem;
    if (!rpw)
        return;
    const uint32_t take = (uint32_t)need;
    const uint16_t w = (uint16_t)(n * cost->sub_warps);
    if (ns == 4) {
        res->regs[0] -= take; res->regs[1] -= take; res->regs[2] -= take; res->regs[3] -= take;
        warps_in_sub[0] += w; warps_in_sub[1] += w; warps_in_sub[2] += w; warps_in_sub[3] += w;
        return;
    }
    for (uint32_t i = 0; i < ns; i++) {
        res->regs[i] -= take;
        warps_in_sub[i] += w;
    }
}

void gd_sm_res_give_n(gd_sm_res *res, const gd_cta_cost *cost, uint32_t n, const uint16_t *warps_in_sub)
{
    res->warps += n * cost->warps;
    res->ctas += n;
    res->smem += n * cost->smem;
    const uint32_t rpw = cost->regs_per_warp;
    if (!rpw)
        return;
    if (res->nsub == 4) {  /* every preset: a fixed-width path the compiler unrolls */
        res->regs[0] += warps_in_sub[0] * rpw;
        res->regs[1] += warps_in_sub[1] * rpw;
        res->regs[2] += warps_in_sub[2] * rpw;
        res->regs[3] += warps_in_sub[3] * rpw;
        return;
    }
    for (uint32_t i = 0; i < res->nsub && i < GD_MAX_SUBPARTITIONS; i++)
        res->regs[i] += warps_in_sub[i] * rpw;
}

void gd_sm_res_give(gd_sm_res *res, const gd_cta_cost *cost, const gd_cta_alloc *alloc)
{
    if (res->place) {
        gd_sm_place_give(res, cost, alloc);
        return;
    }
    res->warps += cost->warps;
    res->ctas += 1;
    res->smem += cost->smem;
    const uint32_t rpw = cost->regs_per_warp;
    if (!rpw)
        return;
    const uint8_t *a = alloc->warps_in_sub;
    if (res->nsub == 4) {
        res->regs[0] += a[0] * rpw;
        res->regs[1] += a[1] * rpw;
        res->regs[2] += a[2] * rpw;
        res->regs[3] += a[3] * rpw;
        return;
    }
    for (uint32_t i = 0; i < res->nsub; i++)
        res->regs[i] += a[i] * rpw;
}
