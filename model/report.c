#include "report.h"

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

/* ------------------------------------------------------------------------- */
/* Statistics registry                                                        */

void gd_stats_init(gd_stats *s) { memset(s, 0, sizeof *s); }

void gd_stats_destroy(gd_stats *s)
{
    for (size_t i = 0; i < s->n; i++)
        free(s->v[i].block);
    free(s->v);
    memset(s, 0, sizeof *s);
}

int gd_stats_add(gd_stats *s, const char *block, const char *name, const char *unit, const char *desc,
                 const uint64_t *src)
{
    if (s->n == s->cap) {
        size_t ncap = s->cap ? s->cap * 2 : 64;
        gd_stat *nv = realloc(s->v, ncap * sizeof *nv);
        if (!nv)
            return -1;
        s->v = nv;
        s->cap = ncap;
    }
    gd_stat *st = &s->v[s->n];
    if (!(st->block = strdup(block)))
        return -1;
    st->name = name;
    st->unit = unit;
    st->desc = desc;
    st->src = src;
    st->value = 0;
    s->n++;
    return 0;
}

const char GD_CTA_LOG_HEADER[] = "kernel_index,cta_id,x,y,z,cga_id,cga_cta_id,gpc,sm,launch_ns,end_ns\n";

void gd_cta_log_row(gd_cta_log *log, uint64_t kernel_index, uint64_t cta_id, const uint32_t xyz[3], uint64_t cga_id,
                    uint32_t cga_cta_id, uint32_t gpc, uint32_t sm, gd_time_ps launch, gd_time_ps end)
{
    char a[48], b[48];
    gd_format_ns(a, sizeof a, *log->origin_ns, launch);
    gd_format_ns(b, sizeof b, *log->origin_ns, end);
    if (fprintf(log->f, "%" PRIu64 ",%" PRIu64 ",%u,%u,%u,%" PRIu64 ",%u,%u,%u,%s,%s\n", kernel_index, cta_id, xyz[0],
                xyz[1], xyz[2], cga_id, cga_cta_id, gpc, sm, a, b) < 0)
        log->io_error = 1;
}

uint64_t gd_stats_get(const gd_stats *s, const char *block, const char *name)
{
    for (size_t i = 0; i < s->n; i++)
        if (!strcmp(s->v[i].block, block) && !strcmp(s->v[i].name, name))
            return s->v[i].src ? *s->v[i].src : s->v[i].value;
    return 0;
}

void gd_stats_freeze(gd_stats *s)
{
    for (size_t i = 0; i < s->n; i++) {
        if (s->v[i].src)
            s->v[i].value = *s->v[i].src;
        s->v[i].src = NULL;
    }
}

/* ------------------------------------------------------------------------- */
/* Per-kernel CSV                                                             */

const char GD_KERNELS_CSV_HEADER[] =
    "kernel_index,name,queue,grid_ctas,threads_per_cta,regs_per_thread,smem_bytes,max_ctas_per_sm,limiter,"
    "theoretical_occupancy_pct,submit_ns,first_cta_ns,last_cta_ns,end_ns,latency_ns,achieved_occupancy_pct,"
    "fetched_ns,decoded_ns,ready_ns,completion_ns,trace_record,source_id,measured_start_ns,measured_dur_ns,"
    "kineto_est_occupancy_pct,est_achieved_occupancy_pct\n";

int gd_report_init(gd_report *r, const gd_config *cfg, gd_run_pool *pool, gd_err *err)
{
    memset(r, 0, sizeof *r);
    r->cfg = *cfg;
    r->pool = pool;
    r->first_cta = GD_TIME_NEVER;
    r->csv = tmpfile();
    if (!r->csv)
        return gd_err_set(err, GD_EIO, "cannot create a temporary file for the kernel table: %s", strerror(errno));
    for (int i = 0; i < GD_STAGES; i++)
        gd_hist_init(&r->stages[i]);
    r->pend_cap = 64;
    r->pending = calloc(r->pend_cap, sizeof *r->pending);
    if (!r->pending) {
        fclose(r->csv);
        r->csv = NULL;
        return gd_err_set(err, GD_ENOMEM, "out of memory");
    }
    return GD_OK;
}

void gd_report_destroy(gd_report *r)
{
    if (r->pending) {
        for (uint64_t i = 0; i < r->pend_cap; i++)
            if (r->pending[i])
                gd_run_release(r->pool, r->pending[i]);
        free(r->pending);
    }
    if (r->csv)
        fclose(r->csv);
    for (int i = 0; i < GD_STAGES; i++)
        gd_hist_free(&r->stages[i]);
    memset(r, 0, sizeof *r);
}

static const char *const STAGE_NAMES[GD_STAGES] = {"fetch", "decode", "dependencies", "first_cta",
                                                   "last_cta", "drain", "completion", "launch_latency"};
static const char *const STAGE_LABELS[GD_STAGES] = {
    "submit -> fetched", "fetched -> decoded", "decoded -> dependencies met", "dependencies met -> first CTA",
    "first CTA -> last CTA launched", "last CTA launched -> done", "last CTA done -> completion",
    "submit -> first CTA (latency)"};

const char *gd_stage_name(int stage) { return stage >= 0 && stage < GD_STAGES ? STAGE_NAMES[stage] : NULL; }
const char *gd_stage_label(int stage) { return stage >= 0 && stage < GD_STAGES ? STAGE_LABELS[stage] : NULL; }

void gd_report_stage_stats(const gd_report *r, int stage, gd_stage_stats *out)
{
    const gd_hist *h = &r->stages[stage];
    out->kernels = h->count;
    out->mean_ns = gd_hist_mean(h) / GD_PS_PER_NS;
    out->p50_ns = (double)gd_hist_percentile(h, 50) / GD_PS_PER_NS;
    out->p99_ns = (double)gd_hist_percentile(h, 99) / GD_PS_PER_NS;
    out->max_ns = (double)h->max / GD_PS_PER_NS;
}

/* Trace-time nanoseconds of a sim time, as text. */
static void tns(char *buf, size_t size, const gd_report *r, gd_time_ps t)
{
    gd_format_ns(buf, size, r->origin_ns, t);
}

static void csv_name(FILE *f, const char *s)
{
    if (!strpbrk(s, ",\"\r\n")) {
        fputs(s, f);
        return;
    }
    fputc('"', f);
    for (; *s; s++) {
        if (*s == '"')
            fputc('"', f);
        fputc(*s, f);
    }
    fputc('"', f);
}

static void write_row(gd_report *r, const gd_kernel_run *k)
{
    const gd_kernel_desc *d = k->desc;
    const gd_occupancy *o = &d->occ;
    char sub[32], first[32], last[32], end[32], lat[32], fet[32], dec[32], rdy[32], cmp[32];
    tns(sub, sizeof sub, r, k->submit);
    tns(first, sizeof first, r, k->first_cta);
    tns(last, sizeof last, r, k->last_cta);
    tns(end, sizeof end, r, k->end);
    gd_format_ns(lat, sizeof lat, 0, k->first_cta - k->submit);
    tns(fet, sizeof fet, r, k->fetched);
    tns(dec, sizeof dec, r, k->decoded);
    tns(rdy, sizeof rdy, r, k->ready);
    tns(cmp, sizeof cmp, r, k->completion);
    double span = (double)(k->end - k->first_cta);
    double slots = (double)r->cfg.sms * r->cfg.sm.max_warps;
    double achieved = span > 0 ? 100.0 * (double)k->warp_ps / (span * slots) : 0.0;
    /* Provenance: empty when unknown. Measured times are in the trace's time base. */
    char src[24] = "", mstart[32] = "", mdur[32] = "";
    if (k->source_id != GD_UNKNOWN)
        snprintf(src, sizeof src, "%" PRIu64, k->source_id);
    if (k->measured_start_ns != GD_UNKNOWN)
        gd_format_ns(mstart, sizeof mstart, k->measured_start_ns, 0);
    if (k->measured_dur_ns != GD_UNKNOWN)
        gd_format_ns(mdur, sizeof mdur, k->measured_dur_ns, 0);
    const gd_sm_limits *sm = &r->cfg.sm;
    int kineto = gd_kineto_occupancy_pct(sm, r->cfg.sms, k->ctas, d->threads_per_cta, d->occ_default.max_ctas);
    /* The model's own estimate keeps four decimals so a one-CTA kernel is not 0. */
    double est = 100.0 * (double)gd_kineto_occupancy(sm, r->cfg.sms, k->ctas, d->threads_per_cta, o->max_ctas);
    fprintf(r->csv, "%" PRIu64 ",", k->index);
    csv_name(r->csv, d->name);
    if (fprintf(r->csv, ",%u,%" PRIu64 ",%u,%u,%u,%u,%s,%.2f,%s,%s,%s,%s,%s,%.2f,%s,%s,%s,%s,%" PRIu64 ",%s,%s,%s,%d,%.4f\n",
                k->queue, k->ctas, d->threads_per_cta, d->regs_per_thread, d->static_smem + d->dynamic_smem,
                o->max_ctas, gd_limiter_name(o->limiter), o->theoretical_pct, sub, first, last, end, lat, achieved,
                fet, dec, rdy, cmp, k->record, src, mstart, mdur, kineto, est) < 0)
        r->io_error = 1;
}

int gd_report_kernel_done(gd_report *r, gd_kernel_run *run)
{
    r->kernels++;
    r->ctas += run->ctas;
    r->latency_sum_ps += (double)(run->first_cta - run->submit);
    if (run->first_cta < r->first_cta)
        r->first_cta = run->first_cta;
    if (run->end > r->last_end)
        r->last_end = run->end;
    if (run->completion > r->last_completion)
        r->last_completion = run->completion;
    r->warp_ps += run->warp_ps;
    const gd_time_ps t[] = {run->submit, run->fetched, run->decoded, run->ready, run->first_cta,
                            run->last_cta, run->end, run->completion};
    int bad = 0;
    for (int i = 0; i < GD_STAGE_LAUNCH_LATENCY; i++)
        bad |= gd_hist_add(&r->stages[i], t[i + 1] - t[i]);
    bad |= gd_hist_add(&r->stages[GD_STAGE_LAUNCH_LATENCY], run->first_cta - run->submit);
    if (bad)
        return r->nomem = 1, GD_ENOMEM;

    uint64_t ahead = run->index - r->next_index;
    if (ahead >= r->pend_cap) {
        uint64_t ncap = r->pend_cap;
        while (ahead >= ncap)
            ncap *= 2;
        gd_kernel_run **np = calloc(ncap, sizeof *np);
        if (!np)
            return r->nomem = 1, GD_ENOMEM;
        for (uint64_t i = 0; i < r->pend_cap; i++) {
            gd_kernel_run *k = r->pending[i];
            if (k)
                np[k->index % ncap] = k;
        }
        free(r->pending);
        r->pending = np;
        r->pend_cap = ncap;
    }
    r->pending[run->index % r->pend_cap] = run;
    gd_kernel_run *k;
    while ((k = r->pending[r->next_index % r->pend_cap]) != NULL && k->index == r->next_index) {
        write_row(r, k);
        r->pending[r->next_index % r->pend_cap] = NULL;
        gd_run_release(r->pool, k);
        r->next_index++;
    }
    return GD_OK;
}

void gd_report_packet_done(gd_report *r, gd_kernel_run *run)
{
    gd_run_release(r->pool, run);
}

int gd_report_finish(gd_report *r, gd_err *err)
{
    if (r->nomem)
        return gd_err_set(err, GD_ENOMEM, "out of memory while recording the kernel table");
    for (uint64_t i = 0; i < r->pend_cap; i++)
        if (r->pending[i])
            return gd_err_set(err, GD_EINTERNAL, "kernel %" PRIu64 " completed but kernel %" PRIu64 " never did",
                              r->pending[i]->index, r->next_index);
    if (r->io_error || fflush(r->csv))
        return gd_err_set(err, GD_EIO, "writing the kernel table to a temporary file failed");
    return GD_OK;
}

void gd_report_summary(const gd_report *r, gd_summary *out)
{
    memset(out, 0, sizeof *out);
    out->kernels = r->kernels;
    out->ctas = r->ctas;
    out->sim_time_ns = r->last_completion / GD_PS_PER_NS;
    if (r->kernels) {
        out->busy_span_ns = (r->last_end - r->first_cta) / GD_PS_PER_NS;
        out->mean_launch_latency_ns = r->latency_sum_ps / (double)r->kernels / GD_PS_PER_NS;
        double span = (double)(r->last_end - r->first_cta);
        double slots = (double)r->cfg.sms * r->cfg.sm.max_warps;
        out->mean_sm_occupancy_pct = span > 0 ? 100.0 * (double)r->warp_ps / (span * slots) : 0.0;
    }
}

int gd_report_write_csv(const gd_report *r, const char *path, gd_err *err)
{
    FILE *out = strcmp(path, "-") == 0 ? stdout : fopen(path, "w");
    if (!out)
        return gd_err_set(err, GD_EIO, "%s: cannot create: %s", path, strerror(errno));
    int bad = fputs(GD_KERNELS_CSV_HEADER, out) < 0;
    if (!bad && r->csv) {
        char buf[1 << 16];
        size_t n;
        if (fseek(r->csv, 0, SEEK_SET))
            bad = 1;
        while (!bad && (n = fread(buf, 1, sizeof buf, r->csv)) > 0)
            bad = fwrite(buf, 1, n, out) != n;
        if (ferror(r->csv))
            bad = 1;
        fseek(r->csv, 0, SEEK_END);
    }
    if (out == stdout)
        bad |= fflush(out) != 0;
    else
        bad |= fclose(out) != 0;
    if (bad)
        return gd_err_set(err, GD_EIO, "%s: write failed", path);
    return GD_OK;
}

/* ------------------------------------------------------------------------- */
/* Summary writers                                                            */

static void json_str(FILE *f, const char *s)
{
    fputc('"', f);
    for (; *s; s++) {
        unsigned char c = (unsigned char)*s;
        if (c == '"' || c == '\\')
            fprintf(f, "\\%c", c);
        else if (c < 0x20)
            fprintf(f, "\\u%04x", c);
        else
            fputc(c, f);
    }
    fputc('"', f);
}

int gd_write_summary_text(FILE *f, const gd_config *cfg, const gd_summary *s, const gd_run_info *info)
{
    fprintf(f, "gdsim %s replay of %s\n", GD_VERSION_STRING, info->trace_path);
    if (info->trace_device)
        fprintf(f, "  trace device        %s (%u SMs, cc %u.%u)%s%s\n", info->trace_device->name,
                info->trace_device->sms, info->trace_device->cc_major, info->trace_device->cc_minor,
                info->trace_producer && *info->trace_producer ? ", made by " : "",
                info->trace_producer ? info->trace_producer : "");
    fprintf(f, "  model device        %s (preset %s: %u GPCs, %u SMs, cc %u.%u, front-end %u MHz)\n", cfg->gpu_name,
            cfg->preset, cfg->gpcs, cfg->sms, cfg->sm.cc_major, cfg->sm.cc_minor, cfg->clock_mhz);
    fprintf(f, "  kernels             %" PRIu64 " on %" PRIu64 " queue%s\n", s->kernels, s->queues,
            s->queues == 1 ? "" : "s");
    fprintf(f, "  CTAs                %" PRIu64 "\n", s->ctas);
    fprintf(f, "  simulated time      %.3f us (first submit to last completion)\n", s->sim_time_ns / 1000.0);
    fprintf(f, "  busy span           %.3f us (first CTA launch to last CTA end)\n", s->busy_span_ns / 1000.0);
    fprintf(f, "  mean SM occupancy   %.2f %% of warp slots over the busy span\n", s->mean_sm_occupancy_pct);
    fprintf(f, "  mean launch latency %.3f us (submit to first CTA)\n", s->mean_launch_latency_ns / 1000.0);
    fprintf(f, "  most kernels resident in the distributor %" PRIu64 " (limit %u); host stalls on full queues %" PRIu64
               "\n", s->max_resident_kernels, cfg->cwd_max_resident_kernels, s->host_stalls);
    if (info->stats) {
        const gd_stats *st = info->stats;
        uint64_t fk = gd_stats_get(st, "pp", "rsb_kernels");
        fprintf(f, "  front end           %" PRIu64 " packets fetched (%" PRIu64 " bytes), %" PRIu64
                   " kernels from the reference state table (%.1f %%), overhead %.3f us\n",
                gd_stats_get(st, "pp", "packets_fetched"), gd_stats_get(st, "pp", "bytes_fetched"), fk,
                s->kernels ? 100.0 * (double)fk / (double)s->kernels : 0.0,
                gd_stats_get(st, "pp", "frontend_overhead") / 1e6);
        uint64_t ctas = gd_stats_get(st, "gpu2gpc", "ctas_launched");
        uint64_t cycles = gd_stats_get(st, "gpu2gpc", "frontend_cycles");
        if (!strcmp(cfg->cwd_policy, "cga"))
            fprintf(f, "  distributor         cga: %" PRIu64 " CTAs in %" PRIu64 " launch steps (%" PRIu64
                       " found no room), %" PRIu64 " front-end cycles", ctas, gd_stats_get(st, "gpu2gpc", "launch_steps"),
                    gd_stats_get(st, "gpu2gpc", "failed_steps"), cycles);
        else
            fprintf(f, "  distributor         baseline: %" PRIu64 " CTAs in %" PRIu64 " front-end cycles", ctas, cycles);
        if (cycles)
            fprintf(f, " (%.2f CTAs per cycle)", (double)ctas / (double)cycles);
        fputc('\n', f);
        uint64_t cga_activity = 0;
        for (uint32_t g = 0; g < cfg->gpcs; g++) {
            char block[32];
            snprintf(block, sizeof block, "gpc2sm_%u", g);
            cga_activity += gd_stats_get(st, block, "cgas_launched") + gd_stats_get(st, block, "failed_queries");
        }
        if (!strcmp(cfg->cwd_policy, "cga") && cga_activity) {  /* only traces with clusters */
            fprintf(f, "  %-26s %13s %13s %13s\n", "per GPC", "CGAs", "failed", "stranded");
            fprintf(f, "  %-26s %13s %13s %13s\n", "", "launched", "queries", "slot x us");
            for (uint32_t g = 0; g < cfg->gpcs; g++) {
                char block[32];
                snprintf(block, sizeof block, "gpc2sm_%u", g);
                fprintf(f, "    %-24s %13" PRIu64 " %13" PRIu64 " %13.3f\n", block, gd_stats_get(st, block, "cgas_launched"),
                        gd_stats_get(st, block, "failed_queries"),
                        gd_stats_get(st, block, "stranded_slot_ns") / 1000.0);
            }
        }
    }
    if (info->report && s->kernels) {
        fprintf(f, "  %-40s %10s %10s %10s\n", "stage durations over the kernels, us", "mean", "p50", "p99");
        for (int i = 0; i < GD_STAGES; i++) {
            gd_stage_stats st;
            gd_report_stage_stats(info->report, i, &st);
            fprintf(f, "    %-38s %10.3f %10.3f %10.3f\n", STAGE_LABELS[i], st.mean_ns / 1000.0, st.p50_ns / 1000.0,
                    st.p99_ns / 1000.0);
        }
    }
    return ferror(f) ? GD_EIO : GD_OK;
}

int gd_write_summary_json(FILE *f, const gd_config *cfg, const gd_summary *s, const gd_run_info *info,
                          const gd_stats *stats)
{
    fprintf(f, "{\n  \"gdsim_version\": ");
    json_str(f, GD_VERSION_STRING);
    fprintf(f, ",\n  \"trace\": {\"path\": ");
    json_str(f, info->trace_path ? info->trace_path : "");
    fprintf(f, ", \"producer\": ");
    json_str(f, info->trace_producer ? info->trace_producer : "");
    fprintf(f, ", \"records\": %" PRIu64, info->records);
    if (info->trace_device) {
        const gd_trace_device *d = info->trace_device;
        fprintf(f, ", \"device\": {\"name\": ");
        json_str(f, d->name);
        fprintf(f, ", \"sms\": %u, \"cc\": \"%u.%u\"}", d->sms, d->cc_major, d->cc_minor);
    }
    fprintf(f, "},\n  \"config\": {");
    char buf[512];
    for (size_t i = 0; i < gd_config_nkeys(); i++) {
        const gd_key_info *k = gd_config_key_info(i);
        if (strcmp(k->name, "gpu.preset") == 0)
            snprintf(buf, sizeof buf, "%s", cfg->preset);
        else
            gd_config_format(buf, sizeof buf, cfg, k->name);
        fprintf(f, "%s\n    ", i ? "," : "");
        json_str(f, k->name);
        fprintf(f, ": ");
        json_str(f, buf);
    }
    fprintf(f, "\n  },\n  \"summary\": {\n");
    fprintf(f, "    \"kernels\": %" PRIu64 ",\n    \"ctas\": %" PRIu64 ",\n    \"sim_time_ns\": %" PRIu64 ",\n",
            s->kernels, s->ctas, s->sim_time_ns);
    fprintf(f, "    \"mean_sm_occupancy_pct\": %.6f,\n    \"mean_launch_latency_ns\": %.3f,\n",
            s->mean_sm_occupancy_pct, s->mean_launch_latency_ns);
    fprintf(f, "    \"packets\": %" PRIu64 ",\n    \"queues\": %" PRIu64 ",\n    \"busy_span_ns\": %" PRIu64 ",\n",
            s->packets, s->queues, s->busy_span_ns);
    fprintf(f, "    \"host_stalls\": %" PRIu64 ",\n    \"max_resident_kernels\": %" PRIu64 "\n  },\n",
            s->host_stalls, s->max_resident_kernels);
    if (info->stats) {  /* the front end's overhead (seed 000's what-if) */
        const gd_stats *st = info->stats;
        uint64_t fk = gd_stats_get(st, "pp", "rsb_kernels");
        fprintf(f, "  \"frontend\": {\"packets_processed\": %" PRIu64 ", \"bytes_fetched\": %" PRIu64
                   ", \"frontend_overhead_ns\": %.3f, \"rsb_accesses\": %" PRIu64 ", \"rst_kernels\": %" PRIu64
                   ", \"rst_hit_rate\": %.6f, \"mean_launch_latency_ns\": %.3f},\n",
                gd_stats_get(st, "pp", "packets_fetched"), gd_stats_get(st, "pp", "bytes_fetched"),
                gd_stats_get(st, "pp", "frontend_overhead") / 1000.0, gd_stats_get(st, "pp", "rsb_accesses"), fk,
                s->kernels ? (double)fk / (double)s->kernels : 0.0, s->mean_launch_latency_ns);
    }
    fprintf(f, "  \"stages\": [");
    for (int i = 0; info->report && i < GD_STAGES; i++) {
        gd_stage_stats st;
        gd_report_stage_stats(info->report, i, &st);
        fprintf(f, "%s\n    {\"stage\": \"%s\", \"span\": \"%s\", \"kernels\": %" PRIu64 ", \"mean_ns\": %.3f, "
                   "\"p50_ns\": %.3f, \"p99_ns\": %.3f, \"max_ns\": %.3f}",
                i ? "," : "", STAGE_NAMES[i], STAGE_LABELS[i], st.kernels, st.mean_ns, st.p50_ns, st.p99_ns, st.max_ns);
    }
    fprintf(f, "\n  ],\n");
    fprintf(f, "  \"stats\": [");
    for (size_t i = 0; stats && i < stats->n; i++) {
        const gd_stat *st = &stats->v[i];
        fprintf(f, "%s\n    {\"block\": ", i ? "," : "");
        json_str(f, st->block);
        fprintf(f, ", \"name\": ");
        json_str(f, st->name);
        fprintf(f, ", \"value\": %" PRIu64 ", \"unit\": ", st->value);
        json_str(f, st->unit);
        fprintf(f, ", \"desc\": ");
        json_str(f, st->desc);
        fprintf(f, "}");
    }
    fprintf(f, "\n  ]\n}\n");
    return ferror(f) ? GD_EIO : GD_OK;
}
