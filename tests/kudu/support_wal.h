/* Helpers of the Kudu tests (support_wal.c): the JSON comparison kudu_check.py makes, and
 * the WAL tests' printers. */
#ifndef CF_TEST_SUPPORT_WAL_H
#define CF_TEST_SUPPORT_WAL_H

#include <stdbool.h>
#include <stdio.h>

#include <cfile/kudu.h>

#include "json.h"

/* JSON equality as ../shared/tools/kudu_check.py judges it: 64-bit integers as
 * numbers or decimal strings are equal when their values are; other numbers are
 * equal as doubles, or as floats (a FLOAT cell printed in another round-trip form). */
bool kudu_json_equal(const cf_json *a, const cf_json *b);

/* One row op as `cfile kudu wal dump --json` prints it: {"op", "row"}. */
void wal_write_op(cf_jw *w, const cf_schema *s, const cf_kudu_row_op *op);

#endif
