/* cfile: iterating over the rows of a CFile, seeking by ordinal and by value.
 *
 * Call order:  create ((seek_to_first | seek_to_ordinal | seek_at_or_after | block_at)
 *                      (next_batch | copy_batch | next_arrow)*)* free
 * A freshly created iterator is positioned at ordinal 0. Seeks go through the
 * B-tree indexes, never by scanning the file.
 *
 * Ownership: an iterator borrows its reader (REQUIRES: the reader outlives it).
 * Batches from cf_iter_next_batch, and the binary slices cf_iter_copy_batch
 * writes, point into the iterator (or the io/cache behind it): valid until the
 * next call on the same iterator or its free. Copy out what must live longer.
 *
 * Threads: an iterator belongs to one thread at a time; many iterators, in
 * many threads, may share one reader and one block filter.
 */
#ifndef CFILE_ITER_H
#define CFILE_ITER_H

#include "reader.h"
#include "status.h"
#include "types.h" /* cf_batch */

#ifdef __cplusplus
extern "C" {
#endif

typedef struct cf_iter cf_iter;

CF_API cf_status cf_iter_create(cf_iter **out, const cf_reader *r, cf_error *err);
CF_API void cf_iter_free(cf_iter *it); /* NULL is a no-op */

/* Position at ordinal 0 (CF_OK also for an empty file: next_batch then gives 0 rows). */
CF_API cf_status cf_iter_seek_to_first(cf_iter *it, cf_error *err);

/* Position at row `ord` through the positional index.
 * CF_ENOTFOUND if ord >= num_values; CF_EINVAL if the file has no positional index. */
CF_API cf_status cf_iter_seek_to_ordinal(cf_iter *it, uint64_t ord, cf_error *err);

/* Position at the first row whose value is >= *key, through the value index.
 * REQUIRES: key points to one value of the column's type in memory form
 * (cf_type_size bytes; a cf_slice for binary types): its width is not checked.
 * *exact (may be NULL) tells whether that row equals the key.
 * CF_ENOTFOUND if every value is smaller; CF_EINVAL without a value index. */
CF_API cf_status cf_iter_seek_at_or_after(cf_iter *it, const void *key, bool *exact, cf_error *err);

/* Read up to max_rows rows from the current position (fewer at a block
 * boundary; 0 at the end) as views. */
CF_API cf_status cf_iter_next_batch(cf_iter *it, size_t max_rows, cf_batch *out, cf_error *err);

/* Read up to `cap` rows into caller buffers: values (cap * cf_type_size bytes;
 * binary slices point into the iterator and live until its next call) and
 * nonnull (ceil(cap/8) bytes, may be NULL for non-nullable columns).
 * REQUIRES: values holds cap * cf_type_size(type) bytes and nonnull, when given,
 * ceil(cap/8) bytes (neither size can be checked).
 * *count = rows copied, 0 at the end. Not for array columns (CF_EINVAL). */
CF_API cf_status cf_iter_copy_batch(cf_iter *it, void *values, uint8_t *nonnull, size_t cap,
                                    size_t *count, cf_error *err);

/* The reader this iterator was created on. */
CF_API const cf_reader *cf_iter_reader(const cf_iter *it);

/* Ordinal of the next row next_batch would return. */
CF_API uint64_t cf_iter_current_ordinal(const cf_iter *it);

/* ---- block-level access: skipping data blocks for a predicate ---------------------------
 *
 * A filter holds a test on single values (fn: true when a non-NULL value in
 * memory form may satisfy the caller's predicate). cf_iter_block_at tells, per
 * data block, whether any row of the block can pass it, as far as the block's
 * encoding can tell without decoding every value:
 *   DICT codeword blocks: fn runs once per dictionary entry (when the filter is
 *                         created); a block passes if one of its codewords does;
 *   RLE blocks:           fn runs once per repeated run, per value of literal runs;
 *   any block whose rows are all NULL: no row passes (NULL never satisfies fn);
 *   everything else (other encodings, DICT blocks in plain-string mode): "may".
 * Not for array columns. A filter is immutable once made: iterators of the
 * same reader in several threads may share it.
 */
typedef bool (*cf_value_test_fn)(void *ctx, const void *value);
typedef struct cf_block_filter cf_block_filter;

/* A filter for r's values (r and ctx borrowed: they must outlive it). CF_EINVAL
 * for array files. */
CF_API cf_status cf_block_filter_create(cf_block_filter **out, const cf_reader *r,
                                        cf_value_test_fn fn, void *ctx, cf_error *err);
CF_API void cf_block_filter_free(cf_block_filter *f); /* NULL is a no-op */

typedef struct cf_block_info {
    uint64_t first_ord; /* ordinal of the block's first row */
    uint64_t rows;      /* rows in the block (NULLs included) */
    bool may_match;     /* false: no row of the block passes the filter */
} cf_block_info;

/* Position at row `ord` (as cf_iter_seek_to_ordinal, same errors) and describe
 * the data block holding it; may_match is true without a filter (f == NULL).
 * The next block starts at first_ord + rows. */
CF_API cf_status cf_iter_block_at(cf_iter *it, uint64_t ord, const cf_block_filter *f,
                                  cf_block_info *out, cf_error *err);

#ifdef __cplusplus
}
#endif
#endif
