/* A table for the Arrow stream tests: several DiskRowSets, a MemRowSet, updates
 * and deletes at known timestamps, every kind of column. */
#ifndef CF_TEST_SUPPORT_TABLE_H
#define CF_TEST_SUPPORT_TABLE_H

#include <cfile/rowset.h>

/* id INT64 KEY, name STRING NULL, score DOUBLE NULL, tags INT32[] NULL,
 * price DECIMAL64(10,2) NULL, at UNIXTIME_MICROS NULL, ok BOOL NULL, raw BINARY NULL.
 * Rows 0..FIX_ROWS-1 in three flushed rowsets plus some in the MemRowSet,
 * inserted at ts 1..FIX_ROWS; then updates (each its own ts) from FIX_TS_UPDATE on and
 * deletes from FIX_TS_DELETE on (a snapshot at FIX_TS_DELETE sees every update and
 * no delete). */
#define FIX_ROWS 2600
#define FIX_TS_UPDATE 10000
#define FIX_TS_DELETE 20000
/* Creates the table in a new temporary directory (its path into dir, 256 bytes)
 * and returns it open for writing. */
cf_table *fixture_table(char *dir);

#endif
