/* An HFile's meta blocks (METABLKc, HBase HFile.Reader.getMetaBlock): the
 * meta index entries by number and a meta block's payload, v1 (bare,
 * compressed to wherever the next structure starts) or v2/v3 (framed).
 * Owns nothing of the handle: reader.c fills h->metas when it opens the file.
 * It must not parse the meta index (index.c) nor frame blocks (block.c). */
#include "internal.h"

#include <stdlib.h>
#include <string.h>

#include "util/alloc.h"
#include "util/error.h"

bool cf_hfile_meta_at(const cf_hfile *h, size_t i, cf_slice *name, uint64_t *offset,
                      uint32_t *on_disk_size)
{
    if (i >= h->info.meta_count) {
        *name = (cf_slice){NULL, 0};
        *offset = 0;
        *on_disk_size = 0;
        return false;
    }
    const hf_entry *e = &h->metas[i];
    *name = (cf_slice){h->meta_keys.data + e->key_off, e->key_len};
    *offset = e->off;
    *on_disk_size = e->size;
    return true;
}

void cf_hfile_bytes_free(void *p)
{
    cf_free(p);
}

cf_status cf_hfile_meta_read(const cf_hfile *h, size_t i, uint8_t **out, size_t *len, cf_error *err)
{
    *out = NULL;
    *len = 0;
    CF_CHECK(i < h->info.meta_count, err, CF_EINVAL, "meta block %zu of %zu", i,
             h->info.meta_count);
    const hf_entry *e = &h->metas[i];
    cf_status st = CF_OK;
    hf_block blk;
    cf_hfile_block_init(&blk);
    const uint8_t *src;
    size_t n;
    if (h->tr.major == 1) {
        CF_CHECK(e->off <= h->file_size && e->size <= h->file_size - e->off &&
                     e->size <= h->opt.max_block_len,
                 err, CF_ECORRUPT, "v1 meta block %zu: bad extent", i);
        CF_CHECK(cf_buf_reserve(&blk.raw, e->size), err, CF_ENOMEM, "out of memory");
        CF_TRY_OUT(h->io->ops->read_at(h->io, e->off, blk.raw.data, e->size, err));
        CF_TRY_OUT(cf_hfile_decompress_grow(h->tr.compression_codec, blk.raw.data, e->size,
                                            &blk.unpacked, h->opt.max_block_len, err));
        if (blk.unpacked.len < HF_MAGIC_LEN || memcmp(blk.unpacked.data, HF_META, HF_MAGIC_LEN))
            CF_FAIL_OUT(err, CF_ECORRUPT, "v1 meta block %zu: bad magic", i);
        src = blk.unpacked.data + HF_MAGIC_LEN;
        n = blk.unpacked.len - HF_MAGIC_LEN;
    } else {
        CF_TRY_OUT(
            cf_hfile_read_block(h, e->off, e->size, HF_META, h->opt.verify_checksums, &blk, err));
        src = blk.payload;
        n = blk.payload_len;
    }
    *out = cf_malloc(n ? n : 1);
    if (*out == NULL)
        CF_FAIL_OUT(err, CF_ENOMEM, "out of memory");
    memcpy(*out, src, n);
    *len = n;
out:
    cf_hfile_block_dispose(&blk);
    return st;
}
