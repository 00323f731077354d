/* HFile v3 writer, laid out in HBase's block order (HFileWriterImpl,
 * HFileBlockIndex.BlockIndexWriter, CompoundBloomFilterWriter):
 *
 *   DATABLK* ... with inline IDXLEAF2 (when the leaf chunk reaches the index
 *     block size) and BLMFBLK2 (when a Bloom chunk is full) after a data block
 *   METABLKc (user meta blocks)
 *   IDXINTE2 (only when the root would exceed the index block size)
 *   IDXROOT2 data root (+ 16-byte mid-key metadata when multi-level)
 *   IDXROOT2 meta index | FILEINF2 ("PBUF" + delimited FileInfoProto) |
 *   BLMFMET2 | 4096-byte trailer (magic, delimited FileTrailerProto, zeros,
 *   version 0x03000003)
 * Every block: 33-byte header, payload compressed with the file's codec,
 * checksums (CRC32C unless the options say CRC32 or NULL) over header + payload
 * in chunks of bytes_per_checksum.
 * Non-first data blocks are indexed by HBase's shortened "mid-point" key.
 *
 * This file owns the public calls (options, create, append with its checks
 * and the cut between data blocks, user FileInfo and meta blocks, free) and
 * the finish sequence above; the parts it writes live by name (writer.h):
 * writer_block.c (framing a block), writer_index.c (the block index),
 * writer_bloom.c (Bloom chunks), writer_file_info.c (FileInfo). It must not
 * build any of those payloads itself.
 */
#include "writer.h"

#include <stdlib.h>
#include <string.h>

#include "hfile.pb-c.h"
#include "util/alloc.h"
#include "util/endian.h"
#include "util/error.h"

#define KV_COMPARATOR "org.apache.hadoop.hbase.KeyValue$KVComparator"

void cf_hfile_writer_options_init(cf_hfile_writer_options *opts)
{
    memset(opts, 0, sizeof(*opts));
    opts->version = CF_HFILE_WRITER_OPTIONS_VERSION;
    opts->compression = CF_HFILE_NONE;
    opts->block_size = 65536;
    opts->bytes_per_checksum = 16384;
    opts->checksum_type = 2;
    opts->index_block_size = 131072;
    opts->index_min_entries = 16;
    opts->row_bloom = true;
    opts->bloom_chunk_size = 131072;
    opts->bloom_error_rate = 0.01;
    opts->include_mvcc = true;
    opts->include_tags = false;
    opts->create_time = 0;
    opts->comparator = NULL;
    opts->encoding = CF_HFILE_DBE_NONE;
    opts->compress_tags = true;
}

/* ---- public -------------------------------------------------------------------------- */

cf_status cf_hfile_writer_create(cf_hfile_writer **out, cf_io *io,
                                 const cf_hfile_writer_options *opts, cf_error *err)
{
    *out = NULL;
    CF_CHECK(io != NULL && io->ops->append != NULL, err, CF_EINVAL,
             "hfile writer: io is not writable");
    cf_hfile_writer_options d;
    if (opts == NULL) {
        cf_hfile_writer_options_init(&d);
        opts = &d;
    }
    CF_CHECK(opts->version == CF_HFILE_WRITER_OPTIONS_VERSION, err, CF_EINVAL,
             "hfile writer options: version %" PRIu32 " (call cf_hfile_writer_options_init)",
             opts->version);
    CF_CHECK(cf_hfile_codec_name(opts->compression) != NULL, err, CF_EINVAL,
             "hfile writer: unknown compression %" PRIu32, opts->compression);
    CF_CHECK(cf_hfile_codec_built(opts->compression), err, CF_ENOTSUP,
             "hfile writer: compression %s is not built in",
             cf_hfile_codec_name(opts->compression));
    CF_CHECK(opts->block_size > 0, err, CF_EINVAL, "hfile writer: block_size 0");
    CF_CHECK(opts->bytes_per_checksum >= 512, err, CF_EINVAL,
             "hfile writer: bytes_per_checksum %" PRIu32 " (minimum 512)",
             opts->bytes_per_checksum);
    CF_CHECK(opts->checksum_type <= 2, err, CF_EINVAL,
             "hfile writer: checksum type %u (0 NULL, 1 CRC32, 2 CRC32C)", opts->checksum_type);
    CF_CHECK(opts->index_block_size >= 256, err, CF_EINVAL,
             "hfile writer: index_block_size %" PRIu32, opts->index_block_size);
    CF_CHECK(!opts->row_bloom ||
                 (opts->bloom_chunk_size >= 16 && opts->bloom_chunk_size <= (1u << 26) &&
                  opts->bloom_error_rate > 0 && opts->bloom_error_rate < 1),
             err, CF_EINVAL, "hfile writer: bad Bloom chunk size or error rate");
    int e = opts->encoding;
    CF_CHECK(e == CF_HFILE_DBE_NONE || e == CF_HFILE_DBE_PREFIX || e == CF_HFILE_DBE_DIFF ||
                 e == CF_HFILE_DBE_FAST_DIFF || e == CF_HFILE_DBE_ROW_INDEX_V1,
             err, CF_EINVAL, "hfile writer: data block encoding %d cannot be written", e);
    const char *cmp = opts->comparator ? opts->comparator : KV_COMPARATOR;
    CF_CHECK(strlen(cmp) < 256, err, CF_EINVAL, "hfile writer: comparator name too long");
    cf_hfile_writer *w = cf_calloc(1, sizeof(*w));
    CF_CHECK(w != NULL, err, CF_ENOMEM, "hfile writer: out of memory");
    w->io = io;
    w->o = *opts;
    strcpy(w->comparator, cmp);
    for (int i = 0; i < NTYPES; i++)
        w->prev_off[i] = -1;
    /* Its cf_bufs start empty: cf_calloc zeroed them, which is what cf_buf_init
     * does (their one list is in cf_hfile_writer_free). */
    cf_hfile_ichunk_init(&w->leaf);
    cf_hfile_ichunk_init(&w->root);
    cf_hfile_ichunk_init(&w->bloom_index);
    w->delta = opts->encoding == CF_HFILE_DBE_PREFIX || opts->encoding == CF_HFILE_DBE_DIFF ||
               opts->encoding == CF_HFILE_DBE_FAST_DIFF;
    w->levels = 1;
    w->first_data_off = -1;
    w->last_data_off = -1;
    w->pos = io->ops->size(io);
    if (w->o.row_bloom)
        cf_hfile_bloom_setup(w);
    *out = w;
    return CF_OK;
}

void cf_hfile_writer_free(cf_hfile_writer *w)
{
    if (w == NULL)
        return;
    cf_buf *bufs[] = {&w->out,
                      &w->payload,
                      &w->key,
                      &w->last_key,
                      &w->blk,
                      &w->blk_first_key,
                      &w->prev_blk_last_key,
                      &w->chunk_first_key,
                      &w->last_row,
                      &w->ready_data,
                      &w->user_fi,
                      &w->metas,
                      &w->enc};
    for (size_t i = 0; i < sizeof(bufs) / sizeof(bufs[0]); i++)
        cf_buf_dispose(bufs[i]);
    cf_hfile_ichunk_dispose(&w->leaf);
    cf_hfile_ichunk_dispose(&w->root);
    cf_hfile_ichunk_dispose(&w->bloom_index);
    cf_free(w->bits);
    cf_free(w->ready);
    cf_free(w);
}

static cf_status append(cf_hfile_writer *w, const cf_hfile_cell *c, cf_error *err)
{
    CF_CHECK(c->row.len <= 32767 && c->family.len <= 127, err, CF_EINVAL,
             "hfile writer: row (%zu bytes) or family (%zu bytes) too long", c->row.len,
             c->family.len);
    CF_CHECK(c->tags.len == 0 || w->o.include_tags, err, CF_EINVAL,
             "hfile writer: cell has tags but include_tags is off");
    CF_CHECK(c->tags.len <= 65535 && c->value.len <= INT32_MAX &&
                 c->qualifier.len <= INT32_MAX - 32767 - 200,
             err, CF_EINVAL, "hfile writer: cell too large");
    cf_buf *k = &w->key;
    cf_buf_clear(k);
    cf_hfile_put_key(k, c->row, c->family, c->qualifier, c->timestamp, c->type);
    CF_CHECK(!k->oom, err, CF_ENOMEM, "hfile writer: out of memory");
    if (w->entries > 0) {
        cf_hfile_cell prev;
        CF_TRY(cf_hfile_parse_key(&prev, w->last_key.data, w->last_key.len, err));
        cf_hfile_cell cur = *c;
        CF_CHECK(cf_hfile_cell_compare(&prev, &cur) <= 0, err, CF_EINVAL,
                 "hfile writer: cell %" PRIu64 " sorts before the previous cell", w->entries);
        /* HBase's delta encoders copy the family from the previous cell. */
        CF_CHECK(!w->delta || (prev.family.len == c->family.len &&
                               memcmp(prev.family.data, c->family.data, c->family.len) == 0),
                 err, CF_EINVAL,
                 "hfile writer: cell %" PRIu64 ": %s encoding needs one column "
                 "family per file",
                 w->entries, cf_hfile_encoding_name(w->o.encoding));
    }
    /* StoreFileWriter feeds the Bloom before the cell reaches the HFile writer. */
    if (w->o.row_bloom && (!w->have_row || w->last_row.len != c->row.len ||
                           (c->row.len && memcmp(w->last_row.data, c->row.data, c->row.len)))) {
        CF_TRY(cf_hfile_bloom_add(w, c->row.data, c->row.len, err));
        cf_buf_clear(&w->last_row);
        cf_buf_append(&w->last_row, c->row.data, c->row.len);
        w->have_row = true;
    }
    if (w->blk_cells > 0 && w->blk.len >= w->o.block_size) {
        CF_TRY(cf_hfile_finish_data_block(w, err));
        CF_TRY(cf_hfile_write_inline(w, false, err));
    }
    if (w->blk_cells == 0) {
        cf_buf_clear(&w->blk_first_key);
        cf_buf_append(&w->blk_first_key, k->data, k->len);
    }
    cf_buf *b = &w->blk;
    cf_buf_put_be32(b, (uint32_t)k->len);
    cf_buf_put_be32(b, (uint32_t)c->value.len);
    cf_buf_append(b, k->data, k->len);
    cf_buf_append(b, c->value.data, c->value.len);
    if (w->o.include_tags) {
        uint8_t t[2] = {(uint8_t)(c->tags.len >> 8), (uint8_t)c->tags.len};
        cf_buf_append(b, t, 2);
        cf_buf_append(b, c->tags.data, c->tags.len);
    }
    if (w->o.include_mvcc)
        cf_hfile_put_vlong(b, (int64_t)c->mvcc);
    CF_CHECK(!b->oom, err, CF_ENOMEM, "hfile writer: out of memory");
    w->blk_cells++;
    w->entries++;
    w->total_key_len += k->len;
    w->total_val_len += c->value.len;
    if (c->tags.len > w->max_tags)
        w->max_tags = (uint32_t)c->tags.len;
    if (c->mvcc > w->max_mvcc)
        w->max_mvcc = c->mvcc;
    cf_buf_clear(&w->last_key);
    cf_buf_append(&w->last_key, k->data, k->len);
    CF_CHECK(!w->last_key.oom, err, CF_ENOMEM, "hfile writer: out of memory");
    return CF_OK;
}

cf_status cf_hfile_writer_append(cf_hfile_writer *w, const cf_hfile_cell *c, cf_error *err)
{
    CF_TRY(cf_sticky_replay(&w->sticky, "hfile writer", err));
    CF_CHECK(!w->finished, err, CF_ESTATE, "hfile writer: append after finish");
    /* The first failure (a bad cell included) is sticky: the file is unusable. */
    return cf_sticky_set(&w->sticky, append(w, c, err), err);
}

cf_status cf_hfile_writer_add_file_info(cf_hfile_writer *w, const void *key, size_t key_len,
                                        const void *value, size_t value_len, cf_error *err)
{
    CF_TRY(cf_sticky_replay(&w->sticky, "hfile writer", err));
    CF_CHECK(!w->finished, err, CF_ESTATE, "hfile writer: add_file_info after finish");
    CF_CHECK(key_len > 0 && key_len < (1u << 20) && value_len < (1u << 26), err, CF_EINVAL,
             "hfile writer: bad FileInfo entry size");
    CF_CHECK(!(key_len >= 6 && memcmp(key, "hfile.", 6) == 0), err, CF_EINVAL,
             "hfile writer: FileInfo keys starting with \"hfile.\" are reserved");
    cf_hfile_put_record(&w->user_fi, key, key_len, value, value_len);
    if (w->user_fi.oom)
        return cf_sticky_set(
            &w->sticky,
            cf_error_set(err, CF_ENOMEM, __FILE__, __LINE__, "hfile writer: out of memory"), err);
    return CF_OK;
}

cf_status cf_hfile_writer_add_meta(cf_hfile_writer *w, const char *name, const void *data,
                                   size_t len, cf_error *err)
{
    CF_TRY(cf_sticky_replay(&w->sticky, "hfile writer", err));
    CF_CHECK(!w->finished, err, CF_ESTATE, "hfile writer: add_meta after finish");
    CF_CHECK(name && *name && len <= INT32_MAX / 2, err, CF_EINVAL, "hfile writer: bad meta block");
    cf_hfile_put_record(&w->metas, name, strlen(name), data, len);
    if (w->metas.oom)
        return cf_sticky_set(
            &w->sticky,
            cf_error_set(err, CF_ENOMEM, __FILE__, __LINE__, "hfile writer: out of memory"), err);
    return CF_OK;
}

static cf_status finish(cf_hfile_writer *w, cf_error *err)
{
    CF_TRY(cf_hfile_finish_data_block(w, err));
    CF_TRY(cf_hfile_write_inline(w, true, err));

    /* Meta blocks, by name. */
    ichunk meta;
    cf_hfile_ichunk_init(&meta);
    size_t nm = 0;
    rec *mr = cf_hfile_records(&w->metas, &nm);
    cf_status st = mr ? CF_OK : cf_error_set(err, CF_ENOMEM, __FILE__, __LINE__, "out of memory");
    for (size_t i = 0; i < nm && st == CF_OK; i++) {
        uint64_t off;
        uint32_t size;
        st = cf_hfile_write_block(w, HF_META, mr[i].v, mr[i].vl, true, &off, &size, err);
        if (st == CF_OK)
            st = cf_hfile_ichunk_add(&meta, mr[i].k, mr[i].kl, off, size, 0, err);
    }
    cf_free(mr);
    uint8_t midmeta[16];
    bool multi = w->root.n > 0;
    uint64_t root_off = 0;
    if (st != CF_OK)
        goto out;

    /* Data index: intermediate levels first, then the root (load-on-open starts here). */
    ichunk *root = multi ? &w->root : &w->leaf;
    if (multi) {
        uint64_t total = w->root.sub[w->root.n - 1];
        uint64_t mid = (total - 1) / 2;
        size_t e = 0;
        while (w->root.sub[e] <= mid)
            e++;
        uint64_t before = e > 0 ? w->root.sub[e - 1] : 0;
        cf_store_be64(midmeta, w->root.v[e].off);
        cf_store_be32(midmeta + 8, w->root.v[e].size);
        cf_store_be32(midmeta + 12, (uint32_t)(mid - before));
        while (w->root.root_bytes > w->o.index_block_size && w->root.n > w->o.index_min_entries &&
               w->levels < 16) {
            ichunk parent;
            cf_hfile_ichunk_init(&parent);
            st = cf_hfile_write_intermediate_level(w, &w->root, &parent, err);
            cf_hfile_ichunk_dispose(&w->root);
            w->root = parent;
            w->levels++;
            if (st != CF_OK)
                goto out;
        }
    }
    cf_buf_clear(&w->payload);
    cf_hfile_ichunk_write_root(root, &w->payload);
    if (multi)
        cf_buf_append(&w->payload, midmeta, 16);
    if ((st = cf_buf_status(&w->payload)) != CF_OK)
        goto out;
    root_off = w->pos;
    if ((st = cf_hfile_write_block(w, HF_ROOT, w->payload.data, w->payload.len, false, NULL, NULL,
                                   err)) != CF_OK)
        goto out;
    w->index_uncompressed += w->payload.len;
    uint32_t root_entries = (uint32_t)root->n;

    cf_buf_clear(&w->payload);
    cf_hfile_ichunk_write_root(&meta, &w->payload);
    if ((st = cf_buf_status(&w->payload)) != CF_OK)
        goto out;
    if ((st = cf_hfile_write_block(w, HF_ROOT, w->payload.data, w->payload.len, true, NULL, NULL,
                                   err)) != CF_OK)
        goto out;

    uint64_t fi_off = w->pos;
    if ((st = cf_hfile_write_file_info(w, err)) != CF_OK)
        goto out;

    if (w->o.row_bloom && w->bloom_total_keys > 0) {
        cf_buf *b = &w->payload;
        cf_buf_clear(b);
        cf_buf_put_be32(b, 3);
        cf_hfile_put_be64(b, w->bloom_total_bytes);
        cf_buf_put_be32(b, w->hash_count);
        cf_buf_put_be32(b, CF_HFILE_HASH_MURMUR);
        cf_hfile_put_be64(b, w->bloom_total_keys);
        cf_hfile_put_be64(b, w->bloom_total_max);
        cf_buf_put_be32(b, (uint32_t)w->bloom_index.n);
        cf_buf_put_u8(b, 0); /* ROW Blooms carry no comparator name */
        cf_hfile_ichunk_write_root(&w->bloom_index, b);
        if ((st = cf_buf_status(b)) != CF_OK)
            goto out;
        if ((st = cf_hfile_write_block(w, HF_GBLOOM, b->data, b->len, true, NULL, NULL, err)) !=
            CF_OK)
            goto out;
    }

    /* Trailer. */
    {
        Hbase__FileTrailerProto t;
        hbase__file_trailer_proto__init(&t);
        t.has_file_info_offset = t.has_load_on_open_data_offset = true;
        t.has_uncompressed_data_index_size = t.has_total_uncompressed_bytes = true;
        t.has_data_index_count = t.has_meta_index_count = t.has_entry_count = true;
        t.has_num_data_index_levels = t.has_first_data_block_offset = true;
        t.has_last_data_block_offset = t.has_compression_codec = true;
        t.file_info_offset = fi_off;
        t.load_on_open_data_offset = root_off;
        t.uncompressed_data_index_size = w->index_uncompressed;
        t.total_uncompressed_bytes = w->total_uncompressed + HF_TRAILER_V3;
        t.data_index_count = root_entries;
        t.meta_index_count = (uint32_t)meta.n;
        t.entry_count = w->entries;
        t.num_data_index_levels = w->levels;
        t.first_data_block_offset = (uint64_t)w->first_data_off;
        t.last_data_block_offset = (uint64_t)w->last_data_off;
        t.comparator_class_name = w->comparator;
        t.compression_codec = w->o.compression;
        size_t plen = hbase__file_trailer_proto__get_packed_size(&t);
        uint8_t tr[HF_TRAILER_V3];
        memset(tr, 0, sizeof(tr));
        memcpy(tr, HF_TRAILER, HF_MAGIC_LEN);
        cf_buf v;
        cf_buf_init(&v);
        cf_hfile_put_varint(&v, plen);
        st = cf_buf_status(&v);
        if (st == CF_OK && HF_MAGIC_LEN + v.len + plen > HF_TRAILER_V3 - 4)
            st = cf_error_set(err, CF_EINVAL, __FILE__, __LINE__,
                              "hfile writer: trailer does not fit (comparator name too long?)");
        if (st == CF_OK) {
            memcpy(tr + HF_MAGIC_LEN, v.data, v.len);
            hbase__file_trailer_proto__pack(&t, tr + HF_MAGIC_LEN + v.len);
            cf_store_be32(tr + HF_TRAILER_V3 - 4, (3u << 24) | 3u);
            st = cf_hfile_emit(w, tr, sizeof(tr), err);
        }
        cf_buf_dispose(&v);
    }
out:
    cf_hfile_ichunk_dispose(&meta);
    return st;
}

cf_status cf_hfile_writer_finish(cf_hfile_writer *w, cf_error *err)
{
    CF_TRY(cf_sticky_replay(&w->sticky, "hfile writer", err));
    CF_CHECK(!w->finished, err, CF_ESTATE, "hfile writer: finish called twice");
    w->finished = true;
    return cf_sticky_set(&w->sticky, finish(w, err), err);
}
