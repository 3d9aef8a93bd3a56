/* test_condensed.c - seed 000's reference and condensed dispatch packets (model/trace/condensed.c)
 * without a simulator: table 6 encodes and decodes exactly, random dispatch sequences
 * round-trip, and every malformed-packet class is refused with its reason. */
#include <check.h>
#include <string.h>

#include "condensed.h"
#include "tb_util.h"

static uint64_t rng = 0x2545F4914F6CDD1Dull;
static uint64_t rnd64(void)
{
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return rng;
}
static uint32_t rnd(uint32_t n) { return (uint32_t)(rnd64() % n); }

static gd_aql_dispatch dispatch(uint16_t ref_num, uint64_t kobj)
{
    gd_aql_dispatch d;
    memset(&d, 0, sizeof d);
    d.header = GD_AQL_TYPE_KERNEL_DISPATCH | GD_AQL_HEADER_BARRIER | (2u << 9) | (2u << 11);
    d.setup = 1;
    d.workgroup_size[0] = 256;
    d.workgroup_size[1] = d.workgroup_size[2] = 1;
    d.grid_size[0] = 256 * 40;
    d.grid_size[1] = d.grid_size[2] = 1;
    d.group_segment_size = 1024;
    d.kernel_object = kobj;
    d.kernarg_address = 0x7f0000001000ull + kobj * 0x100;
    d.completion_signal = 0x100 + kobj;
    d.reserved0 = ref_num;
    return d;
}

/* Table 6: two kernels; ref 4 with a new completion signal 0xdead 0xbeef 0xfeed
 * 0x0bad, ref 6 with a new kernarg 0x1234 0x5678 0xdeed 0xface (the source's line 21
 * writes diff[1] for diff[9]). */
START_TEST(table6)
{
    gd_rst t;
    gd_rst_init(&t, 8);
    gd_aql_dispatch r4 = dispatch(4, 40), r6 = dispatch(6, 60);
    ck_assert_int_eq(gd_rst_store(&t, &r4), 0);
    ck_assert_int_eq(gd_rst_store(&t, &r6), 0);
    gd_aql_dispatch k1 = r4, k2 = r6;
    k1.completion_signal = 0xdeadbeeffeed0badull;
    k2.kernarg_address = 0x12345678deedfaceull;
    ck_assert_uint_eq(gd_diff_vector(&r4, &k1), 0x1000);
    ck_assert_uint_eq(gd_diff_vector(&r6, &k2), 0x0800);
    gd_condensed_builder b;
    gd_condensed_begin(&b);
    ck_assert_int_eq(gd_condensed_add(&b, &t, 4, &k1), 0);
    ck_assert_int_eq(gd_condensed_add(&b, &t, 6, &k2), 0);
    ck_assert_uint_eq(b.pkt.header, GD_AQL_TYPE_CONDENSED_DISPATCH);
    ck_assert_uint_eq(b.pkt.num_kernels, 2);
    ck_assert_uint_eq(b.used, 10);
    /* diff headers {ref_num:3, diff_vector:13}, ref_num in the low bits */
    static const uint16_t expect[10] = {0x4 | (0x1000 << 3), 0xdead, 0xbeef, 0xfeed, 0x0bad,
                                        0x6 | (0x0800 << 3), 0x1234, 0x5678, 0xdeed, 0xface};
    ck_assert_mem_eq(b.pkt.diff, expect, sizeof expect);
    for (int i = 10; i < GD_CONDENSED_WORDS; i++)
        ck_assert_uint_eq(b.pkt.diff[i], 0);
    /* 64 bytes in memory and back */
    uint8_t bytes[GD_AQL_PACKET_SIZE];
    gd_condensed_encode_bytes(bytes, &b.pkt);
    ck_assert_uint_eq(bytes[0], 6);
    ck_assert_uint_eq(bytes[1], 2);
    ck_assert_uint_eq(bytes[2], 0x04);
    ck_assert_uint_eq(bytes[3], 0x80);
    gd_condensed_pkt back;
    gd_condensed_decode_bytes(&back, bytes);
    ck_assert_mem_eq(&back, &b.pkt, sizeof back);
    gd_aql_dispatch out[GD_CONDENSED_WORDS];
    char why[160];
    ck_assert_int_eq(gd_condensed_decode(&back, &t, out, why, sizeof why), 2);
    ck_assert_mem_eq(&out[0], &k1, sizeof k1);
    ck_assert_mem_eq(&out[1], &k2, sizeof k2);
    /* no bit set: the reference unchanged, one word */
    gd_condensed_begin(&b);
    ck_assert_int_eq(gd_condensed_add(&b, &t, 6, &r6), 0);
    ck_assert_uint_eq(b.used, 1);
    ck_assert_uint_eq(b.pkt.diff[0], 6);
}
END_TEST

/* Random dispatch sequences against random reference tables: every dispatch comes
 * back exactly, packed greedily into as few packets as fit. */
START_TEST(round_trip_random)
{
    for (int trial = 0; trial < 500; trial++) {
        gd_rst t;
        gd_rst_init(&t, 8);
        for (uint16_t i = 0; i < 8; i++) {
            gd_aql_dispatch r = dispatch(i, 1 + rnd(5));
            gd_rst_store(&t, &r);
        }
        uint32_t n = 1 + rnd(60), refs[60];
        gd_aql_dispatch want[60];
        for (uint32_t i = 0; i < n; i++) {
            refs[i] = rnd(8);
            gd_aql_dispatch d = t.entry[refs[i]];
            for (unsigned f = 0; f < GD_DIFF_FIELDS; f++) {
                if (rnd(4))
                    continue;
                uint64_t v = rnd64();
                if (f == GD_DIFF_SYNCH_SCOPES)
                    v = (rnd(2) ? 1u : 0u) | (rnd(3) << 1) | (rnd(3) << 3);
                else if (f == GD_DIFF_SETUP)
                    v = 1;
                else if (f <= GD_DIFF_WORKGROUP_Z)
                    v = f == GD_DIFF_WORKGROUP_X ? 1 + rnd(1024) : 1;
                else if (f <= GD_DIFF_GRID_Z)
                    v = f == GD_DIFF_GRID_X ? 1 + rnd(1u << 30) : 1;
                else if (f <= GD_DIFF_GROUP_SEGMENT)
                    v &= 0xffffffffu;
                gd_diff_field_set(&d, f, v);
            }
            want[i] = d;
        }
        uint32_t i = 0, packets = 0;
        while (i < n) {
            gd_condensed_builder b;
            gd_condensed_begin(&b);
            uint32_t first = i;
            while (i < n && gd_condensed_add(&b, &t, refs[i], &want[i]) == 0)
                i++;
            ck_assert_uint_gt(i, first);  /* any one dispatch fits an empty packet */
            packets++;
            uint8_t bytes[GD_AQL_PACKET_SIZE];
            gd_condensed_pkt p;
            gd_condensed_encode_bytes(bytes, &b.pkt);
            gd_condensed_decode_bytes(&p, bytes);
            gd_aql_dispatch out[GD_CONDENSED_WORDS];
            char why[160];
            int k = gd_condensed_decode(&p, &t, out, why, sizeof why);
            ck_assert_msg(k == (int)(i - first), "%s", why);
            for (uint32_t j = 0; j < (uint32_t)k; j++) {
                gd_aql_dispatch w = want[first + j];
                w.reserved0 = (uint16_t)refs[first + j];
                ck_assert_mem_eq(&out[j], &w, sizeof w);
            }
        }
        ck_assert_uint_le(packets, n);
    }
}
END_TEST

/* Every malformed-packet class, with its reason. */
START_TEST(malformed)
{
    gd_rst t;
    gd_rst_init(&t, 8);
    gd_aql_dispatch r2 = dispatch(2, 20);
    gd_rst_store(&t, &r2);
    gd_aql_dispatch out[GD_CONDENSED_WORDS];
    char why[160];
    gd_condensed_pkt p;
    memset(&p, 0, sizeof p);
    p.header = GD_AQL_TYPE_CONDENSED_DISPATCH;
    /* num_kernels 0, and more than 62 bytes can describe */
    ck_assert_int_eq(gd_condensed_decode(&p, &t, out, why, sizeof why), -1);
    ck_assert_str_eq(why, "num_kernels is 0 (a condensed packet describes 1 to 31 kernels)");
    p.num_kernels = 32;
    ck_assert_int_eq(gd_condensed_decode(&p, &t, out, why, sizeof why), -1);
    ck_assert_str_eq(why, "num_kernels is 32 (a condensed packet describes 1 to 31 kernels)");
    /* a ref_num never loaded */
    p.num_kernels = 1;
    p.diff[0] = 3;
    ck_assert_int_eq(gd_condensed_decode(&p, &t, out, why, sizeof why), -1);
    ck_assert_str_eq(why, "kernel 0: ref_num 3 was never loaded by a reference packet");
    /* diffs past the 62 bytes: 31 kernels of one word fit, but a 4-word value in the
     * last word does not */
    p.num_kernels = 31;
    for (int i = 0; i < 30; i++)
        p.diff[i] = 2;
    p.diff[30] = 2 | (0x1000 << 3);
    ck_assert_int_eq(gd_condensed_decode(&p, &t, out, why, sizeof why), -1);
    ck_assert_str_eq(why, "kernel 30: the new completion_signal runs past the 62 bytes of diff values");
    p.diff[30] = 2;
    ck_assert_int_eq(gd_condensed_decode(&p, &t, out, why, sizeof why), 31);
    /* more kernels than the words hold: two kernels with three new 64-bit fields (13
     * words each), five unchanged ones, and an eighth whose header would be word 31 */
    memset(p.diff, 0, sizeof p.diff);
    p.num_kernels = 8;
    for (int k = 0; k < 2; k++) {
        p.diff[13 * k] = 2 | (0x1c00 << 3);
        for (int w = 1; w < 13; w++)
            p.diff[13 * k + w] = (uint16_t)(0x100 + w);
    }
    for (int w = 26; w < 31; w++)
        p.diff[w] = 2;
    ck_assert_int_eq(gd_condensed_decode(&p, &t, out, why, sizeof why), -1);
    ck_assert_str_eq(why, "kernel 7: its diff header lies past the 62 bytes of diff values (word 31)");
    p.num_kernels = 7;
    ck_assert_int_eq(gd_condensed_decode(&p, &t, out, why, sizeof why), 7);
    ck_assert_uint_eq(out[1].kernel_object, 0x0101010201030104ull);
    /* a diff of every field that leaves setup 0 */
    memset(p.diff, 0, sizeof p.diff);
    p.num_kernels = 1;
    p.diff[0] = 2 | (0x1fff << 3);  /* every field: 1 + 27 words, all 0 */
    ck_assert_int_eq(gd_condensed_decode(&p, &t, out, why, sizeof why), -1);
    ck_assert_str_eq(why, "kernel 0: setup 0x0000 does not give 1 to 3 dimensions");
    /* diffs that make an invalid dispatch */
    memset(p.diff, 0, sizeof p.diff);
    p.num_kernels = 1;
    p.diff[0] = 2 | ((1u << GD_DIFF_GRID_Y) << 3);
    p.diff[1] = 0;
    p.diff[2] = 0;
    ck_assert_int_eq(gd_condensed_decode(&p, &t, out, why, sizeof why), -1);
    ck_assert_str_eq(why, "kernel 0: grid_size_y is 0");
    p.diff[0] = 2 | ((1u << GD_DIFF_SYNCH_SCOPES) << 3);
    p.diff[1] = 0x1f;  /* acquire scope 3: reserved */
    ck_assert_int_eq(gd_condensed_decode(&p, &t, out, why, sizeof why), -1);
    ck_assert_str_eq(why, "kernel 0: synch_scopes 0x1f uses a reserved fence scope or bit");
    p.diff[0] = 2 | ((1u << GD_DIFF_WORKGROUP_Z) << 3);
    p.diff[1] = 0;
    ck_assert_int_eq(gd_condensed_decode(&p, &t, out, why, sizeof why), -1);
    ck_assert_str_eq(why, "kernel 0: workgroup_size_z is 0");
    /* words after the last kernel */
    p.diff[0] = 2;
    p.diff[1] = 0;
    p.diff[5] = 9;
    ck_assert_int_eq(gd_condensed_decode(&p, &t, out, why, sizeof why), -1);
    ck_assert_str_eq(why, "diff value 5 after the last kernel is 0x0009, not 0");
    /* the builder: a kernel that does not fit is not added; an unloaded entry or a
     * field a diff cannot express is refused */
    gd_condensed_builder b;
    gd_condensed_begin(&b);
    gd_aql_dispatch big = r2;
    for (unsigned f = GD_DIFF_GRID_X; f < GD_DIFF_FIELDS; f++)
        gd_diff_field_set(&big, f, gd_diff_field_get(&r2, f) + 1);
    ck_assert_uint_eq(gd_condensed_cost(&r2, &big), 1 + 3 * 2 + 2 + 2 + 3 * 4);
    ck_assert_int_eq(gd_condensed_add(&b, &t, 2, &big), 0);
    ck_assert_int_eq(gd_condensed_add(&b, &t, 2, &big), -1);
    ck_assert_uint_eq(b.pkt.num_kernels, 1);
    ck_assert_int_eq(gd_condensed_add(&b, &t, 5, &r2), -2);
    gd_aql_dispatch odd = r2;
    odd.reserved2 = 1;
    ck_assert_int_eq(gd_condensed_add(&b, &t, 2, &odd), -2);
    gd_aql_dispatch far = r2;
    far.reserved0 = 9;
    ck_assert_int_eq(gd_rst_store(&t, &far), -1);
    /* cleanup: the last kernel; an earlier one with a signal or a release fence */
    gd_aql_dispatch plain = r2;
    plain.completion_signal = 0;
    plain.header = GD_AQL_TYPE_KERNEL_DISPATCH | GD_AQL_HEADER_BARRIER | (2u << GD_AQL_HEADER_ACQUIRE_SHIFT);
    ck_assert_int_eq(gd_condensed_needs_cleanup(&plain, 0, 3), 0);
    ck_assert_int_eq(gd_condensed_needs_cleanup(&plain, 2, 3), 1);
    plain.completion_signal = 5;
    ck_assert_int_eq(gd_condensed_needs_cleanup(&plain, 0, 3), 1);
    plain.completion_signal = 0;
    plain.header |= 1u << GD_AQL_HEADER_RELEASE_SHIFT;
    ck_assert_int_eq(gd_condensed_needs_cleanup(&plain, 1, 3), 1);
    ck_assert_str_eq(gd_diff_field_name(GD_DIFF_KERNARG), "kernarg_address");
    ck_assert_ptr_null(gd_diff_field_name(GD_DIFF_FIELDS));
}
END_TEST

int main(void)
{
    Suite *s = suite_create("condensed");
    TCase *tc = tcase_create("condensed");
    tcase_add_test(tc, table6);
    tcase_add_test(tc, round_trip_random);
    tcase_add_test(tc, malformed);
    suite_add_tcase(s, tc);
    return tb_run_suite(s);
}
