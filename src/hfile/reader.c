/* Opening an HFile: the version's sections in order (v1: FileInfo, data
 * index, meta index; v2/v3: the load-on-open section), the handle and its
 * plain getters, and the walk over every block header.
 *
 * File layout (v2/v3), in HBase's block order:
 *   data blocks, with inline IDXLEAF2 leaf-index and BLMFBLK2 Bloom chunks
 *   METABLKc meta blocks
 *   IDXINTE2 intermediate index blocks (3+ levels)
 *   load-on-open: IDXROOT2 data root (+16 bytes mid-key metadata when
 *     multi-level) | IDXROOT2 meta index | FILEINF2 | BLMFMET2 | DFBLMET2
 *   trailer
 *
 * The parts it reads live by name: trailer.c (the trailer), index.c (root and
 * non-root index blocks, flattening the data index), file_info.c (FileInfo),
 * bloom_meta.c (Bloom metadata), meta.c (meta blocks). This file owns the
 * order of the sections and the checks between them, and what FileInfo's
 * values mean for reading cells (mvcc, tags, data block encoding). It must not
 * parse any of those structures itself.
 */
#include "internal.h"

#include <stdlib.h>
#include <string.h>

#include "util/alloc.h"
#include "util/endian.h"
#include "util/error.h"

#define HF_MAX_LEVELS 16

void cf_hfile_options_init(cf_hfile_options *opts)
{
    memset(opts, 0, sizeof(*opts));
    opts->version = CF_HFILE_OPTIONS_VERSION;
    opts->verify_checksums = true;
    opts->max_block_len = (size_t)256 << 20;
}

static const char *const type_names[] = {
    "Minimum", "Put", "Delete", "DeleteFamilyVersion", "DeleteColumn", "DeleteFamily", "Maximum"};

const char *cf_hfile_type_name(uint8_t t)
{
    switch (t) {
    case CF_HFILE_MINIMUM: return type_names[0];
    case CF_HFILE_PUT: return type_names[1];
    case CF_HFILE_DELETE: return type_names[2];
    case CF_HFILE_DELETE_FAMILY_VERSION: return type_names[3];
    case CF_HFILE_DELETE_COLUMN: return type_names[4];
    case CF_HFILE_DELETE_FAMILY: return type_names[5];
    case CF_HFILE_MAXIMUM: return type_names[6];
    default: return NULL;
    }
}

/* ---- open ---------------------------------------------------------------------------- */

/* A compressed v1 index stores each block's uncompressed size; its bytes on
 * disk run to whatever structure starts next (a block, FileInfo, an index). */
static uint64_t v1_next(const cf_hfile *h, uint64_t off, uint64_t tstart)
{
    const cf_hfile_trailer *t = &h->tr;
    uint64_t end = tstart;
    uint64_t fixed[3] = {t->file_info_offset, t->data_index_offset, t->meta_index_offset};
    for (int i = 0; i < 3; i++)
        if (fixed[i] > off && fixed[i] < end)
            end = fixed[i];
    for (uint64_t i = 0; i < h->info.num_data_blocks; i++)
        if (h->blocks[i].off > off && h->blocks[i].off < end)
            end = h->blocks[i].off;
    for (size_t i = 0; i < h->info.meta_count; i++)
        if (h->metas[i].off > off && h->metas[i].off < end)
            end = h->metas[i].off;
    return end;
}

static void fix_v1_extents(cf_hfile *h, uint64_t tstart)
{
    for (uint64_t i = 0; i < h->info.num_data_blocks; i++) {
        uint64_t n = v1_next(h, h->blocks[i].off, tstart) - h->blocks[i].off;
        h->blocks[i].size = n > UINT32_MAX ? UINT32_MAX : (uint32_t)n;
    }
    for (size_t i = 0; i < h->info.meta_count; i++) {
        uint64_t n = v1_next(h, h->metas[i].off, tstart) - h->metas[i].off;
        h->metas[i].size = n > UINT32_MAX ? UINT32_MAX : (uint32_t)n;
    }
}

static cf_status open_v1(cf_hfile *h, cf_error *err)
{
    cf_hfile_trailer *t = &h->tr;
    uint64_t tstart = h->file_size - t->trailer_size;
    h->hdr_size = 0;
    CF_CHECK(t->file_info_offset <= tstart && t->data_index_offset <= tstart &&
                 t->meta_index_offset <= tstart,
             err, CF_ECORRUPT, "v1 trailer: offsets past the trailer");
    cf_status st = CF_OK;
    uint8_t *buf = NULL;
    /* FileInfo runs up to the data index (v1 writes it just before). */
    uint64_t fi_end = t->data_index_offset > t->file_info_offset ? t->data_index_offset : tstart;
    size_t n = (size_t)(fi_end - t->file_info_offset);
    CF_CHECK(n <= h->opt.max_block_len, err, CF_ECORRUPT, "v1 file info too large");
    buf = cf_malloc(n ? n : 1);
    CF_CHECK(buf != NULL, err, CF_ENOMEM, "out of memory");
    CF_TRY_OUT(h->io->ops->read_at(h->io, t->file_info_offset, buf, n, err));
    CF_TRY_OUT(cf_hfile_parse_file_info_writable(h, buf, n, err));
    cf_free(buf);
    buf = NULL;
    cf_slice cmp;
    if (cf_hfile_file_info_get(h, "hfile.COMPARATOR", &cmp)) {
        size_t cl = cmp.len < sizeof(t->comparator) - 1 ? cmp.len : sizeof(t->comparator) - 1;
        memcpy(t->comparator, cmp.data, cl);
        t->comparator[cl] = '\0';
    }
    /* v1 cells are read as opaque keys in byte order, whatever the comparator
     * (HBase 0.90's KeyComparator files included), as HFile v1 tools list them. */
    h->raw_compare = true;
    h->info.raw_keys = true;
    /* Data index: IDXBLK)+ then root-format entries. */
    uint64_t di_end = t->meta_index_count > 0 && t->meta_index_offset > t->data_index_offset
                          ? t->meta_index_offset
                          : tstart;
    n = (size_t)(di_end - t->data_index_offset);
    CF_CHECK(di_end >= t->data_index_offset && n >= HF_MAGIC_LEN && n <= h->opt.max_block_len, err,
             CF_ECORRUPT, "v1 data index: bad extent");
    buf = cf_malloc(n);
    CF_CHECK(buf != NULL, err, CF_ENOMEM, "out of memory");
    CF_TRY_OUT(h->io->ops->read_at(h->io, t->data_index_offset, buf, n, err));
    if (memcmp(buf, HF_IDXV1, HF_MAGIC_LEN) != 0)
        CF_FAIL_OUT(err, CF_ECORRUPT, "v1 data index: bad magic");
    entry_vec e = {0};
    size_t used;
    st = cf_hfile_parse_root(buf + HF_MAGIC_LEN, n - HF_MAGIC_LEN, t->data_index_count, &e,
                             &h->keys, &used, "v1 data index", err);
    h->blocks = e.v;
    h->info.num_data_blocks = e.n;
    if (st != CF_OK)
        goto out;
    for (size_t i = 0; i < e.n; i++)
        if (e.v[i].off > tstart || e.v[i].size > tstart - e.v[i].off)
            CF_FAIL_OUT(err, CF_ECORRUPT, "v1 data block %zu: extent past the data", i);
    cf_free(buf);
    buf = NULL;
    if (t->meta_index_count > 0) {
        n = (size_t)(tstart - t->meta_index_offset);
        CF_CHECK(n >= HF_MAGIC_LEN && n <= h->opt.max_block_len, err, CF_ECORRUPT,
                 "v1 meta index: bad extent");
        buf = cf_malloc(n);
        CF_CHECK(buf != NULL, err, CF_ENOMEM, "out of memory");
        CF_TRY_OUT(h->io->ops->read_at(h->io, t->meta_index_offset, buf, n, err));
        if (memcmp(buf, HF_IDXV1, HF_MAGIC_LEN) != 0)
            CF_FAIL_OUT(err, CF_ECORRUPT, "v1 meta index: bad magic");
        entry_vec me = {0};
        st = cf_hfile_parse_root(buf + HF_MAGIC_LEN, n - HF_MAGIC_LEN, t->meta_index_count, &me,
                                 &h->meta_keys, &used, "v1 meta index", err);
        h->metas = me.v;
        h->info.meta_count = me.n;
    }
    if (st == CF_OK && t->compression_codec != CF_HFILE_NONE)
        fix_v1_extents(h, tstart);
    h->info.index_levels = 1;
    h->info.root_entries = t->data_index_count;
out:
    cf_free(buf);
    return st;
}

static cf_status open_v2(cf_hfile *h, cf_error *err)
{
    cf_hfile_trailer *t = &h->tr;
    uint64_t tstart = h->file_size - t->trailer_size;
    h->hdr_size = (t->major == 2 && t->minor == 0) ? HF_HDR_NOCKSUM : HF_HDR_CKSUM;
    h->info.checksums = h->hdr_size == HF_HDR_CKSUM;
    CF_CHECK(!t->has_encryption_key, err, CF_ENOTSUP, "encrypted HFiles are not supported");
    CF_CHECK(t->load_on_open_data_offset < tstart, err, CF_ECORRUPT,
             "trailer: load-on-open offset %" PRIu64 " is not before the trailer at %" PRIu64,
             t->load_on_open_data_offset, tstart);
    CF_CHECK(t->file_info_offset >= t->load_on_open_data_offset && t->file_info_offset < tstart,
             err, CF_ECORRUPT,
             "trailer: file info offset %" PRIu64 " outside the load-on-open "
             "section",
             t->file_info_offset);
    CF_CHECK(t->num_data_index_levels >= 1 && t->num_data_index_levels <= HF_MAX_LEVELS, err,
             CF_ECORRUPT, "trailer: %" PRIu32 " index levels", t->num_data_index_levels);
    CF_CHECK(cf_hfile_codec_name(t->compression_codec) != NULL, err, CF_ECORRUPT,
             "trailer: unknown compression codec %" PRIu32, t->compression_codec);
    CF_CHECK(cf_hfile_codec_built(t->compression_codec), err, CF_ENOTSUP,
             "compression %s is not supported by this build",
             cf_hfile_codec_name(t->compression_codec));
    h->raw_compare = false;
    h->info.index_levels = t->num_data_index_levels;
    h->info.root_entries = t->data_index_count;

    cf_status st = CF_OK;
    hf_block blk;
    cf_hfile_block_init(&blk);
    entry_vec root = {0};
    cf_buf rkeys;
    cf_hfile_keybuf_init(&rkeys);

    /* Root data index, then the meta index right after it. */
    uint64_t off = t->load_on_open_data_offset;
    CF_TRY_OUT(cf_hfile_read_block(h, off, 0, HF_ROOT, h->opt.verify_checksums, &blk, err));
    size_t used = 0;
    st = cf_hfile_parse_root(blk.payload, blk.payload_len, t->data_index_count, &root, &rkeys,
                             &used, "root data index", err);
    if (st != CF_OK)
        goto out;
    if (t->num_data_index_levels > 1) {
        if (blk.payload_len - used < 16)
            CF_FAIL_OUT(err, CF_ECORRUPT, "root data index: mid-key metadata missing");
        memcpy(h->midkey_meta, blk.payload + used, 16);
        h->info.has_midkey_metadata = true;
        h->info.mid_leaf_offset = cf_load_be64(h->midkey_meta);
        h->info.mid_leaf_on_disk_size = cf_load_be32(h->midkey_meta + 8);
        h->info.mid_key_entry = cf_load_be32(h->midkey_meta + 12);
    }
    off += blk.hdr.header_size + blk.hdr.on_disk_size_without_header;
    CF_TRY_OUT(cf_hfile_read_block(h, off, 0, HF_ROOT, h->opt.verify_checksums, &blk, err));
    {
        entry_vec me = {0};
        st = cf_hfile_parse_root(blk.payload, blk.payload_len, t->meta_index_count, &me,
                                 &h->meta_keys, &used, "meta index", err);
        h->metas = me.v;
        h->info.meta_count = me.n;
        if (st != CF_OK)
            goto out;
    }
    off += blk.hdr.header_size + blk.hdr.on_disk_size_without_header;

    /* FileInfo, then Bloom metadata blocks up to the trailer. */
    CF_TRY_OUT(cf_hfile_read_block(h, t->file_info_offset, 0, HF_FILEINFO, h->opt.verify_checksums,
                                   &blk, err));
    CF_TRY_OUT(cf_hfile_parse_file_info(h, blk.payload, blk.payload_len, err));
    off = t->file_info_offset + blk.hdr.header_size + blk.hdr.on_disk_size_without_header;
    while (off < tstart) {
        CF_TRY_OUT(cf_hfile_read_block(h, off, 0, NULL, h->opt.verify_checksums, &blk, err));
        if (memcmp(blk.hdr.magic, HF_GBLOOM, HF_MAGIC_LEN) == 0)
            st = cf_hfile_parse_bloom_meta(h, CF_HFILE_BLOOM_GENERAL, blk.payload, blk.payload_len,
                                           err);
        else if (memcmp(blk.hdr.magic, HF_DFBLOOM, HF_MAGIC_LEN) == 0)
            st = cf_hfile_parse_bloom_meta(h, CF_HFILE_BLOOM_DELETE_FAMILY, blk.payload,
                                           blk.payload_len, err);
        if (st != CF_OK) {
            st = cf_error_prefix(err, st, "block at offset %" PRIu64 ": ", off);
            goto out;
        }
        off += blk.hdr.header_size + blk.hdr.on_disk_size_without_header;
    }
    if (off != tstart)
        CF_FAIL_OUT(err, CF_ECORRUPT, "load-on-open blocks overrun the trailer at %" PRIu64,
                    tstart);

    /* What the cells carry. */
    cf_slice v;
    if (cf_hfile_file_info_get(h, "KEY_VALUE_VERSION", &v)) {
        if (v.len != 4)
            CF_FAIL_OUT(err, CF_ECORRUPT, "file info: KEY_VALUE_VERSION is %zu bytes", v.len);
        h->info.includes_mvcc = cf_load_be32(v.data) == 1;
    } else if (strstr(t->comparator, "org.apache.hudi") != NULL ||
               strcmp(t->comparator, "NA") == 0) {
        /* Hudi's reader always skips one mvcc byte per cell, and its first
         * native writers wrote that byte without KEY_VALUE_VERSION. */
        h->info.includes_mvcc = true;
    }
    h->info.includes_tags = t->major >= 3 && cf_hfile_file_info_get(h, "hfile.MAX_TAGS_LEN", NULL);
    /* HBase honours the flag only in files with tags, and only its delta
     * encoders compress tags (ROW_INDEX_V1 and NONE write them plain). */
    h->tags_compressed = h->info.includes_tags &&
                         cf_hfile_file_info_get(h, "hfile.TAGS_COMPRESSED", &v) && v.len == 1 &&
                         v.data[0] != 0;
    h->info.data_block_encoding = CF_HFILE_DBE_NONE;
    if (cf_hfile_file_info_get(h, "DATA_BLOCK_ENCODING", &v)) {
        static const struct {
            const char *n;
            int id;
        } encs[] = {{"NONE", 0},      {"PREFIX", 2},      {"DIFF", 3},
                    {"FAST_DIFF", 4}, {"PREFIX_TREE", 6}, {"ROW_INDEX_V1", 7}};
        h->info.data_block_encoding = -1;
        for (size_t i = 0; i < sizeof(encs) / sizeof(encs[0]); i++)
            if (strlen(encs[i].n) == v.len && memcmp(encs[i].n, v.data, v.len) == 0)
                h->info.data_block_encoding = encs[i].id;
    }

    /* Flatten the data index. */
    st = cf_hfile_index_flatten(h, &root, rkeys.data, tstart, err);
out:
    cf_hfile_block_dispose(&blk);
    cf_free(root.v);
    cf_buf_dispose(&rkeys);
    return st;
}

cf_status cf_hfile_open(cf_hfile **out, cf_io *io, const cf_hfile_options *opts, cf_error *err)
{
    *out = NULL;
    CF_CHECK(io != NULL && io->ops->read_at != NULL, err, CF_EINVAL, "hfile: no readable io");
    CF_CHECK(opts == NULL || opts->version == CF_HFILE_OPTIONS_VERSION, err, CF_EINVAL,
             "hfile options: version %" PRIu32 " (call cf_hfile_options_init)", opts->version);
    cf_hfile *h = cf_calloc(1, sizeof(*h));
    CF_CHECK(h != NULL, err, CF_ENOMEM, "hfile: out of memory");
    h->io = io;
    if (opts)
        h->opt = *opts;
    else
        cf_hfile_options_init(&h->opt);
    if (h->opt.max_block_len == 0)
        h->opt.max_block_len = (size_t)256 << 20;
    cf_hfile_keybuf_init(&h->keys);
    cf_hfile_keybuf_init(&h->meta_keys);
    cf_hfile_keybuf_init(&h->fi_buf);
    h->file_size = io->ops->size(io);
    cf_status st = cf_hfile_parse_trailer(h, err);
    if (st == CF_OK) {
        h->info.major = h->tr.major;
        h->info.minor = h->tr.minor;
        h->info.compression = h->tr.compression_codec;
        st = h->tr.major == 1 ? open_v1(h, err) : open_v2(h, err);
    }
    if (st != CF_OK) {
        cf_hfile_free(h);
        return st;
    }
    *out = h;
    return CF_OK;
}

cf_status cf_hfile_open_file(cf_hfile **out, const char *path, const cf_hfile_options *opts,
                             cf_error *err)
{
    *out = NULL;
    cf_io *io = NULL;
    CF_TRY(cf_io_open_file(&io, path, err));
    cf_status st = cf_hfile_open(out, io, opts, err);
    if (st != CF_OK) {
        cf_io_free(io);
        return st;
    }
    (*out)->own_io = true;
    return CF_OK;
}

void cf_hfile_free(cf_hfile *h)
{
    if (h == NULL)
        return;
    cf_free(h->blocks);
    cf_buf_dispose(&h->keys);
    cf_free(h->metas);
    cf_buf_dispose(&h->meta_keys);
    cf_free(h->fi);
    cf_buf_dispose(&h->fi_buf);
    for (int i = 0; i < 2; i++) {
        cf_free(h->bloom[i].chunks);
        if (h->bloom[i].present || h->bloom[i].keys.data)
            cf_buf_dispose(&h->bloom[i].keys);
    }
    if (h->own_io)
        cf_io_free(h->io);
    cf_free(h);
}

const cf_hfile_trailer *cf_hfile_get_trailer(const cf_hfile *h)
{
    return &h->tr;
}
const cf_hfile_info *cf_hfile_get_info(const cf_hfile *h)
{
    return &h->info;
}

cf_status cf_hfile_walk_blocks(const cf_hfile *h, bool verify, cf_hfile_block_fn fn, void *ctx,
                               cf_error *err)
{
    CF_CHECK(h->tr.major >= 2, err, CF_ENOTSUP, "v1 blocks have no headers to walk");
    uint64_t tstart = h->file_size - h->tr.trailer_size;
    uint64_t off = 0;
    hf_block blk;
    cf_hfile_block_init(&blk);
    cf_status st = CF_OK;
    while (off < tstart) {
        if (verify)
            st = cf_hfile_read_block(h, off, 0, NULL, true, &blk, err);
        else
            st = cf_hfile_read_header(h, off, &blk.hdr, err);
        if (st != CF_OK)
            break;
        uint64_t next = off + blk.hdr.header_size + blk.hdr.on_disk_size_without_header;
        if (next > tstart) {
            st = cf_error_set(err, CF_ECORRUPT, __FILE__, __LINE__,
                              "block at offset %" PRIu64 " runs into the trailer", off);
            break;
        }
        if (!fn(ctx, &blk.hdr))
            break;
        off = next;
    }
    cf_hfile_block_dispose(&blk);
    return st;
}
