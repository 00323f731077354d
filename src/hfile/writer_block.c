/* HFile writer: blocks. Owns the 33-byte block header, compression with the
 * file's codec, the checksum chunks, each block type's prev_block_offset
 * chain, appending to the io, and closing a data block (encoded with the
 * file's data block encoding, then indexed). It must not build index or
 * Bloom payloads (writer_index.c, writer_bloom.c). */
#include "writer.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "util/alloc.h"
#include "util/endian.h"
#include "util/error.h"

/* Block types that keep their own prev_block_offset chain. */
static const char *const kinds[NTYPES] = {HF_DATA,    HF_LEAF,   HF_BLOOMCHK, HF_META,
                                          HF_INTER,   HF_ROOT,   HF_FILEINFO, HF_GBLOOM,
                                          HF_DFBLOOM, HF_ENCDATA};

static int kind_of(const char *magic)
{
    for (int i = 0; i < NTYPES; i++)
        if (memcmp(kinds[i], magic, HF_MAGIC_LEN) == 0)
            return i;
    return 0;
}

/* writer.h */
cf_status cf_hfile_emit(cf_hfile_writer *w, const void *p, size_t n, cf_error *err)
{
    CF_TRY(w->io->ops->append(w->io, p, n, err));
    w->pos += n;
    return CF_OK;
}

/* Frame, compress, checksum and append one block. count_total: add it to the
 * trailer's total_uncompressed_bytes (HBase leaves the root/intermediate index out). */
/* writer.h */
cf_status cf_hfile_write_block(cf_hfile_writer *w, const char *magic, const uint8_t *p, size_t len,
                               bool count_total, uint64_t *off_out, uint32_t *size_out,
                               cf_error *err)
{
    cf_buf *o = &w->out;
    cf_buf_clear(o);
    CF_CHECK(cf_buf_extend(o, HF_HDR_CKSUM) != NULL, err, CF_ENOMEM, "hfile writer: out of memory");
    CF_TRY(cf_hfile_compress(w->o.compression, p, len, o, err));
    size_t data = o->len, bpc = w->o.bytes_per_checksum;
    size_t chunks = data / bpc + (data % bpc != 0);
    CF_CHECK(data - HF_HDR_CKSUM + chunks * 4 <= INT32_MAX && len <= INT32_MAX, err, CF_EINVAL,
             "hfile writer: block of %zu bytes is too large", len);
    int k = kind_of(magic);
    uint8_t *h = o->data;
    memcpy(h, magic, HF_MAGIC_LEN);
    cf_store_be32(h + 8, (uint32_t)(data - HF_HDR_CKSUM + chunks * 4));
    cf_store_be32(h + 12, (uint32_t)len);
    cf_store_be64(h + 16, (uint64_t)w->prev_off[k]);
    uint8_t ck = w->o.checksum_type;
    h[24] = ck;
    cf_store_be32(h + 25, (uint32_t)bpc);
    cf_store_be32(h + 29, (uint32_t)data);
    /* Type NULL keeps the area, zero-filled, as HBase's and Hudi's writers do. */
    for (size_t pos = 0; pos < data; pos += bpc) {
        size_t n = data - pos < bpc ? data - pos : bpc;
        cf_buf_put_be32(o, ck == 0 ? 0 : cf_hfile_checksum(ck, o->data + pos, n));
    }
    CF_TRY(cf_buf_status(o));
    uint64_t off = w->pos;
    CF_TRY(cf_hfile_emit(w, o->data, o->len, err));
    w->prev_off[k] = (int64_t)off;
    if (count_total)
        w->total_uncompressed += HF_HDR_CKSUM + len;
    if (off_out)
        *off_out = off;
    if (size_out)
        *size_out = (uint32_t)o->len;
    return CF_OK;
}

/* writer.h */
cf_status cf_hfile_finish_data_block(cf_hfile_writer *w, cf_error *err)
{
    if (w->blk_cells == 0)
        return CF_OK;
    uint64_t off;
    uint32_t size;
    if (w->o.encoding == CF_HFILE_DBE_NONE) {
        CF_TRY(cf_hfile_write_block(w, HF_DATA, w->blk.data, w->blk.len, true, &off, &size, err));
    } else {
        hf_cellfmt f = {w->o.include_mvcc, w->o.include_tags, w->o.compress_tags && w->delta, 0};
        cf_buf_clear(&w->enc);
        CF_TRY(cf_hfile_dbe_encode(w->o.encoding, w->blk.data, w->blk.len, &f, &w->enc, err));
        CF_TRY(
            cf_hfile_write_block(w, HF_ENCDATA, w->enc.data, w->enc.len, true, &off, &size, err));
    }
    cf_buf *k = &w->payload;
    if (!w->have_prev_blk) {
        cf_buf_clear(k);
        cf_buf_append(k, w->blk_first_key.data, w->blk_first_key.len);
        CF_TRY(cf_buf_status(k));
    } else {
        CF_TRY(cf_hfile_index_key(w, k, err));
    }
    CF_TRY(cf_hfile_ichunk_add(&w->leaf, k->data, k->len, off, size, 0, err));
    if (w->first_data_off < 0)
        w->first_data_off = (int64_t)off;
    w->last_data_off = (int64_t)off;
    cf_buf_clear(&w->prev_blk_last_key);
    cf_buf_append(&w->prev_blk_last_key, w->last_key.data, w->last_key.len);
    w->have_prev_blk = true;
    cf_buf_clear(&w->blk);
    w->blk_cells = 0;
    return cf_buf_status(&w->prev_blk_last_key);
}
