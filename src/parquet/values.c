/* The page value decoder: one cursor over a data page's (or dictionary
 * page's) value section, for every value encoding but dictionary indices.
 *
 * PLAIN (Encodings.md "Plain"):
 *   BOOLEAN  bit-packed, LSB-first, ceil(n / 8) bytes
 *   INT32 / FLOAT 4 bytes LE, INT64 / DOUBLE 8, INT96 12, FLBA type_length
 *   BYTE_ARRAY  per value: 4-byte LE length, then the bytes
 * RLE (BOOLEAN only): 4-byte LE length, then the hybrid at bit width 1.
 * BYTE_STREAM_SPLIT: K streams of N bytes (K = value size, N = value count),
 *   stream k holding byte k of every value; exactly K * N bytes.
 * DELTA_BINARY_PACKED: delta.c.
 * DELTA_LENGTH_BYTE_ARRAY: DELTA_BINARY_PACKED lengths (INT32), then the
 *   values' bytes back to back.
 * DELTA_BYTE_ARRAY: DELTA_BINARY_PACKED prefix lengths, then the suffixes as
 *   DELTA_LENGTH_BYTE_ARRAY; value i = first prefix[i] bytes of value i-1,
 *   then suffix i. A prefix longer than the previous value is damage.
 *
 * The DELTA_*_BYTE_ARRAY lengths are decoded twice rather than stored: once at
 * init to find where the bytes start and check that they are all there (every
 * length >= 0, their sum within the page), and again, lazily, by get. So no
 * decoder allocates by a count from the page; only DELTA_BYTE_ARRAY rebuilds
 * values, into an arena capped per get.
 */
#include "encoding.h"

#include <string.h>

#include "util/alloc.h"
#include "util/endian.h"
#include "util/error.h"

#define OFF(d, q) ((size_t)((q) - (d)->start))
/* Lengths decoded per step by the DELTA_*_BYTE_ARRAY paths. */
#define LEN_CHUNK 256

static const char *const enc_names[] = {
    "PLAIN",          "GROUP_VAR_INT",       "PLAIN_DICTIONARY",        "RLE",
    "BIT_PACKED",     "DELTA_BINARY_PACKED", "DELTA_LENGTH_BYTE_ARRAY", "DELTA_BYTE_ARRAY",
    "RLE_DICTIONARY", "BYTE_STREAM_SPLIT"};
static const char *const type_names[] = {"BOOLEAN", "INT32",  "INT64",      "INT96",
                                         "FLOAT",   "DOUBLE", "BYTE_ARRAY", "FIXED_LEN_BYTE_ARRAY"};

const char *cf_pq_encoding_name(unsigned e)
{
    return e < sizeof enc_names / sizeof enc_names[0] ? enc_names[e] : NULL;
}

const char *cf_pq_type_name(unsigned t)
{
    return t < sizeof type_names / sizeof type_names[0] ? type_names[t] : NULL;
}

const cf_pq_value_pair cf_pq_value_pairs[] = {
    {CF_PQE_PLAIN, CF_PQT_BOOLEAN},
    {CF_PQE_PLAIN, CF_PQT_INT32},
    {CF_PQE_PLAIN, CF_PQT_INT64},
    {CF_PQE_PLAIN, CF_PQT_INT96},
    {CF_PQE_PLAIN, CF_PQT_FLOAT},
    {CF_PQE_PLAIN, CF_PQT_DOUBLE},
    {CF_PQE_PLAIN, CF_PQT_BYTE_ARRAY},
    {CF_PQE_PLAIN, CF_PQT_FIXED_LEN_BYTE_ARRAY},
    {CF_PQE_RLE, CF_PQT_BOOLEAN},
    {CF_PQE_DELTA_BINARY_PACKED, CF_PQT_INT32},
    {CF_PQE_DELTA_BINARY_PACKED, CF_PQT_INT64},
    {CF_PQE_DELTA_LENGTH_BYTE_ARRAY, CF_PQT_BYTE_ARRAY},
    {CF_PQE_DELTA_BYTE_ARRAY, CF_PQT_BYTE_ARRAY},
    {CF_PQE_DELTA_BYTE_ARRAY, CF_PQT_FIXED_LEN_BYTE_ARRAY},
    {CF_PQE_BYTE_STREAM_SPLIT, CF_PQT_FLOAT},
    {CF_PQE_BYTE_STREAM_SPLIT, CF_PQT_DOUBLE},
    {CF_PQE_BYTE_STREAM_SPLIT, CF_PQT_INT32},
    {CF_PQE_BYTE_STREAM_SPLIT, CF_PQT_INT64},
    {CF_PQE_BYTE_STREAM_SPLIT, CF_PQT_FIXED_LEN_BYTE_ARRAY},
};
_Static_assert(sizeof cf_pq_value_pairs / sizeof cf_pq_value_pairs[0] == CF_PQ_VALUE_PAIR_COUNT,
               "CF_PQ_VALUE_PAIR_COUNT counts cf_pq_value_pairs");

size_t cf_pq_value_size(unsigned type, int32_t type_length)
{
    switch (type) {
    case CF_PQT_BOOLEAN: return 1;
    case CF_PQT_INT32:
    case CF_PQT_FLOAT: return 4;
    case CF_PQT_INT64:
    case CF_PQT_DOUBLE: return 8;
    case CF_PQT_INT96: return 12;
    case CF_PQT_BYTE_ARRAY: return sizeof(cf_slice);
    case CF_PQT_FIXED_LEN_BYTE_ARRAY: return type_length > 0 ? (size_t)type_length : 0;
    default: return 0;
    }
}

static const char *ename(unsigned e)
{
    const char *s = cf_pq_encoding_name(e);
    return s ? s : "unknown encoding";
}

/* ---- init ----------------------------------------------------------------------------------- */

static cf_status unsupported(unsigned encoding, unsigned type, cf_error *err)
{
    const char *t = cf_pq_type_name(type);
    /* Every pairing parquet-format allows is implemented: any other is a
     * damaged (or hostile) page, not a feature this reader lacks. */
    CF_FAIL(err, CF_ECORRUPT, "%s (%u) values of type %s (%u) are not valid Parquet",
            ename(encoding), encoding, t ? t : "unknown", type);
}

/* Find where the bytes of a DELTA_LENGTH_BYTE_ARRAY stream at [p, end) start
 * and check that its n lengths fit; leaves d->dbp ready to decode them. */
static cf_status dlba_init(cf_pq_decoder *d, const uint8_t *p, size_t n, const char *what,
                           cf_error *err)
{
    size_t base = OFF(d, p);
    cf_status st = cf_pq_dbp_init(&d->dbp, 32, p, (size_t)(d->end - p), err);
    if (st != CF_OK)
        return cf_error_prefix(err, st, "%s lengths at offset %zu: ", what, base);
    CF_CHECK(d->dbp.total == n, err, CF_ECORRUPT,
             "%s: the lengths at offset %zu count %" PRIu64 " values, the page %zu", what, base,
             d->dbp.total, n);
    cf_pq_dbp scan = d->dbp;
    uint64_t sum;
    size_t end_off;
    st = cf_pq_dbp_skip_all(&scan, true, &sum, &end_off, err);
    if (st != CF_OK)
        return cf_error_prefix(err, st, "%s lengths at offset %zu: ", what, base);
    d->data = p + end_off;
    CF_CHECK(sum <= (uint64_t)(d->end - d->data), err, CF_ECORRUPT,
             "%s: %" PRIu64 " value bytes from offset %zu run past the end (%zu bytes)", what, sum,
             OFF(d, d->data), OFF(d, d->end));
    return CF_OK;
}

cf_status cf_pq_decoder_init(cf_pq_decoder *d, unsigned encoding, unsigned type,
                             int32_t type_length, const uint8_t *data, size_t len,
                             size_t num_values, cf_error *err)
{
    memset(d, 0, sizeof *d);
    cf_buf_init(&d->prevbuf);
    cf_arena_init(&d->arena, CF_PQ_ARENA_CAP);
    d->encoding = encoding;
    d->type = type;
    d->start = d->p = data;
    d->end = data ? data + len : data;
    d->left = num_values;
    d->width = cf_pq_value_size(type, type_length);
    CF_CHECK(d->width > 0, err, CF_ECORRUPT, "%s: type %u with length %" PRId32 " has no values",
             ename(encoding), type, type_length);
    const size_t n = num_values;
    size_t need;
    switch (encoding) {
    case CF_PQE_PLAIN:
        if (type == CF_PQT_BOOLEAN)
            need = n / 8 + (n % 8 != 0);
        else if (type == CF_PQT_BYTE_ARRAY)
            need = cf_mul_ok(n, 4, &need) ? need : SIZE_MAX; /* each has a length */
        else
            need = cf_mul_ok(n, d->width, &need) ? need : SIZE_MAX;
        CF_CHECK(need <= len, err, CF_ECORRUPT,
                 "PLAIN: %zu %s values need at least %zu bytes, the page holds %zu", n,
                 cf_pq_type_name(type), need, len);
        return CF_OK;
    case CF_PQE_RLE: {
        if (type != CF_PQT_BOOLEAN)
            return unsupported(encoding, type, err);
        CF_CHECK(len >= 4, err, CF_ECORRUPT,
                 "RLE: %zu bytes cannot hold the 4-byte length at offset 0", len);
        uint32_t l = cf_load_le32(data);
        CF_CHECK(l <= len - 4, err, CF_ECORRUPT,
                 "RLE: length %" PRIu32 " at offset 0 exceeds the %zu bytes after it", l, len - 4);
        cf_rle_dec_init(&d->rle, data + 4, l, 1);
        return CF_OK;
    }
    case CF_PQE_BYTE_STREAM_SPLIT:
        if (type == CF_PQT_BOOLEAN || type == CF_PQT_INT96 || type == CF_PQT_BYTE_ARRAY)
            return unsupported(encoding, type, err);
        CF_CHECK(cf_mul_ok(n, d->width, &need) && need == len, err, CF_ECORRUPT,
                 "BYTE_STREAM_SPLIT: %zu values of %zu bytes need %zu bytes, the page holds %zu", n,
                 d->width, n * d->width, len);
        d->stream_len = n;
        return CF_OK;
    case CF_PQE_DELTA_BINARY_PACKED: {
        if (type != CF_PQT_INT32 && type != CF_PQT_INT64)
            return unsupported(encoding, type, err);
        CF_TRY(cf_pq_dbp_init(&d->dbp, type == CF_PQT_INT32 ? 32 : 64, data, len, err));
        CF_CHECK(d->dbp.total >= n, err, CF_ECORRUPT,
                 "DELTA_BINARY_PACKED: header at offset 0 holds %" PRIu64 " values, the page %zu",
                 d->dbp.total, n);
        return CF_OK;
    }
    case CF_PQE_DELTA_LENGTH_BYTE_ARRAY:
        if (type != CF_PQT_BYTE_ARRAY)
            return unsupported(encoding, type, err);
        return dlba_init(d, data, n, "DELTA_LENGTH_BYTE_ARRAY", err);
    case CF_PQE_DELTA_BYTE_ARRAY: {
        if (type != CF_PQT_BYTE_ARRAY && type != CF_PQT_FIXED_LEN_BYTE_ARRAY)
            return unsupported(encoding, type, err);
        cf_status st = cf_pq_dbp_init(&d->pre, 32, data, len, err);
        if (st != CF_OK)
            return cf_error_prefix(err, st, "DELTA_BYTE_ARRAY prefix lengths: ");
        CF_CHECK(d->pre.total == n, err, CF_ECORRUPT,
                 "DELTA_BYTE_ARRAY: the prefix lengths at offset 0 count %" PRIu64
                 " values, the page %zu",
                 d->pre.total, n);
        cf_pq_dbp scan = d->pre;
        size_t end_off;
        st = cf_pq_dbp_skip_all(&scan, true, NULL, &end_off, err);
        if (st != CF_OK)
            return cf_error_prefix(err, st, "DELTA_BYTE_ARRAY prefix lengths: ");
        d->prev.data = data;
        d->prev.len = 0;
        return dlba_init(d, data + end_off, n, "DELTA_BYTE_ARRAY suffix", err);
    }
    default: return unsupported(encoding, type, err);
    }
}

void cf_pq_decoder_dispose(cf_pq_decoder *d)
{
    cf_buf_dispose(&d->prevbuf);
    cf_arena_dispose(&d->arena);
}

/* ---- get ------------------------------------------------------------------------------------ */

static cf_status get_plain_binary(cf_pq_decoder *d, cf_slice *out, size_t n, cf_error *err)
{
    const uint8_t *p = d->p;
    for (size_t i = 0; i < n; i++) {
        CF_CHECK(d->end - p >= 4, err, CF_ECORRUPT,
                 "PLAIN: BYTE_ARRAY length at offset %zu runs past the end (%zu bytes)", OFF(d, p),
                 OFF(d, d->end));
        uint32_t l = cf_load_le32(p);
        p += 4;
        CF_CHECK(l <= (size_t)(d->end - p), err, CF_ECORRUPT,
                 "PLAIN: BYTE_ARRAY value of %" PRIu32
                 " bytes at offset %zu runs past the end (%zu "
                 "bytes)",
                 l, OFF(d, p) - 4, OFF(d, d->end));
        out[i].data = p;
        out[i].len = l;
        p += l;
    }
    d->p = p;
    return CF_OK;
}

static void get_bss(cf_pq_decoder *d, uint8_t *out, size_t n)
{
    const size_t k = d->width, N = d->stream_len;
    const uint8_t *src = d->start + d->pos;
    /* Stream-major: each pass reads one stream sequentially. */
    switch (k) {
    case 4:
        for (size_t i = 0; i < n; i++) {
            uint8_t v[4] = {src[i], src[N + i], src[2 * N + i], src[3 * N + i]};
            memcpy(out + 4 * i, v, 4);
        }
        break;
    case 8:
        for (size_t i = 0; i < n; i++) {
            uint8_t v[8] = {src[i],         src[N + i],     src[2 * N + i], src[3 * N + i],
                            src[4 * N + i], src[5 * N + i], src[6 * N + i], src[7 * N + i]};
            memcpy(out + 8 * i, v, 8);
        }
        break;
    default:
        for (size_t s = 0; s < k; s++)
            for (size_t i = 0; i < n; i++)
                out[i * k + s] = src[s * N + i];
        break;
    }
    d->pos += n;
}

/* Next n byte arrays of a DELTA_LENGTH_BYTE_ARRAY stream (d->dbp, d->data). */
static cf_status get_dlba(cf_pq_decoder *d, cf_slice *out, size_t n, const char *what,
                          cf_error *err)
{
    int32_t lens[LEN_CHUNK];
    for (size_t i = 0; i < n;) {
        size_t k = n - i < LEN_CHUNK ? n - i : LEN_CHUNK;
        CF_TRY(cf_pq_dbp_get(&d->dbp, lens, k, err));
        for (size_t j = 0; j < k; j++) {
            /* init checked all of them; a second look costs nothing */
            CF_CHECK(lens[j] >= 0 && (size_t)lens[j] <= (size_t)(d->end - d->data), err,
                     CF_ECORRUPT, "%s: value length %" PRId32 " at offset %zu is invalid", what,
                     lens[j], OFF(d, d->data));
            out[i + j].data = d->data;
            out[i + j].len = (size_t)lens[j];
            d->data += lens[j];
        }
        i += k;
    }
    return CF_OK;
}

static cf_status get_dba(cf_pq_decoder *d, uint8_t *out, size_t n, cf_error *err)
{
    const bool flba = d->type == CF_PQT_FIXED_LEN_BYTE_ARRAY;
    const size_t index0 = d->pre.done;
    cf_arena_reset(&d->arena);
    int32_t pre[LEN_CHUNK];
    cf_slice suf[LEN_CHUNK];
    for (size_t i = 0; i < n;) {
        size_t k = n - i < LEN_CHUNK ? n - i : LEN_CHUNK;
        CF_TRY(cf_pq_dbp_get(&d->pre, pre, k, err));
        CF_TRY(get_dlba(d, suf, k, "DELTA_BYTE_ARRAY suffix", err));
        for (size_t j = 0; j < k; j++) {
            size_t pl = (size_t)pre[j]; /* >= 0: checked at init */
            CF_CHECK(pre[j] >= 0 && pl <= d->prev.len, err, CF_ECORRUPT,
                     "DELTA_BYTE_ARRAY: prefix length %" PRId32
                     " of value %zu exceeds the previous "
                     "value's %zu bytes",
                     pre[j], index0 + i + j, d->prev.len);
            size_t vl = pl + suf[j].len;
            cf_slice v;
            if (flba) {
                CF_CHECK(vl == d->width, err, CF_ECORRUPT,
                         "DELTA_BYTE_ARRAY: value %zu has %zu bytes, the column's fixed length is "
                         "%zu",
                         index0 + i + j, vl, d->width);
                uint8_t *dst = out + (i + j) * d->width;
                memmove(dst, d->prev.data, pl);
                memcpy(dst + pl, suf[j].data, suf[j].len);
                v.data = dst;
            } else if (pl == 0) {
                v = suf[j]; /* zero copy */
            } else {
                uint8_t *dst = cf_arena_alloc(&d->arena, vl);
                if (dst == NULL) {
                    CF_CHECK(vl <= cf_arena_left(&d->arena), err, CF_ENOTSUP,
                             "DELTA_BYTE_ARRAY: values rebuilt in one call exceed %zu bytes; "
                             "decode fewer at once",
                             d->arena.limit);
                    CF_FAIL(err, CF_ENOMEM, "DELTA_BYTE_ARRAY: cannot allocate %zu arena bytes",
                            vl);
                }
                memcpy(dst, d->prev.data, pl);
                memcpy(dst + pl, suf[j].data, suf[j].len);
                v.data = dst;
            }
            v.len = vl;
            if (!flba)
                ((cf_slice *)(void *)out)[i + j] = v;
            d->prev = v;
        }
        i += k;
    }
    /* The previous value must survive the caller's buffer and our arena. */
    if (d->prev.len > 0 && (d->prev.data < d->start || d->prev.data >= d->end) &&
        d->prev.data != d->prevbuf.data) {
        cf_buf_clear(&d->prevbuf);
        cf_buf_append(&d->prevbuf, d->prev.data, d->prev.len);
        CF_CHECK(!d->prevbuf.oom, err, CF_ENOMEM, "DELTA_BYTE_ARRAY: cannot keep a %zu-byte value",
                 d->prev.len);
        d->prev.data = d->prevbuf.data;
    }
    return CF_OK;
}

cf_status cf_pq_decoder_get(cf_pq_decoder *d, void *out, size_t n, cf_error *err)
{
    CF_CHECK(n <= d->left, err, CF_EINVAL, "%s: %zu values asked, %zu left", ename(d->encoding), n,
             d->left);
    uint8_t *o = out;
    switch (d->encoding) {
    case CF_PQE_PLAIN:
        if (d->type == CF_PQT_BOOLEAN) {
            uint64_t bit = d->bit;
            size_t i = 0;
            for (; i < n && (bit & 7) != 0; i++, bit++)
                o[i] = (d->start[bit >> 3] >> (bit & 7)) & 1;
            /* Whole bytes: byte k of the product's high bits is bit k. */
            for (; n - i >= 8; i += 8, bit += 8) {
                uint64_t x =
                    ((uint64_t)d->start[bit >> 3] * 0x0101010101010101ull) & 0x8040201008040201ull;
                cf_store_le64(o + i, ((x + 0x7f7f7f7f7f7f7f7full) >> 7) & 0x0101010101010101ull);
            }
            for (; i < n; i++, bit++)
                o[i] = (d->start[bit >> 3] >> (bit & 7)) & 1;
            d->bit = bit;
        } else if (d->type == CF_PQT_BYTE_ARRAY) {
            CF_TRY(get_plain_binary(d, out, n, err));
        } else {
            /* init checked num_values * width <= len */
            if (n)
                memcpy(o, d->p, n * d->width);
            d->p += n * d->width;
        }
        break;
    case CF_PQE_RLE: {
        size_t got = cf_rle_dec_get(&d->rle, o, 1, n);
        CF_CHECK(got == n, err, CF_ECORRUPT,
                 "RLE: boolean stream ends at offset %zu after %zu of %zu values",
                 (size_t)(d->rle.p - d->start), got, n);
        break;
    }
    case CF_PQE_BYTE_STREAM_SPLIT: get_bss(d, o, n); break;
    case CF_PQE_DELTA_BINARY_PACKED: CF_TRY(cf_pq_dbp_get(&d->dbp, o, n, err)); break;
    case CF_PQE_DELTA_LENGTH_BYTE_ARRAY:
        CF_TRY(get_dlba(d, out, n, "DELTA_LENGTH_BYTE_ARRAY", err));
        break;
    case CF_PQE_DELTA_BYTE_ARRAY: CF_TRY(get_dba(d, o, n, err)); break;
    default: return unsupported(d->encoding, d->type, err);
    }
    d->left -= n;
    return CF_OK;
}

cf_status cf_pq_decoder_view(cf_pq_decoder *d, const uint8_t **out, size_t n, cf_error *err)
{
    CF_CHECK(d->encoding == CF_PQE_PLAIN && d->type != CF_PQT_BOOLEAN &&
                 d->type != CF_PQT_BYTE_ARRAY,
             err, CF_ENOTSUP, "%s %s values cannot be viewed in place", ename(d->encoding),
             cf_pq_type_name(d->type) ? cf_pq_type_name(d->type) : "unknown");
    CF_CHECK(n <= d->left, err, CF_EINVAL, "PLAIN: %zu values asked, %zu left", n, d->left);
    *out = d->p;
    d->p += n * d->width;
    d->left -= n;
    return CF_OK;
}
