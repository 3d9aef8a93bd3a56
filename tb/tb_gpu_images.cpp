// tb_gpu_images.cpp - the byte images of include/gdsim/gpu.hpp (kernel descriptor,
// dispatch and barrier packets) decoded by the model's own readers (model/trace/aql.h,
// gd_kernel_desc_decode, model/hwq/hwq.h): every field lands where the GPU reads it.
#include <cstring>

#include "gdsim/gpu.hpp"

extern "C" {
#include "aql.h"
#include "config.h"
#include "hwq.h"
#include "trace.h"
}

#include <check.h>
#include "tb_util.h"

static gd_config h100()
{
    gd_settings *s = gd_settings_new();
    gd_err err;
    std::memset(&err, 0, sizeof err);
    ck_assert_int_eq(gd_settings_set(s, "gpu.preset", "h100", &err), GD_OK);
    gd_config c;
    ck_assert_int_eq(gd_config_resolve(&c, s, nullptr, &err), GD_OK);
    gd_settings_free(s);
    return c;
}

START_TEST(dispatch_fields_and_dimensions)
{
    gdsim::dispatch_packet d;
    d.workgroup = {{128, 1, 1}};
    d.grid = {{128 * 300, 1, 1}};
    d.private_segment_bytes = 16;
    d.group_segment_bytes = 4096;
    d.kernel_object = 0x1122334455667788ull;
    d.kernarg_address = 0x99aabbccddeeff00ull;
    d.cta_ps = 123456789012ull;
    d.completion_signal = 0x2000;
    std::array<uint8_t, 64> b = d.bytes();
    gd_aql_dispatch a;
    gd_aql_decode(&a, b.data());
    ck_assert_uint_eq(a.header, 2 | 2 << 9 | 2 << 11);  // dispatch, no barrier bit, system-scope fences
    ck_assert_uint_eq(a.setup, 1);
    ck_assert_uint_eq(a.workgroup_size[0], 128);
    ck_assert_uint_eq(a.workgroup_size[1], 1);
    ck_assert_uint_eq(a.grid_size[0], 38400);
    ck_assert_uint_eq(a.grid_size[2], 1);
    ck_assert_uint_eq(a.private_segment_size, 16);
    ck_assert_uint_eq(a.group_segment_size, 4096);
    ck_assert_uint_eq(a.kernel_object, 0x1122334455667788ull);
    ck_assert_uint_eq(a.kernarg_address, 0x99aabbccddeeff00ull);
    ck_assert_uint_eq(a.reserved2, 123456789012ull);
    ck_assert_uint_eq(a.completion_signal, 0x2000);
    // the dimensions are the highest with a size above 1, unless given
    d.barrier = true;
    d.grid = {{256, 3, 1}};
    gd_aql_decode(&a, d.bytes().data());
    ck_assert_uint_eq(a.setup, 2);
    ck_assert_uint_eq(a.header & 1u << 8, 1u << 8);
    ck_assert_uint_eq(a.grid_size[1], 3);
    d.workgroup = {{8, 1, 2}};
    gd_aql_decode(&a, d.bytes().data());
    ck_assert_uint_eq(a.setup, 3);
    ck_assert_uint_eq(a.workgroup_size[2], 2);
    d.dimensions = 3;
    d.workgroup = {{8, 1, 1}};
    d.grid = {{8, 1, 1}};
    gd_aql_decode(&a, d.bytes().data());
    ck_assert_uint_eq(a.setup, 3);
}
END_TEST

START_TEST(barrier_and_or)
{
    gdsim::barrier_packet p;
    p.dep_signal = {{0x100, 0x200, 0, 0, 0x500}};
    p.completion_signal = 0x900;
    gd_aql_barrier_pkt b;
    gd_aql_barrier_decode(&b, p.bytes().data());
    ck_assert_uint_eq(b.header, 3 | 2 << 9 | 2 << 11);
    ck_assert_uint_eq(b.dep_signal[0], 0x100);
    ck_assert_uint_eq(b.dep_signal[1], 0x200);
    ck_assert_uint_eq(b.dep_signal[2], 0);
    ck_assert_uint_eq(b.dep_signal[4], 0x500);
    ck_assert_uint_eq(b.completion_signal, 0x900);
    p.any = true;
    p.barrier = true;
    gd_aql_barrier_decode(&b, p.bytes().data());
    ck_assert_uint_eq(b.header, 5 | 1 << 8 | 2 << 9 | 2 << 11);
    ck_assert_uint_eq(gdsim::packet_header(gdsim::PACKET_KERNEL_DISPATCH, true), 2 | 1 << 8 | 2 << 9 | 2 << 11);
}
END_TEST

START_TEST(descriptor_decodes)
{
    gd_config c = h100();
    gdsim::kernel_descriptor k;
    k.id = 7;
    k.threads_per_cta = 256;
    k.registers_per_thread = 40;
    k.static_shared_bytes = 1024;
    k.dynamic_shared_bytes = 2048;
    k.cta_ps = 5000000;
    k.name = "gemm_tile";
    std::vector<uint8_t> b = k.bytes();
    ck_assert_uint_eq(b.size(), 8 + 34 + 9);
    uint32_t len;
    char why[512];
    ck_assert_int_eq(gd_hwq_desc_header(b.data(), &len, why, sizeof why), 0);
    ck_assert_uint_eq(len, 34 + 9);
    gd_kernel_desc d;
    ck_assert_int_eq(gd_kernel_desc_decode(&d, b.data() + 8, len, 8, &c.sm, why, sizeof why), 0);
    ck_assert_uint_eq(d.id, 7);
    ck_assert_uint_eq(d.threads_per_cta, 256);
    ck_assert_uint_eq(d.regs_per_thread, 40);
    ck_assert_uint_eq(d.static_smem, 1024);
    ck_assert_uint_eq(d.dynamic_smem, 2048);
    ck_assert_uint_eq(d.exec_model, GD_EXEC_FIXED_CTA);
    ck_assert_uint_eq(d.cta_duration_ps, 5000000);
    ck_assert_str_eq(d.name, "gemm_tile");
    ck_assert_int_eq(d.has_insn, 0);
    std::free(d.name);
    // per-dispatch time and an instruction mix
    k.per_dispatch_time = true;
    k.cta_ps = 0;
    k.instruction_mix = {1, 2, 3, 4, 5, 6};
    b = k.bytes();
    ck_assert_int_eq(gd_hwq_desc_header(b.data(), &len, why, sizeof why), 0);
    ck_assert_uint_eq(len, 34 + 9 + 48);
    ck_assert_int_eq(gd_kernel_desc_decode(&d, b.data() + 8, len, 8, &c.sm, why, sizeof why), 0);
    ck_assert_uint_eq(d.exec_model, GD_EXEC_PER_DISPATCH);
    ck_assert_int_eq(d.has_insn, 1);
    for (int i = 0; i < GD_INSN_CLASSES; i++)
        ck_assert_uint_eq(d.insn[i], (uint64_t)i + 1);
    std::free(d.name);
}
END_TEST

int main()
{
    Suite *s = suite_create("gpu_images");
    TCase *tc = tcase_create("images");
    tcase_add_test(tc, dispatch_fields_and_dimensions);
    tcase_add_test(tc, barrier_and_or);
    tcase_add_test(tc, descriptor_decodes);
    suite_add_tcase(s, tc);
    return tb_run_suite(s);
}
