/* The iterator (format §9.5): seeks through the positional or value B-tree,
 * loads data blocks, parses their layout (§6.1 plain, §6.2 nullable, §6.3
 * array) and hands rows out in batches.
 *
 * Nullable block:  varint32 num_rows | varint32 L | RLE_1 row bitmap (L bytes) | encoded
 * Array block:     varint32 flat_count | varint32 array_count
 *                  | varint32 L1 | RLE_1 element bitmap | varint32 L2 | RLE_16 counts
 *                  | varint32 L3 | RLE_1 cell bitmap | encoded elements
 */
#include "internal.h"
#include "expand.h"
#include "extend.h"

#include <string.h>

#include "util/alloc.h"
#include "util/bitmap.h"
#include "util/endian.h"
#include "util/error.h"
#include "util/rle.h"
#include "util/varint.h"

struct cf_iter {
    const cf_reader *r;
    size_t es; /* bytes per value in memory form */
    cf_btree_iter *pos_bt, *val_bt;
    cf_btree_iter *cur_bt; /* the tree that located the current block */
    cf_decoder *dec;
    cf_buf blockbuf;

    bool positioned; /* a seek happened (or is implied at ordinal 0) */
    bool have_block;
    bool at_end;
    cf_block_ptr blk_ptr;
    uint64_t blk_first;       /* ordinal of the block's first row */
    uint32_t blk_rows;        /* rows (cells for arrays) */
    uint32_t row;             /* next row inside the block */
    uint32_t blk_logical_len; /* for verify's block report: bytes after decompression */
    int blk_dict_mode;        /* for verify's block report: DICT mode word (format §8.8), else 0 */

    cf_buf rowbm;   /* nullable: row bitmap; arrays: cell bitmap */
    cf_buf flatbm;  /* arrays: element bitmap */
    cf_buf offsets; /* arrays: u32 start of each cell, plus the end */
    cf_buf counts;  /* arrays: u16 element counts as decoded */

    cf_buf out_vals, out_nonnull, out_offsets, out_elem_nonnull, dense;

    /* Block reuse (docs/PERFORMANCE.md): blk_valid says that blk_ptr's block
     * is still fully loaded (bytes, bitmaps, decoder), so seeking into it again
     * only repositions. `blk` says where its bytes live (blk.pin holds it in
     * the reader's cache, if any). */
    bool blk_valid;
    cf_block_contents blk;
    /* The decoder's seek index for the loaded block (use_seek_index), a cache
     * entry of its own; NULL when it has none. */
    cf_cache_entry *seek_pin;
    /* PLAIN, not nullable, not array: the loaded block's values in memory form
     * (aligned for the type), so batches are served without decoder calls. */
    const uint8_t *flat;
    /* Nullable (not array) blocks: the decoded non-null bitmap with its rank
     * directory, in nb_own or adopted from the cached block (cf_block_aux). */
    const struct null_state *ns;
    cf_buf nb_own;
};

/* A nullable block's decoded non-null bitmap and, for each 512-row stretch,
 * how many rows before it are non-null: positioning at row j then costs one
 * table lookup and a count of at most 511 bits instead of a count from row 0. */
#define RANK_SHIFT 9
typedef struct null_state {
    uint32_t rows, present;
    const uint8_t *bits; /* cf_bitmap_bytes(rows) + 8 bytes, zero past rows */
    uint32_t rank[];     /* (rows >> RANK_SHIFT) + 1 entries */
} null_state;

static size_t null_state_size(uint32_t rows, size_t *bits_off)
{
    size_t rank_n = ((size_t)rows >> RANK_SHIFT) + 1;
    *bits_off = (sizeof(null_state) + rank_n * 4 + 7) & ~(size_t)7;
    return *bits_off + cf_bitmap_bytes(rows) + 8;
}

/* Non-null rows before row j. */
static size_t null_rank(const null_state *ns, uint32_t j)
{
    uint32_t base = j & ~((1u << RANK_SHIFT) - 1);
    return ns->rank[j >> RANK_SHIFT] + cf_bitmap_count(ns->bits, base, j - base);
}

static cf_status read_cb(void *ctx, cf_block_ptr ptr, cf_buf *scratch, cf_slice *out, cf_error *err)
{
    return cf_reader_read_block(ctx, ptr, scratch, out, "index block", err);
}

cf_status cf_iter_create(cf_iter **out, const cf_reader *r, cf_error *err)
{
    *out = NULL;
    cf_iter *it = cf_calloc(1, sizeof *it);
    CF_CHECK(it != NULL, err, CF_ENOMEM, "out of memory creating an iterator");
    it->r = r;
    it->es = cf_type_size(r->info.type);
    cf_buf *bufs[] = {&it->blockbuf,         &it->rowbm,    &it->flatbm,      &it->offsets,
                      &it->counts,           &it->out_vals, &it->out_nonnull, &it->out_offsets,
                      &it->out_elem_nonnull, &it->dense,    &it->nb_own};
    for (size_t i = 0; i < sizeof bufs / sizeof bufs[0]; i++)
        cf_buf_init(bufs[i]);
    void *ctx = (void *)r;
    cf_status st = r->dec_ops->create(&it->dec, &r->dec_params, err);
    /* iter.h: batches are valid until the next call on the iterator */
    if (st == CF_OK)
        it->dec->batch_scoped = true;
    if (st == CF_OK && r->info.has_posidx)
        st = cf_btree_iter_create(&it->pos_bt,
                                  (cf_block_ptr){r->info.posidx_root_off, r->info.posidx_root_size},
                                  read_cb, ctx, err);
    if (st == CF_OK && r->info.has_validx)
        st = cf_btree_iter_create(&it->val_bt,
                                  (cf_block_ptr){r->info.validx_root_off, r->info.validx_root_size},
                                  read_cb, ctx, err);
    if (st != CF_OK) {
        cf_iter_free(it);
        return st;
    }
    *out = it;
    return CF_OK;
}

void cf_iter_free(cf_iter *it)
{
    if (it == NULL)
        return;
    cf_cache_release(it->r->opts.cache, it->blk.pin);
    cf_cache_release(it->r->opts.cache, it->seek_pin);
    cf_decoder_free(it->dec);
    cf_btree_iter_free(it->pos_bt);
    cf_btree_iter_free(it->val_bt);
    cf_buf *bufs[] = {&it->blockbuf,         &it->rowbm,    &it->flatbm,      &it->offsets,
                      &it->counts,           &it->out_vals, &it->out_nonnull, &it->out_offsets,
                      &it->out_elem_nonnull, &it->dense,    &it->nb_own};
    for (size_t i = 0; i < sizeof bufs / sizeof bufs[0]; i++)
        cf_buf_dispose(bufs[i]);
    cf_free(it);
}

/* ---- block loading ---------------------------------------------------------------- */

#define BLK_FAIL(it, err, ...)                                                                     \
    return cf_error_prefix(err, cf_error_set(err, CF_ECORRUPT, __FILE__, __LINE__, __VA_ARGS__),   \
                           "data block at offset %llu: ", (unsigned long long)(it)->blk_ptr.off)

/* Read a varint32-length-prefixed section. */
static bool take_section(const uint8_t **p, const uint8_t *end, cf_slice *out)
{
    uint32_t len;
    const uint8_t *q = cf_varint32_decode(*p, end, &len);
    if (q == NULL || len > (size_t)(end - q))
        return false;
    *out = (cf_slice){q, len};
    *p = q + len;
    return true;
}

/* Does an RLE stream of this width hold at least n values? Checked before
 * anything is sized by n: a repeated run can claim billions of values in a few
 * bytes, so a claim is believed only once the stream backs it (the counts are
 * also bounded by the footer's row count). */
static bool stream_holds(cf_slice s, unsigned width, size_t n)
{
    cf_rle_decoder d;
    cf_rle_dec_init(&d, s.data, s.len, width);
    return cf_rle_dec_skip(&d, n, NULL) == n;
}

/* Decode n flags of an RLE_1 stream (already checked to hold them) into a
 * fresh bitmap. */
static cf_status decode_bits(cf_iter *it, cf_slice s, size_t n, cf_buf *bm, cf_error *err)
{
    cf_buf_clear(bm);
    uint8_t *p = cf_buf_extend(bm, cf_bitmap_bytes(n) + 8);
    CF_CHECK(p != NULL, err, CF_ENOMEM,
             "data block at offset %llu: out of memory for a %zu-bit "
             "bitmap",
             (unsigned long long)it->blk_ptr.off, n);
    memset(p, 0, bm->len);
    cf_rle_decoder d;
    cf_rle_dec_init(&d, s.data, s.len, 1);
    if (cf_rle_dec_bitmap(&d, p, n) != n)
        BLK_FAIL(it, err, "bitmap stream ends before its %zu flags", n);
    return CF_OK;
}

/* Bitmaps up to this many rows are decoded straight away (the decode checks
 * that the stream holds them); larger claims must first be backed by the
 * stream before memory is sized by them. */
#define SMALL_BITMAP_ROWS (1u << 22)

/* Decode a nullable block's bitmap into a fresh null_state in nb_own. */
static cf_status build_null_state(cf_iter *it, cf_slice bm, uint32_t rows, cf_error *err)
{
    if (rows > SMALL_BITMAP_ROWS && !stream_holds(bm, 1, rows))
        BLK_FAIL(it, err, "non-null bitmap holds fewer than its %u rows", rows);
    size_t bits_off, size = null_state_size(rows, &bits_off);
    cf_buf_clear(&it->nb_own);
    uint8_t *mem = cf_buf_extend(&it->nb_own, size);
    CF_CHECK(mem != NULL, err, CF_ENOMEM,
             "data block at offset %llu: out of memory for a "
             "%u-row bitmap",
             (unsigned long long)it->blk_ptr.off, rows);
    null_state *ns = (null_state *)(void *)mem;
    uint8_t *bits = mem + bits_off;
    memset(bits, 0, cf_bitmap_bytes(rows) + 8);
    cf_rle_decoder d;
    cf_rle_dec_init(&d, bm.data, bm.len, 1);
    if (cf_rle_dec_bitmap(&d, bits, rows) != rows)
        BLK_FAIL(it, err, "non-null bitmap holds fewer than its %u rows", rows);
    ns->rows = rows;
    ns->bits = bits;
    uint32_t acc = 0;
    for (uint32_t i = 0, j = 0; j <= rows >> RANK_SHIFT; j++, i += 1u << RANK_SHIFT) {
        ns->rank[j] = acc;
        uint32_t k = rows - i < (1u << RANK_SHIFT) ? rows - i : (1u << RANK_SHIFT);
        acc += (uint32_t)cf_bitmap_count(bits, i, k);
    }
    ns->present = acc;
    it->ns = ns;
    return CF_OK;
}

#define ALIGN8(n) (((n) + 7) & ~(size_t)7)

/* Offer the loaded block's derived state to its cache entry (see cf_block_aux).
 * Best effort: without memory the next load simply decodes again. */
static void attach_aux(cf_iter *it)
{
    const cf_decoder_ops *ops = it->dec->ops;
    size_t dec_len = ops->saved_len != NULL ? ops->saved_len(it->dec) : 0;
    size_t bits_off = 0, ns_len = 0;
    if (it->r->info.nullable && !it->r->info.is_array)
        ns_len = null_state_size(it->ns->rows, &bits_off);
    if (dec_len == 0 && ns_len == 0)
        return;
    /* Both parts are bounded by memory the iterator already holds. */
    size_t ns_at = ALIGN8(sizeof(cf_block_aux)), dec_at = ns_at + ALIGN8(ns_len);
    size_t total = dec_at + dec_len;
    uint8_t *m = cf_malloc(total);
    if (m == NULL)
        return;
    cf_block_aux *a = (cf_block_aux *)(void *)m;
    a->ns = NULL;
    a->dec = NULL;
    a->dec_len = dec_len;
    if (ns_len) {
        memcpy(m + ns_at, it->ns, ns_len);
        null_state *ns = (null_state *)(void *)(m + ns_at);
        ns->bits = m + ns_at + bits_off;
        a->ns = ns;
    }
    if (dec_len) {
        ops->save(it->dec, m + dec_at);
        a->dec = m + dec_at;
    }
    /* Another iterator may have attached its own first: ours is then freed,
     * and this load keeps using the iterator's copy either way. */
    cf_cache_entry_set_aux(it->r->opts.cache, it->blk.pin, m, total);
}

/* A block's decoded bitmaps and counts are sized by the counts it claims, and a
 * repeated RLE run can claim billions of rows in a few bytes. Keep that state
 * within the reader's block limit (max_block_len, 16 MiB by default: over 130
 * million rows per block), so no file can make us allocate more than that. */
static cf_status check_decoded_size(cf_iter *it, uint64_t bytes, const char *what, cf_error *err)
{
    size_t lim = it->r->opts.max_block_len;
    if (bytes <= lim)
        return CF_OK;
    return cf_error_prefix(
        err,
        cf_error_set(err, CF_ENOTSUP, __FILE__, __LINE__,
                     "%s need %llu bytes decoded, over the reader's %zu-byte block limit "
                     "(cf_reader_options.max_block_len)",
                     what, (unsigned long long)bytes, lim),
        "data block at offset %llu: ", (unsigned long long)it->blk_ptr.off);
}

static cf_status load_nullable(cf_iter *it, const uint8_t *p, const uint8_t *end,
                               const cf_block_aux *aux, cf_slice *encoded, cf_error *err)
{
    uint32_t rows;
    cf_slice bm;
    p = cf_varint32_decode(p, end, &rows);
    if (p == NULL || !take_section(&p, end, &bm))
        BLK_FAIL(it, err, "nullable block header is truncated");
    if (rows > it->r->info.num_values)
        BLK_FAIL(it, err, "claims %u rows but the file has %llu", rows,
                 (unsigned long long)it->r->info.num_values);
    if ((uint64_t)rows / 8 > it->r->opts.max_block_len) {
        /* A claim this large is first checked against the stream (a lie is
         * corruption), then refused only if true. */
        if (!stream_holds(bm, 1, rows))
            BLK_FAIL(it, err, "non-null bitmap holds fewer than its %u rows", rows);
        CF_TRY(check_decoded_size(it, (uint64_t)rows / 8, "its rows' null flags", err));
    }
    const null_state *ns = aux != NULL ? aux->ns : NULL;
    if (ns != NULL && ns->rows == rows)
        it->ns = ns; /* decoded by an earlier load of this cached block */
    else
        CF_TRY(build_null_state(it, bm, rows, err));
    it->blk_rows = rows;
    *encoded = (cf_slice){p, (size_t)(end - p)};
    return CF_OK;
}

static cf_status load_array(cf_iter *it, const uint8_t *p, const uint8_t *end, cf_slice *encoded,
                            cf_error *err)
{
    uint32_t flat, cells;
    cf_slice fbm, cnt, abm;
    p = cf_varint32_decode(p, end, &flat);
    if (p)
        p = cf_varint32_decode(p, end, &cells);
    if (p == NULL || !take_section(&p, end, &fbm) || !take_section(&p, end, &cnt) ||
        !take_section(&p, end, &abm))
        BLK_FAIL(it, err, "array block header is truncated");
    if (cells > it->r->info.num_values)
        BLK_FAIL(it, err, "claims %u cells but the file has %llu", cells,
                 (unsigned long long)it->r->info.num_values);
    /* Every element costs at least one bit of the element bitmap stream unless
     * it is in a repeated run; bound the claim by what u16 counts allow. */
    if ((uint64_t)flat > (uint64_t)cells * 65535u)
        BLK_FAIL(it, err, "claims %u elements in %u cells", flat, cells);
    if (!stream_holds(fbm, 1, flat))
        BLK_FAIL(it, err, "element bitmap holds fewer than its %u elements", flat);
    if (!stream_holds(abm, 1, cells))
        BLK_FAIL(it, err, "cell bitmap holds fewer than its %u cells", cells);
    if (!stream_holds(cnt, 16, cells))
        BLK_FAIL(it, err, "element counts hold fewer than its %u cells", cells);
    /* bitmaps, u16 counts and u32 offsets per cell */
    CF_TRY(check_decoded_size(it, (uint64_t)flat / 8 + (uint64_t)cells * 6 + (uint64_t)cells / 8,
                              "its cells and elements", err));
    CF_TRY(decode_bits(it, fbm, flat, &it->flatbm, err));
    CF_TRY(decode_bits(it, abm, cells, &it->rowbm, err));
    cf_buf_clear(&it->counts);
    cf_buf_clear(&it->offsets);
    uint16_t *c = (uint16_t *)(void *)cf_buf_extend(&it->counts, (size_t)cells * 2 + 2);
    uint32_t *o = (uint32_t *)(void *)cf_buf_extend(&it->offsets, ((size_t)cells + 1) * 4);
    CF_CHECK(c != NULL && o != NULL, err, CF_ENOMEM, "out of memory loading an array block");
    cf_rle_decoder d;
    cf_rle_dec_init(&d, cnt.data, cnt.len, 16);
    if (cf_rle_dec_get(&d, c, 2, cells) != cells)
        BLK_FAIL(it, err, "element counts hold fewer than its %u cells", cells);
    /* format §6.3: cells are consecutive; the last one ends at flat_count. */
    uint64_t start = 0;
    for (uint32_t i = 0; i < cells; i++) {
        if (start > flat)
            BLK_FAIL(it, err, "cell %u starts at element %llu, past the %u elements", i,
                     (unsigned long long)start, flat);
        o[i] = (uint32_t)start;
        start += c[i];
    }
    o[cells] = flat;
    it->blk_rows = cells;
    *encoded = (cf_slice){p, (size_t)(end - p)};
    return CF_OK;
}

/* Load the data block at ptr and position at its row 0. */
static cf_status load_block(cf_iter *it, cf_block_ptr ptr, cf_error *err)
{
    const cf_reader *r = it->r;
    if (it->blk_valid && it->blk_ptr.off == ptr.off && it->blk_ptr.size == ptr.size) {
        /* Blocks are immutable: a seek back into the loaded block costs no read,
         * checksum, decompression or bitmap decode. */
        it->row = 0;
        it->have_block = true;
        return it->dec->ops->seek(it->dec, 0, err);
    }
    it->blk_valid = false;
    it->have_block = false;
    it->flat = NULL;
    it->ns = NULL;
    it->blk_ptr = ptr;
    cf_cache_release(r->opts.cache, it->blk.pin);
    it->blk.pin = NULL;
    cf_cache_release(r->opts.cache, it->seek_pin); /* the load below makes the decoder forget it */
    it->seek_pin = NULL;
    cf_slice encoded = {NULL, 0};
    it->blk = (cf_block_contents){{NULL, 0}, CF_BLOCK_IN_SCRATCH, NULL};
    CF_TRY(cf_reader_read_data_block(r, ptr, &it->blockbuf, &it->blk, err));
    cf_slice logical = it->blk.data;
    const cf_block_aux *aux = it->blk.pin != NULL ? cf_cache_entry_aux(it->blk.pin) : NULL;
    const uint8_t *p = logical.data, *end = p + logical.len;
    if (r->info.is_array)
        CF_TRY(load_array(it, p, end, &encoded, err));
    else if (r->info.nullable)
        CF_TRY(load_nullable(it, p, end, aux, &encoded, err));
    else
        encoded = logical;
    /* A state that does not fit the block (never expected: the entry's bytes
     * are the ones it was derived from) is ignored and the block decoded. */
    cf_status dst = CF_ECORRUPT;
    if (aux != NULL && aux->dec != NULL && it->dec->ops->load_saved != NULL)
        dst = it->dec->ops->load_saved(it->dec, encoded.data, encoded.len, aux->dec, aux->dec_len,
                                       NULL);
    if (dst != CF_OK)
        CF_TRY(cf_error_prefix(err, it->dec->ops->load(it->dec, encoded.data, encoded.len, err),
                               "data block at offset %llu: ", (unsigned long long)ptr.off));
    /* Remembered for cf_iter_check_block; the decoder has already checked that
     * a DICT block starts with a valid 4-byte mode word. */
    it->blk_logical_len = (uint32_t)logical.len;
    it->blk_dict_mode =
        r->info.encoding == CF_ENC_DICT && encoded.len >= 4 ? (int)cf_load_le32(encoded.data) : 0;
    size_t present = it->dec->count;
    if (r->info.is_array) {
        uint32_t flat = ((const uint32_t *)(const void *)it->offsets.data)[it->blk_rows];
        if (cf_bitmap_count(it->flatbm.data, 0, flat) != present)
            BLK_FAIL(it, err, "element bitmap has %zu present elements but the block holds %zu",
                     cf_bitmap_count(it->flatbm.data, 0, flat), present);
    } else if (r->info.nullable) {
        if (it->ns->present != present)
            BLK_FAIL(it, err, "bitmap has %u present rows but the block holds %zu values",
                     it->ns->present, present);
    } else {
        if (present > UINT32_MAX)
            BLK_FAIL(it, err, "block claims %zu values", present);
        it->blk_rows = (uint32_t)present;
    }
    it->blk_first = it->dec->first_ord;
    if (it->blk_first + it->blk_rows > r->info.num_values)
        BLK_FAIL(it, err, "rows [%llu, %llu) run past the file's %llu rows",
                 (unsigned long long)it->blk_first,
                 (unsigned long long)(it->blk_first + it->blk_rows),
                 (unsigned long long)r->info.num_values);
    if (it->blk.pin != NULL && aux == NULL)
        attach_aux(it);
    it->row = 0;
    it->have_block = true;
    it->blk_valid = true;
    it->flat = NULL;
    if (r->info.encoding == CF_ENC_PLAIN && !r->info.nullable && !r->info.is_array &&
        it->dec->ops->view != NULL) {
        /* PLAIN's view is the block's value array itself (format §8.1). */
        const uint8_t *v = it->dec->ops->view(it->dec, 0);
        size_t align = it->es < 8 ? it->es : 8;
        if (((uintptr_t)v & (align - 1)) == 0)
            it->flat = v;
    }
    return CF_OK;
}

/* Position the decoder at row j of the loaded block. */
static cf_status position_at_row(cf_iter *it, uint32_t j, cf_error *err)
{
    size_t idx = j;
    if (it->r->info.is_array) {
        uint32_t e = ((const uint32_t *)(const void *)it->offsets.data)[j];
        idx = cf_bitmap_count(it->flatbm.data, 0, e);
    } else if (it->r->info.nullable) {
        idx = null_rank(it->ns, j);
    }
    it->row = j;
    return it->dec->ops->seek(it->dec, idx, err);
}

/* Move to the next data block along the current tree; at_end when none. */
static cf_status next_block(cf_iter *it, cf_error *err)
{
    uint64_t expect = it->blk_first + it->blk_rows;
    cf_status st = cf_btree_iter_next(it->cur_bt, err);
    if (st == CF_ENOTFOUND) {
        it->at_end = true;
        it->have_block = false;
        if (expect != it->r->info.num_values)
            CF_FAIL(err, CF_ECORRUPT, "the index ends at row %llu but the file has %llu rows",
                    (unsigned long long)expect, (unsigned long long)it->r->info.num_values);
        return CF_OK;
    }
    CF_TRY(st);
    CF_TRY(load_block(it, cf_btree_iter_ptr(it->cur_bt), err));
    if (it->blk_first != expect)
        BLK_FAIL(it, err, "starts at row %llu, expected %llu after the previous block",
                 (unsigned long long)it->blk_first, (unsigned long long)expect);
    return CF_OK;
}

/* ---- seeks --------------------------------------------------------------------------- */

cf_status cf_iter_seek_to_first(cf_iter *it, cf_error *err)
{
    it->positioned = true;
    it->at_end = false;
    it->have_block = false;
    it->cur_bt = it->pos_bt ? it->pos_bt : it->val_bt;
    if (it->cur_bt == NULL && it->r->info.num_values == 0) {
        it->at_end = true; /* nothing to locate */
        return CF_OK;
    }
    CF_CHECK(it->cur_bt != NULL, err, CF_ENOTSUP,
             "file has neither a positional nor a value index: its rows cannot be located");
    cf_status st = cf_btree_iter_seek_to_first(it->cur_bt, err);
    if (st == CF_ENOTFOUND) {
        it->at_end = true;
        CF_CHECK(it->r->info.num_values == 0, err, CF_ECORRUPT,
                 "the index is empty but the file has %llu rows",
                 (unsigned long long)it->r->info.num_values);
        return CF_OK;
    }
    CF_TRY(st);
    CF_TRY(load_block(it, cf_btree_iter_ptr(it->cur_bt), err));
    CF_CHECK(it->blk_first == 0, err, CF_ECORRUPT, "the first data block starts at row %llu",
             (unsigned long long)it->blk_first);
    return CF_OK;
}

cf_status cf_iter_seek_to_ordinal(cf_iter *it, uint64_t ord, cf_error *err)
{
    CF_CHECK(it->pos_bt != NULL, err, CF_EINVAL, "file has no positional index");
    it->positioned = true;
    it->have_block = false;
    it->at_end = true;
    it->cur_bt = it->pos_bt;
    if (ord >= it->r->info.num_values)
        CF_FAIL(err, CF_ENOTFOUND, "ordinal %llu is past the last row (%llu rows)",
                (unsigned long long)ord, (unsigned long long)it->r->info.num_values);
    uint8_t key[4];
    cf_store_be32(key, (uint32_t)ord);
    cf_status st = cf_btree_iter_seek_at_or_before(it->pos_bt, (cf_slice){key, 4}, err);
    if (st == CF_ENOTFOUND)
        CF_FAIL(err, CF_ECORRUPT, "positional index has no block for ordinal %llu",
                (unsigned long long)ord);
    CF_TRY(st);
    CF_TRY(load_block(it, cf_btree_iter_ptr(it->pos_bt), err));
    if (ord < it->blk_first || ord - it->blk_first >= it->blk_rows)
        BLK_FAIL(it, err, "positional index sent ordinal %llu to rows [%llu, %llu)",
                 (unsigned long long)ord, (unsigned long long)it->blk_first,
                 (unsigned long long)(it->blk_first + it->blk_rows));
    it->at_end = false;
    return position_at_row(it, (uint32_t)(ord - it->blk_first), err);
}

cf_status cf_iter_block_at(cf_iter *it, uint64_t ord, const cf_block_filter *f, cf_block_info *out,
                           cf_error *err)
{
    memset(out, 0, sizeof(*out));
    CF_CHECK(f == NULL || f->r == it->r, err, CF_EINVAL,
             "block filter was made for another reader");
    CF_TRY(cf_iter_seek_to_ordinal(it, ord, err));
    out->first_ord = it->blk_first;
    out->rows = it->blk_rows;
    out->may_match = true;
    if (f == NULL)
        return CF_OK;
    if (it->dec->count == 0) { /* only NULL rows: a test on values passes none */
        out->may_match = false;
        return CF_OK;
    }
    if (it->dec->ops->block_any == NULL)
        return CF_OK;
    bool any;
    CF_TRY(cf_error_prefix(err, it->dec->ops->block_any(it->dec, &f->test, &any, err),
                           "data block at offset %llu: ", (unsigned long long)it->blk_ptr.off));
    out->may_match = any;
    /* The test moved the decoder: back to the row the seek found. */
    return position_at_row(it, it->row, err);
}

/* Row of the idx-th present value (nullable blocks). */
static uint32_t row_of_value(const cf_iter *it, size_t idx)
{
    if (!it->r->info.nullable)
        return (uint32_t)idx;
    /* The last 512-row stretch with fewer than idx + 1 non-null rows before
     * it, then bit by bit inside it. */
    const null_state *ns = it->ns;
    size_t lo = 0, hi = (size_t)(ns->rows >> RANK_SHIFT) + 1;
    while (hi - lo > 1) {
        size_t mid = lo + (hi - lo) / 2;
        if (ns->rank[mid] <= idx)
            lo = mid;
        else
            hi = mid;
    }
    size_t seen = ns->rank[lo];
    for (uint32_t j = (uint32_t)(lo << RANK_SHIFT); j < ns->rows; j++)
        if (cf_bitmap_get(ns->bits, j) && seen++ == idx)
            return j;
    return it->blk_rows;
}

/* Lend the decoder the seek index of the loaded block (cf_decoder_ops
 * seek_index_*), from the reader's cache or built now and cached there: a
 * separate entry, keyed by the block's offset with the top bit set (no block
 * starts there), charged like a block and evicted like one. Only with a
 * cache: building one costs more than the seek it serves. Best effort: when
 * it cannot be built (no memory, a damaged chunk) the seek simply goes
 * without, and reports any damage it meets itself. */
static void use_seek_index(cf_iter *it)
{
    const cf_reader *r = it->r;
    const cf_decoder_ops *ops = it->dec->ops;
    if (r->opts.cache == NULL || ops->seek_index_len == NULL || it->seek_pin != NULL)
        return;
    size_t len = ops->seek_index_len(it->dec);
    if (len == 0)
        return;
    uint64_t key = it->blk_ptr.off | (UINT64_C(1) << 63);
    cf_slice got = {NULL, 0};
    bool is_view = false;
    cf_cache_entry *e =
        cf_cache_lookup(r->opts.cache, r->cache_file_id, key, it->blk_ptr.size, &got, &is_view);
    if (e == NULL) {
        uint64_t *tmp = cf_malloc(len);
        cf_error e2;
        if (tmp != NULL && ops->seek_index_build(it->dec, tmp, &e2) == CF_OK)
            e = cf_cache_insert(r->opts.cache, r->cache_file_id, key, it->blk_ptr.size,
                                (const uint8_t *)tmp, len, false, &got);
        cf_free(tmp);
        if (e == NULL)
            return;
    }
    if (is_view || got.len != len) { /* never expected: not an index of this block */
        cf_cache_release(r->opts.cache, e);
        return;
    }
    it->seek_pin = e;
    ops->seek_index_use(it->dec, got.data, got.len);
}

cf_status cf_iter_seek_at_or_after(cf_iter *it, const void *key, bool *exact, cf_error *err)
{
    CF_CHECK(it->val_bt != NULL, err, CF_EINVAL, "file has no value index");
    CF_CHECK(!it->r->info.is_array, err, CF_EINVAL, "array columns cannot be sought by value");
    it->positioned = true;
    it->have_block = false;
    it->at_end = true;
    it->cur_bt = it->val_bt;
    /* The index key: a binary value is its own key; a fixed-width one is
     * encoded on the stack (no allocation per seek). */
    uint8_t kbytes[16];
    cf_slice ks;
    if (cf_type_is_binary(it->r->info.type))
        ks = *(const cf_slice *)key;
    else
        ks = (cf_slice){kbytes, cf_key_encode_fixed(it->r->info.type, key, kbytes)};
    cf_status st = cf_btree_iter_seek_before(it->val_bt, ks, err);
    /* format §9.5 starts at the last block whose key is <= the target; we start
     * at the last one whose key is < it, so that a value repeated across a block
     * boundary is found at its first row (Kudu's keys are unique, where both
     * agree). No smaller key: the answer starts in the first block. */
    if (st == CF_ENOTFOUND)
        st = cf_btree_iter_seek_to_first(it->val_bt, err);
    if (st == CF_ENOTFOUND)
        CF_FAIL(err, CF_ENOTFOUND, "the file has no rows");
    CF_TRY(st);
    CF_TRY(load_block(it, cf_btree_iter_ptr(it->val_bt), err));
    use_seek_index(it);
    bool ex = false;
    st = it->dec->ops->seek_at_or_after(it->dec, key, &ex, err);
    if (st == CF_ENOTFOUND) {
        /* Greater than everything in this block: the answer is the next block's first row. */
        if (!cf_btree_iter_has_next(it->val_bt))
            CF_FAIL(err, CF_ENOTFOUND, "key is after the last value in the file");
        CF_TRY(cf_btree_iter_next(it->val_bt, err));
        CF_TRY(load_block(it, cf_btree_iter_ptr(it->val_bt), err));
        use_seek_index(it);
        /* Its first value is >= the key; it may equal it. */
        st = it->dec->ops->seek_at_or_after(it->dec, key, &ex, err);
        if (st == CF_ENOTFOUND)
            BLK_FAIL(it, err, "value index is out of order: the next block's values are smaller");
        CF_TRY(st);
    }
    CF_TRY(cf_error_prefix(err, st,
                           "data block at offset %llu: ", (unsigned long long)it->blk_ptr.off));
    uint32_t row = row_of_value(it, it->dec->pos);
    it->at_end = false;
    if (exact)
        *exact = ex;
    return position_at_row(it, row, err);
}

const cf_reader *cf_iter_reader(const cf_iter *it)
{
    return it->r;
}

uint64_t cf_iter_current_ordinal(const cf_iter *it)
{
    if (!it->positioned)
        return 0;
    if (it->at_end)
        return it->r->info.num_values;
    return it->blk_first + it->row;
}

/* ---- batches ------------------------------------------------------------------------ */

static cf_status decode_dense(cf_iter *it, cf_buf *dst, size_t k, cf_error *err)
{
    cf_buf_clear(dst);
    uint8_t *p = cf_buf_extend(dst, k * it->es + 1);
    CF_CHECK(p != NULL, err, CF_ENOMEM, "out of memory decoding %zu values", k);
    size_t got = 0;
    CF_TRY(cf_error_prefix(err, it->dec->ops->next(it->dec, p, k, &got, err),
                           "data block at offset %llu: ", (unsigned long long)it->blk_ptr.off));
    if (got != k)
        BLK_FAIL(it, err, "decoded %zu of %zu values", got, k);
    return CF_OK;
}

/* n rows of a nullable (not array) block from the current row into vals
 * (n * es bytes) and, when nn is not NULL, their flags into nn
 * (cf_bitmap_bytes(n) bytes, bits past n zero). */
static cf_status nullable_rows(cf_iter *it, size_t n, uint8_t *vals, uint8_t *nn, cf_error *err)
{
    const uint8_t *bits = it->ns->bits;
    size_t k = cf_bitmap_count(bits, it->row, n);
    const cf_decoder_ops *ops = it->dec->ops;
    const uint32_t *cw = NULL;
    if (ops->codewords != NULL)
        CF_TRY(cf_error_prefix(err, ops->codewords(it->dec, k, &cw, err),
                               "data block at offset %llu: ", (unsigned long long)it->blk_ptr.off));
    if (ops->view != NULL) {
        /* PLAIN: spread straight from the block (no dense copy first). */
        cf_expand_nulls(vals, ops->view(it->dec, k), bits, it->row, n, k, it->es);
    } else if (cw != NULL) {
        /* DICT codewords: entries looked up straight into their rows. */
        cf_expand_dict((cf_slice *)(void *)vals, cw, it->r->dec_params.dict->entries, bits, it->row,
                       n, k);
    } else {
        CF_TRY(decode_dense(it, &it->dense, k, err));
        cf_expand_nulls(vals, it->dense.data, bits, it->row, n, k, it->es);
    }
    if (nn) {
        memset(nn, 0, cf_bitmap_bytes(n));
        cf_bitmap_copy(nn, 0, bits, it->row, n);
    }
    return CF_OK;
}

static uint8_t *out_bitmap(cf_buf *b, const uint8_t *src, size_t bit0, size_t n)
{
    cf_buf_clear(b);
    uint8_t *p = cf_buf_extend(b, cf_bitmap_bytes(n) + 1);
    if (p) {
        memset(p, 0, cf_bitmap_bytes(n) + 1);
        cf_bitmap_copy(p, 0, src, bit0, n);
    }
    return p;
}

cf_status cf_iter_next_batch(cf_iter *it, size_t max_rows, cf_batch *out, cf_error *err)
{
    memset(out, 0, sizeof *out);
    if (!it->positioned)
        CF_TRY(cf_iter_seek_to_first(it, err));
    while (!it->at_end && (!it->have_block || it->row >= it->blk_rows))
        CF_TRY(next_block(it, err));
    out->first_ord = cf_iter_current_ordinal(it);
    if (it->at_end || max_rows == 0)
        return CF_OK;
    const cf_file_info *fi = &it->r->info;
    size_t n = it->blk_rows - it->row;
    if (n > max_rows)
        n = max_rows;
    size_t es = it->es;
    if (fi->is_array) {
        const uint32_t *o = (const uint32_t *)(const void *)it->offsets.data;
        size_t e0 = o[it->row], e1 = o[it->row + n], ne = e1 - e0;
        size_t k = cf_bitmap_count(it->flatbm.data, e0, ne);
        CF_TRY(decode_dense(it, &it->dense, k, err));
        cf_buf_clear(&it->out_vals);
        uint8_t *vals = cf_buf_extend(&it->out_vals, ne * es + 1);
        cf_buf_clear(&it->out_offsets);
        uint32_t *offs = (uint32_t *)(void *)cf_buf_extend(&it->out_offsets, (n + 1) * 4);
        uint8_t *enn = out_bitmap(&it->out_elem_nonnull, it->flatbm.data, e0, ne);
        uint8_t *cnn = out_bitmap(&it->out_nonnull, it->rowbm.data, it->row, n);
        CF_CHECK(vals && offs && enn && cnn, err, CF_ENOMEM, "out of memory for a batch");
        cf_expand_nulls(vals, it->dense.data, it->flatbm.data, e0, ne, k, es);
        for (size_t i = 0; i <= n; i++)
            offs[i] = (uint32_t)(o[it->row + i] - e0);
        out->values = vals;
        out->elem_offsets = offs;
        out->elem_count = ne;
        out->elem_nonnull = enn;
        out->nonnull = fi->nullable ? cnn : NULL;
    } else if (fi->nullable) {
        cf_buf_clear(&it->out_vals);
        cf_buf_clear(&it->out_nonnull);
        uint8_t *vals = cf_buf_extend(&it->out_vals, n * es + 1);
        uint8_t *nn = cf_buf_extend(&it->out_nonnull, cf_bitmap_bytes(n) + 1);
        CF_CHECK(vals && nn, err, CF_ENOMEM, "out of memory for a batch");
        CF_TRY(nullable_rows(it, n, vals, nn, err));
        out->values = vals;
        out->nonnull = nn;
    } else {
        /* Zero copy when the decoder holds values in memory form at an address
         * the caller may load them from directly. */
        const void *v = NULL;
        size_t align = es < 8 ? es : 8;
        if (it->dec->ops->view && n <= it->dec->count - it->dec->pos) {
            const uint8_t *p = it->dec->ops->view(it->dec, 0);
            if (((uintptr_t)p & (align - 1)) == 0)
                v = it->dec->ops->view(it->dec, n);
        }
        if (v == NULL) {
            CF_TRY(decode_dense(it, &it->out_vals, n, err));
            v = it->out_vals.data;
        }
        out->values = v;
    }
    out->count = n;
    it->row += (uint32_t)n;
    return CF_OK;
}

cf_status cf_iter_copy_batch(cf_iter *it, void *values, uint8_t *nonnull, size_t cap, size_t *count,
                             cf_error *err)
{
    *count = 0;
    CF_CHECK(!it->r->info.is_array, err, CF_EINVAL, "copy_batch does not take array columns");
    CF_CHECK(values != NULL || cap == 0, err, CF_EINVAL, "values is NULL");
    /* Positioning and block changes as next_batch makes them; then the rows
     * go straight into the caller's buffers, never through out_vals. */
    if (!it->positioned)
        CF_TRY(cf_iter_seek_to_first(it, err));
    while (!it->at_end && (!it->have_block || it->row >= it->blk_rows))
        CF_TRY(next_block(it, err));
    if (it->at_end || cap == 0)
        return CF_OK;
    size_t n = it->blk_rows - it->row;
    if (n > cap)
        n = cap;
    if (it->flat != NULL) {
        /* PLAIN: one memcpy from the block (cached, mapped or read), no
         * decoder call; the decoder's position follows so that a later
         * next_batch or seek agrees. */
        memcpy(values, it->flat + (size_t)it->row * it->es, n * it->es);
        it->dec->pos = it->row + n;
    } else if (it->r->info.nullable) {
        /* Scatter around the NULLs; the flags go out as well. */
        CF_TRY(nullable_rows(it, n, values, nonnull, err));
        nonnull = NULL;
    } else {
        size_t got = 0;
        CF_TRY(cf_error_prefix(err, it->dec->ops->next(it->dec, values, n, &got, err),
                               "data block at offset %llu: ", (unsigned long long)it->blk_ptr.off));
        if (got != n)
            BLK_FAIL(it, err, "decoded %zu of %zu values", got, n);
    }
    if (nonnull)
        cf_bitmap_fill(nonnull, 0, n, true);
    it->row += (uint32_t)n;
    *count = n;
    return CF_OK;
}

cf_status cf_iter_check_block(cf_iter *it, cf_block_ptr ptr, uint64_t *first_ord, uint64_t *rows,
                              uint32_t *logical_size, int *dict_mode, cf_error *err)
{
    it->positioned = true;
    it->at_end = false;
    CF_TRY(load_block(it, ptr, err));
    *first_ord = it->blk_first;
    *rows = it->blk_rows;
    *logical_size = it->blk_logical_len;
    *dict_mode = it->blk_dict_mode;
    /* Decode every present value (the only part not checked by load). */
    size_t left = it->dec->count;
    while (left > 0) {
        size_t k = left < 4096 ? left : 4096;
        CF_TRY(decode_dense(it, &it->dense, k, err));
        left -= k;
    }
    it->have_block = false;
    return CF_OK;
}

/* ---- for BloomFile and DeltaFile readers (extend.h) ---------------------------------- */

/* At-or-before through a value-index iterator, falling back to the first entry. */
static cf_status validx_find(cf_btree_iter *bt, cf_slice key, bool *before_all, cf_error *err)
{
    cf_status st = cf_btree_iter_seek_at_or_before(bt, key, err);
    *before_all = st == CF_ENOTFOUND;
    if (st == CF_ENOTFOUND)
        st = cf_btree_iter_seek_to_first(bt, err);
    if (st == CF_ENOTFOUND)
        CF_FAIL(err, CF_ENOTFOUND, "the value index is empty");
    return st;
}

/* A BloomFile's index is read on every probe: its blocks' checksums are
 * checked once (the cache marks them), not on each lookup. */
static cf_status read_index_cb(void *ctx, cf_block_ptr ptr, cf_buf *scratch, cf_slice *out,
                               cf_error *err)
{
    return cf_reader_read_index_block(ctx, ptr, scratch, out, "index block", err);
}

cf_status cf_reader_find_validx_block(const cf_reader *r, cf_slice key, cf_block_ptr *ptr,
                                      bool *before_all, cf_error *err)
{
    const cf_file_info *fi = &r->info;
    CF_CHECK(fi->has_validx, err, CF_EINVAL, "file has no value index");
    cf_btree_iter *bt;
    CF_TRY(cf_btree_iter_create(&bt, (cf_block_ptr){fi->validx_root_off, fi->validx_root_size},
                                read_index_cb, (void *)r, err));
    cf_status st = validx_find(bt, key, before_all, err);
    if (st == CF_OK)
        *ptr = cf_btree_iter_ptr(bt);
    cf_btree_iter_free(bt);
    return st;
}

cf_status cf_iter_seek_validx_block(cf_iter *it, cf_slice key, cf_error *err)
{
    CF_CHECK(it->val_bt != NULL, err, CF_EINVAL, "file has no value index");
    it->positioned = true;
    it->have_block = false;
    it->at_end = true;
    it->cur_bt = it->val_bt;
    bool before_all;
    CF_TRY(validx_find(it->val_bt, key, &before_all, err));
    CF_TRY(load_block(it, cf_btree_iter_ptr(it->val_bt), err));
    it->at_end = false;
    return position_at_row(it, 0, err);
}
