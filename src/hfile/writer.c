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
 */
#include "internal.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "hfile.pb-c.h"
#include "util/alloc.h"
#include "util/endian.h"
#include "util/error.h"

#define KV_COMPARATOR "org.apache.hadoop.hbase.KeyValue$KVComparator"
#define NTYPES 10

/* Block types that keep their own prev_block_offset chain. */
static const char *const kinds[NTYPES] = {HF_DATA,    HF_LEAF,   HF_BLOOMCHK, HF_META,
                                          HF_INTER,   HF_ROOT,   HF_FILEINFO, HF_GBLOOM,
                                          HF_DFBLOOM, HF_ENCDATA};

/* A block index chunk (HBase BlockIndexChunk): entries with their keys, and
 * for the root of a multi-level index the running count of data blocks. */
typedef struct ichunk {
    hf_entry *v;
    uint64_t *sub;
    size_t n, cap;
    cf_buf keys;
    size_t root_bytes; /* sum of root-format entry sizes */
    size_t key_bytes;  /* sum of key lengths */
} ichunk;

typedef struct ready_chunk {
    size_t data_off, data_len, key_off, key_len;
} ready_chunk;

struct cf_hfile_writer {
    cf_io *io;
    cf_hfile_writer_options o;
    cf_sticky sticky; /* the first failure, replayed by every later call */
    bool finished;
    char comparator[256];
    uint64_t pos;
    int64_t prev_off[NTYPES];
    cf_buf out, payload, key, last_key, blk, blk_first_key, prev_blk_last_key;
    uint64_t blk_cells;
    bool have_prev_blk;
    ichunk leaf, root;
    uint32_t levels;
    uint64_t leaf_entries_total;
    uint64_t total_uncompressed, index_uncompressed;
    uint64_t entries, total_key_len, total_val_len, max_mvcc;
    uint32_t max_tags;
    int64_t first_data_off, last_data_off;
    /* ROW Bloom (CompoundBloomFilterWriter). */
    uint8_t *bits;
    size_t bloom_bytes;
    uint32_t hash_count;
    uint64_t chunk_max_keys, chunk_keys;
    bool chunk_open;
    cf_buf chunk_first_key, last_row, ready_data;
    bool have_row;
    ready_chunk *ready;
    size_t nready, ready_cap;
    ichunk bloom_index;
    uint64_t bloom_total_bytes, bloom_total_keys, bloom_total_max;
    cf_buf user_fi, metas; /* records: u32 len | bytes | u32 len | bytes */
    cf_buf enc;            /* the encoded form of a data block */
    bool delta;            /* PREFIX, DIFF or FAST_DIFF: one family per file */
};

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

/* ---- index chunks -------------------------------------------------------------------- */

static void ichunk_init(ichunk *c)
{
    memset(c, 0, sizeof(*c));
    cf_buf_init(&c->keys);
    (void)cf_buf_reserve(&c->keys, 16); /* data + offset stays valid for empty keys */
}

static void ichunk_dispose(ichunk *c)
{
    cf_free(c->v);
    cf_free(c->sub);
    cf_buf_dispose(&c->keys);
}

static void ichunk_clear(ichunk *c)
{
    c->n = 0;
    c->root_bytes = c->key_bytes = 0;
    cf_buf_clear(&c->keys);
}

static cf_status ichunk_add(ichunk *c, const uint8_t *key, size_t klen, uint64_t off, uint32_t size,
                            uint64_t sub, cf_error *err)
{
    if (c->n == c->cap) {
        size_t nc = c->cap ? c->cap * 2 : 64;
        hf_entry *nv = cf_realloc(c->v, nc * sizeof(*nv));
        if (nv)
            c->v = nv;
        uint64_t *ns = cf_realloc(c->sub, nc * sizeof(*ns));
        if (ns)
            c->sub = ns;
        CF_CHECK(nv != NULL && ns != NULL, err, CF_ENOMEM, "hfile writer: out of memory");
        c->cap = nc;
    }
    c->v[c->n] = (hf_entry){off, size, (uint32_t)klen, c->keys.len};
    c->sub[c->n] = sub;
    c->n++;
    cf_buf_append(&c->keys, key, klen);
    c->root_bytes += 12 + cf_hfile_vlong_size((int64_t)klen) + klen;
    c->key_bytes += klen;
    return cf_buf_status(&c->keys);
}

static size_t nonroot_size(const ichunk *c)
{
    return 4 + 4 * (c->n + 1) + 12 * c->n + c->key_bytes;
}

static void put_be64(cf_buf *b, uint64_t v)
{
    uint8_t t[8];
    cf_store_be64(t, v);
    cf_buf_append(b, t, 8);
}

static void write_root(const ichunk *c, cf_buf *b)
{
    for (size_t i = 0; i < c->n; i++) {
        put_be64(b, c->v[i].off);
        cf_buf_put_be32(b, c->v[i].size);
        cf_hfile_put_vlong(b, c->v[i].key_len);
        cf_buf_append(b, c->keys.data + c->v[i].key_off, c->v[i].key_len);
    }
}

static void write_nonroot(const ichunk *c, cf_buf *b)
{
    cf_buf_put_be32(b, (uint32_t)c->n);
    uint32_t rel = 0;
    for (size_t i = 0; i < c->n; i++) {
        cf_buf_put_be32(b, rel);
        rel += 12 + c->v[i].key_len;
    }
    cf_buf_put_be32(b, rel);
    for (size_t i = 0; i < c->n; i++) {
        put_be64(b, c->v[i].off);
        cf_buf_put_be32(b, c->v[i].size);
        cf_buf_append(b, c->keys.data + c->v[i].key_off, c->v[i].key_len);
    }
}

/* ---- blocks -------------------------------------------------------------------------- */

static int kind_of(const char *magic)
{
    for (int i = 0; i < NTYPES; i++)
        if (memcmp(kinds[i], magic, HF_MAGIC_LEN) == 0)
            return i;
    return 0;
}

static cf_status emit(cf_hfile_writer *w, const void *p, size_t n, cf_error *err)
{
    CF_TRY(w->io->ops->append(w->io, p, n, err));
    w->pos += n;
    return CF_OK;
}

/* Frame, compress, checksum and append one block. count_total: add it to the
 * trailer's total_uncompressed_bytes (HBase leaves the root/intermediate index out). */
static cf_status write_block(cf_hfile_writer *w, const char *magic, const uint8_t *p, size_t len,
                             bool count_total, uint64_t *off_out, uint32_t *size_out, cf_error *err)
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
    CF_TRY(emit(w, o->data, o->len, err));
    w->prev_off[k] = (int64_t)off;
    if (count_total)
        w->total_uncompressed += HF_HDR_CKSUM + len;
    if (off_out)
        *off_out = off;
    if (size_out)
        *size_out = (uint32_t)o->len;
    return CF_OK;
}

/* ---- Bloom --------------------------------------------------------------------------- */

static void bloom_setup(cf_hfile_writer *w)
{
    /* BloomFilterUtil.createBySize with fold factor 7. */
    uint64_t bytes = ((uint64_t)w->o.bloom_chunk_size * 8 + 7) / 8;
    if (bytes & 127)
        bytes = ((bytes >> 7) + 1) << 7;
    double bits = (double)(bytes * 8);
    double ln2 = log(2.0);
    double err = w->o.bloom_error_rate;
    uint64_t maxk = (uint64_t)(int64_t)(bits * (ln2 * ln2 / -log(err)));
    if (maxk == 0)
        maxk = 1;
    uint32_t hc = (uint32_t)ceil(ln2 * (double)((bytes * 8) / maxk));
    if (hc == 0)
        hc = 1;
    double mk = -bits / hc * log(1 - exp(log(err) / hc));
    w->bloom_bytes = (size_t)bytes;
    w->hash_count = hc;
    w->chunk_max_keys = (uint64_t)(int32_t)(int64_t)mk;
}

static cf_status bloom_enqueue(cf_hfile_writer *w, bool closing, cf_error *err)
{
    if (!w->chunk_open || (w->chunk_keys < w->chunk_max_keys && !closing))
        return CF_OK;
    /* compactBloom: fold while the chunk is at most half full and folding is lossless. */
    size_t nb = w->bloom_bytes, pieces = 1;
    uint64_t nm = w->chunk_max_keys;
    while ((nb & 1) == 0 && nm > (w->chunk_keys << 1)) {
        pieces <<= 1;
        nb >>= 1;
        nm >>= 1;
    }
    for (size_t p = 1; p < pieces; p++)
        for (size_t i = 0; i < nb; i++)
            w->bits[i] |= w->bits[p * nb + i];
    if (w->nready == w->ready_cap) {
        size_t nc = w->ready_cap ? w->ready_cap * 2 : 4;
        ready_chunk *r = cf_realloc(w->ready, nc * sizeof(*r));
        CF_CHECK(r != NULL, err, CF_ENOMEM, "hfile writer: out of memory");
        w->ready = r;
        w->ready_cap = nc;
    }
    ready_chunk *r = &w->ready[w->nready++];
    r->data_off = w->ready_data.len;
    r->data_len = nb;
    cf_buf_append(&w->ready_data, w->bits, nb);
    r->key_off = w->ready_data.len;
    r->key_len = w->chunk_first_key.len;
    cf_buf_append(&w->ready_data, w->chunk_first_key.data, w->chunk_first_key.len);
    w->bloom_total_max += nm;
    w->bloom_total_bytes += nb;
    w->chunk_open = false;
    return cf_buf_status(&w->ready_data);
}

static cf_status bloom_add(cf_hfile_writer *w, const uint8_t *row, size_t len, cf_error *err)
{
    CF_TRY(bloom_enqueue(w, false, err));
    if (!w->chunk_open) {
        if (w->bits == NULL) {
            w->bits = cf_malloc(w->bloom_bytes);
            CF_CHECK(w->bits != NULL, err, CF_ENOMEM, "hfile writer: Bloom out of memory");
        }
        memset(w->bits, 0, w->bloom_bytes);
        cf_buf_clear(&w->chunk_first_key);
        cf_buf_append(&w->chunk_first_key, row, len);
        w->chunk_open = true;
        w->chunk_keys = 0;
    }
    int32_t nbits = (int32_t)(w->bloom_bytes * 8);
    int32_t h1 = cf_hfile_hash(CF_HFILE_HASH_MURMUR, row, len, 0);
    int32_t h2 = cf_hfile_hash(CF_HFILE_HASH_MURMUR, row, len, h1);
    for (uint32_t i = 0; i < w->hash_count; i++) {
        uint32_t comp = (uint32_t)h1 + i * (uint32_t)h2;
        int32_t r = (int32_t)comp % nbits;
        uint32_t bit = (uint32_t)abs(r);
        w->bits[bit >> 3] |= (uint8_t)(1u << (bit & 7));
    }
    w->chunk_keys++;
    w->bloom_total_keys++;
    return cf_buf_status(&w->chunk_first_key);
}

/* ---- index --------------------------------------------------------------------------- */

static cf_status write_leaf(cf_hfile_writer *w, cf_error *err)
{
    cf_buf_clear(&w->payload);
    write_nonroot(&w->leaf, &w->payload);
    CF_TRY(cf_buf_status(&w->payload));
    uint64_t off;
    uint32_t size;
    CF_TRY(write_block(w, HF_LEAF, w->payload.data, w->payload.len, true, &off, &size, err));
    w->index_uncompressed += w->payload.len;
    w->leaf_entries_total += w->leaf.n;
    CF_TRY(ichunk_add(&w->root, w->leaf.keys.data + w->leaf.v[0].key_off, w->leaf.v[0].key_len, off,
                      size, w->leaf_entries_total, err));
    if (w->levels < 2)
        w->levels = 2;
    ichunk_clear(&w->leaf);
    return CF_OK;
}

static cf_status write_inline(cf_hfile_writer *w, bool closing, cf_error *err)
{
    if (w->leaf.n > 0) {
        if (closing) {
            if (w->root.n > 0)
                CF_TRY(write_leaf(w, err));
        } else if (nonroot_size(&w->leaf) >= w->o.index_block_size) {
            CF_TRY(write_leaf(w, err));
        }
    }
    if (w->o.row_bloom) {
        CF_TRY(bloom_enqueue(w, closing, err));
        for (size_t i = 0; i < w->nready; i++) {
            ready_chunk *r = &w->ready[i];
            uint64_t off;
            uint32_t size;
            CF_TRY(write_block(w, HF_BLOOMCHK, w->ready_data.data + r->data_off, r->data_len, true,
                               &off, &size, err));
            CF_TRY(ichunk_add(&w->bloom_index, w->ready_data.data + r->key_off, r->key_len, off,
                              size, 0, err));
        }
        w->nready = 0;
        cf_buf_clear(&w->ready_data);
    }
    return CF_OK;
}

/* HBase's getMinimumMidpointArray: the shortest byte string > left and <= right. */
static void midpoint_array(const uint8_t *l, size_t ll, const uint8_t *r, size_t rl, cf_buf *o)
{
    size_t m = ll < rl ? ll : rl, d = 0;
    while (d < m && l[d] == r[d])
        d++;
    if (d >= m) {
        cf_buf_append(o, r, d + 1);
        return;
    }
    int diff = (int8_t)l[d]; /* a signed Java byte, on purpose */
    if ((diff & 0xff) < 0xff && diff + 1 < (int)r[d]) {
        cf_buf_append(o, l, d);
        cf_buf_put_u8(o, (uint8_t)(diff + 1));
    } else {
        cf_buf_append(o, r, d + 1);
    }
}

static void put_key(cf_buf *b, cf_slice row, cf_slice fam, cf_slice qual, int64_t ts, uint8_t type)
{
    uint8_t t[2] = {(uint8_t)(row.len >> 8), (uint8_t)row.len};
    cf_buf_append(b, t, 2);
    cf_buf_append(b, row.data, row.len);
    cf_buf_put_u8(b, (uint8_t)fam.len);
    cf_buf_append(b, fam.data, fam.len);
    cf_buf_append(b, qual.data, qual.len);
    put_be64(b, (uint64_t)ts);
    cf_buf_put_u8(b, type);
}

/* The index key of a block: HFileWriterImpl.getMidpoint(prev last, this first). */
static cf_status index_key(cf_hfile_writer *w, cf_buf *o, cf_error *err)
{
    cf_buf_clear(o);
    cf_hfile_cell l, r;
    CF_TRY(cf_hfile_parse_key(&l, w->prev_blk_last_key.data, w->prev_blk_last_key.len, err));
    CF_TRY(cf_hfile_parse_key(&r, w->blk_first_key.data, w->blk_first_key.len, err));
    cf_buf mid;
    cf_buf_init(&mid);
    cf_slice none = {(const uint8_t *)"", 0};
    int c;
    size_t n;
    n = l.row.len < r.row.len ? l.row.len : r.row.len;
    c = n ? memcmp(l.row.data, r.row.data, n) : 0;
    if (c == 0 && l.row.len != r.row.len)
        c = l.row.len < r.row.len ? -1 : 1;
    if (c < 0) {
        midpoint_array(l.row.data, l.row.len, r.row.data, r.row.len, &mid);
        put_key(o, (cf_slice){mid.data, mid.len}, none, none, INT64_MAX, CF_HFILE_MAXIMUM);
        goto done;
    }
    n = l.family.len < r.family.len ? l.family.len : r.family.len;
    c = n ? memcmp(l.family.data, r.family.data, n) : 0;
    if (c == 0 && l.family.len != r.family.len)
        c = l.family.len < r.family.len ? -1 : 1;
    if (c < 0) {
        midpoint_array(l.family.data, l.family.len, r.family.data, r.family.len, &mid);
        put_key(o, r.row, (cf_slice){mid.data, mid.len}, none, INT64_MAX, CF_HFILE_MAXIMUM);
        goto done;
    }
    n = l.qualifier.len < r.qualifier.len ? l.qualifier.len : r.qualifier.len;
    c = n ? memcmp(l.qualifier.data, r.qualifier.data, n) : 0;
    if (c == 0 && l.qualifier.len != r.qualifier.len)
        c = l.qualifier.len < r.qualifier.len ? -1 : 1;
    if (c < 0) {
        midpoint_array(l.qualifier.data, l.qualifier.len, r.qualifier.data, r.qualifier.len, &mid);
        put_key(o, r.row, r.family, (cf_slice){mid.data, mid.len}, INT64_MAX, CF_HFILE_MAXIMUM);
        goto done;
    }
    cf_buf_append(o, w->blk_first_key.data, w->blk_first_key.len);
done:
    if (mid.oom)
        o->oom = true;
    cf_buf_dispose(&mid);
    return cf_buf_status(o);
}

static cf_status finish_block(cf_hfile_writer *w, cf_error *err)
{
    if (w->blk_cells == 0)
        return CF_OK;
    uint64_t off;
    uint32_t size;
    if (w->o.encoding == CF_HFILE_DBE_NONE) {
        CF_TRY(write_block(w, HF_DATA, w->blk.data, w->blk.len, true, &off, &size, err));
    } else {
        hf_cellfmt f = {w->o.include_mvcc, w->o.include_tags, w->o.compress_tags && w->delta, 0};
        cf_buf_clear(&w->enc);
        CF_TRY(cf_hfile_dbe_encode(w->o.encoding, w->blk.data, w->blk.len, &f, &w->enc, err));
        CF_TRY(write_block(w, HF_ENCDATA, w->enc.data, w->enc.len, true, &off, &size, err));
    }
    cf_buf *k = &w->payload;
    if (!w->have_prev_blk) {
        cf_buf_clear(k);
        cf_buf_append(k, w->blk_first_key.data, w->blk_first_key.len);
        CF_TRY(cf_buf_status(k));
    } else {
        CF_TRY(index_key(w, k, err));
    }
    CF_TRY(ichunk_add(&w->leaf, k->data, k->len, off, size, 0, err));
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
    ichunk_init(&w->leaf);
    ichunk_init(&w->root);
    ichunk_init(&w->bloom_index);
    w->delta = opts->encoding == CF_HFILE_DBE_PREFIX || opts->encoding == CF_HFILE_DBE_DIFF ||
               opts->encoding == CF_HFILE_DBE_FAST_DIFF;
    w->levels = 1;
    w->first_data_off = -1;
    w->last_data_off = -1;
    w->pos = io->ops->size(io);
    if (w->o.row_bloom)
        bloom_setup(w);
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
    ichunk_dispose(&w->leaf);
    ichunk_dispose(&w->root);
    ichunk_dispose(&w->bloom_index);
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
    put_key(k, c->row, c->family, c->qualifier, c->timestamp, c->type);
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
        CF_TRY(bloom_add(w, c->row.data, c->row.len, err));
        cf_buf_clear(&w->last_row);
        cf_buf_append(&w->last_row, c->row.data, c->row.len);
        w->have_row = true;
    }
    if (w->blk_cells > 0 && w->blk.len >= w->o.block_size) {
        CF_TRY(finish_block(w, err));
        CF_TRY(write_inline(w, false, err));
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

static void put_record(cf_buf *b, const void *k, size_t kl, const void *v, size_t vl)
{
    cf_buf_put_be32(b, (uint32_t)kl);
    cf_buf_append(b, k, kl);
    cf_buf_put_be32(b, (uint32_t)vl);
    cf_buf_append(b, v, vl);
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
    put_record(&w->user_fi, key, key_len, value, value_len);
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
    put_record(&w->metas, name, strlen(name), data, len);
    if (w->metas.oom)
        return cf_sticky_set(
            &w->sticky,
            cf_error_set(err, CF_ENOMEM, __FILE__, __LINE__, "hfile writer: out of memory"), err);
    return CF_OK;
}

typedef struct rec {
    const uint8_t *k, *v;
    size_t kl, vl;
} rec;

static int rec_cmp(const void *a, const void *b)
{
    const rec *x = a, *y = b;
    size_t n = x->kl < y->kl ? x->kl : y->kl;
    int r = n ? memcmp(x->k, y->k, n) : 0;
    if (r != 0)
        return r;
    return x->kl < y->kl ? -1 : x->kl > y->kl;
}

/* Records of a put_record buffer, sorted by key (HBase keeps FileInfo in a
 * TreeMap and meta blocks in name order). */
static rec *records(const cf_buf *b, size_t *n)
{
    size_t cnt = 0;
    for (size_t p = 0; p < b->len;) {
        p += 4 + cf_load_be32(b->data + p);
        p += 4 + cf_load_be32(b->data + p);
        cnt++;
    }
    rec *r = cf_calloc(cnt + 1, sizeof(*r));
    if (!r)
        return NULL;
    size_t i = 0;
    for (size_t p = 0; p < b->len; i++) {
        r[i].kl = cf_load_be32(b->data + p);
        r[i].k = b->data + p + 4;
        p += 4 + r[i].kl;
        r[i].vl = cf_load_be32(b->data + p);
        r[i].v = b->data + p + 4;
        p += 4 + r[i].vl;
    }
    qsort(r, cnt, sizeof(*r), rec_cmp);
    *n = cnt;
    return r;
}

static void put_be32_rec(cf_buf *fi, const char *k, uint32_t v)
{
    uint8_t t[4];
    cf_store_be32(t, v);
    put_record(fi, k, strlen(k), t, 4);
}

static void put_be64_rec(cf_buf *fi, const char *k, uint64_t v)
{
    uint8_t t[8];
    cf_store_be64(t, v);
    put_record(fi, k, strlen(k), t, 8);
}

static void put_varint(cf_buf *b, uint64_t v)
{
    while (v >= 0x80) {
        cf_buf_put_u8(b, (uint8_t)(v | 0x80));
        v >>= 7;
    }
    cf_buf_put_u8(b, (uint8_t)v);
}

static cf_status write_file_info(cf_hfile_writer *w, cf_error *err)
{
    cf_buf *fi = &w->user_fi;
    if (w->o.row_bloom && w->bloom_total_keys > 0) {
        put_record(fi, "BLOOM_FILTER_TYPE", 17, "ROW", 3);
        put_record(fi, "LAST_BLOOM_KEY", 14, w->last_row.data, w->last_row.len);
    }
    if (w->entries > 0)
        put_record(fi, "hfile.LASTKEY", 13, w->last_key.data, w->last_key.len);
    put_be32_rec(fi, "hfile.AVG_KEY_LEN",
                 (uint32_t)(w->entries ? w->total_key_len / w->entries : 0));
    put_be64_rec(fi, "hfile.CREATE_TIME_TS", (uint64_t)w->o.create_time);
    put_be32_rec(fi, "hfile.AVG_VALUE_LEN",
                 (uint32_t)(w->entries ? w->total_val_len / w->entries : 0));
    if (w->o.include_tags) {
        put_be32_rec(fi, "hfile.MAX_TAGS_LEN", w->max_tags);
        /* As HBase sets it (any encoding); only its delta encoders then
         * compress tags, ROW_INDEX_V1 writes them plain whatever the flag. */
        bool ct = w->o.compress_tags && w->o.encoding != CF_HFILE_DBE_NONE;
        put_record(fi, "hfile.TAGS_COMPRESSED", 21, ct ? "\xff" : "\0", 1);
    }
    if (w->o.encoding != CF_HFILE_DBE_NONE) {
        const char *en = cf_hfile_encoding_name(w->o.encoding);
        put_record(fi, "DATA_BLOCK_ENCODING", 19, en, strlen(en));
    }
    if (w->o.include_mvcc) {
        put_be64_rec(fi, "MAX_MEMSTORE_TS_KEY", w->max_mvcc);
        put_be32_rec(fi, "KEY_VALUE_VERSION", 1);
    }
    CF_TRY(cf_buf_status(fi));
    size_t n = 0;
    rec *r = records(fi, &n);
    CF_CHECK(r != NULL, err, CF_ENOMEM, "hfile writer: out of memory");
    Hbase__BytesBytesPair *pairs = cf_calloc(n + 1, sizeof(*pairs));
    Hbase__BytesBytesPair **pp = cf_calloc(n + 1, sizeof(*pp));
    cf_status st = CF_OK;
    if (!pairs || !pp) {
        st = cf_error_set(err, CF_ENOMEM, __FILE__, __LINE__, "hfile writer: out of memory");
        goto out;
    }
    for (size_t i = 0; i < n; i++) {
        hbase__bytes_bytes_pair__init(&pairs[i]);
        pairs[i].first.data = (uint8_t *)(uintptr_t)r[i].k;
        pairs[i].first.len = r[i].kl;
        pairs[i].second.data = (uint8_t *)(uintptr_t)r[i].v;
        pairs[i].second.len = r[i].vl;
        pp[i] = &pairs[i];
    }
    Hbase__FileInfoProto m;
    hbase__file_info_proto__init(&m);
    m.n_map_entry = n;
    m.map_entry = pp;
    size_t plen = hbase__file_info_proto__get_packed_size(&m);
    cf_buf_clear(&w->payload);
    cf_buf_append(&w->payload, "PBUF", 4);
    put_varint(&w->payload, plen);
    uint8_t *dst = cf_buf_extend(&w->payload, plen);
    if (dst == NULL) {
        st = cf_error_set(err, CF_ENOMEM, __FILE__, __LINE__, "hfile writer: out of memory");
        goto out;
    }
    hbase__file_info_proto__pack(&m, dst);
    st = write_block(w, HF_FILEINFO, w->payload.data, w->payload.len, true, NULL, NULL, err);
out:
    cf_free(pairs);
    cf_free(pp);
    cf_free(r);
    return st;
}

static cf_status write_intermediate_level(cf_hfile_writer *w, ichunk *cur, ichunk *parent,
                                          cf_error *err)
{
    ichunk c;
    ichunk_init(&c);
    cf_status st = CF_OK;
    for (size_t i = 0; i < cur->n && st == CF_OK; i++) {
        st = ichunk_add(&c, cur->keys.data + cur->v[i].key_off, cur->v[i].key_len, cur->v[i].off,
                        cur->v[i].size, 0, err);
        bool last = i + 1 == cur->n;
        if (st == CF_OK && c.n > 0 &&
            ((i >= w->o.index_min_entries && c.root_bytes >= w->o.index_block_size) || last)) {
            cf_buf_clear(&w->payload);
            write_nonroot(&c, &w->payload);
            uint64_t off;
            uint32_t size;
            st = cf_buf_status(&w->payload);
            if (st == CF_OK)
                st = write_block(w, HF_INTER, w->payload.data, w->payload.len, false, &off, &size,
                                 err);
            if (st == CF_OK) {
                w->index_uncompressed += w->payload.len;
                st = ichunk_add(parent, c.keys.data + c.v[0].key_off, c.v[0].key_len, off, size, 0,
                                err);
            }
            ichunk_clear(&c);
        }
    }
    ichunk_dispose(&c);
    return st;
}

static cf_status finish(cf_hfile_writer *w, cf_error *err)
{
    CF_TRY(finish_block(w, err));
    CF_TRY(write_inline(w, true, err));

    /* Meta blocks, by name. */
    ichunk meta;
    ichunk_init(&meta);
    size_t nm = 0;
    rec *mr = records(&w->metas, &nm);
    cf_status st = mr ? CF_OK : cf_error_set(err, CF_ENOMEM, __FILE__, __LINE__, "out of memory");
    for (size_t i = 0; i < nm && st == CF_OK; i++) {
        uint64_t off;
        uint32_t size;
        st = write_block(w, HF_META, mr[i].v, mr[i].vl, true, &off, &size, err);
        if (st == CF_OK)
            st = ichunk_add(&meta, mr[i].k, mr[i].kl, off, size, 0, err);
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
            ichunk_init(&parent);
            st = write_intermediate_level(w, &w->root, &parent, err);
            ichunk_dispose(&w->root);
            w->root = parent;
            w->levels++;
            if (st != CF_OK)
                goto out;
        }
    }
    cf_buf_clear(&w->payload);
    write_root(root, &w->payload);
    if (multi)
        cf_buf_append(&w->payload, midmeta, 16);
    if ((st = cf_buf_status(&w->payload)) != CF_OK)
        goto out;
    root_off = w->pos;
    if ((st = write_block(w, HF_ROOT, w->payload.data, w->payload.len, false, NULL, NULL, err)) !=
        CF_OK)
        goto out;
    w->index_uncompressed += w->payload.len;
    uint32_t root_entries = (uint32_t)root->n;

    cf_buf_clear(&w->payload);
    write_root(&meta, &w->payload);
    if ((st = cf_buf_status(&w->payload)) != CF_OK)
        goto out;
    if ((st = write_block(w, HF_ROOT, w->payload.data, w->payload.len, true, NULL, NULL, err)) !=
        CF_OK)
        goto out;

    uint64_t fi_off = w->pos;
    if ((st = write_file_info(w, err)) != CF_OK)
        goto out;

    if (w->o.row_bloom && w->bloom_total_keys > 0) {
        cf_buf *b = &w->payload;
        cf_buf_clear(b);
        cf_buf_put_be32(b, 3);
        put_be64(b, w->bloom_total_bytes);
        cf_buf_put_be32(b, w->hash_count);
        cf_buf_put_be32(b, CF_HFILE_HASH_MURMUR);
        put_be64(b, w->bloom_total_keys);
        put_be64(b, w->bloom_total_max);
        cf_buf_put_be32(b, (uint32_t)w->bloom_index.n);
        cf_buf_put_u8(b, 0); /* ROW Blooms carry no comparator name */
        write_root(&w->bloom_index, b);
        if ((st = cf_buf_status(b)) != CF_OK)
            goto out;
        if ((st = write_block(w, HF_GBLOOM, b->data, b->len, true, NULL, NULL, err)) != CF_OK)
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
        put_varint(&v, plen);
        st = cf_buf_status(&v);
        if (st == CF_OK && HF_MAGIC_LEN + v.len + plen > HF_TRAILER_V3 - 4)
            st = cf_error_set(err, CF_EINVAL, __FILE__, __LINE__,
                              "hfile writer: trailer does not fit (comparator name too long?)");
        if (st == CF_OK) {
            memcpy(tr + HF_MAGIC_LEN, v.data, v.len);
            hbase__file_trailer_proto__pack(&t, tr + HF_MAGIC_LEN + v.len);
            cf_store_be32(tr + HF_TRAILER_V3 - 4, (3u << 24) | 3u);
            st = emit(w, tr, sizeof(tr), err);
        }
        cf_buf_dispose(&v);
    }
out:
    ichunk_dispose(&meta);
    return st;
}

cf_status cf_hfile_writer_finish(cf_hfile_writer *w, cf_error *err)
{
    CF_TRY(cf_sticky_replay(&w->sticky, "hfile writer", err));
    CF_CHECK(!w->finished, err, CF_ESTATE, "hfile writer: finish called twice");
    w->finished = true;
    return cf_sticky_set(&w->sticky, finish(w, err), err);
}
