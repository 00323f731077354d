/* cf_reader_verify: check every block of a file and report each one, so a
 * user can tell which rows of a damaged file are lost (DESIGN.md, `cfile verify`). */
#include "internal.h"
#include "extend.h"

#include <string.h>

#include "util/endian.h"
#include "util/error.h"

void cf_verify_report(cf_verifier *vs, const char *kind, cf_block_ptr p, uint64_t first,
                      uint64_t rows, cf_status st, const cf_error *e)
{
    uint32_t logical_size = vs->logical_size;
    int dict_mode = vs->dict_mode;
    uint32_t index_entries = vs->index_entries;
    unsigned index_level = vs->index_level;
    vs->logical_size = 0;
    vs->dict_mode = 0;
    vs->index_entries = 0;
    vs->index_level = 0;
    if (st != CF_OK) {
        vs->damaged++;
        cf_sticky_set(&vs->first, st, e);
    }
    if (vs->fn) {
        cf_block_report rep = {kind,
                               p.off,
                               p.size,
                               first,
                               rows,
                               st,
                               st == CF_OK ? NULL : e->msg,
                               logical_size,
                               dict_mode,
                               index_entries,
                               index_level};
        vs->fn(vs->ctx, &rep);
    }
}

typedef struct walk_ctx {
    cf_verifier *vs;
    const char *kind;
} walk_ctx;

static cf_status visit(void *vctx, unsigned level, cf_block_ptr ptr, const cf_index_block *ib,
                       cf_error *err)
{
    walk_ctx *wc = vctx;
    wc->vs->index_entries = ib->count;
    wc->vs->index_level = level;
    cf_verify_report(wc->vs, wc->kind, ptr, 0, 0, CF_OK, err);
    return CF_OK;
}

static cf_status read_cb(void *ctx, cf_block_ptr ptr, cf_buf *scratch, cf_slice *out, cf_error *err)
{
    return cf_reader_read_block(ctx, ptr, scratch, out, "index block", err);
}

/* The walk reads a block and then visits it, so the length read here is the
 * visited block's logical size. */
static cf_status walk_read_cb(void *ctx, cf_block_ptr ptr, cf_buf *scratch, cf_slice *out,
                              cf_error *err)
{
    cf_verifier *vs = ctx;
    cf_status st = cf_reader_read_block(vs->r, ptr, scratch, out, "index block", err);
    vs->logical_size = st == CF_OK ? (uint32_t)out->len : 0;
    return st;
}

cf_status cf_verify_index(cf_verifier *v, cf_block_ptr root, const char *kind)
{
    cf_error e = {0};
    walk_ctx wc = {v, kind};
    cf_status st = cf_btree_walk(root, walk_read_cb, v, visit, &wc, &e);
    if (st != CF_OK) {
        v->logical_size = 0; /* whatever was read last is not the root */
        cf_verify_report(v, kind, root, 0, 0, st, &e);
    }
    return st;
}

cf_status cf_verify_done(cf_verifier *v, size_t *damaged, cf_error *err)
{
    if (damaged)
        *damaged = v->damaged;
    return cf_sticky_first(&v->first, err);
}

/* Leaf keys are ordinals only in the positional tree. */
static bool data_by_position(const cf_verifier *vs)
{
    return vs->r->info.has_posidx;
}

/* Walk one tree's index blocks, then check every data block of its leaves. */
static void verify_tree(cf_verifier *vs, cf_iter *it, cf_block_ptr root, const char *kind,
                        bool data)
{
    if (cf_verify_index(vs, root, kind) != CF_OK || !data)
        return;
    cf_error e = {0};
    cf_btree_iter *bt = NULL;
    cf_status st = cf_btree_iter_create(&bt, root, read_cb, (void *)vs->r, &e);
    if (st == CF_OK)
        st = cf_btree_iter_seek_to_first(bt, &e);
    /* A damaged block's rows are unknown until the next block's first ordinal
     * (its positional key) or the file's end tells where it stopped. */
    uint64_t next_first = 0;
    bool pending = false;
    cf_block_ptr pend_ptr = {0, 0};
    uint64_t pend_first = 0;
    cf_error pend_err = {0};
    while (st == CF_OK) {
        cf_block_ptr p = cf_btree_iter_ptr(bt);
        cf_slice key = cf_btree_iter_key(bt);
        bool positional = key.len == 4 && data_by_position(vs);
        uint64_t first = positional ? cf_load_be32(key.data) : next_first, rows = 0;
        /* Where this block must start: its index key, and right after the
         * previous block when that one was intact (row 0 for the first). */
        uint64_t want = first;
        bool after_intact = !pending;
        if (pending) {
            uint64_t lost = positional && first > pend_first ? first - pend_first : 0;
            cf_verify_report(vs, "data block", pend_ptr, pend_first, lost, CF_ECORRUPT, &pend_err);
            pending = false;
        }
        uint32_t lsize = 0;
        int dmode = 0;
        cf_status bst = cf_iter_check_block(it, p, &first, &rows, &lsize, &dmode, &e);
        if (bst == CF_OK && (first != want || (after_intact && first != next_first)))
            bst = cf_error_set(&e, CF_ECORRUPT, __FILE__, __LINE__,
                               "data block at offset %llu: starts at row %llu, but the index "
                               "places it at row %llu",
                               (unsigned long long)p.off, (unsigned long long)first,
                               (unsigned long long)(first != want ? want : next_first));
        if (bst == CF_OK) {
            vs->logical_size = lsize;
            vs->dict_mode = dmode;
            cf_verify_report(vs, "data block", p, first, rows, CF_OK, &e);
        } else {
            pending = true;
            pend_ptr = p;
            pend_first = first;
            pend_err = e;
            pend_err.code = bst;
        }
        next_first = first + rows;
        st = cf_btree_iter_next(bt, &e);
    }
    if (pending) {
        uint64_t n = vs->r->info.num_values;
        cf_verify_report(vs, "data block", pend_ptr, pend_first,
                         n > pend_first ? n - pend_first : 0, pend_err.code, &pend_err);
    }
    if (st != CF_ENOTFOUND) {
        cf_verify_report(vs, kind, root, 0, 0, st, &e);
    } else if (vs->damaged == 0 && next_first != vs->r->info.num_values) {
        /* Every block decoded, yet they do not add up to the footer's count. */
        cf_error_set(&e, CF_ECORRUPT, __FILE__, __LINE__,
                     "the data blocks hold %llu rows but the footer claims %llu",
                     (unsigned long long)next_first, (unsigned long long)vs->r->info.num_values);
        cf_verify_report(vs, kind, root, 0, 0, CF_ECORRUPT, &e);
    }
    cf_btree_iter_free(bt);
}

cf_status cf_reader_verify(const cf_reader *r, cf_verify_fn fn, void *ctx, size_t *damaged,
                           cf_error *err)
{
    cf_verifier vs = {.r = r, .fn = fn, .ctx = ctx};
    const cf_file_info *fi = &r->info;
    if (fi->has_dict_block) { /* decoded at open: reaching here means it is intact */
        cf_block_ptr dp = {fi->dict_block_off, fi->dict_block_size};
        /* Read again only to learn its logical size for the report. */
        cf_buf scratch;
        cf_slice blk;
        cf_error e = {0};
        cf_buf_init(&scratch);
        if (cf_reader_read_block(r, dp, &scratch, &blk, "dictionary block", &e) == CF_OK)
            vs.logical_size = (uint32_t)blk.len;
        cf_buf_dispose(&scratch);
        cf_verify_report(&vs, "dictionary block", dp, 0, 0, CF_OK, NULL);
    }
    if (damaged)
        *damaged = 0;
    /* Without an index no data block can be found (Kudu cannot read such a
     * file either): say so rather than call it intact. */
    if (!fi->has_posidx && !fi->has_validx && fi->num_values > 0)
        CF_FAIL(err, CF_ENOTSUP,
                "file has neither a positional nor a value index: its %llu rows cannot be "
                "located",
                (unsigned long long)fi->num_values);
    cf_iter *it;
    CF_TRY(cf_iter_create(&it, r, err));
    if (fi->has_posidx)
        verify_tree(&vs, it, (cf_block_ptr){fi->posidx_root_off, fi->posidx_root_size},
                    "positional index", true);
    if (fi->has_validx)
        verify_tree(&vs, it, (cf_block_ptr){fi->validx_root_off, fi->validx_root_size},
                    "value index", !fi->has_posidx);
    cf_iter_free(it);
    return cf_verify_done(&vs, damaged, err);
}
