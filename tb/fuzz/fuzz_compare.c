/* fuzz_compare.c - a libFuzzer harness for `gdsim compare`'s JSON reader (cli/compare.c):
 * any bytes must parse or fail with a message naming the file and a byte offset inside
 * the input, without a memory error or undefined behaviour; what parses must print.
 * `make fuzz` builds it with clang (-fsanitize=fuzzer,address,undefined) and runs it on
 * summary JSONs of the sample trace; tb/test_compare.sh replays deterministic
 * truncations and byte flips in every `make check`. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "compare.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    gd_compare_doc *d = NULL;
    char err[512];
    if (gd_compare_parse(&d, "fuzz.json", (const char *)data, size, err, sizeof err) == 0) {
        FILE *null = fopen("/dev/null", "w");
        if (null) {
            gd_compare_print(null, d, "a", d, "b");
            fclose(null);
        }
        gd_compare_free(d);
    } else if (strncmp(err, "fuzz.json: ", 11) != 0 && strcmp(err, "out of memory") != 0) {
        abort();  /* every message names the file */
    }
    return 0;
}
