/* Comparing what DuckDB read from an Arrow stream with cfile's own values. */
#ifndef CF_TEST_SUPPORT_COMPARE_H
#define CF_TEST_SUPPORT_COMPARE_H

#include <cfile/iter.h>
#include <cfile/types.h>

#include "support_duck.h"

/* Does DuckDB's value at (col, row) of res equal v (cfile memory form of type t,
 * cf_slice for binary; NULL = SQL NULL)? STRING is read back as text, or as a
 * BLOB when as_binary. On a difference, why says what each side holds. */
bool cmp_value(duck *d, duck_result *res, duck_idx col, duck_idx row, cf_type t, bool as_binary,
               const void *v, char *why, size_t cap);

#endif

/* A column's values as cfile reads them (the reference side), gathered from
 * cf_batch pieces: per row for plain columns, per element for arrays. */
typedef struct refcol {
    cf_type t;
    bool is_array;
    size_t rows;
    uint8_t *row_present; /* per row */
    size_t *elem_start;   /* arrays: row i holds values [elem_start[i], elem_start[i+1]) */
    size_t nvals;
    uint8_t *vals; /* nvals * cf_type_size(t); binary: cf_slice with copied bytes */
    uint8_t *val_present;
} refcol;

void refcol_init(refcol *rc, cf_type t, bool is_array);
void refcol_dispose(refcol *rc);
/* Append rows [from, from + n) of b (iter.h's form). */
void refcol_add(refcol *rc, const cf_batch *b, size_t from, size_t n);
/* Compare column `col` of DuckDB table `table` (rows in rowid order) with rc.
 * Returns the number of differences (the first few are printed with `label`). */
size_t refcol_check(duck *d, const char *table, const char *col, const refcol *rc, bool as_binary,
                    const char *label);
