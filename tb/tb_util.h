/* tb_util.h - helpers shared by the Check tests: temporary paths and small traces. */
#ifndef TB_UTIL_H
#define TB_UTIL_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* Seed 002 fig 1 as a topology (traces/topologies/fig1.topo without its comments). */
#define FIG1                                                                                         \
    "# seed 002 fig 1\n"                                                                             \
    "topology fig1\n"                                                                                \
    "policy round_robin\n"                                                                           \
    "buffer F1 width=64 length=256 initial=256\n"                                                    \
    "buffer F2 width=64 length=128\n"                                                                \
    "buffer F3 width=64 length=128\n"                                                                \
    "buffer F4 width=64 length=128\n"                                                                \
    "kernel K1 in=F1 out=F2,F3 items=32 amplification=1 threads=256 regs=32 cta_ns=2000\n"         \
    "kernel K2 in=F2 out=F4 items=32 amplification=1 threads=256 regs=64 cta_ns=4000 importance=1\n" \
    "kernel K3 in=F4,F3 items=32 threads=128 regs=32 cta_ns=1000\n"

/* One deterministic mutation of base[0..n) into buf (room for n + 64 bytes): 1 to 8
 * edits (a random byte, a byte of alphabet, a deletion, an insertion of a byte of
 * alphabet), drawn from the xorshift state *x. Returns the new length. The parsers'
 * mutation tests replay thousands of these in every `make check`. */
static inline size_t tb_mutate(char *buf, const char *base, size_t n, uint64_t *x, const char *alphabet)
{
    size_t len = n, na = strlen(alphabet);
    memcpy(buf, base, n);
    *x ^= *x << 13, *x ^= *x >> 7, *x ^= *x << 17;
    int edits = 1 + (int)(*x % 8);
    for (int e = 0; e < edits; e++) {
        *x ^= *x << 13, *x ^= *x >> 7, *x ^= *x << 17;
        size_t pos = (size_t)(*x >> 8) % len;
        uint8_t op = (uint8_t)(*x & 3);
        if (op == 0)
            buf[pos] = (char)(*x >> 40);  /* any byte */
        else if (op == 1)
            buf[pos] = alphabet[(*x >> 32) % na];
        else if (op == 2 && len > 1) {
            memmove(buf + pos, buf + pos + 1, len - pos - 1);  /* delete */
            len--;
        } else if (len < n + 60) {
            memmove(buf + pos + 1, buf + pos, len - pos);  /* insert */
            buf[pos] = alphabet[(*x >> 24) % na];
            len++;
        }
    }
    return len;
}

/* A fresh path under the system temp directory; the caller frees it. */
static inline char *tb_tmp_path(const char *suffix)
{
    const char *dir = getenv("TMPDIR");
    char tmpl[512];
    snprintf(tmpl, sizeof tmpl, "%s/gdsim-tb-XXXXXX", dir && *dir ? dir : "/tmp");
    int fd = mkstemp(tmpl);
    if (fd < 0)
        return NULL;
    close(fd);
    unlink(tmpl);
    size_t n = strlen(tmpl) + strlen(suffix) + 1;
    char *p = (char *)malloc(n);
    if (p)
        snprintf(p, n, "%s%s", tmpl, suffix);
    return p;
}

/* Whole file into memory (NUL-terminated); *len gets its size. */
static inline char *tb_slurp(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    char *buf = (char *)malloc((size_t)n + 1);
    if (buf && fread(buf, 1, (size_t)n, f) != (size_t)n) {
        free(buf);
        buf = NULL;
    }
    fclose(f);
    if (buf) {
        buf[n] = '\0';
        if (len)
            *len = (size_t)n;
    }
    return buf;
}

#ifdef CHECK_H
/* Run a Check suite; the process's exit status. */
static inline int tb_run_suite(Suite *s)
{
    SRunner *sr = srunner_create(s);
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
#endif

#ifdef GD_TRACE_H
/* An H100 as the PyTorch profiler describes it (132 SMs, cc 9.0), no GPC layout. */
static inline gd_trace_device tb_h100_device(const char *name)
{
    gd_trace_device d;
    memset(&d, 0, sizeof d);
    snprintf(d.name, sizeof d.name, "%s", name);
    d.cc_major = 9;
    d.sms = 132;
    d.max_threads_per_sm = 2048;
    d.regs_per_sm = 65536;
    d.smem_per_sm = 233472;
    d.smem_per_cta_default = 49152;
    d.smem_per_cta_optin = 232448;
    d.max_threads_per_cta = 1024;
    d.warp_size = 32;
    return d;
}
#endif

#endif
