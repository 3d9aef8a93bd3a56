/* gdsim - command-line front end. Uses only the public C API (include/gdsim.h). */
#include <errno.h>
#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "compare.h"
#include "gdsim.h"

static const char USAGE[] =
    "gdsim - a SystemC/TLM-2.0 model of a GPU's kernel-dispatch front-end\n"
    "\n"
    "Usage:\n"
    "  gdsim replay TRACE [options]   replay a gdsim trace (.gdt.gz) and print a report\n"
    "  gdsim keys [--markdown] [--preset NAME] [--set KEY=VALUE] [--config FILE] [--trace TRACE]\n"
    "                                 list every configuration key: its value (resolved: the preset's,\n"
    "                                 or the trace's device with --trace), default, accepted values and\n"
    "                                 meaning; --markdown: as a Markdown table\n"
    "  gdsim dump TRACE [-o FILE]     print every record of a trace, AQL packets field by field\n"
    "  gdsim condense IN OUT [--rsb-entries N] [--window-ns NS] [--replacement lru|fifo]\n"
    "                                 rewrite a trace with reference and condensed packets, as a\n"
    "                                 driver that condenses repeated launches would\n"
    "  gdsim check-topology FILE [--preset NAME] [--set KEY=VALUE] [-o FILE]\n"
    "                                 check a pipeline topology (traces/TOPOLOGY.md) before it runs:\n"
    "                                 a line per broken rule naming the kernel or buffer; exit 1 if any\n"
    "  gdsim compare A.json B.json    two summaries (--summary-json) side by side: each figure, B - A,\n"
    "                                 B / A, then the configuration keys that differ\n"
    "  gdsim --help | --version\n"
    "\n"
    "Replay options:\n"
    "  --preset NAME          device: trace (default: the device the trace describes),\n"
    "                         v100, a100, h100, mi250, mi210, mi250x, mi300x, mi300a\n"
    "                         (same as --set gpu.preset=NAME)\n"
    "  --set KEY=VALUE        set a configuration key (repeatable; `gdsim keys` lists them)\n"
    "  --config FILE          read KEY = VALUE lines from FILE ('#' starts a comment);\n"
    "                         later --set and --config override earlier ones\n"
    "  --cta-time-rules FILE  scale the CTA times of kernels by name: lines FACTOR PATTERN (a glob),\n"
    "                         the first match wins (same as --set sm.cta_time_rules=FILE; docs/WHATIF.md)\n"
    "  --kernels-csv FILE     write the per-kernel table (one row per kernel, CSV)\n"
    "  --cta-log FILE         write one row per CTA (CSV: kernel_index,cta_id,x,y,z,cga_id,cga_cta_id,\n"
    "                         gpc,sm,launch_ns,end_ns), written as the CTAs launch\n"
    "  --meta-log FILE        write the meta-scheduler's log of pipeline runs (CSV: time_ns,\n"
    "                         pipeline,event,kernel,buffer,items,fill; traces/TOPOLOGY.md)\n"
    "  --summary-json FILE    write the summary, configuration and block statistics as JSON\n"
    "  --occupancy-csv FILE   write occupancy over time (CSV: start_ns,gpu,gpc0..,sm0..: mean resident\n"
    "                         warps per interval, a row per interval with warps resident)\n"
    "  --interval NS          the occupancy CSV's interval in ns (default 10000)\n"
    "  --timeline FILE        write the replay as a timeline (Chrome trace-event JSON for Perfetto UI or\n"
    "                         chrome://tracing): packets' stages per queue, kernels' CTAs per GPC, the\n"
    "                         capture's measured kernels, resident warps per GPC (per --interval),\n"
    "                         queue depths\n"
    "  --vcd FILE             write waveforms (VCD, through SystemC's tracing; GTKWave opens it): queue\n"
    "                         depths and indices, resident kernels, CTAs launched, per-GPC resident\n"
    "                         CTAs and warps, busy flags (slower: the model then runs in lockstep)\n"
    "  --vcd-queues N         hardware queues with signals in the VCD, 0 to N-1 (default 8)\n"
    "  --absolute-times       times in the CSVs in the trace's own clock (a capture's epoch ns);\n"
    "                         default: ns from the trace's first submit (the JSON's time_origin_ns)\n"
    "  --quiet                do not print the summary\n"
    "  --progress             show progress on stderr (the default): on a terminal one line kept up\n"
    "                         to date (share of the trace read, kernels, CTAs, time left); otherwise\n"
    "                         a line every --progress-every seconds\n"
    "  --progress-every S     seconds between progress lines when stderr is not a terminal (default 5)\n"
    "  --no-progress          never show progress\n"
    "  --perf                 also print wall time, CTAs per second and peak memory\n"
    "  --timeout S            stop the replay after S seconds of wall time (an error saying how far it\n"
    "                         got; nothing written), the kernel table's writing included; Ctrl-C (SIGINT)\n"
    "                         and SIGTERM stop it the same way\n"
    "  (FILE may be '-' for standard output, one output at a time: the text report then goes to\n"
    "  standard error. Every output path is checked before the replay starts.)\n"
    "\n"
    "The report: kernels and CTAs replayed; simulated time from the first submit to the\n"
    "last completion; busy span from the first CTA launch to the last CTA end; mean SM\n"
    "occupancy = resident warps / warp slots over the busy span; mean launch latency =\n"
    "submit to first CTA; then each stage of a kernel's launch (submit -> fetched ->\n"
    "decoded -> dependencies met -> first CTA -> last CTA launched -> done ->\n"
    "completion) as mean, median and 99th percentile over the kernels; the command\n"
    "scheduler's line and one per tenant (VID): commands, failures, launch latency, busy\n"
    "span (--set cs.policy=inorder|waitqueue adds head-of-line blocking, false\n"
    "dependencies and wait-queue use; cs.physical_queues=N shares N hardware queues, as\n"
    "CUDA does). The CSV has the per-kernel breakdown (docs/MODEL.md). A PyTorch-\n"
    "profiler capture becomes a trace with scripts/kineto2gdt.py (docs/KINETO.md);\n"
    "scripts/validate.py compares a replay with the capture (docs/VALIDATION.md).\n"
    "\n"
    "Limits: sim.max_ctas (CTAs in all; a trace past it is refused at the record that\n"
    "passes it) and sim.max_sim_time_s (simulated time: refused at the record, or the\n"
    "replay stops when its clock passes it); `gdsim keys` gives their values.\n"
    "\n"
    "Exit status: 0 on success, 1 when the replay fails (the message names the file,\n"
    "record and offset, or the configuration key) or reaches a limit (--timeout,\n"
    "sim.max_sim_time_s), 2 on a usage error, 130 when interrupted by SIGINT (Ctrl-C),\n"
    "143 by SIGTERM. A replay that fails or is stopped writes no output file.\n";

static double wall_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

/* Progress on stderr: on a terminal one line rewritten in place; otherwise (a log
 * file, a pipe) a plain line every `every` seconds, no carriage returns or escapes.
 * The lines keep to a grid of `every` seconds (next: the next point): the library
 * reports about every half second, each a little late by however long the model's
 * step then took, so the time between two reports is not a guide. */
typedef struct progress_ctx {
    int tty;
    double every, next;
    int shown;
    int writing;  /* the reports are the kernel table's writing (its grid starts again) */
} progress_ctx;

static void fmt_secs(char *buf, size_t size, double s)
{
    if (s < 60)
        snprintf(buf, size, "%.1f s", s);
    else if (s < 3600)
        snprintf(buf, size, "%d min %02d s", (int)(s / 60), (int)s % 60);
    else
        snprintf(buf, size, "%d h %02d min", (int)(s / 3600), (int)(s / 60) % 60);
}

static void progress_cb(void *vctx, const gd_progress *p)
{
    progress_ctx *c = vctx;
    const double slack = 0.1; /* a report this early for the grid's next point still counts */
    if (p->rows_total && !c->writing) {  /* the kernel table's writing: its time counts from 0 */
        c->writing = 1;
        c->next = 0;
    }
    if (!c->tty) {
        if (c->next == 0)
            c->next = c->every;
        if (p->wall_seconds < c->next - slack)
            return;
        while (c->every > 0 && c->next <= p->wall_seconds + slack)
            c->next += c->every;
    }
    c->shown = 1;
    char read[32] = "", left[48] = "", el[24];
    fmt_secs(el, sizeof el, p->wall_seconds);
    if (p->rows_total) {
        double done = (double)p->rows_written / (double)p->rows_total;
        if (done > 0.01 && done < 1.0) {
            char t[24];
            fmt_secs(t, sizeof t, p->wall_seconds * (1.0 - done) / done);
            snprintf(left, sizeof left, ", about %s left", t);
        }
        fprintf(stderr, "%sgdsim: writing the kernel table: %" PRIu64 " of %" PRIu64 " rows (%.0f %%), %s "
                "elapsed%s%s", c->tty ? "\r" : "", p->rows_written, p->rows_total, 100.0 * done, el, left,
                c->tty ? "\033[K" : "\n");
        fflush(stderr);
        return;
    }
    /* the share done: of the trace read while it is being read; once it is all read (or
     * unknown: a pipe), of the CTAs read that have launched (one huge kernel, say) */
    double done = -1;
    if (p->input_fraction >= 0) {
        snprintf(read, sizeof read, "%.0f %% of the trace read, ", 100.0 * p->input_fraction);
        done = p->input_fraction;
    }
    if ((done < 0 || done >= 0.999) && p->ctas_read >= 1000000)
        done = (double)p->ctas_done / (double)p->ctas_read;
    if (done > 0.01 && done < 1.0) {
        char t[24];
        fmt_secs(t, sizeof t, p->wall_seconds * (1.0 - done) / done);
        snprintf(left, sizeof left, ", about %s left", t);
    }
    fprintf(stderr, "%sgdsim: %s%" PRIu64 " kernels done, %" PRIu64 " of %" PRIu64 " CTAs launched, simulated %.3f "
            "ms, %s elapsed%s%s", c->tty ? "\r" : "", read, p->kernels_done, p->ctas_done, p->ctas_read,
            p->sim_time_ns / 1e6, el, left, c->tty ? "\033[K" : "\n");
    fflush(stderr);
}

/* SIGINT and SIGTERM during a replay: the handler asks the library to stop (only a
 * flag is set) and gives the signal back its default action, so that a second one ends
 * the program at once. SIGPIPE is ignored during a replay. */
static gd_sim *volatile g_replaying;
static volatile sig_atomic_t g_signal;

static void on_signal(int sig)
{
    g_signal = sig;
    if (g_replaying)
        gd_sim_interrupt(g_replaying);
}

static void catch_signals(gd_sim *sim)
{
    g_replaying = sim;
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_signal;
    sigemptyset(&sa.sa_mask);
    sa.sa_flags = SA_RESETHAND;
    sigaction(SIGINT, &sa, NULL);
    sigaction(SIGTERM, &sa, NULL);
    /* an output on a pipe whose reader has gone fails as a write error, so that the
     * replay ends as a failed one (its temporary files removed), not killed mid-way */
    signal(SIGPIPE, SIG_IGN);
}

static int set_kv(gd_sim *sim, const char *kv, const char *where)
{
    const char *eq = strchr(kv, '=');
    if (!eq || eq == kv) {
        fprintf(stderr, "gdsim: %s: expected KEY=VALUE, got '%s'\n", where, kv);
        return 2;
    }
    char key[256];
    size_t kl = (size_t)(eq - kv);
    if (kl >= sizeof key) {
        fprintf(stderr, "gdsim: %s: key too long\n", where);
        return 2;
    }
    memcpy(key, kv, kl);
    key[kl] = '\0';
    if (gd_sim_set(sim, key, eq + 1) != GD_OK) {
        fprintf(stderr, "gdsim: %s: %s\n", where, gd_sim_errmsg(sim));
        return 2;
    }
    return 0;
}

static int read_config(gd_sim *sim, const char *path)
{
    if (gd_sim_load_config(sim, path) != GD_OK) {
        fprintf(stderr, "gdsim: %s\n", gd_sim_errmsg(sim));
        return 2;
    }
    return 0;
}

static void md_cell(const char *s)
{
    for (; *s; s++) {
        if (*s == '|')
            fputs("\\|", stdout);
        else
            putchar(*s == '\n' ? ' ' : *s);
    }
}

static int cmd_keys(int argc, char **argv)
{
    int markdown = 0, rc = 0;
    const char *trace = NULL;
    gd_sim *sim = NULL;
    if (gd_sim_new(&sim, NULL) != GD_OK) {
        fprintf(stderr, "gdsim: out of memory\n");
        return 1;
    }
    for (int i = 2; i < argc && !rc; i++) {
        const char *a = argv[i];
        int has_next = i + 1 < argc;
        if (strcmp(a, "--markdown") == 0) {
            markdown = 1;
        } else if (strcmp(a, "--preset") == 0 && has_next) {
            char kv[128];
            snprintf(kv, sizeof kv, "gpu.preset=%s", argv[++i]);
            rc = set_kv(sim, kv, "--preset");
        } else if (strcmp(a, "--set") == 0 && has_next) {
            rc = set_kv(sim, argv[++i], "--set");
        } else if (strcmp(a, "--config") == 0 && has_next) {
            rc = read_config(sim, argv[++i]);
        } else if (strcmp(a, "--trace") == 0 && has_next) {
            trace = argv[++i];
        } else {
            fprintf(stderr, "gdsim: keys: unknown option or missing value: '%s' (see gdsim --help)\n", a);
            rc = 2;
        }
    }
    if (!rc && trace && gd_sim_resolve_config(sim, trace) != GD_OK) {
        fprintf(stderr, "gdsim: %s\n", gd_sim_errmsg(sim));
        rc = 1;
    }
    if (rc) {
        gd_sim_free(sim);
        return rc;
    }
    if (markdown)
        printf("| key | value | default | accepted values | meaning |\n|---|---|---|---|---|\n");
    const char *name, *def, *doc, *accepted;
    for (size_t i = 0; gd_config_key(&name, &def, &doc, NULL, i) == GD_OK; i++) {
        const char *val = NULL;
        if (gd_sim_get(&val, sim, name) != GD_OK)
            val = "?";
        if (strncmp(val, "(from the trace", 15) == 0)
            val = "(the trace's device: give --trace TRACE or --preset NAME)";
        if (gd_config_key_accepted(&accepted, i) != GD_OK)
            accepted = NULL;
        if (markdown) {
            printf("| `%s` | ", name);
            md_cell(val);
            printf(" | ");
            md_cell(def ? def : "the device preset");
            printf(" | ");
            md_cell(accepted ? accepted : "");
            printf(" | ");
            md_cell(doc);
            printf(" |\n");
        } else {
            printf("%s = %s\n    %s\n    accepted: %s; default: %s\n", name, val, doc, accepted ? accepted : "",
                   def ? def : "the device preset");
        }
    }
    if (!markdown)
        printf("(docs/CONFIG.md gives where each default comes from and every preset's values)\n");
    gd_sim_free(sim);
    return 0;
}

/* An output path is writable before the replay starts: "-", or a file that can be
 * created or overwritten (not a directory, not the trace itself). */
static int check_output(const char *path, const char *option, const char *trace)
{
    if (strcmp(path, "-") == 0)
        return 0;
    if (!*path) {
        fprintf(stderr, "gdsim: replay: %s: an empty path\n", option);
        return 2;
    }
    struct stat st, ts;
    if (stat(path, &st) == 0) {
        if (S_ISDIR(st.st_mode)) {
            fprintf(stderr, "gdsim: replay: %s %s: is a directory\n", option, path);
            return 2;
        }
        if (trace && stat(trace, &ts) == 0 && ts.st_dev == st.st_dev && ts.st_ino == st.st_ino) {
            fprintf(stderr, "gdsim: replay: %s %s: is the trace being replayed; refusing to overwrite it\n", option,
                    path);
            return 2;
        }
        if (access(path, W_OK) != 0) {
            fprintf(stderr, "gdsim: replay: %s %s: cannot write: %s\n", option, path, strerror(errno));
            return 2;
        }
        return 0;
    }
    if (errno != ENOENT) {
        fprintf(stderr, "gdsim: replay: %s %s: %s\n", option, path, strerror(errno));
        return 2;
    }
    char dir[4096];
    const char *slash = strrchr(path, '/');
    if (!slash)
        snprintf(dir, sizeof dir, ".");
    else
        snprintf(dir, sizeof dir, "%.*s", slash == path ? 1 : (int)(slash - path), path);
    if (stat(dir, &st) != 0 || !S_ISDIR(st.st_mode)) {
        fprintf(stderr, "gdsim: replay: %s %s: the folder %s does not exist\n", option, path, dir);
        return 2;
    }
    if (access(dir, W_OK | X_OK) != 0) {
        fprintf(stderr, "gdsim: replay: %s %s: cannot create a file in %s: %s\n", option, path, dir,
                strerror(errno));
        return 2;
    }
    return 0;
}

/* An output option given twice would silently lose the first file. */
static int once(const char **slot, const char *option, const char *path)
{
    if (*slot) {
        fprintf(stderr, "gdsim: replay: %s given twice ('%s' and '%s'): one file per output\n", option, *slot, path);
        return 2;
    }
    *slot = path;
    return 0;
}

static int cmd_replay(int argc, char **argv)
{
    const char *trace = NULL, *csv = NULL, *json = NULL, *cta_log = NULL, *meta_log = NULL, *occ = NULL, *timeline = NULL, *vcd = NULL;
    unsigned long vcd_queues = 8;
    unsigned long long interval_ns = 10000;
    double timeout = 0;
    int quiet = 0, perf = 0, progress = 1, absolute = 0;
    progress_ctx pc = {isatty(2), 5.0, 0.0, 0, 0};
    for (int i = 2; i < argc; i++) {  /* output options first: they decide the handle's options */
        if (strcmp(argv[i], "--quiet") == 0)
            quiet = 1, progress = 0;
        else if (strcmp(argv[i], "--progress") == 0)
            progress = 1;
        else if (strcmp(argv[i], "--no-progress") == 0)
            progress = 0;
        else if (strcmp(argv[i], "--progress-every") == 0 && i + 1 < argc) {
            char *end;
            pc.every = strtod(argv[++i], &end);
            if (!*argv[i] || *end || !(pc.every >= 0 && pc.every <= 86400)) {
                fprintf(stderr, "gdsim: replay: --progress-every '%s': seconds from 0 to 86400\n", argv[i]);
                return 2;
            }
        }
    }
    gd_options opts;
    gd_options_init(&opts, GD_OPTIONS_VERSION);
    if (progress) {
        opts.progress = progress_cb;
        opts.progress_ctx = &pc;
    }
    gd_sim *sim = NULL;
    if (gd_sim_new(&sim, &opts) != GD_OK) {
        fprintf(stderr, "gdsim: out of memory\n");
        return 1;
    }
    int rc = 0;
    for (int i = 2; i < argc && !rc; i++) {
        const char *a = argv[i];
        int has_next = i + 1 < argc;
        if (strcmp(a, "--preset") == 0 && has_next) {
            char kv[128];
            snprintf(kv, sizeof kv, "gpu.preset=%s", argv[++i]);
            rc = set_kv(sim, kv, "--preset");
        } else if (strcmp(a, "--set") == 0 && has_next) {
            rc = set_kv(sim, argv[++i], "--set");
        } else if (strncmp(a, "--set=", 6) == 0) {
            rc = set_kv(sim, a + 6, "--set");
        } else if (strcmp(a, "--config") == 0 && has_next) {
            rc = read_config(sim, argv[++i]);
        } else if (strcmp(a, "--cta-time-rules") == 0 && has_next) {
            if (gd_sim_set(sim, "sm.cta_time_rules", argv[++i]) != GD_OK) {
                fprintf(stderr, "gdsim: --cta-time-rules: %s\n", gd_sim_errmsg(sim));
                rc = 2;
            }
        } else if (strcmp(a, "--kernels-csv") == 0 && has_next) {
            rc = once(&csv, a, argv[++i]);
        } else if (strcmp(a, "--cta-log") == 0 && has_next) {
            rc = once(&cta_log, a, argv[++i]);
        } else if (strcmp(a, "--meta-log") == 0 && has_next) {
            rc = once(&meta_log, a, argv[++i]);
        } else if (strcmp(a, "--summary-json") == 0 && has_next) {
            rc = once(&json, a, argv[++i]);
        } else if (strcmp(a, "--occupancy-csv") == 0 && has_next) {
            rc = once(&occ, a, argv[++i]);
        } else if (strcmp(a, "--timeline") == 0 && has_next) {
            rc = once(&timeline, a, argv[++i]);
        } else if (strcmp(a, "--vcd") == 0 && has_next) {
            rc = once(&vcd, a, argv[++i]);
        } else if (strcmp(a, "--vcd-queues") == 0 && has_next) {
            char *end;
            const char *v = argv[++i];
            vcd_queues = strtoul(v, &end, 10);
            if (!*v || *end || *v == '-' || vcd_queues > 1024) {
                fprintf(stderr, "gdsim: replay: --vcd-queues '%s': a whole number from 0 to 1024\n", v);
                rc = 2;
            }
        } else if (strcmp(a, "--interval") == 0 && has_next) {
            char *end;
            const char *v = argv[++i];
            errno = 0;
            interval_ns = strtoull(v, &end, 10);
            if (!*v || *end || *v == '-' || errno || interval_ns == 0 || interval_ns > 1000000000000ull) {
                fprintf(stderr, "gdsim: replay: --interval '%s': a whole number of nanoseconds from 1 to 10^12\n", v);
                rc = 2;
            }
        } else if (strcmp(a, "--absolute-times") == 0) {
            absolute = 1;
        } else if (strcmp(a, "--timeout") == 0 && has_next) {
            char *end;
            const char *v = argv[++i];
            timeout = strtod(v, &end);
            if (!*v || *end || !(timeout >= 1e-3 && timeout <= 1e7)) {
                fprintf(stderr, "gdsim: replay: --timeout '%s': seconds, from 0.001 to 10^7\n", v);
                rc = 2;
            }
        } else if (strcmp(a, "--quiet") == 0 || strcmp(a, "--progress") == 0 || strcmp(a, "--no-progress") == 0) {
            continue;
        } else if (strcmp(a, "--progress-every") == 0 && has_next) {
            i++;
        } else if (strcmp(a, "--perf") == 0) {
            perf = 1;
        } else if (a[0] == '-' && a[1]) {
            fprintf(stderr, "gdsim: replay: unknown option or missing value: '%s' (see gdsim --help)\n", a);
            rc = 2;
        } else if (!trace) {
            trace = a;
        } else {
            fprintf(stderr, "gdsim: replay: more than one trace given ('%s' and '%s')\n", trace, a);
            rc = 2;
        }
    }
    if (!rc && !trace) {
        fprintf(stderr, "gdsim: replay: no trace given (usage: gdsim replay TRACE [options])\n");
        rc = 2;
    }
    /* every output checked before the replay: writable, not the trace, not two on one path */
    const char *outs[7] = {csv, json, cta_log, meta_log, occ, timeline, vcd};
    const char *names[7] = {"--kernels-csv", "--summary-json", "--cta-log", "--meta-log", "--occupancy-csv",
                            "--timeline", "--vcd"};
    int to_stdout = 0;
    if (vcd && strcmp(vcd, "-") == 0) {
        fprintf(stderr, "gdsim: replay: --vcd -: waveforms go to a file (SystemC writes it), not to standard "
                        "output\n");
        rc = 2;
    }
    for (int i = 0; i < 7 && !rc; i++) {
        if (!outs[i])
            continue;
        rc = check_output(outs[i], names[i], trace);
        for (int j = 0; j < i && !rc; j++)
            if (outs[j] && strcmp(outs[i], outs[j]) == 0) {
                fprintf(stderr, "gdsim: replay: %s and %s both write to %s%s\n", names[j], names[i],
                        strcmp(outs[i], "-") ? outs[i] : "standard output", strcmp(outs[i], "-") ? "" :
                        " (one output at a time can go there)");
                rc = 2;
            }
        to_stdout |= strcmp(outs[i], "-") == 0;
    }
    if (!rc && ((cta_log && gd_sim_set_cta_log(sim, cta_log) != GD_OK) ||
                (meta_log && gd_sim_set_meta_log(sim, meta_log) != GD_OK) ||
                (occ && gd_sim_set_occupancy_csv(sim, occ, interval_ns) != GD_OK) ||
                (timeline && gd_sim_set_timeline(sim, timeline, interval_ns) != GD_OK) ||
                (vcd && gd_sim_set_vcd(sim, vcd, (unsigned)vcd_queues) != GD_OK) ||
                gd_sim_set_kernel_table(sim, csv != NULL) != GD_OK ||  /* kept only to be written */
                gd_sim_set_absolute_times(sim, absolute) != GD_OK || gd_sim_set_timeout(sim, timeout) != GD_OK)) {
        fprintf(stderr, "gdsim: %s\n", gd_sim_errmsg(sim));
        rc = 1;
    }
    if (rc) {
        gd_sim_free(sim);
        return rc;
    }
    double t0 = wall_now();
    catch_signals(sim);
    int r = gd_sim_replay_file(sim, trace);
    double wall = wall_now() - t0;
    if (progress && pc.tty && pc.shown)
        fprintf(stderr, "\r\033[K");
    if (r != GD_OK || g_signal) {  /* a signal just after the replay ended also stops the outputs */
        if (r != GD_OK)
            fprintf(stderr, "gdsim: %s\n", gd_sim_errmsg(sim));
        else
            fprintf(stderr, "gdsim: %s: interrupted as the replay ended; nothing written\n", trace);
        int sig = g_signal;
        gd_sim_free(sim);
        return sig ? 128 + sig : 1;
    }
    /* the text report goes to standard error when an output takes standard output */
    if (!quiet && gd_sim_write_summary_text(sim, to_stdout ? "/dev/stderr" : "-") != GD_OK)
        rc = 1;
    if (!rc && csv && timeout > 0) { /* --timeout bounds the command: the table gets what is left */
        double left = timeout - (wall_now() - t0);
        gd_sim_set_timeout(sim, left > 0.001 ? left : 0.001);
    }
    if (!rc && csv && gd_sim_write_kernels_csv(sim, csv) != GD_OK)
        rc = 1;
    if (!rc && json && gd_sim_write_summary_json(sim, json) != GD_OK)
        rc = 1;
    if (rc)
        fprintf(stderr, "gdsim: %s\n", gd_sim_errmsg(sim));
    if (rc && g_signal)  /* a write the signal stopped */
        rc = 128 + g_signal;
    if (!rc && g_signal) {  /* stopped while the outputs were written: each file written is whole */
        fprintf(stderr, "gdsim: %s: interrupted while writing the outputs; the files not yet written are missing\n",
                trace);
        rc = 128 + g_signal;
    }
    if (!rc && perf) {
        gd_summary s;
        memset(&s, 0, sizeof s);
        gd_sim_summary(sim, &s);
        struct rusage ru;
        getrusage(RUSAGE_SELF, &ru);
        fprintf(to_stdout ? stderr : stdout,
                "perf: %" PRIu64 " CTAs, %" PRIu64 " kernels in %.3f s wall: %.2f M CTAs/s, peak memory %.1f MB\n",
                s.ctas, s.kernels, wall, wall > 0 ? s.ctas / wall / 1e6 : 0.0, ru.ru_maxrss / 1024.0);
    }
    gd_sim_free(sim);
    return rc;
}

static int cmd_dump(int argc, char **argv)
{
    const char *trace = NULL, *out = "-";
    for (int i = 2; i < argc; i++) {
        if ((strcmp(argv[i], "-o") == 0 || strcmp(argv[i], "--output") == 0) && i + 1 < argc) {
            out = argv[++i];
        } else if (argv[i][0] == '-' && argv[i][1]) {
            fprintf(stderr, "gdsim: dump: unknown option or missing value: '%s' (see gdsim --help)\n", argv[i]);
            return 2;
        } else if (!trace) {
            trace = argv[i];
        } else {
            fprintf(stderr, "gdsim: dump: more than one trace given ('%s' and '%s')\n", trace, argv[i]);
            return 2;
        }
    }
    if (!trace) {
        fprintf(stderr, "gdsim: dump: no trace given (usage: gdsim dump TRACE [-o FILE])\n");
        return 2;
    }
    gd_sim *sim = NULL;
    if (gd_sim_new(&sim, NULL) != GD_OK) {
        fprintf(stderr, "gdsim: out of memory\n");
        return 1;
    }
    int rc = gd_sim_dump_trace(sim, trace, out);
    if (rc != GD_OK)
        fprintf(stderr, "gdsim: %s\n", gd_sim_errmsg(sim));
    gd_sim_free(sim);
    return rc == GD_OK ? 0 : 1;
}

static int cmd_check_topology(int argc, char **argv)
{
    const char *file = NULL, *out = "-";
    gd_sim *sim = NULL;
    if (gd_sim_new(&sim, NULL) != GD_OK) {
        fprintf(stderr, "gdsim: out of memory\n");
        return 1;
    }
    int rc = 0;
    for (int i = 2; i < argc; i++) {
        if ((strcmp(argv[i], "-o") == 0 || strcmp(argv[i], "--output") == 0) && i + 1 < argc) {
            out = argv[++i];
        } else if (strcmp(argv[i], "--preset") == 0 && i + 1 < argc) {
            char kv[128];
            snprintf(kv, sizeof kv, "gpu.preset=%s", argv[++i]);
            rc = set_kv(sim, kv, "--preset");
        } else if (strcmp(argv[i], "--set") == 0 && i + 1 < argc) {
            rc = set_kv(sim, argv[++i], "--set");
        } else if (argv[i][0] == '-' && argv[i][1]) {
            fprintf(stderr, "gdsim: check-topology: unknown option or missing value: '%s' (see gdsim --help)\n",
                    argv[i]);
            gd_sim_free(sim);
            return 2;
        } else if (!file) {
            file = argv[i];
        } else {
            fprintf(stderr, "gdsim: check-topology: more than one topology given ('%s' and '%s')\n", file, argv[i]);
            gd_sim_free(sim);
            return 2;
        }
        if (rc) {  /* set_kv said why */
            gd_sim_free(sim);
            return rc;
        }
    }
    if (!file) {
        fprintf(stderr, "gdsim: check-topology: no topology given (usage: gdsim check-topology FILE)\n");
        gd_sim_free(sim);
        return 2;
    }
    rc = gd_sim_check_topology(sim, file, out);
    if (rc != GD_OK && rc != GD_EMODEL)  /* a broken rule is in the verdicts already */
        fprintf(stderr, "gdsim: %s\n", gd_sim_errmsg(sim));
    gd_sim_free(sim);
    return rc == GD_OK ? 0 : 1;
}

static int cmd_condense(int argc, char **argv)
{
    const char *in = NULL, *out = NULL;
    unsigned long rsb = 8;
    unsigned long long window = 20000;
    const char *repl = NULL;  /* the rsb.replacement key */
    for (int i = 2; i < argc; i++) {
        char *end = NULL;
        if (strcmp(argv[i], "--replacement") == 0 && i + 1 < argc) {
            repl = argv[++i];
            if (strcmp(repl, "lru") && strcmp(repl, "fifo")) {
                fprintf(stderr, "gdsim: condense: --replacement '%s': lru or fifo\n", repl);
                return 2;
            }
            continue;
        }
        if (strcmp(argv[i], "--rsb-entries") == 0 && i + 1 < argc) {
            rsb = strtoul(argv[++i], &end, 10);
            if (!*argv[i] || *end || rsb < 1 || rsb > 8) {
                fprintf(stderr, "gdsim: condense: --rsb-entries '%s': an integer from 1 to 8\n", argv[i]);
                return 2;
            }
        } else if (strcmp(argv[i], "--window-ns") == 0 && i + 1 < argc) {
            errno = 0;
            window = strtoull(argv[++i], &end, 10);
            if (!*argv[i] || *end || *argv[i] == '-' || errno || window > 1000000000000ull) {
                fprintf(stderr, "gdsim: condense: --window-ns '%s': a whole number of nanoseconds from 0 to 10^12\n",
                        argv[i]);
                return 2;
            }
        } else if (argv[i][0] == '-' && argv[i][1]) {
            fprintf(stderr, "gdsim: condense: unknown option or missing value: '%s' (see gdsim --help)\n", argv[i]);
            return 2;
        } else if (!in) {
            in = argv[i];
        } else if (!out) {
            out = argv[i];
        } else {
            fprintf(stderr, "gdsim: condense: too many arguments ('%s')\n", argv[i]);
            return 2;
        }
    }
    if (!in || !out) {
        fprintf(stderr, "gdsim: condense: usage: gdsim condense IN OUT [--rsb-entries N] [--window-ns NS] "
                        "[--replacement lru|fifo]\n");
        return 2;
    }
    gd_sim *sim = NULL;
    if (gd_sim_new(&sim, NULL) != GD_OK) {
        fprintf(stderr, "gdsim: out of memory\n");
        return 1;
    }
    gd_condense_result r;
    memset(&r, 0, sizeof r);
    int rc = gd_sim_condense_trace(&r, sim, in, out, (unsigned)rsb, window, repl);
    if (rc != GD_OK) {
        fprintf(stderr, "gdsim: %s\n", gd_sim_errmsg(sim));
        gd_sim_free(sim);
        return 1;
    }
    printf("gdsim condense %s -> %s (%lu reference state table entries, %s replacement, window %llu ns)\n", in, out,
           rsb, repl ? repl : "lru", window);
    printf("  dispatches          %" PRIu64 "\n", r.dispatches);
    printf("  reference packets   %" PRIu64 " (table misses)\n", r.references);
    printf("  condensed packets   %" PRIu64 " holding %" PRIu64 " kernels (table hits)\n", r.condensed_packets,
           r.condensed_kernels);
    printf("  plain dispatches    %" PRIu64 " (cluster shape, wait-until time or tenant field)\n", r.plain);
    printf("  RST hit rate        %.1f %%\n", r.dispatches ? 100.0 * (double)r.condensed_kernels / (double)r.dispatches : 0.0);
    printf("  packet bytes        %" PRIu64 " before, %" PRIu64 " after\n", r.bytes_before, r.bytes_after);
    gd_sim_free(sim);
    return 0;
}

/* A whole file into memory (at most 64 MiB: a summary JSON is a few kB). */
static char *slurp(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    if (!f) {
        fprintf(stderr, "gdsim: compare: %s: cannot read: %s\n", path, strerror(errno));
        return NULL;
    }
    size_t cap = 1 << 16, n = 0;
    char *buf = malloc(cap);
    while (buf) {
        size_t got = fread(buf + n, 1, cap - n, f);
        n += got;
        if (n < cap)
            break;
        if (cap >= (64u << 20)) {
            fprintf(stderr, "gdsim: compare: %s: larger than 64 MiB: not a summary JSON\n", path);
            free(buf);
            fclose(f);
            return NULL;
        }
        char *nb = realloc(buf, cap *= 2);
        if (!nb)
            free(buf);
        buf = nb;
    }
    if (!buf || ferror(f)) {
        fprintf(stderr, "gdsim: compare: %s: %s\n", path, buf ? "read error" : "out of memory");
        free(buf);
        fclose(f);
        return NULL;
    }
    fclose(f);
    *len = n;
    return buf;
}

static int cmd_compare(int argc, char **argv)
{
    if (argc != 4) {
        fprintf(stderr, "gdsim: compare: usage: gdsim compare A.json B.json (two --summary-json files)\n");
        return 2;
    }
    gd_compare_doc *d[2] = {NULL, NULL};
    int rc = 0;
    for (int i = 0; i < 2 && !rc; i++) {
        size_t len = 0;
        char *text = slurp(argv[2 + i], &len), err[512];
        if (!text) {
            rc = 1;
            break;
        }
        if (gd_compare_parse(&d[i], argv[2 + i], text, len, err, sizeof err)) {
            fprintf(stderr, "gdsim: compare: %s\n", err);
            rc = 1;
        }
        free(text);
    }
    if (!rc)
        gd_compare_print(stdout, d[0], argv[2], d[1], argv[3]);
    gd_compare_free(d[0]);
    gd_compare_free(d[1]);
    return rc;
}

/* What a command printed on standard output reached it: a full disk or a closed pipe
 * is an error, not a silent success. */
static int stdout_ok(int rc)
{
    if (fflush(stdout) != 0 || ferror(stdout)) {
        if (rc == 0)
            fprintf(stderr, "gdsim: standard output: write failed: %s\n", strerror(errno ? errno : EIO));
        return rc ? rc : 1;
    }
    return rc;
}

static int run_command(int argc, char **argv);

int main(int argc, char **argv) { return stdout_ok(run_command(argc, argv)); }

static int run_command(int argc, char **argv)
{
    if (argc < 2 || strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0 || strcmp(argv[1], "help") == 0) {
        fputs(USAGE, argc < 2 ? stderr : stdout);
        return argc < 2 ? 2 : 0;
    }
    if (strcmp(argv[1], "--version") == 0) {
        printf("gdsim %s\n", gd_version());
        return 0;
    }
    if (strcmp(argv[1], "replay") == 0)
        return cmd_replay(argc, argv);
    if (strcmp(argv[1], "dump") == 0)
        return cmd_dump(argc, argv);
    if (strcmp(argv[1], "condense") == 0)
        return cmd_condense(argc, argv);
    if (strcmp(argv[1], "check-topology") == 0)
        return cmd_check_topology(argc, argv);
    if (strcmp(argv[1], "keys") == 0)
        return cmd_keys(argc, argv);
    if (strcmp(argv[1], "compare") == 0)
        return cmd_compare(argc, argv);
    fprintf(stderr, "gdsim: unknown command '%s' (see gdsim --help)\n", argv[1]);
    return 2;
}
