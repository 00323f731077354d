/* The MemRowSet: a table's in-memory store for newly inserted rows (Kudu's
 * MemRowSet), and the table layer's view of it. Not installed. */
#ifndef CF_ROWSET_MEMROWSET_H
#define CF_ROWSET_MEMROWSET_H

#include "internal.h"

/* One column value in memory form; binary values point into the MemRowSet. */
typedef struct cf_mrs_cell {
    bool nonnull;
    _Alignas(16) uint8_t slot[16];
} cf_mrs_cell;

typedef struct cf_mrs cf_mrs;
typedef struct cf_mrs_row cf_mrs_row;

cf_status cf_mrs_create(cf_mrs **out, const cf_schema *s, cf_error *err);
void cf_mrs_free(cf_mrs *m); /* NULL is a no-op */
/* Drop every row (after a flush). */
void cf_mrs_clear(cf_mrs *m);
size_t cf_mrs_rows(const cf_mrs *m);
/* Bytes held (rows, values, mutations): what the flush threshold is compared with. */
size_t cf_mrs_bytes(const cf_mrs *m);

/* The row with encoded key `key`, or NULL. */
cf_mrs_row *cf_mrs_find(const cf_mrs *m, const uint8_t *key, size_t len);
/* The first row whose key is >= key (NULL key: the first row), and the next row. */
cf_mrs_row *cf_mrs_seek(const cf_mrs *m, const uint8_t *key, size_t len);
cf_mrs_row *cf_mrs_next(const cf_mrs_row *r);
cf_slice cf_mrs_row_key(const cf_mrs_row *r);
/* Does the row exist after all its mutations? */
bool cf_mrs_row_alive(const cf_mrs_row *r);

/* Insert a row whose encoded key (`key`) is absent: values[i] for every column
 * (memory form, NULL = SQL NULL; the caller has checked nullability). */
cf_status cf_mrs_insert(cf_mrs *m, const uint8_t *key, size_t len, const void *const *values,
                        uint64_t ts, cf_error *err);
/* Record a mutation (a RowChangeList: UPDATE, DELETE or REINSERT) of row r at ts
 * (the caller has checked that it applies to the row's state). */
cf_status cf_mrs_mutate(cf_mrs *m, cf_mrs_row *r, cf_slice rcl, uint64_t ts, cf_error *err);

/* The row's values at snapshot `snap` (operations with ts < snap) into cells
 * (one per column); *visible = false when it did not exist then. */
cf_status cf_mrs_row_at(const cf_mrs *m, const cf_mrs_row *r, uint64_t snap, cf_mrs_cell *cells,
                        bool *visible, cf_error *err);

/* Write every row as a new DiskRowSet in (dfd, dir) (dirfd.c; with AT_FDCWD
 * dir is created; it must hold no rowset):
 * base = the inserted values, an UNDO DELETE at each row's insert timestamp
 * (rows inserted after the earliest one), the mutations as a REDO file; the
 * MANIFEST is written last. Every file is created with permission bits mode
 * (0: the defaults). Does not clear m. */
cf_status cf_mrs_flush(cf_mrs *m, int dfd, const char *dir, unsigned mode, cf_error *err);

/* table_scan.c: does one cell (a row's value of column c) pass predicate p?
 * Also the Kudu tablet scanner's filter (src/kudu/scan.c). */
bool cf_rs_pred_pass(const cf_column *c, const cf_pred *p, const cf_mrs_cell *v);
/* table_scan.c: a predicate's value (column c's memory form, the bytes of a binary
 * value too) copied into a 16-byte aligned slot in arena a, so a scanner keeps it
 * past the caller's options. Also the Kudu tablet scanner's (src/kudu/scan.c). */
cf_status cf_rs_pred_value_copy(cf_arena *a, const cf_column *c, const void *value,
                                const void **out, cf_error *err);

/* table.c: the table's MemRowSet, for table_scan.c. */
cf_mrs *cf_table_mrs(const cf_table *t);

#endif
