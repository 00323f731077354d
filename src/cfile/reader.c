/* Opening a CFile (format §2.4): footer first (it says whether checksums
 * exist), then the header, the feature bits, the type/encoding pair and, for
 * DICT files, the dictionary. Also the block reader (§2.7, §5) shared by the
 * iterator and the B-tree.
 *
 * | end - 12 - F - 4 | 4 | footer crc32c over the last F + 12 bytes (if CHECKSUM) |
 * | end - 12 - F     | F | CFileFooterPB                                          |
 * | end - 12         | 8 | magic "kuducfil" (v1) or "kuducfl2" (v2)              |
 * | end - 4          | 4 | fixed32 F (<= 65536)                                   |
 */
#include "internal.h"

#include <cfile/version.h>
#include <stdlib.h>
#include <string.h>

#include "extend.h"
#include "codec/compress.h"
#include "codec/crc32c.h"
#include "util/alloc.h"
#include "util/endian.h"
#include "util/error.h"
#include "util/pb_mem.h"
#include "cfile.pb-c.h"

unsigned cf_version(void)
{
    return (CF_VERSION_MAJOR << 16) | (CF_VERSION_MINOR << 8) | CF_VERSION_PATCH;
}

const char *cf_version_string(void)
{
    return "0.1.0";
}

void cf_reader_options_init(cf_reader_options *opts)
{
    memset(opts, 0, sizeof *opts);
    opts->version = CF_READER_OPTIONS_VERSION;
    opts->verify_checksums = true;
    opts->max_block_len = CF_DEFAULT_MAX_BLOCK_LEN;
}

static int magic_version(const uint8_t *p)
{
    if (memcmp(p, CF_MAGIC_V2, CF_MAGIC_LEN) == 0)
        return 2;
    if (memcmp(p, CF_MAGIC_V1, CF_MAGIC_LEN) == 0)
        return 1;
    return 0;
}

static cf_status read_at(const cf_reader *r, uint64_t off, void *dst, size_t len, cf_error *err)
{
    return r->io->ops->read_at(r->io, off, dst, len, err);
}

/* ---- blocks -------------------------------------------------------------------------- */

void cf_reader_init_frame(cf_reader *r)
{
    const cf_file_info *fi = &r->info;
    r->frame = (cf_frame_opts){.compression = fi->compression,
                               .checksums = (fi->incompatible_features & CF_FEATURE_CHECKSUM) != 0,
                               .format_version = (uint8_t)fi->format_version,
                               .verify_checksums = r->opts.verify_checksums,
                               .max_block_len = r->opts.max_block_len};
}

/* Read one block's stored bytes (in place when the io serves them, else into
 * scratch) and unframe them. skip_crc: the cache remembers that this in-place
 * block already passed its check. */
static cf_status read_block(const cf_reader *r, cf_block_ptr ptr, cf_buf *scratch,
                            cf_block_contents *out, const char *what, bool skip_crc, cf_error *err)
{
    const cf_file_info *fi = &r->info;
    /* format §2.4: a block starts after the header and never touches the end. */
    CF_CHECK(ptr.off > 0 && ptr.off < fi->file_size && ptr.size < fi->file_size - ptr.off, err,
             CF_ECORRUPT, "%s at offset %llu: pointer of %u bytes runs outside the %llu-byte file",
             what, (unsigned long long)ptr.off, ptr.size, (unsigned long long)fi->file_size);
    /* No size limit on stored bytes: Kudu writes uncompressed blocks of any size
     * (a long array cell, long strings), and the pointer is already bounded by
     * the file. Only a claimed uncompressed size is capped (frame.c). */
    cf_block_contents stored = {{NULL, ptr.size}, CF_BLOCK_IN_IO, NULL};
    if (r->io->ops->view_at)
        stored.data.data = r->io->ops->view_at(r->io, ptr.off, ptr.size);
    cf_buf_clear(scratch);
    if (stored.data.data == NULL) {
        uint8_t *dst = cf_buf_extend(scratch, ptr.size);
        CF_CHECK(dst != NULL, err, CF_ENOMEM, "%s at offset %llu: out of memory", what,
                 (unsigned long long)ptr.off);
        CF_TRY(cf_error_prefix(err, read_at(r, ptr.off, dst, ptr.size, err),
                               "%s at offset %llu: ", what, (unsigned long long)ptr.off));
        stored = (cf_block_contents){{dst, ptr.size}, CF_BLOCK_IN_SCRATCH, NULL};
    }
    return cf_error_prefix(err, cf_unframe_block(&r->frame, &stored, skip_crc, scratch, out, err),
                           "%s at offset %llu: ", what, (unsigned long long)ptr.off);
}

cf_status cf_reader_read_block(const cf_reader *r, cf_block_ptr ptr, cf_buf *scratch, cf_slice *out,
                               const char *what, cf_error *err)
{
    cf_block_contents bc;
    CF_TRY(read_block(r, ptr, scratch, &bc, what, false, err));
    *out = bc.data;
    return CF_OK;
}

cf_status cf_reader_read_index_block(const cf_reader *r, cf_block_ptr ptr, cf_buf *scratch,
                                     cf_slice *out, const char *what, cf_error *err)
{
    cf_cache *c = r->opts.cache;
    if (c == NULL)
        return cf_reader_read_block(r, ptr, scratch, out, what, err);
    bool is_view = false;
    cf_slice cached;
    cf_cache_entry *e = cf_cache_lookup(c, r->cache_file_id, ptr.off, ptr.size, &cached, &is_view);
    if (e != NULL && !is_view) {
        /* Cached as a copy (read through pread, or decompressed): copy it once
         * more into scratch, which costs less than a read and a CRC, and lets
         * the caller keep the bytes without holding a pin. */
        cf_buf_clear(scratch);
        uint8_t *dst = cf_buf_extend(scratch, cached.len);
        if (dst != NULL && cached.len > 0)
            memcpy(dst, cached.data, cached.len);
        cf_cache_release(c, e);
        CF_CHECK(dst != NULL, err, CF_ENOMEM, "%s at offset %llu: out of memory", what,
                 (unsigned long long)ptr.off);
        *out = (cf_slice){dst, cached.len};
        return CF_OK;
    }
    cf_block_contents bc;
    cf_status st = read_block(r, ptr, scratch, &bc, what, e != NULL, err);
    if (st == CF_OK)
        *out = bc.data;
    /* In place and uncompressed: remember only that its checksum passed. Else
     * (pread, or compressed) keep the logical bytes so that the next lookup
     * neither reads, checks nor decompresses them again. */
    if (e == NULL && st == CF_OK)
        e = cf_cache_insert(c, r->cache_file_id, ptr.off, ptr.size, bc.data.data, bc.data.len,
                            bc.home == CF_BLOCK_IN_IO, &cached);
    cf_cache_release(c, e);
    return st;
}

/* A block the io does not serve in place and that is not compressed: read
 * straight into a new cache entry (one copy, where a read into scratch and
 * an insert make two), checked, then published. CF_ENOTFOUND (err untouched)
 * when the cache has no room for it: the caller reads it as usual. */
static cf_status read_into_cache(const cf_reader *r, cf_block_ptr ptr, cf_block_contents *out,
                                 cf_error *err)
{
    const cf_file_info *fi = &r->info;
    cf_cache *c = r->opts.cache;
    CF_CHECK(ptr.off > 0 && ptr.off < fi->file_size && ptr.size < fi->file_size - ptr.off, err,
             CF_ECORRUPT,
             "data block at offset %llu: pointer of %u bytes runs outside the %llu-byte file",
             (unsigned long long)ptr.off, ptr.size, (unsigned long long)fi->file_size);
    uint8_t *dst;
    cf_cache_entry *e = cf_cache_reserve(c, r->cache_file_id, ptr.off, ptr.size, ptr.size, &dst);
    if (e == NULL)
        return CF_ENOTFOUND;
    cf_block_contents stored = {{dst, ptr.size}, CF_BLOCK_IN_CACHE, NULL}, logical;
    cf_status st = cf_error_prefix(err, read_at(r, ptr.off, dst, ptr.size, err),
                                   "data block at offset %llu: ", (unsigned long long)ptr.off);
    if (st == CF_OK)
        st = cf_error_prefix(err, cf_unframe_block(&r->frame, &stored, false, NULL, &logical, err),
                             "data block at offset %llu: ", (unsigned long long)ptr.off);
    if (st != CF_OK) {
        cf_cache_discard(e);
        return st;
    }
    cf_slice cached;
    e = cf_cache_publish(c, e, logical.data.len, &cached);
    *out = (cf_block_contents){cached, CF_BLOCK_IN_CACHE, e};
    return CF_OK;
}

/* cf_reader_read_data_block and its _no_fill twin: fill is a parameter here
 * only, so that the callers pass five arguments, all in registers (a sixth
 * went on the stack: 6 instructions more per cached block load). */
static inline cf_status read_data_block(const cf_reader *r, cf_block_ptr ptr, cf_buf *scratch,
                                        bool fill, cf_block_contents *out, cf_error *err)
{
    cf_cache *c = r->opts.cache;
    if (c == NULL)
        return read_block(r, ptr, scratch, out, "data block", false, err);
    bool is_view = false;
    cf_slice cached;
    cf_cache_entry *e = cf_cache_lookup(c, r->cache_file_id, ptr.off, ptr.size, &cached, &is_view);
    if (e != NULL && !is_view) {
        *out = (cf_block_contents){cached, CF_BLOCK_IN_CACHE, e};
        return CF_OK;
    }
    if (e != NULL) {
        /* Served in place and already checked: only the view (and framing) again.
         * The mark stays pinned so the iterator can keep derived state with it. */
        cf_status st = read_block(r, ptr, scratch, out, "data block", true, err);
        if (st != CF_OK) {
            cf_cache_release(c, e);
            return st;
        }
        out->pin = e;
        return CF_OK;
    }
    if (!fill)
        return read_block(r, ptr, scratch, out, "data block", false, err);
    if (r->frame.compression == CF_COMP_NONE &&
        (r->io->ops->view_at == NULL || r->io->ops->view_at(r->io, ptr.off, ptr.size) == NULL)) {
        cf_status st = read_into_cache(r, ptr, out, err);
        if (st != CF_ENOTFOUND)
            return st;
    }
    CF_TRY(read_block(r, ptr, scratch, out, "data block", false, err));
    bool in_scratch = out->home == CF_BLOCK_IN_SCRATCH;
    e = cf_cache_insert(c, r->cache_file_id, ptr.off, ptr.size, out->data.data, out->data.len,
                        !in_scratch, &cached);
    if (e != NULL && in_scratch)
        *out = (cf_block_contents){cached, CF_BLOCK_IN_CACHE, e};
    else
        out->pin = e; /* a view mark is pinned too: derived state such as a
                         decoded null bitmap can then live with it */
    return CF_OK;
}

cf_status cf_reader_read_data_block(const cf_reader *r, cf_block_ptr ptr, cf_buf *scratch,
                                    cf_block_contents *out, cf_error *err)
{
    return read_data_block(r, ptr, scratch, true, out, err);
}

cf_status cf_reader_read_data_block_no_fill(const cf_reader *r, cf_block_ptr ptr, cf_buf *scratch,
                                            cf_block_contents *out, cf_error *err)
{
    return read_data_block(r, ptr, scratch, false, out, err);
}

/* ---- open --------------------------------------------------------------------------- */

static cf_status copy_metadata(Kudu__FileMetadataPairPB **pbs, size_t n, cf_metadata_pair **out,
                               uint8_t **bytes, cf_error *err)
{
    *out = NULL;
    *bytes = NULL;
    if (n == 0)
        return CF_OK;
    size_t total = 0;
    for (size_t i = 0; i < n; i++)
        total += strlen(pbs[i]->key) + 1 + pbs[i]->value.len;
    cf_metadata_pair *v = cf_calloc(n, sizeof *v);
    uint8_t *b = cf_malloc(total);
    if (v == NULL || b == NULL) {
        cf_free(v);
        cf_free(b);
        CF_FAIL(err, CF_ENOMEM, "out of memory reading metadata");
    }
    uint8_t *p = b;
    for (size_t i = 0; i < n; i++) {
        size_t kl = strlen(pbs[i]->key);
        memcpy(p, pbs[i]->key, kl + 1);
        v[i].key = (cf_slice){p, kl};
        p += kl + 1;
        if (pbs[i]->value.len)
            memcpy(p, pbs[i]->value.data, pbs[i]->value.len);
        v[i].value = (cf_slice){p, pbs[i]->value.len};
        p += pbs[i]->value.len;
    }
    *out = v;
    *bytes = b;
    return CF_OK;
}

static cf_status read_footer(cf_reader *r, cf_error *err)
{
    cf_file_info *fi = &r->info;
    uint64_t size = fi->file_size;
    uint8_t tail[12];
    CF_CHECK(size > 12, err, CF_ECORRUPT, "file of %llu bytes is too short to be a CFile",
             (unsigned long long)size);
    CF_TRY(read_at(r, size - 12, tail, 12, err));
    int ver = magic_version(tail);
    CF_CHECK(ver != 0, err, CF_ECORRUPT, "bad magic at the end of the file (not a CFile)");
    uint32_t flen = cf_load_le32(tail + 8);
    CF_CHECK(flen <= CF_MAX_PB_LEN, err, CF_ECORRUPT, "footer length %u exceeds the 64 KiB limit",
             flen);
    CF_CHECK(size >= (uint64_t)flen + 16, err, CF_ECORRUPT,
             "footer length %u does not fit in a %llu-byte file", flen, (unsigned long long)size);
    uint8_t *buf = cf_malloc((size_t)flen + 16);
    CF_CHECK(buf != NULL, err, CF_ENOMEM, "out of memory reading the footer");
    cf_status st = read_at(r, size - 16 - flen, buf, (size_t)flen + 16, err);
    Kudu__CFileFooterPB *f = NULL;
    cf_pb_mem mem; /* protobuf-c allocates through it until free_unpacked */
    cf_pb_mem_init(&mem);
    if (st != CF_OK)
        goto out;
    f = kudu__cfile_footer_pb__unpack(&mem.a, flen, buf + 4);
    if (f == NULL && mem.oom)
        CF_FAIL_OUT(err, CF_ENOMEM, "out of memory unpacking the footer protobuf (%u bytes)", flen);
    if (f == NULL)
        CF_FAIL_OUT(err, CF_ECORRUPT, "footer protobuf (%u bytes at offset %llu) does not parse",
                    flen, (unsigned long long)(size - 12 - flen));
    fi->format_version = ver;
    fi->footer_len = flen;
    fi->incompatible_features = f->has_incompatible_features ? f->incompatible_features : 0;
    fi->compatible_features = f->has_compatible_features ? f->compatible_features : 0;
    if ((fi->incompatible_features & CF_FEATURE_CHECKSUM) && r->opts.verify_checksums) {
        uint32_t want = cf_load_le32(buf), got = cf_crc32c(buf + 4, (size_t)flen + 12);
        if (want != got)
            CF_FAIL_OUT(err, CF_ECORRUPT, "footer checksum mismatch (stored %08x, computed %08x)",
                        want, got);
    }
    uint32_t unknown = fi->incompatible_features & ~CF_FEATURES_SUPPORTED;
    if (unknown) {
        int bit = __builtin_ctz(unknown);
        CF_FAIL_OUT(err, CF_ENOTSUP,
                    "file needs incompatible feature bit %d (0x%x), which this reader does not "
                    "know",
                    bit, 1u << bit);
    }
    if (!cf_type_valid((int)f->data_type))
        CF_FAIL_OUT(err, CF_ENOTSUP, "footer data type %d is not a column type", (int)f->data_type);
    fi->type = (cf_type)f->data_type;
    fi->encoding = (cf_encoding)f->encoding;
    if (f->num_values < 0 || f->num_values > (int64_t)UINT32_MAX)
        CF_FAIL_OUT(err, CF_ECORRUPT, "footer num_values %lld is out of range",
                    (long long)f->num_values);
    fi->num_values = (uint64_t)f->num_values;
    int comp = f->has_compression ? (int)f->compression : CF_COMP_NONE;
    if (comp < CF_COMP_NONE || comp > CF_COMP_ZLIB)
        CF_FAIL_OUT(err, CF_ECORRUPT, "footer compression %d is not a known codec", comp);
    fi->compression = (cf_compression)comp;
    if (!cf_codec_available(fi->compression))
        CF_FAIL_OUT(err, CF_ENOTSUP, "compression %s is not built into this library",
                    cf_compression_name(fi->compression));
    fi->nullable = f->has_is_type_nullable && f->is_type_nullable;
    fi->is_array = f->has_is_type_array && f->is_type_array;
    if (fi->is_array != ((fi->incompatible_features & CF_FEATURE_ARRAY_DATA_BLOCK) != 0))
        CF_FAIL_OUT(err, CF_ECORRUPT,
                    "footer says is_type_array=%d but the ARRAY_DATA_BLOCK feature bit is %s",
                    fi->is_array, fi->is_array ? "clear" : "set");
#define TAKE_PTR(pb, off_f, size_f, has_f)                                                         \
    do {                                                                                           \
        if (pb) {                                                                                  \
            if ((pb)->offset < 0 || (pb)->size < 0)                                                \
                CF_FAIL_OUT(err, CF_ECORRUPT, "footer block pointer is negative");                 \
            fi->off_f = (uint64_t)(pb)->offset;                                                    \
            fi->size_f = (uint32_t)(pb)->size;                                                     \
            fi->has_f = true;                                                                      \
        }                                                                                          \
    } while (0)
    TAKE_PTR(f->posidx_info ? f->posidx_info->root_block : NULL, posidx_root_off, posidx_root_size,
             has_posidx);
    TAKE_PTR(f->validx_info ? f->validx_info->root_block : NULL, validx_root_off, validx_root_size,
             has_validx);
    TAKE_PTR(f->dict_block_ptr, dict_block_off, dict_block_size, has_dict_block);
#undef TAKE_PTR
    st = copy_metadata(f->metadata, f->n_metadata, &r->footer_md, &r->footer_md_bytes, err);
    r->n_footer_md = r->footer_md ? f->n_metadata : 0;
out:
    if (f)
        kudu__cfile_footer_pb__free_unpacked(f, &mem.a);
    cf_free(buf);
    return st;
}

static cf_status read_header(cf_reader *r, cf_error *err)
{
    cf_file_info *fi = &r->info;
    uint8_t head[12];
    CF_TRY(read_at(r, 0, head, 12, err));
    int ver = magic_version(head);
    CF_CHECK(ver != 0, err, CF_ECORRUPT, "bad magic at the start of the file (not a CFile)");
    uint32_t hlen = cf_load_le32(head + 8);
    bool has_crc = (fi->incompatible_features & CF_FEATURE_CHECKSUM) != 0;
    CF_CHECK(hlen <= CF_MAX_PB_LEN, err, CF_ECORRUPT, "header length %u exceeds the 64 KiB limit",
             hlen);
    CF_CHECK(fi->file_size > (uint64_t)hlen + 12 + (has_crc ? 4 : 0), err, CF_ECORRUPT,
             "header length %u does not fit in a %llu-byte file", hlen,
             (unsigned long long)fi->file_size);
    /* format §2.5: the header's magic decides the version. */
    fi->format_version = ver;
    fi->header_len = hlen;
    size_t n = 12 + (size_t)hlen + (has_crc ? 4 : 0);
    uint8_t *buf = cf_malloc(n);
    CF_CHECK(buf != NULL, err, CF_ENOMEM, "out of memory reading the header");
    cf_status st = read_at(r, 0, buf, n, err);
    Kudu__CFileHeaderPB *h = NULL;
    cf_pb_mem mem; /* protobuf-c allocates through it until free_unpacked */
    cf_pb_mem_init(&mem);
    if (st != CF_OK)
        goto out;
    if (has_crc && r->opts.verify_checksums) {
        uint32_t want = cf_load_le32(buf + 12 + hlen), got = cf_crc32c(buf, 12 + (size_t)hlen);
        if (want != got)
            CF_FAIL_OUT(err, CF_ECORRUPT, "header checksum mismatch (stored %08x, computed %08x)",
                        want, got);
    }
    h = kudu__cfile_header_pb__unpack(&mem.a, hlen, buf + 12);
    if (h == NULL && mem.oom)
        CF_FAIL_OUT(err, CF_ENOMEM, "out of memory unpacking the header protobuf (%u bytes)", hlen);
    if (h == NULL)
        CF_FAIL_OUT(err, CF_ECORRUPT, "header protobuf (%u bytes at offset 12) does not parse",
                    hlen);
    CF_TRY_OUT(copy_metadata(h->metadata, h->n_metadata, &r->header_md, &r->header_md_bytes, err));
    r->n_header_md = h->n_metadata;
out:
    if (h)
        kudu__cfile_header_pb__free_unpacked(h, &mem.a);
    cf_free(buf);
    return st;
}

/* format §8.8.2: the dictionary is a PLAIN BINARY block; decode it once and
 * keep the strings in one reader-owned copy. */
static cf_status load_dict(cf_reader *r, cf_error *err)
{
    const cf_file_info *fi = &r->info;
    CF_CHECK(fi->has_dict_block, err, CF_ECORRUPT, "DICT_ENCODING file has no dictionary block");
    const cf_decoder_ops *pops = cf_decoder_lookup(CF_TYPE_BINARY, CF_ENC_PLAIN);
    CF_CHECK(pops != NULL, err, CF_ENOTSUP, "PLAIN binary decoding is not built in");
    cf_buf scratch;
    cf_buf_init(&scratch);
    cf_decoder *d = NULL;
    cf_slice blk;
    cf_status st = cf_reader_read_block(r, (cf_block_ptr){fi->dict_block_off, fi->dict_block_size},
                                        &scratch, &blk, "dictionary block", err);
    if (st != CF_OK)
        goto out;
    /* Own the bytes: the slices must outlive scratch and any mmap view. */
    r->dict_bytes = cf_malloc(blk.len);
    if (r->dict_bytes == NULL)
        CF_FAIL_OUT(err, CF_ENOMEM, "out of memory loading the dictionary");
    memcpy(r->dict_bytes, blk.data, blk.len);
    cf_dec_params dp = {CF_TYPE_BINARY, sizeof(cf_slice), NULL};
    CF_TRY_OUT(cf_error_prefix(err, pops->create(&d, &dp, err), "dictionary block: "));
    CF_TRY_OUT(cf_error_prefix(
        err, d->ops->load(d, r->dict_bytes, blk.len, err),
        "dictionary block at offset %llu: ", (unsigned long long)fi->dict_block_off));
    size_t n = d->count;
    r->dict_entries = cf_calloc(n ? n : 1, sizeof(cf_slice));
    if (r->dict_entries == NULL)
        CF_FAIL_OUT(err, CF_ENOMEM, "out of memory loading the dictionary");
    size_t got = 0;
    CF_TRY_OUT(d->ops->next(d, r->dict_entries, n, &got, err));
    if (got != n)
        CF_FAIL_OUT(err, CF_ECORRUPT, "dictionary block: decoded %zu of %zu entries", got, n);
    r->dict.entries = r->dict_entries;
    r->dict.count = n;
out:
    cf_decoder_free(d);
    cf_buf_dispose(&scratch);
    return st;
}

cf_status cf_reader_open(cf_reader **out, cf_io *io, const cf_reader_options *opts, cf_error *err)
{
    *out = NULL;
    CF_CHECK(io != NULL && io->ops && io->ops->read_at && io->ops->size, err, CF_EINVAL,
             "reader needs a readable io");
    cf_reader *r = cf_calloc(1, sizeof *r);
    CF_CHECK(r != NULL, err, CF_ENOMEM, "out of memory opening a reader");
    r->io = io;
    if (opts) {
        if (opts->version != CF_READER_OPTIONS_VERSION) {
            cf_free(r);
            CF_FAIL(err, CF_EINVAL, "reader options version %u is not %u", opts->version,
                    CF_READER_OPTIONS_VERSION);
        }
        r->opts = *opts;
        if (r->opts.max_block_len == 0)
            r->opts.max_block_len = CF_DEFAULT_MAX_BLOCK_LEN;
    } else {
        cf_reader_options_init(&r->opts);
    }
    r->info.file_size = io->ops->size(io);
    if (r->opts.cache != NULL)
        r->cache_file_id = cf_cache_new_file_id(r->opts.cache);
    cf_status st = read_footer(r, err);
    if (st == CF_OK)
        st = read_header(r, err);
    if (st == CF_OK) {
        cf_file_info *fi = &r->info;
        cf_reader_init_frame(r); /* the header settled format_version */
        r->dec_ops = cf_decoder_lookup(fi->type, fi->encoding);
        if (r->dec_ops == NULL) {
            st = cf_error_set(
                err, CF_ENOTSUP, __FILE__, __LINE__, "encoding %s for %s is not supported",
                cf_encoding_name(fi->encoding) ? cf_encoding_name(fi->encoding) : "(unknown)",
                cf_type_name(fi->type));
        }
    }
    if (st == CF_OK) {
        r->dec_params = (cf_dec_params){r->info.type, cf_type_size(r->info.type), &r->dict};
        if (r->info.encoding == CF_ENC_DICT)
            st = load_dict(r, err);
    }
    if (st != CF_OK) {
        cf_reader_free(r);
        return st;
    }
    *out = r;
    return CF_OK;
}

cf_status cf_reader_open_file(cf_reader **out, const char *path, bool mmap,
                              const cf_reader_options *opts, cf_error *err)
{
    *out = NULL;
    cf_io *io;
    CF_TRY(mmap ? cf_io_open_mmap(&io, path, err) : cf_io_open_file(&io, path, err));
    return cf_reader_open_owned(out, io, opts, err);
}

cf_status cf_reader_open_owned(cf_reader **out, cf_io *io, const cf_reader_options *opts,
                               cf_error *err)
{
    cf_status st = cf_reader_open(out, io, opts, err);
    if (st != CF_OK) {
        cf_io_free(io);
        return st;
    }
    (*out)->owned_io = io;
    return CF_OK;
}

const cf_file_info *cf_reader_info(const cf_reader *r)
{
    return &r->info;
}

cf_io *cf_reader_io(const cf_reader *r)
{
    return r->io;
}

size_t cf_reader_header_metadata(const cf_reader *r, const cf_metadata_pair **out)
{
    *out = r->header_md;
    return r->n_header_md;
}

size_t cf_reader_footer_metadata(const cf_reader *r, const cf_metadata_pair **out)
{
    *out = r->footer_md;
    return r->n_footer_md;
}

bool cf_reader_get_metadata(const cf_reader *r, const char *key, cf_slice *out)
{
    size_t kl = strlen(key);
    const cf_metadata_pair *lists[2] = {r->header_md, r->footer_md};
    size_t ns[2] = {r->n_header_md, r->n_footer_md};
    for (int l = 0; l < 2; l++)
        for (size_t i = 0; i < ns[l]; i++)
            if (lists[l][i].key.len == kl && memcmp(lists[l][i].key.data, key, kl) == 0) {
                if (out != NULL)
                    *out = lists[l][i].value;
                return true;
            }
    return false;
}

void cf_reader_free(cf_reader *r)
{
    if (r == NULL)
        return;
    cf_free(r->header_md);
    cf_free(r->footer_md);
    cf_free(r->header_md_bytes);
    cf_free(r->footer_md_bytes);
    cf_free(r->dict_entries);
    cf_free(r->dict_bytes);
    cf_io_free(r->owned_io);
    cf_free(r);
}
