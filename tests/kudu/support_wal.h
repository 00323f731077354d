/* Helpers of the Kudu WAL tests (support_wal.c): their printers. The JSON comparison
 * kudu_check.py makes is kudu_json_equal (support_fsroot.h). */
#ifndef CF_TEST_SUPPORT_WAL_H
#define CF_TEST_SUPPORT_WAL_H

#include <stdbool.h>
#include <stdio.h>

#include <cfile/kudu.h>

#include "json.h"

/* One row op as `cfile kudu wal dump --json` prints it: {"op", "row"}. */
void wal_write_op(cf_jw *w, const cf_schema *s, const cf_kudu_row_op *op);

#endif
