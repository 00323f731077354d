/* The page value encoders, the mirror of values.c (same layouts, see there).
 * The writer picks the encoding; these only lay the bytes out. Choices where
 * the format leaves room: DELTA_BINARY_PACKED blocks of 128 values in 4
 * miniblocks (delta.c), RLE runs from 8 equal values (levels.c), and
 * DELTA_BYTE_ARRAY prefixes as long as possible.
 */
#include "encoding.h"

#include <string.h>

#include "util/alloc.h"
#include "util/endian.h"
#include "util/error.h"

static cf_status bad_pair(unsigned encoding, unsigned type, cf_error *err)
{
    const char *e = cf_pq_encoding_name(encoding), *t = cf_pq_type_name(type);
    CF_FAIL(err, CF_EINVAL, "cannot encode %s values as %s", t ? t : "unknown",
            e ? e : "an unknown encoding");
}

static cf_status put_plain(cf_buf *out, unsigned type, size_t width, const void *vals, size_t n,
                           cf_error *err)
{
    const uint8_t *v = vals;
    if (type == CF_PQT_BOOLEAN) {
        uint8_t *q = cf_buf_extend(out, n / 8 + (n % 8 != 0));
        if (q == NULL)
            goto oom;
        memset(q, 0, n / 8 + (n % 8 != 0));
        for (size_t i = 0; i < n; i++)
            q[i >> 3] |= (uint8_t)((v[i] != 0) << (i & 7));
    } else if (type == CF_PQT_BYTE_ARRAY) {
        const cf_slice *s = vals;
        for (size_t i = 0; i < n; i++) {
            CF_CHECK(s[i].len <= INT32_MAX, err, CF_EINVAL,
                     "PLAIN: BYTE_ARRAY value %zu has %zu bytes, more than 2^31 - 1", i, s[i].len);
            cf_buf_put_le32(out, (uint32_t)s[i].len);
            cf_buf_append(out, s[i].data, s[i].len);
        }
    } else {
        size_t len;
        CF_CHECK(cf_mul_ok(n, width, &len), err, CF_EINVAL, "PLAIN: %zu values overflow", n);
        cf_buf_append(out, v, len);
    }
    if (out->oom)
        goto oom;
    return CF_OK;
oom:
    CF_FAIL(err, CF_ENOMEM, "PLAIN: cannot allocate the encoded values");
}

static cf_status put_bss(cf_buf *out, size_t k, const uint8_t *v, size_t n, cf_error *err)
{
    size_t len;
    CF_CHECK(cf_mul_ok(n, k, &len), err, CF_EINVAL, "BYTE_STREAM_SPLIT: %zu values overflow", n);
    uint8_t *q = cf_buf_extend(out, len);
    CF_CHECK(q != NULL || len == 0, err, CF_ENOMEM, "BYTE_STREAM_SPLIT: cannot allocate %zu bytes",
             len);
    for (size_t s = 0; s < k; s++)
        for (size_t i = 0; i < n; i++)
            q[s * n + i] = v[i * k + s];
    return CF_OK;
}

/* Lengths (as INT32 DELTA_BINARY_PACKED), then every value's bytes. */
static cf_status put_dlba(cf_buf *out, const cf_slice *s, size_t n, cf_error *err)
{
    cf_status st = CF_OK;
    int32_t *lens = cf_malloc((n ? n : 1) * sizeof *lens);
    CF_CHECK(lens != NULL, err, CF_ENOMEM, "DELTA_LENGTH_BYTE_ARRAY: cannot allocate %zu lengths",
             n);
    for (size_t i = 0; i < n; i++) {
        if (s[i].len > INT32_MAX)
            CF_FAIL_OUT(err, CF_EINVAL, "DELTA_LENGTH_BYTE_ARRAY: value %zu has %zu bytes", i,
                        s[i].len);
        lens[i] = (int32_t)s[i].len;
    }
    CF_TRY_OUT(cf_pq_dbp_encode(out, 32, lens, n, err));
    for (size_t i = 0; i < n; i++)
        cf_buf_append(out, s[i].data, s[i].len);
    if (out->oom)
        CF_FAIL_OUT(err, CF_ENOMEM, "DELTA_LENGTH_BYTE_ARRAY: cannot allocate the encoded values");
out:
    cf_free(lens);
    return st;
}

static cf_status put_dba(cf_buf *out, const cf_slice *s, size_t n, cf_error *err)
{
    cf_status st = CF_OK;
    int32_t *pre = cf_malloc((n ? n : 1) * sizeof *pre);
    cf_slice *suf = cf_malloc((n ? n : 1) * sizeof *suf);
    if (pre == NULL || suf == NULL)
        CF_FAIL_OUT(err, CF_ENOMEM, "DELTA_BYTE_ARRAY: cannot allocate %zu lengths", n);
    for (size_t i = 0; i < n; i++) {
        size_t p = 0;
        if (i > 0) {
            size_t m = s[i].len < s[i - 1].len ? s[i].len : s[i - 1].len;
            if (m > INT32_MAX)
                m = INT32_MAX;
            while (p < m && s[i].data[p] == s[i - 1].data[p])
                p++;
        }
        pre[i] = (int32_t)p;
        suf[i].data = s[i].data + p;
        suf[i].len = s[i].len - p;
    }
    CF_TRY_OUT(cf_pq_dbp_encode(out, 32, pre, n, err));
    CF_TRY_OUT(put_dlba(out, suf, n, err));
out:
    cf_free(pre);
    cf_free(suf);
    return st;
}

cf_status cf_pq_encode(cf_buf *out, unsigned encoding, unsigned type, int32_t type_length,
                       const void *vals, size_t n, cf_error *err)
{
    const size_t width = cf_pq_value_size(type, type_length);
    if (width == 0)
        return bad_pair(encoding, type, err);
    switch (encoding) {
    case CF_PQE_PLAIN: return put_plain(out, type, width, vals, n, err);
    case CF_PQE_RLE: {
        if (type != CF_PQT_BOOLEAN)
            return bad_pair(encoding, type, err);
        size_t at = out->len;
        cf_buf_put_le32(out, 0);
        CF_TRY(cf_pq_hybrid_encode(out, vals, 1, n, 1, err));
        if (!out->oom)
            cf_store_le32(out->data + at, (uint32_t)(out->len - at - 4));
        CF_CHECK(!out->oom, err, CF_ENOMEM, "RLE: cannot allocate the encoded values");
        return CF_OK;
    }
    case CF_PQE_BYTE_STREAM_SPLIT:
        if (type == CF_PQT_BOOLEAN || type == CF_PQT_INT96 || type == CF_PQT_BYTE_ARRAY)
            return bad_pair(encoding, type, err);
        return put_bss(out, width, vals, n, err);
    case CF_PQE_DELTA_BINARY_PACKED:
        if (type != CF_PQT_INT32 && type != CF_PQT_INT64)
            return bad_pair(encoding, type, err);
        return cf_pq_dbp_encode(out, type == CF_PQT_INT32 ? 32 : 64, vals, n, err);
    case CF_PQE_DELTA_LENGTH_BYTE_ARRAY:
        if (type != CF_PQT_BYTE_ARRAY)
            return bad_pair(encoding, type, err);
        return put_dlba(out, vals, n, err);
    case CF_PQE_DELTA_BYTE_ARRAY: {
        if (type == CF_PQT_BYTE_ARRAY)
            return put_dba(out, vals, n, err);
        if (type != CF_PQT_FIXED_LEN_BYTE_ARRAY)
            return bad_pair(encoding, type, err);
        cf_slice *s = cf_malloc((n ? n : 1) * sizeof *s);
        CF_CHECK(s != NULL, err, CF_ENOMEM, "DELTA_BYTE_ARRAY: cannot allocate %zu slices", n);
        for (size_t i = 0; i < n; i++) {
            s[i].data = (const uint8_t *)vals + i * width;
            s[i].len = width;
        }
        cf_status st = put_dba(out, s, n, err);
        cf_free(s);
        return st;
    }
    default: return bad_pair(encoding, type, err);
    }
}
