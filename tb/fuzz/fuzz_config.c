/* fuzz_config.c - a libFuzzer harness for configuration text (gdsim --config files,
 * gd_sim_load_config; model/base/config.c gd_settings_load_text) and for CTA time
 * rules files (sm.cta_time_rules; model/base/cta_rules.c gd_cta_rules_parse: any bytes
 * parse, with rules in range, or fail with GD_ECONFIG naming the source and leaving
 * nothing; tb/test_config.c replays 20,000 mutations of a rules file too): any bytes must load
 * or fail with GD_ECONFIG naming the source, a failed load must leave the settings as
 * they were, and whatever loads must resolve or fail with GD_ECONFIG, without a memory
 * error or undefined behaviour. `make fuzz` builds it with clang
 * (-fsanitize=fuzzer,address,undefined) and runs it on tb/data/configs/ as the seed
 * corpus; tb/test_config.c replays 20,000 deterministic mutations in every
 * `make check`. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "config.h"
#include "cta_rules.h"
#include "gdsim.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    gd_settings *s = gd_settings_new();
    if (!s)
        abort();
    gd_settings_set(s, "gpu.gpcs", "4", NULL);
    gd_err err;
    gd_err_clear(&err);
    int rc = gd_settings_load_text(s, (const char *)data, size, "fuzz.cfg", &err);
    if (rc == GD_OK) {
        static gd_config cfg;
        gd_err e;
        gd_err_clear(&e);
        int r = gd_config_resolve(&cfg, s, NULL, &e);
        if (r != GD_OK && r != GD_ECONFIG)
            abort();
    } else {
        const char *g = gd_settings_get(s, "gpu.gpcs");
        if (rc != GD_ECONFIG || strncmp(err.msg, "fuzz.cfg", 8) != 0 || !g || strcmp(g, "4") != 0)
            abort();
    }
    gd_settings_free(s);
    gd_cta_rules r;
    gd_err_clear(&err);
    rc = gd_cta_rules_parse(&r, (const char *)data, size, "fuzz.rules", &err);
    if (rc == GD_OK) {
        if (!r.n)
            abort();
        for (uint32_t i = 0; i < r.n; i++)
            if (!r.rule[i].pattern[0] || r.rule[i].ppm < GD_CTA_RULE_MIN_PPM || r.rule[i].ppm > GD_CTA_RULE_MAX_PPM)
                abort();
        (void)gd_cta_rules_match(&r, "void gemm_kernel<4>(float *)");
        gd_cta_rules_free(&r);
    } else if ((rc != GD_ECONFIG && rc != GD_ENOMEM) || strncmp(err.msg, "fuzz.rules", 10) != 0 || r.n) {
        abort();
    }
    return 0;
}
