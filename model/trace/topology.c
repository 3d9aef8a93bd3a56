#include "topology.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "gdsim.h"

static const char *const policy_names[] = {"round_robin", "priority", "most_data"};

const char *gd_meta_policy_name(int policy)
{
    return policy >= 0 && policy < 3 ? policy_names[policy] : "?";
}

int gd_meta_policy_parse(const char *name)
{
    for (int i = 0; i < 3; i++)
        if (!strcmp(name, policy_names[i]))
            return i;
    return -1;
}

static const char *const rule_names[GD_TOPO_RULES] = {
    "unknown-buffer", "unconnected-buffer", "no-consumer", "no-input", "out-of-range",
    "overflow",       "starved",            "deadlock",    "endless-loop"};

const char *gd_topo_rule_name(int rule) { return rule >= 0 && rule < GD_TOPO_RULES ? rule_names[rule] : "?"; }

/* ---- parsing ---- */

#define MAX_LINE 4096
#define MAX_TOKENS 64

typedef struct parser {
    gd_topology *t;
    gd_err *err;
    uint32_t line;
} parser;

#if defined(__GNUC__)
__attribute__((format(printf, 2, 3)))
#endif
static int perr(parser *p, const char *fmt, ...)
{
    char what[768];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(what, sizeof what, fmt, ap);
    va_end(ap);
    return gd_err_set(p->err, GD_EFORMAT, "%s:%u: %s", p->t->source, p->line, what);
}

/* A token quoted for a message: at most 40 characters, printable ASCII. */
static const char *show(const char *s, char *buf, size_t size)
{
    size_t j = 0;
    for (size_t i = 0; s[i] && j + 4 < size; i++) {
        if (i == 40) {
            buf[j++] = '.';
            buf[j++] = '.';
            buf[j++] = '.';
            break;
        }
        unsigned char c = (unsigned char)s[i];
        buf[j++] = c >= 0x20 && c < 0x7f ? (char)c : '?';
    }
    buf[j] = 0;
    return buf;
}

static int valid_name(const char *s)
{
    size_t n = strlen(s);
    if (!n || n >= GD_META_NAME)
        return 0;
    if (!((s[0] >= 'A' && s[0] <= 'Z') || (s[0] >= 'a' && s[0] <= 'z') || s[0] == '_'))
        return 0;
    for (size_t i = 1; i < n; i++) {
        char c = s[i];
        if (!((c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_' || c == '.' ||
              c == '-'))
            return 0;
    }
    return 1;
}

static int check_name(parser *p, const char *what, const char *s)
{
    char b[64];
    if (!valid_name(s))
        return perr(p, "%s name '%s': 1 to 31 letters, digits, '_', '.' or '-', starting with a letter or '_'",
                    what, show(s, b, sizeof b));
    for (uint32_t i = 0; i < p->t->nkernels; i++)
        if (!strcmp(p->t->k[i].name, s))
            return perr(p, "the name '%s' is already a kernel's (line %u)", s, p->t->k[i].line);
    for (uint32_t i = 0; i < p->t->nbuffers; i++)
        if (!strcmp(p->t->b[i].name, s))
            return perr(p, "the name '%s' is already a buffer's (line %u)", s, p->t->b[i].line);
    return GD_OK;
}

/* A whole number in [lo, hi] (decimal digits only). */
static int parse_u64(parser *p, const char *key, const char *s, uint64_t lo, uint64_t hi, uint64_t *out)
{
    char b[64];
    uint64_t v = 0;
    if (!*s)
        return perr(p, "%s: no value (a whole number from %llu to %llu)", key, (unsigned long long)lo,
                    (unsigned long long)hi);
    for (const char *c = s; *c; c++) {
        if (*c < '0' || *c > '9')
            return perr(p, "%s='%s': not a whole number (from %llu to %llu)", key, show(s, b, sizeof b),
                        (unsigned long long)lo, (unsigned long long)hi);
        unsigned d = (unsigned)(*c - '0');
        if (v > (UINT64_MAX - d) / 10)
            return perr(p, "%s='%s': out of range (from %llu to %llu)", key, show(s, b, sizeof b),
                        (unsigned long long)lo, (unsigned long long)hi);
        v = v * 10 + d;
    }
    if (v < lo || v > hi)
        return perr(p, "%s=%llu: out of range (from %llu to %llu)", key, (unsigned long long)v, (unsigned long long)lo,
                    (unsigned long long)hi);
    *out = v;
    return GD_OK;
}

static int parse_u32(parser *p, const char *key, const char *s, uint32_t lo, uint32_t hi, uint32_t *out)
{
    uint64_t v;
    int rc = parse_u64(p, key, s, lo, hi, &v);
    if (rc == GD_OK)
        *out = (uint32_t)v;
    return rc;
}

/* N, or W x H ("7x7"): each from 1 to 65536, the product at most 2^32. */
static int parse_dims(parser *p, const char *key, const char *s, uint32_t d[2], int *two_d)
{
    char b[64];
    const char *x = strchr(s, 'x');
    if (!x) {
        *two_d = 0;
        d[1] = 1;
        return parse_u32(p, key, s, 1, UINT32_MAX, &d[0]);
    }
    char w[32];
    size_t n = (size_t)(x - s);
    if (n == 0 || n >= sizeof w)
        return perr(p, "%s='%s': a count N or a block WxH", key, show(s, b, sizeof b));
    memcpy(w, s, n);
    w[n] = 0;
    *two_d = 1;
    int rc = parse_u32(p, key, w, 1, 65536, &d[0]);
    if (rc == GD_OK)
        rc = parse_u32(p, key, x + 1, 1, 65536, &d[1]);
    if (rc == GD_OK && (uint64_t)d[0] * d[1] > UINT32_MAX)
        return perr(p, "%s=%s: more than 2^32 entries", key, s);
    return rc;
}

/* A list of buffer names ("F1,F2"): at most GD_META_MAX_PORTS, no repeats. */
static int parse_list(parser *p, const char *key, const char *s, char names[][GD_META_NAME], uint32_t *n)
{
    char b[64];
    *n = 0;
    const char *c = s;
    for (;;) {
        const char *e = strchr(c, ',');
        size_t len = e ? (size_t)(e - c) : strlen(c);
        if (*n == GD_META_MAX_PORTS)
            return perr(p, "%s: more than %d buffers", key, GD_META_MAX_PORTS);
        if (len == 0 || len >= GD_META_NAME) {
            return perr(p, "%s='%s': a comma-separated list of buffer names (each 1 to 31 characters)", key,
                        show(s, b, sizeof b));
        }
        memcpy(names[*n], c, len);
        names[*n][len] = 0;
        if (!valid_name(names[*n]))
            return perr(p, "%s: '%s' is not a buffer name", key, show(names[*n], b, sizeof b));
        for (uint32_t i = 0; i < *n; i++)
            if (!strcmp(names[i], names[*n]))
                return perr(p, "%s: buffer %s listed twice", key, names[i]);
        (*n)++;
        if (!e)
            return GD_OK;
        c = e + 1;
    }
}

/* key=value pairs of a line, each key at most once, from the given set. */
typedef struct kv {
    const char *key;
    const char *val;
} kv;

static int split_kv(parser *p, char **tok, int ntok, kv *out, const char *const *keys, int nkeys, const char *what)
{
    char b[64];
    for (int i = 0; i < nkeys; i++)
        out[i].val = NULL, out[i].key = keys[i];
    for (int i = 0; i < ntok; i++) {
        char *eq = strchr(tok[i], '=');
        const char *val = "";
        if (eq) {
            *eq = 0;
            val = eq + 1;
        }
        int j;
        for (j = 0; j < nkeys; j++)
            if (!strcmp(keys[j], tok[i]))
                break;
        if (j == nkeys) {
            char list[256] = "";
            for (int q = 0; q < nkeys; q++) {
                strncat(list, q ? ", " : "", sizeof list - strlen(list) - 1);
                strncat(list, keys[q], sizeof list - strlen(list) - 1);
            }
            return perr(p, "%s: unknown field '%s' (fields: %s)", what, show(tok[i], b, sizeof b), list);
        }
        if (out[j].val)
            return perr(p, "%s: field %s given twice", what, keys[j]);
        if (!eq && strcmp(keys[j], "drain"))
            return perr(p, "%s: field %s without a value (%s=...)", what, keys[j], keys[j]);
        if (eq && !strcmp(keys[j], "drain"))
            return perr(p, "%s: drain takes no value", what);
        out[j].val = val;
    }
    return GD_OK;
}

/* A buffer or kernel line's name, checked; what = "buffer NAME" for messages. */
static int part_head(parser *p, char **tok, int ntok, const char *kind, const char *usage, uint32_t count,
                     uint32_t max, char *what, size_t size)
{
    if (ntok < 2)
        return perr(p, "%s: no name (%s)", kind, usage);
    int rc = check_name(p, kind, tok[1]);
    if (rc)
        return rc;
    if (count == max)
        return perr(p, "more than %u %ss", max, kind);
    snprintf(what, size, "%s %s", kind, tok[1]);
    return GD_OK;
}

static int parse_buffer(parser *p, char **tok, int ntok)
{
    gd_topology *t = p->t;
    char what[64];
    int rc = part_head(p, tok, ntok, "buffer", "buffer NAME width=BYTES length=N|dims=WxH [initial=N] [drain]",
                       t->nbuffers, GD_META_MAX_BUFFERS, what, sizeof what);
    if (rc)
        return rc;
    gd_meta_buffer *b = &t->b[t->nbuffers];
    memset(b, 0, sizeof *b);
    strcpy(b->name, tok[1]);
    b->line = p->line;
    static const char *const keys[] = {"width", "length", "dims", "initial", "drain"};
    kv f[5];
    if ((rc = split_kv(p, tok + 2, ntok - 2, f, keys, 5, what)))
        return rc;
    if (!f[0].val)
        return perr(p, "%s: no width= (bytes per entry)", what);
    if ((rc = parse_u32(p, "width", f[0].val, 1, 1u << 20, &b->width)))
        return rc;
    if (!!f[1].val == !!f[2].val)
        return perr(p, "%s: give its size as length=N (1-D) or dims=WxH (2-D), one of them", what);
    int two_d = 0;
    if (f[1].val) {
        if ((rc = parse_u32(p, "length", f[1].val, 1, UINT32_MAX, &b->dim[0])))
            return rc;
        b->dim[1] = 1;
    } else {
        if ((rc = parse_dims(p, "dims", f[2].val, b->dim, &two_d)))
            return rc;
        if (!two_d)
            return perr(p, "%s: dims=%s: a 2-D size WxH (or use length=)", what, f[2].val);
    }
    b->two_d = (uint8_t)two_d;
    b->length = (uint64_t)b->dim[0] * b->dim[1];
    if (f[3].val && (rc = parse_u64(p, "initial", f[3].val, 0, (uint64_t)1 << 40, &b->initial)))
        return rc;
    b->drain = f[4].val != NULL;
    t->nbuffers++;
    return GD_OK;
}

static int parse_kernel(parser *p, char **tok, int ntok)
{
    gd_topology *t = p->t;
    char what[64];
    int rc = part_head(p, tok, ntok, "kernel", "kernel NAME in=BUFFERS [out=BUFFERS] items=N threads=N cta_ns=NS ...",
                       t->nkernels, GD_META_MAX_KERNELS, what, sizeof what);
    if (rc)
        return rc;
    gd_meta_kernel *k = &t->k[t->nkernels];
    memset(k, 0, sizeof *k);
    strcpy(k->name, tok[1]);
    k->line = p->line;
    enum { IN, OUT, ITEMS, AMP, OUT_ITEMS, THREADS, REGS, SMEM, CTA_NS, NS_PER_ITEM, IMPORTANCE, NK };
    static const char *const keys[NK] = {"in",   "out",  "items",  "amplification", "out_items",  "threads",
                                         "regs", "smem", "cta_ns", "ns_per_item",   "importance"};
    kv f[NK];
    if ((rc = split_kv(p, tok + 2, ntok - 2, f, keys, NK, what)))
        return rc;
    if (f[IN].val && (rc = parse_list(p, "in", f[IN].val, k->in_name, &k->nin)))
        return rc;
    if (f[OUT].val && (rc = parse_list(p, "out", f[OUT].val, k->out_name, &k->nout)))
        return rc;
    const int required[] = {ITEMS, THREADS, CTA_NS};
    for (size_t i = 0; i < sizeof required / sizeof *required; i++)
        if (!f[required[i]].val)
            return perr(p, "%s: no %s=", what, keys[required[i]]);
    int two_d;
    if ((rc = parse_dims(p, "items", f[ITEMS].val, k->block, &two_d)))
        return rc;
    k->block_2d = (uint8_t)two_d;
    k->items = (uint64_t)k->block[0] * k->block[1];
    k->amplification = 1;
    if (f[AMP].val && (rc = parse_u32(p, "amplification", f[AMP].val, 0, 65536, &k->amplification)))
        return rc;
    k->out_items = gd_meta_reserve(k);
    if (f[OUT_ITEMS].val && (rc = parse_u64(p, "out_items", f[OUT_ITEMS].val, 0, UINT64_MAX, &k->out_items)))
        return rc;
    if (k->out_items > gd_meta_reserve(k))  /* seed 002 [0034]: the most a CTA may write */
        return perr(p, "%s: out_items=%llu is more than items x amplification = %llu (the most a CTA may write)",
                    what, (unsigned long long)k->out_items, (unsigned long long)gd_meta_reserve(k));
    if (!k->nout && f[OUT_ITEMS].val && k->out_items)
        return perr(p, "%s: out_items without out= (it writes into no buffer)", what);
    if ((rc = parse_u32(p, "threads", f[THREADS].val, 1, 65536, &k->threads)))
        return rc;
    if (f[REGS].val && (rc = parse_u32(p, "regs", f[REGS].val, 0, 65535, &k->regs)))
        return rc;
    if (f[SMEM].val && (rc = parse_u32(p, "smem", f[SMEM].val, 0, UINT32_MAX, &k->smem)))
        return rc;
    /* times: at most 1000 s per CTA */
    if ((rc = parse_u64(p, "cta_ns", f[CTA_NS].val, 0, 1000000000000ull, &k->cta_ns)))
        return rc;
    if (f[NS_PER_ITEM].val && (rc = parse_u64(p, "ns_per_item", f[NS_PER_ITEM].val, 0, 1000000000ull, &k->ns_per_item)))
        return rc;
    if (k->ns_per_item && k->items > 1000000000000ull / k->ns_per_item)
        return perr(p, "%s: a CTA would run more than 1000 s (ns_per_item x items)", what);
    if (f[IMPORTANCE].val && (rc = parse_u32(p, "importance", f[IMPORTANCE].val, 0, 1000, &k->importance)))
        return rc;
    t->nkernels++;
    return GD_OK;
}

static int parse_line(parser *p, char *s)
{
    char *tok[MAX_TOKENS];
    int n = 0;
    char b[64];
    for (char *c = s;;) {
        while (*c == ' ' || *c == '\t' || *c == '\r')
            c++;
        if (!*c || *c == '#')
            break;
        if (n == MAX_TOKENS)
            return perr(p, "more than %d words on a line", MAX_TOKENS);
        tok[n++] = c;
        while (*c && *c != ' ' && *c != '\t' && *c != '\r' && *c != '#')
            c++;
        if (!*c)
            break;
        if (*c == '#') {
            *c = 0;
            break;
        }
        *c++ = 0;
    }
    if (!n)
        return GD_OK;
    gd_topology *t = p->t;
    if (!strcmp(tok[0], "buffer"))
        return parse_buffer(p, tok, n);
    if (!strcmp(tok[0], "kernel"))
        return parse_kernel(p, tok, n);
    if (!strcmp(tok[0], "topology")) {
        if (n != 2)
            return perr(p, "topology: one name (topology NAME)");
        if (t->name[0])
            return perr(p, "topology: named twice");
        if (!valid_name(tok[1]))
            return perr(p, "topology name '%s': 1 to 31 letters, digits, '_', '.' or '-'", show(tok[1], b, sizeof b));
        strcpy(t->name, tok[1]);
        return GD_OK;
    }
    if (!strcmp(tok[0], "policy")) {
        if (n != 2)
            return perr(p, "policy: one of round_robin, priority, most_data");
        if (t->policy >= 0)
            return perr(p, "policy: given twice");
        t->policy = gd_meta_policy_parse(tok[1]);
        if (t->policy < 0)
            return perr(p, "policy '%s': one of round_robin, priority, most_data", show(tok[1], b, sizeof b));
        return GD_OK;
    }
    return perr(p, "'%s': a line starts with topology, policy, buffer or kernel", show(tok[0], b, sizeof b));
}

static int resolve(gd_topology *t)
{
    for (uint32_t i = 0; i < t->nkernels; i++) {
        gd_meta_kernel *k = &t->k[i];
        for (int dir = 0; dir < 2; dir++) {
            uint32_t n = dir ? k->nout : k->nin;
            for (uint32_t j = 0; j < n; j++) {
                const char *name = dir ? k->out_name[j] : k->in_name[j];
                int16_t idx = -1;
                for (uint32_t q = 0; q < t->nbuffers; q++)
                    if (!strcmp(t->b[q].name, name))
                        idx = (int16_t)q;
                (dir ? k->out : k->in)[j] = idx;
            }
        }
    }
    return GD_OK;
}

int gd_topology_parse(gd_topology *t, const char *text, size_t len, const char *source, gd_err *err)
{
    memset(t, 0, sizeof *t);
    t->policy = -1;
    snprintf(t->source, sizeof t->source, "%s", source ? source : "topology");
    parser p = {t, err, 0};
    if (len > GD_META_MAX_TEXT)
        return gd_err_set(err, GD_EFORMAT, "%s: more than %u bytes: not a topology", t->source, GD_META_MAX_TEXT);
    char line[MAX_LINE + 1];
    size_t pos = 0;
    while (pos < len) {
        p.line++;
        size_t n = 0;
        while (pos < len && text[pos] != '\n') {
            if (!text[pos])
                return perr(&p, "a NUL byte: not a text file");
            if (n == MAX_LINE)
                return perr(&p, "a line longer than %d characters", MAX_LINE);
            line[n++] = text[pos++];
        }
        pos++;  /* the newline */
        line[n] = 0;
        int rc = parse_line(&p, line);
        if (rc)
            return rc;
    }
    if (!t->nkernels) {
        p.line = p.line ? p.line : 1;
        return gd_err_set(err, GD_EFORMAT, "%s: no kernel: a topology needs kernels and buffers (traces/TOPOLOGY.md)",
                          t->source);
    }
    return resolve(t);
}

int gd_topology_load(gd_topology *t, const char *path, gd_err *err)
{
    struct stat st;
    if (stat(path, &st) != 0)
        return gd_err_set(err, GD_EIO, "%s: cannot read: %s", path, strerror(errno));
    if (!S_ISREG(st.st_mode))
        return gd_err_set(err, GD_EIO, "%s: not a regular file", path);
    char *buf;
    size_t n;
    int rc = gd_read_small_file(path, GD_META_MAX_TEXT, &buf, &n, err);
    if (!rc)
        rc = gd_topology_parse(t, buf, n, path, err);
    free(buf);
    return rc;
}

/* ---- validation ---- */

#define UNBOUNDED UINT64_MAX

typedef struct vctx {
    const gd_topology *t;
    gd_topo_verdict *v;
    size_t cap, n;
} vctx;

#if defined(__GNUC__)
__attribute__((format(printf, 5, 6)))
#endif
static void verdict(vctx *c, int rule, uint32_t line, const char *part, const char *fmt, ...)
{
    if (c->n < c->cap) {
        gd_topo_verdict *v = &c->v[c->n];
        v->rule = rule;
        v->line = line;
        snprintf(v->part, sizeof v->part, "%s", part);
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(v->text, sizeof v->text, fmt, ap);
        va_end(ap);
    }
    c->n++;
}

static uint64_t sat_add(uint64_t a, uint64_t b) { return a > UNBOUNDED - b ? UNBOUNDED : a + b; }
static uint64_t sat_mul(uint64_t a, uint64_t b)
{
    if (!a || !b)
        return 0;
    return a > UNBOUNDED / b ? UNBOUNDED : a * b;
}
static uint64_t gcd64(uint64_t a, uint64_t b)
{
    while (b) {
        uint64_t r = a % b;
        a = b;
        b = r;
    }
    return a;
}

/* Graph facts the rules share. */
typedef struct graph {
    uint64_t writes[GD_META_MAX_KERNELS];  /* bit b: the kernel writes buffer b (at most 64 buffers) */
    uint64_t reads[GD_META_MAX_KERNELS];   /* bit b: the kernel reads buffer b */
    uint64_t succ[GD_META_MAX_KERNELS];    /* bit j: kernel j reads a buffer this one writes */
    uint64_t reach[GD_META_MAX_KERNELS];   /* bit j: kernel j reachable in one or more steps */
    uint64_t producers[GD_META_MAX_BUFFERS], consumers[GD_META_MAX_BUFFERS];  /* kernel bit sets */
    uint64_t max_items[GD_META_MAX_BUFFERS];  /* most items that can ever reach the buffer (UNBOUNDED) */
    uint64_t runs[GD_META_MAX_KERNELS];       /* most CTAs a kernel can run */
} graph;

static uint64_t scc_of(const graph *g, uint32_t i)
{
    uint64_t s = 1ull << i;
    for (uint32_t j = 0; j < GD_META_MAX_KERNELS; j++)
        if (((g->reach[i] >> j) & 1) && ((g->reach[j] >> i) & 1))
            s |= 1ull << j;
    return s;
}

static void build(const gd_topology *t, graph *g)
{
    memset(g, 0, sizeof *g);
    for (uint32_t i = 0; i < t->nkernels; i++) {
        const gd_meta_kernel *k = &t->k[i];
        for (uint32_t j = 0; j < k->nin; j++)
            if (k->in[j] >= 0) {
                g->reads[i] |= 1ull << k->in[j];
                g->consumers[k->in[j]] |= 1ull << i;
            }
        for (uint32_t j = 0; j < k->nout; j++)
            if (k->out[j] >= 0) {
                g->writes[i] |= 1ull << k->out[j];
                g->producers[k->out[j]] |= 1ull << i;
            }
    }
    for (uint32_t i = 0; i < t->nkernels; i++)
        for (uint32_t j = 0; j < t->nkernels; j++)
            if (g->writes[i] & g->reads[j])
                g->succ[i] |= 1ull << j;
    for (uint32_t i = 0; i < t->nkernels; i++)
        g->reach[i] = g->succ[i];
    for (uint32_t m = 0; m < t->nkernels; m++)  /* Warshall */
        for (uint32_t i = 0; i < t->nkernels; i++)
            if ((g->reach[i] >> m) & 1)
                g->reach[i] |= g->reach[m];
    /* The most items that can reach each buffer, and CTAs each kernel can run: a
     * kernel off a cycle runs as often as its scarcest input allows (a CTA takes its
     * items from every input); a kernel on a cycle that receives any items is taken
     * as unbounded (a bound that only proves starvation). Monotone: n + 1 passes. */
    for (uint32_t pass = 0; pass <= t->nkernels + 1; pass++) {
        for (uint32_t b = 0; b < t->nbuffers; b++) {
            uint64_t m = t->b[b].initial;
            for (uint32_t i = 0; i < t->nkernels; i++)
                if ((g->producers[b] >> i) & 1)
                    m = sat_add(m, sat_mul(g->runs[i], t->k[i].out_items));
            g->max_items[b] = m;
        }
        for (uint32_t i = 0; i < t->nkernels; i++) {
            const gd_meta_kernel *k = &t->k[i];
            uint64_t r = UNBOUNDED;
            int any = 0;
            for (uint32_t j = 0; j < k->nin; j++) {
                if (k->in[j] < 0)
                    continue;
                any = 1;
                uint64_t m = g->max_items[k->in[j]];
                uint64_t q = m == UNBOUNDED ? UNBOUNDED : m / k->items;
                r = q < r ? q : r;
            }
            if (!any)
                r = 0;
            if (r && ((g->reach[i] >> i) & 1))
                r = UNBOUNDED;
            g->runs[i] = r;
        }
    }
}

static void list_names(const gd_topology *t, uint64_t kernels, char *out, size_t size)
{
    out[0] = 0;
    for (uint32_t i = 0; i < t->nkernels; i++)
        if ((kernels >> i) & 1) {
            size_t l = strlen(out);
            snprintf(out + l, size - l, "%s%s", l ? ", " : "", t->k[i].name);
        }
}

static void list_buffers(const gd_topology *t, uint64_t buffers, char *out, size_t size)
{
    out[0] = 0;
    for (uint32_t b = 0; b < t->nbuffers; b++)
        if ((buffers >> b) & 1) {
            size_t l = strlen(out);
            snprintf(out + l, size - l, "%s%s (%llu)", l ? ", " : "", t->b[b].name,
                     (unsigned long long)t->b[b].length);
        }
}

/* A cycle's items: log2 of the largest gain of any cycle through the kernels of scc
 * (an item through kernel i becomes out_items / items items): Floyd-Warshall on log
 * gains; a diagonal >= 0 is a cycle that keeps at least as many items as enter it. */
static double max_cycle_log_gain(const gd_topology *t, const graph *g, uint64_t scc)
{
    static const double NEG = -1e300;
    uint32_t idx[GD_META_MAX_KERNELS], n = 0;
    for (uint32_t i = 0; i < t->nkernels; i++)
        if ((scc >> i) & 1)
            idx[n++] = i;
    double d[GD_META_MAX_KERNELS][GD_META_MAX_KERNELS];
    for (uint32_t a = 0; a < n; a++)
        for (uint32_t b = 0; b < n; b++) {
            const gd_meta_kernel *k = &t->k[idx[a]];
            d[a][b] = NEG;
            if ((g->succ[idx[a]] >> idx[b]) & 1)
                d[a][b] = k->out_items ? log2((double)k->out_items) - log2((double)k->items) : NEG;
        }
    for (uint32_t m = 0; m < n; m++)
        for (uint32_t a = 0; a < n; a++) {
            if (d[a][m] <= NEG)
                continue;
            for (uint32_t b = 0; b < n; b++)
                if (d[m][b] > NEG && d[a][m] + d[m][b] > d[a][b])
                    d[a][b] = d[a][m] + d[m][b] > 1e9 ? 1e9 : d[a][m] + d[m][b];
        }
    double best = NEG;
    for (uint32_t a = 0; a < n; a++)
        best = d[a][a] > best ? d[a][a] : best;
    return best;
}

size_t gd_topology_validate(const gd_topology *t, const gd_topo_limits *lim, gd_topo_verdict *v, size_t cap)
{
    vctx c = {t, v, cap, 0};
    graph gr;  /* 5 KiB */
    graph *g = &gr;
    build(t, g);
    const uint64_t simd = lim && lim->simd_width ? lim->simd_width : 1;
    char part[GD_META_NAME + 8];

    /* unknown-buffer */
    for (uint32_t i = 0; i < t->nkernels; i++) {
        const gd_meta_kernel *k = &t->k[i];
        snprintf(part, sizeof part, "kernel %s", k->name);
        for (uint32_t j = 0; j < k->nin; j++)
            if (k->in[j] < 0)
                verdict(&c, GD_TOPO_UNKNOWN_BUFFER, k->line, part, "reads %s, which is not a buffer of the topology",
                        k->in_name[j]);
        for (uint32_t j = 0; j < k->nout; j++)
            if (k->out[j] < 0)
                verdict(&c, GD_TOPO_UNKNOWN_BUFFER, k->line, part, "writes %s, which is not a buffer of the topology",
                        k->out_name[j]);
    }
    /* unconnected-buffer, no-consumer */
    for (uint32_t b = 0; b < t->nbuffers; b++) {
        const gd_meta_buffer *B = &t->b[b];
        snprintf(part, sizeof part, "buffer %s", B->name);
        if (!g->producers[b] && !g->consumers[b])
            verdict(&c, GD_TOPO_UNCONNECTED, B->line, part, "no kernel reads or writes it");
        else if (!g->consumers[b] && !B->drain)
            verdict(&c, GD_TOPO_NO_CONSUMER, B->line, part,
                    "no kernel reads it, so its items would pile up (mark it drain if the host reads it)");
    }
    /* no-input */
    for (uint32_t i = 0; i < t->nkernels; i++)
        if (!t->k[i].nin) {
            snprintf(part, sizeof part, "kernel %s", t->k[i].name);
            verdict(&c, GD_TOPO_NO_INPUT, t->k[i].line, part,
                    "reads no buffer: the meta-scheduler launches a kernel when its input holds data (give it an "
                    "input buffer with initial items)");
        }
    /* out-of-range: reads */
    for (uint32_t i = 0; i < t->nkernels; i++) {
        const gd_meta_kernel *k = &t->k[i];
        snprintf(part, sizeof part, "kernel %s", k->name);
        for (uint32_t j = 0; j < k->nin; j++) {
            if (k->in[j] < 0)
                continue;
            const gd_meta_buffer *B = &t->b[k->in[j]];
            if (k->block_2d && !B->two_d && k->block[1] > 1)
                verdict(&c, GD_TOPO_OUT_OF_RANGE, k->line, part, "reads %ux%u blocks from %s, a 1-D buffer",
                        k->block[0], k->block[1], B->name);
            else if (k->block_2d && B->two_d && (k->block[0] > B->dim[0] || k->block[1] > B->dim[1]))
                verdict(&c, GD_TOPO_OUT_OF_RANGE, k->line, part,
                        "reads %ux%u blocks from %s, which is %ux%u: a block reaches past its edge", k->block[0],
                        k->block[1], B->name, B->dim[0], B->dim[1]);
            else if (k->items > B->length)
                verdict(&c, GD_TOPO_OUT_OF_RANGE, k->line, part,
                        "a CTA reads %llu items from %s, which holds %llu", (unsigned long long)k->items, B->name,
                        (unsigned long long)B->length);
        }
    }
    /* overflow */
    for (uint32_t b = 0; b < t->nbuffers; b++) {
        const gd_meta_buffer *B = &t->b[b];
        if (B->initial > B->length) {
            snprintf(part, sizeof part, "buffer %s", B->name);
            verdict(&c, GD_TOPO_OVERFLOW, B->line, part, "initial=%llu is more than its %llu entries",
                    (unsigned long long)B->initial, (unsigned long long)B->length);
        }
    }
    for (uint32_t i = 0; i < t->nkernels; i++) {
        const gd_meta_kernel *k = &t->k[i];
        snprintf(part, sizeof part, "kernel %s", k->name);
        for (uint32_t j = 0; j < k->nout; j++) {
            if (k->out[j] < 0)
                continue;
            const gd_meta_buffer *B = &t->b[k->out[j]];
            if (gd_meta_reserve(k) > B->length)
                verdict(&c, GD_TOPO_OVERFLOW, k->line, part,
                        "a CTA may write %llu items (%llu items x amplification %u) into %s, which holds %llu",
                        (unsigned long long)gd_meta_reserve(k), (unsigned long long)k->items, k->amplification,
                        B->name, (unsigned long long)B->length);
        }
    }
    /* overflow of a drain: the host reads it when the pipeline ends, so it holds all
     * that reaches it. With up to N items reaching it, a producer's last CTA (writing O)
     * finds at most N - O there and must reserve R: N - O + R entries suffice. A drain
     * fed through a loop has no bound here (the run reports a deadlock if it fills). */
    for (uint32_t b = 0; b < t->nbuffers; b++) {
        const gd_meta_buffer *B = &t->b[b];
        uint64_t n = g->max_items[b];
        if (!B->drain || g->consumers[b] || n == UNBOUNDED)
            continue;
        uint64_t need = 0;
        uint32_t worst = 0;
        for (uint32_t i = 0; i < t->nkernels; i++) {
            const gd_meta_kernel *k = &t->k[i];
            if (!((g->producers[b] >> i) & 1) || !g->runs[i] || gd_meta_reserve(k) > B->length)
                continue;
            uint64_t x = sat_add(n - k->out_items, gd_meta_reserve(k));
            if (x > need) {
                need = x;
                worst = i;
            }
        }
        if (need > B->length) {
            const gd_meta_kernel *k = &t->k[worst];
            snprintf(part, sizeof part, "buffer %s", B->name);
            verdict(&c, GD_TOPO_OVERFLOW, B->line, part,
                    "drain: the host reads it when the pipeline ends and up to %llu items reach it; %s's last CTA "
                    "finds up to %llu there and reserves %llu (items x amplification), so it needs at least %llu "
                    "entries, not %llu",
                    (unsigned long long)n, k->name, (unsigned long long)(n - k->out_items),
                    (unsigned long long)gd_meta_reserve(k), (unsigned long long)need,
                    (unsigned long long)B->length);
        }
    }
    /* starved: an input that can never hold one CTA's items */
    for (uint32_t i = 0; i < t->nkernels; i++) {
        const gd_meta_kernel *k = &t->k[i];
        snprintf(part, sizeof part, "kernel %s", k->name);
        for (uint32_t j = 0; j < k->nin; j++) {
            if (k->in[j] < 0)
                continue;
            uint64_t m = g->max_items[k->in[j]];
            if (m < k->items) {
                verdict(&c, GD_TOPO_STARVED, k->line, part,
                        "can never run: %s receives at most %llu items and a CTA needs %llu",
                        t->b[k->in[j]].name, (unsigned long long)m, (unsigned long long)k->items);
                break;
            }
        }
    }
    /* deadlock on one buffer: the producer blocked for room while the consumer waits
     * for items. The consumer waits for max(items, meta.simd_width) while a producer
     * may still write ([0097]); reachable fills step by the gcd of what is written and
     * read (the minimal safe length of a synchronous-dataflow channel, p + c - gcd). */
    for (uint32_t b = 0; b < t->nbuffers; b++) {
        const gd_meta_buffer *B = &t->b[b];
        if (!g->producers[b] || !g->consumers[b])
            continue;
        uint64_t p = 0, cn = 0, gg = B->initial;
        for (uint32_t i = 0; i < t->nkernels; i++) {
            const gd_meta_kernel *k = &t->k[i];
            if ((g->producers[b] >> i) & 1) {
                p = gd_meta_reserve(k) > p ? gd_meta_reserve(k) : p;
                gg = gcd64(gg, k->out_items);
            }
            if ((g->consumers[b] >> i) & 1) {
                uint64_t need = k->items > simd ? k->items : simd;
                cn = need > cn ? need : cn;
                gg = gcd64(gg, k->items);
            }
        }
        if (!gg)
            gg = 1;
        if (p > B->length)
            continue;  /* overflow already says it */
        uint64_t need = p + cn - (gg < cn ? gg : cn);
        if (B->length < need) {
            snprintf(part, sizeof part, "buffer %s", B->name);
            verdict(&c, GD_TOPO_DEADLOCK, B->line, part,
                    "%llu entries can deadlock: with %llu items in it a consumer waits for %llu (items or "
                    "meta.simd_width %llu) while a producer has no room for a CTA's %llu; it needs at least %llu",
                    (unsigned long long)B->length, (unsigned long long)gd_round_up(B->length - p + 1, gg),
                    (unsigned long long)cn, (unsigned long long)simd, (unsigned long long)p, (unsigned long long)need);
        }
    }
    /* cycles: endless loops, and cycles whose buffers can all fill */
    uint64_t seen = 0;
    for (uint32_t i = 0; i < t->nkernels; i++) {
        if (!((g->reach[i] >> i) & 1) || ((seen >> i) & 1))
            continue;
        uint64_t scc = scc_of(g, i);
        seen |= scc;
        uint64_t inner = 0;  /* buffers written and read inside the cycle */
        for (uint32_t k = 0; k < t->nkernels; k++)
            if ((scc >> k) & 1)
                for (uint32_t q = 0; q < t->nkernels; q++)
                    if ((scc >> q) & 1)
                        inner |= g->writes[k] & g->reads[q];
        char names[512], bufs[512];
        list_names(t, scc, names, sizeof names);
        list_buffers(t, inner, bufs, sizeof bufs);
        snprintf(part, sizeof part, "kernel %s", t->k[i].name);
        double lg = max_cycle_log_gain(t, g, scc);
        if (lg >= -1e-9) {
            verdict(&c, GD_TOPO_ENDLESS_LOOP, t->k[i].line, part,
                    "the loop through %s (buffers %s) never ends: a pass returns at least as many items as enter it "
                    "(out_items / items multiplied around the loop >= 1); a loop must lose items",
                    names, bufs);
            continue;
        }
        /* Every kernel of the loop is blocked for room when each of its buffers holds
         * more than its length minus its producer's reserve: sum(length - reserve + 1)
         * items. The loop holds at most what enters it (the initial items of its
         * buffers, what outer kernels write into them, what its kernels make of outer
         * inputs) times its own amplification: the product over its kernels of what
         * one item becomes in them, outputs inside the loop counted, where above 1. A
         * loop that could hold that many is rejected (a sufficient rule, TOPOLOGY.md). */
        uint64_t block = 0, inflow = 0;
        double amp = 1.0;
        for (uint32_t k = 0; k < t->nkernels; k++) {
            if (!((scc >> k) & 1))
                continue;
            double f = (double)__builtin_popcountll(g->writes[k] & inner) * (double)t->k[k].out_items /
                       (double)t->k[k].items;
            amp *= f > 1.0 ? f : 1.0;
        }
        for (uint32_t b = 0; b < t->nbuffers; b++) {
            if (!((inner >> b) & 1))
                continue;
            uint64_t p = 0;
            for (uint32_t k = 0; k < t->nkernels; k++)
                if (((g->producers[b] & scc) >> k) & 1)
                    p = gd_meta_reserve(&t->k[k]) > p ? gd_meta_reserve(&t->k[k]) : p;
            block = sat_add(block, t->b[b].length >= p ? t->b[b].length - p + 1 : 0);
            inflow = sat_add(inflow, t->b[b].initial);
            for (uint32_t k = 0; k < t->nkernels; k++)
                if (((g->producers[b] & ~scc) >> k) & 1)
                    inflow = sat_add(inflow, sat_mul(g->runs[k], t->k[k].out_items));
        }
        /* inputs from outside that feed the cycle's kernels (a join with an outer buffer) */
        for (uint32_t k = 0; k < t->nkernels; k++) {
            if (!((scc >> k) & 1))
                continue;
            uint64_t outer = g->reads[k] & ~inner;
            for (uint32_t b = 0; b < t->nbuffers; b++)
                if ((outer >> b) & 1) {
                    uint64_t m = g->max_items[b];
                    uint64_t r = m == UNBOUNDED ? UNBOUNDED : m / t->k[k].items;
                    inflow = sat_add(inflow, sat_mul(r, t->k[k].out_items));
                }
        }
        double held = inflow == UNBOUNDED ? INFINITY : (double)inflow * amp;
        if (held >= (double)block) {
            if (inflow == UNBOUNDED)
                verdict(&c, GD_TOPO_DEADLOCK, t->k[i].line, part,
                        "the loop through %s can deadlock: unboundedly many items can enter its buffers %s, and "
                        "%llu of them leave no room for any kernel of the loop",
                        names, bufs, (unsigned long long)block);
            else
                verdict(&c, GD_TOPO_DEADLOCK, t->k[i].line, part,
                        "the loop through %s can deadlock: up to %.0f items can be in its buffers %s at once, and "
                        "%llu of them leave no room for any kernel of the loop; lengthen them or feed fewer items",
                        names, held, bufs, (unsigned long long)block);
        }
    }
    return c.n;
}
