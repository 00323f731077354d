/* cfile: exporting batches through the Apache Arrow C Data Interface.
 *
 * The two structs below are Arrow's published, stable C ABI
 * (https://arrow.apache.org/docs/format/CDataInterface.html), declared here so
 * that no Arrow library is needed; any consumer (pyarrow's _import_from_c,
 * arrow-rs FFI, nanoarrow, DuckDB) can take the result.
 *
 * Type mapping (column type -> Arrow format string):
 *   INT8 "c"  INT16 "s"  INT32 "i"  INT64 "l"  UINT8 "C"  UINT16 "S"  UINT32 "I"  UINT64 "L"
 *   FLOAT "f"  DOUBLE "g"  BOOL "b" (bit-packed)
 *   STRING, VARCHAR "u" (utf8, int32 offsets) or "U" (large_utf8, int64 offsets);
 *                   as BINARY ("z"/"Z") with cf_arrow_options.utf8 = CF_ARROW_UTF8_BINARY
 *   BINARY "z" (binary, int32 offsets) or "Z" (large_binary, int64 offsets)
 *   UNIXTIME_MICROS "tsu:" (timestamp[us], optionally "tsu:<timezone>")
 *   DATE "tdD" (date32)
 *   DECIMAL32/64/128 "d:P,S" (decimal128; 32/64-bit values sign-extended to
 *                    16 bytes), or with native_decimal_widths "d:P,S,32" / "d:P,S,64"
 *   INT128 "d:38,0" (decimal128)
 *   array columns "+l" (list, int32 offsets) with one child "item" of the element type
 * Validity bitmaps come from the cfile non-null bitmaps (both are LSB-first).
 *
 * Call order:
 *   one column:  options_init? schema? (iter_next_arrow)*      over an iterator (iter.h)
 *   streams:     stream_* (get_schema | get_next)* release     (ArrowArrayStream)
 *
 * Ownership: every exported ArrowArray / ArrowSchema owns what its release
 * callback frees and nothing else; children are self-contained, so a consumer
 * may move a child out (copy the struct, mark the original released) and the
 * parent's release then skips it. Buffers are copies owned by the array, except
 * zero-copy buffers (see cf_arrow_options.lender) that point into the caller's
 * io: those must stay valid (io and reader alive) until the array is released.
 *
 * A stream borrows its source (readers, table, HFile, Parquet file):
 * REQUIRES: the source stays open, and unchanged, until the stream is released.
 *
 * Threads: the export calls follow the iterator's rules (one thread at a time);
 * an exported array is independent of the iterator and may move to any thread.
 * A stream is used by one thread at a time.
 *
 * STRING and VARCHAR hold bytes that Kudu never checks, while Arrow's utf8 type
 * promises valid UTF-8 (consumers such as DuckDB reject anything else). The rule
 * (cf_arrow_options.utf8): by default every STRING/VARCHAR value is validated
 * (strict UTF-8: no overlong forms, surrogates or code points above U+10FFFF) as
 * it is exported, and the first invalid one fails the batch with CF_ENOTSUP
 * naming the column, the row and the byte; nothing invalid is ever exported as
 * utf8. CF_ARROW_UTF8_BINARY exports those columns as binary instead (no check,
 * every byte kept). The type never changes between the batches of one export,
 * which is what a stream's one schema needs.
 *
 * Streams (the Arrow C Stream Interface, at the end of this file) carry record
 * batches: a struct array ("+s") with one child per column, as every Arrow
 * consumer expects of a table.
 */
#ifndef CFILE_ARROW_H
#define CFILE_ARROW_H

#include <stdint.h>

#include "io.h"
#include "iter.h"
#include "reader.h"
#include "status.h"
#include "version.h" /* CF_HAVE_*: the streams of modules left out are not declared */

#ifdef __cplusplus
extern "C" {
#endif

/* ---- the Arrow C Data Interface ABI (do not change: it is Arrow's) --------------------- */
#ifndef ARROW_C_DATA_INTERFACE
#define ARROW_C_DATA_INTERFACE

#define ARROW_FLAG_DICTIONARY_ORDERED 1
#define ARROW_FLAG_NULLABLE 2
#define ARROW_FLAG_MAP_KEYS_SORTED 4

struct ArrowSchema {
    /* Array type description */
    const char *format;
    const char *name;
    const char *metadata;
    int64_t flags;
    int64_t n_children;
    struct ArrowSchema **children;
    struct ArrowSchema *dictionary;

    /* Release callback */
    void (*release)(struct ArrowSchema *);
    /* Opaque producer-specific data */
    void *private_data;
};

struct ArrowArray {
    /* Array data description */
    int64_t length;
    int64_t null_count;
    int64_t offset;
    int64_t n_buffers;
    int64_t n_children;
    const void **buffers;
    struct ArrowArray **children;
    struct ArrowArray *dictionary;

    /* Release callback */
    void (*release)(struct ArrowArray *);
    /* Opaque producer-specific data */
    void *private_data;
};

#endif /* ARROW_C_DATA_INTERFACE */

/* ---- the Arrow C Stream Interface ABI (do not change: it is Arrow's) ------------------- */
#ifndef ARROW_C_STREAM_INTERFACE
#define ARROW_C_STREAM_INTERFACE

struct ArrowArrayStream {
    /* errno-compatible codes: 0 ok, else EINVAL, ENOMEM, EIO, ENOSYS */
    int (*get_schema)(struct ArrowArrayStream *, struct ArrowSchema *out);
    int (*get_next)(struct ArrowArrayStream *, struct ArrowArray *out);
    const char *(*get_last_error)(struct ArrowArrayStream *);
    void (*release)(struct ArrowArrayStream *);
    void *private_data;
};

#endif /* ARROW_C_STREAM_INTERFACE */

/* ---- options --------------------------------------------------------------------------- */

#define CF_ARROW_OPTIONS_VERSION 1

typedef struct cf_arrow_options {
    uint32_t version; /* CF_ARROW_OPTIONS_VERSION, set by _init */
    /* Name of the top-level field (copied); NULL = "". */
    const char *name;
    /* Decimal precision for DECIMAL32/64/128: 0 = the type's maximum (9, 18, 38).
     * Must be 1..38, and at most 9 / 18 for native DECIMAL32 / DECIMAL64 widths. */
    int32_t decimal_precision;
    /* Decimal scale: 0 by default; must not exceed the precision (negative
     * scales are allowed by Arrow and passed through). */
    int32_t decimal_scale;
    /* Export DECIMAL32/DECIMAL64 as "d:P,S,32" / "d:P,S,64" with 4/8-byte values
     * (newer Arrow only) instead of widening to decimal128. Default false. */
    bool native_decimal_widths;
    /* Always use int64 offsets for STRING/VARCHAR/BINARY ("U"/"Z"). Default false:
     * int32 offsets ("u"/"z"), switching to int64 for a batch whose bytes do not
     * fit int32 offsets (that batch's schema then says "U"/"Z"). */
    bool large_binary;
    /* Timezone for UNIXTIME_MICROS ("UTC", "+01:00"); NULL = none ("tsu:"). */
    const char *timezone;
    /* Zero copy: the io the reader reads from (may be NULL). When it lends its
     * bytes for its whole life (view_at != NULL: memory and mmap ios), a batch of
     * fixed-width values that the iterator serves in place from that io (PLAIN or
     * other in-place layouts, not nullable, not arrays, Arrow layout identical)
     * is exported by reference instead of copied. The caller must then keep the
     * io (and with it the reader's bytes) alive until the array is released.
     * Only bytes inside this io's lent range are ever referenced, so any other
     * io is safe (it just yields copies). */
    cf_io *lender;
    /* Zero copy from the reader's own io (cf_reader_io) when lender is NULL: for
     * readers over memory or mmap (cf_reader_open_file with mmap = true). The
     * reader must then outlive the exported arrays. Default false (copies). */
    bool zero_copy;
    /* STRING/VARCHAR bytes (see the top of this file): CF_ARROW_UTF8_CHECK
     * (default) exports utf8 and fails on the first value that is not UTF-8;
     * CF_ARROW_UTF8_BINARY exports binary. */
    int utf8;
    /* Streams only: rows per record batch (the last one may hold fewer, a
     * filtered table scan fewer too); 0 = CF_ARROW_BATCH_ROWS. */
    size_t batch_rows;
    /* New fields go at the end (each with its default set by _init). */
} cf_arrow_options;

enum { CF_ARROW_UTF8_CHECK = 0, CF_ARROW_UTF8_BINARY = 1 };
#define CF_ARROW_BATCH_ROWS ((size_t)65536)

/* Fill opts with the defaults above. */
CF_API void cf_arrow_options_init(cf_arrow_options *opts);

/* ---- export ---------------------------------------------------------------------------- */

/* The Arrow schema of the reader's column (as cf_iter_next_arrow exports it,
 * except for the int64-offset switch described at large_binary).
 *   r:    the reader.
 *   opts: may be NULL (defaults).
 *   out:  filled with a schema the caller owns; call out->release(out) when done.
 * Errors: CF_EINVAL (bad option, named in err), CF_ENOTSUP (no Arrow mapping),
 * CF_ENOMEM. On error *out is marked released (out->release == NULL). */
CF_API cf_status cf_arrow_schema(const cf_reader *r, const cf_arrow_options *opts,
                                 struct ArrowSchema *out, cf_error *err);

/* Read up to max_rows rows from the iterator's position (one cf_iter_next_batch,
 * so fewer at a block boundary) and export them as an Arrow array.
 *   it:      the iterator.
 *   opts:    may be NULL (defaults).
 * REQUIRES: the same options for every batch of one scan (the schema must not
 * change between batches; this is not checked).
 *   out:     filled with an array the caller owns; call out->release(out) when done.
 *            At the end of the data: CF_OK with out marked released
 *            (out->release == NULL), as Arrow's stream interface signals the end.
 *   schema:  may be NULL; otherwise filled (when a batch was exported) with the
 *            batch's schema, which the caller also releases.
 * The exported array does not depend on the iterator: it stays valid after later
 * calls and after cf_iter_free (zero-copy buffers excepted: see `lender` and `zero_copy`).
 * Errors: the iterator's (CF_ECORRUPT, CF_EIO, ...), CF_EINVAL (bad option),
 * CF_ENOTSUP (no Arrow mapping), CF_ENOMEM. On error out (and schema) are marked
 * released, and the rows of the failed batch may have been consumed. */
CF_API cf_status cf_iter_next_arrow(cf_iter *it, size_t max_rows, const cf_arrow_options *opts,
                                    struct ArrowArray *out, struct ArrowSchema *schema,
                                    cf_error *err);

/* ---- streams: the Arrow C Stream Interface ------------------------------------------------
 *
 * Each function below fills *out with a stream of record batches and returns
 * CF_OK, or returns an error (named in err) with out->release == NULL. Then:
 *   out->get_schema(out, &schema)  the schema: a struct ("+s", name "") with one
 *                                  child per column, in order; callable any time,
 *                                  each call gives a new copy the caller releases.
 *   out->get_next(out, &array)     the next record batch: a struct array of
 *                                  `length` rows, no nulls of its own, children as
 *                                  the schema says; owned by the caller (release it
 *                                  when done; it does not depend on the stream or
 *                                  its source and may outlive both). At the end:
 *                                  0 with array.release == NULL.
 *   out->get_last_error(out)       after a non-zero return, what failed ("corruption:
 *                                  block 3 at offset ...": cf_status_str, then the
 *                                  message); valid until the next call. NULL if none.
 *   out->release(out)              frees the stream (not the arrays it handed out).
 * Return codes are errno values: ENOSYS (CF_ENOTSUP: something Arrow cannot carry
 * under these options, e.g. STRING bytes that are not UTF-8), ENOMEM, EIO (damage
 * or an I/O error: the source's CF_ECORRUPT / CF_EIO), EINVAL (anything else). An
 * error is final: every later get_next returns it again.
 * Options (opts may be NULL: defaults) are copied; `name`, `lender` and `zero_copy`
 * are ignored (every batch owns copies of its bytes).
 * A stream is used by one thread at a time; the source it reads (readers, table,
 * HFile) is borrowed and must stay open, and unchanged, until it is released. */

/* Rows of n CFiles read side by side: column i is readers[i] under the name
 * names[i] (copied; NULL = "c<i>"). Every reader must hold the same number of
 * rows (CF_EINVAL otherwise, naming both); n is 1..CF_ARROW_MAX_COLUMNS. */
#define CF_ARROW_MAX_COLUMNS 4096u
CF_API cf_status cf_arrow_stream_cfiles(struct ArrowArrayStream *out,
                                        const cf_reader *const *readers, const char *const *names,
                                        size_t n, const cf_arrow_options *opts, cf_error *err);

#if CF_HAVE_TABLES
/* A table scan (rowset.h cf_table_scanner_create with `scan`, which may be NULL:
 * every column, latest snapshot): the projected columns under their names, rows
 * in key order. Decimal columns take the table's precision and scale when the
 * schema records them (else the options'). The table must not change while the
 * stream lives (a scanner's rule). With scan->threads > 1 the scanner's worker
 * threads read the columns during get_next and are joined when the stream is
 * released. */
struct cf_table;
struct cf_scan_options;
CF_API cf_status cf_arrow_stream_table(struct ArrowArrayStream *out, struct cf_table *t,
                                       const struct cf_scan_options *scan,
                                       const cf_arrow_options *opts, cf_error *err);
/* A Kudu tablet's rows (kudu.h's cf_kudu_scanner_create with `scan`, NULL for every
 * column at the latest snapshot), in the same form as a table stream. The tablet
 * (and the fs it came from) must outlive the stream. */
struct cf_kudu_tablet;
struct cf_kudu_scan_options;
CF_API cf_status cf_arrow_stream_kudu_tablet(struct ArrowArrayStream *out, struct cf_kudu_tablet *t,
                                             const struct cf_kudu_scan_options *scan,
                                             const cf_arrow_options *opts, cf_error *err);
/* Every tablet of a Kudu table across servers (kudu.h's cf_kudu_replicas_find), the
 * chosen replicas one after another in partition key order, each scanned with
 * `scan` (NULL: every column, the latest snapshot), as one stream. Each tablet's
 * scanner is made when the stream reaches it, so `scan` and what it points to
 * (cols, preds and their values), the replica set and its servers must outlive the
 * stream. */
struct cf_kudu_replicas;
CF_API cf_status cf_arrow_stream_kudu_replicas(struct ArrowArrayStream *out,
                                               const struct cf_kudu_replicas *r,
                                               const struct cf_kudu_scan_options *scan,
                                               const cf_arrow_options *opts, cf_error *err);
#endif /* CF_HAVE_TABLES */

#if CF_HAVE_HFILE
/* The cells of an HFile in file order, as columns
 *   row binary, family binary, qualifier binary, timestamp int64 (ms, as HBase
 *   stores it), type utf8 ("Put", "Delete", ...; the code in decimal when
 *   unknown), value binary
 * (v1 files, whose keys are opaque: row = the whole key, family and qualifier
 * empty, timestamp and type NULL). */
struct cf_hfile;
CF_API cf_status cf_arrow_stream_hfile(struct ArrowArrayStream *out, const struct cf_hfile *h,
                                       const cf_arrow_options *opts, cf_error *err);
#endif /* CF_HAVE_HFILE */

#if CF_HAVE_PARQUET
/* The rows of a Parquet file (parquet.h cf_parquet_records, with `ro`: NULL =
 * every field, every row, batches of opts->batch_rows) as record batches: one
 * child per top-level field, nested fields as "+s" (struct), "+l" (list) and
 * "+m" (map: "entries" struct of "key", "value"); leaf types as listed at the
 * top of src/arrow/parquet.c (DATE "tdD", TIMESTAMP "ts?:" with "UTC" when
 * adjusted to UTC, INT96 "tsu:", DECIMAL "d:P,S", FLOAT16 "e", STRING "u",
 * other binary "z"/"w:N", the null type "n"). CF_ENOTSUP for a DECIMAL wider
 * than 38 digits; STRING bytes that are not UTF-8 fail the batch (ENOSYS,
 * naming the column), or with opts->utf8 = CF_ARROW_UTF8_BINARY every STRING
 * column goes out as binary "z". pq must stay open until the stream is
 * released. */
struct cf_parquet;
struct cf_parquet_records_options;
CF_API cf_status cf_arrow_stream_parquet(struct ArrowArrayStream *out, const struct cf_parquet *pq,
                                         const struct cf_parquet_records_options *ro,
                                         const cf_arrow_options *opts, cf_error *err);
#endif /* CF_HAVE_PARQUET */

#ifdef __cplusplus
}
#endif
#endif
