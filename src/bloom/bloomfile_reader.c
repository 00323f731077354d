/* BloomFile reader (format §11.5): find the bloom block through the value index
 * (seek at or before the key), parse its header (§11.2) and probe it (§11.3).
 *
 * Nothing is kept between probes, so one reader serves many threads; with a
 * memory or mmap io the uncompressed bloom block is probed in place (and with a
 * block cache its checksum is checked once, cf_reader_read_index_block). */
#include "cfile/extend.h"
#include "cfile/internal.h"
#include "util/alloc.h"
#include "util/buf.h"
#include "util/error.h"
#include "bloom.h"
#include "cityhash.h"

struct cf_bloom_reader {
    cf_reader *r;
    cf_io *owned_io;
};

static cf_status check_file(const cf_reader *r, cf_error *err)
{
    const cf_file_info *fi = cf_reader_info(r);
    /* An ordinary column with a value index would otherwise be "probed" and
     * answer absent for everything. The index checks follow, so a file shaped
     * like a BloomFile but missing its value index keeps Kudu's reasons. */
    CF_CHECK(fi->type == CF_TYPE_BINARY && fi->encoding == CF_ENC_PLAIN && fi->num_values == 0 &&
                 !fi->nullable && !fi->is_array,
             err, CF_EINVAL,
             "not a BloomFile: a CFile of %llu %s%s %s values (a BloomFile holds no values, "
             "only BINARY PLAIN bloom blocks)",
             (unsigned long long)fi->num_values,
             cf_type_name(fi->type) ? cf_type_name(fi->type) : "unknown-type",
             fi->is_array ? " array" : "",
             cf_encoding_name(fi->encoding) ? cf_encoding_name(fi->encoding) : "unknown-encoding");
    /* Kudu's BloomFileReader refuses both (format §11.1). */
    CF_CHECK(fi->compression == CF_COMP_NONE || fi->compression == CF_COMP_DEFAULT, err, CF_ENOTSUP,
             "bloom file is compressed (%s); bloom files must not be",
             cf_compression_name(fi->compression) ? cf_compression_name(fi->compression)
                                                  : "unknown codec");
    CF_CHECK(fi->has_validx, err, CF_ENOTSUP, "bloom file has no value index");
    return CF_OK;
}

cf_status cf_bloom_reader_open(cf_bloom_reader **out, cf_io *io, const cf_reader_options *opts,
                               cf_error *err)
{
    *out = NULL;
    cf_reader *r;
    CF_TRY(cf_reader_open(&r, io, opts, err));
    cf_status st = check_file(r, err);
    cf_bloom_reader *b = NULL;
    if (st == CF_OK) {
        b = cf_calloc(1, sizeof *b);
        if (b == NULL)
            st = cf_error_set(err, CF_ENOMEM, __FILE__, __LINE__,
                              "out of memory opening a bloom file");
    }
    if (st != CF_OK) {
        cf_reader_free(r);
        return st;
    }
    b->r = r;
    *out = b;
    return CF_OK;
}

cf_status cf_bloom_reader_open_file(cf_bloom_reader **out, const char *path, bool mmap,
                                    const cf_reader_options *opts, cf_error *err)
{
    *out = NULL;
    cf_io *io;
    CF_TRY(mmap ? cf_io_open_mmap(&io, path, err) : cf_io_open_file(&io, path, err));
    return cf_bloom_reader_open_owned(out, io, opts, err);
}

cf_status cf_bloom_reader_open_owned(cf_bloom_reader **out, cf_io *io,
                                     const cf_reader_options *opts, cf_error *err)
{
    cf_status st = cf_bloom_reader_open(out, io, opts, err);
    if (st != CF_OK) {
        cf_io_free(io);
        return st;
    }
    (*out)->owned_io = io;
    return CF_OK;
}

cf_status cf_bloom_reader_may_contain(const cf_bloom_reader *b, cf_slice key, bool *out,
                                      cf_error *err)
{
    *out = false;
    CF_CHECK(key.data != NULL || key.len == 0, err, CF_EINVAL, "bloom probe: NULL key data");
    cf_block_ptr ptr;
    bool before_all = false;
    cf_status st = cf_reader_find_validx_block(b->r, key, &ptr, &before_all, err);
    if (st == CF_ENOTFOUND) /* no bloom blocks at all: nothing is present */
        return CF_OK;
    CF_TRY(st);
    if (before_all) /* smaller than every page's first key */
        return CF_OK;
    cf_buf scratch;
    cf_buf_init(&scratch);
    cf_slice blk;
    cf_bloom_block bb;
    st = cf_reader_read_index_block(b->r, ptr, &scratch, &blk, "bloom block", err);
    if (st == CF_OK)
        st = cf_bloom_block_parse(&bb, blk.data, blk.len, err);
    if (st == CF_OK)
        *out = cf_bloom_test(&bb, cf_cityhash64(key.data, key.len));
    else
        cf_error_prefix(err, st, "bloom block at offset %" PRIu64, ptr.off);
    cf_buf_dispose(&scratch);
    return st;
}

/* ---- verify ------------------------------------------------------------------------------- */

/* A damaged block shows no logical size. */
static void breport(cf_verifier *v, const char *kind, cf_block_ptr p, cf_status st,
                    const cf_error *e)
{
    if (st != CF_OK)
        v->logical_size = 0;
    cf_verify_report(v, kind, p, 0, 0, st, e);
}

static cf_status bread(void *ctx, cf_block_ptr ptr, cf_buf *scratch, cf_slice *out, cf_error *err)
{
    return cf_reader_read_block(ctx, ptr, scratch, out, "index block", err);
}

cf_status cf_bloom_reader_verify(const cf_bloom_reader *b, cf_verify_fn fn, void *ctx,
                                 size_t *damaged, cf_error *err)
{
    const cf_file_info *fi = cf_reader_info(b->r);
    cf_block_ptr root = {fi->validx_root_off, fi->validx_root_size};
    cf_verifier v = {.r = b->r, .fn = fn, .ctx = ctx};
    cf_error e = {0};
    if (damaged != NULL)
        *damaged = 0;
    /* A damaged index hides the bloom blocks below it. */
    cf_status st = cf_verify_index(&v, root, "value index");
    if (st == CF_OK) {
        cf_btree_iter *bt = NULL;
        cf_buf scratch;
        cf_buf_init(&scratch);
        st = cf_btree_iter_create(&bt, root, bread, (void *)b->r, &e);
        if (st == CF_OK)
            st = cf_btree_iter_seek_to_first(bt, &e);
        while (st == CF_OK) {
            cf_block_ptr p = cf_btree_iter_ptr(bt);
            cf_slice blk;
            cf_bloom_block bb;
            cf_error be = {0};
            cf_status bst = cf_reader_read_block(b->r, p, &scratch, &blk, "bloom block", &be);
            if (bst == CF_OK) {
                v.logical_size = (uint32_t)blk.len;
                bst = cf_bloom_block_parse(&bb, blk.data, blk.len, &be);
                if (bst != CF_OK)
                    cf_error_prefix(&be, bst, "bloom block at offset %" PRIu64, p.off);
            }
            breport(&v, "bloom block", p, bst, &be);
            st = cf_btree_iter_next(bt, &e);
        }
        if (st != CF_ENOTFOUND) /* the walk saw every index block, so this is unexpected */
            breport(&v, "value index", root, st, &e);
        cf_btree_iter_free(bt);
        cf_buf_dispose(&scratch);
    }
    return cf_verify_done(&v, damaged, err);
}

const cf_reader *cf_bloom_reader_cfile(const cf_bloom_reader *b)
{
    return b->r;
}

void cf_bloom_reader_free(cf_bloom_reader *b)
{
    if (b == NULL)
        return;
    cf_reader_free(b->r);
    cf_io_free(b->owned_io);
    cf_free(b);
}
