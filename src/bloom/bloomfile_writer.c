/* BloomFile writer (format §11.1, §11.5), byte-identical to Kudu's BloomFileWriter.
 *
 * The file is an ordinary CFile v2 (BINARY, PLAIN, no compression, no positional
 * index, a value index, no values) whose data blocks are raw bloom blocks:
 *
 *   offset   size            field
 *   0        4               hdr_len, fixed32 LE   \
 *   4        hdr_len         BloomBlockHeaderPB     } one raw block per bloom page
 *   4+hdr    bytes_per_block bitmap                /  (+ CRC-32C, added by the CFile layer)
 *
 * Each page is entered in the value index under its first key, shortened (§9.2)
 * against the last key of the previous page. A page is cut as soon as it holds
 * expected_count keys (§11.4), and at finish if it holds any. */
#include <string.h>

#include "cfile/extend.h"
#include "util/alloc.h"
#include "util/buf.h"
#include "util/bytes.h"
#include "util/error.h"
#include "bloom.h"
#include "cityhash.h"

struct cf_bloom_writer {
    cf_io *io;       /* where the file goes */
    cf_io *owned_io; /* io we created (create_file), freed with the writer */
    cf_writer *cw;
    cf_bloom_sizing sz;
    uint8_t *page; /* header then bitmap: the whole logical block */
    size_t hdr_len;
    size_t page_len;
    size_t page_count; /* keys in the current page */
    cf_buf first_key;  /* first key of the current page */
    cf_buf last_key;   /* the last key added (order check, and the page's last key) */
    uint64_t n_keys, n_blocks;
    bool finished;
    cf_sticky sticky; /* the first failure, replayed by every later call */
};

static cf_status fail(cf_bloom_writer *w, cf_status st, const cf_error *err)
{
    return cf_sticky_set(&w->sticky, st, err);
}

cf_status cf_bloom_writer_create(cf_bloom_writer **out, cf_io *io,
                                 const cf_bloom_writer_options *opts, cf_error *err)
{
    *out = NULL;
    cf_bloom_writer_options o;
    if (opts == NULL)
        cf_bloom_writer_options_init(&o);
    else
        o = *opts;
    CF_CHECK(o.version == CF_BLOOM_WRITER_OPTIONS_VERSION, err, CF_EINVAL,
             "version: %" PRIu32 " is not a bloom writer options layout this library knows",
             o.version);
    cf_bloom_sizing sz;
    CF_TRY(cf_bloom_sizing_compute(&sz, o.bytes_per_block, o.fp_rate, err));

    /* format §11.1: Kudu's BloomFileWriter's CFile options. */
    cf_writer_options wo;
    cf_writer_options_init(&wo, CF_TYPE_BINARY);
    wo.encoding = CF_ENC_PLAIN;
    wo.compression = CF_COMP_NONE;
    wo.write_posidx = false;
    wo.write_validx = true;
    wo.checksums = o.checksums;
    wo.optimize_index_keys = true;

    cf_bloom_writer *w = cf_calloc(1, sizeof *w);
    CF_CHECK(w != NULL, err, CF_ENOMEM, "out of memory creating a bloom writer");
    w->io = io;
    w->sz = sz;
    cf_buf_init(&w->first_key);
    cf_buf_init(&w->last_key);
    cf_status st = CF_OK;
    uint8_t hdr[CF_BLOOM_MAX_HEADER_LEN];
    w->hdr_len = cf_bloom_header_encode(hdr, sz.n_hashes);
    w->page_len = w->hdr_len + sz.n_bytes;
    w->page = cf_calloc(1, w->page_len);
    if (w->page == NULL) {
        st = cf_error_set(err, CF_ENOMEM, __FILE__, __LINE__,
                          "out of memory for a %zu-byte bloom block", w->page_len);
        goto out;
    }
    memcpy(w->page, hdr, w->hdr_len);
    st = cf_writer_create(&w->cw, io, &wo, err);
out:
    if (st != CF_OK) {
        cf_bloom_writer_free(w);
        return st;
    }
    *out = w;
    return CF_OK;
}

cf_status cf_bloom_writer_create_file(cf_bloom_writer **out, const char *path,
                                      const cf_bloom_writer_options *opts, cf_error *err)
{
    *out = NULL;
    cf_io *io;
    CF_TRY(cf_io_create_file(&io, path, err));
    cf_status st = cf_bloom_writer_create(out, io, opts, err);
    if (st != CF_OK) {
        cf_io_free(io);
        return st;
    }
    (*out)->owned_io = io;
    return CF_OK;
}

/* Write the current page as a raw block keyed by its first key (format §11.5). */
static cf_status flush_page(cf_bloom_writer *w, cf_error *err)
{
    cf_slice first = {w->first_key.data, w->first_key.len};
    cf_slice last = {w->last_key.data, w->last_key.len};
    CF_TRY(cf_writer_append_raw_block(w->cw, w->page, w->page_len, first, last, err));
    memset(w->page + w->hdr_len, 0, w->sz.n_bytes);
    w->page_count = 0;
    w->n_blocks++;
    return CF_OK;
}

static cf_status add_key(cf_bloom_writer *w, cf_slice key, cf_error *err)
{
    CF_CHECK(!w->finished, err, CF_ESTATE, "bloom writer: add after finish");
    CF_CHECK(key.data != NULL || key.len == 0, err, CF_EINVAL, "bloom writer: NULL key data");
    /* memcmp order, a proper prefix first (format §9.2). */
    if (w->n_keys > 0)
        CF_CHECK(cf_bytes_cmp(w->last_key.data, w->last_key.len, key.data, key.len) <= 0, err,
                 CF_EINVAL,
                 "bloom writer: key %" PRIu64 " is smaller than the key before it "
                 "(keys must be added in sorted order)",
                 w->n_keys);
    if (w->page_count == 0) {
        cf_buf_clear(&w->first_key);
        cf_buf_append(&w->first_key, key.data, key.len);
    }
    cf_buf_clear(&w->last_key);
    cf_buf_append(&w->last_key, key.data, key.len);
    CF_CHECK(!w->first_key.oom && !w->last_key.oom, err, CF_ENOMEM,
             "out of memory keeping a %zu-byte key", key.len);
    cf_bloom_set(w->page + w->hdr_len, w->sz.n_bytes * 8, w->sz.n_hashes,
                 cf_cityhash64(key.data, key.len));
    w->page_count++;
    w->n_keys++;
    if (w->page_count >= w->sz.expected_count)
        CF_TRY(flush_page(w, err));
    return CF_OK;
}

cf_status cf_bloom_writer_add(cf_bloom_writer *w, cf_slice key, cf_error *err)
{
    CF_TRY(cf_sticky_replay(&w->sticky, "bloom writer", err));
    return fail(w, add_key(w, key, err), err);
}

static cf_status finish(cf_bloom_writer *w, cf_error *err)
{
    CF_CHECK(!w->finished, err, CF_ESTATE, "bloom writer: finish called twice");
    if (w->page_count > 0)
        CF_TRY(flush_page(w, err));
    CF_TRY(cf_writer_finish(w->cw, err));
    w->finished = true;
    return CF_OK;
}

cf_status cf_bloom_writer_finish(cf_bloom_writer *w, cf_error *err)
{
    CF_TRY(cf_sticky_replay(&w->sticky, "bloom writer", err));
    return fail(w, finish(w, err), err);
}

const cf_bloom_sizing *cf_bloom_writer_sizing(const cf_bloom_writer *w)
{
    return &w->sz;
}
uint64_t cf_bloom_writer_num_keys(const cf_bloom_writer *w)
{
    return w->n_keys;
}
uint64_t cf_bloom_writer_num_blocks(const cf_bloom_writer *w)
{
    return w->n_blocks;
}

uint64_t cf_bloom_writer_written_size(const cf_bloom_writer *w)
{
    return w->io->ops->size(w->io);
}

void cf_bloom_writer_free(cf_bloom_writer *w)
{
    if (w == NULL)
        return;
    cf_writer_free(w->cw);
    cf_io_free(w->owned_io);
    cf_buf_dispose(&w->first_key);
    cf_buf_dispose(&w->last_key);
    cf_free(w->page);
    cf_free(w);
}
