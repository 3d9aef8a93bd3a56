/* test_rsb.c - the reference state buffer's decisions (model/rsb/rsb.c) without a
 * simulator: install into an empty and a held entry (an eviction), lookups that hit
 * and miss, explicit eviction, entries beyond the table. */
#include <check.h>
#include <string.h>

#include "rsb.h"
#include "tb_util.h"

static gd_aql_dispatch dispatch(uint64_t kobj)
{
    gd_aql_dispatch d;
    memset(&d, 0, sizeof d);
    d.header = GD_AQL_TYPE_KERNEL_DISPATCH;
    d.setup = 1;
    d.workgroup_size[0] = 128;
    d.workgroup_size[1] = d.workgroup_size[2] = 1;
    d.grid_size[0] = 128 * 7;
    d.grid_size[1] = d.grid_size[2] = 1;
    d.kernel_object = kobj;
    d.reserved0 = 2;  /* whatever the packet says, the entry records its own index */
    return d;
}

START_TEST(install_lookup_evict)
{
    gd_rsb b;
    gd_rsb_init(&b, 4);
    ck_assert_uint_eq(b.rst.size, 4);
    ck_assert_ptr_null(gd_rsb_lookup(&b, 3));  /* empty: a miss */
    gd_aql_dispatch a = dispatch(0xa), c = dispatch(0xc), old;
    memset(&old, 0, sizeof old);
    ck_assert_int_eq(gd_rsb_install(&b, 3, &a, &old), 0);
    ck_assert_uint_eq(old.kernel_object, 0);   /* nothing was evicted: untouched */
    const gd_aql_dispatch *e = gd_rsb_lookup(&b, 3);
    ck_assert_ptr_nonnull(e);
    ck_assert_uint_eq(e->kernel_object, 0xa);
    ck_assert_uint_eq(e->reserved0, 3);
    ck_assert_uint_eq(e->grid_size[0], 128 * 7);
    /* installing over a held entry evicts it */
    ck_assert_int_eq(gd_rsb_install(&b, 3, &c, &old), 1);
    ck_assert_uint_eq(old.kernel_object, 0xa);
    ck_assert_uint_eq(gd_rsb_lookup(&b, 3)->kernel_object, 0xc);
    ck_assert_int_eq(gd_rsb_install(&b, 0, &a, NULL), 0);
    /* explicit eviction */
    ck_assert_int_eq(gd_rsb_evict(&b, 3), 1);
    ck_assert_int_eq(gd_rsb_evict(&b, 3), 0);
    ck_assert_ptr_null(gd_rsb_lookup(&b, 3));
    ck_assert_uint_eq(gd_rsb_lookup(&b, 0)->kernel_object, 0xa);
    ck_assert_uint_eq(b.installs, 3);
    ck_assert_uint_eq(b.evictions, 2);
    ck_assert_uint_eq(b.lookups, 5);
    ck_assert_uint_eq(b.misses, 2);
}
END_TEST

START_TEST(beyond_the_table)
{
    gd_rsb b;
    gd_rsb_init(&b, 4);
    gd_aql_dispatch a = dispatch(1);
    ck_assert_int_eq(gd_rsb_install(&b, 4, &a, NULL), -1);
    ck_assert_int_eq(gd_rsb_evict(&b, 4), -1);
    ck_assert_ptr_null(gd_rsb_lookup(&b, 4));
    ck_assert_uint_eq(b.installs, 0);
    /* the table never exceeds what a 3-bit ref_num addresses */
    gd_rsb_init(&b, 100);
    ck_assert_uint_eq(b.rst.size, 8);
    ck_assert_int_eq(gd_rsb_install(&b, 7, &a, NULL), 0);
    ck_assert_int_eq(gd_rsb_install(&b, 8, &a, NULL), -1);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("rsb");
    TCase *tc = tcase_create("rsb");
    tcase_add_test(tc, install_lookup_evict);
    tcase_add_test(tc, beyond_the_table);
    suite_add_tcase(s, tc);
    return tb_run_suite(s);
}
