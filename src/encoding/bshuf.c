/* BIT_SHUFFLE encoding for integers, FLOAT, DOUBLE and INT128 (format §8.5).
 *
 *   offset  size  field
 *   0       4     first ordinal, fixed32             (note: ordinal first)
 *   4       4     count, fixed32
 *   8       4     block_len = 20 + payload length; equals the block length
 *   12      4     padded_count = round_up(count, 8)
 *   16      4     elem_size as encoded: sizeof(type), or 1/2/4 for UINT32 (§8.5.3)
 *   20      ...   bitshuffle-LZ4 payload of padded_count elements (§8.5.2);
 *                 the padding elements are zero
 *
 * Writer: a block holds floor(block_size / sizeof(type)) values; add takes
 * values up to that capacity (all of them when forced) and the block is full
 * when none is left (§8.5.1, §10.2). UINT32 blocks are narrowed to the
 * smallest of 1, 2, 4 bytes that holds their maximum (§8.5.3); an empty block
 * has elem_size 1 and no payload.
 *
 * Reader: load checks the header and indexes the chunks (walking their length
 * prefixes); a chunk is decompressed the first time one of its values is
 * asked for, straight into the caller's buffer when the whole chunk is wanted,
 * else into a block buffer the decoder owns and reuses. So a seek costs one
 * chunk, and value seek is a binary search that decodes the chunks it probes
 * (§8.5.4). LZ4 damage inside a chunk is reported by the call that reads it.
 *
 * A few values of a chunk (a point lookup's row, a value seek's probes) are
 * read from its LZ4 output without the transpose: one bit per bit plane
 * (cf_bshuf_extract). The transposed chunk stays in scratch, so more reads of
 * it cost no LZ4 either; past EXTRACT_BUDGET values it is transposed whole.
 * A value seek with the block's seek index (the first value of each chunk,
 * built once per cached block by the iterator: seek_index_*) narrows the
 * search to one chunk before decoding any.
 */
#include <inttypes.h>
#include <string.h>

#include "codec/bitshuffle.h"
#include "encodings.h"
#include "util/alloc.h"
#include "util/buf.h"
#include "util/endian.h"
#include "util/error.h"

#define BSHUF_HEADER 20
/* Refuse blocks that claim to decode to more than this (hostile headers). */
#define MAX_DECODED_BYTES ((uint64_t)64 << 20)
/* An LZ4 block never expands more than ~255x; 256 leaves margin. */
#define MAX_LZ4_RATIO 256u
/* Values read one by one from a chunk's LZ4 output before it is transposed
 * whole: a value costs 8 loads per byte, a transpose ~1.5 us per 8 KiB. */
#define EXTRACT_BUDGET 32u
#define NO_CHUNK SIZE_MAX

static cf_status check_type(cf_type t, size_t elem_size, size_t *elem, cf_error *err)
{
    CF_CHECK(cf_type_valid((int)t) && !cf_type_is_binary(t) && cf_type_physical(t) != CF_TYPE_BOOL,
             err, CF_EINVAL, "bit_shuffle: type %d is not a fixed-width numeric type", (int)t);
    *elem = cf_type_size(t);
    CF_CHECK(elem_size == 0 || elem_size == *elem, err, CF_EINVAL,
             "bit_shuffle: element size %zu does not match type %s (%zu)", elem_size,
             cf_type_name(t), *elem);
    return CF_OK;
}

/* ---- encoder ----------------------------------------------------------------------- */

typedef struct bshuf_enc {
    cf_encoder base;
    cf_buf vals; /* values in memory form, then narrowed and padded by finish */
    cf_buf out;  /* header + payload */
    size_t elem;
    size_t count;
    int64_t rem; /* capacity left; negative after a forced add */
    uint32_t block_size;
    bool narrow; /* UINT32 */
    bool finished;
} bshuf_enc;

static void enc_reset(cf_encoder *e)
{
    bshuf_enc *p = (bshuf_enc *)e;
    cf_buf_clear(&p->vals);
    cf_buf_clear(&p->out);
    p->count = 0;
    p->rem = (int64_t)(p->block_size / p->elem);
    p->finished = false;
}

static cf_status enc_create(cf_encoder **out, const cf_enc_params *prm, cf_error *err)
{
    size_t elem = 0;
    *out = NULL;
    CF_TRY(check_type(prm->type, prm->elem_size, &elem, err));
    bshuf_enc *p = cf_calloc(1, sizeof *p);
    CF_CHECK(p != NULL, err, CF_ENOMEM, "bit_shuffle: out of memory creating encoder");
    p->base.ops = &cf_enc_bshuf_ops;
    p->elem = elem;
    p->block_size = prm->block_size;
    p->narrow = cf_type_physical(prm->type) == CF_TYPE_UINT32;
    cf_buf_init(&p->vals);
    cf_buf_init(&p->out);
    cf_buf_reserve(&p->vals, (size_t)prm->block_size + 16 * 8);
    enc_reset(&p->base);
    *out = &p->base;
    return CF_OK;
}

static void enc_free(cf_encoder *e)
{
    bshuf_enc *p = (bshuf_enc *)e;
    if (p == NULL)
        return;
    cf_buf_dispose(&p->vals);
    cf_buf_dispose(&p->out);
    cf_free(p);
}

static size_t enc_add(cf_encoder *e, const void *vals, size_t n, bool force)
{
    bshuf_enc *p = (bshuf_enc *)e;
    size_t take = n;
    if (!force) {
        size_t left = p->rem > 0 ? (size_t)p->rem : 0;
        if (take > left)
            take = left;
    }
    size_t bytes;
    if (!cf_mul_ok(take, p->elem, &bytes))
        p->vals.oom = true;
    else
        cf_buf_append(&p->vals, vals, bytes);
    p->count += take;
    p->rem -= (int64_t)take;
    return take;
}

static bool enc_is_full(const cf_encoder *e)
{
    const bshuf_enc *p = (const bshuf_enc *)e;
    return p->rem <= 0 || p->vals.oom;
}

static size_t enc_count(const cf_encoder *e)
{
    return ((const bshuf_enc *)e)->count;
}

/* format §8.5.3: UINT32 values shrink to the narrowest width holding their
 * maximum (1 byte for an empty block). Narrowed in place, front to back. */
static size_t narrow_u32(uint8_t *v, size_t count)
{
    uint32_t max = 0;
    for (size_t i = 0; i < count; i++) {
        uint32_t x = cf_load_le32(v + 4 * i);
        max = x > max ? x : max;
    }
    if (max <= 0xff) {
        for (size_t i = 0; i < count; i++)
            v[i] = v[4 * i];
        return 1;
    }
    if (max <= 0xffff) {
        for (size_t i = 0; i < count; i++)
            cf_store_le16(v + 2 * i, cf_load_le16(v + 4 * i));
        return 2;
    }
    return 4;
}

static cf_status enc_finish(cf_encoder *e, uint32_t first_ord, cf_slice *out, cf_error *err)
{
    bshuf_enc *p = (bshuf_enc *)e;
    if (!p->finished) {
        CF_CHECK(!p->vals.oom, err, CF_ENOMEM, "bit_shuffle: out of memory building a block");
        CF_CHECK(p->count <= UINT32_MAX - 7, err, CF_EINVAL,
                 "bit_shuffle: %zu values do not fit one block", p->count);
        size_t esz = p->narrow ? narrow_u32(p->vals.data, p->count) : p->elem;
        size_t padded = (p->count + 7) & ~(size_t)7;
        p->vals.len = p->count * esz;
        if (padded > p->count) {
            uint8_t *pad = cf_buf_extend(&p->vals, (padded - p->count) * esz);
            if (pad)
                memset(pad, 0, (padded - p->count) * esz);
        }
        CF_CHECK(!p->vals.oom, err, CF_ENOMEM, "bit_shuffle: out of memory building a block");

        cf_buf_clear(&p->out);
        cf_buf_reserve(&p->out, BSHUF_HEADER + padded * esz / 2 + 64);
        uint8_t *h = cf_buf_extend(&p->out, BSHUF_HEADER);
        CF_CHECK(h != NULL, err, CF_ENOMEM, "bit_shuffle: out of memory building a block");
        CF_TRY(cf_bshuf_compress_lz4(p->vals.data, padded, esz, &p->out, err));
        CF_CHECK(p->out.len <= UINT32_MAX, err, CF_EINVAL,
                 "bit_shuffle: %zu-byte block is too long", p->out.len);
        h = p->out.data;
        cf_store_le32(h + 4, (uint32_t)p->count);
        cf_store_le32(h + 8, (uint32_t)p->out.len);
        cf_store_le32(h + 12, (uint32_t)padded);
        cf_store_le32(h + 16, (uint32_t)esz);
        p->finished = true;
    }
    cf_store_le32(p->out.data, first_ord);
    out->data = p->out.data;
    out->len = p->out.len;
    return CF_OK;
}

const cf_encoder_ops cf_enc_bshuf_ops = {
    .encoding = CF_ENC_BIT_SHUFFLE,
    .create = enc_create,
    .free = enc_free,
    .add = enc_add,
    .is_full = enc_is_full,
    .count = enc_count,
    .finish = enc_finish,
    .reset = enc_reset,
    .finish_dict = NULL,
};

/* ---- decoder ----------------------------------------------------------------------- */

typedef struct bshuf_dec {
    cf_decoder base;
    uint8_t *buf; /* decoded values in memory form, chunk by chunk as touched */
    size_t cap;
    uint32_t *chunk_off; /* payload offset of each chunk's length prefix */
    uint8_t *ready;      /* chunk c is decoded in buf */
    size_t chunks_cap;
    size_t nchunks;
    size_t chunk_elems; /* elements per chunk (the last may have fewer) */
    size_t padded;      /* elements in the payload */
    size_t esz;         /* element size as encoded (narrower for UINT32) */
    const uint8_t *payload;
    size_t payload_len;
    size_t elem;
    cf_type phys;
    size_t lz_chunk;       /* scratch holds this chunk's LZ4 output (transposed), or NO_CHUNK */
    size_t lz_extracted;   /* values read from it one by one */
    const uint8_t *firsts; /* borrowed seek index: chunk c's first value at c * elem, or NULL */
    uint8_t scratch[CF_BSHUF_SCRATCH_BYTES]; /* LZ4 output of one chunk */
    uint8_t narrow[CF_BSHUF_CHUNK_BYTES];    /* a narrowed UINT32 chunk, before widening */
} bshuf_dec;

static cf_status dec_create(cf_decoder **out, const cf_dec_params *prm, cf_error *err)
{
    size_t elem = 0;
    *out = NULL;
    CF_TRY(check_type(prm->type, prm->elem_size, &elem, err));
    CF_TRY(cf_dec_new(out, sizeof(bshuf_dec), &cf_dec_bshuf_ops, "bit_shuffle", err));
    bshuf_dec *d = (bshuf_dec *)*out;
    d->elem = elem;
    d->phys = cf_type_physical(prm->type);
    d->lz_chunk = NO_CHUNK;
    return CF_OK;
}

static void dec_free(cf_decoder *dd)
{
    bshuf_dec *d = (bshuf_dec *)dd;
    if (d == NULL)
        return;
    cf_free(d->buf);
    cf_free(d->chunk_off);
    cf_free(d->ready);
    cf_free(d);
}

/* Widen n narrowed UINT32 values from src into dst. */
static void widen_u32(uint8_t *dst, const uint8_t *src, size_t n, size_t esz)
{
    if (esz == 1)
        for (size_t i = 0; i < n; i++)
            cf_store_le32(dst + 4 * i, src[i]);
    else
        for (size_t i = 0; i < n; i++)
            cf_store_le32(dst + 4 * i, cf_load_le16(src + 2 * i));
}

/* Elements of chunk c in the payload (padding included). */
static size_t chunk_len(const bshuf_dec *d, size_t c)
{
    size_t first = c * d->chunk_elems;
    return d->padded - first < d->chunk_elems ? d->padded - first : d->chunk_elems;
}

/* Chunk c's LZ4 output into scratch (transposed), unless it is there. */
static cf_status lz4_chunk(bshuf_dec *d, size_t c, cf_error *err)
{
    if (d->lz_chunk == c)
        return CF_OK;
    d->lz_chunk = NO_CHUNK;
    size_t off = d->chunk_off[c];
    cf_status st = cf_bshuf_lz4_chunk(d->payload + off, d->payload_len - off, chunk_len(d, c),
                                      d->esz, d->scratch, err);
    if (st != CF_OK)
        return cf_error_prefix(err, st, "bit_shuffle block: chunk %zu: ", c);
    d->lz_chunk = c;
    d->lz_extracted = 0;
    return CF_OK;
}

/* Transpose the chunk in scratch (chunk c, chunk_len(c) elements) into out. */
static void unshuffle_chunk(bshuf_dec *d, size_t c, uint8_t *out)
{
    size_t k = chunk_len(d, c);
    if (d->esz == d->elem) {
        cf_bitunshuffle(d->scratch, out, k, d->esz);
    } else {
        cf_bitunshuffle(d->scratch, d->narrow, k, d->esz);
        widen_u32(out, d->narrow, k, d->esz);
    }
}

/* Decode chunk c into out (chunk_len(c) * elem bytes). */
static cf_status decode_chunk(bshuf_dec *d, size_t c, uint8_t *out, cf_error *err)
{
    CF_TRY(lz4_chunk(d, c, err));
    unshuffle_chunk(d, c, out);
    return CF_OK;
}

static cf_status ensure_chunk(bshuf_dec *d, size_t c, cf_error *err)
{
    if (!d->ready[c]) {
        CF_TRY(decode_chunk(d, c, d->buf + c * d->chunk_elems * d->elem, err));
        d->ready[c] = 1;
    }
    return CF_OK;
}

/* Value idx in memory form: in the decoded chunk when it is, else read from
 * its LZ4 output into tmp (16 bytes). */
static cf_status value_at(bshuf_dec *d, size_t idx, uint8_t *tmp, const uint8_t **out,
                          cf_error *err)
{
    size_t c = idx / d->chunk_elems;
    if (d->ready[c]) {
        *out = d->buf + idx * d->elem;
        return CF_OK;
    }
    CF_TRY(lz4_chunk(d, c, err));
    size_t within = idx - c * d->chunk_elems;
    if (d->esz == d->elem) {
        cf_bshuf_extract(d->scratch, chunk_len(d, c), d->esz, within, tmp);
    } else {
        uint8_t n[4];
        cf_bshuf_extract(d->scratch, chunk_len(d, c), d->esz, within, n);
        widen_u32(tmp, n, 1, d->esz);
    }
    *out = tmp;
    return CF_OK;
}

/* Room for `need` bytes of decoded values and `nch` chunks. */
static cf_status size_buffers(bshuf_dec *d, size_t need, size_t nch, cf_error *err)
{
    if (d->cap < need) {
        cf_free(d->buf);
        d->cap = 0;
        d->buf = cf_malloc(need);
        CF_CHECK(d->buf != NULL, err, CF_ENOMEM, "bit_shuffle block: out of memory for %zu bytes",
                 need);
        d->cap = need;
    }
    if (d->chunks_cap < nch) {
        cf_free(d->chunk_off);
        cf_free(d->ready);
        d->chunks_cap = 0;
        d->chunk_off = cf_malloc(nch * sizeof *d->chunk_off);
        d->ready = cf_malloc(nch);
        CF_CHECK(d->chunk_off != NULL && d->ready != NULL, err, CF_ENOMEM,
                 "bit_shuffle block: out of memory for %zu chunks", nch);
        d->chunks_cap = nch;
    }
    return CF_OK;
}

/* Stand the decoder on a block whose chunk offsets are in d->chunk_off (read
 * by load, or from a saved state): nchunks of its nch chunks, none decoded. */
static void bind_chunks(bshuf_dec *d, const uint8_t *data, size_t len, size_t nch, size_t nchunks,
                        size_t ce, uint32_t padded, uint32_t esz)
{
    memset(d->ready, 0, nch);
    d->nchunks = nchunks;
    d->chunk_elems = ce;
    d->padded = padded;
    d->esz = esz;
    d->payload = data + BSHUF_HEADER;
    d->payload_len = len - BSHUF_HEADER;
}

static cf_status dec_load(cf_decoder *dd, const uint8_t *data, size_t len, cf_error *err)
{
    bshuf_dec *d = (bshuf_dec *)dd;
    cf_dec_unbind(dd);
    d->nchunks = 0;
    d->lz_chunk = NO_CHUNK;
    d->firsts = NULL;
    CF_CHECK(len >= BSHUF_HEADER, err, CF_ECORRUPT,
             "bit_shuffle block: %zu bytes cannot hold the 20-byte header", len);
    uint32_t first_ord = cf_load_le32(data);
    uint32_t count = cf_load_le32(data + 4);
    uint32_t block_len = cf_load_le32(data + 8);
    uint32_t padded = cf_load_le32(data + 12);
    uint32_t esz = cf_load_le32(data + 16);
    /* format §8.5.1: every header field is checked as Kudu's reader does. */
    CF_CHECK(block_len == len, err, CF_ECORRUPT,
             "bit_shuffle block: header says %" PRIu32 " bytes, block has %zu", block_len, len);
    CF_CHECK((uint64_t)padded == (((uint64_t)count + 7) & ~(uint64_t)7), err, CF_ECORRUPT,
             "bit_shuffle block: padded count %" PRIu32 " for %" PRIu32 " values", padded, count);
    CF_CHECK(esz == 1 || esz == 2 || esz == 4 || esz == 8 || esz == 16, err, CF_ECORRUPT,
             "bit_shuffle block: invalid element size %" PRIu32, esz);
    if (d->phys == CF_TYPE_UINT32)
        CF_CHECK(esz <= 4, err, CF_ECORRUPT,
                 "bit_shuffle block: element size %" PRIu32 " too wide for UINT32", esz);
    else
        CF_CHECK(esz == d->elem, err, CF_ECORRUPT,
                 "bit_shuffle block: element size %" PRIu32 " for %zu-byte values", esz, d->elem);
    if (count > 0) {
        const size_t payload = len - BSHUF_HEADER;
        uint64_t raw = (uint64_t)padded * esz;
        uint64_t need = (uint64_t)padded * d->elem;
        CF_CHECK(raw <= (uint64_t)payload * MAX_LZ4_RATIO && need <= MAX_DECODED_BYTES, err,
                 CF_ECORRUPT,
                 "bit_shuffle block: %" PRIu32 " values cannot come from %zu payload bytes", count,
                 payload);
        size_t ce = cf_bshuf_chunk_elems(esz);
        size_t nch = (padded + ce - 1) / ce;
        CF_TRY(size_buffers(d, (size_t)need, nch, err));
        /* Only the chunk lengths are read now; a chunk is decompressed when a
         * value in it is first asked for (a seek touches one chunk). */
        size_t got = 0;
        cf_status st =
            cf_bshuf_index_lz4(data + BSHUF_HEADER, payload, padded, esz, d->chunk_off, &got, err);
        if (st != CF_OK)
            return cf_error_prefix(err, st, "bit_shuffle block: ");
        bind_chunks(d, data, len, nch, got, ce, padded, esz);
        /* The last chunk is decoded now: it is the one whose size a wrong
         * count in the header would contradict, so such a block fails here. */
        st = ensure_chunk(d, got - 1, err);
        if (st != CF_OK) {
            d->nchunks = 0;
            return st;
        }
    }
    dd->count = count;
    dd->first_ord = first_ord;
    return CF_OK;
}

static cf_status dec_next(cf_decoder *dd, void *dst, size_t n, size_t *got, cf_error *err)
{
    bshuf_dec *d = (bshuf_dec *)dd;
    uint8_t *out = dst;
    size_t left = dd->count - dd->pos;
    size_t k = n < left ? n : left;
    const size_t ce = d->chunk_elems, es = d->elem;
    *got = 0;
    while (k > 0) {
        size_t pos = dd->pos, c = pos / ce, within = pos - c * ce;
        size_t real = dd->count - c * ce < ce ? dd->count - c * ce : ce; /* values, no padding */
        size_t take = k < real - within ? k : real - within;
        if (d->ready[c]) {
            memcpy(out, d->buf + pos * es, take * es);
        } else if (within == 0 && take == chunk_len(d, c)) {
            /* The whole chunk is wanted: decode it straight into dst. */
            CF_TRY(decode_chunk(d, c, out, err));
        } else if (take <= EXTRACT_BUDGET &&
                   (d->lz_chunk != c || d->lz_extracted + take <= EXTRACT_BUDGET)) {
            /* A few values: read them from the LZ4 output, no transpose. */
            uint8_t tmp[16];
            for (size_t i = 0; i < take; i++) {
                const uint8_t *v;
                CF_TRY(value_at(d, pos + i, tmp, &v, err));
                memcpy(out + i * es, v, es);
            }
            d->lz_extracted += take;
        } else {
            CF_TRY(ensure_chunk(d, c, err));
            memcpy(out, d->buf + pos * es, take * es);
        }
        out += take * es;
        dd->pos += take;
        *got += take;
        k -= take;
    }
    return CF_OK;
}

/* Three-way compare in the type's order (integers only; callers exclude floats). */
static inline int cmp_value(cf_type phys, size_t elem, const uint8_t *a, const uint8_t *b)
{
    switch (phys) {
    case CF_TYPE_INT8: {
        int8_t x = (int8_t)a[0], y = (int8_t)b[0];
        return (x > y) - (x < y);
    }
    case CF_TYPE_INT16: {
        int16_t x = (int16_t)cf_load_le16(a), y = (int16_t)cf_load_le16(b);
        return (x > y) - (x < y);
    }
    case CF_TYPE_INT32: {
        int32_t x = (int32_t)cf_load_le32(a), y = (int32_t)cf_load_le32(b);
        return (x > y) - (x < y);
    }
    case CF_TYPE_INT64: {
        int64_t x = (int64_t)cf_load_le64(a), y = (int64_t)cf_load_le64(b);
        return (x > y) - (x < y);
    }
    case CF_TYPE_INT128: {
        int64_t xh = (int64_t)cf_load_le64(a + 8), yh = (int64_t)cf_load_le64(b + 8);
        if (xh != yh)
            return xh < yh ? -1 : 1;
        uint64_t xl = cf_load_le64(a), yl = cf_load_le64(b);
        return (xl > yl) - (xl < yl);
    }
    default: {
        uint64_t x = 0, y = 0;
        memcpy(&x, a, elem);
        memcpy(&y, b, elem);
        return (x > y) - (x < y);
    }
    }
}

static cf_status dec_seek_value(cf_decoder *dd, const void *key, bool *exact, cf_error *err)
{
    bshuf_dec *d = (bshuf_dec *)dd;
    CF_CHECK(d->phys != CF_TYPE_FLOAT && d->phys != CF_TYPE_DOUBLE, err, CF_ENOTSUP,
             "bit_shuffle block: %s values have no key order", cf_type_name(d->phys));
    /* format §8.5.4: the first index whose value is >= key. */
    size_t lo = 0, hi = dd->count;
    if (d->firsts != NULL && dd->count > 0) {
        /* cl = chunks whose first value is < key: the answer is past the first
         * value of chunk cl - 1 and at most the first of chunk cl. */
        size_t a = 0, b = d->nchunks;
        while (a < b) {
            size_t mid = a + (b - a) / 2;
            if (cmp_value(d->phys, d->elem, d->firsts + mid * d->elem, key) < 0)
                a = mid + 1;
            else
                b = mid;
        }
        if (a > 0) {
            lo = (a - 1) * d->chunk_elems + 1;
            hi = a * d->chunk_elems < dd->count ? a * d->chunk_elems : dd->count;
        } else {
            hi = 0;
        }
    }
    uint8_t tmp[16];
    const uint8_t *v;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        CF_TRY(value_at(d, mid, tmp, &v, err));
        if (cmp_value(d->phys, d->elem, v, key) < 0)
            lo = mid + 1;
        else
            hi = mid;
    }
    dd->pos = lo;
    if (lo == dd->count) {
        *exact = false;
        CF_FAIL(err, CF_ENOTFOUND, "bit_shuffle block: every value is smaller than the key");
    }
    CF_TRY(value_at(d, lo, tmp, &v, err));
    *exact = cmp_value(d->phys, d->elem, v, key) == 0;
    return CF_OK;
}

/* The seek index of the loaded block: the first value of each chunk, in
 * memory form (nchunks * elem bytes). Building it decodes every chunk's LZ4
 * once; a cache keeps it beside the block (loaded_block.c), so later value seeks in
 * the block decode one chunk. */
static size_t dec_seek_index_len(cf_decoder *dd)
{
    const bshuf_dec *d = (const bshuf_dec *)dd;
    if (dd->count == 0 || d->nchunks == 0 || d->phys == CF_TYPE_FLOAT || d->phys == CF_TYPE_DOUBLE)
        return 0;
    return d->nchunks * d->elem;
}

static cf_status dec_seek_index_build(cf_decoder *dd, void *dst, cf_error *err)
{
    bshuf_dec *d = (bshuf_dec *)dd;
    uint8_t *o = dst, tmp[16];
    for (size_t c = 0; c < d->nchunks; c++) {
        const uint8_t *v;
        CF_TRY(value_at(d, c * d->chunk_elems, tmp, &v, err));
        memcpy(o + c * d->elem, v, d->elem);
    }
    return CF_OK;
}

static void dec_seek_index_use(cf_decoder *dd, const void *idx, size_t len)
{
    bshuf_dec *d = (bshuf_dec *)dd;
    d->firsts = len == dec_seek_index_len(dd) && len > 0 ? idx : NULL;
}

/* Saved state (load_saved), u32 words: the header's first ordinal, count,
 * block length, padded count and element size, then the chunk count and each
 * chunk's payload offset. Loading it skips the chunk walk and the check of the
 * last chunk that load does (both were done on the load that saved it). */
#define SAVED_HEAD 6

static size_t dec_saved_len(cf_decoder *dd)
{
    const bshuf_dec *d = (const bshuf_dec *)dd;
    if (dd->count == 0 || d->nchunks == 0)
        return 0;
    return (SAVED_HEAD + d->nchunks) * sizeof(uint32_t);
}

static void dec_save(const cf_decoder *dd, void *dst)
{
    const bshuf_dec *d = (const bshuf_dec *)dd;
    uint32_t *s = dst;
    s[0] = dd->first_ord;
    s[1] = (uint32_t)dd->count;
    s[2] = (uint32_t)(d->payload_len + BSHUF_HEADER);
    s[3] = (uint32_t)d->padded;
    s[4] = (uint32_t)d->esz;
    s[5] = (uint32_t)d->nchunks;
    memcpy(s + SAVED_HEAD, d->chunk_off, d->nchunks * sizeof *s);
}

/* The header must match the state word for word and the chunk offsets must
 * rise inside the payload (chunk decodes check each chunk's own bytes). */
static cf_status dec_load_saved(cf_decoder *dd, const uint8_t *data, size_t len, const void *state,
                                size_t state_len, cf_error *err)
{
    bshuf_dec *d = (bshuf_dec *)dd;
    const uint32_t *s = state;
    cf_dec_unbind(dd);
    d->nchunks = 0;
    d->lz_chunk = NO_CHUNK;
    d->firsts = NULL;
    CF_CHECK(len >= BSHUF_HEADER && state_len >= SAVED_HEAD * sizeof *s, err, CF_ECORRUPT,
             "bit_shuffle block: saved state does not fit the block");
    uint32_t first_ord = cf_load_le32(data), count = cf_load_le32(data + 4);
    uint32_t padded = cf_load_le32(data + 12), esz = cf_load_le32(data + 16);
    bool fits = s[0] == first_ord && s[1] == count && s[2] == len &&
                s[2] == cf_load_le32(data + 8) && s[3] == padded && s[4] == esz && count > 0 &&
                (uint64_t)padded == (((uint64_t)count + 7) & ~(uint64_t)7) &&
                (d->phys == CF_TYPE_UINT32 ? (esz == 1 || esz == 2 || esz == 4) : esz == d->elem) &&
                (uint64_t)padded * d->elem <= MAX_DECODED_BYTES;
    size_t ce = fits ? cf_bshuf_chunk_elems(esz) : 1;
    size_t nch = fits ? (padded + ce - 1) / ce : 0;
    fits = fits && s[5] == nch && state_len == (SAVED_HEAD + nch) * sizeof *s;
    const size_t payload = len - BSHUF_HEADER;
    const uint32_t *off = s + SAVED_HEAD;
    for (size_t c = 0; fits && c < nch; c++)
        fits = off[c] < payload && (c == 0 || off[c] > off[c - 1]);
    CF_CHECK(fits, err, CF_ECORRUPT, "bit_shuffle block: saved state does not fit the block");
    CF_TRY(size_buffers(d, (size_t)padded * d->elem, nch, err));
    memcpy(d->chunk_off, off, nch * sizeof *off);
    bind_chunks(d, data, len, nch, nch, ce, padded, esz);
    dd->count = count;
    dd->first_ord = first_ord;
    return CF_OK;
}

const cf_decoder_ops cf_dec_bshuf_ops = {
    .encoding = CF_ENC_BIT_SHUFFLE,
    .create = dec_create,
    .free = dec_free,
    .load = dec_load,
    .seek = cf_dec_seek_positional,
    .next = dec_next,
    .seek_at_or_after = dec_seek_value,
    .saved_len = dec_saved_len,
    .save = dec_save,
    .load_saved = dec_load_saved,
    .seek_index_len = dec_seek_index_len,
    .seek_index_build = dec_seek_index_build,
    .seek_index_use = dec_seek_index_use,
};
