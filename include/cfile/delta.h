/* cfile: Kudu DeltaFiles (format §12): row mutations of one DiskRowSet stored as a
 * CFile of BINARY values, each value = DeltaKey (row ordinal + MVCC timestamp) ||
 * RowChangeList (UPDATE / DELETE / REINSERT). Written byte-identical to Kudu's
 * DeltaFileWriter (statistics metadata "deltafilestats" included); read back by
 * iterating all deltas, seeking to a row through the value index, and applying
 * the deltas visible at a snapshot to a batch of base column values.
 *
 * Call orders:
 *   rcl builder:  create (reset add* bytes?)* free
 *   writer:       options_init? create append+ finish? free   (an empty file cannot be finished)
 *   reader:       open (stats | cfile | iter_create | apply_create)* free
 *   iter:         create ((seek_to_first | seek_to_row) next_batch*)* free
 *   apply:        create (seek (prepare apply_updates* apply_deletes?)*)* free
 *
 * Ownership: writers and readers borrow the io they are given (REQUIRES: it
 * outlives them; the writer's finish commits it); the *_file variants own
 * theirs. append copies the change list. Iterators and appliers borrow their
 * reader, and an applier its column array (REQUIRES: reader > its iterators
 * and appliers; cols > applier). Statistics, the CFile reader and the views
 * a call hands out point into the handle that made them: cf_delta values until
 * the iterator's next call, applied binary slices until the applier's next
 * prepare, cf_rcl_builder_bytes until the builder's next call.
 *
 * Threads: a reader is immutable once open and shareable; builders, writers,
 * iterators and appliers belong to one thread at a time.
 */
#ifndef CFILE_DELTA_H
#define CFILE_DELTA_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "io.h"
#include "reader.h"
#include "status.h"
#include "types.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Which history a file holds. Not stored in the file (Kudu keeps it in the
 * rowset metadata), so readers are told. */
typedef enum cf_delta_type { CF_DELTA_REDO = 0, CF_DELTA_UNDO = 1 } cf_delta_type;

/* RowChangeList types, Kudu's values (format §12.3). */
typedef enum cf_rcl_type { CF_RCL_UPDATE = 1, CF_RCL_DELETE = 2, CF_RCL_REINSERT = 3 } cf_rcl_type;

/* The footer metadata key of the statistics (format §12.4). */
#define CF_DELTA_STATS_KEY "deltafilestats"
/* Kudu's --deltafile_default_block_size. */
#define CF_DELTA_DEFAULT_BLOCK_SIZE 32768u
/* Longest encoded DeltaKey: two 9-byte memcomparable varints. */
#define CF_DELTA_KEY_MAX 18u

/* ---- memcomparable varint and DeltaKey (format §1.5, §12.2) ------------------------ */

#ifdef CF_STATIC_LINKING_ONLY /* not exported by libcfile.so: status.h */
/* Write v in 1..9 bytes to dst (room for 9); returns the length. */
CF_STATIC_API size_t cf_mcvarint_encode(uint8_t *dst, uint64_t v);
/* Read one value from [p, p+len); returns the bytes used, 0 when truncated. */
CF_STATIC_API size_t cf_mcvarint_decode(const uint8_t *p, size_t len, uint64_t *out);

/* Encode (row, ts) into dst (room for CF_DELTA_KEY_MAX); returns the length. */
CF_STATIC_API size_t cf_delta_key_encode(uint8_t *dst, uint32_t row, uint64_t ts);
/* Decode a DeltaKey prefix of [p, p+len): *used = its length. CF_ECORRUPT when
 * truncated or when the row does not fit in 32 bits. */
CF_STATIC_API cf_status cf_delta_key_decode(const uint8_t *p, size_t len, uint32_t *row,
                                            uint64_t *ts, size_t *used, cf_error *err);
#endif /* CF_STATIC_LINKING_ONLY */

/* ---- schema ------------------------------------------------------------------------ */

/* One column as a RowChangeList sees it. */
typedef struct cf_delta_column {
    uint32_t id;      /* the stable column id written into change lists */
    const char *name; /* borrowed; for messages and output */
    cf_type type;
    bool nullable;
    bool is_key;          /* key columns are never in a REINSERT */
    int precision, scale; /* DECIMAL*: for messages only */
    int length;           /* VARCHAR: for messages only */
} cf_delta_column;

#ifdef CF_STATIC_LINKING_ONLY /* not exported by libcfile.so: status.h */
/* Index of the column with `id`, or -1. */
CF_STATIC_API int cf_delta_schema_find(const cf_delta_column *cols, size_t ncols, uint32_t id);
#endif /* CF_STATIC_LINKING_ONLY */

/* ---- RowChangeList ----------------------------------------------------------------- */

typedef struct cf_rcl_builder cf_rcl_builder;

/* Call order:  create (reset add*)* free */
CF_API cf_status cf_rcl_builder_create(cf_rcl_builder **out, cf_error *err);
CF_API void cf_rcl_builder_free(cf_rcl_builder *b); /* NULL is a no-op */
/* Start a new list of `type`. DELETE takes no column changes. */
CF_API void cf_rcl_builder_reset(cf_rcl_builder *b, cf_rcl_type type);
/* Add one column change: `value` = `len` raw bytes (the in-memory little-endian
 * form for fixed-width types, the bytes for binary types), or NULL = set to NULL.
 * REQUIRES: reset to UPDATE or REINSERT first (else CF_ESTATE: a DELETE list, or
 * a builder never reset). CF_ENOMEM. */
CF_API cf_status cf_rcl_builder_add(cf_rcl_builder *b, uint32_t col_id, const void *value,
                                    size_t len, cf_error *err);
/* The encoded list, valid until the next call on b. */
CF_API cf_slice cf_rcl_builder_bytes(const cf_rcl_builder *b);

/* A caller-allocated decoder over a borrowed RowChangeList (no allocation). */
typedef struct cf_rcl_decoder {
    cf_rcl_type type;
    const uint8_t *p, *end; /* what is left to decode */
} cf_rcl_decoder;

/* One decoded column change: `value` points into the list. */
typedef struct cf_rcl_change {
    uint32_t col_id;
    bool is_null;
    cf_slice value;
} cf_rcl_change;

/* Read the type byte. CF_ECORRUPT (with Kudu's message) for an empty list, a type
 * that is not 1..3, a DELETE longer than one byte, an UPDATE with no change. */
CF_API cf_status cf_rcl_decoder_init(cf_rcl_decoder *d, cf_slice rcl, cf_error *err);
CF_API bool cf_rcl_decoder_has_next(const cf_rcl_decoder *d);
/* Decode the next change. CF_ECORRUPT when a varint or a value overruns the list. */
CF_API cf_status cf_rcl_decoder_next(cf_rcl_decoder *d, cf_rcl_change *out, cf_error *err);
/* Check a change against a schema (Kudu's DecodedUpdate::Validate): *col_idx =
 * the column's index or -1 when the id is not in the schema (not an error: a
 * dropped column). CF_ECORRUPT for NULL in a non-nullable column or a
 * fixed-width value of the wrong size. */
CF_API cf_status cf_rcl_change_validate(const cf_rcl_change *c, const cf_delta_column *cols,
                                        size_t ncols, int *col_idx, cf_error *err);

/* ---- array cells (format §12.3, docs/SPEC-NOTES.md D.2) ------------------------------ */

/* cf_array_cell, a cell to encode, is in types.h. */

/* The value of an array column inside a RowChangeList is a serialized FlatBuffers
 * `Content` table (Kudu's common/serdes/array1d.fbs): a union of typed vectors
 * plus an optional validity bitmap. Every element type but INT128/DECIMAL128 can
 * be stored (Kudu has no vector for them: CF_ENOTSUP). */

#ifdef CF_STATIC_LINKING_ONLY /* not exported by libcfile.so: status.h */
/* Largest number of bytes cf_array_cell_encode can produce for `cell`. */
CF_STATIC_API size_t cf_array_cell_encoded_max(const cf_array_cell *cell);
/* Serialize `cell` into dst[0..cap) the way Kudu's FlatBufferBuilder lays it out
 * (same object order, alignment and vtable sharing); *len = its length. NULL
 * elements are written as 0 bytes of value (the caller's slot is ignored) or
 * empty strings. CF_EINVAL for more than 65535 elements, CF_ENOTSUP for
 * INT128/DECIMAL128 elements, CF_EBUFSIZE when cap is too small, CF_ENOMEM. */
CF_STATIC_API cf_status cf_array_cell_encode(uint8_t *dst, size_t cap, size_t *len,
                                             const cf_array_cell *cell, cf_error *err);
#endif /* CF_STATIC_LINKING_ONLY */

/* A decoded cell: a view into the serialized bytes, checked once by decode. */
typedef struct cf_array_cell_view {
    cf_type type;
    size_t count;            /* elements, NULL ones included */
    bool has_nulls;          /* some validity bit of [0, count) is 0 */
    const uint8_t *validity; /* (count + 7) / 8 bytes, or NULL when not stored */
    const uint8_t *elems;    /* the vector's first element (values, or offsets for
                              * binary types); not aligned for the element type */
} cf_array_cell_view;

#ifdef CF_STATIC_LINKING_ONLY /* not exported by libcfile.so: status.h */
/* Check and view `bytes` as a cell of `type` elements. 0 bytes is an empty array
 * (Kudu accepts it). CF_ECORRUPT for anything out of bounds, misaligned, a
 * string without its terminator, a vector of another element type, or a
 * validity bitmap whose size does not match the element count; CF_ENOTSUP for
 * INT128/DECIMAL128. */
CF_STATIC_API cf_status cf_array_cell_decode(cf_array_cell_view *out, cf_slice bytes, cf_type type,
                                             cf_error *err);
/* Whether element i (< count) is NULL. */
CF_STATIC_API bool cf_array_cell_is_null(const cf_array_cell_view *v, size_t i);
/* Element i (< count) into `out`: cf_type_size(type) bytes for fixed types
 * (BOOL as 0/1), a cf_slice into the serialized bytes for binary types. A NULL
 * element reads as whatever was stored (zeros or an empty string from us). */
CF_STATIC_API void cf_array_cell_get(const cf_array_cell_view *v, size_t i, void *out);
#endif /* CF_STATIC_LINKING_ONLY */

/* ---- statistics (format §12.4) ----------------------------------------------------- */

typedef struct cf_delta_col_stat {
    uint32_t col_id;
    int64_t update_count;
} cf_delta_col_stat;

typedef struct cf_delta_stats {
    int64_t delete_count;
    int64_t reinsert_count;
    uint64_t min_ts, max_ts;
    size_t ncols;
    const cf_delta_col_stat *cols; /* in stored (serialized) order */
} cf_delta_stats;

/* ---- writer -------------------------------------------------------------------------- */

typedef struct cf_delta_writer cf_delta_writer;

#define CF_DELTA_WRITER_OPTIONS_VERSION 1

typedef struct cf_delta_writer_options {
    uint32_t version;           /* set by _init */
    cf_delta_type type;         /* decides the order check (default REDO) */
    cf_compression compression; /* default LZ4 (Kudu's deltafile codec flag) */
    uint32_t block_size;        /* default 32 KiB; below 512 is raised to 512 */
    bool checksums;             /* default true */
    bool write_stats;           /* write "deltafilestats" (default true) */
    bool check_order;           /* refuse out-of-order deltas (default true) */
} cf_delta_writer_options;

CF_API void cf_delta_writer_options_init(cf_delta_writer_options *opts);

/* Start a DeltaFile on `io` (borrowed). opts NULL = defaults. */
CF_API cf_status cf_delta_writer_create(cf_delta_writer **out, cf_io *io,
                                        const cf_delta_writer_options *opts, cf_error *err);
/* Same, creating `path` atomically. */
CF_API cf_status cf_delta_writer_create_file(cf_delta_writer **out, const char *path,
                                             const cf_delta_writer_options *opts, cf_error *err);
/* Append one delta. REQUIRES (with check_order) REDO: (row, ts) non-decreasing;
 * UNDO: row non-decreasing, ts non-increasing within a row; CF_EINVAL otherwise.
 * With write_stats the list is decoded for the statistics: CF_ECORRUPT when it
 * is not a valid RowChangeList. Errors are sticky. */
CF_API cf_status cf_delta_writer_append(cf_delta_writer *w, uint32_t row, uint64_t ts, cf_slice rcl,
                                        cf_error *err);
/* Write the statistics and finish the file. CF_ESTATE with no delta appended
 * (Kudu refuses to write an empty DeltaFile). */
CF_API cf_status cf_delta_writer_finish(cf_delta_writer *w, cf_error *err);
CF_API void cf_delta_writer_free(cf_delta_writer *w); /* NULL is a no-op */

/* ---- reader -------------------------------------------------------------------------- */

typedef struct cf_delta_reader cf_delta_reader;

/* Open a DeltaFile on `io` (borrowed: it must outlive the reader). CF_ENOTSUP
 * when the CFile has no value index. Missing or bad statistics do not fail the
 * open (the deltas stay readable); cf_delta_reader_stats reports them. */
CF_API cf_status cf_delta_reader_open(cf_delta_reader **out, cf_io *io, cf_delta_type type,
                                      const cf_reader_options *opts, cf_error *err);
CF_API cf_status cf_delta_reader_open_file(cf_delta_reader **out, const char *path,
                                           cf_delta_type type, const cf_reader_options *opts,
                                           cf_error *err);
/* NULL is a no-op. REQUIRES: every iterator and applier made on r has been freed. */
CF_API void cf_delta_reader_free(cf_delta_reader *r);
/* The underlying CFile reader (owned by r). */
CF_API const cf_reader *cf_delta_reader_cfile(const cf_delta_reader *r);
CF_API cf_delta_type cf_delta_reader_type(const cf_delta_reader *r);
/* The statistics (owned by r). CF_ENOTSUP "missing delta stats from the delta
 * file metadata", or CF_ECORRUPT when they do not parse. */
CF_API cf_status cf_delta_reader_stats(const cf_delta_reader *r, const cf_delta_stats **out,
                                       cf_error *err);

/* ---- iterating over the deltas ----------------------------------------------------- */

typedef struct cf_delta_iter cf_delta_iter;

/* One delta as a view into the iterator (valid until its next call). */
typedef struct cf_delta {
    uint32_t row;
    uint64_t ts;
    cf_slice key; /* the encoded DeltaKey */
    cf_slice rcl; /* the RowChangeList bytes (not validated) */
} cf_delta;

CF_API cf_status cf_delta_iter_create(cf_delta_iter **out, const cf_delta_reader *r, cf_error *err);
CF_API void cf_delta_iter_free(cf_delta_iter *it); /* NULL is a no-op */
CF_API cf_status cf_delta_iter_seek_to_first(cf_delta_iter *it, cf_error *err);
/* Position at the first delta of a row >= row, through the value index (format
 * §12.5). Deltas of earlier rows are skipped by next_batch. */
CF_API cf_status cf_delta_iter_seek_to_row(cf_delta_iter *it, uint32_t row, cf_error *err);
/* Up to cap deltas in file order; *n = 0 at the end. CF_ECORRUPT for a value
 * whose DeltaKey does not decode. */
CF_API cf_status cf_delta_iter_next_batch(cf_delta_iter *it, cf_delta *out, size_t cap, size_t *n,
                                          cf_error *err);

/* ---- applying deltas at a snapshot --------------------------------------------------- */

typedef struct cf_delta_apply cf_delta_apply;

/* An applier for `cols` (borrowed; must outlive it) as of MVCC snapshot `snapshot`:
 * ops with ts < snapshot are committed. REDO files apply deltas with ts < snapshot
 * (forward), UNDO files undo deltas with ts >= snapshot (backward).
 * *culled = true when the statistics show that no delta can matter (Kudu's
 * NewDeltaIterator NotFound); the applier then changes nothing. Needs the
 * statistics: their error otherwise. */
CF_API cf_status cf_delta_apply_create(cf_delta_apply **out, const cf_delta_reader *r,
                                       const cf_delta_column *cols, size_t ncols, uint64_t snapshot,
                                       bool *culled, cf_error *err);
CF_API void cf_delta_apply_free(cf_delta_apply *a); /* NULL is a no-op */
/* The next prepare starts at `row`. */
CF_API cf_status cf_delta_apply_seek(cf_delta_apply *a, uint32_t row, cf_error *err);
/* Collect the visible deltas of the next nrows rows. REQUIRES: nrows > 0 (else
 * CF_EINVAL). CF_ECORRUPT for a bad change list among them. */
CF_API cf_status cf_delta_apply_prepare(cf_delta_apply *a, size_t nrows, cf_error *err);
/* Overwrite the prepared rows of column `col` in caller buffers: values
 * (nrows * cf_type_size; binary slices then point into the applier and live
 * until the next prepare) and nonnull (bit per row; may be NULL for a
 * non-nullable column).
 * REQUIRES: prepare first (else CF_ESTATE); col < ncols (else CF_EINVAL); values
 * holds the prepared nrows values and nonnull, when given, ceil(nrows/8) bytes;
 * nonnull given for a nullable column (else CF_EINVAL naming the column, even
 * when no update in the batch sets NULL: without the bitmap an update to NULL
 * would zero the value and leave the row reading as present). */
CF_API cf_status cf_delta_apply_updates(cf_delta_apply *a, size_t col, void *values,
                                        uint8_t *nonnull, cf_error *err);
/* Clear the bit of every prepared row that ends deleted, set it for rows that
 * end reinserted (a DELETE and a REINSERT in one batch cancel).
 * REQUIRES: prepare first (else CF_ESTATE); selected holds ceil(nrows/8) bytes. */
CF_API cf_status cf_delta_apply_deletes(cf_delta_apply *a, uint8_t *selected, cf_error *err);

#ifdef __cplusplus
}
#endif
#endif
