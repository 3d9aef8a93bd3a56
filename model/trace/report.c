#include "report.h"

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#define ROW_BUFFER (64 * 1024)  /* kernel-table rows gathered before one write to the temporary file */

const char GD_KERNELS_CSV_HEADER[] =
    "kernel_index,name,queue,grid_ctas,threads_per_cta,regs_per_thread,smem_bytes,max_ctas_per_sm,limiter,"
    "theoretical_occupancy_pct,submit_ns,first_cta_ns,last_cta_ns,end_ns,latency_ns,achieved_occupancy_pct,"
    "fetched_ns,decoded_ns,ready_ns,completion_ns,trace_record,source_id,measured_start_ns,measured_dur_ns,"
    "kineto_est_occupancy_pct,est_achieved_occupancy_pct,vid,cmd_flags,status,pq,wq,engine\n";

static const char *const STATUS_NAMES[] = {"ok", "failed", "noop"};

/* s, c, f, i for sync, conditional, fails, independent; "-" for none. */
static void flags_text(char *buf, uint8_t f)
{
    char *p = buf;
    if (f & GD_CMD_SYNC)
        *p++ = 's';
    if (f & GD_CMD_COND)
        *p++ = 'c';
    if (f & GD_CMD_FAILS)
        *p++ = 'f';
    if (f & GD_CMD_INDEPENDENT)
        *p++ = 'i';
    if (p == buf)
        *p++ = '-';
    *p = '\0';
}

/* A tenant's accumulator (grown as VIDs appear); NULL when out of memory. */
static gd_vid_acc *vid_acc(gd_report *r, uint32_t vid)
{
    if (vid >= r->nvids) {
        uint32_t n = r->nvids ? r->nvids : 8;
        while (n <= vid)
            n *= 2;
        gd_vid_acc *nv = realloc(r->vids, (size_t)n * sizeof *nv);
        if (!nv)
            return NULL;
        for (uint32_t i = r->nvids; i < n; i++) {
            memset(&nv[i], 0, sizeof nv[i]);
            gd_hist_init(&nv[i].latency);
            nv[i].first = GD_TIME_NEVER;
        }
        r->vids = nv;
        r->nvids = n;
    }
    return &r->vids[vid];
}

/* A kernel or non-kernel command completed: its tenant's figures. */
static int vid_note(gd_report *r, const gd_kernel_run *k)
{
    gd_vid_acc *v = vid_acc(r, k->vid);
    if (!v)
        return -1;
    v->commands++;
    v->failed += k->status == GD_STATUS_FAILED;
    v->noop += k->status == GD_STATUS_NOOP;
    if (k->first_cta < v->first)
        v->first = k->first_cta;
    if (k->end > v->last)
        v->last = k->end;
    return gd_hist_add(&v->latency, k->first_cta - k->submit);
}

int gd_report_register_vids(gd_report *r, gd_stats *stats)
{
    for (uint32_t i = 0; i < r->nvids; i++) {
        gd_vid_acc *v = &r->vids[i];
        if (!v->commands)
            continue;
        v->busy_span = v->last > v->first ? v->last - v->first : 0;
        char block[24];
        snprintf(block, sizeof block, "vid_%u", i);
        if (gd_stats_add(stats, block, "commands", "commands", "kernels and non-kernel commands of this tenant",
                         &v->commands) ||
            gd_stats_add(stats, block, "failed", "commands", "of those, failed (their engine reported an error)",
                         &v->failed) ||
            gd_stats_add(stats, block, "noop", "commands", "of those, completed as no-ops (their chain had failed)",
                         &v->noop) ||
            gd_stats_add(stats, block, "busy_span", "ps", "first start to last end of its commands", &v->busy_span) ||
            gd_stats_add_dist(stats, block, "launch_latency", "ps", "submit to first CTA (a copy: to its start)",
                              &v->latency))
            return -1;
    }
    return 0;
}

int gd_report_init(gd_report *r, const gd_config *cfg, gd_run_pool *pool, gd_err *err)
{
    memset(r, 0, sizeof *r);
    r->cfg = *cfg;
    r->pool = pool;
    r->first_cta = GD_TIME_NEVER;
    r->rows = malloc(ROW_BUFFER);
    if (!r->rows)
        return gd_err_set(err, GD_ENOMEM, "out of memory");
    for (int i = 0; i < GD_STAGES; i++)
        gd_hist_init(&r->stages[i]);
    r->pend_cap = 64;
    r->pending = calloc(r->pend_cap, sizeof *r->pending);
    if (!r->pending) {
        free(r->rows);
        r->rows = NULL;
        return gd_err_set(err, GD_ENOMEM, "out of memory");
    }
    return GD_OK;
}

/* The rows gathered so far go to the temporary file (one write for many rows), made
 * the first time (a replay that keeps no table makes none). */
static void flush_rows(gd_report *r)
{
    if (!r->csv && !r->io_error && !(r->csv = tmpfile())) {
        r->tmp_errno = errno;
        r->io_error = 1;
    }
    if (r->csv && r->rows_len && fwrite(r->rows, 1, r->rows_len, r->csv) != r->rows_len)
        r->io_error = 1;
    r->rows_len = 0;
}

static int tmp_error(const gd_report *r, gd_err *err)
{
    if (r->tmp_errno)
        return gd_err_set(err, GD_EIO, "cannot create a temporary file for the kernel table: %s",
                          strerror(r->tmp_errno));
    return gd_err_set(err, GD_EIO, "writing the kernel table to a temporary file failed");
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
    free(r->rows);
    for (int i = 0; i < GD_STAGES; i++)
        gd_hist_free(&r->stages[i]);
    for (uint32_t i = 0; i < r->nvids; i++)
        gd_hist_free(&r->vids[i].latency);
    free(r->vids);
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

/* The text summary's stage table and the JSON summary's "stages", from the frozen
 * distributions. */
static void stages_text(FILE *f, const gd_section_ctx *c)
{
    if (!c->summary->kernels)
        return;
    fprintf(f, "  %-40s %10s %10s %10s\n", "stage durations over the kernels, us", "mean", "p50", "p99");
    for (int i = 0; i < GD_STAGES; i++) {
        const gd_stat *st = gd_stats_find(c->stats, c->block, STAGE_NAMES[i]);
        if (st)
            fprintf(f, "    %-38s %10.3f %10.3f %10.3f\n", STAGE_LABELS[i], st->dist.mean / GD_PS_PER_NS / 1000.0,
                    st->dist.p50 / GD_PS_PER_NS / 1000.0, st->dist.p99 / GD_PS_PER_NS / 1000.0);
    }
}

static void stages_json(FILE *f, const gd_section_ctx *c)
{
    fprintf(f, "  \"stages\": [");
    for (int i = 0, out = 0; i < GD_STAGES; i++) {
        const gd_stat *st = gd_stats_find(c->stats, c->block, STAGE_NAMES[i]);
        if (!st)
            continue;
        fprintf(f, "%s\n    {\"stage\": \"%s\", \"span\": \"%s\", \"kernels\": %" PRIu64 ", \"mean_ns\": %.3f, "
                   "\"p50_ns\": %.3f, \"p99_ns\": %.3f, \"max_ns\": %.3f}",
                out++ ? "," : "", STAGE_NAMES[i], STAGE_LABELS[i], st->dist.count, st->dist.mean / GD_PS_PER_NS,
                st->dist.p50 / GD_PS_PER_NS, st->dist.p99 / GD_PS_PER_NS, st->dist.max / GD_PS_PER_NS);
    }
    fprintf(f, "\n  ],\n");
}

int gd_report_register_stats(gd_report *r, gd_stats *stats)
{
    for (int i = 0; i < GD_STAGES; i++)
        if (gd_stats_add_dist(stats, "kernels", STAGE_NAMES[i], "ps", STAGE_LABELS[i], &r->stages[i]))
            return -1;
    return gd_stats_add_section(stats, "kernels", stages_text, stages_json);
}

void gd_report_stage_stats(const gd_report *r, int stage, gd_stage_stats *out)
{
    const gd_hist *h = &r->stages[stage];
    out->kernels = h->count;
    out->mean_ns = gd_hist_mean(h) / GD_PS_PER_NS;
    out->p50_ns = (double)gd_hist_percentile(h, 50) / GD_PS_PER_NS;
    out->p99_ns = (double)gd_hist_percentile(h, 99) / GD_PS_PER_NS;
    out->max_ns = (double)h->max / GD_PS_PER_NS;
}

/* A kernel's row as completed: the figures the CSV prints, kept binary in the
 * temporary file (the name follows it, name_len bytes) and formatted only when the
 * table is written (gd_report_write_csv): a replay that writes no table formats none. */
typedef struct row_rec {
    uint64_t index, ctas, record, source_id, measured_start_ns, measured_dur_ns, warp_ps;
    gd_time_ps submit, first_cta, last_cta, end, fetched, decoded, ready, completion;
    double theoretical_pct;
    uint32_t trace_queue, threads, regs, smem, max_ctas, default_max_ctas, limiter, vid, queue, name_len;
    int32_t wq, engine;
    uint8_t cmd_flags, status;
} row_rec;

static void write_row(gd_report *r, const gd_kernel_run *k)
{
    const gd_kernel_desc *d = k->desc;
    if (r->on_row)
        r->on_row(r->on_row_ctx, k);
    if (r->no_rows)
        return;
    row_rec w;
    memset(&w, 0, sizeof w);  /* padding too: the file's bytes are all defined */
    w.index = k->index;
    w.ctas = k->ctas;
    w.record = k->record;
    w.source_id = k->source_id;
    w.measured_start_ns = k->measured_start_ns;
    w.measured_dur_ns = k->measured_dur_ns;
    w.warp_ps = k->warp_ps;
    w.submit = k->submit;
    w.first_cta = k->first_cta;
    w.last_cta = k->last_cta;
    w.end = k->end;
    w.fetched = k->fetched;
    w.decoded = k->decoded;
    w.ready = k->ready;
    w.completion = k->completion;
    w.theoretical_pct = d->occ.theoretical_pct;
    w.trace_queue = k->trace_queue;
    w.threads = d->threads_per_cta;
    w.regs = d->regs_per_thread;
    w.smem = d->static_smem + d->dynamic_smem;
    w.max_ctas = d->occ.max_ctas;
    w.default_max_ctas = d->occ_default.max_ctas;
    w.limiter = (uint32_t)d->occ.limiter;
    w.vid = k->vid;
    w.queue = k->queue;
    w.wq = k->wq;
    w.engine = k->engine;
    w.cmd_flags = k->cmd_flags;
    w.status = k->status;
    size_t nl = strlen(d->name);
    w.name_len = (uint32_t)nl;
    if (r->rows_len + sizeof w + nl > ROW_BUFFER)
        flush_rows(r);
    if (sizeof w + nl > ROW_BUFFER) {  /* a name longer than the buffer: straight to the file */
        if (r->csv && (fwrite(&w, sizeof w, 1, r->csv) != 1 || fwrite(d->name, 1, nl, r->csv) != nl))
            r->io_error = 1;
        return;
    }
    memcpy(r->rows + r->rows_len, &w, sizeof w);
    memcpy(r->rows + r->rows_len + sizeof w, d->name, nl);
    r->rows_len += sizeof w + nl;
}

/* Output nanoseconds of a sim time, as text: from the first submit, or in the
 * trace's clock with absolute_times. */
static void tns(char *buf, size_t size, const gd_report *r, gd_time_ps t)
{
    gd_format_ns(buf, size, r->time_base_ns, t);
}

/* A measured time of the trace's clock in the outputs' time base (it may precede the
 * first submit: then negative). */
static void measured_ns(char *buf, size_t size, const gd_report *r, uint64_t trace_ns)
{
    if (r->absolute_times || trace_ns >= r->origin_ns)
        snprintf(buf, size, "%" PRIu64 ".000", trace_ns - (r->absolute_times ? 0 : r->origin_ns));
    else
        snprintf(buf, size, "-%" PRIu64 ".000", r->origin_ns - trace_ns);
}

/* A name from the trace as a CSV field (RFC 4180): quoted when it holds a comma or a
 * quote; a control character (a line break, say) or a byte that is not UTF-8 becomes
 * U+FFFD, so that every row is one line of valid UTF-8. */
static void csv_name(FILE *f, const char *s)
{
    const int quote = strpbrk(s, ",\"") != NULL;
    if (quote)
        fputc('"', f);
    for (; *s; s++) {
        unsigned char c = (unsigned char)*s;
        size_t n = c < 0x80 ? 1 : gd_utf8_char_len(s);
        if (c < 0x20 || c == 0x7F || n == 0) {
            fputs(GD_UTF8_REPLACEMENT, f);
            continue;
        }
        if (c == '"')
            fputc('"', f);
        fwrite(s, 1, n, f);
        s += n - 1;
    }
    if (quote)
        fputc('"', f);
}

/* One CSV line of a row; < 0 when the write fails. */
static int format_row(FILE *f, const gd_report *r, const row_rec *k, const char *name)
{
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
    /* Provenance: empty when unknown. The measured start in the outputs' time base. */
    char src[24] = "", mstart[32] = "", mdur[32] = "";
    if (k->source_id != GD_UNKNOWN)
        snprintf(src, sizeof src, "%" PRIu64, k->source_id);
    if (k->measured_start_ns != GD_UNKNOWN)
        measured_ns(mstart, sizeof mstart, r, k->measured_start_ns);
    if (k->measured_dur_ns != GD_UNKNOWN)
        gd_format_ns(mdur, sizeof mdur, k->measured_dur_ns, 0);
    const gd_sm_limits *sm = &r->cfg.sm;
    int kineto = gd_kineto_occupancy_pct(sm, r->cfg.sms, k->ctas, k->threads, k->default_max_ctas);
    /* The model's own estimate keeps four decimals so a one-CTA kernel is not 0. */
    double est = 100.0 * (double)gd_kineto_occupancy(sm, r->cfg.sms, k->ctas, k->threads, k->max_ctas);
    char flags[8], wq[16] = "", eng[16] = "";
    flags_text(flags, k->cmd_flags);
    if (k->wq >= 0)
        snprintf(wq, sizeof wq, "%d", k->wq);
    if (k->engine >= 0)
        snprintf(eng, sizeof eng, "%d", k->engine);
    fprintf(f, "%" PRIu64 ",", k->index);
    csv_name(f, name);
    return fprintf(f, ",%u,%" PRIu64 ",%u,%u,%u,%u,%s,%.2f,%s,%s,%s,%s,%s,%.2f,%s,%s,%s,%s,%" PRIu64 ",%s,%s,%s,%d,%.4f"
                      ",%u,%s,%s,%u,%s,%s\n",
                   k->trace_queue, k->ctas, k->threads, k->regs, k->smem, k->max_ctas,
                   gd_limiter_name((gd_limiter)k->limiter), k->theoretical_pct, sub, first, last, end, lat, achieved,
                   fet, dec, rdy, cmp, k->record, src, mstart, mdur, kineto, est, k->vid, flags,
                   STATUS_NAMES[k->status < 3 ? k->status : 0], k->queue, wq, eng);
}

int gd_report_kernel_done(gd_report *r, gd_kernel_run *run)
{
    if (vid_note(r, run))
        return r->nomem = 1, GD_ENOMEM;
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
    if (run->kind == GD_PKT_COMMAND && vid_note(r, run))
        r->nomem = 1;
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
    if (r->rows_len)
        flush_rows(r);
    if (r->io_error || (r->csv && fflush(r->csv)))
        return tmp_error(r, err);
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

void gd_report_resident(const gd_report *r, gd_summary *out, gd_time_ps resident, gd_time_ps idle,
                        gd_time_ps longest_idle)
{
    out->resident_ns = resident / GD_PS_PER_NS;
    out->idle_ns = idle / GD_PS_PER_NS;
    out->longest_idle_ns = longest_idle / GD_PS_PER_NS;
    double slots = (double)r->cfg.sms * r->cfg.sm.max_warps;
    out->resident_occupancy_pct = resident > 0 ? 100.0 * (double)r->warp_ps / ((double)resident * slots) : 0.0;
}

/* 0 to go on; else the status of a write the guard stops after `done` rows of `of`.
 * Reports progress on the way. */
static int guard_stops(gd_write_guard *g, uint64_t done, uint64_t of, const char *path, gd_err *err)
{
    if (!g)
        return 0;
    if (g->interrupt && *g->interrupt)
        return gd_err_set(err, GD_EINTERRUPTED, "%s: interrupted after %" PRIu64 " of %" PRIu64
                          " rows of the kernel table; nothing written", path, done, of);
    if ((g->deadline > 0 || g->report) && (done & 1023) == 0) {
        double now = gd_monotonic_s();
        if (g->deadline > 0 && now >= g->deadline)
            return gd_err_set(err, GD_ELIMIT, "%s: the timeout (%.3g s for this write) passed after %" PRIu64 " of %"
                              PRIu64 " rows of the kernel table; nothing written", path, g->timeout_s, done, of);
        if (g->report && now - g->last >= g->every) {
            g->last = now;
            g->report(g->ctx, done, of);
            if (g->interrupt && *g->interrupt)  /* the report asked to stop */
                return guard_stops(g, done, of, path, err);
        }
    }
    return 0;
}

int gd_report_write_csv(gd_report *r, const char *path, gd_write_guard *guard, gd_err *err)
{
    if (r->rows_len)
        flush_rows(r);  /* the rows still gathered (a platform may write the table while it runs) */
    if (r->io_error)
        return tmp_error(r, err);
    gd_outfile of;
    int rc = gd_out_open(&of, path, err);
    if (rc)
        return rc;
    FILE *out = of.f;
    int bad = fputs(GD_KERNELS_CSV_HEADER, out) < 0;
    if (!bad && r->csv) {
        row_rec k;
        char *name = NULL;
        size_t cap = 0;
        if (fseek(r->csv, 0, SEEK_SET))
            bad = 1;
        uint64_t done = 0;
        while (!bad && fread(&k, sizeof k, 1, r->csv) == 1) {
            int stop = guard_stops(guard, done++, r->kernels, path, err);
            if (stop) {
                free(name);
                fseek(r->csv, 0, SEEK_END);
                gd_out_close(&of, 0, NULL);
                return stop;
            }
            if (k.name_len >= cap) {
                char *n = realloc(name, (size_t)k.name_len + 1);
                if (!n) {
                    free(name);
                    gd_out_close(&of, 0, NULL);
                    return gd_err_set(err, GD_ENOMEM, "%s: out of memory writing the kernel table", path);
                }
                name = n;
                cap = (size_t)k.name_len + 1;
            }
            if (fread(name, 1, k.name_len, r->csv) != k.name_len) {
                bad = 1;
                break;
            }
            name[k.name_len] = '\0';
            bad = format_row(out, r, &k, name) < 0;
        }
        free(name);
        if (ferror(r->csv))
            bad = 1;
        fseek(r->csv, 0, SEEK_END);
        if (!bad && guard && guard->report) {  /* the end: a last report, which may still stop it */
            guard->report(guard->ctx, done, r->kernels);
            if (guard->interrupt && *guard->interrupt) {
                gd_out_close(&of, 0, NULL);
                return gd_err_set(err, GD_EINTERRUPTED, "%s: interrupted after all %" PRIu64 " rows of the kernel "
                                  "table; nothing written", path, done);
            }
        }
    }
    if (bad) {
        gd_out_close(&of, 0, NULL);
        return gd_err_set(err, GD_EIO, "%s: write failed", path);
    }
    return gd_out_close(&of, 1, err);
}

