#include "gd_util.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "gdsim.h"

void gd_err_clear(gd_err *err)
{
    if (!err)
        return;
    err->code = GD_OK;
    err->msg[0] = '\0';
}

int gd_err_vset(gd_err *err, int code, const char *fmt, va_list ap)
{
    if (err) {
        err->code = code;
        vsnprintf(err->msg, sizeof err->msg, fmt, ap);
    }
    return code;
}

int gd_err_set(gd_err *err, int code, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    gd_err_vset(err, code, fmt, ap);
    va_end(ap);
    return code;
}

gd_time_ps gd_cycles_to_ps(uint64_t cycles, uint32_t mhz)
{
    /* ps = cycles * 1e6 / mhz, rounded; 128-bit product so that no cycle count overflows. */
    unsigned __int128 num = (unsigned __int128)cycles * 1000000u + mhz / 2;
    return (gd_time_ps)(num / mhz);
}

void gd_format_ns(char *buf, size_t size, uint64_t base_ns, gd_time_ps ps)
{
    snprintf(buf, size, "%" PRIu64 ".%03u", base_ns + ps / 1000u, (unsigned)(ps % 1000u));
}
