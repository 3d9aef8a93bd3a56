#include "trace.h"

#include "cga.h"
#include "condensed.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

#include "gdsim.h"

#define HEADER_FIXED 44   /* 11 u32 before the GPC list */
#define KERNEL_FIXED 32
#define INSN_MIX_SIZE (8 * GD_INSN_CLASSES)  /* v1.6: a descriptor's instruction mix, after its name */
#define DISPATCH_SIZE 80
#define LAUNCH_INFO_SIZE 32   /* v1.1 trailer of packet records */
#define WAIT_UNTIL_SIZE 8     /* v1.3: a dispatch's launch info may end with wait_until_ns */
#define CLUSTER_SIZE 16       /* v1.4: then a cluster shape */
#define DISPATCH_CLUSTER_SIZE (DISPATCH_SIZE + LAUNCH_INFO_SIZE + WAIT_UNTIL_SIZE + CLUSTER_SIZE)
#define END_SIZE 16
#define BARRIER_SIZE 80
#define COMMAND_SIZE 40
#define TENANT_SIZE 8         /* v1.6: a multi-tenant command's VID and flags, after everything else */
#define DISPATCH_TENANT_SIZE (DISPATCH_CLUSTER_SIZE + TENANT_SIZE)
#define BARRIER_TENANT_SIZE (BARRIER_SIZE + LAUNCH_INFO_SIZE + TENANT_SIZE)
#define COMMAND_TENANT_SIZE (COMMAND_SIZE + LAUNCH_INFO_SIZE + TENANT_SIZE)
#define HOST_THREAD_FIXED 18  /* v1.10: u32 thread, u32 flags, u64 start, u16 name length; the name */
#define HOST_THREAD_NAME_MAX 255
#define HOST_CALL_SIZE 24     /* v1.10: u32 thread, u32 packets, u64 gap, u32 flags, u32 reserved */
#define HOST_WAIT_SIZE 40     /* v1.10: u32 thread, u16 kind, u16 flags, u64 target, time, gap, tail */

const char *gd_insn_class_name(unsigned c)
{
    static const char *const names[GD_INSN_CLASSES] = {"fp32", "fp16", "int", "ldst", "sfu", "tensor"};
    return c < GD_INSN_CLASSES ? names[c] : NULL;
}

const char *gd_record_type_name(unsigned type)
{
    switch (type) {
    case GD_REC_HEADER: return "header";
    case GD_REC_KERNEL: return "kernel descriptor";
    case GD_REC_DISPATCH: return "kernel dispatch packet";
    case GD_REC_BARRIER_AND: return "barrier-AND packet";
    case GD_REC_BARRIER_OR: return "barrier-OR packet";
    case GD_REC_CONDENSED: return "condensed dispatch packet";
    case GD_REC_MT_COMMAND: return "multi-tenant command";
    case GD_REC_NONKERNEL: return "non-kernel command";
    case GD_REC_PIPELINE: return "pipeline-launch packet";
    case GD_REC_CALIBRATION: return "calibration";
    case GD_REC_HOST_THREAD: return "host thread";
    case GD_REC_HOST_CALL: return "host call";
    case GD_REC_HOST_WAIT: return "host wait";
    case GD_REC_END: return "end";
    }
    return "unknown";
}

const char *gd_host_wait_kind_name(unsigned kind)
{
    switch (kind) {
    case GD_WAIT_SIGNAL: return "signal";
    case GD_WAIT_QUEUE: return "queue";
    case GD_WAIT_DEVICE: return "device";
    }
    return "unknown";
}

const char *gd_command_kind_name(unsigned kind)
{
    static const char *const names[GD_CMD_KINDS] = {"other", "memcpy HtoD", "memcpy DtoH", "memcpy DtoD",
                                                    "memcpy HtoH", "memcpy peer", "memset"};
    return kind < GD_CMD_KINDS ? names[kind] : "unknown";
}

/* ------------------------------------------------------------------------- */
/* A map from non-zero 64-bit keys to 32-bit values (open addressing). It numbers
 * the kernel descriptors (key: id + 1) and the completion signals (key: handle). */

typedef struct u64map {
    uint64_t *keys; /* 0: empty slot */
    uint32_t *vals;
    size_t cap, count;
} u64map;

#define MAP_ABSENT UINT32_MAX

static uint64_t hash64(uint64_t x)
{
    x ^= x >> 33;
    x *= 0xff51afd7ed558ccdULL;
    x ^= x >> 33;
    x *= 0xc4ceb9fe1a85ec53ULL;
    x ^= x >> 33;
    return x;
}

static uint32_t map_find(const u64map *m, uint64_t k)
{
    if (!m->cap)
        return MAP_ABSENT;
    for (size_t i = hash64(k) & (m->cap - 1);; i = (i + 1) & (m->cap - 1)) {
        if (m->keys[i] == k)
            return m->vals[i];
        if (!m->keys[i])
            return MAP_ABSENT;
    }
}

static void map_place(uint64_t *keys, uint32_t *vals, size_t cap, uint64_t k, uint32_t v)
{
    size_t i = hash64(k) & (cap - 1);
    while (keys[i])
        i = (i + 1) & (cap - 1);
    keys[i] = k;
    vals[i] = v;
}

/* Add k (not yet in the map) with value v: 0, or -1 when out of memory. */
static int map_put(u64map *m, uint64_t k, uint32_t v)
{
    if ((m->count + 1) * 2 > m->cap) {
        size_t ncap = m->cap ? m->cap * 2 : 64;
        uint64_t *nk = calloc(ncap, sizeof *nk);
        uint32_t *nv = malloc(ncap * sizeof *nv);
        if (!nk || !nv) {
            free(nk);
            free(nv);
            return -1;
        }
        for (size_t i = 0; i < m->cap; i++)
            if (m->keys[i])
                map_place(nk, nv, ncap, m->keys[i], m->vals[i]);
        free(m->keys);
        free(m->vals);
        m->keys = nk;
        m->vals = nv;
        m->cap = ncap;
    }
    map_place(m->keys, m->vals, m->cap, k, v);
    m->count++;
    return 0;
}

static void map_free(u64map *m)
{
    free(m->keys);
    free(m->vals);
    memset(m, 0, sizeof *m);
}

/* Completion signals: handle -> signal number. Writers number their signals in order
 * (gen_trace: 1, 2, 3 ...; a platform's signal objects: addresses a fixed stride apart),
 * so the longest such run is kept as arithmetic, (first, stride, count, its first
 * number), and only the handles off it go to the hash map: a trace of a million
 * kernels then holds no per-signal memory here. */
typedef struct signal_table {
    u64map map;
    uint64_t first, stride;  /* the run: handle first + i x stride is number num + i, i < len */
    uint32_t num, len;
    uint32_t count;          /* signals numbered */
} signal_table;

static uint32_t signal_find(const signal_table *t, uint64_t h)
{
    if (t->len && h >= t->first && t->stride) {
        uint64_t d = h - t->first;
        if (d % t->stride == 0 && d / t->stride < t->len)
            return t->num + (uint32_t)(d / t->stride);
    } else if (t->len == 1 && h == t->first) {
        return t->num;
    }
    return map_find(&t->map, h);
}

/* Number h (not yet in the table) as n = t->count: 0, or -1 when out of memory. */
static int signal_add(signal_table *t, uint64_t h)
{
    const uint32_t n = t->count;
    uint64_t next;  /* the handle that would extend the run */
    if (t->len == 0) {  /* the run starts */
        t->first = h;
        t->num = n;
        t->len = 1;
        t->stride = 0;
    } else if (t->num + t->len == n && h > t->first && t->len == 1) {
        t->stride = h - t->first;  /* the second handle sets the stride */
        t->len++;
    } else if (t->num + t->len == n && t->len > 1 && !__builtin_mul_overflow((uint64_t)t->len, t->stride, &next) &&
               !__builtin_add_overflow(next, t->first, &next) && h == next) {
        t->len++;
    } else if (map_put(&t->map, h, n)) {
        return -1;
    }
    t->count++;
    return 0;
}

/* ------------------------------------------------------------------------- */
/* Reader                                                                     */

/* The input: the file's bytes as they are, or one or more gzip members one after
 * another (as gzip itself reads them). Our own inflate loop rather than zlib's gzread,
 * which ignores whatever follows the last member: here anything after it that is not
 * another member is an error. */
#define IN_BUF_SIZE (1u << 18)
typedef struct {
    int fd;
    int gzip;          /* 1: gzip members; 0: the bytes as they are */
    int member_end;    /* the last member ended, its trailer (CRC, length) checked */
    int eof;           /* read() found the end of the file */
    int zinit;
    z_stream zs;       /* next_in/avail_in: the buffered input, in both modes */
    uint8_t *buf;
    uint8_t *out;      /* gzip: inflated bytes, out[opos..olen) not yet read */
    uint32_t opos, olen;
    int status;        /* gzip: how the inflating behind out[] ended (IN_OK: not yet) */
    int zstatus;       /* gzip: how the inflating ended so far (the inflater's own; status once out[] holds its last block) */
    int read_errno;    /* the errno of a failed read() (IN_IO), reported once out[] is read */
    uint64_t raw;      /* bytes read from the file */
    uint64_t used;     /* gzip: compressed bytes behind out[]'s block (the progress estimate) */
    /* Read ahead (gd_trace_set_read_ahead): a second thread owns the z_stream, the file
     * and zstatus, and inflates the next block into spare[] while out[] is read; the two
     * swap under mu. The blocks, their ends and the errors are those of inflating in turn. */
    int ahead;
    int stop;          /* the reader closes: the thread ends */
    int spare_ready;   /* spare[] holds the next block (spare_len bytes, then spare_status) */
    int spare_status;
    uint32_t spare_len;
    uint64_t spare_used;
    uint8_t *spare;
    pthread_t thread;
    pthread_mutex_t mu;
    pthread_cond_t cv;
} trace_input;

enum { IN_END = -1, IN_OK, IN_IO, IN_TRUNCATED, IN_CORRUPT, IN_TRAILING, IN_NOMEM };

struct gd_trace_reader {
    trace_input in;
    char *path;
    uint64_t file_size;     /* compressed bytes of a regular file; 0: unknown (a pipe) */
    uint64_t offset;        /* uncompressed bytes consumed */
    uint64_t records;       /* records read (header included) */
    uint64_t dispatches;
    uint64_t packets;       /* packet records: dispatches, barriers, non-kernel commands */
    uint64_t last_submit_ns;
    int have_origin;        /* a packet was read: origin_ns is the first one's submit time */
    uint64_t origin_ns;
    gd_time_ps max_time_ps; /* sim.max_sim_time_s: no time the trace gives may pass it */
    uint64_t max_ctas;      /* sim.max_ctas (0: no limit) */
    uint32_t max_descs;     /* sim.max_kernel_descriptors (0: no limit) */
    uint64_t max_desc_bytes;  /* sim.max_descriptor_mib in bytes (0: no limit) */
    uint64_t desc_bytes;      /* what the descriptors kept take (their names included) */
    uint32_t max_signals;   /* sim.max_signals (0: no limit) */
    uint64_t ctas;          /* CTAs of the dispatches read so far */
    unsigned minor;         /* the file's format minor version */
    int done;
    gd_trace_device dev;
    char producer[256];
    gd_sm_limits limits;
    uint32_t max_grid[3];
    int have_cluster_limits;
    gd_cluster_limits cluster_limits;
    gd_rst rst;             /* reference state table: what reference packets stored so far */
    const gd_kernel_desc *fits_kernel;  /* the last (kernel, cluster) found to fit */
    gd_cluster fits_cluster;
    uint32_t cl_sms[GD_MAX_GPCS];
    gd_kernel_desc **descs; /* in order of definition */
    size_t ndescs, cap_descs;
    u64map desc_index;      /* id + 1 -> position in descs */
    signal_table signals;   /* completion-signal handle -> signal number */
    uint8_t *buf;
    uint32_t bufcap;
    uint32_t simd_width;    /* meta.simd_width (0: the device's warp size) */
    gd_pipeline_def *pipes; /* pipeline-launch packets' topologies, newest first */
    int have_calibration;   /* format 1.9: record 1 was a calibration record */
    gd_trace_calibration calibration;
    int pending;            /* gd_trace_open read record 1's frame (it was not a calibration record): */
    uint8_t pending_frame[GD_TRACE_FRAME_SIZE]; /* gd_trace_next takes it from here */
    int pending_eof;        /* ... or found the input ended there */
    /* The host model (format 1.10): */
    uint32_t host_threads;  /* declared */
    uint8_t *thread_state;  /* per thread id (GD_TRACE_MAX_THREADS, once one is declared): HOST_T_* bits */
    uint64_t *thread_start; /* their declared starts (trace time) */
    uint64_t host_calls;    /* host call and wait records read */
    uint32_t call_left;     /* packets of the open host call still to come */
    uint64_t call_index;    /* that call's record */
    int last_was_wait;      /* the last time-bearing record was a host wait (for the messages) */
};
enum { HOST_T_DECLARED = 1, HOST_T_ENDED = 2 };

static int rec_error(gd_trace_reader *r, gd_err *err, uint64_t index, uint64_t offset, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 5, 6)))
#endif
    ;

static int rec_error(gd_trace_reader *r, gd_err *err, uint64_t index, uint64_t offset, const char *fmt, ...)
{
    char what[768];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(what, sizeof what, fmt, ap);
    va_end(ap);
    return gd_err_set(err, GD_EFORMAT, "%s: record %" PRIu64 " (offset %" PRIu64 "): %s", r->path, index,
                      offset, what);
}

/* Keep at least `want` bytes buffered unless the file ends first. */
static int in_fill(trace_input *in, uint32_t want)
{
    while (in->zs.avail_in < want && !in->eof) {
        if (in->zs.avail_in && in->zs.next_in != in->buf)
            memmove(in->buf, in->zs.next_in, in->zs.avail_in);
        in->zs.next_in = in->buf;
        ssize_t k = read(in->fd, in->buf + in->zs.avail_in, IN_BUF_SIZE - in->zs.avail_in);
        if (k < 0) {
            if (errno == EINTR)
                continue;
            in->read_errno = errno;
            return IN_IO;
        }
        if (k == 0)
            in->eof = 1;
        in->zs.avail_in += (uInt)k;
        in->raw += (uint64_t)k;
    }
    return IN_OK;
}

/* Inflate the next block into dst (gzip mode): at least one byte, or the end of the
 * input, or an error (kept in in->zstatus and handed on with the block, returned once
 * the block is read). Returns the block's length. */
static uint32_t in_inflate(trace_input *in, uint8_t *dst)
{
    in->zs.next_out = dst;
    in->zs.avail_out = IN_BUF_SIZE;
    while (in->zs.avail_out == IN_BUF_SIZE && in->zstatus == IN_OK) {
        int rc = in_fill(in, in->member_end ? 2 : 1);
        if (rc) {
            in->zstatus = rc;
            break;
        }
        if (in->member_end) {  /* another member, the end of the file, or trailing bytes */
            if (!in->zs.avail_in) {
                in->zstatus = IN_END;
                break;
            }
            if (in->zs.avail_in < 2 || in->zs.next_in[0] != 0x1f || in->zs.next_in[1] != 0x8b) {
                in->zstatus = IN_TRAILING;
                break;
            }
            if (inflateReset(&in->zs) != Z_OK) {
                in->zstatus = IN_CORRUPT;
                break;
            }
            in->member_end = 0;
        }
        int z = inflate(&in->zs, Z_NO_FLUSH);
        if (z == Z_STREAM_END)
            in->member_end = 1;
        else if (z == Z_MEM_ERROR)
            in->zstatus = IN_NOMEM;
        else if (z == Z_BUF_ERROR || (z == Z_OK && !in->zs.avail_in)) {
            if (!in->zs.avail_in && in->eof)
                in->zstatus = IN_TRUNCATED;
        } else if (z != Z_OK)
            in->zstatus = IN_CORRUPT;
    }
    return IN_BUF_SIZE - in->zs.avail_out;
}

/* The read-ahead thread: inflates a block into spare[] whenever the reader has taken
 * the last, until the input ends (or fails) or the reader closes. */
static void *in_ahead_main(void *arg)
{
    trace_input *in = arg;
    for (;;) {
        pthread_mutex_lock(&in->mu);
        while (in->spare_ready && !in->stop)
            pthread_cond_wait(&in->cv, &in->mu);
        int stop = in->stop;
        pthread_mutex_unlock(&in->mu);
        if (stop)
            break;
        uint32_t len = in_inflate(in, in->spare);
        pthread_mutex_lock(&in->mu);
        in->spare_len = len;
        in->spare_status = in->zstatus;
        in->spare_used = in->raw - in->zs.avail_in;
        in->spare_ready = 1;
        pthread_cond_broadcast(&in->cv);
        pthread_mutex_unlock(&in->mu);
        if (in->zstatus != IN_OK)
            break;
    }
    return NULL;
}

/* out[] is read: the next block becomes out[]. */
static void in_next_block(trace_input *in)
{
    in->opos = 0;
    if (!in->ahead) {
        in->olen = in_inflate(in, in->out);
        in->status = in->zstatus;
        in->used = in->raw - in->zs.avail_in;
        return;
    }
    pthread_mutex_lock(&in->mu);
    while (!in->spare_ready)
        pthread_cond_wait(&in->cv, &in->mu);
    uint8_t *t = in->out;
    in->out = in->spare;
    in->spare = t;
    in->olen = in->spare_len;
    in->status = in->spare_status;
    in->used = in->spare_used;
    in->spare_ready = 0;
    pthread_cond_broadcast(&in->cv);
    pthread_mutex_unlock(&in->mu);
}

/* Start reading ahead (gzip input of a regular file whose inflating has not ended).
 * Where something is missing (memory, a thread) the reader inflates in turn. */
static void in_start_ahead(trace_input *in)
{
    if (in->ahead || !in->gzip || in->zstatus != IN_OK || !(in->spare = malloc(IN_BUF_SIZE)))
        return;
    int mu = pthread_mutex_init(&in->mu, NULL) == 0, cv = mu && pthread_cond_init(&in->cv, NULL) == 0;
    if (cv) {
        /* The thread takes no signals: a handler (the CLI's Ctrl-C) runs on the caller's. */
        sigset_t all, old;
        sigfillset(&all);
        pthread_sigmask(SIG_SETMASK, &all, &old);
        in->ahead = pthread_create(&in->thread, NULL, in_ahead_main, in) == 0;
        pthread_sigmask(SIG_SETMASK, &old, NULL);
    }
    if (in->ahead)
        return;
    if (cv)
        pthread_cond_destroy(&in->cv);
    if (mu)
        pthread_mutex_destroy(&in->mu);
    free(in->spare);
    in->spare = NULL;
}

static void in_stop_ahead(trace_input *in)
{
    if (!in->ahead)
        return;
    pthread_mutex_lock(&in->mu);
    in->stop = 1;
    pthread_cond_broadcast(&in->cv);
    pthread_mutex_unlock(&in->mu);
    pthread_join(in->thread, NULL);
    pthread_cond_destroy(&in->cv);
    pthread_mutex_destroy(&in->mu);
    in->ahead = 0;
}

/* Up to n bytes into dst (*got fewer only where the input ends). */
static int in_read(trace_input *in, uint8_t *dst, uint32_t n, uint32_t *got)
{
    *got = 0;
    while (*got < n) {
        const uint8_t *src;
        uint32_t have;
        if (in->gzip) {
            if (in->opos == in->olen) {
                if (in->status)
                    return in->status == IN_END ? IN_OK : in->status;
                in_next_block(in);
                continue;
            }
            src = in->out + in->opos;
            have = in->olen - in->opos;
        } else {
            int rc = in_fill(in, 1);
            if (rc)
                return rc;
            if (!in->zs.avail_in)
                return IN_OK;
            src = in->zs.next_in;
            have = in->zs.avail_in;
        }
        uint32_t k = n - *got < have ? n - *got : have;
        memcpy(dst + *got, src, k);
        *got += k;
        if (in->gzip) {
            in->opos += k;
        } else {
            in->zs.next_in += k;
            in->zs.avail_in -= k;
        }
    }
    return IN_OK;
}

/* read_exact where the block inflated does not hold the n bytes whole. */
static int read_exact_slow(gd_trace_reader *r, void *dst, uint32_t n, uint64_t index, uint64_t rec_offset,
                           int at_boundary, gd_err *err)
{
    uint32_t got = 0;
    int rc = in_read(&r->in, (uint8_t *)dst, n, &got);
    r->offset += got;
    switch (rc) {
    case IN_IO:
        return gd_err_set(err, GD_EIO, "%s: record %" PRIu64 " (offset %" PRIu64 "): read error: %s", r->path,
                          index, rec_offset, strerror(r->in.read_errno));
    case IN_NOMEM:
        return gd_err_set(err, GD_ENOMEM, "%s: out of memory while decompressing", r->path);
    case IN_TRUNCATED:
        return rec_error(r, err, index, rec_offset,
                         "the gzip stream is truncated (unexpected end of file after %" PRIu64 " bytes)", r->offset);
    case IN_CORRUPT:
        return rec_error(r, err, index, rec_offset, "corrupt gzip data: %s",
                         r->in.zs.msg ? r->in.zs.msg : "bad member header");
    case IN_TRAILING: {
        const uint64_t at = r->in.raw - r->in.zs.avail_in;  /* compressed bytes before them */
        if (r->file_size > at)
            return rec_error(r, err, index, rec_offset,
                             "%" PRIu64 " byte%s follow%s the gzip stream (from byte %" PRIu64 " of the file): "
                             "not another gzip member; the file was damaged or appended to", r->file_size - at,
                             r->file_size - at == 1 ? "" : "s", r->file_size - at == 1 ? "s" : "", at);
        return rec_error(r, err, index, rec_offset,
                         "bytes follow the gzip stream (from byte %" PRIu64 " of the file): not another gzip "
                         "member; the file was damaged or appended to", at);
    }
    default:
        break;
    }
    if (got == n)
        return 0;
    if (got == 0 && at_boundary)
        return 1;
    return rec_error(r, err, index, rec_offset,
                     "the file ends inside a record (%u of %u bytes present): truncated trace", got, n);
}

/* Where the block inflated holds the next n bytes whole (most reads of a gzip trace):
 * their place in it, taken; else NULL. */
static inline const uint8_t *in_take(trace_input *in, uint32_t n)
{
    if (!in->gzip || in->olen - in->opos < n)
        return NULL;
    const uint8_t *p = in->out + in->opos;
    in->opos += n;
    return p;
}

/* Read exactly n bytes. Returns 0, or GD_EFORMAT/GD_EIO with err set. at_boundary:
 * a clean end of input here means "no more records" (returns 1). */
static inline int read_exact(gd_trace_reader *r, void *dst, uint32_t n, uint64_t index, uint64_t rec_offset,
                             int at_boundary, gd_err *err)
{
    const uint8_t *p = in_take(&r->in, n);
    if (!p)
        return read_exact_slow(r, dst, n, index, rec_offset, at_boundary, err);
    memcpy(dst, p, n);
    r->offset += n;
    return 0;
}

static void default_limits(gd_trace_reader *r)
{
    const gd_trace_device *d = &r->dev;
    gd_sm_limits *l = &r->limits;
    memset(l, 0, sizeof *l);
    l->cc_major = d->cc_major;
    l->cc_minor = d->cc_minor;
    l->warp_size = d->warp_size ? d->warp_size : 32;
    l->max_warps = d->max_threads_per_sm / l->warp_size;
    l->max_ctas = 32;
    l->regs = d->regs_per_sm;
    l->reg_alloc_unit = 256;
    l->reg_subpartitions = 4;
    l->max_regs_per_thread = 255;
    l->smem = d->smem_per_sm;
    l->smem_alloc_unit = d->cc_major >= 8 ? 128 : 256;
    l->smem_reserved_per_cta = d->cc_major >= 8 ? 1024 : 0;
    l->smem_per_cta_default = d->smem_per_cta_default;
    l->smem_per_cta_optin = d->smem_per_cta_optin;
    l->max_threads_per_cta = d->max_threads_per_cta;
    r->max_grid[0] = 2147483647u;
    r->max_grid[1] = 65535;
    r->max_grid[2] = 65535;
}

static int ensure_buf(gd_trace_reader *r, uint32_t n)
{
    if (n <= r->bufcap && r->buf)
        return 0;
    if (n < 64)  /* a record of 0 bytes gets a buffer too: it is memcpy's destination */
        n = 64;
    uint8_t *nb = realloc(r->buf, n);
    if (!nb)
        return -1;
    r->buf = nb;
    r->bufcap = n;
    return 0;
}

/* A name from the trace as text: a control character (a line break, an escape that
 * would drive a terminal, a NUL that would cut the name short) becomes '?', so that a
 * name cannot forge a line of a report. Bytes that are not UTF-8 are left to the JSON and
 * CSV writers (U+FFFD). */
/* A name as text: control characters (a line break that would forge a report line, a
 * terminal escape, a NUL that would cut the name short) and each byte that is not part
 * of valid UTF-8 become '?', so every output (the text report included) is UTF-8. */
static void name_text(char *s, size_t n)
{
    for (size_t i = 0; i < n;) {
        const unsigned char c = (unsigned char)s[i];
        if (c < 0x80) {
            if (c < 0x20 || c == 0x7F)
                s[i] = '?';
            i++;
            continue;
        }
        char ch[5] = {0};
        memcpy(ch, s + i, n - i < 4 ? n - i : 4);
        size_t k = gd_utf8_char_len(ch);
        if (!k) {
            s[i++] = '?';
            continue;
        }
        i += k;
    }
}

/* A name longer than its field ends in "..." (the cut never leaves half a character). */
static void name_cut(char *dst, size_t size, const uint8_t *src, size_t n)
{
    size_t m = n < size - 1 ? n : size - 1;
    memcpy(dst, src, m);
    dst[m] = '\0';
    if (n > size - 1) {
        size_t e = m - 3;
        while (e > 0 && ((unsigned char)dst[e] & 0xC0) == 0x80)  /* not inside a character */
            e--;
        memcpy(dst + e, "...", 4);
        m = e + 3;
    }
    name_text(dst, m);
}

static int parse_header(gd_trace_reader *r, const uint8_t *p, uint32_t len, uint64_t off, gd_err *err)
{
    gd_trace_device *d = &r->dev;
    if (len < HEADER_FIXED + 4)
        return rec_error(r, err, 0, off, "header record is %u bytes, shorter than its fixed part (%u)", len,
                         HEADER_FIXED + 4);
    uint32_t f[11];
    for (int i = 0; i < 11; i++)
        f[i] = gd_get32(p + 4 * i);
    d->cc_major = f[0];
    d->cc_minor = f[1];
    d->sms = f[2];
    d->max_threads_per_sm = f[3];
    d->regs_per_sm = f[4];
    d->smem_per_sm = f[5];
    d->smem_per_cta_default = f[6];
    d->smem_per_cta_optin = f[7];
    d->max_threads_per_cta = f[8];
    d->warp_size = f[9];
    d->gpcs = f[10];
    if (d->gpcs > GD_MAX_GPCS)
        return rec_error(r, err, 0, off, "header: %u GPCs (at most %d)", d->gpcs, GD_MAX_GPCS);
    uint32_t pos = HEADER_FIXED;
    if (len < pos + 4 * d->gpcs + 4)
        return rec_error(r, err, 0, off, "header record too short for its %u GPC entries", d->gpcs);
    uint32_t sum = 0;  /* at most GD_MAX_GPCS x GD_MAX_SMS_PER_GPC: no overflow */
    for (uint32_t g = 0; g < d->gpcs; g++, pos += 4) {
        d->sms_per_gpc[g] = gd_get32(p + pos);
        if (d->sms_per_gpc[g] == 0 || d->sms_per_gpc[g] > GD_MAX_SMS_PER_GPC)
            return rec_error(r, err, 0, off, "header: GPC %u has %u SMs (1 to %d)", g, d->sms_per_gpc[g],
                             GD_MAX_SMS_PER_GPC);
        sum += d->sms_per_gpc[g];
    }
    uint32_t nl = gd_get16(p + pos);
    pos += 2;
    if (len < pos + nl + 2)
        return rec_error(r, err, 0, off, "header: device name of %u bytes runs past the record", nl);
    name_cut(d->name, sizeof d->name, p + pos, nl);
    pos += nl;
    uint32_t pl = gd_get16(p + pos);
    pos += 2;
    if (len != pos + pl)
        return rec_error(r, err, 0, off, "header record length %u does not match its contents (%u)", len, pos + pl);
    name_cut(r->producer, sizeof r->producer, p + pos, pl);

    snprintf(d->origin, sizeof d->origin, "%s: record 0 (offset %" PRIu64 ")", r->path, off);
    if (d->sms > GD_MAX_SMS)
        return rec_error(r, err, 0, off, "header: %u SMs, more than this gdsim models (%d: %d GPCs of up to %d SMs)",
                         d->sms, GD_MAX_SMS, GD_MAX_GPCS, GD_MAX_SMS_PER_GPC);
    if (d->sms == 0 || d->warp_size == 0 || d->warp_size > 64 || d->max_threads_per_sm < d->warp_size ||
        d->max_threads_per_cta == 0 || d->regs_per_sm == 0)
        return rec_error(r, err, 0, off,
                         "header: device description out of range (sms %u, warp size %u, threads per SM %u, "
                         "threads per CTA %u, registers per SM %u)",
                         d->sms, d->warp_size, d->max_threads_per_sm, d->max_threads_per_cta, d->regs_per_sm);
    if (d->gpcs && sum != d->sms)
        return rec_error(r, err, 0, off, "header: the GPC layout holds %u SMs but the device has %u", sum, d->sms);
    if (d->smem_per_cta_optin > d->smem_per_sm || d->smem_per_cta_default > d->smem_per_cta_optin)
        return rec_error(r, err, 0, off,
                         "header: shared memory limits inconsistent (per SM %u, per CTA default %u, opt-in %u)",
                         d->smem_per_sm, d->smem_per_cta_default, d->smem_per_cta_optin);
    char why[300];
    if (gd_config_check_device(d, why, sizeof why))
        return rec_error(r, err, 0, off, "header: %s", why);
    return 0;
}

static int parse_calibration(gd_trace_reader *r, const uint8_t *p, uint32_t len, uint64_t idx, uint64_t off,
                             gd_err *err);

/* Format 1.9: record 1 may be the calibration record, which the configuration needs
 * before any packet is read; any other record's frame is kept for gd_trace_next. */
static int read_calibration(gd_trace_reader *r, gd_err *err)
{
    uint64_t off = r->offset;
    int rc = read_exact(r, r->pending_frame, GD_TRACE_FRAME_SIZE, 1, off, 1, err);
    if (rc == 1) {
        r->pending_eof = 1;
        return 0;
    }
    if (rc)
        return rc;
    if (gd_get16(r->pending_frame) != GD_REC_CALIBRATION) {
        r->pending = 1;
        return 0;
    }
    if (gd_get16(r->pending_frame + 2))
        return rec_error(r, err, 1, off, "record flags 0x%04x are not zero", gd_get16(r->pending_frame + 2));
    uint32_t len = gd_get32(r->pending_frame + 4);
    if (len > GD_TRACE_MAX_RECORD)
        return rec_error(r, err, 1, off, "record length %u is beyond the format's limit of %u bytes", len,
                         GD_TRACE_MAX_RECORD);
    if (ensure_buf(r, len))
        return gd_err_set(err, GD_ENOMEM, "out of memory");
    if ((rc = read_exact(r, r->buf, len, 1, off, 0, err)) != 0)
        return rc;
    r->records = 2;
    return parse_calibration(r, r->buf, len, 1, off, err);
}

int gd_trace_open(gd_trace_reader **out, const char *path, gd_err *err)
{
    *out = NULL;
    gd_trace_reader *r = calloc(1, sizeof *r);
    if (!r || !(r->path = strdup(path))) {
        free(r);
        return gd_err_set(err, GD_ENOMEM, "out of memory");
    }
    r->max_time_ps = GD_TIME_LIMIT_PS;
    r->in.fd = -1;
    r->in.fd = open(path, O_RDONLY | O_CLOEXEC);
    if (r->in.fd < 0) {
        int e = errno;
        gd_trace_close_reader(r);
        return gd_err_set(err, GD_EIO, "%s: cannot open: %s", path, strerror(e));
    }
    struct stat st;
    if (fstat(r->in.fd, &st) == 0 && S_ISREG(st.st_mode))
        r->file_size = (uint64_t)st.st_size;
    if (!(r->in.buf = malloc(IN_BUF_SIZE))) {
        gd_trace_close_reader(r);
        return gd_err_set(err, GD_ENOMEM, "out of memory");
    }
    r->in.zs.next_in = r->in.buf;
    if (in_fill(&r->in, 2)) {
        int e = r->in.read_errno;
        gd_trace_close_reader(r);
        return gd_err_set(err, GD_EIO, "%s: record 0 (offset 0): read error: %s", path, strerror(e));
    }
    if (r->in.zs.avail_in >= 2 && r->in.zs.next_in[0] == 0x1f && r->in.zs.next_in[1] == 0x8b) {
        r->in.gzip = 1;
        int z = (r->in.out = malloc(IN_BUF_SIZE)) ? inflateInit2(&r->in.zs, 15 + 16) : Z_MEM_ERROR;  /* gzip only */
        if (z != Z_OK) {
            gd_trace_close_reader(r);
            return gd_err_set(err, GD_ENOMEM, "out of memory");
        }
        r->in.zinit = 1;
    }

    uint8_t fh[GD_TRACE_FILE_HEADER_SIZE];
    int rc = read_exact(r, fh, sizeof fh, 0, 0, 1, err);
    if (rc) {
        gd_trace_close_reader(r);
        return rc < 0 ? rc : gd_err_set(err, GD_EFORMAT, "%s: empty file", path);
    }
    if (memcmp(fh, GD_TRACE_MAGIC, 8) != 0) {
        gd_trace_close_reader(r);
        return gd_err_set(err, GD_EFORMAT, "%s: record 0 (offset 0): bad magic: not a gdsim trace", path);
    }
    uint16_t major = gd_get16(fh + 8), minor = gd_get16(fh + 10);
    if (major != GD_TRACE_VERSION_MAJOR) {
        gd_trace_close_reader(r);
        return gd_err_set(err, GD_EFORMAT,
                          "%s: record 0 (offset 8): trace format version %u.%u is not supported (this gdsim "
                          "reads version %d.x)", path, major, minor, GD_TRACE_VERSION_MAJOR);
    }
    r->minor = minor;
    if (minor > GD_TRACE_VERSION_MINOR) {
        gd_trace_close_reader(r);
        return gd_err_set(err, GD_EFORMAT,
                          "%s: record 0 (offset 10): trace format version %u.%u is newer than this gdsim reads "
                          "(up to %d.%d): a later gdsim wrote it", path, major, minor, GD_TRACE_VERSION_MAJOR,
                          GD_TRACE_VERSION_MINOR);
    }
    if (gd_get32(fh + 12) != 0) {
        gd_trace_close_reader(r);
        return gd_err_set(err, GD_EFORMAT, "%s: record 0 (offset 12): unknown file flags 0x%08x", path,
                          gd_get32(fh + 12));
    }
    /* The header record. */
    uint8_t frame[GD_TRACE_FRAME_SIZE];
    uint64_t off = r->offset;
    if ((rc = read_exact(r, frame, sizeof frame, 0, off, 0, err)) != 0) {
        gd_trace_close_reader(r);
        return rc;
    }
    unsigned type = gd_get16(frame);
    uint32_t len = gd_get32(frame + 4);
    if (type != GD_REC_HEADER) {
        rc = rec_error(r, err, 0, off, "the first record must be the header, found type %u (%s)", type,
                       gd_record_type_name(type));
        gd_trace_close_reader(r);
        return rc;
    }
    if (len > GD_TRACE_MAX_RECORD || ensure_buf(r, len)) {
        rc = len > GD_TRACE_MAX_RECORD ? rec_error(r, err, 0, off, "header record length %u is too large", len)
                                       : gd_err_set(err, GD_ENOMEM, "out of memory");
        gd_trace_close_reader(r);
        return rc;
    }
    if ((rc = read_exact(r, r->buf, len, 0, off, 0, err)) != 0 || (rc = parse_header(r, r->buf, len, off, err)) != 0) {
        gd_trace_close_reader(r);
        return rc;
    }
    r->records = 1;
    default_limits(r);
    gd_rst_init(&r->rst, GD_RST_MAX);
    if (r->minor >= 9 && (rc = read_calibration(r, err)) != 0) {
        gd_trace_close_reader(r);
        return rc;
    }
    *out = r;
    return GD_OK;
}

void gd_trace_close_reader(gd_trace_reader *r)
{
    if (!r)
        return;
    in_stop_ahead(&r->in);
    if (r->in.zinit)
        inflateEnd(&r->in.zs);
    if (r->in.fd >= 0)
        close(r->in.fd);
    free(r->in.buf);
    free(r->in.out);
    free(r->in.spare);
    for (size_t i = 0; i < r->ndescs; i++) {
        free(r->descs[i]->name);
        free(r->descs[i]);
    }
    free(r->descs);
    while (r->pipes) {
        gd_pipeline_def *n = r->pipes->next;
        free(r->pipes->text);
        free(r->pipes);
        r->pipes = n;
    }
    map_free(&r->desc_index);
    map_free(&r->signals.map);
    free(r->thread_state);
    free(r->thread_start);
    free(r->buf);
    free(r->path);
    free(r);
}

const gd_trace_device *gd_trace_device_of(const gd_trace_reader *r) { return &r->dev; }
const char *gd_trace_producer(const gd_trace_reader *r) { return r->producer; }
const char *gd_trace_path(const gd_trace_reader *r) { return r->path; }
uint64_t gd_trace_records_read(const gd_trace_reader *r) { return r->records; }

double gd_trace_input_fraction(const gd_trace_reader *r)
{
    if (!r->file_size)
        return -1.0;
    double f = (double)(r->in.gzip ? r->in.used : r->in.raw - r->in.zs.avail_in) / (double)r->file_size;
    return f > 1.0 ? 1.0 : f;
}
void gd_trace_set_read_ahead(gd_trace_reader *r, int on)
{
    if (on && r->file_size)
        in_start_ahead(&r->in);
}
uint64_t gd_trace_dispatches_read(const gd_trace_reader *r) { return r->dispatches; }
uint64_t gd_trace_packets_read(const gd_trace_reader *r) { return r->packets; }
uint32_t gd_trace_signals(const gd_trace_reader *r) { return r->signals.count; }
uint32_t gd_trace_host_threads(const gd_trace_reader *r) { return r->host_threads; }

void gd_trace_set_limits(gd_trace_reader *r, const gd_sm_limits *sm, const uint32_t max_grid[3])
{
    r->limits = *sm;
    memcpy(r->max_grid, max_grid, sizeof r->max_grid);
}

void gd_trace_set_descriptor_bytes(gd_trace_reader *r, uint64_t max_bytes) { r->max_desc_bytes = max_bytes; }

void gd_trace_set_run_limits(gd_trace_reader *r, uint32_t max_sim_time_s, uint64_t max_ctas, uint32_t max_descs,
                             uint32_t max_signals)
{
    gd_time_ps t = (gd_time_ps)max_sim_time_s * GD_PS_PER_NS * 1000000000u;
    r->max_time_ps = t && t < GD_TIME_LIMIT_PS ? t : GD_TIME_LIMIT_PS;
    r->max_ctas = max_ctas;
    r->max_descs = max_descs;
    r->max_signals = max_signals;
}

uint64_t gd_trace_ctas_read(const gd_trace_reader *r) { return r->ctas; }

void gd_trace_set_rsb(gd_trace_reader *r, uint32_t entries)
{
    gd_rst_init(&r->rst, entries);
}

void gd_trace_set_simd_width(gd_trace_reader *r, uint32_t simd_width) { r->simd_width = simd_width; }

void gd_trace_set_cluster_limits(gd_trace_reader *r, const gd_cluster_limits *cl)
{
    r->cluster_limits = *cl;
    if (r->cluster_limits.gpcs > GD_MAX_GPCS)
        r->cluster_limits.gpcs = GD_MAX_GPCS;
    memcpy(r->cl_sms, cl->sms_per_gpc, r->cluster_limits.gpcs * sizeof *r->cl_sms);
    r->cluster_limits.sms_per_gpc = r->cl_sms;
    r->have_cluster_limits = 1;
}

/* Why a dispatch's CGAs could never launch on the modelled GPU, even idle (NULL:
 * they can); `why` receives the reason. */
static int cluster_never_fits(const gd_trace_reader *r, const gd_trace_dispatch *d, char *why, size_t size)
{
    const gd_cluster_limits *cl = &r->cluster_limits;
    const gd_cluster *c = &d->cluster;
    const uint32_t per_sm = d->kernel->occ.max_ctas;
    const uint32_t ctas = (uint32_t)c->dim[0] * c->dim[1] * c->dim[2];
    uint32_t largest = 0;
    for (uint32_t g = 0; g < cl->gpcs; g++)
        if (cl->sms_per_gpc[g] > largest)
            largest = cl->sms_per_gpc[g];
    if (c->mode == GD_CGA_MULTICAST && ctas > largest) {
        snprintf(why, size, "a multicast cluster of %u CTAs needs %u SMs of one GPC (one CTA of a CGA per SM), and "
                 "the largest GPC has %u", ctas, ctas, largest);
        return 1;
    }
    if ((uint64_t)ctas > (uint64_t)per_sm * largest) {
        snprintf(why, size, "a cluster of %u CTAs must fit one GPC, and the largest GPC (%u SMs) holds %" PRIu64
                 " CTAs of this kernel (%u per SM)", ctas, largest, (uint64_t)per_sm * largest, per_sm);
        return 1;
    }
    gd_gpc_shadow *idle = malloc((size_t)cl->gpcs * sizeof *idle);
    uint32_t *gpc_of = malloc((size_t)c->gpu_cga * sizeof *gpc_of);
    uint32_t *take = malloc((size_t)c->gpu_cga * GD_MAX_SMS_PER_GPC * sizeof *take);
    void *scratch = malloc(gd_gpu_cga_scratch_size(cl->gpcs));
    if (!idle || !gpc_of || !take || !scratch) {
        free(idle);
        free(gpc_of);
        free(take);
        free(scratch);
        snprintf(why, size, "out of memory checking a GPU-CGA of %u GPC-CGAs", c->gpu_cga);
        return 1;
    }
    for (uint32_t g = 0; g < cl->gpcs; g++) {
        idle[g].nsm = cl->sms_per_gpc[g];
        for (uint32_t i = 0; i < idle[g].nsm; i++)
            idle[g].free_slots[i] = per_sm;
        idle[g].cgas_left = cl->sms_per_gpc[g] * cl->gpc_cgas_per_sm;
        idle[g].ids_left = cl->cga_ids;
    }
    int fits = gd_gpu_cga_place(idle, cl->gpcs, c->gpu_cga, ctas, (gd_cga_mode)c->mode, cl->sms_per_tpc,
                                cl->scan_limit, gpc_of, take, scratch);
    free(idle);
    free(gpc_of);
    free(take);
    free(scratch);
    if (!fits) {
        if (c->gpu_cga == 1)
            snprintf(why, size, "a cluster of %u CTAs finds no GPC that can take it (GPC-CGAs per SM %u, CGA ids "
                     "per GPC %u)", ctas, cl->gpc_cgas_per_sm, cl->cga_ids);
        else
            snprintf(why, size, "a GPU-CGA of %u GPC-CGAs of %u CTAs does not fit the idle GPU at once", c->gpu_cga,
                     ctas);
        return 1;
    }
    return 0;
}

static const gd_kernel_desc *desc_find(const gd_trace_reader *r, uint32_t id)
{
    uint32_t i = map_find(&r->desc_index, (uint64_t)id + 1);
    return i == MAP_ABSENT ? NULL : r->descs[i];
}

/* Keep d (owned by the reader from now on): 0, or -1 when out of memory. */
static int desc_add(gd_trace_reader *r, gd_kernel_desc *d)
{
    if (r->ndescs == r->cap_descs) {
        size_t ncap = r->cap_descs ? r->cap_descs * 2 : 64;
        gd_kernel_desc **nd = realloc(r->descs, ncap * sizeof *nd);
        if (!nd)
            return -1;
        r->descs = nd;
        r->cap_descs = ncap;
    }
    if (r->ndescs >= MAP_ABSENT || map_put(&r->desc_index, (uint64_t)d->id + 1, (uint32_t)r->ndescs))
        return -1;
    r->descs[r->ndescs++] = d;
    return 0;
}

/* The number of completion signal h, numbering it if new; GD_NO_SIGNAL when out of memory. */
static uint32_t signal_note(gd_trace_reader *r, uint64_t h)
{
    uint32_t n = signal_find(&r->signals, h);
    if (n != MAP_ABSENT)
        return n;
    n = r->signals.count;
    if (n >= GD_NO_SIGNAL - 1 || signal_add(&r->signals, h))
        return GD_NO_SIGNAL;
    return n;
}

/* Check a kernel's CTA shape against the device and compute its occupancy (and one
 * warp's cost for seed 001's split). 0, or -1 with why saying what is wrong. */
static int fit_device(const gd_sm_limits *l, gd_kernel_desc *kd, const char *name, char *why, size_t n)
{
    gd_kernel_desc k = *kd;
    if (k.threads_per_cta == 0 || k.threads_per_cta > l->max_threads_per_cta)
        return snprintf(why, n, "kernel '%s': %u threads per CTA (the device allows 1 to %u)", name,
                        k.threads_per_cta, l->max_threads_per_cta), -1;
    if (k.regs_per_thread > l->max_regs_per_thread)
        return snprintf(why, n, "kernel '%s': %u registers per thread (the device allows at most %u)", name,
                        k.regs_per_thread, l->max_regs_per_thread), -1;
    uint64_t smem = (uint64_t)k.static_smem + k.dynamic_smem;
    if (smem > l->smem_per_cta_optin)
        return snprintf(why, n,
                        "kernel '%s': %" PRIu64 " bytes of shared memory per CTA (static %u + dynamic %u) exceed the "
                        "device's opt-in limit of %u", name, smem, k.static_smem, k.dynamic_smem,
                        l->smem_per_cta_optin), -1;
    gd_cta_shape shape = {k.threads_per_cta, k.regs_per_thread, (uint32_t)smem};
    gd_err oerr;
    if (gd_occupancy_compute(&k.occ, l, &shape, l->smem_per_cta_optin, &oerr))
        return snprintf(why, n, "kernel '%s': %.400s", name, oerr.msg), -1;  /* the occupancy rule's text is short */
    if (k.occ.max_ctas == 0)
        return snprintf(why, n, "kernel '%s' cannot run on this device: no CTA fits in an SM (limited by %s)", name,
                        gd_limiter_name(k.occ.limiter)), -1;
    gd_occupancy_compute(&k.occ_default, l, &shape, l->smem_per_cta_default, NULL);
    /* one warp of a CTA split by seed 001 emb. 3: its registers and its share of the
     * shared memory (an assumption: the seed does not say; at least what one warp of
     * a CTA that splits evenly would use) */
    gd_occupancy sub;
    gd_cta_shape sub_shape = {l->warp_size, k.regs_per_thread,
                              (uint32_t)((smem + k.occ.cost.warps - 1) / k.occ.cost.warps)};
    if (k.threads_per_cta > l->warp_size &&
        gd_occupancy_compute(&sub, l, &sub_shape, l->smem_per_cta_optin, NULL) == GD_OK)
        k.sub_cost = sub.cost;
    else
        k.sub_cost = k.occ.cost;  /* a one-warp CTA: nothing to split */
    *kd = k;
    return 0;
}

int gd_kernel_desc_decode(gd_kernel_desc *out, const uint8_t *p, uint32_t len, unsigned minor,
                          const gd_sm_limits *l, char *why, size_t n)
{
    if (len < KERNEL_FIXED + 2)
        return snprintf(why, n, "kernel descriptor is %u bytes, shorter than its fixed part (%u)", len,
                        KERNEL_FIXED + 2), -1;
    uint32_t nl = gd_get16(p + KERNEL_FIXED);
    int mix = len == KERNEL_FIXED + 2 + nl + INSN_MIX_SIZE;
    if (len != KERNEL_FIXED + 2 + nl && !mix)
        return snprintf(why, n, "kernel descriptor length %u does not match its contents (%u, or %u with an "
                        "instruction mix)", len, KERNEL_FIXED + 2 + nl, KERNEL_FIXED + 2 + nl + INSN_MIX_SIZE), -1;
    if (mix && minor < 6)
        return snprintf(why, n, "kernel descriptor with an instruction mix in a version 1.%u trace (needs 1.6)",
                        minor), -1;
    gd_kernel_desc k;
    memset(&k, 0, sizeof k);
    k.id = gd_get32(p);
    k.threads_per_cta = gd_get32(p + 4);
    k.regs_per_thread = gd_get32(p + 8);
    k.static_smem = gd_get32(p + 12);
    k.dynamic_smem = gd_get32(p + 16);
    k.exec_model = gd_get32(p + 20);
    k.cta_duration_ps = gd_get64(p + 24);
    if (mix) {
        k.has_insn = 1;
        for (int c = 0; c < GD_INSN_CLASSES; c++)
            k.insn[c] = gd_get64(p + KERNEL_FIXED + 2 + nl + 8 * c);
    }
    char name[96];
    snprintf(name, sizeof name, "%.*s%s", nl > 60 ? 60 : (int)nl, (const char *)p + KERNEL_FIXED + 2,
             nl > 60 ? "..." : "");
    if (nl == 0)
        return snprintf(why, n, "kernel descriptor %u has an empty name", k.id), -1;
    if (k.exec_model != GD_EXEC_FIXED_CTA && !(k.exec_model == GD_EXEC_PER_DISPATCH && minor >= 1))
        return snprintf(why, n, "kernel '%s': unknown execution-time model %u (known: 1 = fixed per-CTA duration; 2 "
                        "= per dispatch, from format version 1.1)", name, k.exec_model), -1;
    if (fit_device(l, &k, name, why, n))
        return -1;
    if (!(k.name = malloc(nl + 1)))
        return GD_ENOMEM;
    memcpy(k.name, p + KERNEL_FIXED + 2, nl);
    k.name[nl] = '\0';
    name_text(k.name, nl);
    *out = k;
    return 0;
}

static int parse_kernel(gd_trace_reader *r, const uint8_t *p, uint32_t len, uint64_t idx, uint64_t off,
                        gd_trace_record *rec, gd_err *err)
{
    gd_kernel_desc k;
    char why[512];
    int rc = gd_kernel_desc_decode(&k, p, len, r->minor, &r->limits, why, sizeof why);
    if (rc == GD_ENOMEM)
        return gd_err_set(err, GD_ENOMEM, "out of memory");
    if (rc)
        return rec_error(r, err, idx, off, "%s", why);
    k.record = idx;
    if (desc_find(r, k.id)) {
        rc = rec_error(r, err, idx, off, "kernel descriptor id %u ('%.60s%s') is already defined (record %" PRIu64 ")",
                       k.id, k.name, strlen(k.name) > 60 ? "..." : "", desc_find(r, k.id)->record);
        free(k.name);
        return rc;
    }
    if (r->max_descs && r->ndescs >= r->max_descs) {
        free(k.name);
        return rec_error(r, err, idx, off, "kernel descriptor id %u: more than sim.max_kernel_descriptors (%u) "
                         "distinct kernel descriptors in one trace", k.id, r->max_descs);
    }
    const uint64_t bytes = sizeof(gd_kernel_desc) + strlen(k.name) + 1;
    if (r->max_desc_bytes && r->desc_bytes + bytes > r->max_desc_bytes) {
        free(k.name);
        return rec_error(r, err, idx, off, "kernel descriptor id %u: the trace's kernel descriptors would take "
                         "more than sim.max_descriptor_mib (%" PRIu64 " MiB; %" PRIu64 " descriptors, their names "
                         "%" PRIu64 " bytes on average)", k.id, r->max_desc_bytes >> 20, r->ndescs + 1,
                         (r->desc_bytes + bytes) / (r->ndescs + 1) - sizeof(gd_kernel_desc));
    }
    r->desc_bytes += bytes;
    gd_kernel_desc *d = malloc(sizeof *d);
    if (!d) {
        free(k.name);
        return gd_err_set(err, GD_ENOMEM, "out of memory");
    }
    *d = k;
    if (desc_add(r, d)) {
        free(d->name);
        free(d);
        return gd_err_set(err, GD_ENOMEM, "out of memory");
    }
    rec->kernel = d;
    return 0;
}

static const char *DIM = "xyz";

static void get_launch_info(gd_launch_info *info, const uint8_t *p)
{
    info->cta_duration_ps = gd_get64(p);
    info->source_id = gd_get64(p + 8);
    info->measured_start_ns = gd_get64(p + 16);
    info->measured_dur_ns = gd_get64(p + 24);
}

/* What every packet record starts with: the queue (u16 at 0) and the host submit
 * time (u64 at 8), which is non-decreasing through the file. */
static int packet_head(gd_trace_reader *r, const uint8_t *p, int reserved_set, const char *what, uint64_t idx,
                       uint64_t off, uint32_t *queue, uint64_t *submit_ns, gd_err *err)
{
    *queue = gd_get16(p);
    if (reserved_set)
        return rec_error(r, err, idx, off, "%s record: reserved bytes 2-7 are not zero", what);
    if (*queue >= GD_TRACE_MAX_QUEUES)
        return rec_error(r, err, idx, off, "%s on queue %u (queues are numbered 0 to %d)", what, *queue,
                         GD_TRACE_MAX_QUEUES - 1);
    *submit_ns = gd_get64(p + 8);
    if (*submit_ns < r->last_submit_ns)
        return rec_error(r, err, idx, off,
                         "submit time %" PRIu64 " ns is earlier than the previous %s %" PRIu64
                         " ns (packet records must be in submit-time order)", *submit_ns,
                         r->last_was_wait ? "host wait's start," : "packet's", r->last_submit_ns);
    r->last_was_wait = 0;
    if (!r->have_origin) {
        r->have_origin = 1;
        r->origin_ns = *submit_ns;
        for (uint32_t t = 0; r->host_threads && t < GD_TRACE_MAX_THREADS; t++)  /* host threads start in time */
            if ((r->thread_state[t] & HOST_T_DECLARED) && r->thread_start[t] > r->origin_ns &&
                r->thread_start[t] - r->origin_ns > r->max_time_ps / GD_PS_PER_NS)
                return rec_error(r, err, idx, off, "host thread %u starts at %" PRIu64 " ns, %.3f s after the first "
                                 "packet's submit time (%" PRIu64 " ns), past the longest simulated time, %.0f s "
                                 "(sim.max_sim_time_s)", t, r->thread_start[t],
                                 (double)(r->thread_start[t] - r->origin_ns) * 1e-9, r->origin_ns,
                                 (double)r->max_time_ps * 1e-12);
    } else if (*submit_ns - r->origin_ns > r->max_time_ps / GD_PS_PER_NS) {
        return rec_error(r, err, idx, off,
                         "%s: submit time %" PRIu64 " ns is %.3f s after the first packet's (%" PRIu64 " ns), past "
                         "the longest simulated time, %.0f s (sim.max_sim_time_s)", what, *submit_ns,
                         (double)(*submit_ns - r->origin_ns) * 1e-9, r->origin_ns, (double)r->max_time_ps * 1e-12);
    }
    return 0;
}

/* A packet record's tenant field (format 1.6): u32 VID, u8 flags, u8 priority, 2 reserved bytes. */
static int get_tenant(gd_trace_reader *r, gd_tenant *t, const uint8_t *p, const char *what, uint64_t idx, uint64_t off,
                      gd_err *err)
{
    if (r->minor < 6)
        return rec_error(r, err, idx, off, "%s record with a tenant field (VID and flags) in a version 1.%u trace "
                         "(needs 1.6)", what, r->minor);
    t->vid = gd_get32(p);
    t->flags = p[4];
    t->priority = p[5];
    t->given = 1;
    if (t->vid >= GD_MAX_VIDS)
        return rec_error(r, err, idx, off, "%s: VID %u is too large (VIDs are 0 to %u)", what, t->vid, GD_MAX_VIDS - 1);
    if (t->flags & ~GD_CMD_FLAGS)
        return rec_error(r, err, idx, off, "%s: command flags 0x%02x (bits 0 sync, 1 conditional, 2 fails, 3 "
                         "independent are defined)", what, t->flags);
    if ((t->flags & GD_CMD_INDEPENDENT) && r->minor < 7)
        return rec_error(r, err, idx, off, "%s: command flag 3 (independent) in a version 1.%u trace (needs 1.7)",
                         what, r->minor);
    if (t->priority >= GD_PRIORITY_LEVELS)
        return rec_error(r, err, idx, off, "%s: priority %u (levels are 0, the highest, to %u)", what, t->priority,
                         GD_PRIORITY_LEVELS - 1);
    if (p[6] || p[7])
        return rec_error(r, err, idx, off, "%s: tenant field reserved bytes 6-7 are not zero", what);
    return 0;
}

/* Fence scopes 0-2 and header bits 13-15 clear. */
static int header_fences_ok(uint16_t header)
{
    unsigned acq = (header >> GD_AQL_HEADER_ACQUIRE_SHIFT) & GD_AQL_FENCE_SCOPE_MASK;
    unsigned rel = (header >> GD_AQL_HEADER_RELEASE_SHIFT) & GD_AQL_FENCE_SCOPE_MASK;
    return acq != 3 && rel != 3 && !(header >> 13);
}

/* Number a packet's completion signal (0: none). */
static int note_signal(gd_trace_reader *r, uint64_t handle, uint32_t *num, uint64_t idx, uint64_t off, gd_err *err)
{
    *num = GD_NO_SIGNAL;
    if (!handle)
        return 0;
    if (r->max_signals && r->signals.count >= r->max_signals && signal_find(&r->signals, handle) == MAP_ABSENT)
        return rec_error(r, err, idx, off, "completion signal 0x%" PRIx64 ": more than sim.max_signals (%u) distinct "
                         "completion-signal handles in one trace", handle, r->max_signals);
    if ((*num = signal_note(r, handle)) == GD_NO_SIGNAL)
        return gd_err_set(err, GD_ENOMEM, "out of memory (completion signals, record %" PRIu64 ", offset %" PRIu64 ")",
                          idx, off);
    return 0;
}

/* The checks every kernel dispatch passes, a plain one, a reference packet or one that
 * a condensed packet launches: `what` names it in the messages. */
enum { GD_DISPATCH_PLAIN, GD_DISPATCH_REFERENCE, GD_DISPATCH_CONDENSED };
static int check_dispatch(gd_trace_reader *r, gd_trace_dispatch *d, int ref, const char *what, uint64_t idx,
                          uint64_t off, gd_err *err)
{
    const gd_aql_dispatch *a = &d->pkt;
    int rc;
    unsigned type = gd_aql_type(a->header);
    if (type != GD_AQL_TYPE_KERNEL_DISPATCH)
        return rec_error(r, err, idx, off, "%s: header packet type is %u, expected %u (kernel dispatch)", what,
                         type, GD_AQL_TYPE_KERNEL_DISPATCH);
    if (!header_fences_ok(a->header))
        return rec_error(r, err, idx, off, "%s: header 0x%04x uses a reserved fence scope or bit", what,
                         a->header);
    unsigned dims = gd_aql_dims(a->setup);
    if (dims == 0 || (a->setup >> 2))
        return rec_error(r, err, idx, off, "%s: setup 0x%04x does not give 1 to 3 dimensions", what, a->setup);
    if (ref == GD_DISPATCH_PLAIN && a->reserved0)
        return rec_error(r, err, idx, off, "%s: reserved0 is %u but the record does not mark a reference packet "
                         "(flags bit 0, format 1.5)", what, a->reserved0);
    if (ref == GD_DISPATCH_REFERENCE && a->reserved0 >= r->rst.size)
        return rec_error(r, err, idx, off, "%s: ref_num %u is beyond the reference state table's %u entries "
                         "(rsb.entries)", what, a->reserved0, r->rst.size);
    if (a->reserved2)
        return rec_error(r, err, idx, off, "%s: reserved2 is not zero", what);
    if (a->kernel_object > UINT32_MAX || !(d->kernel = desc_find(r, (uint32_t)a->kernel_object)))
        return rec_error(r, err, idx, off, "%s: kernel_object %" PRIu64 " names no kernel descriptor "
                         "defined before it", what, a->kernel_object);
    const gd_kernel_desc *k = d->kernel;
    uint64_t threads = 1;
    d->ctas = 1;
    for (unsigned i = 0; i < 3; i++) {
        uint32_t wg = a->workgroup_size[i], gs = a->grid_size[i];
        if (i >= dims && (wg != 1 || gs != 1))
            return rec_error(r, err, idx, off,
                             "%s: a %u-dimensional grid must have workgroup_size_%c and grid_size_%c 1 "
                             "(found %u and %u)", what, dims, DIM[i], DIM[i], wg, gs);
        if (wg == 0)
            return rec_error(r, err, idx, off, "%s: workgroup_size_%c is 0", what, DIM[i]);
        if (gs == 0)
            return rec_error(r, err, idx, off, "%s: grid_size_%c is 0 (a grid needs at least one "
                             "work-item in every dimension)", what, DIM[i]);
        threads *= wg;
        d->grid_ctas[i] = (uint32_t)gd_div_ceil(gs, wg);
        if (d->grid_ctas[i] > r->max_grid[i])
            return rec_error(r, err, idx, off, "%s: %u CTAs along %c exceed the device's grid limit of %u", what,
                             d->grid_ctas[i], DIM[i], r->max_grid[i]);
        if (__builtin_mul_overflow(d->ctas, (uint64_t)d->grid_ctas[i], &d->ctas))
            return rec_error(r, err, idx, off, "%s: the grid's CTA count overflows 64 bits", what);
    }
    if (__builtin_add_overflow(r->ctas, d->ctas, &r->ctas) || (r->max_ctas && r->ctas > r->max_ctas))
        return rec_error(r, err, idx, off, "%s: a grid of %u x %u x %u CTAs takes the trace to more than %" PRIu64
                         " CTAs (sim.max_ctas; 0: no limit)", what, d->grid_ctas[0], d->grid_ctas[1],
                         d->grid_ctas[2], r->max_ctas ? r->max_ctas : UINT64_MAX);
    const gd_cluster *cl = &d->cluster;
    for (unsigned i = 0; i < 3; i++) {
        if (cl->dim[i] == 0)
            return rec_error(r, err, idx, off, "dispatch cluster shape: cluster_%c is 0", DIM[i]);
        if (d->grid_ctas[i] % cl->dim[i])
            return rec_error(r, err, idx, off, "dispatch cluster shape: the grid's %u CTAs along %c are not a "
                             "multiple of the cluster's %u", d->grid_ctas[i], DIM[i], cl->dim[i]);
    }
    if (cl->gpu_cga == 0)
        return rec_error(r, err, idx, off, "dispatch cluster shape: GPC-CGAs per GPU-CGA is 0");
    if (cl->mode > GD_CGA_MULTICAST)
        return rec_error(r, err, idx, off, "dispatch cluster shape: mode %u is neither 0 (load_balance) nor 1 "
                         "(multicast)", cl->mode);
    uint64_t gpc_cgas = d->ctas / ((uint64_t)cl->dim[0] * cl->dim[1] * cl->dim[2]);
    if (gpc_cgas % cl->gpu_cga)
        return rec_error(r, err, idx, off, "dispatch cluster shape: the grid's %" PRIu64 " GPC-CGAs are not a "
                         "multiple of %u GPC-CGAs per GPU-CGA", gpc_cgas, cl->gpu_cga);
    if (threads > r->limits.max_threads_per_cta)
        return rec_error(r, err, idx, off, "%s: workgroup of %" PRIu64 " work-items exceeds the device's "
                         "limit of %u threads per CTA", what, threads, r->limits.max_threads_per_cta);
    if (threads != k->threads_per_cta)
        return rec_error(r, err, idx, off, "%s: workgroup of %" PRIu64 " work-items but kernel '%s' "
                         "(descriptor %u) is described with %u threads per CTA", what, threads, k->name, k->id,
                         k->threads_per_cta);
    if ((uint64_t)a->group_segment_size != (uint64_t)k->static_smem + k->dynamic_smem)
        return rec_error(r, err, idx, off, "%s: group_segment_size %u but kernel '%s' (descriptor %u) "
                         "uses %u bytes of shared memory (static %u + dynamic %u)", what, a->group_segment_size, k->name,
                         k->id, k->static_smem + k->dynamic_smem, k->static_smem, k->dynamic_smem);
    if (d->info.cta_duration_ps != GD_UNKNOWN)
        d->cta_ps = d->info.cta_duration_ps;
    else if (k->exec_model == GD_EXEC_FIXED_CTA)
        d->cta_ps = k->cta_duration_ps;
    else
        return rec_error(r, err, idx, off, "dispatch of kernel '%s' (descriptor %u, execution time per dispatch) gives "
                         "no CTA duration", k->name, k->id);
    if (d->cta_ps > r->max_time_ps)
        return rec_error(r, err, idx, off, "%s: kernel '%s': a CTA duration of %" PRIu64 " ps is past the longest "
                         "simulated time, %.0f s (sim.max_sim_time_s)", what, k->name, d->cta_ps,
                         (double)r->max_time_ps * 1e-12);
    if (gd_launch_info_waits(&d->info) && d->info.wait_until_ns > r->origin_ns &&
        d->info.wait_until_ns - r->origin_ns > r->max_time_ps / GD_PS_PER_NS)
        return rec_error(r, err, idx, off, "%s: wait-until time %" PRIu64 " ns is %.3f s after the first packet's "
                         "submit, past the longest simulated time, %.0f s (sim.max_sim_time_s)", what,
                         d->info.wait_until_ns, (double)(d->info.wait_until_ns - r->origin_ns) * 1e-9,
                         (double)r->max_time_ps * 1e-12);
    if (r->have_cluster_limits && gd_cluster_is_cga(cl) &&
        !(r->fits_kernel == k && gd_cluster_equal(&r->fits_cluster, cl))) {
        char why[256];
        if (cluster_never_fits(r, d, why, sizeof why))
            return rec_error(r, err, idx, off, "dispatch of kernel '%s' (descriptor %u) can never launch on this "
                             "GPU: %s", k->name, k->id, why);
        r->fits_kernel = k;
        r->fits_cluster = *cl;
    }
    if ((rc = note_signal(r, a->completion_signal, &d->signal, idx, off, err)) != 0)
        return rc;
    return 0;
}

static int parse_dispatch(gd_trace_reader *r, const uint8_t *p, uint32_t len, uint64_t idx, uint64_t off,
                          gd_trace_record *rec, gd_err *err)
{
    if (len != DISPATCH_SIZE && len != DISPATCH_SIZE + LAUNCH_INFO_SIZE &&
        len != DISPATCH_SIZE + LAUNCH_INFO_SIZE + WAIT_UNTIL_SIZE && len != DISPATCH_CLUSTER_SIZE &&
        len != DISPATCH_TENANT_SIZE)
        return rec_error(r, err, idx, off, "dispatch record is %u bytes, expected %u, %u, %u, %u or %u", len,
                         DISPATCH_SIZE, DISPATCH_SIZE + LAUNCH_INFO_SIZE,
                         DISPATCH_SIZE + LAUNCH_INFO_SIZE + WAIT_UNTIL_SIZE, DISPATCH_CLUSTER_SIZE,
                         DISPATCH_TENANT_SIZE);
    if (len >= DISPATCH_CLUSTER_SIZE && r->minor < 4)
        return rec_error(r, err, idx, off, "dispatch record with a cluster shape in a version 1.%u trace (needs 1.4)",
                         r->minor);
    if (len > DISPATCH_SIZE && r->minor < 1)
        return rec_error(r, err, idx, off, "dispatch record with launch info in a version 1.0 trace (needs 1.1)");
    if (len > DISPATCH_SIZE + LAUNCH_INFO_SIZE && r->minor < 3)
        return rec_error(r, err, idx, off, "dispatch record with a wait-until time in a version 1.%u trace (needs "
                         "1.3)", r->minor);
    gd_trace_dispatch *d = &rec->dispatch;
    d->info = gd_launch_info_unknown();
    if (len > DISPATCH_SIZE)
        get_launch_info(&d->info, p + DISPATCH_SIZE);
    if (len > DISPATCH_SIZE + LAUNCH_INFO_SIZE)
        d->info.wait_until_ns = gd_get64(p + DISPATCH_SIZE + LAUNCH_INFO_SIZE);
    d->cluster = gd_cluster_none();
    if (len >= DISPATCH_CLUSTER_SIZE) {
        const uint8_t *c = p + DISPATCH_CLUSTER_SIZE - CLUSTER_SIZE;
        for (int i = 0; i < 3; i++)
            d->cluster.dim[i] = gd_get16(c + 2 * i);
        d->cluster.gpu_cga = gd_get16(c + 6);
        d->cluster.mode = c[8];
        for (int i = 9; i < CLUSTER_SIZE; i++)
            if (c[i])
                return rec_error(r, err, idx, off, "dispatch cluster shape: reserved byte %d is not zero", i);
    }
    const uint16_t flags = gd_get16(p + 2);
    if ((flags & 1) && r->minor < 5)
        return rec_error(r, err, idx, off, "dispatch record marks a reference packet in a version 1.%u trace (needs "
                         "1.5)", r->minor);
    if ((flags & 2) && r->minor < 9)
        return rec_error(r, err, idx, off, "dispatch record marks a graph-launched kernel (flags bit 1) in a version "
                         "1.%u trace (needs 1.9)", r->minor);
    if ((flags & 4) && r->minor < 11)
        return rec_error(r, err, idx, off, "dispatch record marks a programmatic dependent launch (flags bit 2) in a "
                         "version 1.%u trace (needs 1.11)", r->minor);
    if ((flags & 4) && !gd_aql_barrier(gd_get16(p + 16)))
        return rec_error(r, err, idx, off, "dispatch record marks a programmatic dependent launch (flags bit 2) "
                         "without the barrier bit: it has no predecessor to overlap");
    d->graph = (flags & 2) != 0;
    d->programmatic = (flags & 4) != 0;
    int rc = packet_head(r, p, (flags & ~7u) || gd_get32(p + 4), "dispatch", idx, off, &d->queue, &d->submit_ns,
                         err);
    if (rc)
        return rc;
    gd_aql_decode(&d->pkt, p + 16);
    d->tenant = gd_tenant_default(d->queue, gd_aql_barrier(d->pkt.header));
    if (len == DISPATCH_TENANT_SIZE &&
        (rc = get_tenant(r, &d->tenant, p + DISPATCH_CLUSTER_SIZE, "dispatch", idx, off, err)) != 0)
        return rc;
    if ((rc = check_dispatch(r, d, flags & 1 ? GD_DISPATCH_REFERENCE : GD_DISPATCH_PLAIN, "dispatch packet", idx, off,
                             err)) != 0)
        return rc;
    d->ref_num = flags & 1 ? d->pkt.reserved0 : -1;
    if (flags & 1)
        gd_rst_store(&r->rst, &d->pkt);
    r->last_submit_ns = d->submit_ns;
    r->dispatches++;
    r->packets++;
    return 0;
}

static int parse_barrier(gd_trace_reader *r, unsigned type, const uint8_t *p, uint32_t len, uint64_t idx,
                         uint64_t off, gd_trace_record *rec, gd_err *err)
{
    const char *what = type == GD_REC_BARRIER_OR ? "barrier-OR" : "barrier-AND";
    unsigned aql_type = type == GD_REC_BARRIER_OR ? GD_AQL_TYPE_BARRIER_OR : GD_AQL_TYPE_BARRIER_AND;
    if (len != BARRIER_SIZE && len != BARRIER_SIZE + LAUNCH_INFO_SIZE && len != BARRIER_TENANT_SIZE)
        return rec_error(r, err, idx, off, "%s record is %u bytes, expected %u, %u or %u", what, len, BARRIER_SIZE,
                         BARRIER_SIZE + LAUNCH_INFO_SIZE, BARRIER_TENANT_SIZE);
    gd_trace_barrier *b = &rec->barrier;
    b->info = gd_launch_info_unknown();
    if (len > BARRIER_SIZE) {
        get_launch_info(&b->info, p + BARRIER_SIZE);
        if (b->info.cta_duration_ps != GD_UNKNOWN)
            return rec_error(r, err, idx, off, "%s packet: launch info gives a CTA duration (a barrier runs no CTAs; "
                             "write 0xFFFFFFFFFFFFFFFF)", what);
    }
    int rc = packet_head(r, p, gd_get16(p + 2) || gd_get32(p + 4), what, idx, off, &b->queue, &b->submit_ns, err);
    if (rc)
        return rc;
    gd_aql_barrier_decode(&b->pkt, p + 16);
    const gd_aql_barrier_pkt *a = &b->pkt;
    b->tenant = gd_tenant_default(b->queue, gd_aql_barrier(a->header));
    if (len == BARRIER_TENANT_SIZE &&
        (rc = get_tenant(r, &b->tenant, p + BARRIER_SIZE + LAUNCH_INFO_SIZE, what, idx, off, err)) != 0)
        return rc;
    if (gd_aql_type(a->header) != aql_type)
        return rec_error(r, err, idx, off, "%s packet: header packet type is %u, expected %u (%s)", what,
                         gd_aql_type(a->header), aql_type, what);
    if (!header_fences_ok(a->header))
        return rec_error(r, err, idx, off, "%s packet: header 0x%04x uses a reserved fence scope or bit", what,
                         a->header);
    if (a->reserved0 || a->reserved1 || a->reserved2)
        return rec_error(r, err, idx, off, "%s packet: reserved0, reserved1 and reserved2 must be zero", what);
    b->ndeps = 0;
    for (int i = 0; i < GD_AQL_MAX_DEPS; i++) {
        uint64_t h = a->dep_signal[i];
        if (!h)
            continue;
        if (h == a->completion_signal)
            return rec_error(r, err, idx, off, "%s packet: dep_signal[%d] 0x%" PRIx64 " is its own completion "
                             "signal: it would wait for itself", what, i, h);
        uint32_t n = signal_find(&r->signals, h);
        if (n == MAP_ABSENT)
            return rec_error(r, err, idx, off, "%s packet: dep_signal[%d] 0x%" PRIx64 " is not the completion signal "
                             "of any earlier packet, so nothing would ever signal it", what, i, h);
        b->dep[b->ndeps++] = n;
    }
    if (type == GD_REC_BARRIER_OR && b->ndeps == 0)
        return rec_error(r, err, idx, off, "barrier-OR packet without a dependency signal would never complete (HSA: "
                         "a null dep_signal of a barrier-OR is never satisfied)");
    if ((rc = note_signal(r, a->completion_signal, &b->signal, idx, off, err)) != 0)
        return rc;
    r->last_submit_ns = b->submit_ns;
    r->packets++;
    return 0;
}

#define CONDENSED_SIZE (16 + GD_AQL_PACKET_SIZE)  /* queue, flags, submit; the 64-byte packet */

static int parse_condensed(gd_trace_reader *r, const uint8_t *p, uint32_t len, uint64_t idx, uint64_t off,
                           gd_trace_record *rec, gd_err *err)
{
    gd_trace_condensed *c = &rec->condensed;
    if (len < CONDENSED_SIZE)
        return rec_error(r, err, idx, off, "condensed record is %u bytes, shorter than its fixed %u", len,
                         CONDENSED_SIZE);
    int rc = packet_head(r, p, gd_get16(p + 2) || gd_get32(p + 4), "condensed", idx, off, &c->queue, &c->submit_ns,
                         err);
    if (rc)
        return rc;
    gd_condensed_decode_bytes(&c->pkt, p + 16);
    if (c->pkt.header != GD_AQL_TYPE_CONDENSED_DISPATCH)
        return rec_error(r, err, idx, off, "condensed packet: header packet type is %u, expected %u (condensed "
                         "dispatch)", c->pkt.header, GD_AQL_TYPE_CONDENSED_DISPATCH);
    gd_aql_dispatch out[GD_CONDENSED_WORDS];
    char why[200];
    int n = gd_condensed_decode(&c->pkt, &r->rst, out, why, sizeof why);
    if (n < 0)
        return rec_error(r, err, idx, off, "condensed packet: %s", why);
    if (len != CONDENSED_SIZE && len != CONDENSED_SIZE + (uint32_t)n * LAUNCH_INFO_SIZE)
        return rec_error(r, err, idx, off, "condensed record is %u bytes, expected %u, or %u with launch info for its "
                         "%d kernels", len, CONDENSED_SIZE, CONDENSED_SIZE + (uint32_t)n * LAUNCH_INFO_SIZE, n);
    c->n = (uint32_t)n;
    for (int k = 0; k < n; k++) {
        gd_trace_dispatch *d = &c->kernel[k];
        memset(d, 0, sizeof *d);
        d->queue = c->queue;
        d->submit_ns = c->submit_ns;
        d->pkt = out[k];
        d->info = gd_launch_info_unknown();
        if (len > CONDENSED_SIZE)
            get_launch_info(&d->info, p + CONDENSED_SIZE + (uint32_t)k * LAUNCH_INFO_SIZE);
        d->cluster = gd_cluster_none();
        d->ref_num = out[k].reserved0;
        char what[64];
        snprintf(what, sizeof what, "condensed packet, kernel %d (ref_num %u)", k, out[k].reserved0);
        if ((rc = check_dispatch(r, d, GD_DISPATCH_CONDENSED, what, idx, off, err)) != 0)
            return rc;
    }
    r->last_submit_ns = c->submit_ns;
    r->dispatches += (uint64_t)n;
    r->packets++;
    return 0;
}

static int parse_command(gd_trace_reader *r, const uint8_t *p, uint32_t len, uint64_t idx, uint64_t off,
                         gd_trace_record *rec, gd_err *err)
{
    if (len != COMMAND_SIZE && len != COMMAND_SIZE + LAUNCH_INFO_SIZE && len != COMMAND_TENANT_SIZE)
        return rec_error(r, err, idx, off, "non-kernel command record is %u bytes, expected %u, %u or %u", len,
                         COMMAND_SIZE, COMMAND_SIZE + LAUNCH_INFO_SIZE, COMMAND_TENANT_SIZE);
    gd_trace_command *c = &rec->command;
    c->info = gd_launch_info_unknown();
    if (len > COMMAND_SIZE) {
        get_launch_info(&c->info, p + COMMAND_SIZE);
        if (c->info.cta_duration_ps != GD_UNKNOWN)
            return rec_error(r, err, idx, off, "non-kernel command: launch info gives a CTA duration (a command runs "
                             "no CTAs; write 0xFFFFFFFFFFFFFFFF)");
    }
    int rc = packet_head(r, p, 0, "non-kernel command", idx, off, &c->queue, &c->submit_ns, err);
    if (rc)
        return rc;
    c->kind = gd_get16(p + 2);
    uint32_t flags = gd_get32(p + 4);
    c->duration_ps = gd_get64(p + 16);
    c->bytes = gd_get64(p + 24);
    c->completion_signal = gd_get64(p + 32);
    if (c->kind >= GD_CMD_KINDS)
        return rec_error(r, err, idx, off, "non-kernel command: unknown kind %u (known: 0 to %d)", c->kind,
                         GD_CMD_KINDS - 1);
    if (flags & ~3u)
        return rec_error(r, err, idx, off, "non-kernel command: flags 0x%08x (bit 0 barrier and bit 1 graph-launched "
                         "are defined)", flags);
    if ((flags & 2u) && r->minor < 9)
        return rec_error(r, err, idx, off, "non-kernel command marks a graph launch (flags bit 1) in a version 1.%u "
                         "trace (needs 1.9)", r->minor);
    c->barrier = flags & 1u;
    c->graph = (flags & 2u) != 0;
    c->tenant = gd_tenant_default(c->queue, c->barrier);
    if (len == COMMAND_TENANT_SIZE &&
        (rc = get_tenant(r, &c->tenant, p + COMMAND_SIZE + LAUNCH_INFO_SIZE, "non-kernel command", idx, off, err)) != 0)
        return rc;
    if (c->duration_ps > (gd_time_ps)1000000 * 1000000 * 3600 || c->duration_ps > r->max_time_ps)
        return rec_error(r, err, idx, off, "non-kernel command: duration of %" PRIu64 " ps is more than an hour%s",
                         c->duration_ps, c->duration_ps > r->max_time_ps ? " and past sim.max_sim_time_s" : "");
    if ((rc = note_signal(r, c->completion_signal, &c->signal, idx, off, err)) != 0)
        return rc;
    r->last_submit_ns = c->submit_ns;
    r->packets++;
    return 0;
}

#define PIPELINE_FIXED 32

/* A pipeline-launch packet (format 1.8): u16 queue, u16 reserved, u32 flags (bit 0
 * barrier), u64 submit ns, u64 completion signal, u32 topology bytes n, u32
 * reserved, then the topology's text. */
static int parse_pipeline(gd_trace_reader *r, const uint8_t *p, uint32_t len, uint64_t idx, uint64_t off,
                          gd_trace_record *rec, gd_err *err)
{
    static const char what[] = "pipeline-launch packet";
    if (len < PIPELINE_FIXED)
        return rec_error(r, err, idx, off, "%s record is %u bytes, shorter than its %u fixed bytes", what, len,
                         PIPELINE_FIXED);
    uint32_t n = gd_get32(p + 24);
    if (n == 0 || (uint64_t)n + PIPELINE_FIXED != len)
        return rec_error(r, err, idx, off, "%s: topology of %u bytes in a record of %u (expected %u + the topology, "
                         "at least 1 byte)", what, n, len, PIPELINE_FIXED);
    if (gd_get32(p + 28) != 0)
        return rec_error(r, err, idx, off, "%s record: reserved bytes 28-31 are not zero", what);
    gd_trace_pipeline *pl = &rec->pipeline;
    int rc = packet_head(r, p, gd_get16(p + 2) != 0, what, idx, off, &pl->queue, &pl->submit_ns, err);
    if (rc)
        return rc;
    uint32_t flags = gd_get32(p + 4);
    if (flags & ~1u)
        return rec_error(r, err, idx, off, "%s: flags 0x%08x (only bit 0, barrier, is defined)", what, flags);
    pl->barrier = flags & 1u;
    pl->completion_signal = gd_get64(p + 16);
    pl->tenant = gd_tenant_default(pl->queue, pl->barrier);
    gd_pipeline_def *d = calloc(1, sizeof *d);
    if (!d)
        return gd_err_set(err, GD_ENOMEM, "out of memory");
    gd_err perr;
    if (gd_topology_parse(&d->topo, (const char *)p + PIPELINE_FIXED, n, "topology", &perr)) {
        free(d);
        return rec_error(r, err, idx, off, "%s: %s", what, perr.msg);
    }
    gd_topo_limits lim = {r->simd_width ? r->simd_width : r->limits.warp_size};
    gd_topo_verdict v;
    size_t nerr = gd_topology_validate(&d->topo, &lim, &v, 1);
    if (nerr) {
        rc = rec_error(r, err, idx, off, "%s: topology '%s' is invalid (%zu error%s; the first: line %u: %s: %s: %s)",
                       what, d->topo.name[0] ? d->topo.name : "(unnamed)", nerr, nerr == 1 ? "" : "s", v.line,
                       v.part, gd_topo_rule_name(v.rule), v.text);
        free(d);
        return rc;
    }
    for (uint32_t i = 0; i < d->topo.nkernels; i++) {
        const gd_meta_kernel *mk = &d->topo.k[i];
        gd_kernel_desc *k = &d->desc[i];
        k->id = i;
        k->threads_per_cta = mk->threads;
        k->regs_per_thread = mk->regs;
        k->static_smem = mk->smem;
        k->exec_model = GD_EXEC_FIXED_CTA;
        k->cta_duration_ps = (mk->cta_ns + mk->ns_per_item * mk->items) * GD_PS_PER_NS;
        k->name = (char *)mk->name;
        k->record = idx;
        char why[512];
        if (fit_device(&r->limits, k, mk->name, why, sizeof why)) {
            rc = rec_error(r, err, idx, off, "%s: topology line %u: %s", what, mk->line, why);
            free(d);
            return rc;
        }
        if (k->cta_duration_ps > r->max_time_ps) {
            rc = rec_error(r, err, idx, off, "%s: topology line %u: kernel '%s': a CTA duration of %" PRIu64 " ps is "
                           "past the longest simulated time, %.0f s (sim.max_sim_time_s)", what, mk->line, mk->name,
                           k->cta_duration_ps, (double)r->max_time_ps * 1e-12);
            free(d);
            return rc;
        }
    }
    if (!(d->text = malloc(n))) {
        free(d);
        return gd_err_set(err, GD_ENOMEM, "out of memory");
    }
    memcpy(d->text, p + PIPELINE_FIXED, n);
    d->text_len = n;
    snprintf(d->row_name, sizeof d->row_name, "pipeline %s", d->topo.name[0] ? d->topo.name : "(unnamed)");
    d->row = d->desc[0];
    d->row.name = d->row_name;
    d->record = idx;
    d->offset = off;
    d->next = r->pipes;
    r->pipes = d;
    pl->def = d;
    if ((rc = note_signal(r, pl->completion_signal, &pl->signal, idx, off, err)) != 0)
        return rc;
    r->last_submit_ns = pl->submit_ns;
    r->packets++;
    return 0;
}

/* The calibration record (format 1.9): u32 provenance length P (1 .. 512), P bytes of
 * provenance (UTF-8, one line), then KEY = VALUE lines in --config syntax ('#'
 * comments), only launch timing keys (pp.gap_*, pp.gap_programmatic_lead_ns from 1.11, pp.idle_launch_ns
 * from 1.12), each at most once. */
static int parse_calibration(gd_trace_reader *r, const uint8_t *p, uint32_t len, uint64_t idx, uint64_t off,
                             gd_err *err)
{
    gd_trace_calibration *c = &r->calibration;
    memset(c, 0, sizeof *c);
    if (len < 4)
        return rec_error(r, err, idx, off, "calibration record is %u bytes: too short for its provenance length", len);
    uint32_t plen = gd_get32(p);
    if (plen < 1 || plen > GD_CALIBRATION_MAX_PROVENANCE || plen > len - 4)
        return rec_error(r, err, idx, off, "calibration record: provenance length %u (1 to %d, within the record's %u "
                         "bytes)", plen, GD_CALIBRATION_MAX_PROVENANCE, len - 4);
    const char *prov = (const char *)p + 4;
    for (uint32_t i = 0; i < plen; i++)
        if (prov[i] == '\0' || prov[i] == '\n' || prov[i] == '\r')
            return rec_error(r, err, idx, off, "calibration record: the provenance holds a %s at byte %u (one line of "
                             "text)", prov[i] ? "line break" : "NUL byte", i);
    if (!gd_utf8_valid(prov, plen))
        return rec_error(r, err, idx, off, "calibration record: the provenance is not valid UTF-8");
    memcpy(c->provenance, prov, plen);
    const char *t = prov + plen, *end = (const char *)p + len;
    unsigned line = 0;
    while (t < end) {
        const char *nl = memchr(t, '\n', (size_t)(end - t));
        const char *le = nl ? nl : end;
        line++;
        char buf[256];
        size_t n = (size_t)(le - t);
        if (n >= sizeof buf)
            return rec_error(r, err, idx, off, "calibration record, line %u: longer than %zu bytes", line,
                             sizeof buf - 1);
        memcpy(buf, t, n);
        buf[n] = '\0';
        t = nl ? nl + 1 : end;
        if (memchr(buf, '\0', n))
            return rec_error(r, err, idx, off, "calibration record, line %u: a NUL byte", line);
        if (!nl)
            return rec_error(r, err, idx, off, "calibration record, line %u: does not end in a line feed (the "
                             "record was cut short?)", line);
        if (memchr(buf, '\r', n))
            return rec_error(r, err, idx, off, "calibration record, line %u: a carriage return (lines end in a "
                             "line feed alone)", line);
        char *k, *v;
        int kind = gd_config_line(buf, &k, &v);
        if (kind == 0)
            continue;
        if (kind < 0)
            return rec_error(r, err, idx, off, "calibration record, line %u: expected KEY = VALUE", line);
        char why[160];
        if (gd_config_check_calibration(k, v, why, sizeof why))
            return rec_error(r, err, idx, off, "calibration record, line %u: %s", line, why);
        const unsigned need = (unsigned)gd_config_calibration_minor(k);
        if (r->minor < need)
            return rec_error(r, err, idx, off, "calibration record, line %u: %s needs format 1.%u (the file is "
                             "1.%u)", line, k, need, r->minor);
        for (uint32_t i = 0; i < c->n; i++)
            if (strcmp(c->key[i], k) == 0)
                return rec_error(r, err, idx, off, "calibration record, line %u: %s is set twice", line, k);
        if (c->n == GD_CALIBRATION_MAX_KEYS)
            return rec_error(r, err, idx, off, "calibration record, line %u: more than %d settings", line,
                             GD_CALIBRATION_MAX_KEYS);
        size_t kl = strlen(k), vl = strlen(v);
        if (kl >= sizeof c->key[0] || vl >= sizeof c->value[0])
            return rec_error(r, err, idx, off, "calibration record, line %u: the key or value is too long", line);
        memcpy(c->key[c->n], k, kl + 1);
        memcpy(c->value[c->n], v, vl + 1);
        c->n++;
    }
    if (c->n == 0)
        return rec_error(r, err, idx, off, "calibration record: no KEY = VALUE settings");
    r->have_calibration = 1;
    return 0;
}

const gd_trace_calibration *gd_trace_calibration_of(const gd_trace_reader *r)
{
    return r->have_calibration ? &r->calibration : NULL;
}

/* The host model (format 1.10). A thread id of a call or wait record: declared, and not
 * past its last record; no host record between a call and its packets. */
static int host_thread_ok(gd_trace_reader *r, uint32_t thread, const char *what, uint64_t idx, uint64_t off,
                          gd_err *err)
{
    if (r->call_left)
        return rec_error(r, err, idx, off, "%s record between host call record %" PRIu64 " and its packets (%u more "
                         "packet record(s) must come first)", what, r->call_index, r->call_left);
    if (thread >= GD_TRACE_MAX_THREADS || !r->thread_state || !(r->thread_state[thread] & HOST_T_DECLARED))
        return rec_error(r, err, idx, off, "%s for host thread %u, which no host thread record declared", what,
                         thread);
    if (r->thread_state[thread] & HOST_T_ENDED)
        return rec_error(r, err, idx, off, "%s for host thread %u after the record marked its last", what, thread);
    return 0;
}

static int host_time_ok(gd_trace_reader *r, uint64_t ns, const char *field, const char *what, uint64_t idx,
                        uint64_t off, gd_err *err)
{
    if (ns > r->max_time_ps / GD_PS_PER_NS)
        return rec_error(r, err, idx, off, "%s: %s of %" PRIu64 " ns is past the longest simulated time, %.0f s "
                         "(sim.max_sim_time_s)", what, field, ns, (double)r->max_time_ps * 1e-12);
    return 0;
}

static int parse_host_thread(gd_trace_reader *r, const uint8_t *p, uint32_t len, uint64_t idx, uint64_t off,
                             gd_trace_record *rec, gd_err *err)
{
    if (len < HOST_THREAD_FIXED || len != HOST_THREAD_FIXED + (uint32_t)gd_get16(p + 16))
        return rec_error(r, err, idx, off, "host thread record is %u bytes, expected %u + its name's length", len,
                         HOST_THREAD_FIXED);
    gd_trace_host_thread *t = &rec->host_thread;
    t->thread = gd_get32(p);
    t->start_ns = gd_get64(p + 8);
    uint32_t n = gd_get16(p + 16);
    if (gd_get32(p + 4))
        return rec_error(r, err, idx, off, "host thread record: flags 0x%08x are not zero", gd_get32(p + 4));
    if (r->have_origin || r->host_calls)
        return rec_error(r, err, idx, off, "host thread record after the first %s (every host thread is declared "
                         "before)", r->have_origin ? "packet record" : "host call or wait record");
    if (t->thread >= GD_TRACE_MAX_THREADS)
        return rec_error(r, err, idx, off, "host thread %u (host threads are numbered 0 to %d)", t->thread,
                         GD_TRACE_MAX_THREADS - 1);
    if (n > HOST_THREAD_NAME_MAX)
        return rec_error(r, err, idx, off, "host thread %u: a name of %u bytes (at most %d)", t->thread, n,
                         HOST_THREAD_NAME_MAX);
    if (!r->thread_state && !(r->thread_state = calloc(GD_TRACE_MAX_THREADS, 1)))
        return gd_err_set(err, GD_ENOMEM, "out of memory (host threads, record %" PRIu64 ")", idx);
    if (r->thread_state[t->thread] & HOST_T_DECLARED)
        return rec_error(r, err, idx, off, "host thread %u is declared twice", t->thread);
    if (!r->thread_start && !(r->thread_start = calloc(GD_TRACE_MAX_THREADS, sizeof *r->thread_start)))
        return gd_err_set(err, GD_ENOMEM, "out of memory (host threads, record %" PRIu64 ")", idx);
    r->thread_start[t->thread] = t->start_ns;  /* checked against the first packet's submit time */
    name_cut(t->name, sizeof t->name, p + HOST_THREAD_FIXED, n);
    r->thread_state[t->thread] = HOST_T_DECLARED;
    r->host_threads++;
    return 0;
}

static int parse_host_call(gd_trace_reader *r, const uint8_t *p, uint32_t len, uint64_t idx, uint64_t off,
                           gd_trace_record *rec, gd_err *err)
{
    static const char what[] = "host call";
    if (len != HOST_CALL_SIZE)
        return rec_error(r, err, idx, off, "host call record is %u bytes, expected %u", len, HOST_CALL_SIZE);
    gd_trace_host_call *c = &rec->host_call;
    c->thread = gd_get32(p);
    c->packets = gd_get32(p + 4);
    c->gap_ns = gd_get64(p + 8);
    c->flags = gd_get32(p + 16);
    int rc = host_thread_ok(r, c->thread, what, idx, off, err);
    if (rc)
        return rc;
    if (c->flags & ~GD_HOST_LAST)
        return rec_error(r, err, idx, off, "host call: flags 0x%08x (bit 0, the thread's last record, is defined)",
                         c->flags);
    if (gd_get32(p + 20))
        return rec_error(r, err, idx, off, "host call: reserved bytes 20-23 are not zero");
    if (c->packets < 1 || c->packets > GD_TRACE_MAX_CALL_PACKETS)
        return rec_error(r, err, idx, off, "host call of thread %u submits %u packets (1 to %d)", c->thread,
                         c->packets, GD_TRACE_MAX_CALL_PACKETS);
    if ((rc = host_time_ok(r, c->gap_ns, "gap", what, idx, off, err)) != 0)
        return rc;
    if (c->flags & GD_HOST_LAST)
        r->thread_state[c->thread] |= HOST_T_ENDED;
    r->call_left = c->packets;
    r->call_index = idx;
    r->host_calls++;
    return 0;
}

static int parse_host_wait(gd_trace_reader *r, const uint8_t *p, uint32_t len, uint64_t idx, uint64_t off,
                           gd_trace_record *rec, gd_err *err)
{
    static const char what[] = "host wait";
    if (len != HOST_WAIT_SIZE)
        return rec_error(r, err, idx, off, "host wait record is %u bytes, expected %u", len, HOST_WAIT_SIZE);
    gd_trace_host_wait *h = &rec->host_wait;
    h->thread = gd_get32(p);
    h->kind = gd_get16(p + 4);
    h->flags = gd_get16(p + 6);
    h->target = gd_get64(p + 8);
    h->time_ns = gd_get64(p + 16);
    h->gap_ns = gd_get64(p + 24);
    h->tail_ns = gd_get64(p + 32);
    h->signal = GD_NO_SIGNAL;
    int rc = host_thread_ok(r, h->thread, what, idx, off, err);
    if (rc)
        return rc;
    if (h->flags & ~(GD_HOST_LAST | GD_HOST_POLLING))
        return rec_error(r, err, idx, off, "host wait: flags 0x%04x (bit 0 the thread's last record and bit 1 "
                         "polling are defined)", h->flags);
    if (!r->have_origin)
        return rec_error(r, err, idx, off, "host wait before the first packet record: nothing to wait for");
    if (h->time_ns < r->last_submit_ns)
        return rec_error(r, err, idx, off, "host wait: its start, %" PRIu64 " ns, is earlier than the previous %s %"
                         PRIu64 " ns (records must be in time order)", h->time_ns,
                         r->last_was_wait ? "host wait's start," : "packet's submit time,", r->last_submit_ns);
    if (h->time_ns - r->origin_ns > r->max_time_ps / GD_PS_PER_NS)
        return rec_error(r, err, idx, off, "host wait: its start, %" PRIu64 " ns, is %.3f s after the first "
                         "packet's, past the longest simulated time, %.0f s (sim.max_sim_time_s)", h->time_ns,
                         (double)(h->time_ns - r->origin_ns) * 1e-9, (double)r->max_time_ps * 1e-12);
    if ((rc = host_time_ok(r, h->gap_ns, "gap", what, idx, off, err)) != 0 ||
        (rc = host_time_ok(r, h->tail_ns, "tail", what, idx, off, err)) != 0)
        return rc;
    switch (h->kind) {
    case GD_WAIT_SIGNAL:
        if (!h->target || (h->signal = signal_find(&r->signals, h->target)) == MAP_ABSENT)
            return rec_error(r, err, idx, off, "host wait for signal 0x%" PRIx64 ", which is not the completion "
                             "signal of any earlier packet", h->target);
        break;
    case GD_WAIT_QUEUE:
        if (h->target >= GD_TRACE_MAX_QUEUES)
            return rec_error(r, err, idx, off, "host wait for queue %" PRIu64 " (queues are numbered 0 to %d)",
                             h->target, GD_TRACE_MAX_QUEUES - 1);
        break;
    case GD_WAIT_DEVICE:
        if (h->target)
            return rec_error(r, err, idx, off, "host wait for the device: target %" PRIu64 " is not 0", h->target);
        break;
    default:
        return rec_error(r, err, idx, off, "host wait: unknown kind %u (1 signal, 2 queue, 3 device)", h->kind);
    }
    if (h->flags & GD_HOST_LAST)
        r->thread_state[h->thread] |= HOST_T_ENDED;
    r->last_submit_ns = h->time_ns;
    r->last_was_wait = 1;
    r->host_calls++;
    return 0;
}

/* After each packet record: it belongs to the open host call, if any; a trace with host
 * threads has no packet without one. */
static int host_packet(gd_trace_reader *r, uint64_t idx, uint64_t off, gd_err *err)
{
    if (r->call_left) {
        r->call_left--;
        return 0;
    }
    if (r->host_threads)
        return rec_error(r, err, idx, off, "a packet that no host call submits, in a trace with host threads (each "
                         "packet of such a trace comes after the host call record that submits it)");
    return 0;
}

static int next_record(gd_trace_reader *r, gd_trace_record *rec, gd_err *err);

/* Every failure names the file and the record; out of memory too, with the limits that
 * bound what a trace may take. */
int gd_trace_next(gd_trace_reader *r, gd_trace_record *rec, gd_err *err)
{
    int rc = next_record(r, rec, err);
    if (rc == GD_ENOMEM && err && !strcmp(err->msg, "out of memory"))
        gd_err_set(err, GD_ENOMEM, "%s: record %" PRIu64 " (offset %" PRIu64 "): out of memory reading it (%zu "
                   "kernel descriptors and %" PRIu64 " packets read before it; sim.max_kernel_descriptors, "
                   "sim.max_descriptor_mib and sim.max_ctas bound what a trace may take)", r->path, rec->index,
                   rec->offset, r->ndescs, r->packets);
    return rc;
}

static int next_record(gd_trace_reader *r, gd_trace_record *rec, gd_err *err)
{
    if (r->done)
        return 0;
    uint8_t frame[GD_TRACE_FRAME_SIZE];
    uint64_t idx = r->records, off = r->offset;
    int rc;
    if (r->pending) {  /* gd_trace_open looked at record 1's frame already */
        off -= GD_TRACE_FRAME_SIZE;
        memcpy(frame, r->pending_frame, sizeof frame);
        r->pending = 0;
        rc = 0;
    } else if (r->pending_eof) {
        rc = 1;
    } else {
        rc = read_exact(r, frame, sizeof frame, idx, off, 1, err);
    }
    rec->index = idx;
    rec->offset = off;
    if (rc == 1)
        return rec_error(r, err, idx, off, "the trace ends without an end record: truncated trace");
    if (rc)
        return rc;
    unsigned type = gd_get16(frame);
    unsigned flags = gd_get16(frame + 2);
    uint32_t len = gd_get32(frame + 4);
    if (flags)
        return rec_error(r, err, idx, off, "record flags 0x%04x are not zero", flags);
    switch (type) {
    case GD_REC_KERNEL:
    case GD_REC_DISPATCH:
    case GD_REC_END:
        break;
    case GD_REC_HEADER:
        return rec_error(r, err, idx, off, "a second header record");
    case GD_REC_BARRIER_AND:
    case GD_REC_BARRIER_OR:
    case GD_REC_NONKERNEL:
        if (r->minor >= 2)
            break;
        return rec_error(r, err, idx, off, "record type %u (%s) in a version 1.%u trace (needs format 1.2)", type,
                         gd_record_type_name(type), r->minor);
    case GD_REC_CONDENSED:
        if (r->minor >= 5)
            break;
        return rec_error(r, err, idx, off, "record type %u (%s) in a version 1.%u trace (needs format 1.5)", type,
                         gd_record_type_name(type), r->minor);
    case GD_REC_PIPELINE:
        if (r->minor >= 8)
            break;
        return rec_error(r, err, idx, off, "record type %u (%s) in a version 1.%u trace (needs format 1.8)", type,
                         gd_record_type_name(type), r->minor);
    case GD_REC_HOST_THREAD:
    case GD_REC_HOST_CALL:
    case GD_REC_HOST_WAIT:
        if (r->minor >= 10)
            break;
        return rec_error(r, err, idx, off, "record type %u (%s) in a version 1.%u trace (needs format 1.10)", type,
                         gd_record_type_name(type), r->minor);
    case GD_REC_CALIBRATION:
        if (r->minor < 9)
            return rec_error(r, err, idx, off, "record type %u (%s) in a version 1.%u trace (needs format 1.9)", type,
                             gd_record_type_name(type), r->minor);
        return rec_error(r, err, idx, off, "a calibration record must directly follow the header (record 1)%s",
                         r->have_calibration ? ", and a trace has at most one" : "");
    case GD_REC_MT_COMMAND:
        return rec_error(r, err, idx, off, "record type %u (%s) is reserved for a later version of gdsim; this build "
                         "cannot replay it", type, gd_record_type_name(type));
    default:
        return rec_error(r, err, idx, off, "unknown record type %u", type);
    }
    if (len > GD_TRACE_MAX_RECORD)
        return rec_error(r, err, idx, off, "record length %u is beyond the format's limit of %u bytes", len,
                         GD_TRACE_MAX_RECORD);
    /* The payload where the block inflated holds it whole (no copy; valid until the
       next read), else copied into buf. */
    const uint8_t *p = in_take(&r->in, len);
    if (p) {
        r->offset += len;
    } else {
        if (ensure_buf(r, len))
            return gd_err_set(err, GD_ENOMEM, "out of memory");
        if ((rc = read_exact_slow(r, r->buf, len, idx, off, 0, err)) != 0)
            return rc;
        p = r->buf;
    }
    rec->type = type;
    r->records++;
    switch (type) {
    case GD_REC_KERNEL:
        return (rc = parse_kernel(r, p, len, idx, off, rec, err)) ? rc : 1;
    case GD_REC_DISPATCH:
        rc = parse_dispatch(r, p, len, idx, off, rec, err);
        break;
    case GD_REC_BARRIER_AND:
    case GD_REC_BARRIER_OR:
        rc = parse_barrier(r, type, p, len, idx, off, rec, err);
        break;
    case GD_REC_NONKERNEL:
        rc = parse_command(r, p, len, idx, off, rec, err);
        break;
    case GD_REC_CONDENSED:
        rc = parse_condensed(r, p, len, idx, off, rec, err);
        break;
    case GD_REC_PIPELINE:
        rc = parse_pipeline(r, p, len, idx, off, rec, err);
        break;
    case GD_REC_HOST_THREAD:
        return (rc = parse_host_thread(r, p, len, idx, off, rec, err)) ? rc : 1;
    case GD_REC_HOST_CALL:
        return (rc = parse_host_call(r, p, len, idx, off, rec, err)) ? rc : 1;
    case GD_REC_HOST_WAIT:
        return (rc = parse_host_wait(r, p, len, idx, off, rec, err)) ? rc : 1;
    default: { /* GD_REC_END */
        if (len != END_SIZE)
            return rec_error(r, err, idx, off, "end record is %u bytes, expected %u", len, END_SIZE);
        if (r->call_left)
            return rec_error(r, err, idx, off, "the trace ends %u packet record(s) short of what host call record %"
                             PRIu64 " submits", r->call_left, r->call_index);
        uint64_t nrec = gd_get64(p), npkt = gd_get64(p + 8);
        if (nrec != idx || npkt != r->packets)
            return rec_error(r, err, idx, off, "end record counts %" PRIu64 " records and %" PRIu64 " packets but "
                             "the trace holds %" PRIu64 " and %" PRIu64 ": records are missing or extra", nrec, npkt,
                             idx, r->packets);
        /* Nothing may follow, and the gzip trailer (CRC) must check out. */
        uint8_t extra;
        uint64_t eoff = r->offset;
        rc = read_exact(r, &extra, 1, idx + 1, eoff, 1, err);
        if (rc == 0)
            return rec_error(r, err, idx + 1, eoff, "data after the end record");
        if (rc < 0)
            return rc;
        r->done = 1;
        return 0;
    }
    }
    /* a packet record */
    return rc ? rc : (rc = host_packet(r, idx, off, err)) ? rc : 1;
}

/* ------------------------------------------------------------------------- */
/* Writer                                                                     */

struct gd_trace_writer {
    gzFile gz;
    char *path;
    uint64_t records, packets;
};

static int w_bytes(gd_trace_writer *w, const void *p, uint32_t n, gd_err *err)
{
    if (n && gzwrite(w->gz, p, n) != (int)n) {
        int zerr;
        const char *msg = gzerror(w->gz, &zerr);
        return gd_err_set(err, GD_EIO, "%s: write failed: %s", w->path, zerr == Z_ERRNO ? strerror(errno) : msg);
    }
    return 0;
}

int gd_trace_write_raw(gd_trace_writer *w, unsigned type, const void *payload, uint32_t len, gd_err *err)
{
    uint8_t frame[GD_TRACE_FRAME_SIZE];
    gd_put16(frame, (uint16_t)type);
    gd_put16(frame + 2, 0);
    gd_put32(frame + 4, len);
    int rc = w_bytes(w, frame, sizeof frame, err);
    if (!rc)
        rc = w_bytes(w, payload, len, err);
    if (!rc) {
        w->records++;
        if (type == GD_REC_DISPATCH || type == GD_REC_BARRIER_AND || type == GD_REC_BARRIER_OR ||
            type == GD_REC_NONKERNEL || type == GD_REC_CONDENSED || type == GD_REC_PIPELINE)
            w->packets++;
    }
    return rc;
}

int gd_trace_create(gd_trace_writer **out, const char *path, const gd_trace_device *dev, const char *producer,
                    int level, gd_err *err)
{
    *out = NULL;
    gd_trace_writer *w = calloc(1, sizeof *w);
    if (!w || !(w->path = strdup(path))) {
        free(w);
        return gd_err_set(err, GD_ENOMEM, "out of memory");
    }
    char mode[8];
    snprintf(mode, sizeof mode, "wb%d", level >= 1 && level <= 9 ? level : 6);
    w->gz = gzopen(path, mode);
    if (!w->gz) {
        int e = errno;
        free(w->path);
        free(w);
        return gd_err_set(err, GD_EIO, "%s: cannot create: %s", path, e ? strerror(e) : "out of memory");
    }
    gzbuffer(w->gz, 1u << 18);
    uint8_t fh[GD_TRACE_FILE_HEADER_SIZE];
    memcpy(fh, GD_TRACE_MAGIC, 8);
    gd_put16(fh + 8, GD_TRACE_VERSION_MAJOR);
    gd_put16(fh + 10, GD_TRACE_VERSION_MINOR);
    gd_put32(fh + 12, 0);
    size_t nl = strlen(dev->name), pl = producer ? strlen(producer) : 0;
    if (nl > 63)
        nl = 63;
    if (pl > 255)
        pl = 255;
    uint32_t gpcs = dev->gpcs > GD_MAX_GPCS ? GD_MAX_GPCS : dev->gpcs;
    uint32_t len = HEADER_FIXED + 4 * gpcs + 2 + (uint32_t)nl + 2 + (uint32_t)pl;
    uint8_t *p = calloc(1, len);
    if (!p) {
        gd_trace_abandon(w);
        return gd_err_set(err, GD_ENOMEM, "out of memory");
    }
    uint32_t f[11] = {dev->cc_major, dev->cc_minor, dev->sms, dev->max_threads_per_sm, dev->regs_per_sm,
                      dev->smem_per_sm, dev->smem_per_cta_default, dev->smem_per_cta_optin,
                      dev->max_threads_per_cta, dev->warp_size, gpcs};
    for (int i = 0; i < 11; i++)
        gd_put32(p + 4 * i, f[i]);
    uint32_t pos = HEADER_FIXED;
    for (uint32_t g = 0; g < gpcs; g++, pos += 4)
        gd_put32(p + pos, dev->sms_per_gpc[g]);
    gd_put16(p + pos, (uint16_t)nl);
    memcpy(p + pos + 2, dev->name, nl);
    pos += 2 + (uint32_t)nl;
    gd_put16(p + pos, (uint16_t)pl);
    if (pl)
        memcpy(p + pos + 2, producer, pl);
    int rc = w_bytes(w, fh, sizeof fh, err);
    if (!rc)
        rc = gd_trace_write_raw(w, GD_REC_HEADER, p, len, err);
    free(p);
    if (rc) {
        gd_trace_abandon(w);
        return rc;
    }
    *out = w;
    return GD_OK;
}

int gd_trace_write_kernel(gd_trace_writer *w, const gd_kernel_desc *k, gd_err *err)
{
    size_t nl = strlen(k->name);
    if (nl > GD_TRACE_MAX_NAME)
        return gd_err_set(err, GD_EINVAL, "kernel name of %zu bytes is longer than %d", nl, GD_TRACE_MAX_NAME);
    uint32_t mix = k->has_insn ? INSN_MIX_SIZE : 0;
    uint8_t *p = malloc(KERNEL_FIXED + 2 + nl + mix);
    if (!p)
        return gd_err_set(err, GD_ENOMEM, "out of memory");
    gd_put32(p, k->id);
    gd_put32(p + 4, k->threads_per_cta);
    gd_put32(p + 8, k->regs_per_thread);
    gd_put32(p + 12, k->static_smem);
    gd_put32(p + 16, k->dynamic_smem);
    gd_put32(p + 20, k->exec_model);
    gd_put64(p + 24, k->cta_duration_ps);
    gd_put16(p + KERNEL_FIXED, (uint16_t)nl);
    memcpy(p + KERNEL_FIXED + 2, k->name, nl);
    for (int c = 0; mix && c < GD_INSN_CLASSES; c++)
        gd_put64(p + KERNEL_FIXED + 2 + nl + 8 * c, k->insn[c]);
    int rc = gd_trace_write_raw(w, GD_REC_KERNEL, p, (uint32_t)(KERNEL_FIXED + 2 + nl + mix), err);
    free(p);
    return rc;
}

static void put_launch_info(uint8_t *p, const gd_launch_info *info)
{
    gd_put64(p, info->cta_duration_ps);
    gd_put64(p + 8, info->source_id);
    gd_put64(p + 16, info->measured_start_ns);
    gd_put64(p + 24, info->measured_dur_ns);
}

static int write_dispatch(gd_trace_writer *w, uint32_t queue, uint64_t submit_ns, const gd_aql_dispatch *pkt,
                          const gd_launch_info *info, uint16_t flags, gd_err *err)
{
    uint8_t p[DISPATCH_SIZE + LAUNCH_INFO_SIZE + WAIT_UNTIL_SIZE];
    uint32_t len = DISPATCH_SIZE;
    memset(p, 0, sizeof p);
    gd_put16(p, (uint16_t)queue);
    gd_put16(p + 2, flags);
    gd_put64(p + 8, submit_ns);
    gd_aql_encode(p + 16, pkt);
    if (info) {
        put_launch_info(p + DISPATCH_SIZE, info);
        len += LAUNCH_INFO_SIZE;
        if (gd_launch_info_waits(info)) {
            gd_put64(p + len, info->wait_until_ns);
            len += WAIT_UNTIL_SIZE;
        }
    }
    return gd_trace_write_raw(w, GD_REC_DISPATCH, p, len, err);
}

int gd_trace_write_dispatch(gd_trace_writer *w, uint32_t queue, uint64_t submit_ns, const gd_aql_dispatch *pkt,
                            const gd_launch_info *info, gd_err *err)
{
    return write_dispatch(w, queue, submit_ns, pkt, info, 0, err);
}

int gd_trace_write_reference(gd_trace_writer *w, uint32_t queue, uint64_t submit_ns, const gd_aql_dispatch *pkt,
                             const gd_launch_info *info, gd_err *err)
{
    return write_dispatch(w, queue, submit_ns, pkt, info, 1, err);
}

int gd_trace_write_condensed(gd_trace_writer *w, uint32_t queue, uint64_t submit_ns, const gd_condensed_pkt *pkt,
                             const gd_launch_info *infos, gd_err *err)
{
    uint8_t p[CONDENSED_SIZE + GD_CONDENSED_WORDS * LAUNCH_INFO_SIZE];
    uint32_t len = CONDENSED_SIZE;
    memset(p, 0, sizeof p);
    gd_put16(p, (uint16_t)queue);
    gd_put64(p + 8, submit_ns);
    gd_condensed_encode_bytes(p + 16, pkt);
    if (infos) {
        if (pkt->num_kernels > GD_CONDENSED_WORDS)
            return gd_err_set(err, GD_EINVAL, "a condensed packet holds at most %d kernels", GD_CONDENSED_WORDS);
        for (uint32_t k = 0; k < pkt->num_kernels; k++) {
            if (gd_launch_info_waits(&infos[k]))
                return gd_err_set(err, GD_EINVAL, "a condensed packet's kernels cannot give a wait-until time");
            put_launch_info(p + len, &infos[k]);
            len += LAUNCH_INFO_SIZE;
        }
    }
    return gd_trace_write_raw(w, GD_REC_CONDENSED, p, len, err);
}

static void put_tenant(uint8_t *p, const gd_tenant *t)
{
    gd_put32(p, t->vid);
    p[4] = t->flags;
    p[5] = t->priority;
    p[6] = p[7] = 0;
}

int gd_trace_write_dispatch_cluster(gd_trace_writer *w, uint32_t queue, uint64_t submit_ns,
                                    const gd_aql_dispatch *pkt, const gd_launch_info *info,
                                    const gd_cluster *cluster, gd_err *err)
{
    return gd_trace_write_dispatch_tenant(w, queue, submit_ns, pkt, info, cluster, NULL, err);
}

static int write_dispatch_long(gd_trace_writer *w, uint32_t queue, uint64_t submit_ns, const gd_aql_dispatch *pkt,
                               const gd_launch_info *info, const gd_cluster *cluster, const gd_tenant *tenant,
                               uint16_t flags, gd_err *err)
{
    uint8_t p[DISPATCH_TENANT_SIZE];
    gd_cluster none_cluster = gd_cluster_none();
    if (!cluster)
        cluster = &none_cluster;
    memset(p, 0, sizeof p);
    gd_put16(p, (uint16_t)queue);
    gd_put16(p + 2, flags);
    gd_put64(p + 8, submit_ns);
    gd_aql_encode(p + 16, pkt);
    gd_launch_info none = gd_launch_info_unknown();
    if (!info)
        info = &none;
    put_launch_info(p + DISPATCH_SIZE, info);
    gd_put64(p + DISPATCH_SIZE + LAUNCH_INFO_SIZE, gd_launch_info_waits(info) ? info->wait_until_ns : GD_UNKNOWN);
    uint8_t *c = p + DISPATCH_CLUSTER_SIZE - CLUSTER_SIZE;
    for (int i = 0; i < 3; i++)
        gd_put16(c + 2 * i, cluster->dim[i]);
    gd_put16(c + 6, cluster->gpu_cga);
    c[8] = cluster->mode;
    if (tenant)
        put_tenant(p + DISPATCH_CLUSTER_SIZE, tenant);
    return gd_trace_write_raw(w, GD_REC_DISPATCH, p, tenant ? DISPATCH_TENANT_SIZE : DISPATCH_CLUSTER_SIZE, err);
}

int gd_trace_write_dispatch_tenant(gd_trace_writer *w, uint32_t queue, uint64_t submit_ns,
                                   const gd_aql_dispatch *pkt, const gd_launch_info *info,
                                   const gd_cluster *cluster, const gd_tenant *tenant, gd_err *err)
{
    return write_dispatch_long(w, queue, submit_ns, pkt, info, cluster, tenant, 0, err);
}

int gd_trace_write_dispatch_rec(gd_trace_writer *w, const gd_trace_dispatch *d, gd_err *err)
{
    uint16_t flags = (uint16_t)((d->graph ? 2 : 0) | (d->programmatic ? 4 : 0));
    if (d->tenant.given || gd_cluster_is_cga(&d->cluster))
        return write_dispatch_long(w, d->queue, d->submit_ns, &d->pkt, &d->info, &d->cluster,
                                   d->tenant.given ? &d->tenant : NULL, flags, err);
    return write_dispatch(w, d->queue, d->submit_ns, &d->pkt, &d->info, flags, err);
}

int gd_trace_write_calibration(gd_trace_writer *w, const gd_trace_calibration *cal, gd_err *err)
{
    size_t plen = strlen(cal->provenance);
    if (w->records != 1)
        return gd_err_set(err, GD_EINVAL, "a calibration record must directly follow the header");
    if (plen < 1 || plen > GD_CALIBRATION_MAX_PROVENANCE || cal->n > GD_CALIBRATION_MAX_KEYS)
        return gd_err_set(err, GD_EINVAL, "calibration record: provenance of %zu bytes (1 to %d), %u settings (at "
                          "most %d)", plen, GD_CALIBRATION_MAX_PROVENANCE, cal->n, GD_CALIBRATION_MAX_KEYS);
    uint8_t p[4 + GD_CALIBRATION_MAX_PROVENANCE + GD_CALIBRATION_MAX_KEYS * (48 + 24 + 4)];
    gd_put32(p, (uint32_t)plen);
    memcpy(p + 4, cal->provenance, plen);
    size_t len = 4 + plen;
    for (uint32_t i = 0; i < cal->n; i++)
        len += (size_t)snprintf((char *)p + len, sizeof p - len, "%s = %s\n", cal->key[i], cal->value[i]);
    return gd_trace_write_raw(w, GD_REC_CALIBRATION, p, (uint32_t)len, err);
}

int gd_trace_write_barrier(gd_trace_writer *w, unsigned type, uint32_t queue, uint64_t submit_ns,
                           const gd_aql_barrier_pkt *pkt, const gd_launch_info *info, gd_err *err)
{
    return gd_trace_write_barrier_tenant(w, type, queue, submit_ns, pkt, info, NULL, err);
}

int gd_trace_write_barrier_tenant(gd_trace_writer *w, unsigned type, uint32_t queue, uint64_t submit_ns,
                                  const gd_aql_barrier_pkt *pkt, const gd_launch_info *info, const gd_tenant *tenant,
                                  gd_err *err)
{
    uint8_t p[BARRIER_TENANT_SIZE];
    if (info && gd_launch_info_waits(info))
        return gd_err_set(err, GD_EINVAL, "a barrier packet's launch info cannot give a wait-until time (dispatches only)");
    memset(p, 0, sizeof p);
    gd_put16(p, (uint16_t)queue);
    gd_put64(p + 8, submit_ns);
    gd_aql_barrier_encode(p + 16, pkt);
    gd_launch_info none = gd_launch_info_unknown();
    if (info || tenant)
        put_launch_info(p + BARRIER_SIZE, info ? info : &none);
    if (tenant)
        put_tenant(p + BARRIER_SIZE + LAUNCH_INFO_SIZE, tenant);
    return gd_trace_write_raw(w, type, p, tenant ? BARRIER_TENANT_SIZE : info ? BARRIER_SIZE + LAUNCH_INFO_SIZE : BARRIER_SIZE,
                              err);
}

int gd_trace_write_command(gd_trace_writer *w, const gd_trace_command *c, gd_err *err)
{
    uint8_t p[COMMAND_TENANT_SIZE];
    if (gd_launch_info_waits(&c->info))
        return gd_err_set(err, GD_EINVAL, "a non-kernel command's launch info cannot give a wait-until time (dispatches "
                          "only)");
    gd_put16(p, (uint16_t)c->queue);
    gd_put16(p + 2, (uint16_t)c->kind);
    gd_put32(p + 4, (c->barrier ? 1u : 0u) | (c->graph ? 2u : 0u));
    gd_put64(p + 8, c->submit_ns);
    gd_put64(p + 16, c->duration_ps);
    gd_put64(p + 24, c->bytes);
    gd_put64(p + 32, c->completion_signal);
    put_launch_info(p + COMMAND_SIZE, &c->info);
    if (c->tenant.given)
        put_tenant(p + COMMAND_SIZE + LAUNCH_INFO_SIZE, &c->tenant);
    return gd_trace_write_raw(w, GD_REC_NONKERNEL, p, c->tenant.given ? COMMAND_TENANT_SIZE : COMMAND_SIZE + LAUNCH_INFO_SIZE,
                              err);
}

int gd_trace_finish(gd_trace_writer *w, gd_err *err)
{
    uint8_t p[END_SIZE];
    gd_put64(p, w->records);
    gd_put64(p + 8, w->packets);
    int rc = gd_trace_write_raw(w, GD_REC_END, p, sizeof p, err);
    int zrc = gzclose(w->gz);
    if (!rc && zrc != Z_OK)
        rc = gd_err_set(err, GD_EIO, "%s: closing failed (%d)", w->path, zrc);
    free(w->path);
    free(w);
    return rc;
}

void gd_trace_abandon(gd_trace_writer *w)
{
    if (!w)
        return;
    gzclose(w->gz);
    free(w->path);
    free(w);
}

int gd_trace_write_pipeline(gd_trace_writer *w, uint32_t queue, uint64_t submit_ns, int barrier,
                            uint64_t completion_signal, const char *text, uint32_t len, gd_err *err)
{
    if (len > GD_TRACE_MAX_RECORD - PIPELINE_FIXED)
        return gd_err_set(err, GD_EINVAL, "%s: a topology of %u bytes does not fit in a record", w->path, len);
    uint8_t *p = calloc(1, PIPELINE_FIXED + (size_t)len);
    if (!p)
        return gd_err_set(err, GD_ENOMEM, "out of memory");
    gd_put16(p, (uint16_t)queue);
    gd_put32(p + 4, barrier ? 1u : 0u);
    gd_put64(p + 8, submit_ns);
    gd_put64(p + 16, completion_signal);
    gd_put32(p + 24, len);
    memcpy(p + PIPELINE_FIXED, text, len);
    int rc = gd_trace_write_raw(w, GD_REC_PIPELINE, p, PIPELINE_FIXED + len, err);
    free(p);
    return rc;
}

int gd_trace_write_host_thread(gd_trace_writer *w, const gd_trace_host_thread *t, gd_err *err)
{
    size_t n = strnlen(t->name, sizeof t->name);
    uint8_t p[HOST_THREAD_FIXED + sizeof t->name];
    memset(p, 0, sizeof p);
    gd_put32(p, t->thread);
    gd_put64(p + 8, t->start_ns);
    gd_put16(p + 16, (uint16_t)n);
    memcpy(p + HOST_THREAD_FIXED, t->name, n);
    return gd_trace_write_raw(w, GD_REC_HOST_THREAD, p, HOST_THREAD_FIXED + (uint32_t)n, err);
}

int gd_trace_write_host_call(gd_trace_writer *w, const gd_trace_host_call *c, gd_err *err)
{
    uint8_t p[HOST_CALL_SIZE] = {0};
    gd_put32(p, c->thread);
    gd_put32(p + 4, c->packets);
    gd_put64(p + 8, c->gap_ns);
    gd_put32(p + 16, c->flags);
    return gd_trace_write_raw(w, GD_REC_HOST_CALL, p, sizeof p, err);
}

int gd_trace_write_host_wait(gd_trace_writer *w, const gd_trace_host_wait *h, gd_err *err)
{
    uint8_t p[HOST_WAIT_SIZE] = {0};
    gd_put32(p, h->thread);
    gd_put16(p + 4, (uint16_t)h->kind);
    gd_put16(p + 6, (uint16_t)h->flags);
    gd_put64(p + 8, h->target);
    gd_put64(p + 16, h->time_ns);
    gd_put64(p + 24, h->gap_ns);
    gd_put64(p + 32, h->tail_ns);
    return gd_trace_write_raw(w, GD_REC_HOST_WAIT, p, sizeof p, err);
}
