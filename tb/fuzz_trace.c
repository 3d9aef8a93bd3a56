/* fuzz_trace.c - a libFuzzer harness for the trace reader (model/trace/trace.c and
 * what it calls: AQL, condensed and pipeline-launch records, topologies): any bytes,
 * read as an uncompressed trace (zlib reads a file without a gzip header as is), must
 * read to the end or fail with GD_EFORMAT naming the file, without a memory error or
 * undefined behaviour. `make fuzz` builds it with clang
 * (-fsanitize=fuzzer,address,undefined) on a corpus of the bundled traces,
 * decompressed; tb/test_trace.c replays deterministic mutations of a trace with every
 * record type in every `make check`. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "gdsim.h"
#include "trace.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    /* the input as a file under TMPDIR (else /tmp), removed once read, so none stays
     * behind when the fuzzer stops (but after a crash in the reader: libFuzzer keeps
     * that input as crash-* anyway) */
    static char path[512];
    if (!path[0]) {
        const char *dir = getenv("TMPDIR");
        snprintf(path, sizeof path, "%s/gdsim-fuzz-trace-%ld.gdt", dir && *dir ? dir : "/tmp", (long)getpid());
    }
    FILE *f = fopen(path, "wb");
    if (!f || fwrite(data, 1, size, f) != size || fclose(f) != 0)
        abort();
    gd_err err;
    gd_err_clear(&err);
    gd_trace_reader *r;
    int rc = gd_trace_open(&r, path, &err);
    if (rc == GD_OK) {
        gd_trace_set_rsb(r, 8);
        gd_trace_record rec;
        for (uint32_t n = 0; n < 200000 && (rc = gd_trace_next(r, &rec, &err)) == 1; n++)
            ;
        gd_trace_close_reader(r);
        if (rc == 1)
            rc = GD_OK;
    }
    unlink(path);
    if (rc != GD_OK && (rc != GD_EFORMAT || strncmp(err.msg, path, strlen(path)) != 0))
        abort();
    return 0;
}
