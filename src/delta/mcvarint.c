/* Memcomparable varints (sqlite4 style, format §1.5) and DeltaKeys (format §12.2).
 *
 *   first byte A0   | total bytes | value
 *   0..240          | 1           | A0
 *   241..248        | 2           | 240 + 256*(A0-241) + A1
 *   249             | 3           | 2288 + 256*A1 + A2
 *   250..255        | A0-246      | the following A0-247 bytes, big-endian
 *
 * DeltaKey = mcvarint(row) || mcvarint(timestamp): both parts sort as numbers
 * under memcmp, so encoded keys sort by (row, ts).
 */
#include <cfile/delta.h>

#include "util/error.h"

size_t cf_mcvarint_encode(uint8_t *dst, uint64_t v)
{
    if (v <= 240) {
        dst[0] = (uint8_t)v;
        return 1;
    }
    if (v <= 2287) {
        dst[0] = (uint8_t)((v - 240) / 256 + 241);
        dst[1] = (uint8_t)((v - 240) % 256);
        return 2;
    }
    if (v <= 67823) {
        dst[0] = 249;
        dst[1] = (uint8_t)((v - 2288) >> 8);
        dst[2] = (uint8_t)(v - 2288);
        return 3;
    }
    /* 250 + (bytes - 3) marker, then `bytes` big-endian bytes (3..8). */
    size_t bytes = 3;
    while (bytes < 8 && (v >> (8 * bytes)) != 0)
        bytes++;
    dst[0] = (uint8_t)(247 + bytes);
    for (size_t i = 0; i < bytes; i++)
        dst[1 + i] = (uint8_t)(v >> (8 * (bytes - 1 - i)));
    return bytes + 1;
}

size_t cf_mcvarint_decode(const uint8_t *p, size_t len, uint64_t *out)
{
    if (len == 0)
        return 0;
    uint8_t a0 = p[0];
    if (a0 <= 240) {
        *out = a0;
        return 1;
    }
    if (a0 <= 248) {
        if (len < 2)
            return 0;
        *out = 240 + 256 * (uint64_t)(a0 - 241) + p[1];
        return 2;
    }
    if (a0 == 249) {
        if (len < 3)
            return 0;
        *out = 2288 + 256 * (uint64_t)p[1] + p[2];
        return 3;
    }
    size_t bytes = (size_t)a0 - 247; /* format §1.5: 250..255 -> 3..8 bytes */
    if (len - 1 < bytes)
        return 0;
    uint64_t v = 0;
    for (size_t i = 0; i < bytes; i++)
        v = (v << 8) | p[1 + i];
    *out = v;
    return bytes + 1;
}

size_t cf_delta_key_encode(uint8_t *dst, uint32_t row, uint64_t ts)
{
    size_t n = cf_mcvarint_encode(dst, row);
    return n + cf_mcvarint_encode(dst + n, ts);
}

cf_status cf_delta_key_decode(const uint8_t *p, size_t len, uint32_t *row, uint64_t *ts,
                              size_t *used, cf_error *err)
{
    uint64_t r;
    size_t a = cf_mcvarint_decode(p, len, &r);
    CF_CHECK(a != 0, err, CF_ECORRUPT, "delta key: bad rowid (%zu bytes)", len);
    /* Row ordinals inside a rowset are 32-bit (Kudu's rowid_t). */
    CF_CHECK(r <= UINT32_MAX, err, CF_ECORRUPT, "delta key: rowid %" PRIu64 " exceeds 32 bits", r);
    size_t b = cf_mcvarint_decode(p + a, len - a, ts);
    CF_CHECK(b != 0, err, CF_ECORRUPT, "delta key: bad timestamp (%zu bytes)", len);
    *row = (uint32_t)r;
    *used = a + b;
    return CF_OK;
}

int cf_delta_schema_find(const cf_delta_column *cols, size_t ncols, uint32_t id)
{
    for (size_t i = 0; i < ncols; i++)
        if (cols[i].id == id)
            return (int)i;
    return -1;
}
