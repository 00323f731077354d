/* Tables of generated columns for the Parquet writer's tests: every Kudu type,
 * nullable or not, scalar or array, values drawn from a seeded generator within
 * each type's range (strings some past the 64-byte statistics truncation, some
 * empty; floats with -0.0 and 0.0). Shared by test_pq_writer.c and
 * test_pq_write_threads.c. */
#ifndef CF_TEST_SUPPORT_PQGEN_H
#define CF_TEST_SUPPORT_PQGEN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <cfile/cfile.h>
#include <cfile/io.h>
#include <cfile/parquet.h>

#define PQG_MAX_COLS 64

typedef struct pqg_col {
    cf_parquet_write_column spec;
    size_t width;
    uint8_t *values;   /* rows (scalars) or elements (arrays) */
    uint8_t *nonnull;  /* row bitmap */
    uint32_t *offsets; /* arrays: rows + 1 */
    uint8_t *elem_nonnull;
    size_t elems;
    uint64_t card; /* distinct values: small = dictionary, large = fallback */
} pqg_col;

typedef struct pqg_table {
    size_t ncols, rows;
    pqg_col c[PQG_MAX_COLS];
    char names[PQG_MAX_COLS][24]; /* the columns pqg_add_col named */
    char *strings;                /* bytes of every generated string */
    size_t str_len, str_cap;
    /* One row in null_one_in is null, one array element in elem_null_one_in
     * (0: 6 and 5). */
    unsigned null_one_in, elem_null_one_in;
} pqg_table;

void pqg_setbit(uint8_t *bm, size_t i, bool v);

/* One value of type ty from the number x into slot (strings go to t->strings,
 * their slices holding offsets until pqg_gen's end turns them to pointers). */
void pqg_value(pqg_table *t, cf_type ty, uint64_t x, uint8_t *slot);

/* A column of `card` distinct values; name NULL: "c<index>". */
void pqg_add_col(pqg_table *t, const char *name, cf_type ty, bool nullable, bool array,
                 uint64_t card, bool bloom);

/* Generate `rows` rows of every column from `seed`. */
void pqg_gen(pqg_table *t, size_t rows, uint64_t seed);

void pqg_free(pqg_table *t);

/* Rows [r, r + n) of column g as a batch, its bitmaps copied to start at bit
 * 0 and its element offsets made relative to its first element (a row bitmap
 * even for a column that is not nullable). Free with pqg_slice_free. */
void pqg_slice(const pqg_col *g, size_t r, size_t n, cf_batch *b);
void pqg_slice_free(cf_batch *b);

/* b[0..n) made batches holding only values[i] (every other field zero): one a
 * column, for the caller to add bitmaps or element offsets to. */
void pqg_batches(cf_batch *b, size_t n, const void *const *values);

/* A writer of t's columns with options o into a new memory file *io (freed
 * again when the writer cannot be made). */
cf_status pqg_writer(cf_parquet_writer **w, cf_io **io, const pqg_table *t,
                     const cf_parquet_writer_options *o, cf_error *err);

/* Finish w, writing into the memory file io; the file's bytes (malloc'd, *len
 * of them). Frees w and io. */
uint8_t *pqg_finish(cf_parquet_writer *w, cf_io *io, size_t *len);

#endif
