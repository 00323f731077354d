/* Internal: one data block loaded for reading (loaded_block.c). It owns
 * everything derived from the block's bytes: where the bytes live
 * (cf_block_contents, with its cache pin), the parsed layout (block_layout.h),
 * the decoded row flags with their rank directory (nullable) or the cells'
 * flags, counts and element offsets (arrays), the decoder loaded with the
 * block's values and its seek index, and, for PLAIN, the values in memory
 * form. The iterator (iter.c) decides which block and which rows; this
 * object answers "where in the decoder is row j" and hands out the state. */
#ifndef CF_CFILE_LOADED_BLOCK_H
#define CF_CFILE_LOADED_BLOCK_H

#include "internal.h"
#include "block_layout.h"
#include "util/bitmap.h"

/* A nullable block's decoded row flags and, for each 512-row stretch, how many
 * rows before it are present: positioning at row j then costs one table
 * lookup and a count of at most 511 bits instead of a count from row 0. Kept
 * with a cached block (cf_block_aux.ns) so the next load adopts it. */
#define CF_NULL_RANK_SHIFT 9
typedef struct cf_null_state {
    uint32_t rows, present;
    const uint8_t *bits; /* cf_bitmap_bytes(rows) + 8 bytes, zero past rows */
    uint32_t rank[];     /* (rows >> CF_NULL_RANK_SHIFT) + 1 entries */
} cf_null_state;

typedef struct cf_loaded_block {
    const cf_reader *r;
    cf_block_layout_kind kind; /* the file's (format §6) */
    cf_decoder *dec;           /* holds the block's encoded values once loaded */

    /* valid: `ptr`'s block is fully loaded (bytes, flags, decoder), so
     * loading it again only rewinds the decoder (docs/PERFORMANCE.md). */
    bool valid;
    cf_block_ptr ptr;
    uint64_t first_ord;   /* ordinal of the block's first row */
    uint32_t rows;        /* rows (cells for arrays) */
    uint32_t logical_len; /* for verify's block report: bytes after decompression */
    int dict_mode;        /* for verify's block report: DICT mode word (§8.8), else 0 */

    /* A one-pass scan's: blocks the cache lacks are not added (cf_iter_set_fill_cache). */
    bool no_fill;
    cf_block_contents contents; /* contents.pin holds the block in the reader's cache */
    cf_buf scratch;             /* the bytes when read or decompressed (IN_SCRATCH) */
    cf_block_layout layout;     /* views into contents.data */
    /* The decoder's seek index (cf_loaded_block_use_seek_index), a cache
     * entry of its own; NULL when it has none. */
    cf_cache_entry *seek_pin;

    /* PLAIN, not nullable, not array: the values in memory form (aligned for
     * the type), so batches are served without decoder calls; else NULL. */
    const uint8_t *flat;
    /* Nullable (not array): the row flags, in ns_own or adopted from the
     * cached block (cf_block_aux). */
    const cf_null_state *ns;
    cf_buf ns_own;
    /* Arrays: cf_bitmap_bytes + 8 flag bytes each; u16 counts per cell; u32
     * start of each cell plus the end (elems). */
    cf_buf cell_nonnull, elem_nonnull, counts, offsets;
} cf_loaded_block;

/* A block that is not loaded, with a decoder for r's encoding. */
cf_status cf_loaded_block_init(cf_loaded_block *b, const cf_reader *r, cf_error *err);
void cf_loaded_block_dispose(cf_loaded_block *b);

/* Make ptr's block the loaded one with the decoder at its first value: read
 * (through the reader's cache), parse and check it, or, when it is already
 * loaded, only rewind. On failure nothing is loaded. */
cf_status cf_loaded_block_load(cf_loaded_block *b, cf_block_ptr ptr, cf_error *err);

/* Prefix an error with the block it concerns ("data block at offset N: ");
 * passes CF_OK through (inline: the batch paths call it on every success). */
cf_status cf_loaded_block_prefix(const cf_loaded_block *b, cf_status st, cf_error *err);
static inline cf_status cf_loaded_block_fail(const cf_loaded_block *b, cf_status st, cf_error *err)
{
    return st == CF_OK ? CF_OK : cf_loaded_block_prefix(b, st, err);
}
#define CF_BLOCK_FAIL(b, err, ...)                                                                 \
    return cf_loaded_block_fail(                                                                   \
        (b), cf_error_set((err), CF_ECORRUPT, __FILE__, __LINE__, __VA_ARGS__), (err))

/* Present values before row j of the nullable block. */
static inline size_t cf_null_state_rank(const cf_null_state *ns, uint32_t j)
{
    uint32_t base = j & ~((1u << CF_NULL_RANK_SHIFT) - 1);
    return ns->rank[j >> CF_NULL_RANK_SHIFT] + cf_bitmap_count(ns->bits, base, j - base);
}

/* Index among the decoder's values of row j's value (or of the next present
 * one, when row j is NULL). */
static inline size_t cf_loaded_block_value_index(const cf_loaded_block *b, uint32_t j)
{
    if (b->kind == CF_LAYOUT_ARRAY) {
        uint32_t e = ((const uint32_t *)(const void *)b->offsets.data)[j];
        return cf_bitmap_count(b->elem_nonnull.data, 0, e);
    }
    if (b->kind == CF_LAYOUT_NULLABLE)
        return cf_null_state_rank(b->ns, j);
    return j;
}

/* Position the decoder at row j. */
static inline cf_status cf_loaded_block_seek_row(cf_loaded_block *b, uint32_t j, cf_error *err)
{
    return b->dec->ops->seek(b->dec, cf_loaded_block_value_index(b, j), err);
}

/* Row of the idx-th present value; rows when there is none. */
uint32_t cf_loaded_block_row_of_value(const cf_loaded_block *b, size_t idx);

/* Lend the decoder the block's seek index from the reader's cache, or build
 * and cache it; best effort (no cache, no memory: the seek goes without). */
void cf_loaded_block_use_seek_index(cf_loaded_block *b);

#endif
