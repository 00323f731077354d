/* Value-index keys: Kudu's memcomparable single-column key encoding (format
 * §1.8) and the key shortening of §9.2. */
#include "internal.h"

#include <string.h>

#include "util/endian.h"

bool cf_key_supported(cf_type t)
{
    return t != CF_TYPE_BOOL && t != CF_TYPE_FLOAT && t != CF_TYPE_DOUBLE && cf_type_valid(t);
}

static bool type_signed(cf_type t)
{
    switch (t) {
    case CF_TYPE_UINT8:
    case CF_TYPE_UINT16:
    case CF_TYPE_UINT32:
    case CF_TYPE_UINT64: return false;
    default: return true;
    }
}

void cf_key_encode(cf_type t, const void *value, cf_buf *out)
{
    cf_buf_clear(out);
    if (cf_type_is_binary(t)) {
        const cf_slice *s = value;
        cf_buf_append(out, s->data, s->len);
        return;
    }
    uint8_t k[16];
    size_t n = cf_key_encode_fixed(t, value, k);
    cf_buf_append(out, k, n);
}

size_t cf_key_encode_fixed(cf_type t, const void *value, uint8_t out[16])
{
    /* Integers: big-endian, with the sign bit flipped for signed types so that
     * unsigned byte order equals numeric order. */
    size_t n = cf_type_size(t);
    uint8_t le[16];
    memcpy(le, value, n);
    if (type_signed(t))
        le[n - 1] ^= 0x80;
    for (size_t i = 0; i < n; i++)
        out[i] = le[n - 1 - i];
    return n;
}

size_t cf_key_shortened_len(cf_slice prev, cf_slice cur)
{
    size_t n = prev.len < cur.len ? prev.len : cur.len, p = 0;
    while (p < n && prev.data[p] == cur.data[p])
        p++;
    return p < cur.len ? p + 1 : cur.len;
}
