/* compare.h - `gdsim compare A.json B.json` (cli/compare.c): two summary JSONs read and
 * printed side by side. */
#ifndef GD_CLI_COMPARE_H
#define GD_CLI_COMPARE_H

#include <stddef.h>
#include <stdio.h>

typedef struct jdoc gd_compare_doc;

/* Parse text (len bytes, the contents of path) as a gdsim summary JSON: 0, or -1 with a
 * message naming path and the byte offset in err. */
int gd_compare_parse(gd_compare_doc **out, const char *path, const char *text, size_t len, char *err, size_t errsz);
void gd_compare_free(gd_compare_doc *d);
/* The summaries side by side (value, B - A, B / A), then the configuration keys that differ. */
void gd_compare_print(FILE *f, const gd_compare_doc *a, const char *an, const gd_compare_doc *b, const char *bn);

#endif
