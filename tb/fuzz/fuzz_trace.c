/* fuzz_trace.c - a libFuzzer harness for the trace reader (model/trace/trace.c and
 * what it calls: AQL, condensed and pipeline-launch records, topologies): any bytes,
 * read as an uncompressed trace (the reader takes a file without a gzip header as is;
 * one with it is inflated member by member, nothing may follow the last), must
 * read to the end or fail with GD_EFORMAT naming the file, without a memory error or
 * undefined behaviour; each AQL packet read (dispatch, barrier, condensed) re-encodes to
 * the bytes it was read from. The replay's limits are set as a replay sets them; an
 * input of odd length is read with read ahead (sim.read_ahead) on. `make fuzz` builds it with clang
 * (-fsanitize=fuzzer,address,undefined) on a corpus of the bundled traces,
 * decompressed; tb/test_trace.c replays deterministic mutations of a trace with every
 * record type in every `make check`. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "aql.h"
#include "condensed.h"
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
    /* an uncompressed input is the stream itself: a packet read must re-encode to its bytes */
    const int raw = size >= 2 && !(data[0] == 0x1f && data[1] == 0x8b);
    if (rc == GD_OK) {
        gd_trace_set_rsb(r, 8);
        gd_trace_set_run_limits(r, 86400, UINT32_MAX, 1u << 20, 1u << 24);  /* the defaults of the sim.max_* keys */
        gd_trace_set_descriptor_bytes(r, (uint64_t)256 << 20);
        gd_trace_set_read_ahead(r, size & 1);  /* gzip input: inflated ahead on a second thread half the time */
        gd_trace_record rec;
        for (uint32_t n = 0; n < 200000 && (rc = gd_trace_next(r, &rec, &err)) == 1; n++) {
            uint8_t pkt[GD_AQL_PACKET_SIZE];
            const uint64_t at = rec.offset + GD_TRACE_FRAME_SIZE + 16;  /* the AQL packet in the record */
            if (!raw || at + sizeof pkt > size)
                continue;
            if (rec.type == GD_REC_DISPATCH)
                gd_aql_encode(pkt, &rec.dispatch.pkt);
            else if (rec.type == GD_REC_BARRIER_AND || rec.type == GD_REC_BARRIER_OR)
                gd_aql_barrier_encode(pkt, &rec.barrier.pkt);
            else if (rec.type == GD_REC_CONDENSED)
                gd_condensed_encode_bytes(pkt, &rec.condensed.pkt);
            else
                continue;
            if (memcmp(pkt, data + at, sizeof pkt) != 0)
                abort();  /* decoded and encoded again, a packet must give the same 64 bytes */
        }
        gd_trace_close_reader(r);
        if (rc == 1)
            rc = GD_OK;
    }
    unlink(path);
    if (rc != GD_OK && (rc != GD_EFORMAT || strncmp(err.msg, path, strlen(path)) != 0))
        abort();
    return 0;
}
