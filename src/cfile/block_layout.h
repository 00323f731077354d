/* Internal: the layouts of a data block's logical bytes (format §6), both
 * directions. The writer gathers a nullable or array block's flag and count
 * streams in a cf_block_layout_writer and lays them out in front of the
 * encoded values; the reader parses them back into a cf_block_layout, whose
 * claims are checked before anything is sized by them, and decodes its
 * streams into memory the caller owns (loaded_block.c).
 *
 * 6.1 plain:    encoded
 * 6.2 nullable: varint32 num_rows | varint32 L | RLE_1 row flags (L bytes) | encoded
 * 6.3 array:    varint32 flat_count | varint32 array_count
 *               | varint32 L1 | RLE_1 element flags | varint32 L2 | RLE_16 u16 counts
 *               | varint32 L3 | RLE_1 cell flags | encoded elements
 */
#ifndef CF_CFILE_BLOCK_LAYOUT_H
#define CF_CFILE_BLOCK_LAYOUT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <cfile/types.h>

#include "util/buf.h"
#include "util/error.h"
#include "util/rle.h"

/* Which layout every data block of a file has: the footer decides (§6). */
typedef enum cf_block_layout_kind {
    CF_LAYOUT_PLAIN,    /* §6.1: the encoded values alone */
    CF_LAYOUT_NULLABLE, /* §6.2: row flags, then the present values */
    CF_LAYOUT_ARRAY,    /* §6.3: element flags, counts and cell flags, then the elements */
} cf_block_layout_kind;

static inline cf_block_layout_kind cf_block_layout_kind_of(bool nullable, bool is_array)
{
    return is_array ? CF_LAYOUT_ARRAY : nullable ? CF_LAYOUT_NULLABLE : CF_LAYOUT_PLAIN;
}

/* ---- writing ----------------------------------------------------------------------- */

/* The streams of the block being written, filled as rows are appended.
 * Nullable: one flag per row. Arrays: per cell a flag and its element count,
 * per element a flag. Plain blocks use none of it. */
typedef struct cf_block_layout_writer {
    cf_block_layout_kind kind;
    uint32_t rows;               /* flags put: rows (nullable) or cells (arrays) */
    uint32_t elems;              /* arrays: elements, NULL ones included */
    cf_rle_encoder nonnull;      /* RLE_1: a row's (nullable) or a cell's (arrays) flag */
    cf_rle_encoder elem_nonnull; /* arrays, RLE_1: an element's flag */
    cf_rle_encoder elem_counts;  /* arrays, RLE_16: a cell's element count */
} cf_block_layout_writer;

void cf_block_layout_writer_init(cf_block_layout_writer *w, cf_block_layout_kind kind);
void cf_block_layout_writer_dispose(cf_block_layout_writer *w);
/* Start the next block (keeps memory). */
void cf_block_layout_writer_reset(cf_block_layout_writer *w);

/* Nullable: n rows, all present or all NULL. */
static inline void cf_block_layout_writer_put_rows(cf_block_layout_writer *w, bool present,
                                                   size_t n)
{
    cf_rle_enc_put_run(&w->nonnull, present ? 1 : 0, n);
    w->rows += (uint32_t)n;
}

/* Arrays: one cell of `count` elements (0 when NULL); its elements follow
 * through cf_block_layout_writer_put_elems. */
static inline void cf_block_layout_writer_put_cell(cf_block_layout_writer *w, bool present,
                                                   uint32_t count)
{
    cf_rle_enc_put(&w->nonnull, present ? 1 : 0);
    cf_rle_enc_put(&w->elem_counts, count);
    w->rows++;
}

/* Arrays: n elements of the current cell, all present or all NULL. */
static inline void cf_block_layout_writer_put_elems(cf_block_layout_writer *w, bool present,
                                                    size_t n)
{
    cf_rle_enc_put_run(&w->elem_nonnull, present ? 1 : 0, n);
    w->elems += (uint32_t)n;
}

/* The block's logical bytes: the layout's header and streams, then
 * `encoded`. A plain block is `encoded` itself (*out points at it); other
 * layouts are assembled in `buf` (cleared first), which *out then shows. */
cf_status cf_block_layout_writer_finish(cf_block_layout_writer *w, cf_slice encoded, cf_buf *buf,
                                        cf_slice *out, cf_error *err);

/* ---- reading ----------------------------------------------------------------------- */

/* A data block's logical bytes split into their sections, as views into them.
 * For a plain block only `encoded` is set. */
typedef struct cf_block_layout {
    cf_block_layout_kind kind;
    uint32_t rows;         /* nullable: num_rows; arrays: array_count (cells) */
    uint32_t elems;        /* arrays: flat_count */
    cf_slice nonnull;      /* RLE_1 row flags (nullable) or cell flags (arrays) */
    cf_slice elem_nonnull; /* arrays: RLE_1 element flags */
    cf_slice elem_counts;  /* arrays: RLE_16 element counts */
    cf_slice encoded;      /* the encoding's block (format §8) */
} cf_block_layout;

/* What a block may claim, from the file it is in. */
typedef struct cf_block_layout_limits {
    uint64_t max_rows;      /* the footer's row count */
    size_t max_decoded_len; /* cf_reader_options.max_block_len: the most
                               the decoded flags and counts may take */
} cf_block_layout_limits;

/* Split `data` as a block of layout `kind`. Checks that every section lies
 * inside it and that every count the block claims is bounded by the limits
 * and backed by its stream, so that decoding what it claims is safe (up to
 * the size CF_ENOTSUP refuses). Errors name no block: the caller prefixes
 * which and where. */
cf_status cf_block_layout_parse_headed(cf_block_layout *out, cf_block_layout_kind kind,
                                       cf_slice data, const cf_block_layout_limits *lim,
                                       cf_error *err);
/* Inline for the plain layout, which every load of a plain file takes (a
 * warm seek loads a cached block per seek): nothing to parse there. */
static inline cf_status cf_block_layout_parse(cf_block_layout *out, cf_block_layout_kind kind,
                                              cf_slice data, const cf_block_layout_limits *lim,
                                              cf_error *err)
{
    if (kind != CF_LAYOUT_PLAIN)
        return cf_block_layout_parse_headed(out, kind, data, lim, err);
    out->kind = kind;
    out->encoded = data;
    return CF_OK;
}

/* Nullable: does the row-flag stream hold all of the block's rows? parse
 * checks this only for claims near the decoded-size limit; a caller sizing
 * memory by a large claim checks it first (a repeated run can claim billions
 * of rows in a few bytes). */
bool cf_block_layout_rows_backed(const cf_block_layout *l);

/* Decode the row (nullable) or cell (arrays) flags into bits:
 * cf_bitmap_bytes(l->rows) bytes, zeroed by the caller (bits past the rows
 * stay zero). */
cf_status cf_block_layout_decode_nonnull(const cf_block_layout *l, uint8_t *bits, cf_error *err);

/* Arrays: decode the element flags into bits (cf_bitmap_bytes(l->elems)
 * bytes, zeroed by the caller). */
cf_status cf_block_layout_decode_elem_nonnull(const cf_block_layout *l, uint8_t *bits,
                                              cf_error *err);

/* Arrays: decode the element counts into counts (l->rows entries) and the
 * cells' starts into offsets (l->rows + 1 entries; the last is l->elems:
 * cells are consecutive and the last one ends at flat_count, §6.3). */
cf_status cf_block_layout_decode_cells(const cf_block_layout *l, uint16_t *counts,
                                       uint32_t *offsets, cf_error *err);

#endif
