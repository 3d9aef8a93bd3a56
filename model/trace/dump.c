#include "dump.h"

#include <inttypes.h>

#include "aql.h"
#include "cga.h"
#include "gdsim.h"
#include "trace.h"

static const char *SCOPE[4] = {"none", "agent", "system", "reserved"};

static void header_fields(FILE *f, uint16_t h)
{
    fprintf(f, " barrier %u acquire %s release %s", (h & GD_AQL_HEADER_BARRIER) ? 1u : 0u,
            SCOPE[(h >> GD_AQL_HEADER_ACQUIRE_SHIFT) & GD_AQL_FENCE_SCOPE_MASK],
            SCOPE[(h >> GD_AQL_HEADER_RELEASE_SHIFT) & GD_AQL_FENCE_SCOPE_MASK]);
}

static void info_fields(FILE *f, const gd_launch_info *i)
{
    if (i->cta_duration_ps != GD_UNKNOWN)
        fprintf(f, " cta_ps %" PRIu64, i->cta_duration_ps);
    if (i->source_id != GD_UNKNOWN)
        fprintf(f, " source_id %" PRIu64, i->source_id);
    if (i->measured_start_ns != GD_UNKNOWN)
        fprintf(f, " measured_start_ns %" PRIu64, i->measured_start_ns);
    if (i->measured_dur_ns != GD_UNKNOWN)
        fprintf(f, " measured_dur_ns %" PRIu64, i->measured_dur_ns);
    if (gd_launch_info_waits(i))
        fprintf(f, " wait_until_ns %" PRIu64, i->wait_until_ns);
}

/* A tenant field (format 1.6), when the record has one. */
static void tenant_fields(FILE *f, const gd_tenant *t)
{
    if (!t->given)
        return;
    fprintf(f, " vid %u flags", t->vid);
    if (!t->flags)
        fprintf(f, " none");
    if (t->flags & GD_CMD_SYNC)
        fprintf(f, " sync");
    if (t->flags & GD_CMD_COND)
        fprintf(f, " conditional");
    if (t->flags & GD_CMD_FAILS)
        fprintf(f, " fails");
    if (t->flags & GD_CMD_INDEPENDENT)
        fprintf(f, " independent");
    if (t->priority)
        fprintf(f, " priority %u", t->priority);
}

static void dispatch_line(FILE *f, const gd_trace_dispatch *d)
{
    const gd_aql_dispatch *a = &d->pkt;
    fprintf(f, "dispatch queue %u submit_ns %" PRIu64 ": kernel_dispatch", d->queue, d->submit_ns);
    header_fields(f, a->header);
    fprintf(f, " setup %uD workgroup %ux%ux%u grid %ux%ux%u (%ux%ux%u CTAs) private_segment %u group_segment %u "
               "kernel_object %" PRIu64 " (%s) kernarg 0x%" PRIx64 " completion_signal 0x%" PRIx64,
            a->setup & 3u, a->workgroup_size[0], a->workgroup_size[1], a->workgroup_size[2], a->grid_size[0],
            a->grid_size[1], a->grid_size[2], d->grid_ctas[0], d->grid_ctas[1], d->grid_ctas[2],
            a->private_segment_size, a->group_segment_size, a->kernel_object, d->kernel->name, a->kernarg_address,
            a->completion_signal);
    info_fields(f, &d->info);
    if (d->ref_num >= 0)
        fprintf(f, " reference ref_num %d", d->ref_num);
    if (d->graph)
        fprintf(f, " graph-launched");
    if (d->programmatic)
        fprintf(f, " programmatic");
    if (gd_cluster_is_cga(&d->cluster))
        fprintf(f, " cluster %ux%ux%u gpu_cga %u %s", d->cluster.dim[0], d->cluster.dim[1], d->cluster.dim[2],
                d->cluster.gpu_cga, d->cluster.mode == GD_CGA_MULTICAST ? "multicast" : "load_balance");
    tenant_fields(f, &d->tenant);
}

int gd_trace_dump(FILE *out, const char *path, gd_err *err)
{
    gd_trace_reader *r;
    int rc = gd_trace_open(&r, path, err);
    if (rc)
        return rc;
    const gd_trace_device *d = gd_trace_device_of(r);
    fprintf(out, "#0 header: device \"%s\" cc %u.%u, %u SMs", d->name, d->cc_major, d->cc_minor, d->sms);
    if (d->gpcs) {
        fprintf(out, " in %u GPCs (", d->gpcs);
        for (uint32_t g = 0; g < d->gpcs; g++)
            fprintf(out, "%s%u", g ? " " : "", d->sms_per_gpc[g]);
        fputc(')', out);
    }
    fprintf(out, ", %u threads, %u registers, %u B shared memory per SM, per CTA %u threads, %u B shared "
                 "memory (%u B opt-in), warp %u; producer \"%s\"\n",
            d->max_threads_per_sm, d->regs_per_sm, d->smem_per_sm, d->max_threads_per_cta, d->smem_per_cta_default,
            d->smem_per_cta_optin, d->warp_size, gd_trace_producer(r));
    const gd_trace_calibration *cal = gd_trace_calibration_of(r);
    if (cal) {
        fprintf(out, "#1 calibration: \"%s\";", cal->provenance);
        for (uint32_t i = 0; i < cal->n; i++)
            fprintf(out, " %s = %s", cal->key[i], cal->value[i]);
        fputc('\n', out);
    }
    gd_trace_record rec;
    while ((rc = gd_trace_next(r, &rec, err)) == 1) {
        fprintf(out, "#%" PRIu64 " ", rec.index);
        switch (rec.type) {
        case GD_REC_KERNEL: {
            const gd_kernel_desc *k = rec.kernel;
            fprintf(out, "kernel %u \"%s\": %u threads, %u registers, shared memory %u + %u B, ", k->id, k->name,
                    k->threads_per_cta, k->regs_per_thread, k->static_smem, k->dynamic_smem);
            if (k->exec_model == GD_EXEC_FIXED_CTA)
                fprintf(out, "each CTA %" PRIu64 " ps", k->cta_duration_ps);
            else
                fprintf(out, "CTA time per dispatch");
            if (k->has_insn) {
                fprintf(out, "; warp instructions per CTA");
                for (unsigned c = 0; c < GD_INSN_CLASSES; c++)
                    fprintf(out, " %s %" PRIu64, gd_insn_class_name(c), k->insn[c]);
            }
            fputc('\n', out);
            break;
        }
        case GD_REC_DISPATCH:
            dispatch_line(out, &rec.dispatch);
            fputc('\n', out);
            break;
        case GD_REC_BARRIER_AND:
        case GD_REC_BARRIER_OR: {
            const gd_trace_barrier *b = &rec.barrier;
            fprintf(out, "%s queue %u submit_ns %" PRIu64 ":", rec.type == GD_REC_BARRIER_AND ? "barrier-AND" : "barrier-OR",
                    b->queue, b->submit_ns);
            header_fields(out, b->pkt.header);
            fprintf(out, " dep_signal");
            for (int i = 0; i < 5; i++)
                fprintf(out, " 0x%" PRIx64, b->pkt.dep_signal[i]);
            fprintf(out, " completion_signal 0x%" PRIx64, b->pkt.completion_signal);
            info_fields(out, &b->info);
            tenant_fields(out, &b->tenant);
            fputc('\n', out);
            break;
        }
        case GD_REC_NONKERNEL: {
            const gd_trace_command *c = &rec.command;
            fprintf(out, "command queue %u submit_ns %" PRIu64 ": %s barrier %d duration_ps %" PRIu64 " bytes %" PRIu64
                         " completion_signal 0x%" PRIx64,
                    c->queue, c->submit_ns, gd_command_kind_name(c->kind), c->barrier ? 1 : 0, c->duration_ps,
                    c->bytes, c->completion_signal);
            if (c->graph)
                fprintf(out, " graph-launched");
            info_fields(out, &c->info);
            tenant_fields(out, &c->tenant);
            fputc('\n', out);
            break;
        }
        case GD_REC_PIPELINE: {
            const gd_trace_pipeline *pl = &rec.pipeline;
            const gd_topology *t = &pl->def->topo;
            fprintf(out, "pipeline queue %u submit_ns %" PRIu64 ": barrier %d completion_signal 0x%" PRIx64
                         " topology \"%s\" (%u bytes): %u kernels, %u buffers, policy %s\n",
                    pl->queue, pl->submit_ns, pl->barrier ? 1 : 0, pl->completion_signal, t->name,
                    pl->def->text_len, t->nkernels, t->nbuffers, t->policy >= 0 ? gd_meta_policy_name(t->policy) : "-");
            break;
        }
        case GD_REC_CONDENSED: {
            const gd_trace_condensed *c = &rec.condensed;
            fprintf(out, "condensed queue %u submit_ns %" PRIu64 ": num_kernels %u", c->queue, c->submit_ns,
                    c->pkt.num_kernels);
            unsigned at = 0;
            for (uint32_t k = 0; k < c->n; k++) {
                uint16_t h = c->pkt.diff[at++];
                fprintf(out, "; kernel %u: diff header 0x%04x ref_num %u diff_vector 0x%04x", k, h, h & 7u, h >> 3);
                for (unsigned fld = 0; fld < GD_DIFF_FIELDS; fld++) {
                    if (!((h >> 3) & (1u << fld)))
                        continue;
                    fprintf(out, " %s=", gd_diff_field_name(fld));
                    for (unsigned w = 0; w < gd_diff_field_words(fld); w++)
                        fprintf(out, "%s0x%04x", w ? ":" : "", c->pkt.diff[at++]);
                }
                const gd_trace_dispatch *d = &c->kernel[k];
                fprintf(out, " -> %ux%ux%u CTAs of %s", d->grid_ctas[0], d->grid_ctas[1], d->grid_ctas[2],
                        d->kernel->name);
                info_fields(out, &d->info);
            }
            fputc('\n', out);
            break;
        }
        case GD_REC_HOST_THREAD:
            fprintf(out, "host thread %u \"%s\": starts at %" PRIu64 " ns\n", rec.host_thread.thread,
                    rec.host_thread.name, rec.host_thread.start_ns);
            break;
        case GD_REC_HOST_CALL: {
            const gd_trace_host_call *c = &rec.host_call;
            fprintf(out, "host call thread %u: %u packet%s after %" PRIu64 " ns%s\n", c->thread, c->packets,
                    c->packets == 1 ? "" : "s", c->gap_ns, c->flags & GD_HOST_LAST ? "; the thread's last" : "");
            break;
        }
        case GD_REC_HOST_WAIT: {
            const gd_trace_host_wait *h = &rec.host_wait;
            fprintf(out, "host wait thread %u at %" PRIu64 " ns: %s", h->thread, h->time_ns,
                    gd_host_wait_kind_name(h->kind));
            if (h->kind == GD_WAIT_SIGNAL)
                fprintf(out, " 0x%" PRIx64, h->target);
            else if (h->kind == GD_WAIT_QUEUE)
                fprintf(out, " %" PRIu64, h->target);
            fprintf(out, " after %" PRIu64 " ns, returns %" PRIu64 " ns after it%s%s\n", h->gap_ns, h->tail_ns,
                    h->flags & GD_HOST_POLLING ? "; polling" : "", h->flags & GD_HOST_LAST ? "; the thread's last" : "");
            break;
        }
        default:
            fprintf(out, "record type %u\n", rec.type);
            break;
        }
    }
    if (rc == 0)
        fprintf(out, "#%" PRIu64 " end: %" PRIu64 " records, %" PRIu64 " packets\n", gd_trace_records_read(r) - 1,
                gd_trace_records_read(r), gd_trace_packets_read(r));
    gd_trace_close_reader(r);
    if (rc < 0)
        return rc;
    if (ferror(out))
        return gd_err_set(err, GD_EIO, "%s: write failed", "dump output");
    return GD_OK;
}
