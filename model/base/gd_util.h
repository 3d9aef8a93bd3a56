/* gd_util.h - small shared helpers of the C core: error records and time units. */
#ifndef GD_UTIL_H
#define GD_UTIL_H

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Simulated time is kept in whole picoseconds. */
typedef uint64_t gd_time_ps;
#define GD_TIME_NEVER UINT64_MAX
#define GD_PS_PER_NS 1000u
/* The representable limit of simulated time: 2^61 ps (about 26.7 days). Every time a
 * trace gives is checked against sim.max_sim_time_s (at most this) where it enters, and
 * the event domain stops a replay whose clock passes it, so that a time plus a
 * duration (each at most this) never wraps a 64-bit picosecond count. */
#define GD_TIME_LIMIT_PS (UINT64_C(1) << 61)
#define GD_TIME_LIMIT_S 2305843u  /* GD_TIME_LIMIT_PS in whole seconds */

/* The length (1-4) of the UTF-8 character that starts at p, or 0 when the bytes there
 * are not valid UTF-8 (RFC 3629: no overlong forms, surrogates or code points past
 * U+10FFFF). Writers of JSON and CSV put U+FFFD in place of each invalid byte, so that
 * names taken from a trace always give valid UTF-8. */
size_t gd_utf8_char_len(const char *p);
#define GD_UTF8_REPLACEMENT "\xEF\xBF\xBD" /* U+FFFD */

/* An error record: a status code (GD_E* from gdsim.h) and a message that says
 * what went wrong and where. */
#define GD_ERRMSG_MAX 1024
typedef struct gd_err {
    int code;
    char msg[GD_ERRMSG_MAX];
} gd_err;

void gd_err_clear(gd_err *err);
/* Set err (if non-NULL) and return code. */
int gd_err_set(gd_err *err, int code, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;
int gd_err_vset(gd_err *err, int code, const char *fmt, va_list ap);

/* Picoseconds taken by `cycles` cycles of a clock of `mhz` MHz, rounded to the
 * nearest picosecond. */
gd_time_ps gd_cycles_to_ps(uint64_t cycles, uint32_t mhz);
/* 1 when s[0..n) is well-formed UTF-8 (no overlong forms, surrogates or code points
 * above U+10FFFF), else 0. */
int gd_utf8_valid(const char *s, size_t n);

/* One line of configuration text (gdsim --config files, a trace's calibration record):
 * '#' to the end of the line is a comment; spaces, tabs and a trailing CR/LF around the
 * key and the value are trimmed. Edits line in place. Returns 0 for a blank or comment
 * line, 1 with *key and *value pointing into line for KEY = VALUE, -1 when the line
 * has text but no '='. */
int gd_config_line(char *line, char **key, char **value);

/* Integer helpers. */
/* ps times a factor in millionths (a what-if's scale key), rounded to the nearest ps,
 * at most GD_TIME_LIMIT_PS. */
static inline gd_time_ps gd_scale_ps(gd_time_ps ps, uint32_t ppm)
{
    if (ppm == 1000000)
        return ps;
    unsigned __int128 v = ((unsigned __int128)ps * ppm + 500000) / 1000000;
    return v > GD_TIME_LIMIT_PS ? GD_TIME_LIMIT_PS : (gd_time_ps)v;
}

static inline uint64_t gd_div_ceil(uint64_t a, uint64_t b) { return (a + b - 1) / b; }
static inline uint64_t gd_round_up(uint64_t a, uint64_t unit) { return unit ? gd_div_ceil(a, unit) * unit : a; }
/* Set bits of x. Without the POPCNT instruction (the x86-64 baseline) GCC's builtin is
 * a library call; this inline form is a dozen instructions. The Makefile compiles with
 * -mpopcnt where the building machine has the instruction (POPCNT=1). */
static inline uint32_t gd_popcount64(uint64_t x)
{
#if defined(__POPCNT__) || !defined(__x86_64__)
    return (uint32_t)__builtin_popcountll(x);
#else
    x = x - ((x >> 1) & 0x5555555555555555ull);
    x = (x & 0x3333333333333333ull) + ((x >> 2) & 0x3333333333333333ull);
    x = (x + (x >> 4)) & 0x0f0f0f0f0f0f0f0full;
    return (uint32_t)((x * 0x0101010101010101ull) >> 56);
#endif
}

/* Format base_ns nanoseconds plus ps picoseconds as nanoseconds with three decimals
 * ("1234.567") into buf. Trace times are nanoseconds since an epoch (about 2^61), too
 * large to hold in picoseconds, so they are kept apart from the picosecond offset. */
void gd_format_ns(char *buf, size_t size, uint64_t base_ns, gd_time_ps ps);

/* A new file beside final_path to write it under: final_path + ".part-XXXXXX" + suffix,
 * a name no other file has, created exclusively (so never through a link another
 * program planted, never another run's file), with the permissions a new file gets
 * (0666 less the umask). Its open descriptor, its name in *tmp_path (malloc'd); -1 with
 * errno set. */
int gd_out_tmp(const char *final_path, const char *suffix, char **tmp_path);

/* An output file written under a temporary name (gd_out_tmp) and renamed to PATH when
 * it is complete, so that a failed or interrupted write never leaves a file that looks
 * complete. "-" is standard output; a path under /dev/ or /proc/ (/dev/stderr, say,
 * whatever it points to) and an existing path that is not a regular file (a FIFO, a
 * symbolic link: renaming would replace the link) are written as they are. */
typedef struct gd_outfile {
    FILE *f;
    char *final_path, *tmp_path;  /* tmp_path NULL: written in place */
} gd_outfile;
/* The whole of a small input file (a configuration, a rules file, a topology): up to
 * max + 1 bytes (one past max tells the caller it is too long) into a malloc'd buffer,
 * NUL-terminated, its length in *len. 0; GD_EIO "PATH: cannot open: why" or "PATH:
 * cannot read: why"; GD_ENOMEM. */
int gd_read_small_file(const char *path, size_t max, char **text, size_t *len, gd_err *err);

int gd_out_open(gd_outfile *o, const char *path, gd_err *err);
/* Whether path is written in place rather than through a temporary file (the rule above). */
int gd_out_in_place(const char *path);

/* Seconds of CLOCK_MONOTONIC: wall time for timeouts and progress reports. */
double gd_monotonic_s(void);
/* ok: close (flush) and rename, GD_EIO with "PATH: write failed: ..." when that fails;
 * !ok: close and remove the temporary file. err may be NULL. */
int gd_out_close(gd_outfile *o, int ok, gd_err *err);
/* Whether two paths name the same regular file (an output that would overwrite an input). */
int gd_same_file(const char *a, const char *b);

#ifdef __cplusplus
}
#endif

#endif
