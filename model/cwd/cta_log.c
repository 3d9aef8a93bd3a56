#include "cta_log.h"

#include <inttypes.h>

const char GD_CTA_LOG_HEADER[] = "kernel_index,cta_id,x,y,z,cga_id,cga_cta_id,gpc,sm,launch_ns,end_ns\n";

void gd_cta_log_row(gd_cta_log *log, uint64_t kernel_index, uint64_t cta_id, const uint32_t xyz[3], uint64_t cga_id,
                    uint32_t cga_cta_id, uint32_t gpc, uint32_t sm, gd_time_ps launch, gd_time_ps end)
{
    char a[48], b[48];
    gd_format_ns(a, sizeof a, *log->origin_ns, launch);
    gd_format_ns(b, sizeof b, *log->origin_ns, end);
    if (fprintf(log->f, "%" PRIu64 ",%" PRIu64 ",%u,%u,%u,%" PRIu64 ",%u,%u,%u,%s,%s\n", kernel_index, cta_id, xyz[0],
                xyz[1], xyz[2], cga_id, cga_cta_id, gpc, sm, a, b) < 0)
        log->io_error = 1;
}
