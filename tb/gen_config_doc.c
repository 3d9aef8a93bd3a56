/* gen_config_doc.c - writes docs/CONFIG.md from the key and preset tables in
 * model/base/config.c (`make docs`); tb/test_docs.sh checks the committed file is current. */
#include <stdio.h>
#include <string.h>

#include "config.h"

static void cell(const char *s)
{
    for (; *s; s++)
        fputs(*s == '|' ? "\\|" : (char[]){*s, 0}, stdout);
}

int main(void)
{
    printf("# Configuration keys\n\n"
           "Generated from the tables in `model/base/config.c` by `make docs`; `make check` fails when this file\n"
           "is out of date. Set a key with `gdsim replay --set KEY=VALUE`, a `KEY = VALUE` line in a\n"
           "`--config` file (`gd_sim_load_config()`: at most 1023 bytes a line, 1 MiB in all, all of it or none), or "
           "`gd_sim_set()`; `gdsim keys` lists them too. Every `*_cycles` key counts\n"
           "cycles of `frontend.clock_mhz`; a latency in cycles becomes a whole number of picoseconds\n"
           "(rounded to the nearest).\n\n"
           "Keys whose default says *preset* take their value from the device preset (`gpu.preset`, see\n"
           "below). A key set explicitly always wins over the preset.\n\n");
    printf("| key | default | accepted values | meaning | source of the default |\n|---|---|---|---|---|\n");
    for (size_t i = 0; i < gd_config_nkeys(); i++) {
        const gd_key_info *k = gd_config_key_info(i);
        printf("| `%s` | %s | ", k->name, k->def ? k->def : "*preset*");
        cell(k->accepted);
        printf(" | ");
        cell(k->doc);
        printf(" | ");
        cell(k->def ? k->source : "device preset (below)");
        printf(" |\n");
    }
    printf("\n## Presets\n\n"
           "`gpu.preset=trace` (the default) models the device the trace describes: the preset of the same\n"
           "chip (keeping the trace's device name) - the one whose product name the device name contains\n"
           "(`MI210`, `MI250X`, `MI300X`, `MI300A`, any case) if its SM count, compute capability and warp\n"
           "size agree, else the first below whose SM count, compute capability and warp size match - else\n"
           "a device built from the description (docs/MODEL.md, 'The trace preset').\n\n");
    for (size_t p = 0; p < gd_config_npresets(); p++) {
        printf("### `%s`: %s\n\n| key | value | source |\n|---|---|---|\n", gd_config_preset_name(p),
               gd_config_preset_desc(p));
        for (size_t i = 0; i < gd_config_nkeys(); i++) {
            const gd_key_info *k = gd_config_key_info(i);
            const char *src;
            const char *v = gd_config_preset_value(p, k->name, &src);
            if (!v)
                continue;
            printf("| `%s` | %s | ", k->name, v);
            cell(src);
            printf(" |\n");
        }
        printf("\n");
    }
    return 0;
}
