/* cfile: writing one column to a CFile v2 (magic "kuducfl2"), byte-identical to
 * Apache Kudu's CFileWriter for the same values, options and append calls.
 *
 * Call order:  options_init create (add_metadata)* (append | append_arrays | add_metadata)*
 *              finish? free
 * Metadata added before the first append goes to the header, later metadata to
 * the footer (as Kudu does). A writer's first error is sticky: every later call
 * returns it. `free` without a successful `finish` abandons the output (a file
 * created with cf_writer_create_file never appears).
 *
 * Ownership: cf_writer_create borrows its io (REQUIRES: the io outlives the
 * writer; finish commits it, the caller still frees it); cf_writer_create_file
 * owns its io. Every append copies what it needs before it returns, so the
 * caller's values, slices and bitmaps may be reused at once. The options are
 * copied at create.
 * Threads: a writer belongs to one thread at a time.
 *
 * Errors. Every misuse is refused, never truncated or guessed at, with a
 * one-line message that names the field or argument:
 *   CF_EINVAL  a bad option (at create) or a bad argument (at append): see
 *              each field below and each function's "Errors:".
 *   CF_ESTATE  a call out of order: append/append_arrays/add_metadata after
 *              finish, finish twice.
 *   CF_ENOTSUP a valid option this build cannot honour (codec not built).
 *   CF_ENOMEM, CF_EIO  from allocation and from the io.
 * The first error of any kind is sticky: every later call (append, metadata,
 * finish) returns the same status again, with the message "cfile writer: an
 * earlier call failed: <the first message>" (every writer of the library
 * replays its first failure this way), and the output is abandoned on free.
 * That includes misuse: an append after a successful finish is CF_ESTATE, and
 * from then on so is everything else.
 */
#ifndef CFILE_WRITER_H
#define CFILE_WRITER_H

#include "io.h"
#include "status.h"
#include "types.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct cf_writer cf_writer;

#define CF_WRITER_OPTIONS_VERSION 1
#define CF_MIN_BLOCK_SIZE 512u
#define CF_DEFAULT_BLOCK_SIZE 262144u
#define CF_DEFAULT_INDEX_BLOCK_SIZE 32768u
#define CF_DEFAULT_RESTART_INTERVAL 16u
/* Kudu stores array element counts as u16. */
#define CF_MAX_ARRAY_ELEMS 65535u

/* Each field's limits; a value outside them makes create fail with CF_EINVAL
 * and a message naming the field ("option block_size: ..."). */
typedef struct cf_writer_options {
    uint32_t version;           /* CF_WRITER_OPTIONS_VERSION, set by _init; any
                                 * other value: CF_EINVAL ("version") */
    cf_type type;               /* column type (element type for arrays); not
                                 * one of cf_type's values: CF_EINVAL */
    cf_encoding encoding;       /* AUTO = Kudu's default for the type; a pair Kudu
                                 * does not allow resolves to that default too (as
                                 * Kudu does). GROUP_VARINT is read-only: CF_EINVAL.
                                 * Not one of cf_encoding's values: CF_EINVAL. */
    cf_compression compression; /* DEFAULT = NONE. Not one of cf_compression's
                                 * values: CF_EINVAL; a codec not built in:
                                 * CF_ENOTSUP */
    bool nullable;              /* rows may be NULL (nullable data blocks) */
    bool is_array;              /* one-dimensional arrays of `type` */
    bool write_posidx;          /* positional B-tree (default true) */
    bool write_validx;          /* value B-tree; values must be appended sorted.
                                 * CF_EINVAL for FLOAT, DOUBLE and BOOL (no key
                                 * order) and for array columns. */
    bool checksums;             /* CRC-32C on header, blocks, footer (default true) */
    bool optimize_index_keys;   /* shorten value-index keys (default true) */
    uint32_t block_size;        /* bytes; 0 = 256 KiB; below 512 is raised to 512;
                                 * above 16 MiB (CF_DEFAULT_MAX_BLOCK_LEN, the
                                 * readers' limit): CF_EINVAL */
    uint32_t index_block_size;  /* bytes; 0 = 32 KiB; else [64, 16 MiB], outside:
                                 * CF_EINVAL */
    uint32_t restart_interval;  /* PREFIX restart interval; 0 = 16; above 65536:
                                 * CF_EINVAL */
} cf_writer_options;

/* Fill opts with Kudu's defaults for `type`. */
CF_API void cf_writer_options_init(cf_writer_options *opts, cf_type type);

/* Start a writer on `io` (borrowed: it must outlive the writer; the writer
 * appends and, on finish, commits it). Options are validated; a bad one is
 * CF_EINVAL naming the field. opts == NULL is invalid (the type is required).
 * Errors: CF_EINVAL (opts NULL, a bad option, io NULL or not writable),
 * CF_ENOTSUP (codec or encoding not built), CF_ENOMEM. On failure *out = NULL. */
CF_API cf_status cf_writer_create(cf_writer **out, cf_io *io, const cf_writer_options *opts,
                                  cf_error *err);
/* Same, creating `path` atomically; the writer owns its io. Bytes go to a
 * temporary "<path>.tmp.<pid>.<random>" until finish renames it (io.h), so a
 * process killed at any moment leaves `path` absent or complete, never partial;
 * the temporary file of a killed process stays behind (nothing removes it; it
 * never has the target's name). Errors: as cf_writer_create, plus CF_EINVAL for
 * a NULL or empty path and CF_EIO when the temporary file cannot be created.
 * Bad options leave nothing behind. */
CF_API cf_status cf_writer_create_file(cf_writer **out, const char *path,
                                       const cf_writer_options *opts, cf_error *err);

/* Add a key/value pair. Before the first append it goes to the header, after it
 * to the footer. Order and duplicates are kept.
 * Errors: CF_EINVAL (key NULL, or value NULL with value_len > 0), CF_ESTATE
 * (after finish); a header or footer over 64 KiB fails at the first append or
 * at finish with CF_EINVAL. */
CF_API cf_status cf_writer_add_metadata(cf_writer *w, const char *key, const void *value,
                                        size_t value_len, cf_error *err);

/* Append `count` rows in one call (one Kudu append call: block boundaries of
 * PLAIN, RLE and BOOL columns depend on how rows are grouped into calls).
 *   values:  `count` values, row-aligned, of cf_type_size(type) bytes each
 *            (cf_slice for binary types, uint8_t 0/1 for BOOL). Slots of NULL
 *            rows are ignored.
 *   nonnull: bitmap, bit i (LSB-first) set = row i present; NULL = all present.
 *            Must be NULL-free (all set) unless the column is nullable.
 * With write_validx, values must be non-decreasing across all calls (CF_EINVAL if
 * not, naming the row) and the column should not be nullable (Kudu key columns
 * never are; this is not checked).
 * REQUIRES: values holds count values of cf_type_size(type) bytes each, and
 * nonnull (when given) ceil(count/8) bytes: the width is fixed by the type, and
 * a buffer of another width cannot be detected. BOOL takes one byte per value
 * and any nonzero byte is true.
 * Errors: CF_EINVAL (an array column: use cf_writer_append_arrays; values NULL
 * with count > 0; a NULL row in a column that is not nullable; out of order
 * with write_validx; more than 2^32-1 rows in the file), CF_ESTATE (after
 * finish). count == 0 is a no-op.
 * Not for array columns. */
CF_API cf_status cf_writer_append(cf_writer *w, const void *values, const uint8_t *nonnull,
                                  size_t count, cf_error *err);

/* Append `count` array cells in one call.
 *   elems:        all elements of all cells, flattened, cf_type_size(type) each
 *   elem_nonnull: bitmap over the flattened elements (NULL = all present)
 *   elem_counts:  number of elements of each cell (0 for NULL and empty cells),
 *                 at most CF_MAX_ARRAY_ELEMS (CF_EINVAL otherwise)
 *   cell_nonnull: bitmap over the cells (NULL = no NULL cell)
 * The whole call is validated before anything is added.
 * Errors: CF_EINVAL (not an array column: use cf_writer_append; elem_counts
 * NULL with count > 0; elems NULL while some cell has elements; a cell over
 * CF_MAX_ARRAY_ELEMS elements, which Kudu would silently truncate to 16 bits;
 * a NULL cell with a nonzero count; a NULL cell in a column that is not
 * nullable), CF_ESTATE (after finish). */
CF_API cf_status cf_writer_append_arrays(cf_writer *w, const void *elems,
                                         const uint8_t *elem_nonnull, const uint32_t *elem_counts,
                                         const uint8_t *cell_nonnull, size_t count, cf_error *err);

/* Flush the last block, the indexes, the dictionary and the footer; commit.
 * Errors: CF_ESTATE (called twice), the writer's sticky first error, CF_EIO
 * from the io's write, fsync or rename. */
CF_API cf_status cf_writer_finish(cf_writer *w, cf_error *err);

/* Rows appended so far. */
CF_API uint64_t cf_writer_num_values(const cf_writer *w);
/* The options after resolution (AUTO encoding, DEFAULT compression, sizes). */
CF_API const cf_writer_options *cf_writer_resolved_options(const cf_writer *w);

/* NULL is a no-op. Without finish, abandons the output. */
CF_API void cf_writer_free(cf_writer *w);

#ifdef __cplusplus
}
#endif
#endif
