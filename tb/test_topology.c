/* test_topology.c - pipeline topologies (model/trace/topology.c, traces/TOPOLOGY.md)
 * without a simulator: seed 002 fig 1 parses and is valid; every validation rule on a
 * small case with its exact verdict; every class of syntax error with its line; and
 * 20,000 deterministic mutations of fig 1 that must each parse or fail cleanly. */
#include <check.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "gdsim.h"
#include "tb_util.h"
#include "topology.h"

static gd_topology *T;
static gd_err E;
static gd_topo_verdict V[64];

static int parse(const char *text)
{
    gd_err_clear(&E);
    return gd_topology_parse(T, text, strlen(text), "t.topo", &E);
}

static size_t check(const char *text, uint32_t simd)
{
    ck_assert_msg(parse(text) == GD_OK, "parse: %s", E.msg);
    gd_topo_limits lim = {simd};
    memset(V, 0, sizeof V);
    return gd_topology_validate(T, &lim, V, 64);
}

static void setup(void) { T = malloc(sizeof *T); }
static void teardown(void) { free(T); }

/* FIG1: tb_util.h */

START_TEST(fig1_parses_and_is_valid)
{
    ck_assert_uint_eq(check(FIG1, 32), 0);
    ck_assert_str_eq(T->name, "fig1");
    ck_assert_int_eq(T->policy, GD_META_ROUND_ROBIN);
    ck_assert_uint_eq(T->nkernels, 3);
    ck_assert_uint_eq(T->nbuffers, 4);
    const gd_meta_kernel *k1 = &T->k[0], *k3 = &T->k[2];
    ck_assert_uint_eq(k1->nin, 1);
    ck_assert_uint_eq(k1->nout, 2);
    ck_assert_int_eq(k1->out[0], 1);
    ck_assert_int_eq(k1->out[1], 2);
    ck_assert_uint_eq(k1->items, 32);
    ck_assert_uint_eq(k1->out_items, 32);  /* default: items x amplification */
    ck_assert_uint_eq(k1->line, 8);
    ck_assert_int_eq(k3->in[0], 3);
    ck_assert_int_eq(k3->in[1], 2);
    ck_assert_uint_eq(k3->nout, 0);
    ck_assert_uint_eq(k3->out_items, 32);  /* written nowhere: it has no output */
    ck_assert_uint_eq(T->k[1].importance, 1);
    ck_assert_uint_eq(T->b[0].initial, 256);
    ck_assert_uint_eq(T->b[3].length, 128);
}
END_TEST

static void expect(size_t i, int rule, uint32_t line, const char *part, const char *text)
{
    ck_assert_str_eq(gd_topo_rule_name(V[i].rule), gd_topo_rule_name(rule));
    ck_assert_uint_eq(V[i].line, line);
    ck_assert_str_eq(V[i].part, part);
    ck_assert_str_eq(V[i].text, text);
}

START_TEST(rule_unknown_and_unconnected)
{
    ck_assert_uint_eq(check("buffer A width=4 length=64 initial=64\n"
                            "buffer B width=4 length=64\n"
                            "buffer Z width=4 length=64\n"
                            "kernel K in=A,Q out=B,R items=1 threads=32 cta_ns=10\n"
                            "kernel L in=B items=1 threads=32 cta_ns=10\n",
                            1),
                      3);
    expect(0, GD_TOPO_UNKNOWN_BUFFER, 4, "kernel K", "reads Q, which is not a buffer of the topology");
    expect(1, GD_TOPO_UNKNOWN_BUFFER, 4, "kernel K", "writes R, which is not a buffer of the topology");
    expect(2, GD_TOPO_UNCONNECTED, 3, "buffer Z", "no kernel reads or writes it");
}
END_TEST

START_TEST(rule_no_consumer_and_drain)
{
    const char *t = "buffer A width=4 length=64 initial=64\n"
                    "buffer OUT width=4 length=64%s\n"
                    "kernel K in=A out=OUT items=1 threads=32 cta_ns=10\n";
    char text[512];
    snprintf(text, sizeof text, t, "");
    ck_assert_uint_eq(check(text, 1), 1);
    expect(0, GD_TOPO_NO_CONSUMER, 2, "buffer OUT",
           "no kernel reads it, so its items would pile up (mark it drain if the host reads it)");
    snprintf(text, sizeof text, t, " drain");
    ck_assert_uint_eq(check(text, 1), 0);
}
END_TEST

/* A drain is read by the host when the pipeline ends, so it holds all that reaches it:
 * 64 CTAs of K write 1 item each but reserve 4; the last finds 63 there and needs 67
 * entries. Fed through a loop (no bound) it is left to the run. */
START_TEST(rule_drain_capacity)
{
    const char *t = "buffer A width=4 length=64 initial=64\n"
                    "buffer OUT width=4 length=%d drain\n"
                    "kernel K in=A out=OUT items=1 amplification=4 out_items=1 threads=32 cta_ns=10\n";
    char text[512];
    snprintf(text, sizeof text, t, 66);
    ck_assert_uint_eq(check(text, 1), 1);
    expect(0, GD_TOPO_OVERFLOW, 2, "buffer OUT",
           "drain: the host reads it when the pipeline ends and up to 64 items reach it; K's last CTA finds up to "
           "63 there and reserves 4 (items x amplification), so it needs at least 67 entries, not 66");
    snprintf(text, sizeof text, t, 67);
    ck_assert_uint_eq(check(text, 1), 0);
    /* two producers: the larger need counts (L: 64 CTAs of 2 items write 128 more) */
    ck_assert_uint_eq(check("buffer A width=4 length=64 initial=64\n"
                            "buffer B width=4 length=128 initial=128\n"
                            "buffer OUT width=4 length=200 drain\n"
                            "kernel K in=A out=OUT items=1 threads=32 cta_ns=10\n"
                            "kernel L in=B out=OUT items=2 amplification=8 out_items=2 threads=32 cta_ns=10\n",
                            1),
                      1);
    expect(0, GD_TOPO_OVERFLOW, 3, "buffer OUT",
           "drain: the host reads it when the pipeline ends and up to 192 items reach it; L's last CTA finds up to "
           "190 there and reserves 16 (items x amplification), so it needs at least 206 entries, not 200");
    /* a drain fed from a loop has no bound here: valid (a run that fills it stops with
     * a deadlock error naming the buffer) */
    ck_assert_uint_eq(check("buffer A width=4 length=64 initial=32\n"
                            "buffer OUT width=4 length=8 drain\n"
                            "kernel K in=A out=A,OUT items=2 out_items=1 threads=32 cta_ns=10\n",
                            1),
                      0);
}
END_TEST

START_TEST(rule_no_input)
{
    ck_assert_uint_eq(check("buffer A width=4 length=64 drain\n"
                            "kernel G out=A items=1 threads=32 cta_ns=10\n",
                            1),
                      1);
    expect(0, GD_TOPO_NO_INPUT, 2, "kernel G",
           "reads no buffer: the meta-scheduler launches a kernel when its input holds data (give it an input "
           "buffer with initial items)");
}
END_TEST

START_TEST(rule_out_of_range)
{
    ck_assert_uint_eq(check("buffer A width=4 length=16 initial=16\n"
                            "buffer P width=4 dims=7x5 initial=35\n"
                            "kernel K in=A items=17 threads=32 cta_ns=10\n"
                            "kernel L in=P items=7x7 threads=32 cta_ns=10\n"
                            "kernel M in=A items=2x2 threads=32 cta_ns=10\n"
                            "kernel N in=P items=5x5 threads=32 cta_ns=10\n",
                            1),
                      5);  /* and K and L starve (below) */
    expect(0, GD_TOPO_OUT_OF_RANGE, 3, "kernel K", "a CTA reads 17 items from A, which holds 16");
    expect(1, GD_TOPO_OUT_OF_RANGE, 4, "kernel L", "reads 7x7 blocks from P, which is 7x5: a block reaches past its edge");
    expect(2, GD_TOPO_OUT_OF_RANGE, 5, "kernel M", "reads 2x2 blocks from A, a 1-D buffer");
    expect(3, GD_TOPO_STARVED, 3, "kernel K", "can never run: A receives at most 16 items and a CTA needs 17");
    expect(4, GD_TOPO_STARVED, 4, "kernel L", "can never run: P receives at most 35 items and a CTA needs 49");
}
END_TEST

START_TEST(rule_overflow)
{
    ck_assert_uint_eq(check("buffer A width=4 length=8 initial=9\n"
                            "buffer B width=4 length=8\n"
                            "kernel K in=A out=B items=4 amplification=3 out_items=6 threads=32 cta_ns=10\n"
                            "kernel L in=B items=1 threads=32 cta_ns=10\n",
                            1),
                      2);
    expect(0, GD_TOPO_OVERFLOW, 1, "buffer A", "initial=9 is more than its 8 entries");
    expect(1, GD_TOPO_OVERFLOW, 3, "kernel K",
           "a CTA may write 12 items (4 items x amplification 3) into B, which holds 8");
}
END_TEST

START_TEST(rule_starved)
{
    /* A holds 10: K runs at most 3 CTAs of 3 items and writes 1 item each: B gets 3,
     * and a CTA of L needs 4 */
    ck_assert_uint_eq(check("buffer A width=4 length=16 initial=10\n"
                            "buffer B width=4 length=16\n"
                            "kernel K in=A out=B items=3 out_items=1 threads=32 cta_ns=10\n"
                            "kernel L in=B items=4 threads=32 cta_ns=10\n",
                            1),
                      1);
    expect(0, GD_TOPO_STARVED, 4, "kernel L", "can never run: B receives at most 3 items and a CTA needs 4");
}
END_TEST

START_TEST(rule_deadlock_buffer_and_simd_width)
{
    /* p = 8 (one CTA of K writes 8), the consumer waits for max(8, simd): simd 32 needs
     * 8 + 32 - 8 = 32 entries (40 is enough); simd 64 needs 64 */
    const char *t = "buffer A width=4 length=4096 initial=4096\n"
                    "buffer B width=4 length=40\n"
                    "kernel K in=A out=B items=8 threads=32 cta_ns=10\n"
                    "kernel L in=B items=8 threads=32 cta_ns=10\n";
    ck_assert_uint_eq(check(t, 32), 0);
    ck_assert_uint_eq(check(t, 64), 1);
    expect(0, GD_TOPO_DEADLOCK, 2, "buffer B",
           "40 entries can deadlock: with 40 items in it a consumer waits for 64 (items or meta.simd_width 64) "
           "while a producer has no room for a CTA's 8; it needs at least 64");
    /* p + c - gcd: a producer of 6 and a consumer of 4 need 6 + 4 - 2 = 8 entries */
    const char *u = "buffer A width=4 length=4096 initial=4096\n"
                    "buffer B width=4 length=%u\n"
                    "kernel K in=A out=B items=6 threads=32 cta_ns=10\n"
                    "kernel L in=B items=4 threads=32 cta_ns=10\n";
    char text[512];
    snprintf(text, sizeof text, u, 7u);
    ck_assert_uint_eq(check(text, 1), 1);
    expect(0, GD_TOPO_DEADLOCK, 2, "buffer B",
           "7 entries can deadlock: with 2 items in it a consumer waits for 4 (items or meta.simd_width 1) while "
           "a producer has no room for a CTA's 6; it needs at least 8");
    snprintf(text, sizeof text, u, 8u);
    ck_assert_uint_eq(check(text, 1), 0);
}
END_TEST

START_TEST(rule_cycles)
{
    /* K -> B -> L -> A -> K: the host fills A; L halves the items (4 in, 2 out), so
     * the loop ends */
    const char *loop = "buffer A width=4 length=%u initial=%u\n"
                       "buffer B width=4 length=%u\n"
                       "kernel K in=A out=B items=2 threads=32 cta_ns=10\n"
                       "kernel L in=B out=A items=4 out_items=%u threads=32 cta_ns=10\n";
    char text[1024];
    /* 8 items at most in the loop; blocking both kernels takes (64 - 4 + 1) + (64 - 2 + 1) */
    snprintf(text, sizeof text, loop, 64u, 8u, 64u, 2u);
    ck_assert_uint_eq(check(text, 1), 0);
    /* short buffers: (6 - 4 + 1) + (4 - 2 + 1) = 6 items block both, and 6 are there */
    snprintf(text, sizeof text, loop, 6u, 6u, 4u, 2u);
    ck_assert_uint_eq(check(text, 1), 1);
    expect(0, GD_TOPO_DEADLOCK, 3, "kernel K",
           "the loop through K, L can deadlock: up to 6 items can be in its buffers A (6), B (4) at once, and 6 of "
           "them leave no room for any kernel of the loop; lengthen them or feed fewer items");
    snprintf(text, sizeof text, loop, 7u, 6u, 4u, 2u);
    ck_assert_uint_eq(check(text, 1), 0);
    /* L returns 4 for 4: each pass keeps every item, the loop never ends */
    snprintf(text, sizeof text, loop, 64u, 8u, 64u, 4u);
    ck_assert_uint_eq(check(text, 1), 1);
    expect(0, GD_TOPO_ENDLESS_LOOP, 3, "kernel K",
           "the loop through K, L (buffers A (64), B (64)) never ends: a pass returns at least as many items as "
           "enter it (out_items / items multiplied around the loop >= 1); a loop must lose items");
    /* a kernel reading its own output, gain exactly 1: endless */
    ck_assert_uint_eq(check("buffer A width=4 length=64 initial=8\n"
                            "kernel S in=A out=A items=4 threads=32 cta_ns=10\n",
                            1),
                      1);
    ck_assert_int_eq(V[0].rule, GD_TOPO_ENDLESS_LOOP);
    /* a loop nothing enters: both kernels starve (bounds: it receives nothing) */
    ck_assert_uint_eq(check("buffer B width=4 length=64\n"
                            "buffer C width=4 length=64\n"
                            "kernel K in=C out=B items=1 threads=32 cta_ns=10\n"
                            "kernel L in=B out=C items=2 out_items=1 threads=32 cta_ns=10\n",
                            1),
                      2);
    expect(0, GD_TOPO_STARVED, 3, "kernel K", "can never run: C receives at most 0 items and a CTA needs 1");
    expect(1, GD_TOPO_STARVED, 4, "kernel L", "can never run: B receives at most 0 items and a CTA needs 2");
}
END_TEST

static void bad(const char *text, const char *msg)
{
    ck_assert_int_eq(parse(text), GD_EFORMAT);
    ck_assert_str_eq(E.msg, msg);
}

START_TEST(syntax_errors)
{
    const char *k = "kernel K in=A items=1 threads=32 cta_ns=10\n";
    char text[2048];
    bad("", "t.topo: no kernel: a topology needs kernels and buffers (traces/TOPOLOGY.md)");
    bad("bufer A width=4 length=4\n", "t.topo:1: 'bufer': a line starts with topology, policy, buffer or kernel");
    bad("buffer A width=4 length=4 colour=red\n",
        "t.topo:1: buffer A: unknown field 'colour' (fields: width, length, dims, initial, drain)");
    bad("buffer A length=4\n", "t.topo:1: buffer A: no width= (bytes per entry)");
    bad("buffer A width=4\n", "t.topo:1: buffer A: give its size as length=N (1-D) or dims=WxH (2-D), one of them");
    bad("buffer A width=4 length=4 dims=2x2\n",
        "t.topo:1: buffer A: give its size as length=N (1-D) or dims=WxH (2-D), one of them");
    bad("buffer A width=4 length=-4\n", "t.topo:1: length='-4': not a whole number (from 1 to 4294967295)");
    bad("buffer A width=4 length=0\n", "t.topo:1: length=0: out of range (from 1 to 4294967295)");
    bad("buffer A width=4 length=99999999999999999999\n",
        "t.topo:1: length='99999999999999999999': out of range (from 1 to 4294967295)");
    bad("buffer A width=4 dims=70000x2\n", "t.topo:1: dims=70000: out of range (from 1 to 65536)");
    bad("buffer A width=4 dims=8\n", "t.topo:1: buffer A: dims=8: a 2-D size WxH (or use length=)");
    bad("buffer A width=4 length=4\nbuffer A width=4 length=4\n", "t.topo:2: the name 'A' is already a buffer's (line 1)");
    bad("buffer 9A width=4 length=4\n",
        "t.topo:1: buffer name '9A': 1 to 31 letters, digits, '_', '.' or '-', starting with a letter or '_'");
    bad("buffer A width=4 length=4 width=8\n", "t.topo:1: buffer A: field width given twice");
    bad("buffer A width length=4\n", "t.topo:1: buffer A: field width without a value (width=...)");
    bad("buffer A width=4 length=4 drain=yes\n", "t.topo:1: buffer A: drain takes no value");
    bad("kernel K in=A threads=32 cta_ns=10\n", "t.topo:1: kernel K: no items=");
    bad("kernel K in=A,A items=1 threads=32 cta_ns=10\n", "t.topo:1: in: buffer A listed twice");
    bad("kernel K in=A,,B items=1 threads=32 cta_ns=10\n",
        "t.topo:1: in='A,,B': a comma-separated list of buffer names (each 1 to 31 characters)");
    bad("kernel K in=A,B,C,D,E,F,G,H,I items=1 threads=32 cta_ns=10\n", "t.topo:1: in: more than 8 buffers");
    bad("kernel K in=A out=B items=2 amplification=2 out_items=5 threads=32 cta_ns=10\n",
        "t.topo:1: kernel K: out_items=5 is more than items x amplification = 4 (the most a CTA may write)");
    bad("kernel K in=A items=1 threads=0 cta_ns=10\n", "t.topo:1: threads=0: out of range (from 1 to 65536)");
    bad("kernel K in=A items=2000000000 ns_per_item=1000 threads=32 cta_ns=10\n",
        "t.topo:1: kernel K: a CTA would run more than 1000 s (ns_per_item x items)");
    bad("policy fastest\n", "t.topo:1: policy 'fastest': one of round_robin, priority, most_data");
    snprintf(text, sizeof text, "policy priority\npolicy priority\n%s", k);
    bad(text, "t.topo:2: policy: given twice");
    bad("topology a b\n", "t.topo:1: topology: one name (topology NAME)");
    /* a NUL byte, and a line of 5000 characters */
    ck_assert_int_eq(gd_topology_parse(T, "buffer A\0 width=4", 17, "t.topo", &E), GD_EFORMAT);
    ck_assert_str_eq(E.msg, "t.topo:1: a NUL byte: not a text file");
    char *longl = malloc(5002);
    memset(longl, 'x', 5000);
    longl[5000] = '\n';
    longl[5001] = 0;
    bad(longl, "t.topo:1: a line longer than 4096 characters");
    free(longl);
    /* comments, blank lines and CRLF are fine; the error names the right line */
    snprintf(text, sizeof text, "# c\r\n\r\n   \t\nbuffer A width=4 length=4 initial=4 # trailing\r\n%sbad\n", k);
    bad(text, "t.topo:6: 'bad': a line starts with topology, policy, buffer or kernel");
}
END_TEST

START_TEST(load_errors)
{
    gd_err_clear(&E);
    ck_assert_int_eq(gd_topology_load(T, "/nonexistent/x.topo", &E), GD_EIO);
    ck_assert_str_eq(E.msg, "/nonexistent/x.topo: cannot read: No such file or directory");
    ck_assert_int_eq(gd_topology_load(T, "/tmp", &E), GD_EIO);
    ck_assert_str_eq(E.msg, "/tmp: not a regular file");
    char *p = tb_tmp_path(".topo");
    FILE *f = fopen(p, "w");
    fputs(FIG1, f);
    fclose(f);
    ck_assert_int_eq(gd_topology_load(T, p, &E), GD_OK);
    ck_assert_uint_eq(T->nkernels, 3);
    ck_assert_str_eq(T->source, p);
    remove(p);
    free(p);
}
END_TEST

/* 20,000 mutations of fig 1 (1 to 8 random byte changes each, a fixed seed): each
 * parses or fails with a message that names the source, and validation of whatever
 * parses returns (under the sanitizers: without a memory error). */
START_TEST(mutations_never_crash)
{
    const char *base = FIG1;
    size_t n = strlen(base);
    char *buf = malloc(n + 64);
    uint64_t x = 0x9e3779b97f4a7c15ull;
    size_t ok = 0, err = 0;
    static const char alphabet[] = "=,x0123456789 \n#-FKAB_abcdefghijklmnopqrstuvwxyz\t\r";
    for (int it = 0; it < 20000; it++) {
        size_t len = tb_mutate(buf, base, n, &x, alphabet);
        gd_err_clear(&E);
        int rc = gd_topology_parse(T, buf, len, "m.topo", &E);
        if (rc == GD_OK) {
            gd_topo_limits lim = {32};
            gd_topology_validate(T, &lim, V, 64);
            ok++;
        } else {
            ck_assert_int_eq(rc, GD_EFORMAT);
            ck_assert_msg(strncmp(E.msg, "m.topo", 6) == 0, "message without the source: %s", E.msg);
            err++;
        }
    }
    ck_assert_uint_gt(ok, 100);
    ck_assert_uint_gt(err, 100);
    free(buf);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("topology");
    TCase *tc = tcase_create("core");
    tcase_add_checked_fixture(tc, setup, teardown);
    tcase_set_timeout(tc, 60);
    tcase_add_test(tc, fig1_parses_and_is_valid);
    tcase_add_test(tc, rule_unknown_and_unconnected);
    tcase_add_test(tc, rule_no_consumer_and_drain);
    tcase_add_test(tc, rule_drain_capacity);
    tcase_add_test(tc, rule_no_input);
    tcase_add_test(tc, rule_out_of_range);
    tcase_add_test(tc, rule_overflow);
    tcase_add_test(tc, rule_starved);
    tcase_add_test(tc, rule_deadlock_buffer_and_simd_width);
    tcase_add_test(tc, rule_cycles);
    tcase_add_test(tc, syntax_errors);
    tcase_add_test(tc, load_errors);
    tcase_add_test(tc, mutations_never_crash);
    suite_add_tcase(s, tc);
    SRunner *sr = srunner_create(s);
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? 1 : 0;
}
