#include "summary.h"

#include <inttypes.h>
#include <string.h>

/* A duration in ns as text in the unit that suits it. */
static void format_duration(char *buf, size_t size, uint64_t ns)
{
    if (ns >= 1000000000u)
        snprintf(buf, size, "%.3f s", ns / 1e9);
    else if (ns >= 1000000u)
        snprintf(buf, size, "%.3f ms", ns / 1e6);
    else
        snprintf(buf, size, "%.3f us", ns / 1e3);
}

/* The CTA times a replay ran (docs/WHATIF.md): the trace's per-CTA times are measured on
 * its device and kept on the model's unless scaled (sm.cta_time_scale,
 * sm.cta_time_rules). Said when the devices differ or the times are scaled. */
static void cta_times_text(FILE *f, const gd_config *cfg, const gd_run_info *info)
{
    const gd_trace_device *d = info->trace_device;
    const char *measured = d && d->name[0] ? d->name : NULL;
    const int other = measured && strcmp(measured, cfg->gpu_name) != 0;
    const int scaled = cfg->sm_cta_time_ppm != 1000000;
    const gd_cta_rules *r = info->cta_rules;
    if (!other && !scaled && !r)
        return;
    fprintf(f, "  CTA times           %s%s%s", measured ? "measured on " : "the trace's", measured ? measured : "",
            other ? ", replayed on " : "");
    if (other)
        fprintf(f, "%s", cfg->gpu_name);
    if (!scaled && !r) {
        fprintf(f, " as measured: not rescaled for it (sm.cta_time_scale, sm.cta_time_rules; docs/WHATIF.md)\n");
        return;
    }
    char sc[24];
    gd_scale_text(sc, sizeof sc, cfg->sm_cta_time_ppm);
    fprintf(f, ": x%s (sm.cta_time_scale)", sc);
    if (!r) {
        fprintf(f, "\n");
        return;
    }
    fprintf(f, ", then the first rule a kernel's name matches in %s:\n", r->path);
    for (uint32_t i = 0; i < r->n; i++) {
        gd_scale_text(sc, sizeof sc, r->rule[i].ppm);
        fprintf(f, "    line %-4u x%-8s %" PRIu64 " dispatches of %" PRIu64 " kernels  %s\n", r->rule[i].line, sc,
                r->rule[i].dispatches, r->rule[i].kernels, r->rule[i].pattern);
    }
    fprintf(f, "    no rule             %" PRIu64 " dispatches of %" PRIu64 " kernels (as measured)\n",
            r->unmatched_dispatches, r->unmatched_kernels);
}

static void cta_times_json(FILE *f, const gd_config *cfg, const gd_run_info *info)
{
    const gd_trace_device *d = info->trace_device;
    char sc[24];
    gd_scale_text(sc, sizeof sc, cfg->sm_cta_time_ppm);
    fprintf(f, "  \"cta_times\": {\"measured_on\": ");
    gd_json_str(f, d && d->name[0] ? d->name : "");
    fprintf(f, ", \"replayed_on\": ");
    gd_json_str(f, cfg->gpu_name);
    fprintf(f, ", \"scale\": %s, \"rules\": ", sc);
    const gd_cta_rules *r = info->cta_rules;
    if (!r) {
        fprintf(f, "null},\n");
        return;
    }
    fprintf(f, "{\"file\": ");
    gd_json_str(f, r->path);
    fprintf(f, ", \"rules\": [");
    for (uint32_t i = 0; i < r->n; i++) {
        gd_scale_text(sc, sizeof sc, r->rule[i].ppm);
        fprintf(f, "%s{\"line\": %u, \"pattern\": ", i ? ", " : "", r->rule[i].line);
        gd_json_str(f, r->rule[i].pattern);
        fprintf(f, ", \"scale\": %s, \"kernels\": %" PRIu64 ", \"dispatches\": %" PRIu64 "}", sc, r->rule[i].kernels,
                r->rule[i].dispatches);
    }
    fprintf(f, "], \"unmatched_kernels\": %" PRIu64 ", \"unmatched_dispatches\": %" PRIu64 "}},\n",
            r->unmatched_kernels, r->unmatched_dispatches);
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
    cta_times_text(f, cfg, info);
    if (info->trace_device && info->trace_device->calibration) {
        const gd_trace_calibration *cal = info->trace_device->calibration;
        if (strncmp(cfg->preset, "trace", 5) == 0)
            fprintf(f, "  launch timing       %u of the %u keys of the trace's calibration applied (%s)\n",
                    cfg->calibrated_keys, cal->n, cal->provenance);
        else
            fprintf(f, "  launch timing       the trace's calibration is not applied (gpu.preset=%s)\n", cfg->preset);
    }
    fprintf(f, "  kernels             %" PRIu64 " on %" PRIu64 " queue%s\n", s->kernels, s->queues,
            s->queues == 1 ? "" : "s");
    fprintf(f, "  CTAs                %" PRIu64 "\n", s->ctas);
    fprintf(f, "  simulated time      %.3f us (first submit to last completion)\n", s->sim_time_ns / 1000.0);
    fprintf(f, "  busy span           %.3f us (first CTA launch to last CTA end)\n", s->busy_span_ns / 1000.0);
    fprintf(f, "  mean SM occupancy   %.2f %% of warp slots over the busy span\n", s->mean_sm_occupancy_pct);
    if (s->sim_time_ns && s->longest_idle_ns * 100 > (uint64_t)cfg->report_idle_gap_pct * s->sim_time_ns) {
        char idle[32], longest[32], resident[32];
        format_duration(idle, sizeof idle, s->idle_ns);
        format_duration(longest, sizeof longest, s->longest_idle_ns);
        format_duration(resident, sizeof resident, s->resident_ns);
        fprintf(f, "  idle                %s with no kernel on the GPU (%.1f %% of the simulated time; longest %s)\n",
                idle, 100.0 * (double)s->idle_ns / (double)s->sim_time_ns, longest);
        fprintf(f, "  occupancy resident  %.2f %% of warp slots over the %s kernels were resident\n",
                s->resident_occupancy_pct, resident);
    }
    fprintf(f, "  mean launch latency %.3f us (submit to first CTA)\n", s->mean_launch_latency_ns / 1000.0);
    fprintf(f, "  most kernels resident in the distributor %" PRIu64 " (limit %u); host stalls on full queues %" PRIu64
               "\n", s->max_resident_kernels, cfg->cwd_max_resident_kernels, s->host_stalls);
    if (info->stats) {
        gd_section_ctx c = {NULL, info->stats, s, cfg};
        for (size_t i = 0; i < info->stats->nsec; i++)
            if (info->stats->sec[i].text) {
                c.block = info->stats->sec[i].block;
                info->stats->sec[i].text(f, &c);
            }
    }
    return ferror(f) ? GD_EIO : GD_OK;
}

/* A configuration value typed: whole numbers as numbers, lists of them as arrays,
 * the rest (names, compute capability) as strings. */
static void json_value(FILE *f, const char *type, const char *v)
{
    int list = strcmp(type, "list") == 0;
    if (strcmp(type, "scale") == 0) {  /* a decimal (0.5, 1): a JSON number as it is */
        const char *p = v;
        while (*p >= '0' && *p <= '9')
            p++;
        if (*p == '.')
            for (p++; *p >= '0' && *p <= '9';)
                p++;
        if (p != v && !*p && v[strlen(v) - 1] != '.') {
            fputs(v, f);
            return;
        }
        gd_json_str(f, v);
        return;
    }
    if (strcmp(type, "uint") && !list) {
        gd_json_str(f, v);
        return;
    }
    const char *p = v;  /* digits, and commas between them in a list */
    while (*p >= '0' && *p <= '9')
        p++;
    while (list && *p == ',' && p[1] >= '0' && p[1] <= '9')
        for (p++; *p >= '0' && *p <= '9';)
            p++;
    if (p == v || *p) {  /* not a plain number (cannot happen for a resolved value) */
        gd_json_str(f, v);
        return;
    }
    fprintf(f, list ? "[%s]" : "%s", v);
}

int gd_write_summary_json(FILE *f, const gd_config *cfg, const gd_summary *s, const gd_run_info *info)
{
    fprintf(f, "{\n  \"gdsim_version\": ");
    gd_json_str(f, GD_VERSION_STRING);
    fprintf(f, ",\n  \"trace\": {\"path\": ");
    gd_json_str(f, info->trace_path ? info->trace_path : "");
    fprintf(f, ", \"producer\": ");
    gd_json_str(f, info->trace_producer ? info->trace_producer : "");
    fprintf(f, ", \"records\": %" PRIu64, info->records);
    fprintf(f, ", \"time_origin_ns\": %" PRIu64 ", \"absolute_times\": %s", info->origin_ns,
            info->absolute_times ? "true" : "false");
    if (info->trace_device) {
        const gd_trace_device *d = info->trace_device;
        fprintf(f, ", \"device\": {\"name\": ");
        gd_json_str(f, d->name);
        fprintf(f, ", \"sms\": %u, \"cc\": \"%u.%u\"}", d->sms, d->cc_major, d->cc_minor);
        if (d->calibration) {
            fprintf(f, ", \"calibration\": {\"provenance\": ");
            gd_json_str(f, d->calibration->provenance);
            fprintf(f, ", \"keys\": %u, \"applied\": %u}", d->calibration->n,
                    strncmp(cfg->preset, "trace", 5) == 0 ? cfg->calibrated_keys : 0);
        }
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
        gd_json_str(f, k->name);
        fprintf(f, ": ");
        json_value(f, k->type, buf);
    }
    fprintf(f, "\n  },\n");
    cta_times_json(f, cfg, info);
    fprintf(f, "  \"summary\": {\n");
    fprintf(f, "    \"kernels\": %" PRIu64 ",\n    \"ctas\": %" PRIu64 ",\n    \"sim_time_ns\": %" PRIu64 ",\n",
            s->kernels, s->ctas, s->sim_time_ns);
    fprintf(f, "    \"mean_sm_occupancy_pct\": %.6f,\n    \"mean_launch_latency_ns\": %.3f,\n",
            s->mean_sm_occupancy_pct, s->mean_launch_latency_ns);
    fprintf(f, "    \"packets\": %" PRIu64 ",\n    \"queues\": %" PRIu64 ",\n    \"busy_span_ns\": %" PRIu64 ",\n",
            s->packets, s->queues, s->busy_span_ns);
    fprintf(f, "    \"host_stalls\": %" PRIu64 ",\n    \"max_resident_kernels\": %" PRIu64 ",\n",
            s->host_stalls, s->max_resident_kernels);
    fprintf(f, "    \"resident_ns\": %" PRIu64 ",\n    \"resident_occupancy_pct\": %.6f,\n    \"idle_ns\": %" PRIu64
               ",\n    \"longest_idle_ns\": %" PRIu64 "\n  },\n",
            s->resident_ns, s->resident_occupancy_pct, s->idle_ns, s->longest_idle_ns);
    const gd_stats *stats = info->stats;
    if (stats) {
        gd_section_ctx c = {NULL, stats, s, cfg};
        for (size_t i = 0; i < stats->nsec; i++)
            if (stats->sec[i].json) {
                c.block = stats->sec[i].block;
                stats->sec[i].json(f, &c);
            }
    }
    fprintf(f, "  \"stats\": [");
    for (size_t i = 0, out = 0; stats && i < stats->n; i++) {
        const gd_stat *st = &stats->v[i];
        if (st->is_dist)  /* distributions appear in their blocks' sections */
            continue;
        fprintf(f, "%s\n    {\"block\": ", out++ ? "," : "");
        gd_json_str(f, st->block);
        fprintf(f, ", \"name\": ");
        gd_json_str(f, st->name);
        fprintf(f, ", \"value\": %" PRIu64 ", \"unit\": ", st->value);
        gd_json_str(f, st->unit);
        fprintf(f, ", \"desc\": ");
        gd_json_str(f, st->desc);
        fprintf(f, "}");
    }
    fprintf(f, "\n  ]\n}\n");
    return ferror(f) ? GD_EIO : GD_OK;
}
