/* fuzz_topology.c - a libFuzzer harness for the topology parser and validation
 * (model/trace/topology.c): any bytes must parse or fail with GD_EFORMAT naming the
 * source, and whatever parses must validate, without a memory error or undefined
 * behaviour. `make fuzz` builds it with clang (-fsanitize=fuzzer,address,undefined)
 * and runs it on traces/topologies/ as the seed corpus; tb/test_topology.c replays
 * 20,000 deterministic mutations of seed 002 fig 1 in every `make check`. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "gdsim.h"
#include "topology.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static gd_topology t;
    static gd_topo_verdict v[32];
    gd_err err;
    gd_err_clear(&err);
    int rc = gd_topology_parse(&t, (const char *)data, size, "fuzz.topo", &err);
    if (rc == GD_OK) {
        for (uint32_t simd = 1; simd <= 64; simd *= 8) {
            gd_topo_limits lim = {simd};
            gd_topology_validate(&t, &lim, v, 32);
        }
    } else if (rc != GD_EFORMAT || strncmp(err.msg, "fuzz.topo", 9) != 0) {
        abort();
    }
    return 0;
}
