#include "varint.h"

size_t cf_varint32_encode(uint8_t *dst, uint32_t v)
{
    return cf_varint64_encode(dst, v);
}

size_t cf_varint64_encode(uint8_t *dst, uint64_t v)
{
    size_t n = 0;
    while (v >= 0x80) {
        dst[n++] = (uint8_t)(v | 0x80);
        v >>= 7;
    }
    dst[n++] = (uint8_t)v;
    return n;
}

size_t cf_varint64_len(uint64_t v)
{
    size_t n = 1;
    while (v >= 0x80) {
        v >>= 7;
        n++;
    }
    return n;
}

static const uint8_t *decode(const uint8_t *p, const uint8_t *end, unsigned max_bytes,
                             uint64_t *out)
{
    uint64_t v = 0;
    for (unsigned i = 0; i < max_bytes; i++) {
        if (p == end)
            return NULL;
        uint8_t b = *p++;
        v |= (uint64_t)(b & 0x7f) << (7 * i);
        if (!(b & 0x80)) {
            *out = v;
            return p;
        }
    }
    return NULL;
}

const uint8_t *cf_varint32_decode_any(const uint8_t *p, const uint8_t *end, uint32_t *out)
{
    uint64_t v;
    const uint8_t *q = decode(p, end, 5, &v);
    if (q)
        *out = (uint32_t)v;
    return q;
}

const uint8_t *cf_varint64_decode_any(const uint8_t *p, const uint8_t *end, uint64_t *out)
{
    return decode(p, end, 10, out);
}
