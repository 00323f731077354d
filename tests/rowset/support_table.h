/* Shared by the table tests: creating a table from a schema's text, reading a
 * scan batch by batch with every call checked, counting rows, the rs-*
 * directories a table does not name. */
#ifndef CF_TEST_SUPPORT_TABLE_H
#define CF_TEST_SUPPORT_TABLE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include <cfile/rowset.h>

#include "rowset/wal.h"
#include "test_common.h"

/* An empty table in dir with the schema written as text ("id INT64 KEY, ..."). */
void table_create(const char *dir, const char *schema);
/* The same, opened for writing with default options. */
cf_table *table_create_open(const char *dir, const char *schema);

/* The table in dir opened for writing with default options (asserts). */
cf_table *table_open(const char *dir);

/* A scanner over t with options o (NULL: defaults); asserts it was created. */
cf_table_scanner *table_scan_open(cf_table *t, const cf_scan_options *o);
/* The next batch of sc into *b; false at the end. Asserts each call succeeds. */
bool table_scan_next(cf_table_scanner *sc, cf_row_batch *b);
/* The same for a rowset: a scanner over rs with options o (NULL: defaults),
 * its next batch. */
cf_rowset_scanner *rowset_scan_open(cf_rowset *rs, const cf_scan_options *o);
bool rowset_scan_next(cf_rowset_scanner *sc, cf_row_batch *b);
/* A rowset in dir of schema s (options wo, NULL: defaults) holding the n rows
 * of cols, written in one append (asserts). */
void rowset_write(const char *dir, const cf_schema *s, const cf_rowset_writer_options *wo,
                  const cf_colvec *cols, size_t n);
/* The rows of a full scan of t at the latest snapshot. */
size_t table_count_rows(cf_table *t);

/* A scan of t with options o (NULL: defaults) as text: row r of each batch b
 * written to f by fn. Returns the text (malloc'd). */
typedef void (*table_row_text_fn)(FILE *f, const cf_row_batch *b, size_t r, void *ctx);
char *table_scan_text(cf_table *t, const cf_scan_options *o, table_row_text_fn fn, void *ctx);
/* A directory handle, not a path (issue 31 item 4): paths a, b and c below
 * base (cap bytes each), a and c made. move_under_writer then renames a to b and
 * puts a symlink to c at a; what a writer holding a writes must land in b and
 * leave c empty (dir_entries). */
void moved_dir_setup(const char *base, char *a, char *b, char *c, size_t cap);
void move_under_writer(const char *a, const char *b, const char *c);
/* How many entries dir holds besides "." and "..". */
size_t dir_entries(const char *dir);

/* How many rs-* directories in dir the table does not name (leftovers). */
size_t stray_rowsets(cf_table *t, const char *dir);
/* Every rs-* directory in dir is one the table names; fails naming the first
 * that is not, with `what` (the round or case) in the message. */
void check_no_stray_rowsets(cf_table *t, const char *dir, const char *what);

/* Each record of the log segment bytes[0..len) in order, to fn with its
 * payload, the offset it starts at and its index, until fn returns false or
 * the records end (a torn tail ends them; asserts every other read succeeds).
 * Returns the records fn took (returned true for). */
typedef bool (*wal_record_fn)(cf_slice payload, size_t start, size_t rec, void *ctx);
size_t wal_records(const uint8_t *bytes, size_t len, wal_record_fn fn, void *ctx);

/* Rewrite the log segment at path record by record, each record's ops passed
 * to edit (may be NULL) with the record's index. version 0: the segment's
 * header and the current batch format kept; else the header says version and
 * every batch is re-encoded in that format, from batches that must all be in
 * format want_from. Returns the records. */
typedef void (*wal_op_edit)(cf_wal_op *op, size_t rec, void *ctx);
size_t wal_rewrite(const char *path, uint32_t version, uint32_t want_from, wal_op_edit edit,
                   void *ctx);

/* Seconds on the monotonic clock. */
double now_s(void);
/* to, replaced by a copy of from (rm -rf, cp -a). */
void copy_tree(const char *from, const char *to);
/* Run fn(ctx, fd) in a child process that exits with what fn returns; fd is
 * the write end of a pipe whose read end is returned (the caller reads what the
 * child wrote, then closes it). kill_after >= 0: SIGKILL the child that many
 * seconds after the fork; it must not have exited non-zero before (nor exited
 * at all when must_die). kill_after < 0: wait for it, which must exit 0. A
 * failure names `what`. */
typedef int (*child_fn)(void *ctx, int fd);
int run_child(child_fn fn, void *ctx, double kill_after, bool must_die, const char *what);
/* run_child with fn run on the table in dir (opened for writing) in the
 * child, which exits 0 when fn returns CF_OK, 1 when it fails, 2 when the table
 * does not open. Returns the seconds from the fork to its end, and the fork's
 * now_s() in *t0 (may be NULL). */
typedef cf_status (*table_child_fn)(cf_table *t, void *ctx, cf_error *err);
double run_table_child(const char *dir, table_child_fn fn, void *ctx, double kill_after,
                       double *t0);

#endif
