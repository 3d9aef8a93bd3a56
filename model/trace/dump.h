/* dump.h - a trace, record by record, in human-readable form (gdsim dump; like
 * objdump for traces): the file header, kernel descriptors, and every packet with
 * its AQL fields decoded, its launch info, wait-until time and cluster shape. */
#ifndef GD_DUMP_H
#define GD_DUMP_H

#include <stdio.h>

#include "gd_util.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Write one line per record of the trace at path to out. Stops at the first problem
 * of the trace, after the records before it: GD_EFORMAT (or another code) with err
 * naming the file, record and offset; GD_EIO when out cannot be written. */
int gd_trace_dump(FILE *out, const char *path, gd_err *err);

#ifdef __cplusplus
}
#endif

#endif
