#include "gd_util.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "gdsim.h"

void gd_err_clear(gd_err *err)
{
    if (!err)
        return;
    err->code = GD_OK;
    err->msg[0] = '\0';
}

/* msg (len bytes) into out (size bytes) as one line a terminal shows as it is: control
 * characters (a newline in a path, an escape code) as '?'; a message longer than out
 * loses its middle, not its end (the start names the file, the end says what is wrong),
 * cut at UTF-8 character boundaries. */
static void err_text(char *out, size_t size, char *msg, size_t len)
{
    for (size_t i = 0; i < len; i++)
        if ((unsigned char)msg[i] < 0x20 || msg[i] == 0x7f)
            msg[i] = '?';
    if (len < size) {
        memcpy(out, msg, len);
        out[len] = '\0';
        return;
    }
    static const char gap[] = " ... ";
    size_t room = size - 1 - (sizeof gap - 1), head = room / 3, tail = len - (room - head);
    while (head && (msg[head] & 0xC0) == 0x80)  /* not inside a character */
        head--;
    while (tail < len && (msg[tail] & 0xC0) == 0x80)
        tail++;
    memcpy(out, msg, head);
    memcpy(out + head, gap, sizeof gap - 1);
    memcpy(out + head + sizeof gap - 1, msg + tail, len - tail);
    out[head + sizeof gap - 1 + len - tail] = '\0';
}

int gd_err_vset(gd_err *err, int code, const char *fmt, va_list ap)
{
    if (!err)
        return code;
    err->code = code;
    char small[GD_ERRMSG_MAX];
    va_list aq;
    va_copy(aq, ap);
    int n = vsnprintf(small, sizeof small, fmt, aq);
    va_end(aq);
    if (n < 0) {
        snprintf(err->msg, sizeof err->msg, "(a message that could not be formatted)");
        return code;
    }
    if ((size_t)n < sizeof small) {
        err_text(err->msg, sizeof err->msg, small, (size_t)n);
        return code;
    }
    char *big = malloc((size_t)n + 1);  /* the whole message, to keep its end */
    if (big && vsnprintf(big, (size_t)n + 1, fmt, ap) == n)
        err_text(err->msg, sizeof err->msg, big, (size_t)n);
    else
        err_text(err->msg, sizeof err->msg, small, sizeof small - 1);
    free(big);
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

size_t gd_utf8_char_len(const char *p)
{
    const unsigned char *s = (const unsigned char *)p;
    unsigned c = s[0];
    if (c < 0x80)
        return 1;
    size_t n;
    uint32_t cp;
    if (c >= 0xC2 && c <= 0xDF)
        n = 2, cp = c & 0x1F;
    else if (c >= 0xE0 && c <= 0xEF)
        n = 3, cp = c & 0x0F;
    else if (c >= 0xF0 && c <= 0xF4)
        n = 4, cp = c & 0x07;
    else
        return 0;  /* a continuation byte, an overlong lead (C0, C1) or past U+10FFFF */
    for (size_t i = 1; i < n; i++) {
        if ((s[i] & 0xC0) != 0x80)
            return 0;  /* also stops at the terminating NUL */
        cp = cp << 6 | (s[i] & 0x3F);
    }
    if ((n == 3 && cp < 0x800) || (n == 4 && (cp < 0x10000 || cp > 0x10FFFF)) || (cp >= 0xD800 && cp <= 0xDFFF))
        return 0;  /* overlong, past Unicode, or a UTF-16 surrogate */
    return n;
}

double gd_monotonic_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

int gd_out_in_place(const char *path)
{
    struct stat st;
    /* a device (/dev/stderr, whatever it points to), a FIFO, or a symbolic link to one
     * of them; a link to a regular file (or to nothing) is replaced by the output, its
     * target left alone: a link planted at an output's name never redirects the write */
    if (strncmp(path, "/dev/", 5) == 0 || strncmp(path, "/proc/", 6) == 0)
        return 1;
    if (lstat(path, &st) != 0)
        return 0;
    if (S_ISLNK(st.st_mode))
        return stat(path, &st) == 0 && !S_ISREG(st.st_mode);
    return !S_ISREG(st.st_mode);
}

int gd_out_tmp(const char *final_path, const char *suffix, char **tmp_path)
{
    static const char mid[] = ".part-XXXXXX";
    size_t n = strlen(final_path) + sizeof mid + strlen(suffix);
    char *t = malloc(n);
    if (!t) {
        errno = ENOMEM;
        return -1;
    }
    snprintf(t, n, "%s%s%s", final_path, mid, suffix);
    int fd = mkstemps(t, (int)strlen(suffix));  /* O_CREAT | O_EXCL: a new file, mode 0600 */
    if (fd < 0) {
        int e = errno;
        free(t);
        errno = e;
        return -1;
    }
    mode_t mask = umask(0);
    umask(mask);
    if (fchmod(fd, 0666 & ~mask) != 0) {
        int e = errno;
        close(fd);
        remove(t);
        free(t);
        errno = e;
        return -1;
    }
    *tmp_path = t;
    return fd;
}

int gd_out_open(gd_outfile *o, const char *path, gd_err *err)
{
    memset(o, 0, sizeof *o);
    if (strcmp(path, "-") == 0) {
        o->f = stdout;
        return GD_OK;
    }
    if (!(o->final_path = strdup(path)))
        return gd_err_set(err, GD_ENOMEM, "%s: out of memory creating it", path);
    if (gd_out_in_place(path)) {
        o->f = fopen(path, "w");
    } else {
        int fd = gd_out_tmp(path, "", &o->tmp_path);
        if (fd >= 0 && !(o->f = fdopen(fd, "w")))
            close(fd);
    }
    if (!o->f) {
        int e = errno;
        gd_out_close(o, 0, NULL);
        if (e == ENOMEM)
            return gd_err_set(err, GD_ENOMEM, "%s: out of memory creating it", path);
        return gd_err_set(err, GD_EIO, "%s: cannot create: %s", path, strerror(e));
    }
    return GD_OK;
}

int gd_out_close(gd_outfile *o, int ok, gd_err *err)
{
    int rc = GD_OK;
    if (o->f) {
        int e = 0;
        if (o->f == stdout) {
            if (fflush(stdout) != 0 || ferror(stdout))
                e = errno ? errno : EIO;
        } else if (ferror(o->f) | fclose(o->f)) {
            e = errno ? errno : EIO;
        }
        if (ok && e)
            rc = gd_err_set(err, GD_EIO, "%s: write failed: %s", o->final_path ? o->final_path : "standard output",
                            strerror(e));
    }
    if (o->tmp_path) {
        if (ok && rc == GD_OK && rename(o->tmp_path, o->final_path) != 0)
            rc = gd_err_set(err, GD_EIO, "%s: cannot rename %s to it: %s", o->final_path, o->tmp_path,
                            strerror(errno));
        if (!ok || rc != GD_OK)
            remove(o->tmp_path);
    }
    free(o->tmp_path);
    free(o->final_path);
    memset(o, 0, sizeof *o);
    return rc;
}

int gd_same_file(const char *a, const char *b)
{
    struct stat sa, sb;
    return strcmp(a, "-") != 0 && strcmp(b, "-") != 0 && stat(a, &sa) == 0 && stat(b, &sb) == 0 &&
           S_ISREG(sa.st_mode) && sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino;
}

int gd_read_small_file(const char *path, size_t max, char **text, size_t *len, gd_err *err)
{
    *text = NULL;
    *len = 0;
    /* Opened without waiting: a FIFO nobody writes to would block open() forever; then
     * read as usual (a pipe with a writer, `--config <(...)`, is read to its end). */
    int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
    if (fd < 0)
        return gd_err_set(err, GD_EIO, "%s: cannot open: %s", path, strerror(errno));
    int fl = fcntl(fd, F_GETFL);
    FILE *f = fl < 0 || fcntl(fd, F_SETFL, fl & ~O_NONBLOCK) < 0 ? NULL : fdopen(fd, "rb");
    if (!f) {
        int e = errno;
        close(fd);
        return gd_err_set(err, GD_EIO, "%s: cannot open: %s", path, strerror(e));
    }
    char *buf = malloc(max + 2);
    if (!buf) {
        fclose(f);
        return gd_err_set(err, GD_ENOMEM, "%s: out of memory reading it", path);
    }
    size_t n = fread(buf, 1, max + 1, f);
    int rerr = ferror(f) ? errno : 0;
    fclose(f);
    if (rerr) {
        free(buf);
        return gd_err_set(err, GD_EIO, "%s: cannot read: %s", path, strerror(rerr));
    }
    buf[n] = '\0';
    *text = buf;
    *len = n;
    return 0;
}
