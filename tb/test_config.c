/* test_config.c - how a configuration resolves: named presets, gpu.preset=trace for
 * a known chip and for an unknown one (layout fallback, limits from the description
 * and the compute capability), the trace's own GPC layout, explicit keys winning; and
 * the AMD presets' values and occupancy against LLVM's AMDGPU rules, and the device-name
 * match that tells an MI210 from an MI250 GCD. */
#include <check.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "config.h"
#include "cta_rules.h"
#include "gdsim.h"
#include "occupancy.h"
#include "tb_util.h"

static gd_trace_device nvidia(const char *name, uint32_t sms, uint32_t major, uint32_t minor, uint32_t smem_sm,
                              uint32_t optin)
{
    gd_trace_device d;
    memset(&d, 0, sizeof d);
    snprintf(d.name, sizeof d.name, "%s", name);
    d.cc_major = major;
    d.cc_minor = minor;
    d.sms = sms;
    d.max_threads_per_sm = 1536;
    d.regs_per_sm = 65536;
    d.smem_per_sm = smem_sm;
    d.smem_per_cta_default = 49152;
    d.smem_per_cta_optin = optin;
    d.max_threads_per_cta = 1024;
    d.warp_size = 32;
    return d;
}

static gd_config resolve(const char *kv[][2], size_t n, const gd_trace_device *dev, int expect)
{
    gd_settings *s = gd_settings_new();
    gd_err err;
    for (size_t i = 0; i < n; i++)
        ck_assert_int_eq(gd_settings_set(s, kv[i][0], kv[i][1], &err), GD_OK);
    gd_config c;
    int rc = gd_config_resolve(&c, s, dev, &err);
    ck_assert_msg(rc == expect, "resolve gave %d (%s)", rc, err.msg);
    gd_settings_free(s);
    return c;
}

START_TEST(named_preset_ignores_trace)
{
    gd_trace_device d = nvidia("odd", 84, 8, 6, 102400, 101376);
    const char *kv[][2] = {{"gpu.preset", "v100"}};
    gd_config c = resolve(kv, 1, &d, GD_OK);
    ck_assert_str_eq(c.preset, "v100");
    ck_assert_uint_eq(c.sms, 80);
    ck_assert_uint_eq(c.gpcs, 6);
    ck_assert_uint_eq(c.sm.cc_major, 7);
}
END_TEST

/* A known chip: its preset, with the trace's device name. */
START_TEST(trace_known_chip)
{
    gd_trace_device d = nvidia("NVIDIA A100-PG509-200", 108, 8, 0, 167936, 166912);
    d.max_threads_per_sm = 2048;
    gd_config c = resolve(NULL, 0, &d, GD_OK);
    ck_assert_str_eq(c.preset, "trace/a100");
    ck_assert_str_eq(c.gpu_name, "NVIDIA A100-PG509-200");
    ck_assert_uint_eq(c.gpcs, 7);
    ck_assert_uint_eq(c.sms_per_gpc[0], 16);
    ck_assert_uint_eq(c.sms_per_gpc[6], 14);
    ck_assert_uint_eq(c.clock_mhz, 1410);
}
END_TEST

/* An unknown chip (84 SMs, cc 8.6, 1536 threads per SM): the description's limits, the
 * CTA cap of cc 8.6 (16), GPCs of at most 16 SMs as even as possible (6 x 14), the
 * rest from the nearest preset of the same warp size (a100). */
START_TEST(trace_unknown_chip)
{
    gd_trace_device d = nvidia("NVIDIA RTX A6000", 84, 8, 6, 102400, 101376);
    gd_config c = resolve(NULL, 0, &d, GD_OK);
    ck_assert_str_eq(c.preset, "trace/a100");
    ck_assert_str_eq(c.gpu_name, "NVIDIA RTX A6000");
    ck_assert_uint_eq(c.sms, 84);
    ck_assert_uint_eq(c.gpcs, 6);
    for (int g = 0; g < 6; g++)
        ck_assert_uint_eq(c.sms_per_gpc[g], 14);
    ck_assert_uint_eq(c.sm.cc_minor, 6);
    ck_assert_uint_eq(c.sm.max_warps, 48);
    ck_assert_uint_eq(c.sm.max_ctas, 16);
    ck_assert_uint_eq(c.sm.smem, 102400);
    ck_assert_uint_eq(c.sm.smem_per_cta_optin, 101376);
    ck_assert_uint_eq(c.sm.smem_reserved_per_cta, 1024);
    ck_assert_uint_eq(c.clock_mhz, 1410); /* from a100 */
    /* 70 SMs: ceil(70/16) = 5 GPCs of 14 */
    d.sms = 70;
    c = resolve(NULL, 0, &d, GD_OK);
    ck_assert_uint_eq(c.gpcs, 5);
    ck_assert_uint_eq(c.sms_per_gpc[4], 14);
    /* 100 SMs: 7 GPCs, 100 = 2 x 15 + 5 x 14 */
    d.sms = 100;
    c = resolve(NULL, 0, &d, GD_OK);
    ck_assert_uint_eq(c.gpcs, 7);
    ck_assert_uint_eq(c.sms_per_gpc[0], 15);
    ck_assert_uint_eq(c.sms_per_gpc[1], 15);
    ck_assert_uint_eq(c.sms_per_gpc[2], 14);
    /* cc 7.5: CTA cap 16, 256 B granules, no reserve; nearest preset of warp 32 at or below: v100 */
    d.cc_major = 7;
    d.cc_minor = 5;
    c = resolve(NULL, 0, &d, GD_OK);
    ck_assert_str_eq(c.preset, "trace/v100");
    ck_assert_uint_eq(c.sm.max_ctas, 16);
    ck_assert_uint_eq(c.sm.smem_alloc_unit, 256);
    ck_assert_uint_eq(c.sm.smem_reserved_per_cta, 0);
}
END_TEST

/* A layout in the trace wins over the chip's; explicit keys win over everything. */
START_TEST(trace_layout_and_overrides)
{
    gd_trace_device d = nvidia("H100 variant", 132, 9, 0, 233472, 232448);
    d.max_threads_per_sm = 2048;
    d.gpcs = 2;
    d.sms_per_gpc[0] = 66;
    d.sms_per_gpc[1] = 66;
    gd_config c = resolve(NULL, 0, &d, GD_ECONFIG); /* 66 SMs in a GPC: above the limit of 64 */
    d.gpcs = 4;
    for (int g = 0; g < 4; g++)
        d.sms_per_gpc[g] = 33;
    c = resolve(NULL, 0, &d, GD_OK);
    ck_assert_str_eq(c.preset, "trace/h100");
    ck_assert_uint_eq(c.gpcs, 4);
    ck_assert_uint_eq(c.sms_per_gpc[3], 33);
    const char *kv[][2] = {{"gpu.gpcs", "2"}, {"gpu.sms_per_gpc", "10"}, {"frontend.clock_mhz", "1000"}};
    c = resolve(kv, 3, &d, GD_OK);
    ck_assert_uint_eq(c.sms, 20);
    ck_assert_uint_eq(c.clock_mhz, 1000);
    /* trace without a device description */
    resolve(NULL, 0, NULL, GD_ECONFIG);
}
END_TEST

/* An AMD device description as a ROCm capture's deviceProperties give it. */
static gd_trace_device amd(const char *name, uint32_t cus, uint32_t minor)
{
    gd_trace_device d;
    memset(&d, 0, sizeof d);
    snprintf(d.name, sizeof d.name, "%s", name);
    d.cc_major = 9;
    d.cc_minor = minor;
    d.sms = cus;
    d.max_threads_per_sm = 2048;
    d.regs_per_sm = 65536;
    d.smem_per_sm = 65536;
    d.smem_per_cta_default = d.smem_per_cta_optin = 65536;
    d.max_threads_per_cta = 1024;
    d.warp_size = 64;
    return d;
}

/* mi250: wave64 CUs. LLVM (gfx90a): 512 VGPRs per lane in granules of 8, 8 waves per
 * SIMD, 4 SIMDs. 256 threads = 4 waves. */
START_TEST(mi250_occupancy)
{
    const char *kv[][2] = {{"gpu.preset", "mi250"}};
    gd_config c = resolve(kv, 1, NULL, GD_OK);
    ck_assert_uint_eq(c.sms, 104);
    ck_assert_uint_eq(c.gpcs, 8);
    ck_assert_uint_eq(c.sm.warp_size, 64);
    gd_occupancy o;
    gd_cta_shape a = {256, 64, 0}; /* 64 VGPRs: 8 waves per SIMD -> 32 waves -> 8 CTAs (= the wave limit) */
    ck_assert_int_eq(gd_occupancy_compute(&o, &c.sm, &a, c.sm.smem_per_cta_optin, NULL), GD_OK);
    ck_assert_uint_eq(o.max_ctas, 8);
    ck_assert_int_eq(o.limiter, GD_LIMIT_WARPS);
    ck_assert_uint_eq(o.cost.regs_per_warp, 4096);
    gd_cta_shape b = {256, 128, 0}; /* 128 VGPRs: 4 waves per SIMD -> 16 waves -> 4 CTAs */
    gd_occupancy_compute(&o, &c.sm, &b, c.sm.smem_per_cta_optin, NULL);
    ck_assert_uint_eq(o.max_ctas, 4);
    ck_assert_int_eq(o.limiter, GD_LIMIT_REGISTERS);
    gd_cta_shape l = {64, 16, 20000}; /* LDS 20000 -> 20480 (512 B granules): 3 per CU */
    gd_occupancy_compute(&o, &c.sm, &l, c.sm.smem_per_cta_optin, NULL);
    ck_assert_uint_eq(o.max_ctas, 3);
    ck_assert_int_eq(o.limiter, GD_LIMIT_SHARED_MEMORY);
    gd_cta_shape w = {64, 8, 0}; /* one-wave work-groups: 32 by waves (LLVM caps them at 40) */
    gd_occupancy_compute(&o, &c.sm, &w, c.sm.smem_per_cta_optin, NULL);
    ck_assert_uint_eq(o.max_ctas, 32);
    ck_assert_int_eq(o.limiter, GD_LIMIT_WARPS);
    /* the capture's MI250 device description selects this preset */
    gd_trace_device d = amd("AMD Radeon Graphics", 104, 0);
    c = resolve(NULL, 0, &d, GD_OK);
    ck_assert_str_eq(c.preset, "trace/mi250");
    ck_assert_uint_eq(c.sm.regs, 131072); /* the chip's, not the description's 65536 */
}
END_TEST

/* The AMD presets of issue 43 (item 2): every value that differs between them, exactly
 * (docs/CONFIG.md has their sources). */
typedef struct amd_expect {
    const char *preset, *name;
    uint32_t gpcs, gpc0, gpc_last, sms, cc_minor, clock, doorbell, fetch, decode;
} amd_expect;

START_TEST(amd_presets)
{
    static const amd_expect E[] = {
        {"mi210", "AMD Instinct MI210", 8, 13, 13, 104, 0, 1700, 5783, 1590, 177},
        {"mi250x", "MI250X (one GCD)", 8, 14, 13, 110, 0, 1700, 5783, 1590, 177},
        {"mi300x", "AMD Instinct MI300X", 8, 38, 38, 304, 4, 2100, 8228, 1889, 210},
        {"mi300a", "AMD Instinct MI300A", 6, 38, 38, 228, 4, 2100, 8228, 1889, 210},
    };
    for (size_t i = 0; i < sizeof E / sizeof E[0]; i++) {
        const amd_expect *e = &E[i];
        const char *kv[][2] = {{"gpu.preset", e->preset}};
        gd_config c = resolve(kv, 1, NULL, GD_OK);
        ck_assert_str_eq(c.preset, e->preset);
        ck_assert_str_eq(c.gpu_name, e->name);
        ck_assert_uint_eq(c.gpcs, e->gpcs);
        ck_assert_uint_eq(c.sms_per_gpc[0], e->gpc0);
        ck_assert_uint_eq(c.sms_per_gpc[c.gpcs - 1], e->gpc_last);
        ck_assert_uint_eq(c.sms, e->sms);
        ck_assert_uint_eq(c.sms_per_tpc, 1);
        ck_assert_uint_eq(c.sm.cc_major, 9);
        ck_assert_uint_eq(c.sm.cc_minor, e->cc_minor);
        ck_assert_uint_eq(c.clock_mhz, e->clock);
        /* LLVM's AMDGPU rules for gfx90a and gfx942 */
        ck_assert_uint_eq(c.sm.warp_size, 64);
        ck_assert_uint_eq(c.sm.max_warps, 32);
        ck_assert_uint_eq(c.sm.max_ctas, 32);
        ck_assert_uint_eq(c.sm.regs, 131072);
        ck_assert_uint_eq(c.sm.reg_alloc_unit, 512);
        ck_assert_uint_eq(c.sm.reg_subpartitions, 4);
        ck_assert_uint_eq(c.sm.max_regs_per_thread, 512);
        ck_assert_uint_eq(c.sm.smem, 65536);
        ck_assert_uint_eq(c.sm.smem_alloc_unit, 512);
        ck_assert_uint_eq(c.sm.smem_reserved_per_cta, 0);
        ck_assert_uint_eq(c.sm.smem_per_cta_default, 65536);
        ck_assert_uint_eq(c.sm.smem_per_cta_optin, 65536);
        ck_assert_uint_eq(c.sm.max_threads_per_cta, 1024);
        /* the ROCm captures: idle launch latency (wake-up + fetch + decode, the last two
         * half the shortest kernel a queued one followed by 1 ns), 1 ns busy-queue gaps,
         * half that floor */
        ck_assert_uint_eq(c.pp_doorbell_cycles + c.pp_fetch_cycles + c.pp_decode_cycles,
                          e->clock == 1700 ? 7550u : 10327u);
        ck_assert_uint_eq(c.pp_doorbell_cycles, e->doorbell);
        ck_assert_uint_eq(c.pp_fetch_cycles, e->fetch);
        ck_assert_uint_eq(c.pp_decode_cycles, e->decode);
        ck_assert_uint_eq(c.pp_completion_cycles, 1);
        ck_assert_uint_eq(c.pp_command_launch_cycles, 1);
        ck_assert_uint_eq(c.cwd_grid_launch_cycles, 1);
        for (size_t g = 0; g < 9; g++)
            ck_assert_uint_eq(c.pp_gap_ns[g], 1);
    }
    /* the layout lists in full */
    const char *kv[][2] = {{"gpu.preset", "mi250x"}};
    gd_config c = resolve(kv, 1, NULL, GD_OK);
    static const uint32_t mi250x[8] = {14, 14, 14, 14, 14, 14, 13, 13};
    for (size_t g = 0; g < 8; g++)
        ck_assert_uint_eq(c.sms_per_gpc[g], mi250x[g]);
    /* an MI300X holds 32 one-wave work-groups per CU, 2 of 1024 work-items */
    const char *kx[][2] = {{"gpu.preset", "mi300x"}};
    c = resolve(kx, 1, NULL, GD_OK);
    gd_occupancy o;
    gd_cta_shape w = {64, 8, 0};
    ck_assert_int_eq(gd_occupancy_compute(&o, &c.sm, &w, c.sm.smem_per_cta_optin, NULL), GD_OK);
    ck_assert_uint_eq(o.max_ctas, 32);
    gd_cta_shape big = {1024, 32, 0};
    gd_occupancy_compute(&o, &c.sm, &big, c.sm.smem_per_cta_optin, NULL);
    ck_assert_uint_eq(o.max_ctas, 2);
    ck_assert_int_eq(o.limiter, GD_LIMIT_WARPS);
}
END_TEST

/* gpu.preset=trace: the product name first (when the numbers agree), then the numbers. */
START_TEST(trace_amd_by_name)
{
    static const struct {
        const char *name;
        uint32_t cus, minor;
        const char *want;
    } T[] = {
        {"AMD Instinct MI210", 104, 0, "trace/mi210"},
        {"amd instinct mi210", 104, 0, "trace/mi210"},         /* any case */
        {"AMD Radeon Graphics", 104, 0, "trace/mi250"},        /* the shared MI250 capture's name */
        {"", 104, 0, "trace/mi250"},                           /* no name: the numbers, mi250 first */
        {"AMD Instinct MI250X / MI250", 104, 0, "trace/mi250"}, /* the name's numbers disagree */
        {"AMD Instinct MI250X", 110, 0, "trace/mi250x"},
        {"AMD Instinct MI300X", 304, 4, "trace/mi300x"},
        {"AMD Instinct MI300X VF", 304, 4, "trace/mi300x"},
        {"", 304, 4, "trace/mi300x"},
        {"AMD Instinct MI300A", 228, 4, "trace/mi300a"},
        {"AMD Instinct MI300X", 38, 4, "trace/mi300x"},        /* one XCD (CPX mode): built, over mi300x (below) */
    };
    for (size_t i = 0; i < sizeof T / sizeof T[0]; i++) {
        gd_trace_device d = amd(T[i].name, T[i].cus, T[i].minor);
        gd_config c = resolve(NULL, 0, &d, GD_OK);
        ck_assert_msg(strcmp(c.preset, T[i].want) == 0, "'%s' (%u CUs): %s, not %s", T[i].name, T[i].cus, c.preset,
                      T[i].want);
        ck_assert_str_eq(c.gpu_name, T[i].name);  /* the trace's name is kept */
        ck_assert_uint_eq(c.sms, T[i].cus);
    }
    /* the MI210's timing, not the MI250's, for a named MI210 */
    gd_trace_device d = amd("AMD Instinct MI210", 104, 0);
    gd_config c = resolve(NULL, 0, &d, GD_OK);
    ck_assert_uint_eq(c.pp_fetch_cycles, 1590);
    ck_assert_uint_eq(c.pp_doorbell_cycles, 5783);
    ck_assert_uint_eq(c.cwd_grid_launch_cycles, 1);
    d = amd("AMD Radeon Graphics", 104, 0);
    c = resolve(NULL, 0, &d, GD_OK);
    ck_assert_uint_eq(c.pp_fetch_cycles, 8784);
    ck_assert_uint_eq(c.pp_doorbell_cycles, 0);
    ck_assert_uint_eq(c.cwd_grid_launch_cycles, 870);
    /* one XCD: the trace's figures over the nearest preset of cc 9.4 (mi300x), its GPCs of
     * at most 16 CUs */
    d = amd("AMD Instinct MI300X", 38, 4);
    c = resolve(NULL, 0, &d, GD_OK);
    ck_assert_uint_eq(c.gpcs, 3);
    ck_assert_uint_eq(c.clock_mhz, 2100);
}
END_TEST

/* Configuration text (gd_settings_load_text, the --config parser). The seed of the
 * fuzz harness (tb/fuzz/fuzz_config.c): */
static const char SWEEP_POINT[] =
    "# a sweep point\n"
    "gpu.preset = a100\n"
    "gpu.gpcs = 8\n"
    "gpu.sms_per_gpc = 16\n"
    "cwd.admission = channels   # seed 001\n"
    "cwd.max_resident_kernels = 32\n"
    "pp.gap_kernel_kernel_ns = 1121\n"
    "meta.debug = off\n";

START_TEST(config_text)
{
    gd_settings *s = gd_settings_new();
    gd_err e;
    gd_err_clear(&e);
    ck_assert_int_eq(gd_settings_load_text(s, SWEEP_POINT, sizeof SWEEP_POINT - 1, "p.cfg", &e), GD_OK);
    ck_assert_str_eq(gd_settings_get(s, "gpu.gpcs"), "8");
    ck_assert_str_eq(gd_settings_get(s, "cwd.admission"), "channels");
    ck_assert_ptr_null(gd_settings_get(s, "cwd.policy"));
    /* not NUL-terminated: the length counts, the last line needs no newline */
    ck_assert_int_eq(gd_settings_load_text(s, "gpu.gpcs = 5xyz", 12, "t.cfg", &e), GD_OK);
    ck_assert_str_eq(gd_settings_get(s, "gpu.gpcs"), "5");
    /* errors name the line and leave every setting as it was */
    static const struct { const char *text; const char *msg; } bad[] = {
        {"gpu.gpcs = 2\n\ngpu.gpcs 3\n", "b.cfg:3: expected KEY = VALUE"},
        {"gpu.gpcs = 2\n= 3\n", "b.cfg:2: expected KEY = VALUE"},
        {"gpu.gpcs = 2\ngpu.gpc = 3\n", "b.cfg:2: unknown configuration key 'gpu.gpc'"},
        {"gpu.gpcs = 2\r\ngpu.gpcs = 1025\r\n", "b.cfg:2: bad value '1025' for configuration key 'gpu.gpcs'"},
        {"gpu.gpcs = 2\n# \0\n", "b.cfg:2: a NUL byte"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        size_t n = strlen(bad[i].text);
        if (i == 4)
            n = 17;   /* through the NUL */
        ck_assert_int_eq(gd_settings_load_text(s, bad[i].text, n, "b.cfg", &e), GD_ECONFIG);
        ck_assert_msg(strstr(e.msg, bad[i].msg) != NULL, "%zu: %s", i, e.msg);
        ck_assert_str_eq(gd_settings_get(s, "gpu.gpcs"), "5");
    }
    char *big = malloc(GD_CONFIG_FILE_MAX + 2);
    memset(big, '#', GD_CONFIG_FILE_MAX + 1);
    for (size_t i = 1000; i < GD_CONFIG_FILE_MAX + 1; i += 1000)
        big[i] = '\n';
    ck_assert_int_eq(gd_settings_load_text(s, big, GD_CONFIG_FILE_MAX, "big.cfg", &e), GD_OK);  /* comments */
    ck_assert_int_eq(gd_settings_load_text(s, big, GD_CONFIG_FILE_MAX + 1, "big.cfg", &e), GD_ECONFIG);
    ck_assert_ptr_nonnull(strstr(e.msg, "big.cfg: longer than 1048576 bytes"));
    memset(big, ' ', 1025);
    memcpy(big + 1024, "#\n", 2);
    ck_assert_int_eq(gd_settings_load_text(s, big, 1026, "long.cfg", &e), GD_ECONFIG);
    ck_assert_ptr_nonnull(strstr(e.msg, "long.cfg:1: longer than 1023 bytes"));
    ck_assert_int_eq(gd_settings_load_text(s, big + 2, 1024, "long.cfg", &e), GD_OK);   /* 1022 blanks + "#": 1023 */
    free(big);
    gd_settings_free(s);
}
END_TEST


/* A scale key (sm.cta_time_scale): decimals of at most 6 places within its range, kept
 * in millionths and shown back as the shortest decimal; anything else refused. */
START_TEST(scale_values)
{
    static const struct { const char *in; uint32_t ppm; const char *shown; } ok[] = {
        {"1", 1000000, "1"}, {"0.5", 500000, "0.5"}, {"2.25", 2250000, "2.25"}, {"0.001", 1000, "0.001"},
        {"1000", 1000000000, "1000"}, {"0.123456", 123456, "0.123456"}, {"007.500", 7500000, "7.5"},
    };
    for (size_t i = 0; i < sizeof ok / sizeof ok[0]; i++) {
        const char *kv[][2] = {{"gpu.preset", "h100"}, {"sm.cta_time_scale", ok[i].in}};
        gd_config c = resolve(kv, 2, NULL, GD_OK);
        ck_assert_uint_eq(c.sm_cta_time_ppm, ok[i].ppm);
        char buf[64];
        ck_assert_int_eq(gd_config_format(buf, sizeof buf, &c, "sm.cta_time_scale"), GD_OK);
        ck_assert_str_eq(buf, ok[i].shown);
    }
    static const char *const bad[] = {"0", "0.0009", "1000.000001", "1001", "1.", ".5", "1.1234567", "-1", "1e3",
                                      "0x1", "", "1 ", "1,5", "99999999999999999999"};
    gd_settings *s = gd_settings_new();
    gd_err e;
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        ck_assert_msg(gd_settings_set(s, "sm.cta_time_scale", bad[i], &e) == GD_ECONFIG, "'%s' accepted", bad[i]);
        ck_assert_ptr_nonnull(strstr(e.msg, "expected a decimal from 0.001 to 1000 with at most 6 places"));
    }
    gd_settings_free(s);
}
END_TEST

/* 20,000 mutations of the sweep point (1 to 8 byte edits each, a fixed seed): each
 * loads or fails with a message that names the source and leaves the settings alone,
 * and whatever loads resolves or fails with GD_ECONFIG (under the sanitizers: without
 * a memory error). */
START_TEST(config_mutations_never_crash)
{
    size_t n = sizeof SWEEP_POINT - 1;
    char *buf = malloc(n + 64);
    uint64_t x = 0x2545f4914f6cdd1dull;
    size_t ok = 0, err = 0;
    static const char alphabet[] = "=.,x0123456789 \n#_abcdefghijklmnopqrstuvwxyz\t\r";
    static gd_config cfg;
    for (int it = 0; it < 20000; it++) {
        size_t len = tb_mutate(buf, SWEEP_POINT, n, &x, alphabet);
        gd_settings *s = gd_settings_new();
        gd_settings_set(s, "cwd.policy", "cga", NULL);
        gd_err e;
        gd_err_clear(&e);
        int rc = gd_settings_load_text(s, buf, len, "m.cfg", &e);
        if (rc == GD_OK) {
            int r = gd_config_resolve(&cfg, s, NULL, &e);
            ck_assert_msg(r == GD_OK || r == GD_ECONFIG, "resolve: %d %s", r, e.msg);
            ok++;
        } else {
            ck_assert_int_eq(rc, GD_ECONFIG);
            ck_assert_msg(strncmp(e.msg, "m.cfg:", 6) == 0, "message without the source: %s", e.msg);
            ck_assert_str_eq(gd_settings_get(s, "cwd.policy"), "cga");
            err++;
        }
        gd_settings_free(s);
    }
    ck_assert_uint_gt(ok, 100);
    ck_assert_uint_gt(err, 100);
    free(buf);
}
END_TEST

/* Per-kernel CTA time rules (model/base/cta_rules.c, sm.cta_time_rules). */
static const char RULES[] =
    "# what-ifs for a faster GEMM library\n"
    "0.5 *gemm*\n"
    "\t 2   void at::native::vectorized_elementwise_kernel<4, *>(*)  \r\n"
    "\n"
    "0.001 [ab]?\n"
    "1000 *";

START_TEST(cta_rules)
{
    gd_cta_rules r;
    gd_err e;
    gd_err_clear(&e);
    ck_assert_int_eq(gd_cta_rules_parse(&r, RULES, sizeof RULES - 1, "r.txt", &e), GD_OK);
    ck_assert_uint_eq(r.n, 4);
    ck_assert_str_eq(r.path, "r.txt");
    ck_assert_str_eq(r.rule[0].pattern, "*gemm*");
    ck_assert_uint_eq(r.rule[0].ppm, 500000);
    ck_assert_uint_eq(r.rule[0].line, 2);
    /* the rest of the line, blanks around it trimmed (spaces inside kept) */
    ck_assert_str_eq(r.rule[1].pattern, "void at::native::vectorized_elementwise_kernel<4, *>(*)");
    ck_assert_uint_eq(r.rule[1].ppm, 2000000);
    ck_assert_uint_eq(r.rule[1].line, 3);
    ck_assert_uint_eq(r.rule[2].ppm, 1000);
    ck_assert_uint_eq(r.rule[3].ppm, 1000000000);
    ck_assert_uint_eq(r.rule[3].line, 6);  /* the last line needs no newline */
    /* the first match wins; the glob covers the whole name */
    ck_assert_int_eq(gd_cta_rules_match(&r, "sm90_xmma_gemm_f16"), 0);
    ck_assert_int_eq(gd_cta_rules_match(&r, "void at::native::vectorized_elementwise_kernel<4, at::native::"
                                            "FillFunctor<float>>(int, F, at::detail::Array<char *, 1>)"), 1);
    ck_assert_int_eq(gd_cta_rules_match(&r, "b7"), 2);
    ck_assert_int_eq(gd_cta_rules_match(&r, "b77"), 3);
    ck_assert_int_eq(gd_cta_rules_match(&r, ""), 3);
    gd_cta_rules_free(&r);
    gd_cta_rules_free(&r);  /* twice: a no-op */
    gd_cta_rules_free(NULL);
    ck_assert_int_eq(gd_cta_rules_parse(&r, "1 a", 3, "r.txt", &e), GD_OK);
    ck_assert_int_eq(gd_cta_rules_match(&r, "b"), -1);
    gd_cta_rules_free(&r);
    /* a byte order mark; a comment after a blank ('#' inside a pattern stays) */
    static const char BOM[] = "\xef\xbb\xbf" "0.5 *gemm*   # the GEMMs\n2 a#b\n";
    ck_assert_int_eq(gd_cta_rules_parse(&r, BOM, sizeof BOM - 1, "r.txt", &e), GD_OK);
    ck_assert_str_eq(r.rule[0].pattern, "*gemm*");
    ck_assert_str_eq(r.rule[1].pattern, "a#b");
    gd_cta_rules_free(&r);
    static const struct { const char *text; const char *msg; } bad[] = {
        {"0.5 *a*\n0.5\n", "b.txt:2: '0.5' has no pattern: each line is FACTOR PATTERN, e.g. '0.5 *gemm*'"},
        {"0.0005 *\n", "b.txt:1: bad factor '0.0005': a decimal from 0.001 to 1000 with at most 6 places"},
        {"1000.000001 *\n", "b.txt:1: bad factor '1000.000001'"},
        {"-1 *\n", "b.txt:1: bad factor '-1'"},
        {"1e3 *\n", "b.txt:1: bad factor '1e3'"},
        {"x0.5 *\n", "b.txt:1: bad factor 'x0.5'"},
        {"0.5 a\001b\n", "b.txt:1: a control character (byte 0x01)"},
        {"0.5 a\177b\n", "b.txt:1: a control character (byte 0x7f)"},
        {"0.5 # only a comment\n", "b.txt:1: '0.5' has no pattern"},
        {"0.5 \xff\xfe\n", "b.txt:1: not UTF-8 text"},
        {"# only comments\n   # and blanks\n\n", "b.txt: no rules (each line FACTOR PATTERN"},
        {"", "b.txt: no rules"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        ck_assert_int_eq(gd_cta_rules_parse(&r, bad[i].text, strlen(bad[i].text), "b.txt", &e), GD_ECONFIG);
        ck_assert_msg(strstr(e.msg, bad[i].msg) != NULL, "%zu: %s", i, e.msg);
        ck_assert_uint_eq(r.n, 0);  /* left empty */
        ck_assert_ptr_null(r.rule);
    }
    ck_assert_int_eq(gd_cta_rules_parse(&r, "0.5 a\0b\n", 8, "b.txt", &e), GD_ECONFIG);
    ck_assert_ptr_nonnull(strstr(e.msg, "b.txt: a NUL byte: not a rules file"));
    /* at most GD_CTA_RULES_MAX rules */
    size_t n = (GD_CTA_RULES_MAX + 1) * 4;
    char *many = malloc(n + 1);
    for (size_t i = 0; i < GD_CTA_RULES_MAX + 1; i++)
        memcpy(many + 4 * i, "1 a\n", 4);
    ck_assert_int_eq(gd_cta_rules_parse(&r, many, n - 4, "m.txt", &e), GD_OK);
    ck_assert_uint_eq(r.n, GD_CTA_RULES_MAX);
    gd_cta_rules_free(&r);
    ck_assert_int_eq(gd_cta_rules_parse(&r, many, n, "m.txt", &e), GD_ECONFIG);
    ck_assert_ptr_nonnull(strstr(e.msg, "m.txt:4097: more than 4096 rules"));
    free(many);
    /* a file: missing, then one */
    ck_assert_int_eq(gd_cta_rules_load(&r, "/nonexistent/rules.txt", &e), GD_EIO);
    ck_assert_ptr_nonnull(strstr(e.msg, "/nonexistent/rules.txt: cannot open: No such file or directory"));
    char *path = tb_tmp_path(".txt");
    FILE *f = fopen(path, "w");
    fputs(RULES, f);
    fclose(f);
    ck_assert_int_eq(gd_cta_rules_load(&r, path, &e), GD_OK);
    ck_assert_uint_eq(r.n, 4);
    ck_assert_str_eq(r.path, path);
    gd_cta_rules_free(&r);
    remove(path);
    free(path);
}
END_TEST

/* 20,000 mutations of a rules file: each parses or fails with a message naming the
 * file, leaving nothing; what parses has patterns and factors in range. */
START_TEST(cta_rules_mutations_never_crash)
{
    size_t n = sizeof RULES - 1;
    char *buf = malloc(n + 64);
    uint64_t x = 0x9e3779b97f4a7c15ull;
    size_t ok = 0, err = 0;
    static const char alphabet[] = "0123456789. *?[]!-#\n\t\rabgemx";
    for (int it = 0; it < 20000; it++) {
        size_t len = tb_mutate(buf, RULES, n, &x, alphabet);
        gd_cta_rules r;
        gd_err e;
        gd_err_clear(&e);
        int rc = gd_cta_rules_parse(&r, buf, len, "m.txt", &e);
        if (rc == GD_OK) {
            ck_assert_uint_gt(r.n, 0);
            for (uint32_t i = 0; i < r.n; i++) {
                ck_assert(r.rule[i].pattern[0] != '\0');
                ck_assert(r.rule[i].ppm >= GD_CTA_RULE_MIN_PPM && r.rule[i].ppm <= GD_CTA_RULE_MAX_PPM);
            }
            (void)gd_cta_rules_match(&r, "void gemm_kernel<4>(float *)");
            gd_cta_rules_free(&r);
            ok++;
        } else {
            ck_assert_int_eq(rc, GD_ECONFIG);
            ck_assert_msg(strncmp(e.msg, "m.txt", 5) == 0, "message without the source: %s", e.msg);
            ck_assert_uint_eq(r.n, 0);
            err++;
        }
    }
    ck_assert_uint_gt(ok, 100);
    ck_assert_uint_gt(err, 100);
    free(buf);
}
END_TEST

/* Error messages are one line a terminal shows as it is, and a long one keeps its end
 * (the reason): gd_err_set (model/base/gd_util.c). */
START_TEST(error_messages)
{
    gd_err e;
    gd_err_set(&e, GD_EIO, "%s: cannot open: %s", "a\nb\033[2J\tc\177", "No such file");
    ck_assert_str_eq(e.msg, "a?b?[2J?c?: cannot open: No such file");
    char *path = malloc(5001);
    memset(path, 'd', 5000);
    memcpy(path, "/tmp/", 5);
    path[5000] = '\0';
    gd_err_set(&e, GD_EIO, "%s: cannot open: %s", path, "File name too long");
    ck_assert_uint_eq(strlen(e.msg), sizeof e.msg - 1);
    ck_assert(strncmp(e.msg, "/tmp/ddd", 8) == 0);
    ck_assert_ptr_nonnull(strstr(e.msg, "d ... d"));
    const char *end = "ddd: cannot open: File name too long";
    ck_assert_str_eq(e.msg + strlen(e.msg) - strlen(end), end);
    /* a cut never splits a UTF-8 character */
    for (int i = 0; i < 5000 - 2; i += 2)
        memcpy(path + i, "\xc3\xa9", 2);  /* é */
    gd_err_set(&e, GD_EIO, "%s: bad", path);
    ck_assert(gd_utf8_valid(e.msg, strlen(e.msg)));
    free(path);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("config");
    TCase *tc = tcase_create("presets");
    tcase_add_test(tc, named_preset_ignores_trace);
    tcase_add_test(tc, trace_known_chip);
    tcase_add_test(tc, trace_unknown_chip);
    tcase_add_test(tc, trace_layout_and_overrides);
    tcase_add_test(tc, mi250_occupancy);
    tcase_add_test(tc, amd_presets);
    tcase_add_test(tc, trace_amd_by_name);
    tcase_add_test(tc, config_text);
    tcase_add_test(tc, scale_values);
    tcase_add_test(tc, config_mutations_never_crash);
    tcase_add_test(tc, cta_rules);
    tcase_add_test(tc, cta_rules_mutations_never_crash);
    tcase_add_test(tc, error_messages);
    suite_add_tcase(s, tc);
    return tb_run_suite(s);
}
