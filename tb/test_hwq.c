/* test_hwq.c - the hardware queues' register block and checks (model/hwq/hwq.h),
 * without a simulator. */
#include <check.h>
#include <string.h>

#include "gdsim.h"
#include "hwq.h"
#include "tb_util.h"

static gd_hwq_regs regs;
static gd_hwq_effect eff;
static char why[256];

static void setup(void) { ck_assert_int_eq(gd_hwq_init(&regs, 4), GD_OK); }
static void teardown(void) { gd_hwq_destroy(&regs); }
static uint64_t rd(uint64_t off)
{
    uint64_t v = 0;
    ck_assert_int_eq(gd_hwq_read(&regs, off, &v), 0);
    return v;
}
static int wr(uint64_t off, uint64_t v) { return gd_hwq_write(&regs, off, v, ~0ull, &eff, why, sizeof why); }
static uint64_t q(unsigned i, uint64_t r) { return GD_HWQ_QUEUE0 + i * GD_HWQ_QUEUE_STRIDE + r; }

START_TEST(map_and_ring)
{
    ck_assert_uint_eq(rd(GD_HWQ_ID), GD_HWQ_ID_VALUE);
    ck_assert_uint_eq(rd(GD_HWQ_QUEUES), 4);
    ck_assert_uint_eq(gd_hwq_span(&regs), 0x100 + 4 * 0x40);
    uint64_t v;
    ck_assert_int_eq(gd_hwq_read(&regs, 0x40, &v), -1);          /* a hole */
    ck_assert_int_eq(gd_hwq_read(&regs, q(4, 0), &v), -1);       /* past the last queue */
    ck_assert_int_eq(gd_hwq_read(&regs, q(1, 0x28), &v), -1);    /* past a queue's registers */
    ck_assert_int_eq(wr(GD_HWQ_ID, 1), -2);                      /* read-only */
    ck_assert_int_eq(wr(q(1, GD_HWQ_Q_BASE), 0x10000), 0);
    ck_assert_int_eq(wr(q(1, GD_HWQ_Q_SIZE), 8), 0);
    ck_assert_int_eq(wr(q(1, GD_HWQ_Q_ENABLE), 1), 0);
    ck_assert_int_eq(eff.doorbell, 1);
    ck_assert_int_eq(wr(q(1, GD_HWQ_Q_BASE), 0x20000), -2);      /* not while enabled */
    ck_assert_int_eq(wr(q(1, GD_HWQ_Q_READ), 3), -2);
    ck_assert_int_eq(wr(q(1, GD_HWQ_Q_DOORBELL), 8), 0);
    ck_assert_int_eq(eff.doorbell, 1);
    ck_assert_uint_eq(rd(q(1, GD_HWQ_Q_DOORBELL)), 8);
    ck_assert_uint_eq(gd_hwq_slot(&regs.q[1], 9), 0x10000 + 64);  /* index 9 wraps to slot 1 */
    regs.q[1].read = 2;
    ck_assert_uint_eq(rd(q(1, GD_HWQ_Q_READ)), 2);
    /* 32-bit write to the low half keeps the high half */
    ck_assert_int_eq(gd_hwq_write(&regs, GD_HWQ_INT_ENABLE, 0xffffffff00000000ull, ~0ull, &eff, why, sizeof why), 0);
    ck_assert_int_eq(gd_hwq_write(&regs, GD_HWQ_INT_ENABLE, 0x5, 0xffffffffull, &eff, why, sizeof why), 0);
    ck_assert_uint_eq(rd(GD_HWQ_INT_ENABLE), 0xffffffff00000005ull);
}
END_TEST

START_TEST(ring_errors_and_interrupts)
{
    wr(q(0, GD_HWQ_Q_BASE), 0x10020);  /* not 64-byte aligned */
    wr(q(0, GD_HWQ_Q_SIZE), 8);
    ck_assert_int_eq(wr(q(0, GD_HWQ_Q_ENABLE), 1), 0);
    ck_assert_uint_eq(rd(q(0, GD_HWQ_Q_ENABLE)), 0);
    ck_assert_uint_eq(rd(GD_HWQ_ERROR), GD_HWQ_ERING);
    ck_assert_uint_eq(rd(GD_HWQ_INT_CAUSE), 1ull << GD_HWQ_CAUSE_ERROR);
    ck_assert_ptr_nonnull(strstr(why, "64-byte aligned"));
    ck_assert_int_eq(gd_hwq_irq(&regs), 0);  /* not enabled */
    wr(GD_HWQ_INT_ENABLE, 1ull << GD_HWQ_CAUSE_ERROR | 0xf);
    ck_assert_int_eq(gd_hwq_irq(&regs), 1);
    ck_assert_uint_eq(rd(GD_HWQ_STATUS), GD_HWQ_STATUS_IRQ | GD_HWQ_STATUS_ERROR);
    wr(GD_HWQ_INT_CAUSE, 1ull << GD_HWQ_CAUSE_ERROR);  /* write 1 to clear */
    ck_assert_uint_eq(rd(GD_HWQ_INT_CAUSE), 0);
    ck_assert_uint_eq(rd(GD_HWQ_ERROR), 0);
    ck_assert_int_eq(gd_hwq_irq(&regs), 0);
    /* a doorbell more than a ring ahead stops the queue, naming the indices */
    wr(q(2, GD_HWQ_Q_BASE), 0x40000);
    wr(q(2, GD_HWQ_Q_SIZE), 4);
    wr(q(2, GD_HWQ_Q_ENABLE), 1);
    ck_assert_int_eq(wr(q(2, GD_HWQ_Q_DOORBELL), 5), 0);
    ck_assert_int_eq(eff.doorbell, -1);
    ck_assert_uint_eq(rd(GD_HWQ_ERROR), GD_HWQ_ERING | 2u << 16 | 5ull << 32);
    ck_assert_str_eq(why, "queue 2: doorbell write index 5 is more than a ring beyond the read index (read index 0, "
                          "ring of 4 packets)");
    ck_assert_int_eq(regs.q[2].stopped, 1);
    /* a doorbell behind the last one written: the packets between were announced and
     * would never run; the queue stops with a ring error at the new index, and clearing
     * the error's cause says it was acknowledged */
    wr(GD_HWQ_INT_CAUSE, 1ull << GD_HWQ_CAUSE_ERROR);
    ck_assert_int_eq(eff.acknowledged, 1);
    wr(GD_HWQ_INT_CAUSE, 1ull << GD_HWQ_CAUSE_ERROR);
    ck_assert_int_eq(eff.acknowledged, 0);  /* nothing left to acknowledge */
    wr(q(2, GD_HWQ_Q_ENABLE), 0);
    ck_assert_int_eq(wr(q(2, GD_HWQ_Q_ENABLE), 1), 0);
    ck_assert_int_eq(eff.enabled, 1);
    ck_assert_int_eq(wr(q(2, GD_HWQ_Q_DOORBELL), 3), 0);
    ck_assert_int_eq(eff.doorbell, 2);
    ck_assert_int_eq(eff.enabled, 0);
    ck_assert_int_eq(wr(q(2, GD_HWQ_Q_DOORBELL), 3), 0);  /* the same index again rings again */
    ck_assert_int_eq(eff.doorbell, 2);
    ck_assert_int_eq(wr(q(2, GD_HWQ_Q_DOORBELL), 1), 0);
    ck_assert_int_eq(eff.doorbell, -1);
    ck_assert_uint_eq(rd(GD_HWQ_ERROR), GD_HWQ_ERING | 2u << 16 | 1ull << 32);
    ck_assert_str_eq(why, "queue 2: doorbell write index 1 is behind the last one written (3): packets 1 to 2 were "
                          "announced and would never run (a doorbell only moves forward)");
    ck_assert_uint_eq(rd(q(2, GD_HWQ_Q_DOORBELL)), 3);
    ck_assert_int_eq(regs.q[2].stopped, 1);
    wr(GD_HWQ_INT_CAUSE, 1ull << GD_HWQ_CAUSE_ERROR);
    /* a size that is not a power of two */
    wr(q(3, GD_HWQ_Q_SIZE), 6);
    wr(q(3, GD_HWQ_Q_ENABLE), 1);
    ck_assert_uint_eq(rd(q(3, GD_HWQ_Q_ENABLE)), 0);
}
END_TEST

START_TEST(packet_checks)
{
    gd_kernel_desc k;
    memset(&k, 0, sizeof k);
    k.name = (char *)"k";
    k.threads_per_cta = 256;
    k.static_smem = 1024;
    k.exec_model = GD_EXEC_FIXED_CTA;
    k.cta_duration_ps = 5000;
    gd_aql_dispatch a;
    memset(&a, 0, sizeof a);
    a.header = 2 | 1u << 8;
    a.setup = 1;
    a.workgroup_size[0] = 256;
    a.workgroup_size[1] = a.workgroup_size[2] = 1;
    a.grid_size[0] = 1000;
    a.grid_size[1] = a.grid_size[2] = 1;
    a.group_segment_size = 1024;
    const uint32_t max_grid[3] = {1u << 31, 65535, 65535};
    uint32_t g[3];
    uint64_t ctas;
    gd_time_ps cta_ps;
    ck_assert_int_eq(gd_hwq_dispatch_check(&a, &k, max_grid, g, &ctas, &cta_ps, why, sizeof why), 0);
    ck_assert_uint_eq(g[0], 4);  /* ceil(1000 / 256) */
    ck_assert_uint_eq(ctas, 4);
    ck_assert_uint_eq(cta_ps, 5000);
    a.reserved2 = 7;  /* a fixed-duration kernel takes no per-dispatch duration */
    ck_assert_int_eq(gd_hwq_dispatch_check(&a, &k, max_grid, g, &ctas, &cta_ps, why, sizeof why), -1);
    k.exec_model = GD_EXEC_PER_DISPATCH;
    ck_assert_int_eq(gd_hwq_dispatch_check(&a, &k, max_grid, g, &ctas, &cta_ps, why, sizeof why), 0);
    ck_assert_uint_eq(cta_ps, 7);
    a.group_segment_size = 0;
    ck_assert_int_eq(gd_hwq_dispatch_check(&a, &k, max_grid, g, &ctas, &cta_ps, why, sizeof why), -1);
    ck_assert_ptr_nonnull(strstr(why, "group_segment_size 0"));
    a.group_segment_size = 1024;
    a.workgroup_size[0] = 128;
    ck_assert_int_eq(gd_hwq_dispatch_check(&a, &k, max_grid, g, &ctas, &cta_ps, why, sizeof why), -1);
    ck_assert_ptr_nonnull(strstr(why, "256 threads per CTA"));
    uint8_t h[8] = {'G', 'D', 'K', 'D', 40, 0, 0, 0};
    uint32_t len;
    ck_assert_int_eq(gd_hwq_desc_header(h, &len, why, sizeof why), 0);
    ck_assert_uint_eq(len, 40);
    h[0] = 'X';
    ck_assert_int_eq(gd_hwq_desc_header(h, &len, why, sizeof why), -1);
    gd_aql_barrier_pkt b;
    memset(&b, 0, sizeof b);
    b.header = 3;
    ck_assert_int_eq(gd_hwq_barrier_check(&b, why, sizeof why), 0);
    b.reserved1 = 1;
    ck_assert_int_eq(gd_hwq_barrier_check(&b, why, sizeof why), -1);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("hwq");
    TCase *tc = tcase_create("hwq");
    tcase_add_checked_fixture(tc, setup, teardown);
    tcase_add_test(tc, map_and_ring);
    tcase_add_test(tc, ring_errors_and_interrupts);
    tcase_add_test(tc, packet_checks);
    suite_add_tcase(s, tc);
    return tb_run_suite(s);
}
