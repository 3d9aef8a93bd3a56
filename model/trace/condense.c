#include "condense.h"

#include <stdio.h>
#include <string.h>

#include "condensed.h"
#include "gdsim.h"
#include "trace.h"

typedef struct encoder {
    gd_trace_writer *w;
    gd_rst rst;
    uint64_t used_at[GD_RST_MAX];   /* LRU clock of each entry */
    uint64_t clock;
    int open;                       /* a condensed packet is being built */
    uint32_t queue;
    uint64_t first_ns, last_ns;
    gd_condensed_builder b;
    gd_launch_info infos[GD_CONDENSED_WORDS];
    int any_info;
    gd_condense_stats *st;
    /* The host model (format 1.10): the input's open host call, whose packets come next.
     * A call of one packet is written before the packet it became: a condensed packet
     * merges the dispatches of consecutive one-packet calls of one thread, and its call
     * (acc) is submitted after their gaps together, when the last of them was. A call of
     * several packets (a graph launch) is written as it is and its packets stay plain. */
    gd_trace_host_call call;
    uint32_t call_left;     /* its packets still to come */
    int call_written;       /* several packets: written as it is */
    gd_trace_host_call acc; /* the open condensed packet's call */
} encoder;

static int flush(encoder *e, gd_err *err)
{
    if (!e->open)
        return GD_OK;
    e->open = 0;
    e->st->condensed_packets++;
    e->st->bytes_after += GD_AQL_PACKET_SIZE;
    int rc;
    if (e->acc.packets && (rc = gd_trace_write_host_call(e->w, &e->acc, err)) != GD_OK)
        return rc;
    e->acc.packets = 0;
    return gd_trace_write_condensed(e->w, e->queue, e->last_ns, &e->b.pkt, e->any_info ? e->infos : NULL, err);
}

/* Before a packet written as it came (not merged): the host call that submits it, when
 * it is a call of one packet (one of several was written with the call). */
static int own_call(encoder *e, gd_err *err)
{
    if (!e->call_left || e->call_written)
        return GD_OK;
    return gd_trace_write_host_call(e->w, &e->call, err);
}

static int has_info(const gd_launch_info *i)
{
    return i->cta_duration_ps != GD_UNKNOWN || i->source_id != GD_UNKNOWN || i->measured_start_ns != GD_UNKNOWN ||
           i->measured_dur_ns != GD_UNKNOWN;
}

static int dispatch(encoder *e, const gd_trace_dispatch *d, const gd_condense_opts *o, gd_err *err)
{
    int rc;
    e->st->dispatches++;
    e->st->bytes_before += GD_AQL_PACKET_SIZE;
    /* A condensed packet has no tenant field, cluster shape, wait-until time, graph flag
     * (a CUDA graph's kernels are already launched as one) or programmatic flag: such a
     * dispatch stays plain, with its own. */
    if (gd_cluster_is_cga(&d->cluster) || gd_launch_info_waits(&d->info) || d->tenant.given || d->graph ||
        d->programmatic ||
        e->call_written) {
        e->st->plain++;
        e->st->bytes_after += GD_AQL_PACKET_SIZE;
        if ((rc = flush(e, err)) != GD_OK || (rc = own_call(e, err)) != GD_OK)
            return rc;
        return gd_trace_write_dispatch_rec(e->w, d, err);
    }
    gd_aql_dispatch a = d->pkt;
    a.reserved0 = 0;
    /* the entry of the same kernel that needs the fewest diff words */
    uint32_t best = UINT32_MAX, cost = UINT32_MAX;
    for (uint32_t i = 0; i < e->rst.size; i++) {
        if (!e->rst.valid[i] || e->rst.entry[i].kernel_object != a.kernel_object)
            continue;
        gd_aql_dispatch ref = e->rst.entry[i];
        ref.reserved0 = 0;
        uint32_t c = gd_condensed_cost(&ref, &a);
        if (c < cost) {
            cost = c;
            best = i;
        }
    }
    e->clock++;
    if (best == UINT32_MAX) {
        /* a miss: a reference packet into the least recently used entry */
        if ((rc = flush(e, err)) != GD_OK)
            return rc;
        uint32_t victim = 0;
        for (uint32_t i = 0; i < e->rst.size; i++) {
            if (!e->rst.valid[i]) {
                victim = i;
                break;
            }
            if (e->used_at[i] < e->used_at[victim])
                victim = i;
        }
        a.reserved0 = (uint16_t)victim;
        gd_rst_store(&e->rst, &a);
        e->used_at[victim] = e->clock;
        e->st->references++;
        e->st->bytes_after += GD_AQL_PACKET_SIZE;
        if ((rc = own_call(e, err)) != GD_OK)
            return rc;
        return gd_trace_write_reference(e->w, d->queue, d->submit_ns, &a, has_info(&d->info) ? &d->info : NULL, err);
    }
    /* a hit: into the open condensed packet of this queue, or a new one */
    if (!o->fifo)
        e->used_at[best] = e->clock;  /* LRU: a use counts; FIFO: only the load */
    a.reserved0 = (uint16_t)best;
    if (e->open && (e->queue != d->queue || d->submit_ns - e->first_ns > o->window_ns ||
                    (e->call_left && e->acc.thread != e->call.thread))) {
        if ((rc = flush(e, err)) != GD_OK)
            return rc;
    }
    for (int attempt = 0; attempt < 2; attempt++) {
        if (!e->open) {
            gd_condensed_begin(&e->b);
            e->open = 1;
            e->queue = d->queue;
            e->first_ns = d->submit_ns;
            e->any_info = 0;
        }
        rc = gd_condensed_add(&e->b, &e->rst, best, &a);
        if (rc == 0)
            break;
        if (rc == -2 || attempt)
            return gd_err_set(err, GD_EINTERNAL, "gdsim condense: internal: a dispatch of queue %u could not be "
                              "condensed against its table entry", d->queue);
        if ((rc = flush(e, err)) != GD_OK)
            return rc;
    }
    if (e->call_left) {  /* its call joins the packet's */
        if (e->b.pkt.num_kernels == 1) {
            e->acc = e->call;
        } else {
            e->acc.gap_ns += e->call.gap_ns;
            e->acc.flags = e->call.flags;
        }
    }
    e->infos[e->b.pkt.num_kernels - 1] = d->info;
    e->any_info |= has_info(&d->info);
    e->last_ns = d->submit_ns;
    e->st->condensed_kernels++;
    return GD_OK;
}

int gd_condense_trace(const char *in, const char *out, const gd_condense_opts *o, gd_condense_stats *st,
                      gd_err *err)
{
    memset(st, 0, sizeof *st);
    if (o->rsb_entries < 1 || o->rsb_entries > GD_RST_MAX)
        return gd_err_set(err, GD_EINVAL, "gdsim condense: --rsb-entries %u is not 1 to %d", o->rsb_entries,
                          GD_RST_MAX);
    gd_trace_reader *r;
    int rc = gd_trace_open(&r, in, err);
    if (rc)
        return rc;
    encoder e;
    memset(&e, 0, sizeof e);
    e.st = st;
    gd_rst_init(&e.rst, o->rsb_entries);
    char producer[300];
    snprintf(producer, sizeof producer, "gdsim condense of %.200s", gd_trace_producer(r));
    if ((rc = gd_trace_create(&e.w, out, gd_trace_device_of(r), producer, 6, err)) != GD_OK) {
        gd_trace_close_reader(r);
        return rc;
    }
    const gd_trace_calibration *cal = gd_trace_calibration_of(r);
    if (cal && (rc = gd_trace_write_calibration(e.w, cal, err)) != GD_OK) {
        gd_trace_abandon(e.w);
        gd_trace_close_reader(r);
        return rc;
    }
    gd_trace_record rec;
    while (rc == GD_OK) {
        int n = gd_trace_next(r, &rec, err);
        if (n <= 0) {
            rc = n;
            break;
        }
        int packet = gd_record_is_packet(rec.type);
        switch (rec.type) {
        case GD_REC_KERNEL:
            rc = gd_trace_write_kernel(e.w, rec.kernel, err);
            break;
        case GD_REC_HOST_THREAD:
            rc = gd_trace_write_host_thread(e.w, &rec.host_thread, err);
            break;
        case GD_REC_HOST_CALL:
            e.call = rec.host_call;
            e.call_left = rec.host_call.packets;
            e.call_written = rec.host_call.packets > 1;
            if (e.call_written && (rc = flush(&e, err)) == GD_OK)
                rc = gd_trace_write_host_call(e.w, &e.call, err);
            break;
        case GD_REC_HOST_WAIT:
            if ((rc = flush(&e, err)) == GD_OK)
                rc = gd_trace_write_host_wait(e.w, &rec.host_wait, err);
            break;
        case GD_REC_DISPATCH:
            rc = dispatch(&e, &rec.dispatch, o, err);
            break;
        case GD_REC_BARRIER_AND:
        case GD_REC_BARRIER_OR:
            if ((rc = flush(&e, err)) == GD_OK && (rc = own_call(&e, err)) == GD_OK)
                rc = gd_trace_write_barrier_tenant(e.w, rec.type, rec.barrier.queue, rec.barrier.submit_ns,
                                                   &rec.barrier.pkt, &rec.barrier.info,
                                                   rec.barrier.tenant.given ? &rec.barrier.tenant : NULL, err);
            break;
        case GD_REC_NONKERNEL:
            if ((rc = flush(&e, err)) == GD_OK && (rc = own_call(&e, err)) == GD_OK)
                rc = gd_trace_write_command(e.w, &rec.command, err);
            break;
        case GD_REC_PIPELINE:
            if ((rc = flush(&e, err)) == GD_OK && (rc = own_call(&e, err)) == GD_OK)
                rc = gd_trace_write_pipeline(e.w, rec.pipeline.queue, rec.pipeline.submit_ns, rec.pipeline.barrier,
                                             rec.pipeline.completion_signal, rec.pipeline.def->text,
                                             rec.pipeline.def->text_len, err);
            break;
        default:
            rc = gd_err_set(err, GD_EFORMAT, "%s: record %llu (offset %llu): already condensed (record type %u); "
                            "condense the original trace", in, (unsigned long long)rec.index,
                            (unsigned long long)rec.offset, rec.type);
        }
        if (packet && e.call_left && --e.call_left == 0)
            e.call_written = 0;
    }
    if (rc == GD_OK)
        rc = flush(&e, err);
    if (rc == GD_OK)
        rc = gd_trace_finish(e.w, err);
    else
        gd_trace_finish(e.w, NULL);
    gd_trace_close_reader(r);
    return rc;
}
