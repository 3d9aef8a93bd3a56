/* test_trace.c - trace format v1: round trip, and every class of corrupt,
 * truncated or out-of-range input is an error naming the file, the record index
 * and its byte offset (never a crash, never a silent skip). */
#include <check.h>
#include <stdlib.h>
#include <inttypes.h>
#include <string.h>
#include <zlib.h>

#include "gdsim.h"
#include "trace.h"
#include "cga.h"
#include "condensed.h"
#include "dump.h"
#include "condense.h"
#include "tb_util.h"

/* A device description: H100-like, no GPC layout, one-letter name and producer, so
 * the header record is 44 + 2 + 1 + 2 + 1 = 50 bytes and record 1 starts at
 * 16 + 8 + 50 = 74. */
static gd_trace_device test_dev(void) { return tb_h100_device("T"); }

#define REC1 74u           /* offset of record 1 */
#define KREC (8u + 35u)    /* a kernel record named "k" */
#define DREC (8u + 80u)    /* a dispatch record */

static gd_kernel_desc kdesc(uint32_t id, const char *name, uint32_t threads, uint32_t regs, uint32_t smem)
{
    gd_kernel_desc k;
    memset(&k, 0, sizeof k);
    k.id = id;
    k.name = (char *)name;
    k.threads_per_cta = threads;
    k.regs_per_thread = regs;
    k.static_smem = smem;
    k.exec_model = GD_EXEC_FIXED_CTA;
    k.cta_duration_ps = 1000000;
    return k;
}

static gd_aql_dispatch pkt(uint64_t kobj, uint16_t block, uint32_t grid_ctas, uint32_t smem)
{
    gd_aql_dispatch p;
    memset(&p, 0, sizeof p);
    p.header = GD_AQL_TYPE_KERNEL_DISPATCH | GD_AQL_HEADER_BARRIER;
    p.setup = 1;
    p.workgroup_size[0] = block;
    p.workgroup_size[1] = p.workgroup_size[2] = 1;
    p.grid_size[0] = grid_ctas * block;
    p.grid_size[1] = p.grid_size[2] = 1;
    p.group_segment_size = smem;
    p.kernel_object = kobj;
    p.completion_signal = 7;
    return p;
}

static gd_trace_writer *start(const char *path)
{
    gd_trace_device d = test_dev();
    gd_trace_writer *w;
    gd_err err;
    ck_assert_int_eq(gd_trace_create(&w, path, &d, "p", 6, &err), GD_OK);
    return w;
}

/* Read path to the end; return the status and leave the message in err. */
static int g_read_ahead;  /* the loop tests of gzip input run with read ahead off (0) and on (1) */

static int read_all(const char *path, gd_err *err, uint64_t *dispatches)
{
    gd_trace_reader *r;
    int rc = gd_trace_open(&r, path, err);
    if (rc)
        return rc;
    gd_trace_set_read_ahead(r, g_read_ahead);
    gd_trace_record rec;
    while ((rc = gd_trace_next(r, &rec, err)) == 1)
        ;
    if (dispatches)
        *dispatches = gd_trace_dispatches_read(r);
    gd_trace_close_reader(r);
    return rc;
}

/* The error names the file and "record N (offset O)" and contains `what`. */
static void expect_error(const char *path, int code, uint64_t record, uint64_t offset, const char *what)
{
    gd_err err;
    gd_err_clear(&err);
    ck_assert_int_eq(read_all(path, &err, NULL), code);
    char where[128];
    snprintf(where, sizeof where, "record %llu (offset %llu)", (unsigned long long)record,
             (unsigned long long)offset);
    ck_assert_msg(strstr(err.msg, path) != NULL, "message '%s' does not name the file", err.msg);
    ck_assert_msg(strstr(err.msg, where) != NULL, "message '%s' does not say '%s'", err.msg, where);
    ck_assert_msg(strstr(err.msg, what) != NULL, "message '%s' does not say '%s'", err.msg, what);
}

START_TEST(round_trip)
{
    char *path = tb_tmp_path(".gdt.gz");
    gd_trace_writer *w = start(path);
    gd_err err;
    gd_kernel_desc k1 = kdesc(1, "k", 256, 64, 0), k2 = kdesc(42, "void gemm<float, 2>(int)", 128, 96, 40000);
    k2.dynamic_smem = 1000;
    k2.cta_duration_ps = 123456789;
    ck_assert_int_eq(gd_trace_write_kernel(w, &k1, &err), GD_OK);
    ck_assert_int_eq(gd_trace_write_kernel(w, &k2, &err), GD_OK);
    gd_aql_dispatch a = pkt(1, 256, 1000, 0);
    gd_aql_dispatch b = pkt(42, 128, 1, 41000);
    b.setup = 3;
    b.workgroup_size[0] = 32;
    b.workgroup_size[1] = 4;
    b.grid_size[0] = 32 * 7;
    b.grid_size[1] = 4 * 5 + 1; /* a partial workgroup: 6 CTAs along y */
    b.grid_size[2] = 3;
    b.kernarg_address = 0xdeadbeef00ull;
    b.private_segment_size = 64;
    b.header &= (uint16_t)~GD_AQL_HEADER_BARRIER;
    ck_assert_int_eq(gd_trace_write_dispatch(w, 0, 5000, &a, NULL, &err), GD_OK);
    ck_assert_int_eq(gd_trace_write_dispatch(w, 3, 5000, &b, NULL, &err), GD_OK);
    ck_assert_int_eq(gd_trace_write_dispatch(w, 0, 9000, &a, NULL, &err), GD_OK);
    ck_assert_int_eq(gd_trace_finish(w, &err), GD_OK);

    gd_trace_reader *r;
    ck_assert_int_eq(gd_trace_open(&r, path, &err), GD_OK);
    ck_assert_str_eq(gd_trace_device_of(r)->name, "T");
    ck_assert_uint_eq(gd_trace_device_of(r)->sms, 132);
    ck_assert_str_eq(gd_trace_producer(r), "p");
    gd_trace_record rec;
    ck_assert_int_eq(gd_trace_next(r, &rec, &err), 1);
    ck_assert_uint_eq(rec.type, GD_REC_KERNEL);
    ck_assert_uint_eq(rec.index, 1);
    ck_assert_uint_eq(rec.offset, REC1);
    ck_assert_str_eq(rec.kernel->name, "k");
    ck_assert_uint_eq(rec.kernel->occ.max_ctas, 4);
    ck_assert_int_eq(gd_trace_next(r, &rec, &err), 1);
    ck_assert_str_eq(rec.kernel->name, "void gemm<float, 2>(int)");
    ck_assert_uint_eq(rec.kernel->dynamic_smem, 1000);
    ck_assert_uint_eq(rec.kernel->cta_duration_ps, 123456789);
    ck_assert_int_eq(gd_trace_next(r, &rec, &err), 1);
    ck_assert_uint_eq(rec.type, GD_REC_DISPATCH);
    ck_assert_uint_eq(rec.dispatch.ctas, 1000);
    ck_assert_uint_eq(rec.dispatch.submit_ns, 5000);
    ck_assert_int_eq(gd_aql_barrier(rec.dispatch.pkt.header), 1);
    ck_assert_int_eq(gd_trace_next(r, &rec, &err), 1);
    ck_assert_uint_eq(rec.dispatch.queue, 3);
    ck_assert_uint_eq(rec.dispatch.grid_ctas[0], 7);
    ck_assert_uint_eq(rec.dispatch.grid_ctas[1], 6);
    ck_assert_uint_eq(rec.dispatch.grid_ctas[2], 3);
    ck_assert_uint_eq(rec.dispatch.ctas, 126);
    ck_assert_mem_eq(&rec.dispatch.pkt, &b, sizeof b);
    ck_assert_ptr_eq(rec.dispatch.kernel->name, rec.dispatch.kernel->name);
    ck_assert_uint_eq(rec.dispatch.kernel->id, 42);
    ck_assert_int_eq(gd_trace_next(r, &rec, &err), 1);
    ck_assert_int_eq(gd_trace_next(r, &rec, &err), 0); /* END checked */
    ck_assert_int_eq(gd_trace_next(r, &rec, &err), 0);
    ck_assert_uint_eq(gd_trace_records_read(r), 7); /* header, 2 kernels, 3 dispatches, end */
    ck_assert_uint_eq(gd_trace_dispatches_read(r), 3);
    gd_trace_close_reader(r);
    remove(path);
    free(path);
}
END_TEST

/* Format 1.1: dispatches with launch info, and descriptors whose CTA time comes
 * from each dispatch. */
START_TEST(launch_info_round_trip)
{
    char *path = tb_tmp_path(".gdt.gz");
    gd_trace_writer *w = start(path);
    gd_err err;
    gd_kernel_desc k = kdesc(1, "k", 256, 32, 0);
    k.exec_model = GD_EXEC_PER_DISPATCH;
    k.cta_duration_ps = 0;
    ck_assert_int_eq(gd_trace_write_kernel(w, &k, &err), GD_OK);
    gd_kernel_desc f = kdesc(2, "fixed", 256, 32, 0);
    ck_assert_int_eq(gd_trace_write_kernel(w, &f, &err), GD_OK);
    gd_aql_dispatch a = pkt(1, 256, 10, 0), b = pkt(2, 256, 10, 0);
    gd_launch_info info = {2500000, 57541, 4458676983543183ull, 41407, GD_UNKNOWN};
    ck_assert_int_eq(gd_trace_write_dispatch(w, 0, 100, &a, &info, &err), GD_OK);
    gd_launch_info partial = gd_launch_info_unknown();
    partial.source_id = 9;
    ck_assert_int_eq(gd_trace_write_dispatch(w, 0, 200, &b, &partial, &err), GD_OK);
    info.wait_until_ns = 41407300;  /* format 1.3; in the submits' time base (sim.max_sim_time_s) */
    ck_assert_int_eq(gd_trace_write_dispatch(w, 0, 300, &a, &info, &err), GD_OK);
    ck_assert_int_eq(gd_trace_finish(w, &err), GD_OK);
    gd_trace_reader *r;
    gd_trace_record rec;
    ck_assert_int_eq(gd_trace_open(&r, path, &err), GD_OK);
    ck_assert_int_eq(gd_trace_next(r, &rec, &err), 1);
    ck_assert_int_eq(gd_trace_next(r, &rec, &err), 1);
    ck_assert_int_eq(gd_trace_next(r, &rec, &err), 1);
    ck_assert_uint_eq(rec.dispatch.cta_ps, 2500000);
    ck_assert_uint_eq(rec.dispatch.info.source_id, 57541);
    ck_assert_uint_eq(rec.dispatch.info.measured_start_ns, 4458676983543183ull);
    ck_assert_uint_eq(rec.dispatch.info.measured_dur_ns, 41407);
    ck_assert_int_eq(gd_trace_next(r, &rec, &err), 1);
    ck_assert_uint_eq(rec.dispatch.cta_ps, 1000000); /* the descriptor's: the info has no duration */
    ck_assert_uint_eq(rec.dispatch.info.source_id, 9);
    ck_assert_uint_eq(rec.dispatch.info.measured_start_ns, GD_UNKNOWN);
    ck_assert_uint_eq(rec.dispatch.info.wait_until_ns, GD_UNKNOWN);
    ck_assert_int_eq(gd_trace_next(r, &rec, &err), 1);
    ck_assert_uint_eq(rec.dispatch.cta_ps, 2500000);
    ck_assert_uint_eq(rec.dispatch.info.measured_dur_ns, 41407);
    ck_assert_uint_eq(rec.dispatch.info.wait_until_ns, 41407300);
    ck_assert_int_eq(gd_trace_next(r, &rec, &err), 0);
    gd_trace_close_reader(r);
    remove(path);
    free(path);
}
END_TEST

/* Format 1.2: barrier-AND/-OR packets and non-kernel commands; completion
 * signals are numbered in order of first appearance. */
START_TEST(barrier_command_round_trip)
{
    char *path = tb_tmp_path(".gdt.gz");
    gd_trace_writer *w = start(path);
    gd_err err;
    gd_kernel_desc k = kdesc(1, "k", 256, 32, 0);
    ck_assert_int_eq(gd_trace_write_kernel(w, &k, &err), GD_OK);
    gd_aql_dispatch a = pkt(1, 256, 10, 0);
    a.completion_signal = 0xA0;
    ck_assert_int_eq(gd_trace_write_dispatch(w, 0, 100, &a, NULL, &err), GD_OK);
    gd_trace_command c;
    memset(&c, 0, sizeof c);
    c.queue = 1;
    c.kind = GD_CMD_MEMCPY_DTOD;
    c.barrier = 1;
    c.submit_ns = 150;
    c.duration_ps = 7654321;
    c.bytes = 4000;
    c.completion_signal = 0xB0;
    c.info = gd_launch_info_unknown();
    c.info.source_id = 64014;
    c.info.measured_start_ns = 1000;
    c.info.measured_dur_ns = 7654;
    ck_assert_int_eq(gd_trace_write_command(w, &c, &err), GD_OK);
    gd_aql_barrier_pkt b;
    memset(&b, 0, sizeof b);
    b.header = GD_AQL_TYPE_BARRIER_AND | GD_AQL_HEADER_BARRIER;
    b.dep_signal[1] = 0xB0; /* a null entry first: satisfied, not listed */
    b.dep_signal[4] = 0xA0;
    b.completion_signal = 0xC0;
    gd_launch_info info = gd_launch_info_unknown();
    info.source_id = 5170;
    ck_assert_int_eq(gd_trace_write_barrier(w, GD_REC_BARRIER_AND, 2, 200, &b, &info, &err), GD_OK);
    gd_aql_barrier_pkt o;
    memset(&o, 0, sizeof o);
    o.header = GD_AQL_TYPE_BARRIER_OR;
    o.dep_signal[0] = 0xC0;
    o.dep_signal[2] = 0xA0;
    ck_assert_int_eq(gd_trace_write_barrier(w, GD_REC_BARRIER_OR, 0, 200, &o, NULL, &err), GD_OK);
    a.completion_signal = 0xB0; /* a handle used again keeps its number */
    ck_assert_int_eq(gd_trace_write_dispatch(w, 3, 300, &a, NULL, &err), GD_OK);
    ck_assert_int_eq(gd_trace_finish(w, &err), GD_OK);

    gd_trace_reader *r;
    gd_trace_record rec;
    ck_assert_int_eq(gd_trace_open(&r, path, &err), GD_OK);
    ck_assert_int_eq(gd_trace_next(r, &rec, &err), 1);
    ck_assert_int_eq(gd_trace_next(r, &rec, &err), 1);
    ck_assert_uint_eq(rec.dispatch.signal, 0);
    ck_assert_int_eq(gd_trace_next(r, &rec, &err), 1);
    ck_assert_uint_eq(rec.type, GD_REC_NONKERNEL);
    ck_assert_uint_eq(rec.command.queue, 1);
    ck_assert_uint_eq(rec.command.kind, GD_CMD_MEMCPY_DTOD);
    ck_assert_int_eq(rec.command.barrier, 1);
    ck_assert_uint_eq(rec.command.submit_ns, 150);
    ck_assert_uint_eq(rec.command.duration_ps, 7654321);
    ck_assert_uint_eq(rec.command.bytes, 4000);
    ck_assert_uint_eq(rec.command.signal, 1);
    ck_assert_uint_eq(rec.command.info.source_id, 64014);
    ck_assert_uint_eq(rec.command.info.measured_dur_ns, 7654);
    ck_assert_str_eq(gd_command_kind_name(rec.command.kind), "memcpy DtoD");
    ck_assert_int_eq(gd_trace_next(r, &rec, &err), 1);
    ck_assert_uint_eq(rec.type, GD_REC_BARRIER_AND);
    ck_assert_uint_eq(rec.barrier.queue, 2);
    ck_assert_uint_eq(rec.barrier.submit_ns, 200);
    ck_assert_uint_eq(rec.barrier.ndeps, 2);
    ck_assert_uint_eq(rec.barrier.dep[0], 1); /* 0xB0 */
    ck_assert_uint_eq(rec.barrier.dep[1], 0); /* 0xA0 */
    ck_assert_uint_eq(rec.barrier.signal, 2);
    ck_assert_uint_eq(rec.barrier.info.source_id, 5170);
    ck_assert_mem_eq(&rec.barrier.pkt, &b, sizeof b);
    ck_assert_int_eq(gd_trace_next(r, &rec, &err), 1);
    ck_assert_uint_eq(rec.type, GD_REC_BARRIER_OR);
    ck_assert_uint_eq(rec.barrier.ndeps, 2);
    ck_assert_uint_eq(rec.barrier.dep[0], 2);
    ck_assert_uint_eq(rec.barrier.dep[1], 0);
    ck_assert_uint_eq(rec.barrier.signal, GD_NO_SIGNAL);
    ck_assert_int_eq(gd_aql_barrier(rec.barrier.pkt.header), 0);
    ck_assert_int_eq(gd_trace_next(r, &rec, &err), 1);
    ck_assert_uint_eq(rec.dispatch.signal, 1);
    ck_assert_int_eq(gd_trace_next(r, &rec, &err), 0); /* END counts 5 packets */
    ck_assert_uint_eq(gd_trace_packets_read(r), 5);
    ck_assert_uint_eq(gd_trace_dispatches_read(r), 2);
    ck_assert_uint_eq(gd_trace_signals(r), 3);
    gd_trace_close_reader(r);
    remove(path);
    free(path);
}
END_TEST

START_TEST(barrier_layout)
{
    gd_aql_barrier_pkt b;
    memset(&b, 0, sizeof b);
    b.header = GD_AQL_TYPE_BARRIER_OR | GD_AQL_HEADER_BARRIER;
    b.dep_signal[0] = 0x1111;
    b.dep_signal[4] = 0x5555;
    b.completion_signal = 0x9999;
    uint8_t raw[64];
    gd_aql_barrier_encode(raw, &b);
    ck_assert_uint_eq(raw[0], 5);
    ck_assert_uint_eq(raw[1], 1);
    ck_assert_uint_eq(gd_get64(raw + 8), 0x1111);
    ck_assert_uint_eq(gd_get64(raw + 40), 0x5555);
    ck_assert_uint_eq(gd_get64(raw + 56), 0x9999);
    gd_aql_barrier_pkt c;
    gd_aql_barrier_decode(&c, raw);
    ck_assert_mem_eq(&c, &b, sizeof b);
}
END_TEST

static void b_no_duration(gd_trace_writer *w)
{
    gd_kernel_desc k = kdesc(1, "k", 256, 32, 0);
    k.exec_model = GD_EXEC_PER_DISPATCH;
    gd_trace_write_kernel(w, &k, NULL);
    gd_aql_dispatch p = pkt(1, 256, 1, 0);
    gd_trace_write_dispatch(w, 0, 1, &p, NULL, NULL);
}

START_TEST(aql_layout)
{
    gd_aql_dispatch p = pkt(0x1122334455667788ull, 256, 10, 0x1234);
    p.reserved0 = 0xabcd;
    uint8_t b[64];
    gd_aql_encode(b, &p);
    ck_assert_uint_eq(b[0], 2);            /* type */
    ck_assert_uint_eq(b[1], 1);            /* barrier bit = header bit 8 */
    ck_assert_uint_eq(b[4], 0);            /* workgroup_size_x = 256, little-endian */
    ck_assert_uint_eq(b[5], 1);
    ck_assert_uint_eq(b[10], 0xcd);        /* reserved0 at offset 10 */
    ck_assert_uint_eq(gd_get32(b + 12), 2560);
    ck_assert_uint_eq(gd_get32(b + 28), 0x1234);
    ck_assert_uint_eq(b[32], 0x88);        /* kernel_object at 32 */
    ck_assert_uint_eq(gd_get64(b + 56), 7); /* completion_signal at 56 */
    gd_aql_dispatch q;
    gd_aql_decode(&q, b);
    ck_assert_mem_eq(&q, &p, sizeof p);
}
END_TEST

/* Write a header, then whatever `body` writes, then optionally END. */
typedef void (*body_fn)(gd_trace_writer *w);
static char *make(body_fn body, int finish)
{
    char *path = tb_tmp_path(".gdt.gz");
    gd_trace_writer *w = start(path);
    body(w);
    if (finish) {
        gd_err err;
        ck_assert_int_eq(gd_trace_finish(w, &err), GD_OK);
    } else {
        gd_trace_abandon(w);
    }
    return path;
}

static void w_kernel(gd_trace_writer *w)
{
    gd_kernel_desc k = kdesc(1, "k", 256, 32, 0);
    gd_trace_write_kernel(w, &k, NULL);
}

static void b_unknown_type(gd_trace_writer *w) { gd_trace_write_raw(w, 99, "x", 1, NULL); }
static void b_reserved_type(gd_trace_writer *w) { gd_trace_write_raw(w, GD_REC_MT_COMMAND, "x", 1, NULL); }
static gd_aql_barrier_pkt barrier_pkt(unsigned aql_type, uint64_t dep0, uint64_t signal)
{
    gd_aql_barrier_pkt b;
    memset(&b, 0, sizeof b);
    b.header = (uint16_t)(aql_type | GD_AQL_HEADER_BARRIER);
    b.dep_signal[0] = dep0;
    b.completion_signal = signal;
    return b;
}
/* Completion signals numbered in order of first use: a run of handles a fixed stride
 * apart (0x1000, 0x1040, 0x1080) is kept as arithmetic, others in a hash map (0x5; 0x10C0,
 * which would continue the run but comes after an off-run handle; 0x7); a barrier's
 * dependencies get the numbers; a handle between two of the run, or past its end, is
 * no signal. */
static const uint64_t SIGNAL_HANDLES[] = {0x1000, 0x1040, 0x1080, 0x5, 0x10C0, 0x7, 0x1040};
static void w_signal_handles(gd_trace_writer *w)
{
    w_kernel(w);
    for (size_t i = 0; i < sizeof SIGNAL_HANDLES / sizeof *SIGNAL_HANDLES; i++) {
        gd_aql_dispatch p = pkt(1, 256, 1, 0);
        p.completion_signal = SIGNAL_HANDLES[i];
        gd_trace_write_dispatch(w, 0, 1 + i, &p, NULL, NULL);
    }
}
static void b_signal_run(gd_trace_writer *w)
{
    w_signal_handles(w);
    gd_aql_barrier_pkt b = barrier_pkt(GD_AQL_TYPE_BARRIER_AND, 0x10C0, 0x1100);
    b.dep_signal[1] = 0x1000;
    b.dep_signal[2] = 0x7;
    b.dep_signal[3] = 0x1080;
    b.dep_signal[4] = 0x5;
    gd_trace_write_barrier(w, GD_REC_BARRIER_AND, 1, 20, &b, NULL, NULL);
}
static void w_signal_dep(gd_trace_writer *w, uint64_t dep)
{
    w_signal_handles(w);
    gd_aql_barrier_pkt b = barrier_pkt(GD_AQL_TYPE_BARRIER_AND, dep, 0);
    gd_trace_write_barrier(w, GD_REC_BARRIER_AND, 1, 20, &b, NULL, NULL);
}
static void b_signal_gap(gd_trace_writer *w) { w_signal_dep(w, 0x1020); }
static void b_signal_past(gd_trace_writer *w) { w_signal_dep(w, 0x1100); }

START_TEST(signal_numbers)
{
    char *path = make(b_signal_run, 1);
    gd_err err;
    gd_trace_reader *r;
    gd_trace_record rec;
    ck_assert_int_eq(gd_trace_open(&r, path, &err), GD_OK);
    ck_assert_int_eq(gd_trace_next(r, &rec, &err), 1);  /* the kernel descriptor */
    const uint32_t expect[] = {0, 1, 2, 3, 4, 5, 1};
    for (int i = 0; i < 7; i++) {
        ck_assert_int_eq(gd_trace_next(r, &rec, &err), 1);
        ck_assert_uint_eq(rec.dispatch.signal, expect[i]);
    }
    ck_assert_int_eq(gd_trace_next(r, &rec, &err), 1);
    ck_assert_uint_eq(rec.type, GD_REC_BARRIER_AND);
    ck_assert_uint_eq(rec.barrier.ndeps, 5);
    const uint32_t deps[] = {4, 0, 5, 2, 3};
    for (int i = 0; i < 5; i++)
        ck_assert_uint_eq(rec.barrier.dep[i], deps[i]);
    ck_assert_uint_eq(rec.barrier.signal, 6);  /* 0x1100: would continue the run, numbered 6 */
    ck_assert_int_eq(gd_trace_next(r, &rec, &err), 0);
    ck_assert_uint_eq(gd_trace_signals(r), 7);
    gd_trace_close_reader(r);
    remove(path);
    free(path);
    const char *bad[] = {"dep_signal[0] 0x1020 is not the completion signal of any earlier packet",
                         "dep_signal[0] 0x1100 is not the completion signal of any earlier packet"};
    body_fn bodies[] = {b_signal_gap, b_signal_past};
    for (int i = 0; i < 2; i++) {  /* the barrier is record 9 */
        path = make(bodies[i], 1);
        expect_error(path, GD_EFORMAT, 9, REC1 + KREC + 7 * DREC, bad[i]);
        remove(path);
        free(path);
    }
}
END_TEST

/* A kernel carrying completion signal 0x77, for barriers to depend on. */
static void w_signalled_dispatch(gd_trace_writer *w)
{
    w_kernel(w);
    gd_aql_dispatch p = pkt(1, 256, 1, 0);
    p.completion_signal = 0x77;
    gd_trace_write_dispatch(w, 0, 1, &p, NULL, NULL);
}
static void b_unknown_dep(gd_trace_writer *w)
{
    w_signalled_dispatch(w);
    gd_aql_barrier_pkt b = barrier_pkt(GD_AQL_TYPE_BARRIER_AND, 0x78, 0);
    gd_trace_write_barrier(w, GD_REC_BARRIER_AND, 1, 2, &b, NULL, NULL);
}
static void b_self_dep(gd_trace_writer *w)
{
    w_signalled_dispatch(w);
    gd_aql_barrier_pkt b = barrier_pkt(GD_AQL_TYPE_BARRIER_AND, 0x77, 0x77);
    gd_trace_write_barrier(w, GD_REC_BARRIER_AND, 1, 2, &b, NULL, NULL);
}
static void b_or_no_deps(gd_trace_writer *w)
{
    w_signalled_dispatch(w);
    gd_aql_barrier_pkt b = barrier_pkt(GD_AQL_TYPE_BARRIER_OR, 0, 0);
    gd_trace_write_barrier(w, GD_REC_BARRIER_OR, 1, 2, &b, NULL, NULL);
}
static void b_barrier_type(gd_trace_writer *w)
{
    w_signalled_dispatch(w);
    gd_aql_barrier_pkt b = barrier_pkt(GD_AQL_TYPE_BARRIER_OR, 0x77, 0);
    gd_trace_write_barrier(w, GD_REC_BARRIER_AND, 1, 2, &b, NULL, NULL);
}
static void b_barrier_cta_time(gd_trace_writer *w)
{
    w_signalled_dispatch(w);
    gd_aql_barrier_pkt b = barrier_pkt(GD_AQL_TYPE_BARRIER_AND, 0x77, 0);
    gd_launch_info info = gd_launch_info_unknown();
    info.cta_duration_ps = 5;
    gd_trace_write_barrier(w, GD_REC_BARRIER_AND, 1, 2, &b, &info, NULL);
}
static gd_trace_command command(uint32_t kind, uint64_t submit_ns)
{
    gd_trace_command c;
    memset(&c, 0, sizeof c);
    c.queue = 2;
    c.kind = kind;
    c.barrier = 1;
    c.submit_ns = submit_ns;
    c.duration_ps = 4000000;
    c.bytes = 1 << 20;
    c.info = gd_launch_info_unknown();
    return c;
}
static void b_command_kind(gd_trace_writer *w)
{
    gd_trace_command c = command(GD_CMD_KINDS, 1);
    gd_trace_write_command(w, &c, NULL);
}
static void b_command_flags(gd_trace_writer *w)
{
    gd_trace_command c = command(GD_CMD_MEMSET, 1);
    gd_trace_write_command(w, &c, NULL);
    uint8_t p[40];
    memset(p, 0, sizeof p);
    gd_put32(p + 4, 4);
    gd_put64(p + 8, 1);
    gd_trace_write_raw(w, GD_REC_NONKERNEL, p, sizeof p, NULL);
}
/* A dispatch record (80 bytes) with flags and an AQL header of the caller's choice. */
static void w_raw_dispatch(gd_trace_writer *w, uint16_t flags, uint16_t header)
{
    w_kernel(w);
    gd_aql_dispatch a = pkt(1, 256, 1, 0);
    a.header = header;
    uint8_t p[80];
    memset(p, 0, sizeof p);
    gd_put16(p + 2, flags);
    gd_put64(p + 8, 1);
    gd_aql_encode(p + 16, &a);
    gd_trace_write_raw(w, GD_REC_DISPATCH, p, sizeof p, NULL);
}
static void b_programmatic_no_barrier(gd_trace_writer *w)
{
    w_raw_dispatch(w, 4, GD_AQL_TYPE_KERNEL_DISPATCH);
}
static void b_dispatch_flags(gd_trace_writer *w)
{
    w_raw_dispatch(w, 8, GD_AQL_TYPE_KERNEL_DISPATCH | GD_AQL_HEADER_BARRIER);
}
static void b_missing_desc(gd_trace_writer *w)
{
    w_kernel(w);
    gd_aql_dispatch p = pkt(9, 256, 10, 0);
    gd_trace_write_dispatch(w, 0, 1, &p, NULL, NULL);
}
static void b_zero_grid(gd_trace_writer *w)
{
    w_kernel(w);
    gd_aql_dispatch p = pkt(1, 256, 10, 0);
    p.setup = 2;
    p.grid_size[1] = 0;
    gd_trace_write_dispatch(w, 0, 1, &p, NULL, NULL);
}
static void b_big_grid(gd_trace_writer *w)
{
    w_kernel(w);
    gd_aql_dispatch p = pkt(1, 256, 10, 0);
    p.setup = 2;
    p.grid_size[1] = 70000;
    gd_trace_write_dispatch(w, 0, 1, &p, NULL, NULL);
}
static void b_big_block(gd_trace_writer *w)
{
    gd_kernel_desc k = kdesc(1, "k", 1024, 32, 0);
    gd_trace_write_kernel(w, &k, NULL);
    gd_aql_dispatch p = pkt(1, 2048, 1, 0);
    gd_trace_write_dispatch(w, 0, 1, &p, NULL, NULL);
}
static void b_block_mismatch(gd_trace_writer *w)
{
    w_kernel(w);
    gd_aql_dispatch p = pkt(1, 128, 1, 0);
    gd_trace_write_dispatch(w, 0, 1, &p, NULL, NULL);
}
static void b_regs(gd_trace_writer *w)
{
    gd_kernel_desc k = kdesc(1, "k", 256, 300, 0);
    gd_trace_write_kernel(w, &k, NULL);
}
static void b_smem(gd_trace_writer *w)
{
    gd_kernel_desc k = kdesc(1, "k", 256, 32, 300000);
    gd_trace_write_kernel(w, &k, NULL);
}
static void b_nofit(gd_trace_writer *w)
{
    gd_kernel_desc k = kdesc(1, "k", 1024, 255, 0);
    gd_trace_write_kernel(w, &k, NULL);
}
static void b_smem_mismatch(gd_trace_writer *w)
{
    w_kernel(w);
    gd_aql_dispatch p = pkt(1, 256, 1, 512);
    gd_trace_write_dispatch(w, 0, 1, &p, NULL, NULL);
}
static void b_order(gd_trace_writer *w)
{
    w_kernel(w);
    gd_aql_dispatch p = pkt(1, 256, 1, 0);
    gd_trace_write_dispatch(w, 0, 100, &p, NULL, NULL);
    gd_trace_write_dispatch(w, 1, 50, &p, NULL, NULL);
}
static void b_dup(gd_trace_writer *w)
{
    w_kernel(w);
    w_kernel(w);
}
static void b_reserved0(gd_trace_writer *w)
{
    w_kernel(w);
    gd_aql_dispatch p = pkt(1, 256, 1, 0);
    p.reserved0 = 3;
    gd_trace_write_dispatch(w, 0, 1, &p, NULL, NULL);
}
static void b_type(gd_trace_writer *w)
{
    w_kernel(w);
    gd_aql_dispatch p = pkt(1, 256, 1, 0);
    p.header = GD_AQL_TYPE_BARRIER_AND;
    gd_trace_write_dispatch(w, 0, 1, &p, NULL, NULL);
}
static void b_queue(gd_trace_writer *w)
{
    w_kernel(w);
    gd_aql_dispatch p = pkt(1, 256, 1, 0);
    gd_trace_write_dispatch(w, 5000, 1, &p, NULL, NULL);
}
static void b_short_kernel(gd_trace_writer *w) { gd_trace_write_raw(w, GD_REC_KERNEL, "abc", 3, NULL); }
static void b_bad_end(gd_trace_writer *w)
{
    w_kernel(w);
    uint8_t e[16];
    gd_put64(e, 5);
    gd_put64(e + 8, 0);
    gd_trace_write_raw(w, GD_REC_END, e, 16, NULL);
}
static void b_after_end(gd_trace_writer *w)
{
    w_kernel(w);
    uint8_t e[16];
    gd_put64(e, 2);
    gd_put64(e + 8, 0);
    gd_trace_write_raw(w, GD_REC_END, e, 16, NULL);
    w_kernel(w);
}
/* A dispatch of kernel 1 (256 threads) over a grid of gx x gy CTAs with a cluster
 * block written byte by byte (reserved byte 9 set to `reserved`). */
static void w_cluster(gd_trace_writer *w, uint32_t gx, uint32_t gy, uint16_t cx, uint16_t cy, uint16_t gpu_cga,
                      uint8_t mode, uint8_t reserved)
{
    w_kernel(w);
    gd_aql_dispatch a = pkt(1, 256, gx, 0);
    a.setup = 2;
    a.grid_size[1] = gy;
    uint8_t p[136];
    memset(p, 0, sizeof p);
    gd_put64(p + 8, 10);
    gd_aql_encode(p + 16, &a);
    memset(p + 80, 0xff, 40);  /* launch info and wait-until unknown */
    gd_put16(p + 120, cx);
    gd_put16(p + 122, cy);
    gd_put16(p + 124, 1);
    gd_put16(p + 126, gpu_cga);
    p[128] = mode;
    p[129] = reserved;
    gd_trace_write_raw(w, GD_REC_DISPATCH, p, sizeof p, NULL);
}
static void b_cluster_zero(gd_trace_writer *w) { w_cluster(w, 8, 2, 0, 1, 1, 0, 0); }
static void b_cluster_multiple(gd_trace_writer *w) { w_cluster(w, 8, 3, 2, 2, 1, 0, 0); }
static void b_cluster_mode(gd_trace_writer *w) { w_cluster(w, 8, 2, 2, 1, 1, 2, 0); }
static void b_cluster_gpu_cga(gd_trace_writer *w) { w_cluster(w, 8, 2, 2, 1, 3, 0, 0); }
static void b_cluster_gpu_cga0(gd_trace_writer *w) { w_cluster(w, 8, 2, 2, 1, 0, 0, 0); }
static void b_cluster_reserved(gd_trace_writer *w) { w_cluster(w, 8, 2, 2, 1, 1, 0, 4); }
static void b_none(gd_trace_writer *w) { w_kernel(w); }
/* A calibration record (format 1.9) from its provenance and text. */
static void w_cal(gd_trace_writer *w, const char *prov, uint32_t plen, const char *text)
{
    uint8_t p[1200];
    size_t tl = strlen(text);
    gd_put32(p, plen);
    memcpy(p + 4, prov, strlen(prov));
    memcpy(p + 4 + strlen(prov), text, tl);
    gd_trace_write_raw(w, GD_REC_CALIBRATION, p, (uint32_t)(4 + strlen(prov) + tl), NULL);
}
static void b_cal_late(gd_trace_writer *w)
{
    w_kernel(w);
    w_cal(w, "fit", 3, "pp.gap_kernel_kernel_ns = 1000\n");
}
static void b_cal_key(gd_trace_writer *w) { w_cal(w, "fit", 3, "pp.fetch_cycles = 10\n"); }
static void b_cal_value(gd_trace_writer *w) { w_cal(w, "fit", 3, "# a comment\npp.gap_copy_copy_ns = -5\n"); }
static void b_cal_twice(gd_trace_writer *w)
{
    w_cal(w, "fit", 3, "pp.gap_copy_copy_ns = 5\npp.gap_copy_copy_ns = 6\n");
}
static void b_cal_empty(gd_trace_writer *w) { w_cal(w, "fit", 3, "# nothing\n\n"); }
static void b_cal_syntax(gd_trace_writer *w) { w_cal(w, "fit", 3, "pp.gap_copy_copy_ns 5\n"); }
static void b_cal_newline(gd_trace_writer *w) { w_cal(w, "a\nb", 3, "pp.gap_copy_copy_ns = 5\n"); }
static void b_cal_plen(gd_trace_writer *w) { w_cal(w, "fit", 900, "pp.gap_copy_copy_ns = 5\n"); }
static void b_cal_utf8(gd_trace_writer *w) { w_cal(w, "f\xc3(", 3, "pp.gap_copy_copy_ns = 5\n"); }
static void b_cal_second(gd_trace_writer *w)
{
    w_cal(w, "fit", 3, "pp.gap_copy_copy_ns = 5\n");
    w_cal(w, "fit", 3, "pp.gap_copy_copy_ns = 6\n");
}

static void set_minor(const char *path, uint16_t minor);

/* The host model (format 1.10). */
#define HTREC(name) (8u + 18u + (uint32_t)sizeof(name) - 1u)
#define CALLREC (8u + 24u)
#define WAITREC (8u + 40u)
static void w_thread(gd_trace_writer *w, uint32_t id, const char *name)
{
    gd_trace_host_thread t;
    memset(&t, 0, sizeof t);
    t.thread = id;
    t.start_ns = 5;
    snprintf(t.name, sizeof t.name, "%s", name);
    gd_trace_write_host_thread(w, &t, NULL);
}
static void w_call(gd_trace_writer *w, uint32_t thread, uint32_t packets, uint64_t gap, uint32_t flags)
{
    gd_trace_host_call c = {thread, packets, gap, flags};
    gd_trace_write_host_call(w, &c, NULL);
}
static void w_wait(gd_trace_writer *w, uint32_t thread, uint32_t kind, uint64_t target, uint64_t time_ns,
                   uint32_t flags)
{
    gd_trace_host_wait h;
    memset(&h, 0, sizeof h);
    h.thread = thread;
    h.kind = kind;
    h.flags = flags;
    h.target = target;
    h.time_ns = time_ns;
    h.gap_ns = 3;
    h.tail_ns = 4;
    gd_trace_write_host_wait(w, &h, NULL);
}
static void w_disp(gd_trace_writer *w, uint32_t queue, uint64_t submit)
{
    gd_aql_dispatch p = pkt(1, 256, 1, 0);
    gd_trace_write_dispatch(w, queue, submit, &p, NULL, NULL);
}
/* thread "main" (record 1), the kernel (2), a call (3) and its dispatch at 100 ns (4) */
static void w_host_start(gd_trace_writer *w, uint32_t call_flags)
{
    w_thread(w, 0, "main");
    w_kernel(w);
    w_call(w, 0, 1, 10, call_flags);
    w_disp(w, 0, 100);
}
#define HOST4 (REC1 + HTREC("main") + KREC + CALLREC + DREC)  /* offset of record 5 after w_host_start */
static void b_host_undeclared(gd_trace_writer *w)
{
    w_kernel(w);
    w_call(w, 3, 1, 0, 0);
}
static void b_host_thread_late(gd_trace_writer *w)
{
    w_kernel(w);
    w_disp(w, 0, 100);
    w_thread(w, 0, "t");
}
static void b_host_thread_twice(gd_trace_writer *w)
{
    w_thread(w, 0, "main");
    w_thread(w, 0, "main");
}
static void b_host_thread_id(gd_trace_writer *w) { w_thread(w, 5000, "t"); }
static void b_host_unowned(gd_trace_writer *w)
{
    w_host_start(w, 0);
    w_disp(w, 0, 200);
}
static void b_host_cut_by_wait(gd_trace_writer *w)
{
    w_thread(w, 0, "main");
    w_kernel(w);
    w_call(w, 0, 2, 10, 0);
    w_disp(w, 0, 100);
    w_wait(w, 0, GD_WAIT_DEVICE, 0, 150, 0);
}
static void b_host_cut_by_end(gd_trace_writer *w)
{
    w_thread(w, 0, "main");
    w_kernel(w);
    w_call(w, 0, 2, 10, 0);
    w_disp(w, 0, 100);
}
static void b_host_after_last(gd_trace_writer *w)
{
    w_host_start(w, GD_HOST_LAST);
    w_call(w, 0, 1, 10, 0);
}
static void b_host_wait_signal(gd_trace_writer *w)
{
    w_host_start(w, 0);
    w_wait(w, 0, GD_WAIT_SIGNAL, 0x99, 150, 0);
}
static void b_host_wait_kind(gd_trace_writer *w)
{
    w_host_start(w, 0);
    w_wait(w, 0, 9, 0, 150, 0);
}
static void b_host_wait_queue(gd_trace_writer *w)
{
    w_host_start(w, 0);
    w_wait(w, 0, GD_WAIT_QUEUE, 1024, 150, 0);
}
static void b_host_wait_device(gd_trace_writer *w)
{
    w_host_start(w, 0);
    w_wait(w, 0, GD_WAIT_DEVICE, 1, 150, 0);
}
static void b_host_wait_flags(gd_trace_writer *w)
{
    w_host_start(w, 0);
    w_wait(w, 0, GD_WAIT_DEVICE, 0, 150, 4);
}
static void b_host_wait_early(gd_trace_writer *w)
{
    w_host_start(w, 0);
    w_wait(w, 0, GD_WAIT_QUEUE, 0, 50, 0);
}
static void b_host_packet_early(gd_trace_writer *w)
{
    w_host_start(w, 0);
    w_wait(w, 0, GD_WAIT_QUEUE, 0, 200, 0);
    w_call(w, 0, 1, 10, 0);
    w_disp(w, 0, 150);
}
static void b_host_wait_first(gd_trace_writer *w)
{
    w_thread(w, 0, "main");
    w_wait(w, 0, GD_WAIT_DEVICE, 0, 150, 0);
}
static void b_host_call_zero(gd_trace_writer *w)
{
    w_thread(w, 0, "main");
    w_call(w, 0, 0, 10, 0);
}
static void b_host_call_gap(gd_trace_writer *w)
{
    w_thread(w, 0, "main");
    w_call(w, 0, 1, (uint64_t)1 << 62, 0);
}
static void b_host_call_flags(gd_trace_writer *w)
{
    w_thread(w, 0, "main");
    w_call(w, 0, 1, 10, 2);
}
#define CALREC(text) (8u + 4u + 3u + (uint32_t)sizeof(text) - 1u)
struct corrupt_case {
    const char *name;
    body_fn body;
    int finish;
    uint64_t record, offset;
    const char *what;
};

static const struct corrupt_case CASES[] = {
    {"calibration after another record", b_cal_late, 1, 2, REC1 + KREC,
     "a calibration record must directly follow the header (record 1)"},
    {"calibration: not a gap key", b_cal_key, 1, 1, REC1, "line 1: 'pp.fetch_cycles' is not a launch timing key"},
    {"calibration: bad value", b_cal_value, 1, 1, REC1, "line 2: bad value '-5' for pp.gap_copy_copy_ns"},
    {"calibration: a key twice", b_cal_twice, 1, 1, REC1, "line 2: pp.gap_copy_copy_ns is set twice"},
    {"calibration: no settings", b_cal_empty, 1, 1, REC1, "no KEY = VALUE settings"},
    {"calibration: syntax", b_cal_syntax, 1, 1, REC1, "line 1: expected KEY = VALUE"},
    {"calibration: provenance line break", b_cal_newline, 1, 1, REC1, "the provenance holds a line break at byte 1"},
    {"calibration: provenance length", b_cal_plen, 1, 1, REC1, "provenance length 900"},
    {"calibration: provenance UTF-8", b_cal_utf8, 1, 1, REC1, "the provenance is not valid UTF-8"},
    {"calibration: a second one", b_cal_second, 1, 2, REC1 + CALREC("pp.gap_copy_copy_ns = 5\n"),
     "and a trace has at most one"},
    {"unknown type", b_unknown_type, 1, 1, REC1, "unknown record type 99"},
    {"reserved type", b_reserved_type, 1, 1, REC1, "(multi-tenant command) is reserved"},
    {"dependency on an unknown signal", b_unknown_dep, 1, 3, REC1 + KREC + DREC,
     "barrier-AND packet: dep_signal[0] 0x78 is not the completion signal of any earlier packet"},
    {"dependency on itself", b_self_dep, 1, 3, REC1 + KREC + DREC, "is its own completion signal"},
    {"barrier-OR without dependencies", b_or_no_deps, 1, 3, REC1 + KREC + DREC,
     "barrier-OR packet without a dependency signal would never complete"},
    {"barrier record vs AQL type", b_barrier_type, 1, 3, REC1 + KREC + DREC,
     "barrier-AND packet: header packet type is 5, expected 3"},
    {"barrier with a CTA time", b_barrier_cta_time, 1, 3, REC1 + KREC + DREC, "a barrier runs no CTAs"},
    {"command kind", b_command_kind, 1, 1, REC1, "non-kernel command: unknown kind 7"},
    {"command flags", b_command_flags, 1, 2, REC1 + 8 + 72, "flags 0x00000004 (bit 0 barrier and bit 1 graph-launched"},
    {"programmatic without the barrier bit", b_programmatic_no_barrier, 1, 2, REC1 + KREC,
     "programmatic dependent launch (flags bit 2) without the barrier bit"},
    {"dispatch flags", b_dispatch_flags, 1, 2, REC1 + KREC, "dispatch record: reserved"},
    {"missing descriptor", b_missing_desc, 1, 2, REC1 + KREC, "kernel_object 9 names no kernel descriptor"},
    {"zero grid", b_zero_grid, 1, 2, REC1 + KREC, "grid_size_y is 0"},
    {"oversized grid", b_big_grid, 1, 2, REC1 + KREC, "70000 CTAs along y exceed the device's grid limit of 65535"},
    {"oversized block", b_big_block, 1, 2, REC1 + KREC, "2048 work-items exceeds the device's limit of 1024"},
    {"block vs descriptor", b_block_mismatch, 1, 2, REC1 + KREC, "described with 256 threads per CTA"},
    {"too many registers", b_regs, 1, 1, REC1, "300 registers per thread (the device allows at most 255)"},
    {"shared memory beyond device", b_smem, 1, 1, REC1, "exceed the device's opt-in limit of 232448"},
    {"no CTA fits", b_nofit, 1, 1, REC1, "no CTA fits in an SM (limited by registers)"},
    {"group segment vs descriptor", b_smem_mismatch, 1, 2, REC1 + KREC, "group_segment_size 512"},
    {"submit order", b_order, 1, 3, REC1 + KREC + DREC, "earlier than the previous packet's 100 ns"},
    {"duplicate descriptor", b_dup, 1, 2, REC1 + KREC, "already defined (record 1)"},
    {"reference packet", b_reserved0, 1, 2, REC1 + KREC, "reserved0 is 3"},
    {"packet type", b_type, 1, 2, REC1 + KREC, "packet type is 3"},
    {"queue id", b_queue, 1, 2, REC1 + KREC, "queue 5000"},
    {"no CTA duration", b_no_duration, 1, 2, REC1 + KREC, "gives no CTA duration"},
    {"short record", b_short_kernel, 1, 1, REC1, "shorter than its fixed part"},
    {"end counts", b_bad_end, 1, 2, REC1 + KREC, "records are missing or extra"},
    {"data after end", b_after_end, 0, 3, REC1 + KREC + 8 + 16, "data after the end record"},
    {"no end record", b_none, 0, 2, REC1 + KREC, "ends without an end record"},
    {"cluster dimension 0", b_cluster_zero, 1, 2, REC1 + KREC, "dispatch cluster shape: cluster_x is 0"},
    {"cluster vs grid", b_cluster_multiple, 1, 2, REC1 + KREC,
     "the grid's 3 CTAs along y are not a multiple of the cluster's 2"},
    {"cluster mode", b_cluster_mode, 1, 2, REC1 + KREC, "mode 2 is neither 0 (load_balance) nor 1 (multicast)"},
    {"GPU-CGA vs grid", b_cluster_gpu_cga, 1, 2, REC1 + KREC,
     "the grid's 8 GPC-CGAs are not a multiple of 3 GPC-CGAs per GPU-CGA"},
    {"GPU-CGA of 0", b_cluster_gpu_cga0, 1, 2, REC1 + KREC, "GPC-CGAs per GPU-CGA is 0"},
    {"cluster reserved", b_cluster_reserved, 1, 2, REC1 + KREC, "reserved byte 9 is not zero"},
    {"host call of an undeclared thread", b_host_undeclared, 1, 2, REC1 + KREC,
     "host call for host thread 3, which no host thread record declared"},
    {"host thread after a packet", b_host_thread_late, 1, 3, REC1 + KREC + DREC,
     "host thread record after the first packet record"},
    {"host thread twice", b_host_thread_twice, 1, 2, REC1 + HTREC("main"), "host thread 0 is declared twice"},
    {"host thread id", b_host_thread_id, 1, 1, REC1, "host thread 5000 (host threads are numbered 0 to 4095)"},
    {"packet without a host call", b_host_unowned, 1, 5, HOST4, "a packet that no host call submits"},
    {"host call cut by a wait", b_host_cut_by_wait, 1, 5, HOST4,
     "host wait record between host call record 3 and its packets (1 more packet record(s) must come first)"},
    {"host call cut by the end", b_host_cut_by_end, 1, 5, HOST4,
     "the trace ends 1 packet record(s) short of what host call record 3 submits"},
    {"host record after the last", b_host_after_last, 1, 5, HOST4,
     "host call for host thread 0 after the record marked its last"},
    {"host wait for an unknown signal", b_host_wait_signal, 1, 5, HOST4,
     "host wait for signal 0x99, which is not the completion signal of any earlier packet"},
    {"host wait kind", b_host_wait_kind, 1, 5, HOST4, "host wait: unknown kind 9 (1 signal, 2 queue, 3 device)"},
    {"host wait queue", b_host_wait_queue, 1, 5, HOST4, "host wait for queue 1024 (queues are numbered 0 to 1023)"},
    {"host wait device target", b_host_wait_device, 1, 5, HOST4, "host wait for the device: target 1 is not 0"},
    {"host wait flags", b_host_wait_flags, 1, 5, HOST4, "host wait: flags 0x0004"},
    {"host wait before its packet", b_host_wait_early, 1, 5, HOST4,
     "its start, 50 ns, is earlier than the previous packet's submit time, 100 ns"},
    {"packet before a host wait", b_host_packet_early, 1, 7, HOST4 + WAITREC + CALLREC,
     "submit time 150 ns is earlier than the previous host wait's start, 200 ns"},
    {"host wait before any packet", b_host_wait_first, 1, 2, REC1 + HTREC("main"),
     "host wait before the first packet record: nothing to wait for"},
    {"host call of no packet", b_host_call_zero, 1, 2, REC1 + HTREC("main"),
     "host call of thread 0 submits 0 packets (1 to 65535)"},
    {"host call gap", b_host_call_gap, 1, 2, REC1 + HTREC("main"), "host call: gap of 4611686018427387904 ns is past"},
    {"host call flags", b_host_call_flags, 1, 2, REC1 + HTREC("main"), "host call: flags 0x00000002"},
};

/* Format 1.9: a calibration record and graph-launched packets are read back as
 * written, and gdsim condense keeps both (a graph-launched dispatch stays plain); 1.11:
 * the programmatic flag likewise; 1.12: the calibration's idle launch latency. */
START_TEST(calibration_and_graph_round_trip)
{
    char *path = tb_tmp_path(".gdt.gz");
    gd_trace_writer *w = start(path);
    gd_trace_calibration cal;
    memset(&cal, 0, sizeof cal);
    snprintf(cal.provenance, sizeof cal.provenance, "fit of x.json.gz, device 0");
    cal.n = 3;
    snprintf(cal.key[0], sizeof cal.key[0], "pp.gap_kernel_kernel_ns");
    snprintf(cal.value[0], sizeof cal.value[0], "1121");
    snprintf(cal.key[1], sizeof cal.key[1], "pp.gap_after_wait_ns");
    snprintf(cal.value[1], sizeof cal.value[1], "0");
    snprintf(cal.key[2], sizeof cal.key[2], "pp.idle_launch_ns");  /* format 1.12 */
    snprintf(cal.value[2], sizeof cal.value[2], "1472");
    ck_assert_int_eq(gd_trace_write_calibration(w, &cal, NULL), GD_OK);
    ck_assert_int_ne(gd_trace_write_calibration(w, &cal, NULL), GD_OK);  /* only right after the header */
    w_kernel(w);
    for (int i = 0; i < 4; i++) {
        gd_trace_dispatch d;
        memset(&d, 0, sizeof d);
        d.submit_ns = 10 + (uint64_t)i;
        d.pkt = pkt(1, 256, 4, 0);
        d.info = gd_launch_info_unknown();
        d.cluster = gd_cluster_none();
        d.graph = i == 0 || i == 2;
        d.programmatic = i == 3;  /* format 1.11 */
        ck_assert_int_eq(gd_trace_write_dispatch_rec(w, &d, NULL), GD_OK);
    }
    gd_trace_command c = command(GD_CMD_MEMSET, 20);
    c.graph = 1;
    ck_assert_int_eq(gd_trace_write_command(w, &c, NULL), GD_OK);
    ck_assert_int_eq(gd_trace_finish(w, NULL), GD_OK);
    char *out = tb_tmp_path(".gdt.gz");
    gd_condense_opts o = {8, 1000000, 0};
    gd_condense_stats st;
    gd_err err;
    ck_assert_msg(gd_condense_trace(path, out, &o, &st, &err) == GD_OK, "%s", err.msg);
    for (int pass = 0; pass < 2; pass++) {
        gd_trace_reader *r;
        ck_assert_int_eq(gd_trace_open(&r, pass ? out : path, &err), GD_OK);
        const gd_trace_calibration *got = gd_trace_calibration_of(r);
        ck_assert_ptr_nonnull(got);
        ck_assert_str_eq(got->provenance, "fit of x.json.gz, device 0");
        ck_assert_uint_eq(got->n, 3);
        ck_assert_str_eq(got->key[1], "pp.gap_after_wait_ns");
        ck_assert_str_eq(got->value[0], "1121");
        ck_assert_str_eq(got->key[2], "pp.idle_launch_ns");
        ck_assert_str_eq(got->value[2], "1472");
        gd_trace_record rec;
        int graphs = 0, commands = 0, programmatic = 0, rc;
        while ((rc = gd_trace_next(r, &rec, &err)) == 1) {
            if (rec.type == GD_REC_DISPATCH) {
                graphs += rec.dispatch.graph;
                programmatic += rec.dispatch.programmatic;
            }
            if (rec.type == GD_REC_NONKERNEL)
                commands += rec.command.graph;
        }
        ck_assert_msg(rc == 0, "%s", err.msg);
        ck_assert_int_eq(graphs, 2);  /* condensed: the two graph-launched dispatches stayed plain */
        ck_assert_int_eq(programmatic, 1);  /* and so did the programmatic one */
        ck_assert_int_eq(commands, 1);
        gd_trace_close_reader(r);
    }
    ck_assert_uint_eq(st.plain, 3);
    /* the idle launch latency is a 1.12 key: a 1.11 file may not set it */
    set_minor(path, 11);
    expect_error(path, GD_EFORMAT, 1, REC1, "calibration record, line 3: pp.idle_launch_ns needs format 1.12 (the file "
                 "is 1.11)");
    remove(out);
    free(out);
    remove(path);
    free(path);
}
END_TEST


/* Format 1.10: host threads, calls and waits read back as written; gdsim condense keeps
 * them, a condensed packet merging consecutive one-packet calls of one thread (its call
 * carrying their gaps added up), a call of several packets kept with its packets plain. */
START_TEST(host_round_trip)
{
    char *path = tb_tmp_path(".gdt.gz");
    gd_trace_writer *w = start(path);
    w_thread(w, 0, "main");
    w_thread(w, 1, "loader \x01");
    w_kernel(w);
    w_call(w, 0, 1, 10, 0);
    w_disp(w, 0, 100);
    w_call(w, 0, 1, 20, 0);
    w_disp(w, 0, 120);
    w_call(w, 0, 1, 30, 0);
    w_disp(w, 0, 150);
    w_call(w, 1, 1, 40, 0);
    w_disp(w, 1, 160);
    w_wait(w, 0, GD_WAIT_SIGNAL, 7, 170, GD_HOST_LAST | GD_HOST_POLLING);
    w_call(w, 1, 2, 5, GD_HOST_LAST);
    gd_aql_barrier_pkt b = barrier_pkt(GD_AQL_TYPE_BARRIER_AND, 7, 0);
    ck_assert_int_eq(gd_trace_write_barrier(w, GD_REC_BARRIER_AND, 1, 180, &b, NULL, NULL), GD_OK);
    w_disp(w, 1, 180);
    ck_assert_int_eq(gd_trace_finish(w, NULL), GD_OK);
    gd_err err;
    gd_trace_reader *r;
    gd_trace_record rec;
    ck_assert_int_eq(gd_trace_open(&r, path, &err), GD_OK);
    static const unsigned types[] = {GD_REC_HOST_THREAD, GD_REC_HOST_THREAD, GD_REC_KERNEL, GD_REC_HOST_CALL,
                                     GD_REC_DISPATCH, GD_REC_HOST_CALL, GD_REC_DISPATCH, GD_REC_HOST_CALL,
                                     GD_REC_DISPATCH, GD_REC_HOST_CALL, GD_REC_DISPATCH, GD_REC_HOST_WAIT,
                                     GD_REC_HOST_CALL, GD_REC_BARRIER_AND, GD_REC_DISPATCH};
    for (unsigned i = 0; i < sizeof types / sizeof types[0]; i++) {
        ck_assert_msg(gd_trace_next(r, &rec, &err) == 1, "record %u: %s", i + 1, err.msg);
        ck_assert_uint_eq(rec.type, types[i]);
        if (i == 1) {
            ck_assert_uint_eq(rec.host_thread.thread, 1);
            ck_assert_uint_eq(rec.host_thread.start_ns, 5);
            ck_assert_str_eq(rec.host_thread.name, "loader ?");
        }
        if (i == 7) {
            ck_assert_uint_eq(rec.host_call.thread, 0);
            ck_assert_uint_eq(rec.host_call.packets, 1);
            ck_assert_uint_eq(rec.host_call.gap_ns, 30);
            ck_assert_uint_eq(rec.host_call.flags, 0);
        }
        if (i == 11) {
            const gd_trace_host_wait *h = &rec.host_wait;
            ck_assert_uint_eq(h->thread, 0);
            ck_assert_uint_eq(h->kind, GD_WAIT_SIGNAL);
            ck_assert_uint_eq(h->flags, GD_HOST_LAST | GD_HOST_POLLING);
            ck_assert_uint_eq(h->target, 7);
            ck_assert_uint_eq(h->signal, 0);  /* the first (and only) completion-signal handle */
            ck_assert_uint_eq(h->time_ns, 170);
            ck_assert_uint_eq(h->gap_ns, 3);
            ck_assert_uint_eq(h->tail_ns, 4);
        }
        if (i == 12) {
            ck_assert_uint_eq(rec.host_call.packets, 2);
            ck_assert_uint_eq(rec.host_call.flags, GD_HOST_LAST);
        }
    }
    ck_assert_msg(gd_trace_next(r, &rec, &err) == 0, "%s", err.msg);
    ck_assert_uint_eq(gd_trace_host_threads(r), 2);
    ck_assert_uint_eq(gd_trace_packets_read(r), 6);
    gd_trace_close_reader(r);

    char *out = tb_tmp_path(".gdt.gz");
    gd_condense_opts o = {8, 1000000, 0};
    gd_condense_stats st;
    ck_assert_msg(gd_condense_trace(path, out, &o, &st, &err) == GD_OK, "%s", err.msg);
    ck_assert_int_eq(gd_trace_open(&r, out, &err), GD_OK);
    static const unsigned ctypes[] = {GD_REC_HOST_THREAD, GD_REC_HOST_THREAD, GD_REC_KERNEL, GD_REC_HOST_CALL,
                                      GD_REC_DISPATCH, GD_REC_HOST_CALL, GD_REC_CONDENSED, GD_REC_HOST_CALL,
                                      GD_REC_CONDENSED, GD_REC_HOST_WAIT, GD_REC_HOST_CALL, GD_REC_BARRIER_AND,
                                      GD_REC_DISPATCH};
    static const uint64_t gaps[] = {0, 0, 0, 10, 0, 50, 0, 40, 0, 0, 5, 0, 0};
    static const uint32_t threads[] = {0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 1, 0, 0};
    for (unsigned i = 0; i < sizeof ctypes / sizeof ctypes[0]; i++) {
        ck_assert_msg(gd_trace_next(r, &rec, &err) == 1, "condensed, record %u: %s", i + 1, err.msg);
        ck_assert_msg(rec.type == ctypes[i], "condensed, record %u: type %u, expected %u", i + 1, rec.type, ctypes[i]);
        if (rec.type == GD_REC_HOST_CALL) {
            ck_assert_uint_eq(rec.host_call.gap_ns, gaps[i]);
            ck_assert_uint_eq(rec.host_call.thread, threads[i]);
        }
        if (i == 6)
            ck_assert_uint_eq(rec.condensed.n, 2);
    }
    ck_assert_msg(gd_trace_next(r, &rec, &err) == 0, "%s", err.msg);
    gd_trace_close_reader(r);
    ck_assert_uint_eq(st.condensed_kernels, 3);
    ck_assert_uint_eq(st.plain, 1);

    /* a 1.9 trace holds none of them */
    set_minor(path, 9);
    expect_error(path, GD_EFORMAT, 1, REC1, "record type 11 (host thread) in a version 1.9 trace (needs format 1.10)");
    remove(out);
    free(out);
    remove(path);
    free(path);
}
END_TEST

START_TEST(corrupt)
{
    const struct corrupt_case *c = &CASES[_i];
    char *path = make(c->body, c->finish);
    expect_error(path, GD_EFORMAT, c->record, c->offset, c->what);
    remove(path);
    free(path);
}
END_TEST

/* A raw (uncompressed) file with given bytes, through gzip. */
static char *raw_file(const void *bytes, size_t n)
{
    char *path = tb_tmp_path(".gdt.gz");
    gzFile f = gzopen(path, "wb");
    gzwrite(f, bytes, (unsigned)n);
    gzclose(f);
    return path;
}

/* The uncompressed stream of a trace with only a kernel record, cut after `keep`
 * bytes, with `extra` appended, compressed again. */
static char *edited_stream(size_t keep, const void *extra, size_t extra_len)
{
    char *path = make(b_none, 1);
    gzFile in = gzopen(path, "rb");
    char buf[4096];
    int n = gzread(in, buf, sizeof buf);
    gzclose(in);
    ck_assert_int_gt(n, (int)keep);
    gzFile out = gzopen(path, "wb");
    gzwrite(out, buf, (unsigned)keep);
    if (extra_len)
        gzwrite(out, extra, (unsigned)extra_len);
    gzclose(out);
    return path;
}

/* A frame announcing 1000 bytes followed by only 10. */
START_TEST(length_past_end)
{
    uint8_t bytes[18];
    gd_put16(bytes, GD_REC_KERNEL);
    gd_put16(bytes + 2, 0);
    gd_put32(bytes + 4, 1000);
    memset(bytes + 8, 0, 10);
    char *path = edited_stream(REC1, bytes, sizeof bytes);
    expect_error(path, GD_EFORMAT, 1, REC1, "the file ends inside a record (10 of 1000 bytes present)");
    remove(path);
    free(path);
}
END_TEST

/* The stream ends in the middle of a frame header. */
START_TEST(cut_inside_frame)
{
    char *path = edited_stream(REC1 + 5, NULL, 0);
    expect_error(path, GD_EFORMAT, 1, REC1, "the file ends inside a record (5 of 8 bytes present)");
    remove(path);
    free(path);
}
END_TEST

START_TEST(bad_magic)
{
    char *path = raw_file("hello, this is not a trace at all", 33);
    expect_error(path, GD_EFORMAT, 0, 0, "bad magic");
    remove(path);
    free(path);
}
END_TEST

/* Rewrite the minor version in a trace's file header (to test older versions). */
static void set_minor(const char *path, uint16_t minor)
{
    gzFile in = gzopen(path, "rb");
    char buf[8192];
    int n = gzread(in, buf, sizeof buf);
    gzclose(in);
    gd_put16((uint8_t *)buf + 10, minor);
    gzFile out = gzopen(path, "wb");
    gzwrite(out, buf, (unsigned)n);
    gzclose(out);
}

/* A 1.0 trace cannot hold 1.1 records. */
START_TEST(version_1_0_limits)
{
    char *path = tb_tmp_path(".gdt.gz");
    gd_trace_writer *w = start(path);
    w_kernel(w);
    gd_aql_dispatch p = pkt(1, 256, 1, 0);
    gd_launch_info info = gd_launch_info_unknown();
    gd_trace_write_dispatch(w, 0, 1, &p, &info, NULL);
    gd_trace_finish(w, NULL);
    set_minor(path, 0);
    expect_error(path, GD_EFORMAT, 2, REC1 + KREC, "launch info in a version 1.0 trace");
    remove(path);
    free(path);
}
END_TEST

/* A 1.1 trace cannot hold 1.2 records. */
START_TEST(version_1_1_limits)
{
    char *path = tb_tmp_path(".gdt.gz");
    gd_trace_writer *w = start(path);
    gd_trace_command c = command(GD_CMD_MEMSET, 1);
    gd_trace_write_command(w, &c, NULL);
    gd_trace_finish(w, NULL);
    set_minor(path, 1);
    expect_error(path, GD_EFORMAT, 1, REC1, "record type 8 (non-kernel command) in a version 1.1 trace (needs format 1.2)");
    remove(path);
    free(path);
}
END_TEST

/* A 1.2 trace cannot hold a dispatch's wait-until time (1.3), and only dispatches
 * have one. */
START_TEST(version_1_2_limits)
{
    char *path = tb_tmp_path(".gdt.gz");
    gd_trace_writer *w = start(path);
    gd_err err;
    gd_kernel_desc k = kdesc(1, "k", 256, 32, 0);
    gd_trace_write_kernel(w, &k, NULL);
    gd_aql_dispatch a = pkt(1, 256, 10, 0);
    gd_launch_info info = gd_launch_info_unknown();
    info.wait_until_ns = 5000;
    gd_trace_write_dispatch(w, 0, 100, &a, &info, NULL);
    gd_trace_command c = command(GD_CMD_MEMSET, 1);
    c.info.wait_until_ns = 5000;
    ck_assert_int_eq(gd_trace_write_command(w, &c, &err), GD_EINVAL);
    ck_assert_str_eq(err.msg, "a non-kernel command's launch info cannot give a wait-until time (dispatches only)");
    gd_aql_barrier_pkt bp = barrier_pkt(GD_AQL_TYPE_BARRIER_AND, 0x77, 0);
    ck_assert_int_eq(gd_trace_write_barrier(w, GD_REC_BARRIER_AND, 0, 200, &bp, &info, &err), GD_EINVAL);
    gd_trace_finish(w, NULL);
    set_minor(path, 2);
    expect_error(path, GD_EFORMAT, 2, REC1 + KREC, "dispatch record with a wait-until time in a version 1.2 trace (needs 1.3)");
    remove(path);
    free(path);
}
END_TEST

/* Format 1.4: a dispatch's cluster shape round-trips; a 1.3 trace cannot hold one. */
START_TEST(cluster_round_trip)
{
    char *path = tb_tmp_path(".gdt.gz");
    gd_trace_writer *w = start(path);
    gd_err err;
    w_kernel(w);
    gd_aql_dispatch a = pkt(1, 256, 12, 0);
    gd_cluster c = {{4, 1, 1}, 3, GD_CGA_MULTICAST};
    ck_assert_int_eq(gd_trace_write_dispatch_cluster(w, 0, 100, &a, NULL, &c, &err), GD_OK);
    gd_launch_info info = gd_launch_info_unknown();
    info.source_id = 77;
    ck_assert_int_eq(gd_trace_write_dispatch(w, 0, 200, &a, &info, &err), GD_OK);
    ck_assert_int_eq(gd_trace_finish(w, &err), GD_OK);
    gd_trace_reader *r;
    gd_trace_record rec;
    ck_assert_int_eq(gd_trace_open(&r, path, &err), GD_OK);
    ck_assert_int_eq(gd_trace_next(r, &rec, &err), 1);
    ck_assert_int_eq(gd_trace_next(r, &rec, &err), 1);
    ck_assert_uint_eq(rec.dispatch.cluster.dim[0], 4);
    ck_assert_uint_eq(rec.dispatch.cluster.dim[1], 1);
    ck_assert_uint_eq(rec.dispatch.cluster.gpu_cga, 3);
    ck_assert_uint_eq(rec.dispatch.cluster.mode, GD_CGA_MULTICAST);
    ck_assert_uint_eq(rec.dispatch.info.source_id, GD_UNKNOWN);
    ck_assert_uint_eq(rec.dispatch.info.wait_until_ns, GD_UNKNOWN);
    ck_assert(gd_cluster_is_cga(&rec.dispatch.cluster));
    ck_assert_int_eq(gd_trace_next(r, &rec, &err), 1);
    gd_cluster none = gd_cluster_none();
    ck_assert(gd_cluster_equal(&rec.dispatch.cluster, &none));
    ck_assert(!gd_cluster_is_cga(&none));
    ck_assert_int_eq(gd_trace_next(r, &rec, &err), 0);
    gd_trace_close_reader(r);
    set_minor(path, 3);
    expect_error(path, GD_EFORMAT, 2, REC1 + KREC, "dispatch record with a cluster shape in a version 1.3 trace "
                                                   "(needs 1.4)");
    remove(path);
    free(path);
}
END_TEST

/* With the modelled GPU's cluster limits set, a cluster that could never launch, even
 * on the idle GPU, is an error naming the kernel and the reason (an H100-like layout:
 * GPCs of 18, 18, 16 x 6 SMs; kernel "k": 256 threads x 32 registers, 8 per SM). */
static int read_clusters(const char *path, gd_err *err, uint32_t gpc_cgas_per_sm, uint32_t ids)
{
    static const uint32_t sms[8] = {18, 18, 16, 16, 16, 16, 16, 16};
    gd_cluster_limits cl = {8, sms, 2, gpc_cgas_per_sm, ids, 8};
    gd_trace_reader *r;
    int rc = gd_trace_open(&r, path, err);
    if (rc)
        return rc;
    gd_trace_set_cluster_limits(r, &cl);
    gd_trace_record rec;
    while ((rc = gd_trace_next(r, &rec, err)) == 1)
        ;
    gd_trace_close_reader(r);
    return rc;
}

static char *cluster_trace(uint32_t grid, uint16_t cx, uint16_t gpu_cga, uint8_t mode)
{
    char *path = tb_tmp_path(".gdt.gz");
    gd_trace_writer *w = start(path);
    w_kernel(w);
    gd_aql_dispatch a = pkt(1, 256, grid, 0);
    gd_cluster c = {{cx, 1, 1}, gpu_cga, mode};
    ck_assert_int_eq(gd_trace_write_dispatch_cluster(w, 0, 100, &a, NULL, &c, NULL), GD_OK);
    ck_assert_int_eq(gd_trace_finish(w, NULL), GD_OK);
    return path;
}

START_TEST(cluster_never_fits)
{
    static const struct {
        uint32_t grid;
        uint16_t cx, gpu_cga;
        uint8_t mode;
        uint32_t per_sm, ids;
        const char *what;  /* NULL: it fits */
    } cases[] = {
        {36, 18, 1, GD_CGA_MULTICAST, 32, 256, NULL},
        {38, 19, 1, GD_CGA_MULTICAST, 32, 256,
         "can never launch on this GPU: a multicast cluster of 19 CTAs needs 19 SMs of one GPC (one CTA of a CGA "
         "per SM), and the largest GPC has 18"},
        {144, 144, 1, GD_CGA_LOAD_BALANCE, 32, 256, NULL},
        {145, 145, 1, GD_CGA_LOAD_BALANCE, 32, 256,
         "a cluster of 145 CTAs must fit one GPC, and the largest GPC (18 SMs) holds 144 CTAs of this kernel "
         "(8 per SM)"},
        /* 8 GPC-CGAs of 128 CTAs: one per GPC (each holds at least 128) */
        {1024, 128, 8, GD_CGA_LOAD_BALANCE, 32, 256, NULL},
        /* 9: a ninth finds no room (the 18-SM GPCs hold 144, not 256) */
        {1152, 128, 9, GD_CGA_LOAD_BALANCE, 32, 256,
         "a GPU-CGA of 9 GPC-CGAs of 128 CTAs does not fit the idle GPU at once"},
        /* one GPC-CGA per SM-count: 16-SM GPCs hold 16 of 2 CTAs with cwd.gpc_cgas_per_sm 1 */
        {2, 2, 1, GD_CGA_LOAD_BALANCE, 1, 256, NULL},
        {264, 2, 132, GD_CGA_LOAD_BALANCE, 1, 256, NULL},
        {266, 2, 133, GD_CGA_LOAD_BALANCE, 1, 256, "a GPU-CGA of 133 GPC-CGAs of 2 CTAs does not fit"},
        /* 2 CGA ids per GPC: 16 GPC-CGAs at once */
        {32, 2, 16, GD_CGA_LOAD_BALANCE, 32, 2, NULL},
        {34, 2, 17, GD_CGA_LOAD_BALANCE, 32, 2, "a GPU-CGA of 17 GPC-CGAs of 2 CTAs does not fit"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char *path = cluster_trace(cases[i].grid, cases[i].cx, cases[i].gpu_cga, cases[i].mode);
        gd_err err;
        gd_err_clear(&err);
        int rc = read_clusters(path, &err, cases[i].per_sm, cases[i].ids);
        if (!cases[i].what) {
            ck_assert_msg(rc == 0, "case %zu: %s", i, err.msg);
        } else {
            ck_assert_int_eq(rc, GD_EFORMAT);
            ck_assert_msg(strstr(err.msg, cases[i].what) && strstr(err.msg, "record 2 (offset") &&
                              strstr(err.msg, "dispatch of kernel 'k' (descriptor 1)"),
                          "case %zu: %s", i, err.msg);
        }
        remove(path);
        free(path);
    }
}
END_TEST

/* Format 1.5: a reference packet fills the reader's reference state table; a
 * condensed packet is expanded into the dispatches it launches, each checked like a
 * dispatch; errors name the packet and the kernel. */
static char *condensed_trace(int variant)
{
    char *path = tb_tmp_path(".gdt.gz");
    gd_trace_writer *w = start(path);
    gd_kernel_desc k = kdesc(1, "k", 256, 32, 0);
    gd_trace_write_kernel(w, &k, NULL);
    gd_aql_dispatch a = pkt(1, 256, 10, 0);
    a.reserved0 = variant == 2 ? 6 : 3;
    gd_launch_info info = gd_launch_info_unknown();
    info.source_id = 41;
    ck_assert_int_eq(gd_trace_write_reference(w, 0, 100, &a, &info, NULL), GD_OK);
    gd_rst t;
    gd_rst_init(&t, 8);
    gd_rst_store(&t, &a);
    gd_condensed_builder b;
    gd_condensed_begin(&b);
    gd_aql_dispatch k1 = a, k2 = a;
    k1.completion_signal = 0x99;
    k2.grid_size[0] = 256 * 20;
    ck_assert_int_eq(gd_condensed_add(&b, &t, a.reserved0, &k1), 0);
    ck_assert_int_eq(gd_condensed_add(&b, &t, a.reserved0, &k2), 0);
    if (variant == 1)
        b.pkt.diff[0] = (uint16_t)((b.pkt.diff[0] & ~7u) | 5u);  /* ref_num 5: never loaded */
    if (variant == 3) {
        gd_aql_dispatch bad = a;
        bad.workgroup_size[0] = 128;  /* no longer the descriptor's 256 threads */
        gd_condensed_begin(&b);
        ck_assert_int_eq(gd_condensed_add(&b, &t, a.reserved0, &bad), 0);
    }
    gd_launch_info infos[2];
    infos[0] = gd_launch_info_unknown();
    infos[1] = gd_launch_info_unknown();
    infos[0].source_id = 42;
    infos[1].cta_duration_ps = 7000;
    ck_assert_int_eq(gd_trace_write_condensed(w, 0, 200, &b.pkt, variant == 3 ? NULL : infos, NULL), GD_OK);
    ck_assert_int_eq(gd_trace_finish(w, NULL), GD_OK);
    return path;
}

START_TEST(condensed_round_trip)
{
    char *path = condensed_trace(0);
    gd_trace_reader *r;
    gd_trace_record rec;
    gd_err err;
    ck_assert_int_eq(gd_trace_open(&r, path, &err), GD_OK);
    ck_assert_int_eq(gd_trace_next(r, &rec, &err), 1);  /* the descriptor */
    ck_assert_int_eq(gd_trace_next(r, &rec, &err), 1);
    ck_assert_uint_eq(rec.type, GD_REC_DISPATCH);
    ck_assert_int_eq(rec.dispatch.ref_num, 3);
    ck_assert_int_eq(gd_trace_next(r, &rec, &err), 1);
    ck_assert_uint_eq(rec.type, GD_REC_CONDENSED);
    const gd_trace_condensed *c = &rec.condensed;
    ck_assert_uint_eq(c->n, 2);
    ck_assert_uint_eq(c->submit_ns, 200);
    ck_assert_int_eq(c->kernel[0].ref_num, 3);
    ck_assert_uint_eq(c->kernel[0].pkt.completion_signal, 0x99);
    ck_assert_uint_eq(c->kernel[0].info.source_id, 42);
    ck_assert_uint_eq(c->kernel[0].ctas, 10);
    ck_assert_uint_eq(c->kernel[1].ctas, 20);
    ck_assert_uint_eq(c->kernel[1].cta_ps, 7000);
    ck_assert_uint_eq(c->kernel[1].pkt.completion_signal, 7);  /* the reference's */
    ck_assert_ptr_eq(c->kernel[1].kernel, c->kernel[0].kernel);
    ck_assert_int_eq(gd_trace_next(r, &rec, &err), 0);
    ck_assert_uint_eq(gd_trace_packets_read(r), 2);
    ck_assert_uint_eq(gd_trace_dispatches_read(r), 3);
    gd_trace_close_reader(r);
    /* a smaller reference state table refuses ref_num 3 */
    ck_assert_int_eq(gd_trace_open(&r, path, &err), GD_OK);
    gd_trace_set_rsb(r, 2);
    ck_assert_int_eq(gd_trace_next(r, &rec, &err), 1);
    ck_assert_int_eq(gd_trace_next(r, &rec, &err), GD_EFORMAT);
    ck_assert_ptr_nonnull(strstr(err.msg, "dispatch packet: ref_num 3 is beyond the reference state table's 2 entries"));
    gd_trace_close_reader(r);
    /* gdsim dump shows the reference and the condensed packet's diff headers and values */
    char *out = tb_tmp_path(".txt");
    FILE *f = fopen(out, "w");
    ck_assert_int_eq(gd_trace_dump(f, path, &err), GD_OK);
    fclose(f);
    char *text = tb_slurp(out, NULL);
    ck_assert_ptr_nonnull(strstr(text, " reference ref_num 3\n"));
    ck_assert_ptr_nonnull(strstr(text, "#3 condensed queue 0 submit_ns 200: num_kernels 2; kernel 0: diff header 0x8003 "
                                       "ref_num 3 diff_vector 0x1000 completion_signal=0x0000:0x0000:0x0000:0x0099 "
                                       "-> 10x1x1 CTAs of k source_id 42; kernel 1: diff header 0x0103 ref_num 3 "
                                       "diff_vector 0x0020 grid_size_x=0x0000:0x1400 -> 20x1x1 CTAs of k cta_ps 7000\n"));
    free(text);
    remove(out);
    free(out);
    /* a 1.4 trace holds neither */
    set_minor(path, 4);
    expect_error(path, GD_EFORMAT, 2, REC1 + KREC, "dispatch record marks a reference packet in a version 1.4 trace");
    remove(path);
    free(path);
    path = condensed_trace(1);
    expect_error(path, GD_EFORMAT, 3, REC1 + KREC + DREC + 32,
                 "condensed packet: kernel 0: ref_num 5 was never loaded by a reference packet");
    remove(path);
    free(path);
    path = condensed_trace(3);
    expect_error(path, GD_EFORMAT, 3, REC1 + KREC + DREC + 32,
                 "condensed packet, kernel 0 (ref_num 3): workgroup of 128 work-items but kernel 'k'");
    remove(path);
    free(path);
}
END_TEST

START_TEST(bad_version)
{
    uint8_t fh[16];
    memcpy(fh, GD_TRACE_MAGIC, 8);
    gd_put16(fh + 8, 2);
    gd_put16(fh + 10, 0);
    gd_put32(fh + 12, 0);
    char *path = raw_file(fh, sizeof fh);
    expect_error(path, GD_EFORMAT, 0, 8, "version 2.0 is not supported");
    remove(path);
    free(path);
}
END_TEST

/* A valid trace of many dispatches, big enough that cutting or flipping its
 * compressed bytes lands inside the records. */
static char *big_trace(void)
{
    char *path = tb_tmp_path(".gdt.gz");
    gd_trace_writer *w = start(path);
    w_kernel(w);
    for (uint32_t i = 0; i < 20000; i++) {
        gd_aql_dispatch p = pkt(1, 256, 1 + (i * 7919u) % 5000, 0);
        p.kernarg_address = (uint64_t)i * 2654435761u;
        gd_trace_write_dispatch(w, i % 4, i * 3ull, &p, NULL, NULL);
    }
    ck_assert_int_eq(gd_trace_finish(w, NULL), GD_OK);
    return path;
}

START_TEST(big_trace_reads)
{
    g_read_ahead = _i;
    char *path = big_trace();
    gd_err err;
    uint64_t n = 0;
    ck_assert_int_eq(read_all(path, &err, &n), 0);
    ck_assert_uint_eq(n, 20000);
    remove(path);
    free(path);
}
END_TEST

START_TEST(truncated_gzip)
{
    g_read_ahead = _i;
    char *path = big_trace();
    size_t len = 0;
    char *bytes = tb_slurp(path, &len);
    FILE *f = fopen(path, "wb");
    fwrite(bytes, 1, len / 2, f);
    fclose(f);
    gd_err err;
    ck_assert_int_eq(read_all(path, &err, NULL), GD_EFORMAT);
    ck_assert_ptr_nonnull(strstr(err.msg, path));
    ck_assert_ptr_nonnull(strstr(err.msg, "truncated"));
    ck_assert_ptr_nonnull(strstr(err.msg, "(offset "));
    free(bytes);
    remove(path);
    free(path);
}
END_TEST

/* The gzip stream: several members read as one (gzip's own rule: `cat a.gz b.gz`),
 * anything else after the last member is an error naming where it starts. The big trace
 * (over 256 KiB inflated: the reader's buffer refills inside a member) is split in
 * three members at odd places. */
static void append_bytes(const char *path, const void *p, size_t n)
{
    FILE *f = fopen(path, "ab");
    ck_assert_ptr_nonnull(f);
    ck_assert_uint_eq(fwrite(p, 1, n, f), n);
    fclose(f);
}

START_TEST(gzip_members_and_trailing_bytes)
{
    g_read_ahead = _i;
    char *path = big_trace();
    gzFile in = gzopen(path, "rb");
    size_t cap = 4u << 20, len = 0;
    char *raw = malloc(cap);
    ck_assert_ptr_nonnull(raw);
    int k;
    while ((k = gzread(in, raw + len, (unsigned)(cap - len))) > 0)
        len += (size_t)k;
    gzclose(in);
    ck_assert_uint_gt(len, 300000);
    const size_t cut[4] = {0, 7, len / 2 + 3, len};
    for (int i = 0; i < 3; i++) {  /* "ab": gzip appends a new member */
        gzFile out = gzopen(path, i ? "ab" : "wb");
        ck_assert_int_eq(gzwrite(out, raw + cut[i], (unsigned)(cut[i + 1] - cut[i])), (int)(cut[i + 1] - cut[i]));
        ck_assert_int_eq(gzclose(out), Z_OK);
    }
    gd_err err;
    uint64_t n = 0;
    ck_assert_int_eq(read_all(path, &err, &n), 0);
    ck_assert_uint_eq(n, 20000);
    size_t size = 0;
    char *whole = tb_slurp(path, &size);
    static const struct {
        const char *tail;
        size_t n;
        const char *what;
    } T[] = {
        {"appended", 8, "8 bytes follow the gzip stream"},
        {"\0\0\0\0", 4, "4 bytes follow the gzip stream"},
        {"\x1f", 1, "1 byte follows the gzip stream"},
        {"\x1f\x8b\x08\x00\x00\x00\x00\x00\x00\x03\x4b", 11, "the gzip stream is truncated"},
    };
    char from[64];
    snprintf(from, sizeof from, "(from byte %zu of the file)", size);
    for (size_t t = 0; t < sizeof T / sizeof T[0]; t++) {
        FILE *f = fopen(path, "wb");
        ck_assert_uint_eq(fwrite(whole, 1, size, f), size);
        fclose(f);
        append_bytes(path, T[t].tail, T[t].n);
        gd_err_clear(&err);
        ck_assert_int_eq(read_all(path, &err, NULL), GD_EFORMAT);
        ck_assert_msg(strstr(err.msg, path) && strstr(err.msg, T[t].what) && strstr(err.msg, "record 20003 (offset "),
                      "tail %zu: %s", t, err.msg);
        if (t < 3)
            ck_assert_msg(strstr(err.msg, from) != NULL, "tail %zu: %s", t, err.msg);
    }
    free(whole);
    free(raw);
    remove(path);
    free(path);
}
END_TEST

START_TEST(bit_flip)
{
    g_read_ahead = _i;
    char *path = big_trace();
    size_t len = 0;
    char *bytes = tb_slurp(path, &len);
    int errors = 0;
    /* Flip one bit at several places of the compressed stream: each is an error. */
    for (size_t at = 40; at < len - 8; at += len / 7) {
        bytes[at] ^= 0x10;
        FILE *f = fopen(path, "wb");
        fwrite(bytes, 1, len, f);
        fclose(f);
        bytes[at] ^= 0x10;
        gd_err err;
        int rc = read_all(path, &err, NULL);
        ck_assert_msg(rc == GD_EFORMAT, "bit flip at %zu gave %d", at, rc);
        ck_assert_ptr_nonnull(strstr(err.msg, path));
        ck_assert_ptr_nonnull(strstr(err.msg, "record "));
        errors++;
    }
    ck_assert_int_ge(errors, 5);
    free(bytes);
    remove(path);
    free(path);
}
END_TEST

/* What a reader gives for a file: its records (a digest of their fields), the progress
 * estimate after each, and how it ends (the code and the message). */
typedef struct {
    int rc;
    uint64_t records, digest;
    char msg[sizeof(((gd_err *)0)->msg)];
} read_result;

static void mix(uint64_t *h, uint64_t v)
{
    *h = (*h ^ v) * 1099511628211ull;
}

static read_result read_digest(const char *path, int ahead, uint64_t stop_after)
{
    read_result res;
    memset(&res, 0, sizeof res);
    res.digest = 14695981039346656037ull;
    gd_err err;
    gd_err_clear(&err);
    gd_trace_reader *r;
    if ((res.rc = gd_trace_open(&r, path, &err)) != 0) {
        snprintf(res.msg, sizeof res.msg, "%s", err.msg);
        return res;
    }
    gd_trace_set_read_ahead(r, ahead);
    gd_trace_record rec;
    while ((!stop_after || res.records < stop_after) && (res.rc = gd_trace_next(r, &rec, &err)) == 1) {
        res.records++;
        mix(&res.digest, rec.type);
        mix(&res.digest, rec.index);
        mix(&res.digest, rec.offset);
        if (rec.type == GD_REC_DISPATCH) {
            mix(&res.digest, rec.dispatch.queue);
            mix(&res.digest, rec.dispatch.submit_ns);
            mix(&res.digest, rec.dispatch.ctas);
            mix(&res.digest, rec.dispatch.pkt.kernarg_address);
        }
        mix(&res.digest, (uint64_t)(gd_trace_input_fraction(r) * 1e12));
    }
    snprintf(res.msg, sizeof res.msg, "%s", res.rc < 0 ? err.msg : "");
    gd_trace_close_reader(r);
    return res;
}

/* Read ahead (a second thread inflating the next block) changes nothing: the same
 * records, progress, errors and messages as inflating in turn, for a whole trace, one
 * cut short, one with bytes after its last member and ones with a bit flipped in the
 * compressed stream; a reader closed early (its thread waiting with a block ready) ends
 * cleanly. The trace is over 256 KiB inflated, so blocks are handed over many times. */
START_TEST(read_ahead_same)
{
    char *path = big_trace();
    size_t len = 0;
    char *bytes = tb_slurp(path, &len);
    char *damaged = tb_tmp_path(".gdt.gz");
    int errors = 0;
    for (size_t v = 0; v < 10; v++) {
        FILE *f = fopen(damaged, "wb");
        ck_assert_ptr_nonnull(f);
        size_t at = 40 + (v - 3) * (len / 7);
        if (v == 0)
            fwrite(bytes, 1, len, f);
        else if (v == 1)
            fwrite(bytes, 1, len / 2, f);
        else if (v == 2)
            fwrite(bytes, 1, len, f), fwrite("appended", 1, 8, f);
        else
            bytes[at] ^= 0x10, fwrite(bytes, 1, len, f), bytes[at] ^= 0x10;
        fclose(f);
        read_result off = read_digest(damaged, 0, 0), on = read_digest(damaged, 1, 0);
        ck_assert_msg(off.rc == on.rc && off.records == on.records && off.digest == on.digest &&
                      strcmp(off.msg, on.msg) == 0, "variant %zu: %d %" PRIu64 " '%s' / %d %" PRIu64 " '%s'", v,
                      off.rc, off.records, off.msg, on.rc, on.records, on.msg);
        ck_assert_int_eq(off.rc, v == 0 ? 0 : GD_EFORMAT);
        errors += off.rc != 0;
        if (v == 0)
            ck_assert_uint_eq(off.records, 20001);  /* the descriptor and 20000 dispatches */
    }
    ck_assert_int_eq(errors, 9);
    read_result early = read_digest(path, 1, 10);
    ck_assert_int_eq(early.rc, 1);
    ck_assert_uint_eq(early.records, 10);
    ck_assert_uint_eq(early.digest, read_digest(path, 0, 10).digest);
    free(bytes);
    remove(damaged);
    free(damaged);
    remove(path);
    free(path);
}
END_TEST

/* Deterministic mutations of a decompressed trace holding every kind of record (a
 * kernel descriptor, dispatches, a barrier-AND, a copy, a pipeline-launch packet):
 * each reads to the end or is GD_EFORMAT naming the file, never a crash (the
 * ASan/UBSan runs of make check cover memory errors). tb/fuzz/fuzz_trace.c is the same
 * check under libFuzzer (make fuzz). */
START_TEST(mutations)
{
    char *path = tb_tmp_path(".gdt.gz");
    gd_trace_writer *w = start(path);
    gd_err err;
    w_thread(w, 0, "t");  /* the host model (format 1.10): every packet comes after its call */
    w_kernel(w);
    for (uint32_t i = 0; i < 3; i++) {
        gd_aql_dispatch p = pkt(1, 256, 1 + i, 0);
        p.completion_signal = 0x70 + i;
        w_call(w, 0, 1, 5, 0);
        ck_assert_int_eq(gd_trace_write_dispatch(w, i, 10 * i, &p, NULL, &err), GD_OK);
    }
    gd_aql_barrier_pkt b = barrier_pkt(GD_AQL_TYPE_BARRIER_AND, 0x70, 0x80);
    w_call(w, 0, 2, 5, 0);
    ck_assert_int_eq(gd_trace_write_barrier(w, GD_REC_BARRIER_AND, 1, 40, &b, NULL, &err), GD_OK);
    gd_trace_command c;
    memset(&c, 0, sizeof c);
    c.kind = GD_CMD_MEMCPY_DTOD;
    c.submit_ns = 50;
    c.duration_ps = 1000;
    c.bytes = 64;
    c.info = gd_launch_info_unknown();
    ck_assert_int_eq(gd_trace_write_command(w, &c, &err), GD_OK);
    w_wait(w, 0, GD_WAIT_SIGNAL, 0x71, 55, 0);
    w_wait(w, 0, GD_WAIT_QUEUE, 1, 56, GD_HOST_POLLING);
    static const char fig1[] = FIG1;
    w_call(w, 0, 1, 5, GD_HOST_LAST);
    ck_assert_int_eq(gd_trace_write_pipeline(w, 2, 60, 1, 0x90, fig1, sizeof fig1 - 1, &err), GD_OK);
    ck_assert_int_eq(gd_trace_finish(w, &err), GD_OK);
    ck_assert_int_eq(read_all(path, &err, NULL), 0);
    /* the raw bytes (the reader takes a file without a gzip header as is) */
    unsigned char raw[8192];
    gzFile gz = gzopen(path, "rb");
    int len = gzread(gz, raw, sizeof raw);
    gzclose(gz);
    ck_assert_int_gt(len, 600);
    ck_assert_int_lt(len, (int)sizeof raw);
    char *mpath = tb_tmp_path(".gdt");
    unsigned char m[8192 + 64];
    uint64_t x = 0x9E3779B97F4A7C15ull;
    int valid = 0, errors = 0;
    static const uint32_t interesting[] = {0, 1, 0x7fffffffu, 0xffffffffu, 0x80000000u, 65536, 9, 255};
    for (int it = 0; it < 4000; it++) {
        memcpy(m, raw, (size_t)len);
        size_t n = (size_t)len;
        for (int k = 0; k < 1 + it % 3; k++) {
            x = x * 6364136223846793005ull + 1442695040888963407ull;
            uint32_t v = (uint32_t)(x >> 33);
            size_t at = v % n;
            switch ((x >> 20) % 5) {
            case 0: m[at] ^= (unsigned char)(1u << (v % 8)); break;
            case 1: m[at] = (unsigned char)(v >> 8); break;
            case 2: n = at + 1; break;
            case 3:
                if (at + 4 <= n) {
                    uint32_t y = interesting[(v >> 8) % 8];
                    memcpy(m + at, &y, 4);
                }
                break;
            default:  /* repeat up to 64 bytes in place */
                if (n + 64 <= sizeof m) {
                    size_t k2 = 1 + (v >> 12) % 64;
                    k2 = k2 > n - at ? n - at : k2;
                    memmove(m + at + k2, m + at, n - at);
                    n += k2;
                }
                break;
            }
        }
        FILE *f = fopen(mpath, "wb");
        ck_assert_ptr_nonnull(f);
        ck_assert_uint_eq(fwrite(m, 1, n, f), n);
        fclose(f);
        gd_err_clear(&err);
        int rc = read_all(mpath, &err, NULL);
        if (rc == 0) {
            valid++;
        } else {
            ck_assert_msg(rc == GD_EFORMAT, "mutation %d: status %d: %s", it, rc, err.msg);
            ck_assert_msg(!strncmp(err.msg, mpath, strlen(mpath)), "mutation %d: %s", it, err.msg);
            errors++;
        }
    }
    ck_assert_int_gt(errors, 3000);  /* most mutations break something the reader checks */
    ck_assert_int_gt(valid, 0);      /* and some land where any value is legal */
    remove(mpath);
    free(mpath);
    remove(path);
    free(path);
}
END_TEST

START_TEST(missing_file)
{
    gd_err err;
    ck_assert_int_eq(read_all("/nonexistent/dir/t.gdt.gz", &err, NULL), GD_EIO);
    ck_assert_ptr_nonnull(strstr(err.msg, "/nonexistent/dir/t.gdt.gz: cannot open"));
}
END_TEST

/* The limits the model runs with, not the trace's own, decide what is out of range. */
/* The header's GPC layout: every GPC holds 1 to 64 SMs (a layout whose sum wraps
 * around 2^32 to the device's SM count is refused too); the error names the GPC. */
START_TEST(header_gpc_layout)
{
    static const uint32_t bad[][2] = {{65, 67}, {0, 132}, {4294967295u, 133}};
    static const char *const said[] = {"GPC 0 has 65 SMs (1 to 64)", "GPC 0 has 0 SMs (1 to 64)",
                                       "GPC 0 has 4294967295 SMs (1 to 64)"};
    for (int i = 0; i < 3; i++) {
        char *path = tb_tmp_path(".gdt.gz");
        gd_trace_device d = test_dev();
        d.gpcs = 2;
        d.sms_per_gpc[0] = bad[i][0];
        d.sms_per_gpc[1] = bad[i][1];
        gd_trace_writer *w;
        gd_err err;
        ck_assert_int_eq(gd_trace_create(&w, path, &d, "p", 6, &err), GD_OK);
        ck_assert_int_eq(gd_trace_finish(w, &err), GD_OK);
        ck_assert_int_eq(read_all(path, &err, NULL), GD_EFORMAT);
        ck_assert_msg(strstr(err.msg, said[i]) && strstr(err.msg, "record 0"), "%s", err.msg);
        remove(path);
        free(path);
    }
}
END_TEST

START_TEST(model_limits)
{
    char *path = make(b_none, 1);
    gd_trace_reader *r;
    gd_err err;
    ck_assert_int_eq(gd_trace_open(&r, path, &err), GD_OK);
    gd_sm_limits sm;
    memset(&sm, 0, sizeof sm);
    sm.warp_size = 32;
    sm.max_warps = 64;
    sm.max_ctas = 32;
    sm.regs = 65536;
    sm.reg_alloc_unit = 256;
    sm.reg_subpartitions = 4;
    sm.max_regs_per_thread = 16; /* smaller than the kernel's 32 */
    sm.smem = 98304;
    sm.smem_alloc_unit = 256;
    sm.smem_per_cta_optin = 98304;
    sm.max_threads_per_cta = 1024;
    uint32_t grid[3] = {100, 1, 1};
    gd_trace_set_limits(r, &sm, grid);
    gd_trace_record rec;
    ck_assert_int_eq(gd_trace_next(r, &rec, &err), GD_EFORMAT);
    ck_assert_ptr_nonnull(strstr(err.msg, "32 registers per thread (the device allows at most 16)"));
    gd_trace_close_reader(r);
    remove(path);
    free(path);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("trace");
    TCase *tc = tcase_create("codec");
    tcase_add_test(tc, round_trip);
    tcase_add_test(tc, calibration_and_graph_round_trip);
    tcase_add_test(tc, host_round_trip);
    tcase_add_test(tc, aql_layout);
    tcase_add_test(tc, launch_info_round_trip);
    tcase_add_test(tc, barrier_command_round_trip);
tcase_add_test(tc, signal_numbers);
    tcase_add_test(tc, barrier_layout);
    tcase_add_loop_test(tc, corrupt, 0, (int)(sizeof CASES / sizeof CASES[0]));
    tcase_add_test(tc, length_past_end);
    tcase_add_test(tc, cut_inside_frame);
    tcase_add_test(tc, bad_magic);
    tcase_add_test(tc, bad_version);
    tcase_add_test(tc, version_1_0_limits);
    tcase_add_test(tc, version_1_1_limits);
    tcase_add_test(tc, version_1_2_limits);
    tcase_add_test(tc, cluster_round_trip);
    tcase_add_test(tc, cluster_never_fits);
    tcase_add_test(tc, condensed_round_trip);
    tcase_add_loop_test(tc, big_trace_reads, 0, 2);
    tcase_add_loop_test(tc, truncated_gzip, 0, 2);
    tcase_add_loop_test(tc, gzip_members_and_trailing_bytes, 0, 2);
    tcase_add_loop_test(tc, bit_flip, 0, 2);
    tcase_add_test(tc, read_ahead_same);
    tcase_add_test(tc, mutations);
    tcase_add_test(tc, missing_file);
    tcase_add_test(tc, model_limits);
    tcase_add_test(tc, header_gpc_layout);
    tcase_set_timeout(tc, 60);
    suite_add_tcase(s, tc);
    return tb_run_suite(s);
}
