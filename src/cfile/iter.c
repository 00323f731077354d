/* The iterator (format §9.5): finds data blocks through the positional or
 * value B-tree, keeps a position (block and row) and hands rows out in
 * batches. The block itself, its layout (§6) and everything decoded from it
 * live in a cf_loaded_block (loaded_block.h).
 */
#include "internal.h"
#include "expand.h"
#include "extend.h"
#include "loaded_block.h"

#include <string.h>

#include "util/alloc.h"
#include "util/bitmap.h"
#include "util/endian.h"
#include "util/error.h"

struct cf_iter {
    const cf_reader *r;
    size_t es; /* bytes per value in memory form */
    cf_btree_iter *pos_bt, *val_bt;
    cf_btree_iter *cur_bt; /* the tree that located the current block */
    cf_loaded_block blk;   /* the current block, kept for seeks back into it */

    bool positioned; /* a seek happened (or is implied at ordinal 0) */
    bool have_block; /* blk is the current block */
    bool at_end;
    uint32_t row; /* next row inside the block */

    cf_buf out_vals, out_nonnull, out_offsets, out_elem_nonnull, dense;
};

static cf_status read_cb(void *ctx, cf_block_ptr ptr, cf_buf *scratch, cf_slice *out, cf_error *err)
{
    return cf_reader_read_block(ctx, ptr, scratch, out, "index block", err);
}

void cf_iter_set_fill_cache(cf_iter *it, bool fill)
{
    it->blk.no_fill = !fill;
}

cf_status cf_iter_create(cf_iter **out, const cf_reader *r, cf_error *err)
{
    *out = NULL;
    cf_iter *it = cf_calloc(1, sizeof *it);
    CF_CHECK(it != NULL, err, CF_ENOMEM, "out of memory creating an iterator");
    it->r = r;
    it->es = cf_type_size(r->info.type);
    cf_buf *bufs[] = {&it->out_vals, &it->out_nonnull, &it->out_offsets, &it->out_elem_nonnull,
                      &it->dense};
    for (size_t i = 0; i < sizeof bufs / sizeof bufs[0]; i++)
        cf_buf_init(bufs[i]);
    void *ctx = (void *)r;
    cf_status st = cf_loaded_block_init(&it->blk, r, err);
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
    cf_loaded_block_dispose(&it->blk);
    cf_btree_iter_free(it->pos_bt);
    cf_btree_iter_free(it->val_bt);
    cf_buf *bufs[] = {&it->out_vals, &it->out_nonnull, &it->out_offsets, &it->out_elem_nonnull,
                      &it->dense};
    for (size_t i = 0; i < sizeof bufs / sizeof bufs[0]; i++)
        cf_buf_dispose(bufs[i]);
    cf_free(it);
}

/* ---- blocks and rows ------------------------------------------------------------------ */

/* Make the data block at ptr the current one, at its row 0. */
static cf_status load_block(cf_iter *it, cf_block_ptr ptr, cf_error *err)
{
    cf_status st = cf_loaded_block_load(&it->blk, ptr, err);
    /* Current whenever loaded: a failed fresh load leaves no block, while a
     * kept block that only failed to rewind stays current (at row 0). */
    it->have_block = it->blk.valid;
    if (it->have_block)
        it->row = 0;
    return st;
}

/* Position the decoder at row j of the current block. */
static cf_status position_at_row(cf_iter *it, uint32_t j, cf_error *err)
{
    it->row = j;
    return cf_loaded_block_seek_row(&it->blk, j, err);
}

/* Move to the next data block along the current tree; at_end when none. */
static cf_status next_block(cf_iter *it, cf_error *err)
{
    uint64_t expect = it->blk.first_ord + it->blk.rows;
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
    if (it->blk.first_ord != expect)
        CF_BLOCK_FAIL(&it->blk, err, "starts at row %llu, expected %llu after the previous block",
                      (unsigned long long)it->blk.first_ord, (unsigned long long)expect);
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
    CF_CHECK(it->blk.first_ord == 0, err, CF_ECORRUPT, "the first data block starts at row %llu",
             (unsigned long long)it->blk.first_ord);
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
    if (ord < it->blk.first_ord || ord - it->blk.first_ord >= it->blk.rows)
        CF_BLOCK_FAIL(&it->blk, err, "positional index sent ordinal %llu to rows [%llu, %llu)",
                      (unsigned long long)ord, (unsigned long long)it->blk.first_ord,
                      (unsigned long long)(it->blk.first_ord + it->blk.rows));
    it->at_end = false;
    return position_at_row(it, (uint32_t)(ord - it->blk.first_ord), err);
}

cf_status cf_iter_block_at(cf_iter *it, uint64_t ord, const cf_block_filter *f, cf_block_info *out,
                           cf_error *err)
{
    memset(out, 0, sizeof(*out));
    CF_CHECK(f == NULL || f->r == it->r, err, CF_EINVAL,
             "block filter was made for another reader");
    CF_TRY(cf_iter_seek_to_ordinal(it, ord, err));
    out->first_ord = it->blk.first_ord;
    out->rows = it->blk.rows;
    out->may_match = true;
    if (f == NULL)
        return CF_OK;
    if (it->blk.dec->count == 0) { /* only NULL rows: a test on values passes none */
        out->may_match = false;
        return CF_OK;
    }
    if (it->blk.dec->ops->block_any == NULL)
        return CF_OK;
    bool any;
    CF_TRY(cf_loaded_block_fail(
        &it->blk, it->blk.dec->ops->block_any(it->blk.dec, &f->test, &any, err), err));
    out->may_match = any;
    /* The test moved the decoder: back to the row the seek found. */
    return position_at_row(it, it->row, err);
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
    cf_loaded_block_use_seek_index(&it->blk);
    bool ex = false;
    st = it->blk.dec->ops->seek_at_or_after(it->blk.dec, key, &ex, err);
    if (st == CF_ENOTFOUND) {
        /* Greater than everything in this block: the answer is the next block's first row. */
        if (!cf_btree_iter_has_next(it->val_bt))
            CF_FAIL(err, CF_ENOTFOUND, "key is after the last value in the file");
        CF_TRY(cf_btree_iter_next(it->val_bt, err));
        CF_TRY(load_block(it, cf_btree_iter_ptr(it->val_bt), err));
        cf_loaded_block_use_seek_index(&it->blk);
        /* Its first value is >= the key; it may equal it. */
        st = it->blk.dec->ops->seek_at_or_after(it->blk.dec, key, &ex, err);
        if (st == CF_ENOTFOUND)
            CF_BLOCK_FAIL(&it->blk, err,
                          "value index is out of order: the next block's values are smaller");
        CF_TRY(st);
    }
    CF_TRY(cf_loaded_block_fail(&it->blk, st, err));
    uint32_t row = cf_loaded_block_row_of_value(&it->blk, it->blk.dec->pos);
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
    return it->blk.first_ord + it->row;
}

/* ---- batches ------------------------------------------------------------------------ */

static cf_status decode_dense(cf_iter *it, cf_buf *dst, size_t k, cf_error *err)
{
    cf_buf_clear(dst);
    uint8_t *p = cf_buf_extend(dst, k * it->es + 1);
    CF_CHECK(p != NULL, err, CF_ENOMEM, "out of memory decoding %zu values", k);
    size_t got = 0;
    CF_TRY(
        cf_loaded_block_fail(&it->blk, it->blk.dec->ops->next(it->blk.dec, p, k, &got, err), err));
    if (got != k)
        CF_BLOCK_FAIL(&it->blk, err, "decoded %zu of %zu values", got, k);
    return CF_OK;
}

/* n rows of a nullable (not array) block from the current row into vals
 * (n * es bytes) and, when nn is not NULL, their flags into nn
 * (cf_bitmap_bytes(n) bytes, bits past n zero). */
static cf_status nullable_rows(cf_iter *it, size_t n, uint8_t *vals, uint8_t *nn, cf_error *err)
{
    const uint8_t *bits = it->blk.ns->bits;
    size_t k = cf_bitmap_count(bits, it->row, n);
    const cf_decoder_ops *ops = it->blk.dec->ops;
    const uint32_t *cw = NULL;
    if (ops->codewords != NULL)
        CF_TRY(cf_loaded_block_fail(&it->blk, ops->codewords(it->blk.dec, k, &cw, err), err));
    if (ops->view != NULL) {
        /* PLAIN: spread straight from the block (no dense copy first). */
        cf_expand_nulls(vals, ops->view(it->blk.dec, k), bits, it->row, n, k, it->es);
    } else if (cw != NULL) {
        /* DICT codewords: entries looked up straight into their rows. */
        cf_expand_dict((cf_slice *)(void *)vals, cw, it->r->dec_params.dict->entries, bits, it->row,
                       n, k);
    } else {
        /* The k values decoded straight into the rows' last k slots, then
         * spread in place: no dense buffer between, and with no NULLs among
         * the n rows the decode is the whole job. */
        uint8_t *tail = vals + (n - k) * it->es;
        size_t got = 0;
        CF_TRY(cf_loaded_block_fail(&it->blk, ops->next(it->blk.dec, tail, k, &got, err), err));
        if (got != k)
            CF_BLOCK_FAIL(&it->blk, err, "decoded %zu of %zu values", got, k);
        cf_expand_nulls(vals, tail, bits, it->row, n, k, it->es);
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
    while (!it->at_end && (!it->have_block || it->row >= it->blk.rows))
        CF_TRY(next_block(it, err));
    out->first_ord = cf_iter_current_ordinal(it);
    if (it->at_end || max_rows == 0)
        return CF_OK;
    const cf_file_info *fi = &it->r->info;
    size_t n = it->blk.rows - it->row;
    if (n > max_rows)
        n = max_rows;
    size_t es = it->es;
    if (fi->is_array) {
        const uint32_t *o = (const uint32_t *)(const void *)it->blk.offsets.data;
        size_t e0 = o[it->row], e1 = o[it->row + n], ne = e1 - e0;
        size_t k = cf_bitmap_count(it->blk.elem_nonnull.data, e0, ne);
        CF_TRY(decode_dense(it, &it->dense, k, err));
        cf_buf_clear(&it->out_vals);
        uint8_t *vals = cf_buf_extend(&it->out_vals, ne * es + 1);
        cf_buf_clear(&it->out_offsets);
        uint32_t *offs = (uint32_t *)(void *)cf_buf_extend(&it->out_offsets, (n + 1) * 4);
        uint8_t *enn = out_bitmap(&it->out_elem_nonnull, it->blk.elem_nonnull.data, e0, ne);
        uint8_t *cnn = out_bitmap(&it->out_nonnull, it->blk.cell_nonnull.data, it->row, n);
        CF_CHECK(vals && offs && enn && cnn, err, CF_ENOMEM, "out of memory for a batch");
        cf_expand_nulls(vals, it->dense.data, it->blk.elem_nonnull.data, e0, ne, k, es);
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
        if (it->blk.dec->ops->view && n <= it->blk.dec->count - it->blk.dec->pos) {
            const uint8_t *p = it->blk.dec->ops->view(it->blk.dec, 0);
            if (((uintptr_t)p & (align - 1)) == 0)
                v = it->blk.dec->ops->view(it->blk.dec, n);
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
    while (!it->at_end && (!it->have_block || it->row >= it->blk.rows))
        CF_TRY(next_block(it, err));
    if (it->at_end || cap == 0)
        return CF_OK;
    size_t n = it->blk.rows - it->row;
    if (n > cap)
        n = cap;
    if (it->blk.flat != NULL) {
        /* PLAIN: one memcpy from the block (cached, mapped or read), no
         * decoder call; the decoder's position follows so that a later
         * next_batch or seek agrees. */
        memcpy(values, it->blk.flat + (size_t)it->row * it->es, n * it->es);
        it->blk.dec->pos = it->row + n;
    } else if (it->r->info.nullable) {
        /* Scatter around the NULLs; the flags go out as well. */
        CF_TRY(nullable_rows(it, n, values, nonnull, err));
        nonnull = NULL;
    } else {
        size_t got = 0;
        CF_TRY(cf_loaded_block_fail(
            &it->blk, it->blk.dec->ops->next(it->blk.dec, values, n, &got, err), err));
        if (got != n)
            CF_BLOCK_FAIL(&it->blk, err, "decoded %zu of %zu values", got, n);
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
    *first_ord = it->blk.first_ord;
    *rows = it->blk.rows;
    *logical_size = it->blk.logical_len;
    *dict_mode = it->blk.dict_mode;
    /* Decode every present value (the only part not checked by load). */
    size_t left = it->blk.dec->count;
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
