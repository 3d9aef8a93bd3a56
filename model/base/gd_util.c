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

static char *trim_blanks(char *s)
{
    while (*s == ' ' || *s == '\t')
        s++;
    char *e = s + strlen(s);
    while (e > s && (e[-1] == ' ' || e[-1] == '\t' || e[-1] == '\n' || e[-1] == '\r'))
        *--e = '\0';
    return s;
}

int gd_config_line(char *line, char **key, char **value)
{
    char *hash = strchr(line, '#');
    if (hash)
        *hash = '\0';
    char *s = trim_blanks(line);
    if (!*s)
        return 0;
    char *eq = strchr(s, '=');
    if (!eq)
        return -1;
    *eq = '\0';
    *key = trim_blanks(s);
    *value = trim_blanks(eq + 1);
    return 1;
}

int gd_utf8_valid(const char *s, size_t n)
{
    const unsigned char *p = (const unsigned char *)s;
    size_t i = 0;
    while (i < n) {
        unsigned c = p[i];
        size_t k;
        uint32_t cp, min;
        if (c < 0x80) {
            i++;
            continue;
        } else if ((c & 0xE0) == 0xC0) {
            k = 1, cp = c & 0x1F, min = 0x80;
        } else if ((c & 0xF0) == 0xE0) {
            k = 2, cp = c & 0x0F, min = 0x800;
        } else if ((c & 0xF8) == 0xF0) {
            k = 3, cp = c & 0x07, min = 0x10000;
        } else {
            return 0;
        }
        if (n - i <= k)
            return 0;
        for (size_t j = 1; j <= k; j++) {
            if ((p[i + j] & 0xC0) != 0x80)
                return 0;
            cp = (cp << 6) | (p[i + j] & 0x3F);
        }
        if (cp < min || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF))
            return 0;
        i += k + 1;
    }
    return 1;
}
