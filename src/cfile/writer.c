/* The CFile writer (format §2, §6, §10): header, data blocks cut exactly where
 * Kudu cuts them, the positional and value B-trees, the dictionary block and
 * the footer, in Kudu's order (§2.8), so that equal input gives equal bytes.
 *
 * File layout written:
 * | header   | "kuducfl2" | fixed32 H | CFileHeaderPB (H bytes) | [crc32c]      |
 * | blocks   | data blocks, index blocks interleaved as they fill (§9.3)        |
 * | finish   | last data block, posidx levels, validx levels, dictionary block  |
 * | footer   | [crc32c] | CFileFooterPB (F bytes) | "kuducfl2" | fixed32 F      |
 */
#include "internal.h"
#include "block_layout.h"
#include "extend.h"

#include <string.h>

#include "codec/compress.h"
#include "codec/crc32c.h"
#include "util/alloc.h"
#include "util/bytes.h"
#include "util/bitmap.h"
#include "util/endian.h"
#include "util/error.h"
#include "cfile.pb-c.h"

typedef struct md_pair {
    char *key;
    uint8_t *value;
    size_t value_len;
} md_pair;

typedef struct md_list {
    md_pair *v;
    size_t n, cap;
} md_list;

struct cf_writer {
    cf_writer_options o; /* resolved */
    cf_io *io;
    cf_io *owned_io;
    cf_sticky sticky; /* the first failure, replayed by every later call */
    bool started, finished;
    size_t elem_size;
    cf_frame_opts fo;

    const cf_encoder_ops *eops;
    cf_encoder *enc;

    /* Rows: total appended, and in the open block. Arrays: cells. */
    uint64_t rows;
    uint32_t block_rows;
    cf_block_layout_writer layout; /* the open block's flags and counts (§6) */

    /* Value index: encoded first/last key of the open block, and the last key
     * of the previous block for shortening. */
    cf_buf first_key, last_key, prev_last_key;
    bool block_has_value;
    cf_buf key_tmp;          /* key of the value being checked */
    bool have_last_value;    /* last_key holds the last appended value's key */
    cf_validx_key_fn key_fn; /* custom value-index keys (DeltaFile), or NULL */
    void *key_ctx;
    bool raw_blocks; /* raw blocks were appended (BloomFile) */

    cf_btree_writer *posidx, *validx;
    cf_block_ptr dict_ptr;
    bool has_dict_ptr;

    md_list header_md, footer_md;
    cf_buf block;  /* assembled logical data block */
    cf_buf framed; /* stored bytes of the block being written */
};

/* ---- options --------------------------------------------------------------------- */

void cf_writer_options_init(cf_writer_options *opts, cf_type type)
{
    memset(opts, 0, sizeof *opts);
    opts->version = CF_WRITER_OPTIONS_VERSION;
    opts->type = type;
    opts->encoding = CF_ENC_AUTO;
    opts->compression = CF_COMP_DEFAULT;
    opts->write_posidx = true;
    opts->checksums = true;
    opts->optimize_index_keys = true;
    opts->block_size = CF_DEFAULT_BLOCK_SIZE;
    opts->index_block_size = CF_DEFAULT_INDEX_BLOCK_SIZE;
    opts->restart_interval = CF_DEFAULT_RESTART_INTERVAL;
}

static cf_status resolve_options(cf_writer_options *o, const cf_writer_options *in, cf_error *err)
{
    CF_CHECK(in != NULL, err, CF_EINVAL, "writer options are required (the column type)");
    CF_CHECK(in->version == CF_WRITER_OPTIONS_VERSION, err, CF_EINVAL,
             "writer options version %u is not %u (call cf_writer_options_init)", in->version,
             CF_WRITER_OPTIONS_VERSION);
    *o = *in;
    CF_CHECK(cf_type_valid((int)o->type), err, CF_EINVAL, "option type: %d is not a column type",
             (int)o->type);
    CF_CHECK((int)o->encoding >= CF_ENC_AUTO && o->encoding <= CF_ENC_BIT_SHUFFLE, err, CF_EINVAL,
             "option encoding: %d is not an encoding", (int)o->encoding);
    /* format §8.9: a legacy encoding we read but never write. Kudu's writer would
     * silently substitute the type default; we say so instead. */
    CF_CHECK(o->encoding != CF_ENC_GROUP_VARINT, err, CF_EINVAL,
             "option encoding: GROUP_VARINT is read-only (legacy); Kudu writes %s instead, ask "
             "for AUTO",
             cf_encoding_name(cf_type_default_encoding(o->type)));
    CF_CHECK((int)o->compression >= CF_COMP_DEFAULT && o->compression <= CF_COMP_ZLIB, err,
             CF_EINVAL, "option compression: %d is not a codec", (int)o->compression);
    if (o->compression == CF_COMP_DEFAULT)
        o->compression = CF_COMP_NONE;
    CF_CHECK(cf_codec_available(o->compression), err, CF_ENOTSUP,
             "compression %s is not built into this library", cf_compression_name(o->compression));
    /* format §10.1: <= 0 means the default; below the minimum is raised. */
    if (o->block_size == 0)
        o->block_size = CF_DEFAULT_BLOCK_SIZE;
    if (o->block_size < CF_MIN_BLOCK_SIZE)
        o->block_size = CF_MIN_BLOCK_SIZE;
    CF_CHECK(o->block_size <= CF_DEFAULT_MAX_BLOCK_LEN, err, CF_EINVAL,
             "option block_size: %u is above the 16 MiB block limit", o->block_size);
    if (o->index_block_size == 0)
        o->index_block_size = CF_DEFAULT_INDEX_BLOCK_SIZE;
    CF_CHECK(o->index_block_size >= 64 && o->index_block_size <= CF_DEFAULT_MAX_BLOCK_LEN, err,
             CF_EINVAL, "option index_block_size: %u is outside [64, 16 MiB]", o->index_block_size);
    if (o->restart_interval == 0)
        o->restart_interval = CF_DEFAULT_RESTART_INTERVAL;
    CF_CHECK(o->restart_interval <= 65536, err, CF_EINVAL,
             "option restart_interval: %u is above 65536", o->restart_interval);
    if (o->write_validx) {
        CF_CHECK(cf_key_supported(o->type), err, CF_EINVAL,
                 "option write_validx: %s values have no key order (Kudu cannot index them)",
                 cf_type_name(o->type));
        CF_CHECK(!o->is_array, err, CF_EINVAL,
                 "option write_validx: array columns cannot carry a value index");
    }
    o->encoding = cf_encoding_resolve(o->type, o->encoding);
    return CF_OK;
}

/* ---- metadata ---------------------------------------------------------------------- */

static void md_free(md_list *l)
{
    for (size_t i = 0; i < l->n; i++) {
        cf_free(l->v[i].key);
        cf_free(l->v[i].value);
    }
    cf_free(l->v);
    memset(l, 0, sizeof *l);
}

static cf_status md_add(md_list *l, const char *key, const void *value, size_t len, cf_error *err)
{
    if (l->n == l->cap)
        CF_CHECK(cf_array_grow(&l->v, &l->cap, sizeof *l->v, 4), err, CF_ENOMEM,
                 "out of memory adding metadata");
    size_t klen = strlen(key);
    char *k = cf_malloc(klen + 1);
    uint8_t *val = cf_malloc(len ? len : 1);
    if (k == NULL || val == NULL) {
        cf_free(k);
        cf_free(val);
        CF_FAIL(err, CF_ENOMEM, "out of memory adding metadata");
    }
    memcpy(k, key, klen + 1);
    if (len)
        memcpy(val, value, len);
    l->v[l->n++] = (md_pair){k, val, len};
    return CF_OK;
}

/* The protobuf view of a metadata list: an array of l->n message pointers
 * followed by the messages, in one allocation (cf_free it). The strings stay
 * owned by the list. NULL when out of memory. */
static Kudu__FileMetadataPairPB **md_to_pb(const md_list *l)
{
    size_t n = l->n;
    Kudu__FileMetadataPairPB **ptrs = cf_calloc(1, (n ? n : 1) * (sizeof *ptrs + sizeof **ptrs));
    if (ptrs == NULL)
        return NULL;
    Kudu__FileMetadataPairPB *pairs = (Kudu__FileMetadataPairPB *)(void *)(ptrs + (n ? n : 1));
    for (size_t i = 0; i < n; i++) {
        kudu__file_metadata_pair_pb__init(&pairs[i]);
        pairs[i].key = l->v[i].key;
        pairs[i].value.data = l->v[i].value;
        pairs[i].value.len = l->v[i].value_len;
        ptrs[i] = &pairs[i];
    }
    return ptrs;
}

/* ---- low-level writing ------------------------------------------------------------- */

static cf_status fail(cf_writer *w, cf_status st, const cf_error *err)
{
    return cf_sticky_set(&w->sticky, st, err);
}

static cf_status sticky(const cf_writer *w, cf_error *err)
{
    return cf_sticky_replay(&w->sticky, "cfile writer", err);
}

static uint64_t file_off(const cf_writer *w)
{
    return w->io->ops->size(w->io);
}

static cf_status io_append(cf_writer *w, const void *p, size_t n, cf_error *err)
{
    return w->io->ops->append(w->io, p, n, err);
}

/* Frame logical bytes and append them; return the block pointer. */
static cf_status write_block(cf_writer *w, const uint8_t *data, size_t len, cf_block_ptr *ptr,
                             cf_error *err)
{
    CF_TRY(cf_frame_block(&w->fo, data, len, &w->framed, err));
    CF_CHECK(w->framed.len <= INT32_MAX, err, CF_EINVAL,
             "stored block of %zu bytes does not fit a block pointer", w->framed.len);
    ptr->off = file_off(w);
    ptr->size = (uint32_t)w->framed.len;
    return io_append(w, w->framed.data, w->framed.len, err);
}

static cf_status btree_write_cb(void *ctx, const uint8_t *data, size_t len, cf_block_ptr *out,
                                cf_error *err)
{
    return write_block(ctx, data, len, out, err);
}

static cf_status write_header(cf_writer *w, cf_error *err)
{
    Kudu__CFileHeaderPB hdr = KUDU__CFILE_HEADER_PB__INIT;
    size_t n = w->header_md.n;
    Kudu__FileMetadataPairPB **ptrs = md_to_pb(&w->header_md);
    cf_buf b;
    cf_buf_init(&b);
    cf_status st = CF_OK;
    if (ptrs == NULL)
        CF_FAIL_OUT(err, CF_ENOMEM, "out of memory writing the header");
    hdr.n_metadata = n;
    hdr.metadata = ptrs;
    size_t pblen = kudu__cfile_header_pb__get_packed_size(&hdr);
    if (pblen > CF_MAX_PB_LEN)
        CF_FAIL_OUT(err, CF_EINVAL, "header metadata of %zu bytes exceeds the 64 KiB header limit",
                    pblen);
    cf_buf_append(&b, CF_MAGIC_V2, CF_MAGIC_LEN);
    cf_buf_put_le32(&b, (uint32_t)pblen);
    uint8_t *p = cf_buf_extend(&b, pblen);
    if (p)
        kudu__cfile_header_pb__pack(&hdr, p);
    if (w->o.checksums)
        cf_buf_put_le32(&b, b.oom ? 0 : cf_crc32c(b.data, b.len));
    if (b.oom)
        CF_FAIL_OUT(err, CF_ENOMEM, "out of memory writing the header");
    CF_TRY_OUT(io_append(w, b.data, b.len, err));
out:
    cf_free(ptrs);
    cf_buf_dispose(&b);
    return st;
}

static cf_status ensure_started(cf_writer *w, cf_error *err)
{
    if (w->started)
        return CF_OK;
    w->started = true;
    return write_header(w, err);
}

/* ---- data blocks ---------------------------------------------------------------- */

/* format §9.2: enter a block under its first key, shortened against the last
 * key of the block before it; then remember this block's last key. */
static cf_status add_validx_entry(cf_writer *w, cf_slice first, cf_slice last, cf_block_ptr ptr,
                                  cf_error *err)
{
    size_t klen = first.len;
    if (w->o.optimize_index_keys)
        klen = cf_key_shortened_len((cf_slice){w->prev_last_key.data, w->prev_last_key.len}, first);
    CF_TRY(cf_btree_writer_append(w->validx, (cf_slice){first.data, klen}, ptr, err));
    cf_buf_clear(&w->prev_last_key);
    cf_buf_append(&w->prev_last_key, last.data, last.len);
    CF_CHECK(!w->prev_last_key.oom, err, CF_ENOMEM, "out of memory keeping an index key");
    return CF_OK;
}

/* format §10.3 finish_data_block: encode, lay out (§6, block_layout.c), frame,
 * index. */
static cf_status finish_data_block(cf_writer *w, cf_error *err)
{
    if (w->block_rows == 0)
        return CF_OK;
    uint32_t first_ord = (uint32_t)(w->rows - w->block_rows);
    cf_slice enc;
    CF_TRY(w->eops->finish(w->enc, first_ord, &enc, err));
    cf_slice logical;
    CF_TRY(cf_block_layout_writer_finish(&w->layout, enc, &w->block, &logical, err));
    cf_block_ptr ptr;
    CF_TRY(write_block(w, logical.data, logical.len, &ptr, err));
    if (w->posidx) {
        uint8_t key[4];
        cf_store_be32(key, first_ord);
        CF_TRY(cf_btree_writer_append(w->posidx, (cf_slice){key, 4}, ptr, err));
    }
    if (w->validx)
        CF_TRY(add_validx_entry(w, (cf_slice){w->first_key.data, w->first_key.len},
                                (cf_slice){w->last_key.data, w->last_key.len}, ptr, err));
    w->eops->reset(w->enc);
    cf_block_layout_writer_reset(&w->layout);
    w->block_rows = 0;
    w->block_has_value = false;
    return CF_OK;
}

/* Value-index bookkeeping and the sort check for n values just taken. */
static cf_status note_values(cf_writer *w, const uint8_t *vals, size_t n, cf_error *err)
{
    if (!w->o.write_validx || n == 0)
        return CF_OK;
    size_t es = w->elem_size;
    if (w->key_fn) { /* the caller keys and orders its values */
        if (!w->block_has_value) {
            w->key_fn(w->key_ctx, vals, &w->first_key);
            w->block_has_value = true;
        }
        w->key_fn(w->key_ctx, vals + (n - 1) * es, &w->last_key);
        CF_CHECK(!w->first_key.oom && !w->last_key.oom, err, CF_ENOMEM,
                 "out of memory keeping index keys");
        return CF_OK;
    }
    /* The order check compares memcomparable keys, which own their bytes: the
     * caller's values (binary slices especially) are only borrowed for a call. */
    for (size_t i = 0; i < n; i++) {
        cf_key_encode(w->o.type, vals + i * es, &w->key_tmp);
        CF_CHECK(!w->key_tmp.oom, err, CF_ENOMEM, "out of memory keeping index keys");
        if (w->have_last_value) {
            CF_CHECK(cf_bytes_cmp(w->last_key.data, w->last_key.len, w->key_tmp.data,
                                  w->key_tmp.len) <= 0,
                     err, CF_EINVAL,
                     "row %llu: values must be appended in sorted order for a value index",
                     (unsigned long long)(w->rows + i));
        }
        cf_buf swap = w->last_key;
        w->last_key = w->key_tmp;
        w->key_tmp = swap;
        w->have_last_value = true;
        if (!w->block_has_value) {
            cf_buf_clear(&w->first_key);
            cf_buf_append(&w->first_key, w->last_key.data, w->last_key.len);
            CF_CHECK(!w->first_key.oom, err, CF_ENOMEM, "out of memory keeping index keys");
            w->block_has_value = true;
        }
    }
    return CF_OK;
}

/* Add a run of present values, cutting blocks as the encoding decides. */
static cf_status add_present(cf_writer *w, const uint8_t *vals, size_t n, cf_error *err)
{
    size_t es = w->elem_size;
    while (n > 0) {
        size_t took = w->eops->add(w->enc, vals, n, false);
        CF_TRY(note_values(w, vals, took, err));
        if (w->o.nullable)
            cf_block_layout_writer_put_rows(&w->layout, true, took);
        w->block_rows += (uint32_t)took;
        w->rows += took;
        vals += took * es;
        n -= took;
        if (w->eops->is_full(w->enc)) {
            CF_TRY(finish_data_block(w, err));
            /* Full again with nothing taken: an encoder out of memory (its
             * sticky oom flag reads as full) would loop here forever. */
            CF_CHECK(took > 0 || !w->eops->is_full(w->enc), err, CF_ENOMEM,
                     "writer: out of memory in the encoder at row %llu",
                     (unsigned long long)w->rows);
        } else if (took == 0) {
            /* An encoder that takes nothing and is not full would loop forever. */
            CF_FAIL(err, CF_EINVAL, "value at row %llu does not fit in an empty block",
                    (unsigned long long)w->rows);
        }
    }
    return CF_OK;
}

static cf_status check_append(cf_writer *w, size_t count, cf_error *err)
{
    CF_TRY(sticky(w, err));
    CF_CHECK(!w->finished, err, CF_ESTATE, "append after finish");
    CF_CHECK(!w->raw_blocks || count == 0, err, CF_ESTATE,
             "values cannot be appended after raw blocks");
    CF_CHECK(count <= UINT32_MAX && w->rows + count <= UINT32_MAX, err, CF_EINVAL,
             "a CFile holds at most 2^32-1 rows (ordinals are 32-bit)");
    return ensure_started(w, err);
}

cf_status cf_writer_append(cf_writer *w, const void *values, const uint8_t *nonnull, size_t count,
                           cf_error *err)
{
    cf_status st = check_append(w, count, err);
    if (st != CF_OK)
        return fail(w, st, err);
    if (w->o.is_array)
        return fail(w,
                    cf_error_set(err, CF_EINVAL, __FILE__, __LINE__,
                                 "array column: use cf_writer_append_arrays"),
                    err);
    if (count == 0)
        return CF_OK;
    if (values == NULL)
        return fail(w, cf_error_set(err, CF_EINVAL, __FILE__, __LINE__, "values is NULL"), err);
    const uint8_t *vals = values;
    size_t es = w->elem_size;
    if (!w->o.nullable) {
        if (nonnull && cf_bitmap_count(nonnull, 0, count) != count)
            return fail(w,
                        cf_error_set(err, CF_EINVAL, __FILE__, __LINE__,
                                     "NULL value appended to a column that is not nullable"),
                        err);
        return fail(w, add_present(w, vals, count, err), err);
    }
    /* format §10.3: runs of equal validity; only present runs may end a block. */
    size_t i = 0;
    while (i < count) {
        size_t run = nonnull ? cf_bitmap_run(nonnull, i, count - i) : count - i;
        bool present = nonnull ? cf_bitmap_get(nonnull, i) : true;
        if (present) {
            st = add_present(w, vals + i * es, run, err);
            if (st != CF_OK)
                return fail(w, st, err);
        } else {
            cf_block_layout_writer_put_rows(&w->layout, false, run);
            w->block_rows += (uint32_t)run;
            w->rows += run;
        }
        i += run;
    }
    return CF_OK;
}

cf_status cf_writer_append_arrays(cf_writer *w, const void *elems, const uint8_t *elem_nonnull,
                                  const uint32_t *elem_counts, const uint8_t *cell_nonnull,
                                  size_t count, cf_error *err)
{
    cf_status st = check_append(w, count, err);
    if (st != CF_OK)
        return fail(w, st, err);
    if (!w->o.is_array)
        return fail(w,
                    cf_error_set(err, CF_EINVAL, __FILE__, __LINE__,
                                 "not an array column: use cf_writer_append"),
                    err);
    if (count > 0 && elem_counts == NULL)
        return fail(w, cf_error_set(err, CF_EINVAL, __FILE__, __LINE__, "elem_counts is NULL"),
                    err);
    /* Validate the whole call first so that a bad cell leaves nothing half-added. */
    size_t total = 0;
    for (size_t c = 0; c < count; c++) {
        bool present = cell_nonnull ? cf_bitmap_get(cell_nonnull, c) : true;
        uint32_t k = present ? elem_counts[c] : 0;
        if (!present && elem_counts[c] != 0)
            return fail(w,
                        cf_error_set(err, CF_EINVAL, __FILE__, __LINE__,
                                     "cell %zu is NULL but has %u elements", c, elem_counts[c]),
                        err);
        if (!present && !w->o.nullable)
            return fail(w,
                        cf_error_set(err, CF_EINVAL, __FILE__, __LINE__,
                                     "cell %zu is NULL in a column that is not nullable", c),
                        err);
        if (k > CF_MAX_ARRAY_ELEMS)
            return fail(w,
                        cf_error_set(err, CF_EINVAL, __FILE__, __LINE__,
                                     "cell %zu has %u elements; an array holds at most %u", c, k,
                                     CF_MAX_ARRAY_ELEMS),
                        err);
        total += k;
    }
    if (total > 0 && elems == NULL)
        return fail(w, cf_error_set(err, CF_EINVAL, __FILE__, __LINE__, "elems is NULL"), err);
    const uint8_t *base = elems;
    size_t es = w->elem_size, e = 0;
    for (size_t c = 0; c < count; c++) {
        bool present = cell_nonnull ? cf_bitmap_get(cell_nonnull, c) : true;
        uint32_t k = present ? elem_counts[c] : 0;
        cf_block_layout_writer_put_cell(&w->layout, present, k);
        w->block_rows++;
        w->rows++;
        if (!present)
            continue;
        /* format §10.3: a cell is never split; the builder takes it whole. */
        size_t j = 0;
        while (j < k) {
            size_t run = elem_nonnull ? cf_bitmap_run(elem_nonnull, e + j, k - j) : k - j;
            bool ep = elem_nonnull ? cf_bitmap_get(elem_nonnull, e + j) : true;
            if (ep) {
                size_t took = w->eops->add(w->enc, base + (e + j) * es, run, true);
                if (took != run)
                    return fail(w,
                                cf_error_set(err, CF_EINVAL, __FILE__, __LINE__,
                                             "encoder refused array elements of cell %zu", c),
                                err);
            }
            cf_block_layout_writer_put_elems(&w->layout, ep, run);
            j += run;
        }
        e += k;
        if (w->eops->is_full(w->enc)) {
            st = finish_data_block(w, err);
            if (st != CF_OK)
                return fail(w, st, err);
        }
    }
    return CF_OK;
}

cf_status cf_writer_set_validx_key_fn(cf_writer *w, cf_validx_key_fn fn, void *ctx, cf_error *err)
{
    CF_TRY(sticky(w, err));
    CF_CHECK(!w->started, err, CF_ESTATE, "the value-index key function is set before appends");
    CF_CHECK(w->validx != NULL, err, CF_EINVAL, "a value-index key function needs write_validx");
    w->key_fn = fn;
    w->key_ctx = ctx;
    return CF_OK;
}

cf_status cf_writer_append_raw_block(cf_writer *w, const uint8_t *data, size_t len,
                                     cf_slice first_key, cf_slice last_key, cf_error *err)
{
    cf_status st = check_append(w, 0, err);
    if (st == CF_OK && (w->rows > 0 || w->o.is_array))
        st = cf_error_set(err, CF_ESTATE, __FILE__, __LINE__,
                          "raw blocks cannot be mixed with appended values");
    if (st == CF_OK && w->validx == NULL)
        st = cf_error_set(err, CF_EINVAL, __FILE__, __LINE__, "raw blocks need write_validx");
    cf_block_ptr ptr;
    if (st == CF_OK)
        st = write_block(w, data, len, &ptr, err);
    if (st == CF_OK)
        st = add_validx_entry(w, first_key, last_key, ptr, err);
    w->raw_blocks = true;
    return fail(w, st, err);
}

/* ---- create, metadata, finish, free ------------------------------------------------ */

cf_status cf_writer_create(cf_writer **out, cf_io *io, const cf_writer_options *opts, cf_error *err)
{
    *out = NULL;
    CF_CHECK(io != NULL && io->ops && io->ops->append && io->ops->size, err, CF_EINVAL,
             "writer needs a writable io");
    cf_writer_options o;
    CF_TRY(resolve_options(&o, opts, err));
    const cf_encoder_ops *eops = cf_encoder_lookup(o.type, o.encoding);
    CF_CHECK(eops != NULL, err, CF_ENOTSUP, "encoding %s for %s is not built into this library",
             cf_encoding_name(o.encoding), cf_type_name(o.type));
    cf_writer *w = cf_calloc(1, sizeof *w);
    CF_CHECK(w != NULL, err, CF_ENOMEM, "out of memory creating a writer");
    w->o = o;
    w->io = io;
    w->eops = eops;
    w->elem_size = cf_type_size(o.type);
    w->fo = (cf_frame_opts){.compression = o.compression, .checksums = o.checksums};
    cf_block_layout_writer_init(&w->layout, cf_block_layout_kind_of(o.nullable, o.is_array));
    cf_buf_init(&w->first_key);
    cf_buf_init(&w->last_key);
    cf_buf_init(&w->prev_last_key);
    cf_buf_init(&w->key_tmp);
    cf_buf_init(&w->block);
    cf_buf_init(&w->framed);
    cf_enc_params ep = {o.type, w->elem_size, o.block_size, o.restart_interval};
    cf_status st = eops->create(&w->enc, &ep, err);
    if (st == CF_OK && o.write_posidx)
        st = cf_btree_writer_create(&w->posidx, o.index_block_size, btree_write_cb, w, err);
    if (st == CF_OK && o.write_validx)
        st = cf_btree_writer_create(&w->validx, o.index_block_size, btree_write_cb, w, err);
    if (st != CF_OK) {
        cf_writer_free(w);
        return st;
    }
    *out = w;
    return CF_OK;
}

cf_status cf_writer_create_file(cf_writer **out, const char *path, const cf_writer_options *opts,
                                cf_error *err)
{
    *out = NULL;
    cf_io *io;
    CF_TRY(cf_io_create_file(&io, path, err));
    cf_status st = cf_writer_create(out, io, opts, err);
    if (st != CF_OK) {
        cf_io_free(io);
        return st;
    }
    (*out)->owned_io = io;
    return CF_OK;
}

cf_status cf_writer_add_metadata(cf_writer *w, const char *key, const void *value, size_t value_len,
                                 cf_error *err)
{
    CF_TRY(sticky(w, err));
    CF_CHECK(!w->finished, err, CF_ESTATE, "metadata added after finish");
    CF_CHECK(key != NULL && (value != NULL || value_len == 0), err, CF_EINVAL,
             "metadata key or value is NULL");
    return fail(w, md_add(w->started ? &w->footer_md : &w->header_md, key, value, value_len, err),
                err);
}

static cf_status write_footer(cf_writer *w, cf_block_ptr *posroot, cf_block_ptr *valroot,
                              cf_error *err)
{
    Kudu__CFileFooterPB f = KUDU__CFILE_FOOTER_PB__INIT;
    Kudu__BTreeInfoPB pos = KUDU__BTREE_INFO_PB__INIT, val = KUDU__BTREE_INFO_PB__INIT;
    Kudu__BlockPointerPB posb = KUDU__BLOCK_POINTER_PB__INIT, valb = KUDU__BLOCK_POINTER_PB__INIT,
                         dictb = KUDU__BLOCK_POINTER_PB__INIT;
    size_t n = w->footer_md.n;
    Kudu__FileMetadataPairPB **ptrs = md_to_pb(&w->footer_md);
    cf_buf b;
    cf_buf_init(&b);
    cf_status st = CF_OK;
    if (ptrs == NULL)
        CF_FAIL_OUT(err, CF_ENOMEM, "out of memory writing the footer");
    /* format §2.3: which fields Kudu sets, so protobuf emits exactly its bytes. */
    f.data_type = (Kudu__DataType)w->o.type;
    f.encoding = (Kudu__EncodingType)w->o.encoding;
    f.num_values = (int64_t)w->rows;
    if (posroot) {
        posb.offset = (int64_t)posroot->off;
        posb.size = (int32_t)posroot->size;
        pos.root_block = &posb;
        f.posidx_info = &pos;
    }
    if (valroot) {
        valb.offset = (int64_t)valroot->off;
        valb.size = (int32_t)valroot->size;
        val.root_block = &valb;
        f.validx_info = &val;
    }
    f.has_compression = 1;
    f.compression = (Kudu__CompressionType)w->o.compression;
    f.n_metadata = n;
    f.metadata = ptrs;
    f.has_is_type_nullable = 1;
    f.is_type_nullable = w->o.nullable;
    if (w->has_dict_ptr) {
        dictb.offset = (int64_t)w->dict_ptr.off;
        dictb.size = (int32_t)w->dict_ptr.size;
        f.dict_block_ptr = &dictb;
    }
    f.has_incompatible_features = 1;
    f.incompatible_features = (w->o.checksums ? CF_FEATURE_CHECKSUM : 0) |
                              (w->o.is_array ? CF_FEATURE_ARRAY_DATA_BLOCK : 0);
    if (w->o.is_array) {
        f.has_is_type_array = 1;
        f.is_type_array = 1;
    }
    size_t pblen = kudu__cfile_footer_pb__get_packed_size(&f);
    if (pblen > CF_MAX_PB_LEN)
        CF_FAIL_OUT(err, CF_EINVAL, "footer of %zu bytes exceeds the 64 KiB footer limit", pblen);
    if (w->o.checksums)
        cf_buf_put_le32(&b, 0); /* filled below */
    uint8_t *p = cf_buf_extend(&b, pblen);
    if (p)
        kudu__cfile_footer_pb__pack(&f, p);
    cf_buf_append(&b, CF_MAGIC_V2, CF_MAGIC_LEN);
    cf_buf_put_le32(&b, (uint32_t)pblen);
    if (b.oom)
        CF_FAIL_OUT(err, CF_ENOMEM, "out of memory writing the footer");
    if (w->o.checksums)
        cf_store_le32(b.data, cf_crc32c(b.data + 4, b.len - 4));
    CF_TRY_OUT(io_append(w, b.data, b.len, err));
out:
    cf_free(ptrs);
    cf_buf_dispose(&b);
    return st;
}

static cf_status do_finish(cf_writer *w, cf_error *err)
{
    CF_TRY(ensure_started(w, err));
    CF_TRY(finish_data_block(w, err));
    cf_block_ptr posroot, valroot;
    if (w->posidx)
        CF_TRY(cf_btree_writer_finish(w->posidx, &posroot, err));
    if (w->validx)
        CF_TRY(cf_btree_writer_finish(w->validx, &valroot, err));
    if (w->eops->finish_dict) {
        cf_slice dict;
        CF_TRY(w->eops->finish_dict(w->enc, &dict, err));
        CF_TRY(write_block(w, dict.data, dict.len, &w->dict_ptr, err));
        w->has_dict_ptr = true;
    }
    CF_TRY(write_footer(w, w->posidx ? &posroot : NULL, w->validx ? &valroot : NULL, err));
    if (w->io->ops->commit)
        CF_TRY(w->io->ops->commit(w->io, err));
    return CF_OK;
}

cf_status cf_writer_finish(cf_writer *w, cf_error *err)
{
    CF_TRY(sticky(w, err));
    CF_CHECK(!w->finished, err, CF_ESTATE, "finish called twice");
    cf_status st = do_finish(w, err);
    w->finished = true;
    return fail(w, st, err);
}

uint64_t cf_writer_num_values(const cf_writer *w)
{
    return w->rows;
}

const cf_writer_options *cf_writer_resolved_options(const cf_writer *w)
{
    return &w->o;
}

void cf_writer_free(cf_writer *w)
{
    if (w == NULL)
        return;
    if (w->enc)
        w->eops->free(w->enc);
    cf_btree_writer_free(w->posidx);
    cf_btree_writer_free(w->validx);
    cf_block_layout_writer_dispose(&w->layout);
    cf_buf_dispose(&w->first_key);
    cf_buf_dispose(&w->last_key);
    cf_buf_dispose(&w->prev_last_key);
    cf_buf_dispose(&w->key_tmp);
    cf_buf_dispose(&w->block);
    cf_buf_dispose(&w->framed);
    md_free(&w->header_md);
    md_free(&w->footer_md);
    cf_io_free(w->owned_io);
    cf_free(w);
}
