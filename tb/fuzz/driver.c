/* driver.c - runs a libFuzzer harness without libFuzzer: each file named on the command
 * line, or each regular file in a folder named there (in name order), is given once to
 * LLVMFuzzerTestOneInput. `make check` builds every harness with gcc and this driver
 * and replays the committed corpus (tb/fuzz/corpus/NAME/, plus the bad-input suite
 * tb/bad/): what libFuzzer found once stays fixed. A harness aborts on a broken
 * invariant; the driver then names the input. */
#include <dirent.h>
#include <signal.h>
#include <unistd.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static const char *g_current;

static void on_fatal(int sig)
{
    static const char a[] = "driver: the harness failed on input ";
    if (write(2, a, sizeof a - 1) < 0 || (g_current && write(2, g_current, strlen(g_current)) < 0) ||
        write(2, "\n", 1) < 0)
        _exit(128 + sig);
    signal(sig, SIG_DFL);
    raise(sig);
}

static void run_file(const char *path, unsigned long *n)
{
    FILE *f = fopen(path, "rb");
    if (!f) {
        fprintf(stderr, "driver: %s: cannot open\n", path);
        exit(2);
    }
    size_t cap = 1 << 16, len = 0;
    uint8_t *buf = malloc(cap);
    size_t k;
    while (buf && (k = fread(buf + len, 1, cap - len, f)) > 0) {
        len += k;
        if (len == cap) {
            uint8_t *nb = realloc(buf, cap *= 2);
            if (!nb)
                free(buf);
            buf = nb;
        }
    }
    fclose(f);
    if (!buf) {
        fprintf(stderr, "driver: out of memory\n");
        exit(2);
    }
    g_current = path;
    LLVMFuzzerTestOneInput(buf, len);
    free(buf);
    (*n)++;
}

static int by_name(const void *a, const void *b) { return strcmp(*(char *const *)a, *(char *const *)b); }

int main(int argc, char **argv)
{
    unsigned long n = 0;
    signal(SIGABRT, on_fatal);
    signal(SIGSEGV, on_fatal);
    for (int i = 1; i < argc; i++) {
        struct stat st;
        if (stat(argv[i], &st) != 0) {
            fprintf(stderr, "driver: %s: not found\n", argv[i]);
            return 2;
        }
        if (!S_ISDIR(st.st_mode)) {
            run_file(argv[i], &n);
            continue;
        }
        DIR *d = opendir(argv[i]);
        char **names = NULL;
        size_t count = 0;
        struct dirent *e;
        while (d && (e = readdir(d))) {
            char *p = malloc(strlen(argv[i]) + strlen(e->d_name) + 2);
            char **nn = realloc(names, (count + 1) * sizeof *names);
            if (!p || !nn)
                return 2;
            names = nn;
            sprintf(p, "%s/%s", argv[i], e->d_name);
            if (stat(p, &st) == 0 && S_ISREG(st.st_mode))
                names[count++] = p;
            else
                free(p);
        }
        if (d)
            closedir(d);
        qsort(names, count, sizeof *names, by_name);
        for (size_t j = 0; j < count; j++) {
            run_file(names[j], &n);
            free(names[j]);
        }
        free(names);
    }
    printf("%lu inputs, no failure\n", n);
    return 0;
}
